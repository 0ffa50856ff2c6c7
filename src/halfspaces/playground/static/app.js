// The playground's page: it keeps the points, asks the server (the halfspaces library) for
// every number, and draws the answers in SVG. Nothing is computed here but pixels.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const SIZE = 560;
const POS = "#d62728", NEG = "#1f77b4";
const state = {points: [], labels: [], box: [-1, 1, -1, 1], result: null, cursor: 0,
               mode: "perceptron"};
window.playground = state;  // read by the browser test (the points it clicked)

const $ = (id) => document.getElementById(id);
const sx = (x) => (x - state.box[0]) / (state.box[1] - state.box[0]) * SIZE;
const sy = (y) => SIZE - (y - state.box[2]) / (state.box[3] - state.box[2]) * SIZE;
const fmt = (v) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0))
  ? v.toExponential(4) : (+v.toPrecision(6)).toString();

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  (parent || $("plot")).appendChild(node);
  return node;
}

async function ask(action, extra) {
  const body = JSON.stringify({points: state.points, labels: state.labels,
                               fit_intercept: $("intercept").checked, ...extra});
  const response = await fetch("/api/" + action, {method: "POST", body: body,
                                                  headers: {"Content-Type": "application/json"}});
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

function say(text, error) {
  $("info").textContent = text;
  $("info").className = error ? "error" : "";
}

function setNumbers(round, mistakes, bound, margin) {
  $("round").textContent = round;
  $("mistakes").textContent = mistakes;
  $("bound").textContent = bound;
  $("margin").textContent = margin;
}

// -- drawing -------------------------------------------------------------------------------

// The line {x : w.x + b = level} clipped to the view, or null.
function line(w, b, level, attrs) {
  const [x0, x1, y0, y1] = state.box;
  const pts = [];
  if (Math.abs(w[1]) > 1e-12) {
    for (const x of [x0, x1]) pts.push([x, (level - b - w[0] * x) / w[1]]);
  }
  if (Math.abs(w[0]) > 1e-12) {
    for (const y of [y0, y1]) pts.push([(level - b - w[1] * y) / w[0], y]);
  }
  const inside = pts.filter(([x, y]) => x >= x0 - 1e-9 && x <= x1 + 1e-9 &&
                                        y >= y0 - 1e-9 && y <= y1 + 1e-9);
  if (inside.length < 2) return null;
  return el("line", {x1: sx(inside[0][0]), y1: sy(inside[0][1]), x2: sx(inside[1][0]),
                     y2: sy(inside[1][1]), ...attrs});
}

function arrow(from, to, color, label) {
  const [a, b] = [[sx(from[0]), sy(from[1])], [sx(to[0]), sy(to[1])]];
  el("line", {x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: color, "stroke-width": 2.5,
              "marker-end": "url(#head-" + color.slice(1) + ")", class: "vector"});
  if (label) {  // at the tip, or halfway along for the "+ y_t x_t" step
    const mid = label.startsWith("+");
    const at = mid ? [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] : b;
    const t = el("text", {x: at[0] + 8, y: at[1] + (mid ? 14 : -6), fill: color,
                          "font-size": 13, "font-weight": "bold"});
    t.textContent = label;
  }
}

function shade(values, size, color) {  // a grid of cells, row-major with y rising by row
  const [x0, x1, y0, y1] = state.box;
  const dx = (x1 - x0) / (size - 1), dy = (y1 - y0) / (size - 1);
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const v = values[r * size + c];
      const [fill, opacity] = color(v);
      el("rect", {x: sx(x0 + (c - 0.5) * dx), y: sy(y0 + (r + 0.5) * dy),
                  width: SIZE / (size - 1) + 0.5, height: SIZE / (size - 1) + 0.5,
                  fill: fill, "fill-opacity": opacity, class: "cell"});
    }
  }
}

function drawPoints(highlight) {
  state.points.forEach(([x, y], i) => {
    const pos = state.labels[i] === 1;
    const attrs = {class: "pt " + (pos ? "pos" : "neg"), "data-row": i};
    if (pos) {
      const X = sx(x), Y = sy(y);
      el("polygon", {points: `${X},${Y - 7} ${X - 6},${Y + 5} ${X + 6},${Y + 5}`,
                     fill: POS, ...attrs});
    } else {
      el("circle", {cx: sx(x), cy: sy(y), r: 5.5, fill: NEG, ...attrs});
    }
    const mark = highlight && highlight(i);
    if (mark) el("circle", {cx: sx(x), cy: sy(y), r: 11, fill: "none", ...mark});
  });
}

