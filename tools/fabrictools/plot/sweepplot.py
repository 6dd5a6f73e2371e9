"""tools/plot --sweep: metric-vs-axis plots of a tools/sweep directory (its sweep.csv).

One PNG per metric: the metric against one grid axis (--x), one line per combination of the
other axes (colour from --series, line style from the rest), optionally one panel per value of
--facet. With several seeds per point a line is the mean and a band spans min..max. Points that
ended in a PFC deadlock are not part of the lines; they are marked with a red X at their value.
Failed and never-run points are left out (and counted on stderr).
"""

import csv
import math
import os
import re
from typing import Dict, List, Optional, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, NullLocator  # noqa: E402

from ..rundir import EmptyFile, RunDirError, read_table  # noqa: E402
from ..sweep.grid import Axis, name_axes  # noqa: E402
from .loaders import note  # noqa: E402
from .plots import save  # noqa: E402

SWEEP_CSV = "sweep.csv"
DEFAULT_METRICS = ("last_finish_ns", "max_queue_bytes", "dropped_bytes", "pfc_frames_sent")
LABELS = {
    "last_finish_ns": "last flow completion",
    "sim_time_ns": "simulated time",
    "max_queue_bytes": "max queue (bottleneck port)",
    "sent_bytes": "bytes sent",
    "delivered_bytes": "bytes delivered",
    "dropped_bytes": "bytes dropped",
    "discarded_bytes": "bytes discarded",
    "retransmitted_bytes": "bytes retransmitted",
    "headroom_violation_bytes": "headroom violations",
    "pfc_frames_sent": "PFC frames sent",
    "ecn_marked_frames": "ECN-marked frames",
    "flows_finished": "flows finished",
    "events": "simulator events",
    "wall_s": "simulation wall time",
    "elapsed_s": "fabric-run wall time",
}
# Units for reading axis values such as 1MiB, 400Gbps or 10us as numbers (for ordering and
# spacing); the labels keep the text as written.
UNITS = {"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 2**10, "mib": 2**20,
         "gib": 2**30, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "bps": 1,
         "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "tbps": 1e12, "m": 1}
QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-zµ]*)\s*$")
RESULT_STATUSES = ("ok", "deadlock")
MARKERS = "osD^v<>ph*"
LINESTYLES = ["-", "--", ":", "-."]


class SweepPlotError(ValueError):
    """Unusable input or options; the message is meant for the user."""


def quantity(text: str) -> Optional[float]:
    match = QUANTITY.match(text)
    if not match or match.group(2).lower() not in UNITS:
        return None
    return float(match.group(1)) * UNITS[match.group(2).lower()]


class SweepTable:
    """sweep.csv: rows, grid axes (columns between "point" and "seed") and their values in
    first-appearance order (the sweep writes rows in grid order)."""

    def __init__(self, path: str):
        self.path = path
        try:
            self.header, self.rows = read_table(path)
        except EmptyFile:
            self.header, self.rows = [], []
        except (OSError, csv.Error, UnicodeDecodeError, RunDirError) as err:
            raise SweepPlotError(f"cannot read {path}: {err}")
        if "point" not in self.header or "seed" not in self.header \
                or self.header.index("seed") < self.header.index("point"):
            raise SweepPlotError(f"{path}: not a tools/sweep table (no point ... seed columns)")
        self.axes = self.header[self.header.index("point") + 1:self.header.index("seed")]
        self.metrics = [c for c in self.header[self.header.index("seed") + 1:]
                        if c not in ("status", "exit_status") and self._numeric(c)]
        self.values = {a: list(dict.fromkeys(row[a] for row in self.rows)) for a in self.axes}
        self.short = self._short_names()

    def _numeric(self, column: str) -> bool:
        cells = [row.get(column) or "" for row in self.rows]
        try:
            return any(cells) and all(float(c) is not None for c in cells if c)
        except ValueError:
            return False

    def _short_names(self) -> Dict[str, str]:
        return {a.key: a.short for a in name_axes([Axis(k, ()) for k in self.axes])}

    def axis(self, name: str, option: str) -> str:
        """An axis by full key, short name (senders, pfc) or unique key suffix."""
        if name in self.axes:
            return name
        matches = [a for a in self.axes if self.short[a] == name
                   or re.search(r"(^|\.|::)" + re.escape(name) + "$", a)]
        if len(matches) == 1:
            return matches[0]
        choices = ", ".join(self.axes) or "(the sweep has no grid axes)"
        raise SweepPlotError(f"{option} {name}: {'ambiguous' if matches else 'no such'} axis; "
                             f"axes: {choices}")

    def metric(self, name: str) -> str:
        if name in self.metrics:
            return name
        raise SweepPlotError(f"--y {name}: no such numeric column; metrics: "
                             + ", ".join(self.metrics))

    def numeric_axis(self, axis: str) -> bool:
        return all(quantity(v) is not None for v in self.values[axis])


