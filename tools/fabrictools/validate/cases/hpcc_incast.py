"""HPCC's control law: a lone flow at its fixed point, and a 2:1 incast under eta (docs/models.md#hpcc).

HPCC's senders size their windows so that the most loaded link's utilisation U, measured from
INT in frame bytes, settles at eta (Li et al., "HPCC: High Precision Congestion Control",
SIGCOMM 2019, §3 and Algorithm 1; the authors' simulator alibaba-edu/High-Precision-Congestion-
Control, rdma-hw.cc:800-842). U counts the bytes a port sent per second *plus* the queue it
held over T, u = min(qlen)/(B·T) + txRate/B.

1:1 — the law itself. One flow alone, paced at W/T in frame bytes below the port's capacity,
keeps the queue empty, so U = W/(B·T). With the authors' maxStage 0 every update is
W = W_c·eta/U + W_AI, whose fixed point (W = W_c) is

    U* = eta + W_AI/(B·T),   W* = eta·B·T + W_AI

judged on their time means over the run, within the whole-ns resolution of INT timestamps
(each ACK adds Δbytes/(B·T) to U and decays it by (1 − Δt/T): single Δt shift, their sum
telescopes, leaving 2·U*·1 ns/T) and three standard errors of the sampled ripple (whole-ns
pacing and the once-per-RTT feedback move single samples by a few 1e-3). A wrong eta, W_AI,
EWMA or window rule moves them; no bound clamps them.

2:1 — two senders may not push the port past eta·B plus the additive step each adds per round
trip, N·W_AI/T; in payload (eta·B + N·W_AI/T)·p/f, frame f = payload + 54 B headers + 44 B INT +
4 B ICRC. Their paced frames meet at the port: at most two frames queued. How far below eta
the meetings hold them (the queue term of U) is reported, not judged.
"""

import math
import os
import re
import subprocess

from ... import rundir
from .. import plotting, scenario, traces
from ..common import star_link
from ..core import FRAME_HEADERS, CaseResult, Check, ValidationError
from ..units import parse_bytes, parse_time_ps

CASE_ID = "hpcc-incast"
TITLE = "HPCC: lone flow at U = eta + W_AI/(B·T); 2:1 goodput at most eta·B·p/f + N·W_AI/T"
SCENARIO = "hpcc-incast.yaml"
TYPE = "ns3::HpccCongestionControl"
# contrib/fabric/model/wire/int-header.h: kIntHeaderBytes = 4 B shim + 5 hops x 8 B.
INT_BYTES = 4 + 5 * 8
STEADY_AFTER_T = 15  # base RTTs after the start before the window is judged (as the unit test)
INT_TS_RESOLUTION_S = 1e-9  # int-header.h: egress timestamp in ns
CC_COLUMNS = ["time_ns", "flow_id", "cc", "window_bytes", "u"]


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
    if int(printed.get("MaxStage", "-1")) != 0:
        raise ValidationError(f"{where}: the lone-flow fixed point assumes maxStage 0, the "
                              f"default is {printed.get('MaxStage')}")
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
        "One HPCC sender alone on a 400 Gb/s port: do U and W settle at the fixed point of the "
        "window rule, eta + W_AI/(B·T) and eta·B·T + W_AI? Two into one: does the port stay "
        "under eta·B·payload/frame plus the additive steps, with at most two frames queued?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    case.parameters = {
        "topology": "star: h1 (, h2) -> sw0 -> h0, 400 Gb/s, 30 m cables; PFC on (first round "
                    "trip at line rate), ECN off",
        "HPCC": "T = 762 ns (the path's base RTT, as scratch/third.cc:917-919 derives it); eta, "
                "maxStage (0), W_AI (0B: B·T/2500 = 15.24 B) the simulator's defaults",
        "frames": "4096 B payload + 54 B headers + 44 B INT + 4 B ICRC = 4198 B counted by INT",
        "traces": "cc.csv and rates.csv every 10 µs, queues.csv every 100 ns",
        "run": "1 ms (0.2 ms with --quick); judged from 15 T after the start",
    }
    case.formulas = [
        "1:1: U* = eta + W_AI/(B·T), W* = eta·B·T + W_AI: the fixed point of "
        "W = W_c·eta/U + W_AI with U = W/(B·T) (empty queue)",
        "2:1: goodput ≤ (eta·B + N·W_AI/T)·p/f: U = eta with an empty queue, plus the additive "
        "step each of the N senders adds per round trip",
        "2:1: max queue ≤ 2·f: the two senders' paced frames can meet at the port, no more",
    ]
    case.method = [
        "cc.csv: U (u) and W (window_bytes) of the lone flow, mean of every sample after 15 T",
        "rates.csv: mean over the judged window of the summed per-flow rate samples (whole "
        "payloads delivered per 10 µs); queues.csv (100 ns, a missing sample time = all queues "
        "empty): time-mean and largest queue of sw0's port to h0 over the same window",
    ]
    overrides = {"stop_time": "200us"} if ctx.quick else {}
    run_dir, params = ctx.run(case, "1to1", path, dict(overrides, **{"workload.senders": 1}))
    eta, T, w_ai = hpcc_parameters(ctx, params, f"{CASE_ID}/1to1")
    analyze_lone(case, "1:1", run_dir, params, eta, T, w_ai)
    run_dir, params = ctx.run(case, "2to1", path, overrides)
    eta, T, w_ai = hpcc_parameters(ctx, params, f"{CASE_ID}/2to1")
    panel = analyze(case, "2:1", run_dir, params, eta, T, w_ai)
    case.figures.append(plotting.series_vs_model_figure(
        ctx.out, f"{CASE_ID}.png", [panel], ylabel="goodput (Gb/s)", yscale=1e9))
    return case


