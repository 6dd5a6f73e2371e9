"""HPCC on a 2:1 incast: the goodput it holds and the queue it keeps (docs/models.md#hpcc).

HPCC's senders size their windows so that the most loaded link's utilisation U, measured from
INT in frame bytes, settles at eta (Li et al., "HPCC: High Precision Congestion Control",
SIGCOMM 2019, §3 and Algorithm 1). U counts the bytes a port sent per second *plus* the queue
it held over T, u = min(qlen)/(B·T) + txRate/B, so the port's frames leave at

    eta·B − (queue term) + N·W_AI/T

with N·W_AI/T the additive step every sender adds per round trip. In payload that is
eta·B·payload/frame, frame = payload + 54 B headers + 44 B INT + 4 B ICRC (4198 B for 4096 B).
The case judges the goodput from both sides: at most eta·B·p/f plus the additive steps, and at
least eta·B·p/f minus the queue term of the run's own time-mean queue; and at most two frames
queued (the two senders' frames meeting at once).
"""

import os
import re
import subprocess

from .. import plotting, scenario, traces
from ..common import star_link
from ..core import FRAME_HEADERS, CaseResult, Check, ValidationError
from ..units import parse_bytes, parse_time_ps

CASE_ID = "hpcc-incast"
TITLE = "HPCC 2:1 incast: goodput eta·B·payload/frame, at most two frames queued"
SCENARIO = "hpcc-incast.yaml"
TYPE = "ns3::HpccCongestionControl"
# contrib/fabric/model/wire/int-header.h: kIntHeaderBytes = 4 B shim + 5 hops x 8 B.
INT_BYTES = 4 + 5 * 8
STEADY_AFTER_T = 15  # base RTTs after the start before the window is judged (as the unit test)


