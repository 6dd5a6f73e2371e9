"""The series the plots and the text summary draw from a run directory, read tolerantly.

Files come through fabrictools.rundir; here every loader returns an empty result (and says why
on stderr) for a file that is missing, header-only or lacks a column, because a run legitimately
omits outputs (no PFC events, rate sampling off) and the tools must degrade rather than crash.
Malformed rows are skipped and counted, for the same reason: a run killed mid-write leaves a
truncated last line.
"""

import math
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from .. import rundir
from ..rundir import CC_CSV, FLOWS_CSV, PFC_CSV, QUEUES_CSV, RATES_CSV, SUMMARY_JSON, Column

# Events that start / end a pause, by the side of the link they are logged on. "sent" is the
# receiver of traffic asking its upstream to stop; "received" is the transmitter being stopped.
PAUSE_STARTS = {"XOFF_SENT": "sent", "PAUSE_RECEIVED": "received"}
PAUSE_ENDS = {"XON_SENT": "sent", "RESUME_RECEIVED": "received"}

QueueKey = Tuple[str, int, int]  # (node, port, priority)


def note(message: str) -> None:
    """Report a degraded-but-continuing condition on stderr, prefixed by the program name."""
    prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "fabrictools"
    print(f"{prog}: {message}", file=sys.stderr)


def to_int(text: str) -> int:
    """Parse an integer field that a writer may have printed as a float ("1.2e3")."""
    try:
        return int(text)
    except ValueError:
        return int(float(text))


