"""Shared interfaces: ports of one NIC behind one PCIe slot ("Datacenter networks", chapter 7,
§7.2.3 and §7.2.4; docs/models.md#shared-interface).

The control server: GPUs on 32 GB/s PCIe peer links, one NIC whose ports (25 GB/s each) share
one 32 GB/s PCIe slot. collective.ports_per_nic (or a job's ports_per_nic) divides every
inter-server transfer into k parts, part j bound to port j of both NICs (data and ACKs).

(a) Flat ring of 8 (2 servers x 4 GPUs), the 192 MiB gradient of §7.2.1: 14 rounds of 24 MiB.
    The chapter: 14 · 24 MiB / B_b with B_b = 25 GB/s (one port, 14.1 ms) or 32 GB/s (the slot,
    11.0 ms; not the ports' 50 GB/s, 7.0 ms; a third port: the same slot). At packet level every
    link of a round carries one transfer's n frames and the n ACKs of another (on the bottleneck
    port: the data 3 -> 4, the ACKs of 7 -> 0), so a round is

        round = α + (n·(D + A) + k·RETH) / B_b + L

    with L the way of a first frame to the bottleneck, of the last one from it, and of its ACK
    back (store-and-forward on each link).

(b) Dispatch of §7.2.3 (figure 7-12): 4 x 4 pairs x 2 MiB = 32 MiB from server 0 into server 1.
    The data crosses both slots (the ACKs go the other way): ≥ 32 MiB / 32 GB/s ≈ 1.05 ms however
    it is split over the ports; one port: 32 MiB / 25 GB/s.

        T = α + (N·D + F·RETH) / B_b + L      (N frames, F flows: pairs x parts)

(c) Relay through neighbours' NICs (§7.2.4, figure 7-13, FuseLink), on the 8-GPU rail servers
    (NICs 50 GB/s, NVLink 450 GB/s): rank 0 sends 1.125 GiB to rank 8 over its own NIC and
    those of ranks 1 and 2 (a job's nic_relays; relayed shares pipelined in c chunks), into the
    NICs the receiver lists — B_D. B_eff = min(B_D, 50 + min(450, 100)) GB/s:

        T = Σα + wire(bytes of the busiest NIC) / 50 GB/s + fill + drain + c·tail

    fill: the first chunks of the relayed shares on rank 0's NVLink port (they share it),
    drain: the last chunks of the shares relayed at the receiver on rank 8's, tail: a NIC hop
    waits for the previous chunk's last ACK. Direct (and B_D = 50): one transfer,
    α + (n·D + RETH)/R + D/R + 4d + 2A/R.
"""

from .. import scenario
from ..common import Link, wire_overhead
from ..core import FRAME_HEADERS, CaseResult, Check, ValidationError
from ..units import parse_bytes, parse_rate_bps, parse_time_s
from .collectives import rail_params
from ... import rundir

CASE_ID = "shared-interfaces"
TITLE = "Shared interfaces: NIC ports behind one PCIe slot (ring and dispatch)"
RING = "shared-interfaces-ring.yaml"
DISPATCH = "shared-interfaces-dispatch.yaml"
ACK = 62
RETH = 16
# What the round formula leaves out: a round that begins while the other direction's data still
# queues at the bottleneck ahead of the previous round's last ACKs, and the order in which a data
# frame and an ACK meet on a link (the existing collectives case judges the same at 0.5 %).
INTERLEAVE_REL = 0.005
GIB = 2 ** 30
RELAY = "shared-interfaces-relay.yaml"
RELAYS = "workload.jobs.0.nic_relays"
# (label, B_D GB/s, sender shares over NICs 0, 1, 2, receiver NICs)
RELAY_CASES = [
    ("relay-bd100", 100, [0.25, 0.5, 0.25], [8, 9]),
    ("relay-bd150", 150, [1 / 3, 1 / 3, 1 / 3], [8, 9, 10]),
    ("relay-bd50", 50, [1 / 3, 1 / 3, 1 / 3], [8]),
]
RELAY_CHUNKS = 16
MIB = 2 ** 20


