"""NSCC's initial window on a Unified Bus channel (docs/models.md#nscc).

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

from .. import scenario
from ..common import star_link
from ..core import CaseResult, Check, ValidationError
from ..units import parse_time_ps
from ... import rundir

CASE_ID = "nscc-initial-window"
TITLE = "NSCC first window 1.5 × network_rtt × line rate"
SCENARIO = "nscc-initial-window.yaml"
TYPE = "ns3::NsccCongestionControl"
CC_COLUMNS = ["time_ns", "flow_id", "cc", "window_bytes"]


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
        "run": "50 µs (also with --quick: the first row is all the case reads)",
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
    return case
