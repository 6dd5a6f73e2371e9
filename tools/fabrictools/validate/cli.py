"""tools/validate: run the validation cases and write the report."""

import argparse
import importlib
import os
import shutil
import sys
import time
import traceback

from .. import repo
from . import report
from .core import CaseResult, Context

# Order = issue #10's numbering. Entries without a module are listed as not yet available.
CASES = [
    ("queue-integrator", ".cases.queue_integrator", True),
    ("late-feedback", ".cases.late_feedback", True),
    ("incast-fill", ".cases.incast_fill", True),
    ("pfc-headroom", ".cases.pfc_headroom", True),
    ("multipath", ".cases.multipath", True),
    ("loss-recovery", ".cases.loss_recovery", True),
    ("ecmp-collisions", ".cases.ecmp_collisions", True),
    ("collectives", ".cases.collectives", True),
    ("concurrency", ".cases.concurrency", True),
    ("dcqcn-recurrence", ".cases.dcqcn_recurrence", True),
    ("dctcp-alpha", ".cases.dctcp_alpha", True),
    ("hpcc-incast", ".cases.hpcc_incast", True),
    ("swift-held-queue", ".cases.swift_held_queue", True),
    ("nscc-initial-window", ".cases.nscc_initial_window", True),
    ("timely-high-rtt", ".cases.timely_high_rtt", True),
    ("powertcp-lone-flow", ".cases.powertcp_lone_flow", True),
    ("request-path", ".cases.request_path", True),
    ("completion-backpressure", ".cases.completion_backpressure", True),
    ("job-timelines", ".cases.job_timelines", True),
    ("ordering-example", ".cases.ordering_example", True),
    ("shared-interfaces", ".cases.shared_interfaces", True),
    ("remote-read-latency", ".cases.remote_read_latency", True),
]

UNAVAILABLE = {}


def parse_args(argv):
    p = argparse.ArgumentParser(prog="tools/validate", description=__doc__)
    p.add_argument("--quick", action="store_true",
                   help="the fast subset (scaled-down times, fewer sub-cases and seeds)")
    p.add_argument("--only", action="append", default=[], metavar="CASE",
                   help="run only this case (repeatable); ids: " + ", ".join(c for c, _, _ in CASES))
    p.add_argument("--build", default=None,
                   help="build directory holding fabric-run (default: the repository's build/)")
    p.add_argument("--out", default=None,
                   help="report directory (default: results/validation for the full set; "
                        "BUILD/validation-quick with --quick, BUILD/validation-only with --only, "
                        "so partial runs never overwrite the committed report)")
    p.add_argument("--runs", default=None,
                   help="where the simulation runs go (default BUILD/validation-runs[-quick])")
    p.add_argument("--keep-runs", action="store_true",
                   help="keep earlier run directories of the selected cases (default: replace them)")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--check-report", action="store_true",
                   help="only say whether results/validation/report.json is older than the model "
                        "(exit 1 if it is) and exit")
    # For tools' self-test: an ns-3 attribute given to every run but invisible to the formulas,
    # i.e. a model that no longer does what the analytic side assumes.
    p.add_argument("--sabotage-attr", action="append", default=[], help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    root = repo.ROOT
    committed = os.path.join(root, "results", "validation", "report.json")
    stale = report.staleness(root, committed)
    if args.check_report:
        print(f"validate: {stale}" if stale else f"validate: {os.path.relpath(committed, root)} "
              "describes the current model")
        return 1 if stale else 0
    if stale:
        print(f"validate: note: {stale}", file=sys.stderr)
    if args.list:
        for cid, mod, _ in CASES:
            print(cid + ("" if mod else "   (not available)"))
        return 0
    known = {c for c, _, _ in CASES}
    for o in args.only:
        if o not in known:
            print(f"validate: unknown case '{o}' (known: {', '.join(sorted(known))})", file=sys.stderr)
            return 2
    build = os.path.abspath(args.build or os.path.join(root, "build"))
    if not os.access(os.path.join(build, "fabric-run"), os.X_OK):
        print(f"validate: {build}/fabric-run not found (build first)", file=sys.stderr)
        return 2
    # Only a full, unrestricted run writes the committed report by default.
    if args.out:
        out = os.path.abspath(args.out)
    elif args.quick or args.only:
        out = os.path.join(build, "validation-quick" if args.quick else "validation-only")
    else:
        out = os.path.join(root, "results", "validation")
    runs = os.path.abspath(args.runs or os.path.join(build, "validation-runs" + ("-quick" if args.quick else "")))
    os.makedirs(runs, exist_ok=True)
    if not args.keep_runs:
        # Only this tool's own per-case directories, never the --runs directory itself.
        for cid, mod, _ in CASES:
            if mod and (not args.only or cid in args.only):
                shutil.rmtree(os.path.join(runs, cid), ignore_errors=True)
    os.makedirs(out, exist_ok=True)
    ctx = Context(root, build, out, runs, args.quick)
    ctx.sabotage_attrs = list(args.sabotage_attr)
    t0 = time.time()
    results = []
    for cid, mod, in_default in CASES:
        if args.only and cid not in args.only:
            continue
        if mod is None:
            title, why = UNAVAILABLE[cid]
            c = CaseResult(cid, title, "issue #10", "—", available=False)
            c.notes.append(f"Not yet available ({why}): the simulator lacks the model this case "
                           "validates, so there is nothing to compare yet.")
            results.append(c)
            continue
        module = importlib.import_module(mod, __package__)
        ctx.log(f"{cid}: {module.TITLE}")
        tc = time.time()
        ctx.current_case = None
        try:
            c = module.run(ctx)
        except Exception as e:  # a broken validation must be loud, never a pass
            c = ctx.current_case or CaseResult(cid, module.TITLE, "", "")
            c.error = f"{type(e).__name__}: {e}"
            traceback.print_exc()
        c.wall_s = time.time() - tc
        ctx.log(f"  -> {c.verdict} ({c.wall_s:.1f} s)")
        for k in c.checks:
            ctx.log(f"     {k.verdict:5s} {k.sub}: {k.metric}: analytic {report.fmt_value(k.analytic, k.unit)}, "
                    f"simulated {report.fmt_value(k.simulated, k.unit)}")
        results.append(c)
    wall = time.time() - t0
    report.write(out, results, ctx, wall, "quick" if args.quick else "full")
    verdicts = [c.verdict for c in results]
    print(f"validate: {sum(v == 'pass' for v in verdicts)} pass, {verdicts.count('MISS')} miss, "
          f"{verdicts.count('ERROR')} error, {verdicts.count('not available')} not available; "
          f"{wall:.0f} s; report: {os.path.relpath(os.path.join(out, 'report.md'))}")
    if "ERROR" in verdicts:
        return 2
    return 1 if "MISS" in verdicts else 0
