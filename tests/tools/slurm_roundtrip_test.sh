#!/usr/bin/env bash
# Round trip of tools/sweep --slurm through a real Slurm: a private slurmctld and slurmd on this
# machine (Debian's slurm-wlm, installed here if missing), a 4-point sweep submitted as a job array
# and collected with --wait, the same points run locally, and the two sweep.csv compared on every
# column but the timing ones (wall_s, elapsed_s). Then a lost point: --collect reports it missing,
# and --slurm resubmits that point alone.
#
#   tests/tools/slurm_roundtrip_test.sh        exit 0 pass, 1 fail, 77 skip (no Slurm possible)
#
# Skipped only when Slurm cannot be had here at all (not root, no apt-get, the install failed).
# Once slurm-wlm is installed, a daemon that does not start is a failure like any other.
#
# Environment: FABRIC_RUN (default build/fabric-run), FABRIC_SLURM_AUTH=none|munge (default: none
# where Slurm still has the auth/none plugin, else a private munged), KEEP=1 keeps the temporary
# directory. The daemons run as root on ports of their own, with their state in the temporary
# directory; they are stopped on exit. Takes about 20 s (plus the install, once).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SWEEP="$ROOT/tools/sweep"
FABRIC_RUN=${FABRIC_RUN:-$ROOT/build/fabric-run}
SCENARIO=tests/data/scenarios/minimal.yaml
# shellcheck disable=SC2054  # the commas separate grid values
GRID=(--grid workload.senders=1,2 --grid workload.bytes_per_sender=8KiB,64KiB)
SKIP=77
START=$SECONDS

say() { printf 'slurm_roundtrip: %s\n' "$*" >&2; }
fail() { say "FAIL: $*"; exit 1; }
skip() { say "SKIP: $*"; exit "$SKIP"; }

# --- Slurm installed? -----------------------------------------------------------------------------
have_slurm() {
  local tool
  for tool in slurmctld slurmd sbatch squeue sinfo; do
    command -v "$tool" >/dev/null || return 1
  done
}
apt_install() {  # waits for another apt/dpkg to finish rather than failing at once
  apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=300 slurm-wlm
}
export PATH="$PATH:/usr/sbin:/sbin"
if ! have_slurm; then
  [ "$(id -u)" -eq 0 ] || skip "Slurm is not installed, and installing it (slurm-wlm) needs root"
  command -v apt-get >/dev/null || skip "Slurm is not installed and there is no apt-get"
  say "installing Debian's slurm-wlm (slurmctld, slurmd, client, munge)"
  export DEBIAN_FRONTEND=noninteractive
  APT_LOG=$(mktemp /tmp/slurm-roundtrip-apt.XXXXXX)
  if ! apt_install >"$APT_LOG" 2>&1; then
    apt-get update -q -o DPkg::Lock::Timeout=300 >>"$APT_LOG" 2>&1
    if ! apt_install >>"$APT_LOG" 2>&1; then
      tail -n 5 "$APT_LOG" >&2
      skip "apt-get install slurm-wlm failed (log: $APT_LOG)"
    fi
  fi
  rm -f "$APT_LOG"
  have_slurm || fail "slurm-wlm installed, but slurmctld/slurmd/sbatch are not on PATH"
fi
[ -x "$FABRIC_RUN" ] || fail "$FABRIC_RUN: not built (cmake --build build)"
# slurmctld and slurmd run as root here (SlurmUser=root): they need to, to start jobs as root.
[ "$(id -u)" -eq 0 ] || skip "the private slurmd needs root"