def print_resolution(v):
    """Half a unit of the 6th significant digit (cc.csv is written with C++ ostream defaults)."""
    return 0.0 if v == 0 else 0.5 * 10 ** (math.floor(math.log10(abs(v))) - 5)


def analyze_lone(case, sub, run_dir, params, eta, T, w_ai):
    where = f"{CASE_ID}/{sub}"
    link = star_link(params, where)
    B = link.rate_bps / 8  # bytes/s
    p = parse_bytes(scenario.get(params, "host.mtu", "4096B"))
    f = p + FRAME_HEADERS + INT_BYTES
    if w_ai == 0:
        w_ai = B * T / 2500  # docs/models.md#hpcc: 0B means B·T/2500
    u_star = eta + w_ai / (B * T)
    w_star = eta * B * T + w_ai
    if u_star * B * link.tx_s(f) >= f:
        raise ValidationError(f"{where}: W*/T would fill the port: the queue is not empty")
    start = parse_time_ps(str(scenario.get(params, "workload.start", "0us"))) * 1e-12
    from_ns = (start + STEADY_AFTER_T * T) * 1e9
    rows = rundir.read_rows(run_dir, "cc.csv", CC_COLUMNS,
                            {"time_ns": int, "flow_id": int, "window_bytes": int, "u": float})
    rows = [r for r in rows if r["flow_id"] == 0 and r["time_ns"] >= from_ns]
    if len(rows) < 10:
        raise ValidationError(f"{where}: fewer than 10 cc.csv samples of flow 0")
    if {r["cc"] for r in rows} != {"hpcc"}:
        raise ValidationError(f"{where}: cc.csv: flow 0 is not under hpcc")
    span = f"{rows[0]['time_ns'] / 1000:g}–{rows[-1]['time_ns'] / 1000:g} µs"
    ts_u = 2 * u_star * INT_TS_RESOLUTION_S / T
    ts_w = eta * B * T * 2 * INT_TS_RESOLUTION_S / T
    for metric, key, star, formula, ts, ts_name, res in (
            ("U", "u", u_star, "eta + W_AI/(B·T)", ts_u, "2·U*·1 ns/T", print_resolution(u_star)),
            ("window", "window_bytes", w_star, "eta·B·T + W_AI", ts_w, "eta·B·T·2 ns/T", 0.5)):
        values = [float(r[key]) for r in rows]
        mean, se = mean_and_error(values)
        case.checks.append(Check(
            sub, f"{metric} (time mean)", "B" if key == "window_bytes" else "", star, mean,
            formula, base_rel=0.0,
            allowances=[(f"INT timestamps in whole ns: {ts_name}", ts),
                        (f"3 standard errors of the mean of {len(values)} samples (the "
                         f"ripple of whole-ns pacing and feedback, σ = {se * len(values) ** 0.5:.3g})",
                         3 * se),
                        ("cc.csv rounding", res)],
            method=f"cc.csv {key}, mean of the samples over {span}"))


def mean_and_error(values):
    """Sample mean and its standard error."""
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


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
                     quant),
                    ("INT timestamps in whole ns: each sender's U within 2·1 ns/T of its "
                     "telescoped value", eta_goodput * 2 * INT_TS_RESOLUTION_S / T)],
        method=f"rates.csv: mean of the summed flow rates, {span}"))
    case.checks.append(Check(
        sub, "goodput (below eta)", "b/s", eta_goodput, goodput, "eta·B·p/f", info=True,
        method=f"rates.csv: mean of the summed flow rates; queues.csv: time-mean queue, {span}",
        note=f"Not judged: the senders' frames meeting at the port hold it below eta through "
             f"U's queue term min(qlen)/(B·T) (time-mean queue here {q_mean:.0f} B, "
             f"{q_mean / T * 8 * p / f / 1e9:.1f} Gb/s of goodput over T); the law is judged "
             f"on the lone flow (1:1)."))
    case.checks.append(Check(
        sub, "largest queue", "B", 2 * f, q_max, "2·f (the two senders' frames at once)",
        kind="at_most", base_rel=0.0,
        method=f"queues.csv: largest sample of sw0's port to h0, {span}"))
    series = sorted((t * 1e-9, v) for t, v in totals.items())
    model = [(series[0][0], eta_goodput), (series[-1][0], eta_goodput)]
    return dict(title=f"{sub}: summed goodput vs eta·B·p/f", series=series, model=model,
                marks={"judged from": t0})
