"""ConWeave's experiment as its run.py sets it up, run by ns3-fabric (tools/conweave-run).

conweave-project/conweave-ns3 `run.py` turns a handful of arguments (--cc, --lb, --pfc, --irn,
--simul_time, --netload, --topo, --cdf, --bw, --buffer) into a config.txt for its
`scratch/network-load-balance.cc`, generating the flow file with `traffic_gen/traffic_gen.py`
first when it does not exist yet. This module writes the same config.txt (the same template,
values and per-topology ConWeave parameters, the same sanity checks) and the flow file with the
same generator semantics, and `main` runs `build/fabric-run --hpcc-config` on it
(docs/hpcc-config.md). Line numbers below are run.py's and traffic_gen.py's at commit
236a801a00e35de9078635e04acae2f701c21ded.
"""

import argparse
import heapq
import json
import math
import os
import random
import shutil
import subprocess
import sys

from fabrictools import repo

# run.py:22-96, verbatim: what run.py writes (a blank line and trailing space included).
CONFIG_TEMPLATE = """TOPOLOGY_FILE config/{topo}.txt
FLOW_FILE config/{flow}.txt

FLOW_INPUT_FILE mix/output/{id}/{id}_in.txt
CNP_OUTPUT_FILE mix/output/{id}/{id}_out_cnp.txt
FCT_OUTPUT_FILE mix/output/{id}/{id}_out_fct.txt
PFC_OUTPUT_FILE mix/output/{id}/{id}_out_pfc.txt
QLEN_MON_FILE mix/output/{id}/{id}_out_qlen.txt
VOQ_MON_FILE mix/output/{id}/{id}_out_voq.txt
VOQ_MON_DETAIL_FILE mix/output/{id}/{id}_out_voq_per_dst.txt
UPLINK_MON_FILE mix/output/{id}/{id}_out_uplink.txt
CONN_MON_FILE mix/output/{id}/{id}_out_conn.txt
EST_ERROR_MON_FILE mix/output/{id}/{id}_out_est_error.txt

QLEN_MON_START {qlen_mon_start}
QLEN_MON_END {qlen_mon_end}
SW_MONITORING_INTERVAL {sw_monitoring_interval}

FLOWGEN_START_TIME {flowgen_start_time}
FLOWGEN_STOP_TIME {flowgen_stop_time}
BUFFER_SIZE {buffer_size}

CC_MODE {cc_mode}
LB_MODE {lb_mode}
ENABLE_PFC {enabled_pfc}
ENABLE_IRN {enabled_irn}

CONWEAVE_TX_EXPIRY_TIME {cwh_tx_expiry_time}
CONWEAVE_REPLY_TIMEOUT_EXTRA {cwh_extra_reply_deadline}
CONWEAVE_PATH_PAUSE_TIME {cwh_path_pause_time}
CONWEAVE_EXTRA_VOQ_FLUSH_TIME {cwh_extra_voq_flush_time}
CONWEAVE_DEFAULT_VOQ_WAITING_TIME {cwh_default_voq_waiting_time}

ALPHA_RESUME_INTERVAL 1
RATE_DECREASE_INTERVAL 4
CLAMP_TARGET_RATE 0
RP_TIMER 300 
FAST_RECOVERY_TIMES 1
EWMA_GAIN {ewma_gain}
RATE_AI {ai}Mb/s
RATE_HAI {hai}Mb/s
MIN_RATE 100Mb/s
DCTCP_RATE_AI {dctcp_ai}Mb/s

ERROR_RATE_PER_LINK 0.0000
L2_CHUNK_SIZE 4000
L2_ACK_INTERVAL 1
L2_BACK_TO_ZERO 0

RATE_BOUND 1
HAS_WIN {has_win}
VAR_WIN {var_win}
FAST_REACT {fast_react}
MI_THRESH {mi}
INT_MULTI {int_multi}
GLOBAL_T 1
U_TARGET 0.95
MULTI_RATE 0
SAMPLE_FEEDBACK 0

ENABLE_QCN 1
USE_DYNAMIC_PFC_THRESHOLD 1
PACKET_PAYLOAD_SIZE 1000


LINK_DOWN 0 0 0
KMAX_MAP {kmax_map}
KMIN_MAP {kmin_map}
PMAX_MAP {pmax_map}
LOAD {load}
RANDOM_SEED 1
"""

