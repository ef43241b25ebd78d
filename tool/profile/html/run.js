/* The page of one run (tardy html PROFILE.json, TARDY_HTML=1): DATA is the JSON profile
 * (docs/profile-schema.md). Views: the run at a glance, MPI time by call path (icicle),
 * the spread over ranks (box plots), wait states (Sankey), and the tables. */
"use strict";

const RUN = DATA.run || {};
const NRANKS = RUN.ranks || 1;
const RANKS = DATA.ranks || {};
const MPI_ROWS = DATA.mpi || [];
const INTERVALS = DATA.intervals || [];
const WAITS = DATA.waits || [];
const CAUSES = DATA.wait_causes || [];
/* A statistic [sum, min, min_rank, max, max_rank, ranks] by name, and its mean over all ranks. */
const STAT_AT = {sum: 0, min: 1, min_rank: 2, max: 3, max_rank: 4, ranks: 5};
const stat = (s, f) => (!s ? 0 : f === "mean" ? s[0] / NRANKS : s[STAT_AT[f]] != null ? s[STAT_AT[f]] : 0);
const MPI_TIME = stat(RANKS.mpi, "sum") || d3.sum(MPI_ROWS, r => stat(r.time, "sum"));

const imbalance = s => (stat(s, "mean") > 0 ? stat(s, "max") / stat(s, "mean") : null);

/* ---- the run at a glance ---- */
function glance() {
  const prog = (RUN.program || "?").split("/").pop();
  APP.replaceChildren(el("header", {},
    el("h1", {text: `${prog} on ${NRANKS} rank${NRANKS === 1 ? "" : "s"}`}),
    el("p", {class: "sub", text: [RUN.program].concat(RUN.args || []).join(" ") +
                                 (RUN.start_time ? ` — started ${RUN.start_time}` : "")})));
  const links = [["glance", "At a glance"], ["callpaths", "Call paths"], ["spread", "Over ranks"],
                 ["waits", "Wait states"], ["tables", "Tables"]];
  nav(links);
  if (DATA.partial) {
    APP.append(el("p", {class: "note", text: `Partial profile: ${DATA.partial.ranks_present} of ` +
      `${NRANKS} ranks contributed` + (DATA.partial.missing ? `; missing ranks ${DATA.partial.missing}` : "")}));
  }
  const s = section("glance", "The run at a glance",
    "How long did it run, and where did the time go: MPI, computing, or waiting for late ranks?");
  const wall = stat(RANKS.wall, "sum"), waits = RANKS.wait_time;
  const cards = el("div", {class: "cards"});
  s.append(cards);
  card(cards, "wall time", fmtTime(stat(RANKS.wall, "max")), "longest rank, MPI_Init to MPI_Finalize");
  card(cards, "MPI", fmtShare(wall ? stat(RANKS.mpi, "sum") / wall : null),
       `${fmtTime(stat(RANKS.mpi, "mean"))} per rank`);
  card(cards, "compute", fmtShare(wall ? stat(RANKS.compute, "sum") / wall : null),
       `${fmtTime(stat(RANKS.compute, "max"))} on the slowest rank (${stat(RANKS.compute, "max_rank")})`);
  card(cards, "waiting", waits ? fmtShare(wall ? stat(waits, "sum") / wall : null) : "not measured",
       waits ? `${fmtTime(stat(waits, "mean"))} per rank, inside MPI` : "TARDY_WAITS=0");
  card(cards, "ranks", fmtCount(NRANKS), `${fmtCount(RUN.hosts || 1)} host${RUN.hosts > 1 ? "s" : ""}` +
       (RUN.host ? `, rank 0 on ${RUN.host}` : ""));
  card(cards, "MPI library", (RUN.mpi_library || "?").replace(/\s*Version:?\s*/, " "),
       RUN.mpi_version ? `MPI ${RUN.mpi_version}` : "");
  shareBar(s, wall);
  const params = Object.entries(RUN.params || {}).map(([k, v]) => `${k}=${v}`).join(", ");
  const on = [];
  if (waits) on.push("wait states");
  if (RANKS.mpi_memory_high_water) on.push("MPI library memory");
  if (DATA.counters) on.push("counters: " + (DATA.counters.events || []).join(", "));
  if (DATA.mpi_t) on.push("MPI_T");
  const facts = [["parameters", params || "none (TARDY_PARAMS)"],
                 ["options", `call-path depth ${RUN.callpath_depth}, attached by ${RUN.interface || "PMPI"}` +
                             `, thread level ${RUN.thread_level}`],
                 ["recorded", on.join("; ") || "MPI calls and compute intervals"],
                 ["tardy", `${RUN.tardy_version || "?"}, clock ${RUN.clock || "?"}, run ${RUN.run_id || "?"}`]];
  const dl = el("dl", {class: "facts"});
  for (const [k, v] of facts) dl.append(el("dt", {text: k}), el("dd", {text: v}));
  s.append(dl);
}

