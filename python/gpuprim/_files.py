"""Arrays from files, read by the library's loader (gp_array_read): a regular file in parallel slices straight into the
result's memory — a NumPy array, or GPU memory through pinned stages (no staging copy on the device)."""
import ctypes
import os

import numpy as np

from . import _lib as L
from ._arrays import DeviceArray, context, gp_dtype, np_dtype


def _open(path, what):
    p = os.fsencode(os.fspath(path))
    f = L.libc.fopen(p, b"rb")
    if not f:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)), os.fsdecode(p))
    return f


def _read(path, desc, device, what):
    dt = np.dtype(np.bool_) if desc.bool_values else np_dtype(desc.dtype)
    shape = tuple(int(desc.shape[i]) for i in range(desc.ndim))
    order = "F" if desc.fortran_order and desc.ndim > 1 else "C"
    on_gpu = device is not None and device != "cpu"
    if on_gpu and order == "F":
        raise ValueError("%s: a Fortran-order array onto a GPU (load it to the host, or save it in C order)" % what)
    ctx = context(device if on_gpu else None)
    if on_gpu:
        out = DeviceArray(ctx, shape, dt)
        dst = out.ptr
    else:
        out = np.empty(shape, dt, order=order)
        dst = out.ctypes.data
    f = _open(path, what)
    try:
        if L.libc.fseeko(f, desc.data_offset, 0) != 0:
            e = ctypes.get_errno()
            raise OSError(e, "%s: %s" % (what, os.strerror(e)), os.fspath(path))
        L.check(L.gp_array_read(ctx.p, f, ctypes.byref(desc), desc.count, None, dst or None), what)
    finally:
        L.libc.fclose(f)
    return out


def load(file, *, device=None):
    """np.load of a .npy file (format 1.0-3.0, any byte order, C or Fortran order, bool): a NumPy array in host byte
    order, or with device=N a DeviceArray on GPU N (C order only). Read in parallel slices straight into place."""
    what = "gpuprim.load"
    os.stat(file)  # FileNotFoundError / PermissionError as NumPy raises them
    desc = L.ArrayDesc()
    L.check(L.gp_npy_inspect(os.fsencode(os.fspath(file)), ctypes.byref(desc)), what)
    return _read(file, desc, device, what)


def fromfile(file, dtype=float, count=-1, offset=0, *, device=None):
    """np.fromfile of a raw binary file (sep='' only): count elements of dtype (-1: every whole element) from byte
    offset; a NumPy array, or with device=N a DeviceArray on GPU N. Bools are read as 0 / 1 (NumPy keeps any byte)."""
    what = "gpuprim.fromfile"
    os.stat(file)
    dt = np.dtype(dtype)
    if count < -1 or offset < 0:
        raise ValueError("%s: count %d, offset %d (count >= -1, offset >= 0)" % (what, count, offset))
    desc = L.ArrayDesc()
    L.check(L.gp_raw_inspect(os.fsencode(os.fspath(file)), gp_dtype(dt, what), offset,
                             L.GP_COUNT_ALL if count == -1 else count, ctypes.byref(desc)), what)
    if dt == np.bool_:
        desc.bool_values = 1
    return _read(file, desc, device, what)
