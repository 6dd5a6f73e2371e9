#!/usr/bin/env python3
"""Compare ConWeave's leaf-spine experiment in conweave-ns3 (the reference) and ns3-fabric.

usage: compare.py OUT_DIR [LB ...]
  OUT_DIR holds, per load balancer LB (default: fecmp letflow conga drill conweave, those present):
    ref-LB/        the reference run's output directory (mix/output/ID/ as run.py leaves it:
                   ID_out_fct.txt, ID_out_pfc.txt, config.txt, config.log)
    ref-LB.time    /usr/bin/time -v of run.py (simulation, its ./waf start and its analysis)
    fabric-LB/     fabric-run --hpcc-config ref-LB/config.txt --out fabric-LB (its fct.txt and
                   pfc.txt in the reference's formats under mix/output/ID/, summary.json)
    fabric-LB.time /usr/bin/time -v of fabric-run
  (a LB without fabric-LB/ is reported for the reference alone)
Prints the README's tables and writes OUT_DIR/conweave-numbers.json and OUT_DIR/slowdown.png.

Both simulators' fct.txt are read by the same code: one line per finished flow, "src dst sport
dport size start_ns fct_ns standalone_fct_ns" (conweave-ns3 rdma-hw.cc / ns3-fabric
trace.hpcc.fct, docs/models.md#hpcc-outputs). Slowdown = fct / standalone fct, at least 1, as the
reference's fctAnalysis.py computes it (its awk: $7/$8<1?1:$7/$8); quantiles by nearest rank over
all finished flows of a size bucket (fctAnalysis.py keeps only flows that start after a 5 ms
warm-up, which 2 ms of arrivals would leave empty). PFC pauses = the pfc.txt lines whose last
column is 1 (a PAUSE received; 0 is a RESUME).
"""
import glob
import json
import math
import os
import re
import sys

LBS = ["fecmp", "letflow", "conga", "drill", "conweave"]
NAMES = {"fecmp": "ECMP", "letflow": "LetFlow", "conga": "CONGA", "drill": "DRILL",
         "conweave": "ConWeave"}
BUCKETS = [("<10KB", 0, 10_000), ("10KB-100KB", 10_000, 100_000),
           ("100KB-1MB", 100_000, 1_000_000), (">=1MB", 1_000_000, math.inf)]


