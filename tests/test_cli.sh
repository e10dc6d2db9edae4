#!/bin/sh
# CLI tests: verbs, output formats, exit codes and the demo. Runs on the CPU backend everywhere (and also exercises
# the GPU path of `info` where there is one). $1: the gpuprim executable.
set -u
. "$(dirname "$0")/cli_common.sh"

expect_rc 0 "version" "$g" version
grep -q "gpuprim 0\." "$tmp/out" && ok || bad "version text"
expect_rc 2 "no verb" "$g"
expect_rc 2 "unknown verb" "$g" frobnicate
expect_rc 0 "help" "$g" help

"$g" info >"$tmp/info" 2>"$tmp/info.err"; rc=$?
case $rc in
  0) if grep -q "compute capability" "$tmp/info"; then ok; else
       grep -q "CPU backend" "$tmp/info" && ok || bad "info without GPU lacks the CPU backend"
       [ -s "$tmp/info.err" ] && ok || bad "info without GPU gives no reason"
     fi;;
  *) bad "info exit $rc";;
esac
"$g" info --json >"$tmp/info.json" 2>/dev/null
json_ok "$tmp/info.json" && ok || bad "info --json is not JSON"
grep -q '"cpu"' "$tmp/info.json" && ok || bad "info --json lacks cpu"

expect_rc 0 "bench json" "$g" bench vector --device cpu -n 2^16 --reps 2 --warmup 1 --json
json_ok "$tmp/out" && ok || bad "bench --json is not JSON"
grep -q '"op": "triad"' "$tmp/out" && ok || bad "bench json lacks triad"
expect_rc 0 "bench csv" "$g" bench vector --device cpu -n 5000 --dtype all --reps 2 --csv
grep -q '^op,dtype,n,MB,median_us' "$tmp/out" && ok || bad "csv header"
[ "$(grep -c ',i32,' "$tmp/out")" = 5 ] && ok || bad "csv lacks the five i32 rows"
expect_rc 0 "bench svg" "$g" bench vector --device cpu -n 4096 --reps 2 --svg "$tmp/chart.svg"
grep -q '<svg' "$tmp/chart.svg" && grep -q 'triad f32' "$tmp/chart.svg" && ok || bad "svg chart"
expect_rc 2 "bench bad dtype" "$g" bench vector --dtype u8
grep -q "dtype" "$tmp/err" && ok || bad "bad dtype message"
expect_rc 2 "bench bad n" "$g" bench vector -n lots
expect_rc 2 "bench unknown primitive" "$g" bench nothing

expect_rc 0 "bench reduce json" "$g" bench reduce --device cpu -n 2^14 --reps 1 --warmup 0 --json
json_ok "$tmp/out" && ok || bad "bench reduce --json is not JSON"
grep -q '"op": "argmax"' "$tmp/out" && ok || bad "bench reduce json lacks argmax"
expect_rc 2 "bench reduce bad n" "$g" bench reduce -n 0

expect_rc 0 "bench scan cpu" "$g" bench scan -d cpu -n 5000 --reps 1 --warmup 0 --csv
[ "$(grep -c '^sum,f32' "$tmp/out")" = 3 ] && grep -q '^exclusive sum,u32' "$tmp/out" && ok || bad "bench scan rows: $(cat "$tmp/out")"
expect_rc 0 "bench select cpu" "$g" bench select -d cpu -n 5000 --reps 1 --warmup 0 --csv
grep -q '^select gt:0,f32,5000,' "$tmp/out" && grep -q '^partition gt:0,f32,5000,' "$tmp/out" && grep -q '^unique,i32,5000,' "$tmp/out" && ok ||
  bad "bench select rows: $(cat "$tmp/out")"
expect_rc 2 "bench scan bad n" "$g" bench scan -n 0
expect_rc 2 "bench graph on the CPU" "$g" bench graph -d cpu
expect_rc 2 "bench graph bad calls" "$g" bench graph --calls 0
"$g" bench graph --calls 10 -n 1000 --reps 3 --warmup 1 --json >"$tmp/out" 2>"$tmp/err"; rc=$?
case $rc in
  0) json_ok "$tmp/out" && grep -q '"check": "ok"' "$tmp/out" && ! grep -q FAIL "$tmp/out" && ok ||
       bad "bench graph: $(cat "$tmp/out")";;
  3|4) grep -q "bench graph" "$tmp/err" && ok || bad "bench graph without a GPU says nothing";;
  *) bad "bench graph exit $rc: $(cat "$tmp/err")";;
esac
# the lab (a CPU-only build, without the CUDA toolkit, has no topics and says so)
if "$g" lab --list >/dev/null 2>"$tmp/err" || ! grep -q "without the CUDA toolkit" "$tmp/err"; then
  expect_rc 0 "lab topics" "$g" lab --list
  for t in vector reduce scan histogram transpose gemm memory concurrency; do grep -q "^$t " "$tmp/out" || bad "lab --list lacks $t"; done; ok
  expect_rc 0 "lab memory list" "$g" lab memory --list
  [ "$(wc -l <"$tmp/out")" = 8 ] && grep -q '^staircase ' "$tmp/out" && ok || bad "lab memory --list: $(cat "$tmp/out")"
  expect_rc 0 "lab memory help" "$g" lab memory --help
  grep -q -- '--only LIST' "$tmp/out" && ok || bad "lab memory --help lacks --only"
  expect_rc 2 "lab memory on the CPU" "$g" lab memory -d cpu
  expect_rc 2 "lab memory unknown option" "$g" lab memory --bogus
  expect_rc 2 "lab memory option without its value" "$g" lab memory --only
  expect_rc 2 "lab unknown topic" "$g" lab memroy
  expect_rc 0 "lab scan list" "$g" lab scan --list
  [ "$(wc -l <"$tmp/out")" = 8 ] && grep -q '^08 tile-engine ' "$tmp/out" && [ "$(grep -c production "$tmp/out")" = 1 ] && ok || bad "lab scan --list: $(cat "$tmp/out")"
  expect_rc 2 "lab scan on the CPU" "$g" lab scan -d cpu
  "$g" lab scan -n 0 >"$tmp/out" 2>"$tmp/err"; rc=$?
  case $rc in
    2) grep -q -- "-n" "$tmp/err" && ok || bad "lab scan -n 0: $(cat "$tmp/err")";;
    3) ok;; # no GPU: the runner stops before the topic reads its options
    *) bad "lab scan -n 0: exit $rc";;
  esac
  expect_rc 0 "lab concurrency list" "$g" lab concurrency --list
  [ "$(wc -l <"$tmp/out")" = 7 ] && grep -q '^graphs ' "$tmp/out" && ok || bad "lab concurrency --list: $(cat "$tmp/out")"
  expect_rc 2 "lab concurrency on the CPU" "$g" lab concurrency -d cpu
  "$g" lab concurrency --only overlap,nothing >"$tmp/out" 2>"$tmp/err"; rc=$?
  case $rc in # a topic checks its own option values once it runs: 2 with a GPU, 3 (no GPU to run on) without
    2) grep -q -- "--only" "$tmp/err" && ok || bad "lab concurrency --only: $(cat "$tmp/err")";;
    3) ok;;
    *) bad "lab concurrency unknown section: exit $rc";;
  esac
  expect_rc 0 "lab list" "$g" lab vector --list
  grep -q "vector_v01_single_thread" "$tmp/out" && grep -q "production" "$tmp/out" && ok || bad "lab --list"
  expect_rc 0 "lab cpu all ops" "$g" lab vector --device cpu --op all -n 3001 --reps 2 --warmup 0
  grep -q "FAIL" "$tmp/out" && bad "lab reports a failure" || ok
  [ "$(grep -c ' ok$' "$tmp/out")" = 10 ] && ok || bad "lab: expected 10 verified rows"
  expect_rc 0 "lab reduce cpu" "$g" lab reduce --device cpu -n 100003 --reps 1 --warmup 0
  [ "$(grep -c ' ok$' "$tmp/out")" = 2 ] && ok || bad "lab reduce: expected 2 verified CPU rows: $(cat "$tmp/out")"
  expect_rc 0 "lab reduce list" "$g" lab reduce --list
  expect_rc 0 "bench histogram cpu" "$g" bench histogram --device cpu --bytes 1M --reps 1 --warmup 0 --json
  json_ok "$tmp/out" && ok || bad "bench histogram --json is not JSON"
  grep -q 'hist65536 skew' "$tmp/out" && ok || bad "bench histogram lacks the one-bin 65536 row"
  expect_rc 2 "bench histogram bad bytes" "$g" bench histogram --bytes 3
  expect_rc 0 "lab histogram cpu" "$g" lab histogram --device cpu -n 100003 --bins 7,300 --dtype u16 --reps 1 --warmup 0
  [ "$(grep -c 'reference$' "$tmp/out")" = 2 ] && ok || bad "lab histogram: expected 2 CPU reference rows: $(cat "$tmp/out")"
  expect_rc 0 "lab histogram list" "$g" lab histogram --list
  grep -q 'cluster2_dsm' "$tmp/out" && ok || bad "lab histogram --list lacks the cluster versions"
  expect_rc 2 "lab histogram bad dtype" "$g" lab histogram --dtype f16
  expect_rc 0 "lab json" "$g" lab vector --device cpu --op dot --dtype i32 -n 777 --reps 1 --json
  json_ok "$tmp/out" && ok || bad "lab --json is not JSON"
else
  expect_rc 4 "lab in a CPU-only build" "$g" lab vector
fi

"$g" bandwidth -b 1M -e 1M --reps 2 >"$tmp/out" 2>"$tmp/err"; rc=$?
case $rc in
  0) grep -q "pinned" "$tmp/out" && ok || bad "bandwidth lacks pinned";;
  3|4) grep -q "no GPU" "$tmp/err" && ok || bad "bandwidth without GPU: message";;
  *) bad "bandwidth exit $rc";;
esac
expect_rc 2 "bandwidth bad size" "$g" bandwidth -b 1X

