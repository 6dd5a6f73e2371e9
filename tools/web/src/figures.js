"use strict";
// The figures of a report (data from tools/fabrictools/plot/figpage.py, read off matplotlib
// figures): one zoomable chart per panel, hover for the exact values of every series, drag to
// zoom, double-click to see all. window.fabricFigures exposes the charts for tests.

(() => {
  const { el, exact, COLORS, align, lowerBound } = Fabric;
  const D = JSON.parse(document.getElementById("data").textContent);
  const page = document.getElementById("page");
  window.fabricFigures = { charts: [], ready: false };
  page.append(el("h1", {}, D.title));
  page.append(el("ul", { class: "notes" }, el("li", {}, "Each chart is one panel of the " +
    "report's PNG figures, drawn from the same numbers. Drag to zoom, double-click to see " +
    "all, click a legend entry to hide a line, hover for exact values.")));

  function chart(parent, panel) {
    const box = el("section", { class: "chart" }, el("h3", {}, panel.title || ""));
    const target = el("div", { class: "plot" });
    const readout = el("div", { class: "readout" }, "hover for exact values");
    box.append(target, readout);
    parent.append(box);
    const series = panel.series.map(s => ({ t: Float64Array.from(s.x), v: s.y }));
    const { x, ys } = align(series);
    const u = new uPlot({
      width: Math.max(320, Math.min(900, page.clientWidth - 8)), height: 240,
      scales: { x: { time: false } },
      legend: { live: false },
      axes: [{ label: panel.xlabel, values: (u, s) => s.map(Fabric.tick) },
        { label: panel.ylabel, size: 70, values: (u, s) => s.map(Fabric.tick) }],
      series: [{}].concat(panel.series.map((s, i) => ({
        label: s.label, stroke: s.color || COLORS[i % COLORS.length], width: s.points ? 0 : 1.5,
        dash: s.dashed ? [6, 4] : undefined, spanGaps: true,
        paths: s.points ? () => null : undefined,
        points: s.points ? { show: true, size: 7, fill: s.color } : { show: false } }))),
      hooks: {
        draw: [u => {
          const ctx = u.ctx, { top, height } = u.bbox;
          ctx.save();
          ctx.strokeStyle = "rgba(214,39,40,0.7)";
          ctx.setLineDash([2, 3]);
          for (const m of panel.marks) {
            const px = u.valToPos(m.x, "x", true);
            ctx.beginPath(); ctx.moveTo(px, top); ctx.lineTo(px, top + height); ctx.stroke();
          }
          ctx.restore();
        }],
        // The nearest point of each shown series to the cursor, as the figure has it.
        setCursor: [u => {
          const left = u.cursor.left;
          if (left === undefined || left === null || left < 0) return;
          const at = u.posToVal(left, "x");
          const parts = [el("span", {}, `${panel.xlabel || "x"} ≈ ${+at.toPrecision(6)}`)];
          series.forEach((s, i) => {
            if (!u.series[i + 1].show || !s.t.length) return;
            let k = lowerBound(s.t, at);
            if (k >= s.t.length || (k > 0 && at - s.t[k - 1] < s.t[k] - at)) k--;
            parts.push(el("span", { class: "hv", "data-series": panel.series[i].label },
              el("b", { style: `color:${u.series[i + 1].stroke()}` }, panel.series[i].label),
              `: ${exact(s.v[k])} at ${exact(s.t[k])}`));
          });
          readout.replaceChildren(...parts);
        }],
      },
    }, [x, ...ys], target);
    window.fabricFigures.charts.push(u);
  }

  for (const section of D.sections) {
    if (!section.figures.length) continue;
    const box = el("section", {}, el("h2", {}, section.title,
      section.verdict ? el("span", { class: `verdict verdict-${section.verdict}` }, ` ${section.verdict}`) : null));
    page.append(box);
    for (const fig of section.figures) {
      if (fig.title) box.append(el("h3", {}, fig.title));
      for (const panel of fig.panels) chart(box, panel);
    }
  }
  window.fabricFigures.ready = true;
})();
