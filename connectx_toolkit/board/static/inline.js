// The inline board: steps through a solved game inside a notebook cell (or a saved page), with no server.
// Every position and its column values are in the page's JSON; the DOM hooks are the live board's
// ([data-cell], [data-value-column], [data-ply]) under one root element, so several boards share a page.
(function (root) {
  "use strict";
  if (!root || root.getAttribute("data-ready")) return;
  root.setAttribute("data-ready", "1");
  const data = JSON.parse(root.querySelector('script[data-role="data"]').textContent);
  const config = data.config;
  const last = data.positions.length - 1;
  let cursor = Number(root.getAttribute("data-cursor"));

  function valueText(v) {
    const score = v.score === null || v.score === undefined ? "" : " " + (v.score > 0 ? "+" : "") + v.score;
    return {win: "win", draw: "draw", loss: "loss", unknown: "?", full: ""}[v.value] + score;
  }

  function render() {
    const p = data.positions[cursor];
    const line = new Set(p.line.map(([r, c]) => r + "," + c));
    const lastCell = p.last ? p.last[0] + "," + p.last[1] : null;
    for (const cell of root.querySelectorAll("[data-cell]")) {
      const [r, c] = cell.getAttribute("data-cell").split(",").map(Number);
      const key = r + "," + c;
      cell.setAttribute("data-mark", p.board[r * config.columns + c]);
      cell.classList.toggle("cxb-win-line", line.has(key));
      cell.classList.toggle("cxb-last", lastCell === key);
    }
    const values = root.querySelector('[data-role="values"]');
    values.style.visibility = p.values ? "visible" : "hidden";
    for (const node of root.querySelectorAll("[data-value-column]")) {
      const v = p.values ? p.values[Number(node.getAttribute("data-value-column"))] : {value: "full", score: null};
      node.setAttribute("data-value", v.value);
      if (v.score === null || v.score === undefined) node.removeAttribute("data-score");
      else node.setAttribute("data-score", v.score);
      node.textContent = valueText(v);
      node.title = v.value === "unknown" ? `not solved within the budget (score between ${v.low} and ${v.high})` : "";
    }
    const status = root.querySelector('[data-role="status"]');
    status.textContent = p.message;
    status.setAttribute("data-ply", cursor);
    for (const item of root.querySelectorAll("li[data-ply]")) {
      const current = Number(item.getAttribute("data-ply")) === cursor;
      item.classList.toggle("cxb-current", current);
      const list = item.parentElement;
      if (current && (item.offsetTop < list.scrollTop || item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight)) {
        list.scrollTop = item.offsetTop - list.clientHeight / 2;  // the list scrolls, never the notebook
      }
    }
    for (const button of root.querySelectorAll("[data-action]")) {
      const action = button.getAttribute("data-action");
      button.disabled = (action === "first" || action === "prev") ? cursor === 0 : cursor === last;
    }
    root.setAttribute("data-cursor", cursor);
  }

  function go(ply) {
    cursor = Math.max(0, Math.min(last, ply));
    render();
  }

  root.addEventListener("click", (event) => {
    const button = event.target.closest("[data-action]");
    if (button) {
      const action = button.getAttribute("data-action");
      go({first: 0, prev: cursor - 1, next: cursor + 1, last: last}[action]);
      return;
    }
    const move = event.target.closest("li[data-ply]");
    if (move) go(Number(move.getAttribute("data-ply")));
  });
  root.addEventListener("keydown", (event) => {
    const to = {ArrowLeft: cursor - 1, ArrowRight: cursor + 1, Home: 0, End: last}[event.key];
    if (to === undefined) return;
    event.preventDefault();
    go(to);
  });
  render();
})(document.getElementById("__ROOT__"));
