#!/bin/bash
# device_check.sh — everything a GPU machine must confirm, in one call: build from source, the ctest suite (GPU
# tests run), compute-sanitizer, the benches and the lab. Full logs go to $OUT (default ./device-out); a short summary
# is printed last.
#   scripts/device_check.sh [build|test|histtest|sanitize|bench|hist|stream]...   (default: build test bench)
#   histtest: the histogram tests only; SAN_FILTER=REGEX: only the sanitizer runs whose line matches; hist: the
#   histogram bench and lab (hist.txt); matrix: bench transpose / gemm and lab transpose / gemm (matrix.txt); labs:
#   every lab topic, lab memory timed, the benches of the moved verbs (labs.txt, lab_memory.json/.svg); concurrency:
#   issue 13's GPU tests, sanitizers, bench graph and lab concurrency (concurrency.txt, lab_concurrency.json/.svg);
#   select: issue 14's select tests, sanitizers and bench (select.txt); selab: select.cu's tuning knobs A/B (selab.txt);
#   oscan: the ordered scans' tests, sanitizers and bench scan (oscan.txt); narrow: gpu_scan / test_scan, bench scan,
#   sanitizers over gpu_scan (narrow.txt); jit: issue 15's user operators, sanitizers, CLI, bench jit (jit.txt);
#   prof: Nsight Compute over the scan kernels (prof.txt); tc: issue 17's tensor-core GEMM tests, sanitizers, bench
#   gemm --precision (tc.txt); group: issue 16's sharded primitives, sanitizers, CLI --devices, bench group
#   (group.txt); tf32: the TF32 tests, memcheck, bench and lab (tf32.txt); gemmall: bench gemm, every row (gemm.txt); fp64:
#   the FP64 tests, sanitizers and Nsight Compute (fp64.txt); tclab: lab gemm --precision bf16 / fp16 /
#   tf32 (tclab.txt); tcprof: Nsight Compute over BF16 4096^3,
#   ours and cuBLAS's kernels (tcprof.txt); tfam: TF32's MN-major operand through registers and FP32 n <= 64
#   (tfam.txt); tfsan: sanitizers over the TMA 128 x 256 choice (tfsan.txt); s16: the persistent grid's tests and
#   sanitizers, bench gemm (alternating) and the tensor-core lab (s16.txt); s16san: sanitizers over the production
#   choice and TMA shapes 4-6, bench gemm again (s16san.txt); s16b: ctest matrix and bench gemm after the batch's
#   tile-shape choice (s16b.txt); cli: the CLI's NumPy / output / operator-safety tests on GPU 0 and the histogram,
#   matrix and user-operator GPU tests (cli.txt); clisan: their sanitizers (clisan.txt); clibench: bench histogram /
#   transpose and the file-speed table (clibench.txt); files: every streaming verb on 1 GiB in the page cache, GPU
#   (CPU head start) vs --device cpu vs NumPy (files.txt); headsan: memcheck over the scanner hand-over and the CLI's
#   head start (headsan.txt).
# Files written (at most 8, for the device tool): build.log ctest.log sanitizer.log results.txt bench.json
# vector.svg reduce.svg demo.txt.
set -u
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
B=build-device
steps=${*:-build test bench}
summary=()
note() { summary+=("$*"); echo ">>> $*"; }
# compute-sanitizer TOOL over gpu_matrix (quick sizes), the tensor-core kernel choices PATHS ("-": all), at most
# SECONDS; prints the summary lines and "exit RC"
san_matrix() {
  local p=$2; [ "$p" = - ] && p=""
  echo "### compute-sanitizer $1 gpu_matrix (quick, GP_TEST_TC_PATHS=${p:-all})"
  env GP_TEST_QUICK=1 ${p:+GP_TEST_TC_PATHS=$p} timeout "$3" compute-sanitizer --tool "$1" --error-exitcode 9 \
    $B/tests/gpu_matrix 2>&1 | grep -E "^=========|gpu_matrix: [0-9]|gemm_ex|variant" |
    grep -vE "^=========     (Host Frame|at |by )" | head -12
  echo "exit ${PIPESTATUS[0]}"
}

# ctest over the matrix tests, verbose lines matching REGEX (the last 30)
ctest_matrix() {
  echo "### ctest matrix"
  (cd $B && ctest -V --timeout 600 -R 'matrix' | grep -E "$1|FAIL|passed|failed|skipped" | tail -30)
}

if [[ " $steps " == *" build "* ]]; then
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
    nvcc --version | tail -2
    cmake --version | head -1
    gen=""; command -v ninja >/dev/null && gen="-G Ninja"
    t0=$(date +%s)
    cmake -S . -B $B $gen -DCMAKE_BUILD_TYPE=Release && cmake --build $B -j "$(nproc)"
    echo "build seconds: $(( $(date +%s) - t0 ))"
    o=$(find $B -name 'vector_versions.cu.o' | head -1) # the lab's table instantiates every version
    if command -v cuobjdump >/dev/null && [ -n "$o" ]; then
      echo "--- SASS memory instructions per vector kernel (f32 triad and dot)"
      cuobjdump -sass "$o" | awk '/Function :/ {f=$3} {for (i = 1; i <= NF; i++) if ($i ~ /^(LDG|STG)/) c[f " " $i]++}
        END {for (k in c) print c[k], k}' | grep -E 'ILi3EfE|ILi3EfLb|dot.*IfE' | sort -k2
      cuobjdump -res-usage "$o" | grep -A1 -E 'ILi3EfE|ILi3EfLb|dot.*IfE' | grep -E 'Function|REG' | paste - - | head -20
    fi
  } >"$OUT/build.log" 2>&1
  rc=$?
  if [ $rc != 0 ] || [ ! -x $B/gpuprim ]; then
    tail -40 "$OUT/build.log"
    echo "BUILD FAILED"
    exit 1
  fi
  note "build: ok ($(grep 'build seconds' "$OUT/build.log"))"
fi

if [[ " $steps " == *" test "* ]]; then
  (cd $B && ctest -V --timeout 900) >"$OUT/ctest.log" 2>&1
  note "ctest: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"
  grep -E '(test_|gpu_|cli|install).*(passed|SKIPPED)|n = 2\^32|n > 2\^32|FAIL' "$OUT/ctest.log" | head -40
fi

if [[ " $steps " == *" histtest "* ]]; then
  (cd $B && ctest -V --timeout 900 -R "${TEST_FILTER:-histogram|cli}") >"$OUT/ctest.log" 2>&1
  note "ctest (histogram, cli): $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"
  grep -E '^[0-9]+: +|FAIL|passed, [0-9]+ failed' "$OUT/ctest.log" | grep -E 'gpu_histogram|test_histogram|FAIL|ok$|: [a-z0-9 ]+' | head -40
fi

if [[ " $steps " == *" sanitize "* ]]; then
  : >"$OUT/sanitizer.log"
  # memcheck over everything (quick sizes); racecheck and synccheck over the kernels with shared memory and
  # barriers (the dot versions). Columns: tool, test, GP_TEST_FILTER (- for none), time limit in seconds.
  while read -r tool t filter limit extra; do
    if [ -n "${SAN_FILTER:-}" ] && ! [[ "$tool $t" =~ $SAN_FILTER ]]; then continue; fi
    echo "=== compute-sanitizer --tool $tool $t (filter: $filter)" >>"$OUT/sanitizer.log"
    f=$filter; [ "$f" = - ] && f=""
    env GP_TEST_QUICK=1 ${f:+GP_TEST_FILTER=$f} timeout "$limit" compute-sanitizer --tool "$tool" \
      --error-exitcode 9 $extra $B/tests/$t >>"$OUT/sanitizer.log" 2>&1
    rc=$?
    note "compute-sanitizer $tool $t ${filter}: exit $rc, $(grep -E '(ERROR|RACECHECK) SUMMARY' "$OUT/sanitizer.log" | tail -1)"
  done <<'LIST'
