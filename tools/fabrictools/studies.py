"""What the study scripts share (tools/studies/*, tools/sharp-scaling, tools/periodic-jobs,
tools/plot-collective): running fabric-run for one variant, writing a table of result rows, and
matplotlib without a display. They read the runs through fabrictools.rundir."""

import csv
import os
import subprocess
import sys
from typing import Dict, List, Sequence


class StudyError(RuntimeError):
    """A run of the study failed; the message has its command line and error output."""


def run_fabric(fabric_run: str, scenario: str, sets: Sequence[str], out_dir: str) -> str:
    """`fabric-run SCENARIO --out OUT_DIR --quiet --set S ...`; its command line and output go to
    OUT_DIR/run.log. Returns OUT_DIR."""
    os.makedirs(out_dir, exist_ok=True)
    cmd = [fabric_run, scenario, "--out", out_dir, "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    with open(os.path.join(out_dir, "run.log"), "w") as log:
        log.write(" ".join(cmd) + "\n" + proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise StudyError(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr.strip()}")
    return out_dir


def write_rows(path: str, rows: List[Dict[str, object]]) -> None:
    """A CSV with the first row's keys as header, one line per row."""
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)


def pyplot(prog: str):
    """matplotlib.pyplot on the Agg backend, or exit naming the Debian package."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        sys.exit(f"{prog}: {err}; run with /usr/bin/python3 (Debian python3-matplotlib)")
    return plt
