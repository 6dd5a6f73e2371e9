#!/usr/bin/env python3
"""Bad input never crashes fabric-run: every shipped scenario (examples/**/*.yaml), mutated.

Each mutant is one small edit of one scenario file, the kinds of mistakes people make:
  drop      a line removed
  negate    a number made negative           (rate: -400Gbps)
  enlarge   a number too large for its field (receiver: 99999999999999999999, 2^64; and 2^32
            for a plain count, beyond every 32-bit field)
  type      a value of the wrong type        (a word for a number, a list or mapping for a value)
  duplicate a key given twice
  unknown   a key misspelled, or a key no table has
and is run with stop_time=1us (what is checked here is the reading of the file, not the run).
Every mutant must end with an exit status of fabric-run's own (0 ok, 1 conservation, 2 bad input,
3 deadlock), not a signal (abort, segfault) and not a hang; on exit 2 it must print one
"fabric-run: error:" line and leave no results directory behind.

The mutants of a file are all generated, then a fixed sample of them is run (--per-file, drawn
with --seed) so that the test stays fast; --per-file 0 runs every mutant.

    tests/tools/scenario_mutation_test.py --fabric-run build/fabric-run [--per-file N] [--seed S]
"""

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXIT_STATUSES = {0, 1, 2, 3}  # fabric-run.cc: ok, conservation, bad input, deadlock
TIMEOUT_S = 20

# A number as written in a value: 400, 1.5, with an optional unit (Gbps, KiB, us, m, B).
NUMBER = re.compile(r"(?<=[:\[,] )(?P<digits>\d+(?:\.\d+)?)(?P<unit>[A-Za-z/]*)(?=[\s,\]}]|$)")
# A "key:" at the start of a line (block mapping) or after "{" / ", " (flow mapping).
KEY = re.compile(r"(?:^\s*(?:- )?|[{,] )(?P<key>[A-Za-z_][A-Za-z0-9_]*):(?= |$)")
# Beyond 64 bits: too large for any field, with or without a unit.
TOO_LARGE = ["99999999999999999999", "18446744073709551616"]
# Beyond 32 bits: too large for a 32-bit count. Not given a unit: 4294967296KiB is a legitimate
# 4 TiB flow, which a run would simulate (slowly) rather than refuse.
TOO_LARGE_COUNT = "4294967296"
WRONG_TYPES = ["abc", "[1, 2]", "{a: 1}", "true", "1.5"]


def content_of(line):
    """The line without its comment (a '#' after a space or at the start)."""
    m = re.search(r"(^|\s)#", line)
    return line[: m.start()] if m else line


def mutants(lines):
    """(kind, description, new lines) for every mutant of a file's lines."""
    out = []
    for i, line in enumerate(lines):
        body = content_of(line)
        if not body.strip():
            continue
        where = f"line {i + 1}"
        out.append(("drop", f"{where}: dropped", lines[:i] + lines[i + 1 :]))
        for m in NUMBER.finditer(body):
            s, e = m.start(), m.end()
            digits, unit = m.group("digits"), m.group("unit")

            def put(text, s=s, e=e):
                return lines[:i] + [line[:s] + text + line[e:]] + lines[i + 1 :]

            out.append(("negate", f"{where}: -{digits}{unit}", put(f"-{digits}{unit}")))
            for big in TOO_LARGE + ([] if unit else [TOO_LARGE_COUNT]):
                out.append(("enlarge", f"{where}: {big}{unit}", put(big + unit)))
            for wrong in WRONG_TYPES:
                out.append(("type", f"{where}: {wrong}", put(wrong)))
        for m in KEY.finditer(body):
            key = m.group("key")
            s, e = m.start("key"), m.end("key")
            for typo in (key[:-1], key + "x"):
                if typo:
                    renamed = lines[:i] + [line[:s] + typo + line[e:]] + lines[i + 1 :]
                    out.append(("unknown", f"{where}: {key} -> {typo}", renamed))
        block_key = re.match(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*):", body)
        if block_key:
            indent = block_key.group(1)
            out.append(("duplicate", f"{where}: twice", lines[: i + 1] + [line] + lines[i + 1 :]))
            extra = f"{indent}no_such_key: 1\n"
            out.append(("unknown", f"{where}: no_such_key", lines[:i] + [extra] + lines[i:]))
    return out


