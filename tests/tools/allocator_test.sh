#!/usr/bin/env bash
# fabric-run links the allocator its build chose (FABRIC_MALLOC in contrib/fabric/CMakeLists.txt):
# the dynamic loader resolves that library, and only that one of jemalloc and tcmalloc; "system"
# means neither. Usage: allocator_test.sh FABRIC_RUN jemalloc|tcmalloc|system
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
echo "ok: $1 links $2"
