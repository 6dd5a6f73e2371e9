"""NSCC on a Unified Bus channel: its initial window and the queue it holds (docs/models.md#nscc).

An NSCC channel opens with its largest window, one and a half bandwidth-delay products of the
fabric as the scenario states it (Ultra Ethernet Specification 1.0, transport layer, NSCC; the
uet-htsim reference, UecSrc::initNsccParams):

    W₀ = W_max = MaxWindowBdp · network_rtt · line rate      (MaxWindowBdp = 1.5)

cc.csv's first row of each flow is sampled one rate interval after the start, before the first
ACK (unloaded round trip 2.17 µs > 1 µs) can move the window (docs/models.md#ub-cc-trace), so
the row shows W₀ exactly, in whole bytes.
"""

import os
import re
import subprocess

from .. import scenario, traces
from ..common import star_link
from ..core import CaseResult, Check, ValidationError
from ..units import parse_time_ps
from ... import rundir

CASE_ID = "nscc-initial-window"
TITLE = "NSCC first window 1.5 × network_rtt × line rate"
SCENARIO = "nscc-initial-window.yaml"
TYPE = "ns3::NsccCongestionControl"
CC_COLUMNS = ["time_ns", "flow_id", "cc", "window_bytes"]
UB_FRAME_OVERHEAD = 66  # payload + 66 B: a UB data frame (docs/models.md#conventions)
# The initial windows' burst has been cut back to the target by then.
STEADY_FROM_NS = 50_000


def max_window_bdp(ctx):
    """MaxWindowBdp as the simulator under test prints it (never the --attr sabotage)."""
    proc = subprocess.run([ctx.fabric_run, "--print-attributes"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise ValidationError(f"fabric-run --print-attributes exited {proc.returncode}")
    m = re.search(r"--attr " + re.escape(TYPE) + r"::MaxWindowBdp=(\S+)", proc.stdout)
    if not m:
        raise ValidationError(f"{TYPE}::MaxWindowBdp not in fabric-run --print-attributes")
    return float(m.group(1))


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#nscc",
        "Two NSCC senders on a 400 Gb/s UB star: does each channel open with 1.5 × network_rtt "
        "× line rate?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    case.parameters = {
        "topology": "star: h1, h2 -> sw0 -> h0, 400 Gb/s, 100 m cables, transport ub",
        "NSCC": "network_rtt 2200 ns, target 2 µs; MaxWindowBdp the simulator's default (1.5)",
        "traces": "cc.csv every 1 µs",
        "run": "300 µs (also with --quick): cc.csv's first rows, then the queue",
    }
    case.formulas = [
        "W₀ = MaxWindowBdp · network_rtt · line rate (bytes/s): NSCC's W_max, its initial window",
    ]
    case.method = [
        "cc.csv: window_bytes of each flow's first row (1 µs, before the first ACK returns)",
    ]
    sub = "2to1"
    where = f"{CASE_ID}/{sub}"
    run_dir, params = ctx.run(case, sub, path, {})
    if scenario.get(params, "transport") != "ub" or scenario.get(params, "cc") != "nscc":
        raise ValidationError(f"{where}: the case expects transport ub, cc nscc")
    nscc = scenario.get(params, "nscc", {}) or {}
    unknown = set(nscc) - {"network_rtt", "target_delay"}
    if unknown:
        raise ValidationError(f"{where}: nscc keys the prediction does not model: {unknown}")
    rtt = parse_time_ps(str(scenario.require(params, "nscc.network_rtt", where))) * 1e-12
    rate_Bps = star_link(params, where).rate_bps / 8
    w0 = max_window_bdp(ctx) * rtt * rate_Bps
    rows = rundir.read_rows(run_dir, "cc.csv", CC_COLUMNS,
                            {"time_ns": int, "flow_id": int, "window_bytes": int})
    first = {}
    for r in sorted(rows, key=lambda r: r["time_ns"]):
        first.setdefault(r["flow_id"], r)
    n = int(scenario.require(params, "workload.senders", where))
    if len(first) != n:
        raise ValidationError(f"{where}: cc.csv has {len(first)} flows, expected {n}")
    for fid, r in sorted(first.items()):
        if r["cc"] != "nscc":
            raise ValidationError(f"{where}: cc.csv flow {fid} is under {r['cc']}, not nscc")
        case.checks.append(Check(
            sub, f"flow {fid} initial window", "B", w0, r["window_bytes"],
            "MaxWindowBdp · network_rtt · line rate", base_rel=0.0,
            allowances=[("cc.csv prints the window in whole bytes", 1.0)],
            method=f"cc.csv: window_bytes of flow {fid}'s first row (t = {r['time_ns']} ns)"))
    # The control law, not only its starting point: NSCC settles where the queuing delay its
    # senders measure equals the target T (uet-htsim's quadrants: below T it increases, above T
    # with marks it decreases), so the bottleneck holds T of drain time, Q = T·C, here also the
    # marking step K the scenario sets. Judged from STEADY_FROM_NS until the first flow ends.
    target = parse_time_ps(str(scenario.require(params, "nscc.target_delay", where))) * 1e-12
    link = star_link(params, where)
    frame = 4096 + UB_FRAME_OVERHEAD
    c_frames = link.rate_bps / 8 * frame / (frame + link.wo)
    q_model = target * c_frames
    dt = parse_time_ps(str(scenario.require(params, "trace.queue_interval", where))) * 1e-12
    finishes = [int(r["finish_ns"]) for r in rundir.read_rows(run_dir, "flows.csv",
                                                              ["flow_id", "finish_ns"])
                if r["finish_ns"]]
    if not finishes:
        raise ValidationError(f"{where}: no flow finished: the steady part has no end")
    t0, t1 = STEADY_FROM_NS * 1e-9, min(finishes) * 1e-9
    port = traces.port_towards(run_dir, "sw0", "h0")
    by_k = {round(t / dt): q for t, q in traces.queue_series(run_dir, "sw0", port)}
    k0, k1 = round(t0 / dt) + 1, round(t1 / dt) - 1
    if k1 - k0 < 500:
        raise ValidationError(f"{where}: fewer than 500 queue samples in the steady part")
    qs = [by_k.get(k, 0) for k in range(k0, k1 + 1)]
    case.checks.append(Check(
        sub, "time-mean queue", "B", q_model, sum(qs) / len(qs), "T·C (queuing delay = target)",
        base_rel=0.10,
        allowances=[],
        method=f"queues.csv: time-mean over {k0 * dt * 1e6:.0f}–{k1 * dt * 1e6:.0f} µs; 10 %: "
               "the queue swings about T·C between the once-per-RTT decrease and the "
               "fair and eta increases (uet-htsim's constants)"))
    case.formulas.append("Q = T·C: the queue holds the target queuing delay")
    return case
