#!/usr/bin/env python3
"""Compare the PowerTCP fairness experiment in ns3-datacenter (the reference) and ns3-fabric.

usage: fairness_compare.py REF_DIR FABRIC_DIR OUT_DIR
  REF_DIR    holds eval-<alg>.out (the reference's standard output, at least its "Src i Total"
             lines: results-fairness.sh greps them) and time-<alg>.txt (/usr/bin/time -v) for alg
             in dcqcn powerInt hpcc powerDelay timely dctcp
  FABRIC_DIR holds <cc>/rates.csv and time-<cc>.txt for cc in dcqcn powertcp hpcc theta-powertcp
             timely dctcp-rate (fabric-run --hpcc-config config-fairness.txt --out FABRIC_DIR/<cc>)
Writes OUT_DIR/fairness-numbers.json and OUT_DIR/fairness-rates.png.

The experiment (inet-tub/ns3-datacenter simulator/ns-3.39/examples/PowerTCP: config-fairness.txt,
flow-fairnessExp.txt): hosts 0-3 each start a 10^12 B flow to host 32, at 1 ms, 100 ms, 200 ms
and 300 ms. The reference program stops each flow 100 ms x 4 after its start
(powertcp-evaluation-fairness.cc:147, the RdmaClient's stop time), so flows leave again from
401 ms; ns3-fabric's flows run to their size, so only the four phases up to 401 ms are compared
(run-twins.sh stops both simulators there, so their wall times are for the same work).
Per phase (k flows sharing the 25 Gb/s link) the mean payload rate of each flow over the phase
less its first 20 ms, and Jain's index of the four flows over 320-401 ms. The reference prints each source NIC's transmitted bits (data frames with their
headers) every 14.48 us; its payload rate is that times 1000 B over the frame bytes of the
algorithm (1048 B; 1090 B with INT, 1056 B with TIMELY's timestamp: custom-header.cc:339-340,
int-header.cc:16-26). ns3-fabric's rates.csv is already payload.
"""
import csv, json, os, re, statistics, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from burst_compare import time_v  # noqa: E402

ALGS = [  # (label, reference name, ns3-fabric cc, reference data-frame bytes for 1000 B payload)
    ("DCQCN", "dcqcn", "dcqcn", 1048),
    ("HPCC", "hpcc", "hpcc", 1090),
    ("TIMELY", "timely", "timely", 1056),
    ("DCTCP", "dctcp", "dctcp-rate", 1048),
    ("PowerTCP (INT)", "powerInt", "powertcp", 1090),
    ("theta-PowerTCP (delay)", "powerDelay", "theta-powertcp", 1090),
]
STARTS = [0.001, 0.100, 0.200, 0.300]
END = 0.401  # the first flow stops (start + 4 x 100 ms)
SETTLE = 0.020


def phases():
    bounds = STARTS[1:] + [END]
    return [(s + SETTLE, e) for s, e in zip(STARTS, bounds)]


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if any(xs) else 0.0


def summarise(series, wall, rss):
    """series: flow -> [(t, gbps)]."""
    out = {"phases": [], "wall_s": wall, "rss_mb": rss}
    for k, (a, b) in enumerate(phases()):
        means = []
        for flow in range(4):
            vals = [g for t, g in series.get(flow, []) if a <= t < b]
            means.append(statistics.mean(vals) if vals else 0.0)
        out["phases"].append({"window_s": [a, b], "flows": k + 1, "gbps": means[:k + 1],
                              "total_gbps": sum(means[:k + 1])})
    last = out["phases"][-1]["gbps"]
    out["jain_4_flows"] = jain(last)
    return out


def reference(d, name, frame):
    series = {}
    for line in open(f"{d}/eval-{name}.out"):
        f = line.split()
        if len(f) >= 8 and f[0] == "Src":
            series.setdefault(int(f[1]), []).append((float(f[7]), float(f[5]) / 1e9 * 1000 / frame))
    return series, summarise(series, *time_v(f"{d}/time-{name}.txt"))


def fabric(d, cc):
    series = {}
    for r in csv.DictReader(open(f"{d}/{cc}/rates.csv")):
        series.setdefault(int(r["flow_id"]), []).append((int(r["time_ns"]) / 1e9,
                                                         float(r["rate_gbps"])))
    return series, summarise(series, *time_v(f"{d}/time-{cc}.txt"))


def main():
    ref_dir, fab_dir, out = sys.argv[1:4]
    res = {}
    fig, axes = plt.subplots(len(ALGS), 2, figsize=(14, 3.2 * len(ALGS)), sharey=True)
    for row, (label, rn, fc, frame) in zip(axes, ALGS):
        rs, r = reference(ref_dir, rn, frame)
        fs, f = fabric(fab_dir, fc)
        # The reference prints every 14.48 us; drawn as 1 ms means like ns3-fabric's rates.csv.
        binned = {}
        for flow, pts in rs.items():
            bins = {}
            for t, g in pts:
                bins.setdefault(int(t * 1000), []).append(g)
            binned[flow] = [((k + 1) / 1000, statistics.mean(v)) for k, v in sorted(bins.items())]
        for ax, series, title in ((row[0], binned, f"{label}: ns3-datacenter (1 ms means)"),
                                  (row[1], fs, f"{label}: ns3-fabric (cc: {fc})")):
            for flow in sorted(series):
                pts = series[flow]
                ax.plot([t for t, _ in pts], [g for _, g in pts], lw=0.8,
                        label=f"flow {flow}")
            ax.set_title(title)
            ax.set_xlim(0, 0.42)
            ax.grid(ls="--", alpha=0.5)
        row[0].set_ylabel("payload Gb/s")
        row[1].legend(loc="upper right", fontsize=8)
        res[label] = {"reference": r, "ns3-fabric": f}
    for ax in axes[-1]:
        ax.set_xlabel("time (s); flows start at 1, 100, 200, 300 ms")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fairness-rates.png"), dpi=90)
    json.dump(res, open(os.path.join(out, "fairness-numbers.json"), "w"), indent=1)
    for label, v in res.items():
        print(f"== {label}")
        for k in range(4):
            a = v["reference"]["phases"][k]["gbps"]
            b = v["ns3-fabric"]["phases"][k]["gbps"]
            print(f"  {k + 1} flows  ref " + " ".join(f"{x:6.2f}" for x in a) +
                  "   fabric " + " ".join(f"{x:6.2f}" for x in b))
        for key in ("jain_4_flows", "wall_s", "rss_mb"):
            a, b = v["reference"][key], v["ns3-fabric"][key]
            print(f"  {key:14s} {a:8.3f} {b:8.3f} {(b - a) / a * 100:+.0f}%")


main()
