#!/usr/bin/python3
"""Self-test of tools/plot, tools/summary and bench/run-bench, without the simulator.

Synthetic runs come in the older raw-transport format (no cc.csv, no RoCE columns) and as RoCE
runs with cc.csv (DCQCN with alpha, or cc "none" without), so both must keep working.

It writes synthetic run directories (fabrictools.plot.synth) and a fake fabric-run into a temporary
directory, runs the real scripts on them as subprocesses (so shebangs, exec bits and argument
parsing are tested too) and checks their outputs. Exits non-zero on the first failure.

    /usr/bin/python3 tests/tools/plot_selftest.py [-v]
"""

import csv
import json
import math
import os
import re
import struct
import shutil
import subprocess
import sys
import tempfile

REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
TOOLS_DIR = os.path.join(REPO_DIR, "tools")
PLOT = os.path.join(TOOLS_DIR, "plot")
SUMMARY = os.path.join(TOOLS_DIR, "summary")
RUN_BENCH = os.path.join(REPO_DIR, "bench", "run-bench")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ALL_PNGS = ("queue.png", "rates.png", "pfc.png", "incast.png")
ROCE_PNGS = ALL_PNGS + ("cc.png",)

from fabrictools.plot import loaders, synth  # tests/tools/fabrictools links to the package

# Stands in for build/fabric-run: writes a summary.json whose content the scenario file
# controls ("mode: fail" exits 3, "mode: broken" reports conservation_ok false).
FAKE_FABRIC_RUN = """#!/usr/bin/python3
import json, os, sys
scenario, out = sys.argv[1], sys.argv[sys.argv.index("--out") + 1]
text = open(scenario).read()
if "mode: fail" in text:
    print("fake fabric-run: failing on purpose", file=sys.stderr)
    sys.exit(3)
ballast = bytearray(20 * 1024 * 1024)  # something for peak RSS to see
json.dump({"scenario": os.path.basename(scenario), "seed": 1, "sim_time_ns": 1000000,
           "wall_s": 0.01, "events": 3000000, "packet_hops": 1000000, "peak_rss_kb": 30000,
           "counters": {}, "conservation_ok": "mode: broken" not in text},
          open(os.path.join(out, "summary.json"), "w"))
"""


class Failure(Exception):
    pass


