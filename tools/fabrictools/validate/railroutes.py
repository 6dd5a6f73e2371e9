"""Which links a collective's transfers share, and what that does to the stage time.

A collective's flows carry UDP source ports the collective engine derives; rather than a second
implementation of that derivation, a probe run of the same scenario with one frame per transfer
writes pcaps at the GPUs, and the ports are read from its frames (data: RDMA WRITE, the ACKs:
their own QP port). The switches' choice for each port is asked of the simulator
(`fabric-run --hash`, ecmp.py); the equal-cost groups are the ports one hop closer to the
destination (contrib/fabric/helper/route-computer.cc's rule, hosts never forward), built from
the run's links.csv. The predicted routes must reproduce every link's byte counter of the real
run exactly, data and ACKs, before they are used.

Stage time: the transfers are fluid; while k transfers' data share a link each moves at 1/k of
it (a FIFO egress fed by k senders at line rate serves them alike). A transfer takes
W = (payload + headers + the ACKs its NIC interleaves) / B at full rate, then the round's
latency; a rank starts step s + 1 one launch cost after both its step-s send and the step-s
send to it have ended (collective.csv: the two ranks of a pair start together).
"""

import os
import struct
from collections import deque

from .. import rundir
from . import ecmp
from .core import ValidationError

ROCE_WRITE_ONLY = 10
ROCE_ACK = 17


def read_pcap(path):
    """[(src host index, dst host index, UDP source port, BTH opcode)] of the IPv4/UDP frames of
    a classic little-endian pcap, in file order (host i has address 10.0.0.(i + 1))."""
    with open(path, "rb") as f:
        b = f.read()
    if len(b) < 24 or struct.unpack("<I", b[:4])[0] != 0xA1B2C3D4:
        raise ValidationError(f"{path}: not a little-endian pcap")
    out, o = [], 24
    while o + 16 <= len(b):
        incl = struct.unpack("<I", b[o + 8:o + 12])[0]
        d = b[o + 16:o + 16 + incl]
        o += 16 + incl
        if len(d) < 43 or struct.unpack(">H", d[12:14])[0] != 0x0800:
            continue
        src = int.from_bytes(d[26:30], "big") - 0x0A000001
        dst = int.from_bytes(d[30:34], "big") - 0x0A000001
        sport = struct.unpack(">H", d[34:36])[0]
        out.append((src, dst, sport, d[42]))
    return out


def transfers(run_dir):
    rows = rundir.read_rows(run_dir, "collective.csv",
                            ["transfer", "rank", "step", "peer", "bytes", "start_ns", "end_ns",
                             "src_host", "dst_host"],
                            {k: int for k in ("transfer", "rank", "step", "peer", "bytes",
                                              "start_ns", "end_ns", "src_host", "dst_host")})
    return sorted(rows, key=lambda r: r["transfer"])


def ports_from_probe(probe_dir, gpus):
    """{transfer id: (data source port, ACK source port)} from the probe's pcaps."""
    xs = transfers(probe_dir)
    data, acks = {}, {}
    for name in gpus:
        path = os.path.join(probe_dir, f"{name}-1.pcap")   # device 1: the NIC (0 is NVLink)
        if not os.path.isfile(path):
            raise ValidationError(f"{probe_dir}: no pcap {os.path.basename(path)}")
        for src, dst, sport, op in read_pcap(path):
            # Each device's pcap holds what it sent and received; keep what it sent.
            if gpus.index(name) != src:
                continue
            if op == ROCE_WRITE_ONLY:
                data.setdefault((src, dst), []).append(sport)
            elif op == ROCE_ACK:
                acks.setdefault((src, dst), []).append(sport)
    out = {}
    seen = {}
    for t in xs:   # the k-th transfer from src to dst (by step) sent the k-th frame
        key = (t["src_host"], t["dst_host"])
        k = seen.get(key, 0)
        seen[key] = k + 1
        try:
            out[t["transfer"]] = (data[key][k], acks[(key[1], key[0])][k])
        except (KeyError, IndexError):
            raise ValidationError(f"{probe_dir}: no frame of transfer {t['transfer']} in the pcaps")
    return out


