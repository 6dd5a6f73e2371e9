"""Case 10 — DCQCN: one flow's rate after scripted CNPs against the paper's recurrence.

The recurrence below is written from the DCQCN paper's reaction-point rules (Zhu et al.,
SIGCOMM 2015, §3) and the conventions the model documents (stages counted before the event,
timers restarted by every CNP, no rate limiter before the first CNP or after full recovery); it
does not use the simulator's code. Its inputs are the scenario's `dcqcn:` overrides on top of the
attribute defaults the simulator under test prints (fabric-run --print-attributes).
"""

import math
import os
import re
import subprocess

from ... import rundir
from .. import plotting, scenario
from ..common import mtu_frame, star_link
from ..core import CaseResult, Check, ValidationError
from ..units import parse_bytes, parse_rate_bps, parse_time_ps

CASE_ID = "dcqcn-recurrence"
TITLE = "DCQCN reaction point: rate and alpha after scripted CNPs vs the recurrence"
SCENARIO = "dcqcn-recurrence.yaml"
TYPE = "ns3::DcqcnCongestionControl"
ATTRS = ("G", "InitialAlpha", "AlphaTimer", "RateIncreaseTimer", "ByteCounter",
         "FastRecoveryStages", "RateAI", "RateHAI", "MinRate", "ClampTargetRate")
CC_COLUMNS = ["time_ns", "flow_id", "cc", "rate_gbps", "alpha"]
BYTE_WINDOW_FRAMES = 3
RECOVERED = 0.99
# A second run whose second CNP comes 30 µs after the first: before the first timer event
# (55 µs) and before the first byte-counter event (1.1 MB at 200 Gb/s, 44 µs). With
# ClampTargetRate true it sets Rt to the halved rate; false keeps Rt at the line rate, so the
# recovery that follows differs by tens of Gb/s. (In the main run every CNP follows a timer
# event or full recovery, where both settings clamp alike.)
CLAMP_RUN = {"events": [{"at": "100500ns", "cnp": 0}, {"at": "130500ns", "cnp": 0}],
             "stop_time": "380us"}  # before a byte event meets a timer event (either setting)
_TIME_PS = {"s": 1e12, "ms": 1e9, "us": 1e6, "ns": 1e3, "ps": 1.0}


# --- parameters ------------------------------------------------------------------------------

def _attr_value(name, text, where):
    text = str(text).strip()
    try:
        if name in ("G", "InitialAlpha"):
            return float(text)
        if name == "FastRecoveryStages":
            return int(text)
        if name == "ClampTargetRate":
            if text.lower() in ("true", "1"):
                return True
            if text.lower() in ("false", "0"):
                return False
            raise ValueError(text)
        if name in ("AlphaTimer", "RateIncreaseTimer"):
            # --print-attributes writes ns-3's "+5.5e+07ps"; a scenario writes "55us".
            m = re.fullmatch(r"\+?([0-9.eE+-]+)\s*(s|ms|us|ns|ps)", text)
            if not m:
                raise ValueError(text)
            return float(m.group(1)) * _TIME_PS[m.group(2)]  # ps
        if name == "ByteCounter":
            if text.endswith("p"):
                raise ValueError("ByteCounter in packets is not modelled")
            return parse_bytes(text)
        return parse_rate_bps(text)  # RateAI, RateHAI, MinRate
    except ValueError as e:
        raise ValidationError(f"{where}: {TYPE}::{name} = {text!r}: {e}") from e


