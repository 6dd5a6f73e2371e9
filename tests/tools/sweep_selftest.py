#!/usr/bin/python3
"""Self-test of tools/sweep and tools/plot --sweep, without the simulator.

A fake fabric-run (a small Python script written into a temporary directory) stands in for
build/fabric-run via --fabric-run: it logs each invocation, writes a summary.json whose numbers
follow from the --set values, and fails, deadlocks (exit 3) or hangs for values named in the
scenario file. The real tools run as subprocesses (shebangs, exec bits, argument parsing).
Runs in a few seconds; exits non-zero on failure.

    /usr/bin/python3 tests/tools/sweep_selftest.py [-v]
"""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
TOOLS_DIR = os.path.join(REPO_DIR, "tools")
SWEEP = os.path.join(TOOLS_DIR, "sweep")
PLOT = os.path.join(TOOLS_DIR, "plot")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

from fabrictools.sweep import grid  # tests/tools/fabrictools links to the package

# Scenario lines the fake understands: "fail: KEY=VALUE" (exit 1, no summary), "deadlock:
# KEY=VALUE" (summary with a deadlock, exit 3), "hang: KEY=VALUE" (sleeps 60 s), "sleep: S"
# (every run). Numbers: last_finish_ns = 1000 x senders + seed; queue = min(4 KiB x senders,
# buffer); drops = the excess without PFC; pfc frames = senders with PFC.
FAKE_FABRIC_RUN = r"""#!/usr/bin/python3
import json, os, sys, time
argv = sys.argv[1:]
scenario, sets, attrs, seed, out = argv[0], {}, {}, 1, None
i = 1
while i < len(argv):
    opt = argv[i]
    if opt in ("--set", "--attr"):
        key, value = argv[i + 1].split("=", 1)
        (sets if opt == "--set" else attrs)[key] = value
        i += 2
    elif opt in ("--seed", "--out"):
        if opt == "--seed":
            seed = int(argv[i + 1])
        else:
            out = argv[i + 1]
        i += 2
    elif opt == "--quiet":
        i += 1
    else:
        print(f"fake fabric-run: error: unknown option {opt}", file=sys.stderr)
        sys.exit(2)
spec = {}
for line in open(scenario):
    key, _, value = line.partition(":")
    spec.setdefault(key.strip(), []).append(value.strip())
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps({"sets": sets, "attrs": attrs, "seed": seed, "out": out,
                          "pid": os.getpid()}) + "\n")
given = {f"{k}={v}" for k, v in list(sets.items()) + list(attrs.items())}
time.sleep(float(spec.get("sleep", ["0"])[0]))
if given & set(spec.get("hang", [])):
    time.sleep(60)
if given & set(spec.get("fail", [])):
    print("fake fabric-run: failing on purpose", file=sys.stderr)
    sys.exit(1)
senders = int(sets.get("workload.senders", "1"))
buffer = int(sets.get("switch.buffer", "1000KiB").replace("KiB", "")) * 1024
pfc = sets.get("switch.pfc.enabled", "true") == "true"
offered = 4096 * senders
deadlock = bool(given & set(spec.get("deadlock", [])))
summary = {"scenario": "fake", "seed": seed, "flows_finished": 0 if deadlock else senders,
           "flows_total": senders, "last_finish_ns": 1000 * senders + seed,
           "sim_time_ns": 2000 * senders, "events": 10 * senders, "wall_s": 0.001,
           "conservation_ok": True, "deadlock": {"detected": deadlock},
           "bottleneck": {"node": "sw0", "port": 0, "bytes": min(offered, buffer)},
           "counters": {"sent_bytes": offered, "delivered_bytes": offered,
                        "dropped_bytes": 0 if pfc else max(0, offered - buffer),
                        "retransmitted_bytes": 0, "headroom_violation_bytes": 0,
                        "pfc_frames_sent": senders if pfc else 0, "ecn_marked_frames": 7}}
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "summary.json.tmp"), "w") as handle:
    json.dump(summary, handle)
os.replace(os.path.join(out, "summary.json.tmp"), os.path.join(out, "summary.json"))
sys.exit(3 if deadlock else 0)
"""

