/* The page of two runs compared (tardy html A.json B.json): DATA is the "tardy-diff" document
 * of tardy diff --json (docs/diff-schema.md): per-rank means, every change B - A. Views: the
 * runs and their totals, the largest changes as bars, and the rows of each kind. */
"use strict";

const A = DATA.a || {}, B = DATA.b || {};
const change = c => (c && c.change != null ? c.change : 0);
const STATUS = {both: "", new: "new", vanished: "vanished"};

function fmtChange(v, fmt) { return (v > 0 ? "+" : v < 0 ? "−" : "±") + fmt(Math.abs(v)); }
function fmtRelative(c) {
  return !c || c.relative == null ? (c && c.a === 0 && c.b > 0 ? "new" : "–")
    : fmtChange(100 * c.relative, v => v.toFixed(1)) + "%"; /* the sign as the change's, "−" */
}
function diffRowName(r, kind) {
  if (kind === "intervals") return "interval " + intervalName(r);
  if (kind === "waits") return `${patternName(r.pattern)} in ${siteName(r)}`;
  return siteName(r);
}

function header() {
  const prog = (B.program || A.program || "?").split("/").pop();
  APP.replaceChildren(el("header", {},
    el("h1", {text: `${prog}: what changed`}),
    el("p", {class: "sub", text: `A ${A.path || "?"} (${A.ranks} ranks, ${A.start_time || "?"}) → ` +
      `B ${B.path || "?"} (${B.ranks} ranks, ${B.start_time || "?"})`})));
  nav([["totals", "Totals"], ["changes", "Largest changes"], ["rows", "Rows"]]);
  if (!DATA.same_ranks) {
    APP.append(el("p", {class: "note", text: "The runs had different rank counts: every figure " +
      "is a per-rank mean (the sum over ranks divided by the ranks)."}));
  }
  const s = section("totals", "Totals per rank", "Did the run as a whole get faster or slower, and where: MPI, compute or waiting?");
  const cards = el("div", {class: "cards"});
  s.append(cards);
  const names = {wall: "wall time", mpi: "MPI", compute: "compute", wait_time: "waiting"};
  for (const [k, label] of Object.entries(names)) {
    const c = (DATA.totals || {})[k];
    if (c) card(cards, label, fmtChange(change(c), fmtTime), `${fmtTime(c.a)} → ${fmtTime(c.b)} (${fmtRelative(c)})`);
  }
}

/* The 20 largest changes of time over all kinds, as bars left (faster) and right (slower). */
function largest() {
  const s = section("changes", "Largest changes",
    "What got faster, what got slower? The 20 rows whose time per rank changed most, of every kind.");
  const rows = [].concat(...["mpi", "intervals", "waits"].map(k => (DATA[k] || []).map(r => ({r: r, kind: k}))))
    .sort((x, y) => Math.abs(change(y.r.time)) - Math.abs(change(x.r.time))).slice(0, 20);
  if (!rows.length) { s.append(el("p", {class: "empty", text: "no rows in either run"})); return; }
  const w = chartWidth(s), labelW = Math.min(460, w * 0.45), rowH = 22;
  const m = d3.max(rows, d => Math.abs(change(d.r.time))) || 1;
  const x = d3.scaleLinear().domain([-m, m]).nice().range([labelW + 10, w - 90]);
  const svg = d3.select(s).append("div").attr("class", "chart").append("svg").attr("id", "changes")
    .attr("width", w).attr("height", rows.length * rowH + 24);
  const tick = fmtTimeAxis(x.domain()[1]);
  svg.append("g").attr("class", "axis").attr("transform", `translate(0,${rows.length * rowH})`)
    .call(d3.axisBottom(x).ticks(6).tickFormat(v => fmtChange(v, tick)));
  const g = svg.selectAll("g.change").data(rows).enter().append("g").attr("class", "change")
    .attr("transform", (d, i) => `translate(0,${i * rowH})`)
    .on("mousemove", d => tip.show(d3.event, `<b>${esc(diffRowName(d.r, d.kind))}</b><br>` +
      `${fmtTime(d.r.time.a)} → ${fmtTime(d.r.time.b)} per rank (${fmtRelative(d.r.time)})` +
      (d.r.status !== "both" ? `<br>${d.r.status}` : "")))
    .on("mouseout", tip.hide);
  g.append("text").attr("y", rowH / 2 + 4).text(d => {
    const t = (STATUS[d.r.status] ? `[${STATUS[d.r.status]}] ` : "") + diffRowName(d.r, d.kind);
    return t.length > labelW / 6.2 ? t.slice(0, labelW / 6.2 - 1) + "…" : t;
  });
  g.append("rect").attr("x", d => x(Math.min(0, change(d.r.time)))).attr("y", 4).attr("height", rowH - 8)
    .attr("width", d => Math.max(Math.abs(x(change(d.r.time)) - x(0)), 1))
    .style("fill", d => (change(d.r.time) > 0 ? "var(--mpi)" : "#3aa35b"));
  g.append("text").attr("x", w - 85).attr("y", rowH / 2 + 4).text(d => fmtChange(change(d.r.time), fmtTime));
}

function rows() {
  const s = section("rows", "Rows", "Every call site, interval and wait row of either run, matched by " +
    "function and source frames; click a heading to sort, type to filter.");
  const common = [
    {label: "status", value: r => r.status},
    {label: "time A", num: true, value: r => r.time.a, fmt: fmtTime},
    {label: "time B", num: true, value: r => r.time.b, fmt: fmtTime},
    {label: "change", num: true, value: r => Math.abs(change(r.time)), fmt: (v, r) => fmtChange(change(r.time), fmtTime),
     title: "sorted by its size"},
    {label: "relative", num: true, value: r => (r.time.relative == null ? null : r.time.relative), fmt: (v, r) => fmtRelative(r.time)},
    {label: "count change", num: true, value: r => change(r.count), fmt: v => fmtChange(v, fmtCount)},
  ];
  for (const [kind, title] of [["mpi", "MPI call sites"], ["intervals", "Compute intervals"], ["waits", "Wait rows"]]) {
    s.append(el("h3", {text: title}));
    const cols = [{label: "row", value: r => diffRowName(r, kind), cls: "site"}].concat(common);
    if (kind === "mpi") cols.push({label: "bytes change", num: true, value: r => change(r.bytes), fmt: v => fmtChange(v, fmtBytes)});
    table(s, cols, DATA[kind] || [], {cls: "diff-" + kind, sortBy: 4});
  }
}

header();
largest();
rows();
drawn();
