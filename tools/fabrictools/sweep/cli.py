"""Command line of tools/sweep."""

import argparse
import os
import re
import shutil
import sys
from typing import Optional, Sequence

from .. import repo
from . import slurm, table
from .grid import GridError, expand, name_axes, parse_axis, parse_seeds, split_assignment
from .runner import Interrupted, Sweep, SweepError

DEFAULT_BINARY = repo.fabric_run()
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

EPILOG = """\
examples:
  tools/sweep examples/incast.yaml --grid workload.senders=2,4,8,16,32,64 \\
      --grid switch.buffer=1MiB,4MiB --grid switch.pfc.enabled=true,false --jobs 2
  tools/sweep examples/incast.yaml --grid workload.senders=8,16 --seeds 3 \\
      --set workload.start_jitter=2us --dry-run
  tools/plot --sweep results/incast-sweep --x workload.senders --y last_finish_ns

Points are the cartesian product of the --grid axes (first axis slowest), each repeated for
every seed. Point P runs as `fabric-run SCENARIO [--set/--attr fixed] [--set/--attr axes]
[--seed S] --out OUT/runs/P --quiet`; P is named from the values, e.g.
senders=16,buffer=4MiB,pfc=false. A key containing '::' is an ns-3 attribute (--attr).

Re-running the same command resumes: points whose runs/P/.done records a result (exit 0, or 3 =
PFC deadlock, which is a result too) for the same options and scenario file are skipped; failed,
interrupted and never-run points run. OUT/sweep.csv is rewritten every time, one row per point.

exit status: 0 every point ok or deadlocked, 1 some point failed (its log is named on stderr),
2 bad usage, 130 interrupted (Ctrl-C/SIGTERM: running points are stopped; re-run to resume).

on a Slurm cluster (tools/README.md):
  tools/sweep examples/incast.yaml --grid workload.senders=8,16,32 --slurm --time 00:30:00
  tools/sweep examples/incast.yaml --grid workload.senders=8,16,32 --collect [--wait]
--slurm writes OUT/slurm/points.json and OUT/slurm/job.sh (one array task per point: task N
runs `tools/sweep --run-point OUT N`, i.e. point N exactly as a local sweep runs it) and submits
the unfinished points with sbatch; it prints the job id. --collect (same grid options) writes
OUT/sweep.csv as a local run would and names the points still missing (exit 1 while any is
missing or failed). --wait polls squeue until the job left the queue, then collects.
"""


def scenario_name(path: str) -> str:
    """The scenario's top-level `name:` (as fabric-run names results), else the file name."""
    try:
        with open(path) as handle:
            for line in handle:
                match = re.match(r"name:\s*['\"]?([^'\"#\s]+)", line)
                if match:
                    return match.group(1)
    except OSError:
        pass
    return os.path.splitext(os.path.basename(path))[0]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sweep", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Run a fabric-run scenario over a grid of parameter values, in parallel, "
        "resumably, and tabulate the results in OUT/sweep.csv.")
    parser.add_argument("scenario", metavar="SCENARIO.yaml")
    parser.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2,...",
                        help="an axis of the grid: a scenario key (or ns-3 attribute) and its "
                        "values, comma-separated (commas inside [] or {} do not split)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        dest="sets", help="fixed scenario override passed to every point")
    parser.add_argument("--attr", action="append", default=[], metavar="NAME=VALUE",
                        dest="attrs", help="fixed ns-3 attribute passed to every point")
    parser.add_argument("--seeds", metavar="N|S1,S2,...",
                        help="repeat every point for seeds 1..N (or the seeds listed); adds "
                        "seed=S to point names (default: the scenario's seed, one run)")
    parser.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                        help="points run in parallel (default 1); with --slurm: at most N "
                        "array tasks at a time (default: no limit)")
    parser.add_argument("--out", metavar="DIR",
                        help="sweep directory (default results/<scenario>-sweep)")
    parser.add_argument("--fabric-run", metavar="PATH", default=None,
                        help=f"simulator binary (default $FABRIC_RUN or {DEFAULT_BINARY})")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="kill a point running longer than this (status timeout)")
    parser.add_argument("--force", action="store_true",
                        help="run every point again, finished or not")
    parser.add_argument("--no-keep-runs", dest="keep_runs", action="store_false",
                        help="delete OUT/runs/ once every point has a result (keeps sweep.csv; "
                        "a later invocation then runs everything again)")
    parser.add_argument("--dry-run", "-n", action="store_true",
                        help="print the points and their commands; run nothing")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress; only failures and the final line")
    cluster = parser.add_argument_group("Slurm cluster (see tools/README.md)")
    cluster.add_argument("--slurm", action="store_true",
                         help="write OUT/slurm/job.sh, a job array of the unfinished points, "
                         "submit it with sbatch and print the job id")
    cluster.add_argument("--collect", action="store_true",
                         help="write OUT/sweep.csv from the points finished so far (by --slurm "
                         "jobs or locally), as a local run would; report missing points")
    cluster.add_argument("--wait", action="store_true",
                         help="with --slurm or --collect: wait until the job left the queue "
                         "(squeue), then collect")
    cluster.add_argument("--partition", metavar="P", help="sbatch --partition")
    cluster.add_argument("--time", metavar="T", help="sbatch --time per point, e.g. 00:30:00")
    cluster.add_argument("--mem", metavar="M", help="sbatch --mem per point, e.g. 2G")
    cluster.add_argument("--sbatch-arg", action="append", default=[], metavar="ARG",
                         dest="sbatch_args", help="another sbatch option for job.sh, e.g. "
                         "--sbatch-arg=--qos=short (repeatable)")
    return parser