EXPECTED_COLUMNS = (["point", "workload.senders", "switch.buffer", "switch.pfc.enabled", "seed",
                     "status", "exit_status", "flows_finished", "flows_total",
                     "last_finish_ns", "sim_time_ns", "sent_bytes", "delivered_bytes",
                     "dropped_bytes", "discarded_bytes", "retransmitted_bytes",
                     "headroom_violation_bytes", "pfc_frames_sent", "ecn_marked_frames",
                     "max_queue_bytes", "max_queue_port", "deadlock", "conservation_ok",
                     "events", "wall_s", "elapsed_s"])


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class Env:
    """The temporary directory, the fake binary and its invocation log."""

    def __init__(self, tmp, verbose):
        self.tmp, self.verbose = tmp, verbose
        self.fake = os.path.join(tmp, "fake-fabric-run")
        with open(self.fake, "w") as handle:
            handle.write(FAKE_FABRIC_RUN)
        os.chmod(self.fake, 0o755)
        self.log = os.path.join(tmp, "invocations.jsonl")
        os.environ["FAKE_LOG"] = self.log
        open(self.log, "w").close()

    def scenario(self, name, text=""):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as handle:
            handle.write(f"name: {name}\n" + text)
        return path

    def invocations(self):
        with open(self.log) as handle:
            return [json.loads(line) for line in handle if line.strip()]

    def sweep(self, args, expect_rc=0):
        argv = [SWEEP] + args + ["--fabric-run", self.fake]
        return self.run(argv, expect_rc)

    def run(self, argv, expect_rc=0):
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if self.verbose:
            print("$ " + " ".join(argv) + f"\n{proc.stdout}{proc.stderr}(exit {proc.returncode})")
        crashed = "Traceback (most recent call last)" in proc.stderr
        if crashed or (expect_rc is not None and proc.returncode != expect_rc):
            raise Failure(f"{' '.join(argv)} exited {proc.returncode}, expected {expect_rc}\n"
                          f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        return proc


def read_csv(path):
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames), list(reader)


GRID = ["--grid", "workload.senders=2,4", "--grid", "switch.buffer=8KiB,32KiB",
        "--grid", "switch.pfc.enabled=true,false"]


def test_grid_names(env):
    """Axis short names, value splitting, sanitizing and the product order (in-process)."""
    axes = grid.name_axes([grid.parse_axis("workload.senders=2,4"),
                           grid.parse_axis("switch.pfc.enabled=true,false"),
                           grid.parse_axis("switch.ecn.enabled=true"),
                           grid.parse_axis("a.x.k=1"), grid.parse_axis("b.y.k=2"),
                           grid.parse_axis("ns3::FabricSwitch::EcnPmax=0.1")])
    check([a.short for a in axes] == ["senders", "pfc", "ecn", "x.k", "y.k", "EcnPmax"],
          f"short names {[a.short for a in axes]}")
    points = grid.expand(axes, [None])
    check(len(points) == 4 and points[0].name == "senders=2,pfc=true,ecn=true,x.k=1,y.k=2,"
          "EcnPmax=0.1", f"first point {points[0].name}")
    check([p.values["workload.senders"] for p in points] == ["2", "2", "4", "4"],
          "first axis must vary slowest")
    check(points[0].fabric_args(["a=1"], [])[-2:] == ["--attr", "ns3::FabricSwitch::EcnPmax=0.1"],
          "attribute axes go to --attr")
    lossless = grid.parse_axis("switch.pfc.lossless=[3],[3,4],{a: 1, b: 2}")
    check(lossless.values == ("[3]", "[3,4]", "{a: 1, b: 2}"), f"split {lossless.values}")
    named = grid.name_axes([lossless, grid.parse_axis("k=a/b,a_b")])
    names = [p.name for p in grid.expand(named, [1, 2])]
    check(len(set(names)) == len(names) == 12, f"names not unique: {names}")
    check(all("/" not in n and " " not in n and "[" not in n for n in names), f"unsafe {names}")
    check(names[0].endswith(",seed=1") and names[1].endswith(",seed=2"), "seed suffix")
    for bad in ("senders", "=1", "k=1,,2", "k=1,1"):
        try:
            grid.parse_axis(bad)
            raise Failure(f"--grid {bad} accepted")
        except grid.GridError:
            pass
    check(grid.parse_seeds("3") == [1, 2, 3] and grid.parse_seeds("5,9") == [5, 9], "seeds")


