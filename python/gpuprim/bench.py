"""python -m gpuprim.bench [--device cpu|N] [--sizes 16,20,24] [--reps R] [--profile]: gpuprim's Python functions
against their peers in the same run — NumPy on the CPU backend, torch and CuPy on CUDA tensors of a GPU — and against
the C call itself (the same library call made straight through ctypes), so the wrapper's cost shows: 'over_C_us' is
the sort's time over the C call's (the median of 61 differences, the two timed alternately), and on a GPU
'host_over_C_us' the host's time per call over the C call's (loops of 50 calls issued back to back, the two
alternately, the median of 15 differences: the wrapper's own cost, apart from the device's). Times are medians of R
runs of one call (perf_counter; on a GPU the device synchronized before and after it), in microseconds; ratio = peer /
gpuprim. On a GPU each peer runs on its own arrays (torch tensors, CuPy arrays) and gpuprim on the same ones, read in
place."""
import argparse
import ctypes
import statistics
import time

import numpy as np

import gpuprim as g
from . import _lib as L
from ._arrays import take


def _time_cpu(fn, reps):
    fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return 1e6 * statistics.median(ts)


def _time_gpu(fn, reps, sync):
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


def _c_sort(arg):
    """gp_sort straight through ctypes on arg's memory (the C call the Python function wraps)."""
    out = take(np.empty(arg.shape, arg.dtype), None) if not arg.on_gpu else None
    if arg.on_gpu:
        from ._arrays import DeviceArray
        d = DeviceArray(arg.ctx, arg.shape, arg.dtype, arg.stream)
        ptr = d.ptr
    else:
        d, ptr = out, out.ptr
    o = L.SortOpts(0, 0, 0)

    def run():
        L.check(L.gp_sort(arg.ctx.p, arg.gp, arg.size, arg.ptr, ptr, ctypes.byref(o), arg.stream))
    return run, d


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


def _bench_gpu(rows, n, cases, peer, arg, reps, sync, profile=False):
    """each case against the peer's call on the same arrays; the C call of the sort beside the Python one"""
    crun, _keep = _c_sort(arg)
    if profile:
        for name, ours, _ in cases:
            _profile("%s n=%d (%s's arrays)" % (name, n, peer), ours, sync)
    for name, ours, pf in cases:
        o = _time_gpu(ours, reps, sync)
        p = _time_gpu(pf, reps, sync)
        rows.append((name, n, o, peer, p, p / o, _over_c(crun, ours, sync) if name == "sort f32" else None,
                     _host_over_c(crun, ours, sync) if name == "sort f32" else None))


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
            arg = take(x)
            crun, _keep = _c_sort(arg)
            for name, ours, peer in cases:
                o = _time_cpu(ours, a.reps)
                p = _time_cpu(peer, a.reps)
                rows.append((name, n, o, "NumPy %s" % np.__version__, p, p / o,
                             _over_c(crun, ours, lambda: None) if name == "sort f32" else None, None))
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
                _bench_gpu(rows, n, cases, "torch %s" % torch.__version__, take(t), a.reps, sync, a.profile)
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
                    _bench_gpu(rows, n, cases, "CuPy %s" % cupy.__version__, take(c), a.reps, sync, a.profile)
    print("%-20s %10s %12s %-14s %12s %7s %9s %14s" % ("op", "n", "gpuprim_us", "peer", "peer_us", "ratio",
                                                        "over_C_us", "host_over_C_us"))
    for r in rows:
        print("%-20s %10d %12.1f %-14s %12.1f %7.3f %9s %14s" % (r[0], r[1], r[2], r[3], r[4], r[5],
                                                                 "" if r[6] is None else "%.1f" % r[6],
                                                                 "" if r[7] is None else "%.1f" % r[7]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
