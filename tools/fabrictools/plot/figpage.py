"""An interactive page of matplotlib figures: each axes becomes a zoomable chart with exact
hover values, read off the figure itself (its lines, bars and vertical marks), so a tool that
draws PNGs gets the page without drawing anything twice. tools/validate uses it for
results/validation/report.html (capture() in its plotting module, write_page() at the end).
"""

import os
from typing import List, Optional

from . import page

FIGURES_JS = "figures.js"
_captured: dict = {}


def _number(v) -> Optional[float]:
    """A plotted value to 7 significant digits: figures are computed, not traced, and the
    digits beyond (float noise of unit conversions) would triple the page."""
    try:
        return page.clean(float(f"{float(v):.7g}"))
    except (TypeError, ValueError):
        return None


def _color(artist) -> str:
    from matplotlib.colors import to_hex
    try:
        return to_hex(artist.get_color() if hasattr(artist, "get_color")
                      else artist.get_facecolor())
    except (ValueError, TypeError):
        return "#1f77b4"


def axes_panel(ax) -> Optional[dict]:
    """{title, xlabel, ylabel, series, marks} of one matplotlib axes; None when it shows no
    data (a hidden axes of a grid)."""
    if not ax.get_visible() or not ax.axison:
        return None
    series, marks = [], []
    for line in ax.get_lines():
        xs, ys = list(line.get_xdata()), list(line.get_ydata())
        label = line.get_label()
        if line.get_transform() != ax.transData:  # axvline: x in data, y in axes units
            if len(set(xs)) == 1 and xs:
                marks.append({"x": _number(xs[0]), "label": "" if label.startswith("_") else label})
            continue
        points = sorted((x, y) for x, y in zip(map(_number, xs), map(_number, ys))
                        if x is not None)
        if not points:
            continue
        series.append({"label": label if not label.startswith("_") else f"line {len(series) + 1}",
                       "x": [p[0] for p in points], "y": [p[1] for p in points],
                       "color": _color(line), "dashed": line.get_linestyle() not in ("-", "solid"),
                       "points": line.get_linestyle() in ("None", "none", "", " ")})
    for container in ax.containers:
        bars = [(_number(b.get_x() + b.get_width() / 2), _number(b.get_height()))
                for b in container.patches]
        if not bars:
            continue
        label = container.get_label() or ""
        series.append({"label": label if label and not label.startswith("_")
                       else f"bars {len(series) + 1}", "x": [b[0] for b in sorted(bars)],
                       "y": [b[1] for b in sorted(bars)], "color": _color(container.patches[0]),
                       "dashed": False, "points": True})
    if not series:
        return None
    return {"title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
            "series": series, "marks": marks}


def capture(fig, name: str) -> None:
    """Remember the data of figure NAME (call before closing it)."""
    panels = [p for p in (axes_panel(ax) for ax in fig.get_axes()) if p]
    if panels:
        suptitle = getattr(fig, "_suptitle", None)  # Figure.get_suptitle is matplotlib >= 3.8
        _captured[name] = {"title": suptitle.get_text() if suptitle else "", "panels": panels}


def captured(name: str) -> Optional[dict]:
    return _captured.get(name)


def write_page(path: str, title: str, sections: List[dict]) -> Optional[str]:
    """sections: [{title, verdict, figures: [figure name]}]; figures not captured are left out.
    Returns the path, or None (after a message on stderr) when the chart library is missing."""
    data = {"kind": "figures", "title": title,
            "sections": [dict(s, figures=[dict(captured(f), name=f) for f in s["figures"]
                                          if captured(f)]) for s in sections]}
    try:
        return page.write_page(path, title, FIGURES_JS, data)
    except page.PageError as err:
        from .loaders import note
        note(f"{os.path.basename(path)}: {err}")
        return None
