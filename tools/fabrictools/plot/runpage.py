"""report.html of one run directory: the run's traces as data for tools/web/src/report.js.

Every trace is read through fabrictools.plot.loaders / fabrictools.rundir and embedded with its
CSV values unchanged (the page shows exactly what the CSV says); only when the run has more
samples than page.POINT_BUDGET are the largest series reduced (min/max per bucket), and the
page lists them. A scenario with `trace.html: false` (echoed in summary.json's "parameters")
gets no page.
"""

import os
from typing import Dict, List, Optional, Tuple

from .. import rundir
from ..rundir import CC_CSV, FLOWS_CSV, RATES_CSV, REORDER_CSV
from . import loaders, page
from .loaders import note, to_int
from .report import summary_lines

REPORT_HTML = "report.html"
# cc.csv columns beyond time_ns,flow_id,cc; optional ones appear in newer runs.
CC_FIELDS = ("rate_gbps", "alpha", "window_bytes", "rtt_ns", "u")


def html_enabled(summary: dict) -> bool:
    """False when the scenario said trace.html: false."""
    params = summary.get("parameters")
    trace = params.get("trace") if isinstance(params, dict) else None
    value = trace.get("html") if isinstance(trace, dict) else None
    return str(value).lower() not in ("false", "no", "off", "0") if value is not None else True


def number(text: str) -> Optional[float]:
    if not text:
        return None
    try:
        return page.clean(float(text))
    except ValueError:
        return None


class Series:
    """One line of a chart: time stamps (ns) and values, in time order."""

    def __init__(self):
        self.times: List[int] = []
        self.values: List[Optional[float]] = []

    def add(self, t: int, v: Optional[float]) -> None:
        self.times.append(t)
        self.values.append(v)

    def sort(self) -> None:
        if any(b < a for a, b in zip(self.times, self.times[1:])):
            order = sorted(range(len(self.times)), key=self.times.__getitem__)
            self.times = [self.times[i] for i in order]
            self.values = [self.values[i] for i in order]


def per_flow(run_dir: str, name: str, fields: Tuple[str, ...],
             extra: Tuple[str, ...] = ()) -> Tuple[Dict[str, Dict[str, Series]],
                                                  Dict[str, Dict[str, str]], List[str]]:
    """{flow_id: {field: Series}} of a per-flow trace, the text columns EXTRA of each flow's
    first row, and the fields the file has (the first one required, the others optional)."""
    rows = loaders.table_rows(run_dir, name, ["time_ns", "flow_id", fields[0]],
                              optional=list(fields[1:]) + list(extra))
    if rows is None:
        return {}, {}, []
    flows: Dict[str, Dict[str, Series]] = {}
    info: Dict[str, Dict[str, str]] = {}
    present = [False] * len(fields)
    skipped = loaders.SkipCounter(name)
    for row in rows:
        try:
            t = to_int(row[0])
        except ValueError:
            skipped.count += 1
            continue
        cells = row[2:2 + len(fields)]
        series = flows.setdefault(row[1], {f: Series() for f in fields})
        info.setdefault(row[1], dict(zip(extra, row[2 + len(fields):])))
        for i, (field, text) in enumerate(zip(fields, cells)):
            value = number(text)
            present[i] = present[i] or value is not None
            series[field].add(t, value)
    skipped.report()
    have = [f for f, p in zip(fields, present) if p]
    for series in flows.values():
        for field in fields:
            series[field].sort()
    order = sorted(flows, key=loaders.natural_key)
    return ({fid: {f: flows[fid][f] for f in have} for fid in order},
            info, have)


def flow_table(run_dir: str) -> List[dict]:
    """flows.csv rows: id, endpoints, size, start, finish, FCT and (when the file has it)
    slowdown."""
    rows = loaders.table_rows(run_dir, FLOWS_CSV, ["flow_id", "src", "dst", "bytes", "start_ns"],
                              optional=["finish_ns", "fct_ns", "slowdown"])
    if rows is None:
        return []
    flows = []
    for fid, src, dst, size, start, finish, fct, slowdown in rows:
        start_v, finish_v = number(start), number(finish)
        fct_v = number(fct)
        if fct_v is None and finish_v is not None and start_v is not None:
            fct_v = finish_v - start_v
        flows.append({"id": fid, "src": src, "dst": dst, "bytes": number(size),
                      "start": start_v, "finish": finish_v, "fct": fct_v,
                      "slowdown": number(slowdown)})
    return flows


