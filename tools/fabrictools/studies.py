"""What the study scripts share (tools/studies/*, tools/sharp-scaling, tools/periodic-jobs,
tools/plot-collective): running fabric-run for one variant, writing a table of result rows, and
matplotlib without a display; seeds and the spread across them (--seeds, spread, fmt_spread,
ordered_alike). They read the runs through fabrictools.rundir."""

import csv
import os
import subprocess
import sys
from typing import Dict, List, Optional, Sequence, Tuple


class StudyError(RuntimeError):
    """A run of the study failed; the message has its command line and error output."""


def _same_run(out_dir: str, cmd: Sequence[str]) -> bool:
    """OUT_DIR holds a run of this command line that succeeded (run.log's first and last lines)
    and its summary.json, written before the log. The fabric-run binary (the first word) is not
    compared: summary.json's git_revision says which one made a run."""
    log, summary = os.path.join(out_dir, "run.log"), os.path.join(out_dir, "summary.json")
    try:
        with open(log) as handle:
            lines = handle.read().splitlines()
        return (len(lines) >= 2 and lines[0].split(" ", 1)[1:] == [" ".join(cmd[1:])]
                and lines[-1] == "exit 0"
                and os.path.getmtime(summary) <= os.path.getmtime(log))
    except OSError:
        return False


def run_fabric(fabric_run: str, scenario: str, sets: Sequence[str], out_dir: str,
               reuse: bool = False) -> str:
    """`fabric-run SCENARIO --out OUT_DIR --quiet --set S ...`; its command line and output go to
    OUT_DIR/run.log (written after the run). reuse: keep a run OUT_DIR already holds for the same
    scenario and --set keys (a study resumed, or grown by a variant, runs only what is new). Returns
    OUT_DIR."""
    os.makedirs(out_dir, exist_ok=True)
    cmd = [fabric_run, scenario, "--out", out_dir, "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    if reuse and _same_run(out_dir, cmd):
        return out_dir
    proc = subprocess.run(cmd, capture_output=True, text=True)
    with open(os.path.join(out_dir, "run.log"), "w") as log:
        log.write(" ".join(cmd) + "\n" + proc.stdout + proc.stderr + f"exit {proc.returncode}\n")
    if proc.returncode != 0:
        raise StudyError(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr.strip()}")
    return out_dir


def write_rows(path: str, rows: List[Dict[str, object]]) -> None:
    """A CSV with the first row's keys as header, one line per row."""
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)


def pyplot(prog: str):
    """matplotlib.pyplot on the Agg backend, or exit naming the Debian package."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        sys.exit(f"{prog}: {err}; run with /usr/bin/python3 (Debian python3-matplotlib)")
    return plt


# Seeds: a study that ranks mechanisms runs each setting under several seeds (scenario key
# `seed`: the workload's arrivals, sizes and destinations, and every hash) and reports the spread
# across them beside each figure, so a ranking is read with its noise.
DEFAULT_SEEDS = 3


def add_seeds_argument(parser, default: int = DEFAULT_SEEDS) -> None:
    """--seeds N: run every setting with seed = 1 .. N."""
    parser.add_argument("--seeds", type=int, default=default, metavar="N",
                        help=f"seeds per setting, seed = 1 .. N (scenario key `seed`; default {default})")


def spread(values: Sequence[Optional[float]]) -> Optional[Tuple[float, float, float]]:
    """(mean, min, max) of the values that are not None or NaN, or None when there are none."""
    v = [x for x in values if x is not None and x == x]
    if not v:
        return None
    return sum(v) / len(v), min(v), max(v)


def fmt_spread(s: Optional[Tuple[float, float, float]], digits: int = 2) -> str:
    """'mean [min–max]' (the mean over seeds and the range across them), '–' for no value, the
    mean alone for one seed."""
    if s is None:
        return "–"
    mean, lo, hi = s
    if lo == hi:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} [{lo:.{digits}f}–{hi:.{digits}f}]"


def ordered_alike(per_variant: Dict[str, Sequence[Optional[float]]]) -> Tuple[int, int]:
    """How stable a ranking is across seeds: of the pairs of variants with a value in every seed,
    how many are in the same order in every seed (a < b in all, or a > b in all). Returns
    (pairs in the same order in every seed, pairs compared)."""
    names = [n for n, vs in per_variant.items()
             if vs and all(x is not None and x == x for x in vs)]
    alike = compared = 0
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            pa, pb = per_variant[a], per_variant[b]
            if len(pa) != len(pb):
                continue
            compared += 1
            signs = {(x > y) - (x < y) for x, y in zip(pa, pb)}
            if len(signs) == 1 and 0 not in signs:
                alike += 1
    return alike, compared