memcheck gpu_vector - 200
memcheck gpu_core - 100 --report-api-errors=no
memcheck gpu_reduce - 150
racecheck gpu_vector dot 100
racecheck gpu_reduce - 150
synccheck gpu_vector dot 80
synccheck gpu_reduce - 120
memcheck gpu_ordered - 150
racecheck gpu_ordered - 150
synccheck gpu_ordered - 120
memcheck gpu_histogram - 300
racecheck gpu_histogram - 300
synccheck gpu_histogram - 200
memcheck gpu_matrix - 200
racecheck gpu_matrix - 200
synccheck gpu_matrix - 200
memcheck gpu_graph - 200
racecheck gpu_graph - 300
synccheck gpu_graph - 200
memcheck gpu_scan - 300
racecheck gpu_scan - 300
synccheck gpu_scan - 200
memcheck gpu_scan_ordered - 300
racecheck gpu_scan_ordered - 300
synccheck gpu_scan_ordered - 200
memcheck gpu_select - 300
racecheck gpu_select - 300
memcheck gpu_lab_concurrency - 300
racecheck gpu_lab_concurrency - 300
memcheck gpu_lab_memory - 300
racecheck gpu_lab_memory - 300
synccheck gpu_lab_memory - 200
LIST
fi

if [[ " $steps " == *" bench "* ]]; then
  G=$B/gpuprim
  {
    echo "### gpuprim info"; $G info
    if [ "${BENCH_VECTOR:-0}" = 1 ]; then
      echo; echo "### gpuprim bench vector --dtype all"; $G bench vector --dtype all --svg "$OUT/vector.svg"
      echo; echo "### gpuprim bench vector (again: run-to-run spread)"; $G bench vector
      echo; echo "### gpuprim lab vector --op all -n 2^28"; $G lab vector --op all -n 2^28 --reps 10
      echo; echo "### gpuprim lab vector --op all -n 2^20 (small: launch-bound)"; $G lab vector --op all -n 2^20
      echo; echo "### gpuprim bandwidth"; $G bandwidth
    fi
    echo; echo "### gpuprim lab reduce"; $G lab reduce
    echo; echo "### gpuprim lab reduce -n 2^28"; $G lab reduce -n 2^28
    echo; echo "### gpuprim bench reduce"; $G bench reduce --svg "$OUT/reduce.svg"
    echo; echo "### gpuprim bench reduce (again: spread)"; $G bench reduce
    echo; echo "### gpuprim bandwidth --kind pinned (the H2D reference of the streaming reduce)"; $G bandwidth --kinds pinned -b 256M -e 256M 2>&1 | tail -6
  } >"$OUT/results.txt" 2>&1
  $G bench vector --dtype all --json >"$OUT/bench.json" 2>&1
  t0=$SECONDS
  $G demo >"$OUT/demo.txt" 2>&1
  rc=$?
  echo "demo seconds: $((SECONDS - t0))" >>"$OUT/demo.txt"
  note "demo: exit $rc, $(tail -1 "$OUT/demo.txt")"
  grep -E "^(triad|dot|ceiling)" "$OUT/results.txt" | head -8
  grep -E "^(sum|max|min|mat2|mat3|mat4|affine|seg)" "$OUT/results.txt" | tail -24
  sed -n '/### gpuprim lab reduce -n 2^28/,/### gpuprim bench reduce$/p' "$OUT/results.txt" | grep -E "^[0-9][0-9] "
fi

if [[ " $steps " == *" hist "* ]]; then
  G=$B/gpuprim
  {
    echo "### gpuprim bench histogram"; $G bench histogram --svg "$OUT/histogram.svg"
    echo; echo "### gpuprim bench histogram (again: spread)"; $G bench histogram
    echo; echo "### gpuprim lab histogram (f32)"; $G lab histogram --bins 256,4096,65536,1048576
    echo; echo "### gpuprim lab histogram --dtype u8"; $G lab histogram --dtype u8 --bins 256,1024
    echo; echo "### gpuprim lab histogram --skew"; $G lab histogram --skew --bins 256,4096,65536,1048576
    echo; echo "### gpuprim lab histogram --dtype u8 --skew"; $G lab histogram --dtype u8 --skew --bins 256
    echo; echo "### gpuprim lab histogram --dtype f64"; $G lab histogram --dtype f64 --bins 256,4096
    echo; echo "### gpuprim lab histogram --dtype u16"; $G lab histogram --dtype u16 --bins 256,65536
  } >"$OUT/hist.txt" 2>&1
  note "hist: $(grep -c FAIL "$OUT/hist.txt") FAIL lines"
  grep -E "^hist|FAIL|rror" "$OUT/hist.txt" | head -24
  grep -E "^(0[0-9]|10) " "$OUT/hist.txt" | awk '{print $1, $2, $3, $4, $5, $6, $7, $NF}' | head -80
fi

if [[ " $steps " == *" matrix "* ]]; then
  G=$B/gpuprim
  {
    echo "### gpuprim bench transpose"; $G bench transpose; echo; echo "### again"; $G bench transpose
    echo; echo "### gpuprim lab transpose"; $G lab transpose
    echo; echo "### gpuprim bench gemm"; $G bench gemm
    echo; echo "### gpuprim lab gemm"; $G lab gemm
  } >"$OUT/matrix.txt" 2>&1
  note "matrix: $(grep -c '^transpose' "$OUT/matrix.txt") transpose rows, $(grep -c FAIL "$OUT/matrix.txt") FAIL lines"
  grep -E "^transpose|^[sd]gemm|^[0-9][0-9] |rror|differ|FAIL|cublas:" "$OUT/matrix.txt"
fi

if [[ " $steps " == *" labs "* ]]; then
  # every lab topic on the runner at its defaults (each version checked), lab memory timed, and the benches whose
  # verbs moved (vector, histogram, transpose, gemm) for the before/after comparison in docs/PERFORMANCE.md.
  G=$B/gpuprim
  {
    echo "### gpuprim lab --list"; $G lab --list
    for t in vector reduce histogram transpose gemm; do
      echo; echo "### gpuprim lab $t"; t0=$SECONDS; $G lab $t; echo "exit $? in $((SECONDS - t0)) s"
    done
    echo; echo "### gpuprim lab vector --op all -n 2^28"; $G lab vector --op all -n 2^28; echo "exit $?"
    echo; echo "### gpuprim lab concurrency"; t0=$SECONDS; $G lab concurrency --svg "$OUT/lab_concurrency.svg" --json >"$OUT/lab_concurrency.json"
    echo "exit $? in $((SECONDS - t0)) s"
    echo; echo "### gpuprim bench graph"; $G bench graph
    echo; echo "### gpuprim lab memory"; t0=$SECONDS; $G lab memory --svg "$OUT/lab_memory.svg" --json >"$OUT/lab_memory.json"
    echo "exit $? in $((SECONDS - t0)) s"
    echo; echo "### gpuprim bench vector"; $G bench vector
    echo; echo "### gpuprim bench histogram"; $G bench histogram
    echo; echo "### gpuprim bench transpose"; $G bench transpose
    echo; echo "### gpuprim bench gemm"; $G bench gemm
    echo; echo "### gpuprim bandwidth"; $G bandwidth -b 256M -e 256M
  } >"$OUT/labs.txt" 2>&1
  note "labs: $(grep -c FAIL "$OUT/labs.txt") FAIL lines; $(grep -E '^exit' "$OUT/labs.txt" | tr '\n' ' ')"
  grep -E "^### |^exit|FAIL|rror|<- production|\*  " "$OUT/labs.txt" | head -40
fi

