"""python -m gpuprim.bench [--device cpu|N] [--sizes 16,20,24] [--reps R] [--profile]: gpuprim's Python functions
against their peers in the same run — NumPy on the CPU backend, torch and CuPy on CUDA tensors of a GPU — and against
the C call each wraps (the same library call made straight through ctypes on the same arrays, its outputs made once;
unique with counts and histogram make more than one call and have none), so the wrapper's cost shows: 'C_us' is the
C call's time, 'py/C' the Python call's over it, 'over_C_us' the Python call's time over the C call's (the median of
61 differences, the two timed alternately), and on a GPU 'host_over_C_us' the sort's host time per call over the C
call's (loops of 50 calls issued back to back, the two alternately, the median of 15 differences: the wrapper's own
cost, apart from the device's). Times are medians of R runs of one call (perf_counter; on a GPU the device
synchronized before and after it), in microseconds; ratio = peer / gpuprim. On a GPU each peer runs on its own arrays
(torch tensors, CuPy arrays) and gpuprim on the same ones, read in place."""
import argparse
import ctypes
import statistics
import time

import numpy as np

import gpuprim as g
from . import _lib as L
from ._arrays import take


def _time(fn, reps, sync):
    fn()
    sync()
    ts = []
    for _ in range(reps):
        sync()
        t = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t)
    return 1e6 * statistics.median(ts)


def _out(arg, count, dtype):
    """an output of `count` elements beside arg (device memory for a device array): (the owner to keep, its pointer)"""
    if arg.on_gpu:
        from ._arrays import DeviceArray
        d = DeviceArray(arg.ctx, (count,), np.dtype(dtype), arg.stream)
        return d, d.ptr
    h = take(np.empty(count, dtype), None)
    return h, h.ptr


def _c_calls(arg, k, sarg, qarg):
    """the C calls the Python functions wrap, made straight through ctypes on the same arrays, their outputs made once:
    {case name: (run, the outputs to keep)}. unique with counts and histogram make more than one call, so they have
    none here."""
    p, g_, n, x, s = arg.ctx.p, arg.gp, arg.size, arg.ptr, arg.stream
    calls = {}
    o = L.SortOpts(0, 0, 0)
    keep, y = _out(arg, n, arg.dtype)
    calls["sort f32"] = (lambda: L.check(L.gp_sort(p, g_, n, x, y, ctypes.byref(o), s)), keep)
    keep2, i64 = _out(arg, n, np.int64)
    calls["argsort f32"] = (lambda: L.check(L.gp_argsort(p, g_, n, x, L.GP_I64, i64, ctypes.byref(o), s)), keep2)
    keep3, tv = _out(arg, k, arg.dtype)
    keep4, ti = _out(arg, k, np.int64)
    calls["topk 100 f32"] = (lambda: L.check(L.gp_topk(p, g_, 1, n, x, k, 1, tv, L.GP_I64, ti, s)), (keep3, keep4))
    keep5, qi = _out(qarg, qarg.size, np.int64)
    calls["searchsorted f32"] = (lambda: L.check(L.gp_searchsorted(p, g_, sarg.size, sarg.ptr, qarg.size, qarg.ptr, 0,
                                                                   L.GP_I64, qi, s)), keep5)
    keep6, cy = _out(arg, n, arg.dtype)
    calls["cumsum f32"] = (lambda: L.check(L.gp_scan(p, L.OP["sum"], g_, L.GP_SCAN_INCLUSIVE, n, x, cy, s)), keep6)
    if arg.on_gpu:  # as gpuprim.sum: the result into the context's scratch, read back with one wait
        nb = ctypes.sizeof(L.ReduceResult)

        def csum():
            d = arg.ctx.scratch()
            L.check(L.gp_reduce(p, L.OP["sum"], g_, n, x, d, s))
            return arg.ctx.fetch(d, nb, s)
    else:
        r = L.ReduceResult()

        def csum():
            L.check(L.gp_reduce_sync(p, L.OP["sum"], g_, n, x, ctypes.byref(r)))
    calls["sum f32"] = (csum, None)
    return calls


