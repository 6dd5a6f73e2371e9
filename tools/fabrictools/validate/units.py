"""Scenario value parsing, mirroring contrib/fabric/helper/config/units.cc exactly.

The analytic side of every case must use the numbers the simulator used, so it parses the same
strings the same way: bytes (B, KiB, MiB, GiB, KB/kB, MB, GB), rates (bps, b/s, Bps, B/s with
k/K, M, G, T prefixes, decimal) and times (s, ms, us, ns, ps) to integer picoseconds.
"""

import math
import re

_NUM = re.compile(r"^\s*(\d*\.?\d*)\s*(.*?)\s*$")


class UnitError(ValueError):
    """A value the simulator would reject too."""


def _split(text):
    m = _NUM.match(str(text))
    if not m or not re.search(r"\d", m.group(1)):
        raise UnitError(f"not a number with a unit: {text!r}")
    return float(m.group(1)), m.group(2)


_BYTE_UNITS = {"": 1, "B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3,
               "KB": 1e3, "kB": 1e3, "MB": 1e6, "GB": 1e9}


def parse_bytes(text) -> int:
    n, unit = _split(text)
    if unit not in _BYTE_UNITS:
        raise UnitError(f"unknown byte unit in {text!r}")
    v = n * _BYTE_UNITS[unit]
    if v != math.floor(v):
        raise UnitError(f"not a whole number of bytes: {text!r}")
    return int(v)


_RATE_PREFIX = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def parse_rate_bps(text) -> int:
    """Bits per second, as ns-3 DataRate stores it (llround)."""
    n, unit = _split(text)
    for suffix, bits in (("bps", 1), ("b/s", 1), ("Bps", 8), ("B/s", 8)):
        if unit.endswith(suffix):
            prefix = unit[: -len(suffix)]
            if prefix not in _RATE_PREFIX:
                break
            bps = n * _RATE_PREFIX[prefix] * bits
            if bps <= 0:
                raise UnitError(f"rate must be positive: {text!r}")
            return int(round(bps))
    raise UnitError(f"unknown rate unit in {text!r}")


_TIME_PS = {"s": 1e12, "ms": 1e9, "us": 1e6, "ns": 1e3, "ps": 1}


def parse_time_ps(text) -> int:
    n, unit = _split(text)
    if unit not in _TIME_PS:
        raise UnitError(f"unknown time unit in {text!r}")
    return int(round(n * _TIME_PS[unit]))


def parse_time_s(text) -> float:
    return parse_time_ps(text) * 1e-12


def cable_delay_s(link: dict, defaults: dict) -> float:
    """Propagation delay of a link mapping (delay or cable at 5 ns/m), else the defaults'."""
    for src in (link, defaults):
        if src is None:
            continue
        if "delay" in src:
            return parse_time_s(src["delay"])
        if "cable" in src:
            n, unit = _split(src["cable"])
            if unit != "m":
                raise UnitError(f"cable length needs metres: {src['cable']!r}")
            return n * 5e-9
    return 150e-9  # the simulator's default: 30 m


def fmt_bytes(b: float) -> str:
    a = abs(b)
    if a >= 1024 ** 3:
        return f"{b / 1024 ** 3:.4g} GiB"
    if a >= 1024 ** 2:
        return f"{b / 1024 ** 2:.4g} MiB"
    if a >= 1024:
        return f"{b / 1024:.4g} KiB"
    return f"{b:.0f} B"


def fmt_time(s: float) -> str:
    a = abs(s)
    if a >= 1e-3:
        return f"{s * 1e3:.4g} ms"
    if a >= 1e-6:
        return f"{s * 1e6:.4g} us"
    return f"{s * 1e9:.4g} ns"
