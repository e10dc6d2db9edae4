#!/bin/sh
# make python: the Python package (python/) installed into the active python3's environment with the library built in
# BUILD beside it — no second build. The package is staged in BUILD/python-pkg (the sources and libgpuprim.so), then
# pip installs it (no build isolation: the setuptools already there builds it; NumPy is its one dependency).
#   sh scripts/python_install.sh [BUILD]
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
lib=$build/libgpuprim.so
[ -e "$lib" ] || { echo "make python: build the library first (make build): no $lib" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "make python: no python3" >&2; exit 2; }
python3 -c 'import numpy' 2>/dev/null || { echo "make python: python3 has no NumPy (pip install numpy)" >&2; exit 2; }
stage=$build/python-pkg
rm -rf "$stage"
mkdir -p "$stage/gpuprim"
cp python/pyproject.toml python/README.md "$stage/"
cp python/gpuprim/*.py "$stage/gpuprim/"
cp -L "$lib" "$stage/gpuprim/libgpuprim.so"
if ! python3 -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall \
    "$stage" 2>"$stage/pip.log"; then
  # no pip, or a setuptools that cannot build a wheel here (no 'wheel'): the files copied into purelib with the
  # .dist-info pip reads, so `pip uninstall gpuprim` still removes them
  echo "make python: pip could not build the package ($(tail -1 "$stage/pip.log")); copying it in" >&2
  python3 - "$stage" <<'PY'
import base64, hashlib, os, shutil, sys, sysconfig
stage = sys.argv[1]
dest = sysconfig.get_paths()["purelib"]
ver = [l.split('"')[1] for l in open(os.path.join(stage, "pyproject.toml")) if l.startswith("version")][0]
pkg = os.path.join(dest, "gpuprim")
shutil.rmtree(pkg, ignore_errors=True)
shutil.copytree(os.path.join(stage, "gpuprim"), pkg)
info = os.path.join(dest, "gpuprim-%s.dist-info" % ver)
for d in os.listdir(dest):
    if d.startswith("gpuprim-") and d.endswith(".dist-info"):
        shutil.rmtree(os.path.join(dest, d))
os.makedirs(info)
open(os.path.join(info, "METADATA"), "w").write("Metadata-Version: 2.1\nName: gpuprim\nVersion: %s\nRequires-Dist: numpy>=1.22\n" % ver)
open(os.path.join(info, "INSTALLER"), "w").write("make python\n")
rows = []
for root, _, files in os.walk(pkg):
    for f in files:
        p = os.path.join(root, f)
        h = base64.urlsafe_b64encode(hashlib.sha256(open(p, "rb").read()).digest()).rstrip(b"=").decode()
        rows.append("%s,sha256=%s,%d" % (os.path.relpath(p, dest), h, os.path.getsize(p)))
for f in ("METADATA", "INSTALLER"):
    rows.append("%s,," % os.path.relpath(os.path.join(info, f), dest))
rows.append("%s,," % os.path.relpath(os.path.join(info, "RECORD"), dest))
open(os.path.join(info, "RECORD"), "w").write("\n".join(rows) + "\n")
PY
fi
python3 -c 'import gpuprim; print("gpuprim", gpuprim.__version__, "installed for", __import__("sys").executable)'
