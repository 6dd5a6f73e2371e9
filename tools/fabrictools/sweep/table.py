"""sweep.csv: one tidy row per point — grid values, seed, status, then summary.json metrics.

Columns: point, one column per grid axis (named by its full key), seed, status, exit_status,
then METRICS in order. Readers (tools/plot --sweep) find the axes as the columns between
"point" and "seed". Cells are empty where a point has no value (failed, not run, or an older
summary.json without that counter). status is ok, deadlock (fabric-run exit 3: a result, not a
failure), failed, timeout, or pending (not run yet: the sweep was interrupted).
"""

import csv
import json
import os
from typing import Dict, List, Optional, Sequence

from ..rundir import RunDirError, read_summary, read_table
from .grid import Axis, Point

# (column, where in summary.json): a top-level key, or ("counters", name) / ("bottleneck", name).
METRICS = [
    ("flows_finished", ("flows_finished",)),
    ("flows_total", ("flows_total",)),
    ("last_finish_ns", ("last_finish_ns",)),
    ("sim_time_ns", ("sim_time_ns",)),
    ("sent_bytes", ("counters", "sent_bytes")),
    ("delivered_bytes", ("counters", "delivered_bytes")),
    ("dropped_bytes", ("counters", "dropped_bytes")),
    ("discarded_bytes", ("counters", "discarded_bytes")),
    ("retransmitted_bytes", ("counters", "retransmitted_bytes")),
    ("headroom_violation_bytes", ("counters", "headroom_violation_bytes")),
    ("pfc_frames_sent", ("counters", "pfc_frames_sent")),
    ("ecn_marked_frames", ("counters", "ecn_marked_frames")),
    ("max_queue_bytes", ("bottleneck", "bytes")),
    ("max_queue_port", None),  # bottleneck node:port
    ("deadlock", ("deadlock", "detected")),
    ("conservation_ok", ("conservation_ok",)),
    ("events", ("events",)),
    ("wall_s", ("wall_s",)),  # the simulator's own wall time (simulation only)
    ("elapsed_s", None),  # the whole fabric-run process, measured by the sweep
]
FIXED_BEFORE = ["point"]
FIXED_AFTER = ["seed", "status", "exit_status"]
RESULT_STATUSES = ("ok", "deadlock")
# Columns that measure the machine, not the simulation: two runs of one point differ there.
TIMING_COLUMNS = ("wall_s", "elapsed_s")


def columns(axes: Sequence[Axis]) -> List[str]:
    return FIXED_BEFORE + [a.key for a in axes] + FIXED_AFTER + [m for m, _ in METRICS]


def load_summary(run_dir: str) -> Optional[dict]:
    """summary.json of a finished point; None when unusable (the row keeps empty metrics)."""
    try:
        return read_summary(run_dir)
    except RunDirError:
        return None


def _lookup(summary: dict, path) -> object:
    value: object = summary
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def metrics(summary: Optional[dict], done: Optional[dict]) -> Dict[str, str]:
    row = {name: "" for name, _ in METRICS}
    if summary:
        for name, path in METRICS:
            if path:
                row[name] = _cell(_lookup(summary, path))
        node, port = _lookup(summary, ("bottleneck", "node")), _lookup(summary,
                                                                        ("bottleneck", "port"))
        if node is not None:
            row["max_queue_port"] = f"{node}:{port}"
    if done and isinstance(done.get("elapsed_s"), (int, float)):
        row["elapsed_s"] = f"{done['elapsed_s']:.3f}"
    return row


def point_row(axes: Sequence[Axis], point: Point, run_dir: str,
              done: Optional[dict]) -> Dict[str, str]:
    """The row of one point; done is its valid .done record, or None (not run / stale)."""
    summary = load_summary(run_dir) if done else None
    row = {"point": point.name}
    row.update({a.key: point.values[a.key] for a in axes})
    seed = point.seed if point.seed is not None else (summary or {}).get("seed")
    row["seed"] = _cell(seed)
    row["status"] = done.get("status", "failed") if done else "pending"
    row["exit_status"] = _cell(done.get("exit_status")) if done else ""
    row.update(metrics(summary, done))
    return row


def write_csv(path: str, axes: Sequence[Axis], rows: Sequence[Dict[str, str]]) -> None:
    """Atomically (temp + rename): a reader never sees half a table."""
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns(axes), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(tmp, path)


def differences(path_a: str, path_b: str, ignore: Sequence[str] = TIMING_COLUMNS) -> List[str]:
    """How two sweep.csv files differ outside the ignored columns (none: the same results of the
    same points in the same order), e.g. a Slurm sweep against a local one."""
    header_a, rows_a = read_table(path_a)
    header_b, rows_b = read_table(path_b)
    if header_a != header_b:
        return [f"columns differ:\n  {header_a}\n  {header_b}"]
    found = []
    if len(rows_a) != len(rows_b):
        found.append(f"{len(rows_a)} rows against {len(rows_b)}")
    for number, (row_a, row_b) in enumerate(zip(rows_a, rows_b), start=1):
        for column in header_a:
            if column not in ignore and row_a[column] != row_b[column]:
                found.append(f"row {number} ({row_a['point']}), {column}: "
                             f"{row_a[column]!r} against {row_b[column]!r}")
    return found
