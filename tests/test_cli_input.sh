#!/bin/sh
# CLI tests for hostile input and NumPy's conventions: each case failed before its fix. Runs on the CPU
# backend (-d cpu), so everywhere. $1: the gpuprim executable. Needs python3 (no NumPy) to write test files.
set -u
. "$(dirname "$0")/cli_common.sh"
command -v python3 >/dev/null 2>&1 || { echo "test_cli_input: SKIPPED: no python3 to write the inputs"; exit 77; }
py() { python3 -c "$@"; }

# ---- 1, 2: .npy from standard input with a header length of 0 or 1, or 4 GiB
for hl in 0 1; do
  py "import sys; sys.stdout.buffer.write(b'\x93NUMPY\x01\x00' + bytes([$hl, 0]) + b'\0' * 1048576)" >"$tmp/h$hl.bin"
  expect_rc 1 "stdin npy header length $hl" sh -c "\"$g\" reduce - --op sum -d cpu < \"$tmp/h$hl.bin\""
  says "stdin npy header length $hl message" "byte" "$tmp/err"
  expect_rc 1 "piped npy header length $hl" sh -c "cat \"$tmp/h$hl.bin\" | \"$g\" histogram - --bins 4 --range 0,1 -d cpu"
done
expect_rc 1 "stdin npy 4 GiB header" sh -c "printf '\223NUMPY\003\000\377\377\377\377{' | \"$g\" reduce - --op sum -d cpu"
says "4 GiB header named" "header length 4294967295 is over" "$tmp/err"

# ---- 3: numeric options
py "import struct,sys; sys.stdout.buffer.write(struct.pack('<10i', *range(10)))" >"$tmp/ten.i32"
for args in "--bins nan" "--bins 1.5" "--bins -3" "--bins 99999999999999999999999" "--bins 4 --offset 1.5" \
            "--bins 4 --count -1" "--bins 4 --range nan,1" "--bins 4 --range 0,inf" "--bins 4 --edges 1,,2" \
            "--bins 4 --range 2,1" "--bins 4 --reps 1e9"; do
  # shellcheck disable=SC2086
  expect_rc 2 "histogram $args" "$g" histogram "$tmp/ten.i32" --dtype i32 -d cpu $args
done
says "option named" "reps" "$tmp/err"
expect_rc 2 "transpose --shape -1,1" "$g" transpose "$tmp/ten.i32" "$tmp/t.raw" --shape -1,1 --dtype i32 -d cpu
says "shape named" "--shape" "$tmp/err"
expect_rc 2 "gemm --alpha nan" "$g" gemm "$tmp/ten.i32" "$tmp/ten.i32" -o "$tmp/c.raw" --alpha nan -d cpu
expect_rc 2 "bandwidth -f nan" "$g" bandwidth -f nan
expect_rc 2 "reduce --offset 1.5" "$g" reduce "$tmp/ten.i32" --dtype i32 --op sum --offset 1.5 -d cpu
expect_rc 2 "reduce --count 0.5 (not whole)" "$g" reduce "$tmp/ten.i32" --dtype i32 --op sum --count 0.5 -d cpu


# ---- 4: outputs written whole or not at all
py "import struct,sys; sys.stdout.buffer.write(struct.pack('<12f', *[i * 0.5 for i in range(12)]))" >"$tmp/m.f32"
expect_rc 0 "transpose raw" "$g" transpose "$tmp/m.f32" "$tmp/mt.f32" --shape 3,4 --dtype f32 -d cpu
[ "$(wc -c <"$tmp/mt.f32")" = 48 ] && ok || bad "transpose raw output size"
printf 'old contents' >"$tmp/keep.f32"
expect_rc 1 "transpose to a full file system" sh -c "trap '' XFSZ; ulimit -f 0; exec \"$g\" transpose \"$tmp/m.f32\" \"$tmp/keep.f32\" --shape 3,4 --dtype f32 -d cpu"
[ "$(cat "$tmp/keep.f32")" = "old contents" ] && ok || bad "a failed write truncated the old output"
ls "$tmp" | grep -q 'keep.f32.tmp' && bad "a failed write left its temporary" || ok
expect_rc 1 "gemm into a missing directory" "$g" gemm "$tmp/m.f32" "$tmp/mt.f32" -o "$tmp/nodir/c.npy" --shape-a 3,4 --shape-b 4,3 --dtype f32 -d cpu
says "output error says why" "No such file" "$tmp/err"
expect_rc 1 "svg to an unwritable path" "$g" histogram "$tmp/ten.i32" --dtype i32 --bins 4 -d cpu --svg "$tmp/nodir/h.svg"
[ -s "$tmp/err" ] && ok || bad "--svg failure has an empty stderr"
says "svg error names the file" "h.svg" "$tmp/err"

# ---- 5: header text is never echoed raw
py "
import sys
d = b\"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), '\x1b[31mkey': 1}\"
h = d + b' ' * ((64 - (10 + len(d) + 1) % 64) % 64) + b'\n'
sys.stdout.buffer.write(b'\x93NUMPY\x01\x00' + bytes([len(h), 0]) + h + b'\0' * 8)" >"$tmp/esc.npy"
expect_rc 1 "escape in a header key" "$g" reduce "$tmp/esc.npy" --op sum -d cpu
py "import sys; sys.exit(b'\x1b' in open('$tmp/err', 'rb').read())" && ok || bad "header bytes echoed raw"

# ---- 10: no GPU: one plain note; info exits 0 when it showed the CPU backend
"$g" info >"$tmp/out" 2>"$tmp/err"; rc=$?
if grep -q "compute capability" "$tmp/out"; then ok; else
  [ "$rc" = 0 ] && ok || bad "info without a GPU exits $rc"
  says "info note" "no NVIDIA GPU/driver found" "$tmp/err"
  grep -q "context.c" "$tmp/err" && bad "info prints a source location" || ok
  expect_rc 4 "info -d 0 without a driver" "$g" info -d 0