# gpuprim reduce over raw files, stdin and .npy files (the CPU backend here; the GPU where there is one).
printf '\001\002\003\004\005' >"$tmp/u8.bin"
expect_rc 0 "reduce raw" "$g" reduce "$tmp/u8.bin" --op sum --dtype u8
grep -q "sum of 5 u8 elements: 15 " "$tmp/out" && ok || bad "reduce raw sum: $(cat "$tmp/out")"
expect_rc 0 "reduce offset/count" "$g" reduce "$tmp/u8.bin" --op sum --dtype u8 --offset 1 --count 3 --json
grep -q '"value": 9,' "$tmp/out" && json_ok "$tmp/out" && ok || bad "reduce --offset/--count: $(cat "$tmp/out")"
"$g" reduce - --op argmax --dtype u8 --json <"$tmp/u8.bin" >"$tmp/out" 2>/dev/null
grep -q '"index": 4' "$tmp/out" && ok || bad "reduce stdin argmax: $(cat "$tmp/out")"
expect_rc 2 "reduce raw without dtype" "$g" reduce "$tmp/u8.bin" --op sum
expect_rc 1 "reduce count past the end" "$g" reduce "$tmp/u8.bin" --op sum --dtype u8 --count 6
grep -q "byte 5" "$tmp/err" && ok || bad "count past the end: no byte offset: $(cat "$tmp/err")"
expect_rc 2 "reduce xor of floats" "$g" reduce "$tmp/u8.bin" --op xor --dtype f32 --count 1
expect_rc 2 "reduce no op" "$g" reduce "$tmp/u8.bin"
if command -v python3 >/dev/null 2>&1; then
  # A .npy made by hand (no NumPy needed): big-endian f4 0..9, then the same file cut short.
  python3 - "$tmp" <<'PY'
import struct, sys
d = "{'descr': '>f4', 'fortran_order': False, 'shape': (10,), }"
h = d + " " * (128 - 10 - len(d) - 1) + "\n"
body = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + struct.pack(">10f", *range(10))
open(sys.argv[1] + "/a.npy", "wb").write(body)
open(sys.argv[1] + "/short.npy", "wb").write(body[:150])
PY
  expect_rc 0 "reduce npy" "$g" reduce "$tmp/a.npy" --op minmax --json
  grep -q '"value": \[0, 9\]' "$tmp/out" && ok || bad "reduce npy minmax: $(cat "$tmp/out")"
  expect_rc 1 "reduce truncated npy" "$g" reduce "$tmp/short.npy" --op sum
  grep -q "byte 150" "$tmp/err" && ok || bad "truncated npy: no byte offset: $(cat "$tmp/err")"
  expect_rc 2 "reduce npy dtype mismatch" "$g" reduce "$tmp/a.npy" --op sum --dtype f64
  "$g" reduce - --op minmax --json <"$tmp/a.npy" >"$tmp/out" 2>/dev/null
  grep -q '"value": \[0, 9\]' "$tmp/out" && ok || bad "reduce npy from stdin: $(cat "$tmp/out")"
  cat "$tmp/a.npy" | "$g" reduce - --op minmax --json >"$tmp/out" 2>/dev/null
  grep -q '"value": \[0, 9\]' "$tmp/out" && ok || bad "reduce npy from a pipe: $(cat "$tmp/out")"
  # Fortran order: the argmax index is reported in C order, as numpy.argmax does (file index 1 = row 1, col 0 = 3).
  python3 - "$tmp" <<'PY'
import struct, sys
d = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }"
h = d + " " * (128 - 10 - len(d) - 1) + "\n"
open(sys.argv[1] + "/f.npy", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() +
                                          struct.pack("<6f", 1, 9, 2, 3, 4, 5))
PY
  expect_rc 0 "reduce fortran argmax" "$g" reduce "$tmp/f.npy" --op argmax --json
  grep -q '"index": 3' "$tmp/out" && ok || bad "reduce fortran argmax: $(cat "$tmp/out")"
fi
# Ordered (non-commutative) ops over row-major tuples: 2x2 u32 matrices (unit-triangular products: determinant 1, so
# the left fold mod 2^32 never collapses), checked against Python's left fold; last; tuples that do not divide.
if command -v python3 >/dev/null 2>&1; then
  fold=$(python3 - "$tmp" <<'PY'
import random, struct, sys
random.seed(7)
M = 2**32
def mul(a, b):
    return [(a[0]*b[0] + a[1]*b[2]) % M, (a[0]*b[1] + a[1]*b[3]) % M, (a[2]*b[0] + a[3]*b[2]) % M, (a[2]*b[1] + a[3]*b[3]) % M]
mats = [mul([1, 0, random.getrandbits(32), 1], [1, random.getrandbits(32), 0, 1]) for _ in range(3001)]
r = [1, 0, 0, 1]
for m in mats:
    r = mul(r, m)
open(sys.argv[1] + "/m.u32", "wb").write(b"".join(struct.pack("<4I", *m) for m in mats))
print("[" + ", ".join(map(str, r)) + "] " + str(mats[-1][3]))
PY
)
  expect_rc 0 "reduce ordered mat2" "$g" reduce "$tmp/m.u32" --dtype u32 --op mat2 --json
  grep -qF "\"value\": ${fold% *}" "$tmp/out" && json_ok "$tmp/out" && ok || bad "reduce mat2: $(cat "$tmp/out") want ${fold% *}"
  "$g" reduce - --dtype u32 --op last --json <"$tmp/m.u32" >"$tmp/out" 2>/dev/null
  grep -qF "\"value\": [${fold##* }]" "$tmp/out" && ok || bad "reduce last from stdin: $(cat "$tmp/out")"
  expect_rc 1 "reduce mat3 of 4-value tuples" "$g" reduce "$tmp/m.u32" --dtype u32 --op mat3
  grep -q "not a whole number of mat3 tuples" "$tmp/err" && ok || bad "mat3 message: $(cat "$tmp/err")"
  expect_rc 2 "reduce affine u32" "$g" reduce "$tmp/m.u32" --dtype u32 --op affine
  expect_rc 2 "reduce ordered with --acc" "$g" reduce "$tmp/m.u32" --dtype f32 --op mat2 --acc f64
fi
# Streaming: chunk size, reader threads and the source (file, pipe) do not change the bits.
head -c 3000016 /dev/urandom >"$tmp/big.bin" # whole u16 and f32 elements (a partial one is refused)
expect_rc 0 "reduce stream default" "$g" reduce "$tmp/big.bin" --op sum --dtype u16 --json
v1=$(grep -o '"value": [0-9]*' "$tmp/out")
expect_rc 0 "reduce stream small chunks" "$g" reduce "$tmp/big.bin" --op sum --dtype u16 --json --chunk 64K --threads 3
v2=$(grep -o '"value": [0-9]*' "$tmp/out")
"$g" reduce - --op sum --dtype u16 --json <"$tmp/big.bin" >"$tmp/out" 2>/dev/null
v3=$(grep -o '"value": [0-9]*' "$tmp/out")
[ -n "$v1" ] && [ "$v1" = "$v2" ] && [ "$v1" = "$v3" ] && ok || bad "streamed sums differ: '$v1' '$v2' '$v3'"
grep -q '"stream_gbps"' "$tmp/out" && ok || bad "reduce json lacks stream_gbps"
expect_rc 0 "reduce acc f64" "$g" reduce "$tmp/big.bin" --op sum --dtype f32 --acc f64 --json
grep -q '"acc_dtype": "f64"' "$tmp/out" && ok || bad "reduce --acc f64: $(cat "$tmp/out")"
expect_rc 2 "reduce acc f64 of min" "$g" reduce "$tmp/big.bin" --op min --dtype f32 --acc f64
# Raw input that starts like .npy (0x93) is still raw, from a pipe and from a redirected file.
printf '\223NUMPX\001\002' >"$tmp/fake.bin"
cat "$tmp/fake.bin" | "$g" reduce - --dtype u8 --op sum --json >"$tmp/out" 2>/dev/null
grep -q '"value": 558,' "$tmp/out" && ok || bad "raw 0x93 from a pipe: $(cat "$tmp/out")"
"$g" reduce - --dtype u8 --op sum --json <"$tmp/fake.bin" >"$tmp/out" 2>/dev/null
grep -q '"value": 558,' "$tmp/out" && ok || bad "raw 0x93 from a redirect: $(cat "$tmp/out")"
expect_rc 2 "reduce bad --read" "$g" reduce "$tmp/big.bin" --op sum --dtype u16 --read mmap

# gpuprim histogram: even, explicit edges, direct; json, csv, svg; stdin; errors.
if command -v python3 >/dev/null 2>&1; then
  python3 -c "import struct; open('$tmp/h.f32', 'wb').write(struct.pack('<8f', 0.0, 0.25, 0.5, 0.999, 1.0, -0.5, float('nan'), 0.3))"
  expect_rc 0 "histogram even json" "$g" histogram "$tmp/h.f32" --dtype f32 --bins 4 --range 0,1 --half-open --json
  grep -qF '"counts": [1, 2, 1, 1], "below": 1, "above": 1, "nan": 1, "elements": 8' "$tmp/out" && json_ok "$tmp/out" && ok ||
    bad "histogram even: $(cat "$tmp/out")"
  expect_rc 0 "histogram edges csv" "$g" histogram "$tmp/h.f32" --dtype f32 --edges 0,0.3,1 --half-open --csv
  grep -q '^bin,1,0.29999999999999999,1,3$' "$tmp/out" && grep -q '^nan,,,,1$' "$tmp/out" && ok || bad "histogram edges csv: $(cat "$tmp/out")"
  "$g" histogram - --dtype f32 --bins 2 --range 0,1 --half-open --json <"$tmp/h.f32" >"$tmp/out" 2>/dev/null
  grep -qF '"counts": [3, 2]' "$tmp/out" && ok || bad "histogram stdin: $(cat "$tmp/out")"
  expect_rc 0 "histogram table svg" "$g" histogram "$tmp/h.f32" --dtype f32 --bins 4 --range 0,1 --half-open --svg "$tmp/h.svg"
  grep -q 'below 1, above 1, NaN 1' "$tmp/out" && grep -q '<svg' "$tmp/h.svg" && ok || bad "histogram table/svg: $(cat "$tmp/out")"
