#!/bin/sh
# The CLI against NumPy's answers (the reference for its semantics: C order, shapes, dtypes, bins), on the CPU backend
# (-d cpu), so everywhere; GPUPRIM_TEST_DEVICE=0 runs the same checks on GPU 0. $1: the gpuprim executable. Needs
# python3 with NumPy (skipped, exit 77, without it).
set -u
. "$(dirname "$0")/cli_common.sh"
python3 -c 'import numpy' 2>/dev/null || { echo "test_cli_numpy: SKIPPED: no python3 with NumPy"; exit 77; }
py() { python3 -c "import numpy as np, sys, json; T='$tmp'; $1"; }
# same FILE EXPECTED.npy: the arrays equal in dtype, shape and values (NaN where NaN)
same() {
  if py "a = np.load('$1'); b = np.load('$2'); sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == 'f') else 1)"; then ok
  else bad "$3: $(py "a = np.load('$1'); b = np.load('$2'); print(a.dtype, a.shape, a.ravel()[:8], '| want', b.dtype, b.shape, b.ravel()[:8])")"; fi
}
dev=${GPUPRIM_TEST_DEVICE:-cpu}
# hasf description TEXT file: TEXT (fixed, not a pattern) is in file
hasf() { if grep -qF -- "$2" "$3"; then ok; else bad "$1: '$2' not in: $(head -c 400 "$3")"; fi; }
cc_ok=0
command -v "${GP_CC:-cc}" >/dev/null 2>&1 && cc_ok=1

# ---- C order: a Fortran-order array is flattened in C order by every verb
py "np.save(T + '/tF.npy', np.asfortranarray(np.array([[1, 2, 3], [4, 5, 6]], 'i4')))"
py "np.save(T + '/want_cumsum.npy', np.cumsum(np.array([[1, 2, 3], [4, 5, 6]], 'i4')))"
expect_rc 0 "scan of a Fortran-order array" "$g" scan "$tmp/tF.npy" --op sum -o "$tmp/s.npy" -d $dev
same "$tmp/s.npy" "$tmp/want_cumsum.npy" "np.cumsum of a Fortran-order array (C order, int64)"
py "a = np.array([[1, 2, 3], [4, 5, 6]], 'i4'); np.save(T + '/want_sel.npy', a[a > 1])"
expect_rc 0 "select of a Fortran-order array" "$g" select "$tmp/tF.npy" --where gt:1 -o "$tmp/sel.npy" -d $dev
same "$tmp/sel.npy" "$tmp/want_sel.npy" "x[x > 1] of a Fortran-order array"
py "np.save(T + '/rF.npy', np.asfortranarray(np.array([[1, 1, 2], [2, 2, 1]], 'i4')))"
expect_rc 0 "rle of a Fortran-order array" "$g" rle "$tmp/rF.npy" -o "$tmp/rv.npy" --lengths "$tmp/rl.npy" -d $dev
py "sys.exit(0 if np.load(T + '/rv.npy').tolist() == [1, 2, 1] and np.load(T + '/rl.npy').tolist() == [2, 3, 1] else 1)" && ok || bad "rle walks C order"
expect_rc 0 "unique --consecutive of a Fortran-order array" "$g" unique --consecutive "$tmp/rF.npy" -o "$tmp/u.npy" -d $dev
py "sys.exit(0 if np.load(T + '/u.npy').tolist() == [1, 2, 1] else 1)" && ok || bad "unique --consecutive walks C order"
expect_rc 0 "unique of a Fortran-order array" "$g" unique "$tmp/rF.npy" -o "$tmp/u.npy" --inverse "$tmp/uinv.npy" -d $dev
py "a = np.array([[1, 1, 2], [2, 2, 1]], 'i4'); u, v = np.unique(a, return_inverse=True); g = np.load(T + '/uinv.npy'); sys.exit(0 if np.load(T + '/u.npy').tolist() == u.tolist() and g.shape == v.shape and (g == v).all() else 1)" && ok || bad "np.unique of a Fortran-order array: its inverse in the input's shape"
py "np.save(T + '/aF.npy', np.asfortranarray(np.array([[2, 0.5], [1, 1], [3, -1]], 'f8')))"
expect_rc 0 "scan affine of a Fortran-order (3, 2)" "$g" scan "$tmp/aF.npy" --op affine -o "$tmp/aff.npy" -d $dev
py "y = np.load(T + '/aff.npy'); sys.exit(0 if y.shape == (3, 2) and y.tolist() == [[2, 0.5], [2, 1.5], [6, 3.5]] else 1)" && ok || bad "affine scan: rows in C order, shape (n, 2) kept"
if [ "$cc_ok" = 1 ]; then
  py "np.save(T + '/m.npy', np.asfortranarray(np.arange(300 * 500, dtype='f4').reshape(300, 500)))"
  expect_rc 0 "map of a (300, 500) Fortran array" "$g" map "$tmp/m.npy" --src 'x * 2' -o "$tmp/m2.npy" -d $dev
  py "np.save(T + '/want_m2.npy', np.ascontiguousarray(np.load(T + '/m.npy') * 2))"
  same "$tmp/m2.npy" "$tmp/want_m2.npy" "map keeps the shape, C order"
fi

# ---- scan's dtype: np.cumsum's (bool and signed -> int64, unsigned -> uint64), --acc to choose
for dt in bool u1 i1 i2 u2 i4 u4; do
  py "rng = np.random.default_rng(7); a = rng.integers(0, 250, 1000).astype('$dt') if '$dt' != 'bool' else rng.integers(0, 2, 1000).astype(bool); np.save(T + '/c.npy', a); np.save(T + '/want.npy', np.cumsum(a))"
  expect_rc 0 "scan sum of $dt" "$g" scan "$tmp/c.npy" --op sum -o "$tmp/cs.npy" -d $dev
  same "$tmp/cs.npy" "$tmp/want.npy" "scan sum of $dt = np.cumsum"
done
py "np.save(T + '/c8.npy', np.array([200, 100, 50], 'u1'))"
expect_rc 0 "scan --acc u8 wraps on request" "$g" scan "$tmp/c8.npy" --op sum --acc u8 -o "$tmp/c8s.npy" -d $dev
py "sys.exit(0 if np.load(T + '/c8s.npy').tolist() == [200, 44, 94] else 1)" && ok || bad "--acc u8 wraps"
expect_rc 2 "scan --acc f64 of u8" "$g" scan "$tmp/c8.npy" --op sum --acc f16 -o "$tmp/x.npy" -d $dev
grep -q GP_DTYPE_COUNT "$tmp/err" && bad "scan --acc names an internal constant" || ok
says "--acc choices" "'default'" "$tmp/err"