# --- a private cluster of one node ----------------------------------------------------------------
# Nothing of an enclosing Slurm job or configuration may leak into ours.
for var in $(compgen -e | grep '^SLURM_'); do unset "$var"; done
TMP=$(mktemp -d /tmp/slurm-roundtrip.XXXXXX)
PIDS=()
# shellcheck disable=SC2317  # invoked by the trap
cleanup() {
  local rc=$?
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  if [ "$rc" -ne 0 ] && [ "$rc" -ne "$SKIP" ] || [ -n "${KEEP:-}" ]; then
    say "files kept in $TMP"
  else
    rm -rf "$TMP"
  fi
  return "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}
CTLD_PORT=$(free_port)
SLURMD_PORT=$(free_port)
while [ "$SLURMD_PORT" = "$CTLD_PORT" ]; do SLURMD_PORT=$(free_port); done
NODE=$(hostname -s)
mkdir -p "$TMP/state" "$TMP/spool" "$TMP/log"

AUTH=${FABRIC_SLURM_AUTH:-}
if [ -z "$AUTH" ]; then
  # Slurm 22.05 (Debian 12) still ships auth/none; later releases dropped it: munge then.
  if compgen -G "/usr/lib/*/slurm-wlm/auth_none.so" >/dev/null \
      || compgen -G "/usr/lib/*/slurm/auth_none.so" >/dev/null; then
    AUTH=none
  else
    AUTH=munge
  fi
fi
if [ "$AUTH" = munge ]; then
  # A munged of our own (own key, own socket): the machine's munge is left alone.
  MUNGED=$(command -v munged || echo /usr/sbin/munged)
  [ -x "$MUNGED" ] || fail "Slurm needs munge here, and munged is not installed"
  mkdir -p "$TMP/munge"
  chmod 700 "$TMP/munge"
  if command -v mungekey >/dev/null; then
    mungekey --create --keyfile="$TMP/munge/munge.key" || fail "mungekey failed"
  else
    dd if=/dev/urandom of="$TMP/munge/munge.key" bs=1024 count=1 status=none
  fi
  chmod 400 "$TMP/munge/munge.key"
  "$MUNGED" --foreground --force --key-file="$TMP/munge/munge.key" \
    --socket="$TMP/munge/munge.socket" --pid-file="$TMP/munge/munged.pid" \
    --log-file="$TMP/log/munged.log" --seed-file="$TMP/munge/munged.seed" \
    >"$TMP/log/munged.out" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 50); do [ -S "$TMP/munge/munge.socket" ] && break; sleep 0.1; done
  if ! [ -S "$TMP/munge/munge.socket" ]; then
    cat "$TMP/log/munged.out" >&2
    fail "munged did not start"
  fi
  AUTH_LINES="AuthType=auth/munge
AuthInfo=socket=$TMP/munge/munge.socket
CredType=cred/munge"
else
  AUTH_LINES="AuthType=auth/none
CredType=cred/none"
fi

export SLURM_CONF="$TMP/slurm.conf"
cat >"$SLURM_CONF" <<EOF
# Written by tests/tools/slurm_roundtrip_test.sh: one node, this machine, for one test.
ClusterName=fabrictest
SlurmctldHost=localhost
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
$AUTH_LINES
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/log/slurmctld.log
SlurmdLogFile=$TMP/log/slurmd.log
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=256 State=UNKNOWN
PartitionName=test Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF

