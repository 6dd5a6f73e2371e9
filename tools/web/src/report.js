"use strict";
// report.html of one run (data written by tools/fabrictools/plot/runpage.py): the summary, then
// every trace the run has on one zoomable time axis. window.fabricReport exposes the charts for
// the browser test (tests/tools/report_browser_test.py).

(() => {
  const { el, undelta, exact, TimeAxis, TimeChart, table } = Fabric;
  const D = JSON.parse(document.getElementById("data").textContent);
  const MAX_DEFAULT_FLOWS = 16; // flows drawn before the user picks others
  const MAX_FLOWS = 64;         // more lines than this are unreadable and slow to hover

  for (const group of [D.queues, D.rates, ...Object.values(D.cc), ...Object.values(D.reorder)]) {
    for (const s of group) s.t = undelta(s.t);
  }

  const axis = new TimeAxis(D.end_ns);
  const page = document.getElementById("page");
  const charts = {};
  window.fabricReport = { axis, charts, data: D, ready: false };

  const kib = v => v === null ? "–" : `${exact(v)} B (${(v / 1024).toFixed(1)} KiB)`;
  const FIELDS = {
    rate_gbps: { title: "Congestion-control rate per flow", yLabel: "CC rate (Gb/s)", unit: "Gb/s" },
    alpha: { title: "DCQCN α (estimated fraction of marked packets)", yLabel: "α", unit: "" },
    window_bytes: { title: "Congestion window per flow", yLabel: "window (B)", format: kib },
    rtt_ns: { title: "Measured RTT per flow", yLabel: "RTT (ns)", unit: "ns" },
    u: { title: "HPCC utilisation estimate U per flow", yLabel: "U", unit: "" },
  };

  // ---- header, notes, summary -------------------------------------------------------------
  page.append(el("h1", {}, D.title), el("p", { class: "path" }, D.run_dir));
  const notes = [
    `Drag across any chart to zoom (all charts follow); double-click or “reset zoom” to see the ` +
    `whole run. Click a legend entry to hide or show a line. Hover for exact values as the CSV ` +
    `has them.`,
    `Charts draw every sample when zoomed in; above two samples per pixel column ` +
    `they draw each column's minimum and maximum. The page embeds at most ` +
    `${exact(D.limits.points)} samples (about ${D.limits.page_mib} MiB).`,
    ...D.notes,
  ];
  page.append(el("ul", { class: "notes" }, notes.map(n => el("li", {}, n))));
  const half = Math.ceil(D.summary.length / 2);
  page.append(el("details", { open: true }, el("summary", {}, "Summary"),
    el("div", { class: "summary-grid" }, table(["", ""], D.summary.slice(0, half), "summary"),
      table(["", ""], D.summary.slice(half), "summary"))));

  // ---- pickers ------------------------------------------------------------------------------
  const ports = [...new Set(D.queues.map(s => `${s.node}:${s.port}`))];
  const flowIds = [...new Set([...D.rates.map(s => s.flow),
    ...Object.values(D.cc).flatMap(g => g.map(s => s.flow))])];
  const flowLabel = id => {
    const m = D.flow_meta[id] || {};
    return m.src && m.dst ? `${id} ${m.src}→${m.dst}` : m.src ? `${id} ${m.src}` : `${id}`;
  };
  const controls = el("div", { class: "controls" });
  const portPick = el("select", { id: "port-picker" },
    ports.map(p => el("option", { value: p }, p)));
  if (D.bottleneck && ports.includes(D.bottleneck)) portPick.value = D.bottleneck;
  const flowPick = el("select", { id: "flow-picker", multiple: true, size: Math.min(8, flowIds.length) },
    flowIds.map((f, i) => {
      const o = el("option", { value: f }, flowLabel(f));
      o.selected = i < MAX_DEFAULT_FLOWS;
      return o;
    }));
  const reset = el("button", { id: "reset-zoom", onclick: () => axis.reset() }, "reset zoom");
  const range = el("span", { id: "range" });
  if (ports.length) controls.append(el("label", {}, "port ", portPick));
  if (flowIds.length) {
    controls.append(el("label", {}, `flows (max ${MAX_FLOWS}) `, flowPick));
  }
  controls.append(reset, range);
  page.append(controls);
  const body = el("div", { class: "charts" });
  page.append(body);
  const queueBox = el("div"), flowBox = el("div"), fctBox = el("div");
  body.append(queueBox, flowBox, fctBox);

  const showRange = () => {
    range.textContent = ` showing ${exact(Math.round(axis.lo))} … ${exact(Math.round(axis.hi))} ns`;
  };
  const origSet = axis.set.bind(axis);
  axis.set = (lo, hi) => { origSet(lo, hi); showRange(); };

  function add(box, spec) {
    if (!spec.series.length) return;
    charts[spec.id] = new TimeChart(box, spec, axis);
  }

  function clear(box) {
    for (const [id, c] of Object.entries(charts)) {
      if (box.contains(c.root)) { c.destroy(); delete charts[id]; }
    }
  }

  // ---- queue of the picked port, pauses shaded ---------------------------------------------
  function spans(list) {
    const sorted = list.map(p => [p.s, p.e]).sort((a, b) => a[0] - b[0]);
    const out = [];
    for (const [s, e] of sorted) {
      if (out.length && s <= out[out.length - 1][1]) out[out.length - 1][1] = Math.max(out[out.length - 1][1], e);
      else out.push([s, e]);
    }
    return out;
  }

  function queueChart() {
    clear(queueBox);
    if (!ports.length) return;
    const [node, portText] = [portPick.value.slice(0, portPick.value.lastIndexOf(":")),
      portPick.value.slice(portPick.value.lastIndexOf(":") + 1)];
    const port = Number(portText);
    const series = D.queues.filter(s => s.node === node && s.port === port);
    const prios = new Set(series.map(s => s.prio));
    const stopped = D.pauses.filter(p => p.node === node && p.port === port && p.side === "received" && prios.has(p.prio));
    const pausing = D.pauses.filter(p => p.node === node && p.side === "sent" && prios.has(p.prio));
    add(queueBox, {
      id: "queue", title: `Queue depth at ${node}:${port} per priority`, yLabel: "queue (B)",
      hold: "post", format: kib,
      series: series.map(s => ({ label: `priority ${s.prio}`, t: s.t, v: s.v })),
      shades: [
        { label: `${node}:${port} paused by its downstream (transmission stopped)`, color: "#1f77b4",
          fill: "rgba(31,119,180,0.16)", spans: spans(stopped) },
        { label: `${node} pausing its upstreams (XOFF sent), same priorities`, color: "#ff7f0e",
          fill: "rgba(255,127,14,0.18)", spans: spans(pausing) },
      ].filter(sh => sh.spans.length),
    });
  }

  // ---- per-flow charts --------------------------------------------------------------------
  function pickedFlows() {
    const picked = [...flowPick.selectedOptions].map(o => o.value);
    if (picked.length > MAX_FLOWS) {
      picked.length = MAX_FLOWS;
    }
    return new Set(picked);
  }

  function flowSeries(group, picked) {
    return group.filter(s => picked.has(s.flow))
      .map(s => ({ label: `flow ${flowLabel(s.flow)}`, t: s.t, v: s.v }));
  }

  function flowCharts() {
    clear(flowBox);
    const picked = pickedFlows();
    add(flowBox, {
      id: "rate", title: "Delivered rate per flow (average over each sampling interval, " +
        "stamped at its end)", yLabel: "rate (Gb/s)", unit: "Gb/s", hold: "pre",
      series: flowSeries(D.rates, picked),
    });
    for (const [field, group] of Object.entries(D.cc)) {
      const f = FIELDS[field] || { title: field, yLabel: field, unit: "" };
      add(flowBox, { id: `cc-${field}`, title: f.title, yLabel: f.yLabel, unit: f.unit,
        format: f.format, hold: "post", yMax: field === "alpha" ? 1 : undefined,
        series: flowSeries(group, picked) });
    }
    for (const [field, group] of Object.entries(D.reorder)) {
      add(flowBox, { id: `reorder-${field}`, title: `Reorder buffer per flow (${field})`,
        yLabel: field === "bytes" ? "reorder (B)" : "reorder (packets)",
        unit: field === "bytes" ? "B" : "packets", hold: "post",
        series: flowSeries(group, picked) });
    }
  }

  // ---- flow completion -----------------------------------------------------------------------
  function fctCharts() {
    const done = D.flows.filter(f => f.finish !== null && f.fct !== null)
      .sort((a, b) => a.finish - b.finish);
    if (!done.length) return;
    const t = Float64Array.from(done.map(f => f.finish));
    add(fctBox, { id: "fct", title: "Flow completion time, at each flow's finish", yLabel: "FCT (ns)",
      unit: "ns", points: true,
      format: v => `${exact(v)} ns (${(v / 1e3).toFixed(3)} µs)`,
      series: [{ label: "FCT", t, v: done.map(f => f.fct) }] });
    if (done.some(f => f.slowdown !== null)) {
      add(fctBox, { id: "slowdown", title: "FCT slowdown (FCT / ideal FCT), at each flow's finish",
        yLabel: "slowdown", unit: "×", points: true,
        series: [{ label: "slowdown", t, v: done.map(f => f.slowdown) }] });
    }
    const hasSlowdown = D.flows.some(f => f.slowdown !== null);
    fctBox.append(el("details", {}, el("summary", {}, `Flows (${D.flows.length})`),
      table(["flow", "src", "dst", "bytes", "start (ns)", "finish (ns)", "FCT (ns)"]
        .concat(hasSlowdown ? ["slowdown"] : []),
      D.flows.map(f => [f.id, f.src, f.dst, exact(f.bytes), exact(f.start), exact(f.finish),
        exact(f.fct)].concat(hasSlowdown ? [exact(f.slowdown)] : [])))));
  }

  portPick.addEventListener("change", queueChart);
  flowPick.addEventListener("change", flowCharts);
  queueChart();
  flowCharts();
  fctCharts();
  if (!Object.keys(charts).length) page.append(el("p", {}, "This run has no time series to draw."));
  showRange();
  window.addEventListener("resize", () => {
    for (const c of Object.values(charts)) {
      c.u.setSize({ width: Math.max(320, body.clientWidth - 8), height: c.u.height });
      c.show(axis.lo, axis.hi);
    }
  });
  window.fabricReport.ready = true;
})();
