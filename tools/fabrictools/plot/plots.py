"""Plots of one fabric-run output directory (the implementation of tools/plot).

Besides the PNGs, tools/plot writes report.html (runpage.py) for a run and sweep.html
(sweeppage.py) for a sweep: self-contained interactive pages, unless --no-html or the scenario's
trace.html: false.

Each figure is drawn by a `draw_*` function onto given axes, so the combined incast figure
reuses exactly the panels of the single figures. Each `plot_*` function returns the path it
wrote, or None after a note when its input is missing — a run without PFC events simply has no
pfc.png.
"""

import argparse
import csv
import os
import sys
from typing import Dict, List, Optional, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display
import matplotlib.pyplot as plt  # noqa: E402  (must follow the backend choice)
import numpy as np  # noqa: E402

from . import conweaveplot, gantt, loaders, trimplot  # noqa: E402
from .. import rundir  # noqa: E402
from .loaders import PauseInterval, note  # noqa: E402

DPI = 120
MAX_LEGEND_SENDERS = 12  # beyond this a per-sender legend hides the plot
MAX_PFC_ROWS = 64  # rows beyond this are unreadable; the busiest ones are kept
SENT_COLOR = "tab:red"
RECEIVED_COLOR = "tab:blue"
SHADE_COLOR = "tab:orange"


class TimeScale:
    """Converts ns to the unit shown on time axes: µs, or ms for runs longer than 100 ms."""

    def __init__(self, end_ns: int):
        if end_ns > 100_000_000:
            self.divisor, self.unit = 1e6, "ms"
        else:
            self.divisor, self.unit = 1e3, "µs"

    def __call__(self, times_ns) -> np.ndarray:
        return np.asarray(times_ns, dtype=float) / self.divisor

    @property
    def label(self) -> str:
        return f"time ({self.unit})"


class RunView:
    """Everything the plots need from one run, loaded once."""

    def __init__(self, run_dir: str, port: Optional[str]):
        self.run_dir = run_dir
        self.summary = loaders.load_summary(run_dir)
        self.scenario = str(self.summary.get("scenario") or os.path.basename(
            os.path.abspath(run_dir)))
        self.port = loaders.choose_port(run_dir, self.summary, port)
        self.queues = loaders.load_queues(run_dir, *self.port) if self.port else {}
        if self.port is None:
            note("no port to plot (no bottleneck in summary.json and no queue samples)")
        elif not self.queues:
            note(f"no queue samples for {self.port_label}")
        self.rates = loaders.load_rates(run_dir)
        self.cc = loaders.load_cc(run_dir)
        self.flow_labels = self._flow_labels(run_dir) if self.cc else {}
        events = loaders.load_pfc(run_dir)
        self.end_ns = loaders.run_end_ns(
            self.summary, [e.time_ns for e in events],
            *[t for t, _ in self.queues.values()], *[t for t, _ in self.rates.values()],
            *[c.times_ns for c in self.cc.values()])
        self.pauses = loaders.pause_intervals(events, self.end_ns)
        self.scale = TimeScale(self.end_ns)

    @property
    def port_label(self) -> str:
        return f"{self.port[0]}:{self.port[1]}" if self.port else "?"

    @staticmethod
    def _flow_labels(run_dir: str) -> Dict[str, str]:
        """flow_id -> "0 h1→h0" for the CC legend; bare ids when flows.csv is unusable."""
        flows = loaders.load_flows(run_dir) or []
        return {f.flow_id: f"{f.flow_id} {f.src}→{f.dst}" for f in flows}

    @property
    def cc_names(self) -> str:
        """The algorithm(s) in cc.csv, e.g. "dcqcn", for titles."""
        names = sorted({c.cc for c in self.cc.values() if c.cc})
        return ", ".join(names) if names else "unknown algorithm"


def step_total(series: Sequence[Tuple[List[int], List[float]]],
               hold: str = "post") -> Tuple[np.ndarray, np.ndarray]:
    """Sum several step-sampled series on the union of their sample times.

    Priorities of one port may be sampled at different instants (sampling on change). With
    hold="post" a sample holds until the next one (queue depths: 0 before the first); with
    hold="pre" a sample covers the interval ending at it (rates: 0 outside the first..last
    sample, since a sender's first rate sample says nothing about earlier intervals).
    """
    grid = np.unique(np.concatenate([np.asarray(t, dtype=np.int64) for t, _ in series]))
    total = np.zeros(len(grid))
    for times, values in series:
        t = np.asarray(times, dtype=np.int64)
        v = np.asarray(values, dtype=float)
        if hold == "post":
            idx = np.searchsorted(t, grid, side="right") - 1
            total += np.where(idx >= 0, v[np.clip(idx, 0, None)], 0.0)
        else:
            idx = np.searchsorted(t, grid, side="left")
            inside = (grid >= t[0]) & (idx < len(t))
            total += np.where(inside, v[np.clip(idx, None, len(t) - 1)], 0.0)
    return grid, total