slurm_logs() {
  for f in "$TMP"/log/*; do
    [ -s "$f" ] && { say "--- $f (end)"; tail -n 15 "$f" >&2; }
  done
}
slurmctld -D -i >"$TMP/log/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -N "$NODE" >"$TMP/log/slurmd.out" 2>&1 &
PIDS+=($!)
state=""
for _ in $(seq 60); do
  state=$(sinfo --noheader --nodes="$NODE" --format=%t 2>/dev/null | tr -d '*[:space:]')
  [ "$state" = idle ] && break
  for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null || break 2; done  # a daemon died
  sleep 0.5
done
if [ "$state" != idle ]; then
  slurm_logs
  fail "the private slurmctld/slurmd did not come up (node state '${state:-none}'," \
    "auth/$AUTH)"
fi
say "slurmctld :$CTLD_PORT and slurmd :$SLURMD_PORT up, node $NODE idle, auth/$AUTH" \
  "($((SECONDS - START)) s)"

# --- the sweep through Slurm, and locally ---------------------------------------------------------
cd "$ROOT" || fail "cd $ROOT"
# A snapshot of fabric-run and the libraries it finds outside the system's (through RUNPATH, which
# LD_LIBRARY_PATH overrides): a rebuild of build/ during the test must not fail a point.
mkdir -p "$TMP/bin"
cp "$FABRIC_RUN" "$TMP/bin/fabric-run.bin"
ldd "$FABRIC_RUN" | awk '$2 == "=>" && $3 ~ /^\// && $3 !~ /^\/(usr\/)?lib/ {print $3}' \
  | while read -r lib; do cp "$lib" "$TMP/bin/"; done
cat >"$TMP/bin/fabric-run" <<WRAPPER
#!/bin/sh
LD_LIBRARY_PATH="$TMP/bin\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
exec "$TMP/bin/fabric-run.bin" "\$@"
WRAPPER
chmod +x "$TMP/bin/fabric-run"
"$TMP/bin/fabric-run" --help >/dev/null 2>&1 || fail "the copy of $FABRIC_RUN does not run"
FABRIC_RUN="$TMP/bin/fabric-run"
T1="$TMP/T1"
T2="$TMP/T2"
sweep() { timeout 150 "$SWEEP" "$SCENARIO" "${GRID[@]}" --fabric-run "$FABRIC_RUN" "$@"; }

sweep --slurm --wait --jobs 2 --time 00:05:00 --out "$T1" >"$TMP/slurm.out" 2>"$TMP/slurm.err"
rc=$?
cat "$TMP/slurm.err" >&2
if [ "$rc" -ne 0 ]; then
  slurm_logs
  cat "$TMP"/T1/slurm/logs/* >&2 2>/dev/null
  fail "--slurm --wait exited $rc"
fi
JOB=$(head -n 1 "$TMP/slurm.out")
[[ "$JOB" =~ ^[0-9]+$ ]] || fail "--slurm printed no job id first: $(cat "$TMP/slurm.out")"
[ "$(tail -n 1 "$TMP/slurm.out")" = "$T1/sweep.csv" ] || fail "--wait printed no table path"
for i in 0 1 2 3; do
  log="$T1/slurm/logs/${JOB}_$i.out"
  [ -f "$log" ] || fail "array task $i left no log ($log): did it run under Slurm?"
  grep -q -- "--run-point .* $i: .*(job $JOB, task $i" "$log" || fail "task $i log: $(cat "$log")"
done
runs=("$T1"/runs/*)
[ "${#runs[@]}" -eq 4 ] || fail "expected 4 run directories in $T1/runs: ${runs[*]}"
for d in "${runs[@]}"; do
  if ! [ -f "$d/.done" ] || ! [ -f "$d/summary.json" ] || ! [ -f "$d/run.log" ]; then
    fail "$d incomplete"
  fi
done
say "job $JOB: 4 points ran as array tasks ($((SECONDS - START)) s)"

sweep --jobs 1 --quiet --out "$T2" >/dev/null 2>"$TMP/local.err" \
  || { cat "$TMP/local.err" >&2; fail "the local sweep failed"; }

compare() {  # compare A B: the same rows but for the timing columns (run in tools/, the
  # package's directory, so that `python3 -` imports it)
  (cd "$ROOT/tools" && python3 - "$1" "$2") <<'EOF'
import sys
from fabrictools import rundir
from fabrictools.sweep import table
header, rows = rundir.read_table(sys.argv[1])
problems = table.differences(sys.argv[1], sys.argv[2])
if len(rows) != 4 or any(r["status"] != "ok" for r in rows):
    problems.append(f"expected 4 ok rows, got {[(r['point'], r['status']) for r in rows]}")
for problem in problems:
    print("  " + problem, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
}
compare "$T1/sweep.csv" "$T2/sweep.csv" || fail "sweep.csv through Slurm differs from the local one"
say "sweep.csv through Slurm equals the local one (but for wall_s, elapsed_s)"
# The run.log files name the same command.
for d in "$T2"/runs/*; do
  p=$(basename "$d")
  local_cmd=$(head -n 1 "$d/run.log" | sed "s|$T2|OUT|g")
  slurm_cmd=$(head -n 1 "$T1/runs/$p/run.log" | sed "s|$T1|OUT|g")
  [ "$local_cmd" = "$slurm_cmd" ] \
    || fail "$p: run.log commands differ"
done

# --- collect again; lose a point; resubmit only it ------------------------------------------------
cp "$T1/sweep.csv" "$TMP/first.csv"
if ! sweep --collect --out "$T1" >/dev/null 2>"$TMP/collect.err"; then
  cat "$TMP/collect.err" >&2
  fail "--collect failed"
fi
cmp -s "$T1/sweep.csv" "$TMP/first.csv" || fail "--collect wrote a different sweep.csv"

LOST="senders=2,bytes_per_sender=8KiB"
rm "$T1/runs/$LOST/.done"
sweep --collect --out "$T1" >/dev/null 2>"$TMP/collect.err"
rc=$?
[ "$rc" -eq 1 ] || fail "--collect with a point missing exited $rc, expected 1"
if ! grep -q "1 point(s) missing" "$TMP/collect.err" \
    || ! grep -q "\[task 2\] $LOST" "$TMP/collect.err"; then
  cat "$TMP/collect.err" >&2
  fail "--collect did not report the missing point"
fi

sweep --slurm --wait --out "$T1" >"$TMP/slurm2.out" 2>"$TMP/slurm2.err"
rc=$?
cat "$TMP/slurm2.err" >&2
[ "$rc" -eq 0 ] || { slurm_logs; fail "resubmission exited $rc"; }
JOB2=$(head -n 1 "$TMP/slurm2.out")
grep -q -- "--array=2$" "$T1/slurm/job.sh" \
  || fail "the resubmission was not of point 2 alone: $(grep array "$T1/slurm/job.sh")"
logs2=("$T1/slurm/logs/${JOB2}"_*)
[ "${#logs2[@]}" -eq 1 ] || fail "job $JOB2 ran other than one task: ${logs2[*]}"
compare "$T1/sweep.csv" "$T2/sweep.csv" || fail "after the resubmission sweep.csv differs"

out=$(sweep --slurm --out "$T1" 2>&1) || fail "--slurm with every point finished failed: $out"
echo "$out" | grep -q "nothing to submit" || fail "--slurm submitted finished points: $out"

say "PASS ($((SECONDS - START)) s)"
exit 0
