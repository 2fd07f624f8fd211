// Hush: the colour scheme a visitor chose (auto, light or dark), kept in
// this browser's localStorage. Loaded in <head> without defer, so that the
// choice is on <html> before the page is first drawn; no inline script.
// Without it the page follows prefers-color-scheme (auto).
"use strict";
(function () {
  var key = "hush-theme";
  var root = document.documentElement;

  function stored() {
    try {
      var v = localStorage.getItem(key);
      return v === "light" || v === "dark" ? v : "auto";
    } catch (e) {
      return "auto"; // storage refused (privacy settings): auto
    }
  }

  function apply(v) {
    if (v === "light" || v === "dark") root.setAttribute("data-theme", v);
    else root.removeAttribute("data-theme");
  }

  apply(stored());

  // Another tab of this site changed the choice.
  window.addEventListener("storage", function (ev) {
    if (ev.key === key || ev.key === null) {
      apply(stored());
      var sel = document.getElementById("theme");
      if (sel) sel.value = stored();
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    var sel = document.getElementById("theme");
    if (!sel) return;
    sel.value = stored();
    var box = document.getElementById("theme-switch");
    if (box) box.hidden = false;
    sel.addEventListener("change", function () {
      var v = sel.value;
      try {
        if (v === "light" || v === "dark") localStorage.setItem(key, v);
        else localStorage.removeItem(key);
      } catch (e) { /* not kept, but applied to this page */ }
      apply(v);
    });
  });
})();
