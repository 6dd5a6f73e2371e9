"""Job timelines at packet level against the chapter's formulas (docs/models.md#job-timelines;
"Datacenter networks", chapter 7, §7.2.2, §7.2.3, §7.6.3).

On a star (rate R, cable d, frame D = MTU + 58 B + wire overhead, ACK A = 62 B + overhead on
the wire), a transfer of n full frames whose last frame is stored by the switch and acknowledged
over two links takes

    T(n) = α + (n + 1)·D/R + 4d + 2·A/R

  - pipeline (§7.2.2, figure 7-9, examples/job-pipeline.yaml): p stages of τ, m microbatches,
    8 KiB between stages: (m + p − 1)·τ + (p − 1)·T(2); one 64 MiB prefill tensor T(16384);
  - expert dispatch into one receiver (§7.2.3, figure 7-10): s senders × n frames into one
    host cross its link: T(s·n) — the hot receiver; combine, its transpose, the same;
  - tails (§7.6.3, examples/job-tails.yaml): 100 ring exchanges of four, one rank 2 ms late
    once, one link down for 10 ms: p99 = the late one = 2 ms + 6 (α + n (D + A)/R + D/R + 4d);
    the recovered one at least 10 ms + the exchange, at most that + RtoHigh + the exchange.
  - request slots (§7.6.2 with §7.3.4, examples/job-example-7-6.yaml sequential and
    hierarchical; not with --quick: about a minute): each NIC's 24 MiB between the servers as
    K = 2 × 49152 requests of m = 256 B through N slots, a slot free only when software, polling
    completions every P = 2 µs, has handled its completion. With N = 128 each poll launches
    exactly N requests (every batch starts on the poll grid, P after the one before): the NIC
    carries N·m/P = 16.384 GB/s, 24 MiB in 768 turnarounds = 1.536 ms; the step is the
    whole-message run's with its two inter-server rounds of 3072 frames, 3072 (D + A)/R each,
    replaced by 384 P each. With N = 391 the slots no longer bind; 256 B requests leave every
    (D₂₅₆ + A)/R = (256 + 74 + 24 + 86) B / 400 Gb/s = 8.8 ns (the link, headers and the peer's
    ACKs), so each round is 49152 × 8.8 ns instead.
"""

import csv
import os

import yaml

from .. import scenario
from ..common import Link, mtu_frame, star_link, wire_overhead
from ..core import CaseResult, Check, ValidationError
from ..units import cable_delay_s, parse_bytes, parse_rate_bps, parse_time_s
from ... import rundir

CASE_ID = "job-timelines"
TITLE = "Job phases: pipeline, expert dispatch, tails"
ACK = 62          # bytes of an ACK frame before the wire overhead
RETH = 16         # the first frame of a WRITE carries a RETH
RTO_HIGH = 320e-6  # s: ns3::RdmaNic::RtoHigh


EX76 = "job-example-7-6.yaml"
SLOT_P_NS = 2000    # completion poll interval: the slot turnaround
REQUEST = 256       # bytes per request
REQUESTS = 49152    # per NIC and inter-server round: 12 MiB / 256 B
FRAMES = 3072       # per NIC and round with whole messages: 12 MiB / 4096 B
RETH_HEADERS = 74   # bytes of headers of a WRITE-only frame (58 B + the 16 B RETH)


def example_7_6_jobs(root, request_size=None):
    """Example 7.6's job, sequential (compute 20 + 0 ms) and hierarchical, as workload.jobs."""
    with open(os.path.join(root, "examples", EX76)) as f:
        jobs = yaml.safe_load(f)["workload"]["jobs"]
    phases = jobs[0]["phases"]
    phases[0]["duration"], phases[1]["duration"] = "20ms", "0ms"
    phases[2]["algorithm"] = "hierarchical"
    if request_size:
        phases[2]["request_size"] = request_size
    return jobs


def request_batches(run_dir, src):
    """The 256 B requests host src launched, per inter-server round (by post time): lists of
    (launch_ns, finish_ns) per batch, a batch being the launches after a gap of over 1 µs."""
    rounds = {}
    with open(os.path.join(run_dir, "flows.csv")) as f:
        for r in csv.DictReader(f):
            if r["src"] == src and r["bytes"] == str(REQUEST):
                rounds.setdefault(int(r["start_ns"]), []).append(
                    (int(r["launch_ns"]), int(r["finish_ns"])))
    out = []
    for _, reqs in sorted(rounds.items()):
        reqs.sort()
        batches = [[reqs[0]]]
        for q in reqs[1:]:
            if q[0] - batches[-1][-1][0] > 1000:
                batches.append([q])
            else:
                batches[-1].append(q)
        out.append(batches)
    return out


