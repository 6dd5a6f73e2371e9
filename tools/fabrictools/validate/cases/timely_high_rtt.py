"""TIMELY's high-RTT cut, completion by completion (docs/models.md#timely).

Above T_high TIMELY cuts multiplicatively, whatever the gradient (Mittal et al., "TIMELY:
RTT-based Congestion Control for the Datacenter", SIGCOMM 2015, Algorithm 1):

    R ← R · f,   f = 1 − β·(1 − T_high/r)

With T_high below the unloaded round trip and one flow paced below line rate (no queue), every
RTT sample is r₀ = 4 cable delays + 2 data-frame and 2 ACK serialisations, so every completion
after the first multiplies the rate by the same f. cc.csv samples the rate every 1 µs, between
which 0, 1 or more completions fall: each sample is the previous one times f^m, m a whole
number. A wrong β or a wrong T_high/r in the cut leaves m fractional.
"""

import math
import os
import re
import subprocess

from ... import rundir
from .. import scenario
from ..common import star_link
from ..core import FRAME_HEADERS, CaseResult, Check, ValidationError
from ..units import parse_bytes, parse_time_ps

CASE_ID = "timely-high-rtt"
TITLE = "TIMELY above T_high: R ← R·(1 − β(1 − T_high/r)) per completion"
SCENARIO = "timely-high-rtt.yaml"
TYPE = "ns3::TimelyCongestionControl"
ACK_BYTES = FRAME_HEADERS + 4  # + AETH (contrib/fabric/model/wire): an ACK without INT
CC_COLUMNS = ["time_ns", "flow_id", "cc", "rate_gbps", "rtt_ns"]
# The first completions fall in the line-rate start, whose RTT samples the case does not model
# (not all r₀); from this time on every sample is judged.
JUDGED_FROM_NS = 3000


def print_resolution(v):
    """Half a unit of the 6th significant digit (cc.csv is written with C++ ostream defaults)."""
    return 0.0 if v == 0 else 0.5 * 10 ** (math.floor(math.log10(abs(v))) - 5)


