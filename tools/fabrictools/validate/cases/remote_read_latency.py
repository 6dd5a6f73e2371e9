"""The latency of one remote 64 B read, stage by stage: Datacenter networks, chapter 7, §7.3.3
(docs/models.md#remote-read-stages).

The chapter's table, in ns (the NIC pipelines are cycles at 322 MHz; totals summed before
rounding):

    stage                          PCIe NIC    UB async (URMA)    UB Load
    post via library                  50            50
    descriptor build                  30            30
    PCIe doorbell                    150
    NIC descriptor DMA read          500
    on-chip bus                                     30               30
    requester TX pipeline          9 cyc        25 cyc            8 cyc
    line                             100           100              100
    target RX pipeline             9 cyc        25 cyc            8 cyc
    target DMA read (PCIe)           500
    target on-chip bus                              30               30
    DRAM row hit                      30            30               30
    target TX pipeline             9 cyc        25 cyc            8 cyc
    line back                        100           100              100
    requester RX pipeline          9 cyc        25 cyc            8 cyc
    payload DMA write                250
    completion DMA write             250
    on-chip completion                              30               30
    CQ poll                           70             5
    library poll                      30            30
    sequence-number serialization     50
    total                         2221.8        745.56           419.38   (printed 2222/746/419)

and a fourth path, the PCIe NIC with the descriptor built by a processor inside it (no doorbell,
no descriptor DMA: 650 ns less, ≈ 1572 ns, not simulated by the author). With a one-way line
delay L each total is fixed + 2L: 2022 + 2L, 546 + 2L, 219 + 2L; the PCIe/Load ratio is 5.3 at
L = 100 ns and 2.5 at L = 500 ns (figure 7-20). Eight independent reads take ≈ 17.8 µs one
after another and ≈ 2.2 µs posted together.

Packet level (examples/validation/remote-read-latency.yaml): two NICs joined by one cable of
delay L, 400 Gb/s, 24 B of wire overhead per frame, no switch. The table leaves out what the
wire adds besides L: the serialization of the request frame and of the response frame
(RoCE READ request 74 B, response 126 B; UB READ or LOAD request 66 B, response 130 B; each
⌈(b + 24)·8 / 400 Gb/s⌉ ps). So the packet-level total must be the table's sum with the
pipelines rounded once each to the ps (9 cycles = 27 950 ps, 25 = 77 640 ps, 8 = 24 845 ps)
plus those two frames, to the ps (requests.csv latency_ps). Nothing else lies on the path: the
target's ACK of a UB request leaves before the response is ready, and no other traffic shares
the cable. The same reads through a switch (two 50 ns cables: the same 100 ns line) pay each
frame's serialization twice (store and forward).
"""

import os

from ... import rundir
from ..core import CaseResult, Check, ValidationError
from ..common import wire_overhead

CASE_ID = "remote-read-latency"
TITLE = "Chapter 7 §7.3.3: one 64 B read, 2222 / 746 / 419 ns, fixed + 2L, eight reads"
SCENARIO = "remote-read-latency.yaml"
CLOCK_HZ = 322_000_000
RATE_BPS = 400_000_000_000

# The chapter's table (ns, cycles), independent of the simulator's presets.
TABLE = {
    "pcie": {"post": 50, "descriptor": 30, "doorbell": 150, "descriptor DMA": 500,
             "cycles": 9, "target DMA read": 500, "DRAM": 30, "payload DMA write": 250,
             "completion DMA write": 250, "CQ poll": 70, "library poll": 30, "sequence": 50},
    "onchip": {"post": 50, "descriptor": 30, "bus": 30, "cycles": 25, "target bus": 30,
               "DRAM": 30, "completion bus": 30, "CQ poll": 5, "library poll": 30},
    "load": {"bus": 30, "cycles": 8, "target bus": 30, "DRAM": 30, "completion bus": 30},
}
# The fourth path: the PCIe table without the doorbell and the descriptor DMA.
TABLE["pcie_nic_cpu"] = {k: v for k, v in TABLE["pcie"].items()
                         if k not in ("doorbell", "descriptor DMA")}

# (preset, transport, verb, request frame B, response frame B, printed total, printed fixed,
#  the chapter's wording)
PATHS = [
    ("pcie", "roce", "read", 74, 126, 2222, 2022, "PCIe peripheral NIC, asynchronous read"),
    ("onchip", "ub", "read", 66, 130, 746, 546, "UB asynchronous read (URMA), on-chip bus"),
    ("load", "ub", "load", 66, 130, 419, 219, "UB Load through the on-chip controller"),
    ("pcie_nic_cpu", "roce", "read", 74, 126, 1572, None,
     "4th path: descriptor built by the NIC's processor (not simulated by the author)"),
]
LINES_NS = [50, 100, 200, 500]
QUICK_LINES_NS = [50, 100, 500]


def pipeline_ps(cycles):
    """cycles / 322 MHz, to the nearest ps (rounded once per pipeline pass)."""
    return (2 * cycles * 10 ** 12 + CLOCK_HZ) // (2 * CLOCK_HZ)


