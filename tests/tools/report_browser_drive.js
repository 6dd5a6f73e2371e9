"use strict";
// Drives headless Chromium over the DevTools protocol for tests/tools/report_browser_test.py:
// opens report.html and sweep.html, records console errors, canvas pixels, the x ranges of
// every chart before and after a mouse-drag zoom, the hover read-outs, and screenshots. Prints
// one JSON object; the Python side does the judging against the CSVs.
//   node report_browser_drive.js CHROMIUM REPORT_HTML SWEEP_HTML SHOT_DIR PROFILE_DIR BIG_HTML
//        [OTHER_HTML ...]
// (BIG_HTML: a run page with a million-row queue, zoomed by script; OTHER_HTML: run pages whose
// charts are only listed, with their pixels.)

const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");
const WebSocket = require(path.join(__dirname, "..", "..", "tools", "web", "node_modules", "ws"));

const [chromium, reportHtml, sweepHtml, shotDir, profile, bigHtml, ...otherHtml] = process.argv.slice(2);
const WIDTH = 1280, HEIGHT = 2600;
const sleep = ms => new Promise(r => setTimeout(r, ms));

function launch() {
  const proc = spawn(chromium, ["--headless=new", "--no-sandbox", "--disable-gpu",
    "--no-first-run", "--no-default-browser-check", "--remote-debugging-port=0",
    `--user-data-dir=${profile}`, `--window-size=${WIDTH},${HEIGHT}`, "about:blank"],
  { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error(`chromium did not start: ${err}`)), 20000);
    proc.stderr.on("data", d => {
      err += d;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) { clearTimeout(timer); resolve({ proc, url: m[1] }); }
    });
    proc.on("exit", code => reject(new Error(`chromium exited (${code}): ${err}`)));
  });
}

