"""Case 5 — multipath delivery: one UB message sprayed over 2 or 8 paths (docs/models.md#multipath)."""

import copy
import os

from ... import rundir
from .. import ecmp, plotting, scenario, tandem, traces
from ..core import CaseResult, Check, ValidationError
from ..pathmodel import Topology
from ..units import parse_bytes, parse_time_ps

CASE_ID = "multipath"
TITLE = "Multipath delivery: completion time and reorder buffer of a sprayed message"
TWO = "multipath-two-path.yaml"
EIGHT = "multipath-eight-path.yaml"
UB_DATA_OVERHEAD = 14 + 20 + 8 + 20 + 4        # Ethernet, IPv4, UDP, UB header, ICRC
UB_ACK_EXTENSION = 10                           # UbAckHeader without its SACK bitmap
CROSSOVER_DELAYS_NS = [1100, 1200, 1250, 1300, 1350, 1400, 1500, 1700]
SEED_SEARCH = 200000
SEED_BATCH = 1024


def _topology_doc(ctx, params):
    topo = scenario.require(params, "topology", CASE_ID)
    if isinstance(topo, str):
        topo = scenario.load(os.path.join(ctx.root, topo))
    return topo


def _with_delay(topo, a, b, delay_ns):
    t = copy.deepcopy(topo)
    for l in t["links"]:
        if {l["a"], l["b"]} == {a, b}:
            l.pop("cable", None)
            l["delay"] = f"{delay_ns}ns"
            return t
    raise ValidationError(f"{CASE_ID}: no link {a}-{b}")


def paths_of(topo: Topology, entropies):
    """For each entropy, the index of s0's next hop (its ECMP group position) for h0 -> h1."""
    s0 = topo.index["s0"]
    grp = topo.group(s0, "h1")
    return [grp.index([p for n, p in hops if n == s0][0])
            for hops in topo.walks("h0", "h1", entropies)]


def find_seed(topo: Topology, entropies, want):
    """First seed whose spray entropies map to the path sequence predicate `want` (the seeds'
    paths asked of fabric-run SEED_BATCH seeds at a time)."""
    for first in range(1, SEED_SEARCH, SEED_BATCH):
        seeds = range(first, min(first + SEED_BATCH, SEED_SEARCH))
        paths = paths_of(topo, [ecmp.flow_entropy(0, seed, i) for seed in seeds
                                for i in range(entropies)])
        for j, seed in enumerate(seeds):
            if want(paths[j * entropies:(j + 1) * entropies]):
                return seed, paths[j * entropies:(j + 1) * entropies]
    raise ValidationError(f"{CASE_ID}: no seed below {SEED_SEARCH} gives the wanted path pattern")


