"""Case 2 — late feedback: a queue that fills before the rate cut arrives (docs/models.md#late-feedback)."""

import math
import os

from .. import fluid, plotting, scenario, traces
from ..common import buffer_bytes, mtu_frame, pfc_enabled, star_link, fmt_ps
from ..core import CaseResult, Check, ValidationError
from ..units import parse_rate_bps, parse_time_ps

CASE_ID = "late-feedback"
TITLE = "Late feedback: fill, loss and drain around a delayed rate cut"
SCENARIO = "late-feedback.yaml"
PREFILL = 256 * 1024                # bytes queued when the clock of the question starts
FEEDBACK_US = [20, 50]              # T_f
CUT_TOTAL_GBPS = [50, 45, 40]       # total rate after the cut (GB/s)
QUICK = [(20, 50), (20, 45), (50, 40)]


def _rates(params, link, where):
    """Per flow: (rate before the cut in stored B/s, cut time s, rate after in B/s)."""
    out = []
    for f in scenario.require(params, "workload.flows", where):
        r = f.get("rate", "line")
        before = link.rate_bps if r == "line" else parse_rate_bps(r)
        sched = f.get("rate_schedule") or []
        if len(sched) != 1:
            raise ValidationError(f"{where}: each flow needs exactly one scripted rate cut")
        cut = parse_time_ps(sched[0]["at"]) * 1e-12 + parse_time_ps(f.get("start", "0ps")) * 1e-12
        after = parse_rate_bps(sched[0]["rate"])
        out.append((before, cut, after))
    return out


def predict(params, where):
    link = star_link(params, where)
    mtu, F = mtu_frame(params)
    B = link.stored_rate(F)
    if pfc_enabled(params):
        raise ValidationError(f"{where}: the case needs a lossy switch (switch.pfc.enabled: false)")
    C = buffer_bytes(params, where)
    rates = _rates(params, link, where)
    # A sender at line rate delivers stored bytes at F / T_f; a paced one at rate/8 (the host
    # paces frame bytes: next frame after F*8/rate).
    lam = sum(B if before >= link.rate_bps else before / 8 for before, _, _ in rates)
    lam_after = sum(after / 8 if after < link.rate_bps else B for _, _, after in rates)
    cuts = {c for _, c, _ in rates}
    if len(cuts) != 1:
        raise ValidationError(f"{where}: the senders must cut at the same time")
    cut = cuts.pop()
    if lam <= B:
        raise ValidationError(f"{where}: λ = {lam} does not exceed B = {B}; nothing fills")
    t_prefill = PREFILL / (lam - B)          # from the first bit at the switch
    T_f = cut - t_prefill                     # feedback delay after the 256 KiB mark
    t_fill = (C - PREFILL) / (lam - B)
    dropped = max(0.0, (lam - B) * T_f - (C - PREFILL))
    drain = C / (B - lam_after) if lam_after < B else math.inf
    stop = parse_time_ps(scenario.require(params, "stop_time", where)) * 1e-12
    points, fluid_drop = fluid.integrate(
        [(link.delay_s, link.delay_s + cut, lam), (link.delay_s + cut, stop, lam_after)],
        B, stop, capacity=C)
    return dict(link=link, mtu=mtu, F=F, B=B, C=C, lam=lam, lam_after=lam_after, cut=cut, T_f=T_f,
                t_fill=t_fill, dropped=dropped, drain=drain, points=points, fluid_drop=fluid_drop,
                n=len(rates), t_prefill=t_prefill)


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#late-feedback",
        "100 GB/s arrives at a 50 GB/s port with a 512 KiB buffer, 256 KiB already queued. With "
        "the feedback (a rate cut) arriving T_f = 20 or 50 µs later: when is the buffer full, how "
        "many bytes are dropped, how long does the queue take to drain after a cut to 45 or "
        "40 GB/s — and does a cut to exactly 50 GB/s leave the queue standing?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    base = scenario.load(path)
    link = star_link(base, CASE_ID)
    _, F = mtu_frame(base)
    B = link.stored_rate(F)
    lam = B * len(base["workload"]["flows"])
    case.parameters = {
        "topology": "star: h1, h2 -> sw0 -> h0, 400 Gb/s links, 1 m cables, wire_overhead 0 B",
        "arrival": "λ = 2 x 50 GB/s (both senders at line rate), B = 50 GB/s",
        "buffer": "512 KiB shared, lossy (PFC off), ECN off; frames 4096 + 58 B",
        "t = 0": "the moment the queue holds 256 KiB (256 KiB / (λ − B) after the first bit arrives)",
        "feedback": "both senders cut at t = T_f to half the new total (rate_schedule)",
        "queue sampling": "10 ns",
    }
    case.formulas = [
        "time to full buffer t_full = (C − Q_0) / (λ − B), Q_0 = 256 KiB, C = 512 KiB",
        "bytes dropped = max(0, (λ − B) · T_f − (C − Q_0)) (frame bytes)",
        "drain time after the cut = C / (B − λ') for a new total λ' < B; λ' = B: dQ/dt = 0, the "
        "queue stays at C (never drains)",
    ]
    case.method = [
        "t_full: queues.csv, first sample ≥ 256 KiB to the first sample with Q > C − F (no frame "
        "fits any more: the first drop)",
        "dropped: flows.csv dropped_bytes (payload) / MTU x F (stored frame bytes)",
        "drain: queues.csv, last sample still within N frames of full to the first zero sample",
        "never drains: queues.csv minimum after the cut (2 µs after it, to the end of the run)",
    ]
    subs = QUICK if ctx.quick else [(t, r) for t in FEEDBACK_US for r in CUT_TOTAL_GBPS]
    panels = []
    for tf_us, total in subs:
        cut_s = PREFILL / (lam - B) + tf_us * 1e-6
        cut_ps = round(cut_s * 1e12)
        per_flow = total * 1e9 * 8 / len(base["workload"]["flows"])
        drain = (512 * 1024) / (B - total * 1e9) if total * 1e9 < B else 100e-6
        stop_ps = cut_ps + round((1.25 * drain + 20e-6) * 1e12)
        flows = []
        for f in base["workload"]["flows"]:
            g = dict(f)
            g["rate_schedule"] = [{"at": fmt_ps(cut_ps), "rate": f"{per_flow:.0f}bps"}]
            flows.append(g)
        label = f"tf{tf_us}us-cut{total}GBps"
        run_dir, params = ctx.run(case, label, path,
                                  {"workload.flows": flows, "stop_time": fmt_ps(stop_ps)})
        panels.append(analyze(case, f"T_f = {tf_us} µs, cut to {total} GB/s", run_dir, params))
    case.figures.append(plotting.series_vs_model_figure(ctx.out, f"{CASE_ID}.png", panels))
    return case


