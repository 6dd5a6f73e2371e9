"use strict";
// sweep.html (data written by tools/fabrictools/plot/sweeppage.py): the chosen metric against a
// chosen grid axis, one line per combination of the other axes (mean over seeds; deadlocked and
// failed points are left out of the lines), and the sweep table with a link to each point's
// report.html. window.fabricSweep exposes the charts for the browser test.

(() => {
  const { el, exact, COLORS, table } = Fabric;
  const D = JSON.parse(document.getElementById("data").textContent);
  const col = name => D.header.indexOf(name);
  const page = document.getElementById("page");
  window.fabricSweep = { charts: [], data: D, ready: false };

  page.append(el("h1", {}, D.title), el("p", { class: "path" }, D.sweep_dir));
  page.append(el("ul", { class: "notes" }, el("li", {}, "Lines are means over seeds of the " +
    "points that ran to completion (status ok); hover for the values, click a legend entry " +
    "to hide a line, follow a point's link for its own report.")));
  const controls = el("div", { class: "controls" });
  const preferred = ["last_finish_ns", "max_queue_bytes", "dropped_bytes", "pfc_frames_sent"];
  const metricPick = el("select", { id: "metric-picker" }, D.metrics.map(m => el("option", { value: m }, m)));
  metricPick.value = preferred.find(m => D.metrics.includes(m)) || D.metrics[0];
  const axisPick = el("select", { id: "axis-picker" }, D.axes.map(a => el("option", { value: a }, a)));
  axisPick.value = D.axes.find(a => D.positions[a].numeric) || D.axes[0];
  controls.append(el("label", {}, "metric ", metricPick), el("label", {}, "against ", axisPick));
  page.append(controls);
  const box = el("div", { class: "charts" });
  page.append(box);

  function draw() {
    for (const u of window.fabricSweep.charts) u.destroy();
    window.fabricSweep.charts = [];
    box.replaceChildren();
    const metric = metricPick.value, xAxis = axisPick.value;
    if (!metric || !xAxis) { box.append(el("p", {}, "No metric or grid axis to plot.")); return; }
    const pos = D.positions[xAxis];
    const others = D.axes.filter(a => a !== xAxis);
    const xs = [...new Set(Object.values(pos.at))].sort((a, b) => a - b);
    const lines = new Map();
    for (const r of D.rows) {
      if (r[col("status")] !== "ok" || r[col(metric)] === "") continue;
      const key = others.map(a => `${D.short[a]}=${r[col(a)]}`).join(", ") || metric;
      const x = pos.at[r[col(xAxis)]];
      if (!lines.has(key)) lines.set(key, new Map());
      const at = lines.get(key);
      if (!at.has(x)) at.set(x, []);
      at.get(x).push(Number(r[col(metric)]));
    }
    const keys = [...lines.keys()];
    const data = [xs, ...keys.map(k => xs.map(x => {
      const v = lines.get(k).get(x);
      return v ? v.reduce((a, b) => a + b, 0) / v.length : null;
    }))];
    const labels = Object.fromEntries(Object.entries(pos.at).map(([text, x]) => [x, text]));
    box.append(el("h3", {}, `${metric} against ${xAxis}`));
    const target = el("div", { class: "plot" });
    box.append(target);
    const u = new uPlot({
      width: Math.max(320, box.clientWidth - 8), height: 360,
      scales: { x: { time: false, distr: pos.numeric && xs[0] > 0 && xs[xs.length - 1] / xs[0] >= 8 ? 3 : 1 } },
      // Ticks at the grid's values only: the points between them were never run.
      axes: [{ label: xAxis, splits: () => xs, values: (u, splits) => splits.map(v => labels[v] ?? Fabric.tick(v)) },
        { label: metric, size: 70, values: (u, splits) => splits.map(v => Fabric.tick(v)) }],
      series: [{ label: xAxis, value: (u, v) => v === null || v === undefined ? "–" : (labels[v] ?? exact(v)) }]
        .concat(keys.map((k, i) => ({ label: k, stroke: COLORS[i % COLORS.length], width: 2,
          points: { show: true, size: 7 }, spanGaps: true,
          value: (u, v) => v === null || v === undefined ? "–" : exact(v) }))),
    }, data, target);
    window.fabricSweep.charts.push(u);
  }

  metricPick.addEventListener("change", draw);
  axisPick.addEventListener("change", draw);
  draw();

  const pointCol = col("point");
  const rows = D.rows.map((r, i) => r.map((c, j) => j === pointCol && D.links[i]
    ? el("a", { href: D.links[i] }, c) : c));
  const t = table(D.header, rows);
  t.id = "sweep-table";
  page.append(el("h3", {}, `Sweep table (${D.rows.length} rows)`), el("div", { class: "scroll" }, t));
  window.fabricSweep.ready = true;
})();
