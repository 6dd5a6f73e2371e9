"""Which links a collective's transfers share, and what that does to the stage time.

A collective's flows carry UDP source ports the collective engine derives; rather than a second
implementation of that derivation, a probe run of the same scenario with one frame per transfer
writes pcaps at the GPUs, and the ports are read from its frames (data: RDMA WRITE, the ACKs:
their own QP port). The switches' choice for each port is asked of the simulator
(`fabric-run --hash`, ecmp.py); the equal-cost groups are the ports one hop closer to the
destination (contrib/fabric/helper/build/route-computer.cc's rule, hosts never forward), built from
the run's links.csv. The predicted routes must reproduce every link's byte counter of the real
run exactly, data and ACKs, before they are used.

Stage time (fluid_fifo_stage): the transfers' bytes move as a fluid through FIFO links — a
port fed faster than it drains serves its inputs in arrival order, so a transfer that meets
another on a link (or one already slowed elsewhere) takes the share the queue gives it; ACKs
flow back as their data arrives and share the links they cross. A transfer ends when its last
ACK is back, plus the cables and the store-and-forward of the last frames that a fluid leaves
out; a rank starts step s + 1 one launch cost after both its step-s send and the step-s send to
it have ended (collective.csv: the two ranks of a pair start together).
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


def fluid_fifo_stage(xs, data_routes, ack_routes, data_bytes, ack_bytes, rate_Bps, launch_s,
                     tail_s, dt=100e-9):
    """Stage time of the transfers through FIFO links, as fluid moved in steps of dt.

    xs: transfers (collective.csv rows); data_routes / ack_routes: {transfer: [(node, port)]}
    from the sender's NIC to the receiver and back; data_bytes / ack_bytes: {transfer: wire
    bytes}; tail_s: {transfer: seconds the fluid leaves out at the end (cables, store and
    forward of the last frame and the last ACK at each switch)}. A NIC sends the ACKs it owes
    before its next data (an ACK frame waits for at most the frame on the wire); a switch port
    serves its bytes in arrival order. Each hop adds one dt the real link does not, taken off
    again at the end. Returns {transfer: end time}."""
    cap = rate_Bps * dt
    by_rank_step = {(t["rank"], t["step"]): t for t in xs}
    recv = {(t["peer"], t["step"]): t for t in xs}
    ids = [t["transfer"] for t in xs]
    start = {t["transfer"]: launch_s for t in xs if t["step"] == 0}
    to_send = dict(data_bytes)
    delivered = {k: 0.0 for k in ids}
    acked = {k: 0.0 for k in ids}
    end = {}
    nic_of = {k: data_routes[k][0] for k in ids}
    queues = {}        # link -> deque of [transfer, kind, bytes, hop]
    ack_owed = {}      # NIC link -> deque of [transfer, bytes]
    routes = {"d": data_routes, "a": ack_routes}
    now, step = 0.0, 0
    while len(end) < len(ids):
        if step > 10 ** 7:
            raise ValidationError("stage model did not finish")
        moving = []
        # Sender NICs: ACKs owed first, then the active transfer's data.
        busy = {}
        for link, owed in ack_owed.items():
            room = cap
            while owed and room > 1e-9:
                k, b = owed[0]
                take = min(b, room)
                room -= take
                moving.append((link, k, "a", take, 0))
                if take >= b - 1e-9:
                    owed.popleft()
                else:
                    owed[0][1] -= take
            busy[link] = cap - room
        for k in ids:
            if k in start and start[k] <= now + 1e-15 and to_send[k] > 1e-9:
                link = nic_of[k]
                room = cap - busy.get(link, 0.0)
                take = min(room, to_send[k])
                if take > 0:
                    to_send[k] -= take
                    busy[link] = busy.get(link, 0.0) + take
                    moving.append((link, k, "d", take, 0))
        # Switch ports: FIFO, cap bytes per step.
        for link, q in queues.items():
            room = cap
            while q and room > 1e-9:
                k, kind, b, hop = q[0]
                take = min(b, room)
                room -= take
                moving.append((link, k, kind, take, hop))
                if take >= b - 1e-9:
                    q.popleft()
                else:
                    q[0][2] -= take
        now += dt
        step += 1
        for link, k, kind, b, hop in moving:
            route = routes[kind][k]
            if hop + 1 < len(route):
                queues.setdefault(route[hop + 1], deque()).append([k, kind, b, hop + 1])
            elif kind == "d":
                delivered[k] += b
                rl = ack_routes[k][0]
                ack_owed.setdefault(rl, deque()).append([k, b * ack_bytes[k] / data_bytes[k]])
            else:
                acked[k] += b
                if k not in end and acked[k] >= ack_bytes[k] - 1e-6:
                    hops = len(data_routes[k]) + len(ack_routes[k])
                    end[k] = now - hops * dt + tail_s[k]
        for t in xs:   # a rank's next step: L after its send and its receive of this step end
            nxt = by_rank_step.get((t["rank"], t["step"] + 1))
            if nxt is None or nxt["transfer"] in start:
                continue
            theirs = recv.get((t["rank"], t["step"]))
            if t["transfer"] in end and theirs is not None and theirs["transfer"] in end:
                start[nxt["transfer"]] = max(end[t["transfer"]], end[theirs["transfer"]]) + launch_s
    return end
