"""trims.png of one run: the payload bytes packet trimming cut (docs/models.md#packet-trimming).

fabric-run writes trims.csv (time_ns,node,port,flow_id,bytes: one row per trimmed data frame,
bytes the payload cut) only when some switch has trimming enabled, so a run without it has no
trims.png and no note. The figure shows, per switch egress port, the cumulative payload bytes
cut over time (the ports that trimmed most, MAX_PORTS of them), and the trims per time bin.
"""

import os
from typing import Dict, List, Optional, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .. import rundir  # noqa: E402
from .loaders import SkipCounter, load_summary, natural_key, note, table_rows, to_int  # noqa: E402

DPI = 120
MAX_PORTS = 8
BINS = 50

PortKey = Tuple[str, int]  # (node, port)


def load_trims(run_dir: str) -> Optional[Dict[PortKey, List[Tuple[int, int]]]]:
    """{(node, port): [(time_ns, bytes cut), ...] time-sorted}, or None when the run wrote no
    trims.csv (trimming off). Malformed rows are skipped and counted."""
    if not os.path.isfile(rundir.trace_path(run_dir, rundir.TRIMS_CSV)):
        return None
    rows = table_rows(run_dir, rundir.TRIMS_CSV, ["time_ns", "node", "port", "bytes"])
    if rows is None:
        return {}
    trims: Dict[PortKey, List[Tuple[int, int]]] = {}
    skipped = SkipCounter(rundir.TRIMS_CSV)
    for time_s, node, port_s, bytes_s in rows:
        try:
            trims.setdefault((node, to_int(port_s)), []).append((to_int(time_s), to_int(bytes_s)))
        except ValueError:
            skipped.count += 1
    skipped.report()
    for events in trims.values():
        events.sort()
    return trims


def plot_trims(run_dir: str, out_dir: str, scenario: str = "") -> Optional[str]:
    """trims.png in out_dir, or None: without trims.csv silently, with an empty one after a
    note. The title names scenario, or else summary.json's."""
    trims = load_trims(run_dir)
    if trims is None:
        return None
    if not trims:
        note("trims.png: trimming enabled but no frame trimmed, skipped")
        return None
    scenario = scenario or str(load_summary(run_dir).get("scenario") or "")
    busiest = sorted(trims, key=lambda k: (-sum(b for _, b in trims[k]), natural_key(k[0]), k[1]))
    shown = sorted(busiest[:MAX_PORTS], key=lambda k: (natural_key(k[0]), k[1]))
    if len(busiest) > MAX_PORTS:
        note(f"trims.png: showing the {MAX_PORTS} of {len(busiest)} ports that trimmed most")
    times = [t for events in trims.values() for t, _ in events]
    scale, unit = (1e6, "ms") if max(times) > 100_000_000 else (1e3, "µs")
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(10, 6), layout="constrained")
    for key in shown:
        xs, ys, total = [0.0], [0.0], 0
        for t, b in trims[key]:
            total += b
            xs.append(t / scale)
            ys.append(total / 1024)
        top.step(xs, ys, where="post", label=f"{key[0]}:{key[1]}")
    top.set_ylabel("payload cut (KiB, cumulative)")
    top.legend(fontsize="small", loc="upper left")
    top.grid(alpha=0.3)
    total_frames = len(times)
    total_bytes = sum(b for events in trims.values() for _, b in events)
    top.set_title(f"{scenario + ': ' if scenario else ''}packet trimming, {total_frames} frames, "
                  f"{total_bytes / 1024:.1f} KiB cut")
    bottom.hist([t / scale for t in times], bins=BINS, color="tab:purple")
    bottom.set_ylabel("frames trimmed per bin")
    bottom.set_xlabel(f"time ({unit})")
    bottom.grid(alpha=0.3)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "trims.png")
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=DPI)
    plt.close(fig)
    os.replace(tmp, path)
    return path
