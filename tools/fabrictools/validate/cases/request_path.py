"""Datacenter networks, chapter 7, §7.3.4 (Example 7.3) at the chapter's own numbers
(docs/models.md#concurrency-limits).

A slot is held T = 2 µs per 256 B request; with N slots, launch interval δ and a path of B:

    B_eff = min(B, N·m/T, m/δ)

    128 slots                  N·m/T = 128 × 256 B / 2 µs   = 16.4 GB/s
    one slot                   m/T   = 256 B / 2 µs         = 0.128 GB/s
    δ = 18.6 ns (RoCE RC)      m/δ   = 256 B / 18.6 ns      = 13.7 GB/s (slots unlimited)
    128 slots and δ = 18.6 ns  min(16.4, 13.7)              = 13.7 GB/s
    391 slots                  ⌈B·T/m⌉ = ⌈50 GB/s × 2 µs / 256 B⌉ = 391 reach B = 50 GB/s;
                               390 slots give 49.92 GB/s
    64 B transactions          m/δ = 10.3 GB/s at 6.2 ns (UB), 3.4 GB/s at 18.6 ns (RoCE RC)
    4 KiB transactions         ⌈50 GB/s × 2 µs / 4 KiB⌉ = 25 slots reach 50 GB/s; 24 give 49.15

The chapter's m/δ for 4 KiB (660 GB/s at 6.2 ns, 220 GB/s at 18.6 ns) exceeds any 400 Gb/s
port; no path of the simulator carries it, so those two figures are not run.

The path is the concurrency case's (examples/validation/request-path.yaml: UB, h0 -> sw0 -> h1,
no congestion control, unlimited window, no wire overhead) with the cable delay D chosen so that
the idle-path hold time T = S + 2D + T_f + 2·T_ack + 2D is exactly 2 µs. The chapter's 50 GB/s
is payload: for the 391-slot rows the link runs at 503.125 Gb/s, at which a 256 B request with
its 66 B of UB headers takes m/50 GB/s = 5.12 ns (for the 4 KiB rows 406.4453125 Gb/s: 4162 B
in 81.92 ns), i.e. the path carries exactly 50 GB/s of payload (a real 400 Gb/s port carries 39.75 GB/s of 256 B payloads; the chapter's figure ignores
headers, the row makes the same assumption explicit instead of hiding it).

The steady-state rate is read from flows.csv as j·m over the time the last j requests took to
finish (j = N when slots bind: request i + N launches the moment request i's slot is free, so
its finish is exactly T later; j = K/2 otherwise). Each row is judged twice: against
min(B, N·m/T, m/δ) computed from the path (exact, to the whole-ns rounding of finish_ns), and
against the figure the chapter prints (to its printed digits).
"""

import os

from ... import rundir
from ..core import CaseResult, Check, ValidationError
from . import concurrency

CASE_ID = "request-path"
TITLE = "Chapter 7 §7.3.4 at its own numbers: 128 × 256 B slots, 18.6 ns launches, 391 slots"
SCENARIO = "request-path.yaml"
M = "256B"
T_PS = 2_000_000  # the chapter's slot hold time

# (label, link rate, cable delay, N (0 = unlimited), δ, K requests, chapter's figure GB/s,
#  printed-digit allowance GB/s, the chapter's wording)
ROWS = [
    ("128 slots", "400Gbps", "495700ps", 128, "6.2ns", 640, 16.4, 0.05,
     "128 × 256 B / 2 µs ≈ 16.4 GB/s"),
    ("one slot", "400Gbps", "495700ps", 1, "6.2ns", 6, 0.128, 0.0005,
     "one transaction in flight: 0.128 GB/s"),
    ("δ = 18.6 ns, slots unlimited", "400Gbps", "495700ps", 0, "18.6ns", 512, 13.7, 0.1,
     "256 B every 18.6 ns ≈ 13.7 GB/s (printed ≈, 256/18.6 = 13.76)"),
    ("128 slots and δ = 18.6 ns", "400Gbps", "495700ps", 128, "18.6ns", 640, 13.7, 0.1,
     "upper bound with both limits: 13.7 GB/s"),
    ("391 slots (50 GB/s payload path)", "503.125Gbps", "496581ps", 391, "5.12ns", 1955, 50.0,
     0.05, "391 slots keep 50 GB/s busy for 2 µs"),
    ("390 slots (50 GB/s payload path)", "503.125Gbps", "496581ps", 390, "5.12ns", 1950,
     390 * 256 / 2e-6 / 1e9, 0.0, "one slot short of ⌈B·T/m⌉ = 391: N·m/T = 49.92 GB/s"),
    ("64 B, δ = 6.2 ns (UB)", "400Gbps", "497620ps", 0, "6.2ns", 512, 10.3, 0.05,
     "m/δ for 64 B transactions: 10.3 GB/s"),
    ("64 B, δ = 18.6 ns (RoCE RC)", "400Gbps", "497620ps", 0, "18.6ns", 512, 3.4, 0.05,
     "m/δ for 64 B transactions: 3.4 GB/s"),
    ("4 KiB, 25 slots (50 GB/s payload path)", "406.4453125Gbps", "457977ps", 25, "6.2ns", 250,
     50.0, 0.05, "4 KiB per transaction: 25 slots suffice for 50 GB/s at 2 µs"),
    ("4 KiB, 24 slots (50 GB/s payload path)", "406.4453125Gbps", "457977ps", 24, "6.2ns", 240,
     24 * 4096 / 2e-6 / 1e9, 0.0, "one slot short of ⌈B·T/m⌉ = 25: N·m/T = 49.15 GB/s"),
]
QUICK_ROWS = [0, 2, 4, 5, 7, 8]