fi
printf '\000\001\001\002\011\377' >"$tmp/h.u8"
expect_rc 0 "histogram direct" "$g" histogram "$tmp/h.u8" --dtype u8 --bins 10 --direct --json
grep -qF '"counts": [1, 2, 1, 0, 0, 0, 0, 0, 0, 1], "below": 0, "above": 1' "$tmp/out" && ok || bad "histogram direct: $(cat "$tmp/out")"
expect_rc 2 "histogram direct of floats" "$g" histogram "$tmp/h.u8" --dtype f32 --count 1 --bins 4 --direct
expect_rc 2 "histogram without bins" "$g" histogram "$tmp/h.u8" --dtype u8
expect_rc 2 "histogram bad range" "$g" histogram "$tmp/h.u8" --dtype u8 --bins 4 --range 1,0
expect_rc 2 "histogram decreasing edges" "$g" histogram "$tmp/h.u8" --dtype u8 --edges 0,5,3

# gpuprim scan: streamed in chunks (40 MB of u32 words 0x01010101: three 16 MiB chunks, so the carry crosses two
# chunk edges; with --acc u32, y[i] = (i + 1) * 0x01010101 mod 2^32 exactly), from a file and from a pipe, raw and .npy out, the
# exclusive shift, and errors that leave no output behind.
n=10000005
head -c $((4 * n)) /dev/zero | tr '\000' '\001' >"$tmp/ones.u32"
tot=$(( (n * 16843009) % 4294967296 ))
u32_at() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; } # file byte-offset
expect_rc 0 "scan u32 sum json" "$g" scan "$tmp/ones.u32" --dtype u32 --op sum --acc u32 -o "$tmp/s.raw" --json
json_ok "$tmp/out" && grep -qF "\"elements\": $n, \"total\": $tot," "$tmp/out" && ok || bad "scan u32 sum: $(cat "$tmp/out")"
[ "$(wc -c <"$tmp/s.raw")" = $((4 * n)) ] && [ "$(u32_at "$tmp/s.raw" $((4 * (n - 1))))" = "$tot" ] &&
  [ "$(u32_at "$tmp/s.raw" $((4 * 4194303)))" = $(( (4194304 * 16843009) % 4294967296 )) ] &&
  [ "$(u32_at "$tmp/s.raw" $((4 * 4194304)))" = $(( (4194305 * 16843009) % 4294967296 )) ] && ok ||
  bad "scan u32 sum: the raw output's values across the chunk edge"
cat "$tmp/ones.u32" | "$g" scan - --dtype u32 --op sum --acc u32 --exclusive -o "$tmp/s.npy" --csv >"$tmp/out" 2>"$tmp/err"
grep -q "^sum,exclusive,u32,u32,$n,$tot," "$tmp/out" && ok || bad "scan from a pipe: $(cat "$tmp/out" "$tmp/err")"
hb=$(( $(wc -c <"$tmp/s.npy") - 4 * n ))
[ "$hb" -gt 0 ] && [ $((hb % 64)) = 0 ] && [ "$(u32_at "$tmp/s.npy" "$hb")" = 0 ] &&
  [ "$(u32_at "$tmp/s.npy" $((hb + 4)))" = 16843009 ] && head -c "$hb" "$tmp/s.npy" | grep -qa "'shape': ($n,)" && ok ||
  bad "scan .npy from a pipe: header $hb bytes, $(head -c "$hb" "$tmp/s.npy" | tr -d '\000-\011')"
if command -v python3 >/dev/null 2>&1 && python3 -c "import numpy" 2>/dev/null; then
  python3 -c "import numpy as np; np.save('$tmp/g.npy', np.random.default_rng(7).standard_normal(70001))"
  expect_rc 0 "scan f64 npy" "$g" scan "$tmp/g.npy" --op max -o "$tmp/gmax.npy"
  expect_rc 0 "scan f64 npy sum" "$g" scan "$tmp/g.npy" --op sum -o "$tmp/gsum.npy"
  python3 - "$tmp" <<'PY' && ok || bad "scan f64 .npy against numpy"
import sys, numpy as np
t = sys.argv[1]
x = np.load(t + "/g.npy")
assert np.array_equal(np.load(t + "/gmax.npy"), np.maximum.accumulate(x))
s = np.load(t + "/gsum.npy")
assert s.dtype == np.float64 and s.shape == x.shape
assert np.max(np.abs(s - np.cumsum(x))) <= 1e-12 * np.max(np.abs(np.cumsum(np.abs(x))))
PY
fi
# narrow dtypes and the accumulator: the same 40 MB as u8 ones, i.e. 4 * n elements; wrapping in u8, exact in u64
# (--acc default) through many chunks
expect_rc 0 "scan u8 sum --acc default" "$g" scan "$tmp/ones.u32" --dtype u8 --op sum --acc default -o "$tmp/s8.raw" --json
u64_at() { od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '; }
grep -qF '"out_dtype": "u64"' "$tmp/out" && grep -qF "\"total\": $((4 * n))," "$tmp/out" &&
  [ "$(wc -c <"$tmp/s8.raw")" = $((32 * n)) ] && [ "$(u64_at "$tmp/s8.raw" $((8 * 2097151)))" = 2097152 ] &&
  [ "$(u64_at "$tmp/s8.raw" $((8 * 2097152)))" = 2097153 ] && ok || bad "scan u8 -> u64: $(cat "$tmp/out")"
expect_rc 0 "scan u8 sum wraps" "$g" scan "$tmp/ones.u32" --dtype u8 --op sum --acc u8 -o "$tmp/s8w.raw" --csv
[ "$(od -An -tu1 -j 299 -N1 "$tmp/s8w.raw" | tr -d ' ')" = 44 ] && [ "$(wc -c <"$tmp/s8w.raw")" = $((4 * n)) ] && ok ||
  bad "scan u8 wrapping: $(od -An -tu1 -j 299 -N1 "$tmp/s8w.raw")"
expect_rc 2 "scan bad --acc" "$g" scan "$tmp/ones.u32" --dtype u8 --op max --acc u64 -o "$tmp/x.raw"
says "scan bad --acc: why" "choices" "$tmp/err"
if command -v python3 >/dev/null 2>&1 && python3 -c "import numpy" 2>/dev/null; then
  python3 -c "import numpy as np; np.save('$tmp/h.npy', (np.random.default_rng(8).random(70001) * 2 - 1).astype(np.float16))"
  expect_rc 0 "scan f16 npy" "$g" scan "$tmp/h.npy" --op sum -o "$tmp/hsum.npy"
  expect_rc 0 "scan f16 npy in f64" "$g" scan "$tmp/h.npy" --op sum --acc f64 -o "$tmp/hsum64.npy"
  python3 - "$tmp" <<'PY' && ok || bad "scan f16 .npy against numpy"
import sys, numpy as np
t = sys.argv[1]
x = np.load(t + "/h.npy").astype(np.float64)
r = np.cumsum(x)
h = np.load(t + "/hsum.npy")
assert h.dtype == np.float16 and h.shape == x.shape
# f32 accumulation, then one rounding to f16: within half an f16 ulp of the value plus the f32 error
assert np.all(np.abs(h.astype(np.float64) - r) <= np.abs(r) * 2.0**-11 + 1e-4 * (1 + np.arange(len(r))) ** 0.5 * 2.0**-10)
d = np.load(t + "/hsum64.npy")
assert d.dtype == np.float64 and np.max(np.abs(d - r)) <= 1e-9
PY
fi
# ordered ops: an affine f64 recurrence through two chunks (1.2M pairs), against the serial recurrence in numpy
if command -v python3 >/dev/null 2>&1 && python3 -c "import numpy" 2>/dev/null; then
  python3 -c "
import numpy as np
r = np.random.default_rng(9); n = 1200001
a = np.where(r.random(n) < 0.5, -1.0, 1.0) * (1 + 1e-4 * (2 * r.random(n) - 1))
np.save('$tmp/aff.npy', np.stack([a, 2 * r.random(n) - 1], 1))"
  expect_rc 0 "scan affine npy" "$g" scan "$tmp/aff.npy" --op affine -o "$tmp/affo.npy" --json
  grep -qF '"op": "affine"' "$tmp/out" && grep -qF '"elements": 1200001' "$tmp/out" && ok || bad "scan affine: $(cat "$tmp/out")"
  python3 - "$tmp" <<'PY' && ok || bad "scan affine against the serial recurrence"
import sys, numpy as np
t = sys.argv[1]
x = np.load(t + "/aff.npy"); y = np.load(t + "/affo.npy").reshape(-1, 2)
a, b = x[:, 0].tolist(), x[:, 1].tolist()
v, r = 0.0, np.empty(len(a))
for i in range(len(a)):
    v = a[i] * v + b[i]
    r[i] = v
assert np.max(np.abs(y[:, 1] - r)) <= 1e-9 * max(1.0, np.max(np.abs(r)))
assert np.allclose(y[:, 0], np.cumprod(x[:, 0]), rtol=1e-9, atol=0)
PY
  expect_rc 2 "scan mat2 of a pair array" "$g" scan "$tmp/aff.npy" --op mat2 -o "$tmp/x.npy"
  says "scan mat2 of pairs: why" "whole number of mat2" "$tmp/err"
  head -c 12 "$tmp/ones.u32" | "$g" scan - --dtype f32 --op affine -o "$tmp/x.npy" >"$tmp/out" 2>"$tmp/err"
  [ $? = 1 ] && grep -q "inside an element of affine" "$tmp/err" && [ ! -e "$tmp/x.npy" ] && ok ||
    bad "scan affine of 3 values from a pipe: $(cat "$tmp/err")"
  expect_rc 2 "scan affine --acc" "$g" scan "$tmp/aff.npy" --op affine --acc f64 -o "$tmp/x.npy"
  [ ! -e "$tmp/x.npy" ] && ok || bad "a refused ordered scan left its output"
fi
expect_rc 2 "scan without -o" "$g" scan "$tmp/ones.u32" --dtype u32 --op sum
expect_rc 2 "scan without --op" "$g" scan "$tmp/ones.u32" --dtype u32 -o "$tmp/x.raw"
expect_rc 2 "scan bad op" "$g" scan "$tmp/ones.u32" --dtype u32 --op mean -o "$tmp/x.raw"
expect_rc 2 "scan xor of floats" "$g" scan "$tmp/ones.u32" --dtype f32 --op xor -o "$tmp/x.raw"
says "scan xor of floats: why" "xor of f32" "$tmp/err"
[ ! -e "$tmp/x.raw" ] && ok || bad "a refused scan left its output"
printf '\223NUMPY\001\000v\000{'"'"'descr'"'"': '"'"'<u4'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (1000,), }' >"$tmp/short.npy"
head -c $((128 - $(wc -c <"$tmp/short.npy") - 1)) /dev/zero | tr '\000' ' ' >>"$tmp/short.npy"; printf '\n' >>"$tmp/short.npy"
head -c 400 "$tmp/ones.u32" >>"$tmp/short.npy"
expect_rc 1 "scan of a short .npy" "$g" scan "$tmp/short.npy" --op sum -o "$tmp/x.npy"
says "scan short .npy: the byte offset" "byte 528" "$tmp/err"
[ ! -e "$tmp/x.npy" ] && [ -z "$(ls "$tmp" | grep 'x.npy.tmp')" ] && ok || bad "a failed scan left output behind"
expect_rc 1 "scan to an unwritable place" "$g" scan "$tmp/ones.u32" --dtype u32 --op sum -o "$tmp/no/such/dir/x.raw"
# gpuprim select: the same 40 MB (three chunks): all kept, none kept, from a pipe to .npy; NumPy's x[x > 0.5];
# integer bounds exact; errors.
expect_rc 0 "select all" "$g" select "$tmp/ones.u32" --dtype u32 --where eq:16843009 -o "$tmp/k.raw" --json
json_ok "$tmp/out" && grep -qF "\"elements\": $n, \"kept\": $n," "$tmp/out" && cmp -s "$tmp/k.raw" "$tmp/ones.u32" && ok ||
  bad "select all: $(cat "$tmp/out")"
