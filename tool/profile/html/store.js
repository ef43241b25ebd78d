/* The page of a run store (tardy html --store DIR) or of an Extra-P file (--extrap FILE, a
 * run per value): DATA is a "tardy-store-report" document (cli/html_store.c). Per top
 * metric: the measured runs over each parameter the runs vary, the chosen model's curve with
 * its prediction interval as a band, and the targets; then the runs and every model with its
 * errors. */
"use strict";

const RUNS = DATA.runs || [];
const PARAMS = DATA.parameters || [];
const AT = DATA.predictions || [];
const CURVES = DATA.curves || [];

/* "n=512,p=4" → {n: 512, p: 4} */
function parseTarget(t) {
  const o = {};
  for (const part of String(t).split(",")) {
    const [k, v] = part.split("=");
    if (k) o[k.trim()] = +v;
  }
  return o;
}

/* The measured value of a prediction's metric in a run, for the metrics the policies name
 * after one row ("kind:key" rows in run.values, named as lua/policies/default.lua does). */
const RANK_METRICS = {
  "per-rank compute time, max, fitted directly (s)": ["rank:compute", "max"],
  "per-rank compute time, max (s)": ["rank:compute", "max"],
  "per-rank compute time, mean (s)": ["rank:compute", "mean"],
  "MPI time per rank, max (s)": ["rank:mpi", "max"],
  "wall time per rank, max (s)": ["rank:wall", "max"],
};
const shortKey = k => k.replace(/^[A-Za-z0-9_]+:/, "").replace(/;[^>]*/g, "");
const METRIC_ROWS = (() => {
  const map = new Map(Object.entries(RANK_METRICS));
  for (const run of RUNS) {
    for (const key of Object.keys(run.values || {})) {
      const kind = key.split(":")[0];
      // an Extra-P file's own metric ("rank:region/metric"), named as the file names it
      if (kind === "rank" && key.includes("/")) map.set(key.slice(5), [key, "max"]);
      if (kind !== "mpi" && kind !== "interval") continue;
      const name = (kind === "interval" ? "interval " : "") + shortKey(key);
      map.set(`${name}: time per rank, mean (s)`, [key, "mean"]);
      map.set(`${name}: time per rank, max (s)`, [key, "max"]);
      map.set(`${name}: ${kind === "mpi" ? "calls" : "count"} per rank`, [key, "count"]);
    }
  }
  return map;
})();
function measured(metric, run) {
  const m = METRIC_ROWS.get(metric);
  const row = m && run.values ? run.values[m[0]] : null;
  return row ? row[m[1]] : null;
}
/* What a metric's values are, by its name: "time" (seconds), "bytes" or "count". */
const metricKind = metric => (/\(s\)$/.test(metric) ? "time" : /bytes/.test(metric) ? "bytes" : "count");
const fmtMetric = (metric, v) => ({time: fmtTime, bytes: fmtBytes, count: fmtCount})[metricKind(metric)](v);

/* One format for every tick of an axis: times as fmtTimeAxis; counts up to top in SI units
 * once the largest would be (fmtCount writes 10,000,000 as 10.0M, so 8,000,000 and 10.0M
 * stood on one axis). */
function axisFormat(metric, top) {
  const kind = metricKind(metric);
  if (kind === "time") return fmtTimeAxis(top);
  return kind === "bytes" || Math.abs(top) < 1e7 ? v => fmtMetric(metric, v) : d3.format("~s");
}

function header() {
  const prog = (DATA.program || "?").split("/").pop();
  const n = RUNS.length;
  APP.replaceChildren(el("header", {},
    el("h1", {text: DATA.extrap != null
      ? `${prog}: ${n} value${n === 1 ? "" : "s"} of each metric from the Extra-P file ${DATA.extrap}`
      : `${prog}: ${n} run${n === 1 ? "" : "s"} in ${DATA.store}`}),
    el("p", {class: "sub", text: `policy ${DATA.policy}; targets ${DATA.targets || "none"}; parameters ` +
      PARAMS.map(p => `${p.name} ${fmtCount(p.min)}..${fmtCount(p.max)}`).join(", ")})));
  nav([["metrics", "Metrics"], ["models", "Models"], ["runs", DATA.extrap != null ? "Values" : "Runs"]]);
  if (DATA.note) APP.append(el("p", {class: "note", text: "Note: " + DATA.note}));
}

/* The metrics worth a chart: those in seconds, and an Extra-P file's own (of units the file
 * does not say), the compute time and the metrics with measured values first, then by their
 * value at the first target; at most 8. */