if [[ " $steps " == *" concurrency "* ]]; then
  # issue 13 in one call (after build): the graph and concurrency GPU tests, their sanitizer runs, bench graph, lab
  # concurrency at its defaults (timed, JSON and chart kept).
  G=$B/gpuprim
  {
    (cd $B && ctest -V --timeout 900 -R 'gpu_graph|gpu_scan|gpu_select|gpu_lab_concurrency|test_core|test_scan|test_select|cli$')
    echo "### gpuprim bench graph"; $G bench graph
    echo "### gpuprim lab concurrency"; t0=$SECONDS
    $G lab concurrency --svg "$OUT/lab_concurrency.svg" --json >"$OUT/lab_concurrency.json"
    echo "exit $? in $((SECONDS - t0)) s"
    $G lab concurrency 2>&1 | tail -60
  } >"$OUT/concurrency.txt" 2>&1
  note "concurrency: $(grep -E 'tests passed|tests failed' "$OUT/concurrency.txt" | tail -1); sanitizer exits: $(grep -A0 '^exit' "$OUT/concurrency.txt" | tr '\n' ' ')"
  grep -E "gpu_graph:|gpu_scan:|gpu_lab_concurrency:|ERROR SUMMARY|RACECHECK SUMMARY|^(reduce|vec_dot|triad)|^exit|FAIL|100 x gp_reduce" "$OUT/concurrency.txt" | head -40
fi

