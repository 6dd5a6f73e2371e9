"use strict";
// Shared by report.js (report.html of a run) and sweep.js (sweep.html): the time charts on one
// zoomable axis, their min/max-per-pixel decimation, exact hover read-outs, and small DOM
// helpers. Inlined into each page by tools/fabrictools/plot/page.py after uPlot.

const Fabric = (() => {
  const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#17becf"];

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v);
    }
    for (const c of children.flat()) {
      if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
    }
    return node;
  }

  // Time stamps arrive as differences from the previous one (page.py delta()).
  function undelta(d) {
    const out = new Float64Array(d.length);
    let t = 0;
    for (let i = 0; i < d.length; i++) { t += d[i]; out[i] = t; }
    return out;
  }

  // Exactly the number the CSV holds (shortest round-trip form), digits grouped.
  function exact(v) {
    if (v === null || v === undefined) return "–";
    if (Number.isInteger(v)) return v.toLocaleString("en-US");
    return String(v);
  }

  function timeUnit(endNs) {
    return endNs > 1e8 ? { div: 1e6, unit: "ms" } : { div: 1e3, unit: "µs" };
  }

  // First index with a[i] >= x (a sorted).
  function lowerBound(a, x) {
    let lo = 0, hi = a.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (a[m] < x) lo = m + 1; else hi = m; }
    return lo;
  }
  // First index with a[i] > x.
  function upperBound(a, x) {
    let lo = 0, hi = a.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (a[m] <= x) lo = m + 1; else hi = m; }
    return lo;
  }

  // Series sampled at different instants share one x array in uPlot: the union of their time
  // stamps, null where a series has no sample (drawn across, spanGaps).
  function align(series) {
    if (series.length === 1) return { x: series[0].t, ys: [series[0].v] };
    let same = series.every(s => s.t.length === series[0].t.length);
    for (let i = 0; same && i < series.length; i++) {
      const t = series[i].t, t0 = series[0].t;
      for (let j = 0; j < t.length; j++) if (t[j] !== t0[j]) { same = false; break; }
    }
    if (same) return { x: series[0].t, ys: series.map(s => s.v) };
    let total = 0;
    for (const s of series) total += s.t.length;
    const all = new Float64Array(total);
    let k = 0;
    for (const s of series) { all.set(s.t, k); k += s.t.length; }
    all.sort();
    let n = 0;
    for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[n - 1]) all[n++] = all[i];
    const x = all.slice(0, n);
    const ys = series.map(s => {
      const y = new Array(n).fill(null);
      let j = 0;
      for (let i = 0; i < s.t.length; i++) {
        while (x[j] < s.t[i]) j++;
        y[j] = s.v[i];
      }
      return y;
    });
    return { x, ys };
  }

  // The part of aligned data inside [lo, hi] (ns) plus one sample either side; with more than
  // DECIMATE_FACTOR samples per pixel, per pixel column the first and last time stamp carry each
  // series' minimum and maximum there, so a 1.4 µs spike in a 10 ms run still reaches its peak.
  const DECIMATE_FACTOR = 2;
  function windowed(x, ys, lo, hi, px) {
    const i0 = Math.max(0, lowerBound(x, lo) - 1);
    const i1 = Math.min(x.length - 1, upperBound(x, hi));
    const n = i1 - i0 + 1;
    if (n <= 0) return { x: [], ys: ys.map(() => []), decimated: false };
    if (n <= DECIMATE_FACTOR * px) {
      return { x: x.slice(i0, i1 + 1), ys: ys.map(y => y.slice(i0, i1 + 1)), decimated: false };
    }
    const outX = [x[i0]], outY = ys.map(y => [y[i0]]);
    const span = (hi - lo) / px;
    let i = i0 + 1;
    while (i < i1) {
      const bucketEnd = Math.min(i1, lowerBound(x, lo + (Math.floor((x[i] - lo) / span) + 1) * span));
      const j = Math.max(bucketEnd, i + 1) - 1;
      outX.push(x[i]);
      if (j > i) outX.push(x[j]);
      ys.forEach((y, s) => {
        let mn = null, mx = null;
        for (let k = i; k <= j; k++) {
          const v = y[k];
          if (v === null) continue;
          if (mn === null || v < mn) mn = v;
          if (mx === null || v > mx) mx = v;
        }
        outY[s].push(mn);
        if (j > i) outY[s].push(mx);
      });
      i = j + 1;
    }
    outX.push(x[i1]);
    ys.forEach((y, s) => outY[s].push(y[i1]));
    return { x: Float64Array.from(outX), ys: outY, decimated: true };
  }

  // One time range for every chart of the page: zooming one sets it, and every chart follows.
  class TimeAxis {
    constructor(endNs) {
      this.end = endNs > 0 ? endNs : 1;
      this.lo = 0;
      this.hi = this.end;
      this.unit = timeUnit(this.end);
      this.charts = new Set();
    }
    set(lo, hi) {
      if (!(hi > lo)) return;
      this.lo = lo;
      this.hi = hi;
      for (const c of this.charts) c.show(lo, hi);
    }
    reset() { this.set(0, this.end); }
  }

  // A uPlot chart of time series on a TimeAxis. spec: {title, unit (for values), yLabel,
  // hold: "post" (a sample holds until the next one: queue depth, CC state) or "pre" (a sample is
  // the average over the interval ending at it: delivered rates), points (markers only), series: [{label, t
  // (Float64Array ns), v, color}], shades: [{label, color, spans: [[s, e]], on}], hoverNote}.
  class TimeChart {
    constructor(parent, spec, axis) {
      this.spec = spec;
      this.axis = axis;
      this.root = el("section", { class: "chart", "data-chart": spec.id });
      this.root.append(el("h3", {}, spec.title));
      if (spec.shades && spec.shades.length) this.root.append(this.shadeToggles());
      this.plotBox = el("div", { class: "plot" });
      this.readout = el("div", { class: "readout", "data-readout": spec.id },
        "hover for exact values");
      this.root.append(this.plotBox, this.readout);
      parent.append(this.root);
      const aligned = align(spec.series);
      this.x = aligned.x;
      this.ys = aligned.ys;
      const div = axis.unit.div;
      const self = this;
      const opts = {
        width: Math.max(320, parent.clientWidth - 8),
        height: spec.height || 220,
        scales: { x: { time: false, auto: false }, y: { auto: false } },
        cursor: {
          sync: { key: "fabric-time" },
          drag: { x: true, y: false },
          bind: { dblclick: () => () => { axis.reset(); return null; } },
        },
        legend: { live: false },
        axes: [
          { label: `time (${axis.unit.unit})` },
          { label: spec.yLabel, size: 70, values: (u, splits) => splits.map(v => tick(v)) },
        ],
        series: [{ label: "time" }].concat(spec.series.map((s, i) => ({
          label: s.label,
          stroke: s.color || COLORS[i % COLORS.length],
          width: 1.25,
          spanGaps: true,
          paths: spec.points ? () => null
            : uPlot.paths.stepped({ align: spec.hold === "pre" ? -1 : 1 }),
          points: spec.points ? { show: true, size: 6, fill: s.color || COLORS[i % COLORS.length] }
            : { show: false },
        }))),
        hooks: {
          setScale: [(u, key) => { if (key === "x") self.onZoom(); }],
          setCursor: [u => self.hover(u)],
          drawClear: [u => self.drawShades(u)],
          setSeries: [() => self.fitY()],
        },
      };
      const first = windowed(this.x, this.ys, axis.lo, axis.hi, opts.width);
      this.u = new uPlot(opts, [scaled(first.x, div), ...first.ys], this.plotBox);
      this.decimated = first.decimated;
      axis.charts.add(this);
      this.show(axis.lo, axis.hi);
    }

    destroy() { this.axis.charts.delete(this); this.u.destroy(); this.root.remove(); }

    shadeToggles() {
      const box = el("div", { class: "shades" });
      for (const sh of this.spec.shades) {
        const input = el("input", { type: "checkbox", "data-shade": sh.label });
        input.checked = sh.on !== false;
        input.addEventListener("change", () => { sh.on = input.checked; this.u.redraw(false); });
        box.append(el("label", {}, input,
          el("span", { class: "swatch", style: `background:${sh.color}` }), sh.label,
          ` (${sh.spans.length} interval${sh.spans.length === 1 ? "" : "s"})`));
      }
      return box;
    }

    // Zoomed by dragging on this chart: pass the range to the axis (and so to every chart).
    onZoom() {
      if (!this.u) return; // uPlot sets its scales once while being built
      const div = this.axis.unit.div;
      const lo = this.u.scales.x.min * div, hi = this.u.scales.x.max * div;
      const eps = (this.axis.hi - this.axis.lo) * 1e-9;
      if (Math.abs(lo - this.axis.lo) <= eps && Math.abs(hi - this.axis.hi) <= eps) return;
      queueMicrotask(() => this.axis.set(lo, hi));
    }

    // Show [lo, hi] ns: the samples there at full resolution, or decimated per pixel.
    show(lo, hi) {
      const div = this.axis.unit.div;
      const w = this.u.bbox.width / devicePixelRatio || this.u.width;
      const win = windowed(this.x, this.ys, lo, hi, Math.max(50, Math.round(w)));
      this.decimated = win.decimated;
      this.root.dataset.decimated = win.decimated ? "yes" : "no";
      this.root.dataset.samples = String(win.x.length);
      this.u.batch(() => {
        this.u.setData([scaled(win.x, div), ...win.ys], false);
        this.u.setScale("x", { min: lo / div, max: hi / div });
        this.fitY();
      });
    }

    // y from 0 (or the lowest visible value, if negative) to the highest visible value.
    fitY() {
      if (!this.u) return;
      let mn = 0, mx = 0;
      const d = this.u.data;
      for (let s = 1; s < d.length; s++) {
        if (!this.u.series[s].show) continue;
        for (const v of d[s]) if (v !== null) { if (v > mx) mx = v; if (v < mn) mn = v; }
      }
      if (this.spec.yMax !== undefined) mx = Math.max(mx, this.spec.yMax);
      if (mx === mn) mx = mn + 1;
      this.u.setScale("y", { min: mn, max: mn + (mx - mn) * 1.05 });
    }

    drawShades(u) {
      const shades = (this.spec.shades || []).filter(sh => sh.on !== false);
      if (!shades.length) return;
      const div = this.axis.unit.div, ctx = u.ctx, { left, top, width, height } = u.bbox;
      ctx.save();
      ctx.beginPath();
      ctx.rect(left, top, width, height);
      ctx.clip();
      for (const sh of shades) {
        ctx.fillStyle = sh.fill;
        for (const [s, e] of sh.spans) {
          if (e < this.axis.lo || s > this.axis.hi) continue;
          const x0 = u.valToPos(s / div, "x", true), x1 = u.valToPos(e / div, "x", true);
          ctx.fillRect(x0, top, Math.max(x1 - x0, 1), height);
        }
      }
      ctx.restore();
    }

    // The sample of each shown series at the cursor, from the full-resolution data (never a
    // decimated point): the one whose value is in force there (hold "post": the last sample at
    // or before the cursor; "pre": the first at or after it), for markers the nearest one.
    hover(u) {
      const left = u.cursor.left;
      if (left === undefined || left === null || left < 0) return;
      const tNs = u.posToVal(left, "x") * this.axis.unit.div;
      const parts = [el("span", { class: "hv-time", "data-cursor-ns": String(tNs) },
        `cursor ${exact(Math.round(tNs))} ns`)];
      this.spec.series.forEach((s, i) => {
        if (!u.series[i + 1].show || !s.t.length) return;
        let k;
        if (this.spec.hold === "post") k = upperBound(s.t, tNs) - 1;
        else if (this.spec.hold === "pre") {
          k = lowerBound(s.t, tNs);
          if (k >= s.t.length) k = -1;
        } else {
          k = lowerBound(s.t, tNs);
          if (k >= s.t.length || (k > 0 && tNs - s.t[k - 1] < s.t[k] - tNs)) k--;
        }
        if (k < 0) return;
        const v = s.v[k];
        parts.push(el("span", {
          class: "hv", "data-series": s.label, "data-time-ns": String(s.t[k]),
          "data-value": v === null ? "" : String(v),
        }, el("b", { style: `color:${u.series[i + 1].stroke()}` }, s.label), ": ",
        this.spec.format ? this.spec.format(v) : `${exact(v)} ${this.spec.unit || ""}`,
        ` at ${exact(s.t[k])} ns`));
      });
      this.readout.replaceChildren(...parts);
    }
  }

  function scaled(x, div) {
    const out = new Float64Array(x.length);
    for (let i = 0; i < x.length; i++) out[i] = x[i] / div;
    return out;
  }

  function tick(v) {
    const a = Math.abs(v);
    if (a >= 1e9) return (v / 1e9).toPrecision(3) + "G";
    if (a >= 1e6) return (v / 1e6).toPrecision(3) + "M";
    if (a >= 1e4) return (v / 1e3).toPrecision(3) + "k";
    return String(+v.toPrecision(4));
  }

  function table(header, rows, cls) {
    return el("table", { class: cls || "data" },
      el("thead", {}, el("tr", {}, header.map(h => el("th", {}, h)))),
      el("tbody", {}, rows.map(r => el("tr", {}, r.map(c => el("td", {}, c))))));
  }

  return { COLORS, el, undelta, exact, timeUnit, lowerBound, upperBound, align, windowed,
    TimeAxis, TimeChart, table, tick };
})();
