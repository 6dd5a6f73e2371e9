"""Running a sweep's points as a Slurm job array, and collecting their results.

    tools/sweep SCENARIO --grid ... --slurm [--partition P] [--time T] [--mem M]
                [--sbatch-arg ARG ...] [--jobs N] [--wait]
    tools/sweep SCENARIO --grid ... --collect [--wait]      (the same grid options)

--slurm writes, next to the local layout of OUT (runner.py):

    OUT/slurm/points.json       every point: index, name, values, seed, fabric-run options,
                                argv and run directory; the scenario, its hash, the binary
    OUT/slurm/job.sh            the #SBATCH array script: array task N runs point N
    OUT/slurm/logs/J_N.out      what array task N of job J printed
    OUT/slurm/job_id            the last job submitted for OUT

and submits job.sh with sbatch: one array task per point that is not finished (array index =
the point's index in the sweep). A task runs `tools/sweep --run-point OUT N`, which runs that
one point through runner.Sweep, the code path of a local sweep: same fabric-run command line,
same run directory, same run.log and .done marker. --collect then builds sweep.csv from the run
directories, exactly as a local run of the same points writes it. The submitting directory must
be visible from the compute nodes at the same path (a shared file system), as usual on a cluster.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from typing import Dict, List, Optional, Sequence

from .. import repo
from . import table
from .grid import Axis, Point
from .runner import DONE, EXIT_STATUS, LOG, Interrupted, Sweep, SweepError, file_hash, \
    write_json_atomic

SLURM_DIR = "slurm"
POINTS_FILE = "points.json"
JOB_FILE = "job.sh"
JOB_ID_FILE = "job_id"
LOGS_DIR = "logs"
FORMAT = 1
POLL_FIRST_S, POLL_MAX_S, POLL_GROWTH = 1.0, 15.0, 1.5
SQUEUE_FAILURES = 10  # consecutive squeue errors before --wait gives up
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
SWEEP_SCRIPT = os.path.join(repo.TOOLS_DIR, "sweep")


class SlurmError(Exception):
    """sbatch/squeue failed, or the job files are inconsistent; the message is for the user."""


def slurm_dir(out_dir: str) -> str:
    return os.path.join(out_dir, SLURM_DIR)


def array_spec(indices: Sequence[int], throttle: Optional[int] = None) -> str:
    """0,1,2,3,5,7,8 -> 0-3,5,7-8 (and %N: at most N tasks at a time)."""
    parts: List[str] = []
    ordered = sorted(indices)
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts) + (f"%{throttle}" if throttle else "")


def describe(sweep: Sweep, axes: Sequence[Axis], todo: Sequence[Point]) -> dict:
    """The content of points.json."""
    todo_names = {p.name for p in todo}
    return {
        "format": FORMAT,
        "cwd": os.getcwd(),  # the paths below are relative to it, as the user gave them
        "out": sweep.out_dir,
        "scenario": sweep.scenario,
        "scenario_sha1": sweep.scenario_hash,
        "fabric_run": sweep.binary,
        "sets": sweep.fixed_sets,
        "attrs": sweep.fixed_attrs,
        "timeout_s": sweep.timeout_s,
        "force": sweep.force,
        "axes": [{"key": a.key, "short": a.short, "values": list(a.values)} for a in axes],
        "points": [{"index": p.index, "name": p.name, "values": p.values, "seed": p.seed,
                    "args": sweep.args(p), "argv": sweep.argv(p), "run_dir": sweep.run_dir(p),
                    "submitted": p.name in todo_names} for p in sweep.points],
    }


def _sbatch_line(option: str, value: str) -> str:
    return f"#SBATCH {option}={shlex.quote(value)}" if value else f"#SBATCH {option}"


def job_script(desc: dict, points_sha1: str, job_name: str, spec: str,
               options: Sequence[str]) -> str:
    """job.sh: #SBATCH lines, then one command that runs the array task's point."""
    logs = os.path.abspath(os.path.join(desc["out"], SLURM_DIR, LOGS_DIR))
    lines = ["#!/bin/bash",
             "# Written by tools/sweep --slurm. Array task N runs point N of points.json next to",
             "# this file through the same code as a local sweep (tools/sweep --run-point).",
             "# Resubmit the unfinished points with the same tools/sweep command and --slurm.",
             _sbatch_line("--job-name", job_name),
             _sbatch_line("--array", spec),
             _sbatch_line("--output", os.path.join(logs, "%A_%a.out")),
             "#SBATCH --ntasks=1",
             "#SBATCH --cpus-per-task=1"]
    lines += [f"#SBATCH {option}" for option in options]
    command = ["python3", SWEEP_SCRIPT, "--run-point", desc["out"], "$SLURM_ARRAY_TASK_ID",
               "--points-sha1", points_sha1]
    lines += ["",
              "set -e",
              f"cd {shlex.quote(desc['cwd'])}",
              "exec " + " ".join(shlex.quote(c) if c != "$SLURM_ARRAY_TASK_ID"
                                 else '"$SLURM_ARRAY_TASK_ID"' for c in command),
              ""]
    return "\n".join(lines)