function frame() {
  const svg = $("plot");
  svg.replaceChildren();
  const defs = el("defs", {});
  for (const color of ["#888888", "#2ca02c", "#000000", "#9467bd"]) {
    const m = el("marker", {id: "head-" + color.slice(1), markerWidth: 8, markerHeight: 8,
                            refX: 6, refY: 4, orient: "auto"}, defs);
    el("path", {d: "M0,0 L8,4 L0,8 z", fill: color}, m);
  }
  if (state.box[0] < 0 && state.box[1] > 0) {
    el("line", {x1: sx(0), x2: sx(0), y1: 0, y2: SIZE, stroke: "#e4e4e4"});
  }
  if (state.box[2] < 0 && state.box[3] > 0) {
    el("line", {x1: 0, x2: SIZE, y1: sy(0), y2: sy(0), stroke: "#e4e4e4"});
  }
}

function boundaries(w, b, margins) {
  line(w, b, 0, {stroke: "#000", "stroke-width": 2, class: "boundary"});
  if (margins) {
    line(w, b, 1, {stroke: POS, "stroke-dasharray": "8 5", "stroke-width": 1.5,
                   class: "margin-pos"});
    line(w, b, -1, {stroke: NEG, "stroke-dasharray": "2 4", "stroke-width": 2,
                    class: "margin-neg"});
  }
}

function legend(text) { $("legend").textContent = text; }

function chart(series, optimum) {  // Pegasos's objective per step against J*
  const svg = $("chart");
  svg.replaceChildren();
  svg.style.display = series ? "" : "none";
  if (!series) return;
  const all = series.concat([optimum]);
  const lo = Math.min(...all), hi = Math.max(...all);
  const X = (i) => 30 + i / Math.max(series.length - 1, 1) * 340;
  const Y = (v) => 180 - (v - lo) / (hi - lo || 1) * 160;
  el("polyline", {points: series.map((v, i) => `${X(i)},${Y(v)}`).join(" "), fill: "none",
                  stroke: "#1f77b4", "stroke-width": 1.2}, svg);
  el("line", {x1: 30, x2: 370, y1: Y(optimum), y2: Y(optimum), stroke: "#000",
              "stroke-dasharray": "5 4"}, svg);
  const t = el("text", {x: 34, y: Y(optimum) - 4, "font-size": 12}, svg);
  t.textContent = "J* = " + fmt(optimum);
  const u = el("text", {x: 34, y: 14, "font-size": 12}, svg);
  u.textContent = "J(w_t) per step (last " + fmt(series[series.length - 1]) + ")";
}

// -- the modes -----------------------------------------------------------------------------

function novikoffText(r) {
  if (!r.separable) return "not separable";
  const q = r.augmented ? "'" : "";
  return `(R${q}/γ${q})² = (${fmt(r.radius)}/${fmt(r.margin)})² = ${fmt(r.bound)}`;
}

function farkasRows(r) { return new Set(r.separable ? [] : r.rows); }

function drawPerceptron() {
  const r = state.result;
  frame();
  const farkas = farkasRows(r);
  const k = state.cursor;  // rounds shown so far
  const cur = k > 0 ? r.rounds[k - 1] : null;
  if (cur) {
    boundaries(cur.w_next, cur.b_next, false);
    const w = cur.w;
    if (cur.mistake) {
      arrow([0, 0], w, "#888888", "w_t");
      arrow(w, cur.w_next, "#2ca02c", "+ y_t x_t");
      arrow([0, 0], cur.w_next, "#000000", "w_t+1");
      line(w, cur.b, 0, {stroke: "#888", "stroke-dasharray": "6 4", class: "boundary-before"});
    } else {
      arrow([0, 0], w, "#000000", "w_t");
    }
  }
  drawPoints((i) => {
    if (farkas.has(i)) return {stroke: "#ff7f0e", "stroke-width": 3, class: "farkas",
                               "data-row": i};
    if (cur && i === cur.row) return {stroke: cur.mistake ? "#d00" : "#2a2",
                                      "stroke-width": 2, class: "seen"};
    return null;
  });
  const mistakes = r.rounds.slice(0, k).filter((s) => s.mistake).length;
  const done = k === r.rounds.length;
  setNumbers(`${k} of ${r.rounds.length}`, done ? String(r.n_mistakes) : String(mistakes),
             novikoffText(r), "–");
  let text = cur ? `round ${cur.t} (pass ${cur.epoch}): x = point ${cur.row}, y = ${cur.y},` +
    ` score ${fmt(cur.score)} → ${cur.mistake ? "MISTAKE: w ← w + y x" : "no mistake"}\n` +
    `w_t = (${cur.w.map(fmt).join(", ")}), b_t = ${fmt(cur.b)}\n` : "step to play a round\n";
  if (done) {
    text += r.converged ? `converged: a pass without a mistake, ${r.n_mistakes} mistakes` +
      (r.separable ? ` ≤ bound ${fmt(r.bound)}` : "")
      : `not converged after ${r.epochs.length} passes`;
  }
  if (!r.separable) {
    text += `\nnot linearly separable: the Farkas certificate of is_linearly_separable` +
      ` on rows ${r.rows.join(", ")} (circled in orange): α ≥ 0 with Σ α_i y_i x_i = 0`;
  }
  say(text);
  legend("black: boundary w_t+1 · dashed grey: before the update · arrows: w_t, y_t x_t," +
         " w_t+1 (from the origin) · ring: the point seen · orange: Farkas rows");
}

