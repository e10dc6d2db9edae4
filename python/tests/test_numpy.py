"""gpuprim's Python functions on the CPU backend against NumPy itself: every dtype, NaN payloads and +-0 where floats
are ordered, empty and 0-d inputs, Fortran order and strided views (copied, never read wrong), the arguments refused
(each with a message), and DLPack input (NumPy's own __dlpack__ through a wrapper). Fresh random data every run
(GP_TEST_SEED to replay). Run by ctest (python_numpy) with GPUPRIM_LIB and PYTHONPATH set."""
import math
import os
import unittest
import warnings

import numpy as np

import gpuprim as g

SEED = int(os.environ.get("GP_TEST_SEED", "0") or 0) or int.from_bytes(os.urandom(4), "little")
print("test_numpy: seed GP_TEST_SEED=%d" % SEED)
rng = np.random.default_rng(SEED)

INTS = [np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64]
FLOATS = [np.float16, np.float32, np.float64]
SIZES = [0, 1, 2, 31, 33, 1025, 70001]


def data(dt, n, nan=True):
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.random(n) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        if n > 10:
            x[rng.integers(0, n, n // 5)] = x[0]  # repeats
        return x
    x = (rng.integers(-50, 50, n) / 4).astype(dt)
    if nan and n > 3:
        bits = x.view("u%d" % dt.itemsize)
        i = rng.integers(0, n, 1 + n // 50)
        x[i] = np.nan
        bits[i[: len(i) // 2]] |= np.array(1 + (i[: len(i) // 2] % 5), bits.dtype)  # payloads
        bits[i[::3]] |= np.array(1 << (8 * dt.itemsize - 1), bits.dtype)  # negative NaNs
        x[rng.integers(0, n, 1 + n // 50)] = -0.0
    return x


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


class Dl:
    """Only the DLPack protocol of a NumPy array: gpuprim must read it through the capsule."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None, **kw):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class TestSort(unittest.TestCase):
    def test_sort_every_dtype(self):
        for dt in INTS + FLOATS + [np.bool_]:
            for n in SIZES:
                x = data(dt, n)
                want = np.sort(x, kind="stable")
                got = g.sort(x)
                # NumPy's NaNs: its stable sort keeps their input order and bits, as gpuprim does
                self.assertTrue(same_bits(got, want), "sort %s n=%d" % (np.dtype(dt), n))
                self.assertTrue(same_bits(g.argsort(x), np.argsort(x, kind="stable")), "argsort %s n=%d" % (np.dtype(dt), n))

    def test_sort_axes_and_layouts(self):
        x = data(np.float32, 7 * 11 * 13).reshape(7, 11, 13)
        for axis in (-1, 0, 1, 2, None):
            self.assertTrue(same_bits(g.sort(x, axis=axis), np.sort(x, axis=axis, kind="stable")), "axis %s" % axis)
            self.assertTrue(same_bits(g.argsort(x, axis=axis), np.argsort(x, axis=axis, kind="stable")), "arg %s" % axis)
        f = np.asfortranarray(x)
        self.assertTrue(same_bits(g.sort(f), np.sort(f, kind="stable")))
        v = x[:, ::2, 1:]
        self.assertTrue(same_bits(g.sort(v), np.sort(v, kind="stable")))
        self.assertTrue(same_bits(g.argsort(np.array(3.0)), np.argsort(np.array(3.0))))
        with self.assertRaises(np.exceptions.AxisError):
            g.sort(np.array(3.0))
        with self.assertRaises(np.exceptions.AxisError):
            g.sort(x, axis=3)

    def test_descending(self):
        x = data(np.float64, 5000)
        got = g.sort(x, descending=True)
        key = np.where(np.isnan(x), 0, -x)
        o = np.lexsort((key, ~np.isnan(x)))
        self.assertTrue(same_bits(got, x[o]))

    def test_dlpack_input(self):
        x = data(np.int32, 4097)
        self.assertTrue(same_bits(g.sort(Dl(x)), np.sort(x)))
        self.assertTrue(same_bits(g.unique(Dl(x)), np.unique(x)))

    def test_dlpack_parse(self):
        """the capsule reader the CUDA path uses, on NumPy's own capsules"""
        from gpuprim import _arrays
        for x in (data(np.float32, 12).reshape(3, 4), data(np.uint16, 7), np.zeros((2, 0), np.int64)):
            imp = _arrays._Imported(x.__dlpack__())
            self.assertEqual(imp.shape, x.shape)
            self.assertEqual(imp.dtype, x.dtype)
            self.assertEqual(imp.ptr, x.ctypes.data if x.size else imp.ptr)
            self.assertTrue(imp.contiguous())
            self.assertEqual(imp.device_type, 1)
            imp.release()
        imp = _arrays._Imported(data(np.float64, 20)[::2].__dlpack__())
        self.assertFalse(imp.contiguous())

    def test_refusals(self):
        with self.assertRaises(TypeError):
            g.sort(np.array(["a", "b"]))
        with self.assertRaises(TypeError):
            g.sort(np.zeros(3, np.complex64))
        with self.assertRaises(TypeError):
            g.sort(np.zeros(3), order="x")


class TestSearch(unittest.TestCase):
    def test_searchsorted(self):
        for dt in [np.int16, np.uint32, np.float32, np.float64]:
            a = np.sort(data(dt, 3001))
            q = np.concatenate([data(dt, 500), a[::7]])
            for side in ("left", "right"):
                self.assertTrue(same_bits(g.searchsorted(a, q, side), np.searchsorted(a, q, side)), "%s %s" % (np.dtype(dt), side))
        a = np.array([1.0, 2.0, 3.0])
        self.assertEqual(g.searchsorted(a, 2.5), np.searchsorted(a, 2.5))
        r = g.searchsorted(a, np.array(2.5))  # a 0-d array: NumPy's scalar
        self.assertEqual((r, type(r)), (np.searchsorted(a, np.array(2.5)), type(np.searchsorted(a, np.array(2.5)))))
        self.assertTrue(same_bits(g.searchsorted(a, np.array([2.0, 9.0]), "right"), np.array([2, 3])))
        self.assertTrue(same_bits(g.searchsorted(a, np.array([[0.5, 9.0]])), np.searchsorted(a, np.array([[0.5, 9.0]]))))
        s = np.array([3, 1, 2])
        self.assertTrue(same_bits(g.searchsorted(s, [2], sorter=np.argsort(s)), np.searchsorted(s, [2], sorter=np.argsort(s))))
        with self.assertRaises(ValueError):
            g.searchsorted(a, 1.0, side="middle")

    def test_topk(self):
        x = data(np.float32, 6 * 301).reshape(6, 301)
        for largest in (False, True):
            v, i = g.topk(x, 17, largest=largest)
            key = np.where(np.isnan(x), 0, -x.astype("f8")) if largest else x
            o = np.stack([np.lexsort((key[r], ~np.isnan(x[r]))) if largest else np.argsort(x[r], kind="stable")
                          for r in range(6)])[:, :17]
            self.assertTrue(same_bits(i, o), "largest=%s" % largest)
            self.assertTrue(same_bits(v, np.take_along_axis(x, o, -1)))
        with self.assertRaises(ValueError):
            g.topk(x, 302)
        for dt in (np.float32, np.float64, np.float16, np.int16, np.uint64):  # 1-D arrays' direct call = the rows'
            x1 = data(dt, 3001)
            for largest in (False, True):
                for k in (1, 100, 3001):
                    v1, i1 = g.topk(x1, k, largest=largest)
                    v2, i2 = g.topk(x1.reshape(1, -1), k, largest=largest)
                    self.assertTrue(same_bits(v1, v2[0]) and same_bits(i1, i2[0]), "%s k=%d" % (np.dtype(dt), k))
            v3, i3 = g.topk(x1[::2], 5)
            v4, i4 = g.topk(np.ascontiguousarray(x1[::2]), 5)
            self.assertTrue(same_bits(v3, v4) and same_bits(i3, i4))

    def test_partition(self):
        for dt in (np.float32, np.int8, np.uint64):
            x = data(dt, 5 * 211).reshape(5, 211)
            s = np.sort(x, axis=-1)
            for kth in (0, 100, -1, [3, 50, 209]):
                p = g.partition(x, kth)
                a = g.argpartition(x, kth)
                self.assertTrue(same_bits(np.take_along_axis(x, a, -1), p))
                for k in np.atleast_1d(kth):
                    self.assertTrue(np.array_equal(p[:, k], s[:, k], equal_nan=True), "kth %s" % k)
        with self.assertRaises(ValueError):
            g.partition(np.arange(5), 5)
        with self.assertRaises(TypeError):
            g.partition(np.arange(5), 1.5)

    def test_merge(self):
        a, b = np.sort(data(np.float32, 1001)), np.sort(data(np.float32, 777))
        self.assertTrue(same_bits(g.merge(a, b), np.sort(np.concatenate([a, b]), kind="stable")))
        with self.assertRaises(ValueError):
            g.merge(np.array([1, 3, 2]), np.array([1]))
        self.assertEqual(g.is_sorted_until(np.array([1, 2, 2, 1, 5])), 3)


class TestUnique(unittest.TestCase):
    def test_unique(self):
        for dt in INTS + FLOATS + [np.bool_]:
            for n in SIZES:
                x = data(dt, n)
                if n > 5:
                    x = x.reshape(-1, 1) if n % 2 else x
                for eq in (True, False):
                    w = np.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=eq)
                    got = g.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=eq)
                    for k in range(4):
                        self.assertTrue(same_bits(got[k], w[k]), "%s n=%d eq=%s output %d" % (np.dtype(dt), n, eq, k))
        self.assertTrue(same_bits(g.unique(np.array([2, 1, 2])), np.unique(np.array([2, 1, 2]))))
        with self.assertRaises(TypeError):
            g.unique(np.zeros((2, 2)), axis=0)


class TestReduce(unittest.TestCase):
    def test_exact_reductions(self):
        for dt in INTS + [np.bool_]:
            x = data(dt, 70001)
            self.assertEqual(g.sum(x), np.sum(x), np.dtype(dt))
            self.assertEqual(type(g.sum(x)), type(np.sum(x)), np.dtype(dt))
            self.assertEqual(g.min(x), np.min(x))
            self.assertEqual(g.max(x), np.max(x))
            self.assertEqual(g.argmin(x), np.argmin(x))
            self.assertEqual(g.argmax(x), np.argmax(x))
            self.assertEqual(g.count_nonzero(x), np.count_nonzero(x))

    def test_float_reductions(self):
        for dt in FLOATS:
            x = data(dt, 70001, nan=False)
            self.assertTrue(np.isclose(g.sum(x), np.sum(x.astype("f8")), rtol=1e-3 if dt == np.float16 else 1e-5, atol=0.5))
            self.assertEqual(g.min(x), np.min(x))
            self.assertEqual(g.argmax(x), np.argmax(x))
            y = data(dt, 1000)
            self.assertTrue(np.isnan(g.max(y)) and np.isnan(np.max(y)))
            self.assertEqual(g.argmin(y), np.argmin(y))
            self.assertEqual(np.dtype(type(g.min(x))), np.dtype(dt))

    def test_axis(self):
        x = data(np.int32, 5 * 7 * 9).reshape(5, 7, 9)
        for axis in (0, 1, 2, -1):
            self.assertTrue(same_bits(g.sum(x, axis=axis), np.sum(x, axis=axis)), axis)
            self.assertTrue(same_bits(g.max(x, axis=axis), np.max(x, axis=axis)), axis)
            self.assertTrue(same_bits(g.argmin(x, axis=axis), np.argmin(x, axis=axis)), axis)

    def test_empty(self):
        e = np.zeros(0, np.float32)
        self.assertEqual(g.sum(e), 0)
        with self.assertRaises(ValueError):
            g.min(e)
        with self.assertRaises(ValueError):
            g.argmax(e)


class TestScan(unittest.TestCase):
    def test_cumsum_dtypes(self):
        for dt in INTS + [np.bool_]:
            x = data(dt, 4099)
            self.assertTrue(same_bits(g.cumsum(x), np.cumsum(x)), np.dtype(dt))
        x = data(np.int16, 6 * 501).reshape(6, 501)
        for axis in (0, 1, None):
            self.assertTrue(same_bits(g.cumsum(x, axis=axis), np.cumsum(x, axis=axis)), axis)
        self.assertTrue(same_bits(g.cumprod(np.array([1, 2, 3], np.int8)), np.cumprod(np.array([1, 2, 3], np.int8))))

    def test_cumsum_floats(self):
        x = data(np.float32, 10001, nan=False)
        got, want = g.cumsum(x), np.cumsum(x.astype("f8"))
        self.assertEqual(got.dtype, np.float32)
        self.assertTrue(same_bits(got, g.cumsum(x.reshape(1, -1))))  # the 1-D direct call = the general path's bits
        self.assertTrue(np.allclose(got, want, rtol=1e-4, atol=1e-2))


class TestHistogram(unittest.TestCase):
    def test_histogram(self):
        for dt in [np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64]:
            x = data(dt, 20011, nan=False)
            for bins in (1, 7, 256):
                c, e = g.histogram(x, bins)
                wc, we = np.histogram(x, bins)
                self.assertTrue(same_bits(c, wc) and same_bits(e, we), "%s bins=%d" % (np.dtype(dt), bins))
            c, e = g.histogram(x, 10, range=(-3, 5))
            wc, we = np.histogram(x, 10, range=(-3, 5))
            self.assertTrue(same_bits(c, wc) and same_bits(e, we), "%s range" % np.dtype(dt))
        x = data(np.float32, 3001, nan=False)  # the even bins kept by their arguments: types, values, zeros' signs
        for r in ((0, 1), (0.0, 1.0), (-0.0, 1.0), (np.float32(-0.0), np.float32(2)), (np.float64(0.25), 3), (2, 2),
                  (np.array(-1.0), np.array(2.5))):
            for _ in range(2):
                c, e = g.histogram(x, 9, range=r)
                wc, we = np.histogram(x, 9, range=r)
                self.assertTrue(same_bits(c, wc) and same_bits(e, we), "range %r" % (r,))
                e[:] = 7  # the caller's own edges: the next call's are not these
        for bad in ((np.nan, 1.0), (2, 1), (0, np.inf)):
            for _ in range(2):
                with self.assertRaises(ValueError):
                    g.histogram(x, 5, range=bad)
        x = data(np.float64, 5000, nan=False)
        edges = np.array([-10, -1, 0, 0.5, 3, 20.0])
        self.assertTrue(same_bits(g.histogram(x, edges)[0], np.histogram(x, edges)[0]))
        self.assertTrue(np.allclose(g.histogram(x, 5, density=True)[0], np.histogram(x, 5, density=True)[0]))
        self.assertTrue(same_bits(g.histogram(np.array([1.0], np.float32), 1, range=(1.0000000000000002, 2.0))[0],
                                  np.histogram(np.array([1.0], np.float32), 1, range=(1.0000000000000002, 2.0))[0]))
        with self.assertRaises(ValueError):
            g.histogram(np.array([np.nan, 1.0]))
        with self.assertRaises(ValueError):
            g.histogram(x, np.array([3.0, 1.0]))
        with self.assertRaises(TypeError):
            g.histogram(x, weights=x)
        b = data(np.bool_, 1001)  # NumPy takes bools as uint8 (with a warning)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for bins in (2, 37):
                wc, we = np.histogram(b, bins)
                c, e = g.histogram(b, bins)
                self.assertTrue(same_bits(c, wc) and same_bits(e, we), "bool bins=%d" % bins)


class TestOwn(unittest.TestCase):
    """gpuprim's own: select, stable_partition, rle, reduce_by_key, scan_by_key, against NumPy's spellings of them."""

    def same(self, got, want, msg):
        got, want = np.asarray(got), np.asarray(want)
        self.assertEqual((got.dtype, got.shape), (want.dtype, want.shape), msg)
        self.assertEqual(got.tobytes(), want.tobytes(), msg)  # moved values keep every bit (NaN payloads too)

    def test_select_partition(self):
        for dt in INTS + FLOATS + [np.bool_]:
            for n in SIZES:
                x = data(dt, n)
                for where, cond in (("gt:0", lambda v: v > 0), ("le:1.5", lambda v: v <= 1.5),
                                    ("ne:0", lambda v: v != 0), ("nonzero", lambda v: v != 0)):
                    if dt == np.bool_ and where != "nonzero":
                        continue
                    with np.errstate(invalid="ignore"):
                        m = cond(x.astype(np.float64) if dt != np.bool_ else x)
                    if dt in FLOATS and where == "nonzero":
                        m = m | np.isnan(x)
                    msg = "%s n=%d %s" % (np.dtype(dt), n, where)
                    self.same(g.select(x, where), x[m], msg)
                    y, c = g.stable_partition(x, where)
                    self.assertEqual(c, int(m.sum()), msg)
                    self.same(y, np.concatenate([x[m], x[~m]]), msg)
        x = data(np.float32, 1000)
        self.same(g.select(x, "nan"), x[np.isnan(x)], "nan")
        self.same(g.select(np.asfortranarray(x.reshape(25, 40)), "gt:0"), x.reshape(25, 40).ravel()[x > 0], "F order")
        self.same(g.select(x[::3], "lt:0"), x[::3][x[::3] < 0], "strided")
        with self.assertRaisesRegex(ValueError, "bogus"):
            g.select(x, "bogus")
        with self.assertRaisesRegex(TypeError, "predicate string"):
            g.select(x, 3)

    def test_rle(self):
        for dt in INTS + FLOATS + [np.bool_]:
            for n in SIZES:
                x = data(dt, n)
                if dt != np.bool_ and n:
                    x = np.repeat(x, rng.integers(1, 4, n))[:n]  # runs
                with np.errstate(invalid="ignore"):
                    head = np.r_[True, x[1:] != x[:-1]] if n else np.zeros(0, bool)  # NaN != NaN: its own run
                idx = np.flatnonzero(head)
                v, ln = g.rle(x)
                msg = "%s n=%d" % (np.dtype(dt), n)
                self.same(v, x[idx], msg)
                self.same(ln, np.diff(np.r_[idx, n]).astype(np.int64), msg)

    def test_segments(self):
        for dt in (np.int8, np.uint32, np.int64, np.float16, np.float32, np.float64):
            for n in (0, 1, 1000, 70001):
                x = data(dt, n)
                cuts = np.sort(rng.integers(0, n + 1, 1 + n // 300))
                off = np.r_[cuts[:1] // 2, cuts]  # elements before the first segment stay as they are
                msg = "%s n=%d" % (np.dtype(dt), n)
                want = x.copy()
                for a, b in zip(off[:-1], off[1:]):
                    want[a:b] = np.sort(x[a:b], kind="stable")
                self.same(g.segment_sort(x, off), want, msg)
                if len(off) > 1:
                    got = g.segment_reduce(x, off, "max")
                    with np.errstate(invalid="ignore"):
                        for i, (a, b) in enumerate(zip(off[:-1], off[1:])):
                            if b > a:
                                w = x[a:b].max()  # NaN wins, as NumPy
                                self.assertTrue(got[i] == w or (np.isnan(got[i]) and np.isnan(w)), msg)
                    if np.dtype(dt).kind in "iu":
                        acc = np.int64 if np.dtype(dt).kind == "i" else np.uint64
                        self.same(g.segment_reduce(x, off), np.array([x[a:b].sum(dtype=acc) for a, b in
                                                                      zip(off[:-1], off[1:])], acc), msg)
        with self.assertRaisesRegex(ValueError, "offsets"):
            g.segment_sort(np.arange(5), [3, 1])
        with self.assertRaisesRegex(ValueError, "op"):
            g.segment_reduce(np.arange(5), [0, 5], "mean")

    def test_by_key(self):
        for kdt in (np.int32, np.uint64, np.float32):
            for vdt in (np.int32, np.uint8, np.int64, np.float64):
                for n in (0, 1, 33, 5000):
                    k = np.sort(rng.integers(0, 1 + n // 7, n)).astype(kdt)
                    v = data(vdt, n, nan=False)
                    idx = np.flatnonzero(np.r_[True, k[1:] != k[:-1]]) if n else np.zeros(0, np.int64)
                    msg = "keys %s values %s n=%d" % (np.dtype(kdt), np.dtype(vdt), n)
                    uk, s = g.reduce_by_key(k, v, "max")
                    self.same(uk, k[idx], msg)
                    self.same(s, np.maximum.reduceat(v, idx) if n else v[:0], msg)
                    if np.dtype(vdt).kind in "iu":
                        acc = np.int64 if np.dtype(vdt).kind == "i" else np.uint64
                        self.same(g.reduce_by_key(k, v)[1], np.add.reduceat(v.astype(acc), idx) if n else
                                  np.zeros(0, acc), msg)
                        if np.dtype(vdt).itemsize < 4:  # the segmented scans take 4- and 8-byte values
                            if n:
                                with self.assertRaisesRegex(g.Error, "u8"):
                                    g.scan_by_key(k, v)
                            continue
                        ref = np.concatenate([np.cumsum(p, dtype=vdt) for p in np.split(v, idx[1:])]) if n else v
                        self.same(g.scan_by_key(k, v), ref.astype(vdt), msg)
                        ex = np.concatenate([np.r_[0, np.cumsum(p, dtype=vdt)[:-1]].astype(vdt)
                                             for p in np.split(v, idx[1:])]) if n else v
                        self.same(g.scan_by_key(k, v, exclusive=True), ex.astype(vdt), msg)
        with self.assertRaisesRegex(ValueError, "the same count"):
            g.reduce_by_key(np.arange(3), np.arange(4))
        with self.assertRaisesRegex(ValueError, "op"):
            g.scan_by_key(np.arange(3), np.arange(3), "mean")


class TestUserOps(unittest.TestCase):
    """User operators (C compiled at run time) against NumPy: the fold, map, scan, predicate and comparison sort."""

    def test_user_ops(self):
        for dt in (np.int32, np.uint64, np.float32, np.float64):
            for n in (0, 1, 1000, 70001):
                x = data(dt, n, nan=False)
                msg = "%s n=%d" % (np.dtype(dt), n)
                lo = "-inf" if np.dtype(dt).kind == "f" else str(np.iinfo(dt).min)
                self.assertEqual(g.reduce(x, "a > b ? a : b", lo), x.max() if n else np.array(lo, dt), msg)
                if np.dtype(dt).kind in "iu":
                    self.assertEqual(g.reduce(x, "a ^ b", "0", commutative=False),
                                     np.bitwise_xor.reduce(x) if n else 0, msg)
                    self.assertEqual(g.scan(x, "a + b", "0").tobytes(), np.cumsum(x, dtype=dt).tobytes(), msg)
                    ex = g.scan(x, "a + b", "0", exclusive=True)
                    self.assertEqual(ex.tobytes(), np.r_[np.zeros(min(n, 1), dt), np.cumsum(x, dtype=dt)[:-1]]
                                     .astype(dt).tobytes(), msg)
                y = g.transform(x, "x * x")
                self.assertEqual(y.tobytes(), (x * x).tobytes(), msg)
                self.assertEqual(g.transform(x, "x > 0", np.int32).tobytes(), (x > 0).astype(np.int32).tobytes(), msg)
                self.assertEqual(g.select_if(x, "x > 0 && x < 100").tobytes(), x[(x > 0) & (x < 100)].tobytes(), msg)
                self.assertEqual(g.sort_by(x, "a > b").tobytes(), np.sort(x, kind="stable")[::-1].tobytes()
                                 if np.dtype(dt).kind in "iu" else g.sort(x, descending=True).tobytes(), msg)
        x = data(np.float32, 5000)  # NaN last, -0 == +0 in input order: NumPy's stable sort
        self.assertEqual(g.sort_by(x, "a < b || (a == a && b != b)").tobytes(), np.sort(x, kind="stable").tobytes())
        with self.assertRaises(g.Error):
            g.reduce(x, "a +* b", "0")
        with self.assertRaisesRegex(g.Error, "exit"):
            g.reduce(x, "exit(0)", "0")
        with self.assertRaisesRegex(TypeError, "C source"):
            g.transform(x, 3)

    def test_components(self):
        """Elements of k components (the last axis): a (sum, max) pair folded and scanned, rows sorted
        lexicographically — integers, so NumPy's answers are exact."""
        for n in (0, 1, 999, 70001):
            x = rng.integers(-1000, 1000, (n, 2)).astype(np.int32)
            pair = "r[0] = a[0] + b[0]; r[1] = a[1] > b[1] ? a[1] : b[1];"
            lo = str(np.iinfo(np.int32).min)
            got = g.reduce(x, pair, ("0", lo), components=2)
            want = np.array([x[:, 0].sum(dtype=np.int32), x[:, 1].max() if n else np.iinfo(np.int32).min], np.int32)
            self.assertEqual(got.tobytes(), want.tobytes(), n)
            self.assertEqual(g.reduce(x, pair, "0, " + lo, components=2, commutative=False).tobytes(), want.tobytes())
            s = g.scan(x, pair, ("0", lo), components=2)
            self.assertEqual(s.shape, (n, 2))
            want = np.stack([np.cumsum(x[:, 0], dtype=np.int32), np.maximum.accumulate(x[:, 1])], axis=1) if n else s
            self.assertEqual(s.tobytes(), want.tobytes(), n)
            r = g.sort_by(x, "a[0] < b[0] || (a[0] == b[0] && a[1] < b[1])", components=2)
            self.assertEqual(r.tobytes(), x[np.lexsort((x[:, 1], x[:, 0]))].tobytes(), n)
        y = rng.integers(0, 9, (7, 3, 2)).astype(np.int64)  # leading axes flatten: 21 elements of 2
        self.assertEqual(g.sort_by(y, "a[1] < b[1]", components=2).tobytes(),
                         y.reshape(-1, 2)[np.argsort(y.reshape(-1, 2)[:, 1], kind="stable")].tobytes())
        with self.assertRaisesRegex(ValueError, "last axis"):
            g.reduce(np.zeros((4, 3), np.int32), "r[0] = a[0];", "0, 0", components=2)
        with self.assertRaisesRegex(ValueError, "components"):
            g.reduce(np.zeros(4, np.int32), "a + b", "0", components=0)
        with self.assertRaisesRegex(ValueError, "identity"):
            g.reduce(np.zeros((4, 2), np.int32), "r[0] = a[0]; r[1] = a[1];", ("0",), components=2)


class TestGroup(unittest.TestCase):
    """gpuprim.Group on emulated CPU members: each call the bits of the same call on one context."""

    def test_group_ops(self):
        for k in (1, 2, 3):
            with g.Group("cpu:%d" % k) as G:
                self.assertEqual((G.size, G.local, G.transport), (k, k, "emulated"))
                for dt in (np.int32, np.uint64, np.float32, np.float64):
                    for n in (0, 1, 70001, 300001):
                        x = data(dt, n)
                        msg = "cpu:%d %s n=%d" % (k, np.dtype(dt), n)
                        for op in ("sum", "min", "max", "argmax", "count_nonzero"):
                            if n == 0 and op in ("min", "max", "argmax"):
                                with self.assertRaises(ValueError):
                                    G.reduce(x, op)
                                continue
                            want = getattr(g, op)(x)
                            got = G.reduce(x, op)
                            self.assertEqual(np.array(got).tobytes(), np.array(want).tobytes(), msg + " " + op)
                        self.assertEqual(G.sort(x).tobytes(), g.sort(x).tobytes(), msg)
                        self.assertEqual(G.sort(x, descending=True).tobytes(), g.sort(x, descending=True).tobytes(),
                                         msg)
                        self.assertEqual(G.argsort(x).tobytes(), g.argsort(x).tobytes(), msg)
                        self.assertEqual(G.cumsum(x).tobytes(), g.cumsum(x).tobytes(), msg)
            with self.assertRaisesRegex(ValueError, "closed"):
                G.sort(np.arange(3))
        with g.Group("cpu:3") as G:
            for dt in (np.uint8, np.int64, np.float16, np.float32, np.bool_):
                x = data(dt, 100003, nan=False)
                for bins in (7, 256):
                    c, e = G.histogram(x, bins)
                    wc, we = g.histogram(x, bins)
                    self.assertTrue(same_bits(c, wc) and same_bits(e, we), "%s bins=%d" % (np.dtype(dt), bins))
            c, e = G.histogram(x, [0, 0.25, 0.5, 2])
            self.assertTrue(same_bits(c, np.histogram(x.astype(np.uint8), [0, 0.25, 0.5, 2])[0]))
        with g.Group("cpu:3") as G:  # segments inside shards, across shard edges, empty, past the end
            for dt in (np.int32, np.float32, np.float64, np.float16):
                x = data(dt, 200003)
                for off in ([0, 5, 5, 66667, 66668, 140000, 200003], [0, 200003], [3], list(range(0, 200004, 997)),
                            [0, 10, 200010]):
                    for op in ("sum", "max", "xor", "count_nonzero"):
                        if op == "xor" and dt not in (np.int32,):
                            continue
                        got = G.segment_reduce(x, off, op)
                        want = g.segment_reduce(x, off, op)
                        self.assertTrue(same_bits(got, want), "%s %s %s" % (np.dtype(dt), op, off[:4]))
            with self.assertRaisesRegex(ValueError, "nondecreasing"):
                G.segment_reduce(np.arange(10, dtype=np.int32), [0, 5, 3])
            with self.assertRaisesRegex(ValueError, "op"):
                G.segment_reduce(np.arange(10), [0, 5], "argmax")
        with self.assertRaisesRegex(ValueError, "cpu:K"):
            g.Group("cpu:many")
        with self.assertRaisesRegex(ValueError, "op"):
            g.Group("cpu:2").reduce(np.arange(3), "mean")


class TestDot(unittest.TestCase):
    def test_dot(self):
        for n in (0, 1, 1000, 100003):
            for dt in (np.float32, np.float64):
                x = rng.standard_normal(n).astype(dt)
                y = rng.standard_normal(n).astype(dt)
                got = g.dot(x, y)
                self.assertEqual(type(got), np.float64)
                x8, y8 = x.astype(np.float64), y.astype(np.float64)
                want = math.fsum((x8 * y8).tolist())  # f32 products are exact in double
                scale = max(1.0, float(np.abs(x8) @ np.abs(y8)))
                self.assertLessEqual(abs(got - want), 1e-12 * scale, "%s n=%d" % (np.dtype(dt), n))
            xi = rng.integers(-2**31, 2**31, n).astype(np.int32)
            yi = rng.integers(-2**31, 2**31, n).astype(np.int32)
            want = sum(int(p) * int(q) for p, q in zip(xi.tolist(), yi.tolist())) % 2**64
            self.assertEqual(int(np.int64(g.dot(xi, yi)).view(np.uint64)), want, "int32 n=%d" % n)
            self.assertEqual(g.dot(xi.reshape(-1, 1) if n else xi, yi), g.dot(xi, yi))  # flattened
        with self.assertRaises(ValueError):
            g.dot(np.ones(3, np.float32), np.ones(4, np.float32))
        with self.assertRaises(TypeError):
            g.dot(np.ones(3, np.float32), np.ones(3, np.float64))
        with self.assertRaises(TypeError):
            g.dot(np.ones(3, np.int64), np.ones(3, np.int64))
        with g.Group("cpu:3") as G:
            for dt in (np.int32, np.float32, np.float64):
                x = (rng.integers(-1000, 1000, 200003) if dt == np.int32 else rng.standard_normal(200003)).astype(dt)
                y = (rng.integers(-1000, 1000, 200003) if dt == np.int32 else rng.standard_normal(200003)).astype(dt)
                got, one = G.dot(x, y), g.dot(x, y)
                if dt == np.int32:
                    self.assertEqual(got, one)
                else:
                    self.assertLessEqual(abs(got - one), 1e-9 * float(np.abs(x.astype("f8")) @ np.abs(y.astype("f8"))))
            with self.assertRaises(ValueError):
                G.dot(np.ones(3, np.float32), np.ones(4, np.float32))


class TestMatrix(unittest.TestCase):
    def test_matmul_transpose(self):
        a = rng.standard_normal((33, 65)).astype(np.float32)
        b = rng.standard_normal((65, 17)).astype(np.float32)
        self.assertTrue(np.allclose(g.matmul(a, b), a.astype("f8") @ b.astype("f8"), rtol=1e-5, atol=1e-4))
        self.assertTrue(same_bits(g.transpose(a), np.ascontiguousarray(a.T)))
        with self.assertRaises(ValueError):
            g.matmul(a, a)
        with self.assertRaises(TypeError):
            g.matmul(np.ones((2, 2), np.int32), np.ones((2, 2), np.int32))


class TestFiles(unittest.TestCase):
    def setUp(self):
        import tempfile
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_load_every_dtype_and_layout(self):
        for dt in INTS + FLOATS + [np.bool_]:
            for shape in [(), (0,), (1,), (70001,), (33, 31), (3, 5, 7)]:
                x = data(dt, int(np.prod(shape))).reshape(shape)
                for variant in ["c", "f", "be"]:
                    y = x
                    if variant == "f" and x.ndim > 0:  # asfortranarray makes a 0-d array 1-d
                        y = np.asfortranarray(x)
                    elif variant == "be" and np.dtype(dt).itemsize > 1:
                        y = x.astype(np.dtype(dt).newbyteorder(">"))
                    np.save(self.path("a.npy"), y)
                    got = g.load(self.path("a.npy"))
                    self.assertEqual(got.shape, x.shape)
                    self.assertEqual(got.dtype, np.dtype(dt))
                    self.assertTrue(same_bits(got, x), "%s %s %s" % (np.dtype(dt), shape, variant))
                    if variant == "f" and x.ndim > 1:
                        self.assertTrue(got.flags["F_CONTIGUOUS"])

    def test_fromfile(self):
        x = data(np.float32, 70001)
        x.tofile(self.path("a.raw"))
        self.assertTrue(same_bits(g.fromfile(self.path("a.raw"), np.float32), x))
        self.assertTrue(same_bits(g.fromfile(self.path("a.raw"), np.float32, count=1000, offset=12),
                                  np.fromfile(self.path("a.raw"), np.float32, count=1000, offset=12)))
        self.assertTrue(same_bits(g.fromfile(self.path("a.raw"), np.uint8), np.fromfile(self.path("a.raw"), np.uint8)))
        b = g.fromfile(self.path("a.raw"), np.bool_, count=64)
        self.assertTrue(np.array_equal(b, np.fromfile(self.path("a.raw"), np.uint8, count=64) != 0))

    def test_refusals(self):
        with self.assertRaises(FileNotFoundError):
            g.load(self.path("none.npy"))
        with open(self.path("bad.npy"), "wb") as f:
            f.write(b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'")
        with self.assertRaises(g.Error) as e:
            g.load(self.path("bad.npy"))
        self.assertIn("byte", str(e.exception))
        np.arange(10, dtype=np.int32).tofile(self.path("a.raw"))
        with self.assertRaises(g.Error) as e:
            g.fromfile(self.path("a.raw"), np.int32, count=11)
        self.assertIn("byte 40", str(e.exception))
        with self.assertRaises(ValueError):
            g.fromfile(self.path("a.raw"), np.int32, count=-2)
        with self.assertRaises(TypeError):
            g.fromfile(self.path("a.raw"), np.complex64)


class TestResultPool(unittest.TestCase):
    """A collected DeviceArray's memory goes to its context's pool and comes back for the next result of its size
    class on the same stream, never on another, never past the cap; the CPU context's "device" memory is host memory
    from the same calls, so the pool's logic runs here."""

    def test_reuse(self):
        from gpuprim import _arrays as A
        ctx = A._Ctx.__new__(A._Ctx)  # a context of its own: the module's cached ones keep their pools
        p = A.ctypes.c_void_p()
        A.L.check(A.L.gp_ctx_create(A.ctypes.byref(p), A.L.GP_DEVICE_CPU), "cpu")
        ctx.p, ctx.device, ctx.uops, ctx.pool, ctx.pool_bytes, ctx.pool_cap = p, -1, {}, {}, 0, A.POOL_BYTES
        a = A.DeviceArray(ctx, (1000,), np.float32, 7)
        self.assertEqual(a.nbytes, 4000)
        pa = a.ptr
        del a
        self.assertEqual(ctx.pool_bytes, 4096)
        b = A.DeviceArray(ctx, (1000,), np.float32, 8)  # another stream: not the kept buffer
        self.assertNotEqual(b.ptr, pa)
        c = A.DeviceArray(ctx, (900,), np.float32, 7)  # same stream and class: the kept one
        self.assertEqual(c.ptr, pa)
        self.assertEqual(ctx.pool_bytes, 0)
        arr = np.frombuffer((A.ctypes.c_char * c.nbytes).from_address(c.ptr), np.uint8)
        arr[:] = 7  # the whole of it is writable memory
        del b, c
        self.assertEqual(ctx.pool_bytes, 8192)
        shared = A.DeviceArray(ctx, (1000,), np.float32, 7)  # takes the kept buffer of stream 7
        self.assertEqual(ctx.pool_bytes, 4096)
        shared.__cuda_array_interface__  # handed out to a consumer whose stream is not said: freed, not kept
        del shared
        self.assertEqual(ctx.pool_bytes, 4096)
        big = A.DeviceArray(ctx, ((ctx.pool_cap >> 2) + 1,), np.float32, 7)  # past the cap: freed, not kept
        del big
        self.assertEqual(ctx.pool_bytes, 4096)
        z = A.DeviceArray(ctx, (0,), np.float32, 7)
        del z
        self.assertEqual([A._size_class(n) for n in (1, 256, 257, 3000, 2 << 20, (2 << 20) + 1)],
                         [256, 256, 512, 4096, 2 << 20, 4 << 20])
        ctx.empty_pool()  # what empty_cache() does to each of the thread's contexts
        self.assertEqual((ctx.pool_bytes, ctx.pool), (0, {}))
        del ctx  # frees the kept buffers, then the context


class TestModule(unittest.TestCase):
    def test_info(self):
        i = g.info()
        self.assertIn("cpu", i)
        self.assertEqual(i["version"], g.__version__)

    def test_errors_carry_the_library_text(self):
        try:
            g.partition(np.arange(5), 7)
        except ValueError as e:
            self.assertIn("out of bounds", str(e))


if __name__ == "__main__":
    unittest.main()