cat "$tmp/ones.u32" | "$g" select - --dtype u32 --where gt:16843009.5 -o "$tmp/k.npy" --csv >"$tmp/out" 2>"$tmp/err"
grep -q "^gt:16843009.5,u32,$n,0," "$tmp/out" && head -c 128 "$tmp/k.npy" | grep -qa "'shape': (0,)" && ok ||
  bad "select none from a pipe: $(cat "$tmp/out" "$tmp/err")"
if command -v python3 >/dev/null 2>&1 && python3 -c "import numpy" 2>/dev/null; then
  python3 -c "import numpy as np; np.save('$tmp/sel.npy', np.random.default_rng(5).standard_normal(300007)); np.arange(-50, 50, dtype=np.int64).tofile('$tmp/sel.i64')"
  expect_rc 0 "select f64 gt" "$g" select "$tmp/sel.npy" --where gt:0.5 -o "$tmp/sel_out.npy"
  expect_rc 0 "select i64 in" "$g" select "$tmp/sel.i64" --dtype i64 --where in:-2.5,3 -o "$tmp/sel_i.raw"
  python3 - "$tmp" <<'PY' && ok || bad "select against numpy"
import sys, numpy as np
t = sys.argv[1]
x = np.load(t + "/sel.npy")
assert np.array_equal(np.load(t + "/sel_out.npy"), x[x > 0.5])
assert list(np.fromfile(t + "/sel_i.raw", dtype=np.int64)) == [-2, -1, 0, 1, 2]
PY
fi
expect_rc 2 "select without --where" "$g" select "$tmp/ones.u32" --dtype u32 -o "$tmp/x.raw"
expect_rc 2 "select bad predicate" "$g" select "$tmp/ones.u32" --dtype u32 --where between:1,2 -o "$tmp/x.raw"
says "select bad predicate: why" "not a predicate" "$tmp/err"
[ ! -e "$tmp/x.raw" ] && ok || bad "a refused select left its output"
# gpuprim unique / rle: one run through all three chunks (joined across both chunk edges), then NumPy's rules.
expect_rc 0 "unique of one run" "$g" unique --consecutive "$tmp/ones.u32" --dtype u32 -o "$tmp/u.raw" --json
grep -qF "\"elements\": $n, \"kept\": 1," "$tmp/out" && [ "$(wc -c <"$tmp/u.raw")" = 4 ] && ok || bad "unique of one run: $(cat "$tmp/out")"
cat "$tmp/ones.u32" | "$g" rle - --dtype u32 -o "$tmp/rv.raw" --lengths "$tmp/rl.raw" --csv >"$tmp/out" 2>"$tmp/err"
grep -q "^u32,$n,1," "$tmp/out" && [ "$(od -An -tu8 "$tmp/rl.raw" | tr -d ' ')" = "$n" ] &&
  [ "$(u32_at "$tmp/rv.raw" 0)" = 16843009 ] && ok || bad "rle of one run from a pipe: $(cat "$tmp/out" "$tmp/err")"
if command -v python3 >/dev/null 2>&1 && python3 -c "import numpy" 2>/dev/null; then
  python3 -c "
import numpy as np
r = np.random.default_rng(9)
x = np.repeat(r.integers(-2, 3, 2000000).astype(np.int32), r.integers(1, 5, 2000000))
np.save('$tmp/runs.npy', x)
f = np.repeat(np.array([0.0, -0.0, np.nan, np.nan, 1.5, 1.5, -0.0, 0.0]), 3)
np.save('$tmp/fruns.npy', f)"
  expect_rc 0 "unique npy" "$g" unique --consecutive "$tmp/runs.npy" -o "$tmp/u.npy"
  expect_rc 0 "rle npy" "$g" rle "$tmp/runs.npy" -o "$tmp/rv.npy" --lengths "$tmp/rl.npy"
  expect_rc 0 "rle floats" "$g" rle "$tmp/fruns.npy" -o "$tmp/fv.npy" --lengths "$tmp/fl.npy"
  python3 - "$tmp" <<'PY' && ok || bad "unique / rle against numpy"
import sys, numpy as np
t = sys.argv[1]
x = np.load(t + "/runs.npy")
h = np.r_[True, x[1:] != x[:-1]]
idx = np.flatnonzero(h)
assert np.array_equal(np.load(t + "/u.npy"), x[h])
assert np.array_equal(np.load(t + "/rv.npy"), x[idx])
assert np.array_equal(np.load(t + "/rl.npy"), np.diff(np.r_[idx, x.size]))
assert list(np.load(t + "/fl.npy")) == [6, 1, 1, 1, 1, 1, 1, 6, 6]
PY
fi
expect_rc 2 "rle without --lengths" "$g" rle "$tmp/ones.u32" --dtype u32 -o "$tmp/x.raw"
expect_rc 1 "rle to an unwritable lengths" "$g" rle "$tmp/ones.u32" --dtype u32 -o "$tmp/x.raw" --lengths "$tmp/no/dir/l.raw"
[ ! -e "$tmp/x.raw" ] && ok || bad "a failed rle left its values file"
# ---- user operators: C compiled at run time (NVRTC on a GPU, the C compiler on the CPU backend), on the
# u32 words 0x01010101 of the scan tests; a private disk cache
export GP_JIT_CACHE="$tmp/jitcache"
expect_rc 0 "reduce --op-src u32" "$g" reduce "$tmp/ones.u32" --dtype u32 --op-src 'a + b' --identity 0 --json
json_ok "$tmp/out" && grep -qF "\"elements\": $n, \"value\": $tot," "$tmp/out" && ok || bad "reduce --op-src: $(cat "$tmp/out")"
expect_rc 0 "reduce --op-src f32" "$g" reduce "$tmp/ones.u32" --dtype f32 --op-src 'a + b' --identity -0.0f --json
v1=$(sed 's/.*"value": \([^,]*\),.*/\1/' "$tmp/out")
expect_rc 0 "reduce --op sum f32" "$g" reduce "$tmp/ones.u32" --dtype f32 --op sum --json
v2=$(sed 's/.*"value": \([^,]*\),.*/\1/' "$tmp/out")
[ -n "$v1" ] && [ "$v1" = "$v2" ] && ok || bad "user a + b ($v1) is not gp_reduce's sum ($v2)"
expect_rc 0 "reduce --map u8" "$g" reduce "$tmp/ones.u32" --dtype u8 --map 'x * 3' --map-dtype u64 --op sum --json
grep -qF "\"value\": $((12 * n))," "$tmp/out" && grep -qF '"map": "x * 3"' "$tmp/out" && ok || bad "reduce --map: $(cat "$tmp/out")"
expect_rc 0 "reduce --ordered tuples" "$g" reduce "$tmp/ones.u32" --dtype u32 --count $((n - 1)) --arity 2 --ordered \
  --op-src 'r[0] = a[0] + b[0]; r[1] = a[1] ^ b[1];' --identity '0, 0' --json
grep -qF "\"value\": [$(( ((n - 1) / 2 * 16843009) % 4294967296 )), 0]," "$tmp/out" && grep -qF '"tree": "ordered"' "$tmp/out" &&
  ok || bad "reduce --ordered: $(cat "$tmp/out")"
expect_rc 1 "reduce tuples: a partial element" "$g" reduce "$tmp/ones.u32" --dtype u32 --arity 2 --op-src 'r[0] = a[0]; r[1] = b[1];' --identity '0, 0'
says "partial element: why" "whole number" "$tmp/err"
expect_rc 2 "reduce --op-src: a compile error" "$g" reduce "$tmp/ones.u32" --dtype u32 --op-src 'a + c' --identity 0
says "compile error: position" "op:1:5" "$tmp/err"
says "compile error: the user's line" "^  a + c" "$tmp/err"
says "compile error: the caret" "^      \^" "$tmp/err"
expect_rc 2 "reduce --op-src without --identity" "$g" reduce "$tmp/ones.u32" --dtype u32 --op-src 'a + b'
says "no identity: why" "identity" "$tmp/err"
expect_rc 2 "reduce --identity alone" "$g" reduce "$tmp/ones.u32" --dtype u32 --op sum --identity 0
expect_rc 0 "map u32" "$g" map "$tmp/ones.u32" --dtype u32 --src 'x + 1u' -o "$tmp/m.raw" --json
[ "$(wc -c <"$tmp/m.raw")" = $((4 * n)) ] && [ "$(u32_at "$tmp/m.raw" 0)" = 16843010 ] &&
  [ "$(u32_at "$tmp/m.raw" $((4 * (n - 1))))" = 16843010 ] && grep -qF "\"elements\": $n," "$tmp/out" && ok ||
  bad "map u32: $(cat "$tmp/out")"