if [[ " $steps " == *" consan "* ]]; then
  # the sanitizer runs of issue 13 and 14's GPU tests (quick sizes), separate from "concurrency" to fit one call.
  for t in "memcheck gpu_graph" "racecheck gpu_graph" "synccheck gpu_graph" "memcheck gpu_lab_concurrency" \
           "memcheck gpu_scan" "racecheck gpu_scan" "synccheck gpu_scan" "memcheck gpu_select" "racecheck gpu_select"; do
    echo "=== compute-sanitizer --tool $t" >>"$OUT/consan.txt"
    GP_TEST_QUICK=1 timeout 150 compute-sanitizer --tool ${t%% *} --error-exitcode 9 $B/tests/${t##* } >>"$OUT/consan.txt" 2>&1
    rc=$?
    note "compute-sanitizer $t: exit $rc, $(grep -E '(ERROR|RACECHECK) SUMMARY' "$OUT/consan.txt" | tail -1)"
  done
fi

if [[ " $steps " == *" scan "* ]]; then
  # issue 14: bench scan twice (spread), bench select, gpu_select and the CLI tests on the GPU, and torch.cumsum as
  # an extra peer at 2^28 f32.
  G=$B/gpuprim
  {
    echo "### gpuprim bench scan"; $G bench scan
    echo; echo "### gpuprim bench scan (again: spread)"; $G bench scan
    echo; echo "### gpuprim bench select"; $G bench select
    echo; echo "### gpuprim lab scan"; t0=$SECONDS; $G lab scan; echo "exit $? in $((SECONDS - t0)) s"
    echo; echo "### ctest gpu_lab_scan"; (cd $B && ctest -V --timeout 600 -R 'gpu_lab_scan' | grep -E "gpu_lab_scan:|FAIL" | tail -5)
    echo; echo "### ctest gpu_select"; (cd $B && ctest -V --timeout 600 -R 'gpu_select|cli$' | grep -E "ok|FAIL|passed|failed" | tail -30)
    echo; echo "### torch.cumsum f32 2^28 (CUDA events, median of 20)"
    python3 - <<'PY'
import torch
n = 1 << 28
x = torch.rand(n, device="cuda")
y = torch.empty_like(x)
for name, f in [("torch.cumsum f32", lambda: torch.cumsum(x, 0, out=y))]:
    for _ in range(3): f()
    ts = []
    for _ in range(20):
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); f(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); ms = ts[len(ts) // 2]
    print(f"{name:20s} n=2^28  {ms * 1e3:9.1f} us  {2 * 4 * n / ms / 1e6:8.1f} GB/s")
PY
  } >"$OUT/scan.txt" 2>&1
  note "scan: $(grep -c '^[a-z]' "$OUT/scan.txt") rows"
  grep -vE '^\s*$' "$OUT/scan.txt" | grep -vE '^#' | head -40
fi

if [[ " $steps " == *" select "* ]]; then
  # issue 14's select / partition / unique: their GPU tests, the sanitizers over them (quick sizes), bench select
  # twice (spread), and an ncu pass over the 2^28 select when NCU=1.
  G=$B/gpuprim
  {
    echo "### ctest gpu_select, test_select, cli"
    (cd $B && ctest -V --timeout 600 -R 'gpu_select|test_select|cli$' | grep -E " ok|FAIL|passed|failed|skipped" | tail -40)
    for t in memcheck racecheck synccheck; do
      echo "### compute-sanitizer $t gpu_select"
      GP_TEST_QUICK=1 timeout 150 compute-sanitizer --tool $t --error-exitcode 9 $B/tests/gpu_select 2>&1 | tail -3
      echo "exit ${PIPESTATUS[0]}"
    done
    echo; echo "### gpuprim bench select"; $G bench select
    echo; echo "### gpuprim bench select (again: spread)"; $G bench select
  } >"$OUT/select.txt" 2>&1
  note "select: $(grep -E 'tests passed|tests failed' "$OUT/select.txt" | tail -1)"
  grep -E "SUMMARY|^exit|FAIL|failed|^(select|partition|unique) " "$OUT/select.txt" | head -40
fi

if [[ " $steps " == *" oscan "* ]]; then
  # issue 14's ordered scans: their GPU and CPU tests, the sanitizers over them (quick sizes), bench scan twice.
  G=$B/gpuprim
  {
    echo "### ctest gpu_scan (segmented too), gpu_scan_ordered, test_scan, test_scan_ordered"
    (cd $B && ctest -V --timeout 600 -R 'scan_ordered|gpu_scan$|test_scan$|cli$' | grep -E "run |done|scanner|FAIL|passed|failed|skipped" | tail -40)
    for t in memcheck racecheck synccheck; do
      echo "### compute-sanitizer $t gpu_scan_ordered"
      GP_TEST_QUICK=1 timeout 200 compute-sanitizer --tool $t --error-exitcode 9 $B/tests/gpu_scan_ordered 2>&1 | tail -3
      echo "exit ${PIPESTATUS[0]}"
    done
    echo; echo "### gpuprim bench scan"; $G bench scan
    [ -n "${OSCAN_TWICE:-}" ] && { echo; echo "### gpuprim bench scan (again: spread)"; $G bench scan; }
  } >"$OUT/oscan.txt" 2>&1
  note "oscan: $(grep -E 'tests passed|tests failed' "$OUT/oscan.txt" | tail -1)"
  grep -E "SUMMARY|^exit|FAIL|failed|passed|^(sum|exclusive sum|max|affine|mat2|segmented sum) " "$OUT/oscan.txt" | head -40
fi

if [[ " $steps " == *" narrow "* ]]; then
  # issue 14's narrow dtypes and accumulators: gpu_scan (all of it) and test_scan, bench scan (no regression), then
  # the sanitizers over gpu_scan (quick sizes, bounded so the call fits its limit).
  G=$B/gpuprim
  {
    echo "### ctest gpu_scan, test_scan"
    (cd $B && ctest -V --timeout 300 -R 'gpu_scan$|test_scan$|gpu_select|cli$' | grep -E "narrow|done|FAIL|passed|failed|skipped" | tail -20)
    echo; echo "### gpuprim bench scan"; $G bench scan
    for t in memcheck racecheck synccheck; do
      echo "### compute-sanitizer $t gpu_scan"
      GP_TEST_QUICK=1 timeout ${SAN_LIMIT:-100} compute-sanitizer --tool $t --error-exitcode 9 $B/tests/gpu_scan 2>&1 | tail -3
      echo "exit ${PIPESTATUS[0]}"
    done
  } >"$OUT/narrow.txt" 2>&1
  note "narrow: $(grep -E 'tests passed|tests failed' "$OUT/narrow.txt" | tail -1)"
  grep -E "SUMMARY|^exit|FAIL|failed|passed|narrow|^(sum|exclusive sum|max|affine|mat2|segmented sum) " "$OUT/narrow.txt" | head -40
fi

if [[ " $steps " == *" selab "* ]]; then
  # select.cu's and scan.cu's tuning knobs A/B in one call (after build): each variant rebuilds its one file (CMake
  # GP_SELECT_TUNE / GP_SCAN_TUNE, Ninja), checks itself with gpu_select or gpu_scan (quick sizes) and runs bench
  # select or scan; the default build comes back at the end. A variant is "select:DEFS" or "scan:DEFS" (DEFS a
  # ;-separated define list, empty for the defaults); SELAB="v1|v2|..." overrides the list.
  G=$B/gpuprim
  IFS='|' read -r -a variants <<<"${SELAB:-select:|select:GP_SELECT_WARPS=4|select:GP_SELECT_LOOKBACK=32|select:GP_SELECT_BACKOFF_NS=100|select:GP_SELECT_WARPS=4;GP_SELECT_LOOKBACK=32|scan:|scan:GP_SCAN_BACKOFF_NS=100|scan:GP_SCAN_MINB4=8}"
  for v in "${variants[@]}"; do
    what=${v%%:*}; defs=${v#*:}
    if [ "$what" = select ]; then var=GP_SELECT_TUNE; other=GP_SCAN_TUNE; t=gpu_select; else var=GP_SCAN_TUNE; other=GP_SELECT_TUNE; t=gpu_scan; fi
    {
      echo "### variant: $v"
      cmake -S . -B $B -D$var="$defs" -D$other="" >/dev/null && cmake --build $B --target gpuprim_cli $t -j "$(nproc)" >/dev/null \
        || echo "variant $v: BUILD FAILED"
      GP_TEST_QUICK=1 $B/tests/$t | tail -1
      $G bench $what | grep -E '^(select|partition|unique|sum|exclusive sum|max) '
    } >>"$OUT/selab.txt" 2>&1
  done
  cmake -S . -B $B -DGP_SELECT_TUNE="" -DGP_SCAN_TUNE="" >/dev/null && cmake --build $B -j "$(nproc)" >/dev/null
  note "selab: $(grep -c '^### variant' "$OUT/selab.txt") variants"
  grep -E '^### variant|passed|FAILED|268435456|134217728' "$OUT/selab.txt"
fi

if [[ " $steps " == *" stream "* ]]; then
  # gpuprim reduce over a 4 GiB file in the page cache: end-to-end GB/s (target: >= 85% of pinned H2D), and the same
  # bits from the file, from stdin (a pipe: sequential reads), and with a 1 GiB prefix on the CPU backend.
  G=$B/gpuprim
  F=/tmp/gp_stream_u8.raw
  {
    t0=$SECONDS
    head -c $((4 << 30)) /dev/urandom >$F
    echo "wrote $F in $((SECONDS - t0)) s"; ls -l $F
    cat $F >/dev/null
    for op in sum xor argmax; do
      for rep in 1 2 3; do $G reduce $F --dtype u8 --op $op --json; done
    done
    echo "--- stdin"; cat $F | $G reduce - --dtype u8 --op sum --json
    echo "--- f16 view of the same bytes (a float tree), file vs stdin"
    $G reduce $F --dtype u16 --op sum --json
    echo "--- 1 GiB prefix: GPU vs CPU backend"
    $G reduce $F --dtype u8 --op sum --count $((1 << 30)) --json
    $G reduce $F --dtype u8 --op sum --count $((1 << 30)) --device cpu --json
    $G reduce $F --dtype u8 --op argmax --count $((1 << 30)) --json
    $G reduce $F --dtype u8 --op argmax --count $((1 << 30)) --device cpu --json
  } >"$OUT/stream.log" 2>&1
  rm -f $F
  note "stream: $(grep -c '"op"' "$OUT/stream.log") results; $(grep '"op": "sum"' "$OUT/stream.log" | head -3 | grep -o '"gbps": [0-9.]*' | tr '\n' ' ')"
  grep -E '"op"' "$OUT/stream.log" | sed 's/, "device".*//' | head -20
fi

if [[ " $steps " == *" jit "* ]]; then
  # issue 15: user operators (NVRTC) — test_uop / gpu_uop / cli, compute-sanitizer over gpu_uop (quick), the CLI's
  # map / reduce --op-src on the GPU, bench jit twice (jit.txt).
  G=$B/gpuprim
  {
    echo "### ctest test_uop gpu_uop test_reduce gpu_reduce cli"
    (cd $B && ctest -V --timeout 600 -R 'uop|reduce$|cli$' | grep -E "gpu_uop:|test_uop:|_reduce:|FAIL|passed|failed|skipped|NVRTC" | tail -40)
    for t in memcheck racecheck synccheck; do
      echo "### compute-sanitizer $t gpu_uop"
      GP_TEST_QUICK=1 GP_JIT_CACHE=off timeout 200 compute-sanitizer --tool $t --error-exitcode 9 $B/tests/gpu_uop 2>&1 |
        grep -E "^=========|gpu_uop: [0-9]" | grep -vE "^=========     (Host Frame|at |by )" | head -12
      echo "exit ${PIPESTATUS[0]}"
    done
    echo "### CLI"
    python3 -c "import numpy as np; np.save('/tmp/jx.npy', np.random.default_rng(5).standard_normal(50_000_003).astype(np.float32))"
    $G reduce /tmp/jx.npy --op-src 'a + b' --identity -0.0f --json; $G reduce /tmp/jx.npy --op sum --json
    $G reduce /tmp/jx.npy --map 'x * x' --op sum --json
    $G reduce /tmp/jx.npy --map 'x * x' --op sum -d cpu --json
    $G map /tmp/jx.npy --src 'x * 2.0f' --out-dtype f64 -o /tmp/jy.npy --json
    python3 -c "import numpy as np; x=np.load('/tmp/jx.npy'); y=np.load('/tmp/jy.npy'); print('map == numpy:', y.dtype, bool((y == x.astype(np.float64) * 2).all()))"
    $G reduce /tmp/jx.npy --op-src 'a + c' --identity 0; echo "rc=$?"
    rm -f /tmp/jx.npy /tmp/jy.npy
    echo; echo "### gpuprim bench jit"; $G bench jit
    echo; echo "### gpuprim bench jit (again: spread)"; $G bench jit
  } >"$OUT/jit.txt" 2>&1
  note "jit: $(grep -E 'tests passed|tests failed' "$OUT/jit.txt" | tail -1)"
  grep -E "SUMMARY|^exit|FAIL|failed|gpu_uop:|test_uop:|compile_|^user |map ==|rc=" "$OUT/jit.txt" | head -40
fi

if [[ " $steps " == *" tc "* ]]; then
  # issue 17: gp_gemm_ex on the tensor cores — test_matrix / gpu_matrix, compute-sanitizer memcheck and racecheck of
  # gpu_matrix (quick), bench gemm --precision tf32 / bf16 / fp16 against cublasGemmEx (tc.txt).
  G=$B/gpuprim
  {
    echo "### ctest matrix"
    (cd $B && ctest -V --timeout 900 -R 'matrix' | grep -E "gemm|FAIL|passed|failed|skipped" | tail -30)
    # memcheck over the whole quick suite; racecheck over the tensor-core set in two halves of the kernel choices
    # (all seven at once run past the time limit under racecheck)
    san_matrix memcheck - 280; san_matrix racecheck 0124 280; san_matrix racecheck 356 280
    for p in bf16 fp16 tf32; do echo "### bench gemm --precision $p"; $G bench gemm --precision $p; done
  } >"$OUT/tc.txt" 2>&1
  note "tc: $(grep -E 'tests passed|tests failed' "$OUT/tc.txt" | tail -1)"
  grep -E "SUMMARY|^exit|FAIL|failed|passed|gemm_ex|^op " "$OUT/tc.txt" | head -50
fi

if [[ " $steps " == *" tf32 "* ]]; then
  # issue 17, TF32 read as stored (the tensor cores' truncation): test_matrix / gpu_matrix / cli, memcheck of
  # gpu_matrix (quick) under the production choice and mma.sync, bench gemm --precision tf32, lab gemm tf32 (tf32.txt)
  G=$B/gpuprim
  {
    echo "### ctest matrix cli"
    (cd $B && ctest -V --timeout 600 -R 'matrix|cli' | grep -E "gemm|FAIL|passed|failed|skipped" | tail -40)
    san_matrix memcheck 0 150; san_matrix memcheck 1 150
    echo "### bench gemm --precision tf32"; $G bench gemm --precision tf32
    echo "### lab gemm --precision tf32"; $G lab gemm --precision tf32
  } >"$OUT/tf32.txt" 2>&1
  note "tf32: $(grep -E 'tests passed|tests failed' "$OUT/tf32.txt" | tail -1)"
  grep -E "SUMMARY|^exit|FAIL|failed|passed|gemm_ex|batched|^op |cublas:|^1[0-9] |^92 " "$OUT/tf32.txt" | head -60
fi

if [[ " $steps " == *" gemmall "* ]]; then
  # bench gemm with no option: SGEMM, DGEMM and its kernel variants, TF32 / BF16 / FP16, batched (gemm.txt)
  $B/gpuprim bench gemm >"$OUT/gemm.txt" 2>&1
  note "gemmall: $(grep -c cublas "$OUT/gemm.txt") rows"
  grep -E "^op |gemm" "$OUT/gemm.txt" | head -40
fi

if [[ " $steps " == *" fp64 "* ]]; then
  # issue 17, FP64 (dgemm_cp): test_matrix / gpu_matrix, memcheck and racecheck of gpu_matrix (quick, tensor-core
  # set on the production choice only), Nsight Compute over the 4096^3 f64 kernels, ours and cuBLAS's (fp64.txt)
  G=$B/gpuprim
  {
    echo "### ctest matrix"
    (cd $B && ctest -V --timeout 600 -R 'matrix' | grep -E "variant|gemm f32|FAIL|passed|failed|skipped" | tail -20)
    san_matrix memcheck 0 240; san_matrix racecheck 0 240
    echo "### ncu f64 4096 (every kernel of one gp_gemm + cublasDgemm pair)"
    timeout 150 ncu --clock-control none --launch-skip 2 --launch-count 4 --section SpeedOfLight --section Occupancy \
      --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats --section LaunchStats \
      $G bench gemm -b 4096 -e 4096 --dtype f64 --reps 1 --warmup 0 2>&1 | tail -260
  } >"$OUT/fp64.txt" 2>&1
  note "fp64: $(grep -E 'tests passed|tests failed' "$OUT/fp64.txt" | tail -1)"
  grep -E "SUMMARY|^exit|FAIL|failed|passed|^  [a-zA-Z_].*\(|Duration|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Issue Slots Busy|No Eligible" "$OUT/fp64.txt" | head -60
fi

if [[ " $steps " == *" tfam "* ]]; then
  # issue 17, session 16: TF32 with an MN-major operand read through registers (am / the swapped problem) and FP32
  # n <= 64 on sgemm_cp: ctest matrix (every kernel choice), bench gemm --precision tf32 twice, bench gemm (tfam.txt)
  G=$B/gpuprim
  {
    ctest_matrix "gemm|variant|Test +#"
    for r in 1 2; do echo "### bench gemm --precision tf32 ($r)"; $G bench gemm --precision tf32; done
    echo "### bench gemm"; $G bench gemm
  } >"$OUT/tfam.txt" 2>&1
  note "tfam: $(grep -E 'tests passed|tests failed' "$OUT/tfam.txt" | tail -1)"
  grep -E "FAIL|failed|passed|^op |gemm_ex|sgemm|batched|dgemm" "$OUT/tfam.txt" | head -70
fi

if [[ " $steps " == *" s16 "* ]]; then
  # issue 17, session 16: ctest matrix (kernel choice 7: the persistent grid), bench gemm (every row, ours and cuBLAS
  # alternating), bench gemm --precision bf16, lab gemm --precision bf16 / tf32 (v17), sanitizers over choice 7 (s16.txt)
  G=$B/gpuprim
  {
    ctest_matrix "gemm_ex"
    echo "### bench gemm"; $G bench gemm
    echo "### bench gemm --precision bf16"; $G bench gemm --precision bf16
    for p in bf16 tf32; do echo "### lab gemm --precision $p"; $G lab gemm --precision $p; done
    san_matrix memcheck 7 240; san_matrix racecheck 7 300
  } >"$OUT/s16.txt" 2>&1
  note "s16: $(grep -E 'tests passed|tests failed' "$OUT/s16.txt" | tail -1); sanitizers clean: $(grep -c '^exit 0' "$OUT/s16.txt") of 2"
  grep -E "FAIL|failed|passed|^op |gemm_ex|sgemm NN  |batched|dgemm NN  |^1[0-9] |^id|SUMMARY|^exit" "$OUT/s16.txt" | head -80
fi

if [[ " $steps " == *" s16san "* ]]; then
  # compute-sanitizer over gpu_matrix (quick) under the production choice and the TMA shapes 4-6, then bench gemm
  # (every row) once more (s16san.txt)
  {
    san_matrix memcheck 0456 300; san_matrix racecheck 0456 360
    echo "### bench gemm"; $B/gpuprim bench gemm
  } >"$OUT/s16san.txt" 2>&1
  note "s16san: $(grep -c '^exit 0' "$OUT/s16san.txt") of 2 clean"
  grep -E "^op |gemm_ex|sgemm NN  |batched|dgemm NN  |SUMMARY|^exit|gpu_matrix:" "$OUT/s16san.txt" | head -60
fi

if [[ " $steps " == *" s16b "* ]]; then
  # the batch's tile shape: ctest matrix, bench gemm --precision bf16, bench gemm (every row) (s16b.txt)
  G=$B/gpuprim
  {
    ctest_matrix "gemm_ex|batched"
    echo "### bench gemm --precision bf16"; $G bench gemm --precision bf16
    echo "### bench gemm"; $G bench gemm
  } >"$OUT/s16b.txt" 2>&1
  note "s16b: $(grep -E 'tests passed|tests failed' "$OUT/s16b.txt" | tail -1)"
  grep -E "FAIL|failed|passed|^op |gemm_ex|sgemm NN  |batched|dgemm NN  " "$OUT/s16b.txt" | head -60
fi

if [[ " $steps " == *" tfsan "* ]]; then
  # compute-sanitizer over gpu_matrix (quick) with the TMA 128 x 256 choice (TF32's register-fed kernel) (tfsan.txt)
  { san_matrix memcheck 3 240; san_matrix racecheck 3 300; } >"$OUT/tfsan.txt" 2>&1
  note "tfsan: $(grep -c '^exit 0' "$OUT/tfsan.txt") of 2 clean"
  cat "$OUT/tfsan.txt"
fi

if [[ " $steps " == *" sgemm "* ]]; then
  # issue 17, exact FP32: test_matrix / gpu_matrix (every f32 variant x layout), bench gemm (every row: the sgemm_cp
  # variants 15 / 16 beside production), Nsight Compute over one gp_gemm f32 4096^3 and the cublasSgemm after it,
  # ours and cuBLAS's kernels — or, with SGEMM_NCU (kernel regexes, ';' between), the first launch of each (sgemm.txt)
  G=$B/gpuprim
  {
    echo "### ctest matrix"
    (cd $B && ctest -V --timeout 600 -R 'matrix' | grep -E "variant|gemm f32|FAIL|passed|failed|skipped" | tail -20)
    echo "### bench gemm"; $G bench gemm
    if [ "${SGEMM_NCU:-}" = - ]; then
      echo "### (no ncu: SGEMM_NCU=-)"
    elif [ -n "${SGEMM_NCU:-}" ]; then
      IFS=';' read -ra ks <<<"$SGEMM_NCU"
      for k in "${ks[@]}"; do
        echo "### ncu $k (first launch, inside bench gemm --reps 1)"
        timeout 200 ncu --clock-control none --kernel-name-base demangled -k "regex:$k" --launch-count 1 \
          --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
          --section LaunchStats --section ComputeWorkloadAnalysis --section SourceCounters --section InstructionStats \
          $G bench gemm --reps 1 --warmup 0 2>&1 | grep -vE "^(sgemm|dgemm|gemm_ex|batched) |^[0-9]+\. " | tail -300
      done
    else
      echo "### ncu f32 4096 (every kernel of one gp_gemm + cublasSgemm pair)"
      timeout 150 ncu --clock-control none --launch-skip 2 --launch-count 4 --section SpeedOfLight --section Occupancy \
        --section WarpStateStats --section SchedulerStats --section LaunchStats --section ComputeWorkloadAnalysis \
        $G bench gemm -b 4096 -e 4096 --reps 1 --warmup 0 2>&1 | tail -300
    fi
  } >"$OUT/sgemm.txt" 2>&1
  note "sgemm: $(grep -E 'tests passed|tests failed' "$OUT/sgemm.txt" | tail -1)"
  grep -E "FAIL|failed|passed|^op |sgemm|^  [a-zA-Z_].*\(|Duration|Registers Per|Block Size|Shared Memory Config|Dynamic Shared|Achieved Occupancy|Warp Cycles Per Issued|Issue Slots Busy|No Eligible|SM Frequency" "$OUT/sgemm.txt" | head -70
fi

if [[ " $steps " == *" sgemmprof "* ]]; then
  # issue 17, exact FP32: builds the gpuprim target alone (when "build" is not a step), then per kernel regex of
  # SGEMM_PROF (';' between; default: variant 18 and cuBLAS's SGEMM) the first launch inside bench gemm: issue
  # statistics and every warp-stall reason per issued instruction; the SASS mnemonic histogram of sgemm_cp kernels
  # (sgemmprof.txt, sass_sgemm.txt)
  G=$B/gpuprim
  if [[ " $steps " != *" build "* ]]; then
    gen=""; command -v ninja >/dev/null && gen="-G Ninja"
    { cmake -S . -B $B $gen -DCMAKE_BUILD_TYPE=Release && cmake --build $B -j "$(nproc)" --target gpuprim; } >"$OUT/build.log" 2>&1 ||
      { tail -30 "$OUT/build.log"; echo "BUILD FAILED"; exit 1; }
  fi
  {
    [ "${SGEMM_PROF:-}" = - ] && SGEMM_PROF=""
    IFS=';' read -ra ks <<<"${SGEMM_PROF-sgemm_cp<.int.4, .int.256, .int.128, .bool.1, .bool.0, .bool.0>;xmma_gemm_f32f32.*256x128}"
    for k in "${ks[@]}"; do
      echo "### ncu $k"
      timeout 200 ncu --clock-control none --kernel-name-base demangled -k "regex:$k" --launch-count 1 \
        --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_shared_ld.sum,launch__registers_per_thread" \
        $G bench gemm --reps 1 --warmup 0 2>&1 | grep -E "^  [a-zA-Z_]|smsp__|sm__|l1tex__|launch__" | grep -vE " 0$| 0\.0[0-9]?$"
    done
  } >"$OUT/sgemmprof.txt" 2>&1
  o=$(find $B -name 'gemm.cu.o' | head -1)
  cuobjdump -sass "$o" | awk '/Function :/ {f=$3} f ~ /sgemm_cp/ && $0 ~ /\/\*[0-9a-f]+\*\// {
      for (i = 1; i <= NF; i++) if ($i ~ /^[A-Z][A-Z0-9.]+$/ && $i != "PT") { split($i, p, "."); c[f " " p[1]]++; break } }
    END {for (k in c) print c[k], k}' | sort -k2,2 -k1,1nr >"$OUT/sass_sgemm.txt"
  cuobjdump -sass "$o" | awk '/Function :/ {f=$3; keep = f ~ /sgemm_cp.*Lb1ELb0E/} keep' | gzip >"$OUT/sass_sgemm_cp_nn.txt.gz"
  zcat "$OUT/sass_sgemm_cp_nn.txt.gz" | python3 scripts/sass_banks.py /dev/stdin >"$OUT/sass_banks.txt" # FFMA bank model
  note "sgemmprof: $(grep -c '^### ncu' "$OUT/sgemmprof.txt") kernels"
  cat "$OUT/sgemmprof.txt" "$OUT/sass_banks.txt"
fi

if [[ " $steps " == *" sgemmsan "* ]]; then
  # the gpu_matrix sanitizer runs (quick sizes; production tensor-core choice) for the f32 variants (sgemmsan.txt)
  { san_matrix memcheck 0 280; san_matrix racecheck 0 280; } >"$OUT/sgemmsan.txt" 2>&1
  note "sgemmsan: $(grep -E 'SUMMARY|^exit' "$OUT/sgemmsan.txt" | tr '\n' ' ')"
  cat "$OUT/sgemmsan.txt"
fi

if [[ " $steps " == *" tclab "* ]]; then
  # issue 17: the tensor-core progression, each version checked and timed against cublasGemmEx (tclab.txt):
  # lab gemm --precision bf16 / fp16 / tf32 at 4096, bf16 at 8192.
  G=$B/gpuprim
  {
    for p in bf16 fp16 tf32; do echo "### lab gemm --precision $p"; $G lab gemm --precision $p; done
    echo "### lab gemm --precision bf16 --size 8192"; $G lab gemm --precision bf16 --size 8192 --reps 3
  } >"$OUT/tclab.txt" 2>&1
  note "tclab: $(grep -c ' ok$' "$OUT/tclab.txt") versions ok, $(grep -c FAIL "$OUT/tclab.txt") failed"
  grep -E "^== |cublas:|^[0-9][0-9] " "$OUT/tclab.txt" | head -40
fi

if [[ " $steps " == *" tcprof "* ]]; then
  # issue 17: Nsight Compute at 4096^3 (lab gemm --precision P: the 4096 check run of each of our kernels named, or
  # cuBLAS's first launch), speed of light, occupancy, warp stalls, memory (tcprof.txt); the SASS fences and barriers
  # of the 128 x 256 kernels (sass.txt); clocks left alone. TCPROF: "precision|kernel regex|launches to skip" ...
  G=$B/gpuprim
  {
    for spec in ${TCPROF:-'bf16|gemm_tma<.int.2, float, .int.1, .int.256, .int.1>|1' \
                 'bf16|gemm_tma<.int.2, float, .int.1, .int.256, .int.2>|1' 'bf16|^nvjet|0' \
                 'tf32|gemm_tma<.int.1, float, .int.0, .int.256, .int.1>|1' 'tf32|^nvjet|0'}; do
      IFS='|' read -r p k skip <<<"$spec"
      echo "### ncu $p $k (skip $skip)"
      timeout 200 ncu --clock-control none --kernel-name-base demangled -k "regex:$k" --launch-skip "$skip" \
        --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats \
        --section MemoryWorkloadAnalysis --section LaunchStats --section ComputeWorkloadAnalysis \
        --section SchedulerStats $G lab gemm --precision "$p" --reps 1 --warmup 0 2>&1 |
        grep -vE '^(1[0-9] |92 |== |id |   [a-z]+: )' | tail -170
    done
  } >"$OUT/tcprof.txt" 2>&1
  o=$(find $B -name 'gemm_wgmma.cu.o' | head -1)
  cuobjdump -sass "$o" | awk '/Function :/ {f=$3} /MEMBAR|FENCE|ERRBAR|UCGABAR|SYNCS|CCTL/ {print f, $0}' |
    grep -E 'ILi2EfLi1ELi256ELi[12]E' | sed 's/^_ZN[^ ]*gemm_tma/gemm_tma/' | head -80 >"$OUT/sass.txt" 2>&1
  note "tcprof: $(grep -c 'Duration' "$OUT/tcprof.txt") kernels profiled"
  grep -E '^### |Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Registers Per|Waves Per SM|Warp Cycles Per Issued' "$OUT/tcprof.txt" | head -60
fi

if [[ " $steps " == *" group "* ]]; then
  # issue 16: sharded primitives — gpu_group (emulated groups on GPU 0, NCCL local and rank groups of this machine),
  # gpu_group_mp (two processes: needs two GPUs), test_group, the reduce / histogram / CLI suites; memcheck and
  # racecheck of gpu_group (quick); the CLI's --devices against one device; bench group (group.txt).
  G=$B/gpuprim
  export NCCL_NVLS_ENABLE=0
  {
    nvidia-smi -L
    echo "### ctest group"
    (cd $B && ctest -V --timeout 900 -R "${GROUP_TESTS:-group|^gpu_reduce$|^gpu_histogram$|^cli$}" |
      grep -E "gpu_group|test_group|: +(cpu|gpu0|nccl|process)|FAIL|passed|failed|SKIPPED|Test +#" | head -80)
    for t in memcheck racecheck; do
      echo "### compute-sanitizer $t gpu_group (quick; NCCL's own probing of kernel images is an API error: not reported)"
      GP_TEST_QUICK=1 timeout 300 compute-sanitizer --tool $t --report-api-errors no --error-exitcode 9 $B/tests/gpu_group 2>&1 |
        grep -E "^=========|gpu_group: [0-9]" | grep -vE "^=========     (Host Frame|at |by )" | head -12
      echo "exit ${PIPESTATUS[0]}"
    done
    echo "### CLI --devices against one device (1 GiB f32 file)"
    python3 -c "import numpy as np; np.random.default_rng(7).standard_normal(2**28 + 12345, dtype=np.float32).tofile('/tmp/g.f32')"
    for op in sum argmax minmax; do
      $G reduce /tmp/g.f32 --dtype f32 --op $op -d 0 --no-overlap
      $G reduce /tmp/g.f32 --dtype f32 --op $op --devices all
      $G reduce /tmp/g.f32 --dtype f32 --op $op --devices gpu:3
    done
    $G histogram /tmp/g.f32 --dtype f32 --bins 65536 --range -4,4 -d 0 --csv | md5sum
    $G histogram /tmp/g.f32 --dtype f32 --bins 65536 --range -4,4 --devices all --csv | md5sum
    $G histogram /tmp/g.f32 --dtype f32 --bins 65536 --range -4,4 --devices gpu:2 --csv | md5sum
    echo "### where the time goes (scripts/group_phases.c)"
    gcc -O2 -std=c11 -I include -I src -I src/core -I /usr/local/cuda/include scripts/group_phases.c $B/libgpuprim.a \
      -L/usr/local/cuda/lib64 -lcudart -fopenmp -lm -ldl -lpthread -o $B/group_phases && $B/group_phases
    echo "### bench group --devices all"
    $G bench group --devices all ${GROUP_BENCH:-}
    echo "### bench group --devices gpu:2 (two emulated members on GPU 0: the combine's cost, no speed-up possible)"
    $G bench group --devices gpu:2 --skip-sweep
  } >"$OUT/group.txt" 2>&1
  note "group: $(grep -E 'tests passed|tests failed' "$OUT/group.txt" | tail -1)"
  grep -E "SUMMARY|^exit|FAIL|failed|passed|^(reduce|histogram|scan|segmented) |allreduce f32 sum +(2|268435456) " "$OUT/group.txt" | head -50
fi

if [[ " $steps " == *" prof "* ]]; then
  # Nsight Compute over the scan kernels at 2^26 (bench scan -n 2^26: affine f32 2^25 pairs, sum f32 2^26): speed
  # of light, occupancy, warp stalls, memory (prof.txt); clocks left alone (METHOD.md).
  G=$B/gpuprim
  {
    for k in 'k_lb<.*OS<.int.3, float' 'k_scan<float, float, float, .int.0' 'k_lb<.*OS<.int.0, float'; do
      echo "### ncu $k"
      timeout 240 ncu --clock-control none --kernel-name-base demangled -k "regex:$k" --launch-skip 1 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
        --section SchedulerStats --section LaunchStats $G bench scan -n 67108864 --reps 2 --warmup 1 2>&1 |
        grep -vE '^(op|sum|exclusive|max|affine|mat2|segmented) ' | tail -150
    done
  } >"$OUT/prof.txt" 2>&1
  note "prof: $(grep -c 'Duration' "$OUT/prof.txt") kernels profiled"
  grep -E '^  [a-z_]+<|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued' "$OUT/prof.txt" | head -40
fi

if [[ " $steps " == *" cli "* ]]; then
  # The CLI on GPU 0 against NumPy (C order, dtypes, NumPy's histogram edges, bools, gemm of rounded f32) and its
  # output / operator-safety tests, then the GPU tests of what it stands on: histogram's even edges, transpose of
  # every element size, user operators (cli.txt).
  {
    echo "### cli tests on GPU 0"
    (cd $B && GPUPRIM_TEST_DEVICE=0 timeout 400 ctest -V --timeout 300 -R 'cli') | grep -E "tests passed|[0-9]+ passed, [0-9]+ failed|FAIL|SKIPPED" | tail -20
    echo "### ctest histogram matrix uop"
    (cd $B && timeout 400 ctest -V --timeout 390 -R 'histogram|matrix|uop') | grep -E "tests passed|[0-9]+ passed, [0-9]+ failed|FAIL|: (ok|FAILED)" | tail -40
  } >"$OUT/cli.txt" 2>&1
  note "cli: $(grep -E 'tests passed|tests failed' "$OUT/cli.txt" | tr '\n' ' ')"
  grep -E "passed|failed|FAIL" "$OUT/cli.txt" | head -40
fi

if [[ " $steps " == *" clisan "* ]]; then
  # compute-sanitizer memcheck / racecheck / synccheck over the histogram, matrix and user-operator GPU tests, quick
  # sizes (clisan.txt).
  {
    for t in gpu_histogram gpu_matrix gpu_uop; do
      for tool in memcheck racecheck synccheck; do
        echo "### compute-sanitizer $tool $t (quick)"
        [ "$t" = gpu_uop ] && [ "$tool" != memcheck ] && continue
        GP_TEST_QUICK=1 timeout 70 compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/$t 2>&1 |
          grep -E "^========= (ERROR|RACECHECK|SYNCCHECK|Error|.*errors)|[0-9]+ passed, [0-9]+ failed" | head -6
        echo "exit ${PIPESTATUS[0]}"
      done
    done
  } >"$OUT/clisan.txt" 2>&1
  note "clisan: $(grep -c "^exit 0" "$OUT/clisan.txt")/7 sanitizer runs clean"
  cat "$OUT/clisan.txt"
fi

if [[ " $steps " == *" clibench "* ]]; then
  # bench histogram / transpose, and the file-speed table: each streaming verb on a 1 GiB f32 .npy in the page cache,
  # GPU vs --device cpu vs NumPy (load + op), wall seconds (clibench.txt).
  G=$B/gpuprim
  {
    echo "### bench histogram"
    timeout 200 $G bench histogram
    echo "### bench transpose"
    timeout 120 $G bench transpose
    echo "### files: 1 GiB f32 .npy, wall seconds"
    python3 -c "import numpy as np; np.save('/tmp/f1g.npy', np.random.default_rng(1).standard_normal(1 << 28, dtype=np.float32))"
    cat /tmp/f1g.npy >/dev/null
    w() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); awk "BEGIN {printf \"%.2f\", $t1 - $t0}"; }
    for v in "reduce /tmp/f1g.npy --op sum" "histogram /tmp/f1g.npy --bins 1024" \
             "histogram /tmp/f1g.npy --bins 1024 --range -4,4" "histogram /tmp/f1g.npy --bins 1024 --range -4,4 --half-open" \
             "select /tmp/f1g.npy --where gt:0 -o /tmp/sel.npy" "scan /tmp/f1g.npy --op sum -o /tmp/scan.npy"; do
      # shellcheck disable=SC2086
      echo "$v | gpu $(w $G $v) | cpu $(w $G $v -d cpu)"
    done
    echo "numpy reduce sum $(w python3 -c 'import numpy as np; np.load("/tmp/f1g.npy").sum()')"
    echo "numpy histogram 1024 $(w python3 -c 'import numpy as np; np.histogram(np.load("/tmp/f1g.npy"), 1024)')"
    echo "numpy select $(w python3 -c 'import numpy as np; a = np.load("/tmp/f1g.npy"); np.save("/tmp/seln.npy", a[a > 0])')"
    echo "numpy cumsum $(w python3 -c 'import numpy as np; np.save("/tmp/scn.npy", np.cumsum(np.load("/tmp/f1g.npy")))')"
    rm -f /tmp/f1g.npy /tmp/sel.npy /tmp/scan.npy /tmp/seln.npy /tmp/scn.npy
  } >"$OUT/clibench.txt" 2>&1
  note "clibench: $(grep -c ' | gpu ' "$OUT/clibench.txt") file rows"
  grep -E "^(reduce|histogram|select|scan|numpy) |f32 .* (1|256|1024|4096|65536) |transpose .*f32|^op " "$OUT/clibench.txt" | head -60