# ---- reductions: bitwise ops keep the signed dtype; empty inputs
py "a = np.array([5, -13, 77, -1000, 3], 'i4'); np.save(T + '/x.npy', a); print(int(np.bitwise_xor.reduce(a)))" >"$tmp/xor"
expect_rc 0 "reduce xor i32" "$g" reduce "$tmp/x.npy" --op xor -d $dev --json
says "xor is signed" "\"value\": $(cat "$tmp/xor")," "$tmp/out"
py "np.save(T + '/o.npy', np.array([-2, 1, 5], 'i8'))"
expect_rc 0 "reduce or i64" "$g" reduce "$tmp/o.npy" --op or -d $dev --json
says "or is -1" '"value": -1,' "$tmp/out"
py "np.save(T + '/e.npy', np.zeros(0, 'f4'))"
for op in max min argmin argmax minmax; do
  expect_rc 1 "reduce $op of nothing" "$g" reduce "$tmp/e.npy" --op $op -d $dev
  says "$op of nothing refused" "zero-size" "$tmp/err"
done
expect_rc 0 "reduce sum of nothing" "$g" reduce "$tmp/e.npy" --op sum -d $dev --json
says "sum of nothing" '"value": 0,' "$tmp/out"

# ---- bools are bools: 0xff bytes are True
py "np.save(T + '/b.npy', np.frombuffer(b'\xff\x00\xff\xff', bool))"
expect_rc 0 "reduce sum of bools" "$g" reduce "$tmp/b.npy" --op sum -d $dev --json
says "sum of 3 True" '"value": 3,' "$tmp/out"
py "np.save(T + '/b2.npy', np.frombuffer(b'\x01\xff\x02', bool))"
expect_rc 0 "argmax of bools" "$g" reduce "$tmp/b2.npy" --op argmax -d $dev --json
says "argmax of bools is the first True" '"index": 0' "$tmp/out"
py "np.save(T + '/bm.npy', np.frombuffer(b'\x01\xff\x00\x00\x02\x01', bool).reshape(2, 3))"
expect_rc 0 "transpose of bools" "$g" transpose "$tmp/bm.npy" "$tmp/bmt.npy" -d $dev
py "np.save(T + '/want.npy', np.frombuffer(b'\x01\xff\x00\x00\x02\x01', bool).reshape(2, 3).T.copy())"
same "$tmp/bmt.npy" "$tmp/want.npy" "transpose keeps bool"
expect_rc 0 "unique of bools" "$g" unique "$tmp/b2.npy" -o "$tmp/bu.npy" -d $dev
py "u = np.load(T + '/bu.npy'); sys.exit(0 if u.dtype == bool and u.tolist() == [True] else 1)" && ok || bad "unique keeps bool"

# ---- histogram and transpose take every dtype
for dt in i8 u8 i1 i2 u2 f2 bool; do
  py "rng = np.random.default_rng(3); a = (rng.integers(-50, 50, 2001) if '$dt' != 'u8' and '$dt' != 'u2' else rng.integers(0, 100, 2001)).astype('$dt'); np.save(T + '/h.npy', a); c, e = np.histogram(a, 7); print(json.dumps(c.tolist()))" >"$tmp/want"
  expect_rc 0 "histogram of $dt" "$g" histogram "$tmp/h.npy" --bins 7 -d $dev --json
  hasf "histogram of $dt = np.histogram" "\"counts\": $(cat "$tmp/want")" "$tmp/out"
  py "a = np.load(T + '/h.npy')[:2000].reshape(40, 50); np.save(T + '/t.npy', a); np.save(T + '/want.npy', a.T.copy())"
  expect_rc 0 "transpose of $dt" "$g" transpose "$tmp/t.npy" "$tmp/tt.npy" -d $dev
  same "$tmp/tt.npy" "$tmp/want.npy" "transpose of $dt"
done

# ---- histogram: NumPy's edges (linspace in the data's float type), its refusals and widening
py "np.save(T + '/p7.npy', np.array([0.7], np.float32))"
expect_rc 0 "histogram 0.7 f32" "$g" histogram "$tmp/p7.npy" --bins 10 --range 0,1 -d $dev --json
py "c, e = np.histogram(np.array([0.7], np.float32), 10, (0, 1)); print(json.dumps(c.tolist()))" >"$tmp/want"
hasf "0.7 in NumPy's bin" "\"counts\": $(cat "$tmp/want")" "$tmp/out"
py "np.save(T + '/p337.npy', np.array([337.0]))"
expect_rc 0 "histogram 337 in 8296 bins" "$g" histogram "$tmp/p337.npy" --bins 8296 --range 2,2280 -d $dev --csv
py "c, e = np.histogram(np.array([337.0]), 8296, (2, 2280)); print(int(np.argmax(c)))" >"$tmp/want"
says "337 in NumPy's bin" "^bin,$(cat "$tmp/want"),.*,1\$" "$tmp/out"
py "rng = np.random.default_rng(5); a = (rng.standard_normal(100000) * 3).astype(np.float32); np.save(T + '/hn.npy', a); c, e = np.histogram(a, 333, (-2.7, 3.1)); print(json.dumps(c.tolist()))" >"$tmp/want"
expect_rc 0 "histogram f32 333 bins" "$g" histogram "$tmp/hn.npy" --bins 333 --range=-2.7,3.1 -d $dev --json
hasf "333 f32 bins = np.histogram" "\"counts\": $(cat "$tmp/want")" "$tmp/out"
py "np.save(T + '/z.npy', np.array([1.0, 1.0000000000000002]))"
expect_rc 2 "zero-width bins" "$g" histogram "$tmp/z.npy" --bins 10 -d $dev
says "too many bins" "too many bins" "$tmp/err"
expect_rc 0 "--range 1,1 widened" "$g" histogram "$tmp/z.npy" --bins 2 --range 1,1 -d $dev --json
py "c, e = np.histogram(np.array([1.0, 1.0000000000000002]), 2, (1, 1)); print(json.dumps(c.tolist()))" >"$tmp/want"
hasf "--range 1,1 = NumPy" "\"counts\": $(cat "$tmp/want")" "$tmp/out"
expect_rc 2 "--range with inf" "$g" histogram "$tmp/z.npy" --bins 2 --range 0,inf -d $dev
says "infinite range named" "not finite" "$tmp/err"
expect_rc 0 "--edges with inf" "$g" histogram "$tmp/z.npy" --edges=-inf,1,inf -d $dev --json
says "infinite edges taken" '"counts": \[0, 2\]' "$tmp/out"
# NumPy's test_precision: a range past float32's precision over float32 data, as Python floats (the data's type,
# NEP 50) and as a float64 array (--range-dtype f64: double edges), each against NumPy itself
py "np.save(T + '/one32.npy', np.array([1.0], np.float32))"
for r in "1.0000000000000002,2.0" "0.0,0.9999999999999999"; do
  for rd in data f64; do
    expect_rc 0 "histogram --range $r --range-dtype $rd" "$g" histogram "$tmp/one32.npy" --bins 1 --range "$r" --range-dtype $rd -d $dev --json
    py "lo, hi = $r; rg = (lo, hi) if '$rd' == 'data' else np.array([lo, hi], np.float64)