/* One horizontal bar of the ranks' summed wall time: MPI (of it waiting), compute, other. */
function shareBar(parent, wall) {
  if (!wall) return;
  const wait = stat(RANKS.wait_time, "sum"), mpi = stat(RANKS.mpi, "sum");
  const parts = (RANKS.wait_time ? [["waiting in MPI", wait, "var(--wait)"]] : [])
    .concat([[RANKS.wait_time ? "other MPI" : "MPI", Math.max(mpi - wait, 0), "var(--mpi)"],
             ["compute", stat(RANKS.compute, "sum"), "var(--compute)"]]);
  parts.push(["outside both (start-up, tardy)", Math.max(wall - d3.sum(parts, p => p[1]), 0), "var(--other)"]);
  const w = chartWidth(parent), x = d3.scaleLinear().domain([0, d3.sum(parts, p => p[1])]).range([0, w]);
  const svg = d3.select(parent).append("div").attr("class", "chart").append("svg")
    .attr("width", w).attr("height", 26);
  let at = 0;
  for (const [name, v, color] of parts) {
    svg.append("rect").attr("x", x(at)).attr("width", Math.max(x(v) - x(0), 0)).attr("height", 26)
      .style("fill", color)
      .on("mousemove", () => tip.show(d3.event, `<b>${name}</b><br>${fmtTime(v / NRANKS)} per rank, ${fmtShare(v / wall)} of the wall time`))
      .on("mouseout", tip.hide);
    at += v;
  }
  const legend = el("div", {class: "legend"});
  for (const [name, v, color] of parts) {
    legend.append(el("span", {}, el("i", {style: `background:${color}`}), `${name} ${fmtShare(v / wall)}`));
  }
  parent.append(legend);
}

/* ---- MPI time by call path: an icicle over the frames, outermost at the top ---- */
/* The call sites it draws: the ICICLE_SITES largest; the others (each far below a pixel at
 * 10,000 call paths) join one box, so that a large profile stays quick. */
const ICICLE_SITES = 2000;
function callTree() {
  const root = {name: "all MPI calls", children: new Map(), rows: []};
  const rows = MPI_ROWS.slice().sort((a, b) => stat(b.time, "sum") - stat(a.time, "sum"));
  const rest = rows.splice(ICICLE_SITES);
  if (rest.length) {
    const name = `(${fmtCount(rest.length)} smaller call sites)`;
    root.children.set(name, {name: name, children: new Map(), rows: rest});
  }
  for (const r of rows) {
    let node = root;
    const frames = siteFrames(r).slice().reverse().map(frameText).concat([r.function]);
    for (const name of frames) {
      if (!node.children.has(name)) node.children.set(name, {name: name, children: new Map(), rows: []});
      node = node.children.get(name);
    }
    node.rows.push(r);
  }
  const asObject = n => ({name: n.name, rows: n.rows, children: [...n.children.values()].map(asObject)});
  return d3.hierarchy(asObject(root), d => d.children)
    .sum(d => d3.sum(d.rows, r => stat(r.time, "mean")))
    .sort((a, b) => b.value - a.value);
}