def control_links(params, where):
    """The control server's links as Link objects, from the run's own topology."""
    topo = scenario.require(params, "topology", where)
    if not isinstance(topo, dict) or topo.get("generator") != "rail" or \
            topo.get("server_type") != "control":
        raise ValidationError(f"{where}: expected an inline rail topology of control servers")
    wo = wire_overhead(params)

    def rate(key, default):
        return parse_rate_bps(topo.get(key, default))

    def delay(key, default):
        return parse_time_s(topo.get(key, default))
    return dict(
        gpu=Link(rate("control_peer_rate", "256Gbps"), delay("nvlink_delay", "10ns"), wo),
        slot=Link(rate("control_slot_rate", "256Gbps"), delay("pcie_delay", "5ns"), wo),
        port=Link(rate("control_nic_port_rate", "200Gbps"), delay("nic_delay", "150ns"), wo),
        ports=int(topo.get("control_nic_ports", 2)), gpus=int(topo.get("control_gpus", 4)))


def check_common(params, where):
    if str(scenario.get(params, "transport")) != "roce" or str(scenario.get(params, "cc")) != "none":
        raise ValidationError(f"{where}: needs transport roce, cc none")
    if str(scenario.get(params, "switch.ecn.enabled", "true")).lower() != "false":
        raise ValidationError(f"{where}: ECN must be off (CNPs are frames the model ignores)")
    return parse_bytes(scenario.get(params, "host.mtu", "4096B"))


def path(links):
    """The inter-server path: GPU link, slot, port, leaf link, far slot, far GPU link."""
    return [links["gpu"], links["slot"], links["port"], links["port"], links["slot"], links["gpu"]]


def latency(links, frame, bottleneck):
    """L: a first frame to the bottleneck, the last one from it, its ACK back (no queues)."""
    hops = path(links)
    data = sum(h.tx_s(frame) + h.delay_s for h in hops) - bottleneck.tx_s(frame)
    ack = sum(h.tx_s(ACK) + h.delay_s for h in hops)
    return data + ack


def bottleneck(links, k):
    """The resource a transfer divided over k ports waits for: a port, or the shared slot."""
    per_port = links["port"].rate_bps * min(k, links["ports"])
    return links["port"] if per_port < links["slot"].rate_bps else links["slot"]


