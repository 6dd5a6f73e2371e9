"""Text summary of one fabric-run output directory (the implementation of tools/summary).

It reads summary.json for the run's counters and flows.csv for flow completion times (and, for
RoCE runs, retransmitted/discarded bytes and CNPs when the counters lack them), and
prints one aligned "label  value" line per figure, so runs can be compared by eye or by diff.
"""

import argparse
import os
import statistics
import sys
from typing import List, Optional, Sequence, Tuple

from .. import rundir
from . import loaders
from .loaders import Flow

MISSING = "-"


def fmt_bytes(value) -> str:
    """Exact count (for conservation checks by eye) plus a binary-unit reading."""
    if not isinstance(value, (int, float)):
        return MISSING
    value = int(value)
    if abs(value) < 1024:
        return f"{value:,} B"
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(value) >= size:
            return f"{value:,} B ({value / size:.2f} {unit})"
    return f"{value:,} B"


def fmt_time_ns(value) -> str:
    """A duration in the largest unit that keeps it >= 1."""
    if not isinstance(value, (int, float)):
        return MISSING
    for unit, size in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(value) >= size:
            return f"{value / size:.3f} {unit}"
    return f"{value:.0f} ns"


def fmt_rate(value: Optional[float]) -> str:
    """Per-second rates with an SI suffix (1.23 M), as benchmark tables print them."""
    if value is None:
        return MISSING
    for suffix, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= size:
            return f"{value / size:.2f} {suffix}"
    return f"{value:.1f}"


def per_second(count, wall_s) -> Optional[float]:
    """count / wall time, or None when either is unknown (never divide by zero)."""
    if isinstance(count, (int, float)) and isinstance(wall_s, (int, float)) and wall_s > 0:
        return count / wall_s
    return None


def flow_lines(flows: Optional[List[Flow]]) -> List[Tuple[str, str]]:
    """Flow count and FCT statistics (µs) of the finished flows."""
    if flows is None:
        return [("flows", MISSING)]
    finished = [f.fct_ns for f in flows if f.fct_ns is not None]
    count = f"{len(flows)} ({len(finished)} finished, {len(flows) - len(finished)} unfinished)"
    lines = [("flows", count), ("flow bytes", fmt_bytes(sum(f.bytes for f in flows)))]
    if finished:
        lines.append(("FCT min/median/max", "{:.2f} / {:.2f} / {:.2f} µs".format(
            min(finished) / 1e3, statistics.median(finished) / 1e3, max(finished) / 1e3)))
    else:
        lines.append(("FCT min/median/max", MISSING))
    return lines


def conservation_text(summary: dict) -> str:
    """The simulator's verdict, cross-checked against its own counters.

    With RoCE a receiver throws away out-of-order data (go-back-N) that did arrive, so sent
    bytes also cover discarded_bytes when the counters have it.
    """
    verdict = summary.get("conservation_ok")
    counters = summary.get("counters") or {}
    names = ["sent_bytes", "delivered_bytes", "dropped_bytes", "in_flight_bytes"]
    if "discarded_bytes" in counters:
        names.append("discarded_bytes")
    parts = [counters.get(k) for k in names]
    balanced = None
    if all(isinstance(p, (int, float)) for p in parts):
        balanced = parts[0] == sum(parts[1:])
    if verdict is None:
        text = "unknown"
    else:
        text = "ok" if verdict else "VIOLATED"
    if balanced is True:
        text += (" (sent = delivered + dropped + discarded + in flight)"
                 if "discarded_bytes" in names else " (sent = delivered + dropped + in flight)")
    elif balanced is False:
        text += f" (counters do not balance: off by {parts[0] - sum(parts[1:]):,} B)"
    return text


def max_queue_text(summary: dict) -> str:
    """The largest queue summary.json reports, and where it was."""
    entries = [m for m in summary.get("max_queue_bytes") or [] if isinstance(m, dict)]
    if not entries:
        return MISSING
    best = max(entries, key=lambda m: m.get("bytes", 0))
    text = "{} at {}:{}".format(fmt_bytes(best.get("bytes")), best.get("node", "?"),
                                best.get("port", "?"))
    if "priority" in best:  # per-port entries (newer simulators) have no priority
        text += f" priority {best['priority']}"
    return text


def pfc_pauses(summary: dict, run_dir: str):
    """Pauses sent, from the counters or else counted in pfc.csv (0 for a header-only file,
    "-" when the file is missing or unusable)."""
    counters = summary.get("counters") or {}
    if "pfc_pauses_sent" in counters:
        return counters["pfc_pauses_sent"]
    rows = loaders.table_rows(run_dir, rundir.PFC_CSV, ["event"])
    if rows is None:
        return MISSING
    return sum(1 for (event,) in rows if event.upper() == "XOFF_SENT")


def transport_text(summary: dict) -> str:
    """"raw" or "roce", with the congestion control when the parameters name one."""
    params = summary.get("parameters") if isinstance(summary.get("parameters"), dict) else {}
    transport = summary.get("transport") or params.get("transport")
    if not transport:
        return MISSING
    cc = params.get("cc")
    return f"{transport} (cc {cc})" if cc and transport != "raw" else str(transport)


