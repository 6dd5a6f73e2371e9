"""Routes of UB frames through an explicit topology, as the simulator computes them.

Mirrors contrib/fabric/helper/build/route-computer.cc (all shortest paths by hop count, hosts never
forward; a node's equal-cost next hops = its ports, in port order, whose peer is one hop closer);
which of them a switch takes for a frame's entropy (FabricSwitch::SelectEgressPort, salted per
switch by the builder) is asked of the simulator through fabric-run --hash (ecmp.py). Hosts are
numbered in the order the topology lists them, ports per node in the order it lists the links.
Link rates/delays follow topologies/README.md: the link's own value, else the file's default,
else the scenario's link.rate / link.delay (cable), else 400 Gb/s and 150 ns.
"""

from collections import deque

from . import ecmp, scenario
from .core import ValidationError
from .tandem import TLink
from .units import cable_delay_s, parse_bytes, parse_rate_bps

# Switch choices already asked of fabric-run --hash, per binary: the cases build many Topology
# objects for the same few frames (a bisection re-predicts the same message).
_ANSWERS = {}


class Topology:
    def __init__(self, topo: dict, params: dict, where: str, fabric_run: str):
        if not isinstance(topo, dict) or "nodes" not in topo or "links" not in topo:
            raise ValidationError(f"{where}: expected an explicit topology (nodes, links)")
        self.names = [n["name"] for n in topo["nodes"]]
        self.index = {n: i for i, n in enumerate(self.names)}
        self.is_host = [n["type"] == "host" for n in topo["nodes"]]
        self.hosts = [n for n, h in zip(self.names, self.is_host) if h]
        link_defaults = scenario.get(params, "link", {}) or {}
        default_rate = topo.get("rate") or link_defaults.get("rate") or "400Gbps"
        file_delay = {k: topo[k] for k in ("delay", "cable") if k in topo}
        self.wo = parse_bytes(scenario.get(params, "link.wire_overhead", "24B"))
        self.ports = [[] for _ in self.names]        # node -> [(peer, rate_bps, delay_ps)]
        for l in topo["links"]:
            if int(l.get("count", 1)) != 1:
                raise ValidationError(f"{where}: parallel links (count) are not modeled here")
            a, b = self.index[l["a"]], self.index[l["b"]]
            rate = parse_rate_bps(l.get("rate", default_rate))
            own = {k: l[k] for k in ("delay", "cable") if k in l}
            delay_ps = round(cable_delay_s(own or file_delay or None, link_defaults) * 1e12)
            self.ports[a].append((b, rate, delay_ps))
            self.ports[b].append((a, rate, delay_ps))
        self.hash_salt = int(scenario.get(params, "switch.hash_salt", "0"))
        self.fabric_run = fabric_run

    def _dist(self, dst):
        d = [None] * len(self.names)
        d[dst] = 0
        q = deque([dst])
        while q:
            n = q.popleft()
            if self.is_host[n] and n != dst:
                continue  # hosts do not forward
            for peer, _, _ in self.ports[n]:
                if d[peer] is None:
                    d[peer] = d[n] + 1
                    q.append(peer)
        return d

    def group(self, node, dst_name):
        dst = self.index[dst_name]
        d = self._dist(dst)
        return [p for p, (peer, _, _) in enumerate(self.ports[node])
                if d[peer] is not None and d[node] is not None and d[peer] == d[node] - 1]

    def walks(self, src_name, dst_name, entropies):
        """[(from node, port)] hops of a UB frame from src to dst, one list per entropy (a
        port number or an ecmp.flow_entropy form). The switches' choices come from one
        fabric-run --hash per hop that needs some not asked before."""
        dst = self.index[dst_name]
        d = self._dist(dst)
        at = [self.index[src_name]] * len(entropies)
        hops = [[] for _ in entropies]
        while True:
            moving = [k for k, n in enumerate(at) if n != dst]
            if not moving:
                return hops
            groups = {}
            for k in moving:
                n = at[k]
                grp = [p for p, (peer, _, _) in enumerate(self.ports[n])
                       if d[peer] is not None and d[peer] == d[n] - 1]
                if not grp:
                    raise ValidationError(f"no route from {self.names[n]} to {dst_name}")
                if len(grp) > 1 and self.is_host[n]:
                    raise ValidationError(f"multi-port host {self.names[n]} is not modeled")
                groups[k] = grp
            queries = {k: ecmp.query(ecmp.switch_salt(self.hash_salt, at[k]),
                                     ecmp.host(self.hosts.index(src_name)),
                                     ecmp.host(self.hosts.index(dst_name)), entropies[k],
                                     ecmp.UB_UDP_PORT, ub=True, group=len(groups[k]))
                       for k in moving if len(groups[k]) > 1}
            memo = _ANSWERS.setdefault(self.fabric_run, {})
            answers = dict(zip(queries, ecmp.ask(self.fabric_run, list(queries.values()), memo)))
            for k in moving:
                p = groups[k][answers[k].index if k in answers else 0]
                hops[k].append((at[k], p))
                at[k] = self.ports[at[k]][p][0]

    def walk(self, src_name, dst_name, entropy):
        """The hops of one frame (walks)."""
        return self.walks(src_name, dst_name, [entropy])[0]

    def links(self):
        """Fresh FIFO state for every directed link: {(node, port): TLink}."""
        out = {}
        for n, ports in enumerate(self.ports):
            for p, (peer, rate, delay) in enumerate(ports):
                out[(n, p)] = TLink(f"{self.names[n]}->{self.names[peer]}", rate, delay, self.wo)
        return out

    def hop_names(self, hops):
        return [self.names[self.ports[n][p][0]] for n, p in hops]
