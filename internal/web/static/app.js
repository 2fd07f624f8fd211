// Hush: copy, reveal, generate and confirm. Loaded from 'self'; no inline script.
"use strict";
(function () {
  function byId(id) { return document.getElementById(id); }

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
    var t = ev.target.closest("[data-copy],[data-reveal],[data-generate],.secret.blurred");
    if (!t) return;
    if (t.dataset.copy) {
      var el = byId(t.dataset.copy);
      var text = el.value !== undefined ? el.value : el.textContent;
      navigator.clipboard.writeText(text).then(function () {
        var old = t.textContent;
        t.textContent = "Copied";
        announce("Copied to the clipboard");
        setTimeout(function () { t.textContent = old; }, 1500);
      }, function () {
        t.textContent = "Copy failed: select and copy by hand";
        announce(t.textContent);
      });
    } else if (t.dataset.reveal) {
      toggle(byId(t.dataset.reveal), t);
    } else if (t.dataset.generate) {
      byId(t.dataset.generate).value = generate(20);
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
    h.textContent = form.dataset.confirmTitle || "Are you sure?";
    var p = document.createElement("p");
    p.textContent = form.dataset.confirm;
    var actions = document.createElement("div");
    actions.className = "actions";
    var ok = document.createElement("button");
    ok.type = "button";
    ok.className = "danger";
    ok.id = "confirm-ok";
    ok.textContent = form.dataset.confirmButton || "Go ahead";
    var cancel = document.createElement("button");
    cancel.type = "button";
    cancel.id = "confirm-cancel";
    cancel.textContent = "Cancel";
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
    if (button) button.textContent = blurred ? "Show" : "Hide";
    clearTimeout(timer);
    if (!blurred) timer = setTimeout(function () { toggle(el, button); }, 20000);
  }

  function generate(n) {
    var alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789-_!.";
    var out = "", buf = new Uint8Array(1);
    var limit = 256 - (256 % alphabet.length); // reject to avoid modulo bias
    while (out.length < n) {
      crypto.getRandomValues(buf);
      if (buf[0] < limit) out += alphabet[buf[0] % alphabet.length];
    }
    return out;
  }
})();
