#!/usr/bin/env python3
"""npy_interop.py — gpuprim's .npy reader and writer against NumPy itself.

For every dtype NumPy and gpuprim share, C and Fortran order, little- and big-endian data, format versions 1.0, 2.0
and 3.0 and shapes from a scalar to 3-D: NumPy writes, gpuprim reads (values and header checked element by element),
gpuprim writes it back, NumPy reads that and compares. Exit 77 (skipped) where NumPy is not installed.
Usage: npy_interop.py PATH/TO/npy_tool
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("npy_interop: SKIPPED: numpy is not installed")
    sys.exit(77)

tool = sys.argv[1]
names = {"u1": "u8", "i1": "i8", "u2": "u16", "i2": "i16", "u4": "u32", "i4": "i32", "u8": "u64", "i8": "i64",
         "f2": "f16", "f4": "f32", "f8": "f64", "b1": "u8"}
rng = np.random.default_rng()
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, file=sys.stderr)


def make(code, shape):
    if code == "b1":
        return np.asarray(rng.integers(0, 2, size=shape).astype(bool))
    dt = np.dtype(code)
    if dt.kind == "f":
        return np.asarray((rng.standard_normal(size=shape) * 1000).astype(dt))
    info = np.iinfo(dt)
    return np.asarray(rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True))


with tempfile.TemporaryDirectory() as tmp:
    src, dst = os.path.join(tmp, "a.npy"), os.path.join(tmp, "b.npy")
    for code in names:
        for order_char in ("<", ">"):
            if code in ("u1", "i1", "b1") and order_char == ">":
                continue
            for shape in [(), (0,), (7,), (3, 5), (2, 3, 4)]:
                for fortran in (False, True):
                    for version in ((1, 0), (2, 0), (3, 0)):
                        arr = make(code, shape)
                        if code not in ("b1",):
                            arr = arr.astype(np.dtype(code).newbyteorder(order_char))
                        if fortran and arr.ndim > 0:  # asfortranarray would make a 0-d array 1-d
                            arr = np.asfortranarray(arr)
                        with open(src, "wb") as f:
                            np.lib.format.write_array(f, arr, version=version)
                        what = f"{order_char}{code} shape={shape} fortran={fortran} v{version[0]}.{version[1]}"
                        out = subprocess.run([tool, "dump", src], capture_output=True, text=True)
                        if out.returncode != 0:
                            check(False, f"{what}: dump failed: {out.stderr.strip()}")
                            continue
                        lines = out.stdout.splitlines()
                        head = dict(kv.split("=") for kv in lines[0].split(" "))
                        is_fortran = fortran and arr.ndim > 1
                        check(head["dtype"] == names[code] and int(head["count"]) == arr.size
                              and head["shape"] == ",".join(str(s) for s in shape)
                              and int(head["version"].split(".")[0]) == version[0], f"{what}: header {lines[0]}")
                        flat = arr.ravel(order="F" if is_fortran else "C")
                        if code == "f2":
                            want = [f"0x{int(v):04x}" for v in flat.astype("<f2").view("<u2")]
                        elif code == "f4":  # %.9g round-trips a float32 exactly
                            want = [np.float32(v) for v in flat]
                            lines[1:] = [np.float32(v) for v in lines[1:]]
                        elif code == "f8":
                            want = [float(v) for v in flat]
                            lines[1:] = [float(v) for v in lines[1:]]
                        else:
                            want = [str(int(v)) for v in flat]
                        check(lines[1:] == want, f"{what}: values differ")
                        copy = subprocess.run([tool, "copy", src, dst], capture_output=True, text=True)
                        if copy.returncode != 0:
                            check(False, f"{what}: copy failed: {copy.stderr.strip()}")
                            continue
                        back = np.load(dst)
                        check(back.shape == arr.shape and np.array_equal(back, arr)
                              and (back.flags.f_contiguous if is_fortran else back.flags.c_contiguous),
                              f"{what}: NumPy reads gpuprim's copy differently")
print(f"npy_interop: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
