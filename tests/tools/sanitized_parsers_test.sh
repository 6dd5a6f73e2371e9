#!/usr/bin/env bash
# The input parsers (scenario, topology, HPCC formats) built with clang under ASan and UBSan,
# replaying the fuzz corpus (fuzz/corpus: shipped examples, every malformed file of
# tests/data/bad, and inputs fuzzing found). Any sanitizer report or crash fails the test.
# The build lives in build-fuzz/ (as ./fabric fuzz uses it) and is reused.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "clang or its fuzzer runtime (libclang-rt-14-dev) is missing: skipped"
  exit 77
fi
build="$root/build-fuzz"
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFABRIC_FUZZ=ON >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target fuzz-scenario fuzz-topology fuzz-hpcc >/dev/null
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
for target in scenario topology hpcc; do
  # -runs=0 replays every corpus file once (no mutation).
  "$build/fuzz-$target" -runs=0 "$root/fuzz/corpus/$target" 2>&1 | tail -3
done
echo "parsers clean under ASan/UBSan on the corpus"