function drawSvm() {
  const r = state.result;
  frame();
  if (!r.separable) {
    drawPoints((i) => (r.rows.includes(i) ? {stroke: "#ff7f0e", "stroke-width": 3,
                                            class: "farkas", "data-row": i} : null));
    setNumbers("–", "–", "–", "not separable");
    say("no hard margin: the points are not linearly separable (Farkas rows circled)." +
        " Untick hard margin for the soft-margin SVM.");
    return;
  }
  boundaries(r.w, r.b, true);
  const sv = new Set(r.support);
  const norm = Math.hypot(r.w[0], r.w[1]);
  r.slacks.forEach((xi, i) => {  // from the point to its own margin line, along the normal
    if (xi <= 1e-9) return;
    const [x, y] = state.points[i], s = state.labels[i] * xi / norm;
    el("line", {x1: sx(x), y1: sy(y), x2: sx(x + s * r.w[0] / norm),
                y2: sy(y + s * r.w[1] / norm), stroke: "#9467bd", "stroke-width": 1.5,
                class: "slack"});
  });
  drawPoints((i) => (sv.has(i) ? {stroke: "#000", "stroke-width": 1.5, class: "sv"} : null));
  setNumbers("–", "–", "–", fmt(r.margin));
  const slack = r.slacks.reduce((a, b) => a + b, 0);
  say(`${r.C === null ? "hard margin (C = ∞)" : "soft margin, C = " + fmt(r.C)}\n` +
      `w = (${r.w.map(fmt).join(", ")}), b = ${fmt(r.b)}\nmargin 1/||w|| = ${fmt(r.margin)}` +
      `, ${r.support.length} support vectors (circled), Σ ξ_i = ${fmt(slack)}`);
  legend("solid: w·x + b = 0 · red dashed: = +1 · blue dotted: = −1 · purple: slacks ξ_i");
}

function drawPegasos() {
  const r = state.result;
  frame();
  line(r.w_star, r.b_star, 0, {stroke: "#aaa", "stroke-width": 4, class: "optimum"});
  boundaries(r.w, r.b, true);
  drawPoints();
  const last = r.objective[r.objective.length - 1];
  setNumbers(String(r.objective.length), "–", "–", "–");
  say(`Pegasos, η_t = 1/(λt), ${r.objective.length} steps: J = ${fmt(last)},` +
      ` J* = ${fmt(r.optimum)} (the SVM solved exactly), gap ${fmt(last - r.optimum)}`);
  chart(r.objective, r.optimum);
  legend("black: Pegasos's boundary after the last step (margins dashed/dotted) · wide grey:" +
         " the exact minimizer's boundary");
}

function drawLogistic() {
  const r = state.result;
  frame();
  shade(r.proba, r.size, (p) => [p >= 0.5 ? POS : NEG, Math.abs(p - 0.5) * 0.7]);
  boundaries(r.w, r.b, false);
  drawPoints();
  setNumbers("–", "–", "–", "–");
  say(`logistic regression: P(y = +1 | x) = σ(w·x + b), w = (${r.w.map(fmt).join(", ")}),` +
      ` b = ${fmt(r.b)}`);
  legend("shading: P(y = +1 | x) from the model (red > 0.5 > blue) · line: P = 0.5");
}