def natural_key(text: str) -> list:
    """Sort key that orders h2 before h10, so node lists read the way topologies are numbered."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def table_rows(run_dir: str, name: str, columns: Sequence[Column],
               optional: Sequence[Column] = ()) -> Optional[Iterator[Tuple[str, ...]]]:
    """Stream the requested columns of a trace as tuples of strings (rundir.Table.cells).

    Returns None (after a note) when the file is missing, empty or lacks a required column, so
    callers can skip a plot with one `if`. Streaming matters: queues.csv of a big run has
    millions of rows and the plot needs only one port's.
    """
    try:
        table = rundir.Table.of_run(run_dir, name)
        table.require(columns)
    except rundir.MissingFile:
        note(f"{name}: not found, skipping")
        return None
    except rundir.EmptyFile:
        note(f"{name}: empty, skipping")
        return None
    except rundir.MissingColumn as err:
        note(f"{name}: no column {', '.join(err.columns)} in header, skipping")
        return None
    return table.cells(columns, optional)


class SkipCounter:
    """Counts rows that failed to parse and reports them once, instead of once per row."""

    def __init__(self, filename: str):
        self.filename = filename
        self.count = 0

    def report(self) -> None:
        if self.count:
            note(f"{self.filename}: skipped {self.count} malformed row(s)")


def load_summary(run_dir: str) -> dict:
    """summary.json as a dict; {} when missing or unparseable (the CSVs may still be usable)."""
    try:
        return rundir.read_summary(run_dir)
    except rundir.MissingFile:
        note(f"{SUMMARY_JSON}: not found")
    except rundir.RunDirError as err:
        note(f"{SUMMARY_JSON}: {err.reason}")
    return {}


def load_queues(run_dir: str, node: Optional[str] = None,
                port: Optional[int] = None) -> Dict[QueueKey, Tuple[List[int], List[int]]]:
    """Queue occupancy series {(node, port, prio): (times_ns, bytes)}, optionally for one port.

    Filtering while reading keeps memory proportional to the plotted port, not the whole run.
    """
    rows = table_rows(run_dir, QUEUES_CSV,
                      ["time_ns", "node", "port", "priority", "bytes"])
    series: Dict[QueueKey, Tuple[List[int], List[int]]] = {}
    if rows is None:
        return series
    port_text = None if port is None else str(port)
    skipped = SkipCounter(QUEUES_CSV)
    for time_s, node_s, port_s, prio_s, bytes_s in rows:
        if node is not None and node_s != node:
            continue
        if port_text is not None and port_s != port_text:
            try:
                if to_int(port_s) != port:
                    continue
            except ValueError:
                continue
        try:
            key = (node_s, to_int(port_s), to_int(prio_s))
            sample = (to_int(time_s), to_int(bytes_s))
        except ValueError:
            skipped.count += 1
            continue
        times, values = series.setdefault(key, ([], []))
        times.append(sample[0])
        values.append(sample[1])
    skipped.report()
    for times, values in series.values():
        if any(b < a for a, b in zip(times, times[1:])):
            order = sorted(range(len(times)), key=times.__getitem__)
            times[:] = [times[i] for i in order]
            values[:] = [values[i] for i in order]
    return series


def queue_peaks(run_dir: str) -> Dict[Tuple[str, int], int]:
    """Peak occupancy per (node, port) summed over priorities at a sample time.

    Used to pick the port to plot when summary.json names no bottleneck.
    """
    peaks: Dict[Tuple[str, int], int] = {}
    rows = table_rows(run_dir, QUEUES_CSV, ["time_ns", "node", "port", "bytes"])
    if rows is None:
        return peaks
    current: Dict[Tuple[str, int, str], int] = {}
    for time_s, node_s, port_s, bytes_s in rows:
        try:
            key = (node_s, to_int(port_s))
            value = to_int(bytes_s)
        except ValueError:
            continue
        slot = (key[0], key[1], time_s)
        current[slot] = current.get(slot, 0) + value
        if current[slot] > peaks.get(key, -1):
            peaks[key] = current[slot]
    return peaks


@dataclass(frozen=True)
class PfcEvent:
    """One line of pfc.csv."""
    time_ns: int
    node: str
    port: int
    priority: int
    event: str
    quanta: Optional[int]


@dataclass(frozen=True)
class PauseInterval:
    """A span during which a priority was paused, seen from one side of a link."""
    node: str
    port: int
    priority: int
    side: str  # "sent" (XOFF_SENT..XON_SENT) or "received" (PAUSE_RECEIVED..RESUME_RECEIVED)
    start_ns: int
    end_ns: int
    open_at_end: bool  # no closing event before the run ended


def load_pfc(run_dir: str) -> List[PfcEvent]:
    """pfc.csv events sorted by time; the quanta column is optional."""
    rows = table_rows(run_dir, PFC_CSV,
                      ["time_ns", "node", "port", "priority", "event"],
                      optional=[("quanta", "pause_quanta")])
    if rows is None:
        return []
    events: List[PfcEvent] = []
    skipped = SkipCounter(PFC_CSV)
    for time_s, node_s, port_s, prio_s, event_s, quanta_s in rows:
        try:
            quanta = to_int(quanta_s) if quanta_s else None
            events.append(PfcEvent(to_int(time_s), node_s, to_int(port_s), to_int(prio_s),
                                   event_s.upper(), quanta))
        except ValueError:
            skipped.count += 1
    skipped.report()
    events.sort(key=lambda e: e.time_ns)
    return events


def pause_intervals(events: Sequence[PfcEvent], end_ns: int) -> List[PauseInterval]:
    """Pair pause starts with their ends per (node, port, priority, side).

    Refreshed pauses (repeated XOFF while paused) extend one interval rather than opening a new
    one, and a pause with zero quanta is a resume, as IEEE 802.1Qbb defines it. Pauses still in
    force when the run stops are closed at end_ns and flagged.
    """
    open_since: Dict[Tuple[str, int, int, str], int] = {}
    intervals: List[PauseInterval] = []
    unknown = set()
    for ev in events:
        if ev.event in PAUSE_STARTS and ev.quanta != 0:
            key = (ev.node, ev.port, ev.priority, PAUSE_STARTS[ev.event])
            open_since.setdefault(key, ev.time_ns)
            continue
        if ev.event in PAUSE_ENDS:
            side = PAUSE_ENDS[ev.event]
        elif ev.event in PAUSE_STARTS:
            side = PAUSE_STARTS[ev.event]
        else:
            unknown.add(ev.event)
            continue
        key = (ev.node, ev.port, ev.priority, side)
        start = open_since.pop(key, None)
        if start is not None:
            intervals.append(PauseInterval(*key, start, ev.time_ns, False))
    for key, start in open_since.items():
        intervals.append(PauseInterval(*key, start, max(start, end_ns), True))
    if unknown:
        note(f"{PFC_CSV}: ignored unknown event(s) {', '.join(sorted(unknown))}")
    intervals.sort(key=lambda iv: iv.start_ns)
    return intervals


def load_rates(run_dir: str) -> Dict[str, Tuple[List[int], List[float]]]:
    """Delivered rate per sender {src: (times_ns, gbps)}, summing the sender's flows per sample.

    A sender with several flows is one line on the plot, which is what an incast reader wants.
    """
    rows = table_rows(run_dir, RATES_CSV, ["time_ns", "src", "rate_gbps"])
    per_src: Dict[str, Dict[int, float]] = {}
    if rows is None:
        return {}
    skipped = SkipCounter(RATES_CSV)
    for time_s, src, rate_s in rows:
        try:
            t, rate = to_int(time_s), float(rate_s)
        except ValueError:
            skipped.count += 1
            continue
        bucket = per_src.setdefault(src, {})
        bucket[t] = bucket.get(t, 0.0) + rate
    skipped.report()
    return {src: (sorted(b), [b[t] for t in sorted(b)]) for src, b in per_src.items()}


@dataclass(frozen=True)
class Flow:
    """One line of flows.csv; finish and fct are None for a flow still running at the end.

    The RoCE columns (retransmitted/discarded bytes, CNPs, launch time) are None when the file
    lacks them (raw-transport runs of older versions) or leaves them empty (launch_ns of a
    message the NIC never started).
    """
    flow_id: str
    src: str
    dst: str
    bytes: int
    start_ns: int
    finish_ns: Optional[int]
    fct_ns: Optional[int]
    dropped_bytes: int
    retransmitted_bytes: Optional[int] = None
    discarded_bytes: Optional[int] = None
    cnps: Optional[int] = None
    launch_ns: Optional[int] = None


def _optional_int(text: str) -> Optional[int]:
    return to_int(text) if text else None


def load_flows(run_dir: str) -> Optional[List[Flow]]:
    """flows.csv as Flow records, or None when the file is unusable (distinct from no flows)."""
    rows = table_rows(run_dir, FLOWS_CSV,
                      ["flow_id", "src", "dst", "bytes", "start_ns", "finish_ns"],
                      optional=["fct_ns", "dropped_bytes", "retransmitted_bytes",
                                "discarded_bytes", "cnps", "launch_ns"])
    if rows is None:
        return None
    flows: List[Flow] = []
    skipped = SkipCounter(FLOWS_CSV)
    for (flow_id, src, dst, size_s, start_s, finish_s, fct_s, dropped_s, retx_s, discarded_s,
         cnps_s, launch_s) in rows:
        try:
            start = to_int(start_s)
            finish = to_int(finish_s) if finish_s else None
            fct = to_int(fct_s) if fct_s else (finish - start if finish is not None else None)
            flows.append(Flow(flow_id, src, dst, to_int(size_s), start, finish, fct,
                              to_int(dropped_s) if dropped_s else 0, _optional_int(retx_s),
                              _optional_int(discarded_s), _optional_int(cnps_s),
                              _optional_int(launch_s)))
        except ValueError:
            skipped.count += 1
    skipped.report()
    return flows


@dataclass
class CcSeries:
    """cc.csv samples of one flow: the congestion control's allowed rate and what the algorithm
    keeps beside it — alpha (DCQCN, DCTCP), window in bytes (DCTCP, Swift, HPCC, UB), the latest
    RTT sample in ns (DCTCP, TIMELY, Swift, UB), u (HPCC's U, PowerTCP's Γ, NSCC's averaged
    delay / target) — NaN where the sample has none. A UB channel's rate (window / RTT) is NaN
    until its first RTT sample."""
    flow_id: str
    cc: str
    times_ns: List[int]
    rate_gbps: List[float]
    alpha: List[float]
    window_bytes: List[float] = field(default_factory=list)
    rtt_ns: List[float] = field(default_factory=list)
    u: List[float] = field(default_factory=list)

    def has(self, name: str) -> bool:
        """Whether column `name` ("rate_gbps", "alpha", "window_bytes", "rtt_ns", "u") has any
        value."""
        return any(not math.isnan(v) for v in getattr(self, name))

    @property
    def has_alpha(self) -> bool:
        return self.has("alpha")


def load_cc(run_dir: str) -> Dict[str, CcSeries]:
    """Congestion-control samples per flow {flow_id: CcSeries}, time-sorted; {} when cc.csv is
    missing (raw transport, older runs), header-only or unusable. The cc, alpha, window_bytes,
    rtt_ns and u columns are optional (older runs have only the first two); an empty rate is a
    UB channel before its first RTT sample."""
    rows = table_rows(run_dir, CC_CSV, ["time_ns", "flow_id", "rate_gbps"],
                      optional=["cc", "alpha", "window_bytes", "rtt_ns", "u"])
    if rows is None:
        return {}
    series: Dict[str, CcSeries] = {}
    skipped = SkipCounter(CC_CSV)
    for time_s, flow_id, rate_s, cc, alpha_s, window_s, rtt_s, u_s in rows:
        try:
            t = to_int(time_s)
            rate = float(rate_s) if rate_s else math.nan
            alpha = float(alpha_s) if alpha_s else math.nan
            window = float(window_s) if window_s else math.nan
            rtt = float(rtt_s) if rtt_s else math.nan
            u = float(u_s) if u_s else math.nan
        except ValueError:
            skipped.count += 1
            continue
        if math.isinf(rate) or (rate_s and math.isnan(rate)):
            skipped.count += 1
            continue
        entry = series.setdefault(flow_id, CcSeries(flow_id, cc, [], [], []))
        entry.times_ns.append(t)
        entry.rate_gbps.append(rate)
        entry.alpha.append(alpha if math.isfinite(alpha) else math.nan)
        entry.window_bytes.append(window if math.isfinite(window) else math.nan)
        entry.rtt_ns.append(rtt if math.isfinite(rtt) else math.nan)
        entry.u.append(u if math.isfinite(u) else math.nan)
    skipped.report()
    for entry in series.values():
        if any(b < a for a, b in zip(entry.times_ns, entry.times_ns[1:])):
            order = sorted(range(len(entry.times_ns)), key=entry.times_ns.__getitem__)
            entry.times_ns[:] = [entry.times_ns[i] for i in order]
            entry.rate_gbps[:] = [entry.rate_gbps[i] for i in order]
            entry.alpha[:] = [entry.alpha[i] for i in order]
            entry.window_bytes[:] = [entry.window_bytes[i] for i in order]
            entry.rtt_ns[:] = [entry.rtt_ns[i] for i in order]
            entry.u[:] = [entry.u[i] for i in order]
    if not series:
        note(f"{CC_CSV}: no samples")
    return dict(sorted(series.items(), key=lambda kv: natural_key(kv[0])))


def parse_port(text: str) -> Tuple[str, int]:
    """Parse NODE:PORT (the node name may itself contain colons; the port is after the last)."""
    node, sep, port = text.rpartition(":")
    if not sep or not node or not port.isdigit():
        raise ValueError(f"expected NODE:PORT such as sw0:3, got {text!r}")
    return node, int(port)


def choose_port(run_dir: str, summary: dict,
                requested: Optional[str]) -> Optional[Tuple[str, int]]:
    """The port to plot: --port, else summary's bottleneck, else its largest queue, else the
    port with the highest occupancy in queues.csv."""
    if requested:
        return parse_port(requested)
    bottleneck = summary.get("bottleneck")
    if isinstance(bottleneck, dict) and "node" in bottleneck and "port" in bottleneck:
        try:
            return str(bottleneck["node"]), int(bottleneck["port"])
        except (TypeError, ValueError):
            note("summary.json: bottleneck port is not an integer")
    maxima = summary.get("max_queue_bytes")
    if isinstance(maxima, list) and maxima:
        best = max((m for m in maxima if isinstance(m, dict)),
                   key=lambda m: m.get("bytes", 0), default=None)
        if best and "node" in best and "port" in best:
            return str(best["node"]), int(best["port"])
    peaks = queue_peaks(run_dir)
    if peaks:
        return max(peaks, key=peaks.get)
    return None


def run_end_ns(summary: dict, *time_lists: Sequence[int]) -> int:
    """When the run ended: summary's sim_time_ns, else the latest time seen in the data."""
    sim_time = summary.get("sim_time_ns")
    if isinstance(sim_time, (int, float)) and sim_time > 0:
        return int(sim_time)
    return max((max(t) for t in time_lists if t), default=0)
