"""Swift's held queue on an 8:1 incast (docs/models.md#swift).

A Swift bottleneck settles where the delay its senders measure equals their target (Kumar et
al., "Swift: Delay is Simple and Effective for Congestion Control in the Datacenter", SIGCOMM
2020, Algorithm 1): below it every flow grows, above it every flow cuts. A data frame's RTT is
the base RTT plus its wait behind the queue, so the queue holds (target − RTT₀) of drain time:

    Q = (target − RTT₀) · C,   target = BaseTarget + Hops·PerHopScaling (no flow scaling)

RTT₀ = 4 cable delays + 2 data-frame serialisations (sender NIC and switch port); C is the
port's drain rate in buffered bytes (frame / wire time of a frame).
"""

import os
import re
import subprocess

from .. import plotting, scenario, traces
from ..common import mtu_frame, star_link
from ..core import FRAME_HEADERS, CaseResult, Check, ValidationError
from ..units import parse_time_ps

CASE_ID = "swift-held-queue"
TITLE = "Swift 8:1 incast: held queue (target − base RTT) × C"
SCENARIO = "swift-held-queue.yaml"
TYPE = "ns3::SwiftCongestionControl"
ACK_BYTES = FRAME_HEADERS + 4  # + AETH (contrib/fabric/model/wire): an ACK without INT
STEADY_FROM_S = 200e-6  # after the line-rate start has been cut back to the target


def _time_s(text):
    text = str(text).strip()
    m = re.fullmatch(r"\+?([0-9.eE+-]+)ps", text)  # --print-attributes writes "+5e+06ps"
    return float(m.group(1)) * 1e-12 if m else parse_time_ps(text) * 1e-12


def swift_parameters(ctx, params, where):
    """Target and additive step: the scenario's `swift:` keys over the simulator's printed
    defaults (never the --attr sabotage)."""
    proc = subprocess.run([ctx.fabric_run, "--print-attributes"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise ValidationError(f"fabric-run --print-attributes exited {proc.returncode}")
    printed = dict(re.findall(r"--attr " + re.escape(TYPE) + r"::(\w+)=(\S+)", proc.stdout))
    sw = scenario.get(params, "swift", {}) or {}
    keys = {"base_target": "BaseTarget", "per_hop_scaling": "PerHopScaling", "hops": "Hops",
            "fs_range": "FsRange", "additive_increase": "AdditiveIncrease"}
    unknown = set(sw) - set(keys)
    if unknown:
        raise ValidationError(f"{where}: swift keys the prediction does not model: {unknown}")
    v = {}
    for key, attr in keys.items():
        if key in sw:
            v[key] = sw[key]
        elif attr in printed:
            v[key] = printed[attr]
        else:
            raise ValidationError(f"{TYPE}::{attr} not in fabric-run --print-attributes")
    if _time_s(v["fs_range"]) != 0:
        raise ValidationError(f"{where}: the case needs flow scaling off (swift.fs_range: 0us)")
    # Hops 0: each QP's own path, which on a star crosses its one switch.
    hops = int(v["hops"]) or 1
    target = _time_s(v["base_target"]) + hops * _time_s(v["per_hop_scaling"])
    return target, float(v["additive_increase"])


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#swift",
        "Eight Swift senders into one 400 Gb/s port: does the port hold (target − base RTT) "
        "of drain time queued?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    case.parameters = {
        "topology": "star: h1..h8 -> sw0 -> h0, 400 Gb/s, 30 m cables (150 ns), 24 B wire "
                    "overhead; PFC on (the line-rate start), ECN off",
        "Swift": "target = BaseTarget + Hops·PerHopScaling (simulator defaults), fs_range 0, "
                 "additive step 0.1 packet per RTT",
        "queue sampling": "100 ns; judged from 200 µs to the end of the 1 ms run",
    }
    case.formulas = [
        "Q = (target − RTT₀)·C with RTT₀ = 4·d + 2·T_f (T_f the wire time of a 4154 B frame) "
        "and C = F/T_f in buffered bytes per second",
    ]
    case.method = [
        "queues.csv: time-mean of sw0's port to h0 over the 100 ns grid (a sample time with no "
        "row = empty), from 200 µs to the last sample before the stop",
    ]
    run_dir, params = ctx.run(case, "8to1", path, {})
    panel = analyze(ctx, case, "8:1", run_dir, params)
    case.figures.append(plotting.series_vs_model_figure(ctx.out, f"{CASE_ID}.png", [panel]))
    return case


def analyze(ctx, case, sub, run_dir, params):
    where = f"{CASE_ID}/{sub}"
    target, ai = swift_parameters(ctx, params, where)
    link = star_link(params, where)
    _, F = mtu_frame(params)
    n = int(scenario.require(params, "workload.senders", where))
    T_f = link.tx_s(F)
    C = F / T_f
    rtt0 = 4 * link.delay_s + 2 * T_f
    q_model = (target - rtt0) * C
    dt = parse_time_ps(str(scenario.require(params, "trace.queue_interval", where))) * 1e-12
    stop = parse_time_ps(str(scenario.require(params, "stop_time", where))) * 1e-12
    port = traces.port_towards(run_dir, "sw0", "h0")
    series = traces.queue_series(run_dir, "sw0", port)
    by_k = {round(t / dt): q for t, q in series}
    k0, k1 = round(STEADY_FROM_S / dt) + 1, round(stop / dt) - 1
    if k1 - k0 < 1000:
        raise ValidationError(f"{where}: fewer than 1000 queue samples in the judged window")
    qs = [by_k.get(k, 0) for k in range(k0, k1 + 1)]
    q_mean = sum(qs) / len(qs)
    t_ack = link.tx_s(ACK_BYTES)
    case.checks.append(Check(
        sub, "time-mean queue", "B", q_model, q_mean, "(target − RTT₀)·C",
        base_rel=0.0,
        allowances=[(f"additive increase: the {n} flows add {ai:g} packet each in the round trip "
                     "before a cut lands", n * ai * F),
                    ("the ACK's serialisation on its two hops, left out of RTT₀", 2 * t_ack * C)],
        method=f"queues.csv: time-mean over {k0 * dt * 1e6:.0f}–{k1 * dt * 1e6:.0f} µs"))
    return dict(title=f"{sub}: queue vs (target − RTT₀)·C", series=series,
                model=[(0.0, q_model), (series[-1][0], q_model)], marks={"judged from": k0 * dt})