def _profile(name, fn, sync, calls=300, top=14):
    """where the Python function's time goes: cProfile over `calls` calls, the functions of most own time"""
    import cProfile
    import io
    import pstats
    fn()
    sync()
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(calls):
        fn()
    sync()
    pr.disable()
    buf = io.StringIO()
    pstats.Stats(pr, stream=buf).sort_stats("tottime").print_stats(top)
    print("### profile: %s, %d calls" % (name, calls))
    print("\n".join(ln for ln in buf.getvalue().splitlines() if ln.strip() and "Ordered by" not in ln))


def _over_c(crun, ours, sync, pairs=61):
    """the Python call's time over the C call's, µs: the median of `pairs` differences, the two timed alternately
    (each between two device synchronizations), so that the host's drift falls on both"""
    crun(), ours()
    sync()
    d = []
    for _ in range(pairs):
        sync()
        t = time.perf_counter()
        crun()
        sync()
        tc = time.perf_counter() - t
        t = time.perf_counter()
        ours()
        sync()
        d.append(time.perf_counter() - t - tc)
    return 1e6 * statistics.median(d)


def _host_over_c(crun, ours, sync, loops=15, batch=50):
    """the Python call's host time over the C call's, µs a call: loops of `batch` calls issued back to back (the host
    time of issuing them; on a GPU the device drains them after), C and Python alternately, the median of the
    differences"""
    crun(), ours()
    sync()
    d = []
    for _ in range(loops):
        per = []
        for fn in (crun, ours):
            sync()
            t = time.perf_counter()
            for _ in range(batch):
                fn()
            per.append((time.perf_counter() - t) / batch)
        sync()
        d.append(per[1] - per[0])
    return 1e6 * statistics.median(d)


def _bench_cases(rows, n, cases, peer, calls, reps, sync, host_over=False):
    """each case against the peer's call on the same arrays, and against its C call where it has one: that call's time
    (C_us) and the Python call's time over it (over_C_us; host_over_C_us for the sort where host_over)"""
    for name, ours, pf in cases:
        o = _time(ours, reps, sync)
        p = _time(pf, reps, sync)
        c = calls.get(name)
        rows.append((name, n, o, peer, p, p / o, _over_c(c[0], ours, sync) if c else None,
                     _host_over_c(c[0], ours, sync) if c and host_over and name == "sort f32" else None,
                     _time(c[0], reps, sync) if c else None))