function icicle() {
  const s = section("callpaths", "MPI time by call path",
    "Which code paths spend the MPI time? Width: time per rank (mean); the 2,000 largest call sites " +
    "one by one, any others together. Click a frame to zoom in, " +
    "the top bar or a crumb to zoom out; hover for calls, bytes, imbalance and the source line.");
  if (!MPI_ROWS.length) { s.append(el("p", {class: "empty", text: "no MPI calls recorded"})); return; }
  const root = callTree();
  d3.partition().size([1, root.height + 1])(root);
  root.eachAfter(d => { /* calls, bytes and call sites below each frame, bottom up */
    d.calls = d3.sum(d.data.rows, r => stat(r.count, "sum"));
    d.bytes = d3.sum(d.data.rows, r => stat(r.sent, "sum") + stat(r.recv, "sum"));
    d.sites = d.data.rows.length;
    d.first = d.data.rows[0];
    for (const c of d.children || []) {
      d.calls += c.calls;
      d.bytes += c.bytes;
      d.sites += c.sites;
      d.first = d.first || c.first;
    }
  });
  const crumbs = el("div", {class: "crumbs"});
  s.append(crumbs);
  const w = chartWidth(s), rowH = 20, h = Math.min(root.height + 1, 40) * rowH;
  const svg = d3.select(s).append("div").attr("class", "chart").append("svg")
    .attr("width", w).attr("height", h).attr("id", "icicle");
  const color = d3.scaleOrdinal(d3.schemeTableau10);
  let focus = root;
  function tipHtml(d) {
    const one = d.sites === 1 ? d.first : null;
    let html = `<b>${esc(d.data.name)}</b><br>${fmtTime(d.value)} per rank, ` +
               `${fmtShare(d.value * NRANKS / MPI_TIME)} of MPI time<br>${fmtCount(d.calls)} calls, ` +
               `${fmtBytes(d.bytes)} sent + received (all ranks)`;
    if (one) {
      html += `<br>imbalance max/mean ${fmtRatio(imbalance(one.time))}, slowest rank ${stat(one.time, "max_rank")}` +
              `<br>source line ${esc(sourceLine(one))}`;
    } else if (d.sites > 1) {
      html += `<br>${fmtCount(d.sites)} call sites below`;
    }
    return html;
  }
  function draw() {
    const x0 = focus.x0, span = focus.x1 - focus.x0 || 1, top = focus.depth;
    const x = v => (v - x0) / span * w;
    const nodes = root.descendants().filter(d => d.depth >= top && d.x1 > x0 && d.x0 < focus.x1 &&
      (x(d.x1) - x(d.x0)) >= 0.8 && d.depth - top < 40);
    const g = svg.selectAll("g.node").data(nodes, d => d.ancestors().map(a => a.data.name).join("\n"));
    g.exit().remove();
    const enter = g.enter().append("g").attr("class", "node");
    enter.append("rect").attr("class", "frame").attr("height", rowH - 1);
    enter.append("text").attr("y", 14).attr("x", 4);
    enter.on("click", d => { focus = d === focus && d.parent ? d.parent : d; draw(); })
      .on("mousemove", d => tip.show(d3.event, tipHtml(d)))
      .on("mouseout", tip.hide);
    const all = enter.merge(g).attr("transform", d => `translate(${Math.max(x(d.x0), 0)},${(d.depth - top) * rowH})`);
    all.select("rect").attr("width", d => Math.max(Math.min(x(d.x1), w) - Math.max(x(d.x0), 0), 0.5))
      .style("fill", d => d.depth === 0 ? "#8a96a3" : (!d.children ? "var(--mpi)" : color(d.data.name.split(" ")[0])))
      .style("opacity", d => d.depth < top ? 0.5 : 0.9);
    const label = d => `${d.data.name} (${fmtTime(d.value)})`;
    /* the whole name for screen readers (and tests) where the box is too narrow to show it */
    all.attr("aria-label", label);
    all.select("text").text(d => {
      const room = (Math.min(x(d.x1), w) - Math.max(x(d.x0), 0) - 8) / 6.2;
      return room < 4 ? "" : label(d).length > room ? label(d).slice(0, room - 1) + "…" : label(d);
    });
    crumbs.replaceChildren("zoom: ");
    focus.ancestors().reverse().forEach((a, i, list) => {
      const link = el("a", {text: a.data.name.split(" ")[0]});
      link.addEventListener("click", () => { focus = a; draw(); });
      crumbs.append(link, i < list.length - 1 ? " › " : "");
    });
  }
  draw();
}

/* ---- distributions over ranks ---- */
/* Quartiles of the per-rank totals from ranks_histogram ([bin, ranks, seconds]; bin means),
 * ranks without the row at 0, the smallest and largest exact; interpolated between the two
 * totals around p·(ranks − 1) as the Lua API's p50 and p90 are (Hyndman and Fan's definition
 * 7): the median of two ranks is their mean. The profile leaves out a ranks_histogram of one
 * bin: then every rank with the row is in it. */