function topMetrics() {
  const value = new Map();
  for (const p of AT) if (!value.has(p.metric)) value.set(p.metric, p.value);
  if (!value.size) for (const c of CURVES) for (const p of c.predictions) if (!value.has(p.metric)) value.set(p.metric, p.value);
  const names = [...value.keys()].filter(m => /\(s\)$/.test(m) || (DATA.extrap != null && METRIC_ROWS.has(m)));
  const rank = m => 2 * METRIC_ROWS.has(m) + m.startsWith("per-rank compute");
  names.sort((a, b) => (rank(b) - rank(a)) || (value.get(b) - value.get(a)));
  return names.slice(0, 8);
}

/* One chart: metric over parameter param, the others at the slice's values (the first
 * target's where runs have them, else the latest run's; cli/html_store.c). */
function chart(parent, metric, curve) {
  const param = curve.parameter, slice = DATA.slice || {};
  const others = PARAMS.filter(p => p.name !== param).map(p => p.name);
  const onCurve = t => others.every(k => t[k] == null || slice[k] == null || t[k] === slice[k]);
  const line = curve.predictions.filter(p => p.metric === metric)
    .map(p => ({x: parseTarget(p.target)[param], y: p.value, lo: p.low, hi: p.high, p: p}))
    .filter(d => isFinite(d.x)).sort((a, b) => a.x - b.x);
  const points = RUNS.filter(r => onCurve(r.params)).map(r => ({x: r.params[param], y: measured(metric, r), run: r}))
    .filter(d => d.y != null);
  const targets = AT.filter(p => p.metric === metric).map(p => ({t: parseTarget(p.target), p: p}))
    .filter(d => d.t[param] != null && onCurve(d.t)).map(d => ({x: d.t[param], y: d.p.value, lo: d.p.low, hi: d.p.high, p: d.p}));
  const box = el("div", {class: "model-chart"});
  box.append(el("h3", {text: `${metric} over ${param}`}));
  parent.append(box);
  if (!line.length && !points.length) {
    box.append(el("p", {class: "empty", text: "no model and no measured value for this metric"}));
    return;
  }
  const w = Math.min(chartWidth(parent), 900), h = 280, m = {l: 70, r: 20, t: 10, b: 36};
  const xs = line.map(d => d.x).concat(points.map(d => d.x), targets.map(d => d.x));
  const ys = line.flatMap(d => [d.y, isFinite(d.hi) ? d.hi : d.y]).concat(points.map(d => d.y), targets.map(d => isFinite(d.hi) ? d.hi : d.y));
  const logX = d3.min(xs) > 0;
  const x = (logX ? d3.scaleLog().base(2) : d3.scaleLinear()).domain(d3.extent(xs)).nice().range([m.l, w - m.r]);
  const y = d3.scaleLinear().domain([0, d3.max(ys) * 1.05 || 1]).nice().range([h - m.b, m.t]);
  const svg = d3.select(box).append("svg").attr("class", "model").attr("width", w).attr("height", h);
  svg.append("g").attr("class", "axis").attr("transform", `translate(0,${h - m.b})`)
    .call(d3.axisBottom(x).ticks(6, logX ? ",.0f" : undefined));
  svg.append("g").attr("class", "axis").attr("transform", `translate(${m.l},0)`)
    .call(d3.axisLeft(y).ticks(5).tickFormat(axisFormat(metric, y.domain()[1])));
  svg.append("text").attr("x", w - m.r).attr("y", h - 4).attr("text-anchor", "end").text(param);
  const band = line.filter(d => isFinite(d.lo) && isFinite(d.hi));
  if (band.length) {
    svg.append("path").attr("class", "band").datum(band).style("fill", "#3a7bd5").style("opacity", 0.18)
      .attr("d", d3.area().x(d => x(d.x)).y0(d => y(Math.max(d.lo, y.domain()[0]))).y1(d => y(d.hi)));
  }
  if (line.length) {
    svg.append("path").attr("class", "curve").datum(line).style("fill", "none").style("stroke", "#3a7bd5")
      .style("stroke-width", 2).attr("d", d3.line().x(d => x(d.x)).y(d => y(d.y)));
  }
  svg.selectAll("circle.run").data(points).enter().append("circle").attr("class", "run")
    .attr("cx", d => x(d.x)).attr("cy", d => y(d.y)).attr("r", 4.5).style("fill", "#d9534f")
    .on("mousemove", d => tip.show(d3.event, `<b>${esc(d.run.file)}</b><br>${param}=${fmtCount(d.x)}: ${fmtMetric(metric, d.y)} measured`))
    .on("mouseout", tip.hide);
  const tg = svg.selectAll("g.target").data(targets).enter().append("g").attr("class", "target")
    .on("mousemove", d => tip.show(d3.event, `<b>target ${esc(d.p.target)}</b><br>${fmtMetric(metric, d.y)} ` +
      (isFinite(d.lo) ? `(${fmtMetric(metric, d.lo)}..${fmtMetric(metric, d.hi)}, ${d.p.coverage}%)` : "") +
      `<br>${esc(d.p.family)}: ${esc(d.p.model)}`))
    .on("mouseout", tip.hide);
  tg.filter(d => isFinite(d.lo)).append("line").attr("x1", d => x(d.x)).attr("x2", d => x(d.x))
    .attr("y1", d => y(Math.max(d.lo, 0))).attr("y2", d => y(d.hi)).style("stroke", "#1d232b");
  tg.append("path").attr("d", d3.symbol().type(d3.symbolDiamond).size(90))
    .attr("transform", d => `translate(${x(d.x)},${y(d.y)})`).style("fill", "#f0a030").style("stroke", "#1d232b");
  const legend = el("div", {class: "legend"});
  legend.append(el("span", {}, el("i", {style: "background:#d9534f"}), `measured (${points.length} ${DATA.extrap != null ? "values" : "runs"}` +
                   (others.length ? `, ${others.map(k => `${k}=${slice[k]}`).join(", ")}` : "") + ")"),
                el("span", {}, el("i", {style: "background:#3a7bd5"}), line.length ? `model: ${line[0].p.model}` : "no model"));
  // only what the chart draws: a target elsewhere (another value of a parameter) is not on it
  if (band.length) legend.append(el("span", {}, el("i", {style: "background:#3a7bd5;opacity:0.25"}), "prediction interval"));
  if (targets.length) legend.append(el("span", {}, el("i", {style: "background:#f0a030"}), `targets (${targets.length})`));
  box.append(legend);
}

