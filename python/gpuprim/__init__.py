"""gpuprim: GPU parallel primitives from Python, over libgpuprim's C API.

NumPy arrays run on the CPU backend (the same bits as a GPU), or on a GPU when asked (device=0: copied in and out, the
result a NumPy array). CuPy arrays, torch tensors and anything else with __dlpack__ or __cuda_array_interface__ run
on the GPU they live on, read in place, ordered on the producer's stream; their results are gpuprim.DeviceArray
objects that torch.from_dlpack / cupy.from_dlpack take without a copy. NumPy's names and signatures where NumPy has
the function; the deliberate differences are listed in docs/guide/python.md.
"""
import builtins as _builtins
import ctypes
import math

import numpy as np

from . import _lib as L
from ._arrays import (DeviceArray, take, output, give, context, gp_dtype, np_dtype, reduce_value, is_torch_cuda,
                      is_cupy, device_arg, host_ptr, ready, empty_cache, SMALL_BYTES)
from ._files import load, fromfile
from ._group import Group
from ._lib import Error

__all__ = ["Error", "DeviceArray", "Group", "version", "info", "sum", "prod", "min", "max", "argmin", "argmax",
           "count_nonzero", "cumsum", "cumprod", "histogram", "sort", "argsort", "searchsorted", "partition",
           "argpartition", "topk", "unique", "merge", "is_sorted_until", "dot", "matmul", "transpose", "select",
           "stable_partition", "rle", "reduce_by_key", "scan_by_key", "reduce", "transform", "scan", "select_if",
           "sort_by", "segment_sort", "segment_reduce", "load", "fromfile", "empty_cache"]

_v = L.gp_version()
__version__ = "%d.%d.%d" % (_v // 10000, _v // 100 % 100, _v % 100)


def version():
    return __version__


def _dl_device_type(x):
    """x's DLPack device type (1 CPU, 2 CUDA), None where it says none. Asked before __cuda_array_interface__, which
    torch builds anew on every read (~7 us)."""
    f = getattr(x, "__dlpack_device__", None)
    if f is None:
        return None
    try:
        return f()[0]
    except Exception:
        return None


def _norm(x):
    """A CPU tensor given by DLPack (NumPy, torch on the CPU, ...) as a NumPy array over its memory (no copy)."""
    if (type(x) is np.ndarray or isinstance(x, np.ndarray) or is_torch_cuda(x) or is_cupy(x)
            or not hasattr(x, "__dlpack__")):
        return x
    dev = _dl_device_type(x)
    if dev == 1 or (dev is None and not hasattr(x, "__cuda_array_interface__")):
        return np.from_dlpack(x)
    return x


def _fast_host(x):
    """Whether a NumPy array can go straight to a C call: C-contiguous, one of gpuprim's native dtypes but bool."""
    return x.flags.c_contiguous and x.dtype in _FAST_DT


_FAST_DT = frozenset(np.dtype(t) for t in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64,
                                           np.int64, np.float16, np.float32, np.float64))
# dtypes whose np.cumsum / np.cumprod keeps them (smaller integers accumulate in int64 / uint64)
_SCAN_SAME = frozenset(np.dtype(t) for t in (np.int64, np.uint64, np.float32, np.float64))


def _host(x):
    """Whether a result for x goes back as NumPy (x is not a device array)."""
    if type(x) is np.ndarray:
        return True
    if isinstance(x, DeviceArray) or is_torch_cuda(x) or is_cupy(x):
        return False
    if isinstance(x, np.ndarray):
        return True
    dev = _dl_device_type(x)
    if dev in (1, 2):  # CPU, CUDA; other DLPack devices as before: by __cuda_array_interface__
        return dev == 1
    return not hasattr(x, "__cuda_array_interface__")


def _axis_error(axis, ndim):
    return np.exceptions.AxisError(axis, ndim) if hasattr(np, "exceptions") else ValueError(
        "axis %d is out of bounds for array of dimension %d" % (axis, ndim))


def _rows_last(x, axis, name):
    """x as NumPy with `axis` moved last (C order), for the row-wise calls of NumPy inputs: (array, undo)."""
    a = np.asarray(x)
    if a.ndim == 0:
        raise _axis_error(axis, 0)
    ax = axis + a.ndim if axis < 0 else axis
    if not 0 <= ax < a.ndim:
        raise _axis_error(axis, a.ndim)
    if ax == a.ndim - 1:
        return a, lambda r: r
    return np.ascontiguousarray(np.moveaxis(a, ax, -1)), lambda r: np.moveaxis(r, -1, ax)


def _offsets(arg, rows, n):
    """CSR offsets of rows of n (int64) beside arg: host memory, or device memory on arg's GPU."""
    off = np.arange(rows + 1, dtype=np.int64) * n
    if not arg.on_gpu:
        return off, off.ctypes.data
    d = DeviceArray(arg.ctx, off.shape, off.dtype, arg.stream)
    L.check(L.gp_memcpy_sync(arg.ctx.p, d.ptr, off.ctypes.data, off.nbytes), "gpuprim: offsets")
    return d, d.ptr


def _acc_dtype(op, arg, name):
    """The NumPy dtype of op's accumulator over arg (gp_reduce_acc_dtype: float32 for float16 / float32, else 8
    bytes); TypeError when op does not take arg's dtype."""
    adt = L.gp_reduce_acc_dtype(L.OP[op], arg.gp)
    if adt == L.GP_DTYPE_COUNT:
        raise TypeError("gpuprim.%s: %s over %s" % (name, op, arg.dtype))
    return np.dtype(np.float32) if adt == L.GP_F32 else np_dtype(adt)


# ---------------------------------------------------------------------------------------------- info
def info():
    """What `gpuprim info` shows that matters: the library's version, the CPU backend and each GPU."""
    ci = L.CpuInfo()
    L.check(L.gp_cpu_info(ctypes.byref(ci)))
    out = {"version": __version__, "cpu": {"model": ci.model.decode(errors="replace"), "cores": ci.logical_cores,
                                          "threads": ci.omp_max_threads, "memory_bytes": ci.total_mem_bytes}}
    n = ctypes.c_int(0)
    st = L.gp_device_count(ctypes.byref(n))
    out["gpus"] = []
    if st != L.GP_OK:
        out["gpu_error"] = L.last_error()
    for d in range(n.value):
        di = L.DeviceInfo()
        if L.gp_device_info(d, ctypes.byref(di)) == L.GP_OK:
            out["gpus"].append({f: (getattr(di, f).decode(errors="replace") if isinstance(getattr(di, f), bytes)
                                    else list(getattr(di, f)) if f in ("max_block_dim", "max_grid_dim")
                                    else getattr(di, f)) for f, _ in L.DeviceInfo._fields_})
    return out


# ---------------------------------------------------------------------------------------------- reductions

def _reduce_flat(op, x, device):
    a = take(x, device)
    if a.size == 0 and op in ("min", "max", "argmin", "argmax"):
        raise ValueError("zero-size array to reduction operation %s which has no identity"
                         % {"min": "minimum", "max": "maximum"}.get(op, op))
    return reduce_value(_reduce_result(a, op), op, a.dtype)


_RESULT_BYTES = ctypes.sizeof(L.ReduceResult)


