#!/usr/bin/env python3
"""Compare the PowerTCP burst experiment in ns3-datacenter (the reference) and ns3-fabric.

usage: burst_compare.py REF_DIR FABRIC_DIR OUT_DIR
  REF_DIR    holds results_burst/result-<alg>.burst (the lines results-burst.sh greps),
             run-<alg>/mix/fct.txt and time-<alg>.txt (/usr/bin/time -v) for alg in dcqcn powerInt hpcc
             powerDelay timely dctcp
  FABRIC_DIR holds <cc>/{flows,queues,rates}.csv and time-<cc>.txt for cc in dcqcn powertcp hpcc
             theta-powertcp timely dctcp-rate (fabric-run --hpcc-config config-burst.txt
             --out FABRIC_DIR/<cc>; run-twins.sh)
Writes OUT_DIR/burst-numbers.json and OUT_DIR/burst-queue.png.
"""
import csv, json, os, re, statistics, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

ALGS = [  # (label, reference name, ns3-fabric cc, reference data-frame bytes for 1000 B payload)
    # frame = 14 + 20 + 8 + 6 B of headers (custom-header.cc:339-340) + the INT header:
    # 42 B with INT (hpcc, power*), 8 B with timestamps (timely), none otherwise (int-header.cc:16-26)
    ("DCQCN", "dcqcn", "dcqcn", 1048),
    ("HPCC", "hpcc", "hpcc", 1090),
    ("TIMELY", "timely", "timely", 1056),
    ("DCTCP", "dctcp", "dctcp-rate", 1048),  # CC_MODE 8: the rate-based DCTCP
    ("PowerTCP (INT)", "powerInt", "powertcp", 1090),
    ("theta-PowerTCP (delay)", "powerDelay", "theta-powertcp", 1090),
]
BURST_T = 0.150          # s, start of the burst (flow file)
STEADY = (0.160, 0.200)  # s, window after the burst: only the 11 long flows
LONG = set(range(11))    # flow indices of the 1e12 B flows (first 11 lines of the flow file)


def time_v(path):
    """Wall seconds and peak RSS (MB) from a /usr/bin/time -v report."""
    txt = open(path).read()
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", txt)
    parts = [float(x) for x in m.group(1).split(":")]
    wall = sum(p * 60 ** (len(parts) - 1 - i) for i, p in enumerate(parts))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", txt).group(1))
    return wall, rss / 1024.0


def ref_numbers(d, name, frame):
    t, q, th = [], [], []
    for line in open(f"{d}/results_burst/result-{name}.burst"):
        f = line.split()  # ToR 0 Port 16 throughput X txBytes Y qlen Z time T normpower P
        th.append(float(f[5])); q.append(int(f[9])); t.append(float(f[11]))
    fct = [int(l.split()[6]) for l in open(f"{d}/run-{name}/mix/fct.txt") if int(l.split()[4]) == 2800]
    sq = [qq for tt, qq in zip(t, q) if STEADY[0] <= tt < STEADY[1]]
    sth = [x for tt, x in zip(t, th) if STEADY[0] <= tt < STEADY[1]]
    wall, rss = time_v(f"{d}/time-{name}.txt")
    return dict(t=t, q=q, burst_done=len(fct), fct_median_us=statistics.median(fct) / 1e3,
                fct_last_us=max(fct) / 1e3, q_peak_kb=max(q) / 1e3,
                q_peak_time_ms=t[q.index(max(q))] * 1e3,
                q_steady_kb=statistics.median(sq) / 1e3,
                # port 16 carries only the long flows' data in the window: wire rate x payload share
                long_goodput_gbps=statistics.mean(sth) / 1e9 * 1000 / frame,
                wall_s=wall, rss_mb=rss)