function drawKernel() {
  const r = state.result;
  frame();
  shade(r.scores, r.size, (s) => [s >= 0 ? POS : NEG, 0.12 + 0.25 * Math.tanh(Math.abs(s))]);
  const rows = new Set(r.mistake_rows);
  drawPoints((i) => (rows.has(i) ? {stroke: "#000", "stroke-width": 1.5, class: "sv"} : null));
  const total = r.mistakes.reduce((a, b) => a + b, 0);
  setNumbers(`${r.mistakes.length} passes`, String(total), "–", "–");
  say(`kernel perceptron: mistakes per pass ${r.mistakes.join(", ")}` +
      `${r.converged ? " (converged)" : " (not converged)"}; circled: the points it` +
      " erred on, whose kernels make its score");
  legend("shading: the sign of the kernel perceptron's score (darker: larger |score|)");
}

function drawExperts() {
  const r = state.result;
  frame();
  const k = state.cursor, cur = k > 0 ? r.rounds[k - 1] : null;
  const weights = cur ? cur.state : r.stumps.map(() => (r.algo === "halving" ? 1 : 1));
  const top = Math.max(...weights);
  r.stumps.forEach(([j, theta], i) => {
    const alive = weights[i] / (top || 1);
    const attrs = {stroke: alive > 0 ? "#9467bd" : "#ddd", "stroke-opacity": Math.max(alive, 0.15),
                   "stroke-width": 1.5, class: alive > 0 ? "stump alive" : "stump"};
    if (j === 0) el("line", {x1: sx(theta), x2: sx(theta), y1: 0, y2: SIZE, ...attrs});
    else el("line", {x1: 0, x2: SIZE, y1: sy(theta), y2: sy(theta), ...attrs});
  });
  drawPoints((i) => (cur && i === cur.row ? {stroke: cur.mistake ? "#d00" : "#2a2",
                                              "stroke-width": 2, class: "seen"} : null));
  const mistakes = r.rounds.slice(0, k).filter((s) => s.mistake).length;
  const left = r.algo === "halving" ? weights.reduce((a, b) => a + b, 0) : null;
  setNumbers(`${k} of ${r.rounds.length}`, String(mistakes), fmt(r.bound), "–");
  let text = r.algo === "halving"
    ? `Halving over ${r.n_hypotheses} stumps: version space |V| = ${left};` +
      ` bound log2 N = ${fmt(r.bound)} (when a stump is consistent)`
    : `Weighted Majority over ${r.n_hypotheses} stumps: bound` +
      ` (m* ln(1/β) + ln N)/ln(2/(1+β)) = ${fmt(r.bound)} with m* = ${r.best_expert_mistakes}`;
  if (cur) text += `\nround ${k}: point ${cur.row}, vote ${fmt(cur.score)}, ` +
    (cur.mistake ? "MISTAKE" : "no mistake");
  if (r.exhausted_at !== null && k === r.rounds.length) {
    text += `\nround ${r.exhausted_at + 1} emptied the version space: no stump is consistent` +
      " with the points (try Weighted Majority)";
  }
  say(text);
  legend("purple lines: the stumps sign·(x_j − θ) still in the version space (WM: opacity =" +
         " weight)");
}

function drawAdversary() {
  const r = state.result;
  frame();
  boundaries(r.w, r.b, false);
  drawPoints((i) => (r.separable ? null : r.rows.includes(i)
    ? {stroke: "#ff7f0e", "stroke-width": 3, class: "farkas", "data-row": i} : null));
  r.order.forEach((row, t) => {
    const [x, y] = state.points[row];
    const label = el("text", {x: sx(x) + 8, y: sy(y) + 4, "font-size": 11,
                              fill: r.mistakes[t] ? "#d00" : "#777"});
    label.textContent = String(t + 1);
  });
  setNumbers(String(r.order.length), String(r.n_mistakes), novikoffText(r), "–");
  say("the adversary shows, each round, an unseen point that the perceptron's current w gets" +
      ` wrong: ${r.n_mistakes} mistakes` + (r.separable ? ` ≤ Novikoff's ${fmt(r.bound)},` +
      " which holds for every order" : "; not separable: no bound"));
  legend("numbers: the round in which the adversary showed each point (red: a mistake)");
}

const MODES = {
  perceptron: {ask: () => ask("perceptron", {passes: 50}), draw: drawPerceptron, steps: true},
  svm: {ask: () => ask("svm", {hard: $("hard").checked, C: +cValue()}), draw: drawSvm},
  pegasos: {ask: () => ask("pegasos", {lam: +$("lam").value, steps: +$("steps").value}),
            draw: drawPegasos},
  logistic: {ask: () => ask("logistic", {C: +$("logistic-c").value, box: state.box, grid: 50}),
             draw: drawLogistic},
  kernel: {ask: () => ask("kernel", {kernel: $("kernel").value, gamma: +$("kgamma").value,
                                     degree: +$("degree").value, box: state.box, grid: 50}),
           draw: drawKernel},
  experts: {ask: () => ask("experts", {algo: $("experts-algo").value, beta: +$("beta").value,
                                       n_stumps: +$("n-stumps").value}),
            draw: drawExperts, steps: true},
  adversary: {ask: () => ask("adversary", {}), draw: drawAdversary},
};

