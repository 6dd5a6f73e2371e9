"""Running the points: parallel child processes, resume markers, progress, interruption.

Layout of a sweep directory OUT:

    OUT/sweep.csv               the table (table.py), rewritten at the end of every invocation
    OUT/runs/<point>/           fabric-run --out of one point, plus
    OUT/runs/<point>/run.log    the command line and everything fabric-run printed
    OUT/runs/<point>/.done      JSON written after fabric-run exited: exit status, status,
                                elapsed time, the fabric-run options and the scenario's hash

A point is finished when its .done says ok or deadlock, summary.json exists and the recorded
options and scenario hash equal the current ones. Everything else (never run, interrupted, a
failure, or results of different options or an edited scenario) is run again, in a directory
emptied first. Children run in their own sessions, so a terminal's Ctrl-C reaches only the sweep,
which then stops them (SIGTERM, SIGKILL after a grace period) and leaves their points unfinished.
"""

import errno
import fcntl
import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Dict, IO, List, Optional, Sequence

from .grid import Point

DONE = ".done"
LOG = "run.log"
POLL_S = 0.02
KILL_GRACE_S = 3.0
LOG_TAIL_LINES = 5
EXIT_STATUS = {0: "ok", 3: "deadlock"}  # fabric-run exit statuses that are results
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def _unblock_stop_signals() -> None:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


class SweepError(Exception):
    """A problem with the sweep as a whole (not one point); the message is for the user."""


class StartFailure(Exception):
    """fabric-run could not be started for a point."""


class Interrupted(Exception):
    """Ctrl-C, SIGTERM or SIGHUP while points were running."""


