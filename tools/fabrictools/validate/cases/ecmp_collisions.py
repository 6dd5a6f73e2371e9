"""Case 7 — ECMP collisions: n flows hashed onto m uplinks (docs/models.md#ecmp-collisions)."""

import math
import os
from collections import Counter

from .. import ballsbins as bb
from .. import ecmp, plotting, scenario, traces
from ..common import mtu_frame, wire_overhead
from ..core import CaseResult, Check, ValidationError
from ..units import parse_rate_bps, parse_time_ps

CASE_ID = "ecmp-collisions"
TITLE = "ECMP collisions: busiest uplink and group rate"
SCENARIO = "ecmp-collisions.yaml"
PAIRS = [(8, 32), (8, 16), (32, 32), (32, 16), (128, 16), (16, 32)]
SAMPLES_FULL = 10000
SAMPLES_QUICK = 2000
CROSS_SEEDS = [1, 2, 3]          # fabric-run runs that must route exactly as fabric-run --hash says
RATE_RUN_US = 400               # throughput runs; rates averaged from RATE_FROM_US on
RATE_FROM_US = 50
Z = 3.0                          # sampling allowance: 3 standard errors


def topology(n, m):
    return {"generator": "clos2", "k": n + m, "down": n, "up": m, "spines": m, "leaves": 2,
            "hosts": 2 * n, "rate": "400Gbps", "cable": "1m"}


def flows(n, nbytes, rate=None):
    out = []
    for i in range(n):
        f = {"src": f"h{i}", "dst": f"h{n + i}", "bytes": nbytes}
        if rate:
            f["rate"] = rate
        out.append(f)
    return out


def loads_from_params(fabric_run, params, where):
    """Per-uplink flow counts at leaf0 for the run's parameters, from fabric-run --hash."""
    topo = scenario.require(params, "topology", where)
    if topo.get("generator") != "clos2" or int(topo.get("leaves", 0)) != 2:
        raise ValidationError(f"{where}: expected a 2-leaf clos2")
    n_hosts = int(topo["hosts"])
    down, up = int(topo["down"]), int(topo["up"])
    if int(topo.get("spines", up)) != up:
        raise ValidationError(f"{where}: expected one uplink per spine")
    seed = int(scenario.get(params, "seed", "1"))
    hash_salt = int(scenario.get(params, "switch.hash_salt", "0"))
    queries = []
    for i, f in enumerate(scenario.require(params, "workload.flows", where)):
        src, dst = int(f["src"].lstrip("h")), int(f["dst"].lstrip("h"))
        if src // down != 0 or dst // down != 1:
            raise ValidationError(f"{where}: flows must go from leaf0's hosts to leaf1's")
        # leaf0 is the first node after the hosts
        queries.append(ecmp.query(ecmp.switch_salt(hash_salt, n_hosts), ecmp.host(src),
                                  ecmp.host(dst), ecmp.flow_entropy(i, seed), group=up))
    counts = [0] * up
    for answer in ecmp.ask(fabric_run, queries):
        counts[answer.index] += 1
    return counts


def sample_answers(fabric_run, n, m, samples):
    """fabric-run --hash's answers for flow i = h_i -> h_{n+i} (i < n) at leaf0 of the (n, m)
    clos2 (node 2n), one list of n per sample (seed, switch.hash_salt), in one process."""
    pairs = [(ecmp.host(i), ecmp.host(n + i)) for i in range(n)]
    queries = []
    for seed, hash_salt in samples:  # up to millions of queries: the constant parts once
        salt = ecmp.switch_salt(hash_salt, 2 * n)
        queries += [ecmp.query(salt, src, dst, ecmp.flow_entropy(i, seed), group=m)
                    for i, (src, dst) in enumerate(pairs)]
    answers = ecmp.ask(fabric_run, queries)
    return [answers[j * n:(j + 1) * n] for j in range(len(samples))]


def loads(answers, m):
    """Flows per uplink of one sample."""
    counts = [0] * m
    for answer in answers:
        counts[answer.index] += 1
    return counts


