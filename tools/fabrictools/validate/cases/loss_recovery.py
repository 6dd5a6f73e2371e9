"""Case 6 — loss recovery: packet 0 lost, resent R = 20 / 40 µs later (docs/models.md#loss-recovery)."""

import math
import os

from ... import rundir
from .. import plotting, scenario, tandem, traces
from ..core import FRAME_HEADERS, CaseResult, Check, ValidationError
from ..units import parse_bytes, parse_rate_bps, parse_time_ps

CASE_ID = "loss-recovery"
TITLE = "Loss recovery: selective repeat vs go-back-N after losing packet 0"
UB_SCENARIO = "loss-recovery.yaml"
ROCE_SCENARIO = "loss-recovery-roce.yaml"
UB_OVERHEAD = 14 + 20 + 8 + 20 + 4             # UB DATA frame = payload + 66 B
UB_ACK_EXTENSION = 10
ROCE_ACK_FRAME = 14 + 20 + 8 + 12 + 4 + 4      # Eth, IPv4, UDP, BTH, AETH, ICRC
ROCE_RETH = 16                                  # RDMA WRITE_FIRST / WRITE_ONLY extension
RESEND_US = [20, 40]
MESSAGES = ["32KiB", "4MiB"]
UB_DELAY = "1us"                                # per cable: RTT ~4.2 µs, well below the RTO