def steady_rate(rows, m, j):
    """j·m / (finish of the last request − finish of the j-th before it), in B/s, and the
    allowance for finish_ns being whole ns (two truncations: up to 1 ns of span each way)."""
    fin = sorted(r["finish_ns"] for r in rows)
    span_ns = fin[-1] - fin[-1 - j]
    if span_ns <= 0:
        raise ValidationError(f"{j} requests finished in {span_ns} ns")
    rate = j * m / (span_ns * 1e-9)
    return rate, rate * 1.0 / (span_ns - 1), span_ns


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#concurrency-limits",
        "Do the figures of Example 7.3 come out of the simulated NIC: 16.4 GB/s from 128 slots "
        "of 256 B held 2 µs, 13.7 GB/s from an 18.6 ns launch interval, and line rate only from "
        "391 slots?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    case.parameters = {
        "path": "UB, h0 -> sw0 -> h1, wire overhead 0 B, cc none, unlimited window, MTU 4096 B",
        "requests": "K writes of m = 256 B h0 -> h1, all posted at 0 (322 B frames with UB "
                    "headers, 108 B execution ACKs)",
        "hold time": "cable delay D such that T = S + 2D + T_f + 2·T_ack + 2D = 2 µs exactly: "
                     "495.7 ns at 400 Gb/s, 496.581 ns at 503.125 Gb/s",
        "rows": "; ".join(f"{r[0]}: {r[1]}, N {r[3] or '∞'}, δ {r[4]}, K {r[5]}" for r in ROWS),
    }
    case.formulas = [
        "B_eff = min(B, N·m/T, m/δ) (Datacenter networks, chapter 7, §7.3.4)",
        "N ≥ ⌈B·T/m⌉ = ⌈50 GB/s × 2 µs / 256 B⌉ = 391 for line rate",
        "B = m/S, S the request's serialization (5.12 ns at 503.125 Gb/s: 50 GB/s of payload)",
    ]
    case.method = ["flows.csv: j·m / (finish of the last request − finish of the j-th before "
                   "it), j = N when slots bind, else K/2"]
    rows_run = [ROWS[i] for i in QUICK_ROWS] if ctx.quick else ROWS
    for label, rate, delay, N, delta, K, printed, digits, wording in rows_run:
        m_text = "64B" if label.startswith("64 B") else "4KiB" if label.startswith("4 KiB") else M
        flows = [{"src": "h0", "dst": "h1", "bytes": m_text} for _ in range(K)]
        sub = "".join(c if c.isalnum() else "-" for c in
                      label.replace("δ", "d").replace("∞", "inf"))
        run_dir, params = ctx.run(case, sub, path, {
            "topology": {"generator": "star", "hosts": 2, "rate": rate, "delay": delay},
            "workload.flows": flows,
            "ub.max_inflight_requests": N,
            "ub.request_interval": delta})
        p = concurrency.predict(params, label)
        if p["T"] != T_PS:
            raise ValidationError(f"{label}: the path's hold time is {p['T']} ps, not 2 µs")
        rows = rundir.read_rows(run_dir, "flows.csv", ["bytes", "finish_ns", "delivered_bytes"],
                               {"bytes": int, "finish_ns": int, "delivered_bytes": int})
        if len(rows) != K or any(r["finish_ns"] < 0 or r["delivered_bytes"] != r["bytes"]
                                 for r in rows):
            raise ValidationError(f"{label}: not every request finished")
        j = N if p["regime"] == "N·m/T" else K // 2
        sim, ns_allow, span = steady_rate(rows, p["m"], j)
        method = f"flows.csv: {j}·m over the last {j} finishes ({span} ns)"
        case.checks.append(Check(
            label, "steady-state bandwidth", "GB/s", p["bound"] / 1e9, sim / 1e9,
            f"min(B, N·m/T, m/δ) = {p['regime']}", base_rel=0.0,
            allowances=[("finish_ns is whole ns (1 ns of the span)", ns_allow / 1e9)],
            method=method,
            note=f"B = {p['B'] / 1e9:.3f} GB/s, N·m/T = {p['slot'] / 1e9:.3f} GB/s, "
                 f"m/δ = {p['launch'] / 1e9:.3f} GB/s"))
        case.checks.append(Check(
            label, "the chapter's figure", "GB/s", printed, sim / 1e9, wording, base_rel=0.0,
            allowances=[("the chapter prints the figure rounded", digits),
                        ("finish_ns is whole ns (1 ns of the span)", ns_allow / 1e9)],
            method=method))
    return case