def analyze(case, sub, run_dir, params):
    where = f"{CASE_ID}/{sub}"
    p = predict(params, where)
    F, C, B, lam, n = p["F"], p["C"], p["B"], p["lam"], p["n"]
    port = traces.port_towards(run_dir, "sw0", "h0")
    series = traces.queue_series(run_dir, "sw0", port)
    dt = parse_time_ps(scenario.require(params, "trace.queue_interval", where)) * 1e-12
    t0 = next((t for t, q in series if q >= PREFILL), None)
    t_full = next((t for t, q in series if q > C - F), None)
    if t0 is None or t_full is None:
        raise ValidationError(f"{where}: the queue never reached 256 KiB / full")
    step = F / (lam - B)
    case.checks.append(Check(
        sub, "time to full buffer", "s", p["t_fill"], t_full - t0, "(C − Q_0) / (λ − B)",
        base_rel=0.0, allowances=[("whole frames: each crossing lags the fluid level by ≤ one frame step F/(λ−B)", 2 * step),
                    ("sampling interval at both ends", 2 * dt)],
        method="queues.csv crossings"))
    flows = traces.flows(run_dir)
    payload = sum(f["dropped_bytes"] for f in flows)
    if payload % p["mtu"]:
        raise ValidationError(f"{where}: dropped payload {payload} is not whole frames")
    sim_drop = payload // p["mtu"] * F
    case.checks.append(Check(
        sub, "bytes dropped", "B", p["dropped"], float(sim_drop), "(λ − B)·T_f − (C − Q_0)",
        base_rel=0.0, allowances=[(f"the cut acts at each sender's next frame start (≤ 1 frame x {n} senders)", n * F),
                    ("the buffer holds whole frames (< 1 frame)", F)],
        method="flows.csv dropped_bytes / MTU x F"))
    cut_at_switch = p["cut"] + p["link"].delay_s
    marks = {"256 KiB": t0, "full": t_full, "cut": cut_at_switch}
    if math.isinf(p["drain"]):
        after = [q for t, q in series if t >= cut_at_switch + 2e-6]
        if not after:
            raise ValidationError(f"{where}: no samples after the cut")
        case.checks.append(Check(
            sub, "queue after a cut to exactly B (min)", "B", float(C), float(min(after)),
            "dQ/dt = λ' − B = 0: Q stays at C", kind="at_least", base_rel=0.0,
            allowances=[(f"arrivals come in frames from {n} paced senders (≤ {n} frames of ripple)", n * F),
                        ("the buffer holds whole frames (< 1 frame)", F)],
            method="queues.csv minimum from 2 µs after the cut to the end"))
    else:
        level = C - n * F
        i_ds = max(i for i, (t, q) in enumerate(series) if q >= level)
        t_ds = series[i_ds][0]
        t_e = next((t for t, q in series[i_ds:] if q == 0), None)
        if t_e is None:
            raise ValidationError(f"{where}: the queue did not drain within the run")
        drain_step = n * F / (B - p["lam_after"])
        case.checks.append(Check(
            sub, "drain time after the cut", "s", p["drain"], t_e - t_ds, "C / (B − λ')",
            base_rel=0.0, allowances=[(f"arrivals in frames from {n} senders: start and end each detected within "
                         f"{n} frames' drain time n·F/(B − λ')", 2 * drain_step),
                        ("the buffer holds whole frames: full = floor(C/F)·F, < one frame's drain time",
                         F / (B - p["lam_after"])),
                        ("sampling interval at both ends", 2 * dt)],
            method="queues.csv: last sample ≥ C − n·F to the first zero"))
        marks["empty"] = t_e
    return dict(title=sub, series=series, model=p["points"], marks=marks)
