"""Assembling one self-contained HTML page: the chart library, the page's own script and style,
and the data, all inline, so the file opens offline from any directory (no server, no network).

The chart library is uPlot, installed from npm by `./fabric setup` (`npm ci` in tools/web, the
version pinned by tools/web/package-lock.json); the page scripts live in tools/web/src. Why
uPlot: tools/web/README.md.
"""

import json
import math
import os
from typing import List, Optional, Sequence

from ..repo import TOOLS_DIR

WEB_DIR = os.path.join(TOOLS_DIR, "web")
UPLOT_DIST = os.path.join(WEB_DIR, "node_modules", "uplot", "dist")
PAGE_SOURCES = os.path.join(WEB_DIR, "src")

# The stated size limit of a page. Every sample of every embedded series costs 9 to 13 bytes of
# JSON (a delta-encoded time stamp and a value: 9 for queue bytes, 13 for a rate such as
# 26.2144), so POINT_BUDGET samples keep a page under PAGE_LIMIT_MIB; a run with more samples
# gets its largest series reduced to min/max per bucket (the page says which, and that the CSVs
# keep every row).
PAGE_LIMIT_MIB = 64
POINT_BUDGET = 4_000_000


class PageError(RuntimeError):
    """The page cannot be written (chart library not installed); the message says what to do."""


def asset(path: str) -> str:
    if not os.path.isfile(path):
        raise PageError(f"{os.path.relpath(path, WEB_DIR)} missing in tools/web: run "
                        "./fabric setup (or: npm ci --prefix tools/web)")
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def script_safe(text: str) -> str:
    """Text that cannot close the <script>/<style> element it is inlined in."""
    return text.replace("</", "<\\/")


def delta(times: Sequence[int]) -> List[int]:
    """Time stamps as differences from the previous one: short integers in the JSON (a
    nanosecond time stamp of a millisecond run has 7 digits, the step between samples 4)."""
    out, previous = [], 0
    for t in times:
        out.append(t - previous)
        previous = t
    return out


def clean(value: float) -> Optional[float]:
    """JSON has no NaN/inf: missing values become null, and integral floats print as ints so
    that the page shows 400, as the CSV does, not 400.0."""
    if value is None or not math.isfinite(value):
        return None
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else value


def minmax_reduce(times: Sequence[int], values: Sequence[Optional[float]],
                  buckets: int) -> tuple:
    """At most 2*buckets samples: per bucket of consecutive samples, the smallest and the largest
    value at their own time stamps (in time order), so peaks and troughs survive."""
    n = len(times)
    if n <= 2 * buckets:
        return list(times), list(values)
    out_t, out_v = [], []
    for b in range(buckets):
        lo, hi = b * n // buckets, (b + 1) * n // buckets
        idx = [i for i in range(lo, hi) if values[i] is not None]
        if not idx:
            continue
        i_min = min(idx, key=values.__getitem__)
        i_max = max(idx, key=values.__getitem__)
        for i in sorted({i_min, i_max}):
            out_t.append(times[i])
            out_v.append(values[i])
    return out_t, out_v


def write_page(path: str, title: str, script: str, data: dict) -> str:
    """Write PATH (atomically: temp + rename) with uPlot, common.js, SCRIPT and DATA inline."""
    library = asset(os.path.join(UPLOT_DIST, "uPlot.iife.min.js"))
    library_css = asset(os.path.join(UPLOT_DIST, "uPlot.min.css"))
    common = asset(os.path.join(PAGE_SOURCES, "common.js"))
    page_js = asset(os.path.join(PAGE_SOURCES, script))
    page_css = asset(os.path.join(PAGE_SOURCES, "page.css"))
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False)
    html = "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{script_safe(library_css)}\n{script_safe(page_css)}</style>",
        "</head><body>",
        '<div id="page"></div>',
        f'<script type="application/json" id="data">{script_safe(payload)}</script>',
        f"<script>{script_safe(library)}</script>",
        f"<script>{script_safe(common)}</script>",
        f"<script>{script_safe(page_js)}</script>",
        "</body></html>",
        ""])
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(html)
    os.replace(tmp, path)
    return path


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
