"""gpuprim's Python functions on CUDA tensors (torch, CuPy) read in place: every function's bits = the CPU backend's,
the input not copied (the allocators' counters: what a call allocates is its outputs and scratch, never a copy of the
input), work ordered on the producer's non-default stream, results taken by torch.from_dlpack / cupy.from_dlpack
without a copy. Needs a GPU and torch or CuPy; run by ctest (gpu_python: exit 77 without them)."""
import os
import sys
import unittest

import numpy as np

import gpuprim as g

try:
    import torch
    HAVE_TORCH = torch.cuda.is_available()
except Exception:
    HAVE_TORCH = False
try:
    import cupy
    HAVE_CUPY = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:
    HAVE_CUPY = False

rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))


def cpu(fn, *a, **k):
    return fn(*a, **k)


def bits(x):
    """dtype, shape and bytes; a float NaN's payload set aside (a GPU's arithmetic gives the canonical NaN where the
    CPU's carries the operand's: docs/design/scan.md), its place kept."""
    x = np.array(x)
    if x.dtype.kind == "f":
        x[np.isnan(x)] = np.nan
    return x.dtype, x.shape, x.tobytes()


@unittest.skipUnless(HAVE_TORCH, "no torch with CUDA")
class TestTorch(unittest.TestCase):
    def test_functions_bits(self):
        x = rng.standard_normal(1 << 20).astype(np.float32)
        x[::97] = np.nan
        t = torch.from_numpy(x).cuda()
        for name, fn in (("sort", g.sort), ("argsort", g.argsort), ("cumsum", g.cumsum), ("unique", g.unique)):
            got = fn(t)
            self.assertIsInstance(got, g.DeviceArray, name)
            self.assertEqual(bits(torch.from_dlpack(got).cpu().numpy()), bits(fn(x)), name)
        v, i = g.topk(t, 100)
        wv, wi = g.topk(x, 100)
        self.assertEqual(bits(torch.from_dlpack(v).cpu().numpy()), bits(wv))
        self.assertEqual(bits(torch.from_dlpack(i).cpu().numpy()), bits(wi))
        ts, xs = t[:5000].contiguous(), x[:5000]  # a short row: one launch counting ranks
        for largest in (True, False):
            v, i = g.topk(ts, 77, largest=largest)
            wv, wi = g.topk(xs, 77, largest=largest)
            self.assertEqual(bits(torch.from_dlpack(v).cpu().numpy()), bits(wv))
            self.assertEqual(bits(torch.from_dlpack(i).cpu().numpy()), bits(wi))
        self.assertEqual(bits(torch.from_dlpack(g.argsort(ts)).cpu().numpy()), bits(g.argsort(xs)))
        self.assertEqual(bits(torch.from_dlpack(g.sort(ts, descending=True)).cpu().numpy()),
                         bits(g.sort(xs, descending=True)))
        s = torch.sort(t).values
        q = t[:1000].contiguous()
        self.assertEqual(bits(torch.from_dlpack(g.searchsorted(s, q)).cpu().numpy()),
                         bits(g.searchsorted(s.cpu().numpy(), q.cpu().numpy())))
        self.assertEqual(bits(g.sum(t)), bits(g.sum(x)))
        self.assertEqual(bits(g.sum(t[:5000])), bits(g.sum(x[:5000])))  # NaN at 0, 97, ...
        y = x[1:97]  # no NaN: the sums' bits
        self.assertEqual(bits(g.sum(torch.from_numpy(y).cuda())), bits(g.sum(y)))
        a, b = rng.standard_normal(1 << 20), rng.standard_normal(1 << 20)  # the dot: fixed per GPU model, not the CPU's
        got = g.dot(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda())
        self.assertLessEqual(abs(got - g.dot(a, b)), 1e-12 * float(np.abs(a) @ np.abs(b)))

    def test_small_results(self):
        """reductions and histograms read back through the context's pinned block, searchsorted's short path: the CPU
        backend's bits, every size class; misuse refused"""
        for n in (1, 1000, 8192, 300007):
            x = rng.standard_normal(n).astype(np.float32)
            x[::89] = -0.0
            t = torch.from_numpy(x).cuda()
            for op in (g.sum, g.min, g.max, g.argmin, g.argmax):
                self.assertEqual(bits(op(t)), bits(op(x)), "%s %d" % (op.__name__, n))
            for kw in ({}, {"range": (-1.0, 2.5)}, {"bins": 7000}):
                c, e = g.histogram(t, **kw)
                wc, we = g.histogram(x, **kw)
                self.assertEqual(bits(c), bits(wc), "histogram %d %s" % (n, kw))
                self.assertEqual(bits(e), bits(we))
            s = torch.sort(t).values
            q = t.flip(0)[: n // 3 + 1].contiguous()
            for side in ("left", "right"):
                self.assertEqual(bits(torch.from_dlpack(g.searchsorted(s, q, side)).cpu().numpy()),
                                 bits(g.searchsorted(s.cpu().numpy(), q.cpu().numpy(), side)), "%d %s" % (n, side))
        c, _ = g.histogram(t, bins=9000)  # past the pinned block: the pooled result's path
        self.assertEqual(bits(c), bits(g.histogram(x, bins=9000)[0]))
        with self.assertRaisesRegex(TypeError, "v is float64"):
            g.searchsorted(s, q.double())
        with self.assertRaisesRegex(ValueError, "different devices"):
            g.searchsorted(s.cpu().numpy(), q)
        self.assertEqual(bits(torch.from_dlpack(g.searchsorted(s, q.cpu().numpy())).cpu().numpy()),  # v moved to a's GPU
                         bits(g.searchsorted(s.cpu().numpy(), q.cpu().numpy())))

    def test_own_functions(self):
        x = rng.standard_normal(300007).astype(np.float32)
        x[::101] = np.nan
        t = torch.from_numpy(x).cuda()
        self.assertEqual(bits(torch.from_dlpack(g.select(t, "gt:0")).cpu().numpy()), bits(g.select(x, "gt:0")))
        y, c = g.stable_partition(t, "lt:0.5")
        wy, wc = g.stable_partition(x, "lt:0.5")
        self.assertEqual((bits(torch.from_dlpack(y).cpu().numpy()), c), (bits(wy), wc))
        k = np.sort(rng.integers(0, 5000, 300007)).astype(np.int32)
        v = rng.integers(-9, 9, 300007).astype(np.int32)
        tk, tv = torch.from_numpy(k).cuda(), torch.from_numpy(v).cuda()
        for got, want in zip(g.rle(tk), g.rle(k)):
            self.assertEqual(bits(torch.from_dlpack(got).cpu().numpy()), bits(want))
        for got, want in zip(g.reduce_by_key(tk, tv), g.reduce_by_key(k, v)):
            self.assertEqual(bits(torch.from_dlpack(got).cpu().numpy()), bits(want))
        self.assertEqual(bits(torch.from_dlpack(g.scan_by_key(tk, tv)).cpu().numpy()), bits(g.scan_by_key(k, v)))
        p = rng.integers(-50, 50, (100003, 2)).astype(np.int32)  # elements of two components
        tp = torch.from_numpy(p).cuda()
        less = "a[0] < b[0] || (a[0] == b[0] && a[1] < b[1])"
        self.assertEqual(bits(torch.from_dlpack(g.sort_by(tp, less, components=2)).cpu().numpy()),
                         bits(g.sort_by(p, less, components=2)))
        pair = "r[0] = a[0] + b[0]; r[1] = a[1] > b[1] ? a[1] : b[1];"
        self.assertEqual(bits(torch.from_dlpack(g.scan(tp, pair, ("0", "-2147483647 - 1"), components=2)).cpu().numpy()),
                         bits(g.scan(p, pair, ("0", "-2147483647 - 1"), components=2)))

    def test_group(self):
        x = rng.standard_normal(1 << 20).astype(np.float32)
        x[::1009] = np.nan
        for spec in ("gpu:3", "all"):
            with g.Group(spec) as G:
                self.assertEqual(bits(G.sort(x)), bits(g.sort(x)), spec)
                self.assertEqual(bits(G.argsort(x)), bits(g.argsort(x)), spec)
                self.assertEqual(bits(G.cumsum(x)), bits(g.cumsum(x)), spec)
                self.assertEqual(bits(G.reduce(x[1:1009], "sum")), bits(g.sum(x[1:1009])), spec)

    def test_no_input_copy(self):
        t = torch.randn(1 << 24, device="cuda")
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        r = g.sort(t)  # gpuprim's own output allocation does not go through torch's allocator
        torch.cuda.synchronize()
        self.assertEqual(torch.cuda.memory_allocated(), before)
        out = torch.from_dlpack(r)
        self.assertEqual(out.data_ptr(), r.ptr)  # the result read in place

    def test_stream_order(self):
        """work on torch's current stream: a sort of a tensor still being written there reads it after the writes
        (torch's streams do not wait for the legacy stream, so a call issued there would read it unwritten)"""
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            t = torch.empty(1 << 22, device="cuda")
            torch.cuda._sleep(200_000_000)  # s busy for ~0.1 s before t is written
            t.copy_(torch.arange(1 << 22, 0, -1, device="cuda", dtype=torch.float32))
            r = g.sort(t)  # ordered after the writes on s
            out = torch.from_dlpack(r)
            m = g.max(t)  # a host result: waits for s alone
            t2 = torch.empty(1 << 22, device="cuda")
            torch.cuda._sleep(200_000_000)
            t2.fill_(3.0)
            h, _ = g.histogram(t2, bins=4, range=(0.0, 4.0))  # counted on s after the fill
            u = torch.empty(1 << 22, device="cuda")
            torch.cuda._sleep(200_000_000)
            u.fill_(0.5)
            p = torch.from_dlpack(g.searchsorted(out, u))  # searched on s after the fill
        s.synchronize()
        self.assertTrue(torch.equal(out, torch.arange(1, (1 << 22) + 1, device="cuda", dtype=torch.float32)))
        self.assertEqual(float(m), float(1 << 22))
        self.assertEqual(h.tolist(), [0, 0, 0, 1 << 22])
        self.assertTrue(bool((p == 0).all()))

    def test_result_pool(self):
        """A collected result's memory comes back for the next result of its size on its stream, and only then: a
        live result is never written by a later call; after reuse on a non-default stream the new result is right."""
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            t1 = torch.randn(1 << 20, device="cuda")
            t2 = torch.randn(1 << 20, device="cuda")
            r1 = g.sort(t1)
            keep = torch.from_dlpack(r1).clone()
            p1 = r1.ptr
            r2 = g.sort(t2)  # r1 alive: other memory
            self.assertNotEqual(r2.ptr, p1)
            del r2
            r3 = g.sort(t2)  # r2's memory again, on s after r2's readers
            w3 = torch.sort(t2).values
            self.assertTrue(torch.equal(torch.from_dlpack(r1), keep))
        s.synchronize()
        self.assertTrue(torch.equal(torch.from_dlpack(r3), w3))

    def test_large_result_kept(self):
        """A result past 512 MiB is kept too (the pool holds up to an eighth of the GPU's memory), reused by the next
        of its size, and empty_cache() frees it."""
        from gpuprim import _arrays
        t = torch.rand((1 << 27) + 1024, device="cuda")
        ctx = _arrays.context(t.device.index)
        g.empty_cache()
        self.assertEqual(ctx.pool_bytes, 0)
        r = g.cumsum(t)
        p = r.ptr
        del r
        self.assertGreater(ctx.pool_bytes, 512 << 20)
        r = g.cumsum(t)
        self.assertEqual(r.ptr, p)
        self.assertTrue(torch.equal(torch.from_dlpack(r), torch.from_dlpack(g.cumsum(t))))
        del r
        g.empty_cache()
        self.assertEqual(ctx.pool_bytes, 0)


@unittest.skipUnless(HAVE_CUPY, "no CuPy with a GPU")
class TestCupy(unittest.TestCase):
    def test_functions_bits(self):
        x = rng.integers(-1000, 1000, 1 << 20).astype(np.int32)
        c = cupy.asarray(x)
        for name, fn in (("sort", g.sort), ("argsort", g.argsort), ("cumsum", g.cumsum)):
            got = fn(c)
            self.assertEqual(bits(cupy.from_dlpack(got).get()), bits(fn(x)), name)
            self.assertEqual(bits(cupy.asarray(got).get()), bits(fn(x)), name + " (CAI)")
        u, n = g.unique(c, return_counts=True)
        wu, wn = g.unique(x, return_counts=True)
        self.assertEqual(bits(cupy.from_dlpack(u).get()), bits(wu))
        self.assertEqual(bits(cupy.from_dlpack(n).get()), bits(wn))

    def test_no_input_copy(self):
        c = cupy.random.standard_normal(1 << 24, dtype=cupy.float32)
        pool = cupy.get_default_memory_pool()
        used = pool.used_bytes()
        r = g.sort(c)
        cupy.cuda.Device().synchronize()
        self.assertEqual(pool.used_bytes(), used)
        self.assertEqual(cupy.from_dlpack(r).data.ptr, r.ptr)

    def test_stream_order(self):
        """work on CuPy's current stream: a sort of an array still being written on a non-blocking stream reads it
        after the writes; a strided view is refused"""
        s = cupy.cuda.Stream(non_blocking=True)
        n = 1 << 22
        with s:
            big = cupy.random.standard_normal(1 << 26, dtype=cupy.float32)
            c = cupy.empty(n, dtype=cupy.float32)
            for _ in range(20):  # s busy for a few ms before c is written
                big = cupy.sqrt(big * big + 1)
            c[...] = cupy.arange(n, 0, -1, dtype=cupy.float32)
            r = g.sort(c)
            out = cupy.from_dlpack(r)
            m = g.max(c)  # a host result: waits for s alone
        s.synchronize()
        self.assertTrue(bool((out == cupy.arange(1, n + 1, dtype=cupy.float32)).all()))
        self.assertEqual(float(m), float(n))
        with self.assertRaises(ValueError):
            g.sort(c[::2])


@unittest.skipUnless(HAVE_TORCH or HAVE_CUPY, "no GPU library to say a GPU answers")
class TestFiles(unittest.TestCase):
    def test_load_to_gpu(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            x = rng.standard_normal(3 * (1 << 20) + 17).astype(np.float32)
            p = os.path.join(d, "a.npy")
            np.save(p, x.astype(">f4"))
            r = g.load(p, device=0)
            self.assertIsInstance(r, g.DeviceArray)
            self.assertEqual(r.get().tobytes(), x.tobytes())
            x.tofile(os.path.join(d, "a.raw"))
            r = g.fromfile(os.path.join(d, "a.raw"), np.float32, count=1000, offset=40, device=0)
            self.assertEqual(r.get().tobytes(), x[10:1010].tobytes())
            np.save(p, np.asfortranarray(x[:1000].reshape(10, 100)))
            with self.assertRaises(ValueError):
                g.load(p, device=0)


if __name__ == "__main__":
    unittest.main()
