#!/bin/sh
# Checks (and where it can, installs through apt) what building gpuprim needs: a C compiler, CMake >= 3.24,
# pkg-config and the CUDA toolkit (nvcc); and NumPy for the tests that compare with it (apt as root, else pip). The CUDA toolkit is not a Debian package we can install here: without
# it the script says where to get it, and the build is a CPU-only one.
set -u
missing=""
command -v cc >/dev/null 2>&1 || missing="$missing build-essential"
command -v c++ >/dev/null 2>&1 || missing="$missing g++"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
if command -v cmake >/dev/null 2>&1; then
  v=$(cmake --version | sed -n 's/^cmake version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  set -- $v
  if [ "${1:-0}" -lt 3 ] || { [ "${1:-0}" -eq 3 ] && [ "${2:-0}" -lt 24 ]; }; then
    echo "deps: cmake $1.$2 is older than 3.24" >&2; exit 1
  fi
else
  missing="$missing cmake"
fi
if [ -n "$missing" ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing; } ||
      { echo "deps: apt-get could not install$missing" >&2; exit 1; }
  else
    echo "deps: missing$missing (install them, e.g. sudo apt-get install$missing)" >&2; exit 1
  fi
fi
# NumPy: the tests that check the CLI and the Python package against NumPy itself (cli_numpy, npy_numpy,
# python_numpy) are skipped without it, so it is installed where we can, and said where we cannot
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import numpy' >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && [ "$(command -v python3)" = /usr/bin/python3 ]; then
    echo "deps: installing python3-numpy (the NumPy comparisons of make test)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-numpy >/dev/null 2>&1 ||
      echo "deps: apt-get could not install python3-numpy: the NumPy tests will be skipped" >&2
  elif python3 -m pip --version >/dev/null 2>&1 && python3 -m pip install --quiet --disable-pip-version-check numpy \
       >/dev/null 2>&1; then
    echo "deps: installed NumPy for $(command -v python3) (pip)"
  else
    echo "deps: $(command -v python3) has no NumPy: make test skips its NumPy comparisons (pip install numpy)" >&2
  fi
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${CUDACXX:-}" ]; then
  # said once, here: the build goes on without kernels (CMake's GP_CPU_ONLY)
  echo "deps: no CUDA toolkit (nvcc): building the CPU backend, the CLI and the CPU tests only. For the GPU, install" >&2
  echo "      CUDA 12.x/13.x (https://developer.nvidia.com/cuda-downloads) or set CUDACXX to its nvcc." >&2
fi
exit 0