def _tx(nbytes, rate_bps, wo):
    return -(-(nbytes + wo) * 8 * 10 ** 12 // rate_bps)


def _star(params, where):
    topo = scenario.require(params, "topology", where)
    if not isinstance(topo, dict) or topo.get("generator") != "star" or int(topo["hosts"]) != 2:
        raise ValidationError(f"{where}: expected an inline 2-host star")
    rate = parse_rate_bps(topo.get("rate", "400Gbps"))
    D = parse_time_ps(topo["delay"])
    wo = parse_bytes(scenario.get(params, "link.wire_overhead", "24B"))
    return rate, D, wo


def _message(params, where):
    mtu = parse_bytes(scenario.require(params, "host.mtu", where))
    flows = scenario.require(params, "workload.flows", where)
    lose = scenario.require(params, "workload.lose", where)
    if len(flows) != 1 or [{k: int(v) for k, v in l.items()} for l in lose] != \
            [{"flow": 0, "packet": 0}]:
        raise ValidationError(f"{where}: one flow, packet 0 lost, expected")
    nbytes = parse_bytes(flows[0]["bytes"])
    if nbytes % mtu:
        raise ValidationError(f"{where}: the message must be whole packets")
    return mtu, nbytes // mtu


def predict_ub(params, where):
    """Selective repeat, timeout only. Times in ps from the start of packet 0's transmission.

    Every frame has the same size and every link the same rate, so nothing queues at the switch:
    frame j started at s_j reaches h1 at s_j + 2T + 2D. The RTO expires at rto (counted from
    the start of packet 0); the resend starts then, or at the end of the frame on the wire if
    the sender is still sending (frames start at multiples of T): t_r = ceil(rto/T)·T if
    rto < N·T, else rto. Frames 1 .. n_r−1 (n_r = frames started before t_r) reach h1 before
    the resend and wait in the reorder buffer."""
    rate, D, wo = _star(params, where)
    mtu, N = _message(params, where)
    if parse_time_ps(scenario.get(params, "ub.reorder_window", "10us")) != 0:
        raise ValidationError(f"{where}: needs ub.reorder_window 0 (timeout-only recovery)")
    rto = parse_time_ps(scenario.require(params, "ub.rto", where))
    T = _tx(mtu + UB_OVERHEAD, rate, wo)
    sack = int(scenario.get(params, "ub.sack_bits", "256"))
    Ta = _tx(UB_OVERHEAD + UB_ACK_EXTENSION + sack // 8, rate, wo)
    rtt = 2 * T + 2 * D + 2 * Ta + 2 * D
    if rto <= rtt + T:
        raise ValidationError(f"{where}: RTO {rto} ps ≤ RTT {rtt} ps: every packet would time out")
    if N - 1 > sack:
        raise ValidationError(f"{where}: the SACK bitmap ({sack} bits) must cover the message")
    if rto < N * T:
        if rto % T == 0:
            raise ValidationError(f"{where}: the RTO falls on a frame boundary (order ambiguous)")
        n_r = -(-rto // T)
        t_r = n_r * T
    else:
        n_r, t_r = N, rto
    a_r = t_r + 2 * T + 2 * D
    held = [((j + 2) * T + 2 * D, j, j * mtu) for j in range(1, n_r)] + [(a_r, 0, 0)]
    # In order once the resend is in and, if the sender was still busy, after the last of the
    # N + 1 frames it sends back to back.
    t_rx = max(a_r, (N + 1) * T + T + 2 * D) if t_r < N * T else a_r
    return dict(T=T, D=D, N=N, mtu=mtu, rto=rto, t_r=t_r, resend_after=t_r - T, n_r=n_r,
                peak_p=n_r - 1, peak_b=(n_r - 1) * mtu, a_r=a_r, t_rx=t_rx,
                ack_return=2 * Ta + 2 * D, series=held, resent=mtu, ack=Ta, sack=sack)


def predict_gbn(params, where):
    """Go-back-N, NAK-driven (commodity RoCE RC). Packet 1 reaches h1 at a_1 (≈ 3T + 2D); the
    NAK it triggers is back at t_nak = a_1 + 2·T_nak + 2D. The sender finishes the frame on the
    wire and goes back to packet 0: every packet whose transmission started before t_nak is sent
    again, k = ceil(t_nak/T) of them (≈ B·t_nak/F: the bandwidth-delay product of the detection
    time), or all N if the message was out before the NAK came back.

    Exact timing by the tandem-FIFO model (h0 -> sw0 -> h1): a WRITE's first packet carries
    the 16 B RETH (WRITE_FIRST), so frame 0 is 16 B longer than the others."""
    rate, D, wo = _star(params, where)
    mtu, N = _message(params, where)
    if str(scenario.get(params, "roce.recovery", "gbn")) != "gbn":
        raise ValidationError(f"{where}: needs roce.recovery gbn")
    sizes = [mtu + FRAME_HEADERS + (ROCE_RETH if j == 0 else 0) for j in range(N)]
    T = _tx(mtu + FRAME_HEADERS, rate, wo)
    Tn = _tx(ROCE_ACK_FRAME, rate, wo)

    def links():
        return [tandem.TLink("h0->sw0", rate, D, wo), tandem.TLink("sw0->h1", rate, D, wo)]

    route = links()
    first = tandem.run([dict(release=0, bytes=b, route=route) for b in sizes])
    t_nak = first[1]["arrive"] + 2 * Tn + 2 * D
    starts = [f["starts"][0][1] for f in first]
    ends = [st + _tx(b, rate, wo) for st, b in zip(starts, sizes)]
    rto_low = parse_time_ps(scenario.get(params, "roce.rto_low", "100us"))
    if rto_low <= t_nak:
        raise ValidationError(f"{where}: the RTO would fire before the NAK is back")
    if t_nak in starts or t_nak in ends:
        raise ValidationError(f"{where}: the NAK arrives on a frame boundary (order ambiguous)")
    k = sum(1 for st in starts if st < t_nak)
    g = max(t_nak, ends[k - 1])
    route = links()
    frames = [dict(release=0, bytes=sizes[j], route=route) for j in range(k)] + \
             [dict(release=g, bytes=sizes[j], route=route) for j in range(N)]
    res = tandem.run(frames)
    t_rx = max(r["arrive"] for r in res[k:])
    return dict(T=T, D=D, N=N, mtu=mtu, t_nak=t_nak, resend_after=g - ends[0], k=k,
                resent=k * mtu, t_rx=t_rx, ack_return=2 * Tn + 2 * D,
                h0_bytes=sum(sizes[:k]) + sum(sizes))


def _flow(run_dir, where):
    rows = rundir.read_rows(run_dir, "flows.csv",
                           ["bytes", "finish_ns", "delivered_bytes", "retransmitted_bytes"],
                           {"bytes": int, "finish_ns": int, "delivered_bytes": int,
                            "retransmitted_bytes": int})
    f = rows[0]
    if f["delivered_bytes"] != f["bytes"] or f["finish_ns"] < 0:
        raise ValidationError(f"{where}: the flow did not finish")
    return f


def _ack_bytes_check(run_dir, frame, where):
    for l in traces.links(run_dir):
        if l["node"] == "h1" and l["tx_bytes"] != l["tx_frames"] * frame:
            raise ValidationError(f"{where}: h1's frames are not all {frame} B ACKs")


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#loss-recovery",
        "Packet 0 of a message is lost and resent R = 20 or 40 µs after its first transmission "
        "ended: when is the message delivered in order, how many bytes wait in the reorder "
        "buffer meanwhile, and how many bytes are sent again by selective repeat (UB) and by "
        "go-back-N (RoCE RC)?")
    ub_path = ctx.scenario_path(UB_SCENARIO)
    roce_path = ctx.scenario_path(ROCE_SCENARIO)
    case.scenario = ", ".join(os.path.relpath(p, ctx.root) for p in (ub_path, roce_path))
    case.parameters = {
        "path": "h0 -> sw0 -> h1, 400 Gb/s, wire_overhead 0 B, infinite buffer, MTU 4096 B; "
                "UB frames 4162 B, RoCE 4154 B",
        "messages": "32 KiB (8 packets: all sent before the loss is noticed) and 4 MiB "
                    "(1024 packets: the sender is still busy when it resends)",
        "UB (selective repeat)": f"cable delay {UB_DELAY}; ub.reorder_window 0 (timeout only); "
                                 "ub.rto = R + one frame time (the RTO counts from the start of "
                                 "packet 0's transmission); SACK bitmap 1024 bits; cc none",
        "RoCE (go-back-N)": "NAK-driven: cable delay D = R/4 so that the NAK triggered by "
                            "packet 1 is back ~R after packet 0 ended; RTOs 100/320 µs never fire",
    }
    case.formulas = [
        "T = frame·8/rate; UB resend start t_r = ceil(rto/T)·T while the sender is busy (else "
        "rto); resend delay after the first transmission ended = t_r − T",
        "UB reorder peak = frames started before the resend − 1 = ceil(rto/T) − 1 packets "
        "(× MTU bytes), held from their arrival ((j+2)T + 2D) until the resend's (t_r + 2T + 2D)",
        "UB in-order delivery = max(t_r + 2T + 2D, (N+1)·T + T + 2D) (N + 1 frames back to back)",
        "selective repeat resends exactly the lost packet: MTU bytes",
        "go-back-N (NAK-driven): t_nak = a_1 + 2·T_nak + 2D ≈ 3T + 4D + 2·T_nak; resent = "
        "min(N, ceil(t_nak/T)) packets ≈ B·t_nak / F (what was sent from the gap until the loss "
        "was known); delivery = go-back start + N frames, exact tandem-FIFO timing (packet 0 "
        "carries a 16 B RETH)",
        "sender completion (flows.csv) = delivery + ACK return (2·T_ack + 2D)",
    ]
    case.method = [
        "delivery: flows.csv finish_ns minus the ACK return (ACK frame size checked against "
        "h1's links.csv bytes/frames)",
        "reorder: summary.json ub.reorder_peak_*; reorder.csv: the time the buffer empties",
        "bytes resent: flows.csv retransmitted_bytes",
    ]
    subs = [(r, m) for r in RESEND_US for m in MESSAGES]
    if ctx.quick:
        subs = [(20, "32KiB"), (40, "4MiB")]
    panels = []
    for R, msg in subs:
        # UB, selective repeat.
        base = scenario.load(ub_path)
        rate, _, wo = _star(scenario.with_overrides(base, {"topology.delay": UB_DELAY}), CASE_ID)
        T = _tx(4096 + UB_OVERHEAD, rate, wo)
        sub = f"UB selective, R = {R} µs, {msg}"
        run_dir, params = ctx.run(case, f"ub-R{R}us-{msg}", ub_path, {
            "topology.delay": UB_DELAY, "ub.rto": f"{R * 10 ** 6 + T}ps",
            "workload.flows": [{"src": "h0", "dst": "h1", "bytes": msg}]})
        p = predict_ub(params, sub)
        f = _flow(run_dir, sub)
        _ack_bytes_check(run_dir, UB_OVERHEAD + UB_ACK_EXTENSION + p["sack"] // 8, sub)
        ubs = rundir.summary_field(rundir.read_summary(run_dir), "ub")
        rows = rundir.read_rows(run_dir, "reorder.csv", ["time_ns", "flow_id", "packets", "bytes"],
                               {"time_ns": int, "flow_id": int, "packets": int, "bytes": int})
        case.checks.append(Check(
            sub, "in-order delivery of the message", "s", p["t_rx"] * 1e-12,
            (f["finish_ns"] * 1000 - p["ack_return"]) * 1e-12,
            "max(t_r + 2T + 2D, (N+1)T + T + 2D)",
            base_rel=0.0, allowances=[("flows.csv finish_ns is whole ns", 1e-9)],
            method="flows.csv finish_ns − ACK return",
            note=f"resend starts {p['resend_after'] * 1e-6:.4f} µs after packet 0's first "
                 f"transmission ended (R = {R} µs, rounded up to the end of the frame on the wire)"))
        case.checks.append(Check(
            sub, "peak reorder buffer (bytes)", "B", float(p["peak_b"]),
            float(ubs["reorder_peak_bytes_per_nic"]), "(ceil(rto/T) − 1)·MTU",
            base_rel=0.0, method="summary.json ub.reorder_peak_bytes_per_nic",
            note=f"{p['peak_p']} packets; simulated {ubs['reorder_peak_packets_per_nic']}"))
        if max(r["bytes"] for r in rows) != ubs["reorder_peak_bytes_per_nic"]:
            raise ValidationError(f"{sub}: reorder.csv peak differs from summary.json")
        t_empty = next(r["time_ns"] for r in rows if r["bytes"] == 0 and r["time_ns"] > 0)
        case.checks.append(Check(
            sub, "reorder buffer empties (resend arrives)", "s", p["a_r"] * 1e-12,
            t_empty * 1e-9, "t_r + 2T + 2D",
            base_rel=0.0, allowances=[("reorder.csv time_ns is whole ns", 1e-9)],
            method="reorder.csv: first row back at 0 bytes"))
        case.checks.append(Check(
            sub, "bytes resent", "B", float(p["resent"]), float(f["retransmitted_bytes"]),
            "selective repeat: the lost packet only (MTU)", base_rel=0.0,
            method="flows.csv retransmitted_bytes"))
        sim_series = [(0.0, 0)] + [(r["time_ns"] * 1e-9, r["bytes"]) for r in rows]
        model = [(0.0, 0)]
        for t, j, b in p["series"]:
            model += [(t * 1e-12, model[-1][1]), (t * 1e-12, b)]
        steps = []
        for i, (t, q) in enumerate(sim_series):
            if i:
                steps.append((t, sim_series[i - 1][1]))
            steps.append((t, q))
        panels.append(dict(title=sub, series=steps, model=model,
                           marks={"resend": p["t_r"] * 1e-12}))

        # RoCE, go-back-N, NAK-driven.
        sub = f"RoCE go-back-N, R ≈ {R} µs, {msg}"
        D = f"{R * 1000 // 4}ns"
        run_dir, params = ctx.run(case, f"roce-R{R}us-{msg}", roce_path, {
            "topology.delay": D, "workload.flows": [{"src": "h0", "dst": "h1", "bytes": msg}]})
        q = predict_gbn(params, sub)
        f = _flow(run_dir, sub)
        _ack_bytes_check(run_dir, ROCE_ACK_FRAME, sub)
        h0 = [l for l in traces.links(run_dir) if l["node"] == "h0"]
        if len(h0) != 1:
            raise ValidationError(f"{sub}: expected one link at h0, links.csv has {len(h0)}")
        # Judged, not asserted: the frames h0 sends (first pass + go-back) are what the timing
        # model counts, so a wrong count is a MISS of the model rather than a broken validation.
        case.checks.append(Check(
            sub, "bytes sent by h0 (all frames)", "B", float(q["h0_bytes"]),
            float(h0[0]["tx_bytes"]), "(N + resent packets) frames of payload + 58 B, + 16 B RETH "
            "on packet 0", base_rel=0.0, method="links.csv tx_bytes of h0"))
        case.checks.append(Check(
            sub, "bytes resent", "B", float(q["resent"]), float(f["retransmitted_bytes"]),
            "min(N, ceil(t_nak/T))·MTU, t_nak = a_1 + 2T_nak + 2D",
            base_rel=0.0, method="flows.csv retransmitted_bytes",
            note=f"{q['k']} of {q['N']} packets; the go-back starts "
                 f"{q['resend_after'] * 1e-6:.4f} µs after packet 0's first transmission ended; "
                 f"B·t_nak/F = {q['t_nak'] / q['T']:.2f} packets"))
        case.checks.append(Check(
            sub, "in-order delivery of the message", "s", q["t_rx"] * 1e-12,
            (f["finish_ns"] * 1000 - q["ack_return"]) * 1e-12,
            "go-back start ceil(t_nak/T)·T, then N frames: exact tandem-FIFO timing",
            base_rel=0.0, allowances=[("flows.csv finish_ns is whole ns", 1e-9)],
            method="flows.csv finish_ns − ACK return"))
    case.figures.append(plotting.series_vs_model_figure(
        ctx.out, f"{CASE_ID}.png", panels, ylabel="reorder buffer (KiB)"))
    return case