def sbatch_options(args) -> List[str]:
    """The #SBATCH options from --partition/--time/--mem/--sbatch-arg."""
    options = []
    for flag, value in (("--partition", args.partition), ("--time", args.time),
                        ("--mem", args.mem)):
        if value:
            options.append(f"{flag}={value}")
    for extra in args.sbatch_args:
        if "\n" in extra or not extra.strip():
            raise SlurmError(f"--sbatch-arg {extra!r}: expected one sbatch option")
        options.append(extra.strip())
    return options


# --- talking to Slurm ---------------------------------------------------------------------------

def _run(argv: List[str], timeout: float = 120) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)
    except FileNotFoundError:
        raise SlurmError(f"{argv[0]}: not found (is this a Slurm submit host? Slurm's client "
                         f"commands must be on PATH)")
    except subprocess.TimeoutExpired:
        raise SlurmError(f"{argv[0]} did not answer within {timeout:g} s")


def sbatch(job_path: str) -> str:
    proc = _run(["sbatch", "--parsable", job_path])
    if proc.returncode != 0:
        raise SlurmError(f"sbatch {job_path} failed (exit {proc.returncode}): "
                         f"{(proc.stderr or proc.stdout).strip()}")
    match = re.match(r"\s*(\d+)", proc.stdout)
    if not match:
        raise SlurmError(f"sbatch printed no job id: {proc.stdout.strip()!r}")
    return match.group(1)


def queued_tasks(job_id: str) -> Optional[Dict[str, int]]:
    """{state: number of array tasks} of a job still in the queue, {} once it left the queue,
    None if squeue failed for another reason."""
    proc = _run(["squeue", "--noheader", "--array", "--jobs", job_id, "--format", "%T"],
                timeout=60)
    if proc.returncode != 0:
        if "invalid job id" in (proc.stderr + proc.stdout).lower():
            return {}  # finished long enough ago to be purged
        return None
    states: Dict[str, int] = {}
    for line in proc.stdout.split():
        states[line] = states.get(line, 0) + 1
    return states


def last_job(out_dir: str) -> Optional[str]:
    try:
        with open(os.path.join(slurm_dir(out_dir), JOB_ID_FILE)) as handle:
            text = handle.read().strip()
    except OSError:
        return None
    return text if text.isdigit() else None


def job_active(job_id: Optional[str]) -> bool:
    if not job_id:
        return False
    try:
        return bool(queued_tasks(job_id))
    except SlurmError:
        return False


def _done_since(sweep: Sweep, point: Point, since: float) -> bool:
    try:
        return os.stat(os.path.join(sweep.run_dir(point), DONE)).st_mtime >= since
    except OSError:
        return False


