/* Interactive timelines (attn_examples/render/timeline.py draws them; this adds to what already works
   without a script) and the "Open in Perfetto" buttons beside the trace links.

   - a styled tooltip on hover, tap and keyboard focus, from each mark's <title> (moved to its
     aria-label, so the browser's own hover text does not double it);
   - zoom (buttons, Ctrl/⌘ + wheel, + and −) and pan (drag, horizontal wheel, Shift + ← →), 0 resets;
   - one Tab stop per timeline: ← → move along a row, ↑ ↓ between rows, Home / End;
   - labels fitted to the measured width of each mark.

   Nothing here talks to another host, except the Perfetto button, and only when it is clicked: it
   fetches the trace file from this site and hands it to ui.perfetto.dev through Perfetto's
   documented postMessage handshake (PING until PONG, then {perfetto: {buffer, title, fileName}}).
   No dependencies. Material's navigation.instant is off (mkdocs.yml), but document$ is used when
   Material provides it, so pages swapped in by instant navigation would be set up too. */
(function () {
  "use strict";

  var PERFETTO = "https://ui.perfetto.dev";
  var SVGNS = "http://www.w3.org/2000/svg";
  var MIN_PX = 2;          // the narrowest a mark is drawn
  var LABEL_PAD = 8;       // px of room a label leaves inside its mark
  var ZOOM = 1.5;
  var MIN_SPAN = 1;        // µs: the deepest zoom

  function init() {
    document.documentElement.classList.add("attn-js");
    Array.prototype.forEach.call(document.querySelectorAll("figure.attn-timeline:not([data-ready])"), setup);
    Array.prototype.forEach.call(document.querySelectorAll("button.attn-perfetto:not([data-ready])"), setupPerfetto);
  }

  // ---- the timeline -------------------------------------------------------------------------

  var widths = {};
  var canvas = null;

  function textWidth(text, font) {
    var key = font + "\u0000" + text;
    if (!(key in widths)) {
      canvas = canvas || document.createElement("canvas");
      var ctx = canvas.getContext("2d");
      ctx.font = font;
      widths[key] = ctx.measureText(text).width;
    }
    return widths[key];
  }

  function niceStep(span, target) {
    var raw = span / target;
    var magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    var factors = [1, 2, 2.5, 5, 10];
    for (var i = 0; i < factors.length; i++) {
      if (factors[i] * magnitude >= raw) return factors[i] * magnitude;
    }
    return 10 * magnitude;
  }

  function digitsFor(step) {
    var exponent = Math.floor(Math.log10(step));
    var mantissa = Math.round(step / Math.pow(10, exponent) * 1000) / 1000;
    return Math.max(0, -exponent + (mantissa === 2.5 ? 1 : 0));   // 25 → 0, 2.5 → 1, 0.25 → 2
  }

  function fmt(value, digits) {
    return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }

  function svgEl(name, attrs) {
    var el = document.createElementNS(SVGNS, name);
    for (var key in attrs) el.setAttribute(key, attrs[key]);
    return el;
  }

  function setup(fig) {
    var svg = fig.querySelector("svg.tl-svg");
    if (!svg) return;
    fig.setAttribute("data-ready", "");
    var end = parseFloat(svg.getAttribute("data-end")) || 1;
    var plot = fig.querySelector(".tl-plot");
    var axis = svg.querySelector(".tl-axis");
    var grid = svg.querySelector(".tl-grid");
    var range = fig.querySelector(".tl-range");
    var keys = fig.querySelector(".tl-keys");
    var toolbar = fig.querySelector(".tl-toolbar");
    var firstGridline = grid.querySelector("line");
    var gridTop = firstGridline ? firstGridline.getAttribute("y1") : "37";
    var gridBottom = firstGridline ? firstGridline.getAttribute("y2") : svg.getAttribute("height");
    var tickY = axis.querySelector(".tl-tick") ? axis.querySelector(".tl-tick").getAttribute("y") : "32";

    // each mark: its times, its tooltip text (the <title>, moved to aria-label), one fitted label
    var items = Array.prototype.map.call(svg.querySelectorAll(".tl-mark"), function (g) {
      var title = g.querySelector("title");
      var text = title ? title.textContent : (g.getAttribute("aria-label") || "");
      if (title) title.parentNode.removeChild(title);
      g.setAttribute("aria-label", text);
      g.setAttribute("tabindex", "-1");
      var rect = g.querySelector("rect");
      Array.prototype.forEach.call(g.querySelectorAll("text.tl-label"), function (t) { t.parentNode.removeChild(t); });
      var y = parseFloat(rect.getAttribute("y")) + parseFloat(rect.getAttribute("height")) / 2;
      var label = svgEl("text", { "class": "tl-label", y: String(y), x: "0" });
      g.appendChild(label);
      var candidates = [];
      try { candidates = JSON.parse(g.getAttribute("data-labels") || "[]"); } catch (err) { candidates = []; }
      return {
        g: g, rect: rect, label: label, candidates: candidates, tip: text,
        i: parseInt(g.getAttribute("data-i"), 10), s: parseFloat(g.getAttribute("data-s")),
        e: parseFloat(g.getAttribute("data-e")), track: parseInt(g.getAttribute("data-track"), 10),
        gpu: g.classList.contains("tl-gpu")
      };
    });
    if (!items.length) return;
    var byIndex = {};
    items.forEach(function (it) { byIndex[it.i] = it; });
    var tracks = {};
    items.forEach(function (it) { (tracks[it.track] = tracks[it.track] || []).push(it); });
    var trackIds = Object.keys(tracks).map(Number).sort(function (a, b) { return a - b; });
    trackIds.forEach(function (k) { tracks[k].sort(function (a, b) { return a.s - b.s; }); });
    var links = Array.prototype.map.call(svg.querySelectorAll(".tl-link"), function (line) {
      return { line: line, from: byIndex[line.getAttribute("data-from")], to: byIndex[line.getAttribute("data-to")] };
    });
    var lo = Math.min(0, Math.min.apply(null, items.map(function (it) { return it.s; })));
    var hi = Math.max(end, Math.max.apply(null, items.map(function (it) { return it.e; })));
    var view = { a: 0, b: end };
    var current = items[0];
    current.g.setAttribute("tabindex", "0");
    var ring = svgEl("rect", { "class": "tl-ring", rx: "2" });
    ring.style.display = "none";
    svg.appendChild(ring);
    var tip = document.createElement("div");
    tip.className = "tl-tip";
    tip.id = fig.id + "-tip";
    tip.setAttribute("role", "tooltip");
    tip.hidden = true;
    fig.appendChild(tip);
    if (toolbar) toolbar.hidden = false;
    if (keys) { keys.hidden = false; svg.setAttribute("aria-describedby", keys.id); }
    var font = null;
    var shown = null;

    function width() { return svg.getBoundingClientRect().width || 1; }

    function pct(t) { return (t - view.a) / (view.b - view.a) * 100; }

    function clampPct(x) { return Math.max(-1000, Math.min(1100, x)); }

    function layout() {
      var w = width();
      if (!font) {
        var cs = getComputedStyle(items[0].label);
        font = cs.fontWeight + " " + cs.fontSize + " " + cs.fontFamily;
      }
      items.forEach(function (it) {
        var x0 = pct(it.s), x1 = pct(it.e);
        if ((x1 - x0) / 100 * w < MIN_PX) x1 = x0 + MIN_PX / w * 100;
        var c0 = Math.max(x0, -5), c1 = Math.min(x1, 105);
        it.rect.setAttribute("x", clampPct(c0).toFixed(4) + "%");
        it.rect.setAttribute("width", Math.max(0, c1 - c0).toFixed(4) + "%");
        var v0 = Math.max(x0, 0), v1 = Math.min(x1, 100);
        var room = (v1 - v0) / 100 * w - LABEL_PAD;
        var text = "";
        for (var k = 0; k < it.candidates.length && room > 0; k++) {
          if (textWidth(it.candidates[k], font) <= room) { text = it.candidates[k]; break; }
        }
        if (it.label.textContent !== text) it.label.textContent = text;
        it.label.style.display = text ? "" : "none";
        if (text) it.label.setAttribute("x", ((v0 + v1) / 2).toFixed(4) + "%");
      });
      // a link is drawn while both its ends are in view: one running off the side would cross the
      // lanes almost flat, through the lane names
      links.forEach(function (l) {
        var from = pct(l.from.s), to = pct(l.to.s);
        var inView = from >= -1 && from <= 101 && to >= -1 && to <= 101;
        l.line.style.display = inView ? "" : "none";
        l.line.setAttribute("x1", clampPct(from).toFixed(4) + "%");
        l.line.setAttribute("x2", clampPct(to).toFixed(4) + "%");
      });
      drawAxis(w);
      placeRing();
      fig.setAttribute("data-view-start", String(view.a));
      fig.setAttribute("data-view-end", String(view.b));
      if (range) {
        var d = digitsFor(niceStep(view.b - view.a, 8));
        range.textContent = (range.getAttribute("data-template") || "{a}–{b}")
          .replace("{a}", fmt(view.a, d)).replace("{b}", fmt(view.b, d));
      }
    }

    function drawAxis(w) {
      var span = view.b - view.a;
      var target = Math.max(2, Math.min(10, Math.floor(w / 95)));
      var step = niceStep(span, target);
      var digits = digitsFor(step);
      Array.prototype.forEach.call(axis.querySelectorAll(".tl-tick"), function (t) { t.parentNode.removeChild(t); });
      while (grid.firstChild) grid.removeChild(grid.firstChild);
      for (var v = Math.ceil(view.a / step - 1e-9) * step; v <= view.b + 1e-9; v += step) {
        var x = pct(v);
        var anchor = x < 3 ? "start" : (x > 97 ? "end" : "middle");
        var label = svgEl("text", { "class": "tl-tick", x: x.toFixed(4) + "%", y: tickY, "text-anchor": anchor });
        label.textContent = fmt(Math.abs(v) < step / 1e6 ? 0 : v, digits);
        axis.appendChild(label);
        grid.appendChild(svgEl("line", { "class": "tl-gridline", x1: x.toFixed(4) + "%", x2: x.toFixed(4) + "%",
                                         y1: gridTop, y2: gridBottom }));
      }
    }

    function setView(a, b) {
      var span = Math.max(MIN_SPAN, Math.min(b - a, hi - lo));
      a = Math.max(lo, Math.min(a, hi - span));
      view.a = a;
      view.b = a + span;
      schedule();
    }

    var pending = false;
    function schedule() {
      if (pending) return;
      pending = true;
      window.requestAnimationFrame(function () { pending = false; layout(); if (shown) placeTip(shown.it, shown.at); });
    }

    function zoom(factor, at) {
      var span = view.b - view.a;
      var next = Math.max(MIN_SPAN, Math.min(span / factor, hi - lo));
      var center = at === undefined ? (view.a + view.b) / 2 : at;
      var a = center - (center - view.a) * next / span;
      setView(a, a + next);
    }

    function pan(fraction) {
      var shift = (view.b - view.a) * fraction;
      setView(view.a + shift, view.b + shift);
    }

    function reset() { setView(0, end); }

    function reveal(it) {
      if (it.e >= view.a && it.s <= view.b) return;
      var span = view.b - view.a;
      var center = (it.s + it.e) / 2;
      setView(center - span / 2, center + span / 2);
    }

    // -- tooltip and highlight --
    function placeTip(it, at) {
      var box = fig.getBoundingClientRect();
      var x, y;
      if (at) {
        x = at.x - box.left + 14;
        y = at.y - box.top + 18;
      } else {   // keyboard focus: under the plot, so the lanes below the mark stay in sight
        var r = it.rect.getBoundingClientRect();
        var plotBox = svg.getBoundingClientRect();
        x = Math.max(r.left, plotBox.left) - box.left;
        y = plotBox.bottom - box.top + 4;
      }
      var w = tip.offsetWidth;
      x = Math.max(0, Math.min(x, box.width - w));
      tip.style.left = x + "px";
      tip.style.top = y + "px";
    }

    function show(it, at) {
      if (!shown || shown.it !== it) {
        tip.textContent = "";
        var lines = it.tip.split("\n");
        var head = document.createElement("strong");
        head.textContent = lines[0];
        tip.appendChild(head);
        for (var k = 1; k < lines.length; k++) {
          if (it.gpu && k === lines.length - 1 && lines[k] === lines[0]) break;   // the full name, already shown
          var row = document.createElement("div");
          if (it.gpu && k === lines.length - 1) row.className = "tl-tip-full";
          row.textContent = lines[k];
          tip.appendChild(row);
        }
        highlight(it);
      }
      tip.hidden = false;
      shown = { it: it, at: at };
      placeTip(it, at);
    }

    function hide() {
      tip.hidden = true;
      shown = null;
      highlight(null);
    }

    function highlight(it) {
      links.forEach(function (l) {
        var hot = it !== null && (l.from === it || l.to === it);
        l.line.classList.toggle("tl-hot", hot);
        (l.from === it ? l.to : l.from).g.classList.toggle("tl-partner", hot);
      });
    }

    function placeRing() {
      var focused = document.activeElement && document.activeElement.closest
        ? document.activeElement.closest(".tl-mark") : null;
      var it = focused && svg.contains(focused) ? byIndex[focused.getAttribute("data-i")] : null;
      var visible = false;
      try { visible = !!it && it.g.matches(":focus-visible"); } catch (err) { visible = !!it; }
      if (!visible) { ring.style.display = "none"; return; }
      ["x", "y", "width", "height"].forEach(function (k) { ring.setAttribute(k, it.rect.getAttribute(k)); });
      ring.style.display = "";
    }

    function itemOf(target) {
      var g = target && target.closest ? target.closest(".tl-mark") : null;
      return g && svg.contains(g) ? byIndex[g.getAttribute("data-i")] : null;
    }

    // -- pointer: hover, tap, drag, wheel --
    var drag = null;
    svg.addEventListener("pointermove", function (ev) {
      if (drag) {
        var dx = ev.clientX - drag.x;
        if (!drag.moved && Math.abs(dx) > 3) {
          drag.moved = true;
          svg.classList.add("tl-dragging");
          try { svg.setPointerCapture(drag.id); } catch (err) { /* the pointer is gone */ }
        }
        if (drag.moved) {
          var shift = -dx / width() * (drag.b - drag.a);
          setView(drag.a + shift, drag.b + shift);
          hide();
        }
        return;
      }
      var it = itemOf(ev.target);
      if (it) show(it, { x: ev.clientX, y: ev.clientY });
      else if (shown && shown.at) hide();
    });
    svg.addEventListener("pointerleave", function () { if (shown && shown.at && !drag) hide(); });
    svg.addEventListener("pointerdown", function (ev) {
      if (ev.button !== 0) return;
      drag = { x: ev.clientX, a: view.a, b: view.b, moved: false, id: ev.pointerId };
    });
    function endDrag(ev) {
      if (!drag) return;
      var moved = drag.moved;
      if (moved) { try { svg.releasePointerCapture(drag.id); } catch (err) { /* not captured */ } }
      svg.classList.remove("tl-dragging");
      drag = null;
      if (!moved && ev.type === "pointerup") {
        var it = itemOf(ev.target);
        if (it) show(it, { x: ev.clientX, y: ev.clientY });   // a tap shows the details too,
        else hide();                                          // a tap on empty ground hides them
      }
    }
    svg.addEventListener("pointerup", endDrag);
    svg.addEventListener("pointercancel", endDrag);
    svg.addEventListener("wheel", function (ev) {
      var box = svg.getBoundingClientRect();
      if (ev.ctrlKey || ev.metaKey) {
        ev.preventDefault();
        var at = view.a + (ev.clientX - box.left) / box.width * (view.b - view.a);
        zoom(Math.exp(-ev.deltaY * 0.002), at);
      } else if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        ev.preventDefault();
        pan(ev.deltaX / box.width);
      }
    }, { passive: false });

    // -- keyboard --
    svg.addEventListener("focusin", function (ev) {
      var it = itemOf(ev.target);
      if (!it) return;
      if (current !== it) {
        current.g.setAttribute("tabindex", "-1");
        it.g.setAttribute("tabindex", "0");
        current = it;
      }
      reveal(it);
      placeRing();
      show(it, null);
    });
    svg.addEventListener("focusout", function (ev) {
      if (!ev.relatedTarget || !svg.contains(ev.relatedTarget)) { hide(); ring.style.display = "none"; }
    });

    function move(it) {
      if (!it) return;
      it.g.focus();
    }

    function nearest(track, t) {
      var list = tracks[track], best = null;
      list.forEach(function (it) {
        var d = Math.abs((it.s + it.e) / 2 - t);
        if (!best || d < best.d) best = { it: it, d: d };
      });
      return best ? best.it : null;
    }

    svg.addEventListener("keydown", function (ev) {
      var it = itemOf(ev.target) || current;
      var list = tracks[it.track];
      var at = list.indexOf(it);
      var handled = true;
      switch (ev.key) {
        case "+": case "=": zoom(ZOOM, (it.s + it.e) / 2); break;
        case "-": case "_": zoom(1 / ZOOM, (it.s + it.e) / 2); break;
        case "0": reset(); break;
        case "Escape": hide(); break;
        case "ArrowLeft":
          if (ev.shiftKey) pan(-0.1); else move(list[at - 1]);
          break;
        case "ArrowRight":
          if (ev.shiftKey) pan(0.1); else move(list[at + 1]);
          break;
        case "ArrowUp": case "ArrowDown": {
          var k = trackIds.indexOf(it.track) + (ev.key === "ArrowUp" ? -1 : 1);
          if (k >= 0 && k < trackIds.length) move(nearest(trackIds[k], (it.s + it.e) / 2));
          break;
        }
        case "Home": move(list[0]); break;
        case "End": move(list[list.length - 1]); break;
        default: handled = false;
      }
      if (handled) ev.preventDefault();
    });

    // -- toolbar --
    if (toolbar) {
      toolbar.addEventListener("click", function (ev) {
        var button = ev.target.closest ? ev.target.closest("button[data-act]") : null;
        if (!button) return;
        var act = button.getAttribute("data-act");
        if (act === "in") zoom(ZOOM);
        else if (act === "out") zoom(1 / ZOOM);
        else reset();
      });
    }

    if (window.ResizeObserver) new ResizeObserver(schedule).observe(plot);
    else window.addEventListener("resize", schedule);
    layout();
    if (range) range.setAttribute("aria-live", "polite");   // announced when the reader zooms, not on load
  }

  // ---- Open in Perfetto -----------------------------------------------------------------------

  function setupPerfetto(button) {
    button.setAttribute("data-ready", "");
    button.hidden = false;
    var status = button.parentNode.querySelector(".attn-perfetto-status");
    function say(key) { if (status) status.textContent = button.getAttribute("data-" + key) || ""; }
    button.addEventListener("click", function () {
      var link = button.parentNode.querySelector("a[download]");
      if (!link) return;
      // opened inside the click, before anything is awaited, or the browser blocks it as a pop-up
      var win = window.open(PERFETTO + "/#!/", "_blank");
      if (!win) { say("blocked"); return; }
      say("opening");
      fetch(link.href, { credentials: "same-origin" }).then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.arrayBuffer();
      }).then(function (buffer) {
        handOver(win, {
          buffer: buffer,
          title: button.getAttribute("data-trace-title") || "trace",
          fileName: button.getAttribute("data-file") || "trace.json.gz"
        }, function () { say("sent"); }, function () { say("silent"); });
      }).catch(function () { say("failed"); });
    });
  }

  // Perfetto's deep-linking protocol: its message channel is not buffered, so ping the new tab until
  // it answers PONG, then post the trace once, to Perfetto's origin only. No answer in 30 s (offline,
  // the tab closed): give up and say so.
  function handOver(win, trace, done, silent) {
    var tries = 0;
    var timer = null;
    function onMessage(ev) {
      if (ev.source !== win || ev.origin !== PERFETTO || ev.data !== "PONG") return;
      stop();
      win.postMessage({ perfetto: trace }, PERFETTO);
      done();
    }
    function stop() {
      window.clearInterval(timer);
      window.removeEventListener("message", onMessage);
    }
    window.addEventListener("message", onMessage);
    timer = window.setInterval(function () {
      if (win.closed || ++tries > 300) { stop(); silent(); return; }   // 300 pings, 100 ms apart
      win.postMessage("PING", PERFETTO);
    }, 100);
  }

  if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(init);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
