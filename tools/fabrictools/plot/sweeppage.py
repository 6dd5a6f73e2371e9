"""sweep.html of a tools/sweep directory: the sweep table, a metric against a grid axis (one line
per combination of the other axes, the mean over seeds), and a link to each point's
report.html, written here for points whose run directory has none yet.
"""

import os
from typing import Dict, List, Optional

from . import page
from .loaders import note
from .runpage import REPORT_HTML, write_report
from .sweepplot import SWEEP_CSV, SweepTable, quantity

SWEEP_HTML = "sweep.html"
RUNS = "runs"  # tools/sweep keeps each point's fabric-run output in SWEEP_DIR/runs/POINT


def point_dir(sweep_dir: str, row: Dict[str, str]) -> Optional[str]:
    """The run directory of a sweep.csv row (named by the point, with ,seed=S when the sweep
    has several seeds), or None when the sweep kept no runs (--no-keep-runs)."""
    for name in (f"{row['point']},seed={row.get('seed')}", row["point"]):
        candidate = os.path.join(sweep_dir, RUNS, name)
        if os.path.isdir(candidate):
            return candidate
    return None


def point_links(sweep_dir: str, rows: List[Dict[str, str]], write_pages: bool,
                base: str) -> List[str]:
    """href of each row's page relative to BASE, where sweep.html is ("" when there is none)."""
    links = []
    for row in rows:
        run_dir = point_dir(sweep_dir, row)
        href = ""
        if run_dir is not None:
            report = os.path.join(run_dir, REPORT_HTML)
            if not os.path.isfile(report) and write_pages \
                    and os.path.isfile(os.path.join(run_dir, "summary.json")):
                write_report(run_dir, run_dir)
            target = report if os.path.isfile(report) else run_dir
            href = os.path.relpath(target, base).replace(os.sep, "/")
        links.append(href)
    return links


def sweep_data(sweep: str, write_pages: bool = True, out_dir: Optional[str] = None) -> dict:
    path = sweep if os.path.isfile(sweep) else os.path.join(sweep, SWEEP_CSV)
    sweep_dir = os.path.dirname(os.path.abspath(path))
    base = os.path.abspath(out_dir or sweep_dir)
    table = SweepTable(path)
    positions = {}
    for axis in table.axes:
        numeric = table.numeric_axis(axis)
        positions[axis] = {"numeric": numeric,
                           "at": {v: (quantity(v) if numeric else i)
                                  for i, v in enumerate(table.values[axis])}}
    return {
        "kind": "sweep",
        "title": f"{os.path.basename(sweep_dir)}: sweep",
        "sweep_dir": sweep_dir,
        "header": table.header,
        "rows": [[row.get(c, "") for c in table.header] for row in table.rows],
        "axes": table.axes,
        "short": table.short,
        "metrics": table.metrics,
        "positions": positions,
        "links": point_links(sweep_dir, table.rows, write_pages, base),
    }


def write_sweep_page(sweep: str, out_dir: Optional[str] = None,
                     write_pages: bool = True) -> Optional[str]:
    """Write sweep.html (into OUT_DIR, default the sweep directory); None after a note when the
    chart library is not installed."""
    data = sweep_data(sweep, write_pages, out_dir)
    out_dir = out_dir or data["sweep_dir"]
    try:
        return page.write_page(os.path.join(out_dir, SWEEP_HTML), data["title"], "sweep.js", data)
    except page.PageError as err:
        note(f"{SWEEP_HTML}: {err}")
        return None