def wait_for(job_id: str, sweep: Sweep, submitted: Sequence[Point], quiet: bool,
             since: float = 0.0) -> None:
    """Poll squeue until the job has no task left in the queue; report progress on change
    (points count as done when their .done was written since `since`, a time.time())."""
    delay, failures, last = POLL_FIRST_S, 0, None
    started = time.monotonic()
    while True:
        states = queued_tasks(job_id)
        if states is None:
            failures += 1
            if failures >= SQUEUE_FAILURES:
                raise SlurmError(f"squeue failed {failures} times in a row while waiting for "
                                 f"job {job_id}; it may still run: collect later with --collect")
        else:
            failures = 0
            done = sum(1 for p in submitted if _done_since(sweep, p, since))
            running = states.get("RUNNING", 0) + states.get("COMPLETING", 0)
            pending = sum(states.values()) - running
            status = (f"sweep: job {job_id}: {done}/{len(submitted)} point(s) done, {running} "
                      f"running, {pending} pending ({time.monotonic() - started:.0f} s)")
            if not quiet and (done, running, pending) != last:
                print(status, file=sys.stderr, flush=True)
            last = (done, running, pending)
            if not states:
                return
        time.sleep(delay)
        delay = min(POLL_MAX_S, delay * POLL_GROWTH)


# --- the three modes -----------------------------------------------------------------------------

def submit(args, sweep: Sweep, axes: Sequence[Axis], job_name: str) -> int:
    """--slurm: write points.json and job.sh, sbatch the unfinished points; --wait: collect."""
    out_dir = sweep.out_dir
    options = sbatch_options(args)
    previous = last_job(out_dir)
    if job_active(previous):  # its tasks read points.json: it must not change under them
        raise SlurmError(f"job {previous} of {out_dir} is still queued or running: wait for it "
                         f"(--collect --wait) or cancel it (scancel {previous}) first")
    sweep.lock()  # no local sweep in OUT meanwhile
    try:
        todo = sweep.collect_previous()
        desc = describe(sweep, axes, todo)
        directory = slurm_dir(out_dir)
        os.makedirs(os.path.join(directory, LOGS_DIR), exist_ok=True)
        points_path = os.path.join(directory, POINTS_FILE)
        write_json_atomic(points_path, desc)
        spec = array_spec([p.index for p in todo], args.jobs_given)
        job_path = os.path.join(directory, JOB_FILE)
        tmp = job_path + ".tmp"
        with open(tmp, "w") as handle:
            handle.write(job_script(desc, file_hash(points_path), job_name, spec, options))
        os.chmod(tmp, 0o755)
        os.replace(tmp, job_path)
        if not args.dry_run:
            # Failed or stale markers of the points to run go now, so that --collect reports
            # those points as missing until their tasks finish (finished results stay).
            for point in todo:
                if not sweep.finished(point):
                    try:
                        os.remove(os.path.join(sweep.run_dir(point), DONE))
                    except FileNotFoundError:
                        pass
    finally:
        sweep.unlock()  # before sbatch: the tasks take the directory's lock shared

    finished = len(sweep.points) - len(todo)
    if not todo:
        print(f"sweep: all {len(sweep.points)} point(s) in {out_dir} are finished; nothing to "
              f"submit", file=sys.stderr)
        return collect(args, sweep, axes) if not args.dry_run else EXIT_OK
    if args.dry_run:
        for point in todo:
            print(f"[task {point.index}] {point.name}: {sweep.command_line(point)}")
        print(f"sweep: wrote {points_path} and {job_path}; would submit {len(todo)} point(s) "
              f"as array {spec} ({finished} finished): sbatch {job_path} (dry run)",
              file=sys.stderr)
        return EXIT_OK
    submitted_at = time.time() - 1.0  # file times may be coarse or a little behind
    job_id = sbatch(job_path)
    write_json_atomic(os.path.join(directory, "job.json"),
                      {"job_id": job_id, "array": spec, "submitted_at":
                       time.strftime("%Y-%m-%dT%H:%M:%S%z"), "points": [p.name for p in todo]})
    with open(os.path.join(directory, JOB_ID_FILE), "w") as handle:
        handle.write(job_id + "\n")
    print(job_id, flush=True)
    if not args.quiet:
        print(f"sweep: submitted job {job_id}: {len(todo)} point(s) as array {spec} "
              f"({finished} finished, not submitted); logs in "
              f"{os.path.join(directory, LOGS_DIR)}", file=sys.stderr, flush=True)
    if not args.wait:
        if not args.quiet:
            print("sweep: run the same command with --collect instead of --slurm to build "
                  "sweep.csv (add --wait to wait for the job first)", file=sys.stderr)
        return EXIT_OK
    try:
        wait_for(job_id, sweep, todo, args.quiet, submitted_at)
    except KeyboardInterrupt:
        print(f"\nsweep: stopped waiting; job {job_id} goes on: collect it later with "
              f"--collect", file=sys.stderr)
        return EXIT_INTERRUPTED
    return collect(args, sweep, axes)


