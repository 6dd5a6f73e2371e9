"""Slot release and backpressure: Datacenter networks, chapter 7, §7.4.4 at the chapter's numbers
(docs/models.md#slot-release).

16 operations of 8 KiB, launched at most one per 1 µs, each transferred 5 µs after its launch;
software polls completions every 20 µs and handles 4 per poll; a slot is free only once its
completion is handled. Worked by hand (polls at 20, 40, 60, 80 µs):

    16 slots  launches at 0..15 µs, transfers done at 5..20 µs: the last at 20 µs; the four
              polls free the slots at 20, 40, 60 and 80 µs.
    8 slots   launches 0..7 µs; the poll at 20 µs frees 4 slots: launches at 20, 21, 22, 23 µs;
              the poll at 40 µs frees 4 more: launches at 40..43 µs, the last transfer done at
              48 µs. Doubling the slots moves the end of the transfers from 48 to 20 µs.
    sustained 4 completions per 20 µs = 200 000 per second: 4 × 8 KiB / 20 µs = 1.64 GB/s
              whatever the slots (64 operations, 16 slots: the last 32 finish in 8 polls).

The path (examples/validation/completion-backpressure.yaml) is the concurrency case's UB path
with the cable delay chosen so that the hold time on the idle path,
T = S + 2D + T_f + 2·T_ack + 2D, is exactly 5 µs.
"""

import heapq
import os

from ... import rundir
from ..core import CaseResult, Check, ValidationError
from ..units import parse_bytes, parse_time_ps
from . import concurrency
from .. import scenario

CASE_ID = "completion-backpressure"
TITLE = "Chapter 7 §7.4.4: 4 completions per 20 µs, 16 vs 8 slots, 1.64 GB/s sustained"
SCENARIO = "completion-backpressure.yaml"
M = "8KiB"
HOLD_PS = 5_000_000

# (label, slots, requests)
ROWS = [("16 slots", 16, 16), ("8 slots", 8, 16), ("sustained, 16 slots", 16, 64)]


def polls_timeline(K, N, delta_ps, hold_ps, poll_ps, batch):
    """Launch and finish of each request, event by event (the model the chapter works by hand):
    launch_i = max(launch_{i−1} + δ, release of the slot it reuses), finish_i = launch_i + T."""
    free_at = [0] * N          # when each slot is next free (its completion handled)
    launch, finish = [], []
    for i in range(K):
        slot_free = heapq.heappop(free_at)
        t = slot_free if not launch else max(slot_free, launch[-1] + delta_ps)
        launch.append(t)
        finish.append(t + hold_ps)
        heapq.heappush(free_at, release_time(finish, poll_ps, batch))
    return launch, finish


def release_time(finishes, poll_ps, batch):
    """The poll that handles the last completion of `finishes` (in finishing order): each poll,
    at a multiple of poll_ps, handles up to `batch` of the completions already there, oldest
    first."""
    t, handled, i = 0, 0, len(finishes) - 1
    while True:
        t += poll_ps
        waiting = sum(1 for f in finishes[handled:] if f <= t)
        handled += min(batch, waiting)
        if handled > i:
            return t


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#slot-release",
        "Do the chapter's §7.4.4 figures come out when completions are handled 4 per 20 µs: "
        "transfers done at 20 µs with 16 slots and at 48 µs with 8, and 1.64 GB/s sustained?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    case.parameters = {
        "path": "UB, h0 -> sw0 -> h1, 400 Gb/s, wire overhead 0 B, cc none, unlimited window",
        "requests": "8 KiB writes, all posted at 0, launched ≥ 1 µs apart, held 5 µs on the "
                    "idle path (cable delay 1186.49 ns)",
        "completions": "ub.completion_poll_interval 20 µs, ub.completion_poll_batch 4",
        "rows": "; ".join(f"{r[0]}: {r[2]} requests" for r in ROWS),
    }
    case.formulas = [
        "launch_i = max(launch_{i−1} + δ, release of the slot it reuses); finish_i = launch_i + T",
        "release = the first poll (multiple of 20 µs) at or after the completion that still has "
        "room in its batch of 4, oldest completion first",
        "sustained rate = 4 × 8 KiB / 20 µs = 1.64 GB/s",
    ]
    case.method = ["flows.csv launch_ns and finish_ns of every request"]
    for label, N, K in ROWS:
        flows = [{"src": "h0", "dst": "h1", "bytes": M} for _ in range(K)]
        sub = label.replace(" ", "-").replace(",", "")
        run_dir, params = ctx.run(case, sub, path, {"workload.flows": flows,
                                                    "ub.max_inflight_requests": N})
        p = concurrency.predict(params, label)
        if p["T"] != HOLD_PS:
            raise ValidationError(f"{label}: the path's hold time is {p['T']} ps, not 5 µs")
        poll = parse_time_ps(scenario.require(params, "ub.completion_poll_interval", label))
        batch = int(scenario.require(params, "ub.completion_poll_batch", label))
        launch, finish = polls_timeline(K, N, p["delta"], p["T"], poll, batch)
        rows = rundir.read_rows(run_dir, "flows.csv",
                               ["flow_id", "launch_ns", "finish_ns", "delivered_bytes"],
                               {"flow_id": int, "launch_ns": int, "finish_ns": int,
                                "delivered_bytes": int})
        rows.sort(key=lambda r: r["flow_id"])
        if len(rows) != K or any(r["finish_ns"] < 0 for r in rows):
            raise ValidationError(f"{label}: not every request finished")
        m = parse_bytes(M)
        ns = 1.0  # flows.csv times are whole ns
        case.checks.append(Check(
            label, "last transfer done", "µs", max(finish) / 1e6,
            max(r["finish_ns"] for r in rows) / 1e3, "max finish_i (timeline above)",
            base_rel=0.0, allowances=[("finish_ns is whole ns", ns / 1e3)],
            method="flows.csv max finish_ns"))
        worst = max(abs(r["launch_ns"] * 1000 - launch[i]) for i, r in enumerate(rows))
        case.checks.append(Check(
            label, "every launch on the timeline (largest gap)", "ns", 0.0, worst / 1000,
            "launch_i from the poll that freed its slot", base_rel=0.0,
            allowances=[("launch_ns is whole ns", ns)], method="flows.csv launch_ns"))
        if label == "8 slots":
            for i, chapter_us in ((8, 20), (12, 40)):
                case.checks.append(Check(
                    label, f"request {i} launches (the chapter: {chapter_us} µs)", "µs",
                    float(chapter_us), rows[i]["launch_ns"] / 1e3, "a poll frees 4 slots",
                    base_rel=0.0, allowances=[("launch_ns is whole ns", ns / 1e3)],
                    method="flows.csv launch_ns"))
        if label.startswith("sustained"):
            fin = sorted(r["finish_ns"] for r in rows)
            j = 32
            span = fin[-1] - fin[-1 - j]
            sim = j * m / (span * 1e-9)
            case.checks.append(Check(
                label, "sustained bandwidth (the chapter: 1.64 GB/s)", "GB/s",
                batch * m / (poll * 1e-12) / 1e9, sim / 1e9, "batch × m / poll interval",
                base_rel=0.0, allowances=[("finish_ns is whole ns", sim / (span - 1) / 1e9)],
                method=f"flows.csv: {j}·m over the last {j} finishes ({span} ns)"))
    return case
