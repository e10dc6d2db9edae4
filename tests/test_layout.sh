#!/bin/sh
# Layout checks (docs/ARCHITECTURE.md): libgpuprim.so exports exactly the gp_* functions gpuprim.h declares, holds none
# of the lab's versions or teaching kernels, the CLI includes only gpuprim.h and lab/lab.h, and nothing in the
# repository cites a path outside it.
# $1: libgpuprim.so  $2: the source tree
set -u
so=$1 src=$2
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
command -v nm >/dev/null || { echo "layout: SKIPPED: no nm"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$so" | awk '{print $NF}' | sort -u >"$tmp/exported"
grep -oE '\bgp_[a-z0-9_]+[[:space:]]*\(' "$src/include/gpuprim.h" | tr -d '( \t' | sort -u >"$tmp/declared"
[ -s "$tmp/exported" ] && ok || bad "nm -D lists nothing for $so"
extra=$(comm -23 "$tmp/exported" "$tmp/declared")
[ -z "$extra" ] && ok || bad "exported but not declared in gpuprim.h: $(echo $extra | head -c 400)"
missing=$(comm -13 "$tmp/exported" "$tmp/declared" | while read -r f; do
    grep -qE "^GP_API[^;]*\b$f\(|^GP_API[^;]*\b$f *\($" "$src/include/gpuprim.h" 2>/dev/null && echo "$f"; done)
[ -z "$missing" ] && ok || bad "declared GP_API but not exported: $missing"

# the lab's versions that live in lab/ are not in the library users link
lab=$(nm -C "$so" | grep -E 'reduce_v[0-9][0-9]_|sgemm_v[0-9][0-9]_|lab_(reduce|gemm|vec|topic)|\blm_[a-z]|bench_(time|ceilings)|report_(init|print)' | head -3)
[ -z "$lab" ] && ok || bad "lab code inside $so: $lab"

# the teaching kernels of the vector and transpose progressions (src/*/…_kernels.cuh, instantiated by lab/) are not
# in the library either: it holds only the production versions
teach=$(nm -C "$so" | grep -E 'v0[123]_(single_thread|single_block|thread_per_element)|vec16_grid_stride|dot_block_chunk|dot_single_pass<[a-z ]+, 4>|t0[012]_(naive|copy)|t_tile<' | head -3)
[ -z "$teach" ] && ok || bad "teaching kernels inside $so: $teach"

# the CLI builds on the public header and the lab's one header: no internal header, no CUDA header
cli=$(cd "$src/tools/gpuprim" && grep -hE '^#include "' *.c *.h | grep -vE '"(gpuprim|lab|commands|util|input|output|pipeline|group_run)\.h"' | head -3)
cuda=$(cd "$src/tools/gpuprim" && grep -hE '^#include <(cuda|cub|nccl)' *.c *.h | head -3)
[ -z "$cli$cuda" ] && ok || bad "tools/gpuprim includes more than gpuprim.h and lab.h: $cli $cuda"

# no file cites a path outside the repository
outside=$(cd "$src" && git ls-files 2>/dev/null | grep -vE '^tests/test_layout.sh$' |
          xargs grep -l -E '\.\./shared/|/work/\.library' 2>/dev/null | head -5)
[ -z "$outside" ] && ok || bad "files citing paths outside the repository: $outside"

echo "layout: $pass passed, $fail failed"
[ "$fail" = 0 ]
