"""Case 4 — PFC headroom: bytes that arrive after XOFF against the one-hop bound (docs/models.md#pfc-headroom)."""

import math
import os

from ... import rundir
from .. import scenario, traces
from ..common import Link, mtu_frame, wire_overhead
from ..core import PFC_FRAME_BYTES, CaseResult, Check, ValidationError
from ..units import cable_delay_s, fmt_bytes, parse_rate_bps

CASE_ID = "pfc-headroom"
TITLE = "PFC headroom: arrivals after XOFF vs the one-hop bound"
SCENARIO = "pfc-headroom.yaml"
CABLES = ["30m", "100m"]
RATES = ["400Gbps", "800Gbps"]
MTUS = ["1500B", "4096B"]


def sender_link(params, where):
    topo = scenario.require(params, "topology", where)
    links = topo.get("links") or []
    sl = [l for l in links if "h1" in (l.get("a"), l.get("b"))]
    if len(sl) != 1:
        raise ValidationError(f"{where}: expected one link of the sender h1")
    l = sl[0]
    rate = l.get("rate") or topo.get("rate") or scenario.get(params, "link.rate") or "400Gbps"
    delay = cable_delay_s(l, topo) if ("delay" in l or "cable" in l or "delay" in topo or "cable" in topo) \
        else cable_delay_s({}, scenario.get(params, "link", {}) or {})
    # Auto headroom is sized by the fastest link and the longest cable of the fabric: the
    # sender's link must be both, or the case measures something else.
    for o in links:
        if o is l:
            continue
        if parse_rate_bps(o.get("rate") or topo.get("rate")) > parse_rate_bps(rate) or \
                cable_delay_s(o, topo) > delay:
            raise ValidationError(f"{where}: the sender's link must be the fastest and longest")
    return Link(parse_rate_bps(rate), delay, wire_overhead(params))


def predict(params, where):
    link = sender_link(params, where)
    mtu, F = mtu_frame(params)
    if str(scenario.get(params, "switch.pfc.enabled", "true")) != "true":
        raise ValidationError(f"{where}: PFC must be enabled")
    tf_ps = link.tx_ps(F)
    tp_ps = link.tx_ps(PFC_FRAME_BYTES)
    d_ps = round(link.delay_s * 1e12)
    window_ps = 2 * d_ps + tp_ps
    # XOFF leaves when frame j is fully received; frame j+1 started at the sender exactly then
    # minus d. Every frame that starts before the pause reaches the sender (d + T_pause after
    # XOFF) arrives after XOFF: frames starting at m·T_f, m >= 0, m·T_f < 2d + T_pause.
    n_after = -(-window_ps // tf_ps)
    B_s = F / (tf_ps * 1e-12)
    bound = B_s * window_ps * 1e-12 + F
    # The simulator's auto headroom (scenario-config.cc OneHopHeadroomBytes), recomputed: the
    # bytes the upstream can send in W = T_frame + 2·T_pause + 2d (the pause may wait behind a
    # frame and another PFC frame on the switch's port), plus two whole frames: the last one the
    # sender started, and the pausing frame, which lands in headroom when the shared pool is full.
    frame_t = (F + link.wo) * 8.0 / link.rate_bps
    pause_t = (PFC_FRAME_BYTES + link.wo) * 8.0 / link.rate_bps
    w = frame_t + 2 * pause_t + 2 * link.delay_s
    auto = math.ceil(w * link.rate_bps / 8 - 1e-6) + 2 * F
    return dict(link=link, F=F, mtu=mtu, n_after=n_after, bytes_after=n_after * F, bound=bound,
                auto=auto, pause_latency=(tp_ps + d_ps) * 1e-12, window=window_ps * 1e-12,
                t_frame=tf_ps * 1e-12)


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#pfc-headroom",
        "How many bytes reach an ingress port after it sent XOFF — for 30 m and 100 m cables, "
        "400 and 800 Gb/s links, MTU 1500 and 4096 — against the one-hop bound (pause up the "
        "cable + data on the wire down + one frame in serialization)? Does the simulator's "
        "auto headroom lose nothing?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    case.parameters = {
        "topology": "h1 -(rate R, cable L)- sw0 -(1 Gb/s, 1 m)- h0; one raw flow h1 -> h0 at line "
                    "rate, priority 3 lossless",
        "PFC": "XOFF 16 KiB per (ingress port, priority), XON 8 KiB (never reached: the 1 Gb/s "
               "egress drains 125 B/µs and the run lasts 10 µs), pause 65535 quanta",
        "frames": "F = MTU + 58 B; wire overhead 24 B (kept, accounted exactly); PFC frame 60 B",
        "measurement run": "switch.pfc.headroom: 0B — every frame arriving after XOFF is a "
                           "headroom violation (counted in frame bytes)",
        "check run": "switch.pfc.headroom: auto",
    }
    case.formulas = [
        "frames after XOFF (exact): n = ceil((2d + T_pause) / T_f), T_f = (F + 24)·8/R, "
        "T_pause = (60 + 24)·8/R — the frames the sender starts between d before XOFF (when the "
        "XOFF-triggering frame's last bit left it) and the pause's arrival d + T_pause after XOFF",
        "one-hop bound (docs/models.md#pfc-headroom): B_s·(2d + T_pause) + F, B_s = F/T_f",
        "auto headroom (simulator, OneHopHeadroomBytes): R/8·(T_f + 2·T_pause + 2d) + 2F — "
        "also allows for the pause waiting behind one frame and one PFC frame on the switch's "
        "port, and for the pausing frame itself, which lands in headroom when the pool is full",
    ]
    case.method = [
        "bytes after XOFF: summary.json counters.headroom_violation_bytes of the 0 B-headroom run "
        "(pfc.csv must show exactly one XOFF, so this is one pause window)",
        "pause latency: pfc.csv PAUSE_RECEIVED at h1 − XOFF_SENT at sw0 (ns resolution)",
        "auto headroom: counters.dropped_bytes + headroom_violation_bytes of the auto run = 0",
    ]
    for rate in RATES:
        for cable in CABLES:
            for mtu in MTUS:
                sub = f"{rate.replace('Gbps', 'G')}, {cable}, MTU {mtu.rstrip('B')}"
                common = {"topology.rate": rate, "topology.cable": cable, "host.mtu": mtu}
                label = f"{rate}-{cable}-{mtu}"
                d0, p0 = ctx.run(case, label + "-hr0", path, dict(common, **{"switch.pfc.headroom": "0B"}))
                da, pa = ctx.run(case, label + "-auto", path, dict(common, **{"switch.pfc.headroom": "auto"}))
                analyze(case, sub, d0, p0, da, pa)
    return case