def check_options(args, axes) -> None:
    if args.slurm and args.collect:
        raise GridError("--slurm submits, --collect gathers: give one of them")
    if args.wait and not (args.slurm or args.collect):
        raise GridError("--wait needs --slurm or --collect")
    for option, value in (("--partition", args.partition), ("--time", args.time),
                          ("--mem", args.mem), ("--sbatch-arg", args.sbatch_args)):
        if value and not args.slurm:
            raise GridError(f"{option} needs --slurm")
    if args.jobs < 1:
        raise GridError("--jobs must be at least 1")
    if args.timeout is not None and args.timeout <= 0:
        raise GridError("--timeout must be positive")
    grid_keys = {a.key for a in axes}
    for option, items in (("--set", args.sets), ("--attr", args.attrs)):
        for item in items:
            key, _ = split_assignment(item, option)
            if key in grid_keys:
                raise GridError(f"{option} {key} is also a --grid axis")
            if key == "seed" and args.seeds is not None:
                raise GridError("--set seed conflicts with --seeds")
    if args.seeds is not None and "seed" in grid_keys:
        raise GridError("--grid seed conflicts with --seeds (use one of them)")


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--run-point":  # a Slurm array task (OUT/slurm/job.sh)
        return slurm.run_point_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    args.jobs_given = args.jobs  # --slurm: the array's task limit only when given
    if args.jobs is None:
        args.jobs = 1

    def usage(message: str) -> int:
        print(f"sweep: error: {message}", file=sys.stderr)
        return EXIT_USAGE

    if not os.path.isfile(args.scenario):
        return usage(f"{args.scenario}: no such scenario file")
    binary = args.fabric_run or os.environ.get("FABRIC_RUN") or DEFAULT_BINARY
    if not args.collect and not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        return usage(f"{binary}: no executable fabric-run (build it, or pass --fabric-run)")
    try:
        axes = name_axes([parse_axis(text) for text in args.grid])
        check_options(args, axes)
        points = expand(axes, parse_seeds(args.seeds))
    except GridError as err:
        return usage(str(err))
    out_dir = args.out or os.path.join("results", f"{scenario_name(args.scenario)}-sweep")
    sweep = Sweep(out_dir, binary, args.scenario, args.sets, args.attrs, points, jobs=args.jobs,
                  timeout_s=args.timeout, force=args.force, quiet=args.quiet)
    if args.slurm or args.collect:
        return slurm.main(args, sweep, axes, f"sweep-{scenario_name(args.scenario)}")

    if args.dry_run:
        todo = {p.name for p in (sweep.collect_previous() if os.path.isdir(out_dir)
                                 else points)}
        for point in points:
            state = "to run" if point.name in todo else "finished"
            print(f"[{state}] {point.name}: {sweep.command_line(point)}")
        print(f"sweep: {len(points)} point(s), {len(points) - len(todo)} finished, "
              f"{len(todo)} to run in {out_dir} (dry run)", file=sys.stderr)
        return EXIT_OK

    try:
        sweep.lock()
    except (SweepError, OSError) as err:
        return usage(str(err))
    interrupted = False
    try:
        todo = sweep.collect_previous()
        if not args.quiet:
            jobs = f" with {min(args.jobs, len(todo))} job(s)" if todo else ""
            print(f"sweep: {len(points)} point(s) in {out_dir}: {len(points) - len(todo)} "
                  f"finished, {len(todo)} to run{jobs}", file=sys.stderr)
        try:
            sweep.run(todo)
        except Interrupted:
            interrupted = True
        rows = [table.point_row(axes, p, sweep.run_dir(p), sweep.results.get(p.name))
                for p in points]
        csv_path = os.path.join(out_dir, "sweep.csv")
        table.write_csv(csv_path, axes, rows)
    finally:
        sweep.unlock()

    counts = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    failed = [r for r in rows if r["status"] not in table.RESULT_STATUSES + ("pending",)]
    parts = [f"{n} {s}" for s, n in sorted(counts.items())]
    print(f"sweep: {len(points)} point(s): {', '.join(parts)}; ran {sweep.ran} now; "
          f"table {csv_path}", file=sys.stderr)
    for row in failed:
        print(f"sweep: failed: {row['point']} (exit {row['exit_status'] or '?'}): "
              f"{os.path.join(sweep.runs_dir, row['point'], 'run.log')}", file=sys.stderr)
    print(csv_path)
    if interrupted:
        print("sweep: interrupted; run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    if failed:
        return EXIT_FAILED
    if not args.keep_runs:
        shutil.rmtree(sweep.runs_dir, ignore_errors=True)
    return EXIT_OK
