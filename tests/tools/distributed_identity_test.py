#!/usr/bin/python3
"""A fabric cut across MPI ranks gives the results of one process.

Runs a scenario once as a single process (--partition auto on one rank: the same end-of-run
rule a distributed run uses) and then under `mpirun -np K` for each K, and compares every
output file after sorting its rows: flows.csv, links.csv, queues.csv, pfc.csv, rates.csv,
cc.csv byte for byte, and the deterministic part of summary.json (counters, times, queues,
conservation). Wall times, event counts and the "distributed" section differ by nature and are
left out: events differ because every rank runs its own periodic samplers.

PFC deadlocks (examples/pfc-deadlock.yaml, --expect-exit 3): a cycle of paused queues through
several ranks' switches is found from the ranks' samples gathered on rank 0; the run stops on
every rank at the same instant and the outputs, the cycle and its time included, are identical.

With --invariants-only the comparison is limited to what cannot depend on the order of
simultaneous events: on identical cables two frames often reach a switch at the same picosecond,
one over a cut cable. One process serves them in the order their arrivals were scheduled;
across ranks the remote arrival is scheduled when its MPI message is received, so the order
can differ, and with it queue occupancy, ECN draws, DCQCN rates and completion times. What stays
exact is the work done: every flow completes, exactly its bytes are sent and delivered (no
drop, no retransmission in a lossless fabric), the data frames per flow, and conservation.

Jobs (tests/data/scenarios/distributed-job.yaml): job.csv and the summary's jobs sections are
compared too; with --invariants-only every job must also complete with exact collective sums.

Collectives (examples/distributed-allreduce.yaml): collective.csv and the summary's
"collective" section are compared too. A transfer that waits for a transfer completed on
another rank starts when that rank's announcement arrives, which takes the notice delay (the
lookahead); with a launch cost at least that long every start is exact. With a shorter launch
cost (--invariants-only --set collective.launch_cost=100ns) some launches are late, each by at
most notice delay - launch cost: the check is that bound, that the collective completes and that
every rank holds the exact sum.

Usage: distributed_identity_test.py --mpi-build DIR [--ranks 2,3] [--scenario FILE]
        [--set key=value ...] [--invariants-only] [--mpi-sync granted-time|null-message]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACE_FILES = ["flows.csv", "links.csv", "queues.csv", "pfc.csv", "rates.csv", "cc.csv"]
# summary.json keys that describe the simulated system (not the machine that simulated it).
SUMMARY_KEYS = ["sim_time_ns", "last_finish_ns", "packet_hops", "flows_total", "flows_finished",
                "counters", "conservation_ok", "transport_state_ok", "unbalanced_flows",
                "max_queue_bytes", "bottleneck", "deadlock"]
# Sections only some runs have, compared when the single-process run has them: UB transport
# counters (resent packets, context misses, reorder peaks), transport state, slowdowns, jobs.
OPTIONAL_SUMMARY_KEYS = ["ub", "transport_state_bytes_max_per_nic", "slowdown", "jobs", "jobs_complete",
                         "job_collectives_checked", "job_collectives_correct"]


def run(cmd, out_dir, expect_exit=0):
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    if proc.returncode != expect_exit:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {proc.returncode}, not {expect_exit}")
    for name in TRACE_FILES + ["summary.json"]:
        if not os.path.exists(os.path.join(out_dir, name)):
            raise SystemExit(f"FAIL: {out_dir} has no {name}")
    leftovers = [d for d in os.listdir(out_dir) if d.startswith("rank-")]
    if leftovers:
        raise SystemExit(f"FAIL: rank directories left behind in {out_dir}: {leftovers}")


def sorted_rows(path):
    with open(path) as f:
        lines = f.read().splitlines()
    return lines[:1] + sorted(lines[1:])


def flow_work(path):
    """Per flow: bytes, sent, delivered, dropped, retransmitted, finished."""
    rows = {}
    with open(path) as f:
        header = f.readline().strip().split(",")
        for line in f:
            r = dict(zip(header, line.rstrip("\n").split(",")))
            rows[r["flow_id"]] = (r["bytes"], r["sent_bytes"], r["delivered_bytes"],
                                  r["dropped_bytes"], r["retransmitted_bytes"],
                                  r["finish_ns"] != "")
    return rows


def check_invariants(ref, out, k):
    a = flow_work(os.path.join(ref, "flows.csv"))
    b = flow_work(os.path.join(out, "flows.csv"))
    failures = 0
    if a != b:
        print(f"FAIL np {k}: per-flow work differs: {a} != {b}")
        failures += 1
    for flow, (size, sent, delivered, dropped, resent, finished) in b.items():
        if not finished or sent != size or delivered != size or dropped != "0" or resent != "0":
            print(f"FAIL np {k}: flow {flow} did not move exactly its {size} bytes")
            failures += 1
    s = json.load(open(os.path.join(out, "summary.json")))
    c = s["counters"]
    if not s["conservation_ok"] or c["headroom_violation_bytes"] or c["dropped_bytes"]:
        print(f"FAIL np {k}: conservation {s['conservation_ok']}, counters {c}")
        failures += 1
    if "collective" in s:
        failures += check_collective(s, k)
    if "jobs_complete" in s and not (s["jobs_complete"] and s["job_collectives_correct"]):
        print(f"FAIL np {k}: jobs complete {s['jobs_complete']}, collective sums exact "
              f"{s['job_collectives_correct']}")
        failures += 1
    if not failures:
        print(f"ok   np {k}: every flow moved exactly its bytes, lossless, conservation holds")
    return failures


def check_collective(s, k):
    c = s["collective"]
    if not c["complete"] or not c["values_correct"]:
        print(f"FAIL np {k}: collective complete {c['complete']}, values {c['values_correct']}")
        return 1
    late, late_ps = c["late_launches"], c["late_launch_ps"]
    slack_ps = s["distributed"]["notice_delay_ps"] - c["launch_cost_ps"]
    if late and late_ps > late * slack_ps:
        print(f"FAIL np {k}: {late} late launches by {late_ps} ps in all, more than "
              f"{slack_ps} ps (notice delay - launch cost) each")
        return 1
    if late == 0 and slack_ps > 0 and k > 1:
        print(f"FAIL np {k}: launch cost below the notice delay and no late launch: "
              "the cut does not cross the collective")
        return 1
    print(f"ok   np {k}: collective exact, {late} late launches, {late_ps / max(late, 1):.0f} ps "
          f"each on average (bound {slack_ps} ps)")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpi-build", required=True)
    ap.add_argument("--ranks", default="2,3")
    ap.add_argument("--scenario", default=os.path.join(ROOT, "examples/distributed-clos.yaml"))
    ap.add_argument("--partition", default="auto")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--invariants-only", action="store_true")
    ap.add_argument("--mpi-sync", default="granted-time")
    ap.add_argument("--expect-exit", type=int, default=0,
                    help="exit status every run must have (3: PFC deadlock)")
    args = ap.parse_args()
    fabric_run = os.path.join(args.mpi_build, "fabric-run")
    if not os.path.exists(fabric_run):
        raise SystemExit(f"FAIL: {fabric_run} is missing: build it with ./fabric build --ns3=source")
    sets = [x for kv in args.set for x in ("--set", kv)]
    work = tempfile.mkdtemp(prefix="fabric-distributed-")
    try:
        ref = os.path.join(work, "np1")
        run([fabric_run, args.scenario, "--partition", args.partition, "--out", ref, "--quiet"]
            + sets, ref, args.expect_exit)
        ref_summary = json.load(open(os.path.join(ref, "summary.json")))
        useful = ref_summary["flows_finished"] > 0 or \
            ref_summary.get("collective", {}).get("complete", False) or \
            ref_summary["deadlock"]["detected"]
        if not ref_summary["conservation_ok"] or not useful:
            raise SystemExit("FAIL: the single-process reference run is not a useful reference")
        failures = 0
        for k in [int(x) for x in args.ranks.split(",")]:
            out = os.path.join(work, f"np{k}")
            cmd = ["mpirun", "--oversubscribe", "-np", str(k)]
            if os.geteuid() == 0:
                cmd.insert(1, "--allow-run-as-root")
            run(cmd + [fabric_run, args.scenario, "--partition", args.partition, "--out", out,
                       "--quiet", "--mpi-sync", args.mpi_sync] + sets, out, args.expect_exit)
            summary = json.load(open(os.path.join(out, "summary.json")))
            dist = summary.get("distributed", {})
            if dist.get("sync") != args.mpi_sync:
                raise SystemExit(f"FAIL: np {k} ran with {dist.get('sync')}")
            if dist.get("ranks") != k or not dist.get("cut_links"):
                raise SystemExit(f"FAIL: np {k}: summary says {dist.get('ranks')} ranks and "
                                 f"{dist.get('cut_links')} cut links")
            print(f"np {k}: {dist['cut_links']} cut links, lookahead {dist['lookahead_ns']} ns, "
                  f"hosts per rank {dist['hosts_per_rank']}")
            if args.invariants_only:
                failures += check_invariants(ref, out, k)
                continue
            extra = sorted(f for f in os.listdir(ref) if f.endswith(".csv") and f not in TRACE_FILES)
            for name in TRACE_FILES + extra:
                a = sorted_rows(os.path.join(ref, name))
                b = sorted_rows(os.path.join(out, name))
                if a != b:
                    diff = [(x, y) for x, y in zip(a, b) if x != y][:3]
                    print(f"FAIL np {k}: {name} differs ({len(a)} vs {len(b)} lines); "
                          f"first differences: {diff}")
                    failures += 1
                else:
                    print(f"ok   np {k}: {name} identical ({len(a) - 1} rows)")
            keys = SUMMARY_KEYS + [k for k in ["collective"] + OPTIONAL_SUMMARY_KEYS
                                   if k in ref_summary]
            for key in keys:
                if summary.get(key) != ref_summary.get(key):
                    print(f"FAIL np {k}: summary {key}: {summary.get(key)} != "
                          f"{ref_summary.get(key)}")
                    failures += 1
            print(f"ok   np {k}: summary identical on {len(keys)} keys"
                  if not failures else "")
        return 1 if failures else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
