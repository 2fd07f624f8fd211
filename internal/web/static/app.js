// Hush: copy, reveal and generate. Loaded from 'self'; no inline script.
"use strict";
(function () {
  function byId(id) { return document.getElementById(id); }

  document.addEventListener("click", function (ev) {
    var t = ev.target.closest("[data-copy],[data-reveal],[data-generate],.secret.blurred");
    if (!t) return;
    if (t.dataset.copy) {
      var el = byId(t.dataset.copy);
      var text = el.value !== undefined ? el.value : el.textContent;
      navigator.clipboard.writeText(text).then(function () {
        var old = t.textContent;
        t.textContent = "Copied";
        setTimeout(function () { t.textContent = old; }, 1500);
      }, function () { t.textContent = "Copy failed: select and copy by hand"; });
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
