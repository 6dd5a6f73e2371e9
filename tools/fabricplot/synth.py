"""A synthetic fabric-run output directory, for testing the tools without the simulator.

The data come from a small fluid model of an N-to-1 incast through one switch with PFC, so
they are mutually consistent (queues build until XOFF, senders pause one propagation delay
later, rates share the bottleneck, byte counters balance) and the plots look like the real
thing. It is not a model of the fabric: no packets, no ECN, FIFO within a priority as a fluid.
"""

import csv
import json
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

LINK_BYTES_PER_NS = 12.5  # 100 Gb/s
STEP_NS = 100
QUEUE_SAMPLE_NS = 1_000
RATE_SAMPLE_NS = 10_000
PAUSE_DELAY_NS = 1_000  # XOFF sent -> pause in force at the sender
XOFF_BYTES = 40_000  # per ingress port and priority
XON_BYTES = 20_000
PAUSE_QUANTA = 65535
MTU = 1024


@dataclass
class SynthFlow:
    """One flow of the fluid model and its progress."""
    flow_id: int
    src: int
    priority: int
    size: int
    start_ns: int
    sent: float = 0.0
    queued: float = 0.0
    delivered: float = 0.0
    finish_ns: Optional[int] = None
    delivered_at_sample: float = 0.0


@dataclass
class SynthState:
    """Model state besides the flows: pause flags and the logs that become the CSV files."""
    xoff: Dict[Tuple[int, int], bool] = field(default_factory=dict)  # switch side
    paused: Dict[Tuple[int, int], bool] = field(default_factory=dict)  # host side
    pending: List[Tuple[int, int, int, bool]] = field(default_factory=list)
    pfc_rows: List[list] = field(default_factory=list)
    queue_rows: List[list] = field(default_factory=list)
    rate_rows: List[list] = field(default_factory=list)
    seen_queues: set = field(default_factory=set)
    max_queue: Dict[Tuple[str, int, int], int] = field(default_factory=dict)