expect_rc 0 "map u32 -> u64 npy from a pipe" sh -c "cat '$tmp/ones.u32' | '$g' map - --dtype u32 --src '(unsigned long long)x * 4096u' --out-dtype u64 -o '$tmp/m.npy'"
hb=$(( $(wc -c <"$tmp/m.npy") - 8 * n ))
[ "$hb" -gt 0 ] && [ "$(u64_at "$tmp/m.npy" "$hb")" = $((16843009 * 4096)) ] && ok || bad "map to u64 .npy: header $hb"
expect_rc 2 "map: a compile error" "$g" map "$tmp/ones.u32" --dtype u32 --src 'x +* 2' -o "$tmp/bad.raw"
says "map compile error: position" "map:1:" "$tmp/err"
[ ! -e "$tmp/bad.raw" ] && ok || bad "a failed map left its output"
expect_rc 0 "scan --op-src u32" "$g" scan "$tmp/ones.u32" --dtype u32 --op-src 'a + b' --identity 0 -o "$tmp/us.raw" --json
json_ok "$tmp/out" && grep -qF "\"elements\": $n," "$tmp/out" && cmp -s "$tmp/us.raw" "$tmp/s.raw" && ok ||
  bad "scan --op-src: not gpuprim scan --op sum's bytes: $(cat "$tmp/out")"
expect_rc 0 "scan --op-src exclusive npy" "$g" scan "$tmp/ones.u32" --dtype u32 --op-src 'a + b' --identity 0 --exclusive -o "$tmp/use.npy"
expect_rc 0 "scan --op sum exclusive npy" "$g" scan "$tmp/ones.u32" --dtype u32 --op sum --acc u32 --exclusive -o "$tmp/se.npy"
cmp -s "$tmp/use.npy" "$tmp/se.npy" && ok || bad "scan --op-src --exclusive: not --op sum's file"
expect_rc 0 "scan --op-src pairs" "$g" scan "$tmp/ones.u32" --dtype u32 --count $((n - 1)) --arity 2 \
  --op-src 'r[0] = a[0] + b[0]; r[1] = a[1] ^ b[1];' --identity '0, 0' -o "$tmp/up.raw"
[ "$(wc -c <"$tmp/up.raw")" = $((4 * (n - 1))) ] && [ "$(u32_at "$tmp/up.raw" 0)" = 16843009 ] &&
  [ "$(u32_at "$tmp/up.raw" 4)" = 16843009 ] && [ "$(u32_at "$tmp/up.raw" 12)" = 0 ] &&
  [ "$(u32_at "$tmp/up.raw" $((4 * (n - 3))))" = $(( ((n - 1) / 2 * 16843009) % 4294967296 )) ] && ok ||
  bad "scan --op-src pairs: $(od -An -tu4 -N16 "$tmp/up.raw")"
expect_rc 2 "scan --op-src u8: not whole words" "$g" scan "$tmp/ones.u32" --dtype u8 --op-src 'a + b' --identity 0 -o "$tmp/u8.raw"
[ ! -e "$tmp/u8.raw" ] && ok || bad "a refused scan left its output"
expect_rc 0 "select --where-src u8" "$g" select "$tmp/ones.u32" --dtype u8 --count 1000 --where-src 'x == 1' -o "$tmp/w.raw" --json
grep -qF '"kept": 1000,' "$tmp/out" && [ "$(wc -c <"$tmp/w.raw")" = 1000 ] && ok || bad "select --where-src: $(cat "$tmp/out")"
expect_rc 0 "select --where-src none kept" "$g" select "$tmp/ones.u32" --dtype u32 --where-src 'x != 16843009u' -o "$tmp/w0.raw" --csv
[ "$(wc -c <"$tmp/w0.raw")" = 0 ] && ok || bad "select --where-src that keeps nothing"
expect_rc 2 "select --where and --where-src" "$g" select "$tmp/ones.u32" --dtype u8 --where nonzero --where-src 'x' -o "$tmp/w1.raw"
expect_rc 2 "select --where-src: a compile error" "$g" select "$tmp/ones.u32" --dtype u8 --where-src 'x ==' -o "$tmp/w2.raw"
says "select compile error: position" "pred:" "$tmp/err"
unset GP_JIT_CACHE

rm -f "$tmp/ones.u32" "$tmp/s.raw" "$tmp/s.npy"

# The main job: `make demo` runs this.
"$g" demo >"$tmp/demo" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "demo finished" "$tmp/demo" && ok || { bad "demo exit $rc"; tail -20 "$tmp/demo" >&2; }
grep -q "sort: 4194304 f32 ascending" "$tmp/demo" && ok || bad "the demo sorts its .npy file"


# ---- bench size sweeps (nccl-tests' -b/-e/-f) and the spinner on long matrix work
expect_rc 0 "bench gemm sweep" "$g" bench gemm -d cpu -b 8 -e 32 -f 2 --reps 1 --warmup 0 --csv
[ "$(grep -c '^sgemm NN,f32,' "$tmp/out")" = 3 ] && grep -q '^sgemm NN,f32,32,32,32,' "$tmp/out" && ok \
  || bad "bench gemm -b 8 -e 32 -f 2: want sides 8 16 32: $(cat "$tmp/out")"
expect_rc 0 "bench gemm sweep f64, end on -e" "$g" bench gemm -d cpu -b 10 -e 50 -f 3 --dtype f64 --reps 1 --csv
[ "$(grep -c '^dgemm NN,f64,' "$tmp/out")" = 3 ] && grep -q '^dgemm NN,f64,50,' "$tmp/out" && ok \
  || bad "bench gemm -b 10 -e 50 -f 3: want sides 10 30 50: $(cat "$tmp/out")"
expect_rc 0 "bench transpose sweep" "$g" bench transpose -d cpu -b 64 -e 128 --reps 1 --csv
[ "$(grep -c '^transpose' "$tmp/out")" = 2 ] && ok || bad "bench transpose sweep rows: $(cat "$tmp/out")"
expect_rc 0 "bench vector sweep" "$g" bench vector -d cpu -b 64K -e 256K --reps 1 --csv
grep -q '^triad,f32,16384,' "$tmp/out" && grep -q '^triad,f32,65536,' "$tmp/out" && ok || bad "bench vector sweep rows"
expect_rc 0 "bench reduce sweep" "$g" bench reduce -d cpu -b 1M -e 1M --reps 1 --csv
[ "$(grep -c ',262144,' "$tmp/out")" = 5 ] && ok || bad "bench reduce sweep: five ops at 2^18: $(cat "$tmp/out")"
expect_rc 0 "bench histogram sweep" "$g" bench histogram -d cpu -b 64K -e 128K -f 2 --reps 1 --csv
grep -q '^hist256 cpu,u8,131072,' "$tmp/out" && grep -q '^hist256 cpu,u8,65536,' "$tmp/out" && ok || bad "bench histogram sweep"
expect_rc 2 "sweep -b past -e" "$g" bench vector -d cpu -b 4M -e 1M
says "sweep order message" "larger than -e" "$tmp/err"
expect_rc 2 "sweep factor 1" "$g" bench gemm -d cpu -f 1
expect_rc 2 "sweep -b 0" "$g" bench transpose -d cpu -b 0
expect_rc 2 "sweep with -n" "$g" bench reduce -d cpu -n 5 -b 1M
expect_rc 2 "bandwidth -f nan" "$g" bandwidth -f nan

# --device auto: a small input goes to the CPU backend and says why; --json reports start-up apart
head -c 400000 /dev/urandom >"$tmp/auto.raw"
expect_rc 0 "reduce --device auto" "$g" reduce "$tmp/auto.raw" --dtype u8 --op sum --device auto --json
says "auto says which" "device auto: the CPU backend (estimated" "$tmp/err"
says "json has startup_seconds" '"startup_seconds"' "$tmp/out"
says "json has context_seconds" '"context_seconds"' "$tmp/out"
says "auto picked the CPU" '"device": "CPU backend' "$tmp/out"
expect_rc 2 "--device autox" "$g" reduce "$tmp/auto.raw" --dtype u8 --op sum --device autox

# start-up overlap: while the context starts (slowed down here) the CPU reduces the first chunks and hands its
# partial tree over (gp_reducer_transfer); the bits equal the CPU backend's, whatever the split
head -c $((80 << 20)) /dev/urandom >"$tmp/head.raw"
for op in sum argmax minmax; do
    "$g" reduce "$tmp/head.raw" --dtype f32 --op "$op" --json -d cpu >"$tmp/ref.json" 2>/dev/null
    ref=$(sed 's/.*"value": \([^,]*\(, [^]]*\]\)*\).*"acc_dtype".*/\1/' "$tmp/ref.json")
    for delay in 1 40 5000; do
        expect_rc 0 "reduce $op, context delayed $delay ms" \
            env GPUPRIM_TEST_CONTEXT_DELAY_MS=$delay "$g" reduce "$tmp/head.raw" --dtype f32 --op "$op" --json
        got=$(sed 's/.*"value": \([^,]*\(, [^]]*\]\)*\).*"acc_dtype".*/\1/' "$tmp/out")
        [ "$got" = "$ref" ] && ok || bad "reduce $op with a CPU head of $delay ms: $got, CPU backend $ref"
        if [ "$op" = argmax ]; then
            [ "$(grep -o '"index": [0-9]*' "$tmp/out")" = "$(grep -o '"index": [0-9]*' "$tmp/ref.json")" ] && ok ||
                bad "argmax index with a CPU head of $delay ms"
        fi
    done
    says "a slow start: the CPU did the whole input" '"cpu_head_elements": 20971520' "$tmp/out"
    says "and said so" "the CPU finished the input before a GPU context was ready" "$tmp/err"
