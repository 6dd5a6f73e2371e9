"""The same workload in this simulator and in htsim (the Ultra Ethernet reference simulator).

`bench/run-bench --vs-htsim PATH_TO_htsim_uec` runs every twin below in both simulators,
interleaved (ours, htsim, ours, htsim, ... so that machine noise hits both alike), and reports
whole-process wall time, peak RSS and packet counts of each, and the wall-time ratio.

A twin is one scenario of bench/htsim/ and the htsim_uec command line that models the same
network and bytes:
  - topology: htsim's topology file format (Nodes, Tiers, per tier Radix_Down/Radix_Up,
    Downlink_speed_Gbps, Downlink_Latency_ns), written from the parameters below; host i sits
    under top-of-rack switch i / hosts-per-leaf in both simulators;
  - traffic: htsim's connection matrix ("Nodes N", "Connections C", "a->b start T size S"),
    written from the flows.csv of our own run, so both run the very same pairs and sizes;
  - MTU 4 KiB, 400 Gb/s, 150 ns cables, no switch latency; everything else at htsim_uec's
    defaults (NSCC, oblivious spraying over its default path count, its queue sizing).
htsim is not part of this repository: bench/README.md says how to build it and which commit
the published figures used.
"""

import csv
import os
import re
import shutil
import statistics
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

MTU_BYTES = 4096
LINK_GBPS = 400
CABLE_NS = 150


@dataclass(frozen=True)
class Tier:
    radix_down: int
    radix_up: int = 0  # 0 on the top tier


@dataclass(frozen=True)
class Twin:
    name: str
    scenario: str       # relative to the repository
    hosts: int
    tiers: Sequence[Tier]
    podsize: int
    end_us: int         # htsim's -end: the scenario's stop_time

    def topology_text(self) -> str:
        lines = [f"Nodes {self.hosts}", f"Tiers {len(self.tiers)}", f"Podsize {self.podsize}", ""]
        for i, tier in enumerate(self.tiers):
            lines.append(f"Tier {i}")
            if tier.radix_up:
                lines.append("Oversubscribed 1")
            lines += [f"Downlink_speed_Gbps {LINK_GBPS}", f"Radix_Down {tier.radix_down}"]
            if tier.radix_up:
                lines.append(f"Radix_Up {tier.radix_up}")
            lines += [f"Downlink_Latency_ns {CABLE_NS}", "Switch_Latency_ns 0"]
            if i > 0:
                lines.append("Bundle 1")
            lines.append("")
        return "\n".join(lines)


TWINS = (
    # 2-tier Clos, 16 leaves x 8 hosts, 8 spines (bench/htsim/perm-128.yaml: clos2 k = 16).
    Twin("perm-128", "bench/htsim/perm-128.yaml", 128, (Tier(8, 8), Tier(16)), 128, 50000),
    Twin("incast-32", "bench/htsim/incast-32.yaml", 128, (Tier(8, 8), Tier(16)), 128, 50000),
    # 3-tier k = 16 fat tree: 128 edge switches x 8 hosts, pods of 64 hosts, 64 cores.
    Twin("perm-1024", "bench/htsim/perm-1024.yaml", 1024, (Tier(8, 8), Tier(8, 8), Tier(16)),
         64, 50000),
)

_HOST = re.compile(r"^h(\d+)$")
_COUNTS = re.compile(r"^New: (\d+) Rtx: (\d+) RTS: (\d+) Bounced: (\d+) ACKs: (\d+) "
                     r"NACKs: (\d+) Pulls: (\d+)")


def connection_matrix(flows_csv: str, hosts: int) -> str:
    """htsim's connection matrix for the flows of one of our runs (start in microseconds)."""
    rows = []
    with open(flows_csv, newline="") as f:
        for row in csv.DictReader(f):
            src, dst = _HOST.match(row["src"]), _HOST.match(row["dst"])
            if not src or not dst:
                raise ValueError(f"{flows_csv}: flow {row['flow_id']} is not host to host")
            start_us = int(row["start_ns"]) / 1000.0
            rows.append(f"{src.group(1)}->{dst.group(1)} start {start_us:g} size {row['bytes']}")
    return "\n".join([f"Nodes {hosts}", f"Connections {len(rows)}"] + rows) + "\n"


def htsim_argv(binary: str, twin: Twin, topo: str, matrix: str) -> List[str]:
    return [binary, "-nodes", str(twin.hosts), "-topo", topo, "-tm", matrix,
            "-mtu", str(MTU_BYTES), "-linkspeed", str(LINK_GBPS * 1000),
            "-end", str(twin.end_us), "-seed", "1"]


