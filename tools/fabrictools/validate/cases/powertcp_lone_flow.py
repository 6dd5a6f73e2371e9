"""PowerTCP's normalised power on a busy port with an empty queue (docs/models.md#powertcp).

PowerTCP normalises the power of the most loaded hop by that of a link exactly full with an
empty queue (Addanki, Michel and Schmid, "PowerTCP: Pushing the Performance Limits of
Datacenter Networks", NSDI 2022, §3 and Algorithm 1):

    Γ = λ·(q + B·τ) / (B²·τ),   λ = q̇ + µ

One flow alone at line rate keeps its port busy with q = 0, so λ = µ, the frame bytes INT
counts (f = payload + headers + INT) per wire time of a frame (f + wire overhead):

    Γ* = f / (B · t_wire(f)) = 4198 / 4222 = 0.99432

Γ_n, its smoothing over τ, is each ACK adding Δbytes/(B·τ) and decaying by (1 − Δt/τ), so it
settles at Γ*; INT's whole-ns timestamps shift the Δt of single ACKs but telescope over a
window, leaving at most 2·Γ*·(1 ns)/τ. With Γ_n < 1 every update grows W, which therefore
stays at its upper bound B·τ.
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
TITLE = "PowerTCP lone flow: Γ_n = frame / wire time of a frame, W = B·τ"
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


def base_rtt(ctx):
    """BaseRtt τ as the simulator under test prints it (never the --attr sabotage)."""
    proc = subprocess.run([ctx.fabric_run, "--print-attributes"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise ValidationError(f"fabric-run --print-attributes exited {proc.returncode}")
    m = re.search(r"--attr " + re.escape(TYPE) + r"::BaseRtt=(\S+)", proc.stdout)
    if not m:
        raise ValidationError(f"{TYPE}::BaseRtt not in fabric-run --print-attributes")
    return _time_s(m.group(1))


def print_resolution(v):
    """Half a unit of the 6th significant digit (cc.csv is written with C++ ostream defaults)."""
    return 0.0 if v == 0 else 0.5 * 10 ** (math.floor(math.log10(abs(v))) - 5)


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#powertcp",
        "One PowerTCP flow alone on a 400 Gb/s port: does its smoothed normalised power settle "
        "at the port's frame bytes per wire time over B, and its window at B·τ?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    sub = "flow0"
    where = f"{CASE_ID}/{sub}"
    run_dir, params = ctx.run(case, sub, path, {})
    if scenario.get(params, "powertcp") is not None:
        raise ValidationError(f"{where}: the case reads τ from the simulator's defaults: no "
                              "powertcp: section")
    tau = base_rtt(ctx)
    link = star_link(params, where)
    B = link.rate_bps / 8
    p = parse_bytes(scenario.get(params, "host.mtu", "4096B"))
    f = p + FRAME_HEADERS + INT_BYTES
    gamma = f / (B * link.tx_s(f))
    w_max = B * tau
    from_ns = JUDGED_AFTER_TAU * tau * 1e9
    case.parameters = {
        "topology": "star: h1 -> sw0 -> h0, 400 Gb/s, 30 m cables, 24 B wire overhead; PFC and "
                    "ECN off",
        "PowerTCP": f"τ = {tau * 1e6:g} µs and every constant the simulator's default",
        "frame": f"{f} B counted by INT ({p} payload + {FRAME_HEADERS} headers + {INT_BYTES} "
                 f"INT), {f + link.wo} B on the wire",
        "traces": f"cc.csv every 1 µs, 200 µs run (also with --quick), judged from {from_ns / 1000:g} µs",
    }
    case.formulas = [
        "Γ* = f / (B·t_wire(f)): λ = µ on a busy port with an empty queue",
        "W = B·τ: Γ_n < 1 grows the window up to its bound",
    ]
    case.method = ["cc.csv u (Γ_n) and window_bytes of flow 0, every sample in the judged window"]
    rows = rundir.read_rows(run_dir, "cc.csv", CC_COLUMNS,
                            {"time_ns": int, "flow_id": int, "window_bytes": int, "u": float})
    rows = [r for r in rows if r["flow_id"] == 0 and r["time_ns"] >= from_ns]
    if len(rows) < 10:
        raise ValidationError(f"{where}: fewer than 10 cc.csv samples of flow 0")
    if {r["cc"] for r in rows} != {"powertcp"}:
        raise ValidationError(f"{where}: cc.csv: flow 0 is not under powertcp")
    span = f"{rows[0]['time_ns'] / 1000:g}–{rows[-1]['time_ns'] / 1000:g} µs"
    u_lo = min(rows, key=lambda r: r["u"])["u"]
    u_hi = max(rows, key=lambda r: r["u"])["u"]
    ts_part = 2 * gamma * INT_TS_RESOLUTION_S / tau
    start_part = (1 - gamma) * math.exp(-JUDGED_AFTER_TAU)
    for label, u in (("smallest", u_lo), ("largest", u_hi)):
        case.checks.append(Check(
            sub, f"Γ_n ({label} sample)", "", gamma, u, "f / (B·t_wire(f))", base_rel=0.0,
            allowances=[("INT timestamps in whole ns: 2·Γ*·1 ns/τ", ts_part),
                        ("the start's Γ_n = 1 decayed over the first 10 τ", start_part),
                        ("cc.csv prints 6 significant digits", print_resolution(u))],
            method=f"cc.csv u, {label} over {span}"))
    for label, w in (("smallest", min(r["window_bytes"] for r in rows)),
                     ("largest", max(r["window_bytes"] for r in rows))):
        case.checks.append(Check(
            sub, f"window ({label} sample)", "B", w_max, w, "B·τ", base_rel=0.0,
            allowances=[("cc.csv prints the window in whole bytes", 1.0)],
            method=f"cc.csv window_bytes, {label} over {span}"))
    return case