fi

if [[ " $steps " == *" files "* ]]; then
  # The streaming verbs on a 1 GiB f32 .npy in the page cache: GPU (with the CPU head start), --device cpu, NumPy
  # (load + op + save), best of 3 wall seconds; the page-cache read rate (dd, one thread); the CPU head's share and the
  # device each GPU run ended on (files.txt).
  G=$B/gpuprim
  {
    python3 -c "import numpy as np; np.save('/tmp/f1g.npy', np.random.default_rng(1).standard_normal(1 << 28, dtype=np.float32))"
    python3 -c "import numpy as np; np.save('/tmp/u1g.npy', np.repeat(np.arange(1 << 26, dtype=np.int32), 4))"
    cat /tmp/f1g.npy /tmp/u1g.npy >/dev/null
    # each run starts with no output file and nothing dirty in the page cache: write-back of an earlier run's output
    # otherwise slows whichever run comes next
    best() { local b=999 t0 t1 t; for _ in 1 2 3; do rm -f /tmp/sel.npy /tmp/scan.npy /tmp/uq.npy /tmp/rv.npy /tmp/rl.npy \
             /tmp/seln.npy /tmp/scn.npy /tmp/uqn.npy; sync; t0=$(date +%s.%N); "$@" >/tmp/run.out 2>/dev/null
             t1=$(date +%s.%N); t=$(awk "BEGIN {print $t1 - $t0}"); b=$(awk "BEGIN {print ($t < $b) ? $t : $b}"); done
             printf "%.3f" "$b"; }
    echo "page cache: $(dd if=/tmp/f1g.npy of=/dev/null bs=16M 2>&1 | tail -1)"
    what() { echo "head $(grep -o '"cpu_head_elements": [0-9]*' /tmp/run.out | grep -o '[0-9]*$'), $(grep -o '"device": "[^(,]*' /tmp/run.out | cut -c12-30)"; }
    while IFS='|' read -r label args; do
      # shellcheck disable=SC2086
      td=$(best $G $args --json); wd=$(what)
      # shellcheck disable=SC2086
      tg=$(best $G $args --json -d 0); wg=$(what)
      # shellcheck disable=SC2086
      tc=$(best $G $args -d cpu)
      echo "$label | default $td ($wd) | -d 0 $tg ($wg) | -d cpu $tc"
    done <<'LIST'
reduce sum|reduce /tmp/f1g.npy --op sum
histogram 1024 (data range)|histogram /tmp/f1g.npy --bins 1024
histogram 1024 --range|histogram /tmp/f1g.npy --bins 1024 --range -4,4
histogram 1024 --range --half-open|histogram /tmp/f1g.npy --bins 1024 --range -4,4 --half-open
select gt:0|select /tmp/f1g.npy --where gt:0 -o /tmp/sel.npy
scan sum|scan /tmp/f1g.npy --op sum -o /tmp/scan.npy
unique (i32, runs of 4)|unique /tmp/u1g.npy -o /tmp/uq.npy
rle (i32, runs of 4)|rle /tmp/u1g.npy -o /tmp/rv.npy --lengths /tmp/rl.npy
LIST
    echo "numpy reduce sum $(best python3 -c 'import numpy as np; np.load("/tmp/f1g.npy").sum()')"
    echo "numpy histogram 1024 $(best python3 -c 'import numpy as np; np.histogram(np.load("/tmp/f1g.npy"), 1024)')"
    echo "numpy select $(best python3 -c 'import numpy as np; a = np.load("/tmp/f1g.npy"); np.save("/tmp/seln.npy", a[a > 0])')"
    echo "numpy cumsum $(best python3 -c 'import numpy as np; np.save("/tmp/scn.npy", np.cumsum(np.load("/tmp/f1g.npy")))')"
    echo "numpy unique $(best python3 -c 'import numpy as np; a = np.load("/tmp/u1g.npy"); np.save("/tmp/uqn.npy", a[np.r_[True, a[1:] != a[:-1]]])')"
    rm -f /tmp/f1g.npy /tmp/u1g.npy /tmp/sel.npy /tmp/scan.npy /tmp/uq.npy /tmp/rv.npy /tmp/rl.npy /tmp/seln.npy /tmp/scn.npy /tmp/uqn.npy
  } >"$OUT/files.txt" 2>&1
  note "files: $(grep -c ' | default ' "$OUT/files.txt") verb rows"
  cat "$OUT/files.txt"
fi

if [[ " $steps " == *" headsan "* ]]; then
  # compute-sanitizer memcheck over the scanner hand-over test and the CLI's head start on a GPU (headsan.txt).
  {
    echo "### memcheck gpu_scan (quick)"
    GP_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/gpu_scan 2>&1 | tail -3
    echo "exit ${PIPESTATUS[0]}"
    head -c $((64 << 20)) /dev/urandom >/tmp/hs.raw
    for v in "scan /tmp/hs.raw --dtype f32 --op sum -o /tmp/hs.out" "select /tmp/hs.raw --dtype f32 --where gt:0 -o /tmp/hs.out" \
             "histogram /tmp/hs.raw --dtype u32 --bins 100" "rle /tmp/hs.raw --dtype u8 -o /tmp/hs.out --lengths /tmp/hs.len" \
             "reduce /tmp/hs.raw --dtype f32 --op sum"; do
      echo "### memcheck gpuprim $v (head start forced)"
      # shellcheck disable=SC2086
      GPUPRIM_TEST_HEAD_CHUNKS=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpuprim $v --json 2>&1 |
        grep -E "ERROR SUMMARY|cpu_head_elements|error" | head -3
      echo "exit ${PIPESTATUS[0]}"
    done
    rm -f /tmp/hs.raw /tmp/hs.out /tmp/hs.len
  } >"$OUT/headsan.txt" 2>&1
  note "headsan: $(grep -c '^exit 0' "$OUT/headsan.txt")/6 sanitizer runs clean"
  cat "$OUT/headsan.txt"
fi

echo
echo "===== summary"
for s in "${summary[@]}"; do echo "$s"; done
