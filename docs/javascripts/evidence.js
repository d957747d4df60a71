/* A statement's mark (attn_examples/claims/evidence.py): a tap or a click opens or closes what the
   statement rests on, Escape or a tap elsewhere closes it, and the popup is kept inside the screen.
   Hover and keyboard focus open it without this script (docs/stylesheets/attn.css). No dependencies. */
(function () {
  "use strict";

  function close(ev) {
    ev.classList.remove("open");
    var button = ev.querySelector(".attn-ev-mark");
    if (button) button.setAttribute("aria-expanded", "false");
  }

  function fit(ev) {
    var pop = ev.querySelector(".attn-ev-pop");
    if (!pop) return;
    pop.style.left = "0px";
    var box = pop.getBoundingClientRect();
    var room = document.documentElement.clientWidth - 8;
    if (box.right > room) pop.style.left = Math.min(0, room - box.right) + "px";
    box = pop.getBoundingClientRect();
    if (box.left < 8) pop.style.left = (parseFloat(pop.style.left) + 8 - box.left) + "px";
  }

  function openOnly(ev) {
    Array.prototype.forEach.call(document.querySelectorAll(".attn-ev.open"), function (other) {
      if (other !== ev) close(other);
    });
    ev.classList.add("open");
    ev.querySelector(".attn-ev-mark").setAttribute("aria-expanded", "true");
    fit(ev);
  }

  function init() {
    document.documentElement.classList.add("attn-js");
    Array.prototype.forEach.call(document.querySelectorAll(".attn-ev:not([data-ready])"), function (ev) {
      ev.setAttribute("data-ready", "");
      var button = ev.querySelector(".attn-ev-mark");
      button.addEventListener("click", function (event) {
        event.stopPropagation();
        if (ev.classList.contains("open")) close(ev); else openOnly(ev);
      });
      ev.addEventListener("mouseenter", function () { fit(ev); });
    });
  }

  document.addEventListener("click", function (event) {
    Array.prototype.forEach.call(document.querySelectorAll(".attn-ev.open"), function (ev) {
      if (!ev.contains(event.target)) close(ev);
    });
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    Array.prototype.forEach.call(document.querySelectorAll(".attn-ev.open"), function (ev) {
      close(ev);
      ev.querySelector(".attn-ev-mark").focus();
    });
  });

  if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(init);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
