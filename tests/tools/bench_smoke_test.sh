#!/bin/bash
# Every benchmark scenario (and every htsim twin) still loads, builds its fabric and runs (20 us of simulated time)
# with conservation holding, so the benchmarks cannot rot between benchmark runs. A scenario
# may name other smoke-size settings in a "# smoke-set: key=value ..." line (applied after).
# Usage: bench_smoke_test.sh BUILD_DIR
set -u
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for scenario in "$root"/bench/scenarios/*.yaml "$root"/bench/htsim/*.yaml; do
    name=$(basename "$scenario" .yaml)
    sets=(--set stop_time=20us)
    for kv in $(sed -n 's/^# smoke-set: //p' "$scenario"); do
        sets+=(--set "$kv")
    done
    if ! "$build/fabric-run" "$scenario" "${sets[@]}" --out "$out/$name" --quiet \
        > "$out/$name.log" 2>&1; then
        echo "FAIL $name: fabric-run exited non-zero"; cat "$out/$name.log"; status=1; continue
    fi
    if ! grep -q '"conservation_ok": true' "$out/$name/summary.json"; then
        echo "FAIL $name: conservation_ok is not true"; status=1; continue
    fi
    echo "ok   $name"
done
exit $status