c, e = np.histogram(np.array([1.0], np.float32), 1, rg); print(json.dumps(c.tolist()))" >"$tmp/want"
    hasf "--range $r --range-dtype $rd = NumPy" "\"counts\": $(cat "$tmp/want")" "$tmp/out"
  done
done
expect_rc 2 "--range-dtype without --range" "$g" histogram "$tmp/one32.npy" --bins 1 --range-dtype f64 -d $dev
expect_rc 2 "--range-dtype f32" "$g" histogram "$tmp/one32.npy" --bins 1 --range 0,1 --range-dtype f32 -d $dev

# ---- gemm: f32 inputs rounded to bf16 / fp16 as torch's .bfloat16() / .half() do
py "
rng = np.random.default_rng(11)
a = rng.standard_normal((33, 17)).astype(np.float32); b = rng.standard_normal((17, 9)).astype(np.float32)
np.save(T + '/ga.npy', a); np.save(T + '/gb.npy', b)
def bf16(x):
    u = x.view(np.uint32).astype(np.uint64); u = (u + 0x7fff + ((u >> 16) & 1)) >> 16 << 16
    return u.astype(np.uint32).view(np.float32)
np.save(T + '/want_bf.npy', bf16(a).astype(np.float64) @ bf16(b).astype(np.float64))
np.save(T + '/want_h.npy', a.astype(np.float16).astype(np.float64) @ b.astype(np.float16).astype(np.float64))"
for p in bf16:want_bf fp16:want_h; do
  expect_rc 0 "gemm --precision ${p%%:*} of f32" "$g" gemm "$tmp/ga.npy" "$tmp/gb.npy" -o "$tmp/gc.npy" --precision "${p%%:*}" -d $dev
  py "c = np.load(T + '/gc.npy'); w = np.load(T + '/${p#*:}.npy'); sys.exit(0 if c.shape == w.shape and np.allclose(c, w, rtol=1e-4, atol=1e-4) else 1)" && ok || bad "gemm ${p%%:*} of rounded f32 inputs"
done

# ---- user operators: an identity spelled as NumPy prints it
if [ "$cc_ok" = 1 ]; then
  py "np.save(T + '/mx.npy', np.array([-3.5, -1.25, -7.0], np.float32))"
  expect_rc 0 "--identity -inf" "$g" reduce "$tmp/mx.npy" --op-src 'a > b ? a : b' --identity -inf -d $dev --json
  says "max by a user op" '"value": -1.25' "$tmp/out"
fi

# ---- sort / argsort: np.sort / np.argsort(kind='stable') bit for bit; descending as torch's stable descending (NaN
# first, ties in input order), here from np.lexsort; pairs; --flatten (axis=None)
for t in f4 f8 f2 i1 u1 i2 u2 i4 u4 i8 u8; do
  py "rng = np.random.default_rng(); n = 20011 if '$dev' == 'cpu' else 300007; t = np.dtype('$t')
if t.kind == 'f':
    x = rng.integers(-50, 50, n).astype(t) / 4; x[rng.integers(0, n, 300)] = np.nan; x[rng.integers(0, n, 300)] = -0.0
    x[rng.integers(0, n, 100)] = np.inf; x[rng.integers(0, n, 100)] = -np.inf
    u = x.view('u%d' % t.itemsize); k = rng.integers(0, n, 50); u[k] |= np.array(1 << (8 * t.itemsize - 1), u.dtype)  # negative NaNs and zeros too
else:
    x = rng.integers(np.iinfo(t).min, np.iinfo(t).max, n, dtype=t, endpoint=True); x[1::2] = x[::2][:len(x[1::2])]  # ties
