// archiplan review page: live updates over server-sent events. Without this script every page
// still works; with it, the inbox and history follow the daemon, and a plan page says when the
// preview it shows is no longer the one on disk.
"use strict";
(function () {
  const base = document.body.dataset.base || "";
  const status = document.getElementById("live-status");
  const say = (t) => { if (status) status.textContent = t; };
  let busy = false, again = false;

  async function refreshPage() {
    const live = document.getElementById("live");
    if (!live) return;
    const res = await fetch(location.pathname + location.search, { credentials: "same-origin", cache: "no-store" });
    if (!res.ok) return;
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    const next = doc.getElementById("live");
    if (next) live.replaceChildren(...Array.from(next.childNodes).map((n) => document.importNode(n, true)));
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

  if (!window.EventSource) return;
  const es = new EventSource(base + "/events");
  // on every (re)connect: catch up with what changed while no stream was open
  es.addEventListener("open", () => { say("live"); document.body.dataset.live = "open"; update(); });
  es.addEventListener("change", update);
  es.addEventListener("error", () => say("live · reconnecting"));
})();