def test_dry_run(env):
    scen = env.scenario("dry.yaml")
    out = os.path.join(env.tmp, "dry")
    proc = env.sweep([scen] + GRID + ["--set", "workload.bytes_per_sender=1KiB",
                                      "--attr", "ns3::X::Y=2", "--out", out, "--dry-run"])
    lines = proc.stdout.splitlines()
    check(len(lines) == 8, f"dry run printed {len(lines)} points:\n{proc.stdout}")
    check(lines[0].startswith("[to run] senders=2,buffer=8KiB,pfc=true: "), lines[0])
    check("--set workload.bytes_per_sender=1KiB --attr ns3::X::Y=2 --set workload.senders=2"
          in lines[0] and lines[0].endswith("--quiet"), f"command wrong: {lines[0]}")
    check(not env.invocations() and not os.path.exists(out), "a dry run ran something")


def test_run_and_resume(env):
    scen = env.scenario("grid.yaml")
    out = os.path.join(env.tmp, "grid")
    args = [scen] + GRID + ["--set", "workload.bytes_per_sender=1KiB", "--jobs", "2",
                            "--out", out]
    proc = env.sweep(args)
    csv_path = os.path.join(out, "sweep.csv")
    check(proc.stdout.strip() == csv_path, f"sweep.csv path not printed: {proc.stdout!r}")
    calls = env.invocations()
    check(len(calls) == 8, f"{len(calls)} runs for 8 points")
    check(all(c["sets"].get("workload.bytes_per_sender") == "1KiB" for c in calls),
          "--set not passed through")
    header, rows = read_csv(csv_path)
    check(header == EXPECTED_COLUMNS, f"sweep.csv columns:\n{header}")
    check(len(rows) == 8, f"{len(rows)} rows")
    check([r["point"] for r in rows[:3]] == ["senders=2,buffer=8KiB,pfc=true",
                                              "senders=2,buffer=8KiB,pfc=false",
                                              "senders=2,buffer=32KiB,pfc=true"],
          "rows not in grid order")
    for row in rows:
        senders = int(row["workload.senders"])
        buffer = int(row["switch.buffer"][:-3]) * 1024
        pfc = row["switch.pfc.enabled"] == "true"
        check(row["status"] == "ok" and row["exit_status"] == "0", f"status {row}")
        check(row["seed"] == "1", f"seed column {row['seed']}")
        check(int(row["last_finish_ns"]) == 1000 * senders + 1, f"last_finish_ns {row}")
        check(int(row["max_queue_bytes"]) == min(4096 * senders, buffer), f"queue {row}")
        check(int(row["dropped_bytes"]) == (0 if pfc else max(0, 4096 * senders - buffer)),
              f"drops {row}")
        check(int(row["pfc_frames_sent"]) == (senders if pfc else 0), f"pfc frames {row}")
        check(row["max_queue_port"] == "sw0:0" and row["deadlock"] == "false"
              and float(row["elapsed_s"]) > 0, f"other columns {row}")
        run_dir = os.path.join(out, "runs", row["point"])
        with open(os.path.join(run_dir, ".done")) as handle:
            check(json.load(handle)["exit_status"] == 0, f"{run_dir}/.done")
        check(os.path.isfile(os.path.join(run_dir, "run.log")), "no run.log")
    with open(csv_path) as handle:
        first_table = handle.read()

    env.sweep(args)  # resume: everything finished, nothing runs, same table
    check(len(env.invocations()) == 8, "the second invocation ran points again")
    with open(csv_path) as handle:
        check(handle.read() == first_table, "sweep.csv changed on a resume")

    os.remove(os.path.join(out, "runs", rows[4]["point"], ".done"))  # "crashed" mid-point
    extended = [a.replace("=2,4", "=2,4,8") for a in args]
    env.sweep(extended)
    calls = env.invocations()[8:]
    check(len(calls) == 5, f"extending the grid ran {len(calls)} points, expected 4 + 1")
    check(sum(c["sets"]["workload.senders"] == "8" for c in calls) == 4, "new points not run")
    check(len(read_csv(csv_path)[1]) == 12, "extended table")

    changed = [a.replace("bytes_per_sender=1KiB", "bytes_per_sender=2KiB") for a in extended]
    env.sweep(changed + ["--quiet"])
    check(len(env.invocations()) == 8 + 5 + 12, "changed --set did not re-run every point")


