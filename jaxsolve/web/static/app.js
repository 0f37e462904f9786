// The jaxsolve page: everything on it is generated from GET /api/games (the game registry).
"use strict";

const $ = (id) => document.getElementById(id);
const state = { games: [], game: null, mode: "advise", play: null, request: 0 };

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

function fmt(x, digits = 4) {
  if (x === null || x === undefined) return "—";
  return Number(x).toFixed(digits);
}

// ------------------------------------------------------------------ requests

function showError(message) {
  const box = $("error");
  box.textContent = message ? "error: " + message : "";
  box.hidden = !message;
}

async function api(method, url, body) {
  showError("");
  const opts = { method, headers: {} };
  if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  let res = await fetch(url, opts);
  let data = await res.json().catch(() => ({ error: `the server answered ${res.status} without JSON` }));
  while (res.status === 202 && data.pending) {
    showProgress(data);
    await new Promise((r) => setTimeout(r, 300));
    res = await fetch(`/api/jobs/${data.job}`);
    data = await res.json().catch(() => ({ error: `the server answered ${res.status} without JSON` }));
  }
  showProgress(null);
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}

function showProgress(job) {
  const box = $("progress");
  if (!job) { box.hidden = true; return; }
  box.hidden = false;
  const what = job.what.startsWith("play") ? "starting the game" : job.what.startsWith("distribution") ? "computing the score distribution" : "working";
  $("progress-text").textContent = `${what} (the first answer for these rules solves the game once; later ones come from the cache) — ${job.seconds.toFixed(1)} s`;
  $("progress-notes").textContent = (job.notes || []).join(" · ");
}

async function guarded(fn) {
  try { await fn(); } catch (err) { showError(err.message); }
}

// ------------------------------------------------------------------ forms from Params

function field(p, prefix) {
  const id = `${prefix}-${p.name}`;
  let input;
  if (p.choices && p.choices.length) {
    input = el("select", { id, name: p.name });
    if (p.default === null) input.append(el("option", { value: "", text: prefix === "rule" ? "(the preset's)" : "(default)" }));
    for (const c of p.choices) input.append(el("option", { value: c, text: c }));
    input.value = p.default === null ? "" : p.default;
  } else if (p.type === "bool") {
    input = el("select", { id, name: p.name });
    input.append(el("option", { value: "", text: p.default === null ? (prefix === "rule" ? "(the preset's)" : "(default)") : String(p.default) }));
    input.append(el("option", { value: "true", text: "yes" }), el("option", { value: "false", text: "no" }));
  } else {
    input = el("input", { id, name: p.name, type: "text", autocomplete: "off", inputMode: p.type === "int" || p.type === "float" ? "decimal" : "text" });
    input.placeholder = p.default === null ? (p.required ? "required" : prefix === "rule" ? "the preset's" : "") : String(p.default);
  }
  input.dataset.type = p.type;
  const label = el("label", { htmlFor: id, text: p.label }, input, el("span", { class: "help", text: p.help }));
  if (p.type === "str" && !p.choices.length) label.classList.add("wide");
  return label;
}

function values(container) {
  const out = {};
  for (const input of container.querySelectorAll("input, select")) {
    const v = input.value.trim();
    if (v === "") continue;
    if (input.dataset.type === "bool") out[input.name] = v === "true";
    else out[input.name] = v;
  }
  return out;
}

function rulesBody() {
  return { rules: $("preset").value, overrides: values($("rules-options")) };
}

// ------------------------------------------------------------------ choosing a game

function currentGame() { return state.games.find((g) => g.name === state.game); }

function chooseGame(name) {
  state.game = name;
  state.play = null;
  const g = currentGame();
  $("game").value = name;
  $("game-title").textContent = g.title;
  const preset = $("preset");
  preset.replaceChildren(...g.presets.map((p) => el("option", { value: p, text: p })));
  preset.value = g.default;
  $("rules-options").replaceChildren(...g.rules_options.map((p) => field(p, "rule")));
  const main = [], more = [];
  for (const p of (g.advise ? g.advise.options : [])) (p.choices.length || p.help.startsWith("Heuristic") ? more : main).push(field(p, "adv"));
  $("advise-fields").replaceChildren(...main);
  $("advise-more").replaceChildren(...more);
  $("advise-more-box").hidden = !more.length;
  $("tab-advise").disabled = !g.advise;
  $("tab-play").disabled = !g.play;
  $("play-fields").replaceChildren(...(g.play || []).map((p) => field(p, "set")));
  $("advice").hidden = true;
  $("game-view").hidden = true;
  showError("");
  setMode(g.advise ? (g.play ? state.mode : "advise") : "play");
  const url = new URL(location.href);
  url.searchParams.set("game", name);
  history.replaceState(null, "", url);
}