def run(argv, expect_rc=0, verbose=False):
    """Run a tool; fail unless it exits with expect_rc (None: anything but a crash)."""
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if verbose:
        print("$ " + " ".join(argv))
        print(proc.stdout + proc.stderr)
    crashed = "Traceback (most recent call last)" in proc.stderr
    if crashed or (expect_rc is not None and proc.returncode != expect_rc):
        raise Failure(f"{' '.join(argv)} exited {proc.returncode}, expected {expect_rc}\n"
                      f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def check(condition, message):
    if not condition:
        raise Failure(message)


def check_pngs(directory, names, stdout):
    """Each PNG exists, is a PNG, is not trivially small, and its path was printed."""
    for name in names:
        path = os.path.join(directory, name)
        check(os.path.isfile(path), f"{path} not written")
        with open(path, "rb") as handle:
            check(handle.read(8) == PNG_MAGIC, f"{path} is not a PNG")
        check(os.path.getsize(path) > 5000, f"{path} is suspiciously small")
        check(path in stdout.split("\n"), f"{path} not printed by plot")


def png_height(path):
    """Pixel height from the PNG's IHDR chunk: tells how many panels a figure got."""
    with open(path, "rb") as handle:
        return struct.unpack(">I", handle.read(24)[20:24])[0]


def summary_value(stdout, label):
    """The value printed after a label, or None when the line is absent."""
    match = re.search(rf"^{re.escape(label)}\s\s+(.*)$", stdout, re.M)
    return match.group(1) if match else None


def flows_column_sum(run_dir, column):
    with open(os.path.join(run_dir, "flows.csv"), newline="") as handle:
        return sum(int(row[column]) for row in csv.DictReader(handle) if row[column])


def summary_flow_count(stdout):
    match = re.search(r"^flows\s+(\d+)", stdout, re.M)
    return int(match.group(1)) if match else None


def test_full_run(tmp, verbose):
    """A complete run: every plot, and a summary with the right flow count and verdict."""
    run_dir = os.path.join(tmp, "full")
    synth.write_run(run_dir, senders=8)
    proc = run([PLOT, run_dir], verbose=verbose)
    check_pngs(run_dir, ALL_PNGS, proc.stdout)
    out = run([SUMMARY, run_dir], verbose=verbose).stdout
    check(summary_flow_count(out) == 9, f"summary flow count wrong:\n{out}")
    check(re.search(r"^conservation\s+ok", out, re.M), f"summary conservation wrong:\n{out}")
    check(re.search(r"^FCT min/median/max\s+[\d.]+ / [\d.]+ / [\d.]+ µs", out, re.M),
          f"summary FCT line wrong:\n{out}")
    check("at sw0:8 priority 3" in out, f"summary max queue wrong:\n{out}")
    # A raw run of the older format: no cc.csv, no RoCE columns, so no RoCE lines.
    check(not os.path.exists(os.path.join(run_dir, "cc.png")), "cc.png without cc.csv")
    check("cc.csv: not found" in proc.stderr, "no note for the missing cc.csv")
    for label in ("bytes retransmitted", "bytes discarded", "CNPs", "PFC frames sent"):
        check(summary_value(out, label) is None, f"{label} shown for a raw run:\n{out}")


def test_roce_runs(tmp, verbose):
    """RoCE runs: cc.png (alpha panel only with DCQCN), CC rates as incast.png's third row,
    and the summary's transport, loss and CNP lines, from the counters or else flows.csv."""
    raw = os.path.join(tmp, "roce-raw")
    synth.write_run(raw, senders=8)
    run([PLOT, raw], verbose=verbose)
    heights = {}
    for cc in ("dcqcn", "none"):
        run_dir = os.path.join(tmp, f"roce-{cc}")
        synth.write_run(run_dir, senders=8, transport="roce", cc=cc)
        proc = run([PLOT, run_dir], verbose=verbose)
        check_pngs(run_dir, ROCE_PNGS, proc.stdout)
        heights[cc] = png_height(os.path.join(run_dir, "cc.png"))
        check(png_height(os.path.join(run_dir, "incast.png"))
              > png_height(os.path.join(raw, "incast.png")),
              f"incast.png of a {cc} run has no CC-rate row")
        out = run([SUMMARY, run_dir], verbose=verbose).stdout
        check(summary_value(out, "transport") == f"roce (cc {cc})", f"transport wrong:\n{out}")
        check(summary_value(out, "bytes retransmitted") == "5,120 B (5.00 KiB)",
              f"retransmitted bytes wrong:\n{out}")
        check(summary_value(out, "bytes discarded") == "4,096 B (4.00 KiB)",
              f"discarded bytes wrong:\n{out}")
        cnps = flows_column_sum(run_dir, "cnps")
        check(cnps > 0 and summary_value(out, "CNPs") == f"{cnps:,}", f"CNPs wrong:\n{out}")
        check(re.search(r"^conservation\s+ok \(sent = delivered \+ dropped \+ discarded",
                        out, re.M), f"conservation ignores discarded bytes:\n{out}")
        check(summary_value(out, "launch wait median/max") == "0 ns / 300 ns",
              f"launch wait wrong:\n{out}")
        check(re.search(r"^PFC frames sent\s+\d", out, re.M), f"no PFC frames line:\n{out}")
    check(heights["dcqcn"] > heights["none"], "cc.png: alpha panel missing for DCQCN, or "
          "drawn for cc none")

    # Today's cc.csv (window_bytes, rtt_ns): a window algorithm's cc.png adds a window and an
    # RTT panel below alpha, so it is taller than DCQCN's (rate and alpha only).
    window_run = os.path.join(tmp, "roce-dctcp")
    synth.write_run(window_run, senders=8, transport="roce", cc="dctcp")
    proc = run([PLOT, window_run], verbose=verbose)
    check_pngs(window_run, ROCE_PNGS, proc.stdout)
    check(png_height(os.path.join(window_run, "cc.png")) > heights["dcqcn"],
          "cc.png: window and RTT panels missing for a run with window_bytes and rtt_ns")
    series = loaders.load_cc(window_run)
    check(all(c.has("window_bytes") and c.has("rtt_ns") for c in series.values()),
          "window_bytes / rtt_ns columns not loaded")
    check(not any(c.has("window_bytes") for c in loaders.load_cc(
        os.path.join(tmp, "roce-dcqcn")).values()), "window read from a five-column cc.csv")

    # A UB run's cc.csv (NSCC): the rate is empty until the channel's first RTT sample, alpha is
    # empty, u is the averaged delay over the target. Every row is kept (no malformed-row note)
    # and cc.png has rate, window, RTT and u panels: as many as DCTCP's rate, alpha, window, RTT.
    ub_run = shutil.copytree(window_run, os.path.join(tmp, "ub-nscc"))
    os.remove(os.path.join(ub_run, "cc.png"))
    with open(os.path.join(ub_run, "cc.csv"), "w") as handle:
        handle.write("time_ns,flow_id,cc,rate_gbps,alpha,window_bytes,rtt_ns,u\n")
        for t in range(0, 100_000, 10_000):
            for flow in range(4):
                rtt = "" if t == 0 else str(2000 + t // 100)
                window = 675_000 - t
                rate = "" if t == 0 else str(window * 8 / int(rtt))
                handle.write(f"{t},{flow},nscc,{rate},,{window},{rtt},{t / 100_000}\n")
    proc = run([PLOT, ub_run], verbose=verbose)
    check("malformed" not in proc.stderr, f"UB cc.csv rows skipped:\n{proc.stderr}")
    check(os.path.exists(os.path.join(ub_run, "cc.png")), "no cc.png for a UB run")
    check(png_height(os.path.join(ub_run, "cc.png")) == png_height(os.path.join(window_run, "cc.png")),
          "cc.png of a UB run: not the rate, window, RTT and u panels")
    ub_series = loaders.load_cc(ub_run)
    check(len(ub_series) == 4 and all(len(c.times_ns) == 10 for c in ub_series.values()),
          "UB cc.csv rows dropped")
    first = ub_series["0"]
    check(math.isnan(first.rate_gbps[0]) and abs(first.rate_gbps[1] - 665_000 * 8 / 2100) < 1e-9,
          f"UB rate column: {first.rate_gbps[:2]}")
    check(first.has("u") and not first.has("alpha"), "UB u / alpha columns misread")

    # Without the counters the totals come from flows.csv's columns.
    no_counters = shutil.copytree(os.path.join(tmp, "roce-dcqcn"),
                                  os.path.join(tmp, "roce-no-counters"))
    path = os.path.join(no_counters, "summary.json")
    with open(path) as handle:
        data = json.load(handle)
    del data["counters"]
    with open(path, "w") as handle:
        json.dump(data, handle)
    out = run([SUMMARY, no_counters], verbose=verbose).stdout
    check(summary_value(out, "bytes retransmitted") == "5,120 B (5.00 KiB)" and
          summary_value(out, "bytes discarded") == "4,096 B (4.00 KiB)",
          f"flows.csv sums not used:\n{out}")

    # More than 12 flows: no per-flow legend, still both panels.
    wide = os.path.join(tmp, "roce-wide")
    synth.write_run(wide, senders=20, flow_bytes=100_000, stop_ns=200_000, transport="roce",
                    cc="dcqcn")
    proc = run([PLOT, wide], verbose=verbose)
    check_pngs(wide, ROCE_PNGS, proc.stdout)
    check(png_height(os.path.join(wide, "cc.png")) == heights["dcqcn"], "wide cc.png panels")


def test_many_senders_and_options(tmp, verbose):
    """64 senders (legend and PFC rows capped), --out elsewhere, --port override, and a run
    stopped early so flows are unfinished."""
    run_dir = os.path.join(tmp, "wide")
    synth.write_run(run_dir, senders=64, flow_bytes=200_000, stop_ns=300_000)
    out_dir = os.path.join(tmp, "wide-plots")
    proc = run([PLOT, run_dir, "--out", out_dir, "--port", "sw0:64"], verbose=verbose)
    check_pngs(out_dir, ALL_PNGS, proc.stdout)
    out = run([SUMMARY, run_dir], verbose=verbose).stdout
    check(summary_flow_count(out) == 65, f"summary flow count wrong:\n{out}")
    check(re.search(r"^flows\s+65 \(\d+ finished, [1-9]\d* unfinished\)", out, re.M),
          f"expected unfinished flows:\n{out}")
    proc = run([PLOT, run_dir, "--out", os.path.join(tmp, "none"), "--port", "sw9:1"],
               verbose=verbose)
    check("no queue samples" in proc.stderr, "missing note for a port without samples")
    run([PLOT, run_dir, "--port", "nonsense"], expect_rc=2, verbose=verbose)


def test_degraded_runs(tmp, verbose):
    """Missing, empty and malformed files skip plots with a note, never crash."""
    base = os.path.join(tmp, "base")
    synth.write_run(base, senders=4)

    no_pfc = shutil.copytree(base, os.path.join(tmp, "no-pfc"))
    os.remove(os.path.join(no_pfc, "pfc.csv"))
    os.remove(os.path.join(no_pfc, "rates.csv"))
    proc = run([PLOT, no_pfc], verbose=verbose)
    check_pngs(no_pfc, ("queue.png", "incast.png"), proc.stdout)
    check(not os.path.exists(os.path.join(no_pfc, "pfc.png")), "pfc.png without pfc.csv")

    empty = shutil.copytree(base, os.path.join(tmp, "empty"))
    for name in ("queues.csv", "rates.csv"):
        with open(os.path.join(empty, name), "w") as handle:
            handle.write("time_ns,node,port,priority,bytes\n" if name == "queues.csv" else "")
    proc = run([PLOT, empty], verbose=verbose)
    check_pngs(empty, ("pfc.png",), proc.stdout)
    check("incast.png" not in proc.stdout, "incast.png drawn from no data")

    no_summary = shutil.copytree(base, os.path.join(tmp, "no-summary"))
    os.remove(os.path.join(no_summary, "summary.json"))
    with open(os.path.join(no_summary, "queues.csv"), "a") as handle:
        handle.write("garbage,row\n12,sw0,4,3,notanumber\n")
    proc = run([PLOT, no_summary], verbose=verbose)
    check_pngs(no_summary, ALL_PNGS, proc.stdout)  # bottleneck found from queues.csv
    out = run([SUMMARY, no_summary], verbose=verbose).stdout
    check(summary_flow_count(out) == 5, f"summary without summary.json:\n{out}")

    roce = os.path.join(tmp, "roce-base")
    synth.write_run(roce, senders=4, transport="roce", cc="dcqcn")
    for name, content in (("cc-header", "time_ns,flow_id,cc,rate_gbps,alpha\n"),
                          ("cc-zero", ""),
                          ("cc-wrong-columns", "time,flow,rate\n1,2,3\n")):
        broken = shutil.copytree(roce, os.path.join(tmp, name))
        with open(os.path.join(broken, "cc.csv"), "w") as handle:
            handle.write(content)
        proc = run([PLOT, broken], verbose=verbose)
        check_pngs(broken, ALL_PNGS, proc.stdout)
        check(not os.path.exists(os.path.join(broken, "cc.png")), f"{name}: cc.png from no data")
        check("cc.png: no congestion-control samples" in proc.stderr, f"{name}: no note")

    # No alpha column, malformed rows, no flows.csv (bare flow ids in the legend), a flow the
    # NIC never launched (empty launch_ns), and old summary counters.
    odd = shutil.copytree(roce, os.path.join(tmp, "cc-odd"))
    with open(os.path.join(odd, "cc.csv"), "w") as handle:
        handle.write("time_ns,flow_id,rate_gbps\n10000,0,50\n20000,0,25\n10000,1,50\n"
                     "garbage\n30000,1,fast\n30000,1,nan\n20000,1,12.5\n")
    proc = run([PLOT, odd, "--out", os.path.join(tmp, "cc-odd-plots")], verbose=verbose)
    check_pngs(os.path.join(tmp, "cc-odd-plots"), ("cc.png",), proc.stdout)
    check(png_height(os.path.join(tmp, "cc-odd-plots", "cc.png")) <
          png_height(os.path.join(tmp, "roce-dcqcn", "cc.png")), "alpha panel without alpha")
    check("cc.csv: skipped 2 malformed row(s)" in proc.stderr, "malformed cc rows not counted")
    with open(os.path.join(odd, "flows.csv"), newline="") as handle:
        rows = list(csv.reader(handle))
    rows[1][-1] = ""
    rows[2][-3:] = ["", "", ""]
    with open(os.path.join(odd, "flows.csv"), "w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    out = run([SUMMARY, odd], verbose=verbose).stdout
    check(summary_value(out, "CNPs") is not None, f"CNPs line missing:\n{out}")
    os.remove(os.path.join(odd, "flows.csv"))
    proc = run([PLOT, odd], verbose=verbose)
    check("/cc.png" in proc.stdout, "cc.png not drawn without flows.csv")

    bare = os.path.join(tmp, "bare")
    os.mkdir(bare)
    run([PLOT, bare], verbose=verbose)
    run([SUMMARY, bare], expect_rc=2, verbose=verbose)
    run([PLOT, os.path.join(tmp, "does-not-exist")], expect_rc=2, verbose=verbose)


def write_bench_setup(tmp, scenarios):
    """A build dir with the fake fabric-run and a scenario dir with the given files."""
    build = os.path.join(tmp, "build")
    os.makedirs(build, exist_ok=True)
    fake = os.path.join(build, "fabric-run")
    with open(fake, "w") as handle:
        handle.write(FAKE_FABRIC_RUN)
    os.chmod(fake, 0o755)
    scen_dir = tempfile.mkdtemp(prefix="scenarios-", dir=tmp)
    for name, text in scenarios.items():
        with open(os.path.join(scen_dir, name + ".yaml"), "w") as handle:
            handle.write(text)
    return build, scen_dir


def test_run_bench(tmp, verbose):
    """The harness reports good runs and fails on a crash or a conservation violation."""
    build, scen = write_bench_setup(tmp, {"alpha": "mode: ok\n", "beta": "mode: ok\n"})
    results = os.path.join(tmp, "bench-results")
    proc = run([RUN_BENCH, "--build", build, "--scenarios", scen, "--results", results,
                "--repeat", "2"], verbose=verbose)
    with open(os.path.join(results, "results.json")) as handle:
        data = json.load(handle)
    names = [s["name"] for s in data["scenarios"]]
    check(names == ["alpha", "beta"], f"results.json scenarios {names}")
    first = data["scenarios"][0]
    check(first["events"] == 3_000_000 and first["events_per_s"] > 0, "events/s missing")
    check(first["peak_rss_kb"] > 20 * 1024, f"peak RSS {first['peak_rss_kb']} KiB too small")
    check(len(first["runs"]) == 2, "--repeat 2 did not run twice")
    check(data["machine"]["nproc"] >= 1 and data["machine"]["cpu_model"], "machine info")
    with open(os.path.join(results, "results.md")) as handle:
        table = handle.read()
    check("| alpha |" in table and "| beta |" in table and "| alpha |" in proc.stdout,
          f"markdown table wrong:\n{table}")

    proc = run([RUN_BENCH, "--build", build, "--scenarios", scen, "--results", results,
                "--only", "beta"], verbose=verbose)
    check("| beta |" in proc.stdout and "| alpha |" not in proc.stdout, "--only ignored")
    run([RUN_BENCH, "--build", build, "--scenarios", scen, "--only", "gamma"], expect_rc=1,
        verbose=verbose)

    for mode in ("fail", "broken"):
        build, scen = write_bench_setup(tmp, {"good": "mode: ok\n", "bad": f"mode: {mode}\n"})
        failed_results = os.path.join(tmp, f"bench-{mode}")
        proc = run([RUN_BENCH, "--build", build, "--scenarios", scen, "--results",
                    failed_results], expect_rc=1, verbose=verbose)
        check("bad FAILED" in proc.stderr, f"no failure reported for mode {mode}")
        check(not os.path.exists(os.path.join(failed_results, "results.json")),
              "results written despite a failure")


def write_fct_run(run_dir, slowdown_of):
    """A run directory with only flows.csv: 60 flows from 1 KB to 10 MB whose slowdown is
    slowdown_of(bytes); every tenth flow unfinished (empty slowdown)."""
    os.makedirs(run_dir, exist_ok=True)
    with open(os.path.join(run_dir, "flows.csv"), "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["flow_id", "src", "dst", "bytes", "fct_ns", "stuck_reason",
                      "ideal_fct_ns", "slowdown"])
        for i in range(60):
            size = int(1000 * 10 ** (i / 15))
            done = i % 10 != 9
            out.writerow([i, "h0", "h1", size, 1000 if done else "", "" if done else "stuck",
                          100, f"{slowdown_of(size):.4f}" if done else ""])


def test_fct_plot(tmp, verbose):
    """--fct: one fct.png for several runs; the p50/p99 per size bin it draws (checked through
    fctplot's own binning on flows whose slowdown is known); bad input rejected."""
    a = os.path.join(tmp, "fct-a")
    b = os.path.join(tmp, "fct-b")
    write_fct_run(a, lambda size: 1.0)
    write_fct_run(b, lambda size: 2.0 if size < 100_000 else 5.0)
    out = os.path.join(tmp, "fct-out")
    proc = run([PLOT, "--fct", a, b, "--out", out], verbose=verbose)
    check_pngs(out, ("fct.png",), proc.stdout)
    sys.path.insert(0, TOOLS_DIR)
    from fabrictools.plot import fctplot
    curves = fctplot.size_curves(fctplot.read_slowdowns(b))
    # 4 bins per decade over 1 KB..10 MB, each of 3..4 of the 54 finished flows (the bins left
    # with 2 after dropping unfinished flows are left out); each side of 100 KB keeps its
    # slowdown exactly.
    check(10 <= len(curves["size"]) <= 16, f"bins: {curves['size']}")
    for size, p50, p99 in zip(curves["size"], curves["p50"], curves["p99"]):
        expected = 2.0 if size < 100_000 else 5.0
        check(p50 == expected and p99 == expected, f"bin {size}: {p50} {p99}")
    check(fctplot.nearest_rank([1, 2, 3, 4], 0.5) == 2, "nearest rank p50 of 1..4")
    check(fctplot.nearest_rank(list(range(1, 101)), 0.99) == 99, "nearest rank p99 of 1..100")
    # A run without the slowdown column names the file and the column.
    old = os.path.join(tmp, "fct-old")
    os.makedirs(old)
    with open(os.path.join(old, "flows.csv"), "w") as handle:
        handle.write("flow_id,bytes,fct_ns\n0,1000,5\n")
    proc = run([PLOT, "--fct", old], expect_rc=2, verbose=verbose)
    check("slowdown" in proc.stderr and "flows.csv" in proc.stderr, proc.stderr)
    run([PLOT, "--fct", a, "--sweep", a], expect_rc=2, verbose=verbose)
    # Seeds of one setting: LABEL=RUN groups them; the curve is the mean of the runs' per-bin
    # quantiles and the band their min-max. Three runs at 1, 2 and 6 everywhere: mean 3, band 1..6.
    seeds = []
    for k, value in enumerate((1.0, 2.0, 6.0)):
        d = os.path.join(tmp, f"fct-seed{k + 1}")
        write_fct_run(d, lambda size, v=value: v)
        seeds.append(d)
    out = os.path.join(tmp, "fct-grouped")
    proc = run([PLOT, "--fct"] + [f"same={d}" for d in seeds] + [f"other={a}", "--out", out],
               verbose=verbose)
    check_pngs(out, ("fct.png",), proc.stdout)
    check(fctplot.parse_fct_args([f"x={a}", a]) == [("x", a), ("fct-a", a)], "LABEL=RUN parsing")
    grouped = fctplot.group_curves([fctplot.size_bins(fctplot.read_slowdowns(d)) for d in seeds])
    check(len(grouped["size"]) == len(curves["size"]), f"grouped bins: {grouped['size']}")
    for q in ("p50", "p99"):
        check(all(v == 3.0 for v in grouped[q]), f"{q} mean: {grouped[q]}")
        check(all(v == 1.0 for v in grouped[q + "_lo"]) and all(v == 6.0 for v in grouped[q + "_hi"]),
              f"{q} band: {grouped[q + '_lo']} {grouped[q + '_hi']}")
    run([PLOT, "--fct", f"same={os.path.join(tmp, 'no-such-run')}"], expect_rc=2, verbose=verbose)


def test_study_seeds(tmp, verbose):
    """fabrictools.studies: the spread across seeds and the ranking-stability count."""
    sys.path.insert(0, TOOLS_DIR)
    from fabrictools import studies
    check(studies.spread([3.0, None, 1.0, 2.0]) == (2.0, 1.0, 3.0), "spread ignores None")
    check(studies.spread([None, float("nan")]) is None, "no value, no spread")
    check(studies.fmt_spread((2.0, 1.0, 3.0)) == "2.00 [1.00–3.00]", studies.fmt_spread((2.0, 1.0, 3.0)))
    check(studies.fmt_spread((2.0, 2.0, 2.0)) == "2.00", "one seed: the value alone")
    # a < b < c in both seeds; d ties b in seed 2 and crosses c: (a,b) (a,c) (b,c) (a,d) alike.
    alike = studies.ordered_alike({"a": [1, 1], "b": [2, 3], "c": [4, 5], "d": [5, 3],
                                   "e": [1, None]})
    check(alike == (4, 6), f"ordered_alike: {alike}")



JOB_CSV_HEADER = "job,step,phase,kind,rank,host,bytes,ready_ns,start_ns,end_ns,waiting_ns\n"


def color_pixels(path, rgb, tolerance=0.06):
    """How many pixels of the PNG at path have the colour rgb (0..1 floats)."""
    import matplotlib.image as mpimg
    import numpy as np
    img = mpimg.imread(path)[:, :, :3]
    return int((np.abs(img - np.array(rgb)).max(axis=2) < tolerance).sum())


def test_job_gantt(tmp, verbose):
    """job.csv -> job-<name>.png per job: waiting orange only where a rank waited, compute grey,
    communication blue, update green; unfinished rows left out; no job.csv, no Gantt chart."""
    run_dir = os.path.join(tmp, "jobs")
    os.makedirs(run_dir)
    with open(os.path.join(run_dir, "job.csv"), "w") as f:
        f.write(JOB_CSV_HEADER)
        # Job a: rank 1 is late, so rank 0 waits 1 ms for the collective.
        f.write("a,0,fwd,compute,0,0,0,0,0,1000000,0\n")
        f.write("a,0,fwd,compute,1,1,0,1000000,1000000,2000000,0\n")
        f.write("a,0,ar,collective,0,0,1048576,1000000,2000000,2500000,1000000\n")
        f.write("a,0,ar,collective,1,1,1048576,2000000,2000000,2500000,0\n")
        f.write("a,0,opt,update,0,0,0,2500000,2500000,3000000,0\n")
        f.write("a,0,opt,update,1,1,0,2500000,2500000,3000000,0\n")
        # Job b: a transfer nobody waits for, and a phase that never ended.
        f.write("b/x,0,send,p2p,0,2,4096,0,0,400000,0\n")
        f.write("b/x,0,send,p2p,1,3,4096,0,0,400000,0\n")
        f.write("b/x,1,send,p2p,0,2,4096,,,,\n")
    proc = run([PLOT, run_dir], verbose=verbose)
    check_pngs(run_dir, ("job-a.png", "job-b_x.png"), proc.stdout)
    orange, blue, grey, green = (1.0, 0.498, 0.055), (0.122, 0.467, 0.706), (0.6, 0.6, 0.6), \
        (0.173, 0.627, 0.173)
    a = os.path.join(run_dir, "job-a.png")
    b = os.path.join(run_dir, "job-b_x.png")
    check(color_pixels(a, orange) > 200, "job-a.png: no waiting (orange) bar")
    for name, rgb in (("compute", grey), ("communication", blue), ("update", green)):
        check(color_pixels(a, rgb) > 200, f"job-a.png: no {name} bar")
    # The legend has one small orange patch; a waiting bar would add far more.
    check(color_pixels(b, orange) < color_pixels(a, orange) / 4,
          "job-b_x.png: waiting drawn where nobody waited")
    check(color_pixels(b, blue) > 200, "job-b_x.png: no communication bar")
    full = os.path.join(tmp, "full")
    check(not any(n.startswith("job-") for n in os.listdir(full)),
          "a Gantt chart for a run without job.csv")



def test_trims_plot(tmp, verbose):
    """trims.png from trims.csv: the per-port totals it draws are the sums of the rows; a run
    whose trims.csv has only a header gets no trims.png, and one without trims.csv no note."""
    run_dir = os.path.join(tmp, "trims")
    synth.write_run(run_dir, senders=4)
    rows = [(1000, "leaf0", 2, 7, 4096), (1500, "leaf0", 2, 8, 4096), (1200, "spine1", 0, 7, 1000),
            (900, "leaf0", 2, 9, 512), ("bad", "leaf0", 2, 9, 1)]
    with open(os.path.join(run_dir, "trims.csv"), "w") as handle:
        handle.write("time_ns,node,port,flow_id,bytes\n")
        handle.writelines(",".join(map(str, r)) + "\n" for r in rows)
    proc = run([PLOT, run_dir, "--no-html"], verbose=verbose)
    check_pngs(run_dir, ("trims.png",), proc.stdout)
    check("trims.csv: skipped 1 malformed row" in proc.stderr,
          f"no note for the malformed trims.csv row:\n{proc.stderr}")
    from fabrictools.plot import trimplot
    trims = trimplot.load_trims(run_dir)
    check(sorted(trims) == [("leaf0", 2), ("spine1", 0)], f"trimmed ports wrong: {sorted(trims)}")
    check(trims[("leaf0", 2)] == [(900, 512), (1000, 4096), (1500, 4096)],
          f"leaf0:2 trims not time-sorted or wrong: {trims[('leaf0', 2)]}")
    check(sum(b for _, b in trims[("spine1", 0)]) == 1000, "spine1:0 total wrong")
    empty = os.path.join(tmp, "trims-empty")
    synth.write_run(empty, senders=4)
    with open(os.path.join(empty, "trims.csv"), "w") as handle:
        handle.write("time_ns,node,port,flow_id,bytes\n")
    proc = run([PLOT, empty, "--no-html"], verbose=verbose)
    check(not os.path.exists(os.path.join(empty, "trims.png")), "trims.png without a trim")
    full = os.path.join(tmp, "full")
    check(not os.path.exists(os.path.join(full, "trims.png")), "trims.png without trims.csv")
    proc = run([PLOT, full, "--no-html"], verbose=verbose)
    check("trims" not in proc.stderr, f"a note about trims for a run without trimming:\n{proc.stderr}")


def test_conweave_plot(tmp, verbose):
    """conweave.png from conweave.csv: the reroutes by reason and, per destination ToR, the
    frames held over all its reorder queues (a queue's row replaces its last occupancy); a run
    without conweave.csv gets none."""
    run_dir = os.path.join(tmp, "conweave")
    synth.write_run(run_dir, senders=4)
    rows = ["4912,leaf0,reroute,7,,,,3-1,2-1,reply_timeout",
            "5463,leaf1,queue,7,0,1,4154,,,", "5547,leaf1,queue,9,1,1,4154,,,",
            "5630,leaf1,queue,7,0,2,8308,,,", "9000,leaf1,flush,7,0,2,,,,tail",
            "9000,leaf1,queue,7,0,0,0,,,", "400000,leaf0,reroute,9,,,,2-1,3-1,epoch_expiry",
            "41463,leaf1,flush,9,1,1,,,,timeout", "41463,leaf1,queue,9,1,0,0,,,"]
    with open(os.path.join(run_dir, "conweave.csv"), "w") as handle:
        handle.write("time_ns,switch,event,flow_id,queue,frames,bytes,old_path,new_path,reason\n")
        handle.writelines(r + "\n" for r in rows)
    proc = run([PLOT, run_dir, "--no-html"], verbose=verbose)
    check_pngs(run_dir, ("conweave.png",), proc.stdout)
    from fabrictools.plot import conweaveplot
    events = conweaveplot.load_conweave(run_dir)
    check(events.reroutes == [(4912, "reply_timeout"), (400000, "epoch_expiry")],
          f"reroutes wrong: {events.reroutes}")
    check(events.held["leaf1"] == [(5463, 1), (5547, 2), (5630, 3), (9000, 1), (41463, 0)],
          f"held frames per ToR wrong: {events.held['leaf1']}")
    check([r for _, _, r in events.flushes] == ["tail", "timeout"], "flush reasons wrong")
    full = os.path.join(tmp, "full")
    run([PLOT, full, "--no-html"], verbose=verbose)
    check(not os.path.exists(os.path.join(full, "conweave.png")), "conweave.png without ConWeave")


TESTS = [test_full_run, test_roce_runs, test_many_senders_and_options, test_degraded_runs,
         test_run_bench, test_fct_plot, test_study_seeds, test_job_gantt, test_trims_plot,
         test_conweave_plot]


def main() -> int:
    verbose = "-v" in sys.argv[1:]
    tmp = tempfile.mkdtemp(prefix="plot-selftest-")
    # run-bench keeps failed runs' directories on purpose; keep them inside tmp, cleaned below.
    os.environ["TMPDIR"] = tmp
    failed = 0
    try:
        for test in TESTS:
            try:
                test(tmp, verbose)
                print(f"PASS {test.__name__}")
            except Failure as err:
                failed += 1
                print(f"FAIL {test.__name__}: {err}")
    finally:
        if failed:
            print(f"(files kept in {tmp})")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