def run(ctx):
    case = CaseResult(
        CASE_ID, TITLE, "docs/models.md#ecmp-collisions",
        "n flows leave a leaf over m equal-cost uplinks chosen by the switch's hash of each "
        "flow's 5-tuple: how loaded is the busiest uplink (mean, p99), how likely is no collision, "
        "and what rate does the group get relative to collision-free — for (n, m) = (8,32), "
        "(8,16), (32,32), (32,16), (128,16), (16,32)?")
    path = ctx.scenario_path(SCENARIO)
    case.scenario = os.path.relpath(path, ctx.root)
    S = SAMPLES_QUICK if ctx.quick else SAMPLES_FULL
    case.parameters = {
        "topology": "clos2, 2 leaves, k = n + m (n hosts and m uplinks per leaf, one per spine), "
                    "400 Gb/s, 1 m cables; flow i: h_i (leaf0) -> h_{n+i} (leaf1)",
        "samples": f"{S} per (n, m): sample j = scenario seed j (the runner's per-flow UDP source "
                   "port 49152 + mix64((i << 32) ^ seed) % 16384) with switch.hash_salt = j "
                   "(leaf0's salt = j·2654435761 + node·40503 + 1)",
        "hash": "FabricFlowHash itself, asked of fabric-run --hash (tools/fabrictools/validate/"
                "ecmp.py) for (srcIp, dstIp, srcPort, 4791, 17) with leaf0's salt; uplink = "
                "group[hash % m]",
        "cross-check": f"fabric-run with one 64 B frame per flow, seeds {CROSS_SEEDS} (hash_salt = "
                       "seed): links.csv tx_frames of every leaf0 uplink must equal the count "
                       "fabric-run --hash predicts" + ("" if not ctx.quick else " — (8,16) only in --quick"),
        "throughput run": "one fabric-run per (n, m) (quick: (8,16)) with line-rate flows, seed 1, "
                          f"hash_salt 1, PFC on (lossless), {RATE_RUN_US} µs; delivered rate from "
                          f"rates.csv (5 µs samples) over {RATE_FROM_US}–{RATE_RUN_US} µs (long "
                          "against the PFC pause cycles that share a congested uplink)",
    }
    case.formulas = [
        "exact distribution of the maximum load of n balls in m bins by dynamic programming over "
        "bins with exact integers: P(max ≤ k) = #{sequences with every bin ≤ k} / m^n, "
        "#: ways[b+1][s+j] += ways[b][s]·C(s+j, j), j ≤ k (no Monte-Carlo)",
        "E[max] = Σ k·P(max = k); p99 = min{k : P(max ≤ k) ≥ 0.99}; "
        "P(no collision) = m!/((m−n)!·m^n) (0 for n > m)",
        "group throughput (every flow wants line rate, max-min fair, a flow's bottleneck is its "
        "uplink): used uplinks·B, relative to collision-free min(n, m)·B: "
        "E[occupied]/min(n, m) = m(1 − (1 − 1/m)^n)/min(n, m)",
        "synchronous group (a collective waits for its slowest flow): rate relative to "
        "collision-free = E[ceil(n/m) / max]",
        "one run's throughput: Σ over used uplinks of B·MTU/F (payload) with the run's own hash "
        "assignment; slowest flow B·MTU/F / (its uplink's flow count)",
    ]
    case.method = [
        f"statistics over the {S} samples of the switch's hash (fabric-run --hash) fed with "
        "the real 5-tuples; "
        "tolerance 3 standard errors of a mean of that many independent samples "
        "(σ from the exact distribution)",
        "hash identity: fabric-run links.csv, per uplink tx_frames vs the prediction",
        "throughput: rates.csv rate_gbps (delivered payload), summed over the flows and averaged "
        f"over the samples in {RATE_FROM_US}–{RATE_RUN_US} µs",
    ]
    panels = []
    for n, m in PAIRS:
        sub = f"n={n}, m={m}"
        per_sample = [loads(a, m) for a in sample_answers(ctx.fabric_run, n, m,
                                                          [(j, j) for j in range(1, S + 1)])]
        maxes = [max(c) for c in per_sample]
        occ = [sum(1 for x in c if x) for c in per_sample]
        cf = min(n, m)
        best = math.ceil(n / m)
        _stat_checks(case, sub, n, m, S, maxes, occ, cf, best)
        pmf = bb.max_load_pmf(n, m)
        cnt = Counter(maxes)
        panels.append({"title": f"n = {n} flows, m = {m} uplinks",
                       "pmf_analytic": {k: float(p) for k, p in enumerate(pmf) if p > 0},
                       "pmf_sim": {k: v / S for k, v in cnt.items()}})
        if not ctx.quick:
            _seed_only_info(ctx, case, sub, n, m, S)
    cross = [(8, 16)] if ctx.quick else PAIRS
    ok = total = 0
    for n, m in cross:
        for seed in CROSS_SEEDS:
            label = f"hash-n{n}-m{m}-seed{seed}"
            run_dir, params = ctx.run(case, label, path, {
                "topology": topology(n, m), "workload.flows": flows(n, "64B"), "seed": seed,
                "switch.hash_salt": seed, "stop_time": "20us"})
            a, b = analyze_hash_run(ctx.fabric_run, run_dir, params, f"{CASE_ID}/{label}")
            ok += a
            total += b
    case.checks.append(Check(
        "all cross-check runs", "uplinks whose flow count equals fabric-run --hash's", "",
        float(total),
        float(ok), "every uplink of every run", base_rel=0.0,
        method="links.csv tx_frames per leaf0 uplink"))
    for n, m in ([(8, 16)] if ctx.quick else PAIRS):
        label = f"rate-n{n}-m{m}"
        run_dir, params = ctx.run(case, label, path, {
            "topology": topology(n, m), "workload.flows": flows(n, "1GB"), "seed": 1,
            "switch.hash_salt": 1, "stop_time": f"{RATE_RUN_US}us"})
        analyze_rate_run(ctx.fabric_run, case, f"n={n}, m={m} (seed 1 run)", run_dir, params)
    case.figures.append(plotting.ecmp_figure(ctx.out, f"{CASE_ID}.png", panels))
    off = [k for k in case.checks if k.info and not k.passed]
    if off:
        case.notes.append(
            "Judged like the other rows, the seed-only sweep would miss in "
            f"{len(off)} of {sum(1 for k in case.checks if k.info)} rows ("
            + "; ".join(f"{k.sub.split(' (')[0]} {k.metric} {k.rel_deviation * 100:+.1f} %"
                        for k in off if k.rel_deviation is not None)
            + "): a seed sweep of the shipped runner is not a valid sample of ECMP draws. A fix "
              "belongs in the runner (e.g. derive the entropy from a hash of (flow id, seed)), "
              "not in this report.")
    case.notes.append(
        "Throughput runs: flows sharing an uplink share it through one FIFO egress queue and "
        "per-ingress-port PFC pauses, not a per-flow fair scheduler, so over a few µs one flow can "
        "get much more than another (a first version averaged over 20–60 µs and saw the slowest of "
        f"three flows on one uplink 8 % below its fair share). Averaged over {RATE_FROM_US}–"
        f"{RATE_RUN_US} µs the shares even out; the group's total is exact either way.")
    case.notes.append(
        "Seed-only sweeps: flow i's UDP source port is 49152 + mix64((i << 32) ^ seed) % 16384, "
        "so every seed draws fresh ports (an earlier derivation moved a port only once every 128 "
        "seeds, which this case found). The judged statistics vary switch.hash_salt with the "
        "seed; the *info* rows show the seed-only sweep for comparison (full run only).")
    return case


