"""DCTCP's alpha estimator with a known marked fraction (docs/models.md#dctcp).

Once per window of data the sender sets alpha <- (1 - g)·alpha + g·F, F the marked fraction of
that window's acknowledged bytes (Alizadeh et al., "Data Center TCP", SIGCOMM 2010, §3.1). With
F the same in every window the recurrence has the closed form

    alpha_n = (1 - g)^n · alpha_0 + (1 - (1 - g)^n) · F

which this case compares with cc.csv after n = 1, 2, 4, ... updates. F is fixed by the scenario,
not read from the run: every frame marked (F = 1: a step at K = 1 B and a queue that never
empties) or none (F = 0: ECN off). g is the simulator's printed default, alpha_0 the scenario's.
"""

import math
import os
import re
import subprocess

from ... import rundir
from .. import plotting, scenario, traces
from ..core import CaseResult, Check, ValidationError
from ..units import parse_bytes

CASE_ID = "dctcp-alpha"
TITLE = "DCTCP alpha after n windows with a known marked fraction"
SCENARIO = "dctcp-alpha.yaml"
TYPE = "ns3::DctcpCongestionControl"
JUDGED_N = [1, 2, 4, 8, 16, 32]
# (label, marked fraction F, overrides of the scenario file)
RUNS = [
    ("all-marked", 1.0, {}),
    ("none-marked", 0.0, {"workload.senders": 1, "switch.ecn.enabled": False,
                          "dctcp.initial_alpha": 1}),
]


def print_resolution(v):
    """Half a unit of the 6th significant digit (cc.csv is written with C++ ostream defaults)."""
    if v == 0:
        return 0.0
    return 0.5 * 10 ** (math.floor(math.log10(abs(v))) - 5)