done
# every streaming verb has the head start (tools/gpuprim/pipeline.c): the same bytes whatever the split between the
# CPU's head and the context that takes over (on a machine without a GPU, the CPU backend again); the head stopped
# after 1 or 3 chunks. Float scans get finite data in [-1, 1) (a NaN's payload is the hardware's own)
head -c $((160 << 20)) /dev/urandom >"$tmp/fin_src.raw"
"$g" select "$tmp/fin_src.raw" --dtype f32 --where in:-1,1 -o "$tmp/fin_odd.raw" -d cpu >/dev/null 2>&1
head -c $(($(wc -c <"$tmp/fin_odd.raw") / 8 * 8)) "$tmp/fin_odd.raw" >"$tmp/fin.raw" # whole affine pairs
rm -f "$tmp/fin_src.raw" "$tmp/fin_odd.raw"
for chunks in 1 3; do
    for args in "scan --op sum" "scan --op max --exclusive" "scan --op affine" "select --where gt:0.5" \
                "unique --consecutive" "rle --lengths LEN"; do
        set -- $args
        v=$1; shift
        src=$tmp/head.raw; [ "$v" = scan ] && src=$tmp/fin.raw
        lenref= ; lengot=
        case "$*" in *LEN*) lenref="$tmp/hl_ref.raw"; lengot="$tmp/hl_got.raw";; esac
        # shellcheck disable=SC2046
        "$g" "$v" "$src" --dtype f32 $(echo "$@" | sed "s#LEN#$tmp/hl_ref.raw#") -o "$tmp/h_ref.raw" -d cpu \
            >/dev/null 2>&1
        expect_rc 0 "$v $*, a head of $chunks chunks" env GPUPRIM_TEST_HEAD_CHUNKS=$chunks \
            "$g" "$v" "$src" --dtype f32 $(echo "$@" | sed "s#LEN#$tmp/hl_got.raw#") -o "$tmp/h_got.raw" --json
        cmp -s "$tmp/h_ref.raw" "$tmp/h_got.raw" && ok || bad "$v $* with a CPU head of $chunks chunks: not the CPU backend's bytes"
        [ -z "$lenref" ] || { cmp -s "$lenref" "$lengot" && ok || bad "$v $* lengths with a CPU head of $chunks chunks"; }
        grep -q "\"cpu_head_elements\": $((chunks * (16 << 20) / 4))," "$tmp/out" && ok || bad "$v $*: not a head of $chunks chunks: $(cat "$tmp/out")"
    done
    for args in "--dtype u32 --bins 1000" "--dtype f32 --bins 77 --range -1,1" "--dtype f32 --bins 5 --range 0,1 --half-open"; do
        # shellcheck disable=SC2086
        "$g" histogram "$tmp/head.raw" $args --json -d cpu >"$tmp/h_ref.json" 2>/dev/null
        # shellcheck disable=SC2086
        expect_rc 0 "histogram $args, a head of $chunks chunks" env GPUPRIM_TEST_HEAD_CHUNKS=$chunks \
            "$g" histogram "$tmp/head.raw" $args --json
        [ "$(sed 's/.*"counts": \(\[[^]]*\]\).*"nan": \([0-9]*\).*/\1 \2/' "$tmp/out")" = \
          "$(sed 's/.*"counts": \(\[[^]]*\]\).*"nan": \([0-9]*\).*/\1 \2/' "$tmp/h_ref.json")" ] && ok ||
            bad "histogram $args with a CPU head of $chunks chunks: counts differ from the CPU backend's"
    done
done
expect_rc 0 "--no-overlap waits for the context" \
    env GPUPRIM_TEST_CONTEXT_DELAY_MS=500 "$g" reduce "$tmp/auto.raw" --dtype u8 --op sum --json --no-overlap --count 100
says "--no-overlap: no CPU head" '"cpu_head_elements": 0' "$tmp/out"
mkfifo "$tmp/fifo"
head -c 1000000 "$tmp/head.raw" >"$tmp/fifo" &
expect_rc 1 "a short pipe during the CPU head" \
    env GPUPRIM_TEST_CONTEXT_DELAY_MS=5000 "$g" reduce - --dtype f32 --op sum --count 300000 <"$tmp/fifo"
wait
says "the short pipe's byte offset" "byte 1000000: the data ends after 250000 of 300000 elements" "$tmp/err"

# ---- matrices: gpuprim transpose / gemm (device: auto, so the GPU where there is one)
head -c $((1000 * 37 * 4)) /dev/urandom >"$tmp/m.raw"
expect_rc 0 "transpose raw -> npy" "$g" transpose "$tmp/m.raw" "$tmp/mt.npy" --shape 1000,37 --dtype f32
expect_rc 0 "transpose npy -> npy --json" "$g" transpose "$tmp/mt.npy" "$tmp/mtt.npy" --json
json_ok "$tmp/out" && ok || bad "transpose --json is not JSON"
grep -q '"rows": 37' "$tmp/out" && ok || bad "transpose --json shape"
tail -c $((1000 * 37 * 4)) "$tmp/mtt.npy" | cmp -s - "$tmp/m.raw" && ok || bad "transpose twice is not the identity"
# every verb takes the common options or refuses them in one way (transpose --csv, say)
expect_rc 0 "transpose --csv" "$g" transpose "$tmp/mt.npy" "$tmp/mtt.npy" --csv
[ "$(wc -l <"$tmp/out")" = 2 ] && ok || bad "transpose --csv: $(cat "$tmp/out")"
for v in "info --csv" "info --reps 3" "demo --json" "transpose $tmp/mt.npy $tmp/x.npy --svg $tmp/x.svg"; do
  expect_rc 2 "$v refused" "$g" $v
  grep -q "does not apply to ${v%% *} (it takes" "$tmp/err" && ok || bad "$v: $(cat "$tmp/err")"
done
expect_rc 0 "transpose --order f to raw" "$g" transpose "$tmp/m.raw" "$tmp/mtf.raw" --shape 37,1000 --dtype i32 --order f
expect_rc 0 "transpose back, order f" "$g" transpose "$tmp/mtf.raw" "$tmp/mtf2.raw" --shape 1000,37 --dtype i32 --order f
cmp -s "$tmp/mtf2.raw" "$tmp/m.raw" && ok || bad "Fortran-order transpose twice is not the identity"
expect_rc 2 "transpose raw without --dtype" "$g" transpose "$tmp/m.raw" "$tmp/x.npy" --shape 1000,37
expect_rc 1 "transpose raw shorter than its shape" "$g" transpose "$tmp/m.raw" "$tmp/x.npy" --shape 1000,38 --dtype f32
expect_rc 0 "transpose f16" "$g" transpose "$tmp/m.raw" "$tmp/m16t.raw" --shape 1000,74 --dtype f16
expect_rc 0 "transpose f16 back" "$g" transpose "$tmp/m16t.raw" "$tmp/m16.raw" --shape 74,1000 --dtype f16
cmp -s "$tmp/m16.raw" "$tmp/m.raw" && ok || bad "f16 transpose twice is not the identity"
expect_rc 1 "transpose missing file" "$g" transpose "$tmp/none.npy" "$tmp/x.npy"
expect_rc 2 "gemm --beta without --c" "$g" gemm "$tmp/mt.npy" "$tmp/mtt.npy" -o "$tmp/c.npy" --beta 2
expect_rc 2 "gemm inner dimensions differ" "$g" gemm "$tmp/mtt.npy" "$tmp/mtt.npy" -o "$tmp/c.npy"
grep -q "inner dimensions" "$tmp/err" && ok || bad "gemm mismatch message"
expect_rc 2 "gemm i32 refused" "$g" gemm "$tmp/m.raw" "$tmp/m.raw" -o "$tmp/c.npy" --dtype i32 --shape-a 37,1000 --shape-b 1000,37
if command -v python3 >/dev/null 2>&1; then
  python3 - "$tmp" <<'PY'
import random, struct, sys
t = sys.argv[1]
random.seed(7)
m, k, n = 67, 129, 33
A = [random.uniform(-1, 1) for _ in range(m * k)]
Bt = [random.uniform(-1, 1) for _ in range(n * k)]      # B^T stored n x k
C0 = [random.uniform(-1, 1) for _ in range(m * n)]
for name, v in (("A", A), ("Bt", Bt), ("C0", C0)):
    open("%s/%s.raw" % (t, name), "wb").write(struct.pack("%dd" % len(v), *v))
PY
  expect_rc 0 "gemm raw f64 --tb --alpha --beta --c" "$g" gemm "$tmp/A.raw" "$tmp/Bt.raw" -o "$tmp/C.raw" --tb --alpha 1.5 \
    --beta -0.25 --c "$tmp/C0.raw" --dtype f64 --shape-a 67,129 --shape-b 33,129 --shape-c 67,33 --json
  json_ok "$tmp/out" && ok || bad "gemm --json is not JSON"
  python3 - "$tmp" <<'PY' && ok || bad "gemm result differs from the Python reference"
import struct, sys
t = sys.argv[1]
m, k, n = 67, 129, 33
rd = lambda f, c: struct.unpack("%dd" % c, open("%s/%s" % (t, f), "rb").read())
A, Bt, C0, C = rd("A.raw", m * k), rd("Bt.raw", n * k), rd("C0.raw", m * n), rd("C.raw", m * n)
worst = max(abs(C[i * n + j] - (1.5 * sum(A[i * k + l] * Bt[j * k + l] for l in range(k)) - 0.25 * C0[i * n + j]))
            for i in range(m) for j in range(n))
sys.exit(0 if worst < 1e-12 else 1)
PY
  # --precision bf16 / fp16 / tf32 (device: auto): raw uint16 bits and f32 inputs against a Python reference over
  # the rounded inputs, within the f32 accumulation bound
  python3 - "$tmp" <<'PY'
import random, struct, sys
t = sys.argv[1]
random.seed(11)
m, k, n = 45, 300, 29
A = [random.uniform(-1, 1) for _ in range(m * k)]
B = [random.uniform(-1, 1) for _ in range(k * n)]
bf = lambda x: struct.unpack("<I", struct.pack("<f", x))[0] >> 16          # bf16 by truncation: any bits will do
open("%s/A16.raw" % t, "wb").write(struct.pack("<%dH" % len(A), *[bf(x) for x in A]))
open("%s/B16.raw" % t, "wb").write(struct.pack("<%dH" % len(B), *[bf(x) for x in B]))
open("%s/A32.raw" % t, "wb").write(struct.pack("<%df" % len(A), *A))
open("%s/B32.raw" % t, "wb").write(struct.pack("<%df" % len(B), *B))
PY
  expect_rc 0 "gemm --precision bf16 (raw u16 bits)" "$g" gemm "$tmp/A16.raw" "$tmp/B16.raw" -o "$tmp/C16.raw" \
    --precision bf16 --dtype u16 --shape-a 45,300 --shape-b 300,29 --json
  grep -q '"precision": "bf16"' "$tmp/out" && ok || bad "gemm --json lacks the precision: $(cat "$tmp/out")"
  expect_rc 0 "gemm --precision tf32" "$g" gemm "$tmp/A32.raw" "$tmp/B32.raw" -o "$tmp/C32.raw" --precision tf32 \
    --dtype f32 --shape-a 45,300 --shape-b 300,29
  python3 - "$tmp" <<'PY' && ok || bad "gemm --precision bf16 / tf32 differ from the Python reference"
