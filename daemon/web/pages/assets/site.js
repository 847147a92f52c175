// archiplan published site: the search box, over search-index.js, with no server. Results are
// built from text nodes only (names are planner-written); every link is a page of the site.
"use strict";
(function () {
  const list = document.getElementById("results");
  const index = window.archiplanIndex;
  if (!list || !Array.isArray(index)) return;
  const base = document.body.dataset.base || ".";
  const box = document.getElementById("q");
  const status = document.getElementById("search-status");
  const most = 200;

  function search(q) {
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    list.replaceChildren();
    if (words.length === 0) return;
    let n = 0;
    for (const [name, type, page] of index) {
      const text = (name + " " + type).toLowerCase();
      if (!words.every((w) => text.includes(w))) continue;
      if (++n > most) continue;
      const a = document.createElement("a");
      a.href = base + "/" + page;
      const label = document.createElement("bdi");
      label.textContent = name || "(no name)";
      a.append(label);
      const badge = document.createElement("span");
      badge.className = "badge";
      badge.textContent = type;
      const li = document.createElement("li");
      li.append(a, " ", badge);
      list.append(li);
    }
    status.textContent = n === 0 ? "Nothing matches." :
      n + (n === 1 ? " match" : " matches") + (n > most ? ", the first " + most + " shown." : ".");
  }

  const q = new URLSearchParams(location.search).get("q") || "";
  if (box) {
    box.value = q;
    box.addEventListener("input", () => search(box.value));
  }
  search(q);
})();