function metrics() {
  const s = section("metrics", "Metrics over the parameters",
    "How does each top metric grow with the scale, how well does the chosen model follow the " +
    "runs, and how sure is the prediction at the targets?");
  const names = topMetrics();
  if (!CURVES.length) {
    s.append(el("p", {class: "empty", text: "No parameter varies between the runs: nothing to plot."}));
    return;
  }
  if (!names.length) s.append(el("p", {class: "empty", text: "No model: " + (DATA.note || "no predictions")}));
  for (const metric of names) for (const curve of CURVES) chart(s, metric, curve);
}

function models() {
  const s = section("models", "Models and their errors",
    "Which model did the policy choose for each metric, how well does it fit the runs, and how " +
    "far off would it have been on runs it did not see?");
  table(s, [
    {label: "metric", value: p => p.metric, cls: "site"},
    {label: "target", value: p => p.target},
    {label: "predicted", num: true, value: p => p.value, fmt: (v, p) => fmtMetric(p.metric, v)},
    {label: "interval", num: true, value: p => p.high - p.low,
     fmt: (v, p) => (isFinite(p.low) ? `${fmtMetric(p.metric, p.low)}..${fmtMetric(p.metric, p.high)}` : "–")},
    {label: "model", value: p => `${p.family}: ${p.model}`, cls: "site"},
    {label: "fit error", num: true, value: p => p.fit_error_pct, fmt: v => (v == null ? "–" : v.toFixed(1) + "%"),
     title: "SMAPE on the fitted runs"},
    {label: "cross-validated", num: true, value: p => p.uncertainty_pct, fmt: v => (v == null ? "–" : v.toFixed(1) + "%"),
     title: "leave-one-out uncertainty"},
    {label: "extrapolated", value: p => (p.extrapolated ? "yes" : "no")},
  ], AT, {cls: "models", sortBy: 2, empty: DATA.note || "no predictions at the targets"});
}

function runs() {
  const params = PARAMS.map(p => ({label: p.name, num: true, value: r => r.params[p.name], fmt: fmtCount}));
  if (DATA.extrap != null) { // a run per value: its point and the charted metrics' values
    const s = section("runs", "Values", "Which values does the file hold, at which points?");
    table(s, params.concat(topMetrics().filter(m => METRIC_ROWS.has(m)).map(m => (
      {label: m, num: true, value: r => measured(m, r), fmt: v => fmtMetric(m, v)}))), RUNS, {cls: "runs"});
    return;
  }
  const s = section("runs", "Runs", "Which runs does the store hold, at which scales?");
  const wall = r => (r.values && r.values["rank:wall"] ? r.values["rank:wall"].max : null);
  const compute = r => (r.values && r.values["rank:compute"] ? r.values["rank:compute"].max : null);
  table(s, params.concat([
    {label: "wall time", num: true, value: wall, fmt: fmtTime},
    {label: "compute, slowest rank", num: true, value: compute, fmt: fmtTime},
    {label: "started", value: r => r.start_time},
    {label: "file", value: r => r.file, cls: "site"},
  ]), RUNS, {cls: "runs"});
}

header();
metrics();
models();
runs();
drawn();
