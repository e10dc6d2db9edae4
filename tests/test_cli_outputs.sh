#!/bin/sh
# The CLI's outputs and options under misuse, on the CPU backend: two outputs both or neither, temporaries removed on
# a signal, standard output / FIFOs / devices / symbolic links as outputs, FIFO inputs, partial raw elements, the
# option parser's refusals, messages that name the real cause. $1: the gpuprim executable. Needs python3 (no NumPy).
set -u
. "$(dirname "$0")/cli_common.sh"
command -v python3 >/dev/null 2>&1 || { echo "test_cli_outputs: SKIPPED: no python3 to write the inputs"; exit 77; }
py() { python3 -c "$@"; }
py "import struct,sys; sys.stdout.buffer.write(struct.pack('<8i', 1, 1, 2, 2, 2, 3, 1, 1))" >"$tmp/r.i32"
# an .npy of the i32 values given (1-D), by hand (no NumPy)
npy_i32() { py "
import struct, sys
v = [int(x) for x in sys.argv[2:]]
d = (\"{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }\" % len(v)).encode()
h = d + b' ' * ((64 - (10 + len(d) + 1) % 64) % 64) + b'\n'
open(sys.argv[1], 'wb').write(b'\x93NUMPY\x01\x00' + bytes([len(h), 0]) + h + struct.pack('<%di' % len(v), *v))" "$@"; }

# ---- two outputs: both or neither, never one path
printf 'old values' >"$tmp/vals.raw"
mkdir "$tmp/ro" && chmod 500 "$tmp/ro"
if [ "$(id -u)" != 0 ]; then
  expect_rc 1 "rle with an unwritable lengths path" "$g" rle "$tmp/r.i32" --dtype i32 -o "$tmp/vals.raw" --lengths "$tmp/ro/l.raw" -d cpu
  [ "$(cat "$tmp/vals.raw")" = "old values" ] && ok || bad "rle replaced the values when the lengths failed"
fi
expect_rc 1 "rle with a lengths path in a missing directory" "$g" rle "$tmp/r.i32" --dtype i32 -o "$tmp/vals.raw" --lengths "$tmp/nodir/l.raw" -d cpu
[ "$(cat "$tmp/vals.raw")" = "old values" ] && ok || bad "rle replaced the values when the lengths failed"
grep -q "nothing written" "$tmp/err" && ok || bad "rle failure: $(cat "$tmp/err")"
expect_rc 2 "rle -o and --lengths one path" "$g" rle "$tmp/r.i32" --dtype i32 -o "$tmp/same.npy" --lengths "$tmp/same.npy" -d cpu
says "same path refused" "same file" "$tmp/err"
ln -s "$tmp/same2.npy" "$tmp/alias.npy"
expect_rc 2 "rle -o and --lengths one file through a link" "$g" rle "$tmp/r.i32" --dtype i32 -o "$tmp/same2.npy" --lengths "$tmp/alias.npy" -d cpu
expect_rc 0 "rle both written" "$g" rle "$tmp/r.i32" --dtype i32 -o "$tmp/v.raw" --lengths "$tmp/l.raw" -d cpu
[ "$(wc -c <"$tmp/v.raw")" = 16 ] && [ "$(wc -c <"$tmp/l.raw")" = 32 ] && ok || bad "rle outputs' sizes"

# ---- standard output, FIFOs, devices and links as outputs
expect_rc 0 "scan -o -" sh -c "\"$g\" scan \"$tmp/r.i32\" --dtype i32 --op sum -o - -d cpu > \"$tmp/stdout.raw\""
[ -e ./- ] && bad "-o - wrote a file named '-'" || ok
[ "$(wc -c <"$tmp/stdout.raw")" = 64 ] && ok || bad "-o - gave $(wc -c <"$tmp/stdout.raw") bytes on stdout, want 64 (8 i64)"
py "import struct; v = struct.unpack('<8q', open('$tmp/stdout.raw','rb').read()); assert list(v) == [1, 2, 4, 6, 8, 11, 12, 13], v" && ok || bad "-o - values"
mkfifo "$tmp/fifo"
(cat "$tmp/fifo" >"$tmp/fifo.out") &
reader=$!
expect_rc 0 "select into a FIFO" "$g" select "$tmp/r.i32" --dtype i32 --where gt:1 -o "$tmp/fifo" -d cpu
wait $reader
[ -p "$tmp/fifo" ] && ok || bad "the FIFO was replaced by a file"
[ "$(wc -c <"$tmp/fifo.out")" = 16 ] && ok || bad "FIFO reader got $(wc -c <"$tmp/fifo.out") bytes, want 16"
if [ -w /dev/null ] && [ -c /dev/null ]; then
  expect_rc 0 "unique -o /dev/null" "$g" unique --consecutive "$tmp/r.i32" --dtype i32 -o /dev/null -d cpu
  [ -c /dev/null ] && ok || bad "/dev/null is no longer a device"
fi
printf 'x' >"$tmp/target.raw"
chmod 640 "$tmp/target.raw"
ln -s target.raw "$tmp/link.raw"
expect_rc 0 "unique through a symbolic link" "$g" unique --consecutive "$tmp/r.i32" --dtype i32 -o "$tmp/link.raw" -d cpu
[ -L "$tmp/link.raw" ] && ok || bad "the link was replaced"
[ "$(wc -c <"$tmp/target.raw")" = 16 ] && ok || bad "the link's target was not written"
[ "$(stat -c %a "$tmp/target.raw")" = 640 ] && ok || bad "the target's mode changed to $(stat -c %a "$tmp/target.raw")"
ln -s "$tmp/newtarget.npy" "$tmp/dangling.npy"
expect_rc 0 "unique through a dangling link" "$g" unique --consecutive "$tmp/r.i32" --dtype i32 -o "$tmp/dangling.npy" -d cpu
[ -L "$tmp/dangling.npy" ] && [ -f "$tmp/newtarget.npy" ] && ok || bad "a dangling link's target was not created"

# ---- a signal mid-write leaves no temporary
py "import sys; sys.stdout.buffer.write(bytes(64 << 20))" >"$tmp/big.u8"
command -v pkill >/dev/null 2>&1 || echo "test_cli_outputs: the signal cases SKIPPED: no pkill"
for sig in $(command -v pkill >/dev/null 2>&1 && echo INT TERM HUP); do
  # started with every signal's default action (a shell's background job ignores SIGINT)
  python3 -c 'import os, signal, sys; [signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)]; os.execvp(sys.argv[1], sys.argv[1:])' \
    sh -c "(cat \"$tmp/big.u8\"; sleep 30) 2>/dev/null | \"$g\" scan - --dtype u8 --op max -o \"$tmp/sig.raw\" -d cpu >/dev/null 2>&1" 2>/dev/null &
  job=$!
  i=0
  while [ $i -lt 100 ] && ! ls "$tmp" | grep -q 'sig.raw.tmp'; do sleep 0.1; i=$((i + 1)); done
  pkill -$sig -f "scan - --dtype u8 --op max -o $tmp/sig.raw"
  wait $job 2>/dev/null
  pkill -f "sleep 30" 2>/dev/null
  ls "$tmp" | grep -q 'sig.raw' && bad "SIG$sig left $(ls "$tmp" | grep sig.raw)" || ok
done

# ---- inputs: a FIFO read once; raw elements whole
npy_i32 "$tmp/f.npy" 4 5 6
mkfifo "$tmp/in.fifo"
(cat "$tmp/f.npy" >"$tmp/in.fifo") &
expect_rc 0 "reduce of a .npy FIFO" timeout 20 "$g" reduce "$tmp/in.fifo" --op sum -d cpu --json
says "FIFO sum" '"value": 15' "$tmp/out"
wait
printf 'abcdefg' >"$tmp/seven.raw"
expect_rc 1 "7 bytes as i32" "$g" reduce "$tmp/seven.raw" --dtype i32 --op sum -d cpu
says "partial element named with its byte" "byte 4" "$tmp/err"
expect_rc 0 "7 bytes as i32 with --count 1" "$g" reduce "$tmp/seven.raw" --dtype i32 --op sum --count 1 -d cpu

# a short .npy through a pipe: the histogram's spool keeps the stream's byte offsets in its messages
py "
import struct, sys
d = b\"{'descr': '<i4', 'fortran_order': False, 'shape': (100,), }\"
h = d + b' ' * ((64 - (10 + len(d) + 1) % 64) % 64) + b'\\n'
sys.stdout.buffer.write(b'\\x93NUMPY\\x01\\x00' + bytes([len(h), 0]) + h + struct.pack('<10i', *range(10)))
open('$tmp/short.want', 'w').write('byte %d' % (10 + len(h) + 40))" >"$tmp/short.npy"
expect_rc 1 "histogram of a short piped .npy" sh -c "cat \"$tmp/short.npy\" | \"$g\" histogram - --bins 4 -d cpu"
says "the stream's byte offset" "$(cat "$tmp/short.want")" "$tmp/err"

# ---- options: twice, --json with --csv, a value that is an option, --opt=value
expect_rc 2 "an option twice" "$g" reduce "$tmp/r.i32" --dtype i32 --op sum --op max -d cpu
says "twice named" "given twice" "$tmp/err"
expect_rc 2 "-d twice" "$g" reduce "$tmp/r.i32" --dtype i32 --op sum -d cpu --device cpu
expect_rc 2 "--json --csv" "$g" reduce "$tmp/r.i32" --dtype i32 --op sum -d cpu --json --csv
says "json and csv" "give one" "$tmp/err"
expect_rc 2 "-o --json" "$g" scan "$tmp/r.i32" --dtype i32 --op sum -o --json -d cpu
[ -e ./--json ] || [ -e "$tmp/--json" ] && bad "-o --json wrote a file named --json" || ok
says "-o --json" "needs a value" "$tmp/err"
expect_rc 0 "--op=sum --dtype=i32" "$g" reduce "$tmp/r.i32" --dtype=i32 --op=sum --device=cpu --json
says "--opt=value" '"value": 13' "$tmp/out"

# ---- messages that name the real cause
expect_rc 2 "transpose from standard input" "$g" transpose - "$tmp/o.npy" -d cpu
grep -q "No such file" "$tmp/err" && bad "transpose - says: $(cat "$tmp/err")" || ok
if ! command -v nvidia-smi >/dev/null 2>&1; then
  "$g" info -d 0 >/dev/null 2>"$tmp/err"
  grep -q "insufficient" "$tmp/err" && bad "no driver reads as an old driver: $(cat "$tmp/err")" || ok
fi
if command -v "${GP_CC:-cc}" >/dev/null 2>&1; then
  expect_rc 1 "map --out-dtype bf16 to .npy" "$g" map "$tmp/r.i32" --dtype i32 --src 'x' --out-dtype bf16 -o "$tmp/bf.npy" -d cpu
  grep -q "No such file" "$tmp/err" && bad "bf16 .npy says: $(cat "$tmp/err")" || ok
  says "bf16 .npy reason" "bfloat16" "$tmp/err"
fi
# --ranks env / --devices without a driver: exit 4, as -d 0 (3 without a device)
if ! command -v nvidia-smi >/dev/null 2>&1; then
  GPUPRIM_RANK=0 GPUPRIM_SIZE=1 "$g" reduce "$tmp/r.i32" --dtype i32 --op sum --ranks env >/dev/null 2>"$tmp/err"
  rc=$?
  { [ "$rc" = 4 ] || [ "$rc" = 3 ]; } && ok || bad "--ranks env without a driver: exit $rc, wanted 4 (or 3): $(cat "$tmp/err")"
  "$g" reduce "$tmp/r.i32" --dtype i32 --op sum --devices 0,1 >/dev/null 2>"$tmp/err"
  rc=$?
  { [ "$rc" = 4 ] || [ "$rc" = 3 ]; } && ok || bad "--devices 0,1 without a driver: exit $rc, wanted 4 (or 3): $(cat "$tmp/err")"
fi
# --segments: a 2-D offsets file refused; u64 offsets past 2^63 named as given; --values of another shape refused
py "
import struct
def npy(path, descr, shape, fmt, vals):
    d = (\"{'descr': '%s', 'fortran_order': False, 'shape': %s, }\" % (descr, shape)).encode()
    h = d + b' ' * ((64 - (10 + len(d) + 1) % 64) % 64) + b'\\n'
    open(path, 'wb').write(b'\\x93NUMPY\\x01\\x00' + bytes([len(h), 0]) + h + struct.pack('<%d%s' % (len(vals), fmt), *vals))
npy('$tmp/off2d.npy', '<i8', '(2, 2)', 'q', [0, 3, 5, 8])
npy('$tmp/offu.npy', '<u8', '(3,)', 'Q', [0, 3, 2**64 - 1])
npy('$tmp/keys8.npy', '<i4', '(8,)', 'i', [5, 4, 3, 2, 1, 0, 7, 6])
npy('$tmp/vals24.npy', '<i4', '(2, 4)', 'i', list(range(8)))"
expect_rc 2 "--segments of a 2-D array" "$g" sort "$tmp/keys8.npy" -o "$tmp/s.npy" --segments "$tmp/off2d.npy" -d cpu
says "2-D offsets refused" "is 2-d: offsets are a 1-D" "$tmp/err"
expect_rc 2 "--segments u64 past 2^63" "$g" sort "$tmp/keys8.npy" -o "$tmp/s.npy" --segments "$tmp/offu.npy" -d cpu
says "u64 offset named as given" "offsets\[2\] = 18446744073709551615 is outside" "$tmp/err"
expect_rc 2 "--values of another shape" "$g" sort "$tmp/keys8.npy" -o "$tmp/s.npy" --values "$tmp/vals24.npy" --values-out "$tmp/v.npy" -d cpu
says "values' shape named" "has shape (2, 4), the keys (8,)" "$tmp/err"
# a target whose directory takes no new files: the step named, not "No such file or directory" alone
if [ -r /proc/version ]; then
  expect_rc 1 "-o /proc/version" "$g" scan "$tmp/r.i32" --dtype i32 --op sum -o /proc/version -d cpu
  says "/proc named as a directory that takes no files" "takes no new files" "$tmp/err"
fi
# a stream that takes part of the output: the bytes it took are said, not "nothing written"
py "import struct,sys; sys.stdout.buffer.write(struct.pack('<50000i', *range(50000)))" >"$tmp/big.i32"
sh -c "trap '' PIPE; \"$g\" scan \"$tmp/big.i32\" --dtype i32 --op sum -o - -d cpu 2>\"$tmp/err\"; echo \$? >\"$tmp/rc\"" |
  head -c 100000 >/dev/null
[ "$(cat "$tmp/rc")" = 1 ] && ok || bad "a stdout closed after 100000 bytes: exit $(cat "$tmp/rc"), wanted 1"
says "partial stdout said with its bytes" "bytes: the output there is incomplete" "$tmp/err"
grep -q "nothing written" "$tmp/err" && bad "partial stdout called 'nothing written': $(cat "$tmp/err")" || ok
expect_rc 1 "-o - into /dev/full" sh -c "exec \"$g\" scan \"$tmp/r.i32\" --dtype i32 --op sum -o - -d cpu >/dev/full"
says "a full stdout took nothing" "No space left on device; nothing written" "$tmp/err"
# a temporary a killed run left (its PID gone) is removed by the next write to the same OUT; others' stay
printf x >"$tmp/k.raw.tmp-999999999-0"
printf x >"$tmp/k.raw.tmp-1-0"              # PID 1 runs: kept
printf x >"$tmp/k.raw.tmp-999999999-0x"     # not the pattern: kept
printf x >"$tmp/kk.raw.tmp-999999999-0"     # another target's: kept
expect_rc 0 "scan beside a killed run's temporary" "$g" scan "$tmp/r.i32" --dtype i32 --op sum -o "$tmp/k.raw" -d cpu
[ -e "$tmp/k.raw.tmp-999999999-0" ] && bad "a dead process's temporary stayed" || ok
[ -e "$tmp/k.raw.tmp-1-0" ] && [ -e "$tmp/k.raw.tmp-999999999-0x" ] && [ -e "$tmp/kk.raw.tmp-999999999-0" ] && ok ||
  bad "a temporary not a dead run's of this target was removed"
rm -f "$tmp/k.raw.tmp-1-0" "$tmp/k.raw.tmp-999999999-0x" "$tmp/kk.raw.tmp-999999999-0"
ls "$tmp" | grep -q '\.tmp-' && bad "temporaries left: $(ls "$tmp" | grep '\.tmp-')" || ok

cli_finish test_cli_outputs
