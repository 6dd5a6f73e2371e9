"""Slowdown vs flow size of one or more fabric-run output directories (tools/plot --fct).

flows.csv's slowdown column is a finished flow's FCT over its ideal FCT
(docs/models.md#ideal-fct). Flows are grouped into size bins (BINS_PER_DECADE per decade of
bytes, as the slowdown-vs-size figures of HPCC and ConWeave group them); each run gets one
colour, its p50 as a solid and its p99 as a dashed line over the bins' median sizes, on a log
x axis. A bin with fewer than MIN_FLOWS_PER_BIN flows is left out: one flow makes no p99.

Runs given the same label (`LABEL=RUN`) are several runs of one setting, typically seeds: they
share a colour, the lines are the mean over the runs of each bin's p50 and p99, and a band spans
the runs' minimum to maximum (over the bins every run of the group has).
"""

import math
import os
from typing import Dict, List, Optional, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .. import rundir  # noqa: E402
from .loaders import note  # noqa: E402

DPI = 120
BINS_PER_DECADE = 4
MIN_FLOWS_PER_BIN = 3


def nearest_rank(sorted_values: Sequence[float], p: float) -> float:
    """The p-quantile by nearest rank (the ceil(p n)-th smallest), as summary.json's."""
    rank = max(1, math.ceil(p * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def read_slowdowns(run_dir: str) -> List[Tuple[int, float]]:
    """(bytes, slowdown) of every finished flow of a run (unfinished flows have no slowdown)."""
    points = []
    with rundir.Table.of_run(run_dir, "flows.csv") as table:
        for size, slowdown in table.cells(["bytes", "slowdown"]):
            if slowdown:
                try:
                    points.append((int(size), float(slowdown)))
                except ValueError:
                    continue
    return points


def size_bins(points: Sequence[Tuple[int, float]]) -> Dict[int, Tuple[int, float, float]]:
    """{bin: (median size, p50, p99 slowdown)} over the size bins with enough flows."""
    bins: Dict[int, List[Tuple[int, float]]] = {}
    for size, slowdown in points:
        key = math.floor(math.log10(max(size, 1)) * BINS_PER_DECADE)
        bins.setdefault(key, []).append((size, slowdown))
    out = {}
    for key in sorted(bins):
        members = bins[key]
        if len(members) < MIN_FLOWS_PER_BIN:
            continue
        sizes = sorted(s for s, _ in members)
        slowdowns = sorted(v for _, v in members)
        out[key] = (sizes[len(sizes) // 2], nearest_rank(slowdowns, 0.50),
                    nearest_rank(slowdowns, 0.99))
    return out


def size_curves(points: Sequence[Tuple[int, float]]) -> Dict[str, List[float]]:
    """Per size bin with enough flows: its median size, p50 and p99 slowdown."""
    bins = size_bins(points)
    return {"size": [bins[k][0] for k in bins], "p50": [bins[k][1] for k in bins],
            "p99": [bins[k][2] for k in bins]}


def group_curves(runs_bins: Sequence[Dict[int, Tuple[int, float, float]]]) -> Dict[str, List[float]]:
    """Several runs of one setting: over the bins every run has, the median of the runs' median
    sizes, and per quantile the mean, minimum and maximum across the runs (p50, p50_lo, p50_hi,
    p99, ...)."""
    keys = sorted(set.intersection(*(set(b) for b in runs_bins))) if runs_bins else []
    curves: Dict[str, List[float]] = {k: [] for k in ("size", "p50", "p50_lo", "p50_hi",
                                                      "p99", "p99_lo", "p99_hi")}
    for key in keys:
        sizes = sorted(b[key][0] for b in runs_bins)
        curves["size"].append(sizes[len(sizes) // 2])
        for i, q in ((1, "p50"), (2, "p99")):
            values = [b[key][i] for b in runs_bins]
            curves[q].append(sum(values) / len(values))
            curves[q + "_lo"].append(min(values))
            curves[q + "_hi"].append(max(values))
    return curves


def parse_fct_args(args: Sequence[str]) -> List[Tuple[str, str]]:
    """`RUN` or `LABEL=RUN` per argument -> (label, run directory); a bare RUN is labelled by its
    directory name (an argument that is itself a directory is always a bare RUN)."""
    out = []
    for arg in args:
        if "=" in arg and not os.path.isdir(arg):
            label, run_dir = arg.split("=", 1)
            out.append((label or run_label(run_dir), run_dir))
        else:
            out.append((run_label(arg), arg))
    return out


def run_label(run_dir: str) -> str:
    return os.path.basename(os.path.normpath(run_dir))


def plot_fct(run_dirs: Sequence[str], out_dir: str,
             labels: Optional[Sequence[str]] = None) -> Optional[str]:
    """fct.png in out_dir: slowdown p50 (solid) and p99 (dashed) vs flow size, one colour per
    label (default: each run its own, named by its directory). Runs sharing a label are drawn as
    their mean with a min–max band. Returns its path, or None (after a note) when no run has a
    finished flow."""
    labels = list(labels) if labels is not None else [run_label(d) for d in run_dirs]
    groups: Dict[str, List[str]] = {}
    for label, run_dir in zip(labels, run_dirs):
        groups.setdefault(label, []).append(run_dir)
    fig, ax = plt.subplots(figsize=(8, 4.8))
    drawn = 0
    banded = False
    for i, (label, dirs) in enumerate(groups.items()):
        runs_bins = []
        for run_dir in dirs:
            bins = size_bins(read_slowdowns(run_dir))
            if not bins:
                note(f"{run_dir}: no size bin with {MIN_FLOWS_PER_BIN} finished flows")
                continue
            runs_bins.append(bins)
        curves = group_curves(runs_bins)
        if not curves["size"]:
            if len(runs_bins) > 1:
                note(f"{label}: no size bin that all {len(runs_bins)} runs have")
            continue
        color = f"C{i % 10}"
        n = len(runs_bins)
        suffix = f" (mean of {n} runs)" if n > 1 else ""
        ax.plot(curves["size"], curves["p50"], color=color, marker="o", ms=3, lw=1.4,
                label=f"{label} p50{suffix}")
        ax.plot(curves["size"], curves["p99"], color=color, marker="^", ms=3, lw=1.4, ls="--",
                label=f"{label} p99{suffix}")
        if n > 1:
            for q in ("p50", "p99"):
                ax.fill_between(curves["size"], curves[q + "_lo"], curves[q + "_hi"], color=color,
                                alpha=0.18, lw=0)
            banded = True
        drawn += 1
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xscale("log")
    ax.set_xlabel("flow size (bytes)")
    ax.set_ylabel("FCT slowdown (FCT / ideal FCT)")
    if banded:
        ax.set_title("bands: min–max across the runs of a label", fontsize="small")
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax.set_ylim(bottom=0.9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", borderaxespad=0.0)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "fct.png")
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path
