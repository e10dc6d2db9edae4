#!/bin/sh
# make fuzz: builds every libFuzzer target of tests/fuzz/ with clang (-std=c11 -fsanitize=fuzzer,address,undefined)
# into build-fuzz/ and runs each for FUZZ_SECONDS (default 60) from a copy of its seed corpus; new inputs found stay in
# build-fuzz/corpus-<target>/. Crashes are left as build-fuzz/crash-* with the target's report. Every target is built
# even when one fails to; the exit status is 0 only when every target built and ran clean.
#   sh scripts/fuzz.sh [--build-only] [BUILD]    BUILD: the build directory holding libgpuprim.a (default build)
# --build-only compiles and links every target and runs none (ctest's fuzz_build, so CI compiles them all). Needs
# clang (apt: clang); exit 77 without it. A CPU-only build (GP_CPU_ONLY) links no CUDA runtime.
set -u
cd "$(dirname "$0")/.."
only=0
[ "${1:-}" = "--build-only" ] && { only=1; shift; }
build=${1:-build}
secs=${FUZZ_SECONDS:-60}
cc=${FUZZ_CC:-clang}
command -v "$cc" >/dev/null 2>&1 || { echo "fuzz: $cc not found (apt-get install clang)" >&2; exit 77; }
lib=$build/libgpuprim.a
[ -f "$lib" ] || { echo "fuzz: build the library first (make build): no $lib" >&2; exit 2; }
out=${FUZZ_OUT:-build-fuzz}
mkdir -p "$out"
if grep -q '^GP_CPU_ONLY:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  cuda_inc="-Isrc/nocuda"; cuda_libs=""; nocuda=src/nocuda/nocuda.c
else
  cuda=${CUDA_HOME:-/usr/local/cuda}
  cuda_inc="-I$cuda/include"; cuda_libs="-L$cuda/lib64 -Wl,-rpath,$cuda/lib64 -lcudart"; nocuda=""
fi
flags="-std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude -Isrc -Isrc/core
       -Itools/gpuprim -Itools/support $cuda_inc"
# the targets: name, seed corpus, and the sources beside the target (the CLI pieces need the library, linked
# uninstrumented)
targets="npy_header:npy options:options input:npy uop_text:uop_text elf_imports:elf"
sources() {
  case $1 in
    npy_header) echo "src/io/npy.c src/core/status.c $nocuda" ;;
    options) echo "tools/support/options.c $lib" ;;
    input) echo "tools/support/options.c tools/support/device.c tools/support/report.c tools/gpuprim/input.c $lib" ;;
    *) echo "$lib" ;;
  esac
}
rc=0
built=""
for t in $targets; do
  name=${t%%:*}
  # shellcheck disable=SC2046,SC2086
  if $cc $flags "tests/fuzz/fuzz_$name.c" $(sources "$name") -o "$out/fuzz_$name" $cuda_libs -lm -fopenmp \
       >"$out/build-$name.log" 2>&1; then
    built="$built $t"
  else
    rc=1
    echo "fuzz: fuzz_$name did not build ($out/build-$name.log):"
    tail -20 "$out/build-$name.log"
  fi
done
if [ "$only" = 1 ]; then
  echo "fuzz: built:$built"
  exit $rc
fi
for t in $built; do
  name=${t%%:*}; seeds=tests/fuzz/corpus/${t#*:}
  mkdir -p "$out/corpus-$name"
  cp -n "$seeds"/* "$out/corpus-$name/" 2>/dev/null || true
  echo "fuzz: $name for $secs s"
  (cd "$out" && ./"fuzz_$name" -max_total_time="$secs" -close_fd_mask=2 -max_len=70000 "corpus-$name") \
    >"$out/$name.log" 2>&1 || { rc=1; echo "fuzz: $name FAILED ($out/$name.log)"; tail -30 "$out/$name.log"; }
  grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$out/$name.log" | tail -1
done
exit $rc