CC_MODES = {"dcqcn": 1, "hpcc": 3, "timely": 7, "dctcp": 8}  # run.py:100-105
LB_MODES = {"fecmp": 0, "drill": 2, "conga": 3, "letflow": 6, "conweave": 9}  # run.py:107-113
TOPO2BDP = {"leaf_spine_128_100G_OS2": 104000, "fat_k8_100G_OS2": 156000}  # run.py:115-118
FLOWGEN_DEFAULT_TIME = 2.0  # run.py:120, traffic_gen.py base_t
EXAMPLES_DIR = os.path.join(repo.ROOT, "examples", "conweave")


class RunPyError(Exception):
    """What run.py refuses (its `raise Exception("CONFIG ERROR ...")` and asserts), or a missing
    input."""


def sanity_check(cc, lb, pfc, irn, simul_time):
    """run.py:196-209."""
    if cc not in CC_MODES:
        raise RunPyError(f"--cc {cc}: one of {', '.join(CC_MODES)}")
    if lb not in LB_MODES:
        raise RunPyError(f"--lb {lb}: one of {', '.join(LB_MODES)}")
    if cc in ("timely", "hpcc") and lb == "conweave":
        raise RunPyError("CONFIG ERROR : ConWeave currently does not support RTT-based protocols. "
                         "Plz modify its logic accordingly.")
    if irn == 1 and pfc == 1:
        raise RunPyError("CONFIG ERROR : If IRN is turn-on, then you should turn off PFC "
                         "(for better perforamnce).")
    if irn == 0 and pfc == 0:
        raise RunPyError("CONFIG ERROR : Either IRN or PFC should be true (at least one).")
    if float(simul_time) < 0.005:
        raise RunPyError("CONFIG ERROR : Runtime must be larger than 5ms (= warmup interval).")


def host_load(topo, netload):
    """run.py:188-195: the per-host load in percent, netload / the oversubscription that the
    topology's name ends with (..._OS2)."""
    oversub = int(topo.replace("\n", "").split("OS")[-1].replace(".txt", ""))
    if netload % oversub != 0:
        raise RunPyError(f"--netload {netload} is not a multiple of {topo}'s oversubscription "
                         f"{oversub} (run.py asserts it)")
    hostload = netload / oversub
    if not 0 < hostload < 100:
        raise RunPyError(f"--netload {netload}: host load {hostload} outside (0, 100)")
    return hostload


def topology_hosts(path):
    """run.py:212-214: nodes minus switches, from line 1 of the topology file."""
    with open(path) as f:
        first = f.readline().split(" ")
    return int(first[0]) - int(first[1])


def check_bandwidth(path, bw):
    """run.py:234-247: every link that touches a host runs at --bw Gb/s."""
    with open(path) as f:
        first = f.readline().split(" ")
        n_host = int(first[0]) - int(first[1])
        n_link = int(first[2])
        rows = f.readlines()
    # run.py skips the line after the header (readlines()[1:]: the switch ids).
    for i, line in enumerate(rows[1:], start=1):
        if i > n_link:
            break
        parsed = line.split(" ")
        if len(parsed) > 2 and (int(parsed[0]) < n_host or int(parsed[1]) < n_host):
            if int(parsed[2].replace("Gbps", "")) != int(bw):
                raise RunPyError(f"{path}: link {parsed[0]}-{parsed[1]} runs at {parsed[2]}, "
                                 f"not --bw {bw} Gbps (run.py asserts it)")


def flow_file_name(hostload, cdf, n_host, simul_time, bw):
    """run.py:216-217."""
    return "L_{load:.2f}_CDF_{cdf}_N_{n_host}_T_{time}ms_B_{bw}_flow".format(
        load=hostload, cdf=cdf, n_host=n_host, time=int(float(simul_time) * 1000), bw=bw)