function rankBox(row, field) {
  const s = row[field || "time"];
  const hist = row.ranks_histogram || (stat(s, "ranks") ? [[null, stat(s, "ranks"), stat(s, "sum")]] : []);
  const absent = Math.max(NRANKS - stat(s, "ranks"), 0);
  const least = stat(s, "min"), lo = absent ? 0 : least, hi = stat(s, "max");
  const nth = k => { // the k-th smallest total, from 0
    if (k < absent) return 0;
    if (k === absent) return least;
    if (k >= NRANKS - 1) return hi;
    let seen = absent;
    for (const [, n, sum] of hist) {
      seen += n;
      if (seen > k) return Math.min(Math.max(sum / n, least), hi);
    }
    return hi;
  };
  const q = p => {
    if (NRANKS < 1) return 0;
    const h = p * (NRANKS - 1), k = Math.floor(h), a = nth(k);
    return h > k ? a + (h - k) * (nth(k + 1) - a) : a;
  };
  return {min: lo, q1: q(0.25), median: q(0.5), q3: q(0.75), max: hi, mean: stat(s, "mean"),
          slowest: stat(s, "max_rank")};
}

function boxPlots(parent, title, rows, name) {
  if (!rows.length) return;
  parent.append(el("h3", {text: title}));
  const w = chartWidth(parent), labelW = Math.min(420, w * 0.42), rowH = 26;
  const boxes = rows.map(r => ({row: r, box: rankBox(r), name: name(r)}));
  const x = d3.scaleLinear().domain([0, d3.max(boxes, b => b.box.max) || 1]).nice()
    .range([labelW + 10, w - 150]);
  const svg = d3.select(parent).append("div").attr("class", "chart").append("svg")
    .attr("class", "boxes").attr("width", w).attr("height", boxes.length * rowH + 24);
  svg.append("g").attr("class", "axis").attr("transform", `translate(0,${boxes.length * rowH})`)
    .call(d3.axisBottom(x).ticks(6).tickFormat(fmtTimeAxis(x.domain()[1])));
  const g = svg.selectAll("g.box").data(boxes).enter().append("g").attr("class", "box")
    .attr("transform", (d, i) => `translate(0,${i * rowH})`)
    .on("mousemove", d => tip.show(d3.event, `<b>${esc(d.name)}</b><br>per rank: min ${fmtTime(d.box.min)}, ` +
      `quartiles ${fmtTime(d.box.q1)} / ${fmtTime(d.box.median)} / ${fmtTime(d.box.q3)}, max ${fmtTime(d.box.max)}` +
      `<br>mean ${fmtTime(d.box.mean)}; slowest rank ${d.box.slowest}`))
    .on("mouseout", tip.hide);
  g.append("text").attr("x", 0).attr("y", rowH / 2 + 4)
    .text(d => (d.name.length > labelW / 6.2 ? d.name.slice(0, labelW / 6.2 - 1) + "…" : d.name));
  g.append("line").attr("x1", d => x(d.box.min)).attr("x2", d => x(d.box.max))
    .attr("y1", rowH / 2).attr("y2", rowH / 2).style("stroke", "#555");
  g.append("rect").attr("x", d => x(d.box.q1)).attr("width", d => Math.max(x(d.box.q3) - x(d.box.q1), 1.5))
    .attr("y", 5).attr("height", rowH - 10).style("fill", "#9cc3f0").style("stroke", "#3a7bd5");
  g.append("line").attr("x1", d => x(d.box.median)).attr("x2", d => x(d.box.median))
    .attr("y1", 5).attr("y2", rowH - 5).style("stroke", "#1d232b").style("stroke-width", 2);
  g.append("text").attr("class", "slowest").attr("x", w - 145).attr("y", rowH / 2 + 4)
    .text(d => `slowest: rank ${d.box.slowest}`);
}