def predict(params, topo_doc, where, fabric_run):
    """Exact event-by-event prediction for flow 0 (h0 -> h1) of the run's parameters."""
    if str(scenario.get(params, "transport")) != "ub" or str(scenario.get(params, "cc")) != "none":
        raise ValidationError(f"{where}: needs transport: ub, cc: none")
    if parse_bytes(scenario.get(params, "ub.window", "0B")) != 0:
        raise ValidationError(f"{where}: needs an unlimited window (ub.window: 0B)")
    if parse_time_ps(scenario.get(params, "ub.reorder_window", "10us")) != 0:
        raise ValidationError(f"{where}: needs ub.reorder_window: 0 (no spurious resends)")
    topo = Topology(topo_doc, params, where, fabric_run)
    mtu = parse_bytes(scenario.get(params, "host.mtu", "4096B"))
    flows = scenario.require(params, "workload.flows", where)
    if len(flows) != 1:
        raise ValidationError(f"{where}: one flow expected")
    nbytes = parse_bytes(flows[0]["bytes"])
    start_ps = parse_time_ps(flows[0].get("start", "0ps"))
    n = -(-nbytes // mtu)
    if n > int(scenario.get(params, "ub.out_of_order_window", "2048")):
        raise ValidationError(f"{where}: the message exceeds ub.out_of_order_window (sender stalls)")
    spray = str(scenario.get(params, "ub.spray", "ecmp"))
    E = int(scenario.get(params, "ub.entropies", "64")) if spray == "oblivious" else 1
    if spray not in ("oblivious", "ecmp"):
        raise ValidationError(f"{where}: ub.spray {spray} is not deterministic")
    seed = int(scenario.get(params, "seed", "1"))
    ent = [ecmp.flow_entropy(0, seed, k % E) for k in range(n)]
    payload = [min(mtu, nbytes - k * mtu) for k in range(n)]
    links = topo.links()
    data = [dict(release=start_ps, bytes=payload[k] + UB_DATA_OVERHEAD,
                 route=[links[h] for h in hops])
            for k, hops in enumerate(topo.walks("h0", "h1", ent))]
    res = tandem.run(data)
    arrive = [r["arrive"] for r in res]
    peak_p, peak_b, series, t_rx = tandem.reorder(arrive, payload)
    # ACKs: one per data packet at its arrival (ack_interval 1), back along the path the last
    # switch before h1 hashes the data packet's entropy onto (the ACK carries it).
    sack_bits = int(scenario.get(params, "ub.sack_bits", "256"))
    ack_bytes = UB_DATA_OVERHEAD + UB_ACK_EXTENSION + sack_bits // 8
    acks = [dict(release=arrive[k], bytes=ack_bytes, route=[links[h] for h in hops])
            for k, hops in enumerate(topo.walks("h1", "h0", ent))]
    ack_res = tandem.run(acks)
    last = max(range(n), key=lambda k: (arrive[k], k))
    t_done = ack_res[last]["arrive"]
    paths = paths_of(topo, ent)
    return dict(n=n, mtu=mtu, payload=payload, arrive=arrive, peak_p=peak_p, peak_b=peak_b,
                series=series, t_rx=t_rx - start_ps, t_done=t_done - start_ps,
                ack_return=t_done - t_rx, ack_bytes=ack_bytes, paths=paths, start=start_ps,
                last_path=paths[last])


def _sim(run_dir, where):
    flows = traces.flows(run_dir)
    f = flows[0]
    fin = rundir.read_rows(run_dir, "flows.csv", ["finish_ns"], {"finish_ns": int})[0]["finish_ns"]
    if f["delivered_bytes"] != f["bytes"] or fin < 0:
        raise ValidationError(f"{where}: the flow did not finish")
    ub = rundir.summary_field(rundir.read_summary(run_dir), "ub")
    rows = rundir.read_rows(run_dir, "reorder.csv", ["time_ns", "flow_id", "packets", "bytes"],
                           {"time_ns": int, "flow_id": int, "packets": int, "bytes": int})
    ret = rundir.read_rows(run_dir, "flows.csv", ["retransmitted_bytes"], {"retransmitted_bytes": int})
    if ret[0]["retransmitted_bytes"]:
        raise ValidationError(f"{where}: packets were resent; the model assumes none")
    return dict(finish_ps=fin * 1000, peak_p=int(ub["reorder_peak_packets_per_nic"]),
                peak_b=int(ub["reorder_peak_bytes_per_nic"]), rows=rows,
                trace_peak_p=max([r["packets"] for r in rows], default=0),
                trace_peak_b=max([r["bytes"] for r in rows], default=0))


def _ack_frame_check(run_dir, p, where):
    for l in traces.links(run_dir):
        if l["node"] == "h1":
            if l["tx_frames"] == 0 or l["tx_bytes"] != l["tx_frames"] * p["ack_bytes"]:
                raise ValidationError(f"{where}: h1 sent {l['tx_bytes']} B in {l['tx_frames']} "
                                      f"frames, the model assumes {p['ack_bytes']} B ACKs")


def analyze(case, sub, run_dir, params, topo_doc, fabric_run, judge_reorder=True):
    where = f"{CASE_ID}/{sub}"
    p = predict(params, topo_doc, where, fabric_run)
    s = _sim(run_dir, where)
    _ack_frame_check(run_dir, p, where)
    counts = [p["paths"].count(j) for j in range(max(p["paths"]) + 1)]
    case.checks.append(Check(
        sub, "completion at the sender (last ACK back)", "s", p["t_done"] * 1e-12,
        s["finish_ps"] * 1e-12,
        "exact tandem-FIFO timing of every frame + the ACK of the last arrival back to h0",
        base_rel=0.0, allowances=[("flows.csv finish_ns is whole ns", 1e-9)],
        method="flows.csv finish_ns − start",
        note=f"packets per path {counts}; receiver-side delivery of the last packet "
             f"{p['t_rx'] * 1e-6:.3f} µs, ACK return {p['ack_return'] * 1e-6:.3f} µs "
             f"(via path {p['last_path']})"))
    case.checks.append(Check(
        sub, "delivery at the receiver (last packet in order)", "s", p["t_rx"] * 1e-12,
        (s["finish_ps"] - p["ack_return"]) * 1e-12,
        "exact tandem-FIFO timing: last arrival at h1",
        base_rel=0.0, allowances=[("flows.csv finish_ns is whole ns", 1e-9)],
        method="flows.csv finish_ns − the modeled ACK return of the last packet (ACK frame "
               f"{p['ack_bytes']} B, checked against h1's links.csv bytes/frames)"))
    for metric, ana, sim, tr, unit in (
            ("peak reorder buffer (packets)", p["peak_p"], s["peak_p"], s["trace_peak_p"], "packets"),
            ("peak reorder buffer (bytes)", p["peak_b"], s["peak_b"], s["trace_peak_b"], "B")):
        if sim != tr:
            raise ValidationError(f"{where}: summary.json {metric} {sim} != reorder.csv peak {tr}")
        case.checks.append(Check(
            sub, metric, unit, float(ana), float(sim),
            "in-order delivery over the exact arrival sequence: max held out-of-order payload",
            base_rel=0.0, method="summary.json ub.reorder_peak_*_per_nic (= reorder.csv maximum)",
            info=not judge_reorder))
    model = [(t * 1e-12, b) for t, _, b in p["series"]]
    sim_series = [(0.0, 0)] + [(r["time_ns"] * 1e-9, r["bytes"]) for r in s["rows"]]
    return p, s, dict(title=sub, series=_steps(sim_series), model=_steps(model), marks={})


def _slug(label):
    return "".join(c if c.isalnum() else "-" for c in label.replace("µ", "u")).strip("-")


def _steps(series):
    out = []
    for i, (t, q) in enumerate(series):
        if i:
            out.append((t, series[i - 1][1]))
        out.append((t, q))
    return out


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#multipath",
        "A message sprayed packet by packet over independent paths of different delay: when is "
        "it complete, how much waits in the receiver's reorder buffer, and from which delay "
        "difference on do two paths stop beating one? 32 KiB = 8 x 4 KiB on two 50 GB/s paths "
        "(1/1 µs, 1/9 µs, a 5/3 split), and 8 MiB over 8 paths (1..8 µs, 1..30 µs; 4 KiB and "
        "1 KiB packets).")
    two = ctx.scenario_path(TWO)
    eight = ctx.scenario_path(EIGHT)
    case.scenario = ", ".join(os.path.relpath(p, ctx.root) for p in (two, eight))
    base2 = scenario.load(two)
    topo2 = _topology_doc(ctx, base2)
    case.parameters = {
        "transport": "UB, cc: none (UbFixedWindow, window 0 B = unlimited), ub.reorder_window 0 "
                     "(no time-based loss detection), RTO 10 ms, ACK every packet",
        "two-path topology": "topologies/two-path.yaml: h0 -800G- s0 -400G- {pA|pB} -400G- s1 "
                             "-800G- h1; the path delay sits on s0-pA (1 µs) / s0-pB (1 or 9 µs, "
                             "swept for the crossover), other links 0 ns",
        "eight-path topology": "topologies/eight-path.yaml (1..8 µs) and eight-path-30us.yaml "
                               "(1..30 µs), host links 3200 Gb/s, paths 400 Gb/s",
        "wire": "link.wire_overhead 0 B; frame = payload + 66 B (Eth 14, IPv4 20, UDP 8, UB 20, "
                "ICRC 4), ACK = 66 + 10 + sack_bits/8 B",
        "spraying": "ub.spray oblivious over E entropies; the seed (→ the flow's base entropy) is "
                    "chosen by the case with the switches' own hash (fabric-run --hash) so that the "
                    "entropies map to the wanted path pattern (E = 2 alternating; E = 8 with 5/3; "
                    "E = 8 a permutation of the 8 paths); E = 1 (ecmp) for one-path runs",
    }
    case.formulas = [
        "each packet's path: s0's ECMP group [pA, pB] (or [p0..p7]) indexed by "
        "Mix32(Mix32(salt ^ 0x9e3779b9) ^ entropy) mod paths, salt = hash_salt·2654435761 + "
        "node·40503 + 1, entropy k = 49152 + (base − 49152 + k mod E) mod 16384 (all three "
        "computed by the simulator's own functions: fabric-run --hash)",
        "exact event-by-event timing over tandem FIFO links: start = max(arrival, link free), "
        "end = start + ceil(frame·8/rate), arrival at the next hop = end + delay",
        "receiver: in-order delivery; held = packets received ahead of the first missing one; "
        "peak packets and payload bytes over the arrival sequence; delivery = last arrival",
        "sender completion = the ACK sent at the last arrival back at h0 (ACK route hashed by s1 "
        "on the entropy it echoes)",
        "crossover: smallest second-path delay at which the receiver-side delivery over two paths "
        "(round-robin) is later than over path A alone; found by bisection on the same model",
    ]
    case.method = [
        "sender completion: flows.csv finish_ns; receiver delivery: finish_ns minus the modeled "
        "ACK return (flows.csv has no receive time; pcap timestamps are whole µs)",
        "reorder peak: summary.json ub.reorder_peak_packets/bytes_per_nic, cross-checked equal to "
        "the maximum of reorder.csv",
        "crossover: runs at second-path delays " + ", ".join(f"{d} ns" for d in CROSSOVER_DELAYS_NS)
        + "; the simulated crossover is bracketed by the last delay where two paths win and the "
          "first where they lose",
    ]
    panels = []
    t2 = Topology(topo2, base2, CASE_ID, ctx.fabric_run)
    seed_alt, pat_alt = find_seed(t2, 2, lambda p: p[0] != p[1])
    seed_53, pat_53 = find_seed(t2, 8, lambda p: p.count(0) == 5 and p[0] == 1)
    seed_a, _ = find_seed(t2, 1, lambda p: p[0] == 0)
    case.notes.append(f"Seeds chosen with fabric-run --hash: round-robin over 2 paths seed {seed_alt} "
                      f"(paths {pat_alt}), 5/3 split seed {seed_53} (entropy k → path "
                      f"{pat_53}), one path (pA) seed {seed_a}.")
    subs = [("2 paths 1/1 µs, round-robin", 1000, 2, seed_alt),
            ("2 paths 1/9 µs, round-robin", 9000, 2, seed_alt),
            ("2 paths 1/9 µs, 5/3 split", 9000, 8, seed_53),
            ("1 path (pA, 1 µs)", 1000, 1, seed_a)]
    for label, dB, E, seed in subs:
        topo = _with_delay(topo2, "s0", "pB", dB)
        ov = {"topology": topo, "seed": seed, "ub.entropies": E,
              "ub.spray": "oblivious" if E > 1 else "ecmp"}
        run_dir, params = ctx.run(case, _slug(label), two, ov)
        _, _, panel = analyze(case, label, run_dir, params, topo, ctx.fabric_run)
        if E > 1 and any(q for _, q in panel["model"]):
            panels.append(panel)

    # Crossover: two paths (round-robin) vs path A alone, second path's delay swept.
    ov_rr = {"seed": seed_alt, "ub.entropies": 2, "ub.spray": "oblivious"}
    p_one = predict(scenario.with_overrides(base2, {"seed": seed_a, "ub.entropies": 1,
                                                    "ub.spray": "ecmp", "topology": topo2}),
                    topo2, CASE_ID, ctx.fabric_run)
    def t_two(d_ns):
        t = _with_delay(topo2, "s0", "pB", d_ns)
        return predict(scenario.with_overrides(base2, dict(ov_rr, topology=t)), t, CASE_ID,
                       ctx.fabric_run)["t_rx"]
    lo, hi = 1000, 20000
    if t_two(lo) >= p_one["t_rx"] or t_two(hi) <= p_one["t_rx"]:
        raise ValidationError(f"{CASE_ID}: no crossover between {lo} and {hi} ns")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if t_two(mid) > p_one["t_rx"]:
            hi = mid
        else:
            lo = mid
    ana_cross = hi
    delays = CROSSOVER_DELAYS_NS if not ctx.quick else [d for d in CROSSOVER_DELAYS_NS
                                                         if 1200 <= d <= 1400]
    one_dir, one_params = ctx.run(case, "crossover-one-path", two,
                                  {"topology": topo2, "seed": seed_a, "ub.entropies": 1,
                                   "ub.spray": "ecmp"})
    one = predict(one_params, topo2, CASE_ID, ctx.fabric_run)
    t_one_sim = _sim(one_dir, CASE_ID)["finish_ps"] - one["ack_return"]
    wins, loses = [], []
    for d in delays:
        t = _with_delay(topo2, "s0", "pB", d)
        rd, pr = ctx.run(case, f"crossover-{d}ns", two, dict(ov_rr, topology=t))
        pm = predict(pr, t, CASE_ID, ctx.fabric_run)
        t_sim = _sim(rd, CASE_ID)["finish_ps"] - pm["ack_return"]
        (wins if t_sim <= t_one_sim else loses).append(d)
    if not wins or not loses or max(wins) > min(loses):
        sim_lo = max(wins) if wins else delays[0]
        sim_hi = min(loses) if loses else delays[-1]
        case.notes.append(f"Crossover runs not monotone or not bracketing: two paths win at "
                          f"{wins} ns, lose at {loses} ns.")
    else:
        sim_lo, sim_hi = max(wins), min(loses)
    case.checks.append(Check(
        "crossover (2 paths round-robin vs path A alone)", "second-path delay where two paths "
        "stop beating one", "s", ana_cross * 1e-9, (sim_lo + sim_hi) / 2 * 1e-9,
        "smallest d_B with t_rx(two paths, d_B) > t_rx(path A), bisection on the exact model",
        base_rel=0.0,
        allowances=[(f"the sweep brackets the simulated crossover in [{sim_lo}, {sim_hi}] ns: "
                     "half its width", (sim_hi - sim_lo) / 2 * 1e-9)],
        method="receiver-side delivery of the swept runs vs the one-path run (finish_ns minus "
               "the modeled ACK return); midpoint of the bracket",
        note=f"one path: delivery {p_one['t_rx'] * 1e-6:.4f} µs (model), "
             f"{t_one_sim * 1e-6:.4f} µs (sim)"))

    # Eight paths.
    base8 = scenario.load(eight)
    eight_subs = [("8 paths 1..8 µs, 4 KiB", "topologies/eight-path.yaml", "4096B"),
                  ("8 paths 1..8 µs, 1 KiB", "topologies/eight-path.yaml", "1024B"),
                  ("8 paths 1..30 µs, 4 KiB", "topologies/eight-path-30us.yaml", "4096B"),
                  ("8 paths 1..30 µs, 1 KiB", "topologies/eight-path-30us.yaml", "1024B")]
    if ctx.quick:
        eight_subs = eight_subs[:1]     # 8 MiB runs take ~0.3 s each; CI keeps one
    seed8 = None
    for label, tfile, mtu in eight_subs:
        topo = scenario.load(os.path.join(ctx.root, tfile))
        t8 = Topology(topo, base8, CASE_ID, ctx.fabric_run)
        if seed8 is None:
            seed8, pat8 = find_seed(t8, 8, lambda p: sorted(p) == list(range(8)))
            seed8_one, _ = find_seed(t8, 1, lambda p: p[0] == 0)
            case.notes.append(f"Eight paths: seed {seed8} sends entropy k to path {pat8} (a "
                              f"permutation: packets round-robin over all 8); one path: seed "
                              f"{seed8_one} (p0, 1 µs).")
        run_dir, params = ctx.run(case, _slug(label), eight, {"topology": topo, "seed": seed8, "host.mtu": mtu})
        _, _, panel = analyze(case, label, run_dir, params, topo, ctx.fabric_run)
        panels.append(panel)
    if not ctx.quick:
        topo = scenario.load(os.path.join(ctx.root, "topologies/eight-path.yaml"))
        run_dir, params = ctx.run(case, "1-path-8MiB-4KiB", eight,
                                  {"topology": topo, "seed": seed8_one, "ub.spray": "ecmp",
                                   "ub.entropies": 1})
        analyze(case, "1 path (p0, 1 µs), 8 MiB, 4 KiB", run_dir, params, topo, ctx.fabric_run)
    case.figures.append(plotting.series_vs_model_figure(
        ctx.out, f"{CASE_ID}.png", panels, ylabel="reorder buffer (KiB)"))
    return case
