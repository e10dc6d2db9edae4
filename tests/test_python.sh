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
# the bench once at 2^10: every case against NumPy, the six with one C call beside it (C_us, over_C_us, py/C)
out=$(python3 -m gpuprim.bench --sizes 10 --reps 1 2>&1) || { echo "test_python: python -m gpuprim.bench failed: $out"; rc=1; }
num='-?[0-9]+\.[0-9]+'
c=$(printf '%s\n' "$out" | grep -cE "^(sort|argsort|topk 100|searchsorted|cumsum|sum) f32 +1024 +$num +NumPy [^ ]+ +$num +$num +$num +$num +$num")
[ "$c" = 6 ] || { echo "test_python: the bench's C-call columns: $c of 6 rows"; printf '%s\n' "$out"; rc=1; }
[ "$(printf '%s\n' "$out" | grep -cE ' 1024 ')" = 8 ] || { echo "test_python: the bench's rows"; printf '%s\n' "$out"; rc=1; }
exit $rc