def printed_attributes(ctx):
    """HPCC's defaults as the simulator under test prints them (never the --attr sabotage)."""
    proc = subprocess.run([ctx.fabric_run, "--print-attributes"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise ValidationError(f"fabric-run --print-attributes exited {proc.returncode}")
    return dict(re.findall(r"--attr " + re.escape(TYPE) + r"::(\w+)=(\S+)", proc.stdout))


def hpcc_parameters(ctx, params, where):
    printed = printed_attributes(ctx)
    hp = scenario.get(params, "hpcc", {}) or {}
    unknown = set(hp) - {"base_rtt", "eta", "w_ai"}
    if unknown:
        raise ValidationError(f"{where}: hpcc keys the prediction does not use: {unknown}")
    try:
        eta = float(hp.get("eta", printed["Eta"]))
        T = parse_time_ps(str(scenario.require(params, "hpcc.base_rtt", where))) * 1e-12
        w_ai = parse_bytes(str(hp.get("w_ai", printed["WAi"])))
    except KeyError as e:
        raise ValidationError(f"{TYPE}::{e.args[0]} not in fabric-run --print-attributes") from e
    return eta, T, w_ai


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#hpcc",
        "Two HPCC senders into one 400 Gb/s port: does the port deliver eta·B·payload/frame "
        "with at most two frames queued?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    case.parameters = {
        "topology": "star: h1, h2 -> sw0 -> h0, 400 Gb/s, 30 m cables; PFC on (first round "
                    "trip at line rate), ECN off",
        "HPCC": "T = 2 µs; eta, W_AI (0B: B·T/2500 = 40 B) the simulator's defaults",
        "frames": "4096 B payload + 54 B headers + 44 B INT + 4 B ICRC = 4198 B counted by INT",
        "traces": "rates.csv every 10 µs (payload delivered), queues.csv every 100 ns",
        "run": "1 ms (0.2 ms with --quick); judged from 15 T after the start",
    }
    case.formulas = [
        "goodput ≤ (eta·B + N·W_AI/T)·p/f: U = eta with an empty queue, plus the additive step "
        "each of the N senders adds per round trip",
        "goodput ≥ (eta·B − q̄/T)·p/f: u also counts min(qlen)/(B·T), so a time-mean queue q̄ "
        "takes up to q̄/T of the port's rate",
        "max queue ≤ 2·f: the two senders' paced frames can meet at the port, no more",
    ]
    case.method = [
        "rates.csv: mean over the judged window of the summed per-flow rate samples (whole "
        "payloads delivered per 10 µs); queues.csv (100 ns, a missing sample time = all queues "
        "empty): time-mean and largest queue of sw0's port to h0 over the same window",
    ]
    overrides = {"stop_time": "200us"} if ctx.quick else {}
    run_dir, params = ctx.run(case, "2to1", path, overrides)
    eta, T, w_ai = hpcc_parameters(ctx, params, f"{CASE_ID}/2to1")
    panel = analyze(case, "2:1", run_dir, params, eta, T, w_ai)
    case.figures.append(plotting.series_vs_model_figure(
        ctx.out, f"{CASE_ID}.png", [panel], ylabel="goodput (Gb/s)", yscale=1e9))
    return case


def queue_mean_max(run_dir, port, t0, t1, dt):
    """Time-mean and largest queue over the sample grid (t0, t1]; absent sample times are 0."""
    by_t = {round(t / dt): q for t, q in traces.queue_series(run_dir, "sw0", port)}
    k0, k1 = round(t0 / dt) + 1, round(t1 / dt)
    if k1 < k0:
        raise ValidationError(f"{CASE_ID}: empty queue window")
    qs = [by_t.get(k, 0) for k in range(k0, k1 + 1)]
    return sum(qs) / len(qs), max(qs)


def analyze(case, sub, run_dir, params, eta, T, w_ai):
    where = f"{CASE_ID}/{sub}"
    link = star_link(params, where)
    B = link.rate_bps / 8  # bytes/s
    p = parse_bytes(scenario.get(params, "host.mtu", "4096B"))
    f = p + FRAME_HEADERS + INT_BYTES
    if w_ai == 0:
        w_ai = round(B * T / 2500)  # docs/models.md#hpcc: 0B means B·T/2500
    n = int(scenario.require(params, "workload.senders", where))
    if scenario.get(params, "switch.ecn.enabled") not in (False, "false"):
        raise ValidationError(f"{where}: the case expects ECN off")
    start = parse_time_ps(str(scenario.get(params, "workload.start", "0us"))) * 1e-12
    stop = parse_time_ps(str(scenario.require(params, "stop_time", where))) * 1e-12
    dt_rate = parse_time_ps(str(scenario.require(params, "trace.rate_interval", where))) * 1e-12
    dt_q = parse_time_ps(str(scenario.require(params, "trace.queue_interval", where))) * 1e-12
    from_t = start + STEADY_AFTER_T * T
    totals = {}
    for r in traces.rates(run_dir):
        totals[r["time_ns"]] = totals.get(r["time_ns"], 0.0) + r["rate_gbps"] * 1e9
    samples = sorted((t * 1e-9, v) for t, v in totals.items() if t * 1e-9 - dt_rate >= from_t - 1e-12)
    if len(samples) < 5:
        raise ValidationError(f"{where}: fewer than 5 rate samples after {from_t * 1e6:.0f} µs")
    t0, t1 = samples[0][0] - dt_rate, samples[-1][0]
    goodput = sum(v for _, v in samples) / len(samples)
    port = traces.port_towards(run_dir, "sw0", "h0")
    q_mean, q_max = queue_mean_max(run_dir, port, t0, t1, dt_q)
    eta_goodput = eta * B * 8 * p / f
    ai = n * w_ai / T * 8 * p / f
    # Whole payloads: each flow's delivered bytes over (t0, t1] are off by under one payload
    # from its fluid rate times the span.
    quant = n * p * 8 / (t1 - t0)
    span = f"{t0 * 1e6:.0f}–{t1 * 1e6:.0f} µs"
    case.checks.append(Check(
        sub, "goodput (upper side)", "b/s", eta_goodput + ai, goodput,
        "(eta·B + N·W_AI/T)·p/f", kind="at_most", base_rel=0.0,
        allowances=[("rate samples count whole payloads: under one per flow over the window",
                     quant)],
        method=f"rates.csv: mean of the summed flow rates, {span}"))
    case.checks.append(Check(
        sub, "goodput (lower side)", "b/s", eta_goodput, goodput,
        "eta·B·p/f − q̄/T·p/f", kind="at_least", base_rel=0.0,
        allowances=[(f"INT queue term of u: the run's time-mean queue q̄ = {q_mean:.0f} B over T",
                     q_mean / T * 8 * p / f),
                    ("rate samples count whole payloads: under one per flow over the window",
                     quant)],
        method=f"rates.csv: mean of the summed flow rates; queues.csv: time-mean queue, {span}"))
    case.checks.append(Check(
        sub, "largest queue", "B", 2 * f, q_max, "2·f (the two senders' frames at once)",
        kind="at_most", base_rel=0.0,
        method=f"queues.csv: largest sample of sw0's port to h0, {span}"))
    series = sorted((t * 1e-9, v) for t, v in totals.items())
    model = [(series[0][0], eta_goodput), (series[-1][0], eta_goodput)]
    return dict(title=f"{sub}: summed goodput vs eta·B·p/f", series=series, model=model,
                marks={"judged from": t0})
