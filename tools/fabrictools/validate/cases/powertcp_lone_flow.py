"""PowerTCP's control law on a lone flow: the fixed point of its window rule (docs/models.md#powertcp).

PowerTCP normalises the power of the most loaded hop by that of a link exactly full with an
empty queue (Addanki, Michel and Schmid, "PowerTCP: Pushing the Performance Limits of
Datacenter Networks", NSDI 2022, §3 and Algorithm 1):

    Γ = λ·(q + B·τ) / (B²·τ),   λ = q̇ + µ

The default variant is the authors' simulator's rule (inet-tub/ns3-datacenter, simulator/
ns-3.39/src/point-to-point/model/rdma-hw.cc:1064-1065), W = γ·(W_c·η/Γ_n + β) + (1 − γ)·W_c
with W_c ← W once per round trip. One flow alone, paced at W/τ in frame bytes below the
port's capacity, keeps the queue empty, so its INT reports λ = µ = W/τ and Γ_n = W/(B·τ). The
rule's fixed point W = W·η/Γ_n + β then gives, for the time means of Γ_n and W,

    Γ* = η + β/(B·τ),   W* = η·B·τ + β

(β = 150 Mb/s × τ by default: Γ* = 0.95 + 150 Mb/s / 400 Gb/s = 0.950375, W* = 475 187.5 B
at τ = 10 µs). Neither is a bound the window could be clamped at: a window rule without η, a
β in the wrong unit or a γ applied to the wrong window moves them. The means are judged
within the whole-ns resolution of INT timestamps (2·Γ*·1 ns/τ, and for W the window that
corresponds to) and three standard errors of the sampled ripple.
"""

import math
import os
import re
import subprocess

from ... import rundir
from .. import scenario
from ..common import star_link
from ..core import FRAME_HEADERS, CaseResult, Check, ValidationError
from ..units import parse_bytes

CASE_ID = "powertcp-lone-flow"
TITLE = "PowerTCP lone flow: the window rule's fixed point Γ_n = η + β/(B·τ), W = η·B·τ + β"
SCENARIO = "powertcp-lone-flow.yaml"
TYPE = "ns3::PowerTcpCongestionControl"
# contrib/fabric/model/wire/int-header.h: kIntHeaderBytes = 4 B shim + 5 hops x 8 B.
INT_BYTES = 4 + 5 * 8
INT_TS_RESOLUTION_S = 1e-9  # int-header.h: egress timestamp in ns
JUDGED_AFTER_TAU = 10       # base RTTs: the start's Γ_n = 1 has decayed by e^-10
CC_COLUMNS = ["time_ns", "flow_id", "cc", "window_bytes", "u"]


def _time_s(text):
    m = re.fullmatch(r"\+?([0-9.eE+-]+)ps", str(text).strip())  # "+1e+07ps"
    if not m:
        raise ValidationError(f"{TYPE}::BaseRtt printed as {text!r}")
    return float(m.group(1)) * 1e-12