function spread() {
  const s = section("spread", "Distribution over ranks",
    "Is the work even over the ranks, or does one rank hold the others up? Per-rank totals: " +
    "whiskers min–max, box the quartiles, line the median (from the profile's histograms).");
  const top = (rows, f) => rows.slice().sort((a, b) => stat(f(b), "sum") - stat(f(a), "sum")).slice(0, 10);
  boxPlots(s, "Top MPI call sites", top(MPI_ROWS, r => r.time), siteName);
  boxPlots(s, "Top compute intervals", top(INTERVALS, r => r.time), intervalName);
  boxPlots(s, "Wait rows", top(WAITS, r => r.time), r => `${patternName(r.pattern)} in ${siteName(r)}`);
}

/* ---- wait states: waiting site → pattern → cause ---- */
function waitStates() {
  const s = section("waits", "Wait states",
    "Which call sites waited, on which pattern, and which code on the late ranks caused it? " +
    "Seconds summed over the waiting ranks; shares of all MPI time.");
  if (!RANKS.wait_time) {
    s.append(el("p", {class: "empty", text: "Not measured in this run: wait states were off (TARDY_WAITS=0)."}));
    return;
  }
  if (!WAITS.length) { s.append(el("p", {class: "empty", text: "No rank waited."})); return; }
  const nodes = new Map(), links = new Map();
  const node = (key, name, column) => {
    if (!nodes.has(key)) nodes.set(key, {key: key, name: name, column: column});
    return key;
  };
  const link = (a, b, v) => {
    if (!(v > 0)) return;
    const k = a + "\n" + b;
    links.set(k, (links.get(k) || 0) + v);
  };
  /* the SANKEY_ROWS largest sites and causes by name, the others joined in one node each */
  const SANKEY_ROWS = 15;
  const largest = (rows, name, value) => {
    const total = new Map();
    for (const r of rows) total.set(name(r), (total.get(name(r)) || 0) + value(r));
    const names = [...total.keys()].sort((a, b) => total.get(b) - total.get(a));
    const kept = new Set(names.slice(0, SANKEY_ROWS)), others = names.length - kept.size;
    return r => (kept.has(name(r)) ? name(r) : `${others} other${others === 1 ? "" : "s"}`);
  };
  const siteOf = largest(WAITS, siteName, w => stat(w.time, "sum"));
  const causeOf = largest(CAUSES, c => regionName(c.region), c => stat(c.cost, "sum"));
  for (const w of WAITS) {
    link(node("site " + siteOf(w), siteOf(w), 0), node("pattern " + w.pattern, patternName(w.pattern), 1),
         stat(w.time, "sum"));
  }
  for (const c of CAUSES) {
    link(node("pattern " + c.pattern, patternName(c.pattern), 1), node("cause " + causeOf(c), causeOf(c), 2),
         stat(c.cost, "sum"));
  }
  const graph = {nodes: [...nodes.values()],
                 links: [...links].map(([k, v]) => { const [a, b] = k.split("\n"); return {source: a, target: b, value: v}; })};
  /* the causes' names go right of their column, in a margin of their own */
  const w = chartWidth(s), h = Math.max(220, Math.min(900, graph.nodes.length * 34)), labelW = 340;
  const total = d3.sum(WAITS, x => stat(x.time, "sum"));
  const layout = d3.sankey().nodeId(d => d.key).nodeWidth(14).nodePadding(12)
    .nodeAlign(d => d.column).extent([[0, 20], [w - labelW, h - 4]]);
  const {nodes: N, links: L} = layout(graph);
  const svg = d3.select(s).append("div").attr("class", "chart").append("svg")
    .attr("id", "sankey").attr("width", w).attr("height", h);
  ["waiting call site", "pattern", "cause on the late rank"].forEach((t, i) =>
    svg.append("text").attr("x", [0, (w - labelW) / 2, w - labelW][i]).attr("y", 12)
      .attr("text-anchor", ["start", "middle", "start"][i]).style("font-weight", 600).text(t));
  const color = d3.scaleOrdinal(d3.schemeSet2);
  svg.append("g").selectAll("path").data(L).enter().append("path")
    .attr("d", d3.sankeyLinkHorizontal()).style("fill", "none")
    .style("stroke", d => color(d.source.column === 1 ? d.source.name : d.target.name))
    .style("stroke-opacity", 0.45).style("stroke-width", d => Math.max(1, d.width))
    .on("mousemove", d => tip.show(d3.event, `<b>${esc(d.source.name)}</b> → <b>${esc(d.target.name)}</b><br>` +
      `${fmtTime(d.value)} (${fmtShare(d.value / total)} of the waiting, ${fmtShare(d.value / MPI_TIME)} of MPI time)`))
    .on("mouseout", tip.hide);
  const g = svg.append("g").selectAll("g").data(N).enter().append("g").attr("class", "sankey-node");
  g.append("rect").attr("x", d => d.x0).attr("y", d => d.y0).attr("width", d => d.x1 - d.x0)
    .attr("height", d => Math.max(d.y1 - d.y0, 1)).style("fill", d => d.column === 1 ? color(d.name) : "#6c7a89")
    .on("mousemove", d => tip.show(d3.event, `<b>${esc(d.name)}</b><br>${fmtTime(d.value)}, ${fmtShare(d.value / total)} of the waiting`))
    .on("mouseout", tip.hide);
  g.append("text").attr("x", d => d.x1 + 6).attr("y", d => (d.y0 + d.y1) / 2 + 4)
    .text(d => `${d.name.length > 44 ? d.name.slice(0, 43) + "…" : d.name} (${fmtTime(d.value)})`);

  s.append(el("h3", {text: "Wait rows"}));
  table(s, [
    {label: "pattern", value: r => patternName(r.pattern)},
    {label: "waiting call site", value: r => siteName(r), cls: "site", search: sitePath},
    {label: "waits", num: true, value: r => stat(r.count, "sum"), fmt: fmtCount},
    {label: "seconds", num: true, value: r => stat(r.time, "sum"), fmt: fmtTime, title: "summed over the waiting ranks"},
    {label: "share of MPI", num: true, value: r => stat(r.time, "sum") / MPI_TIME, fmt: fmtShare},
    {label: "late rank", num: true, value: r => stat(r.late, "max_rank"), fmt: v => "rank " + v,
     title: "the late rank that made one rank wait longest here"},
  ], WAITS, {cls: "waits"});
  s.append(el("h3", {text: "Causes"}));
  const rowTime = new Map(WAITS.map(r => [r.pattern + "\n" + r.function + "\n" + r.callpath, stat(r.time, "sum")]));
  table(s, [
    {label: "pattern", value: r => patternName(r.pattern)},
    {label: "waiting call site", value: r => siteName(r.site), cls: "site"},
    {label: "cause on the late rank", value: r => regionName(r.region), cls: "site"},
    {label: "seconds", num: true, value: r => stat(r.cost, "sum"), fmt: fmtTime},
    {label: "share of the wait", num: true, fmt: fmtShare,
     value: r => stat(r.cost, "sum") / (rowTime.get(r.pattern + "\n" + r.site.function + "\n" + r.site.callpath) || NaN)},
  ], CAUSES, {cls: "causes"});
}

