#!/bin/bash
# device_check.sh — what a GPU machine confirms, by purpose. Logs go to $OUT (default ./device-out); a short summary
# is printed last. At most 8 files come back from a lent machine: each step writes one.
usage() {
  cat <<'EOF'
usage: scripts/device_check.sh STEP [ARG]...      (default: build test bench)
  build                 configure and build into build-device/ (build.log)
  tune VAR=DEFS         rebuild with one file's tuning defines, e.g. tune GP_SORT_TUNE=GP_SORT_SMALL=1 (Ninja rebuilds
                        that file alone); the steps after it test and measure that variant, and bench.json names it
  test [REGEX]          ctest, GPU tests included, optionally only the tests REGEX matches (ctest.log)
  sanitize [FAMILY[:TOOL]][@FILTER]  compute-sanitizer (memcheck, racecheck, synccheck, or TOOL alone) over the GPU tests of
                        FAMILY, or of every family: vector reduce ordered histogram matrix graph scan select sort search bykey uop
                        lab group cli, or of one test named without its gpu_ (lab_sort); @FILTER keeps the list's lines of that
                        test filter alone, e.g. select:racecheck@engine (sanitizer.log)
  bench [SUITE]         every `gpuprim bench` suite, or one, once: its JSON with the device, commit and command
                        (bench.json: scripts/perf_tables.py makes docs/PERFORMANCE.md of it) and those tables (bench.txt)
  profile SUITE         Nsight Compute over one suite's run, the kernels' summary (profile.txt)
  stalls SUITE:KERNEL   where one launch of KERNEL (a regex; its second launch in the suite's run, two reps a row) waits: stall
                        samples and instructions per phase, class and line (bench/tune/ncu_stalls.py; stalls.txt)
  labs [TOPIC]          every `gpuprim lab` topic (or one) at its defaults, each version verified (labs.txt)
  files                 every streaming and held verb on 1 GiB in the page cache: default, --device cpu, NumPy; the
                        held verbs (median of 3) against cp of their output's bytes, their floor (files.txt)
  python [SIZES]        the Python package on the GPU: its device tests (gpu_python), then `python -m gpuprim.bench
                        --device 0` against torch and CuPy (log2 sizes, default 10,16,20,24,28) (python.txt)
Steps run in the order given, e.g. `scripts/device_check.sh build test gpu_ sanitize scan bench scan`.
An argument that is not a step name belongs to the step before it. COMMIT names the measured commit in bench.json
(default: git's HEAD, else "unknown"; a lent machine's copy of the tree may carry an older HEAD, so pass
COMMIT=$(git rev-parse --short HEAD) from the checkout that sent it).
EOF
}
set -u
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
B=${BUILD:-build-device}
G=$B/gpuprim
summary=()
note() { summary+=("$*"); echo ">>> $*"; }
is_step() { case $1 in build|tune|test|sanitize|bench|profile|stalls|labs|files|python) return 0;; *) return 1;; esac; }

# A file built with tuning defines is touched before the defines change: clearing them did not rebuild it on a kept
# build directory (the tuned object stayed, seen as a bench of the variant after a plain build).
retouch_tuned() {
  grep -qE '^GP_(SORT|SCAN|SELECT)_TUNE:STRING=.' $B/CMakeCache.txt 2>/dev/null &&
    touch src/sort/sort.cu src/sort/topk.cu src/sort/unique.c src/scan/scan.cu src/scan/scan.c src/scan/bykey.cu src/scan/scan_general.cu src/scan/select.cu
  return 0
}

step_build() {
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
    nvcc --version | tail -2
    gen=""; command -v ninja >/dev/null && gen="-G Ninja"
    t0=$(date +%s)
    # the tuning knobs' experiment defines are cleared: what is measured and tested is the tree's code
    retouch_tuned
    cmake -S . -B $B $gen -DCMAKE_BUILD_TYPE=Release -DGP_SELECT_TUNE= -DGP_SCAN_TUNE= -DGP_SORT_TUNE= && cmake --build $B -j "$(nproc)"
    echo "build seconds: $(( $(date +%s) - t0 ))"
  } >"$OUT/build.log" 2>&1
  if [ $? != 0 ] || [ ! -x $G ]; then tail -40 "$OUT/build.log"; echo "BUILD FAILED"; exit 1; fi
  note "build: ok ($(grep 'build seconds' "$OUT/build.log"))"
}