def conweave_parameters(lb_mode, topo, pfc, irn):
    """run.py:252-279: ConWeave's timers in microseconds, by topology and loss recovery (the
    dummy values when another load balancer runs)."""
    if lb_mode != 9:
        return {"cwh_extra_reply_deadline": 4, "cwh_path_pause_time": 16,
                "cwh_extra_voq_flush_time": 64, "cwh_default_voq_waiting_time": 400,
                "cwh_tx_expiry_time": 1000}
    p = {"cwh_extra_reply_deadline": 4, "cwh_path_pause_time": 16}
    if "leaf_spine" in topo:  # 2-tier
        p.update(cwh_extra_voq_flush_time=16, cwh_default_voq_waiting_time=200,
                 cwh_tx_expiry_time=300)
    elif "fat" in topo and pfc == 0 and irn == 1:  # 3-tier, IRN
        p.update(cwh_extra_voq_flush_time=16, cwh_default_voq_waiting_time=300,
                 cwh_tx_expiry_time=1000)
    elif "fat" in topo and pfc == 1 and irn == 0:  # 3-tier, lossless
        p.update(cwh_extra_voq_flush_time=64, cwh_default_voq_waiting_time=600,
                 cwh_tx_expiry_time=1000)
    else:
        raise RunPyError("Unsupported ConWeave Parameter Setup")
    return p


def config_text(cc, lb, pfc, irn, simul_time, netload, topo, bw, buffer, flow, run_id,
                enforce_win=0, sw_monitoring_interval=10000):
    """The config.txt run.py:281-370 writes. run.py writes one only for --cc dcqcn (any other
    stops at "unknown cc"); for the other modes this fills the same template with CC_MODE and
    HAS_WIN/VAR_WIN as run.py computes them for that mode, the DCQCN branch's values otherwise,
    but FAST_REACT 1 for HPCC (the HPCC simulator's run.py for `hp`; ns3-fabric refuses 0) and
    TIMELY's RATE_AI/RATE_HAI from the HPCC simulator's run.py (a whole multiplier)."""
    cc_mode = CC_MODES[cc]
    lb_mode = LB_MODES[lb]
    flowgen_start_time = FLOWGEN_DEFAULT_TIME
    flowgen_stop_time = flowgen_start_time + float(simul_time)
    has_win = var_win = 0
    if cc_mode == 3 or cc_mode == 8 or enforce_win == 1:
        has_win = var_win = 1
    kmax_map = "6 %d %d %d %d %d %d %d %d %d %d %d %d" % (
        bw * 200000000, 400, bw * 500000000, 400, bw * 1000000000, 400, bw * 2 * 1000000000, 400,
        bw * 2500000000, 400, bw * 4 * 1000000000, 400)
    kmin_map = "6 %d %d %d %d %d %d %d %d %d %d %d %d" % (
        bw * 200000000, 100, bw * 500000000, 100, bw * 1000000000, 100, bw * 2 * 1000000000, 100,
        bw * 2500000000, 100, bw * 4 * 1000000000, 100)
    pmax_map = "6 %d %d %d %d %d %.2f %d %.2f %d %.2f %d %.2f" % (
        bw * 200000000, 0.2, bw * 500000000, 0.2, bw * 1000000000, 0.2, bw * 2 * 1000000000, 0.2,
        bw * 2500000000, 0.2, bw * 4 * 1000000000, 0.2)
    # run.py:352-359, its DCQCN branch.
    ai = 10 * bw / 25
    hai = 25 * bw / 25
    if cc_mode == 7:
        # TIMELY's hyper step is a whole number of RATE_AI steps (DCQCN's 2.5 is not): the
        # HPCC simulator's run.py timely branch (alibaba-edu/High-Precision-Congestion-Control
        # simulation/run.py), 10 x bw / 10 and 50 x bw / 10 Mb/s.
        ai = 10 * bw / 10
        hai = 50 * bw / 10
    values = dict(dctcp_ai=1000, fast_react=1 if cc_mode == 3 else 0, mi=0, int_multi=1,
                  ewma_gain=0.00390625)
    values.update(conweave_parameters(lb_mode, topo, pfc, irn))
    return CONFIG_TEMPLATE.format(
        id=run_id, topo=topo, flow=flow, qlen_mon_start=flowgen_start_time,
        qlen_mon_end=flowgen_stop_time, flowgen_start_time=flowgen_start_time,
        flowgen_stop_time=flowgen_stop_time, sw_monitoring_interval=sw_monitoring_interval,
        load=netload, buffer_size=buffer, lb_mode=lb_mode, enabled_pfc=pfc, enabled_irn=irn,
        cc_mode=cc_mode, ai=ai, hai=hai, has_win=has_win, var_win=var_win, kmax_map=kmax_map,
        kmin_map=kmin_map, pmax_map=pmax_map, **values)


