#!/usr/bin/python3
"""bench/run-bench --vs-htsim without htsim: the twin's topology and connection-matrix files
against hand-written htsim inputs, and a whole comparison run with a stand-in htsim_uec that
checks its arguments and prints htsim's final counters.

    /usr/bin/python3 tests/tools/htsim_twins_test.py BUILD_DIR
"""

import json
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import htsim_twins  # noqa: E402


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)


def test_topology():
    # A 2-tier Clos of 16 leaves x 8 hosts and 8 spines, in htsim's topology-file words.
    twin = next(t for t in htsim_twins.TWINS if t.name == "perm-128")
    expected = ("Nodes 128\nTiers 2\nPodsize 128\n\n"
                "Tier 0\nOversubscribed 1\nDownlink_speed_Gbps 400\nRadix_Down 8\nRadix_Up 8\n"
                "Downlink_Latency_ns 150\nSwitch_Latency_ns 0\n\n"
                "Tier 1\nDownlink_speed_Gbps 400\nRadix_Down 16\n"
                "Downlink_Latency_ns 150\nSwitch_Latency_ns 0\nBundle 1\n")
    check(twin.topology_text() == expected, f"perm-128 topology:\n{twin.topology_text()}")


def test_matrix(tmp):
    flows = os.path.join(tmp, "flows.csv")
    with open(flows, "w") as f:
        f.write("flow_id,src,dst,bytes,start_ns\n0,h3,h0,2097152,0\n1,h7,h0,100,1500\n")
    text = htsim_twins.connection_matrix(flows, 8)
    check(text == "Nodes 8\nConnections 2\n3->0 start 0 size 2097152\n7->0 start 1.5 size 100\n",
          f"connection matrix:\n{text}")


def test_comparison(tmp, build):
    # The stand-in checks that it got a topology and a matrix of 32 incast connections.
    fake = os.path.join(tmp, "htsim_uec")
    with open(fake, "w") as f:
        f.write("#!/bin/bash\n"
                "args=\"$*\"\n"
                "tm=$(echo \"$args\" | sed -n 's/.*-tm \\([^ ]*\\).*/\\1/p')\n"
                "grep -q '^Connections 32$' \"$tm\" || { echo bad matrix; exit 3; }\n"
                "[ $(grep -c -- '->0 start' \"$tm\") = 32 ] || { echo bad pairs; exit 3; }\n"
                "echo 'New: 16384 Rtx: 0 RTS: 0 Bounced: 0 ACKs: 6000 NACKs: 0 Pulls: 0 "
                "sleek_pkts: 0'\n")
    os.chmod(fake, 0o755)
    # --twins-only: the twins alone, no results.md.
    alone = os.path.join(tmp, "twins-only")
    cmd = [os.path.join(ROOT, "bench", "run-bench"), "--build", build, "--vs-htsim", fake,
           "--only", "incast-32", "--results", alone, "--twins-only"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    check(proc.returncode == 0, f"{shlex.join(cmd)} exited {proc.returncode}:\n{proc.stderr}")
    check(os.path.exists(os.path.join(alone, "vs-htsim.json")) and
          not os.path.exists(os.path.join(alone, "results.md")), "--twins-only wrote results.md")
    # Default: the scenario and the twin in one sitting, both tables in results.md.
    results = os.path.join(tmp, "results")
    cmd = [os.path.join(ROOT, "bench", "run-bench"), "--build", build, "--vs-htsim", fake,
           "--only", "incast-32", "--results", results, "--no-baseline"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    check(proc.returncode == 0, f"{shlex.join(cmd)} exited {proc.returncode}:\n{proc.stderr}")
    with open(os.path.join(results, "results.md")) as f:
        sitting = f.read()
    check("\n| incast-32 | roce + dcqcn | 128 | 32 |" in sitting,
          f"results.md has no scenario row:\n{sitting}")
    check("## Against htsim, same sitting" in sitting and "| incast-32 | 128 | 1 |" in sitting,
          f"results.md has no htsim table:\n{sitting}")
    with open(os.path.join(results, "vs-htsim.json")) as f:
        data = json.load(f)
    (entry,) = data["twins"]
    check(entry["name"] == "incast-32" and entry["htsim"]["data_packets"] == 16384 and
          entry["htsim"]["ack_packets"] == 6000, f"entry: {entry}")
    # 32 x 2 MiB in 4 KiB frames: 16384 data frames, the same bytes as the htsim side.
    check(entry["ours"]["events"] > 0 and entry["wall_ratio"] > 0, f"entry: {entry}")
    check("| incast-32 | 128 | 1 |" in proc.stdout, f"table:\n{proc.stdout}")


def main():
    build = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        test_topology()
        test_matrix(tmp)
        test_comparison(tmp, os.path.abspath(build))
    print("ok")


if __name__ == "__main__":
    main()
