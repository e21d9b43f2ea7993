// streamdb dashboard: polls the JSON API (relative URLs, so the page
// works under any prefix) and draws jobs, the fragment graph of a chosen
// relation, charts of the last minutes, recoveries and view errors.
// Text from the server goes into the DOM as text only (textContent or
// text nodes), never as markup: view names and statements are user input.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 1000;
const SLOW_POLL_MS = 3000;

// el makes an HTML element; children that are strings become text nodes.
function el(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

// sv makes an SVG element.
function sv(tag, attrs, ...children) {
  return build(document.createElementNS(SVG, tag), attrs, children);
}

function build(node, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

async function getJSON(path) {
  const resp = await fetch(path, { cache: "no-store", credentials: "same-origin" });
  if (!resp.ok) throw new Error(path + ": " + resp.status + " " + (await resp.text()).trim());
  return resp.json();
}

function fmtNum(n) {
  if (n === null || n === undefined) return "—";
  if (typeof n !== "number") return String(n);
  if (Math.abs(n) >= 1e9) return (n / 1e9).toFixed(2) + "G";
  if (Math.abs(n) >= 1e6) return (n / 1e6).toFixed(2) + "M";
  if (Math.abs(n) >= 1e4) return (n / 1e3).toFixed(1) + "k";
  return Number.isInteger(n) ? String(n) : n.toFixed(n < 10 ? 2 : 1);
}

function fmtDuration(s) {
  if (s === null || s === undefined || !isFinite(s)) return "—";
  s = Math.round(s);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  if (h > 0) return h + "h" + String(m).padStart(2, "0") + "m";
  if (m > 0) return m + "m" + String(r).padStart(2, "0") + "s";
  return r + "s";
}

function fmtValue(v) {
  if (v === null || v === undefined) return "—";
  if (typeof v === "boolean") return v ? "yes" : "no";
  return typeof v === "number" ? fmtNum(v) : String(v);
}

// ---- status line

const state = { view: null, lastT: 0, samples: [], interval: 1000, errors: {} };

function setStatus() {
  const st = document.getElementById("status");
  const errs = Object.values(state.errors).filter(Boolean);
  st.className = errs.length ? "status error" : "status";
  st.textContent = errs.length ? errs[0] : "updated " + new Date().toLocaleTimeString();
}

// poll runs f every ms milliseconds, noting its errors in the status.
function poll(name, ms, f) {
  const run = async () => {
    try {
      await f();
      state.errors[name] = null;
    } catch (e) {
      state.errors[name] = String(e.message || e);
    }
    setStatus();
    setTimeout(run, ms);
  };
  run();
}

// ---- jobs

function renderJobs(jobs) {
  const box = document.getElementById("jobs");
  document.getElementById("jobs-empty").classList.toggle("hidden", jobs.length > 0);
  clear(box);
  for (const j of jobs) box.appendChild(renderJob(j));
}

function renderJob(j) {
  const r = j.row;
  const held = r.paused === true;
  // SHOW JOBS's own progress text; the bar is its value clamped to 0..1.
  const pct = typeof r.progress === "string" ? r.progress : (j.progress * 100).toFixed(2) + "%";
  const phaseClass = "phase" + (held ? " paused" : "") + (r.quarantined ? " failed" : "");
  const head = el("div", { class: "job-head" },
    el("span", { class: "job-name" }, j.kind + " " + j.name),
    el("span", { class: "job-id" }, "job " + fmtValue(r.id)),
    el("span", { class: phaseClass }, String(r.phase) + (held ? " (paused)" : "") + (r.quarantined ? " (quarantined)" : "")),
    el("progress", { class: "job-progress", max: "1", value: j.progress.toFixed(4), "data-job": r.id, title: pct }),
    el("span", { class: "job-pct" }, pct),
    el("span", null, "ETA " + fmtDuration(j.eta_seconds)));
  const facts = el("dl", { class: "facts" });
  const fact = (label, v, cls) => facts.appendChild(el("div", null, el("dt", null, label), el("dd", { class: cls }, fmtValue(v))));
  fact("rows", fmtNum(r.rows_read) + " / " + fmtNum(r.rows_total));
  fact("rows/s", r.rows_per_second);
  fact("log-store lag (rows)", r.log_lag);
  fact("rate limit (rows/s)", r.backfill_rate_limit === null ? "none" : r.backfill_rate_limit);
  fact("latency target", r.latency_target);
  fact("parallelism", r.parallelism);
  fact("epoch", r.epoch);
  fact("lag (epochs)", r.lag_epochs);
  fact("joined at", r.joined_at);
  fact("elapsed", r.elapsed);
  fact("failures", r.failures);
  if (r.last_error !== null && r.last_error !== undefined) fact("last error", r.last_error, "error-text");
  const cmds = el("div", { class: "commands" });
  for (const c of j.sql) {
    const code = el("code", null, c.sql);
    const btn = el("button", { type: "button", title: "copy to the clipboard" }, "Copy");
    btn.addEventListener("click", () => copyText(c.sql, btn));
    cmds.append(el("span", { class: "hint" }, c.label), code, btn);
  }
  return el("div", { class: "job", "data-job": r.id }, head,
    el("pre", { class: "statement" }, String(r.statement)), facts,
    el("details", null, el("summary", null, "SQL to steer this job (copy it into psql; this page changes nothing)"), cmds));
}

function copyText(text, btn) {
  const done = (ok) => { btn.textContent = ok ? "Copied" : "Select and copy"; setTimeout(() => { btn.textContent = "Copy"; }, 1500); };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(() => done(true), () => done(false));
  } else {
    done(false);
  }
}

// ---- fragment graph

async function refreshViews() {
  const views = await getJSON("api/views");
  const sel = document.getElementById("view-select");
  const names = views.map((v) => v.name);
  const current = Array.from(sel.options).map((o) => o.value);
  if (names.join("\u0000") !== current.join("\u0000")) {
    clear(sel);
    for (const v of views) sel.appendChild(el("option", { value: v.name }, v.name + " (" + v.kind + ", " + v.state + ")"));
  }
  if (!state.view || !names.includes(state.view)) {
    const fromHash = new URLSearchParams(location.hash.slice(1)).get("view");
    const creating = views.find((v) => v.state === "creating" && v.kind !== "table");
    const firstView = views.find((v) => v.kind !== "table");
    state.view = names.includes(fromHash) ? fromHash : (creating || firstView || views[0] || {}).name || null;
  }
  if (state.view) sel.value = state.view;
}

async function refreshGraph() {
  const svg = document.getElementById("graph");
  if (!state.view) {
    clear(svg);
    return;
  }
  let g;
  try {
    g = await getJSON("api/graph?view=" + encodeURIComponent(state.view));
  } catch (e) {
    if (String(e.message).includes(": 404")) {
      state.view = null;
      return;
    }
    throw e;
  }
  document.getElementById("graph-state").textContent = g.kind + ", " + g.state + ", " + g.fragments.length + " fragments";
  drawGraph(svg, g);
  renderFragmentTable(g);
}

// layers assigns each node a layer: upstream relations at 0, a fragment
// one below the lowest of its inputs.
function layers(g) {
  const layer = new Map();
  for (const u of g.upstreams) layer.set("u:" + u, 0);
  const inputs = new Map(g.fragments.map((f) => [f.id, []]));
  for (const e of g.exchanges) inputs.get(e.to).push(e.upstream ? "u:" + e.upstream : "f:" + e.from);
  const depth = (id, seen) => {
    const key = "f:" + id;
    if (layer.has(key)) return layer.get(key);
    if (seen.has(id)) return 1;
    seen.add(id);
    let d = 1;
    for (const src of inputs.get(id) || []) {
      d = Math.max(d, 1 + (src.startsWith("u:") ? 0 : depth(Number(src.slice(2)), seen)));
    }
    layer.set(key, d);
    return d;
  };
  for (const f of g.fragments) depth(f.id, new Set());
  return layer;
}

const NODE_W = 240, NODE_H = 78, GAP_X = 40, GAP_Y = 60, PAD = 20;

function drawGraph(svg, g) {
  const layer = layers(g);
  const rows = [];
  for (const [key, l] of layer) (rows[l] = rows[l] || []).push(key);
  const pos = new Map();
  let width = 0;
  // Upstreams in the order of the fragments they feed, so that edges
  // cross less; fragments by id.
  const feeds = new Map();
  for (const e of g.exchanges) {
    if (e.upstream) feeds.set("u:" + e.upstream, Math.min(feeds.get("u:" + e.upstream) ?? Infinity, e.to));
  }
  const order = (k) => (k.startsWith("u:") ? feeds.get(k) ?? 0 : Number(k.slice(2)));
  rows.forEach((keys, l) => {
    keys.sort((a, b) => order(a) - order(b) || a.localeCompare(b));
    keys.forEach((k, i) => pos.set(k, { x: PAD + i * (NODE_W + GAP_X), y: PAD + l * (NODE_H + GAP_Y) }));
    width = Math.max(width, PAD * 2 + keys.length * (NODE_W + GAP_X) - GAP_X);
  });
  const height = PAD * 2 + rows.length * (NODE_H + GAP_Y) - GAP_Y;
  clear(svg);
  svg.setAttribute("width", Math.max(width, 300));
  svg.setAttribute("height", Math.max(height, 60));
  svg.setAttribute("viewBox", "0 0 " + Math.max(width, 300) + " " + Math.max(height, 60));
  svg.appendChild(sv("defs", null, sv("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" },
    sv("path", { d: "M0,0 L10,5 L0,10 z" }))));
  for (const e of g.exchanges) {
    const a = pos.get(e.upstream ? "u:" + e.upstream : "f:" + e.from), b = pos.get("f:" + e.to);
    if (!a || !b) continue;
    const x1 = a.x + NODE_W / 2, y1 = a.y + NODE_H, x2 = b.x + NODE_W / 2, y2 = b.y;
    const my = (y1 + y2) / 2;
    svg.appendChild(sv("path", { class: "edge", d: `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`, "marker-end": "url(#arrow)",
      "data-from": e.upstream ? e.upstream : e.from, "data-to": e.to }));
    svg.appendChild(sv("text", { class: "edge-label", x: (x1 + x2) / 2 + 6, y: my }, "hash " + e.key));
  }
  for (const u of g.upstreams) {
    const p = pos.get("u:" + u);
    svg.appendChild(sv("g", { class: "node upstream", transform: `translate(${p.x},${p.y})`, "data-upstream": u },
      sv("rect", { width: NODE_W, height: NODE_H, rx: 6 }),
      sv("text", { class: "title", x: 10, y: 22 }, truncate(u, 30)),
      sv("text", { x: 10, y: 42 }, "upstream relation")));
  }
  for (const f of g.fragments) svg.appendChild(fragmentNode(f, pos.get("f:" + f.id)));
}