fi

# ---- 12: one CLI: --csv everywhere it applies, plain CSV, refusals worded alike
expect_rc 0 "transpose --csv" "$g" transpose "$tmp/m.f32" "$tmp/mt2.f32" --shape 3,4 --dtype f32 -d cpu --csv
says "transpose csv header" "^op,shape,dtype" "$tmp/out"
[ "$(wc -l <"$tmp/out")" = 2 ] && ok || bad "transpose csv: header and one row"
expect_rc 0 "reduce --csv" "$g" reduce "$tmp/ten.i32" --dtype i32 --op sum -d cpu --csv
says "reduce csv" "^op,dtype,elements,value" "$tmp/out"
says "reduce csv value" "^sum,i32,10,45," "$tmp/out"
expect_rc 0 "bench --csv" "$g" bench vector -d cpu -n 4096 --reps 1 --warmup 0 --csv
grep -q '^#' "$tmp/out" && bad "bench csv has comment lines" || ok
says "bench csv metadata as columns" "device" "$tmp/out"
expect_rc 0 "histogram --csv" "$g" histogram "$tmp/ten.i32" --dtype i32 --bins 2 -d cpu --csv
says "histogram csv header" "^kind,bin,lo,hi,count" "$tmp/out"
says "histogram csv above row" "^above,," "$tmp/out"
expect_rc 2 "transpose --svg refused" "$g" transpose "$tmp/m.f32" "$tmp/x.f32" --shape 3,4 --dtype f32 --svg "$tmp/x.svg"
says "refusal wording" "does not apply to transpose" "$tmp/err"
expect_rc 2 "reduce --reps refused" "$g" reduce "$tmp/ten.i32" --dtype i32 --op sum --reps 3
says "refusal wording" "does not apply to reduce" "$tmp/err"

# ---- 13: NumPy's dtype spellings
for dt in i4 "<i4" int32 np.int32 numpy.int32 intc; do
  expect_rc 0 "--dtype $dt" "$g" reduce "$tmp/ten.i32" --dtype "$dt" --op sum -d cpu --json
  says "--dtype $dt sum" '"value": 45' "$tmp/out"
done
expect_rc 2 "--dtype >i4" "$g" reduce "$tmp/ten.i32" --dtype ">i4" --op sum -d cpu
says "big-endian refused with a reason" "big-endian" "$tmp/err"

# ---- 14: histogram with NumPy's defaults (np.histogram(range(10), 2) = [5, 5]; range (0, 9), 3 bins = [3, 3, 4])
expect_rc 0 "histogram default range" "$g" histogram "$tmp/ten.i32" --dtype i32 --bins 2 -d cpu --json
says "default range counts" '"counts": \[5, 5\]' "$tmp/out"
says "default range lo/hi" '"lo": 0, "hi": 9' "$tmp/out"
expect_rc 0 "histogram closed last bin" "$g" histogram "$tmp/ten.i32" --dtype i32 --bins 3 --range 0,9 -d cpu --json
says "closed last bin" '"counts": \[3, 3, 4\], "below": 0, "above": 0' "$tmp/out"
expect_rc 0 "histogram --half-open" "$g" histogram "$tmp/ten.i32" --dtype i32 --bins 3 --range 0,9 --half-open -d cpu --json
says "half-open" '"counts": \[3, 3, 3\], "below": 0, "above": 1' "$tmp/out"
expect_rc 0 "histogram default range from a pipe" sh -c "cat \"$tmp/ten.i32\" | \"$g\" histogram - --dtype i32 --bins 2 -d cpu --json"
says "piped default range" '"counts": \[5, 5\]' "$tmp/out"
py "import struct,sys; sys.stdout.buffer.write(struct.pack('<3f', 1.0, float('nan'), 2.0))" >"$tmp/nan.f32"
expect_rc 1 "default range over NaN (NumPy refuses)" "$g" histogram "$tmp/nan.f32" --dtype f32 --bins 2 -d cpu
says "NaN range message" "give --range" "$tmp/err"
expect_rc 0 "histogram svg of 5000 bins" "$g" histogram "$tmp/m.f32" --dtype f32 --bins 5000 -d cpu --svg "$tmp/h.svg"
says "svg drawn" "<svg" "$tmp/h.svg"
grep -q '5587\.0\|>[0-9]*\.0<' "$tmp/h.svg" && bad "svg prints counts with a decimal point" || ok

# ---- 15: a 1-D transpose keeps its shape (NumPy's .T)
py "
import sys, struct
d = b\"{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }\"
h = d + b' ' * ((64 - (10 + len(d) + 1) % 64) % 64) + b'\n'
sys.stdout.buffer.write(b'\x93NUMPY\x01\x00' + bytes([len(h), 0]) + h + struct.pack('<5f', 1, 2, 3, 4, 5))" >"$tmp/v.npy"
expect_rc 0 "transpose 1-D" "$g" transpose "$tmp/v.npy" "$tmp/vt.npy" -d cpu
cmp -s "$tmp/v.npy" "$tmp/vt.npy" && ok || bad "1-D transpose changed the array or its shape"

# ---- 16: a typo'd verb gets a suggestion, not the whole usage
expect_rc 2 "typo'd verb" "$g" histgram
says "suggestion" "did you mean 'histogram'" "$tmp/err"
[ "$(wc -l <"$tmp/err")" -le 2 ] && ok || bad "typo'd verb prints the whole usage"

cli_finish test_cli_input