TUNED=""
step_tune() { # VAR=DEFS
  local a=${1:?tune needs VAR=DEFS}
  case ${a%%=*} in GP_SCAN_TUNE|GP_SELECT_TUNE|GP_SORT_TUNE) ;; *) echo "tune: ${a%%=*} is not a tuning variable" >&2; exit 2;; esac
  retouch_tuned
  touch "src/$(case ${a%%=*} in GP_SORT_TUNE) echo sort/sort;; GP_SCAN_TUNE) echo scan/scan;; *) echo scan/select;; esac).cu"
  [ "${a%%=*}" = GP_SORT_TUNE ] && touch src/sort/topk.cu src/sort/unique.c
  [ "${a%%=*}" = GP_SCAN_TUNE ] && touch src/scan/scan.c src/scan/bykey.cu src/scan/scan_general.cu
  { cmake -S . -B $B "-D$a" && cmake --build $B -j "$(nproc)"; } >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; echo "TUNE BUILD FAILED"; exit 1; }
  TUNED="$TUNED $a"
  note "tune: rebuilt with $a"
}

step_test() { # [REGEX]
  (cd $B && ctest -V --timeout 900 ${1:+-R "$1"}) >>"$OUT/ctest.log" 2>&1
  note "ctest${1:+ -R $1}: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"
  grep -E '^[0-9]+/[0-9]+ Test|FAIL' "$OUT/ctest.log" | tail -40
}

# tool, test, GP_TEST_FILTER (- for none), time limit in seconds, extra sanitizer flags
SAN_LIST='memcheck gpu_vector - 200
racecheck gpu_vector dot 100
synccheck gpu_vector dot 80
memcheck gpu_core - 100 --report-api-errors=no
memcheck gpu_reduce - 150
racecheck gpu_reduce - 150
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
memcheck gpu_scan - 300
racecheck gpu_scan - 300
synccheck gpu_scan - 200
memcheck gpu_scan engine 200
racecheck gpu_scan engine 200
synccheck gpu_scan engine 150
memcheck gpu_scan_ordered - 300
racecheck gpu_scan_ordered - 300
synccheck gpu_scan_ordered - 200
memcheck gpu_select - 300
racecheck gpu_select - 300
synccheck gpu_select - 200
racecheck gpu_select engine 200
synccheck gpu_select engine 150
memcheck gpu_sort - 300
racecheck gpu_sort u32,f64 300
memcheck gpu_sort rank 200
racecheck gpu_sort rank 300
synccheck gpu_sort - 200
memcheck gpu_search - 300
racecheck gpu_search u32 200
synccheck gpu_search - 200
memcheck gpu_segsort u8,u32,f64 250
racecheck gpu_segsort u32 200
synccheck gpu_segsort u32,u64 150
memcheck gpu_bykey - 300
racecheck gpu_bykey - 300
synccheck gpu_bykey - 200
memcheck gpu_bykey engine 200
racecheck gpu_bykey engine 200
synccheck gpu_bykey engine 150
memcheck gpu_uop - 300
memcheck gpu_sortuop - 300
racecheck gpu_sortuop - 300
synccheck gpu_sortuop - 200
memcheck gpu_lab_concurrency - 300
racecheck gpu_lab_concurrency - 300
memcheck gpu_lab_memory - 300
memcheck gpu_lab_scan - 300
memcheck gpu_lab_sort - 300
memcheck gpu_lab_segsort - 300
memcheck gpu_lab_select - 300
racecheck gpu_lab_select - 300
memcheck gpu_group emulated 500
racecheck gpu_group emulated 500
synccheck gpu_group emulated 400
memcheck gpu_group nccl 500 SPLIT'