def collect(args, sweep: Sweep, axes: Sequence[Axis]) -> int:
    """--collect: sweep.csv from the run directories, the same rows and order as a local run."""
    out_dir = sweep.out_dir
    job_id = last_job(out_dir)
    if args.collect and args.wait and job_id:
        try:
            wait_for(job_id, sweep, sweep.points, args.quiet)
        except KeyboardInterrupt:
            print("\nsweep: stopped waiting", file=sys.stderr)
            return EXIT_INTERRUPTED
    if not os.path.isdir(sweep.runs_dir):
        raise SlurmError(f"{out_dir}: no sweep there (nothing submitted with --slurm or run "
                         f"locally with this --out)")
    sweep.lock(shared=True)  # not while a local sweep writes there
    try:
        for point in sweep.points:
            record = sweep.done_record(point)
            if record is not None:
                sweep.results[point.name] = record
        rows = [table.point_row(axes, p, sweep.run_dir(p), sweep.results.get(p.name))
                for p in sweep.points]
        csv_path = os.path.join(out_dir, "sweep.csv")
        table.write_csv(csv_path, axes, rows)
    finally:
        sweep.unlock()

    counts: Dict[str, int] = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    failed = [r for r in rows if r["status"] not in table.RESULT_STATUSES + ("pending",)]
    missing = [r for r in rows if r["status"] == "pending"]
    parts = [f"{n} {s}" for s, n in sorted(counts.items())]
    print(f"sweep: {len(rows)} point(s): {', '.join(parts)}; collected into {csv_path}",
          file=sys.stderr)
    logs = os.path.join(slurm_dir(out_dir), LOGS_DIR)
    for row in failed:
        print(f"sweep: failed: {row['point']} (exit {row['exit_status'] or '?'}): "
              f"{os.path.join(sweep.runs_dir, row['point'], LOG)}", file=sys.stderr)
    if missing:
        active = job_active(job_id)
        where = (f"job {job_id} is still queued or running" if active else
                 f"not run yet, or their tasks ended without a result (see {logs}); resubmit "
                 f"them with --slurm")
        print(f"sweep: {len(missing)} point(s) missing ({where}):", file=sys.stderr)
        for row in missing[:20]:
            index = next(p.index for p in sweep.points if p.name == row["point"])
            print(f"sweep:   [task {index}] {row['point']}", file=sys.stderr)
        if len(missing) > 20:
            print(f"sweep:   ... and {len(missing) - 20} more", file=sys.stderr)
    print(csv_path)
    if failed or missing:
        return EXIT_FAILED
    if not args.keep_runs:
        shutil.rmtree(sweep.runs_dir, ignore_errors=True)
    return EXIT_OK