def _reduce_result(a, op):
    """gp_reduce's result for the Arg a: on a GPU enqueued on a's stream and read back with one wait (fetch)"""
    if not a.on_gpu:
        r = L.ReduceResult()
        L.check(L.gp_reduce_sync(a.ctx.p, L.OP[op], a.gp, a.size, a.ptr, ctypes.byref(r)), "gpuprim.%s" % op)
        return r
    ctx = a.ctx
    d = ctx.scratch()
    L.check(L.gp_reduce(ctx.p, L.OP[op], a.gp, a.size, a.ptr, d, a.stream), "gpuprim.%s" % op)
    return L.ReduceResult.from_address(ctx.fetch_at(d, _RESULT_BYTES, a.stream))  # read before the next fetch


def _reduce(op, x, axis, device):
    if axis is None and device is None and type(x) is np.ndarray and x.size and _fast_host(x):
        r = L.ReduceResult()  # a NumPy array, whole, on the CPU backend: as few steps
        L.check(L.gp_reduce_sync(context(None).p, L.OP[op], gp_dtype(x.dtype), x.size, host_ptr(x), ctypes.byref(r)),
                "gpuprim.%s" % op)
        return reduce_value(r, op, x.dtype)
    if axis is None and device is None and type(x) is not np.ndarray:  # a CUDA tensor, whole: as few steps
        a = device_arg(x)
        if a is not None and (a.size or op not in ("min", "max", "argmin", "argmax")):
            return reduce_value(_reduce_result(a, op), op, a.dtype)
    x = _norm(x)
    if axis is None:
        return _reduce_flat(op, x, device)
    if not _host(x):
        raise ValueError("gpuprim.%s: a device array reduces with axis=None (NumPy inputs take any axis)" % op)
    a, _ = _rows_last(x, axis, op)
    rows, n = int(np.prod(a.shape[:-1], dtype=np.int64)), a.shape[-1]
    if op in ("argmin", "argmax") or n == 0:
        if n == 0 and op in ("min", "max", "argmin", "argmax"):
            raise ValueError("zero-size array to reduction operation %s which has no identity"
                             % {"min": "minimum", "max": "maximum"}.get(op, op))
        res = [_reduce_flat(op, a.reshape(rows, n)[r], device) for r in range(rows)]
        out = np.array(res, dtype=np.int64 if op in ("argmin", "argmax", "count_nonzero") else None)
        return out.reshape(a.shape[:-1])
    arg = take(a, device)
    res, rp = output(arg, (rows,), _acc_dtype(op, arg, op))
    off, op_ = _offsets(arg, rows, n)
    L.check(L.gp_reduce_segmented(arg.ctx.p, L.OP[op], arg.gp, arg.size, arg.ptr, rows, op_, rp, arg.stream),
            "gpuprim.%s" % op)
    res = give(res, arg, True).reshape(a.shape[:-1])
    dt = a.dtype
    if op in ("sum", "prod"):
        want = np.int64 if dt == np.bool_ or dt.kind == "i" else np.uint64 if dt.kind == "u" else dt
        return res.astype(want)
    if op == "count_nonzero":
        return res.astype(np.int64)
    return res.astype(dt)


def sum(a, axis=None, *, device=None):
    """np.sum (axis None or one int). Deterministic: a fixed tree (docs/design/reduce.md), so float sums may differ from
    NumPy's pairwise sums in the last bits; float16 accumulates in float32."""
    return _reduce("sum", a, axis, device)


def prod(a, axis=None, *, device=None):
    return _reduce("prod", a, axis, device)


def min(a, axis=None, *, device=None):
    """np.min: NaN wins; an empty array raises ValueError."""
    return _reduce("min", a, axis, device)


def max(a, axis=None, *, device=None):
    return _reduce("max", a, axis, device)


def argmin(a, axis=None, *, device=None):
    """np.argmin: the first index of the minimum (of the first NaN when there is one)."""
    return _reduce("argmin", a, axis, device)


def argmax(a, axis=None, *, device=None):
    return _reduce("argmax", a, axis, device)


def count_nonzero(a, axis=None, *, device=None):
    return _reduce("count_nonzero", a, axis, device)


# ---------------------------------------------------------------------------------------------- scans
_SCAN_DT = {}  # (op, input dtype, dtype argument) -> np.cumsum's / np.cumprod's result dtype


_SCAN_ODT = {}  # a device array's scan result dtype by (op, gp dtype), asked of the library once


def _scan_odt(op, gp):
    odt = _SCAN_ODT.get((op, gp))
    if odt is None:
        odt = _SCAN_ODT[(op, gp)] = np_dtype(L.gp_scan_out_dtype(L.OP[op], gp, L.GP_DTYPE_COUNT))
    return odt


def _scan(op, a, axis, dtype, device):
    if (device is None and dtype is None and type(a) is np.ndarray and a.ndim == 1 and axis is None
            and a.dtype in _SCAN_SAME and _fast_host(a) and a.size):
        out = np.empty(a.size, a.dtype)  # a 1-D NumPy array whose result keeps its dtype: as few steps
        L.check(L.gp_scan(context(None).p, L.OP[op], gp_dtype(a.dtype), L.GP_SCAN_INCLUSIVE, a.size, host_ptr(a),
                          host_ptr(out), None), "gpuprim.cum" + op)
        return out
    if device is None and dtype is None and axis is None and type(a) is not np.ndarray:  # a 1-D CUDA tensor: few steps
        sa = device_arg(a, "a")
        if sa is not None and len(sa.shape) == 1 and sa.size:
            res = DeviceArray(sa.ctx, (sa.size,), _scan_odt(op, sa.gp), sa.stream)
            L.check(L.gp_scan_acc(sa.ctx.p, L.OP[op], sa.gp, L.GP_DTYPE_COUNT, L.GP_SCAN_INCLUSIVE, sa.size, sa.ptr,
                                  res.ptr, sa.stream), "gpuprim.cum" + op)
            return res
    a = _norm(a)
    host = _host(a)
    if not host and (axis is not None or dtype is not None):
        raise ValueError("gpuprim.cum%s: a device array scans with axis=None in its own result dtype" % op)
    if not host:
        arg = take(a, device)
        res, rp = output(arg, (arg.size,), _scan_odt(op, arg.gp))
        L.check(L.gp_scan_acc(arg.ctx.p, L.OP[op], arg.gp, L.GP_DTYPE_COUNT, L.GP_SCAN_INCLUSIVE, arg.size, arg.ptr,
                              rp, arg.stream), "gpuprim.cum" + op)
        return res
    x = np.asarray(a)
    key = (op, x.dtype, dtype)
    want = _SCAN_DT.get(key)
    if want is None:  # NumPy's result dtype, asked of NumPy once
        want = _SCAN_DT[key] = (np.cumsum if op == "sum" else np.cumprod)(np.zeros(0, x.dtype), dtype=dtype).dtype
    if axis is None:
        x, undo = np.ascontiguousarray(x).reshape(-1), None
    else:
        x, undo = _rows_last(x, axis, "cum" + op)
    x = x.astype(want, copy=False)  # scanned in the result's dtype, as NumPy accumulates
    arg = take(x, device)
    res, rp = output(arg, arg.shape, arg.dtype)
    if undo is None:
        L.check(L.gp_scan(arg.ctx.p, L.OP[op], arg.gp, L.GP_SCAN_INCLUSIVE, arg.size, arg.ptr, rp, arg.stream),
                "gpuprim.cum" + op)
        return give(res, arg, True)
    rows, n = int(np.prod(arg.shape[:-1], dtype=np.int64)), arg.shape[-1]
    off, op_ = _offsets(arg, rows, n)
    L.check(L.gp_scan_segmented(arg.ctx.p, L.OP[op], arg.gp, L.GP_SCAN_INCLUSIVE, arg.size, arg.ptr, rows, op_, rp,
                                arg.stream), "gpuprim.cum" + op)
    return undo(give(res, arg, True))


