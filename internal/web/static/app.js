// Hush: copy, reveal, generate, count, print and confirm. Loaded from 'self'; no inline script.
"use strict";
(function () {
  function byId(id) { return document.getElementById(id); }

  // tr is a text of the page's language, which the page carries in
  // data-t-* attributes of el (the body by default), with its {name}
  // placeholders filled from args; fallback where the page has none.
  function tr(name, fallback, args, el) {
    var v = (el || document.body).getAttribute("data-t-" + name);
    var s = v === null ? fallback : v;
    Object.keys(args || {}).forEach(function (k) { s = s.split("{" + k + "}").join(args[k]); });
    return s;
  }

  // announce says msg to screen readers through a polite live region,
  // made once and kept out of sight.
  var live;
  function announce(msg) {
    if (!live) {
      live = document.createElement("p");
      live.className = "visually-hidden";
      live.setAttribute("role", "status");
      live.setAttribute("aria-live", "polite");
      document.body.appendChild(live);
    }
    live.textContent = "";
    setTimeout(function () { live.textContent = msg; }, 50);
  }

  document.addEventListener("click", function (ev) {
    var t = ev.target.closest("[data-copy],[data-reveal],[data-generate],[data-print],.secret.blurred");
    if (!t) return;
    if (t.dataset.copy) {
      var el = byId(t.dataset.copy);
      var text = el.value !== undefined ? el.value : el.textContent;
      navigator.clipboard.writeText(text).then(function () {
        var old = t.textContent;
        t.textContent = tr("copied", "Copied");
        announce(t.dataset.copied || tr("copied-announce", "Copied to the clipboard"));
        setTimeout(function () { t.textContent = old; }, 1500);
      }, function () {
        t.textContent = tr("copy-failed", "Copy failed: select and copy by hand");
        announce(t.textContent);
      });
    } else if (t.dataset.reveal) {
      toggle(byId(t.dataset.reveal), t);
    } else if (t.dataset.generate) {
      generateInto(byId(t.dataset.generate));
    } else if (t.hasAttribute("data-print")) {
      window.print();
    } else {
      toggle(t, document.querySelector("[data-reveal='" + t.id + "']"));
    }
  });

  document.addEventListener("keydown", function (ev) {
    if ((ev.key === "Enter" || ev.key === " ") && ev.target.matches(".secret")) {
      ev.preventDefault();
      toggle(ev.target, document.querySelector("[data-reveal='" + ev.target.id + "']"));
    }
  });

  // A form with data-confirm asks before it is sent: a dialog with the
  // question and two buttons, then the form goes with confirm=yes. Without
  // this script the server asks on a page of its own instead.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.dataset || !form.dataset.confirm || form.dataset.confirmed) return;
    ev.preventDefault();
    ask(form);
  });

  function ask(form) {
    var d = document.createElement("dialog");
    d.className = "confirm";
    d.setAttribute("aria-labelledby", "confirm-title");
    var h = document.createElement("h2");
    h.id = "confirm-title";
    h.textContent = form.dataset.confirmTitle || tr("dialog-title", "Are you sure?");
    var p = document.createElement("p");
    p.textContent = form.dataset.confirm;
    var actions = document.createElement("div");
    actions.className = "actions";
    var ok = document.createElement("button");
    ok.type = "button";
    ok.className = "danger";
    ok.id = "confirm-ok";
    ok.textContent = form.dataset.confirmButton || tr("dialog-button", "Go ahead");
    var cancel = document.createElement("button");
    cancel.type = "button";
    cancel.id = "confirm-cancel";
    cancel.textContent = tr("cancel", "Cancel");
    actions.appendChild(ok);
    actions.appendChild(cancel);
    d.appendChild(h);
    d.appendChild(p);
    d.appendChild(actions);
    ok.addEventListener("click", function () {
      var yes = document.createElement("input");
      yes.type = "hidden";
      yes.name = "confirm";
      yes.value = "yes";
      form.appendChild(yes);
      form.dataset.confirmed = "1";
      d.close();
      form.submit();
    });
    cancel.addEventListener("click", function () { d.close(); });
    d.addEventListener("close", function () { d.remove(); });
    document.body.appendChild(d);
    d.showModal();
    cancel.focus(); // the safe choice is the one Enter takes
  }

  var timer;
  function toggle(el, button) {
    var blurred = el.classList.toggle("blurred");
    if (button) button.textContent = blurred ? tr("show", "Show") : tr("hide", "Hide");
    clearTimeout(timer);
    if (!blurred) timer = setTimeout(function () { toggle(el, button); }, 20000);
  }

  // The password generator (docs/decisions.md, D46): syllables of
  // alternating consonants and vowels, with the server's defaults from the
  // data attributes of #generator, unless this browser saved its own.
  var genKey = "hush.generator";
  var genFields = {
    hasNumbers: "gen-has-numbers", titleCased: "gen-title-cased", useSeparators: "gen-use-separators",
    consonants: "gen-consonants", vowels: "gen-vowels", separators: "gen-separators",
    minSyllableLength: "gen-min-syllable-length", maxSyllableLength: "gen-max-syllable-length",
    syllablesCount: "gen-syllables-count"
  };

  // serverOptions are the operator's defaults, as the page carries them.
  function serverOptions(box) {
    var d = box.dataset;
    return {
      hasNumbers: d.hasNumbers === "true", titleCased: d.titleCased === "true", useSeparators: d.useSeparators === "true",
      consonants: d.consonants, vowels: d.vowels, separators: d.separators,
      minSyllableLength: Number(d.minSyllableLength), maxSyllableLength: Number(d.maxSyllableLength),
      syllablesCount: Number(d.syllablesCount)
    };
  }

  function savedOptions() {
    try {
      var o = JSON.parse(localStorage.getItem(genKey) || "null");
      return o && !checkOptions(o) ? o : null;
    } catch (e) {
      return null;
    }
  }

  function showOptions(o) {
    Object.keys(genFields).forEach(function (k) {
      var el = byId(genFields[k]);
      if (el.type === "checkbox") el.checked = !!o[k]; else el.value = String(o[k]);
    });
  }

  function readOptions() {
    var o = {};
    Object.keys(genFields).forEach(function (k) {
      var el = byId(genFields[k]);
      o[k] = el.type === "checkbox" ? el.checked : el.type === "number" ? Number(el.value) : el.value;
    });
    return o;
  }

  // checkOptions returns what is wrong with o, or "" when it can make a
  // password; the same rules as the server's settings.
  function checkOptions(o) {
    var maxLen = Number(byId("gen-max-syllable-length").max), maxCount = Number(byId("gen-syllables-count").max);
    var maxSet = Number(byId("gen-consonants").maxLength);
    var box = byId("generator");
    function g(name, fallback, args) { return tr(name, fallback, args, box); }
    function whole(n, hi) { return typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= hi; }
    if (!whole(o.syllablesCount, maxCount)) return g("syllables", "Syllables must be a whole number from 1 to " + maxCount + ".");
    if (!whole(o.minSyllableLength, maxLen) || !whole(o.maxSyllableLength, maxLen)) {
      return g("lengths", "Syllable lengths must be whole numbers from 1 to " + maxLen + ".");
    }
    if (o.minSyllableLength > o.maxSyllableLength) return g("order", "The shortest syllable must not be longer than the longest.");
    var sets = [["consonants", "Consonants", true], ["vowels", "Vowels", true], ["separators", "Separators", o.useSeparators]];
    for (var i = 0; i < sets.length; i++) {
      var v = o[sets[i][0]], name = { name: g(sets[i][0], sets[i][1]) };
      if (typeof v !== "string") return g("missing", "{name} are missing.", name);
      var chars = Array.from(v);
      if (sets[i][2] && chars.length === 0) return g("empty", "{name} must not be empty.", name);
      if (chars.length > maxSet) return g("too-long", "{name}: at most " + maxSet + " characters.", name);
      if (/\s/.test(v)) return g("spaces", "{name} must not contain spaces.", name);
      if (new Set(chars).size !== chars.length) return g("repeat", "{name} must not repeat a character.", name);
    }
    return "";
  }

  // randomBelow returns a uniform random integer in [0, n), from
  // crypto.getRandomValues, rejecting the values that would bias a modulo.
  var rnd = new Uint32Array(1);
  function randomBelow(n) {
    var limit = 4294967296 - (4294967296 % n);
    do { crypto.getRandomValues(rnd); } while (rnd[0] >= limit);
    return rnd[0] % n;
  }
  function pick(chars) { return chars[randomBelow(chars.length)]; }

  function generate(o) {
    var sets = [Array.from(o.consonants), Array.from(o.vowels)], seps = Array.from(o.separators);
    var out = "";
    for (var i = 0; i < o.syllablesCount; i++) {
      var n = o.minSyllableLength + randomBelow(o.maxSyllableLength - o.minSyllableLength + 1);
      var which = randomBelow(2), letters = [];
      for (var j = 0; j < n; j++, which = 1 - which) letters.push(pick(sets[which]));
      if (o.titleCased) letters[0] = letters[0].toUpperCase();
      if (i > 0 && o.useSeparators) out += pick(seps);
      out += letters.join("") + (o.hasNumbers ? String(randomBelow(10)) : "");
    }
    return out;
  }

  function genMessage(error, source) {
    byId("gen-error").textContent = error || "";
    if (source !== undefined) byId("gen-source").textContent = source;
  }

  function generateInto(field) {
    var box = byId("generator");
    var o = box ? readOptions() : null;
    var bad = o ? checkOptions(o) : tr("absent", "The generator is missing.", null, document.querySelector("[data-generate]"));
    if (bad) {
      if (!box) return announce(bad);
      genMessage(bad);
      if (byId("generator-options")) byId("generator-options").open = true;
      announce(tr("not-generated", "No password generated: {reason}", { reason: bad }, box));
      return;
    }
    genMessage("");
    field.value = generate(o);
    field.dispatchEvent(new Event("input", { bubbles: true }));
    announce(tr("generated", "Password generated", null, box));
  }

  function setUpGenerator() {
    var box = byId("generator");
    if (!box) return;
    function g(name, fallback, args) { return tr(name, fallback, args, box); }
    var fromBrowser = g("source-saved", "Using the defaults saved in this browser.");
    var fromServer = g("source-server", "Using the server's defaults.");
    var saved = savedOptions();
    showOptions(saved || serverOptions(box));
    genMessage("", saved ? fromBrowser : fromServer);
    byId("gen-save").addEventListener("click", function () {
      var o = readOptions(), bad = checkOptions(o);
      if (bad) {
        genMessage(bad);
        announce(g("not-saved", "Not saved: {reason}", { reason: bad }));
        return;
      }
      try {
        localStorage.setItem(genKey, JSON.stringify(o));
      } catch (e) {
        var no = g("no-storage", "This browser does not let the page save settings.");
        genMessage(no);
        announce(g("not-saved", "Not saved: {reason}", { reason: no }));
        return;
      }
      genMessage("", fromBrowser);
      announce(g("saved", "Saved as the default in this browser"));
    });
    byId("gen-reset").addEventListener("click", function () {
      try { localStorage.removeItem(genKey); } catch (e) { /* nothing was saved */ }
      showOptions(serverOptions(box));
      genMessage("", fromServer);
      announce(g("reset", "Reset to the server's defaults"));
    });
  }

  // The payload's character counter: the characters as the server counts
  // them (code points; a line break is sent as CR LF, two), against the
  // limit of the kind. It updates as one types; screen readers hear it
  // politely once typing pauses, and at once when the limit is crossed.
  function sentLength(v) {
    var n = 0;
    for (var i = 0; i < v.length; i++) {
      var c = v.charCodeAt(i);
      if (c >= 0xDC00 && c <= 0xDFFF && i > 0) {
        var p = v.charCodeAt(i - 1);
        if (p >= 0xD800 && p <= 0xDBFF) continue; // the second half of a pair
      }
      n += c === 10 ? 2 : 1;
    }
    return n;
  }
  // grouped writes a count the way the page's language does.
  function grouped(n) {
    try {
      return new Intl.NumberFormat(document.documentElement.lang || "en").format(n);
    } catch (e) {
      return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    }
  }

  function setUpCounter() {
    var out = document.querySelector("[data-count]");
    if (!out) return;
    var field = byId(out.dataset.count), live = byId(out.id + "-live");
    var limit = Number(out.dataset.limit), wasOver = false, pause;
    function update() {
      var n = sentLength(field.value), over = limit > 0 && n > limit;
      var msg = tr("counter", "{n} of " + grouped(limit) + " characters", { n: grouped(n) }, out);
      if (over) msg += ": " + tr("over", "{n} too many", { n: grouped(n - limit) }, out);
      out.textContent = msg;
      out.classList.toggle("over", over);
      if (over) field.setAttribute("aria-invalid", "true"); else field.removeAttribute("aria-invalid");
      clearTimeout(pause);
      if (over !== wasOver) live.textContent = msg; else pause = setTimeout(function () { live.textContent = msg; }, 800);
      wasOver = over;
    }
    field.addEventListener("input", update);
    update();
    live.textContent = "";
    clearTimeout(pause);
  }

  setUpGenerator();
  setUpCounter();
})();