/* ---- the tables ---- */
function tables() {
  const s = section("tables", "Tables",
    "Every row of the profile: click a heading to sort, type to filter. Times are per rank " +
    "(mean) unless said otherwise; bytes and calls are summed over the ranks.");
  const siteCol = {label: "call site", value: r => siteName(r), cls: "site",
                   html: r => `${esc(siteName(r))}<div class="path">${esc(sitePath(r))}</div>`, search: sitePath};
  s.append(el("h3", {text: "MPI call sites"}));
  table(s, [siteCol,
    {label: "time", num: true, value: r => stat(r.time, "mean"), fmt: fmtTime},
    {label: "share", num: true, value: r => stat(r.time, "sum") / MPI_TIME, fmt: fmtShare},
    {label: "calls", num: true, value: r => stat(r.count, "sum"), fmt: fmtCount},
    {label: "sent", num: true, value: r => stat(r.sent, "sum"), fmt: fmtBytes},
    {label: "received", num: true, value: r => stat(r.recv, "sum"), fmt: fmtBytes},
    {label: "imbalance", num: true, value: r => imbalance(r.time), fmt: fmtRatio, title: "max / mean over ranks"},
    {label: "longest call", num: true, value: r => r.call_max, fmt: fmtTime},
  ], MPI_ROWS, {cls: "callsites"});

  s.append(el("h3", {text: "Compute intervals"}));
  table(s, [
    {label: "interval", value: intervalName, cls: "site", search: r => sitePath(r.from) + " " + sitePath(r.to)},
    {label: "time", num: true, value: r => stat(r.time, "mean"), fmt: fmtTime},
    {label: "count", num: true, value: r => stat(r.count, "sum"), fmt: fmtCount},
    {label: "imbalance", num: true, value: r => imbalance(r.time), fmt: fmtRatio},
    {label: "slowest rank", num: true, value: r => stat(r.time, "max_rank")},
    {label: "longest", num: true, value: r => r.call_max, fmt: fmtTime},
  ], INTERVALS, {cls: "intervals"});

  s.append(el("h3", {text: "MPI library memory by call site"}));
  const mem = MPI_ROWS.filter(r => r.memory);
  table(s, [siteCol,
    {label: "held at finalize, max per rank", num: true, value: r => stat(r.memory.live_bytes, "max"), fmt: fmtBytes},
    {label: "held, mean per rank", num: true, value: r => stat(r.memory.live_bytes, "mean"), fmt: fmtBytes},
    {label: "allocated", num: true, value: r => stat(r.memory.alloc_bytes, "sum"), fmt: fmtBytes},
    {label: "allocations", num: true, value: r => stat(r.memory.allocs, "sum"), fmt: fmtCount},
    {label: "freed", num: true, value: r => stat(r.memory.freed_bytes, "sum"), fmt: fmtBytes},
  ], mem, {cls: "memory", empty: RANKS.mpi_memory_high_water ? "the MPI library allocated nothing in MPI calls"
                                                              : "not measured (TARDY_MEMORY=0)"});
  if (RANKS.mpi_memory_high_water) {
    s.append(el("p", {class: "note", text: `High-water mark of the MPI library's memory: ` +
      `${fmtBytes(stat(RANKS.mpi_memory_high_water, "max"))} on rank ${stat(RANKS.mpi_memory_high_water, "max_rank")}.`}));
  }
  counters(s);
  mpiT(s);
}