function setMode(mode) {
  state.mode = mode;
  $("advise").hidden = mode !== "advise";
  $("play").hidden = mode !== "play";
  $("tab-advise").classList.toggle("active", mode === "advise");
  $("tab-play").classList.toggle("active", mode === "play");
}

// ------------------------------------------------------------------ advisor

function rankingRows(tbody, options, onPick) {
  tbody.replaceChildren(...options.map((o) => {
    const cls = [o.best ? "best" : "", o.tie ? "tie" : ""].join(" ").trim();
    const tr = el("tr", { class: cls, "data-rank": o.rank, "data-option": o.option, "data-value": String(o.value), "data-regret": String(o.regret) },
      el("td", { class: "num", text: o.rank }), el("td", { text: o.option }),
      el("td", { class: "num", text: fmt(o.value) }), el("td", { class: "num", text: fmt(o.regret) }));
    if (onPick) tr.addEventListener("click", () => onPick(o));
    return tr;
  }));
}

async function advise(ev) {
  ev.preventDefault();
  const game = state.game;
  const options = { ...values($("advise-fields")), ...values($("advise-more")) };
  const answer = await api("POST", `/api/games/${encodeURIComponent(game)}/advise`, { ...rulesBody(), options });
  if (answer.game !== state.game) return; // the game was changed meanwhile: never show another game's answer
  $("advice").hidden = false;
  $("advice").dataset.game = answer.game;
  $("advice-stage").textContent = answer.stage || answer.heading[answer.heading.length - 1] || "";
  $("advice-heading").textContent = answer.heading.join(" · ");
  $("advice-value").textContent = answer.value === null ? `values in ${answer.unit}` : `value ${fmt(answer.value, 6)} ${answer.unit}`;
  rankingRows($("advice-table").tBodies[0], answer.options);
}

// ------------------------------------------------------------------ play

const FACES = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];

function showGame(s) {
  if (s.game !== state.game) return;
  state.play = s;
  $("game-view").hidden = false;
  $("game-view").dataset.id = s.id;
  $("game-view").dataset.awaiting = s.awaiting;
  $("game-view").dataset.moves = String(s.moves);
  $("play-stage").textContent = s.over ? "game over" : (s.stage || (s.awaiting === "dice" ? `throw ${s.throw_size} ${s.throw_size === 1 ? "die" : "dice"}` : "your decision"));
  const dice = [];
  if (s.dice) for (const d of s.dice) dice.push(el("div", { class: "die", text: d, title: FACES[d] || d }));
  else if (s.kept) for (const d of s.kept) dice.push(el("div", { class: "die kept", text: d, title: "kept" }));
  $("dice").replaceChildren(...dice);
  $("status").replaceChildren(...s.status.concat(s.sheet ? [] : s.board).concat(s.news.length ? [s.news.join("; ")] : []).map((t) => el("div", { text: t })));
  const fb = $("feedback");
  if (s.last) {
    fb.hidden = false;
    fb.className = "feedback " + (s.last.optimal ? "good" : "loss");
    const what = s.last.fresh ? s.last.chosen : `last decision (${s.last.where}): ${s.last.chosen}`;
    fb.textContent = s.last.optimal
      ? `${what}: a best move (loss 0)`
      : `${what}: loss ${fmt(s.last.regret)} ${s.unit} against the best (${s.last.best})`;
    fb.dataset.regret = String(s.last.regret);
  } else fb.hidden = true;
  $("throw-box").hidden = s.awaiting !== "dice";
  $("choice-box").hidden = s.awaiting !== "choice";
  rankingRows($("play-table").tBodies[0], s.options, (o) => guarded(() => move({ choice: o.rank })));
  $("undo").disabled = !s.can_undo;
  $("running-loss").textContent = `${s.decisions} decision${s.decisions === 1 ? "" : "s"}, total loss ${fmt(s.loss)} ${s.unit}`;
  const sheet = $("sheet");
  sheet.hidden = !s.sheet;
  if (s.sheet) sheet.tBodies[0].replaceChildren(...s.sheet.map((b) => el("tr", { class: b.score === null ? "open" : "" }, el("td", { text: b.box }), el("td", { text: b.score === null ? "·" : b.score }))));
  $("review").hidden = !s.over;
  if (s.over) guarded(review);
}

async function newGame(ev) {
  ev.preventDefault();
  const s = await api("POST", `/api/games/${encodeURIComponent(state.game)}/play`, { ...rulesBody(), settings: values($("play-fields")) });
  showGame(s);
}