step_sanitize() { # [FAMILY]
  local fam=${1:-} only="" want=""
  case $fam in *@*) want=${fam#*@}; fam=${fam%%@*};; esac
  case $fam in *:*) only=${fam#*:}; fam=${fam%%:*};; esac
  while read -r tool t filter limit extra; do
    [ -z "$only" ] || [ "$tool" = "$only" ] || continue
    [ -z "$want" ] || [ "$filter" = "$want" ] || continue
    case $fam in "") ;; cli) continue;; lab) [[ $t == gpu_lab_* ]] || continue;; *) [ "$t" = "gpu_$fam" ] || continue;; esac
    echo "=== compute-sanitizer --tool $tool $t (filter: $filter)" >>"$OUT/sanitizer.log"
    local f=$filter; [ "$f" = - ] && f=""
    if [ "$extra" = SPLIT ]; then # NCCL beside our kernels: its records counted apart (scripts/sanitizer_split.py)
      env GP_TEST_QUICK=1 ${f:+GP_TEST_FILTER=$f} timeout "$limit" compute-sanitizer --tool "$tool" \
        $B/tests/$t >/tmp/dc_san.log 2>&1
      local rc=$?
      cat /tmp/dc_san.log >>"$OUT/sanitizer.log"
      local split; split=$(python3 scripts/sanitizer_split.py /tmp/dc_san.log)
      local src=$?
      echo "$split" >>"$OUT/sanitizer.log"
      note "compute-sanitizer $tool $t ($f, $(nvidia-smi -L | wc -l) GPUs): exit $rc, $(echo "$split" | head -1), split exit $src"
      continue
    fi
    # shellcheck disable=SC2086
    env GP_TEST_QUICK=1 ${f:+GP_TEST_FILTER=$f} timeout "$limit" compute-sanitizer --tool "$tool" \
      --error-exitcode 9 $extra $B/tests/$t >>"$OUT/sanitizer.log" 2>&1
    note "compute-sanitizer $tool $t${f:+ ($f)}: exit $?, $(grep -E '(ERROR|RACECHECK) SUMMARY' "$OUT/sanitizer.log" | tail -1)"
  done <<<"$SAN_LIST"
  if [ -z "$fam" ] || [ "$fam" = cli ]; then # the CLI's streaming verbs with their CPU head start handed to the GPU
    head -c $((64 << 20)) /dev/urandom >/tmp/dc.raw
    for v in "scan /tmp/dc.raw --dtype f32 --op sum -o /tmp/dc.out" "select /tmp/dc.raw --dtype f32 --where gt:0 -o /tmp/dc.out" \
             "histogram /tmp/dc.raw --dtype u32 --bins 100" "rle /tmp/dc.raw --dtype u8 -o /tmp/dc.out --lengths /tmp/dc.len" \
             "reduce /tmp/dc.raw --dtype f32 --op sum"; do
      echo "=== compute-sanitizer memcheck gpuprim $v (head start handed over after 1 chunk)" >>"$OUT/sanitizer.log"
      # shellcheck disable=SC2086
      GPUPRIM_TEST_HEAD_CHUNKS=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $G $v --json \
        >>"$OUT/sanitizer.log" 2>&1
      note "compute-sanitizer memcheck gpuprim ${v%% *}: exit $?"
    done
    rm -f /tmp/dc.raw /tmp/dc.out /tmp/dc.len
  fi
}

step_bench() { # [SUITE]
  local commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)} suites=${1:-}
  [ -n "$suites" ] || suites=$($G bench --help | awk '/^  [a-z]/ {print $1}')
  for s in $suites; do
    local ngpu; ngpu=$(nvidia-smi -L | wc -l)
    [ "$s" = group ] && [ "$ngpu" -lt 2 ] && { note "bench group: skipped (one GPU)"; continue; }
    if [ "$s" = group ] && [ "$ngpu" -gt 2 ]; then # two GPUs of the host as well as all of them
      printf '{"suite": "group", "command": "gpuprim bench group --devices 0,1 --json", "commit": "%s"}\n' "$commit" >>"$OUT/bench.json"
      $G bench group --devices 0,1 --skip-sweep --json >>"$OUT/bench.json" 2>>"$OUT/bench.txt"
      note "bench group --devices 0,1: exit $?"
    fi
    printf '{"suite": "%s", "command": "gpuprim bench %s --json%s", "commit": "%s"}\n' "$s" "$s" "${TUNED:+ (built with$TUNED)}" "$commit" >>"$OUT/bench.json"
    $G bench "$s" --json >>"$OUT/bench.json" 2>>"$OUT/bench.txt" # each suite runs once; its tables come from the JSON
    note "bench $s: exit $?"
  done
  python3 scripts/perf_tables.py "$OUT/bench.json" >>"$OUT/bench.txt"
  grep -E '^\| [a-z]' "$OUT/bench.txt" | head -60
}

step_profile() { # SUITE
  local s=${1:?profile needs a suite}
  ncu --target-processes all --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed \
    $G bench "$s" --reps 2 --warmup 0 >"$OUT/profile.txt" 2>&1
  note "profile $s: exit $?, $(grep -c '^  [a-zA-Z_].*(' "$OUT/profile.txt") kernel launches"
  grep -E '^  [a-zA-Z_].*\(|duration|throughput' "$OUT/profile.txt" | head -60
}

