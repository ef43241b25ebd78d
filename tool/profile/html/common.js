/* What every page of the HTML report shares: its data, numbers with units, the tooltip,
 * sections, and sortable, filterable tables. run.js and store.js draw the views. */
"use strict";

const DATA = JSON.parse(document.getElementById("tardy-data").textContent);
const APP = document.getElementById("app");

/* ---- numbers with units ---- */
function fmtTime(s) {
  if (s == null || !isFinite(s)) return "–";
  const a = Math.abs(s);
  if (a === 0) return "0 s";
  if (a < 1e-6) return (s * 1e9).toPrecision(3) + " ns";
  if (a < 1e-3) return (s * 1e6).toPrecision(3) + " µs";
  if (a < 1) return (s * 1e3).toPrecision(3) + " ms";
  if (a < 600) return s.toPrecision(3) + " s";
  return (s / 60).toPrecision(3) + " min";
}
/* The ticks of a time axis up to top: all in top's unit, without trailing zeros (fmtTime
 * gave "0 s", "5.00 ms", "10.0 ms" on one axis). */
function fmtTimeAxis(top) {
  const a = Math.abs(top);
  const [scale, unit] = a < 1e-6 ? [1e9, "ns"] : a < 1e-3 ? [1e6, "µs"] : a < 1 ? [1e3, "ms"] : [1, "s"];
  return v => `${d3.format("~g")(+(v * scale).toPrecision(6))} ${unit}`;
}
function fmtBytes(b) {
  if (b == null || !isFinite(b)) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (Math.abs(b) >= 1024 && i < units.length - 1) { b /= 1024; i++; }
  return (i === 0 ? Math.round(b) : b.toPrecision(3)) + " " + units[i];
}
function fmtCount(n) {
  if (n == null || !isFinite(n)) return "–";
  if (Math.abs(n) >= 1e7) return d3.format(".3s")(n);
  return Number.isInteger(n) ? d3.format(",")(n) : d3.format(",.4~r")(n);
}
function fmtShare(x) {
  return x == null || !isFinite(x) ? "–" : (100 * x).toFixed(x < 0.001 ? 2 : 1) + "%";
}
function fmtRatio(x) { return x == null || !isFinite(x) ? "–" : x.toFixed(2) + "×"; }

/* ---- the page's pieces ---- */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}
/* A section with a heading, the question it answers, and a body to draw into. */
function section(id, title, question) {
  const s = el("section", {id: id}, el("h2", {text: title}),
               el("p", {class: "question", text: question}));
  APP.append(s);
  return s;
}
function nav(links) {
  APP.append(el("nav", {}, ...links.map(([id, text]) => el("a", {href: "#" + id, text: text}))));
}
function card(parent, label, value, note) {
  parent.append(el("div", {class: "card"}, el("div", {class: "label", text: label}),
                   el("div", {class: "value", text: value}),
                   note ? el("div", {class: "note", text: note}) : null));
}

const tip = (() => {
  const t = el("div", {id: "tip"});
  document.body.append(t);
  return {
    show(event, html) {
      t.innerHTML = html;
      t.style.display = "block";
      const x = Math.min(event.clientX + 14, window.innerWidth - t.offsetWidth - 8);
      const y = event.clientY + 16 + t.offsetHeight > window.innerHeight
        ? event.clientY - t.offsetHeight - 10 : event.clientY + 16;
      t.style.left = x + "px";
      t.style.top = y + "px";
    },
    hide() { t.style.display = "none"; },
  };
})();
function esc(s) {
  return String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;",
                                             '"': "&quot;"})[c]);
}

/* A sortable, filterable table. columns: [{label, value(row), fmt(v, row), num, title}];
 * the first numeric column of sortBy (default: the first numeric) sorts, descending. Only
 * the first `limit` rows that pass the filter are drawn, so 10,000 rows stay quick. */
function table(parent, columns, rows, opts) {
  opts = opts || {};
  const limit = opts.limit || 300;
  const box = el("div", {class: "tablebox"});
  const filter = el("input", {type: "search", placeholder: "filter rows (any column)…"});
  const count = el("span", {class: "count"});
  const tbl = el("table", {class: opts.cls || ""});
  const head = el("tr");
  const body = el("tbody");
  tbl.append(el("thead", {}, head), body);
  box.append(filter, count, tbl);
  parent.append(box);
  if (!rows.length) {
    box.replaceChildren(el("p", {class: "empty", text: opts.empty || "nothing recorded"}));
    return;
  }
  let sortCol = opts.sortBy != null ? opts.sortBy : columns.findIndex(c => c.num);
  let asc = false;
  let text = null; /* each row's words, made at the first filtering (10,000 rows: 0.1 s) */
  const words = () => text || (text = rows.map(r => columns.map(c => {
    const v = c.value(r);
    return String(c.fmt ? c.fmt(v, r) : v) + " " + (c.search ? c.search(r) : "");
  }).join(" ").toLowerCase()));
  columns.forEach((c, i) => {
    const th = el("th", {class: c.num ? "num" : "", title: c.title || ""}, c.label);
    th.addEventListener("click", () => {
      asc = sortCol === i ? !asc : !c.num;
      sortCol = i;
      draw();
    });
    head.append(th);
  });
  function draw() {
    const wanted = filter.value.toLowerCase().split(/\s+/).filter(w => w);
    let idx = d3.range(rows.length);
    if (wanted.length) idx = idx.filter(i => wanted.every(w => words()[i].includes(w)));
    if (sortCol >= 0) {
      const c = columns[sortCol];
      const key = i => c.value(rows[i]);
      idx.sort((a, b) => {
        const x = key(a), y = key(b);
        const d = c.num ? (x == null ? -Infinity : x) - (y == null ? -Infinity : y)
                        : String(x).localeCompare(String(y));
        return asc ? d : -d;
      });
    }
    head.querySelectorAll("th").forEach((th, i) => {
      th.className = (columns[i].num ? "num " : "") + (i === sortCol ? "sorted" : "") +
                     (i === sortCol && asc ? " asc" : "");
    });
    body.replaceChildren(...idx.slice(0, limit).map(i => {
      const tr = el("tr");
      for (const c of columns) {
        const v = c.value(rows[i]);
        const td = el("td", {class: c.num ? "num" : (c.cls || "")});
        if (c.html) td.innerHTML = c.html(rows[i]); else td.textContent = c.fmt ? c.fmt(v, rows[i]) : v;
        tr.append(td);
      }
      return tr;
    }));
    const noun = n => n === 1 ? "row" : "rows";
    count.textContent = idx.length === rows.length
      ? `${rows.length} ${noun(rows.length)}` + (rows.length > limit ? `, the first ${limit} shown` : "")
      : `${idx.length} of ${rows.length} ${noun(rows.length)} ${idx.length === 1 ? "matches" : "match"}` +
        (idx.length > limit ? `, the first ${limit} shown` : "");
  }
  filter.addEventListener("input", draw);
  draw();
  /* a table wider than the page (a column per metric) scrolls inside its box, so the page
   * itself keeps its width; the others keep their headers sticky on the page's scroll */
  if (tbl.scrollWidth > box.clientWidth) box.classList.add("wide");
}

/* The width of the page's content for charts. */
function chartWidth(parent) { return Math.max(480, parent.clientWidth || APP.clientWidth - 48); }

/* The page is drawn: marks the body for tests and for the load time make bench measures
 * (milliseconds since the navigation started, parsing and the scripts included). */
function drawn() {
  document.body.dataset.ready = "1";
  document.body.dataset.drawnMs = Math.round(performance.now());
}