def dcqcn_parameters(ctx, params, where):
    """The attribute values the run used: the simulator's printed defaults, then `dcqcn:`."""
    proc = subprocess.run([ctx.fabric_run, "--print-attributes"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise ValidationError(f"fabric-run --print-attributes exited {proc.returncode}")
    printed = dict(re.findall(r"--attr " + re.escape(TYPE) + r"::(\w+)=(\S+)", proc.stdout))
    overrides = scenario.get(params, "dcqcn", {}) or {}
    unknown = set(overrides) - set(ATTRS)
    if unknown:
        raise ValidationError(f"{where}: dcqcn attributes the recurrence does not model: {unknown}")
    p = {}
    for name in ATTRS:
        if name in overrides:
            p[name] = _attr_value(name, overrides[name], where)
        elif name in printed:
            p[name] = _attr_value(name, printed[name], where)
        else:
            raise ValidationError(f"{where}: {TYPE}::{name} not in fabric-run --print-attributes")
    return p


def scenario_inputs(params, where):
    if scenario.get(params, "transport") != "roce" or scenario.get(params, "cc") != "dcqcn":
        raise ValidationError(f"{where}: the case needs transport: roce and cc: dcqcn")
    if str(scenario.get(params, "switch.ecn.enabled", "true")).lower() != "false":
        raise ValidationError(f"{where}: switch ECN must be off (the only CNPs are scripted)")
    flows = scenario.require(params, "workload.flows", where)
    if len(flows) != 1 or parse_time_ps(flows[0].get("start", "0ps")) != 0 \
            or str(flows[0].get("rate", "line")) != "line":
        raise ValidationError(f"{where}: exactly one flow, starting at 0 at line rate")
    cnps = []
    for ev in scenario.get(params, "events", []) or []:
        if set(ev) != {"at", "cnp"} or int(ev["cnp"]) != 0:
            raise ValidationError(f"{where}: only scripted CNPs to flow 0 are modelled: {ev}")
        cnps.append(float(parse_time_ps(ev["at"])))
    if not cnps:
        raise ValidationError(f"{where}: no scripted CNP")
    link = star_link(params, where)
    mtu, F = mtu_frame(params)
    dt_ps = parse_time_ps(scenario.require(params, "trace.rate_interval", where))
    stop_ps = parse_time_ps(scenario.require(params, "stop_time", where))
    return link, mtu, F, sorted(cnps), dt_ps, stop_ps


# --- the recurrence --------------------------------------------------------------------------

def recurrence(line, F, wo, cnps, p, t_end):
    """Event-driven DCQCN reaction point. Times in ps, rates in bit/s.

    Returns the states after each event: dicts t, rc, rt, alpha, what (cnp | alpha | timer |
    bytes), kind (FR | AI | HI for increases), w (timing uncertainty of the event, ps) and
    r_before (rc just before it).
    """
    g, K, T, B, Fs = (p["G"], p["AlphaTimer"], p["RateIncreaseTimer"], p["ByteCounter"],
                      p["FastRecoveryStages"])
    rai, rhai, clamp = p["RateAI"], p["RateHAI"], p["ClampTargetRate"]
    rmin = min(p["MinRate"], line)
    # Paced at rc in frame bytes, but never faster than back-to-back frames on the link.
    cap = line * F / (F + wo)
    rc = rt = float(line)
    alpha = p["InitialAlpha"]
    stage_t = stage_b = 0
    counted = 0.0          # bytes towards the next byte-counter event
    limited = False        # rate limiter active: a CNP seen, not yet back to the line rate
    t_alpha = t_timer = math.inf
    t = 0.0
    pending = list(cnps)
    states = [dict(t=0.0, rc=rc, rt=rt, alpha=alpha, what="start", kind="", w=0.0, r_before=rc)]
    while True:
        r_bytes = min(rc, cap) / 8e12  # bytes per ps
        t_byte = t + (B - counted) / r_bytes if (limited and B > 0) else math.inf
        t_cnp = pending[0] if pending else math.inf
        tn = min(t_cnp, t_alpha, t_timer, t_byte)
        if tn > t_end:
            break
        if limited and B > 0:
            counted += (tn - t) * r_bytes
        t, before = tn, rc
        if tn == t_cnp:
            pending.pop(0)
            if clamp or stage_t > 0:
                rt = rc
            rc = max(rmin, rc * (1 - alpha / 2))
            alpha = (1 - g) * alpha + g
            stage_t = stage_b = 0
            counted = 0.0
            limited = True
            t_alpha = t + K if K > 0 else math.inf
            t_timer = t + T if T > 0 else math.inf
            states.append(dict(t=t, rc=rc, rt=rt, alpha=alpha, what="cnp", kind="", w=0.0,
                               r_before=before))
            continue
        if tn == t_alpha:
            alpha *= 1 - g
            t_alpha = t + K
            states.append(dict(t=t, rc=rc, rt=rt, alpha=alpha, what="alpha", kind="", w=0.0,
                               r_before=before))
            continue
        if tn == t_timer:
            what, w = "timer", 0.0
            t_timer = t + T
        else:
            what = "bytes"
            w = BYTE_WINDOW_FRAMES * F * 8e12 / min(rc, cap)
            counted -= B
        if max(stage_t, stage_b) < Fs:
            kind = "FR"
        elif min(stage_t, stage_b) > Fs:
            kind = "HI"
            rt = min(line, rt + (min(stage_t, stage_b) - Fs) * rhai)
        else:
            kind = "AI"
            rt = min(line, rt + rai)
        rc = (rt + rc) / 2
        if what == "timer":
            stage_t += 1
        else:
            stage_b += 1
        if rt >= line and line - rc < 1.0:
            rc = rt = float(line)
            limited = False
            counted = 0.0
            t_timer = math.inf
        states.append(dict(t=t, rc=rc, rt=rt, alpha=alpha, what=what, kind=kind, w=w,
                           r_before=before))
    # A byte-counter event within its timing window of a timer event or a CNP: the order of
    # the two (which decides FR/AI/HI and the hyper stage) would be a guess.
    exact = [s["t"] for s in states if s["what"] in ("timer", "cnp")]
    for s in states:
        if s["what"] == "bytes" and any(abs(s["t"] - x) <= 2 * s["w"] for x in exact):
            raise ValidationError(
                f"byte-counter event at {s['t'] / 1e6:.3f} us is within its timing window of a "
                "timer event or CNP: the event order is ambiguous; move the CNPs or ByteCounter")
    return states


def states_at(states, ts):
    """Model states a sample at ts (ps) may show: after every event certainly before ts, and
    possibly after those within their timing window (w) of ts or exactly at ts."""
    certain = sum(1 for s in states if s["t"] + s["w"] < ts)
    possible = sum(1 for s in states if s["t"] - s["w"] <= ts)
    return states[max(certain, 1) - 1: max(possible, 1)]


def print_resolution(v):
    """Half a unit of the 6th significant digit (cc.csv is written with C++ ostream defaults)."""
    if v == 0:
        return 0.0
    return 0.5 * 10 ** (math.floor(math.log10(abs(v))) - 5)


# --- the case --------------------------------------------------------------------------------

def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#dcqcn",
        "One RoCE flow at 400 Gb/s gets scripted CNPs at 100.5 µs, 170.5 µs and 2000.5 µs. Does "
        "its DCQCN rate follow the paper's recurrence — the cut Rc(1 − α/2), fast recovery, "
        "additive and hyper increase from the timer and the byte counter — and does α follow "
        "its gain and decay, sample by sample?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    run_dir, params = ctx.run(case, "flow0", path, {})
    where = f"{CASE_ID}/flow0"
    p = dcqcn_parameters(ctx, params, where)
    link, mtu, F, cnps, dt_ps, stop_ps = scenario_inputs(params, where)
    case.parameters = {
        "topology": "star: h1 -> sw0 -> h0, 400 Gb/s, 30 m cables; ECN off, PFC off (no real CNPs)",
        "flow": f"RoCE write of 1 GiB from t = 0 (never finishes), MTU {mtu} B, frame "
                f"F = {F} B; wire overhead {link.wo} B",
        "CNPs": ", ".join(f"{c / 1e6:g} µs" for c in cnps) + " (events: cnp: 0)",
        "DCQCN": (f"g = {p['G']:g}, α₀ = {p['InitialAlpha']:g}, K = {p['AlphaTimer'] / 1e6:g} µs, "
                  f"T = {p['RateIncreaseTimer'] / 1e6:g} µs, B = {p['ByteCounter']} bytes "
                  f"(scenario; paper 10 MB), F = {p['FastRecoveryStages']}, "
                  f"R_AI = {p['RateAI'] / 1e6:g} Mb/s, R_HAI = {p['RateHAI'] / 1e6:g} Mb/s, "
                  f"R_min = {p['MinRate'] / 1e6:g} Mb/s, clamp Rt on CNP = {p['ClampTargetRate']}"),
        "sampling": f"cc.csv every {dt_ps / 1e6:g} µs (CNPs half-way between samples)",
    }
    case.formulas = [
        "CNP: Rt ← Rc; Rc ← max(R_min, Rc(1 − α/2)); α ← (1 − g)α + g; stages T = BC = 0, byte "
        "count 0; the increase timer (period T) and the alpha timer (period K) restart",
        "alpha timer: α ← (1 − g)α every K without a CNP",
        "increase event (timer expiry, or every B bytes sent), stages as they stand before the "
        "event: max(T, BC) < F fast recovery; min(T, BC) > F hyper: Rt ← Rt + (min(T, BC) − F)·R_HAI; "
        "else additive: Rt ← Rt + R_AI; then Rc ← (Rt + Rc)/2, Rt and Rc ≤ line; the event "
        "counts in T or BC. Rt = line and Rc within 1 b/s of it: recovered, increases stop",
        "byte counter: the sender is paced at Rc in frame bytes (F = MTU + 58 B), capped at the "
        "link's back-to-back rate line·F/(F + wire overhead), so frame bytes accrue at "
        "min(Rc, line·F/(F + wo))/8 and an event fires each time they reach B (fluid time)",
    ]
    case.method = [
        "cc.csv rate_gbps and alpha of flow 0 at every sample; the model state at a sample time "
        "is the state after all events before it. A byte-counter event's time is known to "
        f"±{BYTE_WINDOW_FRAMES} frame times (the counter counts a frame when it starts, the first "
        "frame after a CNP leaves on the old pacing grid, a new rate applies from the next "
        "frame): a sample within that window of one may show the state before or after it",
        "time to 99 % of line rate: first sample at ≥ 0.99 × line after the CNP",
        "bytes sent: flows.csv sent_bytes (payload) against the integral of the modelled "
        "sending rate × MTU/F",
    ]
    panels = analyze(case, "flow0", run_dir, params, p)
    case.notes.append(
        "Tolerances are the print resolution of cc.csv (6 significant digits), far inside the "
        "0.1 % one could allow: the recurrence and the model do the same arithmetic on the same "
        "inputs, and event times only decide which sample first shows a step, never the value "
        "of a step — so a rate is either exact or wrong. Timer and alpha events (CNP + k·55 µs) "
        "fall half-way between samples; byte-counter events can fall within their ±3-frame "
        "timing window of a sample, which then may show either side of the step (counted as on "
        "the recurrence, and as a named allowance where a row lands on one). Times to 99 % of "
        "line rate carry one sampling interval. ByteCounter is 1.1 MB instead of the paper's "
        "10 MB: at 10 MB (every ~0.2-0.4 ms at these rates) the byte counter would reach "
        "F = 5 stages only after about 1.5 ms and hyper increase (both counters past F) would "
        "barely appear in the run; at 1.1 MB it fires every 22-45 µs, ahead of the 55 µs timer, "
        "so fast recovery ends on byte events, additive increase follows, and hyper increase "
        "starts at the 7th timer event (T > F). The second CNP lands during fast recovery, so "
        "the target rate (350 Gb/s) is below the line rate and additive and hyper increase "
        "have to lift it; the third, after full recovery, cuts with α decayed 33 times. The "
        "recurrence refuses to run (validation error) if a byte-counter event falls within its "
        "timing window of a timer event or CNP, where the order of the two would be a guess.")
    run_dir, params = ctx.run(case, "clamp", path, CLAMP_RUN)
    analyze(case, "clamp", run_dir, params, p)
    clamp_check(case, "clamp", run_dir, params, p)
    case.notes.append(
        "The *clamp* run repeats the first CNP and sends the second 30 µs later, before any "
        "timer or byte-counter increase: only there does ClampTargetRate matter (true: Rt ← Rc "
        "on every CNP; false: only after a timer increase). Its last row is the sample where "
        "the recurrence with the run's setting and with the opposite one differ most; the "
        "validation refuses to run if the two cannot be told apart.")
    case.figures.append(plotting.series_vs_model_figure(
        ctx.out, f"{CASE_ID}.png", panels, ylabel="rate (Gb/s)", yscale=1e9))
    return case


def clamp_check(case, sub, run_dir, params, p):
    """The sample where ClampTargetRate true and false predict the most different rates."""
    where = f"{CASE_ID}/{sub}"
    link, mtu, F, cnps, dt_ps, stop_ps = scenario_inputs(params, where)
    ours = recurrence(link.rate_bps, F, link.wo, cnps, p, float(stop_ps))
    flipped = recurrence(link.rate_bps, F, link.wo, cnps,
                         dict(p, ClampTargetRate=not p["ClampTargetRate"]), float(stop_ps))
    best = None
    for ts, rate, _ in [(r["time_ns"] * 1000.0, r["rate_gbps"], r["alpha"])
                        for r in read_cc(run_dir, where)]:
        a = [s for s in states_at(ours, ts)]
        b = [s for s in states_at(flipped, ts)]
        if len(a) != 1 or len(b) != 1:
            continue   # next to a byte-counter event: either side possible
        gap = abs(a[0]["rc"] - b[0]["rc"]) / 1e9
        if best is None or gap > best[0]:
            best = (gap, ts, rate, a[0]["rc"] / 1e9, b[0]["rc"] / 1e9)
    if best is None or best[0] <= 100 * print_resolution(best[2]):
        raise ValidationError(f"{where}: the run cannot tell ClampTargetRate true from false")
    gap, ts, rate, ana, other = best
    case.checks.append(Check(
        sub, f"rate where ClampTargetRate {p['ClampTargetRate']} and "
             f"{not p['ClampTargetRate']} differ most (sample at {ts / 1e6:g} µs)", "Gb/s",
        ana, rate, f"recurrence with ClampTargetRate = {p['ClampTargetRate']}", base_rel=0.0,
        allowances=[("cc.csv prints 6 significant digits", print_resolution(rate))],
        method="cc.csv rate_gbps",
        note=f"with ClampTargetRate = {not p['ClampTargetRate']} the recurrence gives "
             f"{other:.6g} Gb/s here"))


def read_cc(run_dir, where):
    rows = rundir.read_rows(run_dir, "cc.csv", CC_COLUMNS,
                           {"time_ns": int, "flow_id": int, "rate_gbps": float, "alpha": float})
    rows = [r for r in rows if r["flow_id"] == 0]
    if not rows:
        raise ValidationError(f"{where}: cc.csv has no samples of flow 0")
    if {r["cc"] for r in rows} != {"dcqcn"}:
        raise ValidationError(f"{where}: cc.csv: flow 0 is not under dcqcn: "
                              f"{sorted({r['cc'] for r in rows})}")
    return rows


def analyze(case, sub, run_dir, params, p):
    where = f"{CASE_ID}/{sub}"
    link, mtu, F, cnps, dt_ps, stop_ps = scenario_inputs(params, where)
    line = link.rate_bps
    rows = read_cc(run_dir, where)
    flows = rundir.read_rows(run_dir, "flows.csv", ["flow_id", "cnps", "sent_bytes", "finish_ns"],
                            {"flow_id": int, "cnps": int, "sent_bytes": int})
    if len(flows) != 1 or flows[0]["cnps"] != len(cnps) or flows[0]["finish_ns"]:
        raise ValidationError(f"{where}: flows.csv: expected one unfinished flow that received "
                              f"exactly the {len(cnps)} scripted CNPs: {flows}")
    states = recurrence(line, F, link.wo, cnps, p, float(stop_ps))
    samples = [(r["time_ns"] * 1000.0, r["rate_gbps"], r["alpha"]) for r in rows]
    expected = (stop_ps - 1) // dt_ps  # k·Δ for k ≥ 1, before stop_time
    if [round(ts) for ts, _, _ in samples] != [k * dt_ps for k in range(1, expected + 1)]:
        raise ValidationError(f"{where}: cc.csv: expected flow 0 sampled every {dt_ps} ps up to "
                              f"stop_time ({expected} samples), found {len(samples)}")

    def sample_after(t):
        s = next((s for s in samples if s[0] > t), None)
        if s is None:
            raise ValidationError(f"{where}: no cc.csv sample after {t / 1e6:.3f} us")
        return s

    def sample_before(t):
        s = [s for s in samples if s[0] < t]
        if not s:
            raise ValidationError(f"{where}: no cc.csv sample before {t / 1e6:.3f} us")
        return s[-1]

    def model_at(ts):
        """The state after every event strictly before ts (fluid byte-counter times)."""
        return [s for s in states if s["t"] < ts][-1]

    def rate_check(label, metric, t, formula):
        ts, rate, _ = sample_after(t)
        cands = states_at(states, ts)
        allow = [("cc.csv prints 6 significant digits", print_resolution(rate))]
        step = sum(abs(a["rc"] - b["rc"]) for a, b in zip(cands, cands[1:])) / 1e9
        if step > 0:
            allow.append(("a byte-counter step within its timing window of the sample", step))
        case.checks.append(Check(
            label, f"{metric} (sample at {ts / 1e6:g} µs)", "Gb/s", model_at(ts)["rc"] / 1e9,
            rate, formula, base_rel=0.0, allowances=allow, method="cc.csv rate_gbps"))

    def alpha_check(label, metric, sample, formula):
        ts, _, alpha = sample
        case.checks.append(Check(
            label, f"{metric} (sample at {ts / 1e6:g} µs)", "", model_at(ts)["alpha"], alpha,
            formula, base_rel=0.0, allowances=[("cc.csv prints 6 significant digits",
                                                print_resolution(alpha))],
            method="cc.csv alpha"))

    T, K, Fs = p["RateIncreaseTimer"], p["AlphaTimer"], p["FastRecoveryStages"]
    bounds = cnps[1:] + [float(stop_ps)]
    for j, (c, nxt) in enumerate(zip(cnps, bounds), start=1):
        label = f"CNP {j} at {c / 1e6:g} µs"
        pre = model_at(c)
        if j > 1:
            n = int((c - cnps[j - 2]) // K)
            alpha_check(label, f"α before the CNP ({n} decays since CNP {j - 1})",
                        sample_before(c), f"α(after CNP {j - 1})·(1 − g)^{n}")
        rate_check(label, "rate after the cut", c,
                   f"Rc(1 − α/2) = {pre['rc'] / 1e9:.4g}·(1 − {pre['alpha']:.5g}/2)")
        alpha_check(label, "α after the CNP", sample_after(c), "(1 − g)α + g")
        for k in range(1, Fs + 2):
            t = c + k * T
            if t + dt_ps >= nxt or model_at(t)["rc"] >= line:
                break
            kinds = []
            for s in states:
                if c < s["t"] <= t and s["kind"] and s["kind"] not in kinds:
                    kinds.append(s["kind"])
            rate_check(label, f"rate after {k} timer period{'s' if k > 1 else ''} "
                              f"({' → '.join(kinds)})", t,
                       "FR: Rc ← (Rt + Rc)/2; AI: Rt += R_AI; HI: Rt += i·R_HAI")
        # The first hyper increase that moves the target rate (Rt below the line rate).
        first_hi = next((s for s, prev in zip(states[1:], states) if c < s["t"] < nxt
                         and s["kind"] == "HI" and s["rt"] > prev["rt"]), None)
        if first_hi:
            rate_check(label, f"rate after the first hyper increase ({first_hi['what']}, "
                              f"{first_hi['t'] / 1e6:.2f} µs)", first_hi["t"] + first_hi["w"],
                       "Rt ← Rt + (min(T, BC) − F)·R_HAI, Rc ← (Rt + Rc)/2")
        rec = next((s for s in states if c < s["t"] < nxt and s["rc"] >= RECOVERED * line), None)
        if rec:
            sim = next((ts for ts, r, _ in samples if c < ts < nxt and r * 1e9 >= RECOVERED * line),
                       None)
            if sim is None:
                raise ValidationError(f"{where}: {label}: the rate never reached 99 % of line")
            allow = [("sampling: the first sample after the step", dt_ps * 1e-12)]
            if rec["w"]:
                allow.append(("byte-counter event timing window", rec["w"] * 1e-12))
            case.checks.append(Check(
                label, "time to 99 % of line rate", "s", (rec["t"] - c) * 1e-12, (sim - c) * 1e-12,
                f"first event with Rc ≥ 0.99 × line ({rec['what']}, {rec['kind']})",
                base_rel=0.0, allowances=allow, method="cc.csv: first sample ≥ 0.99 × line"))

    # Every sample: rate and alpha on the recurrence (within print rounding and, next to a
    # byte-counter event, on either side of it).
    bad_r = bad_a = 0
    worst_r = worst_a = 0.0
    for ts, rate, alpha in samples:
        cands = states_at(states, ts)
        dr = min(abs(rate - s["rc"] / 1e9) for s in cands)
        da = min(abs(alpha - s["alpha"]) for s in cands)
        worst_r, worst_a = max(worst_r, dr), max(worst_a, da)
        bad_r += dr > print_resolution(rate) * (1 + 1e-9)
        bad_a += da > print_resolution(alpha) * (1 + 1e-9)
    for metric, bad, worst, unit in (("rate", bad_r, worst_r, "Gb/s"), ("α", bad_a, worst_a, "")):
        case.checks.append(Check(
            sub, f"samples whose {metric} is off the recurrence (of {len(samples)})", "samples",
            0.0, float(bad), "recurrence state at the sample time", kind="at_most", base_rel=0.0,
            method="cc.csv, every sample",
            note=f"largest |deviation| {worst:.3g}{' ' + unit if unit else ''} (cc.csv prints 6 "
                 "significant digits)"))

    # Bytes sent: the pacing at Rc, integrated.
    cap = line * F / (F + link.wo)
    frame_bytes, t_prev, r_prev = 0.0, 0.0, float(line)
    for s in states[1:] + [dict(t=float(stop_ps), rc=None)]:
        frame_bytes += (s["t"] - t_prev) * min(r_prev, cap) / 8e12
        t_prev, r_prev = s["t"], s["rc"]
    frames = frame_bytes / F
    case.checks.append(Check(
        sub, "payload bytes sent by stop_time", "B", frame_bytes * mtu / F,
        float(flows[0]["sent_bytes"]), "∫ min(Rc, line·F/(F+wo))/8 dt × MTU/F",
        base_rel=0.0,
        allowances=[(f"{BYTE_WINDOW_FRAMES} frames (pacing grid and rate-change lag, as for the "
                     "byte counter)", BYTE_WINDOW_FRAMES * mtu),
                    ("paced gaps truncated to whole ps: ≤ 1 ps per frame",
                     frames * 1e-12 * cap / 8 * mtu / F)],
        method="flows.csv sent_bytes"))

    model = []
    for a, b in zip(states, states[1:] + [dict(t=float(stop_ps), rc=states[-1]["rc"])]):
        model += [(a["t"] * 1e-12, a["rc"]), (b["t"] * 1e-12, a["rc"])]
    series = [(ts * 1e-12, r * 1e9) for ts, r, _ in samples]
    lo, hi = (cnps[0] - 20e6) * 1e-12, min(stop_ps, cnps[0] + 1.2e9) * 1e-12
    marks = {f"CNP {j}": c * 1e-12 for j, c in enumerate(cnps, start=1)}
    return [dict(title="Rc of flow 0, whole run: cc.csv vs the recurrence", series=series,
                 model=model, marks=marks),
            dict(title="zoom: the first CNPs and the recovery",
                 series=[x for x in series if lo <= x[0] <= hi],
                 model=[x for x in model if lo <= x[0] <= hi],
                 marks={k: v for k, v in marks.items() if lo <= v <= hi})]
