#!/usr/bin/env python3
"""cpu_vs_numpy.py GPUPRIM — each CLI verb on the CPU backend against NumPy doing the same job on this machine.
Both sides are timed end to end from the same .npy files in the page cache (NumPy: np.load +
the operation + np.save where there is an output, in one warm interpreter — and again as a fresh `python3 -c`, as a
shell user runs it; gpuprim: the whole process). Best of 3."""
import os, subprocess, sys, tempfile, time
import numpy as np

g = sys.argv[1] if len(sys.argv) > 1 else "build/gpuprim"
d = tempfile.mkdtemp()
rng = np.random.default_rng(11)
x = rng.standard_normal(50_000_000, dtype=np.float32); np.save(f"{d}/x.npy", x)
a = rng.standard_normal((2048, 2048), dtype=np.float32); np.save(f"{d}/a.npy", a)
b = rng.standard_normal((2048, 2048), dtype=np.float32); np.save(f"{d}/b.npy", b)
t4 = rng.standard_normal((4096, 4096), dtype=np.float32); np.save(f"{d}/t.npy", t4)
del x, a, b, t4

def best(f):
    ts = []
    for _ in range(3):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return min(ts)

def fresh(code):
    return best(lambda: subprocess.run([sys.executable, "-c", "import numpy as np\n" + code.replace("D", d)],
                                       check=True, stdout=subprocess.DEVNULL))

def cli(*args):
    return best(lambda: subprocess.run([g, *args, "-d", "cpu"], check=True, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL))

jobs = [
    ("reduce sum 5e7 f32", lambda: np.load(f"{d}/x.npy").sum(), ("reduce", f"{d}/x.npy", "--op", "sum"),
     "print(np.load('D/x.npy').sum())"),
    ("reduce max 5e7 f32", lambda: np.load(f"{d}/x.npy").max(), ("reduce", f"{d}/x.npy", "--op", "max"),
     "print(np.load('D/x.npy').max())"),
    ("reduce argmax 5e7 f32", lambda: np.load(f"{d}/x.npy").argmax(), ("reduce", f"{d}/x.npy", "--op", "argmax"),
     "print(np.load('D/x.npy').argmax())"),
    ("histogram 256 bins 5e7 f32", lambda: np.histogram(np.load(f"{d}/x.npy"), bins=256),
     ("histogram", f"{d}/x.npy", "--bins", "256", "--json"), "print(np.histogram(np.load('D/x.npy'), bins=256))"),
    ("transpose 4096^2 f32", lambda: np.save(f"{d}/tt_np.npy", np.ascontiguousarray(np.load(f"{d}/t.npy").T)),
     ("transpose", f"{d}/t.npy", f"{d}/tt.npy"),
     "np.save('D/tt_np.npy', np.ascontiguousarray(np.load('D/t.npy').T))"),
    ("gemm 2048^3 f32", lambda: np.save(f"{d}/c_np.npy", np.load(f"{d}/a.npy") @ np.load(f"{d}/b.npy")),
     ("gemm", f"{d}/a.npy", f"{d}/b.npy", "-o", f"{d}/c.npy"),
     "np.save('D/c_np.npy', np.load('D/a.npy') @ np.load('D/b.npy'))"),
]
print(f"{'job':30s} {'numpy_s':>9s} {'gpuprim_cpu_s':>14s} {'ratio':>7s} {'numpy_fresh_s':>14s} {'ratio':>7s}"
      f"   (ratio > 1: gpuprim faster; {os.cpu_count()} CPUs, numpy {np.__version__})")
for name, f, args, code in jobs:
    tn, tg, tf = best(f), cli(*args), fresh(code)
    print(f"{name:30s} {tn:9.3f} {tg:14.3f} {tn / tg:7.2f} {tf:14.3f} {tf / tg:7.2f}")