import struct, sys
t = sys.argv[1]
m, k, n = 45, 300, 29
rd = lambda f, fmt, c: struct.unpack("<%d%s" % (c, fmt), open("%s/%s" % (t, f), "rb").read())
u2f = lambda b: struct.unpack("<f", struct.pack("<I", b))[0]
def tf32(x):                                                         # the low 13 bits dropped
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    return u2f(b & 0xffffe000)
for a, b, c, conv in (("A16.raw", "B16.raw", "C16.raw", lambda v: u2f(v << 16)), ("A32.raw", "B32.raw", "C32.raw", tf32)):
    fmt = "H" if "16" in a else "f"
    A = [conv(v) for v in rd(a, fmt, m * k)]
    B = [conv(v) for v in rd(b, fmt, k * n)]
    C = rd(c, "f", m * n)
    for i in range(m):
        for j in range(n):
            ref = sum(A[i * k + l] * B[l * n + j] for l in range(k))
            mag = sum(abs(A[i * k + l] * B[l * n + j]) for l in range(k))
            if abs(C[i * n + j] - ref) > (4 * k ** 0.5 + 8) * 2.0 ** -24 * mag + 1e-30:
                sys.exit(1)
PY
  expect_rc 0 "gemm --precision fp16 rounds f32 inputs" "$g" gemm "$tmp/A32.raw" "$tmp/B32.raw" -o "$tmp/C.raw" \
    --precision fp16 --dtype f32 --shape-a 45,300 --shape-b 300,29
  expect_rc 2 "gemm --precision fp16 refuses i32 inputs" "$g" gemm "$tmp/A32.raw" "$tmp/B32.raw" -o "$tmp/C.raw" \
    --precision fp16 --dtype i32 --shape-a 45,300 --shape-b 300,29
  grep -q "uint16" "$tmp/err" && ok || bad "gemm --precision fp16 message: $(cat "$tmp/err")"
  expect_rc 2 "gemm --precision bogus" "$g" gemm "$tmp/A32.raw" "$tmp/B32.raw" -o "$tmp/C.raw" --precision fp8 \
    --dtype f32 --shape-a 45,300 --shape-b 300,29
  expect_rc 0 "gemm npy f32 on the CPU backend" "$g" gemm "$tmp/mt.npy" "$tmp/mtt.npy" -o "$tmp/c.npy" -d cpu
  python3 -c "import sys; d=open(sys.argv[1],'rb').read(); sys.exit(0 if b\"'shape': (37, 37)\" in d[:128] else 1)" "$tmp/c.npy" \
    && ok || bad "gemm npy output shape"
fi

# the spinner: on a terminal (script gives one) once the work passes GPUPRIM_PROGRESS_AFTER seconds; never in a pipe
if command -v script >/dev/null 2>&1 && [ -f "$tmp/mt.npy" ]; then
  GPUPRIM_PROGRESS_AFTER=0 script -qec "'$g' gemm '$tmp/mt.npy' '$tmp/mtt.npy' -o '$tmp/cs.npy' -d cpu" /dev/null >"$tmp/tty" 2>&1
  grep -q "gemm .* x .* x .*  [0-9.]* s" "$tmp/tty" && ok || bad "no spinner on a terminal: $(head -c 300 "$tmp/tty")"
  GPUPRIM_PROGRESS_AFTER=0 script -qec "'$g' transpose '$tmp/mt.npy' '$tmp/ts.npy' -d cpu" /dev/null >"$tmp/tty" 2>&1
  grep -q "transposing  [0-9.]* s" "$tmp/tty" && ok || bad "no transpose spinner on a terminal"
  GPUPRIM_PROGRESS_AFTER=0 "$g" gemm "$tmp/mt.npy" "$tmp/mtt.npy" -o "$tmp/cs.npy" -d cpu 2>"$tmp/err" >/dev/null
  grep -q "$(printf '\r')" "$tmp/err" && bad "spinner drawn into a pipe" || ok
  # the held sort's phases, and the out-of-core sort's runs and merge
  head -c 4000000 /dev/urandom >"$tmp/spin.u32"
  GPUPRIM_PROGRESS_AFTER=0 script -qec "'$g' sort '$tmp/spin.u32' --dtype u32 -o '$tmp/spin.out' -d cpu" /dev/null >"$tmp/tty" 2>&1
  grep -q "sort: sorting  [0-9.]* s" "$tmp/tty" && grep -q "sort: writing .*spin.out  [0-9.]* s" "$tmp/tty" && ok ||
    bad "no sort phases on a terminal: $(head -c 300 "$tmp/tty")"
  GPUPRIM_PROGRESS_AFTER=0 script -qec "'$g' sort '$tmp/spin.u32' --dtype u32 -o '$tmp/spin.out' -d cpu --mem-limit 1M" /dev/null >"$tmp/tty" 2>&1
  grep -q "out of core: run 2 " "$tmp/tty" && grep -q "out of core: merging [0-9]* runs" "$tmp/tty" && ok ||
    bad "no out-of-core phases on a terminal: $(head -c 300 "$tmp/tty")"
  GPUPRIM_PROGRESS_AFTER=0 "$g" sort "$tmp/spin.u32" --dtype u32 -o "$tmp/spin.out" -d cpu --mem-limit 1M 2>"$tmp/err" >/dev/null
  grep -q "$(printf '\r')" "$tmp/err" && bad "sort's spinner drawn into a pipe" || ok
fi

# --devices: a file split over a group (cpu:K emulated members here; GPUs and NCCL where present) gives one device's
# result: the same value (and index) for every op, the same histogram counts.
head -c 1048676 /dev/urandom >"$tmp/grp.bin"   # 262169 i32 / f32 elements: 16 tiles and a few
for dt in i32 f32 u8; do
  for op in sum argmax minmax max; do
    "$g" reduce "$tmp/grp.bin" --dtype $dt --op $op -d cpu --json 2>/dev/null | sed 's/.*"value": \(.*\), "acc_dtype".*/\1/' >"$tmp/one"
    for k in 1 3 7; do
      "$g" reduce "$tmp/grp.bin" --dtype $dt --op $op --devices cpu:$k --json 2>/dev/null | sed 's/.*"value": \(.*\), "acc_dtype".*/\1/' >"$tmp/grp"
      [ -s "$tmp/one" ] && cmp -s "$tmp/one" "$tmp/grp" && ok || bad "reduce --devices cpu:$k $op $dt: $(cat "$tmp/grp") vs $(cat "$tmp/one")"
    done
  done
done
"$g" histogram "$tmp/grp.bin" --dtype i32 --bins 100 -d cpu --csv >"$tmp/one" 2>/dev/null
"$g" histogram "$tmp/grp.bin" --dtype i32 --bins 100 --devices cpu:3 --csv >"$tmp/grp" 2>/dev/null
[ -s "$tmp/one" ] && cmp -s "$tmp/one" "$tmp/grp" && ok || bad "histogram --devices cpu:3 counts differ"
expect_rc 0 "histogram --devices json" "$g" histogram "$tmp/grp.bin" --dtype u8 --direct --bins 256 --devices cpu:2 --json
grep -q '"device": "2 CPU-backend members' "$tmp/out" && ok || bad "histogram --devices names the group"
expect_rc 2 "reduce --devices from a pipe" sh -c "cat '$tmp/grp.bin' | '$g' reduce - --dtype i32 --op sum --devices cpu:2"
grep -q "file of known length" "$tmp/err" && ok || bad "--devices on a pipe says why"
expect_rc 2 "reduce --devices bad spec" "$g" reduce "$tmp/grp.bin" --dtype i32 --op sum --devices cpu:0
expect_rc 2 "reduce --devices with --device" "$g" reduce "$tmp/grp.bin" --dtype i32 --op sum --devices cpu:2 -d cpu
expect_rc 2 "reduce --devices ordered" "$g" reduce "$tmp/grp.bin" --dtype f32 --op mat2 --devices cpu:2
head -c 1000 "$tmp/grp.bin" >"$tmp/short.bin"
expect_rc 1 "reduce --devices short file" "$g" reduce "$tmp/short.bin" --dtype i32 --count 1000 --op sum --devices cpu:2
grep -q "byte 1000" "$tmp/err" && ok || bad "short file: the byte offset"
# scan, sort and argsort over a group: the file held over the members, one device's bits (.npy and raw outputs)
for k in 1 2 5; do
  "$g" scan "$tmp/grp.bin" --dtype f32 --op sum -o "$tmp/one_scan.npy" -d cpu >/dev/null 2>&1
  expect_rc 0 "scan --devices cpu:$k" "$g" scan "$tmp/grp.bin" --dtype f32 --op sum -o "$tmp/grp_scan.npy" --devices cpu:$k
  cmp -s "$tmp/one_scan.npy" "$tmp/grp_scan.npy" && ok || bad "scan --devices cpu:$k differs from one device's"
  "$g" scan "$tmp/grp.bin" --dtype i16 --op sum --exclusive -o "$tmp/one_scan.bin" -d cpu >/dev/null 2>&1
  "$g" scan "$tmp/grp.bin" --dtype i16 --op sum --exclusive -o "$tmp/grp_scan.bin" --devices cpu:$k >/dev/null 2>&1
  cmp -s "$tmp/one_scan.bin" "$tmp/grp_scan.bin" && ok || bad "scan i16 (int64 sums) --devices cpu:$k differs"
  for v in sort argsort; do
    "$g" $v "$tmp/grp.bin" --dtype f32 --descending -o "$tmp/one_$v.npy" -d cpu >/dev/null 2>&1
    expect_rc 0 "$v --devices cpu:$k" "$g" $v "$tmp/grp.bin" --dtype f32 --descending -o "$tmp/grp_$v.npy" --devices cpu:$k
    cmp -s "$tmp/one_$v.npy" "$tmp/grp_$v.npy" && ok || bad "$v --devices cpu:$k differs from one device's"
  done
  "$g" sort "$tmp/grp.bin" --dtype u16 -o "$tmp/one_sort.bin" -d cpu >/dev/null 2>&1
  "$g" sort "$tmp/grp.bin" --dtype u16 -o "$tmp/grp_sort.bin" --devices cpu:$k >/dev/null 2>&1
  cmp -s "$tmp/one_sort.bin" "$tmp/grp_sort.bin" && ok || bad "sort u16 --devices cpu:$k differs"