class FlowSizeCdf:
    """traffic_gen/custom_rand.py: a CDF of (size, percentile 0..100) points, linear between."""

    def __init__(self, path):
        self.cdf = []
        with open(path) as f:
            for line in f:
                if line.strip():
                    x, y = map(float, line.strip().split(" "))
                    self.cdf.append([x, y])
        c = self.cdf
        ok = (c and c[0][1] == 0 and c[-1][1] == 100 and
              all(c[i][1] > c[i - 1][1] and c[i][0] > c[i - 1][0] for i in range(1, len(c))))
        if not ok:
            raise RunPyError(f"{path}: not a valid CDF (percentiles from 0 to 100, both columns "
                             "increasing), as traffic_gen.py requires")

    def average(self):
        s = 0.0
        last_x, last_y = self.cdf[0]
        for x, y in self.cdf[1:]:
            s += (x + last_x) / 2.0 * (y - last_y)
            last_x, last_y = x, y
        return s / 100

    def value_at(self, y):
        for i in range(1, len(self.cdf)):
            if y <= self.cdf[i][1]:
                x0, y0 = self.cdf[i - 1]
                x1, y1 = self.cdf[i]
                return x0 + (x1 - x0) / (y1 - y0) * (y - y0)
        return self.cdf[-1][0]


def generate_flows(cdf, n_host, load, bandwidth_bps, time_s, rng):
    """traffic_gen.py's flows, its draws in its order (so a `random.Random(S)` here gives the
    file traffic_gen.py writes after `random.seed(S)`): each host's flows arrive as a Poisson
    process of mean gap avg_size x 8 / (bandwidth x load) in whole ns from base_t = 2 s, each to
    a uniform other host, its size from the CDF (at least 1 B); a host stops at the first gap
    that ends past base_t + time (that arrival is not written). Returns (src, dst, size, t_ns)
    in arrival order (ties by host)."""
    base_t = 2000000000
    time_ns = time_s * 1e9
    avg = cdf.average()
    avg_inter_arrival = 1 / (bandwidth_bps * load / 8. / avg) * 1000000000

    def poisson(lam):
        return -math.log(1 - rng.random()) * lam

    flows = []
    hosts = [(base_t + int(poisson(avg_inter_arrival)), i) for i in range(n_host)]
    heapq.heapify(hosts)
    while hosts:
        t, src = hosts[0]
        inter_t = int(poisson(avg_inter_arrival))
        dst = rng.randint(0, n_host - 1)
        while dst == src:
            dst = rng.randint(0, n_host - 1)
        if t + inter_t > time_ns + base_t:
            heapq.heappop(hosts)
        else:
            size = int(cdf.value_at(rng.random() * 100))
            flows.append((src, dst, max(size, 1), t))
            heapq.heapreplace(hosts, (t + inter_t, src))
    return flows