def nearest_rank(sorted_values, p):
    rank = max(1, math.ceil(p * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def one_file(run_dir, suffix):
    found = sorted(glob.glob(os.path.join(run_dir, "**", f"*_out_{suffix}.txt"), recursive=True))
    if not found:
        sys.exit(f"compare.py: no *_out_{suffix}.txt under {run_dir}")
    return found[0]


def fct_numbers(run_dir):
    """Per bucket and 'all': finished flows, p50 and p99 slowdown."""
    per = {b[0]: [] for b in BUCKETS}
    every = []
    for line in open(one_file(run_dir, "fct")):
        f = line.split()
        size, fct, ideal = int(f[4]), int(f[6]), int(f[7])
        slowdown = max(1.0, fct / ideal)
        every.append(slowdown)
        for name, lo, hi in BUCKETS:
            if lo <= size < hi:
                per[name].append(slowdown)
    out = {}
    for name, values in [("all", every)] + list(per.items()):
        values.sort()
        out[name] = {"flows": len(values),
                     "p50": nearest_rank(values, 0.5) if values else None,
                     "p99": nearest_rank(values, 0.99) if values else None}
    return out


def pauses(run_dir):
    return sum(1 for line in open(one_file(run_dir, "pfc")) if line.split()[-1:] == ["1"])


def time_v(path):
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of a /usr/bin/time -v report."""
    txt = open(path).read()
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", txt)
    parts = [float(x) for x in m.group(1).split(":")]
    wall = sum(p * 60 ** (len(parts) - 1 - i) for i, p in enumerate(parts))
    cpu = sum(float(re.search(rf"{k} time \(seconds\): (\S+)", txt).group(1))
              for k in ("User", "System"))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", txt).group(1))
    return wall, cpu, rss / 1024.0


def flows_in_file(ref_dir):
    """The number of flows the run's FLOW_FILE holds (its first line), from the run's config.log."""
    log = open(os.path.join(ref_dir, "config.log")).read()
    m = re.search(r"flow number : (\d+)", log) or re.search(r"total: (\d+)", log)
    return int(m.group(1)) if m else None


def ref_sim_cpu(ref_dir):
    """The CPU seconds network-load-balance.cc prints last (clock() from start to end, :1801-1802)."""
    lines = [l.strip() for l in open(os.path.join(ref_dir, "config.log")) if l.strip()]
    try:
        return float(lines[-1])
    except (ValueError, IndexError):
        return None


# ConWeave's own counters: the reference's "ConWeave History" lines (network-load-balance.cc
# prints them at the end) against ns3-fabric's summary.json `conweave` section.
CONWEAVE_COUNTERS = [
    ("reroutes", "Number of Rerouting", "reroutes"),
    ("RTT_REPLY sent", "Number of INIT's Reply sent (RTT_REPLY)", "rtt_replies"),
    ("CLEAR sent", "Number of TAIL's Reply Sent (CLEAR)", "clears"),
    ("NOTIFY sent", "Number of NOTIFY Sent", "notifies"),
    ("frames held for reordering", "Number of OoO enqueued pkts", "held_frames"),
    ("reorder queues flushed by the TAIL", "Number of VOQ Flush by TAIL", "flushes_by_tail"),
    ("reorder queues flushed, all", "Number of VOQ Flush Total", None),
]


def ref_conweave(ref_dir):
    log = open(os.path.join(ref_dir, "config.log")).read()
    out = {}
    for label, key, _ in CONWEAVE_COUNTERS:
        m = re.search(re.escape(key) + r":\s*(\d+)", log)
        if m:
            out[label] = int(m.group(1))
    return out


def fabric_conweave(summary):
    cw = summary.get("conweave")
    if not cw:
        return {}
    out = {label: cw.get(key) for label, _, key in CONWEAVE_COUNTERS if key}
    out["reorder queues flushed, all"] = cw.get("flushes_by_tail", 0) + cw.get("flushes_by_timeout", 0)
    return out


def numbers(out, lb):
    ref, fab = os.path.join(out, f"ref-{lb}"), os.path.join(out, f"fabric-{lb}")
    r = {"fct": fct_numbers(ref), "pfc_pauses": pauses(ref), "flows_total": flows_in_file(ref)}
    r["wall_s"], r["cpu_s"], r["rss_mb"] = time_v(f"{ref}.time")
    r["sim_cpu_s"] = ref_sim_cpu(ref)
    r["conweave"] = ref_conweave(ref)
    if not os.path.isdir(fab):  # ns3-fabric does not have this load balancer (yet)
        return {"reference": r, "fabric": None}
    f = {"fct": fct_numbers(fab), "pfc_pauses": pauses(fab)}
    f["wall_s"], f["cpu_s"], f["rss_mb"] = time_v(f"{fab}.time")
    s = json.load(open(os.path.join(fab, "summary.json")))
    f["flows_total"] = s["flows_total"]
    f["retransmitted_packets"] = s["counters"].get("retransmitted_packets")
    f["naks_sent"] = s["counters"].get("naks_sent")
    f["git_revision"] = s.get("git_revision")
    f["conweave"] = fabric_conweave(s)
    return {"reference": r, "fabric": f}


def fmt(v, digits=2):
    return "–" if v is None else f"{v:.{digits}f}"


def tables(res):
    lines = ["| load balancer | simulator | finished | PFC pauses | wall s | CPU s | peak MB | "
             + " | ".join(f"{b[0]} p50 | {b[0]} p99" for b in BUCKETS) + " |",
             "|---|---|---:|---:|---:|---:|---:|" + "---:|---:|" * len(BUCKETS)]
    for lb, both in res.items():
        for sim, label in (("reference", "conweave-ns3"), ("fabric", "ns3-fabric")):
            n = both[sim]
            if n is None:
                lines.append(f"| {NAMES[lb]} | {label} | not run |" + " |" * (4 + 2 * len(BUCKETS)))
                continue
            fct = n["fct"]
            cells = [f"{fct[b[0]]['flows']}: {fmt(fct[b[0]]['p50'])} | {fmt(fct[b[0]]['p99'])}"
                     for b in BUCKETS]
            lines.append(f"| {NAMES[lb]} | {label} | {fct['all']['flows']}/{n['flows_total']} | "
                         f"{n['pfc_pauses']} | {n['wall_s']:.1f} | {n['cpu_s']:.1f} | "
                         f"{n['rss_mb']:.0f} | " + " | ".join(cells) + " |")
    for lb, both in res.items():
        r = both["reference"]["conweave"]
        f = (both["fabric"] or {}).get("conweave") or {}
        if r:
            lines += ["", f"{NAMES[lb]}'s counters | conweave-ns3 | ns3-fabric", "|---|---:|---:|"]
            lines[-2] = "| " + lines[-2] + " |"
            for label, _, _ in CONWEAVE_COUNTERS:
                lines.append(f"| {label} | {r.get(label, '–')} | {f.get(label, '–')} |")
    return "\n".join(lines)


def plot(out, res):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("compare.py: no matplotlib, slowdown.png not drawn (Debian python3-matplotlib)",
              file=sys.stderr)
        return
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
    x = range(len(BUCKETS))
    for ax, q in zip(axes, ("p50", "p99")):
        for i, (lb, both) in enumerate(res.items()):
            for sim, ls in (("reference", "-"), ("fabric", "--")):
                if both[sim] is None:
                    continue
                ys = [both[sim]["fct"][b[0]][q] for b in BUCKETS]
                ax.plot(x, [y if y is not None else float("nan") for y in ys], color=f"C{i}",
                        ls=ls, marker="o", ms=3,
                        label=f"{NAMES[lb]} {'conweave-ns3' if sim == 'reference' else 'ns3-fabric'}")
        ax.set_xticks(list(x))
        ax.set_xticklabels([b[0] for b in BUCKETS])
        ax.set_yscale("log")
        ax.set_title(f"{q} FCT slowdown by flow size")
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("slowdown (FCT / standalone FCT)")
    axes[1].legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(os.path.join(out, "slowdown.png"), dpi=110, bbox_inches="tight")
    plt.close(fig)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    lbs = sys.argv[2:] or [lb for lb in LBS if os.path.isdir(os.path.join(out, f"ref-{lb}"))]
    res = {lb: numbers(out, lb) for lb in lbs}
    with open(os.path.join(out, "conweave-numbers.json"), "w") as handle:
        json.dump(res, handle, indent=1)
    plot(out, res)
    print(tables(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
