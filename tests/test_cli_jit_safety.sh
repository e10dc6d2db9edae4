#!/bin/sh
# User operators as a security boundary, on the CPU backend (the C compiler): the disk cache trusts only what the
# caller owns and nobody else can write, compiles run in private directories that are gone afterwards, the compile is
# bounded, preprocessor directives are refused, a trap in user code is an error. $1: the gpuprim executable. Needs a
# C compiler (GP_CC or cc) and python3 (skipped, exit 77, without them).
set -u
. "$(dirname "$0")/cli_common.sh"
command -v "${GP_CC:-cc}" >/dev/null 2>&1 || { echo "test_cli_jit_safety: SKIPPED: no C compiler"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "test_cli_jit_safety: SKIPPED: no python3"; exit 77; }
py() { python3 -c "$@"; }
py "import struct,sys; sys.stdout.buffer.write(struct.pack('<6i', 3, 1, 4, 1, 5, 9))" >"$tmp/x.i32"
mkdir "$tmp/t"
export TMPDIR="$tmp/t"
build() { sed -n 's/.*"build": "\([a-z ]*\)".*/\1/p' "$tmp/out"; }

# ---- the cache directory: created 0700; refused when others can write it or it is not the caller's
export GP_JIT_CACHE="$tmp/cache"
expect_rc 0 "map with a new cache" "$g" map "$tmp/x.i32" --dtype i32 --src 'x + 1' -o "$tmp/y.raw" -d cpu --json
[ "$(stat -c %a "$tmp/cache")" = 700 ] && ok || bad "the cache was made mode $(stat -c %a "$tmp/cache")"
entry=$(ls "$tmp/cache" | grep '\.so$' | head -1)
[ -n "$entry" ] && ok || bad "no cache entry written"
[ "$(stat -c %a "$tmp/cache/$entry")" = 600 ] && ok || bad "entry mode $(stat -c %a "$tmp/cache/$entry")"
expect_rc 0 "map from the cache" "$g" map "$tmp/x.i32" --dtype i32 --src 'x + 1' -o "$tmp/y.raw" -d cpu --json
says "taken from the disk cache" '"build": "disk' "$tmp/out"
mkdir -m 1777 "$tmp/shared"
chmod 1777 "$tmp/shared"
GP_JIT_CACHE="$tmp/shared" "$g" map "$tmp/x.i32" --dtype i32 --src 'x + 1' -o "$tmp/y2.raw" -d cpu >"$tmp/out" 2>"$tmp/err"
[ $? != 0 ] && ok || bad "a world-writable cache was accepted"
says "world-writable refused" "writable by others" "$tmp/err"
mkdir -m 770 "$tmp/groupw" && chmod 770 "$tmp/groupw"
GP_JIT_CACHE="$tmp/groupw" "$g" map "$tmp/x.i32" --dtype i32 --src 'x + 1' -o "$tmp/y2.raw" -d cpu >"$tmp/out" 2>"$tmp/err"
[ $? != 0 ] && ok || bad "a group-writable cache was accepted"
says "group-writable named as such" "writable by its group" "$tmp/err"
[ -e "$tmp/y2.raw" ] && bad "output written after the refusal" || ok
ln -s "$tmp/cache" "$tmp/cachelink"
GP_JIT_CACHE="$tmp/cachelink" "$g" map "$tmp/x.i32" --dtype i32 --src 'x + 1' -o "$tmp/y2.raw" -d cpu >"$tmp/out" 2>"$tmp/err"
[ $? != 0 ] && ok || bad "a cache reached through a symbolic link was accepted"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  mkdir -m 700 "$tmp/theirs" && chown nobody "$tmp/theirs"
  GP_JIT_CACHE="$tmp/theirs" "$g" map "$tmp/x.i32" --dtype i32 --src 'x + 1' -o "$tmp/y2.raw" -d cpu >"$tmp/out" 2>"$tmp/err"
  [ $? != 0 ] && ok || bad "another user's cache directory was accepted"
  says "another user's refused" "another user" "$tmp/err"
  # a planted entry: another owner's file under the right name is not loaded
  cp "$tmp/cache/$entry" "$tmp/planted" && rm "$tmp/cache/$entry" && mv "$tmp/planted" "$tmp/cache/$entry"
  chown nobody "$tmp/cache/$entry"
  expect_rc 0 "map beside another owner's entry" "$g" map "$tmp/x.i32" --dtype i32 --src 'x + 1' -o "$tmp/y.raw" -d cpu --json
  says "another owner's entry rebuilt" '"build": "compile' "$tmp/out"