function counters(s) {
  const c = DATA.counters;
  s.append(el("h3", {text: "Counters"}));
  if (!c || !(c.events || []).length) {
    s.append(el("p", {class: "empty", text: c && c.note ? c.note : "none read (TARDY_PAPI, TARDY_PVAR_COUNTERS)"}));
    return;
  }
  const rows = MPI_ROWS.map(r => ({kind: "MPI", name: siteName(r), r: r}))
    .concat(INTERVALS.map(r => ({kind: "interval", name: intervalName(r), r: r})))
    .filter(x => x.r.counters);
  table(s, [{label: "row", value: x => `${x.kind}: ${x.name}`, cls: "site"}].concat(c.events.map(e => (
    {label: e + " (per rank)", num: true, value: x => stat((x.r.counters[e] || {}).value, "mean"), fmt: fmtCount}))),
    rows, {cls: "counters"});
  if (c.note) s.append(el("p", {class: "note", text: c.note}));
}

function mpiT(s) {
  const m = DATA.mpi_t;
  s.append(el("h3", {text: "MPI_T: control variables"}));
  if (!m) { s.append(el("p", {class: "empty", text: "MPI_T not used (TARDY_MPIT=0)"})); return; }
  table(s, [{label: "name", value: v => v.name}, {label: "value", value: v => v.value},
            {label: "written", value: v => (v.written ? `${v.written} (by ${v.origin}, was ${v.before})` : "")}],
        m.cvars || [], {cls: "cvars", sortBy: 0});
  s.append(el("h3", {text: "MPI_T: performance variables"}));
  table(s, [{label: "name", value: v => v.name}, {label: "class", value: v => v.class},
            {label: "mean per rank", num: true, value: v => stat(v.value, "mean"), fmt: fmtCount},
            {label: "max", num: true, value: v => stat(v.value, "max"), fmt: fmtCount},
            {label: "max rank", num: true, value: v => stat(v.value, "max_rank")}],
        m.pvars || [], {cls: "pvars", empty: m.note || "none"});
  s.append(el("h3", {text: "MPI_T: events"}));
  table(s, [{label: "event", value: v => v.event},
            {label: "call site", value: v => siteName(v), cls: "site"},
            {label: "count", num: true, value: v => stat(v.count, "sum"), fmt: fmtCount}],
        m.events || [], {cls: "events", empty: "none"});
  if (m.note) s.append(el("p", {class: "note", text: m.note}));
}

glance();
icicle();
spread();
waitStates();
tables();
drawn();
