// The board page: renders /api/state, sends clicks to the API. No build step, nothing from the internet.
"use strict";
const TOKEN = "__TOKEN__";
let state = null;
let built = "";

async function api(path, body) {
  const options = {headers: {"X-Board-Token": TOKEN}};
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json();
  // Responses may arrive out of order (a poll sent before a move answered after it): never go back in time.
  if (data.board && !(state && data.serial < state.serial)) render(data);
  return data;
}

function el(tag, attributes, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function build(config) {
  const board = document.getElementById("board");
  const values = document.getElementById("values");
  board.replaceChildren();
  values.replaceChildren();
  for (let c = 0; c < config.columns; c++) {
    const column = el("div", {"class": "column", "data-column": c, "title": "column " + (c + 1)});
    for (let r = 0; r < config.rows; r++) column.appendChild(el("div", {"class": "cell", "data-cell": r + "," + c, "data-mark": 0}));
    column.addEventListener("click", () => api("api/move", {column: c}));
    board.appendChild(column);
    values.appendChild(el("div", {"class": "value", "data-value-column": c, "data-value": "pending"}));
  }
  built = config.rows + "x" + config.columns;
}

function valueText(v) {
  const score = v.score === null || v.score === undefined ? "" : " " + (v.score > 0 ? "+" : "") + v.score;
  return {win: "win", draw: "draw", loss: "loss", unknown: "?", pending: "...", full: ""}[v.value] + score;
}

function render(s) {
  state = s;
  const config = s.config;
  if (built !== config.rows + "x" + config.columns) build(config);
  const line = new Set((s.ending && s.ending.line || []).map(([r, c]) => r + "," + c));
  const last = lastCell(s);
  for (let r = 0; r < config.rows; r++) {
    for (let c = 0; c < config.columns; c++) {
      const cell = document.querySelector(`[data-cell="${r},${c}"]`);
      cell.setAttribute("data-mark", s.board[r * config.columns + c]);
      cell.classList.toggle("win-line", line.has(r + "," + c));
      cell.classList.toggle("last", last === r + "," + c);
    }
  }
  const status = document.getElementById("status");
  status.setAttribute("data-state", s.state);
  status.setAttribute("data-mode", s.mode);
  status.textContent = s.message;
  for (let c = 0; c < config.columns; c++) {
    const node = document.querySelector(`[data-value-column="${c}"]`);
    if (!s.values.exact) {
      node.setAttribute("data-value", "unknown");
      node.removeAttribute("data-score");
      node.textContent = "";
      continue;
    }
    const v = s.values.columns[c];
    node.setAttribute("data-value", v.value);
    if (v.score === null || v.score === undefined) node.removeAttribute("data-score");
    else node.setAttribute("data-score", v.score);
    node.textContent = valueText(v);
    node.title = v.value === "unknown" ? `not solved within the budget (score between ${v.low} and ${v.high})` : "";
  }
  document.getElementById("values").style.visibility = s.values.exact ? "visible" : "hidden";
  document.getElementById("values-note").textContent = s.values.note;
  const you = ["yellow (moves first)", "red"];
  document.getElementById("players").textContent = s.mode === "review" && s.game
    ? `${s.game.agents[0]} (yellow) vs ${s.game.agents[1]} (red)`
    : `You: ${you[s.human_seat]}; ${s.agent}: ${you[1 - s.human_seat]}`;
  const clock = s.clock;
  document.getElementById("clock").textContent = s.mode === "play"
    ? `${s.agent}'s clock: ${clock.act_timeout} s per move, overage left ${clock.overage_left.toFixed(1)} s` +
      (clock.last_seconds === null ? "" : `; last move ${clock.last_seconds.toFixed(2)} s`) : "";
  document.getElementById("undo").disabled = s.mode !== "play" || s.moves.length === 0;
  renderGame(s);
}

function lastCell(s) {
  if (!s.moves.length) return null;
  const c = s.moves[s.moves.length - 1];
  for (let r = 0; r < s.config.rows; r++) if (s.board[r * s.config.columns + c]) return r + "," + c;
  return null;
}

function renderGame(s) {
  const g = s.game;
  for (const id of ["prev", "next", "play-on"]) document.getElementById(id).disabled = !g;
  if (!g) return;
  document.getElementById("game-info").textContent =
    `${g.source}: game ${g.game_id}, ${g.agents[0]} vs ${g.agents[1]} (${g.outcomes[0] || "?"} / ${g.outcomes[1] || "?"})` +
    (g.labelled ? (g.first_losing === null ? "; no outcome-losing move" : `; first outcome-losing move: ply ${g.first_losing}`)
                : "; labelling...");
  const list = document.getElementById("moves");
  if (list.children.length !== g.moves.length) {
    list.replaceChildren();
    for (const m of g.moves) {
      const item = el("li", {"data-ply": m.ply, "data-label": m.label});
      item.addEventListener("click", () => api("api/goto", {ply: m.ply}));
      list.appendChild(item);
    }
  }
  const cursor = s.mode === "review" ? g.cursor : null;
  for (const m of g.moves) {
    const item = list.children[m.ply];
    item.setAttribute("data-label", m.label);
    item.classList.toggle("first-losing", m.first_losing);
    item.classList.toggle("current", cursor === m.ply);
    const who = m.agent === null ? "opening" : m.agent;
    item.textContent = `column ${m.column + 1} by ${who}: ${m.label}`;
  }
  document.getElementById("prev").disabled = s.mode === "review" && g.cursor === 0;
  document.getElementById("next").disabled = s.mode === "review" && g.cursor === g.moves.length;
}

document.getElementById("undo").addEventListener("click", () => api("api/undo", {}));
document.getElementById("new-game").addEventListener("click", () => api("api/new-game", {}));
document.getElementById("swap-seats").addEventListener("click", () => api("api/swap-seats", {}));
document.getElementById("prev").addEventListener("click", () => api("api/prev", {}));
document.getElementById("next").addEventListener("click", () => api("api/next", {}));
document.getElementById("play-on").addEventListener("click", () => api("api/play-on", {}));
for (const [id, key] of [["export-results", "results"], ["export-columns", "columns"]]) {
  document.getElementById(id).addEventListener("click", async () => {
    const response = await fetch("api/export", {headers: {"X-Board-Token": TOKEN}});
    document.getElementById("export").value = (await response.json())[key];
  });
}

async function poll() {
  try { await api("api/state"); } catch (error) { document.getElementById("status").textContent = "The board server stopped."; }
  setTimeout(poll, 400);
}
poll();
