// archiplan review page: live updates over server-sent events. Without this script every page
// still works; with it, the inbox and history follow the daemon, and a plan page says when the
// preview it shows is no longer the one on disk.
"use strict";
(function () {
  const base = document.body.dataset.base || "";
  const status = document.getElementById("live-status");
  const say = (t) => { if (status) status.textContent = t; };
  let busy = false, again = false;
  const pictures = ".preview img, figure img, img.view";
  // the live part as the daemon last sent it (read before the pictures get their viewers): a
  // change elsewhere redraws nothing here, so no button moves under a pointer about to click it
  let drawn = document.getElementById("live")?.innerHTML;

  async function refreshPage() {
    const live = document.getElementById("live");
    if (!live) return;
    const res = await fetch(location.pathname + location.search, { credentials: "same-origin", cache: "no-store" });
    if (!res.ok) return;
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    const next = doc.getElementById("live");
    if (!next || next.innerHTML === drawn) return;
    drawn = next.innerHTML;
    live.replaceChildren(...Array.from(next.childNodes).map((n) => document.importNode(n, true)));
    live.querySelectorAll(pictures).forEach(viewer);
  }

  async function checkPlan(plan) {
    const res = await fetch(base + "/plan/" + encodeURIComponent(plan.dataset.plan) + "/state", { credentials: "same-origin", cache: "no-store" });
    if (!res.ok) return;
    const st = await res.json();
    if (st.state !== plan.dataset.state || st.preview_sha256 !== plan.dataset.previewSha256) {
      document.getElementById("changed").hidden = false;
      document.querySelectorAll("#plan form button").forEach((b) => { b.title = "The preview changed: draw the page again first"; });
    }
  }

  async function update() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const plan = document.getElementById("plan");
      if (plan) await checkPlan(plan); else await refreshPage();
      say("live · updated " + new Date().toLocaleTimeString());
      document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
    } catch (e) {
      say("live · update failed");
    } finally {
      busy = false;
      if (again) { again = false; update(); }
    }
  }

  // pictures: shown at their own size in a box that scrolls; buttons, Ctrl+wheel and dragging
  // zoom and pan them (the SVG stays an <img>: it runs nothing)
  function viewer(img) {
    const box = document.createElement("div");
    box.className = "viewer";
    const tools = document.createElement("div");
    tools.className = "tools";
    const pane = document.createElement("div");
    pane.className = "pane";
    pane.tabIndex = 0;
    img.replaceWith(box);
    pane.appendChild(img);
    box.append(tools, pane);
    let z = 1;
    const label = document.createElement("span");
    const zoom = (k, cx, cy) => {
      if (!img.naturalWidth) return;
      const old = z;
      z = Math.min(8, Math.max(0.05, k));
      const x = (pane.scrollLeft + (cx ?? pane.clientWidth / 2)) / old, y = (pane.scrollTop + (cy ?? pane.clientHeight / 2)) / old;
      img.style.width = Math.round(img.naturalWidth * z) + "px";
      pane.scrollLeft = x * z - (cx ?? pane.clientWidth / 2);
      pane.scrollTop = y * z - (cy ?? pane.clientHeight / 2);
      label.textContent = Math.round(z * 100) + " %";
      img.dataset.zoom = String(z);
    };
    const button = (text, title, fn) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = text; b.title = title;
      b.addEventListener("click", fn);
      tools.appendChild(b);
    };
    button("−", "Zoom out", () => zoom(z / 1.25));
    button("+", "Zoom in", () => zoom(z * 1.25));
    button("1:1", "Actual size", () => zoom(1));
    button("Fit", "Fit the box", () => zoom(Math.min(pane.clientWidth / img.naturalWidth, 1)));
    tools.appendChild(label);
    pane.addEventListener("wheel", (e) => {
      if (!e.ctrlKey) return;
      e.preventDefault();
      const r = pane.getBoundingClientRect();
      zoom(z * (e.deltaY < 0 ? 1.15 : 1 / 1.15), e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    let drag = null;
    pane.addEventListener("pointerdown", (e) => { drag = { x: e.clientX, y: e.clientY, l: pane.scrollLeft, t: pane.scrollTop }; pane.classList.add("drag"); e.preventDefault(); });
    window.addEventListener("pointermove", (e) => { if (drag) { pane.scrollLeft = drag.l - (e.clientX - drag.x); pane.scrollTop = drag.t - (e.clientY - drag.y); } });
    window.addEventListener("pointerup", () => { drag = null; pane.classList.remove("drag"); });
    const ready = () => zoom(1);
    if (img.complete) ready(); else img.addEventListener("load", ready, { once: true });
  }
  document.querySelectorAll(pictures).forEach(viewer);

  if (!window.EventSource) return;
  const es = new EventSource(base + "/events");
  // on every (re)connect: catch up with what changed while no stream was open
  es.addEventListener("open", () => { say("live"); document.body.dataset.live = "open"; update(); });
  es.addEventListener("change", update);
  es.addEventListener("error", () => say("live · reconnecting"));
})();
