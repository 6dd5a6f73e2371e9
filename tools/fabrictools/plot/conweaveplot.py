"""conweave.png of one run: ConWeave's reroutes and reorder queues over time
(docs/models.md#conweave).

fabric-run writes conweave.csv (time_ns, switch, event, flow_id, queue, frames, bytes, old_path,
new_path, reason) only when switch.lb is conweave. Rows: `reroute` (a source ToR moved a flow to
a new path; reason reply_timeout or epoch_expiry), `queue` (a destination ToR's reorder queue
now holds frames / bytes; 0 when released) and `flush` (a queue was released, reason tail or
timeout). The figure has two panels on one time axis: the reroutes, cumulative, per reason;
and the frames held in reorder queues, summed per destination ToR (the busiest MAX_SWITCHES),
with the releases by timeout marked.
"""

import os
from typing import Dict, List, Optional, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .. import rundir  # noqa: E402
from .loaders import SkipCounter, load_summary, natural_key, note, table_rows, to_int  # noqa: E402

CONWEAVE_CSV = "conweave.csv"
DPI = 120
MAX_SWITCHES = 8


class ConWeaveEvents:
    """conweave.csv, split by event: reroutes [(ns, reason)], per switch the held frames over
    time [(ns, total frames)], and flushes [(ns, switch, reason)]."""

    def __init__(self) -> None:
        self.reroutes: List[Tuple[int, str]] = []
        self.held: Dict[str, List[Tuple[int, int]]] = {}
        self.flushes: List[Tuple[int, str, str]] = []


def load_conweave(run_dir: str) -> Optional[ConWeaveEvents]:
    """The run's ConWeave events, or None when it wrote no conweave.csv (another load
    balancer). Malformed rows are skipped and counted."""
    if not os.path.isfile(rundir.trace_path(run_dir, CONWEAVE_CSV)):
        return None
    events = ConWeaveEvents()
    rows = table_rows(run_dir, CONWEAVE_CSV,
                      ["time_ns", "switch", "event", "flow_id", "queue", "frames", "reason"])
    if rows is None:
        return events
    skipped = SkipCounter(CONWEAVE_CSV)
    per_queue: Dict[Tuple[str, str], int] = {}  # (switch, queue) -> frames now
    total: Dict[str, int] = {}
    for time_s, switch, event, _flow, queue, frames_s, reason in rows:
        try:
            t = to_int(time_s)
            if event == "reroute":
                events.reroutes.append((t, reason))
            elif event == "queue":
                frames = to_int(frames_s)
                key = (switch, queue)
                total[switch] = total.get(switch, 0) - per_queue.get(key, 0) + frames
                per_queue[key] = frames
                events.held.setdefault(switch, []).append((t, total[switch]))
            elif event == "flush":
                events.flushes.append((t, switch, reason))
            else:
                skipped.count += 1
        except ValueError:
            skipped.count += 1
    skipped.report()
    return events


def plot_conweave(run_dir: str, out_dir: str, scenario: str = "") -> Optional[str]:
    """conweave.png in out_dir, or None: without conweave.csv silently, with an empty one after
    a note. The title names scenario, or else summary.json's."""
    events = load_conweave(run_dir)
    if events is None:
        return None
    if not events.reroutes and not events.held:
        note("conweave.png: ConWeave ran but never rerouted a flow, skipped")
        return None
    scenario = scenario or str(load_summary(run_dir).get("scenario") or "")
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6.5), sharex=True)
    for reason, colour in (("reply_timeout", "#d62728"), ("epoch_expiry", "#1f77b4")):
        times = sorted(t for t, r in events.reroutes if r == reason)
        if times:
            xs = [t / 1e3 for t in times]
            top.step(xs, range(1, len(xs) + 1), where="post", color=colour,
                     label=f"{reason.replace('_', ' ')} ({len(xs)})")
    top.set_ylabel("reroutes (cumulative)")
    top.legend(loc="upper left", fontsize=8)
    top.grid(alpha=0.3)
    busiest = sorted(events.held, key=lambda s: (-max(f for _, f in events.held[s]),
                                                  natural_key(s)))
    for switch in sorted(busiest[:MAX_SWITCHES], key=natural_key):
        series = events.held[switch]
        bottom.step([t / 1e3 for t, _ in series], [f for _, f in series], where="post",
                    label=switch)
    timeouts = [t / 1e3 for t, _, reason in events.flushes if reason == "timeout"]
    if timeouts:
        bottom.plot(timeouts, [0] * len(timeouts), "x", color="black",
                    label=f"released by timeout ({len(timeouts)})")
    by_tail = sum(1 for _, _, reason in events.flushes if reason == "tail")
    bottom.set_ylabel("frames in reorder queues")
    bottom.set_xlabel("time (us)")
    bottom.set_title(f"reorder queues per destination ToR; {by_tail} released by TAIL, "
                     f"{len(timeouts)} by timeout", fontsize=9)
    if events.held or timeouts:
        bottom.legend(loc="upper right", fontsize=8)
    bottom.grid(alpha=0.3)
    top.set_title(f"{scenario}: ConWeave reroutes" if scenario else "ConWeave reroutes")
    fig.tight_layout()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "conweave.png")
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(description="conweave.png of a fabric-run directory "
                                     "(switch.lb: conweave): reroutes and reorder queues")
    parser.add_argument("run_dir")
    parser.add_argument("--out", help="directory for conweave.png (default: RUN_DIR)")
    args = parser.parse_args(argv)
    path = plot_conweave(args.run_dir, args.out or args.run_dir)
    if path:
        print(path)
        return 0
    return 1