async function move(body) {
  if (!state.play) return;
  showGame(await api("POST", `/api/play/${state.play.id}/move`, body));
}

async function undo() {
  if (!state.play) return;
  showGame(await api("POST", `/api/play/${state.play.id}/undo`));
}

async function review() {
  const id = state.play.id;
  const r = await api("GET", `/api/play/${id}/review`);
  if (!state.play || state.play.id !== id) return;
  $("final").textContent = `${r.lines.join("; ")} — ${r.expected_label || "optimal play expects"} ${fmt(r.expected, 2)}${r.expected_label ? "" : " " + r.unit}`;
  $("review-summary").textContent = `${r.count} decisions, ${r.optimal} of them best; total loss ${fmt(r.loss)} ${r.unit}, mean loss per decision ${fmt(r.mean_loss)} ${r.unit}`;
  $("review").dataset.meanLoss = String(r.mean_loss);
  $("review").dataset.score = String(r.score);
  $("review-table").tBodies[0].replaceChildren(...r.decisions.map((d) => el("tr", { class: d.optimal ? "" : "mine", "data-regret": String(d.regret) },
    el("td", { class: "num", text: d.move }), el("td", { text: d.where }), el("td", { text: d.chosen }), el("td", { text: d.best }), el("td", { class: "num", text: fmt(d.regret) }))));
  const g = currentGame();
  $("distribution").replaceChildren();
  if (g && g.distribution) {
    const button = el("button", { id: "show-distribution", text: "Show the score distribution under optimal play" });
    button.addEventListener("click", () => guarded(async () => {
      button.disabled = true;
      const dist = await api("GET", `/api/play/${id}/distribution`);
      if (state.play && state.play.id === id) $("distribution").replaceChildren(chart(dist, r.score));
    }));
    $("distribution").append(button);
  }
}

function chart(dist, score) {
  // The final score's distribution under optimal play, with this game's score marked.
  // Drawn up to the score below which 99.999 % of games end (the exact tail goes much further).
  let n = 0, mass = 0;
  while (n < dist.p.length && mass < 0.99999) mass += dist.p[n++];
  const W = 600, H = 170, pad = 22, p = dist.p.slice(0, n), max = Math.max(...p);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H + pad}`);
  svg.setAttribute("role", "img");
  const bar = (x, h, color) => { const r = document.createElementNS(ns, "rect"); r.setAttribute("x", x); r.setAttribute("y", H - h); r.setAttribute("width", Math.max(W / n, 0.6)); r.setAttribute("height", h); r.setAttribute("fill", color); svg.append(r); };
  for (let k = 0; k < n; k++) if (p[k] > 0) bar((k / n) * W, (p[k] / max) * (H - 10), "#4b7fb3");
  bar((Math.min(score, n - 1) / n) * W, H - 10, "#d9480f");
  const text = (x, s, anchor) => { const t = document.createElementNS(ns, "text"); t.setAttribute("x", x); t.setAttribute("y", H + 16); t.setAttribute("font-size", "12"); t.setAttribute("text-anchor", anchor); t.textContent = s; svg.append(t); };
  text(0, "0", "start");
  text(W, String(n - 1), "end");
  text(W / 2, `final score under optimal play: mean ${fmt(dist.mean, 2)}, SD ${fmt(dist.sd, 2)}; yours in red`, "middle");
  const box = el("div", { "data-mean": String(dist.mean) });
  box.append(svg);
  return box;
}

// ------------------------------------------------------------------ start

async function start() {
  state.games = await api("GET", "/api/games");
  $("game").replaceChildren(...state.games.map((g) => el("option", { value: g.name, text: g.name })));
  $("game").addEventListener("change", () => chooseGame($("game").value));
  $("preset").addEventListener("change", () => { $("advice").hidden = true; });
  $("tab-advise").addEventListener("click", () => setMode("advise"));
  $("tab-play").addEventListener("click", () => setMode("play"));
  $("advise-form").addEventListener("submit", (ev) => guarded(() => advise(ev)));
  $("play-form").addEventListener("submit", (ev) => guarded(() => newGame(ev)));
  $("throw").addEventListener("click", () => guarded(() => move({ throw: null })));
  $("typed-form").addEventListener("submit", (ev) => { ev.preventDefault(); guarded(async () => { await move({ throw: $("typed").value }); $("typed").value = ""; }); });
  $("best").addEventListener("click", () => guarded(() => move({ choice: "best" })));
  $("undo").addEventListener("click", () => guarded(undo));
  const asked = new URL(location.href).searchParams.get("game");
  chooseGame(state.games.some((g) => g.name === asked) ? asked : state.games[0].name);
  document.body.dataset.ready = "1";
}

guarded(start);