def analyze(case, sub, run0, params0, run_auto, params_auto):
    where = f"{CASE_ID}/{sub}"
    p = predict(params0, where)
    if predict(params_auto, where)["bytes_after"] != p["bytes_after"]:
        raise ValidationError(f"{where}: the two runs differ in more than the headroom")
    F = p["F"]
    port = traces.port_towards(run0, "sw0", "h1")
    ev = traces.pfc_events(run0)
    xoff = [e for e in ev if e["node"] == "sw0" and e["port"] == port and e["event"] == "XOFF_SENT"]
    recv = [e for e in ev if e["node"] == "h1" and e["event"] == "PAUSE_RECEIVED"]
    if len(xoff) != 1 or len(recv) != 1:
        raise ValidationError(f"{where}: expected exactly one XOFF and one pause at h1, got "
                              f"{len(xoff)} / {len(recv)} (the measurement needs one pause window)")
    counters = rundir.summary_field(rundir.read_summary(run0), "counters")
    viol = int(counters["headroom_violation_bytes"])
    if viol % F:
        raise ValidationError(f"{where}: headroom violations {viol} B are not whole frames of {F} B")
    case.checks.append(Check(
        sub, "bytes arriving after XOFF", "B", float(p["bytes_after"]), float(viol),
        f"ceil((2d + T_pause)/T_f)·F = {p['n_after']} frames",
        base_rel=0.0, method="headroom_violation_bytes, headroom 0 B",
        note=""))
    case.checks.append(Check(
        sub, "arrivals after XOFF within the one-hop bound", "B", p["bound"], float(viol),
        "B_s·(2d + T_pause) + F", kind="at_most", base_rel=0.0,
        method="headroom_violation_bytes, headroom 0 B"))
    lat = (recv[0]["time_ns"] - xoff[0]["time_ns"]) * 1e-9
    case.checks.append(Check(
        sub, "pause latency XOFF -> sender", "s", p["pause_latency"], lat, "T_pause + d",
        base_rel=0.0, allowances=[("pfc.csv times are whole ns (two truncations)", 2e-9)],
        method="pfc.csv"))
    ca = rundir.summary_field(rundir.read_summary(run_auto), "counters")
    lost = int(ca["dropped_bytes"]) + int(ca["headroom_violation_bytes"])
    if int(ca["pfc_frames_sent"]) < 1:
        raise ValidationError(f"{where}: the auto-headroom run never paused")
    case.checks.append(Check(
        sub, f"loss with auto headroom ({fmt_bytes(p['auto'])})", "B", 0.0, float(lost),
        "auto headroom ≥ arrivals after XOFF → 0 B lost", base_rel=0.0,
        method="dropped_bytes + headroom_violation_bytes, headroom auto"))
