/* Call sites, intervals, regions and wait-state patterns as a person reads them, from a
 * document with "files", "frames" and "callpaths" as a profile has them (the run's page and
 * the diff's): a call path lists frame ids, a frame is [function, file id, line]. */
"use strict";

const FRAMES = (DATA.frames || []).map(([fn, file, line]) =>
  ({function: fn, file: (DATA.files || [])[file], line: line}));
const PATHS = (DATA.callpaths || []).map(ids => ids.map(id => FRAMES[id]));

function frameText(f) { return `${f.function} ${f.file}${f.line ? ":" + f.line : ""}`; }
function siteFrames(site) { return PATHS[site.callpath] || []; }
/* "MPI_Send @ solve jacobi.c:88": the function and the calling line. */
function siteName(site) {
  const f = siteFrames(site)[0];
  return f ? `${site.function} @ ${frameText(f)}` : site.function;
}
/* The whole call path, innermost first. */
function sitePath(site) { return siteFrames(site).map(frameText).join(" ← "); }
function sourceLine(site) {
  const f = siteFrames(site)[0];
  return f && f.line ? `${f.file}:${f.line}` : (f ? f.file : "–");
}
function intervalName(r) {
  const short = s => { const f = siteFrames(s)[0]; return f ? `${f.function}:${f.line} ${s.function}` : s.function; };
  return `${short(r.from)} → ${short(r.to)}`;
}
function regionName(region) {
  if (region.from) return "compute " + intervalName(region);
  if (region.mpi) return "in " + siteName(region.mpi);
  return "unknown: " + region.unknown;
}
const PATTERNS = {
  late_sender: "Late Sender", late_sender_wrong_order: "Late Sender, wrong order",
  late_receiver: "Late Receiver", wait_at_barrier: "Wait at Barrier", wait_at_nxn: "Wait at N×N",
  late_broadcast: "Late Broadcast", early_reduce: "Early Reduce", early_scan: "Early Scan",
  wait_at_fence: "Wait at Fence", late_post: "Late Post", early_wait: "Early Wait",
  wait_at_win_create: "Wait at Window Create", wait_at_win_free: "Wait at Window Free",
};
const patternName = p => PATTERNS[p] || p;