def printed_attributes(ctx):
    """PowerTCP's defaults as the simulator under test prints them (never the --attr sabotage)."""
    proc = subprocess.run([ctx.fabric_run, "--print-attributes"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise ValidationError(f"fabric-run --print-attributes exited {proc.returncode}")
    printed = dict(re.findall(r"--attr " + re.escape(TYPE) + r"::(\w+)=(\S+)", proc.stdout))
    for name in ("BaseRtt", "Eta", "Beta", "Variant"):
        if name not in printed:
            raise ValidationError(f"{TYPE}::{name} not in fabric-run --print-attributes")
    return printed


def print_resolution(v):
    """Half a unit of the 6th significant digit (cc.csv is written with C++ ostream defaults)."""
    return 0.0 if v == 0 else 0.5 * 10 ** (math.floor(math.log10(abs(v))) - 5)


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#powertcp",
        "One PowerTCP flow alone on a 400 Gb/s port: do its smoothed normalised power and its "
        "window settle at the fixed point of the default window rule, η + β/(B·τ) and "
        "η·B·τ + β?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    sub = "flow0"
    where = f"{CASE_ID}/{sub}"
    run_dir, params = ctx.run(case, sub, path, {})
    if scenario.get(params, "powertcp") is not None:
        raise ValidationError(f"{where}: the case reads the constants from the simulator's "
                              "defaults: no powertcp: section")
    printed = printed_attributes(ctx)
    if printed["Variant"] != "simulator":
        raise ValidationError(f"{where}: the case predicts the simulator variant, the default "
                              f"is {printed['Variant']}")
    tau = _time_s(printed["BaseRtt"])
    eta = float(printed["Eta"])
    link = star_link(params, where)
    B = link.rate_bps / 8
    beta = parse_bytes(printed["Beta"])
    if beta == 0:
        beta = 150e6 / 8 * tau  # 0B: 150 Mb/s x τ (rdma-hw.cc:1065)
    p = parse_bytes(scenario.get(params, "host.mtu", "4096B"))
    f = p + FRAME_HEADERS + INT_BYTES
    gamma_star = eta + beta / (B * tau)
    w_star = eta * B * tau + beta
    if gamma_star * B * link.tx_s(f) >= f:
        raise ValidationError(f"{where}: W*/τ would fill the port: the queue is not empty")
    from_ns = JUDGED_AFTER_TAU * tau * 1e9
    case.parameters = {
        "topology": "star: h1 -> sw0 -> h0, 400 Gb/s, 30 m cables, 24 B wire overhead; PFC and "
                    "ECN off",
        "PowerTCP": f"variant {printed['Variant']}, τ = {tau * 1e6:g} µs, η = {eta:g}, "
                    f"β = {beta:g} B: every constant the simulator's default",
        "frame": f"{f} B counted by INT and paced ({p} payload + {FRAME_HEADERS} headers + "
                 f"{INT_BYTES} INT)",
        "traces": f"cc.csv every 1 µs, 200 µs run (also with --quick), judged from {from_ns / 1000:g} µs",
    }
    case.formulas = [
        "Γ_n = W/(B·τ): the flow's INT reports λ = µ = W/τ with the queue empty",
        "W = γ·(W·η/Γ_n + β) + (1 − γ)·W at the fixed point: Γ* = η + β/(B·τ), W* = η·B·τ + β",
    ]
    case.method = ["cc.csv u (Γ_n) and window_bytes of flow 0: mean of every sample in the "
                   "judged window"]
    rows = rundir.read_rows(run_dir, "cc.csv", CC_COLUMNS,
                            {"time_ns": int, "flow_id": int, "window_bytes": int, "u": float})
    rows = [r for r in rows if r["flow_id"] == 0 and r["time_ns"] >= from_ns]
    if len(rows) < 10:
        raise ValidationError(f"{where}: fewer than 10 cc.csv samples of flow 0")
    if {r["cc"] for r in rows} != {"powertcp"}:
        raise ValidationError(f"{where}: cc.csv: flow 0 is not under powertcp")
    span = f"{rows[0]['time_ns'] / 1000:g}–{rows[-1]['time_ns'] / 1000:g} µs"
    # Each ACK adds Δbytes/(B·τ) to Γ_n and decays it by (1 − Δt/τ): whole-ns timestamps shift
    # single Δt but telescope, leaving at most 2·Γ*·(1 ns)/τ (relative 2 ns/τ); at the fixed
    # point W − β = η·B·τ·Γ_true/Γ_n, so W moves by the same relative amount of η·B·τ.
    ts_part = 2 * gamma_star * INT_TS_RESOLUTION_S / tau
    ts_window = eta * B * tau * 2 * INT_TS_RESOLUTION_S / tau
    for metric, key, star, formula, ts, ts_name, res in (
            ("Γ_n", "u", gamma_star, "η + β/(B·τ)", ts_part, "2·Γ*·1 ns/τ",
             print_resolution(gamma_star)),
            ("window", "window_bytes", w_star, "η·B·τ + β", ts_window, "η·B·τ·2 ns/τ", 0.5)):
        values = [float(r[key]) for r in rows]
        n = len(values)
        mean = sum(values) / n
        se = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
        case.checks.append(Check(
            sub, f"{metric} (time mean)", "B" if key == "window_bytes" else "", star, mean,
            formula, base_rel=0.0,
            allowances=[(f"INT timestamps in whole ns: {ts_name}", ts),
                        (f"3 standard errors of the mean of {n} samples (the ripple of "
                         f"whole-ns pacing and feedback, σ = {se * n ** 0.5:.3g})", 3 * se),
                        ("cc.csv rounding", res)],
            method=f"cc.csv {key}, mean of the samples over {span}"))
    return case