def cumsum(a, axis=None, dtype=None, *, device=None):
    """np.cumsum in NumPy's result dtype (int64 / uint64 for narrower integers and bools). Deterministic (the scan's
    association order, docs/design/scan.md): float sums may differ from NumPy's left fold in the last bits."""
    return _scan("sum", a, axis, dtype, device)


def cumprod(a, axis=None, dtype=None, *, device=None):
    return _scan("prod", a, axis, dtype, device)


# ---------------------------------------------------------------------------------------------- histogram
_HIST_TYPES = {np.dtype(t) for t in (np.uint8, np.uint16, np.int32, np.uint32, np.float32, np.float64)}


_EVEN_BINS = {}  # np.histogram's even bins by their arguments: (edges, edges as float64, HistBins), made once


def _even_bins(first, last, nb, orig):
    """np.histogram's edges for nb bins over [first, last] of data of dtype orig, with the library's bins of them.
    Kept by the arguments' types and values (a zero's sign too): a repeated call skips the checks, linspace and the
    bins' struct, which cost more than a short count on a GPU."""
    try:
        key = (type(first), first, first == 0 and math.copysign(1.0, first), type(last), last,
               last == 0 and math.copysign(1.0, last), nb, orig)
        got = _EVEN_BINS.get(key)
    except TypeError:  # an argument that is not hashable (a 0-d array): made each time
        key = got = None
    if got is not None:
        return got
    if first > last:
        raise ValueError("max must be larger than min in range parameter.")
    if not (np.isfinite(first) and np.isfinite(last)):
        raise ValueError("supplied range of [%s, %s] is not finite" % (first, last))
    f, l = (first - 0.5, last + 0.5) if first == last else (first, last)
    bin_type = np.result_type(f, l, orig)
    if np.issubdtype(bin_type, np.integer):
        bin_type = np.result_type(bin_type, float)
    got = _range_bins(np.linspace(f, l, nb + 1, endpoint=True, dtype=bin_type))
    if key is not None:
        if len(_EVEN_BINS) >= 256:
            _EVEN_BINS.clear()
        _EVEN_BINS[key] = got
    return got


def _range_bins(edges):
    e64 = np.ascontiguousarray(edges, dtype=np.float64)
    if len(e64) < 2:
        raise ValueError("`bins` must have at least 2 edges")
    if np.any(e64[:-1] >= e64[1:]):
        raise ValueError("too many bins for data range: edges must increase strictly")
    return edges, e64, L.HistBins(L.GP_HIST_RANGE, len(e64) - 1, 0.0, 0.0,
                                  e64.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), 1, 0)


def histogram(a, bins=10, range=None, density=False, weights=None, *, device=None):
    """np.histogram: (counts int64, bin_edges), NumPy's edges (np.linspace in the data's float type, the last bin
    closed), counted by gpuprim. weights are not taken (TypeError)."""
    if weights is not None:
        raise TypeError("gpuprim.histogram: weights are not supported (np.histogram takes them)")
    arg = device_arg(a, "a") if device is None and type(a) is not np.ndarray else None  # a CUDA tensor: at once
    if arg is None:
        a = _norm(a)
        host = _host(a)
        x = np.asarray(a).ravel() if host else a
        if host:
            if x.dtype == np.bool_:
                x = x.astype(np.uint8)
            if x.dtype not in _HIST_TYPES:  # as NumPy compares: integers as float64, float16 widened exactly
                x = x.astype(np.float32 if x.dtype == np.float16 else np.float64 if x.dtype.kind in "iu" else x.dtype)
        arg = take(x, device)
        orig = np.asarray(a).dtype if host else arg.dtype
    else:
        orig = arg.dtype
    if orig == np.bool_:
        orig = np.dtype(np.uint8)  # NumPy's histogram takes bools as uint8
    if type(bins) is not int and np.ndim(bins) == 1:
        edges = np.asarray(bins)
        if np.any(edges[:-1] > edges[1:]):
            raise ValueError("`bins` must increase monotonically, when an array")
        edges, e64, b = _range_bins(edges)
    else:
        nb = int(bins)
        if nb < 1:
            raise ValueError("`bins` must be positive, when an integer")
        if range is not None:
            first, last = range
        elif arg.size == 0:
            first, last = 0, 1
        else:
            r = _reduce_result(arg, "minmax")
            acc = r.acc_dtype
            get = (lambda s: s.f64) if acc == L.GP_F64 else (lambda s: s.f32) if acc == L.GP_F32 else \
                (lambda s: s.i64) if acc == L.GP_I64 else (lambda s: s.u64)
            first, last = orig.type(get(r.value)), orig.type(get(r.value2))
            if not (np.isfinite(first) and np.isfinite(last)):
                raise ValueError("autodetected range of [%s, %s] is not finite" % (first, last))
        edges, e64, b = _even_bins(first, last, nb, orig)
        edges = edges.copy()  # the caller's own, as NumPy's are
    nbins = b.nbins
    small = arg.on_gpu and (nbins + 3) * 8 <= SMALL_BYTES  # counted in the context's scratch, read back at once
    if small:
        counts, cp = None, arg.ctx.scratch()
    else:
        counts, cp = output(arg, (nbins + 3,), np.uint64)
    L.check(L.gp_memset(arg.ctx.p, cp, 0, (nbins + 3) * 8, arg.stream), "gpuprim.histogram")
    L.check(L.gp_histogram_accumulate(arg.ctx.p, arg.gp, arg.size, arg.ptr, ctypes.byref(b), L.GP_U64, cp,
                                      arg.stream), "gpuprim.histogram")
    if small:
        c = np.frombuffer(arg.ctx.fetch(cp, nbins * 8, arg.stream), np.uint64).astype(np.int64)
    else:
        c = np.asarray(counts if not isinstance(counts, DeviceArray) else counts.get())[:nbins].astype(np.int64)
    if density:
        db = np.diff(edges).astype(float)
        return c / db / c.sum(), edges
    return c, edges


# ---------------------------------------------------------------------------------------------- sorting
_ASC, _DESC = L.SortOpts(0, 0, 0), L.SortOpts(1, 0, 0)
_I64 = np.dtype(np.int64)


def _opts(descending):
    return _DESC if descending else _ASC


