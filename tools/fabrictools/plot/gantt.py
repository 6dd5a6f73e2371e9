"""Gantt charts of job workloads: job-<name>.png from a run's job.csv (tools/plot).

One row per rank, time across, in the style of the step timelines of "Datacenter networks",
chapter 7, §7.6: compute grey, waiting for the other members of a communication orange,
communication blue, update green, and a dot where the rank became ready for a communication.
Each rank has two lanes: compute and update above, communication below.
"""

import csv
import os
import re
from typing import Dict, List, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from .loaders import note  # noqa: E402

COLORS = {"compute": "0.6", "update": "tab:green", "collective": "tab:blue",
          "p2p": "tab:blue", "all_to_all": "tab:blue", "waiting": "tab:orange"}
COMMUNICATION = ("collective", "p2p", "all_to_all")
DPI = 120
MAX_RANKS = 64  # rows beyond this are unreadable; the first ones are kept
LANE = 0.2  # half the height of a lane; a rank's row holds two


def read_job_rows(run_dir: str) -> Dict[str, List[dict]]:
    """job.csv rows by job name (rows without an end, unfinished phases, are left out)."""
    path = os.path.join(run_dir, "job.csv")
    jobs: Dict[str, List[dict]] = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if not row.get("end_ns"):
                continue
            jobs.setdefault(row["job"], []).append(row)
    return jobs


def safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def draw_job(ax, rows: List[dict]) -> None:
    ranks = sorted({int(r["rank"]) for r in rows})[:MAX_RANKS]
    end = max(int(r["end_ns"]) for r in rows)
    scale, unit = (1e6, "ms") if end >= 1e6 else (1e3, "µs")
    for row in rows:
        rank = int(row["rank"])
        if rank not in ranks:
            continue
        y = ranks.index(rank)
        ready, start, stop = (int(row[k]) / scale for k in ("ready_ns", "start_ns", "end_ns"))
        kind = row["kind"]
        communicates = kind in COMMUNICATION and int(row["bytes"] or 0) > 0
        # Two lanes per rank, so that communication under compute (overlap) stays visible:
        # compute and update above, waiting and communication below.
        lane = y + (LANE if kind in COMMUNICATION else -LANE)
        if communicates and start > ready:
            ax.barh(lane, start - ready, left=ready, height=2 * LANE * 0.9,
                    color=COLORS["waiting"])
        if stop > start:
            ax.barh(lane, stop - start, left=start, height=2 * LANE * 0.9, color=COLORS[kind],
                    edgecolor="white", linewidth=0.5)
        if communicates:
            ax.plot([ready], [lane], "o", color="black", markersize=3)
    ax.set_yticks(range(len(ranks)))
    ax.set_yticklabels([f"rank {r}" for r in ranks])
    ax.invert_yaxis()
    ax.set_xlabel(f"time ({unit})")
    ax.grid(axis="x", alpha=0.3)
    legend = [Patch(color=COLORS["compute"], label="compute"),
              Patch(color=COLORS["waiting"], label="waiting"),
              Patch(color=COLORS["collective"], label="communication"),
              Patch(color=COLORS["update"], label="update"),
              Line2D([], [], marker="o", linestyle="", color="black", markersize=3,
                     label="ready")]
    ax.legend(handles=legend, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")


def plot_jobs(run_dir: str, out_dir: str) -> List[str]:
    """job-<name>.png per job of the run; [] (after a note) when the run has no job.csv."""
    if not os.path.exists(os.path.join(run_dir, "job.csv")):
        return []
    written = []
    for name, rows in read_job_rows(run_dir).items():
        if not rows:
            continue
        n = len({r["rank"] for r in rows})
        fig, ax = plt.subplots(figsize=(10, 1.5 + 0.45 * min(n, MAX_RANKS)),
                               layout="constrained")
        draw_job(ax, rows)
        steps = len({r["step"] for r in rows})
        ax.set_title(f"job {name}: {n} ranks, {steps} step{'s' if steps != 1 else ''}")
        path = os.path.join(out_dir, f"job-{safe_name(name)}.png")
        tmp = path + ".tmp.png"
        fig.savefig(tmp, dpi=DPI)
        plt.close(fig)
        os.replace(tmp, path)
        written.append(path)
    if not written:
        note("job.csv: no finished phases, no Gantt chart")
    return written
