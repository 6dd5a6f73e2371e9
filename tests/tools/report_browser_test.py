#!/usr/bin/python3
"""report.html and sweep.html in a real browser (headless Chromium, Debian package chromium).

Runs the demo scenario (examples/incast.yaml) and a four-point sweep of it with build/fabric-run,
writes their pages with tools/plot, builds a synthetic run with a million-row queues.csv, and
drives Chromium over the DevTools protocol (report_browser_drive.js, with the pinned `ws` of
tools/web). Checked here, against the CSVs read with the csv module:
  - trace.html: false means no page (and a non-flag value is an error);
  - no console errors, no exceptions, no network request (the pages are offline);
  - every chart drew its series (opaque pixels inside the plot area);
  - a mouse-drag zoom on one chart gives every chart the same new x range, the dragged one;
    double-click restores the whole run on every chart; the port and flow pickers rebuild
    their charts on the shared axis;
  - hovered values are rows of queues.csv / rates.csv: the row in force at the cursor (the last
    queue sample at or before it, the rate interval that contains it), value and time equal;
  - above the page's sample budget the largest series is reduced to min/max pairs;
  - cc.csv's optional window_bytes, rtt_ns, u, flows.csv's slowdown and reorder.csv get
    their charts;
  - tools/validate's report.html draws every panel of its figures;
  - the million-row page opens in a few seconds, is decimated to min/max per pixel in the
    overview (and still shows the CSV's peak), and shows every CSV row inside a zoomed window.
Screenshots go to BUILD_DIR/report-screenshots/, and with --update-results also to
results/report/ for the README (the test leaves the source tree alone otherwise). A missing chromium or tools/web install is a
failure with the command that fixes it, never a skip.

    /usr/bin/python3 tests/tools/report_browser_test.py BUILD_DIR [--update-results]
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools"))
DRIVER = os.path.join(REPO, "tests", "tools", "report_browser_drive.js")
RESULTS_SHOTS = os.path.join(REPO, "results", "report")
SHOTS = RESULTS_SHOTS  # main() points it into the build directory
UPDATE_RESULTS = False
BIG_ROWS = 1_000_000
BIG_LOAD_LIMIT_MS = 10_000


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(argv, **kw):
    proc = subprocess.run(argv, capture_output=True, text=True, **kw)
    check(proc.returncode == 0,
          f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return proc.stdout


def rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def prerequisites():
    chromium = shutil.which("chromium")
    check(chromium, "chromium not installed: apt-get update && apt-get install -y chromium "
                    "(./fabric setup does it)")
    check(shutil.which("node"), "node not installed: apt-get install -y nodejs npm")
    for module in ("ws", "uplot"):
        check(os.path.isdir(os.path.join(REPO, "tools", "web", "node_modules", module)),
              f"tools/web/node_modules/{module} missing: ./fabric setup "
              "(or npm ci --prefix tools/web)")
    return chromium


def big_run(run_dir):
    """A synthetic run whose queues.csv has BIG_ROWS samples of one queue (a sawtooth every 1000
    samples, one peak far above the rest in the middle): the overview must keep that peak."""
    os.makedirs(run_dir)
    end_ns = BIG_ROWS * 10
    with open(os.path.join(run_dir, "summary.json"), "w") as handle:
        json.dump({"scenario": "big", "sim_time_ns": end_ns}, handle)
    with open(os.path.join(run_dir, "queues.csv"), "w") as handle:
        handle.write("time_ns,node,port,priority,bytes\n")
        peak_row = BIG_ROWS // 2 + 3
        handle.writelines(f"{i * 10},sw0,1,3,{777777 if i == peak_row else (i % 1000) * 64}\n"
                          for i in range(BIG_ROWS))
    from fabrictools.plot.runpage import write_report
    check(write_report(run_dir, run_dir), "big run: report.html not written")


def check_budget():
    """Above the page's sample budget the largest series is reduced to min/max pairs per bucket
    (its peak and trough kept), smaller ones stay whole, and the page names what was reduced."""
    from fabrictools.plot import page, runpage
    saved = page.POINT_BUDGET
    page.POINT_BUDGET = 1000
    try:
        big = {"name": "queue big", "t": list(range(0, 30000, 10)),
               "v": [(i * 7919) % 1000 for i in range(3000)]}
        big["v"][1234] = 5000
        big["v"][2345] = -5
        small = {"name": "queue small", "t": list(range(100)), "v": list(range(100))}
        notes = []
        runpage.budget([[big], [small]], notes)
    finally:
        page.POINT_BUDGET = saved
    check(len(big["t"]) + len(small["t"]) <= 1000 and len(small["t"]) == 100,
          f"budget: {len(big['t'])} + {len(small['t'])} samples kept, want <= 1000, small whole")
    check(max(big["v"]) == 5000 and min(big["v"]) == -5 and 12340 in big["t"],
          "budget: the reduced series lost its peak or trough")
    check(big["t"] == sorted(big["t"]), "budget: reduced series out of time order")
    check(len(notes) == 1 and "queue big" in notes[0], f"budget notes: {notes}")


def extended_run(demo, run_dir):
    """The demo run with the columns newer runs may have: cc.csv window_bytes, rtt_ns and u,
    flows.csv slowdown, and a reorder.csv (values made up here; only their charts are
    checked)."""
    shutil.copytree(demo, run_dir)
    cc = rows(os.path.join(demo, "cc.csv"))
    with open(os.path.join(run_dir, "cc.csv"), "w", newline="") as handle:
        writer = csv.writer(handle)
        extra = ("window_bytes", "rtt_ns", "u")  # present but empty in a DCQCN run
        base = [c for c in cc[0] if c not in extra]
        writer.writerow(base + list(extra))
        for i, r in enumerate(cc):
            writer.writerow([r[c] for c in base] + [int(float(r["rate_gbps"]) * 250),
                                                    5000 + i % 700, (i % 100) / 100])
    flows = rows(os.path.join(demo, "flows.csv"))
    with open(os.path.join(run_dir, "flows.csv"), "w", newline="") as handle:
        writer = csv.writer(handle)
        base = [c for c in flows[0] if c != "slowdown"]
        writer.writerow(base + ["slowdown"])
        for r in flows:
            writer.writerow([r[c] for c in base] + [round(int(r["fct_ns"]) / 84000, 3)])
    with open(os.path.join(run_dir, "reorder.csv"), "w") as handle:  # as Unified Bus runs write
        handle.write("time_ns,flow_id,packets,bytes\n")
        handle.writelines(f"{t},{f},{(t // 1000) % 5},{((t // 1000) % 5) * 4096}\n"
                          for t in range(10000, 500000, 1000) for f in (0, 1))
    os.remove(os.path.join(run_dir, "report.html"))
    from fabrictools.plot.runpage import write_report
    check(write_report(run_dir, run_dir), "extended run: report.html not written")


def check_validation(inks, validation):
    """The validation report's page: a drawn chart per panel of every figure report.json lists
    (the queue-integrator and ecmp-collisions figures have six panels each)."""
    report = json.load(open(os.path.join(validation, "report.json")))
    figures = [f for case in report["cases"] for f in case["figures"]]
    check(len(figures) == 2, f"validation figures {figures}")
    check(len(inks) == 12 and all(ink > 50 for ink in inks),
          f"validation report.html: charts {inks}, want 12 drawn (6 panels x 2 figures)")


def check_report(out, demo):
    report = out["report"]
    summary = json.load(open(os.path.join(demo, "summary.json")))
    end_us = summary["sim_time_ns"] / report["unit_div"]
    # The demo (RoCE, DCQCN) has rates and alpha in cc.csv, FCT and slowdown in flows.csv.
    expected = {"queue", "rate", "cc-rate_gbps", "cc-alpha", "fct", "slowdown"}
    check(set(report["before"]) == expected,
          f"charts {sorted(report['before'])}, want {sorted(expected)}")
    for name, chart in report["before"].items():
        check(chart["ink"] > 100, f"report chart {name}: blank plot area ({chart['ink']} px)")
        check(chart["min"] == 0 and abs(chart["max"] - end_us) < 1e-9,
              f"report chart {name}: x range {chart['min']}..{chart['max']}, want 0..{end_us}")
    lo, hi = report["drag_expected"]
    ranges = {(c["min"], c["max"]) for c in report["after"].values()}
    check(len(ranges) == 1, f"charts did not zoom together: {report['after']}")
    zlo, zhi = ranges.pop()
    tolerance = 0.01 * end_us  # the drag's ends land on whole pixels
    check(abs(zlo - lo) < tolerance and abs(zhi - hi) < tolerance,
          f"zoomed range {zlo}..{zhi}, dragged {lo}..{hi}")
    check(zhi - zlo < 0.2 * end_us, f"zoom did not narrow the axis: {zlo}..{zhi}")
    for name, chart in report["after"].items():  # each chart re-read its window of the data
        check(chart["samples"] < report["before"][name]["samples"],
              f"chart {name} still holds {chart['samples']} samples after the zoom")
    for name, chart in report["reset"].items():
        check(chart["min"] == 0 and abs(chart["max"] - end_us) < 1e-9,
              f"double-click did not reset chart {name}: {chart['min']}..{chart['max']}")

    picked = report["picked"]
    check(picked["port"] in picked["queue_title"] and picked["port"] != report["port"],
          f"port picker: chose {picked['port']}, queue chart says {picked['queue_title']!r}")
    check(len(picked["rate_series"]) == 2 and picked["rate_series"][0].startswith("flow 0 "),
          f"flow picker: chose flows 0 and 1, rate chart has {picked['rate_series']}")
    check(all(r == [100, 200] for r in picked["ranges"]),
          f"rebuilt charts left the shared axis (100..200 µs): {picked['ranges']}")
    node, port = report["port"].rsplit(":", 1)
    queues = [r for r in rows(os.path.join(demo, "queues.csv"))
              if r["node"] == node and r["port"] == port]
    rates = rows(os.path.join(demo, "rates.csv"))
    compared = 0
    for hover in report["hovers"]:
        cursor = hover["queue"]["cursor_ns"]
        check(zlo * report["unit_div"] <= cursor <= zhi * report["unit_div"],
              f"hover at {cursor} ns outside the zoomed range")
        for entry in hover["queue"]["entries"]:
            prio = entry["series"].split()[-1]
            held = [r for r in queues if r["priority"] == prio and int(r["time_ns"]) <= cursor]
            check(held, f"queue {prio}: no CSV row before {cursor} ns, page shows {entry}")
            row = max(held, key=lambda r: int(r["time_ns"]))
            check(entry["time_ns"] == row["time_ns"] and entry["value"] == row["bytes"],
                  f"queue priority {prio} at {cursor} ns: page {entry}, CSV row {row}")
            check(f"{int(row['bytes']):,} B" in entry["text"], f"shown text {entry['text']!r}")
            compared += 1
        # The other charts place the synced cursor on their own whole pixels.
        pixel_ns = (zhi - zlo) * report["unit_div"] / report["over"]["width"]
        check(abs(hover["rate"]["cursor_ns"] - cursor) <= 2 * pixel_ns,
              f"the rate chart's cursor did not follow: {hover['rate']['cursor_ns']} vs {cursor}")
        cursor = hover["rate"]["cursor_ns"]
        for entry in hover["rate"]["entries"]:
            flow = entry["series"].split()[1]
            after = [r for r in rates if r["flow_id"] == flow and int(r["time_ns"]) >= cursor]
            if not after:
                continue
            row = min(after, key=lambda r: int(r["time_ns"]))
            check(entry["time_ns"] == row["time_ns"]
                  and float(entry["value"]) == float(row["rate_gbps"]),
                  f"rate of flow {flow} at {cursor} ns: page {entry}, CSV row {row}")
            check(f"{row['rate_gbps']} Gb/s" in entry["text"], f"shown text {entry['text']!r}")
            compared += 1
    check(compared >= 3 * 5, f"only {compared} hovered values compared")
    return compared


def check_sweep(out, sweep):
    page = out["sweep"]
    table = rows(os.path.join(sweep, "sweep.csv"))
    check(page["charts"] and all(ink > 100 for ink in page["charts"]),
          f"sweep chart blank: {page['charts']}")
    check(page["rows"] == len(table),
          f"sweep table has {page['rows']} rows, sweep.csv {len(table)}")
    check(len(page["links"]) == len(table),
          f"{len(page['links'])} point links for {len(table)} points")
    for href in page["links"]:
        check(href.endswith("/report.html") and os.path.isfile(os.path.join(sweep, href)),
              f"sweep link {href} is not a point's report.html")


def check_big(out):
    big = out["big"]
    check(big["load_ms"] < BIG_LOAD_LIMIT_MS, f"{BIG_ROWS:,}-row page took {big['load_ms']} ms")
    whole = big["whole"]
    check(whole["decimated"] == "yes" and whole["samples"] < 10_000,
          f"overview not decimated: {whole}")
    check(whole["max_value"] == 777777, f"overview lost the peak: max {whole['max_value']}")
    check(whole["ink"] > 100, "big chart blank")
    zoom = big["zoom"]
    lo, hi = zoom["lo"], zoom["hi"]
    inside = sum(1 for i in range(BIG_ROWS) if lo <= i * 10 <= hi)
    check(zoom["decimated"] == "no", f"zoomed window still decimated: {zoom}")
    check(zoom["samples"] == inside + 2,  # plus one sample either side, for the edges
          f"zoomed window shows {zoom['samples']} samples, CSV has {inside} (+2 edges)")


def check_switch_off(fabric_run, tmp):
    """trace.html: false leaves the run without a page; a value that is not a flag is an error
    naming the key."""
    quiet = os.path.join(tmp, "no-html")
    run([fabric_run, os.path.join(REPO, "examples", "incast.yaml"), "--out", quiet, "--quiet",
         "--set", "trace.html=false"])
    plotted = run(["/usr/bin/python3", os.path.join(REPO, "tools", "plot"), quiet])
    check(not os.path.exists(os.path.join(quiet, "report.html")) and "report.html" not in plotted,
          "trace.html: false, yet report.html was written")
    check("incast.png" in plotted, "trace.html: false must not cost the PNGs")
    bad = subprocess.run([fabric_run, os.path.join(REPO, "examples", "incast.yaml"), "--out",
                          os.path.join(tmp, "bad"), "--quiet", "--set", "trace.html=maybe"],
                         capture_output=True, text=True)
    check(bad.returncode != 0 and "trace.html" in bad.stderr,
          f"trace.html=maybe accepted (exit {bad.returncode}): {bad.stderr}")


def main():
    global SHOTS, UPDATE_RESULTS
    args = sys.argv[1:]
    UPDATE_RESULTS = "--update-results" in args
    args = [a for a in args if a != "--update-results"]
    if len(args) != 1:
        sys.exit(__doc__)
    build = os.path.abspath(args[0])
    SHOTS = os.path.join(build, "report-screenshots")
    try:
        chromium = prerequisites()
        check_budget()
        with tempfile.TemporaryDirectory(prefix="report-browser-") as tmp:
            demo = os.path.join(tmp, "demo")
            fabric_run = os.path.join(build, "fabric-run")
            # A row per queue change records every port a frame waits in, not only the
            # receiver's, so the port picker has other ports to choose.
            run([fabric_run, os.path.join(REPO, "examples", "incast.yaml"), "--out", demo,
                 "--quiet", "--set", "dcqcn.preset=paper", "--set", "trace.queue_mode=change"])
            plotted = run(["/usr/bin/python3", os.path.join(REPO, "tools", "plot"), demo])
            check(os.path.join(demo, "report.html") in plotted.split(),
                  f"tools/plot did not write report.html:\n{plotted}")
            check_switch_off(fabric_run, tmp)
            sweep = os.path.join(tmp, "sweep")
            run(["/usr/bin/python3", os.path.join(REPO, "tools", "sweep"),
                 os.path.join(REPO, "examples", "incast.yaml"), "--grid", "workload.senders=2,4",
                 "--grid", "switch.pfc.enabled=true,false", "--out", sweep,
                 "--fabric-run", fabric_run, "--quiet"])
            run(["/usr/bin/python3", os.path.join(REPO, "tools", "plot"), "--sweep", sweep])
            extended = os.path.join(tmp, "extended")
            extended_run(demo, extended)
            validation = os.path.join(tmp, "validation")
            run(["/usr/bin/python3", os.path.join(REPO, "tools", "validate"), "--quick",
                 "--only", "queue-integrator", "--only", "ecmp-collisions", "--build", build,
                 "--out", validation, "--runs", os.path.join(tmp, "validation-runs")])
            big_dir = os.path.join(tmp, "big")
            big_run(big_dir)
            os.makedirs(SHOTS, exist_ok=True)
            if UPDATE_RESULTS:
                os.makedirs(RESULTS_SHOTS, exist_ok=True)
            shots = os.path.join(tmp, "shots")
            os.makedirs(shots)
            out = json.loads(run(["node", DRIVER, chromium, os.path.join(demo, "report.html"),
                                  os.path.join(sweep, "sweep.html"), shots,
                                  os.path.join(tmp, "profile"),
                                  os.path.join(big_dir, "report.html"),
                                  os.path.join(extended, "report.html"),
                                  os.path.join(validation, "report.html")], timeout=120))
            check(not out["errors"], "browser errors:\n  " + "\n  ".join(out["errors"]))
            compared = check_report(out, demo)
            check_sweep(out, sweep)
            check_big(out)
            charts = out["others"][0]
            for name in ("cc-window_bytes", "cc-rtt_ns", "cc-u", "slowdown", "reorder-bytes",
                         "reorder-packets"):
                check(charts.get(name, 0) > 100, f"extended run: chart {name} missing or blank "
                      f"({charts})")
            check_validation(out["others"][1], validation)
            for name in ("report.png", "sweep.png"):
                shutil.copyfile(os.path.join(shots, name), os.path.join(SHOTS, name))
                if UPDATE_RESULTS:
                    shutil.copyfile(os.path.join(shots, name), os.path.join(RESULTS_SHOTS, name))
    except Failure as err:
        print(f"FAIL: {err}", file=sys.stderr)
        return 1
    print(f"ok: demo page ({out['report']['load_ms']} ms), {compared} hovered values equal "
          f"their CSV rows; sweep page; {BIG_ROWS:,}-row page in {out['big']['load_ms']} ms; "
          f"screenshots in {SHOTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