def _sort_impl(a, axis, descending, device, arg_out):
    if (device is None and type(a) is np.ndarray and a.ndim == 1 and a.flags.c_contiguous and a.dtype.isnative
            and a.dtype != np.bool_ and axis in (-1, 0, None)):  # the common case, with the fewest steps
        g = gp_dtype(a.dtype)
        out = np.empty(a.shape, np.int64 if arg_out else a.dtype)
        ctx = context(None).p
        o = ctypes.byref(_DESC if descending else _ASC)
        if arg_out:
            L.check(L.gp_argsort(ctx, g, a.size, host_ptr(a), L.GP_I64, host_ptr(out), o, None), "gpuprim.argsort")
        else:
            L.check(L.gp_sort(ctx, g, a.size, host_ptr(a), host_ptr(out), o, None), "gpuprim.sort")
        return out
    if device is None and type(a) is not np.ndarray and axis in (-1, 0, None):  # a 1-D CUDA tensor: as few steps
        arg = device_arg(a, "a")
        if arg is not None and len(arg.shape) == 1:
            res = DeviceArray(arg.ctx, arg.shape, _I64 if arg_out else arg.dtype, arg.stream)
            o = ctypes.byref(_DESC if descending else _ASC)
            if arg_out:
                L.check(L.gp_argsort(arg.ctx.p, arg.gp, arg.size, arg.ptr, L.GP_I64, res.ptr, o, arg.stream),
                        "gpuprim.argsort")
            else:
                L.check(L.gp_sort(arg.ctx.p, arg.gp, arg.size, arg.ptr, res.ptr, o, arg.stream), "gpuprim.sort")
            return res
    a = _norm(a)
    host = _host(a)
    name = "argsort" if arg_out else "sort"
    if host:
        x = np.asarray(a)
        if axis is None:
            x, undo = np.ascontiguousarray(x).reshape(-1), (lambda r: r)
        elif x.ndim == 0:
            if arg_out:  # np.argsort of a 0-d array: [0]
                return np.zeros(1, np.int64)
            raise _axis_error(axis, 0)
        else:
            x, undo = _rows_last(x, axis, name)
    else:
        x, undo = a, (lambda r: r)
        if axis is not None and axis not in (-1, len(getattr(a, "shape", ())) - 1):
            raise ValueError("gpuprim.%s: a device array sorts along its last axis (or axis=None)" % name)
    arg = take(x, device)
    shape = arg.shape if axis is not None else (arg.size,)
    n = shape[-1] if shape else 1
    rows = arg.size // n if n else 0
    opts = _opts(descending)
    if not arg_out:
        res, rp = output(arg, shape, arg.dtype)
        if rows <= 1 or len(shape) == 1:
            L.check(L.gp_sort(arg.ctx.p, arg.gp, arg.size, arg.ptr, rp, ctypes.byref(opts), arg.stream), "gpuprim.sort")
        else:
            off, op_ = _offsets(arg, rows, n)
            L.check(L.gp_sort_segmented(arg.ctx.p, arg.gp, arg.size, arg.ptr, rp, 0, None, None, rows, op_,
                                        ctypes.byref(opts), arg.stream), "gpuprim.sort")
        out = give(res, arg, host)
    else:
        res, rp = output(arg, shape, np.int64)
        if rows <= 1 or len(shape) == 1:
            L.check(L.gp_argsort(arg.ctx.p, arg.gp, arg.size, arg.ptr, L.GP_I64, rp, ctypes.byref(opts), arg.stream),
                    "gpuprim.argsort")
        else:  # each row a segment, its positions within the row moved with the keys
            pos = np.tile(np.arange(n, dtype=np.int64), rows)
            parg = take(pos, arg.ctx.device if arg.on_gpu else None)
            keys, kp = output(arg, shape, arg.dtype)
            off, op_ = _offsets(arg, rows, n)
            L.check(L.gp_sort_segmented(arg.ctx.p, arg.gp, arg.size, arg.ptr, kp, 8, parg.ptr, rp, rows, op_,
                                        ctypes.byref(opts), arg.stream), "gpuprim.argsort")
        out = give(res, arg, host)
    if host:
        if x.dtype == np.bool_ and not arg_out:
            out = out.view(np.bool_)
        return undo(out)
    return out


def sort(a, axis=-1, kind=None, order=None, *, descending=False, device=None):
    """np.sort: NumPy's order (NaN last, -0.0 == +0.0), stable whatever `kind` says; descending=True puts NaN first
    (torch.sort(descending=True, stable=True))."""
    if order is not None:
        raise TypeError("gpuprim.sort: structured arrays (order=) are not supported")
    return _sort_impl(a, axis, descending, device, False)


def argsort(a, axis=-1, kind=None, order=None, *, descending=False, device=None):
    """np.argsort(kind='stable'), int64 positions (within each row along axis)."""
    if order is not None:
        raise TypeError("gpuprim.argsort: structured arrays (order=) are not supported")
    return _sort_impl(a, axis, descending, device, True)


def searchsorted(a, v, side="left", sorter=None, *, device=None):
    """np.searchsorted: int64 places in v's shape (a scalar for a scalar v). a must be sorted (not checked: see
    is_sorted_until)."""
    if side not in ("left", "right"):
        raise ValueError("side must be 'left' or 'right' (got %r)" % (side,))
    if (device is None and sorter is None and type(a) is np.ndarray and type(v) is np.ndarray and a.ndim == 1
            and a.dtype == v.dtype and _fast_host(a) and v.flags.c_contiguous and a.size and v.size):
        out = np.empty(v.shape, np.int64)  # 1-D NumPy a, v of its dtype: as few steps
        L.check(L.gp_searchsorted(context(None).p, gp_dtype(a.dtype), a.size, host_ptr(a), v.size, host_ptr(v),
                                  side == "right", L.GP_I64, host_ptr(out), None), "gpuprim.searchsorted")
        return out[()] if out.ndim == 0 else out
    if device is None and sorter is None and type(a) is not np.ndarray:  # 1-D CUDA tensors of one dtype: as few steps
        sa = device_arg(a, "a")
        if sa is not None and len(sa.shape) == 1:
            qa = device_arg(v, "v")
            if qa is not None and qa.dtype == sa.dtype and qa.ctx is sa.ctx:
                res = DeviceArray(qa.ctx, (qa.size,), _I64, qa.stream)
                L.check(L.gp_searchsorted(sa.ctx.p, sa.gp, sa.size, sa.ptr, qa.size, qa.ptr, side == "right",
                                          L.GP_I64, res.ptr, qa.stream), "gpuprim.searchsorted")
                return res
    a, v = _norm(a), _norm(v)
    host = _host(a) and _host(v)
    if host:
        aa = np.asarray(a)
        if aa.ndim != 1:
            raise ValueError("object too deep for desired array" if aa.ndim > 1 else "object of too small depth")
        if sorter is not None:
            aa = aa[np.asarray(sorter)]
        vv = np.asarray(v)
        common = np.result_type(aa, vv)
        aa, vv = aa.astype(common, copy=False), vv.astype(common, copy=False)
    else:
        aa, vv = a, v
    sa = take(aa, device)
    qa = take(np.ascontiguousarray(vv).reshape(-1) if host else vv, sa.ctx.device if sa.on_gpu else None)
    if not host:
        if sa.ctx is not qa.ctx:
            raise ValueError("gpuprim.searchsorted: a and v live on different devices (or one on the host)")
        if len(sa.shape) != 1 or sorter is not None:
            raise ValueError("gpuprim.searchsorted: a device array a is one sorted row (1-D, no sorter)")
        if qa.dtype != sa.dtype:
            raise TypeError("gpuprim.searchsorted: v is %s where a is %s (cast v on its device first)"
                            % (qa.dtype, sa.dtype))
    res, rp = output(qa, (qa.size,), np.int64)
    L.check(L.gp_searchsorted(sa.ctx.p, sa.gp, sa.size, sa.ptr, qa.size, qa.ptr, 0 if side == "left" else 1,
                              L.GP_I64, rp, qa.stream), "gpuprim.searchsorted")
    out = give(res, qa, host)
    if host:
        out = np.asarray(out).reshape(np.shape(v))
        return out[()] if out.ndim == 0 else out
    return out


def _kth(kth, n):
    ks = np.atleast_1d(np.asarray(kth))
    if ks.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    k = 0
    for t in ks.tolist():
        if t >= n or t < -n:
            raise ValueError("kth(=%d) out of bounds (%d)" % (t, n))
        k = _builtins.max(k, (t % n if n else 0) + 1)
    return k


