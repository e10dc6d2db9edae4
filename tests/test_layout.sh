#!/bin/sh
# Layout checks (docs/ARCHITECTURE.md): libgpuprim.so exports exactly the gp_* functions gpuprim.h declares and holds
# none of the lab's versions or teaching kernels; the rooms' includes point only down; nothing in the repository cites
# a path outside it.
# $1: libgpuprim.so  $2: the source tree  $3: "cpu-only" for a build without the CUDA toolkit (no kernels to list)
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

# the teaching kernels of the vector and transpose progressions (lab/*_teaching.cuh) are not
# in the library either: it holds only the production versions
teach=$(nm -C "$so" | grep -E 'v0[123]_(single_thread|single_block|thread_per_element)|vec16_grid_stride|dot_block_chunk|dot_single_pass<[a-z ]+, 4>|t0[012]_(naive|copy)|t_tile<' | head -3)
[ -z "$teach" ] && ok || bad "teaching kernels inside $so: $teach"

# the f32 / f64 GEMM kernels in the library are its tuning table's six (gemm.cu, k_tuning and fallbacks), each in its
# four storage combinations; every other variant is the lab's (lab/gemm_variants.cu)
nm "$so" | grep -oE 'ZN5gemmk[0-9]+[a-z0-9_]+I([A-Za-z]+[0-9]+E)+E' | sed 's/^ZN5gemmk[0-9]*//' | sort -u >"$tmp/gemm"
[ "${3:-full}" = cpu-only ] || [ "$(grep -c . "$tmp/gemm")" -ge 24 ] && ok || bad "libgpuprim.so lists fewer GEMM kernels than production's 24: $(cat "$tmp/gemm" | tr '\n' ' ')"
variants=$(grep -vE '^(sgemm_128x128ILb[01]ELb[01]ELb1ELb1ELi[12]ELi2ELb0EE|sgemm_cpILi4ELi128ELi(256|64)ELb[01]ELb[01]ELi2EE|dgemm_dmmaILb[01]ELb[01]ELb1ELb1ELi8ELi128EE|dgemm_cpILi64ELi2ELb[01]ELb[01]EE|splitk_sum.*)$' "$tmp/gemm" | head -3)
[ -z "$variants" ] && ok || bad "GEMM variants inside $so (the lab's): $variants"

# the rooms (docs/ARCHITECTURE.md, "Rooms"): arrows only down, tools/gpuprim -> lab -> bench -> tools/support ->
# libgpuprim. includes DIR PATTERN-OF-FILES: the quoted headers those files include, one per line
includes() { (cd "$src/$1" && grep -hoE '^#include "[^"]+"' $2 2>/dev/null | sed 's/#include "\(.*\)"/\1/' | sort -u); }
only() { # label allowed-regex headers...
  label=$1 allowed=$2; shift 2
  extra=$(printf '%s\n' "$@" | grep -vxE "$allowed" | grep -v '^$' | tr '\n' ' ')
  [ -z "$extra" ] && ok || bad "$label includes $extra"
}
only "tools/support" 'gpuprim\.h|support\.h' $(includes tools/support '*.c *.h')
only "bench/ (suites, common, suites table)" 'gpuprim\.h|support\.h|bench\.h|peers\.h' \
  $(cd "$src/bench" && for f in *.c *.h; do case $f in harness.c|force.c|peers_dl.c) ;; *) grep -hoE '^#include "[^"]+"' "$f" | sed 's/#include "\(.*\)"/\1/';; esac; done)
only "bench/harness.c, force.c (the harness and the forcing reach the library's internals)" \
  'bench\.h|core/(internal|half)\.h|(histogram|matrix|scan)/[a-z_]+_internal\.h' $(includes bench 'harness.c force.c')
only "lab/" 'gpuprim\.h|support\.h|bench\.h|lab\.h|lab_versions\.h|memory\.h|[a-z_]+_teaching\.cuh|core/(internal|half)\.h|[a-z]+/[a-z_]+_(internal|kernels)\.(h|cuh)|matrix/gemm_launch\.cuh' \
  $(includes lab '*.c *.cu *.h')
only "tools/gpuprim" 'gpuprim\.h|support\.h|bench\.h|lab\.h|commands\.h|util\.h|input\.h|output\.h|pipeline\.h|group_run\.h|sort_external\.h|runs_stream\.h' \
  $(includes tools/gpuprim '*.c *.h')
labusers=$(cd "$src/tools/gpuprim" && grep -lE '^#include "lab\.h"' *.c *.h | grep -vx 'cmd_lab.c' | tr '\n' ' ')
[ -z "$labusers" ] && ok || bad "the lab is reached from the lab verb alone, but $labusers include lab.h"
cuda=$(cd "$src" && grep -lE '^#include <(cuda|cub|nccl|nvrtc)' tools/gpuprim/*.[ch] tools/support/*.[ch] bench/*.[ch] 2>/dev/null | head -3)
[ -z "$cuda" ] && ok || bad "CUDA headers outside the library and the lab: $cuda"
core=$(cd "$src/src/core" && grep -hoE '^#include "[^"]*/[^"]+"' *.c *.h *.cu 2>/dev/null | head -3)
[ -z "$core" ] && ok || bad "src/core includes a family's header (families attach to a context, gp__ctx_attach): $core"
up=$(cd "$src/src" && grep -rlE '^#include "(support|bench|lab|lab_versions|commands|util|peers)\.h"' . | head -3)
[ -z "$up" ] && ok || bad "the library includes a room's header: $up"

# no file cites a path outside the repository
outside=$(cd "$src" && git ls-files 2>/dev/null | grep -vE '^tests/test_layout.sh$' |
          xargs grep -l -E '\.\./shared/|/work/\.library' 2>/dev/null | head -5)
[ -z "$outside" ] && ok || bad "files citing paths outside the repository: $outside"

echo "layout: $pass passed, $fail failed"
[ "$fail" = 0 ]
