#!/bin/sh
# The Python package on CUDA tensors (python/tests/test_device.py): torch and CuPy in place, their streams, no input
# copies. $1: libgpuprim.so. Exit 77 (skipped) without a GPU, python3, NumPy, or both torch and CuPy.
set -u
lib=$1
src=$(cd "$(dirname "$0")/../python" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "gpu_python: SKIPPED: no python3"; exit 77; }
python3 -c 'import numpy' 2>/dev/null || { echo "gpu_python: SKIPPED: no NumPy"; exit 77; }
export GPUPRIM_LIB="$lib" PYTHONPATH="$src${PYTHONPATH:+:$PYTHONPATH}"
python3 - <<'PY' || { echo "gpu_python: SKIPPED: no GPU with torch or CuPy"; exit 77; }
import ctypes, gpuprim._lib as L, sys
n = ctypes.c_int(0)
if L.gp_device_count(ctypes.byref(n)) != 0 or n.value == 0: sys.exit(1)
ok = False
for m in ("torch", "cupy"):
    try: __import__(m); ok = True
    except Exception: pass
sys.exit(0 if ok else 1)
PY
cd "$src" && python3 -X faulthandler -m unittest -v tests.test_device
