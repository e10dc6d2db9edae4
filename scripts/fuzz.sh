#!/bin/sh
# make fuzz: builds the libFuzzer targets of tests/fuzz/ with clang (-fsanitize=fuzzer,address,undefined) into
# build-fuzz/ and runs each for FUZZ_SECONDS (default 60) from a copy of its seed corpus; new inputs found stay in
# build-fuzz/corpus-<target>/. Crashes are left as build-fuzz/crash-* with the target's report. Needs clang (apt:
# clang) and the CUDA runtime library (for the status strings). Exit 0 when every target ran clean.
set -eu
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-60}
cc=${FUZZ_CC:-clang}
command -v "$cc" >/dev/null 2>&1 || { echo "fuzz: $cc not found (apt-get install clang)" >&2; exit 2; }
cuda=${CUDA_HOME:-/usr/local/cuda}
out=build-fuzz
mkdir -p "$out"
flags="-std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude -Isrc -Isrc/core
       -Itools/gpuprim -Itools/support -I$cuda/include"
libs="-L$cuda/lib64 -Wl,-rpath,$cuda/lib64 -lcudart -lm"
# The CLI pieces need the library; it is built by `make build` (libgpuprim.a) and linked uninstrumented.
lib=build/libgpuprim.a
[ -f "$lib" ] || { echo "fuzz: build the library first (make build)" >&2; exit 2; }
build() { # name sources...
  name=$1; shift
  # shellcheck disable=SC2086
  $cc $flags "tests/fuzz/fuzz_$name.c" "$@" -o "$out/fuzz_$name" $libs -fopenmp
}
build npy_header src/io/npy.c src/core/status.c
build options tools/support/options.c "$lib"
build input tools/support/options.c tools/support/device.c tools/support/report.c tools/gpuprim/util.c \
  tools/gpuprim/input.c "$lib"
build uop_text "$lib"
rc=0
for t in npy_header:npy options:options input:npy uop_text:uop_text; do
  name=${t%%:*}; seeds=tests/fuzz/corpus/${t#*:}
  mkdir -p "$out/corpus-$name"
  cp -n "$seeds"/* "$out/corpus-$name/" 2>/dev/null || true
  echo "fuzz: $name for $secs s"
  (cd "$out" && ./"fuzz_$name" -max_total_time="$secs" -close_fd_mask=2 -max_len=70000 "corpus-$name") \
    >"$out/$name.log" 2>&1 || { rc=1; echo "fuzz: $name FAILED (build-fuzz/$name.log)"; tail -30 "$out/$name.log"; }
  grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$out/$name.log" | tail -1
done
exit $rc