def write_flow_file(path, flows):
    """traffic_gen.py's format: the count, then `src dst 3 size start_s` per flow."""
    with open(path, "w") as f:
        f.write("%d \n" % len(flows))
        for src, dst, size, t in flows:
            f.write("%d %d 3 %d %.9f\n" % (src, dst, size, t * 1e-9))


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="conweave-run",
        description="Write the config.txt ConWeave's run.py writes and run build/fabric-run "
                    "--hpcc-config on it (tools/README.md).")
    # run.py's own arguments (run.py:128-153), its defaults.
    p.add_argument("--cc", default="dcqcn", help="dcqcn/hpcc/timely/dctcp (default: dcqcn)")
    p.add_argument("--lb", default="fecmp", help="fecmp/drill/conga/letflow/conweave")
    p.add_argument("--pfc", type=int, default=1, help="enable PFC (default: 1)")
    p.add_argument("--irn", type=int, default=0, help="enable IRN (default: 0)")
    p.add_argument("--simul_time", default="0.1", help="seconds of arrivals (default: 0.1)")
    p.add_argument("--buffer", default="9", help="switch buffer in MB (default: 9)")
    p.add_argument("--netload", type=int, default=40, help="network load in percent (default: 40)")
    p.add_argument("--bw", default="100", help="NIC bandwidth in Gb/s (default: 100)")
    p.add_argument("--topo", default="leaf_spine_128_100G_OS2",
                   help="topology name (default: leaf_spine_128_100G_OS2; run.py's default "
                        "leaf_spine_128_100G has no _OS suffix and fails there)")
    p.add_argument("--cdf", default="AliStorage2019", help="flow-size CDF name")
    p.add_argument("--enforce_win", type=int, default=0, help="window for every cc (default: 0)")
    p.add_argument("--sw_monitoring_interval", type=int, default=10000)
    # Ours.
    p.add_argument("--seed", type=int, default=1, help="seed of the flow generator (default: 1)")
    p.add_argument("--out", default=None, help="run directory (default: results/conweave-run/"
                                               "CC-LB-NETLOAD-sSEED)")
    p.add_argument("--conweave-dir", default=None,
                   help="a checkout of conweave-project/conweave-ns3: topology from config/, CDF "
                        "from traffic_gen/, and its flow file config/<name>.txt when it exists "
                        "(as run.py reuses it); default: the copies in examples/conweave")
    p.add_argument("--flow-file", default=None, help="use this flow file instead")
    p.add_argument("--bdp", type=int, default=None,
                   help="1 BDP in bytes for a topology run.py's topo2bdp lacks (run.py stops)")
    p.add_argument("--id", default="1", help="run id in the config's output paths (default: 1)")
    p.add_argument("--fabric-run", default=repo.fabric_run(), help="the simulator binary")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="passed to fabric-run (scenario keys win over the config's)")
    p.add_argument("--dry-run", action="store_true", help="write the inputs, do not run")
    return p.parse_args(argv)


def shown(path):
    """A path for conweave-run.json: relative to the repository when inside it."""
    full = os.path.abspath(path)
    return os.path.relpath(full, repo.ROOT) if full.startswith(repo.ROOT + os.sep) else path


