"""A synthetic fabric-run output directory, for testing the tools without the simulator.

The data come from a small fluid model of an N-to-1 incast through one switch with PFC, so
they are mutually consistent (queues build until XOFF, senders pause one propagation delay
later, rates share the bottleneck, byte counters balance) and the plots look like the real
thing. It is not a model of the fabric: no packets, FIFO within a priority as a fluid.

With transport="roce" the run also has what RoCE runs write: cc.csv, the flows.csv columns
retransmitted_bytes/discarded_bytes/cnps/launch_ns and the matching counters. Each flow then
gets a CNP whenever its priority's queue is above ECN_KMIN_BYTES at a CNP_INTERVAL_NS tick;
with cc="dcqcn" a DCQCN-like reaction (cut by alpha/2, alpha EWMA, additive recovery) caps its
sending rate, with cc="none" the rate stays at line rate and alpha is absent; cc="dctcp" reacts
as dcqcn and also writes today's cc.csv columns window_bytes and rtt_ns. One go-back-N
loss on flow 0 is accounted for (not simulated) so the loss counters are non-zero and balance.
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
LINE_GBPS = LINK_BYTES_PER_NS * 8
ECN_KMIN_BYTES = 30_000  # queue of a priority above which its flows get CNPs
CNP_INTERVAL_NS = 5_000
DCQCN_G = 1 / 16
DCQCN_AI_GBPS = 2.0
MIN_RATE_GBPS = 0.1
SYNTH_BASE_RTT_NS = 5000  # cc "dctcp": RTT without queueing
GBN_WINDOW = 4  # packets resent after the one lost on flow 0 (roce runs)
BACKGROUND_LAUNCH_WAIT_NS = 300  # the background flow waits for a NIC slot (roce runs)


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
    launch_wait_ns: int = 0
    rate_gbps: float = LINE_GBPS  # congestion control's allowed rate (roce runs)
    target_gbps: float = LINE_GBPS
    alpha: float = 1.0
    cnps: int = 0

    @property
    def launch_ns(self) -> int:
        return self.start_ns + self.launch_wait_ns


@dataclass
class SynthState:
    """Model state besides the flows: pause flags and the logs that become the CSV files."""
    xoff: Dict[Tuple[int, int], bool] = field(default_factory=dict)  # switch side
    paused: Dict[Tuple[int, int], bool] = field(default_factory=dict)  # host side
    pending: List[Tuple[int, int, int, bool]] = field(default_factory=list)
    pfc_rows: List[list] = field(default_factory=list)
    queue_rows: List[list] = field(default_factory=list)
    rate_rows: List[list] = field(default_factory=list)
    cc_rows: List[list] = field(default_factory=list)
    seen_queues: set = field(default_factory=set)
    max_queue: Dict[Tuple[str, int, int], int] = field(default_factory=dict)


def make_flows(senders: int, flow_bytes: int, background: bool,
               roce: bool = False) -> List[SynthFlow]:
    """Incast flows at priority 3 staggered by 2 µs, plus one low-priority background flow
    (which strict priority starves, so the plots show two priorities and a second pause)."""
    flows = [SynthFlow(i, i, 3, flow_bytes, 2_000 * i) for i in range(senders)]
    if background:
        flows.append(SynthFlow(senders, 0, 1, flow_bytes // 4, 50_000,
                               launch_wait_ns=BACKGROUND_LAUNCH_WAIT_NS if roce else 0))
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
        if f.launch_ns <= now and f.sent < f.size and not state.paused.get((f.src, f.priority)):
            by_src.setdefault(f.src, []).append(f)
    for active in by_src.values():
        share = LINK_BYTES_PER_NS * STEP_NS / len(active)
        for f in active:
            amount = min(share, f.size - f.sent, f.rate_gbps / 8 * STEP_NS)
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


def react_cc(flows: List[SynthFlow], cc: str) -> None:
    """Once per CNP interval: a flow whose priority queues above ECN_KMIN_BYTES gets a CNP;
    with DCQCN it then cuts its rate by alpha/2 and raises alpha, otherwise alpha decays and
    the rate recovers halfway towards a target that grows additively."""
    backlog: Dict[int, float] = {}
    for f in flows:
        backlog[f.priority] = backlog.get(f.priority, 0.0) + f.queued
    for f in flows:
        if f.finish_ns is not None or f.sent <= 0:
            continue
        marked = backlog[f.priority] > ECN_KMIN_BYTES and f.queued > 0
        if marked:
            f.cnps += 1
        if cc not in ("dcqcn", "dctcp"):
            continue
        if marked:
            f.target_gbps = f.rate_gbps
            f.rate_gbps = max(MIN_RATE_GBPS, f.rate_gbps * (1 - f.alpha / 2))
            f.alpha = (1 - DCQCN_G) * f.alpha + DCQCN_G
        else:
            f.alpha *= 1 - DCQCN_G
            f.target_gbps = min(LINE_GBPS, f.target_gbps + DCQCN_AI_GBPS)
            f.rate_gbps = (f.rate_gbps + f.target_gbps) / 2


def sample_cc(flows: List[SynthFlow], state: SynthState, now: int, cc: str) -> None:
    """cc.csv rows for the flows active at this sample (launched, not finished)."""
    for f in flows:
        if f.launch_ns > now or f.finish_ns is not None:
            continue
        alpha = f"{f.alpha:.4f}" if cc in ("dcqcn", "dctcp") else ""
        row = [now, f.flow_id, cc, f"{f.rate_gbps:.3f}", alpha]
        if cc == "dctcp":
            # The window algorithms' columns: RTT = base + the flow's queued bytes drained at
            # line rate; window = allowed rate x RTT.
            rtt_ns = SYNTH_BASE_RTT_NS + f.queued * 8 / LINE_GBPS
            row += [int(f.rate_gbps * rtt_ns / 8), int(rtt_ns), ""]
        state.cc_rows.append(row)


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


def simulate(flows: List[SynthFlow], port: int, stop_ns: Optional[int],
             cc: Optional[str] = None) -> Tuple[SynthState, int]:
    """Run the fluid model to stop_ns, or until every flow finished (plus 20 µs).
    cc is None for a raw-transport run, else "none" or "dcqcn"."""
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
        if cc is not None and now % CNP_INTERVAL_NS == 0:
            react_cc(flows, cc)
        if now % QUEUE_SAMPLE_NS == 0:
            sample_queues(flows, state, now, port)
        if now % RATE_SAMPLE_NS == 0:
            sample_rates(flows, state, now)
            if cc is not None:
                sample_cc(flows, state, now, cc)
    return state, now


def write_csv(path: str, header: List[str], rows: List[list]) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


FLOW_HEADER = ["flow_id", "src", "dst", "priority", "bytes", "start_ns", "finish_ns", "fct_ns",
               "dropped_bytes"]
ROCE_FLOW_HEADER = ["flow_id", "src", "dst", "priority", "bytes", "start_ns", "finish_ns",
                    "fct_ns", "sent_bytes", "delivered_bytes", "dropped_bytes", "in_flight_bytes",
                    "ecn_marked_frames", "retransmitted_bytes", "discarded_bytes", "cnps",
                    "launch_ns"]


def gbn_loss(f: SynthFlow, roce: bool) -> Tuple[int, int, int]:
    """(dropped, discarded, retransmitted) bytes of the one go-back-N loss charged to flow 0:
    one packet lost, the GBN_WINDOW after it discarded by the receiver, all of them resent."""
    if not roce or f.flow_id != 0 or f.sent < (GBN_WINDOW + 2) * MTU:
        return 0, 0, 0
    return MTU, GBN_WINDOW * MTU, (GBN_WINDOW + 1) * MTU


def flow_rows(flows: List[SynthFlow], receiver: int, roce: bool = False) -> List[list]:
    rows = []
    for f in flows:
        done = f.finish_ns is not None
        row = [f.flow_id, f"h{f.src}", f"h{receiver}", f.priority, f.size, f.start_ns,
               f.finish_ns if done else "", f.finish_ns - f.start_ns if done else ""]
        dropped, discarded, retransmitted = gbn_loss(f, roce)
        if not roce:
            rows.append(row + [dropped])
            continue
        sent, delivered = int(f.sent) + retransmitted, int(f.delivered)
        rows.append(row + [sent, delivered, dropped, sent - delivered - dropped - discarded,
                           f.cnps, retransmitted, discarded, f.cnps,
                           f.launch_ns if f.sent > 0 else ""])  # empty: never launched
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
                 seed: int, cc: Optional[str] = None) -> dict:
    """summary.json as the simulator writes it; cc None means a raw-transport run in the older
    format (no transport key, pfc_pauses_sent counter), else a RoCE run in the newer one."""
    losses = [gbn_loss(f, cc is not None) for f in flows]
    dropped = sum(loss[0] for loss in losses)
    discarded = sum(loss[1] for loss in losses)
    retransmitted = sum(loss[2] for loss in losses)
    sent = sum(int(f.sent) for f in flows) + retransmitted
    delivered = sum(int(f.delivered) for f in flows)
    hops = 2 * (sent // MTU)
    maxima = sorted(({"node": n, "port": p, "priority": q, "bytes": b}
                     for (n, p, q), b in state.max_queue.items()),
                    key=lambda m: -m["bytes"])
    summary = {
        "scenario": f"synthetic-incast-{senders}to1", "seed": seed, "version": "synthetic",
        "sim_time_ns": end_ns, "wall_s": 0.25, "events": 3 * hops, "packet_hops": hops,
        "peak_rss_kb": 51200,
        "counters": {"sent_bytes": sent, "delivered_bytes": delivered,
                     "dropped_bytes": dropped,
                     "in_flight_bytes": sent - delivered - dropped - discarded,
                     "headroom_violation_bytes": 0,
                     "pfc_pauses_sent": sum(1 for r in state.pfc_rows if r[4] == "XOFF_SENT")},
        "conservation_ok": True,
        "max_queue_bytes": maxima,
        "bottleneck": {"node": "sw0", "port": senders},
    }
    if cc is not None:
        counters = summary["counters"]
        del counters["pfc_pauses_sent"]  # the newer simulator counts frames, XON included
        counters.update({
            "retransmitted_bytes": retransmitted, "discarded_bytes": discarded,
            "ecn_marked_frames": sum(f.cnps for f in flows),
            "pfc_frames_sent": sum(1 for r in state.pfc_rows
                                   if r[4] in ("XOFF_SENT", "XON_SENT"))})
        summary["transport"] = "roce"
        summary["parameters"] = {"transport": "roce", "cc": cc}
    return summary


def write_run(run_dir: str, senders: int = 8, flow_bytes: int = 1_000_000,
              stop_ns: Optional[int] = None, background: bool = True, seed: int = 1,
              transport: str = "raw", cc: str = "none") -> dict:
    """Write all six output files into run_dir (seven with cc.csv for transport "roce");
    returns the summary written."""
    if transport not in ("raw", "roce") or cc not in ("none", "dcqcn", "dctcp"):
        raise ValueError(f"transport {transport!r} / cc {cc!r}")
    roce = transport == "roce"
    run_cc = cc if roce else None
    os.makedirs(run_dir, exist_ok=True)
    flows = make_flows(senders, flow_bytes, background, roce)
    state, end_ns = simulate(flows, senders, stop_ns, run_cc)
    write_csv(os.path.join(run_dir, "queues.csv"), ["time_ns", "node", "port", "priority",
                                                    "bytes"], state.queue_rows)
    write_csv(os.path.join(run_dir, "pfc.csv"), ["time_ns", "node", "port", "priority", "event",
                                                 "quanta"], sorted(state.pfc_rows))
    write_csv(os.path.join(run_dir, "flows.csv"), ROCE_FLOW_HEADER if roce else FLOW_HEADER,
              flow_rows(flows, senders, roce))
    write_csv(os.path.join(run_dir, "links.csv"), ["node", "port", "peer", "tx_bytes",
                                                   "rx_bytes"], link_rows(flows, senders))
    write_csv(os.path.join(run_dir, "rates.csv"), ["time_ns", "flow_id", "src", "rate_gbps"],
              state.rate_rows)
    if roce:
        # dcqcn and none keep the older five-column cc.csv, dctcp has today's eight columns.
        header = ["time_ns", "flow_id", "cc", "rate_gbps", "alpha"]
        if cc == "dctcp":
            header += ["window_bytes", "rtt_ns", "u"]
        write_csv(os.path.join(run_dir, "cc.csv"), header, state.cc_rows)
    summary = summary_json(flows, state, end_ns, senders, seed, run_cc)
    with open(os.path.join(run_dir, "summary.json"), "w") as handle:
        json.dump(summary, handle, indent=2)
    return summary


if __name__ == "__main__":
    import sys
    if len(sys.argv) not in (2, 3, 4):
        sys.exit("usage: synth.py RUN_DIR [raw|roce [none|dcqcn]]   "
                 "(writes a synthetic 8-to-1 incast run)")
    write_run(sys.argv[1], transport=sys.argv[2] if len(sys.argv) > 2 else "raw",
              cc=sys.argv[3] if len(sys.argv) > 3 else "none")
    print(sys.argv[1])
