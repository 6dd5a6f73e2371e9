#!/usr/bin/env bash
# fabric-run links the allocator its build chose (FABRIC_MALLOC in contrib/fabric/CMakeLists.txt):
# the dynamic loader resolves that library, and only that one of jemalloc and tcmalloc; "system"
# means neither. With jemalloc, jemalloc takes the options fabric-run gives it (malloc_conf). Usage: allocator_test.sh FABRIC_RUN jemalloc|tcmalloc|system
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: allocator_test.sh FABRIC_RUN jemalloc|tcmalloc|system" >&2; exit 2; }
libs=$(ldd "$1")
has() { grep -q "lib$1" <<<"$libs"; }
case "$2" in
  jemalloc) has jemalloc && ! has tcmalloc ;;
  tcmalloc) has tcmalloc && ! has jemalloc ;;
  system) ! has jemalloc && ! has tcmalloc ;;
  *) echo "unknown allocator '$2'"; exit 2 ;;
esac || { echo "FAIL: $1 should link $2; it loads:"; echo "$libs"; exit 1; }
if [ "$2" = jemalloc ]; then
  # fabric-run's malloc_conf asks for transparent huge pages; jemalloc confirms each option it
  # takes (to stderr, before fabric-run refuses the unknown option).
  conf=$(MALLOC_CONF=confirm_conf:true "$1" --bogus 2>&1 || true)
  for option in thp:always metadata_thp:always; do
    grep -q "Set conf value: $option" <<<"$conf" ||
      { echo "FAIL: jemalloc did not take $option from fabric-run's malloc_conf:"; echo "$conf"; exit 1; }
  done
fi
echo "ok: $1 links $2"