np.save(T + '/k.npy', x); np.save(T + '/v.npy', np.arange(n, dtype='i4') * 3)
a = np.argsort(x, kind='stable'); np.save(T + '/want_a.npy', a); np.save(T + '/want_s.npy', x[a])
if t.kind == 'f': d = np.lexsort((np.where(np.isnan(x), 0, -x.astype('f8')), ~np.isnan(x)))
else: d = np.argsort(~x, kind='stable')
np.save(T + '/want_d.npy', d); np.save(T + '/want_ds.npy', x[d]); np.save(T + '/want_v.npy', (np.arange(n, dtype='i4') * 3)[a])"
  expect_rc 0 "sort $t" "$g" sort "$tmp/k.npy" -o "$tmp/s.npy" -d $dev
  py "a = np.load(T + '/s.npy'); b = np.load(T + '/want_s.npy'); sys.exit(0 if a.dtype == b.dtype and a.tobytes() == b.tobytes() else 1)" && ok || bad "sort $t: not np.sort's bits (stable, NaN last)"
  # out of core: --mem-limit 1/8 of the input (at least 8192 elements' worth), runs merged: the same bits
  n=20011; [ "$dev" = cpu ] || n=300007
  es=${t#?}; lim=$((n * es / 8)); [ $lim -ge $((8192 * es)) ] || lim=$((8192 * es))
  expect_rc 0 "sort $t out of core" "$g" sort "$tmp/k.npy" -o "$tmp/so.npy" --mem-limit $lim -d $dev --json
  grep -q '"out_of_core": 1' "$tmp/out" && ok || bad "sort $t --mem-limit $lim did not go out of core: $(head -c 300 "$tmp/out")"
  py "a = np.load(T + '/so.npy'); b = np.load(T + '/want_s.npy'); sys.exit(0 if a.dtype == b.dtype and a.tobytes() == b.tobytes() else 1)" && ok || bad "sort $t out of core: not np.sort's bits (stable, NaN last)"
  expect_rc 0 "argsort $t" "$g" argsort "$tmp/k.npy" -o "$tmp/a.npy" -d $dev
  same "$tmp/a.npy" "$tmp/want_a.npy" "argsort $t = np.argsort(kind='stable') (int64)"
  expect_rc 0 "argsort $t descending" "$g" argsort "$tmp/k.npy" -o "$tmp/d.npy" --descending -d $dev
  same "$tmp/d.npy" "$tmp/want_d.npy" "argsort $t --descending: NaN first, ties in input order"
  expect_rc 0 "sort $t --values" "$g" sort "$tmp/k.npy" -o "$tmp/s2.npy" --values "$tmp/v.npy" --values-out "$tmp/vo.npy" -d $dev
  same "$tmp/vo.npy" "$tmp/want_v.npy" "sort $t --values: the values in the keys' stable order"
done
py "np.save(T + '/k2.npy', np.array([[3, 1], [2, 0]], 'i4'))"
expect_rc 0 "sort --flatten" "$g" sort "$tmp/k2.npy" -o "$tmp/s.npy" --flatten -d $dev
py "sys.exit(0 if np.load(T + '/s.npy').tolist() == [0, 1, 2, 3] else 1)" && ok || bad "sort --flatten = np.sort(x, axis=None)"
# N-d along the last axis (np.sort(x) / np.argsort(x, kind='stable'), F order too) and --segments (int64 CSR offsets,
# each segment np.sort's bits, the elements outside kept; a decrease refused, naming it, nothing written)
for t in f4 f8 i2 u8; do
  py "rng = np.random.default_rng(); t = np.dtype('$t'); R, C = (37, 201) if '$dev' == 'cpu' else (300, 1001)
x = (rng.integers(-40, 40, (R, C)) / (4 if t.kind == 'f' else 1)).astype(t)
if t.kind == 'f': x[rng.integers(0, R, 40), rng.integers(0, C, 40)] = np.nan; x[rng.integers(0, R, 40), rng.integers(0, C, 40)] = -0.0
np.save(T + '/k3.npy', x); np.save(T + '/k3f.npy', np.asfortranarray(x)); np.save(T + '/want_s3.npy', np.sort(x, kind='stable'))
np.save(T + '/want_a3.npy', np.argsort(x, kind='stable'))
f = x.ravel(); o = np.cumsum(np.concatenate([[5], rng.integers(0, 300, 200)])); o = np.append(o[o < f.size - 9], f.size - 9).astype('i8')
w = f.copy()
for a, b in zip(o[:-1], o[1:]): w[a:b] = np.sort(f[a:b], kind='stable')
np.save(T + '/k1.npy', f); np.save(T + '/o1.npy', o); np.save(T + '/want_s1.npy', w)"
  expect_rc 0 "sort $t 2-d along the last axis" "$g" sort "$tmp/k3.npy" -o "$tmp/s.npy" -d $dev
  py "a = np.load(T + '/s.npy'); b = np.load(T + '/want_s3.npy'); sys.exit(0 if a.shape == b.shape and a.tobytes() == b.tobytes() else 1)" && ok || bad "sort $t 2-d: not np.sort(x)'s bits and shape"
  expect_rc 0 "sort $t 2-d F order" "$g" sort "$tmp/k3f.npy" -o "$tmp/s.npy" -d $dev
  py "a = np.load(T + '/s.npy'); b = np.load(T + '/want_s3.npy'); sys.exit(0 if a.shape == b.shape and a.tobytes() == b.tobytes() else 1)" && ok || bad "sort $t 2-d F order: not np.sort(x)'s bits"
  expect_rc 0 "argsort $t 2-d" "$g" argsort "$tmp/k3.npy" -o "$tmp/a.npy" -d $dev
  same "$tmp/a.npy" "$tmp/want_a3.npy" "argsort $t 2-d = np.argsort(x, axis=-1, kind='stable')"
  expect_rc 0 "sort $t --segments" "$g" sort "$tmp/k1.npy" -o "$tmp/s.npy" --segments "$tmp/o1.npy" -d $dev
  py "a = np.load(T + '/s.npy'); b = np.load(T + '/want_s1.npy'); sys.exit(0 if a.tobytes() == b.tobytes() else 1)" && ok || bad "sort $t --segments: not each segment's np.sort"
done
py "np.save(T + '/ob.npy', np.array([0, 5, 3], 'i8')); np.save(T + '/o4.npy', np.array([0, 2], 'i4'))"
rm -f "$tmp/nope.npy"
expect_rc 1 "sort --segments decreasing" "$g" sort "$tmp/k1.npy" -o "$tmp/nope.npy" --segments "$tmp/ob.npy" -d $dev
says "a decreasing offset is named" "offsets\[2\] = 3" "$tmp/err"
expect_rc 2 "sort --segments int32" "$g" sort "$tmp/k1.npy" -o "$tmp/nope.npy" --segments "$tmp/o4.npy" -d $dev
says "--segments names int64" "int64" "$tmp/err"
expect_rc 2 "sort --segments of a 2-d input" "$g" sort "$tmp/k3.npy" -o "$tmp/nope.npy" --segments "$tmp/o1.npy" -d $dev
[ ! -e "$tmp/nope.npy" ] && ok || bad "a refused segmented sort wrote its output"
# --cmp-src: a comparison compiled at run time (needs the C compiler on the CPU backend): NumPy's stable order by a
# key spelled in C (C's % truncates, as np.fmod), 1-D and along the last axis, with values and as argsort; compile errors
# at less:L:C, nothing written
if [ $cc_ok = 1 ] || [ "$dev" != cpu ]; then
  py "rng = np.random.default_rng(); x = rng.standard_normal(5001).astype('f4'); x[rng.integers(0, 5001, 60)] = np.nan
x[rng.integers(0, 5001, 60)] = -0.0; x[rng.integers(0, 5001, 60)] = 0.5
k = np.abs(x); o = np.argsort(np.where(np.isnan(k), np.inf, k), kind='stable')
v = rng.integers(0, 1 << 30, 5001).astype('u4'); y = rng.integers(-99, 99, (23, 177)).astype('i8')
np.save(T + '/c1.npy', x); np.save(T + '/cv.npy', v); np.save(T + '/want_c1.npy', x[o]); np.save(T + '/want_cv.npy', v[o])
np.save(T + '/want_ca.npy', o.astype('i8')); np.save(T + '/c2.npy', y)
o2 = np.argsort(-np.fmod(y, 7), axis=-1, kind='stable'); np.save(T + '/want_c2.npy', np.take_along_axis(y, o2, -1)); np.save(T + '/want_c2a.npy', o2)"
  absf='fabsf(a) < fabsf(b) || (a == a && b != b)'
  expect_rc 0 "sort --cmp-src |x|" "$g" sort "$tmp/c1.npy" -o "$tmp/s.npy" --values "$tmp/cv.npy" --values-out "$tmp/sv.npy" --cmp-src "$absf" -d $dev
  py "a = np.load(T + '/s.npy'); b = np.load(T + '/want_c1.npy'); sys.exit(0 if a.tobytes() == b.tobytes() else 1)" && ok || bad "sort --cmp-src |x|: not the stable order by |x| (NaN last)"
  same "$tmp/sv.npy" "$tmp/want_cv.npy" "sort --cmp-src: the values moved with their keys"
  expect_rc 0 "argsort --cmp-src |x|" "$g" argsort "$tmp/c1.npy" -o "$tmp/a.npy" --cmp-src "$absf" -d $dev
  same "$tmp/a.npy" "$tmp/want_ca.npy" "argsort --cmp-src = np.argsort(|x|, kind='stable')"
  expect_rc 0 "sort --cmp-src 2-d rows" "$g" sort "$tmp/c2.npy" -o "$tmp/s.npy" --cmp-src "b % 7 < a % 7" -d $dev
  same "$tmp/s.npy" "$tmp/want_c2.npy" "sort --cmp-src along the last axis"
  expect_rc 0 "argsort --cmp-src 2-d rows" "$g" argsort "$tmp/c2.npy" -o "$tmp/a.npy" --cmp-src "b % 7 < a % 7" -d $dev
  same "$tmp/a.npy" "$tmp/want_c2a.npy" "argsort --cmp-src: positions within each row"
  rm -f "$tmp/nope.npy"
  expect_rc 2 "sort --cmp-src that does not compile" "$g" sort "$tmp/c1.npy" -o "$tmp/nope.npy" --cmp-src "a < c" -d $dev
  says "the compile error at less:1:5" "less:1:5" "$tmp/err"
  expect_rc 2 "sort --cmp-src with --descending" "$g" sort "$tmp/c1.npy" -o "$tmp/nope.npy" --cmp-src "a < b" --descending -d $dev
  [ ! -e "$tmp/nope.npy" ] && ok || bad "a refused --cmp-src sort wrote its output"
else
  echo "test_cli_numpy: --cmp-src cases SKIPPED (no C compiler)"
fi
py "np.save(T + '/e2.npy', np.zeros((4, 0), 'f4'))"
expect_rc 0 "sort of rows of nothing" "$g" sort "$tmp/e2.npy" -o "$tmp/s.npy" -d $dev
py "sys.exit(0 if np.load(T + '/s.npy').shape == (4, 0) else 1)" && ok || bad "sort of a (4, 0) array: (4, 0)"
py "np.save(T + '/e.npy', np.zeros(0, 'f4'))"
expect_rc 0 "sort of nothing" "$g" sort "$tmp/e.npy" -o "$tmp/s.npy" -d $dev
py "a = np.load(T + '/s.npy'); sys.exit(0 if a.shape == (0,) and a.dtype == np.float32 else 1)" && ok || bad "sort of an empty array: an empty f4 array"

# ---- searchsorted / topk / merge: np.searchsorted both sides (NaN and ±0 queries, the queries' shape); top-k along
# the last axis = the first k of np.argsort(kind='stable') (largest: of the NaN-first descending order); merge of two
# sorted arrays = the stable sort of their concatenation
for t in f4 f8 f2 i1 u2 i4 u8; do
  py "rng = np.random.default_rng(); t = np.dtype('$t'); R, n = 6, (3001 if '$dev' == 'cpu' else 50021)
if t.kind == 'f':
    x = rng.integers(-40, 40, (R, n)).astype(t) / 4; x[rng.random((R, n)) < 0.02] = np.nan; x[rng.random((R, n)) < 0.02] = -0.0
else:
    x = rng.integers(np.iinfo(t).min, np.iinfo(t).max, (R, n), dtype=t, endpoint=True); x[:, 1::3] = x[:, ::3][:, :x[:, 1::3].shape[1]]
np.save(T + '/x.npy', x); a = np.sort(x.ravel(), kind='stable'); np.save(T + '/a.npy', a)
q = np.concatenate([x.ravel()[:500], rng.permutation(a)[:500]]).reshape(10, 100)
if t.kind == 'f': q[0, :3] = [np.nan, -0.0, 0.0]
np.save(T + '/q.npy', q)
np.save(T + '/want_l.npy', np.searchsorted(a, q, 'left')); np.save(T + '/want_r.npy', np.searchsorted(a, q, 'right'))
k = 37; o = np.argsort(x, axis=-1, kind='stable')[:, :k]; np.save(T + '/want_ti.npy', o); np.save(T + '/want_tv.npy', np.take_along_axis(x, o, -1))
key = np.where(np.isnan(x), 0, -x.astype('f8')) if t.kind == 'f' else ~x
d = np.stack([np.lexsort((key[r], ~np.isnan(x[r]) if t.kind == 'f' else np.zeros(n, bool)))[:k] for r in range(R)])
np.save(T + '/want_di.npy', d); np.save(T + '/want_dv.npy', np.take_along_axis(x, d, -1))
ma, mb = np.sort(x[0], kind='stable'), np.sort(x[1, : n // 3], kind='stable'); np.save(T + '/ma.npy', ma); np.save(T + '/mb.npy', mb)
np.save(T + '/want_m.npy', np.sort(np.concatenate([ma, mb]), kind='stable'))"
  expect_rc 0 "searchsorted $t" "$g" searchsorted "$tmp/a.npy" "$tmp/q.npy" -o "$tmp/l.npy" -d $dev
  same "$tmp/l.npy" "$tmp/want_l.npy" "searchsorted $t = np.searchsorted(side='left') (int64, the queries' shape)"
  expect_rc 0 "searchsorted $t right" "$g" searchsorted "$tmp/a.npy" "$tmp/q.npy" -o "$tmp/r.npy" --side right -d $dev
  same "$tmp/r.npy" "$tmp/want_r.npy" "searchsorted $t --side right"
  expect_rc 0 "topk $t" "$g" topk "$tmp/x.npy" -k 37 -o "$tmp/tv.npy" --indices "$tmp/ti.npy" -d $dev
  same "$tmp/ti.npy" "$tmp/want_ti.npy" "topk $t indices = the first 37 of np.argsort(kind='stable') per row"
  py "a = np.load(T + '/tv.npy'); b = np.load(T + '/want_tv.npy'); sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes() else 1)" && ok || bad "topk $t values: not np.sort's first 37 bits per row"
  expect_rc 0 "topk $t --largest" "$g" topk "$tmp/x.npy" -k 37 --largest -o "$tmp/dv.npy" --indices "$tmp/di.npy" -d $dev
  same "$tmp/di.npy" "$tmp/want_di.npy" "topk $t --largest: NaN first, ties to the lower index"
  expect_rc 0 "merge $t" "$g" merge "$tmp/ma.npy" "$tmp/mb.npy" -o "$tmp/m.npy" -d $dev
  py "a = np.load(T + '/m.npy'); b = np.load(T + '/want_m.npy'); sys.exit(0 if a.dtype == b.dtype and a.tobytes() == b.tobytes() else 1)" && ok || bad "merge $t: not np.sort(np.concatenate([a, b]), kind='stable')"
done
# partition / argpartition: NumPy's guarantee for every kth (the element there is np.sort's, none before it larger,
# none after it smaller; each row a permutation), and the deterministic placement (the first max(kth) + 1 sorted,
# stably, then the rest in input order); both along the last axis and --flatten
for t in f4 i2 u8 f2; do
  py "rng = np.random.default_rng(); t = np.dtype('$t'); x = rng.integers(0, 60, (5, 7, 301)).astype(t)
if t.kind == 'f': x.flat[rng.integers(0, x.size, 40)] = np.nan; x.flat[rng.integers(0, x.size, 40)] = -0.0
np.save(T + '/px.npy', x)"
  for kth in 0 -1 150 "3,-7,299" 300; do
    for fl in "" --flatten; do
      expect_rc 0 "partition $t --kth $kth $fl" "$g" partition "$tmp/px.npy" --kth "$kth" $fl -o "$tmp/pp.npy" -d $dev
      expect_rc 0 "argpartition $t --kth $kth $fl" "$g" argpartition "$tmp/px.npy" --kth "$kth" $fl -o "$tmp/pa.npy" -d $dev
      py "x = np.load(T + '/px.npy'); p = np.load(T + '/pp.npy'); a = np.load(T + '/pa.npy'); fl = '$fl' != ''
if fl: x = x.ravel()
kth = [int(v) for v in '$kth'.split(',')]; n = x.shape[-1]; s = np.sort(x, axis=-1); ok = p.dtype == x.dtype and p.shape == x.shape and a.dtype == np.int64 and a.shape == x.shape
ok = ok and np.array_equal(np.take_along_axis(x, a, -1).view('u%d' % x.itemsize), p.view('u%d' % x.itemsize))
ok = ok and np.array_equal(np.sort(p, axis=-1), s, equal_nan=True)
key = lambda v: np.where(np.isnan(v), np.inf, v) if v.dtype.kind == 'f' else v
for k in kth:
    k %= n; ok = ok and np.array_equal(p[..., k], s[..., k], equal_nan=True)
    ok = ok and (key(p[..., :k]) <= key(p[..., k:k+1])).all() and (key(p[..., k+1:]) >= key(p[..., k:k+1])).all()
m = max(k % n for k in kth) + 1; o = np.argsort(x, axis=-1, kind='stable')
ok = ok and np.array_equal(a[..., :m], o[..., :m])
ok = ok and all((np.diff(a.reshape(-1, n)[r, m:]) > 0).all() for r in range(a.size // n))
sys.exit(0 if ok else 1)" && ok || bad "partition / argpartition $t --kth $kth $fl: not NumPy's guarantee or not our placement"
    done
  done
done
expect_rc 2 "partition --kth past the row" "$g" partition "$tmp/px.npy" --kth 301 -o "$tmp/pp.npy" -d $dev
says "kth out of bounds named" "out of bounds" "$tmp/err"
expect_rc 2 "partition --kth 1.5" "$g" partition "$tmp/px.npy" --kth 1.5 -o "$tmp/pp.npy" -d $dev
py "np.save(T + '/p0.npy', np.array(3.0))"
expect_rc 2 "partition of a 0-d array" "$g" partition "$tmp/p0.npy" --kth 0 -o "$tmp/pp.npy" -d $dev
# merge of inputs out of order: refused naming the first inversion, nothing written (OUT is checked as it is written)
py "np.save(T + '/mu.npy', np.array([1, 2, 5, 3, 7], 'f4')); np.save(T + '/mv.npy', np.array([0, 4, np.nan], 'f4'))
np.save(T + '/mw.npy', np.concatenate([np.arange(70000.0), [5.0], np.arange(70000.0, 80000)]).astype('f4'))"
rm -f "$tmp/m.npy"
expect_rc 1 "merge of an unsorted A" "$g" merge "$tmp/mu.npy" "$tmp/mv.npy" -o "$tmp/m.npy" -d $dev
says "merge names A's inversion" "A\[3\] = 3 goes before A\[2\] = 5" "$tmp/err"
[ -e "$tmp/m.npy" ] && bad "merge wrote OUT for an unsorted input" || ok
expect_rc 1 "merge of a long unsorted B" "$g" merge "$tmp/mv.npy" "$tmp/mw.npy" -o "$tmp/m.npy" -d $dev
says "merge names B's inversion" "B\[70000\] = 5 goes before B\[69999\] = 69999" "$tmp/err"
expect_rc 1 "merge --descending of ascending inputs" "$g" merge "$tmp/mv.npy" "$tmp/mv.npy" -o "$tmp/m.npy" --descending -d $dev
says "merge names the descending order" "not in descending order" "$tmp/err"
[ -e "$tmp/m.npy" ] && bad "merge wrote OUT for inputs out of order" || ok
# the positions alone (no -o); a 0-d sort refused as NumPy does (argsort of it is [0]); .NPY is .npy
expect_rc 0 "topk --indices alone" "$g" topk "$tmp/x.npy" -k 37 --indices "$tmp/ti2.npy" -d $dev
same "$tmp/ti2.npy" "$tmp/want_ti.npy" "topk --indices alone = the first 37 of np.argsort(kind='stable')"
py "np.save(T + '/zd.npy', np.array(2.5))"
expect_rc 2 "sort of a 0-d array" "$g" sort "$tmp/zd.npy" -o "$tmp/zs.npy" -d $dev
says "0-d sort refused as NumPy" "AxisError" "$tmp/err"
expect_rc 0 "argsort of a 0-d array" "$g" argsort "$tmp/zd.npy" -o "$tmp/za.npy" -d $dev
py "sys.exit(0 if np.load(T + '/za.npy').tolist() == np.argsort(np.array(2.5)).tolist() else 1)" && ok || bad "argsort of a 0-d array is not np.argsort's [0]"
expect_rc 0 "sort -o NAME.NPY" "$g" sort "$tmp/a.npy" -o "$tmp/upper.NPY" -d $dev
py "np.load(T + '/upper.NPY')" && ok || bad "-o x.NPY was not written as .npy"
expect_rc 0 "sort -o a name with no extension" "$g" sort "$tmp/a.npy" -o "$tmp/noext" -d $dev
says "raw output said" "does not end in .npy" "$tmp/err"
expect_rc 2 "topk -k past the row" "$g" topk "$tmp/x.npy" -k 100000 -o "$tmp/tv.npy" -d $dev
says "topk names -k" "-k 100000" "$tmp/err"
expect_rc 0 "topk --rows of a 1-d array" "$g" topk "$tmp/a.npy" --rows 2 -k 3 -o "$tmp/tv.npy" -d $dev
py "a = np.load(T + '/a.npy'); b = np.load(T + '/tv.npy'); w = np.sort(a.reshape(2, -1), axis=-1, kind='stable')[:, :3]; sys.exit(0 if b.shape == (2, 3) and b.tobytes() == w.tobytes() else 1)" && ok || bad "topk --rows 2: the rows of a 1-d input"
# one row streamed in chunks (16 MiB): past one chunk, ties, NaN and -0.0 across the chunks' seams; a .npy and a pipe
py "rng = np.random.default_rng(); n = (1 << 22) + 12345
x = (rng.integers(-200, 200, n) / 8).astype(np.float32); x[rng.random(n) < 0.001] = np.nan; x[rng.random(n) < 0.001] = -0.0
np.save(T + '/s.npy', x); x.tofile(T + '/s.raw'); o = np.argsort(x, kind='stable')[:1000]
np.save(T + '/want_si.npy', o); np.save(T + '/want_sv.npy', x[o])
d = np.lexsort((np.arange(n), np.where(np.isnan(x), 0, -x.astype('f8')), ~np.isnan(x)))[:1000]; np.save(T + '/want_sd.npy', d)"
expect_rc 0 "topk of one long row" "$g" topk "$tmp/s.npy" -k 1000 -o "$tmp/sv.npy" --indices "$tmp/si.npy" -d $dev
same "$tmp/si.npy" "$tmp/want_si.npy" "topk streamed: the first 1000 of np.argsort(kind='stable') across chunks"
py "sys.exit(0 if np.load(T + '/sv.npy').tobytes() == np.load(T + '/want_sv.npy').tobytes() else 1)" && ok || bad "topk streamed: values not the input's bits"
expect_rc 0 "topk --largest of a piped row" sh -c "cat '$tmp/s.raw' | '$g' topk - --dtype f4 -k 1000 --largest --indices '$tmp/sd.npy' -d $dev"
same "$tmp/sd.npy" "$tmp/want_sd.npy" "topk streamed from a pipe, --largest: NaN first, ties to the lower index"
expect_rc 2 "searchsorted of mixed dtypes" "$g" searchsorted "$tmp/a.npy" "$tmp/k2.npy" -o "$tmp/l.npy" -d $dev
says "searchsorted names both dtypes" "both of one dtype" "$tmp/err"
expect_rc 2 "searchsorted --side up" "$g" searchsorted "$tmp/a.npy" "$tmp/q.npy" -o "$tmp/l.npy" --side up -d $dev

# ---- groupby: np.unique(KEYS)'s groups (every NaN key one; --equal-nan no: each its own, as NumPy's ==) and the op
# per group in NumPy's dtype: np.add.reduceat widened as np.sum, min / max in the values' dtype, count, np.mean
for t in f4 i2 u8; do
  for vt in i4 i1 f2; do
  py "rng = np.random.default_rng(); t = np.dtype('$t'); n = 20011
k = rng.integers(0, 300, n).astype(t)
if t.kind == 'f': k[rng.integers(0, n, 30)] = np.nan; k[rng.integers(0, n, 30)] = -0.0
v = rng.integers(-100, 100, n).astype('$vt'); np.save(T + '/gk.npy', k); np.save(T + '/gv.npy', v)
o = np.argsort(k, kind='stable'); ks, vs = k[o], v[o]
for eq, tag in ((True, ''), (False, 'd')):
    same = (ks[1:] == ks[:-1]) | (eq & np.isnan(ks[1:]) & np.isnan(ks[:-1])) if t.kind == 'f' else ks[1:] == ks[:-1]
    s = np.concatenate([[0], np.nonzero(~same)[0] + 1])
    np.save(T + '/want_gk%s.npy' % tag, ks[s])
    acc = vs.astype('f8' if vs.dtype.kind == 'f' else 'i8')
    np.save(T + '/want_gs%s.npy' % tag, np.add.reduceat(acc, s).astype(np.sum(vs[:1]).dtype))
    np.save(T + '/want_gm%s.npy' % tag, np.maximum.reduceat(vs, s))
    np.save(T + '/want_gc%s.npy' % tag, np.diff(np.append(s, n)).astype('i8'))
    np.save(T + '/want_gmean%s.npy' % tag, np.array([vs[a:b].mean() for a, b in zip(s, np.append(s[1:], n))], np.mean(vs[:2]).dtype))"
  for eq in yes no; do
    tag=; [ $eq = no ] && tag=d
    expect_rc 0 "groupby $t/$vt sum --equal-nan $eq" "$g" groupby "$tmp/gk.npy" "$tmp/gv.npy" --op sum -o "$tmp/gko.npy" --values-out "$tmp/gvo.npy" --equal-nan $eq -d $dev
    py "a = np.load(T + '/gko.npy'); b = np.load(T + '/want_gk$tag.npy'); sys.exit(0 if a.dtype == b.dtype and a.tobytes() == b.tobytes() else 1)" && ok || bad "groupby $t/$vt --equal-nan $eq: the group keys are not np.unique's"
    if [ $vt = f2 ]; then
      py "a = np.load(T + '/gvo.npy'); b = np.load(T + '/want_gs$tag.npy'); sys.exit(0 if a.dtype == b.dtype and np.allclose(a.astype('f8'), b.astype('f8'), rtol=2e-3, atol=0.5) else 1)" && ok || bad "groupby $t/$vt sum (float16, to rounding)"
    else
      same "$tmp/gvo.npy" "$tmp/want_gs$tag.npy" "groupby $t/$vt --op sum = np.add.reduceat, np.sum's dtype"
    fi
    expect_rc 0 "groupby $t/$vt max" "$g" groupby "$tmp/gk.npy" "$tmp/gv.npy" --op max -o "$tmp/gko.npy" --values-out "$tmp/gvo.npy" --equal-nan $eq -d $dev
    same "$tmp/gvo.npy" "$tmp/want_gm$tag.npy" "groupby $t/$vt --op max = np.maximum.reduceat (the values' dtype)"
    expect_rc 0 "groupby $t/$vt count" "$g" groupby "$tmp/gk.npy" "$tmp/gv.npy" --op count -o "$tmp/gko.npy" --values-out "$tmp/gvo.npy" --equal-nan $eq -d $dev
    same "$tmp/gvo.npy" "$tmp/want_gc$tag.npy" "groupby $t/$vt --op count (int64)"
    expect_rc 0 "groupby $t/$vt mean" "$g" groupby "$tmp/gk.npy" "$tmp/gv.npy" --op mean -o "$tmp/gko.npy" --values-out "$tmp/gvo.npy" --equal-nan $eq -d $dev
    py "a = np.load(T + '/gvo.npy'); b = np.load(T + '/want_gmean$tag.npy'); sys.exit(0 if a.dtype == b.dtype and np.allclose(a.astype('f8'), b.astype('f8'), rtol=1e-3) else 1)" && ok || bad "groupby $t/$vt --op mean: not np.mean's (dtype, values)"
  done
  done
done
expect_rc 2 "groupby of unequal lengths" "$g" groupby "$tmp/gk.npy" "$tmp/a.npy" --op sum -o "$tmp/gko.npy" --values-out "$tmp/gvo.npy" -d $dev
expect_rc 2 "groupby --op median" "$g" groupby "$tmp/gk.npy" "$tmp/gv.npy" --op median -o "$tmp/gko.npy" --values-out "$tmp/gvo.npy" -d $dev

# ---- unique: np.unique(x, return_index, return_inverse, return_counts) — with return_index NumPy sorts stably, so
# even the kept bits match (the first occurrence: a NaN's payload, a zero's sign)
for t in f4 f8 f2 i2 u8 i8; do
  py "rng = np.random.default_rng(); t = np.dtype('$t'); x = rng.integers(0, 500, (71, 283)).astype(t)
if t.kind == 'f':
    x.flat[rng.integers(0, x.size, 90)] = -0.0; x.flat[rng.integers(0, x.size, 90)] = np.nan
    b = x.view('u%d' % t.itemsize); i = rng.integers(0, x.size, 40); b.flat[i] |= 1 + (i % 7).astype(b.dtype); b.flat[i[:20]] |= np.array(1 << (8 * t.itemsize - 1), b.dtype)
np.save(T + '/ux.npy', x)
for eq, tag in ((True, ''), (False, 'd')):
    u, i, v, c = np.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=eq)
    np.save(T + '/want_u%s.npy' % tag, u); np.save(T + '/want_ui%s.npy' % tag, i); np.save(T + '/want_uv%s.npy' % tag, v); np.save(T + '/want_uc%s.npy' % tag, c)"
  for eq in yes no; do
    tag=; [ $eq = no ] && tag=d
    expect_rc 0 "unique $t with index, inverse, counts, --equal-nan $eq" "$g" unique "$tmp/ux.npy" -o "$tmp/u.npy" --index "$tmp/ui.npy" --inverse "$tmp/uv.npy" --counts "$tmp/uc.npy" --equal-nan $eq -d $dev
    for o in u ui uv uc; do
      py "a = np.load(T + '/$o.npy'); b = np.load(T + '/want_$o$tag.npy'); sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes() else 1)" && ok || bad "unique $t --equal-nan $eq: $o differs from np.unique's (bits, dtype, shape)"
    done
  done
done
expect_rc 2 "unique --equal-nan maybe" "$g" unique "$tmp/ux.npy" -o "$tmp/u.npy" --equal-nan maybe -d $dev
says "--equal-nan's values named" "expected one of yes no" "$tmp/err"
expect_rc 2 "unique --consecutive --index" "$g" unique --consecutive "$tmp/ux.npy" -o "$tmp/u.npy" --index "$tmp/ui.npy" -d $dev
says "unique --consecutive --index: why" "gpuprim rle" "$tmp/err"

# ---- output records: whole JSON, bare CSV values, shapes as arrays
py "np.save(T + '/m4.npy', np.tile(np.eye(4), (5, 1, 1)) * 1.0000000000000002)"
expect_rc 0 "scan mat4 f64 --json" "$g" scan "$tmp/m4.npy" --op mat4 -o "$tmp/m4s.npy" -d $dev --json
json_ok "$tmp/out" && ok || bad "scan --json of a mat4 total is not JSON: $(head -c 300 "$tmp/out")"
py "np.save(T + '/nan.npy', np.array([np.nan, 1], np.float32))"
expect_rc 0 "reduce --csv of NaN" "$g" reduce "$tmp/nan.npy" --op sum -d $dev --csv
grep -qF '"nan"' "$tmp/out" && bad "CSV quotes a NaN: $(cat "$tmp/out")" || ok
says "CSV NaN bare" ",nan," "$tmp/out"
py "np.save(T + '/tm.npy', np.ones((257, 65), np.float32))"
expect_rc 0 "transpose --json" "$g" transpose "$tmp/tm.npy" "$tmp/tmt.npy" -d $dev --json
says "JSON shape is an array" '"shape": \[65, 257\]' "$tmp/out"

cli_finish test_cli_numpy