def _partition_impl(a, kth, axis, device, arg_out):
    a = _norm(a)
    host = _host(a)
    name = "argpartition" if arg_out else "partition"
    if not host:
        raise ValueError("gpuprim.%s takes NumPy arrays (the GPU path runs with device=N)" % name)
    x = np.asarray(a)
    if axis is None:
        x, undo = np.ascontiguousarray(x).reshape(-1), (lambda r: r)
    else:
        x, undo = _rows_last(x, axis, name)
    n = x.shape[-1]
    rows = x.size // n if n else 0
    k = _kth(kth, n)
    arg = take(x, device)
    if arg_out:
        res, rp = output(arg, arg.shape, np.int64)
        ready(arg)
        L.check(L.gp_partition_kth_sync(arg.ctx.p, arg.gp, rows, n, arg.ptr, k, None, L.GP_I64, rp), "gpuprim." + name)
    else:
        res, rp = output(arg, arg.shape, arg.dtype)
        ready(arg)
        L.check(L.gp_partition_kth_sync(arg.ctx.p, arg.gp, rows, n, arg.ptr, k, rp, L.GP_I64, None), "gpuprim." + name)
    out = give(res, arg, True)
    if x.dtype == np.bool_ and not arg_out:
        out = out.view(np.bool_)
    return undo(out)


def partition(a, kth, axis=-1, kind="introselect", order=None, *, device=None):
    """np.partition: for every kth the element there is np.sort's, none before it larger, none after it smaller.
    Deterministic where NumPy is not: the first max(kth) + 1 in sorted order, then the rest in input order."""
    return _partition_impl(a, kth, axis, device, False)


def argpartition(a, kth, axis=-1, kind="introselect", order=None, *, device=None):
    return _partition_impl(a, kth, axis, device, True)


def topk(x, k, dim=-1, largest=True, sorted=True, *, device=None):
    """torch.topk: (values, indices int64) of the k largest (largest=False: smallest) along the last dim, in order,
    ties to the lower index (the first k of the stable sort; largest: NaN first)."""
    if (device is None and type(x) is np.ndarray and x.ndim == 1 and dim in (-1, 0) and _fast_host(x)
            and 0 < k <= x.size):
        vals, idx = np.empty(k, x.dtype), np.empty(k, np.int64)  # a 1-D NumPy array: as few steps
        L.check(L.gp_topk(context(None).p, gp_dtype(x.dtype), 1, x.size, host_ptr(x), k, 1 if largest else 0,
                          host_ptr(vals), L.GP_I64, host_ptr(idx), None), "gpuprim.topk")
        return vals, idx
    if device is None and type(x) is not np.ndarray and dim in (-1, 0):  # a 1-D CUDA tensor: as few steps
        arg = device_arg(x, "x")
        if arg is not None and len(arg.shape) == 1 and 0 <= k <= arg.size:
            vals = DeviceArray(arg.ctx, (k,), arg.dtype, arg.stream)
            idx = DeviceArray(arg.ctx, (k,), _I64, arg.stream)
            if k:
                L.check(L.gp_topk(arg.ctx.p, arg.gp, 1, arg.size, arg.ptr, k, 1 if largest else 0, vals.ptr, L.GP_I64,
                                  idx.ptr, arg.stream), "gpuprim.topk")
            return vals, idx
    x = _norm(x)
    if dim not in (-1, len(np.shape(x)) - 1):
        raise ValueError("gpuprim.topk: along the last dim only")
    host = _host(x)
    arg = take(x, device)
    n = arg.shape[-1] if arg.shape else 1
    if not 0 <= k <= n:
        raise ValueError("selected index k out of range (k = %d, the dim's size %d)" % (k, n))
    rows = arg.size // n if n else 0
    shape = tuple(arg.shape[:-1]) + (k,)
    vals, vp = output(arg, shape, arg.dtype)
    idx, ip = output(arg, shape, np.int64)
    if rows and k:
        L.check(L.gp_topk(arg.ctx.p, arg.gp, rows, n, arg.ptr, k, 1 if largest else 0, vp, L.GP_I64, ip, arg.stream),
                "gpuprim.topk")
    return give(vals, arg, host), give(idx, arg, host)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           device=None):
    """np.unique (axis=None): the sorted distinct values (each the first occurrence's bits), with first indices,
    inverse (the input's shape) and counts as asked, int64. equal_nan=False keeps each NaN."""
    ar = _norm(ar)
    if axis is not None:
        raise TypeError("gpuprim.unique: axis=None only (the distinct elements)")
    host = _host(ar)
    x = np.ascontiguousarray(np.asarray(ar)).reshape(-1) if host else ar
    arg = take(x, device)
    n = arg.size
    y, yp = output(arg, (n,), arg.dtype)
    fi, fp = output(arg, (n,), np.int64) if return_index else (None, None)
    inv, vp = output(arg, (n,), np.int64) if return_inverse else (None, None)
    cnt, cp = output(arg, (n,), np.int64) if return_counts else (None, None)  # u64 counts: int64's bits below 2^63
    u = ctypes.c_size_t(0)
    opts = L.UniqueOpts(ctypes.sizeof(L.UniqueOpts), 0 if equal_nan else 1)
    ready(arg)
    L.check(L.gp_unique_sorted_opts_sync(arg.ctx.p, arg.gp, n, arg.ptr, yp, L.GP_I64, fp, vp, cp, ctypes.byref(u),
                                         ctypes.byref(opts)), "gpuprim.unique")
    m = u.value

    def cut(r, length):
        r = give(r, arg, host)
        return r[:length] if host else r._cut(length)

    out = [cut(y, m)]
    if host and np.asarray(ar).dtype == np.bool_:
        out[0] = out[0].view(np.bool_)
    if return_index:
        out.append(cut(fi, m))
    if return_inverse:
        r = cut(inv, n)
        out.append(r.reshape(np.shape(ar)) if host else r)
    if return_counts:
        out.append(cut(cnt, m))
    return out[0] if len(out) == 1 else tuple(out)


def merge(a, b, *, descending=False, check=True, device=None):
    """a and b, each sorted (NumPy's order; descending: NaN first), merged stably: np.sort(np.concatenate([a, b]),
    kind='stable'). check: refuse inputs out of order (ValueError naming the first inversion)."""
    a, b = _norm(a), _norm(b)
    host = _host(a) and _host(b)
    aa = np.ascontiguousarray(np.asarray(a)).reshape(-1) if host else a
    bb = np.ascontiguousarray(np.asarray(b)).reshape(-1) if host else b
    if host:
        if aa.dtype != bb.dtype:
            common = np.result_type(aa, bb)
            aa, bb = aa.astype(common), bb.astype(common)
        if check:
            for name, z in (("a", aa), ("b", bb)):
                i = is_sorted_until(z, descending=descending)
                if i < len(z):
                    raise ValueError("gpuprim.merge: %s is not in %s order: %s[%d] goes before %s[%d]"
                                     % (name, "descending" if descending else "ascending", name, i, name, i - 1))
    ea = take(aa, device)
    eb = take(bb, ea.ctx.device if ea.on_gpu else None)
    res, rp = output(ea, (ea.size + eb.size,), ea.dtype)
    L.check(L.gp_merge(ea.ctx.p, ea.gp, ea.size, ea.ptr, eb.size, eb.ptr, rp, 0, None, None, None,
                       1 if descending else 0, ea.stream), "gpuprim.merge")
    out = give(res, ea, host)
    return out.view(np.bool_) if host and aa.dtype == np.bool_ else out