def unit_for(metric: str, values: Sequence[float]) -> Tuple[float, str]:
    """(divisor, unit) that keeps the axis numbers readable."""
    peak = max((abs(v) for v in values), default=0)
    if metric.endswith("_ns"):
        if peak >= 1e8:
            return 1e6, "ms"
        return (1e3, "µs") if peak >= 1e3 else (1, "ns")
    if metric.endswith("_bytes"):
        for divisor, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
            if peak >= 2 * divisor:
                return divisor, unit
        return 1, "B"
    if metric.endswith("_s"):
        return 1, "s"
    return 1, ""


def _stats(values: Sequence[float]) -> Tuple[float, float, float]:
    return sum(values) / len(values), min(values), max(values)


def plot_metric(table: SweepTable, metric: str, x: str, series: Optional[str],
                facet: Optional[str], out_dir: str, xscale: str, yscale: str,
                title: str) -> str:
    rest = [a for a in table.axes if a not in (x, facet)]
    if series:
        rest = [series] + [a for a in rest if a != series]
    color_axis, style_axes = (rest[0], rest[1:]) if rest else (None, [])
    facet_values = table.values[facet] if facet else [None]
    x_numeric = table.numeric_axis(x)
    x_pos = {v: (quantity(v) if x_numeric else i) for i, v in enumerate(table.values[x])}
    x_order = sorted(table.values[x], key=lambda v: x_pos[v])

    rows = [r for r in table.rows if r["status"] in RESULT_STATUSES and r.get(metric)]
    divisor, unit = unit_for(metric, [float(r[metric]) for r in rows])

    def line_key(row):
        return tuple(row[a] for a in rest)

    line_keys = list(dict.fromkeys(line_key(r) for r in table.rows))
    colors = {v: f"C{i % 10}" for i, v in enumerate(table.values[color_axis])} \
        if color_axis else {}
    style_values = list(dict.fromkeys(tuple(k[1:]) for k in line_keys))
    styles = {v: (LINESTYLES[i % len(LINESTYLES)], MARKERS[i % len(MARKERS)])
              for i, v in enumerate(style_values)}

    ncols = min(len(facet_values), 3)
    nrows = math.ceil(len(facet_values) / ncols)
    fig, axes = plt.subplots(nrows, ncols, sharey=True, squeeze=False,
                             figsize=(4.6 * ncols + 2.6, 3.6 * nrows + 0.6),
                             layout="constrained")
    banded = deadlocks = 0
    handles: Dict[str, object] = {}
    dead_handle = None
    for panel, fval in enumerate(facet_values):
        ax = axes[panel // ncols][panel % ncols]
        panel_rows = [r for r in rows if facet is None or r[facet] == fval]
        for index, key in enumerate(line_keys):
            pts = [r for r in panel_rows if line_key(r) == key]
            good = [r for r in pts if r["status"] == "ok"]
            xs, means, lows, highs = [], [], [], []
            for xv in x_order:
                ys = [float(r[metric]) / divisor for r in good if r[x] == xv]
                if ys:
                    mean, low, high = _stats(ys)
                    xs.append(x_pos[xv])
                    means.append(mean)
                    lows.append(low)
                    highs.append(high)
                    banded += len(ys) > 1
            label = ", ".join(f"{table.short[a]}={v}" for a, v in zip(rest, key)) or metric
            color = colors.get(key[0], "C0") if color_axis else "C0"
            style, marker = styles[tuple(key[1:])]
            if xs:
                # Earlier lines thicker and underneath: equal lines stay visible as halos.
                weight = (len(line_keys) - 1 - index) / max(1, len(line_keys) - 1)
                (line,) = ax.plot(xs, means, linestyle=style, marker=marker, color=color,
                                  label=label, linewidth=1.2 + 1.8 * weight,
                                  markersize=4.5 + 4.5 * weight, zorder=2 + index)
                handles.setdefault(label, line)
                if any(h > l for l, h in zip(lows, highs)):
                    ax.fill_between(xs, lows, highs, color=color, alpha=0.18, linewidth=0)
            dead = [r for r in pts if r["status"] == "deadlock"]
            if dead:
                deadlocks += len(dead)
                marks = ax.scatter([x_pos[r[x]] for r in dead],
                                   [float(r[metric]) / divisor for r in dead],
                                   marker="X", s=70, color="red", zorder=5,
                                   label="PFC deadlock (exit 3)")
                dead_handle = marks
        if facet:
            ax.set_title(f"{table.short[facet]}={fval}")
        ax.set_xlabel(x)
        ax.grid(alpha=0.3)
        _x_axis(ax, table, x, x_pos, x_order, x_numeric, xscale)
        if yscale == "log":
            ax.set_yscale("log")
    for panel in range(len(facet_values), nrows * ncols):
        axes[panel // ncols][panel % ncols].set_visible(False)
    ylabel = LABELS.get(metric, metric.replace("_", " "))
    for row in axes:
        row[0].set_ylabel(f"{ylabel} ({unit})" if unit else ylabel)
    if dead_handle is not None:
        handles["PFC deadlock (exit 3)"] = dead_handle  # last in the legend
    if handles:
        # Beside the top-right panel (matplotlib 3.6 has no loc="outside ..." for figures).
        axes[0][ncols - 1].legend(list(handles.values()), list(handles.keys()),
                                  loc="upper left", bbox_to_anchor=(1.02, 1.0),
                                  borderaxespad=0.0, fontsize="small")
    fig.suptitle(title.format(metric=ylabel, x=table.short[x]))
    name = f"{metric}-vs-{table.short[x]}" + (f"-by-{table.short[facet]}" if facet else "")
    if banded:
        note(f"{name}.png: lines are means over seeds, bands span min..max")
    if deadlocks:
        note(f"{name}.png: {deadlocks} deadlocked point(s) marked with a red X")
    return save(fig, out_dir, re.sub(r"[^A-Za-z0-9._=+-]", "_", name) + ".png")


def _x_axis(ax, table: SweepTable, x: str, x_pos: Dict[str, float], x_order: List[str],
            numeric: bool, xscale: str) -> None:
    positions = [x_pos[v] for v in x_order]
    log = xscale == "log" or (xscale == "auto" and numeric and min(positions) > 0
                              and max(positions) / min(positions) >= 8)
    if log:
        if not numeric or min(positions) <= 0:
            raise SweepPlotError(f"--xscale log: {x} has values that are not positive numbers")
        ax.set_xscale("log", base=2 if _powers_of_two(positions) else 10)
    if len(x_order) <= 16 or not numeric:
        ax.xaxis.set_major_locator(FixedLocator(positions))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels(x_order, rotation=0 if len(x_order) <= 8 else 45)
    if not numeric:
        ax.set_xlim(-0.5, len(x_order) - 0.5)


def _powers_of_two(values: Sequence[float]) -> bool:
    return all(v > 0 and abs(math.log2(v) - round(math.log2(v))) < 1e-9 for v in values)


def plot_sweep(sweep: str, x: Optional[str], ys: Sequence[str], series: Optional[str],
               facet: Optional[str], out_dir: Optional[str], xscale: str = "auto",
               yscale: str = "linear") -> List[str]:
    """Draw one PNG per metric; returns their paths. Raises SweepPlotError on bad input."""
    path = sweep if os.path.isfile(sweep) else os.path.join(sweep, SWEEP_CSV)
    table = SweepTable(path)
    if not table.axes:
        raise SweepPlotError(f"{path}: the sweep has no grid axes to plot against")
    x = table.axis(x, "--x") if x else next(
        (a for a in table.axes if table.numeric_axis(a)), table.axes[0])
    facet = table.axis(facet, "--facet") if facet else None
    series = table.axis(series, "--series") if series else None
    if len({x, facet, series} - {None}) != len([a for a in (x, facet, series) if a]):
        raise SweepPlotError("--x, --series and --facet must be different axes")
    metrics = [table.metric(m) for m in ys] if ys else \
        [m for m in DEFAULT_METRICS if m in table.metrics]
    if not metrics:
        raise SweepPlotError(f"{path}: no metric to plot (no numeric results)")
    skipped = [r for r in table.rows if r["status"] not in RESULT_STATUSES]
    if skipped:
        note(f"{len(skipped)} point(s) without results left out: "
             + ", ".join(sorted({r['status'] for r in skipped})))
    out_dir = out_dir or os.path.dirname(path) or "."
    os.makedirs(out_dir, exist_ok=True)
    name = os.path.basename(os.path.dirname(os.path.abspath(path)))
    written = []
    for metric in metrics:
        written.append(plot_metric(table, metric, x, series, facet, out_dir, xscale, yscale,
                                   f"{name}: {{metric}} vs {{x}}"))
    return written