def _stat_checks(case, sub, n, m, S, maxes, occ, cf, best):
    e_max = bb.expected_max(n, m)
    se = math.sqrt(float(bb.var_max(n, m)) / S)
    case.checks.append(Check(
        sub, "E[max flows on one uplink]", "", float(e_max), sum(maxes) / S,
        "Σ k·P(max = k), exact DP", base_rel=0.0, allowances=[(f"3 standard errors of a {S}-sample mean", Z * se)],
        method="mean over samples"))
    q = bb.quantile_max(n, m, 0.99)
    sp = math.sqrt(0.99 * 0.01 / S)
    lo = bb.quantile_max(n, m, max(0.0, 0.99 - Z * sp))
    hi = bb.quantile_max(n, m, min(1.0, 0.99 + Z * sp))
    emp = sorted(maxes)[math.ceil(0.99 * S) - 1]
    case.checks.append(Check(
        sub, "p99 of max", "", float(q), float(emp), "min{k : P(max ≤ k) ≥ 0.99}",
        base_rel=0.0, allowances=[(f"empirical quantile of {S} samples: exact quantiles at 0.99 ± 3σ span "
                     f"{lo}..{hi}", float(max(q - lo, hi - q)))],
        method="empirical 99th percentile"))
    p0 = bb.p_no_collision(n, m)
    se0 = math.sqrt(float(p0 * (1 - p0)) / S)
    case.checks.append(Check(
        sub, "P(no collision)", "probability", float(p0), sum(1 for x in maxes if x <= 1) / S,
        "m!/((m−n)!·m^n)", base_rel=0.0, allowances=[(f"3 standard errors of a {S}-sample proportion", Z * se0)],
        method="fraction of samples with max ≤ 1"))
    eo = bb.expected_occupied(n, m) / cf
    seo = math.sqrt(float(bb.var_occupied(n, m))) / cf / math.sqrt(S)
    case.checks.append(Check(
        sub, "group throughput / collision-free", "ratio", float(eo), sum(occ) / S / cf,
        "m(1 − (1 − 1/m)^n) / min(n, m)",
        base_rel=0.0, allowances=[(f"3 standard errors of a {S}-sample mean", Z * seo)],
        method="mean of used uplinks / min(n, m)"))
    # The chapter's reading (§7.5.3 table, "rate relative to no collisions"): ⌈n/m⌉ / E[L_max],
    # the collision-free load over the mean busiest load (60.1 % for n = 8, m = 32). By Jensen
    # it is below the mean per-draw rate E[⌈n/m⌉ / L_max] of the next row.
    ch = best / float(e_max)
    case.checks.append(Check(
        sub, "group rate / collision-free, chapter's ⌈n/m⌉ / E[L_max]", "ratio", ch,
        best / (sum(maxes) / S), "⌈n/m⌉ / E[L_max] (chapter 7, §7.5.3)", base_rel=0.0,
        allowances=[(f"3 standard errors of a {S}-sample mean, through 1/x (delta method)",
                     Z * se * best / float(e_max) ** 2)],
        method="⌈n/m⌉ / (mean over samples of the busiest uplink's flows)"))
    ei = best * bb.expected_inverse_max(n, m)
    sei = best * math.sqrt(float(bb.var_inverse_max(n, m)) / S)
    case.checks.append(Check(
        sub, "synchronous group rate / collision-free", "ratio", float(ei),
        sum(best / x for x in maxes) / S,
        "E[⌈n/m⌉ / L_max]: the mean over hash draws of each draw's synchronous rate (what a set "
        "of jobs averages), as opposed to the chapter's ratio of means in the row above",
        base_rel=0.0, allowances=[(f"3 standard errors of a {S}-sample mean", Z * sei)],
        method="mean of ceil(n/m)/max"))