function cValue() { return Math.pow(10, +$("c-slider").value).toPrecision(3); }

function plain() {
  state.result = null;
  frame();
  drawPoints();
  setNumbers("–", "–", "–", "–");
  chart(null);
  say(`${state.points.length} points; press run`);
  $("plot").dataset.ready = "idle";
}

async function run() {
  const mode = MODES[state.mode];
  $("plot").dataset.ready = "busy";
  try {
    state.result = await mode.ask();
    state.cursor = 0;
    mode.draw();
  } catch (err) {
    state.result = null;
    frame();
    drawPoints();
    say(err.message, true);
  }
  $("plot").dataset.ready = "done";
}

function step(to) {
  if (!state.result || !MODES[state.mode].steps) return;
  const rounds = state.result.rounds, n = rounds.length;
  if (to === "mistake") {
    let k = state.cursor + 1;
    while (k < n && !rounds[k - 1].mistake) k++;
    state.cursor = Math.min(k, n);
  } else {
    state.cursor = to === "end" ? n : Math.min(state.cursor + 1, n);
  }
  MODES[state.mode].draw();
}

function showControls() {
  for (const div of document.querySelectorAll(".ctl")) {
    div.hidden = !div.dataset.modes.split(" ").includes(state.mode);
  }
}

function fitBox() {
  const xs = state.points.map((p) => p[0]), ys = state.points.map((p) => p[1]);
  const [a, b, c, d] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const pad = 0.12 * Math.max(b - a, d - c, 1e-6);
  const cx = (a + b) / 2, cy = (c + d) / 2, half = Math.max(b - a, d - c) / 2 + pad;
  state.box = [cx - half, cx + half, cy - half, cy + half];
}

async function init() {
  const sets = await (await fetch("/api/datasets")).json();
  for (const name of sets.datasets) {
    const option = document.createElement("option");
    option.value = option.textContent = name;
    $("dataset").appendChild(option);
  }
  $("plot").addEventListener("click", (event) => {
    const rect = $("plot").getBoundingClientRect();
    const px = event.clientX - rect.left - $("plot").clientLeft;  // inside the border
    const py = event.clientY - rect.top - $("plot").clientTop;
    const x = state.box[0] + px / SIZE * (state.box[1] - state.box[0]);
    const y = state.box[2] + (SIZE - py) / SIZE * (state.box[3] - state.box[2]);
    let label = $("cls-pos").checked ? 1 : -1;
    if (event.shiftKey) label = -label;
    if (state.points.length >= sets.max_points) {
      say(`at most ${sets.max_points} points`, true);
      return;
    }
    state.points.push([+x.toFixed(4), +y.toFixed(4)]);
    state.labels.push(label);
    plain();
  });
  $("clear").onclick = () => { state.points = []; state.labels = []; plain(); };
  $("undo").onclick = () => { state.points.pop(); state.labels.pop(); plain(); };
  $("load").onclick = async () => {
    const response = await fetch("/api/dataset", {method: "POST",
                                                  body: JSON.stringify({name: $("dataset").value})});
    const data = await response.json();
    if (!response.ok) { say(data.error, true); return; }
    state.points = data.points;
    state.labels = data.labels;
    fitBox();
    plain();
    if (data.truncated) say(`the first ${data.points.length} points of the set; press run`);
  };
  $("mode").onchange = () => {
    state.mode = $("mode").value;
    showControls();
    chart(null);
    plain();
  };
  $("run").onclick = run;
  $("step").onclick = () => step(1);
  $("to-end").onclick = () => step("end");
  $("next-mistake").onclick = () => step("mistake");
  $("restart").onclick = () => { state.cursor = 0; if (state.result) MODES[state.mode].draw(); };
  $("c-slider").oninput = () => { $("c-value").textContent = cValue(); };
  $("c-slider").onchange = () => { if (state.mode === "svm" && !$("hard").checked) run(); };
  $("hard").onchange = () => { if (state.mode === "svm" && state.result) run(); };
  showControls();
  plain();
}

init();