function fragmentNode(f, p) {
  const rate = f.rows_per_second === null ? "— rows/s" : fmtNum(f.rows_per_second) + " rows/s";
  const node = sv("g", { class: "node fragment", transform: `translate(${p.x},${p.y})`, "data-fragment": f.id },
    sv("title", null, f.operators.join(" <- ")),
    sv("rect", { width: NODE_W, height: NODE_H, rx: 6 }),
    sv("text", { class: "title", x: 10, y: 18 }, "fragment " + f.id + ": " + f.kind + " ×" + f.parallelism),
    sv("text", { x: 10, y: 36 }, truncate(f.operators.join(" <- "), 34)),
    sv("text", { class: "rate", x: 10, y: 54 }, rate));
  // One bar per actor, as wide as its share of the vnodes.
  const total = f.actors.reduce((s, a) => s + a.vnode_count, 0) || 1;
  let x = 10;
  for (const a of f.actors) {
    const w = Math.max(2, (NODE_W - 20) * a.vnode_count / total);
    node.appendChild(sv("rect", { class: "actor", x: x, y: 62, width: w, height: 9, "data-actor": a.id },
      sv("title", null, "actor " + a.id + ": " + a.vnode_count + " vnodes (" + a.vnodes + ")")));
    x += w;
  }
  return node;
}