def _seed_only_info(ctx, case, sub, n, m, S):
    answers = sample_answers(ctx.fabric_run, n, m, [(j, 0) for j in range(1, S + 1)])
    distinct = len({tuple(a.src_port for a in sample) for sample in answers})
    maxes = [max(loads(a, m)) for a in answers]
    note = (f"seeds 1..{S} with hash_salt 0: only {distinct} distinct source-port assignments "
            f"among the {S} seeds (correlated samples: the 3σ allowance, computed as if they were "
            "independent, does not really apply)")
    se = math.sqrt(float(bb.var_max(n, m)) / S)
    case.checks.append(Check(
        sub + " (seed-only sweep)", "E[max flows on one uplink]", "", float(bb.expected_max(n, m)),
        sum(maxes) / S, "exact DP", base_rel=0.0, info=True, note=note, method="mean over seeds",
        allowances=[(f"3 standard errors of a {S}-sample mean", Z * se)]))
    p0 = bb.p_no_collision(n, m)
    se0 = math.sqrt(float(p0 * (1 - p0)) / S)
    case.checks.append(Check(
        sub + " (seed-only sweep)", "P(no collision)", "probability", float(p0),
        sum(1 for x in maxes if x <= 1) / S, "m!/((m−n)!·m^n)", base_rel=0.0, info=True,
        method="fraction of seeds",
        allowances=[(f"3 standard errors of a {S}-sample proportion", Z * se0)]))


