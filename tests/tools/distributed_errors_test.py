#!/usr/bin/python3
"""Errors only a multi-rank run can meet are reported once, by rank 0, with exit status 2.

A chain cut of the 16-host leaf-spine (rank 0: leaf0 and its hosts, rank 1: the spines, rank 2:
the other leaves) leaves ranks 0 and 2 without a shared cable. The null-message engine accepts
messages only from neighbouring ranks, and completions are announced to every rank, so that cut
is rejected under null-message; the granted time window runs it.

Usage: distributed_errors_test.py --mpi-build DIR
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpi-build", required=True)
    args = ap.parse_args()
    fabric_run = os.path.join(args.mpi_build, "fabric-run")
    if not os.path.exists(fabric_run):
        raise SystemExit(f"FAIL: {fabric_run} is missing: build it with ./fabric build --ns3=source")
    with tempfile.TemporaryDirectory(prefix="fabric-distributed-errors-") as work:
        part = os.path.join(work, "chain.part")
        with open(part, "w") as f:
            rank = {f"h{h}": 0 if h < 4 else 2 for h in range(16)}
            rank.update({"leaf0": 0, "leaf1": 2, "leaf2": 2, "leaf3": 2})
            rank.update({f"spine{s}": 1 for s in range(4)})
            f.writelines(f"{node} {r}\n" for node, r in rank.items())
        mpirun = ["mpirun", "--oversubscribe", "-np", "3"]
        if os.geteuid() == 0:
            mpirun.insert(1, "--allow-run-as-root")
        base = mpirun + [fabric_run, "examples/distributed-clos.yaml", "--partition", part,
                         "--quiet", "--out"]
        bad = subprocess.run(base + [os.path.join(work, "null"), "--mpi-sync", "null-message"],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
        expected = "--mpi-sync: ranks 0 and 2 share no cable"
        if bad.returncode == 0 or bad.stderr.count(expected) != 1:
            sys.stderr.write(bad.stdout + bad.stderr)
            raise SystemExit(f"FAIL: expected one '{expected}' error and a failure, got exit "
                             f"{bad.returncode}")
        if "error: " + "command line: " + expected not in bad.stderr:
            raise SystemExit("FAIL: the error does not name the option")
        print("ok   null-message with ranks that share no cable: one clear error")
        good = subprocess.run(base + [os.path.join(work, "granted")], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        if good.returncode != 0:
            sys.stderr.write(good.stdout + good.stderr)
            raise SystemExit(f"FAIL: the chain cut under the granted time window exited "
                             f"{good.returncode}")
        print("ok   the same cut under the granted time window runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