def request_slots(ctx, case):
    """Example 7.6 with 128 and 391 request slots per NIC (§7.6.2)."""
    nic = "roce."
    path = os.path.join(ctx.root, "examples", EX76)
    run_dir, params = ctx.run(case, "example-7.6-whole-messages", path,
                              {"workload.jobs": example_7_6_jobs(ctx.root)})
    whole = step_times(run_dir)[0]
    _, frame = mtu_frame(params)
    # The scenario names its topology file (topologies/rail-2servers.yaml): the NIC's rate.
    with open(os.path.join(ctx.root, "topologies", "rail-2servers.yaml")) as f:
        nic_rate = parse_rate_bps(yaml.safe_load(f)["nic_rate"])
    rail = Link(nic_rate, 0.0, wire_overhead(params))
    # Each direction of a NIC's link carries its frames and the ACKs of the peer's frames.
    whole_round = FRAMES * (rail.tx_s(frame) + rail.tx_s(ACK))
    small_round = REQUESTS * (rail.tx_s(REQUEST + RETH_HEADERS) + rail.tx_s(ACK))
    for n in (128, 391):
        label = f"example-7.6-slots-{n}"
        run_dir, params = ctx.run(case, label, path, {
            "workload.jobs": example_7_6_jobs(ctx.root, f"{REQUEST}B"),
            nic + "request_interval": "5.12ns",
            nic + "completion_poll_interval": f"{SLOT_P_NS}ns",
            nic + "completion_poll_batch": 391,
            nic + "max_inflight_requests": n})
        step = step_times(run_dir)[0]
        if n == 128:
            batches = request_batches(run_dir, "gpu0_0")
            if len(batches) != 2:
                raise ValidationError(f"{label}: {len(batches)} inter-server rounds, expected 2")
            sizes, gaps, off_grid = [], [], []
            for rnd in batches:
                # The first batch launches with the round (off the grid; the first poll's batch
                # merges into it when it comes within 1 µs of its last launch); the others at
                # the polls.
                sizes += [len(b) for b in rnd[1:-1]]
                gaps += [b[0][0] - a[0][0] for a, b in zip(rnd[1:], rnd[2:])]
                off_grid += [b[0][0] % SLOT_P_NS for b in rnd[1:]]
            case.checks.append(Check(
                label, "time between a slot's launches (turnaround)", "ns", SLOT_P_NS,
                max(gaps, key=lambda g: abs(g - SLOT_P_NS)), "P: the completion poll interval",
                base_rel=0.0, method="flows.csv launch_ns of host gpu0_0's 256 B requests: "
                "the batch after a poll against the batch before (the worst)"))
            case.checks.append(Check(
                label, "batch start off the poll grid", "ns", 0,
                max(off_grid), "a batch launches at a poll: a multiple of P", base_rel=0.0,
                method="flows.csv launch_ns mod P, the worst"))
            case.checks.append(Check(
                label, "requests per turnaround", "", n, min(sizes),
                "N: every slot is used each turnaround", base_rel=0.0,
                method="flows.csv: the smallest full batch"))
            case.checks.append(Check(
                label, "requests per turnaround", "", n, max(sizes), "N: no more than the slots",
                base_rel=0.0, method="flows.csv: the largest batch"))
            case.checks.append(Check(
                label, "remote bandwidth per NIC", "GB/s", n * REQUEST / (SLOT_P_NS * 1e-9) / 1e9,
                n * REQUEST / (min(gaps) * 1e-9) / 1e9, "N·m/T = 128 × 256 B / 2 µs",
                base_rel=0.0, method="N·m over the measured turnaround"))
            remote = 2 * (REQUESTS // n) * SLOT_P_NS * 1e-9  # 24 MiB at N·m/T: 1.536 ms
            derived = whole - 2 * whole_round + remote
            case.checks.append(Check(
                label, "step time", "s", derived, step,
                "the whole-message step, its two rounds of 3072 (D + A)/R replaced by 24 MiB at "
                "N·m/T = 768 turnarounds of P = 1.536 ms", base_rel=0.0,
                allowances=[("each round waits for the first poll after its first batch and "
                             "ends with its last batch's drain (within one P per round)",
                             2 * SLOT_P_NS * 1e-9)],
                method=f"summary.json step_time_ns; the whole-message step {whole * 1e3:.6f} ms"))
            case.checks.append(Check(
                label, "step time, the chapter", "s", 24.3e-3, step,
                "20 + 2.3 + 2 ms (1.5 ms of the 2.3 the remote transfer)", info=True,
                note="the chapter prints ≈; 24 MiB at 16.4 GB/s plus its 0.8 ms of local "
                     "exchange and launch is 24.34 ms"))
        else:
            derived = whole - 2 * whole_round + 2 * small_round
            case.checks.append(Check(
                label, "step time", "s", derived, step,
                "the whole-message step, its two rounds replaced by 49152 (D₂₅₆ + A)/R: the "
                "link binds, not the slots", base_rel=0.0,
                allowances=[("the rounds' last frame and ACK, 256 B instead of 4 KiB, per "
                             "round", 2 * rail.tx_s(frame))],
                method="summary.json step_time_ns"))
            case.checks.append(Check(
                label, "step time, the chapter", "s", 23.3e-3, step,
                "391 slots restore ≈ 23.3 ms", info=True,
                note="the chapter's 50 GB/s is payload; here a 256 B request takes 354 B on the "
                     "wire and its ACK 86 B the other way: 29.1 GB/s, so 23.69 ms. With 4 KiB "
                     "requests (one frame each) the step is 23.355 ms (results/job-timelines)"))


def step_times(run_dir):
    summary = rundir.read_summary(run_dir)
    return [s["step_time_ns"] * 1e-9 for s in summary["jobs"][0]["steps"]]


def transfer(link, frame, frames, alpha):
    """T(n): n full frames through one link of the star, stored once, acknowledged."""
    return (alpha + (frames + 1) * link.tx_s(frame) + 4 * link.delay_s
            + 2 * link.tx_s(ACK))


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#job-timelines",
        "Do job phases at packet level take the times the chapter's formulas give on this "
        "fabric: a four-stage pipeline, an expert dispatch into one NIC, 100 communications "
        "with one late and one recovering?")
    pipeline = os.path.join(ctx.root, "examples", "job-pipeline.yaml")
    tails = os.path.join(ctx.root, "examples", "job-tails.yaml")
    case.scenario = ("examples/job-pipeline.yaml, examples/validation/job-prefill.yaml, "
                     "examples/validation/job-dispatch.yaml, examples/job-tails.yaml")
    case.parameters = {
        "pipeline": "4 hosts, 400 Gb/s, 2 m; pp 4, 8 microbatches of 1 ms, 8 KiB, α = 5 µs",
        "prefill": "2 hosts, 400 Gb/s, 2 m; one 64 MiB transfer, α = 5 µs",
        "dispatch": "4 hosts, 100 Gb/s, 2 m; ranks 0-2 send 256 KiB each to rank 3, α = 1 µs, "
                    "then rank 3 the same back",
        "tails": "4 hosts, 100 Gb/s; 100 steps of a 3 MiB ring; rank 3 2 ms late in step 17; "
                 "h2's link down 10-20 ms",
    }
    case.formulas = [
        "T(n) = α + (n + 1)·D/R + 4d + 2·A/R",
        "T_pipe = (m + p − 1)·τ + (p − 1)·T(2)",
        "dispatch into one NIC: T(s·n); the ring of four: 6 (α + n (D + A)/R + D/R + 4d)",
        "p99 of 100 = the 99th ascending = 2 ms + ring",
    ]
    case.method = ["summary.json: step_time_ns of each step"]
    allowance = [("the first frame's 16 B RETH and the ACK's own serialization", 10e-9)]

    # Pipeline (§7.2.2).
    run_dir, params = ctx.run(case, "pipeline-decode", pipeline, {})
    link = star_link(params, "pipeline-decode")
    _, frame = mtu_frame(params)
    msg = transfer(link, frame, 2, 5e-6)
    job = scenario.require(params, "workload.jobs", "pipeline-decode")[0]
    p, tau = int(job["layout"]["pp"]), 1e-3
    m = sum(1 for ph in job["phases"] if ph["type"] == "compute") // p
    case.checks.append(Check(
        "pipeline-decode", "step time", "s", (m + p - 1) * tau + (p - 1) * msg,
        step_times(run_dir)[0], "(m + p − 1)·τ + (p − 1)·T(2)", base_rel=0.0,
        allowances=[(a, 3 * v) for a, v in allowance],
        method="summary.json step_time_ns; chapter: 11 ms without the transfers"))
    run_dir, params = ctx.run(case, "pipeline-prefill", ctx.scenario_path("job-prefill.yaml"),
                              {})
    link = star_link(params, "pipeline-prefill")
    _, frame = mtu_frame(params)
    case.checks.append(Check(
        "pipeline-prefill", "64 MiB transfer", "s", transfer(link, frame, 16384, 5e-6),
        step_times(run_dir)[0], "T(16384); chapter α + M/B ≈ 1.3 ms", base_rel=0.0,
        allowances=allowance, method="summary.json step_time_ns"))

    # Expert dispatch into one receiver (§7.2.3), then combine out of it.
    run_dir, params = ctx.run(case, "dispatch-combine", ctx.scenario_path("job-dispatch.yaml"),
                              {})
    link = star_link(params, "dispatch-combine")
    _, frame = mtu_frame(params)
    rows = rundir.read_rows(run_dir, "job.csv", ["phase", "rank", "start_ns", "end_ns"],
                            {"rank": int, "start_ns": int, "end_ns": int})
    for phase in ("dispatch", "combine"):
        mine = [r for r in rows if r["phase"] == phase]
        if not mine:
            raise ValidationError(f"dispatch-combine: no job.csv rows of {phase}")
        took = (max(r["end_ns"] for r in mine) - min(r["start_ns"] for r in mine)) * 1e-9
        case.checks.append(Check(
            "dispatch-combine", f"{phase} time", "s", transfer(link, frame, 3 * 64, 1e-6), took,
            "T(3 · 64): every frame crosses the one NIC", base_rel=0.0, allowances=allowance,
            method=f"job.csv: first start to last end of {phase}"))

    # Tails (§7.6.3).
    run_dir, params = ctx.run(case, "tails", tails, {})
    link = star_link(params, "tails")
    _, frame = mtu_frame(params)
    ring = 6 * (1e-6 + 192 * (link.tx_s(frame) + link.tx_s(ACK)) + link.tx_s(frame)
                + 4 * link.delay_s)
    times = step_times(run_dir)
    if len(times) != 100:
        raise ValidationError(f"tails: {len(times)} steps, expected 100")
    ranked = sorted(times)
    case.checks.append(Check(
        "tails", "p99 (99th of 100)", "s", 2e-3 + ring, ranked[98],
        "2 ms + ring; chapter 2.4 ms", base_rel=0.0,
        allowances=[("the RETH and ACK serialization, per round", 6 * 10e-9)],
        method="summary.json: the 99th of the 100 step times, ascending"))
    outage = 10e-3
    case.checks.append(Check(
        "tails", "recovered communication", "s", outage + ring, ranked[99],
        "≥ outage + ring", kind="at_least", base_rel=0.0, allowances=[],
        method="the longest step"))
    case.checks.append(Check(
        "tails", "recovered communication", "s", outage + 2 * ring + RTO_HIGH, ranked[99],
        "≤ outage + RtoHigh + 2 rings (resent from the timeout)", kind="at_most", base_rel=0.0,
        allowances=[], method="the longest step"))
    case.checks.append(Check(
        "tails", "mean", "s", 0.52e-3, sum(times) / len(times),
        "chapter: (98 · 0.4 + 2.4 + 10.4) / 100 ms", info=True,
        note="the recovery here includes the retransmission timeout after the link is back"))
    # §7.6.4's gradient synchronisation at 128 accelerators (not with --quick: 3 s).
    if not ctx.quick:
        gs = os.path.join(ctx.root, "examples", "job-gradient-sync.yaml")
        run_dir, params = ctx.run(case, "grad-sync-128", gs, {})
        job = scenario.require(params, "workload.jobs", "grad-sync-128")[0]
        h = int(scenario.require(params, "topology.servers", "grad-sync-128"))
        nic = parse_rate_bps(scenario.require(params, "topology.nic_rate", "grad-sync-128"))
        g = parse_bytes(job["phases"][0]["bytes"])
        alpha = parse_time_s(job["phases"][0]["launch_cost"])
        mtu, frame = mtu_frame(params)
        frames = -(-g // h // mtu)
        cable = cable_delay_s(
            {"cable": scenario.require(params, "topology.nic_cable", "grad-sync-128")}, {})
        rail = Link(nic, cable, wire_overhead(params))
        rounds = 2 * (h - 1)
        packet = rounds * (alpha + frames * (rail.tx_s(frame) + rail.tx_s(ACK)) + rail.tx_s(frame)
                           + 4 * cable)
        case.checks.append(Check(
            "grad-sync-128", "T_grad", "s", packet, step_times(run_dir)[0],
            "2(H−1)·(α + n(D + A)/R + D/R + 4d): the ring of each rail over its leaf",
            base_rel=0.0, allowances=[(a, rounds * v) for a, v in allowance],
            method="summary.json step_time_ns"))
        formula = rounds * alpha + 2 * (h - 1) / h * g / (nic / 8)
        case.checks.append(Check(
            "grad-sync-128", "T_grad, the chapter's formula", "s", formula,
            step_times(run_dir)[0], "2(H−1)α_R + 2(H−1)G/(H·q·B_NIC), q = 1", info=True,
            note="the packet level adds the headers and ACKs (4264 B per 4096 B of payload)"))
        # §7.6.2's request-slot variant (about a minute: 1.6 million requests).
        request_slots(ctx, case)
    return case
