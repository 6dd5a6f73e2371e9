"""Slowdown vs flow size of one or more fabric-run output directories (tools/plot --fct).

flows.csv's slowdown column is a finished flow's FCT over its ideal FCT
(docs/models.md#ideal-fct). Flows are grouped into size bins (BINS_PER_DECADE per decade of
bytes, as the slowdown-vs-size figures of HPCC and ConWeave group them); each run gets one
colour, its p50 as a solid and its p99 as a dashed line over the bins' median sizes, on a log
x axis. A bin with fewer than MIN_FLOWS_PER_BIN flows is left out: one flow makes no p99.
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


def size_curves(points: Sequence[Tuple[int, float]]) -> Dict[str, List[float]]:
    """Per size bin with enough flows: its median size, p50 and p99 slowdown."""
    bins: Dict[int, List[Tuple[int, float]]] = {}
    for size, slowdown in points:
        key = math.floor(math.log10(max(size, 1)) * BINS_PER_DECADE)
        bins.setdefault(key, []).append((size, slowdown))
    curves = {"size": [], "p50": [], "p99": []}
    for key in sorted(bins):
        members = bins[key]
        if len(members) < MIN_FLOWS_PER_BIN:
            continue
        sizes = sorted(s for s, _ in members)
        slowdowns = sorted(v for _, v in members)
        curves["size"].append(sizes[len(sizes) // 2])
        curves["p50"].append(nearest_rank(slowdowns, 0.50))
        curves["p99"].append(nearest_rank(slowdowns, 0.99))
    return curves


def run_label(run_dir: str) -> str:
    return os.path.basename(os.path.normpath(run_dir))


def plot_fct(run_dirs: Sequence[str], out_dir: str) -> Optional[str]:
    """fct.png in out_dir: slowdown p50 (solid) and p99 (dashed) vs flow size, one colour per
    run. Returns its path, or None (after a note) when no run has a finished flow."""
    fig, ax = plt.subplots(figsize=(8, 4.8))
    drawn = 0
    for i, run_dir in enumerate(run_dirs):
        curves = size_curves(read_slowdowns(run_dir))
        if not curves["size"]:
            note(f"{run_dir}: no size bin with {MIN_FLOWS_PER_BIN} finished flows")
            continue
        color = f"C{i % 10}"
        label = run_label(run_dir)
        ax.plot(curves["size"], curves["p50"], color=color, marker="o", ms=3, lw=1.4,
                label=f"{label} p50")
        ax.plot(curves["size"], curves["p99"], color=color, marker="^", ms=3, lw=1.4, ls="--",
                label=f"{label} p99")
        drawn += 1
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xscale("log")
    ax.set_xlabel("flow size (bytes)")
    ax.set_ylabel("FCT slowdown (FCT / ideal FCT)")
    ax.axhline(1.0, color="grey", lw=0.8, ls=":")
    ax.set_ylim(bottom=0.9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", borderaxespad=0.0)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "fct.png")
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path
