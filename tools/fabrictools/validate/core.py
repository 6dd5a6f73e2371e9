"""What a validation case produces: checks (one comparison each), figures and run records.

A check compares one simulated figure with its analytic prediction. Its tolerance is absolute,
in the figure's unit, and is built in the open: base_rel x |analytic| plus a list of named
allowances, each the exact size of an effect the simulator carries and the formula ignores (a
frame of quantization, a sampling interval, the rounding of a trace's time stamps, the standard
error of a finite sample...). There is no default relative part: every check states its own
base_rel, 0 for models that are event-exact or fluid with their packet granularity named as an
allowance, so a tolerance can never be wider than the effects it names. The verdict is computed
here and nowhere else.
"""

import math
import os
import subprocess
import time
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from .. import rundir
from . import scenario

class ValidationError(RuntimeError):
    """The validation itself is broken (bad formula input, missing trace, failed run)."""


@dataclass
class Check:
    sub: str                     # sub-case label
    metric: str                  # what is compared
    unit: str                    # 'B', 's', 'frames', '', ...
    analytic: float
    simulated: float
    formula: str
    kind: str = "equal"          # equal | at_most | at_least
    base_rel: Optional[float] = None   # stated by every check: no blanket default
    allowances: List[Tuple[str, float]] = field(default_factory=list)
    method: str = ""             # how the simulated value was read from the traces
    info: bool = False           # reported, not judged (explained in note)
    note: str = ""

    def __post_init__(self):
        for name, v in (("analytic", self.analytic), ("simulated", self.simulated)):
            if v is None or (isinstance(v, float) and math.isnan(v)):
                raise ValidationError(f"{self.sub} / {self.metric}: {name} value is missing (NaN)")
        if self.base_rel is None and not self.info:
            raise ValidationError(f"{self.sub} / {self.metric}: no base_rel stated (0 for an exact "
                                  "model; name every other effect as an allowance)")
        if self.base_rel is None:
            self.base_rel = 0.0
        if self.kind not in ("equal", "at_most", "at_least"):
            raise ValidationError(f"unknown check kind {self.kind}")

    @property
    def tolerance(self) -> float:
        a = 0.0 if math.isinf(self.analytic) else abs(self.analytic)
        return self.base_rel * a + sum(v for _, v in self.allowances)

    @property
    def deviation(self) -> float:
        if math.isinf(self.analytic) or math.isinf(self.simulated):
            return 0.0 if self.analytic == self.simulated else math.inf
        return self.simulated - self.analytic

    @property
    def rel_deviation(self) -> Optional[float]:
        if self.analytic == 0 or math.isinf(self.analytic):
            return None
        return self.deviation / abs(self.analytic)

    @property
    def rel_tolerance(self) -> Optional[float]:
        if self.analytic == 0 or math.isinf(self.analytic):
            return None
        return self.tolerance / abs(self.analytic)

    @property
    def passed(self) -> bool:
        d = self.deviation
        if self.kind == "at_most":
            return d <= self.tolerance
        if self.kind == "at_least":
            return d >= -self.tolerance
        return abs(d) <= self.tolerance

    @property
    def verdict(self) -> str:
        if self.info:
            return "info"
        return "pass" if self.passed else "MISS"

    def as_json(self) -> dict:
        def num(x):
            return None if x is None else (str(x) if isinstance(x, float) and math.isinf(x) else x)
        return {
            "sub": self.sub, "metric": self.metric, "unit": self.unit, "formula": self.formula,
            "kind": self.kind, "analytic": num(self.analytic), "simulated": num(self.simulated),
            "deviation": num(self.deviation), "rel_deviation": self.rel_deviation,
            "tolerance": self.tolerance, "rel_tolerance": self.rel_tolerance,
            "tolerance_parts": {"base_rel": self.base_rel,
                                "allowances": [{"effect": n, "amount": v} for n, v in self.allowances]},
            "method": self.method, "verdict": self.verdict, "note": self.note,
        }


@dataclass
class RunRecord:
    label: str
    out_dir: str
    wall_s: float
    args: List[str]


@dataclass
class CaseResult:
    case_id: str
    title: str
    section: str
    question: str
    available: bool = True
    scenario: str = ""
    parameters: dict = field(default_factory=dict)
    formulas: List[str] = field(default_factory=list)
    method: List[str] = field(default_factory=list)
    checks: List[Check] = field(default_factory=list)
    figures: List[str] = field(default_factory=list)
    runs: List[RunRecord] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    error: str = ""
    wall_s: float = 0.0

    @property
    def verdict(self) -> str:
        if not self.available:
            return "not available"
        if self.error:
            return "ERROR"
        judged = [c for c in self.checks if not c.info]
        if not judged:
            return "ERROR"
        return "pass" if all(c.passed for c in judged) else "MISS"


class Context:
    """Where the simulator is, where runs and the report go, and the run mode."""

    def __init__(self, root, build, out, runs_dir, quick, extra_set=None, verbose=True):
        self.root = root
        self.build = build
        self.out = out
        self.runs_dir = runs_dir
        self.quick = quick
        self.extra_set = dict(extra_set or {})  # applied to every run (self-test sabotage)
        self.verbose = verbose
        self.sabotage_attrs = []
        self.current_case = None

    @property
    def fabric_run(self) -> str:
        return os.path.join(self.build, "fabric-run")

    def log(self, msg):
        if self.verbose:
            print(msg, flush=True)

    def scenario_path(self, name) -> str:
        return os.path.join(self.root, "examples", "validation", name)

    def run(self, case: CaseResult, label: str, scenario_file: str, overrides: dict):
        """Run fabric-run on scenario_file with --set overrides; returns (run_dir, params).

        params is the scenario as the simulator ran it (summary.json "parameters"), checked to
        equal the validator's own merge of the file and the overrides.
        """
        self.current_case = case
        overrides = dict(overrides)
        overrides.update(self.extra_set)
        out_dir = os.path.join(self.runs_dir, case.case_id, label)
        os.makedirs(out_dir, exist_ok=True)
        args = [self.fabric_run, scenario_file, "--out", out_dir, "--quiet"]
        for k, v in overrides.items():
            args += ["--set", f"{k}={scenario.to_yaml_value(v)}"]
        for a in self.sabotage_attrs:
            args += ["--attr", a]
        t0 = time.time()
        proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.time() - t0
        if proc.returncode != 0:
            raise ValidationError(f"{label}: fabric-run exited {proc.returncode}: "
                                  f"{proc.stderr.strip() or proc.stdout.strip()}\n  command: "
                                  + " ".join(args))
        case.runs.append(RunRecord(label, out_dir, wall, args[1:]))
        self.log(f"    run {label}: {wall:.1f} s")
        summary = rundir.read_summary(out_dir)
        params = rundir.summary_field(summary, "parameters")
        ours = scenario.with_overrides(scenario.load(scenario_file), overrides)
        scenario.check_same(ours, params, f"{case.case_id}/{label}")
        return out_dir, params


def frame_bytes(params, where) -> Tuple[int, int]:
    """(payload MTU, stored frame bytes) from the run's parameters: frame = MTU + 58 B."""
    from .units import parse_bytes
    mtu = parse_bytes(scenario.get(params, "host.mtu", "4096B"))
    return mtu, mtu + FRAME_HEADERS


# Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 (contrib/fabric/model/link/frame-codec.h)
FRAME_HEADERS = 14 + 20 + 8 + 12 + 4
PFC_FRAME_BYTES = 60  # 14 B Ethernet + 46 B MAC Control payload incl. padding