def run_point_main(argv: Sequence[str]) -> int:
    """tools/sweep --run-point OUT INDEX [--points-sha1 SHA1]: what array task INDEX runs."""
    import argparse
    parser = argparse.ArgumentParser(
        prog="sweep --run-point", description="Run point INDEX of OUT/slurm/points.json (written "
        "by tools/sweep --slurm) as a local sweep would run it. Used by OUT/slurm/job.sh.")
    parser.add_argument("out", metavar="OUT")
    parser.add_argument("index", type=int, metavar="INDEX")
    parser.add_argument("--points-sha1", metavar="SHA1",
                        help="refuse to run unless points.json has this hash (job.sh passes "
                        "the hash of the points.json it was written with)")
    args = parser.parse_args(argv)
    prefix = f"sweep --run-point {args.out} {args.index}"
    points_path = os.path.join(slurm_dir(args.out), POINTS_FILE)
    try:
        with open(points_path) as handle:
            desc = json.load(handle)
        if args.points_sha1 and file_hash(points_path) != args.points_sha1:
            raise SlurmError(f"{points_path} was rewritten after this job was submitted (by "
                             f"another --slurm); this task's point is not defined any more")
        if desc.get("format") != FORMAT:
            raise SlurmError(f"{points_path}: unknown format {desc.get('format')!r}")
        points = [Point(dict(p["values"]), p["seed"], p["name"], p["index"])
                  for p in desc["points"]]
        entry = next((p for p in desc["points"] if p["index"] == args.index), None)
        if entry is None:
            raise SlurmError(f"no point {args.index} in {points_path} "
                             f"(0..{len(points) - 1})")
        point = points[desc["points"].index(entry)]
        sweep = Sweep(desc["out"], desc["fabric_run"], desc["scenario"], desc["sets"],
                      desc["attrs"], points, jobs=1, timeout_s=desc["timeout_s"],
                      force=desc["force"], quiet=False)
        if sweep.scenario_hash != desc["scenario_sha1"]:
            raise SlurmError(f"{desc['scenario']} changed after the job was submitted")
        if sweep.args(point) != entry["args"] or sweep.run_dir(point) != entry["run_dir"]:
            raise SlurmError(f"{points_path}: point {args.index} is inconsistent")
    except (OSError, ValueError, KeyError, TypeError, SlurmError) as err:
        print(f"{prefix}: error: {err}", file=sys.stderr)
        return EXIT_USAGE

    print(f"{prefix}: {point.name} (job {os.environ.get('SLURM_ARRAY_JOB_ID', '?')}, task "
          f"{os.environ.get('SLURM_ARRAY_TASK_ID', '?')}, host {os.uname().nodename})",
          file=sys.stderr, flush=True)
    try:
        sweep.lock(shared=True, block=True)  # waits for a local sweep in OUT, if one runs
    except (SweepError, OSError) as err:
        print(f"{prefix}: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if not sweep.force and sweep.finished(point):
            print(f"{prefix}: already finished, not run again", file=sys.stderr)
            return EXIT_OK
        try:
            sweep.run([point])
        except Interrupted as err:
            print(f"{prefix}: interrupted ({err}); the point stays unfinished", file=sys.stderr)
            return EXIT_INTERRUPTED
    finally:
        sweep.unlock()
    record = sweep.results.get(point.name) or {}
    status = record.get("status", "failed")
    if status not in EXIT_STATUS.values():
        print(f"{prefix}: {status}: {record.get('reason', '')}; log: "
              f"{os.path.join(sweep.run_dir(point), LOG)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def main(args, sweep: Sweep, axes: Sequence[Axis], job_name: str) -> int:
    """--slurm or --collect (cli.main hands over after parsing and expanding the grid)."""
    try:
        if args.collect:
            return collect(args, sweep, axes)
        return submit(args, sweep, axes, job_name)
    except (SlurmError, SweepError) as err:
        print(f"sweep: error: {err}", file=sys.stderr)
        return EXIT_USAGE
