"""Grid axes, their cartesian product, and the directory name of each point.

An axis is a scenario key (`workload.senders`, passed as `--set KEY=VALUE`) or an ns-3
attribute (`ns3::FabricSwitch::EcnPmax`, passed as `--attr KEY=VALUE`). Values are split on
commas outside brackets, so a list value such as `switch.pfc.lossless=[3],[3,4]` is two values.
"""

import hashlib
import itertools
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

# Final key components that say nothing on their own: switch.pfc.enabled is "pfc".
GENERIC_LAST = {"enabled"}
SAFE_VALUE = re.compile(r"[^A-Za-z0-9._+-]")
MAX_NAME = 150  # keeps paths well below NAME_MAX (255) with room for the seed suffix


class GridError(ValueError):
    """A malformed --grid/--set/--seeds value; the message is meant for the user."""


@dataclass(frozen=True)
class Axis:
    key: str  # as given: workload.senders or ns3::Type::Attribute
    values: Tuple[str, ...]
    short: str = ""  # name used in directory names, set by name_axes

    @property
    def is_attribute(self) -> bool:
        return "::" in self.key


@dataclass
class Point:
    values: Dict[str, str]  # axis key -> value, in axis order
    seed: Optional[int]  # None: the scenario's own seed
    name: str = ""  # directory name under runs/
    index: int = 0  # position in the sweep, for stable output order

    def fabric_args(self, fixed_sets: Sequence[str], fixed_attrs: Sequence[str]) -> List[str]:
        """fabric-run options for this point (without the scenario, --out and --quiet)."""
        args: List[str] = []
        for item in fixed_sets:
            args += ["--set", item]
        for item in fixed_attrs:
            args += ["--attr", item]
        for key, value in self.values.items():
            args += ["--attr" if "::" in key else "--set", f"{key}={value}"]
        if self.seed is not None:
            args += ["--seed", str(self.seed)]
        return args

    def label(self, axes: Sequence[Axis]) -> str:
        """Human-readable, unsanitized: senders=16, buffer=4MiB, pfc=false, seed=2."""
        parts = [f"{a.short}={self.values[a.key]}" for a in axes]
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return ", ".join(parts)


def split_values(text: str) -> List[str]:
    """Split on commas that are not inside [] or {} (YAML flow lists and maps)."""
    values, depth, current = [], 0, []
    for char in text:
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(0, depth - 1)
        if char == "," and depth == 0:
            values.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    values.append("".join(current).strip())
    return values


def split_assignment(text: str, option: str) -> Tuple[str, str]:
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise GridError(f"{option} {text!r}: expected KEY=VALUE")
    if any(c.isspace() for c in key):
        raise GridError(f"{option} {text!r}: the key contains white space")
    return key, value.strip()


def parse_axis(text: str) -> Axis:
    key, rest = split_assignment(text, "--grid")
    values = split_values(rest)
    if any(v == "" for v in values):
        raise GridError(f"--grid {text!r}: empty value (values are separated by commas)")
    duplicates = sorted({v for v in values if values.count(v) > 1})
    if duplicates:
        raise GridError(f"--grid {key}: value(s) {', '.join(duplicates)} given twice")
    return Axis(key, tuple(values))


def parse_seeds(text: Optional[str]) -> List[Optional[int]]:
    """--seeds N is seeds 1..N; --seeds 3,7,11 is those seeds; absent: the scenario's seed."""
    if text is None:
        return [None]
    try:
        if "," in text:
            seeds = [int(s) for s in text.split(",")]
        else:
            seeds = list(range(1, int(text) + 1))
    except ValueError:
        raise GridError(f"--seeds {text!r}: expected a count N or a list like 1,5,9")
    if not seeds or any(s < 0 for s in seeds) or len(set(seeds)) != len(seeds):
        raise GridError(f"--seeds {text!r}: expected a positive count or distinct seeds >= 0")
    return seeds


def _components(key: str) -> List[str]:
    parts = key.split("::") if "::" in key else key.split(".")
    if len(parts) > 1 and parts[-1] in GENERIC_LAST:
        parts = parts[:-1]
    return [p for p in parts if p]


def name_axes(axes: Sequence[Axis]) -> List[Axis]:
    """Give each axis the shortest unique suffix of its key: senders, buffer, pfc (from
    switch.pfc.enabled), and pfc.xoff / ecn.kmin style names when last components clash."""
    comps = [_components(a.key) for a in axes]
    depth = [1] * len(axes)
    while True:
        names = [".".join(c[-d:]) for c, d in zip(comps, depth)]
        clashes = {n for n in names if names.count(n) > 1}
        if not clashes:
            break
        grown = False
        for i, name in enumerate(names):
            if name in clashes and depth[i] < len(comps[i]):
                depth[i] += 1
                grown = True
        if not grown:  # identical keys cannot happen (checked); fall back to full keys
            names = [a.key for a in axes]
            break
    return [Axis(a.key, a.values, SAFE_VALUE.sub("_", n)) for a, n in zip(axes, names)]


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:8]


def point_name(axes: Sequence[Axis], values: Dict[str, str], seed: Optional[int]) -> str:
    """senders=16,buffer=4MiB,pfc=false[,seed=2]: characters other than letters, digits and
    ._+- in values become _, and a name that sanitizing or length made ambiguous gets a hash."""
    raw = [f"{a.short}={values[a.key]}" for a in axes]
    safe = [f"{a.short}={SAFE_VALUE.sub('_', values[a.key])}" for a in axes]
    name = ",".join(safe)
    exact = ",".join(raw)
    if safe != raw or len(name) > MAX_NAME:
        name = f"{name[:MAX_NAME]}~{_digest(exact)}"
    if name.startswith((".", "-")):
        name = "_" + name[1:]
    if seed is not None:
        name = f"{name},seed={seed}" if name else f"seed={seed}"
    return name or "point"


def expand(axes: Sequence[Axis], seeds: Sequence[Optional[int]]) -> List[Point]:
    """Cartesian product, first axis slowest, seeds innermost."""
    keys = [a.key for a in axes]
    if len(set(keys)) != len(keys):
        dup = sorted({k for k in keys if keys.count(k) > 1})
        raise GridError(f"--grid {', '.join(dup)} given more than once")
    points = []
    for combo in itertools.product(*[a.values for a in axes]):
        values = dict(zip(keys, combo))
        for seed in seeds:
            points.append(Point(values, seed, point_name(axes, values, seed), len(points)))
    names = [p.name for p in points]
    if len(set(names)) != len(names):  # cannot happen with the hash suffix; guard anyway
        raise GridError("two points map to the same directory name")
    return points