def interval_steps(times: Sequence[int], values: Sequence[float]) -> Tuple[np.ndarray,
                                                                           np.ndarray]:
    """Points for a where="pre" step plot of interval averages stamped at the interval's end.

    The first sample gets a leading point one sampling interval earlier, otherwise its
    interval would have zero width and the first average would be invisible.
    """
    t = np.asarray(times, dtype=float)
    v = np.asarray(values, dtype=float)
    if len(t) >= 2:
        period = float(np.median(np.diff(t)))
        t = np.concatenate([[max(t[0] - period, 0.0)], t])
        v = np.concatenate([[v[0]], v])
    return t, v


def merge_spans(spans: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """Union of possibly overlapping [start, end] spans, so shading does not darken on overlap."""
    merged: List[Tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def main_priority(view: RunView) -> Optional[int]:
    """The priority with the deepest queue at the plotted port: the traffic class the plot is
    about, and the one whose pauses are worth shading."""
    if not view.queues:
        return None
    return max(view.queues, key=lambda k: max(view.queues[k][1], default=0))[2]


def shading_spans(view: RunView) -> Tuple[List[Tuple[int, int]], str]:
    """Pause spans to shade behind the queue: when the plotted port's switch was pausing at
    least one upstream port in the queue's main priority (the pauses this queue causes).

    A union over all priorities or all nodes would be useless: a starved low priority stays
    paused for the whole run and would shade everything. Falls back to that priority's pauses
    anywhere when the switch itself sent none (e.g. a host port is plotted).
    """
    prio = main_priority(view)
    if not view.pauses or prio is None:
        return [], ""
    node = view.port[0]
    own = [(p.start_ns, p.end_ns) for p in view.pauses
           if p.node == node and p.side == "sent" and p.priority == prio]
    if own:
        return merge_spans(own), f"{node} pausing upstream (priority {prio})"
    anywhere = [(p.start_ns, p.end_ns) for p in view.pauses if p.priority == prio]
    return merge_spans(anywhere), f"PFC pause anywhere (priority {prio})"


def outside_legend(ax, **kwargs) -> None:
    """Legend to the right of the axes, so it never hides the data it explains."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
                  borderaxespad=0.0, **kwargs)


def draw_queue(ax, view: RunView) -> None:
    """Queue depth of the plotted port per priority (and their total), pauses shaded."""
    scale = view.scale
    spans, shade_label = shading_spans(view)
    for i, (start, end) in enumerate(spans):
        ax.axvspan(scale(start), scale(end), color=SHADE_COLOR, alpha=0.18, lw=0,
                   label=shade_label if i == 0 else None)
    keys = sorted(view.queues)
    for node, port, prio in keys:
        times, values = view.queues[(node, port, prio)]
        ax.step(scale(times), np.asarray(values) / 1024.0, where="post", lw=1.1,
                label=f"priority {prio}")
    if len(keys) > 1:
        grid, total = step_total([view.queues[k] for k in keys])
        ax.step(scale(grid), total / 1024.0, where="post", color="black", lw=0.9, ls="--",
                label="total")
    ax.set_ylabel(f"queue {view.port_label} (KiB)")
    ax.set_ylim(bottom=0)
    ax.set_xlim(0, scale(view.end_ns) if view.end_ns else None)
    ax.grid(alpha=0.3)
    outside_legend(ax)


def draw_rates(ax, view: RunView) -> None:
    """Delivered rate per sender, plus the aggregate so link saturation is visible at once.

    Each rate sample is the average over the interval ending at its time stamp, so it is
    drawn over that interval.
    """
    scale = view.scale
    senders = sorted(view.rates, key=loaders.natural_key)
    many = len(senders) > MAX_LEGEND_SENDERS
    for src in senders:
        times, gbps = interval_steps(*view.rates[src])
        ax.step(scale(times), gbps, where="pre", lw=0.7 if many else 1.1,
                label=None if many else src)
    if len(senders) > 1:
        grid, total = interval_steps(*step_total([view.rates[s] for s in senders], hold="pre"))
        ax.step(scale(grid), total, where="pre", color="black", lw=0.9, ls="--",
                label=f"total ({len(senders)} senders)" if many else "total")
    ax.set_ylabel("delivered rate (Gb/s)")
    ax.set_ylim(bottom=0)
    ax.set_xlim(0, scale(view.end_ns) if view.end_ns else None)
    ax.grid(alpha=0.3)
    outside_legend(ax, ncol=2 if len(senders) > 8 and not many else 1)


def flow_colors(view: RunView) -> Dict[str, str]:
    """One colour per flow, shared by the CC-rate and alpha panels (which may plot different
    subsets of flows, so the axes' own colour cycles would not line up)."""
    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color") or ["tab:blue"]
    return {fid: cycle[i % len(cycle)] for i, fid in enumerate(view.cc)}


def mean_by_time(series: Sequence[Tuple[List[int], List[float]]]) -> Tuple[np.ndarray,
                                                                           np.ndarray]:
    """Mean over the flows sampled at each time stamp. cc.csv samples every active flow at the
    same instants, so this is the mean over the flows active then."""
    sums: Dict[int, List[float]] = {}
    for times, values in series:
        for t, v in zip(times, values):
            if not np.isnan(v):
                entry = sums.setdefault(t, [0.0, 0])
                entry[0] += v
                entry[1] += 1
    grid = sorted(sums)
    return (np.asarray(grid, dtype=float),
            np.asarray([sums[t][0] / sums[t][1] for t in grid], dtype=float))


def draw_cc_series(ax, view: RunView, field: str, label_flows: bool = True,
                   scale_by: float = 1.0) -> None:
    """Per-flow CC samples (field "rate_gbps", "alpha", "window_bytes" or "rtt_ns", divided by
    scale_by) as steps holding until the next sample, for the flows that have the field.
    Beyond MAX_LEGEND_SENDERS flows the lines are thin and unlabelled, and the mean over the
    active flows is drawn on top. label_flows=False leaves the per-flow legend to another
    panel with the same colours."""
    scale = view.scale
    colors = flow_colors(view)
    flows = [c for c in view.cc.values()
             if field == "rate_gbps" or c.has(field)]
    many = len(flows) > MAX_LEGEND_SENDERS
    for c in flows:
        values = np.asarray(getattr(c, field), dtype=float) / scale_by
        ax.step(scale(c.times_ns), values, where="post", color=colors[c.flow_id],
                lw=0.7 if many else 1.1,
                label=None if many or not label_flows
                else f"flow {view.flow_labels.get(c.flow_id, c.flow_id)}")
    if many:
        grid, mean = mean_by_time([(c.times_ns, getattr(c, field)) for c in flows])
        ax.step(scale(grid), mean / scale_by, where="post", color="black", lw=1.0, ls="--",
                label=f"mean ({len(flows)} flows)")
    ax.set_ylim(bottom=0)
    ax.set_xlim(0, scale(view.end_ns) if view.end_ns else None)
    ax.grid(alpha=0.3)
    outside_legend(ax, ncol=2 if len(flows) > 8 and not many else 1)


def draw_cc_rate(ax, view: RunView) -> None:
    """The rate each flow's congestion control allows (not what it achieves: see rates)."""
    draw_cc_series(ax, view, "rate_gbps")
    ax.set_ylabel("CC rate (Gb/s)")


def draw_cc_alpha(ax, view: RunView) -> None:
    """DCQCN's or DCTCP's alpha, the estimate of the fraction of marked packets (0..1)."""
    draw_cc_series(ax, view, "alpha", label_flows=False)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("alpha")


def draw_cc_window(ax, view: RunView) -> None:
    """The congestion window of window algorithms (DCTCP, Swift), in KiB."""
    draw_cc_series(ax, view, "window_bytes", label_flows=False, scale_by=1024.0)
    ax.set_ylabel("window (KiB)")


def draw_cc_u(ax, view: RunView) -> None:
    """The normalised load the algorithm acts on: HPCC's U, PowerTCP's Γ, NSCC's averaged
    queuing delay over its target (each 1 at its set point, η for HPCC)."""
    draw_cc_series(ax, view, "u", label_flows=False)
    ax.set_ylabel("u (U, Γ, D/T)")


def draw_cc_rtt(ax, view: RunView) -> None:
    """The latest RTT sample of delay-driven algorithms (TIMELY, Swift; DCTCP traces it too)."""
    draw_cc_series(ax, view, "rtt_ns", label_flows=False, scale_by=1000.0)
    ax.set_ylabel("RTT (µs)")


def pfc_rows(pauses: Sequence[PauseInterval]) -> List[Tuple[str, int, int]]:
    """Rows of the timeline, naturally sorted; if too many, keep those paused longest."""
    paused: Dict[Tuple[str, int, int], int] = {}
    for p in pauses:
        key = (p.node, p.port, p.priority)
        paused[key] = paused.get(key, 0) + (p.end_ns - p.start_ns)
    rows = sorted(paused, key=lambda k: (loaders.natural_key(k[0]), k[1], k[2]))
    if len(rows) > MAX_PFC_ROWS:
        note(f"pfc.png: showing the {MAX_PFC_ROWS} of {len(rows)} paused queues paused longest")
        keep = set(sorted(rows, key=paused.get, reverse=True)[:MAX_PFC_ROWS])
        rows = [r for r in rows if r in keep]
    return rows


def draw_pfc(ax, view: RunView) -> None:
    """One row per node:port:priority; red bars where it sent XOFF, blue where it was paused.

    A row that has both (a switch-to-switch port) splits its height between the two.
    """
    scale = view.scale
    rows = pfc_rows(view.pauses)
    index = {key: i for i, key in enumerate(rows)}
    sides_per_row: Dict[int, set] = {}
    for p in view.pauses:
        if (p.node, p.port, p.priority) in index:
            sides_per_row.setdefault(index[(p.node, p.port, p.priority)], set()).add(p.side)
    labelled = set()
    for p in view.pauses:
        row = index.get((p.node, p.port, p.priority))
        if row is None:
            continue
        if len(sides_per_row[row]) > 1:
            y, h = (row - 0.4, 0.38) if p.side == "sent" else (row + 0.02, 0.38)
        else:
            y, h = row - 0.4, 0.8
        color = SENT_COLOR if p.side == "sent" else RECEIVED_COLOR
        label = None
        if p.side not in labelled:
            label = "XOFF sent (stops upstream)" if p.side == "sent" else "paused (tx stopped)"
            labelled.add(p.side)
        start = scale(p.start_ns)
        ax.broken_barh([(start, max(scale(p.end_ns) - start, 0.0))], (y, h), color=color,
                       alpha=0.85, label=label)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{n}:{port} p{prio}" for n, port, prio in rows],
                       fontsize="small" if len(rows) < 24 else "x-small")
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(0, scale(view.end_ns) if view.end_ns else None)
    ax.set_xlabel(view.scale.label)
    ax.grid(axis="x", alpha=0.3)
    outside_legend(ax)


def save(fig, out_dir: str, name: str) -> str:
    """Write a figure atomically (temp + rename, like the simulator's outputs) and close it."""
    path = os.path.join(out_dir, name)
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=DPI)
    plt.close(fig)
    os.replace(tmp, path)
    return path


def plot_queue(view: RunView, out_dir: str) -> Optional[str]:
    if not view.queues:
        note("queue.png: no queue samples, skipped")
        return None
    fig, ax = plt.subplots(figsize=(10, 4), layout="constrained")
    draw_queue(ax, view)
    ax.set_xlabel(view.scale.label)
    ax.set_title(f"{view.scenario}: queue depth at {view.port_label}")
    return save(fig, out_dir, "queue.png")


def plot_rates(view: RunView, out_dir: str) -> Optional[str]:
    if not view.rates:
        note("rates.png: no rate samples, skipped")
        return None
    fig, ax = plt.subplots(figsize=(10, 4), layout="constrained")
    draw_rates(ax, view)
    ax.set_xlabel(view.scale.label)
    ax.set_title(f"{view.scenario}: delivered rate per sender")
    return save(fig, out_dir, "rates.png")


def plot_pfc(view: RunView, out_dir: str) -> Optional[str]:
    if not view.pauses:
        note("pfc.png: no PFC pauses, skipped")
        return None
    rows = min(len({(p.node, p.port, p.priority) for p in view.pauses}), MAX_PFC_ROWS)
    fig, ax = plt.subplots(figsize=(10, max(2.5, 0.28 * rows + 1.4)), layout="constrained")
    draw_pfc(ax, view)
    ax.set_title(f"{view.scenario}: PFC pause timeline")
    return save(fig, out_dir, "pfc.png")


def plot_cc(view: RunView, out_dir: str) -> Optional[str]:
    """CC rate per flow on top; below it alpha, window, RTT and u, each when the algorithm
    reports it (cc.csv columns alpha, window_bytes, rtt_ns, u)."""
    if not view.cc:
        note("cc.png: no congestion-control samples, skipped")
        return None
    panels = [draw_cc_rate]
    for column, draw in (("alpha", draw_cc_alpha), ("window_bytes", draw_cc_window),
                         ("rtt_ns", draw_cc_rtt), ("u", draw_cc_u)):
        if any(c.has(column) for c in view.cc.values()):
            panels.append(draw)
    fig, axes = plt.subplots(len(panels), 1, sharex=True, squeeze=False,
                             figsize=(10, 3.2 * len(panels) + 0.6), layout="constrained")
    for draw, ax in zip(panels, axes[:, 0]):
        draw(ax, view)
    axes[-1, 0].set_xlabel(view.scale.label)
    axes[0, 0].set_title(f"{view.scenario}: congestion-control ({view.cc_names}) rate per flow")
    return save(fig, out_dir, "cc.png")


def plot_incast(view: RunView, out_dir: str) -> Optional[str]:
    """The demo figure: queue on top, delivered rates below, then (RoCE runs) the CC rates;
    one time axis."""
    panels = [draw for draw, present in ((draw_queue, view.queues), (draw_rates, view.rates),
                                         (draw_cc_rate, view.cc))
              if present]
    if not panels:
        note("incast.png: neither queue nor rate samples, skipped")
        return None
    fig, axes = plt.subplots(len(panels), 1, sharex=True, squeeze=False,
                             figsize=(10, 3.2 * len(panels) + 0.6), layout="constrained")
    for draw, ax in zip(panels, axes[:, 0]):
        draw(ax, view)
    axes[-1, 0].set_xlabel(view.scale.label)
    parts = [f"queue at {view.port_label}"] if view.queues else []
    parts += ["delivered rates"] if view.rates else []
    parts += [f"CC rates ({view.cc_names})"] if view.cc else []
    title = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
    axes[0, 0].set_title(f"{view.scenario}: {title}")
    return save(fig, out_dir, "incast.png")


def make_plots(run_dir: str, out_dir: str, port: Optional[str] = None) -> List[str]:
    """Draw every plot the run's data supports; returns the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    try:
        written += gantt.plot_jobs(run_dir, out_dir)  # job workloads: job-<name>.png
    except Exception as err:
        plt.close("all")
        note(f"plot_jobs: failed ({type(err).__name__}: {err})")
    try:
        path = trimplot.plot_trims(run_dir, out_dir)  # trimming runs: trims.png
        written += [path] if path else []
    except Exception as err:
        plt.close("all")
        note(f"plot_trims: failed ({type(err).__name__}: {err})")
    try:
        path = conweaveplot.plot_conweave(run_dir, out_dir)  # switch.lb conweave: conweave.png
        written += [path] if path else []
    except Exception as err:
        plt.close("all")
        note(f"plot_conweave: failed ({type(err).__name__}: {err})")
    try:
        view = RunView(run_dir, port)
    except (OSError, ValueError, csv.Error) as err:
        note(f"cannot read {run_dir}: {type(err).__name__}: {err}")
        return written
    for plot in (plot_queue, plot_rates, plot_pfc, plot_cc, plot_incast):
        try:
            path = plot(view, out_dir)
        except Exception as err:  # one bad figure must not cost the others
            plt.close("all")
            note(f"{plot.__name__}: failed ({type(err).__name__}: {err})")
            path = None
        if path:
            written.append(path)
    return written


SWEEP_EPILOG = """\
sweep mode: tools/plot --sweep SWEEP_DIR [--x AXIS] [--y METRIC[,METRIC]] [--series AXIS]
            [--facet AXIS] [--out DIR]
  draws METRIC-vs-X.png from SWEEP_DIR/sweep.csv (written by tools/sweep): the metric against
  one grid axis, one line per combination of the other axes (mean with a min..max band over
  seeds). Axes may be named by key or short name (workload.senders or senders).
  Default: --x the first numeric axis; --y last_finish_ns, max_queue_bytes, dropped_bytes,
  pfc_frames_sent.
"""


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="plot", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=SWEEP_EPILOG,
        description="Draw queue.png, rates.png, pfc.png, cc.png, incast.png, trims.png and job-NAME.png "
        "from a fabric-run output directory (each one its data supports), or metric-vs-axis "
        "plots of a tools/sweep directory (--sweep).")
    parser.add_argument("run_dir", metavar="RUN_DIR", nargs="?",
                        help="directory written by fabric-run --out")
    parser.add_argument("--out", metavar="DIR",
                        help="where to write the PNGs (default: RUN_DIR or SWEEP_DIR)")
    parser.add_argument("--port", metavar="NODE:PORT",
                        help="queue to plot (default: summary.json's bottleneck)")
    parser.add_argument("--fct", metavar="[LABEL=]RUN", nargs="+",
                        help="fct.png: slowdown vs flow size (p50 and p99 per run) of one or "
                        "more run directories, side by side (written to --out or the first RUN); "
                        "runs given the same LABEL (e.g. seeds of one setting) are drawn as "
                        "their mean with a min-max band")
    sweep = parser.add_argument_group("sweep mode")
    sweep.add_argument("--sweep", metavar="SWEEP_DIR",
                       help="a tools/sweep output directory (or its sweep.csv)")
    sweep.add_argument("--x", metavar="AXIS", help="grid axis on the x axis")
    sweep.add_argument("--y", metavar="METRIC", action="append", default=[],
                       help="sweep.csv column(s) to plot, one PNG each (repeatable, or a,b)")
    sweep.add_argument("--series", metavar="AXIS", help="axis that colours the lines")
    sweep.add_argument("--facet", metavar="AXIS", help="one panel per value of this axis")
    parser.add_argument("--no-html", dest="html", action="store_false",
                        help="do not write report.html (sweep.html with --sweep), the "
                        "interactive page; a scenario can also say trace.html: false")
    sweep.add_argument("--xscale", choices=("auto", "linear", "log"), default="auto",
                       help="auto: log when numeric values span 8x or more")
    sweep.add_argument("--yscale", choices=("linear", "log"), default="linear")
    args = parser.parse_args(argv)
    sweep_only = [opt for opt, given in (("--x", args.x), ("--y", args.y),
                                         ("--series", args.series), ("--facet", args.facet),
                                         ("--xscale", args.xscale != "auto"),
                                         ("--yscale", args.yscale != "linear")) if given]
    if args.fct is not None:
        return fct_main(args, parser, sweep_only)
    if args.sweep is not None:
        if args.run_dir or args.port:
            parser.error("--sweep takes no RUN_DIR and no --port")
        return sweep_main(args, parser)
    if sweep_only:
        parser.error(f"{', '.join(sweep_only)} only with --sweep")
    if args.run_dir is None:
        parser.error("a RUN_DIR (or --sweep SWEEP_DIR) is required")
    if not os.path.isdir(args.run_dir):
        parser.error(f"{args.run_dir}: not a directory")
    if args.port:
        try:
            loaders.parse_port(args.port)
        except ValueError as err:
            parser.error(str(err))
    written = make_plots(args.run_dir, args.out or args.run_dir, args.port)
    if args.html:
        from .runpage import write_report  # noqa: E402 (the page needs no matplotlib)
        page = write_report(args.run_dir, args.out or args.run_dir)
        written += [page] if page else []
    for path in written:
        print(path)
    if not written:
        note("nothing plotted")
    return 0


def fct_main(args, parser, sweep_only) -> int:
    from .fctplot import parse_fct_args, plot_fct  # noqa: E402 (--fct only)
    if args.run_dir or args.port or args.sweep is not None or sweep_only:
        parser.error("--fct takes its run directories only (and --out)")
    runs = parse_fct_args(args.fct)
    for _, run_dir in runs:
        if not os.path.isdir(run_dir):
            parser.error(f"{run_dir}: not a directory")
    try:
        path = plot_fct([d for _, d in runs], args.out or runs[0][1], [label for label, _ in runs])
    except rundir.RunDirError as err:
        parser.error(str(err))
    if path is None:
        note("nothing plotted")
    else:
        print(path)
    return 0


def sweep_main(args, parser) -> int:
    from .sweepplot import SweepPlotError, plot_sweep  # noqa: E402 (sweep mode only)
    if not os.path.exists(args.sweep):
        parser.error(f"{args.sweep}: no such sweep directory")
    ys = [m.strip() for item in args.y for m in item.split(",") if m.strip()]
    try:
        written = plot_sweep(args.sweep, args.x, ys, args.series, args.facet, args.out,
                             args.xscale, args.yscale)
        if args.html:
            from .sweeppage import write_sweep_page  # noqa: E402
            page = write_sweep_page(args.sweep, args.out)
            written += [page] if page else []
    except SweepPlotError as err:
        parser.error(str(err))
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