step_stalls() { # SUITE:KERNEL
  local s=${1%%:*} k=${1#*:}
  ncu --kernel-name regex:"$k" --launch-skip 1 --launch-count 1 --set full --import-source yes -f -o /tmp/dc_stalls \
    $G bench "$s" --reps 2 --warmup 0 >/tmp/dc_stalls.log 2>&1 &&
    ncu -i /tmp/dc_stalls.ncu-rep --page source --csv --print-source sass >/tmp/dc_stalls.csv 2>>/tmp/dc_stalls.log &&
    python3 bench/tune/ncu_stalls.py /tmp/dc_stalls.csv >"$OUT/stalls.txt" 2>>/tmp/dc_stalls.log
  local rc=$?
  [ $rc = 0 ] || tail -20 /tmp/dc_stalls.log >>"$OUT/stalls.txt"
  rm -f /tmp/dc_stalls.ncu-rep /tmp/dc_stalls.csv
  note "stalls $1: exit $rc"
  head -45 "$OUT/stalls.txt"
}

step_labs() { # [TOPIC]
  for t in ${1:-$($G lab --list | awk 'NF {print $1}')}; do
    echo "### gpuprim lab $t" >>"$OUT/labs.txt"
    local t0=$SECONDS
    $G lab "$t" >>"$OUT/labs.txt" 2>&1
    local rc=$?
    echo "exit $rc in $((SECONDS - t0)) s" >>"$OUT/labs.txt"
    note "lab $t: exit $rc in $((SECONDS - t0)) s"
  done
  grep -E 'FAIL|rror' "$OUT/labs.txt" | head -20
}

step_files() {
  # 1 GiB of random f32 in the page cache; each verb's wall time by default (CPU head start, then the GPU), with
  # --device cpu, and NumPy's (sync between runs: the outputs' write-back is not the next run's cost). The verbs that
  # hold their input are timed three times (the median: page-cache writes vary run to run) against their floor, `cp`
  # of their own output's bytes (argsort writes int64 positions, unique --counts values and int64 counts; topk's is
  # reading the input, its output being 100 elements), timed the same way. FILES_NUMPY=0 leaves NumPy out (its stable
  # sorts of 2^28 take minutes).
  {
    python3 -c "import numpy as np; np.random.default_rng(1).standard_normal(1 << 28, dtype=np.float32).tofile('/tmp/f.raw')"
    cat /tmp/f.raw >/dev/null
    run() { sync; local t0; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }
    med3() { local a b c; a=$(run "$@"); b=$(run "$@"); c=$(run "$@"); printf '%s\n%s\n%s\n' "$a" "$b" "$c" | sort -n | sed -n 2p; }
    np() { [ "${FILES_NUMPY:-1}" = 0 ] && { printf -- -; return; }; run python3 -c "import numpy as np; x = np.fromfile('/tmp/f.raw', dtype=np.float32); $1"; }
    local f1 f2 f3 fr
    f1=$(med3 cp /tmp/f.raw /tmp/f.out)
    f2=$(med3 sh -c 'cat /tmp/f.raw /tmp/f.raw >/tmp/f.out')
    f3=$(med3 sh -c 'cat /tmp/f.raw /tmp/f.raw /tmp/f.raw >/tmp/f.out')
    fr=$(med3 sh -c 'cat /tmp/f.raw >/dev/null')
    local su; su=$(med3 $G sort /tmp/f.raw --dtype f32 --count 1 -o /tmp/f.out) # the GPU's start-up, end to end
    while IFS='|' read -r held v py; do
      local name=${v%% *} d c floor=""
      case $v in *--consecutive*) name="$name --consecutive";; *--counts*) name="$name --counts";; topk*) name="topk -k 100";; esac
      case $held in
        -) d=$(run $G $v); c=$(run $G $v --device cpu) ;;
        *) d=$(med3 $G $v); c=$(med3 $G $v --device cpu)
           case $held in 1) floor=$f1;; 2) floor=$f2;; 3) floor=$f3;; r) floor=$fr;; esac ;;
      esac
      # shellcheck disable=SC2086
      echo "$name | default $d s | cpu $c s | numpy $(np "$py") s | floor ${floor:--} s"
    done <<'VERBS'