fi
# an entry that is a link (to a file of the caller's) is not followed
cp "$tmp/cache/$entry" "$tmp/elsewhere.so" 2>/dev/null || cp "$tmp/cache"/*.so "$tmp/elsewhere.so"
rm -f "$tmp/cache/$entry"
ln -s "$tmp/elsewhere.so" "$tmp/cache/$entry"
expect_rc 0 "map beside a linked entry" "$g" map "$tmp/x.i32" --dtype i32 --src 'x + 1' -o "$tmp/y.raw" -d cpu --json
says "linked entry not followed" '"build": "compile' "$tmp/out"
# a group-writable entry of the caller's is not used
f=$(ls "$tmp/cache" | grep '\.so$' | head -1)
chmod 664 "$tmp/cache/$f"
expect_rc 0 "map beside a group-writable entry" "$g" map "$tmp/x.i32" --dtype i32 --src 'x + 1' -o "$tmp/y.raw" -d cpu --json
says "group-writable entry rebuilt" '"build": "compile' "$tmp/out"

# ---- with the cache off, compiles run in a private directory, removed after
export GP_JIT_CACHE=off
expect_rc 0 "map without a cache" "$g" map "$tmp/x.i32" --dtype i32 --src 'x * 3' -o "$tmp/y.raw" -d cpu
py "import struct; v = struct.unpack('<6i', open('$tmp/y.raw','rb').read()); assert list(v) == [9, 3, 12, 3, 15, 27], v" && ok || bad "map x * 3"
[ -z "$(ls -A "$tmp/t")" ] && ok || bad "compiles left $(ls -A "$tmp/t")"
mkdir -m 700 "$tmp/t/gpuprim-jit-999999999-AbCdEf" # a killed process's directory: swept by the next compile
expect_rc 0 "map sweeps stale build directories" "$g" map "$tmp/x.i32" --dtype i32 --src 'x * 5' -o "$tmp/y.raw" -d cpu
[ -z "$(ls -A "$tmp/t")" ] && ok || bad "a stale build directory stayed: $(ls -A "$tmp/t")"

# ---- what an operator may not be: directives, unbounded compiles, traps
expect_rc 2 "#include in an operator" "$g" map "$tmp/x.i32" --dtype i32 --src '#include "/etc/passwd"
x' -o "$tmp/y3.raw" -d cpu
says "directive refused" "preprocessor" "$tmp/err"
grep -q "root:" "$tmp/err" && bad "a file's contents reached the message" || ok
expect_rc 2 "a macro bomb" "$g" map "$tmp/x.i32" --dtype i32 --src '%:define a x+x+x+x
a' -o "$tmp/y3.raw" -d cpu
[ -e "$tmp/y3.raw" ] && bad "output written for a refused operator" || ok
printf '#!/bin/sh\nsleep 30\n' >"$tmp/slowcc" && chmod +x "$tmp/slowcc"
start=$(date +%s)
GP_CC="$tmp/slowcc" GP_JIT_TIMEOUT=2 "$g" map "$tmp/x.i32" --dtype i32 --src 'x - 1' -o "$tmp/y3.raw" -d cpu >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" != 0 ] && [ $(($(date +%s) - start)) -lt 20 ] && ok || bad "a hanging compiler was not stopped (exit $rc)"
says "timeout named" "GP_JIT_TIMEOUT" "$tmp/err"
expect_rc 1 "integer division by zero" "$g" map "$tmp/x.i32" --dtype i32 --src 'x / (x - x)' -o "$tmp/y4.raw" -d cpu
says "trap reported" "trapped" "$tmp/err"
[ -e "$tmp/y4.raw" ] && bad "output written after a trap" || ok
expect_rc 1 "a NULL dereference" "$g" reduce "$tmp/x.i32" --dtype i32 --op-src '*(volatile int *)0 + a + b' --identity 0 -d cpu
says "segfault reported" "SIGSEGV" "$tmp/err"
py "import struct,sys; sys.stdout.buffer.write(struct.pack('<3i', 7, 0, 2))" >"$tmp/z.i32"
expect_rc 1 "select with a trapping predicate" "$g" select "$tmp/z.i32" --dtype i32 --where-src '10 / x > 1' -o "$tmp/y5.raw" -d cpu
says "predicate trap reported" "trapped" "$tmp/err"
# a stack overflow in user code is a trap too (the handlers run on an alternate stack)
expect_rc 1 "a stack overflow in a comparison" "$g" sort "$tmp/x.i32" --dtype i32 -o "$tmp/y6.raw" -d cpu \
  --cmp-src '({ volatile char big[1 << 26]; big[0] = 1; big[1 << 25] = 2; a < b; })'
says "stack overflow reported" "stack overflow" "$tmp/err"
[ -e "$tmp/y6.raw" ] && bad "output written after a stack overflow" || ok
# an operator calls only <math.h>: exit, abort and names that do not exist are refused before anything runs
expect_rc 2 "exit() in a comparison" "$g" sort "$tmp/x.i32" --dtype i32 -o "$tmp/y7.raw" -d cpu --cmp-src '({ exit(0); a < b; })'
says "exit refused by name" "calls 'exit'" "$tmp/err"
[ -e "$tmp/y7.raw" ] && bad "output written for an operator calling exit" || ok
expect_rc 2 "abort() in a map" "$g" map "$tmp/x.i32" --dtype i32 --src '(abort(), x)' -o "$tmp/y7.raw" -d cpu
says "abort refused by name" "calls 'abort'" "$tmp/err"
expect_rc 2 "an unknown function" "$g" sort "$tmp/x.i32" --dtype i32 -o "$tmp/y7.raw" -d cpu --cmp-src 'foo(a) < b'
says "unknown function named" "calls 'foo'" "$tmp/err"
expect_rc 0 "math functions are fine" "$g" sort "$tmp/x.i32" --dtype i32 -o "$tmp/y7.raw" -d cpu \
  --cmp-src 'fabs(sin((double)a)) + floor(sqrt(fabs((double)a))) < fabs(sin((double)b)) + floor(sqrt(fabs((double)b)))'
for cache in "$tmp/cache2" off; do # a refused operator is refused again, cached or not
  expect_rc 2 "exit() again (cache $cache)" env GP_JIT_CACHE="$cache" "$g" sort "$tmp/x.i32" --dtype i32 -o "$tmp/y7.raw" -d cpu \
    --cmp-src '({ exit(3); a < b; })'
done

cli_finish test_cli_jit_safety