class Cdp {
  constructor(ws) {
    this.ws = ws; this.id = 0; this.pending = new Map(); this.listeners = [];
    ws.on("message", msg => {
      const m = JSON.parse(msg);
      if (m.id && this.pending.has(m.id)) {
        const { resolve, reject } = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.error) reject(new Error(JSON.stringify(m.error))); else resolve(m.result);
      } else {
        for (const l of this.listeners) l(m);
      }
    });
  }
  send(method, params = {}, sessionId) {
    const id = ++this.id;
    this.ws.send(JSON.stringify({ id, method, params, sessionId }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }
}

async function main() {
  const { proc, url } = await launch();
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((res, rej) => { ws.on("open", res); ws.on("error", rej); });
  const cdp = new Cdp(ws);
  const out = { errors: [] };
  try {
    const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
    const send = (m, p) => cdp.send(m, p, sessionId);
    cdp.listeners.push(m => {
      if (m.sessionId !== sessionId) return;
      if (m.method === "Runtime.exceptionThrown") {
        out.errors.push(`exception: ${m.params.exceptionDetails.exception?.description || m.params.exceptionDetails.text}`);
      } else if (m.method === "Runtime.consoleAPICalled" && ["error", "assert"].includes(m.params.type)) {
        out.errors.push(`console.${m.params.type}: ${m.params.args.map(a => a.value ?? a.description).join(" ")}`);
      } else if (m.method === "Log.entryAdded" && m.params.entry.level === "error") {
        out.errors.push(`log: ${m.params.entry.text} ${m.params.entry.url || ""}`);
      } else if (m.method === "Network.requestWillBeSent") {
        const u = m.params.request.url;
        if (!u.startsWith("file:") && !u.startsWith("data:") && !u.startsWith("about:")) {
          out.errors.push(`network request from an offline page: ${u}`);
        }
      }
    });
    for (const d of ["Runtime.enable", "Log.enable", "Page.enable", "Network.enable"]) await send(d);
    await send("Emulation.setDeviceMetricsOverride",
      { width: WIDTH, height: HEIGHT, deviceScaleFactor: 1, mobile: false });
    const evaluate = async expr => {
      const r = await send("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true });
      if (r.exceptionDetails) throw new Error(`${expr}: ${JSON.stringify(r.exceptionDetails)}`);
      return r.result.value;
    };
    const open = async (file, ready) => {
      await send("Page.navigate", { url: "file://" + path.resolve(file) });
      const t0 = Date.now();
      while (!(await evaluate(`!!(${ready})`))) {
        if (Date.now() - t0 > 15000) throw new Error(`${file}: page not ready after 15 s`);
        await sleep(100);
      }
      return Date.now() - t0;
    };
    const mouse = (type, x, y) => send("Input.dispatchMouseEvent",
      { type, x, y, button: "left", buttons: type === "mouseMoved" ? 1 : 0, clickCount: 1 });
    const shot = async name => {
      const { data } = await send("Page.captureScreenshot", { format: "png" });
      fs.writeFileSync(path.join(shotDir, name), Buffer.from(data, "base64"));
    };

    // Pixels of the series inside a chart's plotting area: opaque ones (grid lines and pause
    // shading are translucent, so an empty chart counts 0).
    const INK = `(u => { const b = u.bbox; const ctx = u.ctx;
      const d = ctx.getImageData(b.left, b.top, b.width, b.height).data; let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 200) n++; return n; })`;

    // ---- report.html ----
    out.report = { load_ms: await open(reportHtml, "window.fabricReport && window.fabricReport.ready") };
    await sleep(300);
    const state = `Object.fromEntries(Object.entries(window.fabricReport.charts).map(([id, c]) =>
      [id, { min: c.u.scales.x.min, max: c.u.scales.x.max, ink: ${INK}(c.u),
             decimated: c.root.dataset.decimated, samples: +c.root.dataset.samples }]))`;
    out.report.port = await evaluate(`document.getElementById("port-picker")?.value`);
    out.report.unit_div = await evaluate(`window.fabricReport.axis.unit.div`);
    out.report.before = await evaluate(state);
    const over = await evaluate(`(() => { const r = window.fabricReport.charts.queue.u.over
      .getBoundingClientRect(); window.scrollTo(0, 0);
      return { left: r.left + window.scrollX, top: r.top + window.scrollY, width: r.width, height: r.height }; })()`);
    out.report.over = over;
    // Drag over an eighth of the queue chart near its start (the first pause episode of the demo): a zoom by 8x, done as a user would.
    const y = over.top + over.height / 2;
    const x0 = over.left + over.width * 0.02, x1 = over.left + over.width * 0.14;
    out.report.drag_expected = await evaluate(`(() => { const u = window.fabricReport.charts.queue.u;
      return [u.posToVal(${x0 - over.left}, "x"), u.posToVal(${x1 - over.left}, "x")]; })()`);
    await mouse("mouseMoved", x0, y);
    await mouse("mousePressed", x0, y);
    for (let i = 1; i <= 10; i++) await mouse("mouseMoved", x0 + (x1 - x0) * i / 10, y);
    await mouse("mouseReleased", x1, y);
    await sleep(400);
    out.report.after = await evaluate(state);
    // Hover the zoomed queue chart at three places; every chart's read-out follows the cursor.
    out.report.hovers = [];
    for (const frac of [0.25, 0.5, 0.75]) {
      await mouse("mouseMoved", over.left + over.width * frac, y);
      await sleep(150);
      out.report.hovers.push(await evaluate(`Object.fromEntries([...document.querySelectorAll(".readout")]
        .map(r => [r.dataset.readout, { cursor_ns: +(r.querySelector(".hv-time")?.dataset.cursorNs ?? NaN),
          entries: [...r.querySelectorAll(".hv")].map(s => ({ series: s.dataset.series,
            time_ns: s.dataset.timeNs, value: s.dataset.value, text: s.textContent })) }]))`));
    }
    await shot("report.png");
    // Double-click resets every chart to the whole run.
    await send("Input.dispatchMouseEvent", { type: "mousePressed", x: over.left + 50, y, button: "left", clickCount: 2 });
    await send("Input.dispatchMouseEvent", { type: "mouseReleased", x: over.left + 50, y, button: "left", clickCount: 2 });
    await sleep(300);
    out.report.reset = await evaluate(state);
    // The pickers: another port, two flows; the rebuilt charts keep the shared axis.
    await evaluate(`window.fabricReport.axis.set(100000, 200000)`);
    out.report.picked = await evaluate(`(() => {
      const port = document.getElementById("port-picker"), flows = document.getElementById("flow-picker");
      const other = [...port.options].map((o) => o.value).filter((v) => v !== port.value);
      port.value = other[other.length - 1];
      port.dispatchEvent(new Event("change"));
      [...flows.options].forEach((o, i) => { o.selected = i < 2; });
      flows.dispatchEvent(new Event("change"));
      const c = window.fabricReport.charts;
      return { port: port.value, queue_title: c.queue.root.querySelector("h3").textContent,
               rate_series: c.rate.u.series.slice(1).map(s => s.label),
               ranges: Object.values(c).map(x => [x.u.scales.x.min, x.u.scales.x.max]) };
    })()`);

    // ---- sweep.html (a shorter window: the page is one chart and a table) ----
    await send("Emulation.setDeviceMetricsOverride",
      { width: WIDTH, height: 900, deviceScaleFactor: 1, mobile: false });
    out.sweep = { load_ms: await open(sweepHtml, "window.fabricSweep && window.fabricSweep.ready") };
    await sleep(300);
    out.sweep.charts = await evaluate(`window.fabricSweep.charts.map(u => ${INK}(u))`);
    out.sweep.rows = await evaluate(`document.querySelectorAll("#sweep-table tbody tr").length`);
    out.sweep.links = await evaluate(`[...document.querySelectorAll("#sweep-table a")].map(a => a.getAttribute("href"))`);
    await shot("sweep.png");

    // ---- a million-row queue ----
    if (bigHtml) {
      out.big = { load_ms: await open(bigHtml, "window.fabricReport && window.fabricReport.ready") };
      const queue = `(() => { const c = window.fabricReport.charts.queue; let mx = null;
        for (const v of c.u.data[1]) if (v !== null && (mx === null || v > mx)) mx = v;
        return { decimated: c.root.dataset.decimated, samples: +c.root.dataset.samples,
                 max_value: mx, ink: ${INK}(c.u), lo: window.fabricReport.axis.lo,
                 hi: window.fabricReport.axis.hi }; })()`;
      out.big.whole = await evaluate(queue);
      await evaluate(`window.fabricReport.axis.set(5000000, 5005000)`);
      await sleep(200);
      out.big.zoom = await evaluate(queue);
    }

    // ---- other run pages: which charts, drawn or not ----
    out.others = [];
    for (const file of otherHtml) {
      await open(file, "(window.fabricReport && window.fabricReport.ready) || " +
        "(window.fabricFigures && window.fabricFigures.ready)");
      out.others.push(await evaluate(`window.fabricReport
        ? Object.fromEntries(Object.entries(window.fabricReport.charts).map(([id, c]) => [id, ${INK}(c.u)]))
        : window.fabricFigures.charts.map(u => ${INK}(u))`));
      if (process.env.FABRIC_SHOT_OTHERS) await shot(`other-${out.others.length}.png`);
    }
  } finally {
    ws.close();
    proc.kill();
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch(err => { console.error(`report_browser_drive: ${err.stack || err}`); process.exit(2); });