def file_hash(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha1(handle.read()).hexdigest()


def read_done(run_dir: str) -> Optional[dict]:
    try:
        with open(os.path.join(run_dir, DONE)) as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "exit_status" in data else None


def write_json_atomic(path: str, data: dict) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")
    os.replace(tmp, path)


def fmt_duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def log_tail(path: str) -> str:
    try:
        with open(path, errors="replace") as handle:
            lines = [line for line in handle.read().splitlines() if line.strip()]
    except OSError:
        return ""
    return "\n".join("    " + line for line in lines[-LOG_TAIL_LINES:])


class Progress:
    """Progress on stderr: a bar redrawn in place on a terminal, one line per point otherwise."""

    def __init__(self, total: int, jobs: int, quiet: bool, stream: IO[str] = sys.stderr):
        self.total, self.jobs, self.quiet, self.stream = total, jobs, quiet, stream
        self.tty = stream.isatty() and not quiet
        self.done = self.failed = self.running = 0
        self.start = time.monotonic()
        self.last_draw = 0.0
        self.drawn = False

    def eta(self) -> str:
        if not self.done:
            return "?"
        elapsed = time.monotonic() - self.start
        return fmt_duration(elapsed / self.done * (self.total - self.done))

    def line(self) -> str:
        width = 24
        filled = int(width * self.done / self.total) if self.total else width
        failed = f", {self.failed} failed" if self.failed else ""
        return (f"sweep: [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} done, "
                f"{self.running} running{failed}, ETA {self.eta()}")

    def draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.tty and (force or now - self.last_draw > 0.1):
            self.stream.write("\r" + self.line() + "\x1b[K")
            self.stream.flush()
            self.last_draw, self.drawn = now, True

    def clear(self) -> None:
        if self.tty and self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False

    def message(self, text: str, important: bool = False) -> None:
        """A line above the bar; unimportant ones only when there is no bar (logs)."""
        if self.quiet and not important:
            return
        if self.tty and not important:
            return
        self.clear()
        print(text, file=self.stream, flush=True)
        self.draw(force=True)

    def finish(self) -> None:
        self.draw(force=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


@dataclass
class Running:
    point: Point
    proc: subprocess.Popen
    start: float
    log: IO[str]


class Sweep:
    def __init__(self, out_dir: str, binary: str, scenario: str, fixed_sets: Sequence[str],
                 fixed_attrs: Sequence[str], points: Sequence[Point], jobs: int = 1,
                 timeout_s: Optional[float] = None, force: bool = False, quiet: bool = False):
        self.out_dir = out_dir
        self.runs_dir = os.path.join(out_dir, "runs")
        self.binary, self.scenario = binary, scenario
        self.fixed_sets, self.fixed_attrs = list(fixed_sets), list(fixed_attrs)
        self.points = list(points)
        self.jobs, self.timeout_s, self.force, self.quiet = max(1, jobs), timeout_s, force, quiet
        self.scenario_hash = file_hash(scenario)
        self.results: Dict[str, dict] = {}  # point name -> .done record (valid ones only)
        self.ran = 0
        self._lock_fd: Optional[int] = None

    # --- state of points -------------------------------------------------------------------

    def run_dir(self, point: Point) -> str:
        return os.path.join(self.runs_dir, point.name)

    def argv(self, point: Point) -> List[str]:
        return ([self.binary, self.scenario] + self.args(point)
                + ["--out", self.run_dir(point), "--quiet"])

    def args(self, point: Point) -> List[str]:
        return point.fabric_args(self.fixed_sets, self.fixed_attrs)

    def done_record(self, point: Point) -> Optional[dict]:
        """The point's .done if it belongs to the current options and scenario, else None."""
        done = read_done(self.run_dir(point))
        if not done or done.get("args") != self.args(point) \
                or done.get("scenario_sha1") != self.scenario_hash:
            return None
        return done

    def finished(self, point: Point) -> bool:
        done = self.done_record(point)
        return bool(done and done.get("status") in EXIT_STATUS.values()
                    and os.path.isfile(os.path.join(self.run_dir(point), "summary.json")))

    def collect_previous(self) -> List[Point]:
        """Record finished points; return the ones to run."""
        todo = []
        for point in self.points:
            if not self.force and self.finished(point):
                self.results[point.name] = self.done_record(point) or {}
            else:
                todo.append(point)
        return todo

    # --- locking ---------------------------------------------------------------------------

    def lock(self, shared: bool = False, block: bool = False) -> None:
        """One sweep per directory at a time (flock on the directory itself: no lock file).
        shared: Slurm array tasks of one sweep (slurm.py) run side by side, and exclude a local
        sweep; block: wait for the lock instead of failing. A file system without flock (some
        cluster file systems) leaves a shared lock untaken rather than failing the task."""
        os.makedirs(self.runs_dir, exist_ok=True)
        fd = os.open(self.out_dir, os.O_RDONLY)
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
                        | (0 if block else fcntl.LOCK_NB))
        except OSError as err:
            os.close(fd)
            if shared and err.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EINTR):
                return
            raise SweepError(f"another tools/sweep is running in {self.out_dir}")
        self._lock_fd = fd

    def unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # --- running ---------------------------------------------------------------------------

    def _start(self, point: Point) -> Running:
        run_dir = self.run_dir(point)
        if os.path.lexists(run_dir):  # stale or partial results of this point
            shutil.rmtree(run_dir)
        os.makedirs(run_dir)
        argv = self.argv(point)
        log = open(os.path.join(run_dir, LOG), "w")
        log.write("# " + shlex.join(argv) + "\n")
        log.flush()
        # run() blocks the stop signals around this call, and a child inherits the mask:
        # unblock them in the child, or it could not be stopped.
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True,
                                    preexec_fn=_unblock_stop_signals)
        except (OSError, subprocess.SubprocessError) as err:  # e.g. the binary being rebuilt
            log.write(f"sweep: cannot start {argv[0]}: {err}\n")
            log.close()
            raise StartFailure(f"cannot start {argv[0]}: {err}")
        return Running(point, proc, time.monotonic(), log)

    def _start_failed(self, point: Point, reason: str) -> dict:
        record = {"exit_status": 127, "status": "failed", "reason": reason, "elapsed_s": 0.0,
                  "args": self.args(point), "scenario": self.scenario,
                  "scenario_sha1": self.scenario_hash,
                  "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        write_json_atomic(os.path.join(self.run_dir(point), DONE), record)
        return record

    def _finish(self, job: Running, timed_out: bool) -> dict:
        job.log.close()
        rc = job.proc.returncode
        run_dir = self.run_dir(job.point)
        status = EXIT_STATUS.get(rc, "failed")
        reason = ""
        if timed_out:
            status, reason = "timeout", f"killed after {self.timeout_s:g} s"
        elif status != "failed" and not os.path.isfile(os.path.join(run_dir, "summary.json")):
            status, reason = "failed", "no summary.json written"
        elif status == "failed":
            reason = f"killed by signal {-rc}" if rc < 0 else f"exit status {rc}"
        record = {"exit_status": rc, "status": status, "reason": reason,
                  "elapsed_s": round(time.monotonic() - job.start, 4), "args": self.args(job.point),
                  "scenario": self.scenario, "scenario_sha1": self.scenario_hash,
                  "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        write_json_atomic(os.path.join(run_dir, DONE), record)
        return record

    @staticmethod
    def _signal_group(job: Running, sig: int) -> None:
        try:
            os.killpg(job.proc.pid, sig)  # its own session/group: wrapper scripts' children too
        except (ProcessLookupError, PermissionError):
            pass

    def _stop_all(self, running: List[Running]) -> None:
        """Terminate every running child: SIGTERM, then SIGKILL after a grace period."""
        for job in running:
            self._signal_group(job, signal.SIGTERM)
        deadline = time.monotonic() + KILL_GRACE_S
        for job in running:
            try:
                job.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self._signal_group(job, signal.SIGKILL)
                job.proc.wait()
            job.log.close()
            # No .done: the point is unfinished and runs again next time.

    def run(self, todo: Sequence[Point]) -> None:
        """Run the points, at most jobs at a time. Raises Interrupted after stopping children."""
        progress = Progress(len(todo), self.jobs, self.quiet)
        pending = list(todo)
        running: List[Running] = []

        def interrupt(signum, _frame):
            raise Interrupted(signal.Signals(signum).name)

        old = {s: signal.signal(s, interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}
        try:
            while pending or running:
                while pending and len(running) < self.jobs:
                    point = pending.pop(0)
                    # No interruption between starting a child and recording it as running.
                    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
                    try:
                        running.append(self._start(point))
                    except StartFailure as err:
                        record = self._start_failed(point, str(err))
                        self.results[point.name] = record
                        self.ran += 1
                        progress.done += 1
                        progress.failed += 1
                        progress.message(f"sweep: FAILED {point.name} ({err})", important=True)
                    finally:
                        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
                progress.running = len(running)
                progress.draw()
                time.sleep(POLL_S)
                for job in list(running):
                    timed_out = False
                    if job.proc.poll() is None:
                        if self.timeout_s and time.monotonic() - job.start > self.timeout_s:
                            self._signal_group(job, signal.SIGKILL)
                            job.proc.wait()
                            timed_out = True
                        else:
                            continue
                    running.remove(job)
                    record = self._finish(job, timed_out)
                    self.ran += 1
                    progress.done += 1
                    progress.running = len(running)
                    self.results[job.point.name] = record
                    if record["status"] in EXIT_STATUS.values():
                        progress.message(f"sweep: [{progress.done}/{progress.total}] "
                                         f"{job.point.name}: {record['status']} "
                                         f"({record['elapsed_s']:.2f} s)")
                    else:
                        progress.failed += 1
                        log = os.path.join(self.run_dir(job.point), LOG)
                        tail = log_tail(log)
                        progress.message(f"sweep: FAILED {job.point.name} ({record['reason']}); "
                                         f"log: {log}" + (f"\n{tail}" if tail else ""),
                                         important=True)
            progress.finish()
        except (KeyboardInterrupt, Interrupted) as err:
            progress.clear()
            what = "Ctrl-C" if isinstance(err, KeyboardInterrupt) else str(err)
            print(f"sweep: {what}: stopping {len(running)} running point(s)", file=sys.stderr,
                  flush=True)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut this
            try:
                self._stop_all(running)
            finally:
                signal.signal(signal.SIGINT, signal.default_int_handler)
            raise Interrupted(what)
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)

    def command_line(self, point: Point) -> str:
        return shlex.join(self.argv(point))
