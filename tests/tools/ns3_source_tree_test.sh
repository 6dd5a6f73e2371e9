#!/usr/bin/env bash
# contrib/fabric dropped into an ns-3.37 source tree's contrib/ and built by ns-3's own ./ns3
# (configure with only the fabric module, which pulls in the modules it links; no examples, no
# tests), then the fabric-run it builds (build_lib_example) on a 2-sender incast: both flows
# deliver their 4 MiB, and every trace is byte-identical to the stand-alone build's
# (tests/CMakeLists.txt passes build/fabric-run as $1).
#
# The tree comes from Debian's source package (tools/fetch-ns3-source, as tools/build-ns3-source
# gets it) and stays, with its build, in ${FABRIC_NS3_CACHE:-~/.cache/ns3-fabric}/dropin: a second
# run rebuilds only what changed in the module. Clones sharing the cache take turns (a lock).
# Exit 77 (skipped) only when the source package cannot be fetched.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 1 ] || { echo "usage: ns3_source_tree_test.sh STAND_ALONE_FABRIC_RUN" >&2; exit 2; }
[ -x "$1" ] || { echo "$1: not built"; exit 1; }
standalone_run=$(realpath "$1") # the test changes directory
cache=${FABRIC_NS3_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ns3-fabric}
work="$cache/dropin"
mkdir -p "$work"
exec 9>"$work/.lock"
flock 9

status=0
tree=$("$root/tools/fetch-ns3-source" --into "$work") || status=$?
if [ "$status" -eq 69 ]; then
  echo "the ns3 source package (Debian ns3 3.37-2) cannot be fetched: skipped"
  exit 77
fi
[ "$status" -eq 0 ] || { echo "tools/fetch-ns3-source failed (exit $status)"; exit 1; }

# Copy the module, rewriting only files whose content differs (and deleting files gone from the
# clone): fresh modification times on exactly the changed files, so the build redoes exactly
# what changed, whichever clone ran last.
sync_module() {
  local from=$1 to=$2 f
  mkdir -p "$to"
  while IFS= read -r -d '' f; do
    if ! cmp -s "$from/$f" "$to/$f"; then
      mkdir -p "$(dirname "$to/$f")"
      cp "$from/$f" "$to/$f"
    fi
  done < <(cd "$from" && find . -type f -print0)
  while IFS= read -r -d '' f; do
    [ -e "$from/$f" ] || rm -f "$to/$f"
  done < <(cd "$to" && find . -type f -print0)
}
sync_module "$root/contrib/fabric" "$tree/contrib/fabric"

cd "$tree"
# ns-3's CMakeLists points ccache at sloppy settings with `ccache --set-config`: keep that (and
# the objects) in a ccache directory of this tree rather than the user's.
export CCACHE_DIR="$work/ccache"
# ./ns3 refuses to run when USER is root (so that `sudo ./ns3` cannot leave root-owned files in
# a user's tree); this tree belongs to whoever runs the test, root included.
[ "${USER:-}" = root ] && export USER=ns3-fabric-test

# Debug profile: -O0 compiles quickly from cold, and ns-3's asserts and logs are compiled in
# (with -Werror, as ns-3 sets whenever a profile is given).
configure=(configure -d debug --enable-modules=fabric --disable-examples --disable-tests
  --disable-python-bindings)
# Configure again only when the options changed: ./ns3 build re-runs CMake by itself when a
# CMakeLists.txt changes or a source file appears.
if [ "$(cat cmake-cache/.fabric-configure 2>/dev/null)" != "${configure[*]}" ]; then
  rm -rf cmake-cache build
  ./ns3 "${configure[@]}"
  echo "${configure[*]}" > cmake-cache/.fabric-configure
fi
# Only what fabric-run needs (not ns-3's test library, scratch/ and utils/). ./ns3 builds with
# at most nproc - 1 jobs (1 on 2 cores): about 7 minutes from cold, seconds when warm.
./ns3 build fabric-run

modules=$(./ns3 show config | sed -n '/Modules configured to be built/,/^$/p' | tr -s ' \n' ' ')
echo "ns-3 modules built: $modules"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run=("$root/examples/incast.yaml" --set workload.senders=2 --set stop_time=2ms --quiet)
./ns3 run --no-build fabric-run -- "${run[@]}" --out "$out/ns3-tree"
[ -s "$out/ns3-tree/flows.csv" ] || { echo "fabric-run wrote no flows.csv"; exit 1; }

# Two flows (senders=2), each delivering bytes_per_sender = 4 MiB of examples/incast.yaml.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  { rows++; if ($col["delivered_bytes"] != 4194304 || $col["finish_ns"] == "") bad++ }
  END { if (rows != 2 || bad) { printf "flows.csv: %d flows, %d without their 4 MiB delivered\n", rows, bad; exit 1 } }' \
  "$out/ns3-tree/flows.csv"

# The same simulation as the stand-alone build: the traces are byte-identical (summary.json
# differs in wall time and revision).
"$standalone_run" "${run[@]}" --out "$out/standalone"
traces=$(cd "$out/standalone" && ls -- *.csv)
[ "$traces" = "$(cd "$out/ns3-tree" && ls -- *.csv)" ] ||
  { echo "the two builds wrote different trace files"; exit 1; }
for trace in $traces; do
  cmp "$out/standalone/$trace" "$out/ns3-tree/$trace" ||
    { echo "$trace differs from the stand-alone build's"; exit 1; }
done
echo "fabric-run built inside the ns-3.37 tree: 2 flows of 4 MiB, traces identical to the stand-alone build's"