class Fabric:
    """The run's topology as links.csv lists it: nodes in order of appearance (the builder's
    order: the node index that salts a switch's hash), ports in port order."""

    def __init__(self, run_dir):
        rows = rundir.read_rows(run_dir, "links.csv", ["node", "port", "peer", "tx_bytes"],
                                {"port": int, "tx_bytes": int})
        self.names = []
        for r in rows:
            if r["node"] not in self.names:
                self.names.append(r["node"])
        self.index = {n: i for i, n in enumerate(self.names)}
        self.ports = {i: {} for i in range(len(self.names))}
        self.tx = {}
        for r in rows:
            a = self.index[r["node"]]
            self.ports[a][r["port"]] = self.index[r["peer"]]
            self.tx[(a, r["port"])] = r["tx_bytes"]
        self.hosts = [n for n in self.names if n.startswith("gpu")]

    def is_host(self, i):
        return self.names[i] in self.hosts

    def dist(self, dst):
        d = {dst: 0}
        q = deque([dst])
        while q:
            n = q.popleft()
            if self.is_host(n) and n != dst:
                continue
            for peer in self.ports[n].values():
                if peer not in d:
                    d[peer] = d[n] + 1
                    q.append(peer)
        return d

    def routes(self, fabric_run, hash_salt, flows):
        """flows: [(src host, dst host, source port)] -> [[(node, port), ...] per flow]."""
        at = [self.index[self.hosts[s]] for s, _, _ in flows]
        dsts = [self.index[self.hosts[d]] for _, d, _ in flows]
        dists = {d: self.dist(d) for d in set(dsts)}
        hops = [[] for _ in flows]
        while True:
            moving = [k for k in range(len(flows)) if at[k] != dsts[k]]
            if not moving:
                return hops
            groups, queries = {}, {}
            for k in moving:
                n, d = at[k], dists[dsts[k]]
                grp = [p for p in sorted(self.ports[n])
                       if d.get(self.ports[n][p]) == d[n] - 1
                       and (not self.is_host(self.ports[n][p]) or self.ports[n][p] == dsts[k])]
                if not grp:
                    raise ValidationError(f"no route from {self.names[n]}")
                groups[k] = grp
                if len(grp) > 1:
                    if self.is_host(n):
                        raise ValidationError(f"multi-path host {self.names[n]} not modelled")
                    s, t, sport = flows[k]
                    queries[k] = ecmp.query(ecmp.switch_salt(hash_salt, n), ecmp.host(s),
                                            ecmp.host(t), sport, group=len(grp))
            answers = dict(zip(queries, ecmp.ask(fabric_run, list(queries.values()))))
            for k in moving:
                p = groups[k][answers[k].index if k in answers else 0]
                hops[k].append((at[k], p))
                at[k] = self.ports[at[k]][p]


def stage_time(xs, paths, work_s, lat_s, launch_s):
    """Fluid stage time with link sharing and the pairs' step dependencies.

    xs: transfers (collective.csv rows); paths: {transfer: set of (node, port)} of its data;
    work_s / lat_s: {transfer: seconds}. Returns ({transfer: end}, {transfer: most transfers
    seen at once on one of its links})."""
    by_rank_step = {(t["rank"], t["step"]): t for t in xs}
    recv = {(t["peer"], t["step"]): t for t in xs}
    pending = {t["transfer"]: t for t in xs}
    start = {t["transfer"]: launch_s for t in xs if t["step"] == 0}
    left = {k: work_s[k] for k in pending}
    end, share = {}, {k: 1 for k in pending}
    now, active = 0.0, set()
    while pending or active:
        for k in [k for k in pending if k in start and start[k] <= now + 1e-18]:
            active.add(k)
            del pending[k]
        load = {}
        for k in active:
            for l in paths[k]:
                load[l] = load.get(l, 0) + 1
        rate = {k: 1.0 / max([load[l] for l in paths[k]] or [1]) for k in active}
        for k in active:
            share[k] = max(share[k], round(1 / rate[k]))
        t_next = min([now + left[k] / rate[k] for k in active] +
                     [start[k] for k in pending if k in start] or [now])
        if t_next <= now and not active:
            raise ValidationError("stage model: transfers wait on a dependency that never ends")
        for k in list(active):
            left[k] -= (t_next - now) * rate[k]
            if left[k] <= 1e-15:
                active.discard(k)
                end[k] = t_next + lat_s[k]
        now = t_next
        for t in xs:   # release step s + 1 of a rank once its send and receive of step s ended
            nxt = by_rank_step.get((t["rank"], t["step"] + 1))
            if nxt is None or nxt["transfer"] in start:
                continue
            mine, theirs = t["transfer"], recv.get((t["rank"], t["step"]))
            if mine in end and theirs is not None and theirs["transfer"] in end:
                start[nxt["transfer"]] = max(end[mine], end[theirs["transfer"]]) + launch_s
    return end, share