def prepare(a):
    """Writes OUT/config/<topo>.txt, OUT/config/<flow>.txt and OUT/mix/output/<id>/config.txt as
    run.py lays them out; returns (out, config path relative to out, facts for
    conweave-run.json)."""
    sanity_check(a.cc, a.lb, a.pfc, a.irn, a.simul_time)
    hostload = host_load(a.topo, a.netload)
    bw = int(a.bw)
    src_dir = a.conweave_dir
    topo_src = (os.path.join(src_dir, "config", a.topo + ".txt") if src_dir
                else os.path.join(EXAMPLES_DIR, a.topo + ".txt"))
    if not os.path.exists(topo_src):
        raise RunPyError(f"--topo {a.topo}: {topo_src} not found")
    n_host = topology_hosts(topo_src)
    flow = flow_file_name(hostload, a.cdf, n_host, a.simul_time, a.bw)
    bdp = TOPO2BDP.get(a.topo, a.bdp)
    if bdp is None:
        raise RunPyError(f"--topo {a.topo}: not in run.py's topo2bdp ('ERROR - topology is not "
                         "registered in run.py!!'); give --bdp BYTES")
    out = a.out or os.path.join("results", "conweave-run",
                                f"{a.cc}-{a.lb}-{a.netload}-s{a.seed}")
    os.makedirs(os.path.join(out, "config"), exist_ok=True)
    shutil.copyfile(topo_src, os.path.join(out, "config", a.topo + ".txt"))
    check_bandwidth(topo_src, a.bw)
    flow_out = os.path.join(out, "config", flow + ".txt")
    shipped = os.path.join(src_dir, "config", flow + ".txt") if src_dir else None
    if a.flow_file:
        shutil.copyfile(a.flow_file, flow_out)
        origin = shown(a.flow_file)
    elif shipped and os.path.exists(shipped):
        shutil.copyfile(shipped, flow_out)
        origin = shown(shipped)
    else:
        cdf_path = (os.path.join(src_dir, "traffic_gen", a.cdf + ".txt") if src_dir
                    else os.path.join(EXAMPLES_DIR, a.cdf + ".txt"))
        if not os.path.exists(cdf_path):
            raise RunPyError(f"--cdf {a.cdf}: {cdf_path} not found")
        flows = generate_flows(FlowSizeCdf(cdf_path), n_host, hostload / 100.0,
                               bw * 1e9, float(a.simul_time), random.Random(a.seed))
        write_flow_file(flow_out, flows)
        origin = f"generated from {shown(cdf_path)}, seed {a.seed}"
    config_rel = os.path.join("mix", "output", a.id, "config.txt")
    os.makedirs(os.path.join(out, "mix", "output", a.id), exist_ok=True)
    with open(os.path.join(out, config_rel), "w") as f:
        f.write(config_text(a.cc, a.lb, a.pfc, a.irn, a.simul_time, a.netload, a.topo, bw,
                            a.buffer, flow, a.id, a.enforce_win, a.sw_monitoring_interval))
    start = FLOWGEN_DEFAULT_TIME
    stop = start + float(a.simul_time)
    facts = {"run_py_arguments": {k: getattr(a, k) for k in (
                 "cc", "lb", "pfc", "irn", "simul_time", "buffer", "netload", "bw", "topo", "cdf",
                 "enforce_win", "sw_monitoring_interval")},
             "seed": a.seed, "flow_file": flow + ".txt", "flow_origin": origin,
             "bdp_bytes": bdp, "host_load_percent": hostload,
             # run.py:392-395: the FCT analysis window, past a 5 ms warm-up, 50 ms of tail.
             "fct_analysis_ns": [int(start * 1e9) + int(0.005 * 1e9),
                                 int(stop * 1e9) + int(0.05 * 1e9)],
             "fct_file": os.path.join("mix", "output", a.id, f"{a.id}_out_fct.txt")}
    with open(os.path.join(out, "conweave-run.json"), "w") as f:
        json.dump(facts, f, indent=2)
        f.write("\n")
    if a.cc != "dcqcn":
        print(f"conweave-run: note: run.py writes a config for dcqcn only (--cc {a.cc} stops at "
              "'unknown cc'); this one has CC_MODE "
              f"{CC_MODES[a.cc]} and otherwise run.py's DCQCN values (HPCC: FAST_REACT 1; "
              "TIMELY: RATE_AI/RATE_HAI of the HPCC simulator's run.py)", file=sys.stderr)
    return out, config_rel, facts


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        out, config_rel, _ = prepare(a)
    except (RunPyError, OSError, ValueError) as e:
        print(f"conweave-run: error: {e}", file=sys.stderr)
        return 2
    cmd = [os.path.abspath(a.fabric_run), "--hpcc-config", config_rel, "--hpcc-simulator",
           "conweave", "--out", "."]
    for s in a.set:
        cmd += ["--set", s]
    print("conweave-run: (cd %s && %s)" % (out, " ".join(cmd)), file=sys.stderr)
    if a.dry_run:
        return 0
    return subprocess.call(cmd, cwd=out)