def is_sorted_until(a, *, descending=False):
    """The first index whose element goes before the one before it in NumPy's order (std::is_sorted_until); len(a)
    when a (1-D, host memory) is in order."""
    x = np.ascontiguousarray(np.asarray(_norm(a))).reshape(-1)
    u = ctypes.c_size_t(0)
    L.check(L.gp_sorted_until(gp_dtype(x.dtype), x.size, x.ctypes.data, 1 if descending else 0, ctypes.byref(u)),
            "gpuprim.is_sorted_until")
    return u.value


# ---------------------------------------------------------------------------------------------- matrices
_DOT_TYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32))


def _dot_result(buf, dt):
    """gp_vec_dot's result (8 bytes) as NumPy gives a dot: float64 for floats, int64 for int32."""
    return buf.view(np.float64)[0] if dt.kind == "f" else buf.view(np.int64)[0]


def dot(a, b, *, device=None):
    """The dot product of a and b, flattened, of one dtype of float32, float64 or int32 (gp_vec_dot): for floats the
    products and the sum in double, a float64 (NumPy: the inputs' dtype); for int32 exact modulo 2^64, an int64
    (NumPy: int32, wrapping). The sum's order is the library's (fixed per backend and GPU model), so the last bits may
    differ from NumPy's BLAS. Device arrays are read in place; the result is a NumPy scalar (the call waits)."""
    a, b = _norm(a), _norm(b)
    host = _host(a) and _host(b)
    aa = np.ascontiguousarray(np.asarray(a)).reshape(-1) if host else a
    bb = np.ascontiguousarray(np.asarray(b)).reshape(-1) if host else b
    ea = take(aa, device, "a")
    eb = take(bb, ea.ctx.device if ea.on_gpu else None, "b")
    if ea.dtype != eb.dtype or ea.dtype not in _DOT_TYPES:
        raise TypeError("gpuprim.dot: a and b of one dtype of float32, float64, int32 (got %s and %s)"
                        % (ea.dtype, eb.dtype))
    if ea.size != eb.size:
        raise ValueError("shapes (%d,) and (%d,) not aligned: %d (dim 0) != %d (dim 0)"
                         % (ea.size, eb.size, ea.size, eb.size))
    if ea.ctx.device != eb.ctx.device:
        raise ValueError("gpuprim.dot: a and b live on different devices")
    out = np.zeros(1, np.float64)
    ready(ea, eb)
    L.check(L.gp_vec_dot_sync(ea.ctx.p, ea.gp, ea.size, ea.ptr, eb.ptr, out.ctypes.data), "gpuprim.dot")
    return _dot_result(out, ea.dtype)


def matmul(a, b, *, device=None):
    """a @ b for 2-D float32 / float64 matrices (gp_gemm: exact FP32 on a GPU, f32 products summed in double on the
    CPU backend, so the bits may differ from NumPy's BLAS in the last places)."""
    a, b = _norm(a), _norm(b)
    host = _host(a) and _host(b)
    if not host:
        raise ValueError("gpuprim.matmul takes NumPy arrays (device=N runs them on a GPU)")
    x, y = np.asarray(a), np.asarray(b)
    if x.ndim != 2 or y.ndim != 2:
        raise ValueError("gpuprim.matmul: 2-D matrices (got %d-D and %d-D)" % (x.ndim, y.ndim))
    if x.shape[1] != y.shape[0]:
        raise ValueError("matmul: Input operand 1 has a mismatch in its core dimension 0 (size %d is different from "
                         "%d)" % (y.shape[0], x.shape[1]))
    dt = np.result_type(x, y)
    if dt not in (np.float32, np.float64):
        raise TypeError("gpuprim.matmul: float32 or float64 (got %s)" % dt)
    ax, bx = take(x.astype(dt, copy=False), device), None
    bx = take(y.astype(dt, copy=False), ax.ctx.device if ax.on_gpu else None)
    m, k, n = x.shape[0], x.shape[1], y.shape[1]
    c, cp = output(ax, (m, n), dt)
    g = gp_dtype(dt)
    A = L.Matrix(ax.ptr, m, k, k, g, L.GP_ROW_MAJOR)
    B = L.Matrix(bx.ptr, k, n, n, g, L.GP_ROW_MAJOR)
    C = L.Matrix(cp, m, n, n, g, L.GP_ROW_MAJOR)
    L.check(L.gp_gemm(ax.ctx.p, L.GP_OP_N, L.GP_OP_N, 1.0, ctypes.byref(A), ctypes.byref(B), 0.0, ctypes.byref(C),
                      ax.stream), "gpuprim.matmul")
    return give(c, ax, True)


def transpose(a, *, device=None):
    """The transpose of a 2-D array as a new C-ordered array (NumPy returns a view; this is its copy)."""
    a = _norm(a)
    host = _host(a)
    if not host:
        raise ValueError("gpuprim.transpose takes NumPy arrays (device=N runs them on a GPU)")
    x = np.asarray(a)
    if x.ndim < 2:
        return x.copy()
    if x.ndim != 2:
        raise ValueError("gpuprim.transpose: 2-D arrays")
    arg = take(x, device)
    r, c = x.shape
    out, op_ = output(arg, (c, r), arg.dtype)
    src = L.Matrix(arg.ptr, r, c, c, arg.gp, L.GP_ROW_MAJOR)
    dst = L.Matrix(op_, c, r, r, arg.gp, L.GP_ROW_MAJOR)
    L.check(L.gp_matrix_transpose(arg.ctx.p, ctypes.byref(dst), ctypes.byref(src), arg.stream), "gpuprim.transpose")
    res = give(out, arg, True)
    return res.view(np.bool_) if x.dtype == np.bool_ else res


# ---------------------------------------------------------------------------------------------- gpuprim's own
def _flat(a):
    """a normalized, whether its results go back as NumPy, and what the call reads (NumPy: flat, C order)."""
    a = _norm(a)
    host = _host(a)
    return a, host, (np.ascontiguousarray(np.asarray(a)).reshape(-1) if host else a)


def _counted(r, arg, host, count, like_bool=False):
    """The first `count` elements of a result the call counted; bools back as bools."""
    r = give(r, arg, host)
    r = r[:count] if host else r._cut(count)
    return r.view(np.bool_) if host and like_bool else r


def _pred(where, name):
    if not isinstance(where, str):
        raise TypeError("gpuprim.%s: where is a predicate string (nonzero, eq:X, ne:X, lt:X, le:X, gt:X, ge:X, "
                        "in:LO,HI, nan, notnan), not %s" % (name, type(where).__name__))
    p = L.Pred()
    L.check(L.gp_pred_parse(where.encode("utf-8"), ctypes.byref(p)), "gpuprim.%s: where=%r" % (name, where))
    return p


def _by_pred(call, a, where, name, device):
    """A predicate's call (gp_select_sync, gp_partition_sync) on a flattened: (y of a.size, count, arg, host, bools)."""
    a, host, x = _flat(a)
    arg = take(x, device)
    p = _pred(where, name)
    y, yp = output(arg, (arg.size,), arg.dtype)
    c = ctypes.c_size_t(0)
    ready(arg)
    L.check(call(arg.ctx.p, arg.gp, arg.size, arg.ptr, ctypes.byref(p), yp, ctypes.byref(c)), "gpuprim." + name)
    return y, c.value, arg, host, host and x.dtype == np.bool_