function truncate(s, n) {
  s = String(s);
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

function renderFragmentTable(g) {
  const body = document.querySelector("#fragments-table tbody");
  clear(body);
  for (const f of g.fragments) {
    const inputs = g.exchanges.filter((e) => e.to === f.id)
      .map((e) => (e.upstream ? e.upstream : "fragment " + e.from) + " hash " + e.key).join(", ");
    const actors = f.actors.map((a) => "actor " + a.id + ": " + a.vnode_count + " (" + a.vnodes + ")").join("; ");
    body.appendChild(el("tr", { "data-fragment": f.id }, el("td", null, String(f.id)), el("td", null, f.kind),
      el("td", null, f.operators.join(" <- ")), el("td", null, inputs), el("td", null, String(f.parallelism)),
      el("td", null, fmtNum(f.rows_out)), el("td", null, fmtNum(f.rows_per_second)), el("td", null, actors)));
  }
}

// ---- charts

async function refreshHistory() {
  const h = await getJSON("api/history?since=" + state.lastT);
  state.interval = h.interval_ms || 1000;
  for (const s of h.samples) state.samples.push(s);
  if (state.samples.length) state.lastT = state.samples[state.samples.length - 1].t;
  const keep = Date.now() - 10 * 60 * 1000;
  while (state.samples.length && state.samples[0].t < keep) state.samples.shift();
  const ss = state.samples;
  document.getElementById("history-span").textContent = ss.length
    ? ss.length + " samples, one every " + state.interval / 1000 + " s" : "no samples yet";
  lineChart(document.getElementById("chart-latency"), ss, [
    { name: "mean (ms)", get: (s) => s.barrier_mean_ms },
    { name: "p99 bucket bound (ms)", get: (s) => s.barrier_p99_ms },
  ]);
  lineChart(document.getElementById("chart-throughput"), ss, [
    { name: "DML rows/s", get: (s) => s.dml_rows_per_second },
    { name: "fragment rows out/s", get: (s) => s.fragment_rows_per_second },
    { name: "backfill rows read/s", get: (s) => s.backfill_rows_per_second },
  ]);
  lineChart(document.getElementById("chart-freshness"), ss, [
    { name: "epochs not committed", get: (s) => s.epochs_uncommitted },
    { name: "max job lag_epochs", get: (s) => s.job_lag_epochs },
  ]);
}

const CHART_W = 600, CHART_H = 200, M = { l: 48, r: 10, t: 22, b: 20 };

// lineChart draws series over samples: one line per series, broken
// where a value is null.
function lineChart(svg, samples, series) {
  clear(svg);
  svg.setAttribute("viewBox", `0 0 ${CHART_W} ${CHART_H}`);
  svg.setAttribute("preserveAspectRatio", "none");
  const now = samples.length ? samples[samples.length - 1].t : Date.now();
  const t0 = Math.min(samples.length ? samples[0].t : now, now - 60 * 1000);
  let ymax = 0;
  for (const s of samples) for (const se of series) { const v = se.get(s); if (typeof v === "number") ymax = Math.max(ymax, v); }
  ymax = niceMax(ymax);
  const x = (t) => M.l + (CHART_W - M.l - M.r) * (t - t0) / Math.max(now - t0, 1);
  const y = (v) => CHART_H - M.b - (CHART_H - M.t - M.b) * v / ymax;
  for (let i = 0; i <= 4; i++) {
    const v = ymax * i / 4;
    svg.appendChild(sv("line", { class: "axis", x1: M.l, x2: CHART_W - M.r, y1: y(v), y2: y(v) }));
    svg.appendChild(sv("text", { x: M.l - 4, y: y(v) + 4, "text-anchor": "end" }, fmtNum(v)));
  }
  svg.appendChild(sv("text", { x: M.l, y: CHART_H - 4 }, "-" + fmtDuration((now - t0) / 1000)));
  svg.appendChild(sv("text", { x: CHART_W - M.r, y: CHART_H - 4, "text-anchor": "end" }, "now"));
  series.forEach((se, i) => {
    let d = "", pen = false;
    for (const s of samples) {
      const v = se.get(s);
      if (typeof v !== "number") { pen = false; continue; }
      d += (pen ? "L" : "M") + x(s.t).toFixed(1) + "," + y(v).toFixed(1);
      pen = true;
    }
    if (d) svg.appendChild(sv("path", { class: "line s" + i, d: d, "data-series": se.name }));
    const last = samples.length ? se.get(samples[samples.length - 1]) : null;
    const lx = M.l + 4 + i * 190;
    svg.appendChild(sv("rect", { class: "s" + i, x: lx, y: 6, width: 10, height: 10 }));
    svg.appendChild(sv("text", { x: lx + 14, y: 15 }, se.name + ": " + fmtValue(typeof last === "number" ? last : null)));
  });
}

function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

// ---- recoveries and view errors

function renderEvents(ev) {
  const fill = (id, emptyId, rows, cells) => {
    const body = document.querySelector("#" + id + " tbody");
    clear(body);
    document.getElementById(emptyId).classList.toggle("hidden", rows.length > 0);
    document.getElementById(id).classList.toggle("hidden", rows.length === 0);
    for (const r of rows) body.appendChild(el("tr", null, ...cells(r).map((c) => el("td", null, fmtValue(c)))));
  };
  fill("recoveries", "recoveries-empty", ev.recoveries.slice().reverse(),
    (r) => [r.seq, r.at, r.relation || "—", r.cause, r.rebuild_ms]);
  fill("view-errors", "view-errors-empty", ev.view_errors,
    (e) => [e.view, e.code, e.error, e.count, e.first_at, e.last_at]);
}

// ---- start

document.getElementById("view-select").addEventListener("change", (ev) => {
  state.view = ev.target.value;
  history.replaceState(null, "", "#view=" + encodeURIComponent(state.view));
  refreshGraph().catch(() => {});
});

poll("jobs", POLL_MS, async () => renderJobs(await getJSON("api/jobs")));
poll("graph", POLL_MS, async () => {
  if (!state.view) await refreshViews();
  await refreshGraph();
});
poll("views", SLOW_POLL_MS, refreshViews);
poll("history", POLL_MS, refreshHistory);
poll("events", SLOW_POLL_MS, async () => renderEvents(await getJSON("api/events")));