def _bench_gpu(rows, n, cases, peer, arg, k, sarg, qarg, reps, sync, profile=False):
    calls = _c_calls(arg, k, sarg, qarg)
    if profile:
        for name, ours, _ in cases:
            _profile("%s n=%d (%s's arrays)" % (name, n, peer), ours, sync)
    _bench_cases(rows, n, cases, peer, calls, reps, sync, True)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m gpuprim.bench", description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--sizes", default=None, help="log2 sizes, comma-separated (default: 10,16,20,22 on the CPU, "
                                                   "10,16,20,24,28 on a GPU)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--profile", action="store_true", help="on a GPU: where each Python function's time goes "
                                                           "(cProfile), before the timings")
    a = ap.parse_args(argv)
    cpu = a.device == "cpu"
    sizes = [int(s) for s in (a.sizes or ("10,16,20,22" if cpu else "10,16,20,24,28")).split(",")]
    rng = np.random.default_rng(1)
    rows = []
    if cpu:
        sync = None
        for lg in sizes:
            n = 1 << lg
            x = rng.standard_normal(n).astype(np.float32)
            xi = rng.integers(0, 1 << 20, n).astype(np.int32)
            s = np.sort(x)
            q = x[: max(1, n // 16)].copy()
            cases = [("sort f32", lambda: g.sort(x), lambda: np.sort(x)),
                     ("argsort f32", lambda: g.argsort(x), lambda: np.argsort(x, kind="stable")),
                     ("topk 100 f32", lambda: g.topk(x, min(100, n)),
                      lambda: np.argpartition(x, n - min(100, n))[n - min(100, n):]),
                     ("unique+counts i32", lambda: g.unique(xi, return_counts=True),
                      lambda: np.unique(xi, return_counts=True)),
                     ("searchsorted f32", lambda: g.searchsorted(s, q), lambda: np.searchsorted(s, q)),
                     ("cumsum f32", lambda: g.cumsum(x), lambda: np.cumsum(x)),
                     ("histogram 100 f32", lambda: g.histogram(x, 100), lambda: np.histogram(x, 100)),
                     ("sum f32", lambda: g.sum(x), lambda: np.sum(x))]
            calls = _c_calls(take(x), min(100, n), take(s), take(q))
            _bench_cases(rows, n, cases, "NumPy %s" % np.__version__, calls, a.reps, lambda: None)
    else:
        dev = int(a.device)
        try:
            import torch
        except ImportError:
            torch = None
        try:
            import cupy
        except ImportError:
            cupy = None
        if torch is None and cupy is None:
            raise SystemExit("python -m gpuprim.bench: a GPU run needs torch or CuPy as the peer")
        for lg in sizes:
            n = 1 << lg
            k = min(100, n)
            # each peer on its own arrays, gpuprim on the same ones (read in place); torch first, then CuPy
            if torch is not None:
                sync = torch.cuda.synchronize
                t = torch.randn(n, device="cuda:%d" % dev)
                ti = torch.randint(0, 1 << 20, (n,), device="cuda:%d" % dev, dtype=torch.int32)
                s = torch.sort(t).values
                q = t[: max(1, n // 16)].contiguous()
                lo, hi = float(t.min()), float(t.max())
                cases = [("sort f32", lambda: g.sort(t), lambda: torch.sort(t)),
                         ("argsort f32", lambda: g.argsort(t), lambda: torch.argsort(t, stable=True)),
                         ("topk 100 f32", lambda: g.topk(t, k), lambda: torch.topk(t, k)),
                         ("unique+counts i32", lambda: g.unique(ti, return_counts=True),
                          lambda: torch.unique(ti, return_counts=True)),
                         ("searchsorted f32", lambda: g.searchsorted(s, q), lambda: torch.searchsorted(s, q)),
                         ("cumsum f32", lambda: g.cumsum(t), lambda: torch.cumsum(t, 0)),
                         ("histogram 100 f32", lambda: g.histogram(t, 100, range=(lo, hi)),
                          lambda: torch.histc(t, 100, lo, hi)),
                         ("sum f32", lambda: g.sum(t), lambda: torch.sum(t).item())]
                _bench_gpu(rows, n, cases, "torch %s" % torch.__version__, take(t), k, take(s), take(q), a.reps, sync,
                           a.profile)
            if cupy is not None:
                with cupy.cuda.Device(dev):
                    sync = cupy.cuda.Device(dev).synchronize
                    c = cupy.random.standard_normal(n, dtype=cupy.float32)
                    ci = cupy.random.randint(0, 1 << 20, n, dtype=cupy.int32)
                    cs = cupy.sort(c)
                    cq = c[: max(1, n // 16)].copy()
                    cases = [("sort f32", lambda: g.sort(c), lambda: cupy.sort(c)),
                             ("argsort f32", lambda: g.argsort(c), lambda: cupy.argsort(c)),
                             ("topk 100 f32", lambda: g.topk(c, k),
                              lambda: cupy.sort(cupy.partition(c, n - k)[n - k:])),
                             ("unique+counts i32", lambda: g.unique(ci, return_counts=True),
                              lambda: cupy.unique(ci, return_counts=True)),
                             ("searchsorted f32", lambda: g.searchsorted(cs, cq), lambda: cupy.searchsorted(cs, cq)),
                             ("cumsum f32", lambda: g.cumsum(c), lambda: cupy.cumsum(c)),
                             ("histogram 100 f32", lambda: g.histogram(c, 100), lambda: cupy.histogram(c, 100)),
                             ("sum f32", lambda: g.sum(c), lambda: float(cupy.sum(c)))]
                    _bench_gpu(rows, n, cases, "CuPy %s" % cupy.__version__, take(c), k, take(cs), take(cq), a.reps,
                               sync, a.profile)
    print("%-20s %10s %12s %-14s %12s %7s %9s %9s %8s %14s" % ("op", "n", "gpuprim_us", "peer", "peer_us", "ratio",
                                                                "C_us", "over_C_us", "py/C", "host_over_C_us"))
    for r in rows:
        print("%-20s %10d %12.1f %-14s %12.1f %7.3f %9s %9s %8s %14s" % (
            r[0], r[1], r[2], r[3], r[4], r[5], "" if r[8] is None else "%.1f" % r[8],
            "" if r[6] is None else "%.1f" % r[6], "" if r[8] is None else "%.3f" % (r[2] / r[8]),
            "" if r[7] is None else "%.1f" % r[7]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