def make_flows(senders: int, flow_bytes: int, background: bool) -> List[SynthFlow]:
    """Incast flows at priority 3 staggered by 2 µs, plus one low-priority background flow
    (which strict priority starves, so the plots show two priorities and a second pause)."""
    flows = [SynthFlow(i, i, 3, flow_bytes, 2_000 * i) for i in range(senders)]
    if background:
        flows.append(SynthFlow(senders, 0, 1, flow_bytes // 4, 50_000))
    return flows


def apply_pending_pauses(state: SynthState, now: int) -> None:
    """Pauses and resumes take effect at the sender one propagation delay after being sent."""
    due = [p for p in state.pending if p[0] <= now]
    state.pending = [p for p in state.pending if p[0] > now]
    for when, src, prio, pause in due:
        state.paused[(src, prio)] = pause
        state.pfc_rows.append([when, f"h{src}", 0, prio,
                               "PAUSE_RECEIVED" if pause else "RESUME_RECEIVED",
                               PAUSE_QUANTA if pause else 0])


def inject(flows: List[SynthFlow], state: SynthState, now: int) -> None:
    """Each host link carries its active, unpaused flows at line rate, shared equally."""
    by_src: Dict[int, List[SynthFlow]] = {}
    for f in flows:
        if f.start_ns <= now and f.sent < f.size and not state.paused.get((f.src, f.priority)):
            by_src.setdefault(f.src, []).append(f)
    for active in by_src.values():
        share = LINK_BYTES_PER_NS * STEP_NS / len(active)
        for f in active:
            amount = min(share, f.size - f.sent)
            f.sent += amount
            f.queued += amount


def drain(flows: List[SynthFlow], now: int) -> None:
    """The bottleneck serves priorities strictly (higher first), flows of one priority in
    proportion to their backlog (a fluid FIFO)."""
    budget = LINK_BYTES_PER_NS * STEP_NS
    for prio in sorted({f.priority for f in flows}, reverse=True):
        backlog = [f for f in flows if f.priority == prio and f.queued > 0]
        total = sum(f.queued for f in backlog)
        if total <= 0 or budget <= 0:
            continue
        served = min(budget, total)
        for f in backlog:
            part = served * f.queued / total
            f.queued -= part
            f.delivered += part
            if f.sent >= f.size and f.queued < 1e-6 and f.finish_ns is None:
                f.queued = 0.0
                f.delivered = float(f.size)
                f.finish_ns = now + STEP_NS + PAUSE_DELAY_NS
        budget -= served


def update_pfc(flows: List[SynthFlow], state: SynthState, now: int) -> None:
    """Switch-side PFC per ingress port and priority with XOFF/XON hysteresis."""
    ingress: Dict[Tuple[int, int], float] = {}
    for f in flows:
        ingress[(f.src, f.priority)] = ingress.get((f.src, f.priority), 0.0) + f.queued
    for (src, prio), occupancy in ingress.items():
        on = state.xoff.get((src, prio), False)
        if not on and occupancy > XOFF_BYTES:
            state.xoff[(src, prio)] = True
            state.pfc_rows.append([now, "sw0", src, prio, "XOFF_SENT", PAUSE_QUANTA])
            state.pending.append((now + PAUSE_DELAY_NS, src, prio, True))
        elif on and occupancy < XON_BYTES:
            state.xoff[(src, prio)] = False
            state.pfc_rows.append([now, "sw0", src, prio, "XON_SENT", 0])
            state.pending.append((now + PAUSE_DELAY_NS, src, prio, False))


def sample_queues(flows: List[SynthFlow], state: SynthState, now: int, port: int) -> None:
    """Rows for the bottleneck's queues from the moment each first holds data."""
    for prio in sorted({f.priority for f in flows}):
        depth = int(round(sum(f.queued for f in flows if f.priority == prio)))
        key = ("sw0", port, prio)
        if depth > 0:
            state.seen_queues.add(key)
        if key in state.seen_queues:
            state.queue_rows.append([now, "sw0", port, prio, depth])
            state.max_queue[key] = max(state.max_queue.get(key, 0), depth)


def sample_rates(flows: List[SynthFlow], state: SynthState, now: int) -> None:
    """Per-flow delivered rate over the last interval, for flows active in it."""
    for f in flows:
        if f.start_ns > now or (f.finish_ns is not None and f.finish_ns < now - RATE_SAMPLE_NS):
            continue
        gbps = (f.delivered - f.delivered_at_sample) * 8 / RATE_SAMPLE_NS
        f.delivered_at_sample = f.delivered
        state.rate_rows.append([now, f.flow_id, f"h{f.src}", f"{gbps:.3f}"])


def simulate(flows: List[SynthFlow], port: int, stop_ns: Optional[int]) -> Tuple[SynthState, int]:
    """Run the fluid model to stop_ns, or until every flow finished (plus 20 µs)."""
    state = SynthState()
    now = 0
    while True:
        if stop_ns is not None and now >= stop_ns:
            break
        if stop_ns is None and all(f.finish_ns is not None for f in flows):
            if now >= max(f.finish_ns for f in flows) + 20_000:
                break
        apply_pending_pauses(state, now)
        inject(flows, state, now)
        drain(flows, now)
        update_pfc(flows, state, now)
        now += STEP_NS
        if now % QUEUE_SAMPLE_NS == 0:
            sample_queues(flows, state, now, port)
        if now % RATE_SAMPLE_NS == 0:
            sample_rates(flows, state, now)
    return state, now


def write_csv(path: str, header: List[str], rows: List[list]) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def flow_rows(flows: List[SynthFlow], receiver: int) -> List[list]:
    rows = []
    for f in flows:
        done = f.finish_ns is not None
        rows.append([f.flow_id, f"h{f.src}", f"h{receiver}", f.priority, f.size, f.start_ns,
                     f.finish_ns if done else "", f.finish_ns - f.start_ns if done else "", 0])
    return rows


def link_rows(flows: List[SynthFlow], senders: int) -> List[list]:
    sent = {i: int(sum(f.sent for f in flows if f.src == i)) for i in range(senders)}
    delivered = int(sum(int(f.delivered) for f in flows))
    rows = []
    for i in range(senders):
        rows.append([f"h{i}", 0, f"sw0:{i}", sent[i], 0])
        rows.append(["sw0", i, f"h{i}:0", 0, sent[i]])
    rows.append(["sw0", senders, f"h{senders}:0", delivered, 0])
    rows.append([f"h{senders}", 0, f"sw0:{senders}", 0, delivered])
    return rows


def summary_json(flows: List[SynthFlow], state: SynthState, end_ns: int, senders: int,
                 seed: int) -> dict:
    sent = sum(int(f.sent) for f in flows)
    delivered = sum(int(f.delivered) for f in flows)
    hops = 2 * (sent // MTU)
    maxima = sorted(({"node": n, "port": p, "priority": q, "bytes": b}
                     for (n, p, q), b in state.max_queue.items()),
                    key=lambda m: -m["bytes"])
    return {
        "scenario": f"synthetic-incast-{senders}to1", "seed": seed, "version": "synthetic",
        "sim_time_ns": end_ns, "wall_s": 0.25, "events": 3 * hops, "packet_hops": hops,
        "peak_rss_kb": 51200,
        "counters": {"sent_bytes": sent, "delivered_bytes": delivered, "dropped_bytes": 0,
                     "in_flight_bytes": sent - delivered, "headroom_violation_bytes": 0,
                     "pfc_pauses_sent": sum(1 for r in state.pfc_rows if r[4] == "XOFF_SENT")},
        "conservation_ok": True,
        "max_queue_bytes": maxima,
        "bottleneck": {"node": "sw0", "port": senders},
    }


def write_run(run_dir: str, senders: int = 8, flow_bytes: int = 1_000_000,
              stop_ns: Optional[int] = None, background: bool = True, seed: int = 1) -> dict:
    """Write all six output files into run_dir; returns the summary written."""
    os.makedirs(run_dir, exist_ok=True)
    flows = make_flows(senders, flow_bytes, background)
    state, end_ns = simulate(flows, senders, stop_ns)
    write_csv(os.path.join(run_dir, "queues.csv"), ["time_ns", "node", "port", "priority",
                                                    "bytes"], state.queue_rows)
    write_csv(os.path.join(run_dir, "pfc.csv"), ["time_ns", "node", "port", "priority", "event",
                                                 "quanta"], sorted(state.pfc_rows))
    write_csv(os.path.join(run_dir, "flows.csv"),
              ["flow_id", "src", "dst", "priority", "bytes", "start_ns", "finish_ns", "fct_ns",
               "dropped_bytes"], flow_rows(flows, senders))
    write_csv(os.path.join(run_dir, "links.csv"), ["node", "port", "peer", "tx_bytes",
                                                   "rx_bytes"], link_rows(flows, senders))
    write_csv(os.path.join(run_dir, "rates.csv"), ["time_ns", "flow_id", "src", "rate_gbps"],
              state.rate_rows)
    summary = summary_json(flows, state, end_ns, senders, seed)
    with open(os.path.join(run_dir, "summary.json"), "w") as handle:
        json.dump(summary, handle, indent=2)
    return summary


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 2:
        sys.exit("usage: synth.py RUN_DIR   (writes a synthetic 8-to-1 incast run)")
    write_run(sys.argv[1])
    print(sys.argv[1])
