// The header's note on the tables the server solves at start (GET /api/warming): how many are
// ready, the one being solved with its layers, and the time left at the rate measured so far.
(() => {
  const WORDS = {
    en: { ready: (r, n) => `Tables: ${r} of ${n} ready`, solving: "solving", layers: (d, n) => `layer ${d} of ${n}`,
          left: (s) => `about ${s} left`, failed: (n) => `${n} could not be prepared`, waiting: "waiting" },
    de: { ready: (r, n) => `Tabellen: ${r} von ${n} bereit`, solving: "löse", layers: (d, n) => `Schicht ${d} von ${n}`,
          left: (s) => `noch etwa ${s}`, failed: (n) => `${n} nicht vorbereitet`, waiting: "wartet" },
  };
  const duration = (s) => (s < 90 ? `${Math.max(1, Math.round(s))} s` : `${Math.round(s / 60)} min`);

  function words() {
    const lang = document.getElementById("lang");
    return WORDS[(lang && lang.value) || document.documentElement.lang] || WORDS.en;
  }

  function show(note, w) {
    const t = words();
    const busy = w.tables.find((x) => x.state === "solving") || w.tables.find((x) => x.state === "waiting");
    const failed = w.tables.filter((x) => x.state === "failed").length;
    const parts = [t.ready(w.ready, w.total)];
    if (busy) {
      const p = busy.progress;
      let what = `${busy.state === "solving" ? t.solving : t.waiting}: ${busy.title} (${busy.rules})`;
      if (p && p.total) what += `, ${t.layers(p.done, p.total)}`;
      if (w.eta_seconds != null) what += `, ${t.left(duration(w.eta_seconds))}`;
      parts.push(what);
    }
    if (failed) parts.push(t.failed(failed));
    note.textContent = parts.join(" — ");
    note.hidden = !w.busy && !failed;
  }

  async function poll() {
    const note = document.getElementById("warming");
    if (!note) return;
    try {
      const res = await fetch("/api/warming", { headers: { Accept: "application/json" } });
      if (!res.ok) return;
      const w = await res.json();
      if (!w.total) { note.hidden = true; return; }
      show(note, w);
      if (w.busy) setTimeout(poll, 2000);
    } catch (e) {
      setTimeout(poll, 5000);
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", poll); else poll();
})();
