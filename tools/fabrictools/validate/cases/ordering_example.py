"""Datacenter networks, chapter 7, §7.4.3, Example 7.4 at packet level (docs/models.md#ordering).

Card 0 publishes data D: write A (20 µs) puts D into a target's memory, a recovery of 80 µs
follows, after which D is visible; notification B (2 µs) must follow A; C (10 µs) is unrelated.
The chapter: in strict order A, B, C, C starts at 102 µs and ends at 112 µs; keeping only A → B,
C ends at 10 µs and the publication chain still ends at 102 µs.

Packet level (examples/validation/ordering-example-7-4.yaml): UB, h0 on an 800 Gb/s link, the
targets h1 (A), h2 (B) and h3 (C) on 400 Gb/s links, cables D, no wire overhead, 5000 B frames
(T4 = 100 ns at 400 Gb/s, T8 = 50 ns at 800 Gb/s). A = 200 frames (20 µs on h1's link), B = 20
(2 µs on h2's), C = 100 (10 µs on h3's). A's packet 0 is lost; the retransmission timeout
(ub.rto, counted from the start of the packet's first transmission, reorder window 0 so nothing
else resends) sends it again; ub.rto = 100 µs − T4 makes D visible 80 µs after A's last frame
arrived. B goes to another target than A, so the initiator holds it until A has completed (the
fence of `after`); in the strict variant C (`after: [1]`) is held the same way behind B.

Exact times for this fabric (t = 0: A posted; a transfer of n frames alone reaches its target
after T8 + 2D + n·T4: its first frame crosses h0's link and both cables, then the target link is
busy for n frames; the ACK with the execution notice returns in R = Ta4 + Ta8 + 2D, Ta the
108 B ACK frame):

    A visible  V_A = rto + T8 + T4 + 2D        (the resent packet 0; every other frame is in)
    B visible  V_B = V_A + R + T8 + 2D + 20·T4  (launched when A's completion reaches h0)
    strict:    V_C = V_B + R + T8 + 2D + 100·T4
    only A→B:  V_C = 2·T8 + T8 + 2D + 100·T4    (C, posted one request interval after A, waits
                                                 for the two frames of A h0's port then holds:
                                                 the one on the wire and the one queued)

So the fabric adds to the chapter's figures the latency of each transfer's first frame
(T8 + 2D = 150 ns), the ACK return of each fence (R = 103.24 ns), and, because C shares h0's
link with A (h0 has one port, at twice the target links' rate), 2·T8 = 100 ns on C's start.
Each time is checked twice: against the chapter's figure (reported) and against the exact time
for this fabric (judged, to the whole ns of flows.csv executed_ns).
"""

import os

from ... import rundir
from .. import scenario
from ..core import CaseResult, Check, ValidationError
from ..units import parse_bytes, parse_rate_bps, parse_time_ps

CASE_ID = "ordering-example"
TITLE = "Chapter 7 §7.4.3, Example 7.4: order only A → B, not A, B, C"
SCENARIO = "ordering-example-7-4.yaml"
UB_OVERHEAD = 14 + 20 + 8 + 20 + 4             # UB DATA frame = payload + 66 B
UB_ACK_EXTENSION = 10
US = 1_000_000                                  # ps