def ring_part(ctx, case, label, overrides, k):
    run_dir, params = ctx.run(case, label, ctx.scenario_path(RING), overrides)
    mtu = check_common(params, label)
    links = control_links(params, label)
    M = parse_bytes(scenario.require(params, "collective.message", label))
    p = int(scenario.require(params, "collective.ranks", label))
    alpha = parse_time_s(scenario.get(params, "collective.launch_cost", "0.83us"))
    if p != 2 * links["gpus"] or M % p or (M // p) % (mtu * k):
        raise ValidationError(f"{label}: the model wants 2 servers, p | M and full frames per part")
    c = M // p
    n = c // mtu
    frame = mtu + FRAME_HEADERS
    b = bottleneck(links, k)
    rounds = 2 * (p - 1)
    bulk = (n * (frame + ACK + 2 * b.wo) + k * RETH) * 8 / b.rate_bps
    round_s = alpha + bulk + latency(links, frame, b)
    summary = rundir.read_summary(run_dir)
    total = rundir.summary_field(summary, "collective", "total_time_ns") * 1e-9
    if not rundir.summary_field(summary, "collective", "values_correct"):
        raise ValidationError(f"{label}: the AllReduce result is wrong")
    rate = "32 GB/s slot" if b is links["slot"] else "25 GB/s port"
    case.checks.append(Check(
        label, "flat ring time", "s", rounds * round_s, total,
        f"2(p−1)·(α + (n(D+A) + k·RETH)/B_b + L), B_b = the {rate}", base_rel=0.0,
        allowances=[("data and ACKs meeting at the bottleneck across rounds",
                     INTERLEAVE_REL * rounds * round_s)],
        method="summary.json collective.total_time_ns"))
    chapter = rounds * c / (b.rate_bps / 8)
    case.checks.append(Check(
        label, "the chapter's 2(p−1)·(M/p)/B_b", "s", chapter, total, "14 · 24 MiB / B_b",
        info=True, note="the packet level adds 4264 B on the wire per 4096 B of payload "
                        "(headers, wire overhead, the other transfer's ACKs) and the launch cost"))
    return total


def dispatch_part(ctx, case, label, overrides, k):
    run_dir, params = ctx.run(case, label, ctx.scenario_path(DISPATCH), overrides)
    mtu = check_common(params, label)
    links = control_links(params, label)
    job = scenario.require(params, "workload.jobs", label)[0]
    phase = job["phases"][0]
    pairs = len(phase["senders"]) * len(phase["receivers"])
    per_pair = parse_bytes(phase["bytes"])
    parts = max(k, 1)
    frame = mtu + FRAME_HEADERS
    b = bottleneck(links, parts)
    # Every part (CollectivePlan::Chunk of the pair's bytes) is one WRITE: its payload, the
    # headers and wire overhead of each of its frames, one RETH.
    wire = 0
    for j in range(parts):
        part = per_pair * (j + 1) // parts - per_pair * j // parts
        wire += part + -(-part // mtu) * (FRAME_HEADERS + b.wo) + RETH
    alpha = parse_time_s(phase.get("launch_cost", "0.83us"))
    derived = alpha + pairs * wire * 8 / b.rate_bps + latency(links, frame, b)
    rows = rundir.read_rows(run_dir, "job.csv", ["phase", "bytes", "start_ns", "end_ns"],
                            {"bytes": int, "start_ns": int, "end_ns": int})
    mine = [r for r in rows if r["phase"] == "dispatch" and r["bytes"] > 0]
    if not mine:
        raise ValidationError(f"{label}: no job.csv rows of dispatch")
    took = (max(r["end_ns"] for r in mine) - min(r["start_ns"] for r in mine)) * 1e-9
    rate = "32 GB/s slot" if b is links["slot"] else "25 GB/s port"
    case.checks.append(Check(
        label, "dispatch of 32 MiB", "s", derived, took,
        f"α + Σ parts (payload + frames·(58 B + wire overhead) + RETH)/B_b + L, B_b = the {rate}",
        base_rel=0.0,
        allowances=[("the order in which frames of 16 or more flows meet on the first links",
                     4 * b.tx_s(frame))],
        method="job.csv: first start to last end of dispatch"))
    case.checks.append(Check(
        label, "at least 32 MiB / 32 GB/s (figure 7-12)", "s",
        pairs * per_pair / (links["slot"].rate_bps / 8), took, "M / B_slot", kind="at_least",
        base_rel=0.0, method="job.csv"))
    return took


def step_time(run_dir):
    summary = rundir.read_summary(run_dir)
    return summary["jobs"][0]["steps"][0]["step_time_ns"] * 1e-9


def relay_part(ctx, case):
    scen = ctx.scenario_path(RELAY)
    run_dir, params = ctx.run(case, "relay-direct", scen, {})
    mtu = check_common(params, "relay-direct")
    rail = rail_params(params, scen, "relay-direct")
    nic, nv = rail["nic"], rail["nv"]
    phase = scenario.require(params, "workload.jobs", "relay-direct")[0]["phases"][0]
    G = parse_bytes(phase["bytes"])
    alpha = parse_time_s(phase.get("launch_cost", "0.83us"))
    frame = mtu + FRAME_HEADERS
    n = G // mtu
    if G % (3 * 4 * mtu * RELAY_CHUNKS):
        raise ValidationError("relay: the model wants full frames in every chunk")

    def wire(b):
        return b // mtu * (frame + nic.wo) * 8

    direct = alpha + ((n * (frame + nic.wo) + RETH) * 8 / nic.rate_bps + nic.tx_s(frame)
                      + 4 * nic.delay_s + 2 * nic.tx_s(ACK))
    took = step_time(run_dir)
    case.checks.append(Check(
        "relay-direct", "1.125 GiB through its own NIC", "s", direct, took,
        "α + (n·D + RETH)/R + D/R + 4d + 2A/R", base_rel=0.0,
        allowances=[("the ACKs' order on the way back", 2 * nic.tx_s(ACK))],
        method="summary.json step_time_ns"))
    case.checks.append(Check(
        "relay-direct", "chapter: 1.125 GiB / 50 GB/s", "s", 1.125 * GIB / 50e9, took,
        "B_eff = 50 GB/s", info=True, note="the packet level adds 82 B per 4096 B of payload"))
    times = {"relay-direct": took}
    for label, bd, shares, receivers in RELAY_CASES:
        value = ("[{rank: 0, helpers: [0, 1, 2], shares: [" + ", ".join(f"{x:.12g}" for x in shares)
                 + f"], chunks: {RELAY_CHUNKS}}}")
        if receivers != [8]:
            value += ", {rank: 8, helpers: [" + ", ".join(str(r) for r in receivers) + "]}"
        value += "]"
        run_dir, _ = ctx.run(case, label, scen, {RELAYS: value})
        took = step_time(run_dir)
        times[label] = took
        # Share j's bytes (CollectivePlan: floor of the cumulative share), its NICs.
        cuts = [0]
        cum = 0.0
        for j, x in enumerate(shares):
            cum += x
            cuts.append(G if j + 1 == len(shares) else int(G * cum + 1e-9))
        share = [cuts[j + 1] - cuts[j] for j in range(len(shares))]
        into = {}
        for j, b in enumerate(share):
            r = receivers[j % len(receivers)]
            into[r] = into.get(r, 0) + b
        busiest = max(max(share), max(into.values()))
        piece = [b // RELAY_CHUNKS for b in share]
        fill = sum(wire(piece[j]) for j in (1, 2)) / nv.rate_bps
        drain = sum(wire(piece[j]) for j in range(3)
                    if receivers[j % len(receivers)] != 8) / nv.rate_bps
        tail = nic.tx_s(frame) + 4 * nic.delay_s + 2 * nic.tx_s(ACK) + alpha
        if bd <= 50:
            derived = direct  # rank 8's one link carries every byte from the start
            what = "every byte enters rank 8's link: as direct"
            allowance = [("the relayed chunks' later start on that link", fill)]
        else:
            derived = 2 * alpha + wire(busiest) / nic.rate_bps + fill + drain + RELAY_CHUNKS * tail
            what = "Σα + wire(busiest NIC)/50 GB/s + fill + drain + c·tail"
            allowance = [("flows meeting under PFC on rank 8's link, chunk boundaries",
                          INTERLEAVE_REL * derived)]
        case.checks.append(Check(
            label, f"1.125 GiB with B_D = {bd} GB/s", "s", derived, took, what, base_rel=0.0,
            allowances=allowance, method="summary.json step_time_ns"))
        case.checks.append(Check(
            label, "chapter: 1.125 GiB / min(B_D, 150 GB/s)", "s",
            1.125 * GIB / (min(bd, 150) * 1e9), took, "B_eff = min(B_D, 50 + min(450, 100))",
            info=True, note="plus headers, the relay's fill and drain and the chunks' tails"))
    return times


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#shared-interface",
        "Do two ports of one NIC behind a 32 GB/s PCIe slot carry a flat ring and an expert "
        "dispatch at the slot's rate — not the ports' sum — and does a third port add nothing?")
    case.scenario = (f"examples/validation/{RING}, examples/validation/{DISPATCH}, "
                     f"examples/validation/{RELAY}")
    case.parameters = {
        "server": "control: 4 GPUs on 32 GB/s PCIe peer links; one NIC, 2 (or 3) ports of "
                  "25 GB/s behind one 32 GB/s slot; 2 servers",
        "ring": "flat ring of 8, 192 MiB, α = 0.83 µs; ports_per_nic 1, 2, 3 (3-port NIC)",
        "dispatch": "ranks 0-3 send 2 MiB to each of ranks 4-7 (32 MiB), α = 0; "
                    "ports_per_nic 2, 1, 3 (3-port NIC), 0 (hashed)",
        "relay": "2 x 8 GPUs, rail cluster (50 GB/s NICs, 450 GB/s NVLink); rank 0 sends "
                 "1.125 GiB to rank 8: direct, or over NICs 0, 1, 2 (16 chunks) into NICs 8-9 "
                 "(B_D 100), 8-10 (B_D 150), 8 alone (B_D 50); α = 0.83 µs",
    }
    case.formulas = [
        "ring round = α + (n·(D + A) + k·RETH)/B_b + L; B_b = min(k·25, 32) GB/s",
        "dispatch = α + (N·D + F·RETH)/B_b + L ≥ 32 MiB / 32 GB/s",
        "chapter: 14 · 24 MiB / 25 GB/s = 14.1 ms, / 32 GB/s = 11.0 ms (not / 50 GB/s = 7.0 ms)",
        "relay: T = Σα + wire(busiest NIC)/50 GB/s + fill + drain + c·tail; "
        "chapter 1.125 GiB / min(B_D, 150 GB/s) = 24.2, 12.1, 8.1 ms",
    ]
    case.method = ["summary.json collective.total_time_ns; job.csv dispatch start and end"]
    one = ring_part(ctx, case, "ring-1-port", {"collective.ports_per_nic": 1}, 1)
    two = ring_part(ctx, case, "ring-2-ports", {"collective.ports_per_nic": 2}, 2)
    three = ring_part(ctx, case, "ring-3-ports", {"collective.ports_per_nic": 3,
                                                  "topology.control_nic_ports": 3}, 3)
    case.checks.append(Check(
        "ring-3-ports", "a third port on the same slot: gain over two", "s", 0.0, two - three,
        "0 (the slot binds)", base_rel=0.0,
        allowances=[("one more RETH frame per round at 32 GB/s, and frame order", 1e-6)],
        method="two ports' time − three ports' time"))
    case.checks.append(Check(
        "ring-2-ports", "both ports against one: time ratio", "", 25 / 32, two / one,
        "B_port / B_slot = 25/32 (not 25/50)", base_rel=0.0,
        allowances=[("latency and launch terms that do not scale", 0.005)],
        method="the two runs' times"))
    two_d = dispatch_part(ctx, case, "dispatch-2-ports", {"workload.jobs.0.ports_per_nic": 2}, 2)
    dispatch_part(ctx, case, "dispatch-1-port", {"workload.jobs.0.ports_per_nic": 1}, 1)
    if not ctx.quick:
        three_d = dispatch_part(ctx, case, "dispatch-3-ports",
                                {"workload.jobs.0.ports_per_nic": 3,
                                 "topology.control_nic_ports": 3}, 3)
        case.checks.append(Check(
            "dispatch-3-ports", "a third port: gain over two", "s", 0.0, two_d - three_d,
            "0 (the slot binds)", base_rel=0.0,
            allowances=[("the third part's RETH frames and frame order", 1e-6)],
            method="two ports' time − three ports' time"))
        run_dir, ctx_params = ctx.run(case, "dispatch-hashed", ctx.scenario_path(DISPATCH),
                             {"workload.jobs.0.ports_per_nic": 0})
        rows = rundir.read_rows(run_dir, "job.csv", ["phase", "bytes", "start_ns", "end_ns"],
                                {"bytes": int, "start_ns": int, "end_ns": int})
        mine = [r for r in rows if r["phase"] == "dispatch" and r["bytes"] > 0]
        took = (max(r["end_ns"] for r in mine) - min(r["start_ns"] for r in mine)) * 1e-9
        case.checks.append(Check(
            "dispatch-hashed", "at least 32 MiB / 32 GB/s, split as hashed", "s",
            32 * MIB / (control_links(ctx_params, "dispatch-hashed")["slot"].rate_bps / 8), took,
            "M / B_slot", kind="at_least", base_rel=0.0,
            method="job.csv: the 16 transfers, each hashed to one port by the NIC"))
    relay_part(ctx, case)
    return case