done
expect_rc 0 "sort --devices json" "$g" sort "$tmp/grp.bin" --dtype i32 -o "$tmp/grp_sort.bin" --devices cpu:2 --json
grep -q '"device": "2 CPU-backend members' "$tmp/out" && ok || bad "sort --devices names the group"
expect_rc 2 "scan --devices ordered op" "$g" scan "$tmp/grp.bin" --dtype f32 --op affine -o "$tmp/nope.bin" --devices cpu:2
expect_rc 2 "sort --devices with --values" "$g" sort "$tmp/grp.bin" --dtype f32 -o "$tmp/nope.bin" --devices cpu:2 --values "$tmp/grp.bin" --values-out "$tmp/nope2.bin"
says "sort --devices names what it does not take" "without --values" "$tmp/err"
expect_rc 2 "sort --devices from a pipe" sh -c "cat '$tmp/grp.bin' | '$g' sort - --dtype f32 -o '$tmp/nope.bin' --devices cpu:2"
expect_rc 2 "scan --devices with --device" "$g" scan "$tmp/grp.bin" --dtype f32 --op sum -o "$tmp/nope.bin" --devices cpu:2 -d cpu
expect_rc 2 "scan --ranks with --devices" "$g" scan "$tmp/grp.bin" --dtype f32 --op sum -o "$tmp/nope.bin" --ranks env --devices cpu:2
expect_rc 1 "scan --devices short file" "$g" scan "$tmp/short.bin" --dtype i32 --count 1000 --op sum -o "$tmp/nope.bin" --devices cpu:2
[ ! -e "$tmp/nope.bin" ] && ok || bad "a refused group run wrote its output"

# out of core (--mem-limit): runs in an unlinked file beside the output, merged; the in-memory sort's bits, from a
# file or a pipe; keys only; nothing left behind (the ±0 / NaN-payload ties across runs: cli_numpy)
head -c 1200004 /dev/urandom >"$tmp/oc.bin"   # 300001 f32 (NaNs with payloads among them), 1200004 u8
"$g" sort "$tmp/oc.bin" --dtype f32 -o "$tmp/oc_mem.bin" -d cpu >/dev/null 2>&1
expect_rc 0 "sort out of core" "$g" sort "$tmp/oc.bin" --dtype f32 -o "$tmp/oc_ext.bin" -d cpu --mem-limit 150K --json
grep -q '"out_of_core": 1' "$tmp/out" && ok || bad "--mem-limit 150K did not sort out of core"
cmp -s "$tmp/oc_mem.bin" "$tmp/oc_ext.bin" && ok || bad "out-of-core sort differs from the in-memory one"
expect_rc 0 "sort out of core from a pipe" sh -c "cat '$tmp/oc.bin' | '$g' sort - --dtype f32 -o '$tmp/oc_pipe.bin' -d cpu --mem-limit 150K"
cmp -s "$tmp/oc_mem.bin" "$tmp/oc_pipe.bin" && ok || bad "out-of-core sort of a pipe differs"
"$g" sort "$tmp/oc.bin" --dtype u8 -o "$tmp/oc_mem8.npy" -d cpu >/dev/null 2>&1
expect_rc 0 "sort u8 out of core to .npy" "$g" sort "$tmp/oc.bin" --dtype u8 -o "$tmp/oc_ext8.npy" -d cpu --mem-limit 100K
cmp -s "$tmp/oc_mem8.npy" "$tmp/oc_ext8.npy" && ok || bad "out-of-core u8 .npy differs"
expect_rc 0 "sort out of core to stdout" sh -c "'$g' sort '$tmp/oc.bin' --dtype f32 -o - -d cpu --mem-limit 150K >'$tmp/oc_out.bin'"
cmp -s "$tmp/oc_mem.bin" "$tmp/oc_out.bin" && ok || bad "out-of-core sort to standard output differs"
ls -a "$tmp" | grep -q gpuprim-sort-runs && bad "a runs file was left behind" || ok
expect_rc 0 "sort an empty pipe out of core" sh -c "printf '' | '$g' sort - --dtype f32 -o '$tmp/oc_empty.bin' -d cpu --mem-limit 64K"
[ -f "$tmp/oc_empty.bin" ] && [ ! -s "$tmp/oc_empty.bin" ] && ok || bad "empty out-of-core output"
expect_rc 2 "--mem-limit with --descending" "$g" sort "$tmp/oc.bin" --dtype f32 -o "$tmp/nope.bin" -d cpu --mem-limit 64K --descending
says "--mem-limit names what it does not take" "not --descending" "$tmp/err"
expect_rc 2 "--mem-limit with --values" "$g" sort "$tmp/oc.bin" --dtype f32 -o "$tmp/nope.bin" -d cpu --mem-limit 64K --values "$tmp/oc.bin" --values-out "$tmp/nope2.bin"
expect_rc 2 "--mem-limit junk" "$g" sort "$tmp/oc.bin" --dtype f32 -o "$tmp/nope.bin" -d cpu --mem-limit lots
expect_rc 2 "--mem-limit too small" "$g" sort "$tmp/oc.bin" --dtype f32 -o "$tmp/nope.bin" -d cpu --mem-limit 1K
expect_rc 0 "sort out of core, more runs than one merge takes" "$g" sort "$tmp/oc.bin" --dtype f32 -o "$tmp/oc_mp.bin" -d cpu --mem-limit 40K --json
grep -q '"merge_passes": 2' "$tmp/out" && ok || bad "--mem-limit 40K: not two merge passes: $(head -c 300 "$tmp/out")"
cmp -s "$tmp/oc_mem.bin" "$tmp/oc_mp.bin" && ok || bad "a two-pass out-of-core sort differs"
[ ! -e "$tmp/nope.bin" ] && ok || bad "a refused out-of-core sort wrote its output"
# a file system too small for the runs: refused up front with the bytes needed, free and short (GiB with two digits hid
# the shortfall); needs root to mount a 1 MiB tmpfs, else skipped
if [ "$(id -u)" = 0 ] && mkdir "$tmp/small" && mount -t tmpfs -o size=1m tmpfs "$tmp/small" 2>/dev/null; then
  expect_rc 1 "out of core on a full file system" "$g" sort "$tmp/oc.bin" --dtype f32 -o "$tmp/small/oc.bin" -d cpu --mem-limit 150K
  says "space named in bytes" "need 2400008 bytes" "$tmp/err"
  says "shortfall named" "bytes short" "$tmp/err"
  [ -z "$(ls -A "$tmp/small")" ] && ok || bad "a refused out-of-core sort left $(ls -A "$tmp/small")"
  umount "$tmp/small"
fi
head -c 1000 "$tmp/oc_ext8.npy" >"$tmp/oc_short.npy"
expect_rc 1 "out of core, short .npy" "$g" sort "$tmp/oc_short.npy" -o "$tmp/nope.npy" -d cpu --mem-limit 64K
says "short input: the byte offset" "byte 1000" "$tmp/err"
[ ! -e "$tmp/nope.npy" ] && ok || bad "a failed out-of-core sort wrote its output"

# --ranks env: the launcher's variables are checked before any GPU is looked for (two GPUs: gpu_cli_ranks)
noranks="env -u GPUPRIM_RANK -u GPUPRIM_SIZE -u GPUPRIM_LOCAL_RANK -u RANK -u WORLD_SIZE -u LOCAL_RANK -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u PMI_RANK -u PMI_SIZE -u SLURM_PROCID -u SLURM_NTASKS -u NCCL_COMM_ID -u MASTER_ADDR -u MASTER_PORT"
expect_rc 2 "reduce --ranks env, no variables" $noranks "$g" reduce "$tmp/grp.bin" --dtype i32 --op sum --ranks env
says "--ranks env without variables names them" "GPUPRIM_RANK and GPUPRIM_SIZE" "$tmp/err"
expect_rc 2 "reduce --ranks env, no meeting point" $noranks GPUPRIM_RANK=1 GPUPRIM_SIZE=2 "$g" reduce "$tmp/grp.bin" --dtype i32 --op sum --ranks env
says "--ranks env without a meeting point says how" "NCCL_COMM_ID=HOST:PORT" "$tmp/err"
expect_rc 2 "histogram --ranks env, half a family" $noranks WORLD_SIZE=2 "$g" histogram "$tmp/grp.bin" --dtype i32 --bins 10 --ranks env
says "--ranks env names the missing variable" "WORLD_SIZE is set but RANK is not" "$tmp/err"
expect_rc 2 "reduce --ranks bad spec" "$g" reduce "$tmp/grp.bin" --dtype i32 --op sum --ranks mpi
expect_rc 2 "reduce --ranks with --devices" "$g" reduce "$tmp/grp.bin" --dtype i32 --op sum --ranks env --devices cpu:2
expect_rc 2 "histogram --ranks with --device" "$g" histogram "$tmp/grp.bin" --dtype i32 --bins 10 --ranks env -d cpu

expect_rc 0 "bench group on cpu:2" "$g" bench group --devices cpu:2 -n 2^18 --sort-n 2^17 -e 64K --reps 2 --warmup 0 --json
json_ok "$tmp/out" && ok || bad "bench group --json is not JSON"
[ "$(grep -o '"bits": "same"' "$tmp/out" | wc -l)" = 5 ] && ok || bad "bench group: the group's results are not one device's"

cli_finish cli