def _uplink_ports(run_dir, node="leaf0"):
    """{spine index: (port, tx_frames, tx_bytes)} of leaf0's uplinks."""
    out = {}
    for l in traces.links(run_dir):
        if l["node"] == node and l["peer"].startswith("spine"):
            out[int(l["peer"][5:])] = (l["port"], l["tx_frames"], l["tx_bytes"])
    if not out:
        raise ValidationError(f"{run_dir}: links.csv has no {node} uplinks")
    return out


def analyze_hash_run(fabric_run, run_dir, params, where):
    predicted = loads_from_params(fabric_run, params, where)
    ups = _uplink_ports(run_dir)
    if sorted(ups) != list(range(len(predicted))):
        raise ValidationError(f"{where}: leaf0 uplinks {sorted(ups)} do not match m = {len(predicted)}")
    # ECMP group order = leaf0's port order; the generator links spine s at port down + s.
    ports = [ups[s][0] for s in range(len(predicted))]
    if ports != sorted(ports):
        raise ValidationError(f"{where}: uplink port order differs from spine order")
    ok = sum(1 for s, c in enumerate(predicted) if ups[s][1] == c)
    return ok, len(predicted)


def analyze_rate_run(fabric_run, case, sub, run_dir, params):
    where = f"{CASE_ID}/{sub}"
    counts = loads_from_params(fabric_run, params, where)
    topo = scenario.require(params, "topology", where)
    rate_bps = parse_rate_bps(topo["rate"])
    mtu, F = mtu_frame(params)
    if wire_overhead(params) != 0:
        raise ValidationError(f"{where}: expects wire_overhead 0B")
    per_link = rate_bps * mtu / F / 1e9           # payload Gb/s of one busy uplink
    used = sum(1 for c in counts if c)
    n = sum(counts)
    ana_total = used * per_link
    ana_min = per_link / max(counts)
    rows = traces.rates(run_dir)
    window = [r for r in rows if RATE_FROM_US * 1e3 <= r["time_ns"] <= RATE_RUN_US * 1e3]
    times = sorted({r["time_ns"] for r in window})
    if len(times) < 4:
        raise ValidationError(f"{where}: too few rate samples in the window")
    per_flow = {}
    for r in window:
        per_flow.setdefault(r["flow_id"], []).append(r["rate_gbps"])
    if len(per_flow) != n:
        raise ValidationError(f"{where}: rates.csv has {len(per_flow)} flows, expected {n}")
    sim_total = sum(r["rate_gbps"] for r in window) / len(times)
    sim_min = min(sum(v) / len(times) for v in per_flow.values())
    interval_s = parse_time_ps(scenario.require(params, "trace.rate_interval", where)) * 1e-12
    # The samples add up to the payload delivered over len(times) intervals; each busy uplink
    # delivers whole frames, so its count over that span is within one frame of the fluid rate's
    # at each end.
    frame_allow = used * 2 * mtu * 8 / (len(times) * interval_s) / 1e9
    case.checks.append(Check(
        sub, "group delivered rate", "Gb/s", ana_total, sim_total,
        f"{used} used uplinks x R·MTU/F (collision-free: {min(n, len(counts))} x)",
        base_rel=0.0,
        allowances=[(f"whole frames: each of the {used} busy uplinks within one frame at each end "
                     f"of the {len(times)}-sample window", frame_allow)],
        method=f"rates.csv, Σ flows, mean over {RATE_FROM_US}–{RATE_RUN_US} µs"))
    case.checks.append(Check(
        sub, "slowest flow's rate", "Gb/s", ana_min, sim_min,
        f"R·MTU/F / {max(counts)} (flows on the busiest uplink)", base_rel=0.0, info=True,
        note="Not judged: the formula counts collisions on the source leaf's uplinks only; on "
             "the way down a spine hashes flows from several leaves onto the same downlink to "
             "the destination leaf, where they collide again, and the switch shares a link "
             "FIFO with per-ingress-port PFC rather than per flow. With many flows (128 on 16 "
             "uplinks) the slowest flow is then below the uplink-only share.",
        method=f"rates.csv, min over flows of the mean over {RATE_FROM_US}–{RATE_RUN_US} µs"))