def htsim_counts(stdout_path: str) -> Dict[str, int]:
    """Packet counts htsim_uec prints at the end of a run."""
    with open(stdout_path, errors="replace") as f:
        for line in f:
            m = _COUNTS.match(line.strip())
            if m:
                new, rtx, _, _, acks, nacks, _ = (int(g) for g in m.groups())
                return {"data_packets": new + rtx, "retransmitted": rtx,
                        "ack_packets": acks + nacks}
    raise RuntimeError(f"{stdout_path}: no 'New: ... ACKs: ...' line (did htsim_uec finish?)")


def run_twins(our_binary: str, htsim_binary: str, repeat: int, timeout_s: float,
              repo_dir: str, run_once: Callable, spawn_and_wait: Callable,
              only: Sequence[str] = ()) -> List[dict]:
    """Every twin (or those in `only`) in both simulators, `repeat` interleaved pairs each."""
    entries = []
    for twin in TWINS:
        if only and twin.name not in only:
            continue
        work = tempfile.mkdtemp(prefix=f"fabric-vs-htsim-{twin.name}-")
        try:
            scenario = os.path.join(repo_dir, twin.scenario)
            first = run_once(our_binary, scenario, [], timeout_s, True)
            topo = os.path.join(work, "topology.topo")
            matrix = os.path.join(work, "flows.cm")
            with open(topo, "w") as f:
                f.write(twin.topology_text())
            with open(matrix, "w") as f:
                f.write(connection_matrix(os.path.join(first["output_dir"], "out", "flows.csv"),
                                          twin.hosts))
            shutil.rmtree(first["output_dir"], ignore_errors=True)
            ours, theirs = [], []
            for i in range(repeat):
                print(f"run-bench: {twin.name} pair {i + 1}/{repeat} ...", flush=True)
                ours.append(run_once(our_binary, scenario, [], timeout_s, False))
                log_dir = os.path.join(work, f"htsim-{i}")
                os.mkdir(log_dir)
                child = spawn_and_wait(htsim_argv(htsim_binary, twin, topo, matrix), log_dir,
                                       log_dir, timeout_s)
                if child["timed_out"] or child["exit_code"] != 0:
                    raise RuntimeError(f"htsim_uec on {twin.name} failed (exit "
                                       f"{child['exit_code']}); its output is in {log_dir}")
                child.update(htsim_counts(child["stdout"]))
                theirs.append(child)
            entries.append(_entry(twin, ours, theirs))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return entries


def _median(runs: List[dict], key: str) -> Optional[float]:
    values = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
    return statistics.median(values) if values else None


def _entry(twin: Twin, ours: List[dict], theirs: List[dict]) -> dict:
    summary = ours[0]["summary"]
    our_wall, their_wall = _median(ours, "wall_s"), _median(theirs, "wall_s")
    return {
        "name": twin.name, "scenario": twin.scenario, "hosts": twin.hosts,
        "pairs": len(ours),
        "ours": {"wall_s": our_wall, "peak_rss_kb": _median(ours, "peak_rss_kb"),
                 "events": summary.get("events"), "packet_hops": summary.get("packet_hops"),
                 "last_finish_ns": summary.get("last_finish_ns"),
                 "sim_time_ns": summary.get("sim_time_ns")},
        "htsim": {"wall_s": their_wall, "peak_rss_kb": _median(theirs, "peak_rss_kb"),
                  "data_packets": theirs[0]["data_packets"],
                  "retransmitted": theirs[0]["retransmitted"],
                  "ack_packets": theirs[0]["ack_packets"]},
        "wall_ratio": our_wall / their_wall if our_wall and their_wall else None,
    }


def markdown(entries: List[dict], machine: str) -> str:
    lines = [f"Machine: {machine}", "",
             "| twin | hosts | pairs | ours wall (s) | htsim wall (s) | ours / htsim | "
             "ours RSS (MB) | htsim RSS (MB) | ours events | ours packet-hops | "
             "htsim data pkts | htsim ACKs |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for e in entries:
        o, h = e["ours"], e["htsim"]
        lines.append(
            f"| {e['name']} | {e['hosts']} | {e['pairs']} | {o['wall_s']:.3f} | "
            f"{h['wall_s']:.3f} | {e['wall_ratio']:.2f}x | {o['peak_rss_kb'] / 1024:.0f} | "
            f"{h['peak_rss_kb'] / 1024:.0f} | {o['events']} | {o['packet_hops']} | "
            f"{h['data_packets']} | {h['ack_packets']} |")
    return "\n".join(lines) + "\n"