def fab_numbers(d, cc, ref_t):
    byt = {}
    for r in csv.DictReader(open(f"{d}/{cc}/queues.csv")):
        if r["node"] == "sw256" and r["port"] == "16":
            k = int(r["time_ns"])
            byt[k] = byt.get(k, 0) + int(r["bytes"])
    tt = sorted(byt)
    t = [x / 1e9 for x in tt]
    q = [byt[x] for x in tt]
    fct, long_rates = [], {}
    for r in csv.DictReader(open(f"{d}/{cc}/flows.csv")):
        if int(r["bytes"]) == 2800 and r["fct_ns"]:
            fct.append(int(r["fct_ns"]))
    for r in csv.DictReader(open(f"{d}/{cc}/rates.csv")):
        if int(r["flow_id"]) in LONG:
            k = int(r["time_ns"])
            if STEADY[0] * 1e9 < k <= STEADY[1] * 1e9:
                long_rates[k] = long_rates.get(k, 0.0) + float(r["rate_gbps"])
    # rates.csv has a row per flow while it delivers; a window with no row for any flow is 0
    n_int = int(round((STEADY[1] - STEADY[0]) * 1e9 / 10000))
    goodput = sum(long_rates.values()) / n_int
    sq = [qq for x, qq in zip(t, q) if STEADY[0] <= x < STEADY[1]]
    # queue on the reference's sampling instants (the last fabric sample at or before each)
    import bisect
    on_grid = []
    for x in ref_t:
        i = bisect.bisect_right(t, x) - 1
        on_grid.append(q[i] if i >= 0 and x - t[i] <= 1.0e-6 else 0)
    # a missing fabric row means an idle fabric (trace.sleep_when_idle): the queue is 0 then
    sq_full = sq + [0] * max(0, int((STEADY[1] - STEADY[0]) * 1e6) - len(sq))
    wall, rss = time_v(f"{d}/time-{cc}.txt")
    # For the plot, a gap between rows is an empty queue: put the zeros back.
    pt, pq = [], []
    for i, (x, y) in enumerate(zip(t, q)):
        if i and x - t[i - 1] > 1.5e-6:
            pt += [t[i - 1] + 1e-6, x - 1e-6]
            pq += [0, 0]
        pt.append(x)
        pq.append(y)
    t, q = pt, pq
    return dict(t=t, q=q, burst_done=len(fct), fct_median_us=statistics.median(fct) / 1e3,
                fct_last_us=max(fct) / 1e3, q_peak_kb=max(q) / 1e3,
                q_peak_time_ms=t[q.index(max(q))] * 1e3,
                q_peak_refgrid_kb=max(on_grid) / 1e3,
                q_steady_kb=statistics.median(sq_full) / 1e3,
                long_goodput_gbps=goodput, wall_s=wall, rss_mb=rss)


def main():
    ref_dir, fab_dir, out = sys.argv[1:4]
    res = {}
    fig, axes = plt.subplots(6, 2, figsize=(14, 20), gridspec_kw={"width_ratios": [1, 2]})
    for row, (label, rn, fc, frame) in zip(axes, ALGS):
        r = ref_numbers(ref_dir, rn, frame)
        f = fab_numbers(fab_dir, fc, r["t"])
        # an optional second ns3-fabric run per algorithm, FABRIC_DIR/<cc>-win
        w = fab_numbers(fab_dir, fc + "-win", r["t"]) if os.path.isdir(f"{fab_dir}/{fc}-win") else None
        for ax, xlim in zip(row, ((-0.5, 4.0), (-20.0, 50.0))):
            ax.plot([(x - BURST_T) * 1e3 for x in r["t"]], [y / 1e3 for y in r["q"]], "r-", lw=1.5,
                    label="ns3-datacenter (every 6.96 us)")
            ax.plot([(x - BURST_T) * 1e3 for x in f["t"]], [y / 1e3 for y in f["q"]], "b-", lw=0.8,
                    alpha=0.8, label="ns3-fabric (every 1 us)")
            if w:
                ax.plot([(x - BURST_T) * 1e3 for x in w["t"]], [y / 1e3 for y in w["q"]], "g--",
                        lw=0.8, alpha=0.8, label="ns3-fabric, second run")
            ax.set_xlim(*xlim)
            ax.grid(ls="--", alpha=0.5)
        row[0].set_title(f"{label}: the burst")
        row[1].set_title(f"{label} (ref {rn}, fabric cc: {fc}): 130-200 ms")
        row[0].set_ylabel("queue ToR 0 port 16 (KB)")
        row[1].legend(loc="upper right", fontsize=8)
        for d in (r, f) + ((w,) if w else ()):
            d.pop("t"); d.pop("q")
        res[label] = {"reference": r, "ns3-fabric": f}
        if w:
            res[label]["ns3-fabric + window"] = w
    for ax in axes[-1]:
        ax.set_xlabel("time since the burst (ms; burst at 150 ms)")
    fig.suptitle("PowerTCP burst experiment (255 x 2800 B + 10 long flows into host 16 at 150 ms)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "burst-queue.png"), dpi=110)
    json.dump(res, open(os.path.join(out, "burst-numbers.json"), "w"), indent=1)
    keys = ["burst_done", "fct_median_us", "fct_last_us", "q_peak_kb", "q_peak_time_ms",
            "q_peak_refgrid_kb", "q_steady_kb", "long_goodput_gbps", "wall_s", "rss_mb"]
    for label, v in res.items():
        print(f"== {label}")
        for k in keys:
            a = v["reference"].get(k)
            cols = [v[x].get(k) for x in ("ns3-fabric", "ns3-fabric + window") if x in v]
            out = ""
            for b in cols:
                d = "" if a in (None, 0) or b is None else f"{(b - a) / a * 100:+.0f}%"
                out += f" {round(b, 3)!s:>12} {d:>6}"
            print(f"  {k:20s} {a if a is None else round(a, 3)!s:>12}{out}")


if __name__ == "__main__":
    main()
