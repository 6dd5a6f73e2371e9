#!/usr/bin/python3
"""MPI is a plugin that only a distributed run loads (helper/distributed/rank-exchange-backend.h).

1. A run in one process of the MPI build's fabric-run loads no MPI library: the dynamic
   loader's own trace (LD_DEBUG=libs) names ns-3's core library (so the trace works) and no
   libmpi, open-pal or ns-3 mpi module.
2. Under mpirun the plugin is loaded and its MPI profiling wrappers are the ones ns-3's engine
   calls: every rank counts its synchronization collectives (summary.json "distributed"
   per_rank syncs > 0), which they could only do if MPI_Allgather resolved to the plugin.

Usage: mpi_plugin_test.py --mpi-build DIR
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIO = "examples/distributed-clos.yaml"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpi-build", required=True)
    args = parser.parse_args()
    fabric_run = os.path.join(args.mpi_build, "fabric-run")
    failures = 0
    with tempfile.TemporaryDirectory(prefix="fabric-mpi-plugin-") as work:
        env = dict(os.environ, LD_DEBUG="libs")
        one = subprocess.run([fabric_run, SCENARIO, "--out", os.path.join(work, "one"), "--quiet"],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        if one.returncode != 0:
            sys.stderr.write(one.stdout + one.stderr[-4000:])
            raise SystemExit(f"FAIL: the single-process run exited {one.returncode}")
        loaded = one.stderr
        if "libns3.37-core" not in loaded:
            raise SystemExit("FAIL: LD_DEBUG=libs traced nothing (no libns3.37-core in it)")
        for lib in ("libmpi.so", "libopen-pal", "libns3.37-mpi", "libfabric-mpi"):
            if lib in loaded:
                print(f"FAIL: a single-process run loads {lib}")
                failures += 1
        if not failures:
            print("ok   one process: no MPI library loaded")

        mpirun = ["mpirun", "--oversubscribe", "-np", "2"]
        if os.geteuid() == 0:
            mpirun.insert(1, "--allow-run-as-root")
        out = os.path.join(work, "two")
        two = subprocess.run(mpirun + [fabric_run, SCENARIO, "--partition", "auto", "--quiet",
                                       "--out", out], cwd=ROOT, capture_output=True, text=True,
                             timeout=600)
        if two.returncode != 0:
            sys.stderr.write(two.stdout + two.stderr)
            raise SystemExit(f"FAIL: mpirun -np 2 exited {two.returncode}")
        ranks = json.load(open(os.path.join(out, "summary.json")))["distributed"]["per_rank"]
        for r in ranks:
            if r["syncs"] <= 0:
                print(f"FAIL: rank {r['rank']} counted no synchronization collective")
                failures += 1
        if len(ranks) != 2:
            print(f"FAIL: {len(ranks)} per-rank entries, not 2")
            failures += 1
        if not failures:
            print("ok   two ranks: " + ", ".join(f"rank {r['rank']} {r['syncs']} syncs"
                                                 for r in ranks))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