def budget(groups: List[List[dict]], notes: List[str]) -> None:
    """Reduce the largest series until the page fits POINT_BUDGET samples (see page.py)."""
    series = [s for group in groups for s in group]
    total = sum(len(s["t"]) for s in series)
    if total <= page.POINT_BUDGET:
        return
    # The fair share of every series, raised for the small ones' leftovers (water filling).
    sizes = sorted(len(s["t"]) for s in series)
    left, share = page.POINT_BUDGET, 0
    for i, size in enumerate(sizes):
        share = left // (len(sizes) - i)
        if size > share:
            break
        left -= size
    for s in series:
        if len(s["t"]) > share:
            before = len(s["t"])
            s["t"], s["v"] = page.minmax_reduce(s["t"], s["v"], max(share // 2, 1))
            notes.append(f"{s['name']}: {before:,} samples reduced to {len(s['t']):,} "
                         f"(min/max per bucket) to keep the page under about "
                         f"{page.PAGE_LIMIT_MIB} MiB; the CSV has every row")


def encode(groups: List[List[dict]]) -> None:
    for group in groups:
        for s in group:
            s["t"] = page.delta(s["t"])


def run_data(run_dir: str) -> dict:
    summary = loaders.load_summary(run_dir)
    scenario = str(summary.get("scenario") or os.path.basename(os.path.abspath(run_dir)))
    notes: List[str] = []

    queues = loaders.load_queues(run_dir)
    queue_series = [{"name": f"queue {n}:{p} priority {q}", "node": n, "port": p, "prio": q,
                     "t": list(t), "v": [page.clean(v) for v in b]}
                    for (n, p, q), (t, b) in sorted(
                        queues.items(), key=lambda kv: (loaders.natural_key(kv[0][0]),
                                                        kv[0][1], kv[0][2]))]
    events = loaders.load_pfc(run_dir)
    rates, rate_info, _ = per_flow(run_dir, RATES_CSV, ("rate_gbps",), extra=("src",))
    cc, cc_info, cc_fields = per_flow(run_dir, CC_CSV, CC_FIELDS, extra=("cc",))
    reorder, reorder_fields = {}, []
    if os.path.exists(rundir.trace_path(run_dir, REORDER_CSV)):  # Unified Bus runs only
        reorder, _, reorder_fields = per_flow(run_dir, REORDER_CSV, ("bytes", "packets"))
    flows = flow_table(run_dir)
    end_ns = loaders.run_end_ns(
        summary, [e.time_ns for e in events], *[s["t"] for s in queue_series],
        *[s["rate_gbps"].times for s in rates.values()],
        [int(f["finish"]) for f in flows if f["finish"] is not None])
    pauses = loaders.pause_intervals(events, end_ns)

    def flow_series(table, field, label):
        return [{"name": f"{label} flow {fid}", "flow": fid, "t": s[field].times,
                 "v": s[field].values} for fid, s in table.items() if field in s]

    rate_series = flow_series(rates, "rate_gbps", "delivered rate")
    cc_series = {f: flow_series(cc, f, f) for f in cc_fields}
    reorder_series = {f: flow_series(reorder, f, f"reorder {f}") for f in reorder_fields}
    groups = [queue_series, rate_series, *cc_series.values(), *reorder_series.values()]
    budget(groups, notes)
    encode(groups)

    lines = summary_lines(run_dir) or []
    bottleneck = summary.get("bottleneck") if isinstance(summary.get("bottleneck"), dict) else {}
    flow_meta = {f["id"]: {"src": f["src"], "dst": f["dst"]} for f in flows}
    for fid, extra in list(rate_info.items()) + list(cc_info.items()):
        flow_meta.setdefault(fid, {}).update({k: v for k, v in extra.items() if v})
    return {
        "kind": "run",
        "title": f"{scenario}: run report",
        "scenario": scenario,
        "run_dir": os.path.abspath(run_dir),
        "summary": [[label, value] for label, value in lines],
        "end_ns": end_ns,
        "bottleneck": (f"{bottleneck['node']}:{bottleneck['port']}"
                       if "node" in bottleneck and "port" in bottleneck else None),
        "queues": queue_series,
        "pauses": [{"node": p.node, "port": p.port, "prio": p.priority, "side": p.side,
                    "s": p.start_ns, "e": p.end_ns, "open": p.open_at_end} for p in pauses],
        "rates": rate_series,
        "cc": cc_series,
        "reorder": reorder_series,
        "flows": flows,
        "flow_meta": flow_meta,
        "notes": notes,
        "limits": {"page_mib": page.PAGE_LIMIT_MIB, "points": page.POINT_BUDGET},
    }


def write_report(run_dir: str, out_dir: str) -> Optional[str]:
    """Write OUT_DIR/report.html; None (after a note) when the scenario switched it off or the
    chart library is not installed."""
    summary = loaders.load_summary(run_dir)
    if not html_enabled(summary):
        note(f"{REPORT_HTML}: trace.html is false, not written")
        return None
    data = run_data(run_dir)
    try:
        return page.write_page(os.path.join(out_dir, REPORT_HTML), data["title"], "report.js",
                               data)
    except page.PageError as err:
        note(f"{REPORT_HTML}: {err}")
        return None

