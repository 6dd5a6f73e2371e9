"""Case 3 — incast fill without PFC: time to the first drop (docs/models.md#incast-fill)."""

import os

from ... import rundir
from .. import plotting, scenario, traces
from ..common import buffer_bytes, mtu_frame, pfc_enabled, star_link, fmt_ps
from ..core import CaseResult, Check, ValidationError
from ..units import parse_bytes, parse_time_ps

CASE_ID = "incast-fill"
TITLE = "Incast fill without PFC: time to the first drop"
SCENARIO = "incast-fill.yaml"
# Datacenter networks, chapter 7, §7.5.2: N participants of a direct ReduceScatter, of which
# N − 1 send to the owner of the chunk at a time (the chapter's table: N = 8, 16, 64 with 7, 15,
# 63 senders). The runs use N − 1 senders.
RANKS = [8, 16, 64]
BUFFERS = ["1MiB", "4MiB"]
QUICK = [(8, "1MiB"), (16, "4MiB"), (64, "1MiB")]


def predict(params, where):
    link = star_link(params, where)
    mtu, F = mtu_frame(params)
    if pfc_enabled(params):
        raise ValidationError(f"{where}: the case needs a lossy switch (switch.pfc.enabled: false)")
    if str(scenario.get(params, "workload.rate", "line")) != "line":
        raise ValidationError(f"{where}: senders must run at line rate")
    if parse_time_ps(scenario.get(params, "workload.start_jitter", "0ps")) != 0:
        raise ValidationError(f"{where}: senders must start together (no start_jitter)")
    N = int(scenario.require(params, "workload.senders", where))
    C = buffer_bytes(params, where)  # PFC off: no headroom reserve, the pool is the buffer
    T_f = link.tx_s(F)               # serialization incl. wire overhead
    B_s = F / T_f                    # stored bytes per second at line rate
    start = parse_time_ps(scenario.get(params, "workload.start", "0ps")) * 1e-12
    t_fa = start + T_f + link.delay_s  # first frames fully received (store and forward)
    t_drop = t_fa + (C - (N - 1) * F) / ((N - 1) * B_s)
    # The chapter's reading: N − 1 senders = ranks − 1, a fluid queue growing at (ranks − 2)·B
    # from the first arrival, B the 50 GB/s line rate (no frames, no cable).
    t_chapter = C / ((N - 1) * link.rate_bps / 8)
    return dict(link=link, F=F, N=N, C=C, T_f=T_f, B_s=B_s, t_fa=t_fa, t_drop=t_drop,
                t_chapter=t_chapter)


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#incast-fill",
        "N = 8, 16, 64 participants, i.e. N − 1 = 7, 15, 63 senders at line rate (chapter 7, "
        "§7.5.2), converge on one 50 GB/s port of a switch with 1 MiB or 4 MiB of free (lossy) "
        "buffer: when is the first frame dropped?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    case.parameters = {
        "topology": "star: h1..h(N−1) -> sw0 -> h0, 400 Gb/s links, 30 m cables (150 ns)",
        "frames": "F = 4096 B payload + 58 B headers = 4154 B stored; +24 B wire overhead on the "
                  "wire: T_f = 4178 x 8 / 400 Gb/s = 83.56 ns, B_s = F / T_f = 49.71 GB/s",
        "buffer": "1 MiB or 4 MiB shared, lossy (PFC off), ECN off",
        "queue sampling": "10 ns",
    }
    case.formulas = [
        "with s = N − 1 senders: t_first_drop = t_first_arrival + (C − (s−1)·F) / ((s−1)·B_s), "
        "with t_first_arrival = T_f + d (the first frames are stored only once fully received) and "
        "B_s = F / T_f in stored bytes per second (wire overhead occupies the link but not the "
        "buffer). At t_first_arrival s frames land at once, one goes out, s−1 are stored — hence "
        "the (s−1)·F; equivalently t_first_drop = d + C / ((s−1)·B_s) = d + C / ((N−2)·B_s)",
        "the chapter's reading (§7.5.2 table): C / ((N − 2)·B) with B = 50 GB/s, counted from the "
        "first arrival and without the cable — 3.50, 1.50, 0.34 µs with 1 MiB and 13.98, 5.99, "
        "1.35 µs with 4 MiB; reported beside the judged packet-level time, against the simulated "
        "time minus t_first_arrival",
    ]
    case.method = [
        "queues.csv (10 ns sampling) of sw0's port to h0: the first sample with Q > C − F, i.e. no "
        "further frame fits and the next arrival is dropped; the run must report dropped bytes",
    ]
    subs = QUICK if ctx.quick else [(n, b) for b in BUFFERS for n in RANKS]
    panels = []
    for n, buf in subs:
        rough = 150e-9 + parse_bytes(buf) / ((n - 2) * 49.7e9)
        stop = fmt_ps(round((1.5 * rough + 2e-6) * 1e12))
        run_dir, params = ctx.run(case, f"n{n}-{buf}", path,
                                  {"workload.senders": n - 1, "switch.buffer": buf,
                                   "stop_time": stop})
        panels.append(analyze(case, f"N = {n} ({n - 1} senders), C = {buf}", run_dir, params))
    case.figures.append(plotting.series_vs_model_figure(ctx.out, f"{CASE_ID}.png", panels))
    return case


def analyze(case, sub, run_dir, params):
    where = f"{CASE_ID}/{sub}"
    p = predict(params, where)
    F, C = p["F"], p["C"]
    port = traces.port_towards(run_dir, "sw0", "h0")
    series = traces.queue_series(run_dir, "sw0", port)
    dt = parse_time_ps(scenario.require(params, "trace.queue_interval", where)) * 1e-12
    t_sim = next((t for t, q in series if q > C - F), None)
    if t_sim is None:
        raise ValidationError(f"{where}: the queue never filled")
    dropped = rundir.summary_field(rundir.read_summary(run_dir), "counters", "dropped_bytes")
    if int(dropped) <= 0:
        raise ValidationError(f"{where}: the run reports no drops")
    if max(q for _, q in series) > C:
        raise ValidationError(f"{where}: the queue exceeded the buffer")
    case.checks.append(Check(
        sub, "time to first drop", "s", p["t_drop"], t_sim,
        "T_f + d + (C − (N−1)F) / ((N−1)·F/T_f)",
        base_rel=0.0, allowances=[("frames arrive in batches of N every T_f: the overflow shows at a batch "
                     "instant within one T_f of the fluid crossing", p["T_f"]),
                    ("sampling interval", dt)],
        method="queues.csv: first sample with Q > C − F"))
    case.checks.append(Check(
        sub, "time to first drop after the first arrival (chapter's fluid reading)", "s",
        p["t_chapter"], t_sim - p["t_fa"], "C / ((N − 2)·B), B = 50 GB/s", info=True,
        method="queues.csv: first sample with Q > C − F, minus T_f + d",
        note="Not judged: the chapter's table counts from the first arrival with a fluid queue "
             "at the nominal 50 GB/s; the judged row above adds the first frame time and the "
             "150 ns cable, keeps frames whole (s − 1 frames stored at the first arrival) and "
             "drains at the frame rate B_s = F/T_f (0.6 % below 50 GB/s with 24 B of wire "
             "overhead)."))
    model = [(0.0, 0.0), (p["link"].delay_s, 0.0),
             (p["link"].delay_s + C / ((p["N"] - 1) * p["B_s"]), C)]
    t_end = series[-1][0]
    model.append((t_end, C))
    return dict(title=sub, series=series, model=model, marks={"t_drop": p["t_drop"]})