def run_mutant(fabric_run, work, scenario, index, mutant):
    """Runs one mutant; returns a problem (a string) or None."""
    kind, description, lines = mutant
    directory = os.path.dirname(scenario)
    path = os.path.join(directory, f".mutant-{index}-{os.path.basename(scenario)}")
    out = os.path.join(work, f"out-{os.path.basename(scenario)}-{index}")
    with open(path, "w") as f:
        f.writelines(lines)
    label = f"{os.path.relpath(scenario, work)} {description} ({kind})"
    command = [fabric_run, path, "--set", "stop_time=1us", "--quiet", "--out", out]
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return f"{label}: no answer in {TIMEOUT_S} s"
    finally:
        os.remove(path)
    tail = (p.stderr.strip().splitlines() or [""])[-1]
    problem = None
    if p.returncode < 0:
        problem = f"killed by signal {-p.returncode}: {tail}"
    elif p.returncode not in EXIT_STATUSES:
        problem = f"exit {p.returncode}: {tail}"
    elif p.returncode == 2:
        errors = [l for l in p.stderr.splitlines() if l.startswith("fabric-run: error:")]
        if len(errors) != 1:
            problem = f"exit 2 without one 'fabric-run: error:' line: {p.stderr.strip()!r}"
        elif os.path.exists(out):
            problem = f"exit 2 left a results directory: {errors[0]}"
    shutil.rmtree(out, ignore_errors=True)
    return f"{label}: {problem}" if problem else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fabric-run", default=os.path.join(ROOT, "build", "fabric-run"))
    parser.add_argument("--per-file", type=int, default=24, help="mutants run per file; 0: all")
    parser.add_argument("--seed", type=int, default=1, help="draws the sample of mutants")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("files", nargs="*", help="scenarios (default: examples/**/*.yaml)")
    args = parser.parse_args()
    fabric_run = os.path.abspath(args.fabric_run)
    if not os.access(fabric_run, os.X_OK):
        print(f"scenario_mutation: {fabric_run} is not built", file=sys.stderr)
        return 1

    with tempfile.TemporaryDirectory(prefix="fabric-mutation-") as work:
        # A copy of examples/: mutants sit next to the files their scenario names (topologies,
        # flow lists), and the source tree is never written to.
        shutil.copytree(os.path.join(ROOT, "examples"), os.path.join(work, "examples"))
        files = args.files or sorted(
            os.path.join(dp, f)
            for dp, _, fs in os.walk(os.path.join(ROOT, "examples"))
            for f in fs
            if f.endswith(".yaml")
        )
        rng = random.Random(args.seed)
        jobs = []
        by_kind = {}
        for original in files:
            rel = os.path.relpath(os.path.abspath(original), ROOT)
            scenario = os.path.join(work, rel)
            with open(original) as f:
                lines = f.readlines()
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            all_mutants = mutants(lines)
            chosen = all_mutants
            if args.per_file and len(all_mutants) > args.per_file:
                # Every kind first (so that each file sees each kind), then the rest at random.
                rng.shuffle(all_mutants)
                first = {}
                for m in all_mutants:
                    first.setdefault(m[0], m)
                rest = [m for m in all_mutants if m not in first.values()]
                chosen = list(first.values()) + rest[: max(0, args.per_file - len(first))]
            for m in chosen:
                by_kind[m[0]] = by_kind.get(m[0], 0) + 1
                jobs.append((scenario, len(jobs), m))
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            problems = [
                p
                for p in pool.map(lambda j: run_mutant(fabric_run, work, j[0], j[1], j[2]), jobs)
                if p
            ]
    counts = ", ".join(f"{n} {k}" for k, n in sorted(by_kind.items()))
    print(f"scenario_mutation: {len(jobs)} mutants of {len(files)} scenarios ({counts})")
    for p in problems:
        print("  FAIL " + p)
    if problems:
        print(f"scenario_mutation: {len(problems)} of {len(jobs)} mutants crashed or hung")
        return 1
    print("scenario_mutation: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
