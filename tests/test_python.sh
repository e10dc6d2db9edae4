#!/bin/sh
# The Python package (python/) against NumPy on the CPU backend, over this build's library: python/tests/test_numpy.py
# (unittest) and `python -m gpuprim info`. $1: libgpuprim.so. Skipped (77) without python3 or NumPy: never passed.
set -u
lib=$1
src=$(cd "$(dirname "$0")/../python" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "test_python: SKIPPED: no python3"; exit 77; }
python3 -c 'import numpy' 2>/dev/null || { echo "test_python: SKIPPED: python3 has no NumPy"; exit 77; }
export GPUPRIM_LIB="$lib" PYTHONPATH="$src${PYTHONPATH:+:$PYTHONPATH}"
rc=0
(cd "$src" && python3 -m unittest -v tests.test_numpy) || rc=1
python3 -m gpuprim info >/dev/null || { echo "test_python: python -m gpuprim info failed"; rc=1; }
python3 -m gpuprim bogus >/dev/null 2>&1 && { echo "test_python: python -m gpuprim bogus was accepted"; rc=1; }
exit $rc
