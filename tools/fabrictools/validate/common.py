"""Parameter helpers shared by the cases: every number comes from the run's own parameters."""

import math

from . import scenario
from .core import FRAME_HEADERS, ValidationError
from .units import cable_delay_s, parse_bytes, parse_rate_bps, parse_time_ps


class Link:
    """A port's line rate and cable, with the frame arithmetic the device uses
    (fabric-net-device.cc: serialization = ceil((bytes + wire_overhead) * 8 / rate) in ps)."""

    def __init__(self, rate_bps, delay_s, wire_overhead):
        self.rate_bps = rate_bps
        self.delay_s = delay_s
        self.wo = wire_overhead

    def tx_ps(self, stored_bytes):
        bits = (stored_bytes + self.wo) * 8
        return -(-bits * 10 ** 12 // self.rate_bps)

    def tx_s(self, stored_bytes):
        return self.tx_ps(stored_bytes) * 1e-12

    def stored_rate(self, frame):
        """B in stored (buffer) bytes per second for back-to-back frames of `frame` bytes."""
        return frame / self.tx_s(frame)


def wire_overhead(params):
    return parse_bytes(scenario.get(params, "link.wire_overhead", "24B"))


def star_link(params, where) -> Link:
    """The (single) kind of link of a star topology given inline in the scenario."""
    topo = scenario.require(params, "topology", where)
    if not isinstance(topo, dict) or topo.get("generator") != "star":
        raise ValidationError(f"{where}: expected an inline star topology")
    rate = topo.get("rate") or scenario.get(params, "link.rate") or "400Gbps"
    delay = cable_delay_s(topo, scenario.get(params, "link", {}) or {})
    return Link(parse_rate_bps(rate), delay, wire_overhead(params))


def mtu_frame(params):
    mtu = parse_bytes(scenario.get(params, "host.mtu", "4096B"))
    return mtu, mtu + FRAME_HEADERS


def buffer_bytes(params, where):
    b = scenario.require(params, "switch.buffer", where)
    if str(b) == "infinite":
        return math.inf
    return parse_bytes(b)


def pfc_enabled(params):
    return str(scenario.get(params, "switch.pfc.enabled", "true")).lower() == "true"


def time_ps(v):
    return parse_time_ps(v)


def fmt_ps(ps: int) -> str:
    return f"{int(ps)}ps"