def select(a, where, *, device=None):
    """The elements of a (flattened in C order) that the predicate keeps, in their order: a.ravel()[cond]. where:
    "gt:0", "in:-1,1", "nan", ... (gp_pred_parse; constants compared exactly, NaN fails all but ne and nonzero)."""
    y, c, arg, host, bools = _by_pred(L.gp_select_sync, a, where, "select", device)
    return _counted(y, arg, host, c, bools)


def stable_partition(a, where, *, device=None):
    """(y, count): the kept elements of a (flattened) first, then the rejected ones, each in their order (stable,
    unlike CUB's DevicePartition): np.concatenate([a[cond], a[~cond]]), count = cond.sum()."""
    y, c, arg, host, bools = _by_pred(L.gp_partition_sync, a, where, "stable_partition", device)
    y = give(y, arg, host)
    return (y.view(np.bool_) if bools else y), c


def rle(a, *, device=None):
    """Run-length encoding of a (flattened): (values, lengths int64), each run's first element and its length.
    Equal by value: floats as numbers (each NaN a run of its own, -0.0 == +0.0), integers exactly."""
    a, host, x = _flat(a)
    arg = take(x, device)
    v, vp = output(arg, (arg.size,), arg.dtype)
    n, np_ = output(arg, (arg.size,), np.int64)  # u64 lengths: int64's bits below 2^63
    c = ctypes.c_size_t(0)
    ready(arg)
    L.check(L.gp_run_length_encode_sync(arg.ctx.p, arg.gp, arg.size, arg.ptr, vp, np_, ctypes.byref(c)),
            "gpuprim.rle")
    return _counted(v, arg, host, c.value, x.dtype == np.bool_ if host else False), _counted(n, arg, host, c.value)


def _by_key_args(keys, values, name, device):
    keys, kh, kx = _flat(keys)
    values, vh, vx = _flat(values)
    if kh != vh:
        raise TypeError("gpuprim.%s: keys and values both NumPy or both device arrays" % name)
    ka = take(kx, device, "keys")
    va = take(vx, ka.ctx.device if ka.on_gpu else None, "values")
    if ka.size != va.size:
        raise ValueError("gpuprim.%s: %d keys and %d values (the same count)" % (name, ka.size, va.size))
    return ka, va, kh


def reduce_by_key(keys, values, op="sum", *, device=None):
    """CUB's ReduceByKey: runs of equal consecutive keys (unique's equality) group the values; returns (each run's
    first key, op over its values). op: sum, prod, min, max (and, or, xor for integers). Sums and products in the
    reduction's accumulator (int64 / uint64 for integers, as np.sum; floats their own, f16 / bf16 in f32); min, max
    and the bitwise ops in the values' dtype for NumPy inputs (device inputs: the accumulator's, 8 bytes for
    integers). float32 / float64 runs are reduced in the segmented scan's order: each run's value is scan_by_key's
    inclusive value at its last element (docs/design/scan.md, "By key")."""
    if op not in ("sum", "prod", "min", "max", "and", "or", "xor"):
        raise ValueError("gpuprim.reduce_by_key: op %r (sum, prod, min, max, and, or, xor)" % (op,))
    ka, va, host = _by_key_args(keys, values, "reduce_by_key", device)
    ko, kp = output(ka, (ka.size,), ka.dtype)
    vo, vp = output(ka, (ka.size,), _acc_dtype(op, va, "reduce_by_key"))
    c = ctypes.c_size_t(0)
    ready(ka, va)
    L.check(L.gp_reduce_by_key_sync(ka.ctx.p, L.OP[op], ka.gp, ka.size, ka.ptr, va.gp, va.ptr, kp, vp,
                                    ctypes.byref(c)), "gpuprim.reduce_by_key")
    out = _counted(vo, ka, host, c.value)
    if host and op not in ("sum", "prod"):
        out = out.astype(va.dtype)  # min, max and the bitwise ops in the values' own dtype (exact)
    return _counted(ko, ka, host, c.value), out


def scan_by_key(keys, values, op="sum", *, exclusive=False, device=None):
    """CUB's ScanByKey: the scan of values (op: sum, prod, min, max; and, or, xor for integers) restarted at every run
    of equal consecutive keys; exclusive: the op's identity at each run's start. Values keep their dtype. Device
    arrays: one pass on the keys' stream, nothing waited for."""
    if op not in ("sum", "prod", "min", "max", "and", "or", "xor"):
        raise ValueError("gpuprim.scan_by_key: op %r (sum, prod, min, max, and, or, xor)" % (op,))
    ka, va, host = _by_key_args(keys, values, "scan_by_key", device)
    y, yp = output(ka, (ka.size,), va.dtype)
    L.check(L.gp_scan_by_key(ka.ctx.p, L.OP[op], ka.gp, ka.size, ka.ptr, va.gp,
                             L.GP_SCAN_EXCLUSIVE if exclusive else L.GP_SCAN_INCLUSIVE, va.ptr, yp, ka.stream),
            "gpuprim.scan_by_key")
    return give(y, ka, host)


def _seg_offsets(offsets, arg, name):
    """CSR offsets (nseg + 1 int64 values) beside arg: NumPy offsets copied to arg's GPU when it is on one."""
    if _host(offsets):
        off = np.ascontiguousarray(np.asarray(offsets, dtype=np.int64)).reshape(-1)
        if off.size < 1:
            raise ValueError("gpuprim.%s: offsets hold nseg + 1 values (at least one)" % name)
        if not arg.on_gpu:
            return off, off.ctypes.data, off.size - 1
        d = DeviceArray(arg.ctx, off.shape, off.dtype, arg.stream)
        L.check(L.gp_memcpy_sync(arg.ctx.p, d.ptr, off.ctypes.data, off.nbytes), "gpuprim.%s: offsets" % name)
        return d, d.ptr, off.size - 1
    o = take(offsets, arg.ctx.device if arg.on_gpu else None, "offsets")
    if o.dtype != np.int64 or o.size < 1:
        raise TypeError("gpuprim.%s: device offsets are int64, nseg + 1 of them" % name)
    return o, o.ptr, o.size - 1


def segment_sort(a, offsets, *, descending=False, device=None):
    """Each segment [offsets[i], offsets[i + 1]) of a (flattened) sorted on its own, as sort sorts (stable, NaN last);
    elements outside the segments stay. offsets: nondecreasing int64 within [0, len(a)] (checked)."""
    a, host, x = _flat(a)
    arg = take(x, device)
    keep, op_, nseg = _seg_offsets(offsets, arg, "segment_sort")
    y, yp = output(arg, (arg.size,), arg.dtype)
    opts = _opts(descending)
    L.check(L.gp_sort_segmented(arg.ctx.p, arg.gp, arg.size, arg.ptr, yp, 0, None, None, nseg, op_,
                                ctypes.byref(opts), arg.stream), "gpuprim.segment_sort")
    y = give(y, arg, host)
    return y.view(np.bool_) if host and x.dtype == np.bool_ else y