def fixed_ps(preset):
    """The table's total without the two line crossings, the pipelines to the ps."""
    row = TABLE[preset]
    return sum(v * 1000 for k, v in row.items() if k != "cycles") + 4 * pipeline_ps(row["cycles"])


def chapter_fixed_ns(preset):
    """The same with the pipelines as exact fractions of a ns (the chapter's own sum)."""
    row = TABLE[preset]
    return sum(v for k, v in row.items() if k != "cycles") + 4 * row["cycles"] / CLOCK_HZ * 1e9


def frame_ps(stored, wo):
    return -(-(stored + wo) * 8 * 10 ** 12 // RATE_BPS)


def topology(line_ns):
    """The two NICs and the one cable of one-way delay line_ns."""
    return {"nodes": [{"name": "h0", "type": "host"}, {"name": "h1", "type": "host"}],
            "links": [{"a": "h0", "b": "h1", "rate": "400Gbps", "delay": f"{line_ns}ns"}]}


def latency_rows(run_dir, label):
    rows = rundir.read_rows(run_dir, rundir.REQUESTS_CSV,
                            ["flow_id", "latency_ps", "finish_ps"],
                            {"flow_id": int, "latency_ps": int, "finish_ps": int})
    if not rows or any(r["latency_ps"] is None or r["latency_ps"] < 0 for r in rows):
        raise ValidationError(f"{label}: not every read completed")
    return sorted(rows, key=lambda r: r["flow_id"])


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#remote-read-stages",
        "Does one remote 64 B read take the chapter's stage sum on each host interface "
        "placement (2222, 746 and 419 ns at L = 100 ns, 1572 ns for the NIC-processor path), "
        "grow by exactly 2L with the line, and do eight independent reads overlap?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    lines = QUICK_LINES_NS if ctx.quick else LINES_NS
    case.parameters = {
        "path": "h0 — h1, one cable of one-way delay L, 400 Gb/s, wire overhead 24 B, no switch",
        "read": "64 B, RoCE READ (roce.host_path pcie, pcie_nic_cpu) or UB READ (ub.host_path "
                "onchip) or UB load (ub.host_path load)",
        "L": ", ".join(f"{x} ns" for x in lines),
    }
    case.formulas = [
        "T = Σ table stages (pipelines cycles/322 MHz, rounded to the ps once per pass) + 2L",
        "packet level adds the request and the response frame: ⌈(b + 24)·8/400 Gb/s⌉ each",
        "ratio(L) = T_pcie(L) / T_load(L); eight together: T + 7·18.6 ns (RoCE RequestInterval)",
    ]
    case.method = ["requests.csv latency_ps (finish − post, ps) of each read"]
    measured = {}
    for preset, transport, verb, req, resp, printed, printed_fixed, wording in PATHS:
        for L in lines:
            if preset == "pcie_nic_cpu" and L != 100:
                continue
            label = f"{preset}, L = {L} ns"
            run_dir, params = ctx.run(case, f"{preset}-L{L}", path, {
                "transport": transport,
                f"{transport}.host_path": preset,
                "topology": topology(L),
                "workload.flows": [{"src": "h0", "dst": "h1", "bytes": "64B", "verb": verb}]})
            wo = wire_overhead(params)
            extra = frame_ps(req, wo) + frame_ps(resp, wo)
            got = latency_rows(run_dir, label)[0]["latency_ps"]
            measured[(preset, L)] = got
            derived = fixed_ps(preset) + 2 * L * 1000 + extra
            case.checks.append(Check(
                label, "packet-level read latency", "ns", derived / 1000, got / 1000,
                f"table sum {fixed_ps(preset) / 1000} + 2L + frames {req} B and {resp} B "
                f"({extra / 1000} ns)", base_rel=0.0, method="requests.csv latency_ps"))
            if L == 100:
                chapter = chapter_fixed_ns(preset) + 200
                case.checks.append(Check(
                    label, f"the chapter's total ({wording})", "ns", float(printed), chapter,
                    "the table's stages summed before rounding", base_rel=0.0,
                    allowances=[("the chapter prints whole ns", 0.5)],
                    method="the table above (no simulation)"))
                case.checks.append(Check(
                    label, "packet level minus the frames vs the chapter's total", "ns",
                    float(printed), (got - extra) / 1000,
                    "packet level less the two frames the table leaves out", base_rel=0.0,
                    allowances=[("the chapter prints whole ns", 0.5),
                                ("pipelines rounded to the ps (4 passes)", 0.002)],
                    method="requests.csv latency_ps"))
            if printed_fixed is not None and L == lines[-1]:
                slope = (got - measured[(preset, lines[0])]) / (1000 * (L - lines[0]))
                case.checks.append(Check(
                    preset, f"slope dT/dL from L = {lines[0]} to {L} ns", "", 2.0, slope,
                    "every path crosses the line twice", base_rel=0.0,
                    method="requests.csv latency_ps"))
                case.checks.append(Check(
                    preset, "fixed part (the chapter: " + str(printed_fixed) + " + 2L)", "ns",
                    float(printed_fixed), (got - 2 * L * 1000 - extra) / 1000,
                    "packet level less 2L and the two frames", base_rel=0.0,
                    allowances=[("the chapter prints whole ns", 0.5)],
                    method="requests.csv latency_ps"))
    # One line per path: the chapter's total, the table summed here, and the packet level.
    for preset, transport, verb, req, resp, printed, printed_fixed, wording in PATHS:
        sweep = ", ".join(f"L = {L}: {measured[(preset, L)] / 1000:.3f}" for L in lines
                          if (preset, L) in measured)
        derived = fixed_ps(preset) + 200_000 + frame_ps(req, wo) + frame_ps(resp, wo)
        case.notes.append(
            f"{wording}: the chapter {printed} ns, its table summed "
            f"{chapter_fixed_ns(preset) + 200:.2f} ns, derived for this fabric at L = 100 ns "
            f"(pipelines to the ps, frames {req} + {resp} B) {derived / 1000:.3f} ns; packet "
            f"level (ns) {sweep}")
    for L in lines:
        ratio = measured[("pcie", L)] / measured[("load", L)]
        derived = ((fixed_ps("pcie") + 2 * L * 1000 + frame_ps(74, wo) + frame_ps(126, wo)) /
                   (fixed_ps("load") + 2 * L * 1000 + frame_ps(66, wo) + frame_ps(130, wo)))
        note = {100: "the chapter: 5.3× at L = 100 ns (2222 / 419)",
                500: "the chapter: 2.5× at L = 500 ns (3022 / 1219)"}.get(L, "")
        case.checks.append(Check(
            f"ratio, L = {L} ns", "PCIe NIC / UB Load", "×", derived, ratio,
            "T_pcie(L) / T_load(L), frames included", base_rel=0.0,
            allowances=[("latency_ps is whole ps", 1e-6)], method="requests.csv", note=note))
        if L in (100, 500):
            chapter = (chapter_fixed_ns("pcie") + 2 * L) / (chapter_fixed_ns("load") + 2 * L)
            case.checks.append(Check(
                f"ratio, L = {L} ns", "the chapter's ratio from its table", "×",
                {100: 5.3, 500: 2.5}[L], chapter, "(2022 + 2L) / (219 + 2L)", base_rel=0.0,
                allowances=[("the chapter prints one decimal", 0.05)], method="the table"))
    # Through a switch: two 50 ns cables make the same 100 ns one-way line; store and forward
    # serializes each frame once more (no other switching latency: docs/models.md#frame-timing).
    for preset, transport, verb, req, resp, printed, printed_fixed, wording in PATHS[:3]:
        label = f"{preset}, via a switch (2 × 50 ns cables)"
        run_dir, params = ctx.run(case, f"{preset}-switch", path, {
            "transport": transport,
            f"{transport}.host_path": preset,
            "topology": {"generator": "star", "hosts": 2, "rate": "400Gbps", "delay": "50ns"},
            "workload.flows": [{"src": "h0", "dst": "h1", "bytes": "64B", "verb": verb}]})
        wo = wire_overhead(params)
        extra = 2 * (frame_ps(req, wo) + frame_ps(resp, wo))
        got = latency_rows(run_dir, label)[0]["latency_ps"]
        case.checks.append(Check(
            label, "packet-level read latency", "ns", (fixed_ps(preset) + 200_000 + extra) / 1000,
            got / 1000, f"table sum + 2L + each frame twice, store and forward "
            f"({extra / 1000} ns)", base_rel=0.0, method="requests.csv latency_ps"))
    # Eight independent reads on the PCIe path, posted together: each launches 18.6 ns after the
    # one before (the RoCE request pipeline), nothing else queues (74 B and 126 B frames take
    # 1.96 and 2.96 ns at 400 Gb/s).
    run_dir, params = ctx.run(case, "pcie-eight-together", path, {
        "transport": "roce", "roce.host_path": "pcie",
        "workload.flows": [{"src": "h0", "dst": "h1", "bytes": "64B", "verb": "read"}] * 8})
    rows = latency_rows(run_dir, "eight together")
    wo = wire_overhead(params)
    one = fixed_ps("pcie") + 200_000 + frame_ps(74, wo) + frame_ps(126, wo)
    if len(rows) != 8:
        raise ValidationError(f"eight together: {len(rows)} reads completed")
    for i, r in enumerate(rows):
        case.checks.append(Check(
            "eight reads posted together", f"read {i} completes", "ns",
            (one + i * 18600) / 1000, r["finish_ps"] / 1000, f"T + {i} × 18.6 ns",
            base_rel=0.0, method="requests.csv finish_ps",
            note="the chapter: all eight ≈ 2.2 µs" if i == 7 else ""))
    case.checks.append(Check(
        "eight reads one after another", "8 × one read", "µs", 17.8,
        8 * measured[("pcie", 100)] / 1e6,
        "each posted when the one before completes: 8 T (tests/host/remote-read-stages-test.cc "
        "runs it)", base_rel=0.0, allowances=[("the chapter prints ≈ 17.8 µs", 0.05)],
        method="8 × requests.csv latency_ps of one read"))
    return case
