#!/bin/sh
# startup.sh GPUPRIM — where the time of a short `gpuprim reduce FILE` goes on this machine: process start (version),
# device discovery (info), and a 1 GiB u32 file reduced end to end on the GPU and on the CPU backend, with the
# streaming part apart (stream_seconds in --json). Three runs each; the file is made in $TMPDIR and removed.
set -u
g=${1:-build/gpuprim}
f=${TMPDIR:-/tmp}/gpuprim_startup.u32
head -c 1073741824 /dev/urandom >"$f" 2>/dev/null || dd if=/dev/urandom of="$f" bs=1M count=1024 2>/dev/null
cat "$f" >/dev/null # in the page cache, as the issue measured
t() { s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); awk "BEGIN { printf \"%.3f\", $e - $s }"; }
for k in 1 2 3; do echo "version (process start)   : $(t "$g" version) s"; done
for k in 1 2 3; do echo "info (device discovery)   : $(t "$g" info) s"; done
# -d 0: the CPU reduces the head of the file while the context starts (cpu_head_elements), --no-overlap waits
for d in "0" "0 --no-overlap" cpu auto; do
  for k in 1 2 3; do
    s=$(date +%s.%N)
    j=$("$g" reduce "$f" --dtype u32 --op sum -d $d --json 2>/dev/null)
    e=$(date +%s.%N)
    echo "reduce 1 GiB u32 -d $d: wall $(awk "BEGIN { printf \"%.3f\", $e - $s }") s; $(echo "$j" | sed 's/.*"seconds": \([0-9.]*\).*"stream_seconds": \([0-9.]*\).*"context_seconds": \([0-9.]*\).*"startup_seconds": \([0-9.]*\).*"cpu_head_elements": \([0-9]*\).*"device": "\([^,"]*\).*/in-process \1 s, streaming \2 s, context \3 s, to the first chunk \4 s, CPU head \5 elements (\6)/')"
  done
done
rm -f "$f"
# the phases of a GPU start-up, from a probe built against the CUDA runtime
if command -v nvcc >/dev/null 2>&1; then
  d=$(dirname "$0")
  nvcc -O2 -x cu -o "${TMPDIR:-/tmp}/startup_probe" "$d/startup_probe.c" -lcudart 2>/dev/null && "${TMPDIR:-/tmp}/startup_probe"
fi