def segment_reduce(a, offsets, op="sum", *, device=None):
    """op over each segment [offsets[i], offsets[i + 1]) of a (flattened): np.add.reduceat's segments given as CSR
    offsets (clamped to [0, len(a)]; a decreasing pair is an empty segment, giving the op's identity). op: sum, prod,
    min, max, and, or, xor, count_nonzero; the result in the reduction's accumulator dtype (float32 for float16 /
    float32, else 8 bytes), as gp_reduce_segmented gives it."""
    if op not in ("sum", "prod", "min", "max", "and", "or", "xor", "count_nonzero"):
        raise ValueError("gpuprim.segment_reduce: op %r (sum, prod, min, max, and, or, xor, count_nonzero)" % (op,))
    a, host, x = _flat(a)
    arg = take(x, device)
    keep, op_, nseg = _seg_offsets(offsets, arg, "segment_reduce")
    res, rp = output(arg, (nseg,), _acc_dtype(op, arg, "segment_reduce"))
    L.check(L.gp_reduce_segmented(arg.ctx.p, L.OP[op], arg.gp, arg.size, arg.ptr, nseg, op_, rp, arg.stream),
            "gpuprim.segment_reduce")
    return give(res, arg, host)

# ---------------------------------------------------------------------------------------------- user operators
# C expressions compiled at run time (docs/design/jit.md): code run with the caller's rights, in this process on the
# CPU backend; compile only text you would run yourself. Each is compiled once per context and cached on disk.
def _src(src, name, what):
    if not isinstance(src, str) or not src.strip():
        raise TypeError("gpuprim.%s: %s is C source text (an expression), not %r" % (name, what, src))
    return src


def _uop_np(arg, op, k=1):
    """NumPy's dtype of a binary operator's value components (k of them): the element's, float32 for float16
    (computed in float)."""
    return np.dtype(np.float32) if arg.dtype == np.float16 and L.gp_uop_value_bytes(op) == 4 * k else arg.dtype


def _rows(a, k, name):
    """For an operator over elements of k components: a normalized, whether its results go back as NumPy, what the
    call reads (NumPy: C order, flat for k = 1, (n, k) else) and n; the components are the last axis (of k entries)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= 16:
        raise ValueError("gpuprim.%s: components is a count 1 .. 16, not %r" % (name, k))
    k = int(k)
    if k == 1:
        a, host, x = _flat(a)
        return a, host, x, None
    a = _norm(a)
    host = _host(a)
    shape = tuple(np.shape(a)) if host else tuple(getattr(a, "shape", ()))
    if len(shape) < 1 or shape[-1] != k:
        raise ValueError("gpuprim.%s: components=%d takes an array whose last axis holds the %d components, not shape %s"
                         % (name, k, k, shape))
    x = np.ascontiguousarray(np.asarray(a)).reshape(-1, k) if host else a
    return a, host, x, math.prod(shape) // k


def _identity(identity, k):
    """An identity's text: a C expression, or k of them (a string with commas, or a sequence)."""
    if isinstance(identity, (list, tuple)):
        if len(identity) != k:
            raise ValueError("gpuprim: %d identity components for an operator of %d" % (len(identity), k))
        return ", ".join(str(v) for v in identity)
    return identity


def reduce(a, op, identity, *, commutative=True, components=1, device=None):
    """The fold of a (flattened) by a C expression over `a` and `b` (e.g. "a > b ? a : b", identity "-inf"):
    commutative operators by gp_reduce's tile tree, others by the ordered tree (docs/design/jit.md). A NumPy scalar
    of a's dtype (float16 values are computed and returned in float32). components=k > 1: elements of k components
    (a's last axis), op statements over a[i], b[i] setting r[0] .. r[k-1], identity k expressions; k values back."""
    a, host, x, n = _rows(a, components, "reduce")
    arg = take(x, device)
    k = components
    uop = arg.ctx.uop(L.GP_UOP_BINARY, arg.gp, _src(op, "reduce", "op"), _identity(identity, k),
                      1 if commutative else 0, arity=k)
    out = np.empty(k, _uop_np(arg, uop, k))
    ready(arg)
    L.check(L.gp_reduce_uop_sync(arg.ctx.p, uop, arg.size if n is None else n, arg.ptr, out.ctypes.data),
            "gpuprim.reduce")
    return out[0] if k == 1 else out


def transform(a, expr, out_dtype=None, *, device=None):
    """y = expr over `x` for every element of a (flattened), in out_dtype (default a's dtype): e.g. "x * x",
    "sqrt(fabs(x))". No FMA contraction: + - * / and sqrt give the same bits on a GPU and the CPU."""
    a, host, x = _flat(a)
    arg = take(x, device)
    odt = np.dtype(out_dtype) if out_dtype is not None else arg.dtype
    uop = arg.ctx.uop(L.GP_UOP_MAP, arg.gp, _src(expr, "transform", "expr"), out_dtype=gp_dtype(odt))
    y, yp = output(arg, (arg.size,), odt)
    L.check(L.gp_transform(arg.ctx.p, uop, arg.size, arg.ptr, yp, arg.stream), "gpuprim.transform")
    return give(y, arg, host)


def scan(a, op, identity, *, exclusive=False, components=1, device=None):
    """The scan of a (flattened) by a C expression over `a` (earlier) and `b` (later), commutative or not, in the
    ordered scans' association order (docs/design/scan.md); exclusive: identity first. 4- and 8-byte dtypes.
    components=k > 1: elements of k components (a's last axis; whole 4-byte words), op and identity as reduce's;
    the result has shape (n, k)."""
    a, host, x, n = _rows(a, components, "scan")
    arg = take(x, device)
    k = components
    uop = arg.ctx.uop(L.GP_UOP_BINARY, arg.gp, _src(op, "scan", "op"), _identity(identity, k), 0, arity=k)
    y, yp = output(arg, (arg.size,) if n is None else (n, k), arg.dtype)
    L.check(L.gp_scan_uop(arg.ctx.p, uop, L.GP_SCAN_EXCLUSIVE if exclusive else L.GP_SCAN_INCLUSIVE,
                          arg.size if n is None else n, arg.ptr, yp, arg.stream), "gpuprim.scan")
    return give(y, arg, host)


def select_if(a, pred, *, device=None):
    """The elements of a (flattened) for which a C expression over `x` is nonzero, in their order."""
    a, host, x = _flat(a)
    arg = take(x, device)
    uop = arg.ctx.uop(L.GP_UOP_PRED, arg.gp, _src(pred, "select_if", "pred"))
    y, yp = output(arg, (arg.size,), arg.dtype)
    c = ctypes.c_size_t(0)
    ready(arg)
    L.check(L.gp_select_if_sync(arg.ctx.p, uop, arg.size, arg.ptr, yp, ctypes.byref(c)), "gpuprim.select_if")
    return _counted(y, arg, host, c.value, x.dtype == np.bool_ if host else False)


def sort_by(a, less, *, components=1, device=None):
    """a (flattened) sorted stably by a C expression over `a` and `b`, nonzero when a goes before b; it must be a
    strict weak order (for floats with NaN: "a < b || (a == a && b != b)", NumPy's NaN-last order). components=k > 1:
    keys of k components (a's last axis; `a[0]` .. `a[k-1]` in less), the rows sorted, shape (n, k)."""
    a, host, x, n = _rows(a, components, "sort_by")
    arg = take(x, device)
    uop = arg.ctx.uop(L.GP_UOP_LESS, arg.gp, _src(less, "sort_by", "less"), arity=components)
    y, yp = output(arg, (arg.size,) if n is None else (n, components), arg.dtype)
    ready(arg)
    L.check(L.gp_sort_uop_sync(arg.ctx.p, uop, arg.size if n is None else n, arg.ptr, yp, 0, None, None),
            "gpuprim.sort_by")
    return give(y, arg, host)