def _tx(nbytes, rate_bps, wo=0):
    return -(-(nbytes + wo) * 8 * 10 ** 12 // rate_bps)


def _fabric(params, where):
    topo = scenario.require(params, "topology", where)
    default_rate = topo.get("rate", "400Gbps")
    D = parse_time_ps(topo["delay"])
    rates = {}
    for link in topo["links"]:
        if link.get("delay", topo["delay"]) != topo["delay"] or "cable" in link:
            raise ValidationError(f"{where}: every cable must have the file's delay")
        host = link["a"] if link["b"] == "sw0" else None
        if host is None:
            raise ValidationError(f"{where}: expected a star around sw0")
        rates[host] = parse_rate_bps(link.get("rate", default_rate))
    if parse_bytes(scenario.get(params, "link.wire_overhead", "24B")) != 0:
        raise ValidationError(f"{where}: the case assumes link.wire_overhead 0B")
    if parse_time_ps(scenario.get(params, "ub.reorder_window", "10us")) != 0:
        raise ValidationError(f"{where}: needs ub.reorder_window 0 (timeout-only recovery)")
    return rates, D


def predict(params, where):
    rates, D = _fabric(params, where)
    flows = scenario.require(params, "workload.flows", where)
    mtu = parse_bytes(scenario.require(params, "host.mtu", where))
    frame = mtu + UB_OVERHEAD
    src = {f["src"] for f in flows}
    if src != {"h0"} or len(flows) != 3:
        raise ValidationError(f"{where}: expected A, B, C posted by h0")
    n = []
    for f in flows:
        b = parse_bytes(f["bytes"])
        if b % mtu:
            raise ValidationError(f"{where}: every write must be whole packets")
        n.append(b // mtu)
    t_src = _tx(frame, rates["h0"])
    t_dst = {f["dst"]: _tx(frame, rates[f["dst"]]) for f in flows}
    if len(set(t_dst.values())) != 1 or t_src * 2 != next(iter(t_dst.values())):
        raise ValidationError(f"{where}: h0's link must run at twice the targets' rate")
    T8, T4 = t_src, next(iter(t_dst.values()))
    sack = int(scenario.get(params, "ub.sack_bits", "256"))
    ack = UB_OVERHEAD + UB_ACK_EXTENSION + sack // 8
    R = _tx(ack, rates["h1"]) + _tx(ack, rates["h0"]) + 2 * D
    rto = parse_time_ps(scenario.require(params, "ub.rto", where))
    interval = parse_time_ps(scenario.get(params, "ub.request_interval", "6200ps"))
    if interval >= T8:
        raise ValidationError(f"{where}: C must be posted while A's first frame is on the wire")
    lose = [{k: int(v) for k, v in l.items()} for l in scenario.require(params, "workload.lose",
                                                                          where)]
    if lose != [{"flow": 0, "packet": 0}]:
        raise ValidationError(f"{where}: A's packet 0 lost, expected")
    strict = [str(x) for x in flows[2].get("after", [])] == ["1"]
    first = T8 + 2 * D
    p = {}
    p["A_end"] = first + n[0] * T4              # A's last frame at h1 (first transmission)
    p["A"] = rto + T8 + T4 + 2 * D
    p["B"] = p["A"] + R + first + n[1] * T4
    if strict:
        p["C"] = p["B"] + R + first + n[2] * T4
    else:
        p["C"] = 2 * T8 + first + n[2] * T4
    p.update(T8=T8, T4=T4, D=D, R=R, n=n, rto=rto, strict=strict,
             recovery=p["A"] - p["A_end"])
    return p


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#ordering",
        "Write A (20 µs, then 80 µs of loss recovery), notification B (2 µs) ordered after A, "
        "unrelated transfer C (10 µs): when does each become visible if A, B, C are ordered "
        "strictly, and if only A → B is?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    case.parameters = {
        "fabric": "star: h0 at 800 Gb/s, targets h1 (A), h2 (B), h3 (C) at 400 Gb/s, 50 ns "
                  "cables, wire_overhead 0 B, infinite buffer, UB, cc none",
        "writes": "MTU 4934 B (5000 B frames: 100 ns at 400 Gb/s); A 200, B 20, C 100 frames",
        "recovery": "A's packet 0 lost; ub.reorder_window 0, ub.rto 99.9 µs (80 µs of "
                    "recovery) and 219.9 µs (200 µs)",
        "order": "B after: [A] (another target: held at the initiator until A completes); "
                 "strict variant: C after: [B]; relaxed: C order none, another Jetty",
    }
    case.formulas = [
        "V_A = rto + T8 + T4 + 2D; recovery = V_A − (T8 + 2D + 200·T4) = rto + T4 − 20 µs",
        "V_B = V_A + R + T8 + 2D + 20·T4 (R = ACK return Ta4 + Ta8 + 2D)",
        "strict: V_C = V_B + R + T8 + 2D + 100·T4; only A → B: V_C = 3·T8 + 2D + 100·T4",
        "chapter: 20 + 80 + 2 = 102 µs; C at 102 + 10 = 112 µs (strict), 10 µs (only A → B); "
        "with a recovery of 200 µs: C at 232 µs (strict), still 10 µs (only A → B)",
    ]
    case.method = ["flows.csv executed_ns: when the target executed the write (data visible)"]
    def chapter_of(strict, recovery_us):
        a = 20 + recovery_us
        return {"A": a, "B": a + 2, "C": a + 2 + 10 if strict else 10}

    names = {"A": "write A visible (D)", "B": "notification B visible",
             "C": "independent transfer C visible"}
    base = scenario.load(path)
    # The chapter's second question: a recovery of 200 µs (ub.rto 219.9 µs).
    for strict, recovery_us in ((False, 80), (True, 80), (False, 200), (True, 200)):
        sub = ("strict A, B, C" if strict else "only A → B") + \
            ("" if recovery_us == 80 else f", recovery {recovery_us} µs")
        flows = [dict(f) for f in base["workload"]["flows"]]
        overrides = {}
        if strict:
            flows[2]["after"] = [1]
            overrides["workload.flows"] = flows
        if recovery_us != 80:
            overrides["ub.rto"] = f"{recovery_us * 1000 + 19900}ns"
        label = ("strict" if strict else "a-before-b") + f"-recovery{recovery_us}us"
        run_dir, params = ctx.run(case, label, path, overrides)
        p = predict(params, sub)
        chapter = chapter_of(strict, recovery_us)
        if p["recovery"] != recovery_us * US:
            raise ValidationError(f"{sub}: ub.rto gives a recovery of {p['recovery']} ps")
        if p["strict"] != strict:
            raise ValidationError(f"{sub}: the scenario's C ordering is not the variant's")
        rows = rundir.read_rows(run_dir, "flows.csv",
                                ["bytes", "delivered_bytes", "executed_ns", "retransmitted_bytes"],
                                {"bytes": int, "delivered_bytes": int, "executed_ns": int,
                                 "retransmitted_bytes": int})
        for i, r in enumerate(rows):
            if r["delivered_bytes"] != r["bytes"]:
                raise ValidationError(f"{sub}: flow {i} did not deliver its bytes")
        mtu = parse_bytes(params["host"]["mtu"])
        case.checks.append(Check(
            sub, "bytes resent (A's packet 0 only)", "B", float(mtu),
            float(sum(r["retransmitted_bytes"] for r in rows)), "one packet", base_rel=0.0,
            method="flows.csv retransmitted_bytes"))
        for i, key in enumerate("ABC"):
            sim = rows[i]["executed_ns"] * 1e-9
            case.checks.append(Check(
                sub, f"{names[key]}, chapter", "s", chapter[key] * 1e-6, sim,
                "chapter's figure", info=True,
                method="flows.csv executed_ns",
                note=f"the fabric adds {(p[key] - chapter[key] * US) / 1000:.2f} ns "
                     "(first-frame latency T8 + 2D per transfer, ACK return R per fence"
                     + (", 2·T8 of h0's shared link" if key == "C" and not strict else "")
                     + ")"))
            case.checks.append(Check(
                sub, f"{names[key]}, this fabric", "s", p[key] * 1e-12, sim,
                {"A": "rto + T8 + T4 + 2D", "B": "V_A + R + T8 + 2D + 20·T4",
                 "C": "V_B + R + T8 + 2D + 100·T4" if strict else "3·T8 + 2D + 100·T4"}[key],
                base_rel=0.0, allowances=[("flows.csv executed_ns is whole ns", 1e-9)],
                method="flows.csv executed_ns"))
    return case