def counter_or_flow_sum(counters: dict, counter_names: Sequence[str],
                        flows: Optional[List[Flow]], field: str):
    """A run total from summary.json's counters, else summed over flows.csv's column; None
    when neither has it (runs from before the column existed)."""
    for name in counter_names:
        if isinstance(counters.get(name), (int, float)):
            return counters[name]
    values = [getattr(f, field) for f in flows or [] if getattr(f, field) is not None]
    return sum(values) if values else None


def roce_lines(summary: dict, flows: Optional[List[Flow]]) -> List[Tuple[str, str]]:
    """Loss-recovery and congestion-notification totals, each only when the run has it."""
    counters = summary.get("counters") or {}
    lines = []
    retransmitted = counter_or_flow_sum(counters, ["retransmitted_bytes"], flows,
                                        "retransmitted_bytes")
    if retransmitted is not None:
        lines.append(("bytes retransmitted", fmt_bytes(retransmitted)))
    discarded = counter_or_flow_sum(counters, ["discarded_bytes"], flows, "discarded_bytes")
    if discarded is not None:
        lines.append(("bytes discarded", fmt_bytes(discarded)))
    cnps = counter_or_flow_sum(counters, ["cnps", "cnps_sent"], flows, "cnps")
    if cnps is not None:
        lines.append(("CNPs", f"{int(cnps):,}"))
    if isinstance(counters.get("ecn_marked_frames"), (int, float)):
        lines.append(("ECN-marked frames", f"{int(counters['ecn_marked_frames']):,}"))
    waits = [f.launch_ns - f.start_ns for f in flows or [] if f.launch_ns is not None]
    if waits and max(waits) > 0:
        unlaunched = sum(1 for f in flows if f.launch_ns is None)
        text = "{} / {}".format(fmt_time_ns(statistics.median(waits)), fmt_time_ns(max(waits)))
        if unlaunched:
            text += f" ({unlaunched} flow(s) never launched)"
        lines.append(("launch wait median/max", text))
    return lines


def summary_lines(run_dir: str) -> Optional[List[Tuple[str, str]]]:
    """All (label, value) lines, or None when the directory holds nothing to summarise."""
    has_summary = os.path.isfile(os.path.join(run_dir, rundir.SUMMARY_JSON))
    summary = loaders.load_summary(run_dir)
    flows = loaders.load_flows(run_dir)
    if not has_summary and flows is None:
        return None
    counters = summary.get("counters") or {}
    wall_s = summary.get("wall_s")
    sim_ns = summary.get("sim_time_ns")
    lines = [("run", run_dir), ("scenario", str(summary.get("scenario", MISSING))),
             ("seed", str(summary.get("seed", MISSING))),
             ("transport", transport_text(summary))]
    lines += flow_lines(flows)
    lines += [("bytes sent", fmt_bytes(counters.get("sent_bytes"))),
              ("bytes delivered", fmt_bytes(counters.get("delivered_bytes"))),
              ("bytes dropped", fmt_bytes(counters.get("dropped_bytes"))),
              ("bytes in flight", fmt_bytes(counters.get("in_flight_bytes"))),
              ("conservation", conservation_text(summary))]
    lines += roce_lines(summary, flows)
    lines += [("headroom violation", fmt_bytes(counters.get("headroom_violation_bytes"))),
              ("max queue", max_queue_text(summary)),
              ("PFC pauses sent", str(pfc_pauses(summary, run_dir)))]
    if isinstance(counters.get("pfc_frames_sent"), (int, float)):
        lines.append(("PFC frames sent", f"{int(counters['pfc_frames_sent']):,} (incl. XON)"))
    lines += [("sim time", fmt_time_ns(sim_ns)),
              ("wall time", f"{wall_s:.3f} s" if isinstance(wall_s, (int, float)) else MISSING),
              ("events", f"{summary['events']:,}" if isinstance(summary.get("events"), int)
               else MISSING),
              ("events/s", fmt_rate(per_second(summary.get("events"), wall_s))),
              ("packet-hops/s", fmt_rate(per_second(summary.get("packet_hops"), wall_s))),
              ("sim time / wall time", _ratio_text(sim_ns, wall_s)),
              ("peak RSS", f"{summary['peak_rss_kb'] / 1024:.1f} MiB"
               if isinstance(summary.get("peak_rss_kb"), (int, float)) else MISSING)]
    return lines


def _ratio_text(sim_ns, wall_s) -> str:
    """How much simulated time one wall second buys (small numbers are normal here)."""
    ratio = per_second(sim_ns, wall_s)
    return MISSING if ratio is None else f"{ratio / 1e9:.3g}"


def format_lines(lines: Sequence[Tuple[str, str]]) -> str:
    """Align values in one column after the widest label."""
    width = max(len(label) for label, _ in lines)
    return "\n".join(f"{label:<{width}}  {value}" for label, value in lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="summary", description="Print a short summary of a fabric-run output directory "
        "(summary.json and flows.csv).")
    parser.add_argument("run_dir", metavar="RUN_DIR", help="directory written by fabric-run --out")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.run_dir):
        parser.error(f"{args.run_dir}: not a directory")
    lines = summary_lines(args.run_dir)
    if lines is None:
        loaders.note(f"{args.run_dir}: neither summary.json nor a usable flows.csv")
        return 2
    print(format_lines(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