def test_failures(env):
    """A failing point is reported with its log and does not stop the others; a deadlock
    (exit 3) is a result; a hung point is killed by --timeout."""
    scen = env.scenario("fail.yaml", "fail: workload.senders=4\ndeadlock: workload.senders=8\n"
                                     "hang: workload.senders=32\n")
    out = os.path.join(env.tmp, "fail")
    args = [scen, "--grid", "workload.senders=2,4,8,16,32", "--jobs", "2", "--out", out,
            "--timeout", "1"]
    start = len(env.invocations())
    proc = env.sweep(args, expect_rc=1)
    check(len(env.invocations()) - start == 5, "not every point ran")
    log = os.path.join(out, "runs", "senders=4", "run.log")
    check(f"FAILED senders=4 (exit status 1); log: {log}" in proc.stderr,
          f"failure not reported with its log:\n{proc.stderr}")
    check("failing on purpose" in proc.stderr, "log tail not shown")
    with open(log) as handle:
        check("failing on purpose" in handle.read(), "run.log lacks the point's stderr")
    check("FAILED senders=32 (killed after 1 s)" in proc.stderr, f"timeout:\n{proc.stderr}")
    _, rows = read_csv(os.path.join(out, "sweep.csv"))
    status = {r["workload.senders"]: (r["status"], r["exit_status"]) for r in rows}
    check(status == {"2": ("ok", "0"), "4": ("failed", "1"), "8": ("deadlock", "3"),
                     "16": ("ok", "0"), "32": ("timeout", "-9")}, f"statuses {status}")
    failed = next(r for r in rows if r["workload.senders"] == "4")
    check(failed["last_finish_ns"] == "" and failed["seed"] == "", f"failed row {failed}")
    dead = next(r for r in rows if r["workload.senders"] == "8")
    check(dead["deadlock"] == "true" and dead["flows_finished"] == "0", f"deadlock row {dead}")

    start = len(env.invocations())
    env.sweep(args, expect_rc=1)  # re-run: only the failed points run again
    again = sorted(c["sets"]["workload.senders"] for c in env.invocations()[start:])
    check(again == ["32", "4"], f"re-run ran {again}, expected the two failed points")


def test_seeds_and_plot(env):
    scen = env.scenario("seeds.yaml")
    out = os.path.join(env.tmp, "seeds")
    start = len(env.invocations())
    env.sweep([scen, "--grid", "workload.senders=2,4,8", "--grid",
               "switch.pfc.enabled=true,false", "--seeds", "3", "--jobs", "2", "--out", out])
    calls = env.invocations()[start:]
    check(sorted(c["seed"] for c in calls) == [1] * 6 + [2] * 6 + [3] * 6, "seeds passed")
    _, rows = read_csv(os.path.join(out, "sweep.csv"))
    check([r["seed"] for r in rows[:4]] == ["1", "2", "3", "1"], "seed column")
    check(rows[1]["point"] == "senders=2,pfc=true,seed=2", f"seed name {rows[1]['point']}")
    check(all(int(r["last_finish_ns"]) == 1000 * int(r["workload.senders"]) + int(r["seed"])
              for r in rows), "per-seed values")

    # --no-html: the PNGs only (sweep.html is tests/tools/report_browser_test.py's).
    proc = env.run([PLOT, "--sweep", out, "--x", "senders", "--y",
                    "last_finish_ns,pfc_frames_sent", "--facet", "pfc", "--no-html"])
    expected = [os.path.join(out, "last_finish_ns-vs-senders-by-pfc.png"),
                os.path.join(out, "pfc_frames_sent-vs-senders-by-pfc.png")]
    check(proc.stdout.split() == expected, f"plot printed {proc.stdout!r}")
    check("means over seeds" in proc.stderr, "no note about seed bands")
    for path in expected:
        with open(path, "rb") as handle:
            check(handle.read(8) == PNG_MAGIC and os.path.getsize(path) > 5000, path)

    # Defaults (first numeric axis, the standard metrics) on the sweep with failures.
    plot_out = os.path.join(env.tmp, "fail-plots")
    proc = env.run([PLOT, "--sweep", os.path.join(env.tmp, "fail"), "--out", plot_out,
                    "--no-html"])
    check(len(proc.stdout.split()) == 4 and "without results left out" in proc.stderr,
          f"default sweep plots: {proc.stdout}{proc.stderr}")
    proc = env.run([PLOT, "--sweep", out, "--x", "nonsense"], expect_rc=2)
    check("axes: workload.senders, switch.pfc.enabled" in proc.stderr, proc.stderr)