-|reduce /tmp/f.raw --dtype f32 --op sum|x.sum()
-|histogram /tmp/f.raw --dtype f32 --bins 100|np.histogram(x, bins=100)
-|scan /tmp/f.raw --dtype f32 --op sum -o /tmp/f.out|np.cumsum(x).tofile('/tmp/f.out')
-|select /tmp/f.raw --dtype f32 --where gt:0 -o /tmp/f.out|x[x > 0].tofile('/tmp/f.out')
-|unique /tmp/f.raw --dtype f32 -o /tmp/f.out --consecutive|x[np.r_[True, x[1:] != x[:-1]]].tofile('/tmp/f.out')
1|sort /tmp/f.raw --dtype f32 -o /tmp/f.out|np.sort(x, kind='stable').tofile('/tmp/f.out')
2|argsort /tmp/f.raw --dtype f32 -o /tmp/f.out|np.argsort(x, kind='stable').tofile('/tmp/f.out')
3|unique /tmp/f.raw --dtype f32 -o /tmp/f.out --counts /tmp/f.cnt|u, c = np.unique(x, return_counts=True); u.tofile('/tmp/f.out'); c.tofile('/tmp/f.cnt')
r|topk /tmp/f.raw --dtype f32 -k 100 -o /tmp/f.out|np.sort(np.partition(x, 99)[:100]).tofile('/tmp/f.out')
VERBS
    echo "cp 1 / 2 / 3 GiB: $f1 / $f2 / $f3 s; cat 1 GiB to /dev/null: $fr s; sort of one element (the start-up): $su s (medians of 3)"
    rm -f /tmp/f.raw /tmp/f.out /tmp/f.cnt
  } >"$OUT/files.txt" 2>&1
  { # the same rows for perf_tables.py
    local commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
    printf '{"suite": "files", "command": "scripts/device_check.sh files", "commit": "%s"}\n' "$commit"
    printf '{"title": "data verbs on 1 GiB of f32 in the page cache, wall seconds", "device": "%s", "date": "%s", "rows": [' \
      "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" "$(date -u +%F)"
    grep ' | default ' "$OUT/files.txt" | awk -F' [|] ' '{for (i = 2; i <= 5; i++) { gsub(/ s$/, "", $i); sub(/^[a-z]+ /, "", $i) }
      fl = $5 == "-" ? "null" : $5; if ($4 == "-") $4 = "null"
      rd = $5 == "-" ? "null" : sprintf("%.2f", $2 / $5); rc = $5 == "-" ? "null" : sprintf("%.2f", $3 / $5)
      printf "%s\n  {\"verb\": \"%s\", \"default_s\": %s, \"cpu_s\": %s, \"numpy_s\": %s, \"floor_s\": %s, \"default_x_floor\": %s, \"cpu_x_floor\": %s}", (NR > 1 ? "," : ""), $1, $2, $3, $4, fl, rd, rc}'
    printf '\n]}\n'
  } >>"$OUT/bench.json"
  note "files: $(grep -c ' | default ' "$OUT/files.txt") verb rows"
  cat "$OUT/files.txt"
}

step_python() { # [SIZES]
  (cd $B && ctest -V -R '^gpu_python$') >"$OUT/python.txt" 2>&1
  note "gpu_python: $(grep -E 'tests passed|tests failed' "$OUT/python.txt" | tail -1)"
  echo "### python -m gpuprim.bench --device 0 --sizes ${1:-10,16,20,24,28}" >>"$OUT/python.txt"
  (cd python && GPUPRIM_LIB=$PWD/../$B/libgpuprim.so python3 -m gpuprim.bench --device 0 --sizes "${1:-10,16,20,24,28}") \
    >>"$OUT/python.txt" 2>&1
  note "python bench: exit $?"
  sed -n '/^### python -m gpuprim.bench/,$p' "$OUT/python.txt" | tail -45
}

[ "${1:-}" = -h ] || [ "${1:-}" = --help ] && { usage; exit 0; }
[ $# -gt 0 ] || set -- build test bench
while [ $# -gt 0 ]; do
  s=$1; shift
  is_step "$s" || { echo "device_check.sh: unknown step '$s'" >&2; usage >&2; exit 2; }
  arg=""
  if [ $# -gt 0 ] && ! is_step "$1"; then arg=$1; shift; fi
  "step_$s" $arg
done
echo
echo "===== summary"
for s in "${summary[@]}"; do echo "$s"; done