def printed_gain(ctx):
    """G as the simulator under test prints its default (never the --attr sabotage)."""
    proc = subprocess.run([ctx.fabric_run, "--print-attributes"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise ValidationError(f"fabric-run --print-attributes exited {proc.returncode}")
    m = re.search(r"--attr " + re.escape(TYPE) + r"::G=(\S+)", proc.stdout)
    if not m:
        raise ValidationError(f"{TYPE}::G not in fabric-run --print-attributes")
    return float(m.group(1))


def predict(g, alpha0, F, n):
    return (1 - g) ** n * alpha0 + (1 - (1 - g) ** n) * F


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#dctcp",
        "A DCTCP sender whose every window is marked (F = 1) or never marked (F = 0): is its "
        "alpha after n window updates (1 − g)^n·α0 + (1 − (1 − g)^n)·F?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    case.parameters = {
        "topology": "star, 400 Gb/s links, 30 m cables (base RTT 0.77 µs, C·RTT = 38.5 KB)",
        "all-marked": "2 senders → h0 at line rate, ECN step at K = 1 B (pmax 1), MinWindow "
                      "32 KiB so the two windows keep ≥ 25 KB queued: every frame is marked, "
                      "F = 1, α0 = 0",
        "none-marked": "1 sender, ECN off: F = 0, α0 = 1",
        "g": "the simulator's default DctcpCongestionControl::G (fabric-run --print-attributes)",
        "cc.csv sampling": "100 ns (window updates are 1–2 µs apart)",
    }
    case.formulas = ["α_n = (1 − g)^n·α0 + (1 − (1 − g)^n)·F  (F the marked fraction of every "
                     "window, n the number of window updates)"]
    case.method = [
        "cc.csv, per flow: n counts the changes of alpha from sample to sample (one update per "
        "change, as updates are > 10 samples apart); the simulated α_n is the first sample after "
        "the n-th change. Judged to the print rounding of cc.csv (6 significant digits). If the "
        "trace shows fewer than n changes, its last alpha stands for α_n.",
        "all-marked: the run is refused unless queues.csv (100 ns) shows the bottleneck queue "
        "above K at every sample from the first window update on, and the run reports marks",
    ]
    g = printed_gain(ctx)
    panels = []
    for label, F, overrides in RUNS:
        run_dir, params = ctx.run(case, label, path, overrides)
        panels.append(analyze(case, label, run_dir, params, g, F))
    case.figures.append(plotting.series_vs_model_figure(
        ctx.out, f"{CASE_ID}.png", panels, ylabel="alpha", yscale=1.0))
    return case


def alpha_series(run_dir, flow_id):
    rows = rundir.read_rows(run_dir, "cc.csv", ["time_ns", "flow_id", "cc", "alpha"],
                            {"time_ns": int, "flow_id": int})
    return [(r["time_ns"] * 1e-9, float(r["alpha"])) for r in rows
            if r["flow_id"] == flow_id and r["alpha"] != ""]


def updates(series):
    """[(time_s, alpha)] at the first sample after each change of alpha; entry 0 is alpha_0."""
    out = [series[0]]
    for t, a in series[1:]:
        if a != out[-1][1]:
            out.append((t, a))
    return out


def analyze(case, label, run_dir, params, g, F):
    where = f"{CASE_ID}/{label}"
    alpha0 = float(scenario.require(params, "dctcp.initial_alpha", where))
    flow_ids = sorted({f["flow_id"] for f in traces.flows(run_dir)})
    if not flow_ids:
        raise ValidationError(f"{where}: no flows")
    ups_by_flow = {}
    for fid in flow_ids:
        series = alpha_series(run_dir, fid)
        if not series:
            raise ValidationError(f"{where}: cc.csv has no alpha for flow {fid}")
        if series[0][1] != alpha0:
            raise ValidationError(f"{where}: flow {fid} starts with alpha {series[0][1]}, "
                                  f"not the scenario's {alpha0}")
        ups_by_flow[fid] = updates(series)
    if F == 1.0:
        marked = rundir.summary_field(rundir.read_summary(run_dir), "counters", "ecn_marked_frames")
        if int(marked) <= 0:
            raise ValidationError(f"{where}: the run reports no ECN marks")
        K = parse_bytes(str(scenario.require(params, "switch.ecn.kmin", where)))
        port = traces.port_towards(run_dir, "sw0", "h0")
        first_update = min(u[1][0] for u in ups_by_flow.values() if len(u) > 1) \
            if any(len(u) > 1 for u in ups_by_flow.values()) else None
        if first_update is not None:
            low = [(t, q) for t, q in traces.queue_series(run_dir, "sw0", port)
                   if t >= first_update and q <= K]
            if low:
                raise ValidationError(f"{where}: the bottleneck queue fell to {low[0][1]} B "
                                      f"(≤ K) at {low[0][0] * 1e6:.2f} µs: F = 1 does not hold")
    for fid, ups in ups_by_flow.items():
        for n in JUDGED_N:
            t, a_sim = ups[n] if n < len(ups) else ups[-1]
            a = predict(g, alpha0, F, n)
            case.checks.append(Check(
                f"{label}, flow {fid}", f"alpha after {n} windows", "", a, a_sim,
                f"(1 − g)^n·α0 + (1 − (1 − g)^n)·F, g = {g:g}, α0 = {alpha0:g}, F = {F:g}",
                base_rel=0.0,
                allowances=[("cc.csv prints 6 significant digits", print_resolution(a))],
                method=f"cc.csv: first sample after the {n}-th change of alpha"
                       + ("" if n < len(ups) else f" (only {len(ups) - 1} changes: last value)")))
    ups = ups_by_flow[flow_ids[0]]
    model = [(t, predict(g, alpha0, F, n)) for n, (t, _) in enumerate(ups)]
    series = alpha_series(run_dir, flow_ids[0])
    return dict(title=f"{label}: F = {F:g}, α0 = {alpha0:g} (flow {flow_ids[0]})",
                series=series, model=model, marks={})