def timely_parameters(ctx, params, where):
    """β and T_high: the scenario's `timely:` keys over the simulator's printed defaults."""
    proc = subprocess.run([ctx.fabric_run, "--print-attributes"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise ValidationError(f"fabric-run --print-attributes exited {proc.returncode}")
    printed = dict(re.findall(r"--attr " + re.escape(TYPE) + r"::(\w+)=(\S+)", proc.stdout))
    tm = scenario.get(params, "timely", {}) or {}
    unknown = set(tm) - {"t_low", "t_high"}
    if unknown:
        raise ValidationError(f"{where}: timely keys the prediction does not model: {unknown}")
    if "Beta" not in printed:
        raise ValidationError(f"{TYPE}::Beta not in fabric-run --print-attributes")
    t_high = parse_time_ps(str(scenario.require(params, "timely.t_high", where))) * 1e-12
    t_low = parse_time_ps(str(scenario.require(params, "timely.t_low", where))) * 1e-12
    return float(printed["Beta"]), t_low, t_high


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#timely",
        "One TIMELY flow whose every RTT is above T_high: does each 1 µs sample of its rate "
        "equal the previous one cut by (1 − β(1 − T_high/r₀)) a whole number of times?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    sub = "flow0"
    where = f"{CASE_ID}/{sub}"
    run_dir, params = ctx.run(case, sub, path, {})
    beta, t_low, t_high = timely_parameters(ctx, params, where)
    link = star_link(params, where)
    mtu = parse_bytes(scenario.get(params, "host.mtu", "4096B"))
    r0 = 4 * link.delay_s + 2 * link.tx_s(mtu + FRAME_HEADERS) + 2 * link.tx_s(ACK_BYTES)
    if not t_low < r0 or not t_high < r0:
        raise ValidationError(f"{where}: the case needs T_low, T_high < r₀ = {r0 * 1e9:.2f} ns")
    f = 1 - beta * (1 - t_high / r0)
    case.parameters = {
        "topology": "star: h1 -> sw0 -> h0, 400 Gb/s, 30 m cables, 24 B wire overhead; PFC and "
                    "ECN off",
        "TIMELY": f"T_high {t_high * 1e9:g} ns, T_low {t_low * 1e9:g} ns; β = {beta:g} and the "
                  "rest the simulator's defaults",
        "r₀": f"{r0 * 1e9:.2f} ns, so f = {f:.6f}",
        "traces": "cc.csv and rates.csv every 1 µs, 60 µs run (also with --quick)",
    }
    case.formulas = [
        "r₀ = 4·d + 2·T_f + 2·T_ack: the unloaded round trip of a paced flow",
        "f = 1 − β·(1 − T_high/r₀): the high-RTT cut of every completion after the first",
        "R(t + 1 µs) = R(t)·f^m, m = round(ln(R(t + 1 µs)/R(t)) / ln f) ≥ 0",
    ]
    case.method = [
        f"cc.csv rate_gbps and rtt_ns of flow 0 from {JUDGED_FROM_NS} ns on; tolerances are the "
        "print resolution (6 significant digits, whole ns)",
    ]
    rows = rundir.read_rows(run_dir, "cc.csv", CC_COLUMNS,
                            {"time_ns": int, "flow_id": int, "rate_gbps": float})
    rows = [r for r in rows if r["flow_id"] == 0 and r["time_ns"] >= JUDGED_FROM_NS]
    for r in rows:
        if not r["rtt_ns"]:
            raise ValidationError(f"{where}: cc.csv: flow 0 has no RTT at {r['time_ns']} ns")
        r["rtt_ns"] = int(r["rtt_ns"])
    if len(rows) < 10:
        raise ValidationError(f"{where}: fewer than 10 cc.csv samples of flow 0")
    if {r["cc"] for r in rows} != {"timely"}:
        raise ValidationError(f"{where}: cc.csv: flow 0 is not under timely")
    case.checks.append(Check(
        sub, "RTT samples", "ns", r0 * 1e9, max(r["rtt_ns"] for r in rows), "4·d + 2·T_f + 2·T_ack",
        base_rel=0.0, allowances=[("cc.csv prints whole ns (truncated)", 1.0)],
        method="cc.csv: largest rtt_ns"))
    case.checks.append(Check(
        sub, "RTT samples (smallest)", "ns", r0 * 1e9, min(r["rtt_ns"] for r in rows),
        "4·d + 2·T_f + 2·T_ack", base_rel=0.0,
        allowances=[("cc.csv prints whole ns (truncated)", 1.0)],
        method="cc.csv: smallest rtt_ns"))
    cuts = 0
    for prev, cur in zip(rows, rows[1:]):
        a, b = prev["rate_gbps"], cur["rate_gbps"]
        m = max(0, round(math.log(b / a) / math.log(f)))
        cuts += m
        model = a * f ** m
        case.checks.append(Check(
            sub, f"rate at {cur['time_ns'] / 1000:g} µs", "Gb/s", model, b,
            f"R({prev['time_ns'] / 1000:g} µs)·f^{m}", base_rel=0.0,
            allowances=[("cc.csv prints 6 significant digits",
                         print_resolution(b) + f ** m * print_resolution(a))],
            method="cc.csv rate_gbps"))
    if cuts == 0:
        raise ValidationError(f"{where}: no cut in the judged window")
    # The number of cuts is a prediction too: one per completion, and a completion is one
    # Segment of acknowledged payload (Algorithm 1's completion event), so over the judged
    # window the cuts count the payload the receiver got in it, divided by Segment. rates.csv
    # (the receiver's delivered rate per 1 µs) gives that payload independently of the sender's
    # rate. Edges: a segment straddles each end of the window and the ACKs lag the delivery by
    # half a round trip, at most one completion each.
    segment = timely_segment(ctx)
    t0, t1 = rows[0]["time_ns"], rows[-1]["time_ns"]
    delivered = rundir.read_rows(run_dir, "rates.csv", ["time_ns", "flow_id", "rate_gbps"],
                                 {"time_ns": int, "flow_id": int, "rate_gbps": float})
    interval_ns = 1000
    payload = sum(r["rate_gbps"] * interval_ns / 8 for r in delivered
                  if r["flow_id"] == 0 and t0 < r["time_ns"] <= t1)
    case.checks.append(Check(
        sub, "cuts in the judged window (= completions)", "", payload / segment, cuts,
        "payload delivered in the window / Segment", base_rel=0.0,
        allowances=[("a segment straddling each window edge", 2.0)],
        method="Σm over the samples above; rates.csv rate_gbps × 1 µs summed"))
    case.formulas.append("cuts = completions = payload delivered / Segment (rates.csv)")
    return case


def timely_segment(ctx):
    """Segment, bytes per completion event: the simulator's printed default (the scenario
    leaves it)."""
    proc = subprocess.run([ctx.fabric_run, "--print-attributes"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    printed = dict(re.findall(r"--attr " + re.escape(TYPE) + r"::(\w+)=(\S+)", proc.stdout))
    if "Segment" not in printed:
        raise ValidationError(f"{TYPE}::Segment not in fabric-run --print-attributes")
    return parse_bytes(printed["Segment"])
