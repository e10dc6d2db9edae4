#!/usr/bin/env python3
"""py_sort.py — torch and CuPy sorts timed on this GPU, the figures docs/design/sort.md quotes beside `gpuprim bench
sort` (which times CUB in its own run). Median of CUDA-event-timed repetitions after a warm-up, inputs on the device.
--family: the sort family's other rows at 2^28 f32 instead — torch.topk (k = 16, 1000, 65536), torch.searchsorted
(2^24 queries), torch.unique (2^20 distinct i32, with counts) and the merge's stand-in, a stable sort of two sorted
halves — the peers of bench sort's topk / searchsorted / merge rows.
usage: python3 bench/peers/py_sort.py [LOG2_N ...]   (default 16 20 24 28)
       python3 bench/peers/py_sort.py --family"""
import sys


def timed(fn, reps=10):
    import torch
    fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) * 1000.0)
    ts.sort()
    return ts[len(ts) // 2]


def family():
    import torch
    print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}; median us of CUDA-event-timed calls, 2^28")
    g = torch.Generator(device="cuda").manual_seed(2)
    n = 1 << 28
    x = torch.rand(n, device="cuda", dtype=torch.float32, generator=g)
    for k in (16, 1000, 65536):
        print(f"{'torch.topk (smallest, sorted)':40s} f32 k={k}: {timed(lambda: torch.topk(x, k, largest=False)):12.1f} us")
    a = torch.sort(x).values
    q = torch.rand(n // 16, device="cuda", dtype=torch.float32, generator=g)
    print(f"{'torch.searchsorted (2^24 queries)':40s} f32: {timed(lambda: torch.searchsorted(a, q)):12.1f} us")
    h = torch.cat([torch.sort(x[: n // 2]).values, torch.sort(x[n // 2:]).values])
    print(f"{'torch.sort of two sorted halves':40s} f32: {timed(lambda: torch.sort(h, stable=True)):12.1f} us")
    u = torch.randint(0, 1 << 20, (n,), device="cuda", dtype=torch.int32, generator=g)
    print(f"{'torch.unique (counts; 2^20 distinct)':40s} i32: "
          f"{timed(lambda: torch.unique(u, return_counts=True)):12.1f} us")


def main():
    if sys.argv[1:2] == ["--family"]:
        return family()
    import torch
    try:
        import cupy as cp
    except ImportError:
        cp = None
    sizes = [int(a) for a in sys.argv[1:]] or [16, 20, 24, 28]
    print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}"
          f"{', cupy ' + cp.__version__ if cp else ''}; median us of CUDA-event-timed calls")
    g = torch.Generator(device="cuda").manual_seed(1)
    for lg in sizes:
        n = 1 << lg
        xs = {
            "i32": torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=g),
            "f32": torch.randn(n, device="cuda", dtype=torch.float32, generator=g),
            "i64": torch.randint(-2**63, 2**63 - 1, (n,), device="cuda", dtype=torch.int64, generator=g),
        }
        for name, x in xs.items():
            rows = [("torch.sort (values + indices, stable)", lambda: torch.sort(x, stable=True))]
            if cp is not None:
                c = cp.from_dlpack(x)
                rows += [("cupy.sort", lambda: cp.sort(c)), ("cupy.argsort", lambda: cp.argsort(c))]
            for label, fn in rows:
                print(f"{label:40s} {name} 2^{lg}: {timed(fn):12.1f} us")
            del x
        del xs
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