def test_keep_runs_false(env):
    scen = env.scenario("nokeep.yaml")
    out = os.path.join(env.tmp, "nokeep")
    args = [scen, "--grid", "workload.senders=2,4", "--out", out]
    start = len(env.invocations())
    env.sweep(args)
    env.sweep(args + ["--force", "--no-keep-runs"])
    check(len(env.invocations()) - start == 4, "--force did not re-run the finished points")
    check(sorted(os.listdir(out)) == ["sweep.csv"], f"left behind: {os.listdir(out)}")
    check(len(read_csv(os.path.join(out, "sweep.csv"))[1]) == 2, "table")


def test_usage_errors(env):
    scen = env.scenario("usage.yaml")
    out = os.path.join(env.tmp, "usage")
    for args in (["--grid", "senders"], ["--grid", "k=1", "--grid", "k=2"],
                 ["--grid", "k=1,2", "--set", "k=3"], ["--seeds", "x"],
                 ["--seeds", "2", "--set", "seed=4"], ["--jobs", "0"]):
        proc = env.sweep([scen] + args + ["--out", out], expect_rc=2)
        check("sweep: error:" in proc.stderr, f"no error message for {args}")
    env.sweep([os.path.join(env.tmp, "missing.yaml"), "--out", out], expect_rc=2)
    env.run([SWEEP, scen, "--fabric-run", os.path.join(env.tmp, "nope"), "--out", out],
            expect_rc=2)
    check(not os.path.exists(out), "a usage error created the sweep directory")


def test_interrupt(env):
    """SIGINT (as from Ctrl-C) stops the running children and leaves their points unfinished."""
    scen = env.scenario("slow.yaml", "sleep: 30\n")
    out = os.path.join(env.tmp, "slow")
    start = len(env.invocations())
    proc = subprocess.Popen([SWEEP, scen, "--grid", "workload.senders=1,2,3", "--jobs", "2",
                             "--out", out, "--fabric-run", env.fake],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 10
    while len(env.invocations()) - start < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    children = [c["pid"] for c in env.invocations()[start:]]
    check(len(children) == 2, f"{len(children)} children started")
    proc.send_signal(signal.SIGINT)
    began = time.monotonic()
    try:
        _, stderr = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise Failure("the sweep did not stop after SIGINT")
    # Children must die of SIGTERM at once, not of SIGKILL after the grace period.
    check(time.monotonic() - began < 2.0, "stopping the children took the SIGKILL grace time")
    check(proc.returncode == 130, f"exit {proc.returncode} after SIGINT\n{stderr}")
    check("Traceback" not in stderr and "resume" in stderr, f"stderr:\n{stderr}")
    for pid in children:
        try:
            os.kill(pid, 0)
            raise Failure(f"child {pid} still running after the sweep stopped")
        except ProcessLookupError:
            pass
    _, rows = read_csv(os.path.join(out, "sweep.csv"))
    check([r["status"] for r in rows] == ["pending"] * 3, f"statuses {rows}")
    check(not any(os.path.exists(os.path.join(out, "runs", r["point"], ".done")) for r in rows),
          ".done written for an interrupted point")


TESTS = [test_grid_names, test_dry_run, test_run_and_resume, test_failures, test_seeds_and_plot,
         test_keep_runs_false, test_usage_errors, test_interrupt]


def main() -> int:
    verbose = "-v" in sys.argv[1:]
    tmp = tempfile.mkdtemp(prefix="sweep-selftest-")
    env = Env(tmp, verbose)
    failed = 0
    try:
        for test in TESTS:
            began = time.monotonic()
            try:
                test(env)
                print(f"PASS {test.__name__} ({time.monotonic() - began:.1f} s)")
            except Failure as err:
                failed += 1
                print(f"FAIL {test.__name__}: {err}")
    finally:
        if failed:
            print(f"(files kept in {tmp})")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
