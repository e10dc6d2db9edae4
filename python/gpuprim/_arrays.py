"""Arrays in and out of gpuprim's calls: NumPy arrays (the CPU backend, or a GPU when asked: copied in and out),
objects with __dlpack__ (CPU or CUDA tensors, read in place) or __cuda_array_interface__ (read in place), contexts
made once per (device, thread), and gpuprim's own DeviceArray for results left on a GPU (both protocols exported).

Streams: a CUDA producer's stream (torch's current stream for a torch tensor, its CAI v3 'stream', the stream given to
its __dlpack__, else the legacy stream) is the one the work is ordered on; nothing waits for the device unless a host
result is asked for.
"""
import ctypes
import math
import threading

import numpy as np

from . import _lib as L

# ---------------------------------------------------------------------------------------------- dtypes
_NP_TO_GP = {
    np.dtype(np.uint8): L.GP_U8, np.dtype(np.int8): L.GP_I8, np.dtype(np.uint16): L.GP_U16,
    np.dtype(np.int16): L.GP_I16, np.dtype(np.uint32): L.GP_U32, np.dtype(np.int32): L.GP_I32,
    np.dtype(np.uint64): L.GP_U64, np.dtype(np.int64): L.GP_I64, np.dtype(np.float16): L.GP_F16,
    np.dtype(np.float32): L.GP_F32, np.dtype(np.float64): L.GP_F64,
}
_GP_TO_NP = {v: k for k, v in _NP_TO_GP.items()}


def gp_dtype(dt, what="a"):
    """gpuprim's dtype of a NumPy dtype (bool is read as uint8); TypeError for one gpuprim has not."""
    g = _NP_TO_GP.get(dt)
    if g is not None:
        return g
    dt = np.dtype(dt)
    if dt == np.bool_:
        return L.GP_U8
    if dt.byteorder == ">":
        raise TypeError("%s: big-endian %s (use .astype(%s))" % (what, dt, dt.newbyteorder("=")))
    g = _NP_TO_GP.get(dt.newbyteorder("=") if dt.byteorder not in "=|" else dt)
    if g is None:
        raise TypeError("%s: dtype %s is not one of gpuprim's (uint8..int64, float16, float32, float64, bool)" % (what, dt))
    return g


def np_dtype(g):
    return _GP_TO_NP[g]


def host_ptr(a):
    """The address of a C-contiguous NumPy array's data: a writable one's through the buffer protocol (~0.3 us), else
    .ctypes.data (~0.9 us: a ctypes helper object made per read)"""
    if a.flags.writeable and a.nbytes:
        return ctypes.addressof(ctypes.c_char.from_buffer(a))
    return a.ctypes.data


# ---------------------------------------------------------------------------------------------- contexts
_local = threading.local()


def context(device):
    """The calling thread's context of device (None or 'cpu': the CPU backend; an int: that GPU), made once."""
    if device is None:
        c = getattr(_local, "cpu", None)
        if c is not None:
            return c
    key = L.GP_DEVICE_CPU if device is None or device == "cpu" else int(device)
    cache = getattr(_local, "ctxs", None)
    if cache is None:
        cache = _local.ctxs = {}
    ctx = cache.get(key)
    if ctx is None:
        p = ctypes.c_void_p()
        L.check(L.gp_ctx_create(ctypes.byref(p), key), "gpuprim: device %s" % ("cpu" if key < 0 else key))
        ctx = cache[key] = _Ctx(p)
        if key == L.GP_DEVICE_CPU:
            _local.cpu = ctx
    return ctx


def empty_cache():
    """Frees the GPU memory the calling thread's contexts keep for later results (as torch.cuda.empty_cache)."""
    for ctx in (getattr(_local, "ctxs", None) or {}).values():
        ctx.empty_pool()


SMALL_BYTES = 64 << 10  # a context's pinned block and device scratch for results read back at once


def _alloc(ctx_p, kind, nbytes, what):
    b = L.Buffer()
    L.check(L.gp_mem_alloc(ctx_p, kind, nbytes, ctypes.byref(b)), "gpuprim: " + what)
    return b, (b.host if kind == L.GP_MEM_PINNED else b.device) or 0


class _Ctx:
    def __init__(self, p):
        self.p = p
        self.device = L.gp_ctx_device(p)
        self.uops = {}  # user operators compiled for this context, by their description
        self.pool = {}  # (stream, bytes) -> (Buffer, pointer) of collected results, for the next of that size
        self.pool_bytes = 0
        self.pool_cap = POOL_BYTES
        if self.device >= 0:
            di = L.DeviceInfo()
            if L.gp_device_info(self.device, ctypes.byref(di)) == L.GP_OK:
                self.pool_cap = max(POOL_BYTES, di.total_mem_bytes // 8)
        self._stage = None  # (pinned Buffer, its address) for small results read back (fetch)
        self._scratch = None  # (device Buffer, its address) for a reduction's result (scratch)

    def fetch_at(self, ptr, nbytes, stream):
        """nbytes (<= SMALL_BYTES) of this GPU's memory at ptr, once the work on stream has written them, at the
        returned host address (the context's pinned block: valid until the next fetch): copied on that stream, then
        that stream waited for — one wait, where a stream sync and a pageable copy were two round trips. Contexts
        are per thread, so the block is this thread's."""
        if self._stage is None:
            self._stage = _alloc(self.p, L.GP_MEM_PINNED, SMALL_BYTES, "pinned memory for small results")
        h = self._stage[1]
        L.check(L.gp_memcpy(self.p, h, ptr, nbytes, stream), "gpuprim: reading a result back")
        L.check(L.gp_stream_sync(self.p, stream), "gpuprim: waiting for the result")
        return h

    def fetch(self, ptr, nbytes, stream):
        """fetch_at's bytes, as bytes"""
        return ctypes.string_at(self.fetch_at(ptr, nbytes, stream), nbytes)

    def scratch(self):
        """The device address of SMALL_BYTES for a result that fetch reads back within the same call"""
        if self._scratch is None:
            self._scratch = _alloc(self.p, L.GP_MEM_DEVICE, SMALL_BYTES, "device memory for small results")
        return self._scratch[1]

    def uop(self, kind, dtype, src, identity=None, commutative=1, out_dtype=None, arity=1):
        """The user operator of this description on this context, compiled once (and cached on disk by the library)."""
        key = (kind, dtype, src, identity, commutative, out_dtype, arity)
        op = self.uops.get(key)
        if op is None:
            d = L.UopDesc(kind, dtype, arity, L.GP_DTYPE_COUNT if out_dtype is None else out_dtype, src.encode("utf-8"),
                          None if identity is None else str(identity).encode("utf-8"), commutative)
            p = ctypes.c_void_p()
            L.check(L.gp_uop_create(self.p, ctypes.byref(d), ctypes.byref(p)), "gpuprim: operator %r" % src)
            op = self.uops[key] = p
        return op

    def empty_pool(self):
        """Frees the kept result memory (see POOL_BYTES)."""
        pool, self.pool, self.pool_bytes = self.pool, {}, 0
        for bufs in pool.values():
            for b, _ in bufs:
                L.gp_mem_free(self.p, ctypes.byref(b))

    def __del__(self):
        try:
            self.empty_pool()  # kept result memory and uops go before their context
            for op in self.uops.values():
                L.gp_uop_destroy(op)
            for kept in (self._stage, self._scratch):
                if kept is not None:
                    L.gp_mem_free(self.p, ctypes.byref(kept[0]))
            L.gp_ctx_destroy(self.p)
        except Exception:  # interpreter shutdown
            pass


# ---------------------------------------------------------------------------------------------- device memory
# A collected result's memory is kept for the next result of its size class on the same stream (work on one stream
# runs in order, so that result's writes follow every read of the old one there), up to a context's pool_cap: an
# eighth of the GPU's memory, at least POOL_BYTES. A cudaMalloc / cudaFree pair per result cost ~85 us a call
# (cudaFree waits for the whole device) and ~620 us for a 1 GiB result. A result handed to a consumer on another
# stream, or through __cuda_array_interface__ (whose consumer's stream is not said), is freed with cudaFree: its reads
# there are not ordered before a reuse. empty_cache() frees what the calling thread's contexts keep.
POOL_BYTES = 512 << 20


def _size_class(n):
    """The bytes a result of n bytes is given: a power of two up to 2 MiB, then whole 2 MiB."""
    if n <= (2 << 20):
        return 1 << (n - 1).bit_length() if n > 256 else 256
    return (n + (2 << 20) - 1) // (2 << 20) * (2 << 20)


def _stream_key(stream):
    return stream if stream is None or isinstance(stream, int) else getattr(stream, "value", id(stream))


class DeviceArray:
    """A result in GPU memory gpuprim allocated: read it in place with torch.from_dlpack / cupy.from_dlpack (or
    __cuda_array_interface__), or copy it to the host with .get() / np.asarray(). When the last reference goes its
    memory is kept for a later result on the same stream, unless it was handed to a consumer on another stream (see
    POOL_BYTES)."""

    __slots__ = ("_ctx", "shape", "dtype", "stream", "_shared", "_key", "_buf", "ptr", "_held", "nbytes")

    def __init__(self, ctx, shape, dtype, stream=None):
        self._ctx = ctx
        # a 1-D shape of an int as it is (most results), any other made a tuple of ints
        self.shape = shape = shape if type(shape) is tuple and len(shape) == 1 and type(shape[0]) is int \
            else tuple(map(int, shape))
        self.dtype = dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        self.stream = stream
        self._shared = False  # exported to a consumer on another stream (or one unknown)
        self.nbytes = n = math.prod(shape) * dtype.itemsize
        if n:
            held = _size_class(n)
            self._key = key = (stream if stream is None or type(stream) is int else _stream_key(stream), held)
            kept = ctx.pool.get(key)
            if kept:
                self._buf, self.ptr = kept.pop()  # (its Buffer, its pointer): no ctypes field read on the way
                self._held = held
                ctx.pool_bytes -= held
                return
        else:
            self._key = None
        self._buf = L.Buffer()
        L.check(L.gp_mem_alloc(ctx.p, L.GP_MEM_DEVICE, self._key[1] if n else 0, ctypes.byref(self._buf)),
                "gpuprim: device memory")
        self.ptr = self._buf.device or 0
        self._held = self._buf.bytes

    @property
    def device(self):
        return self._ctx.device

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def ndim(self):
        return len(self.shape)

    def __del__(self):
        try:
            if self._held:
                ctx = self._ctx
                if not self._shared and ctx.pool_bytes + self._held <= ctx.pool_cap:
                    ctx.pool.setdefault(self._key, []).append((self._buf, self.ptr))
                    ctx.pool_bytes += self._held
                else:
                    L.gp_mem_free(ctx.p, ctypes.byref(self._buf))
        except Exception:
            pass

    def _cut(self, length):
        """The first `length` elements of a 1-D result whose count the call returned (the buffer stays as it is)."""
        self.shape = (int(length),)
        self.nbytes = int(length) * self.dtype.itemsize
        return self

    def get(self):
        """A NumPy copy (waits for the work on the array's stream first)."""
        out = np.empty(self.shape, self.dtype)
        if self.nbytes:
            L.check(L.gp_stream_sync(self._ctx.p, self.stream), "gpuprim: waiting for the result")
            L.check(L.gp_memcpy_sync(self._ctx.p, out.ctypes.data, self.ptr, self.nbytes), "gpuprim: copy to host")
        return out

    def __array__(self, dtype=None, copy=None):
        a = self.get()
        return a if dtype is None else a.astype(dtype)

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return "gpuprim.DeviceArray(shape=%s, dtype=%s, device=%d)" % (self.shape, self.dtype, self.device)

    @property
    def __cuda_array_interface__(self):
        self._shared = True  # a consumer on a stream unknown here: freed, not kept (see POOL_BYTES)
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr, False), "version": 3,
                "strides": None, "stream": _cai_stream(self.stream)}

    def __dlpack_device__(self):
        return (2, self.device)  # kDLCUDA

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        # the consumer's stream waits (on the device) for the work that made this array on its own stream
        if stream is not None and stream != -1:
            consumer = None if stream in (1, 2) else stream
            _stream_wait(self.stream, consumer)
            if _stream_key(consumer) != _stream_key(self.stream):
                self._shared = True  # read on another stream: freed, not kept (see POOL_BYTES)
        else:
            self._shared = True
        return _dlpack_export(self)


_CUDART = {}  # name -> the runtime function, typed once


def _cudart(name, *argtypes):
    f = _CUDART.get(name)
    if f is None:
        f = getattr(L.lib, name)  # the CUDA runtime libgpuprim links, reached through its handle
        f.restype = ctypes.c_int
        f.argtypes = list(argtypes)
        _CUDART[name] = f
    return f


def _stream_wait(producer, consumer):
    """consumer (a stream handle; None: the legacy stream) waits on the device for producer's work so far."""
    if producer == consumer:
        return
    ev = ctypes.c_void_p()
    create = _cudart("cudaEventCreateWithFlags", ctypes.c_void_p, ctypes.c_uint)
    record = _cudart("cudaEventRecord", ctypes.c_void_p, ctypes.c_void_p)
    wait = _cudart("cudaStreamWaitEvent", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint)
    destroy = _cudart("cudaEventDestroy", ctypes.c_void_p)
    if create(ctypes.byref(ev), 2) != 0:  # cudaEventDisableTiming
        raise L.Error(L.GP_ERR_UNSUPPORTED, "gpuprim: cudaEventCreate failed")
    try:
        if record(ev, producer) != 0 or wait(consumer, ev, 0) != 0:
            raise L.Error(L.GP_ERR_UNSUPPORTED, "gpuprim: ordering the consumer's stream after the result failed")
    finally:
        destroy(ev)


def _cai_stream(s):
    if s is None:
        return 1  # the legacy default stream, as CAI v3 numbers it
    return int(s)


# ---------------------------------------------------------------------------------------------- DLPack
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

_DL_CODE = {0: "i", 1: "u", 2: "f", 6: "b"}  # kDLInt, kDLUInt, kDLFloat, kDLBool


class _Imported:
    """A DLPack tensor taken from its capsule: its pointer and layout, the capsule's deleter called when released."""

    def __init__(self, capsule):
        p = _api.PyCapsule_GetPointer(capsule, b"dltensor")
        self._mt = ctypes.cast(p, ctypes.POINTER(_DLManagedTensor))
        _api.PyCapsule_SetName(capsule, b"used_dltensor")
        t = self._mt.contents.dl_tensor
        code = _DL_CODE.get(t.dtype.code)
        if code is None or t.dtype.lanes != 1:
            self.release()
            raise TypeError("gpuprim: a DLPack tensor of type code %d x%d lanes is not an array gpuprim takes"
                            % (t.dtype.code, t.dtype.lanes))
        self.dtype = np.dtype(np.bool_) if code == "b" else np.dtype("%s%d" % (code, t.dtype.bits // 8))
        self.shape = tuple(t.shape[i] for i in range(t.ndim))
        self.strides = None if not t.strides else tuple(t.strides[i] for i in range(t.ndim))
        self.ptr = (t.data or 0) + t.byte_offset
        self.device_type, self.device_id = t.device.device_type, t.device.device_id

    def contiguous(self):
        if self.strides is None or 0 in self.shape:
            return True
        want = 1
        for dim, st in zip(reversed(self.shape), reversed(self.strides)):
            if dim != 1 and st != want:
                return False
            want *= dim
        return True

    def release(self):
        if self._mt is not None:
            d = self._mt.contents.deleter
            if d:
                d(self._mt)
            self._mt = None

    def __del__(self):
        self.release()


_exports = {}  # id of the managed tensor -> (its struct, the array kept alive, its shape array)


@_DELETER
def _export_deleter(mt):
    _exports.pop(ctypes.addressof(mt.contents), None)


_capsule_destructor_t = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# the capsule's own calls on its raw address: inside its destructor the capsule is being freed, and no Python object
# may be made of it (a reference taken and dropped there would free it a second time)
_capsule_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_capsule_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))


@_capsule_destructor_t
def _capsule_destructor(cap):
    # a capsule never consumed (still named "dltensor") frees its tensor here
    if _capsule_valid_raw(cap, b"dltensor"):
        _exports.pop(_capsule_pointer_raw(cap, b"dltensor"), None)


def _dlpack_export(arr):
    """A DLPack capsule of a DeviceArray (or a NumPy array for the CPU: its own __dlpack__ is used instead)."""
    mt = _DLManagedTensor()
    shape = (ctypes.c_int64 * max(1, arr.ndim))(*arr.shape)
    kind = {"i": 0, "u": 1, "f": 2, "b": 6}[arr.dtype.kind]
    mt.dl_tensor = _DLTensor(arr.ptr, _DLDevice(2, arr.device), arr.ndim,
                             _DLDataType(kind, arr.dtype.itemsize * 8, 1), shape, None, 0)
    mt.manager_ctx = None
    mt.deleter = _export_deleter
    _exports[ctypes.addressof(mt)] = (mt, arr, shape)
    return _api.PyCapsule_New(ctypes.addressof(mt), b"dltensor", ctypes.cast(_capsule_destructor, ctypes.c_void_p))


# ---------------------------------------------------------------------------------------------- arguments
class Arg:
    """One array argument as a call sees it: ptr, shape, size, dtype (NumPy's), gp (gpuprim's dtype), ctx, stream, and
    what keeps its memory alive. host: the NumPy array when the data is host memory."""

    __slots__ = ("ptr", "shape", "size", "dtype", "ctx", "stream", "keep", "host", "gp")

    def __init__(self, ptr, shape, dtype, ctx, stream=None, keep=None, host=None):
        self.ptr, self.shape, self.ctx, self.stream, self.keep, self.host = ptr, tuple(shape), ctx, stream, keep, host
        self.dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        self.size = math.prod(self.shape)
        self.gp = gp_dtype(self.dtype)

    @property
    def on_gpu(self):
        return self.ctx.device >= 0


# cudaPointerAttributes: these four fields, then reserved words (CUDA 13 added 8 longs); room for more, so that a
# runtime with a larger struct never writes past it
class _PtrAttr(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("device", ctypes.c_int), ("devicePointer", ctypes.c_void_p),
                ("hostPointer", ctypes.c_void_p), ("reserved", ctypes.c_long * 64)]


_ptr_attr_fn = []  # cudaPointerGetAttributes, looked up once (None where no runtime has it)


def _cai_device(ptr):
    """The device a CUDA pointer lives on (cudaPointerGetAttributes through the runtime libgpuprim links)."""
    if not _ptr_attr_fn:
        f = getattr(L.lib, "cudaPointerGetAttributes", None)
        if f is None:
            try:
                f = ctypes.CDLL("libcudart.so").cudaPointerGetAttributes
            except OSError:
                f = None
        if f is not None:
            f.restype = ctypes.c_int
            f.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        _ptr_attr_fn.append(f)
    f = _ptr_attr_fn[0]
    if f is None:
        return 0
    a = _PtrAttr()
    if f(ctypes.byref(a), ctypes.c_void_p(ptr)) != 0:
        return 0
    return a.device


_TORCH_NP = {}  # torch dtype -> NumPy dtype, the ones gpuprim has (filled on the first torch tensor)


def _torch_np(dt):
    if not _TORCH_NP:
        import torch
        for n in ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bool", "uint16",
                  "uint32", "uint64"):
            if hasattr(torch, n):
                _TORCH_NP[getattr(torch, n)] = np.dtype(n)
    return _TORCH_NP.get(dt)


_torch_stream_fn = []  # torch's current stream of a device as a handle (int), looked up once


def _torch_stream(dev):
    """torch's current stream on device dev (0: the legacy stream): its raw handle where torch gives it at once
    (~0.1 us), else through torch.cuda.current_stream (a Stream object made per call, ~2 us)"""
    if not _torch_stream_fn:
        import torch
        f = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        _torch_stream_fn.append(f if f is not None else (lambda d: torch.cuda.current_stream(d).cuda_stream))
    return _torch_stream_fn[0](dev)


def _torch_arg(x, name):
    """A CUDA torch tensor as an Arg, read in place on torch's current stream of its device (torch's CAI is version 2:
    it names no stream, and torch's streams do not wait for the legacy one), or None for what the protocols take."""
    dt = _torch_np(x.dtype)
    if dt is None or x.is_sparse:
        return None
    if not x.is_contiguous():
        raise ValueError("gpuprim: %s is a strided CUDA view: make it contiguous first (.contiguous() / "
                         "cupy.ascontiguousarray)" % name)
    dev = x.get_device()
    return Arg(x.data_ptr(), x.shape, dt, context(dev), _torch_stream(dev) or None, keep=x)


_cupy_stream_fn = []  # cupy.cuda.get_current_stream, looked up once


def _cupy_arg(x, name):
    """A CuPy array as an Arg, read in place on CuPy's current stream (what its __cuda_array_interface__ would say,
    without building that dict and asking the runtime for the pointer's device: ~3 us a call)"""
    if not _cupy_stream_fn:
        import cupy
        _cupy_stream_fn.append(cupy.cuda.get_current_stream)
    if not x.flags.c_contiguous:
        raise ValueError("gpuprim: %s is a strided CUDA view: make it contiguous first (cupy.ascontiguousarray)" % name)
    mem = x.data  # its MemoryPointer: the address and the device, without a Device object made per call
    return Arg(mem.ptr, x.shape, x.dtype, context(mem.device_id), _cupy_stream_fn[0]().ptr or None, keep=x)



_TORCH_TYPES = set()  # torch's tensor types seen (a set lookup, not a module name's prefix, each call)
_CUPY_TYPES = set()


def is_torch_cuda(x):
    """x is a torch tensor on a CUDA device (asked without building its __cuda_array_interface__)"""
    t = type(x)
    if t not in _TORCH_TYPES:
        if not t.__module__.startswith("torch") or not hasattr(x, "is_cuda"):
            return False
        _TORCH_TYPES.add(t)
    return x.is_cuda is True


def is_cupy(x):
    """x is a cupy.ndarray (asked by its type's name and module, without importing CuPy)"""
    t = type(x)
    if t not in _CUPY_TYPES:
        if t.__name__ != "ndarray" or t.__module__.partition(".")[0] != "cupy":
            return False
        _CUPY_TYPES.add(t)
    return True


def device_arg(x, name="x"):
    """x as an Arg when it is a CUDA torch tensor or a CuPy array of a gpuprim dtype (the fast path of take), else
    None"""
    if is_torch_cuda(x):
        return _torch_arg(x, name)
    if is_cupy(x) and x.dtype in _NP_TO_GP:
        return _cupy_arg(x, name)
    return None


def take(x, device=None, name="x"):
    """x as an Arg: a CUDA tensor read in place on its device; a NumPy array (or anything np.asarray takes) on the
    CPU backend, or copied to GPU `device` when one is asked for. Views that are not C-contiguous are copied."""
    if device is None and type(x) is np.ndarray and x.flags.c_contiguous and x.dtype.isnative:
        return Arg(host_ptr(x), x.shape, x.dtype, context(None), keep=x, host=x)  # the common case, at once
    if is_torch_cuda(x):
        a = _torch_arg(x, name)
        if a is not None:
            return a
    elif is_cupy(x) and x.dtype in _NP_TO_GP:
        return _cupy_arg(x, name)
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None and not isinstance(x, np.ndarray):
        shape = tuple(cai["shape"])
        dt = np.dtype(cai["typestr"])
        strides = cai.get("strides")
        if strides is not None and not _c_contiguous(shape, strides, dt.itemsize):
            raise ValueError("gpuprim: %s is a strided CUDA view: make it contiguous first (.contiguous() / "
                             "cupy.ascontiguousarray)" % name)
        ptr = cai["data"][0] or 0
        dev = _cai_device(ptr) if ptr else (device or 0)
        stream = cai.get("stream")
        stream = None if stream in (None, 1, 2) else stream
        return Arg(ptr, shape, dt, context(dev), stream, keep=x)
    if hasattr(x, "__dlpack__") and not isinstance(x, np.ndarray):
        dev_type, dev_id = x.__dlpack_device__() if hasattr(x, "__dlpack_device__") else (1, 0)
        if dev_type == 2:
            imp = _Imported(x.__dlpack__(stream=1))
            if not imp.contiguous():
                raise ValueError("gpuprim: %s is a strided CUDA view: make it contiguous first" % name)
            return Arg(imp.ptr, imp.shape, imp.dtype, context(imp.device_id), None, keep=(imp, x))
        if dev_type == 1:
            x = np.from_dlpack(x)
        else:
            raise TypeError("gpuprim: %s lives on DLPack device type %d (CPU and CUDA are taken)" % (name, dev_type))
    a = np.asarray(x)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("="))
    a = np.ascontiguousarray(a)
    if device is None or device == "cpu":
        return Arg(host_ptr(a), a.shape, a.dtype, context(None), keep=a, host=a)
    ctx = context(device)
    d = DeviceArray(ctx, a.shape, a.dtype)
    if a.nbytes:
        L.check(L.gp_memcpy_sync(ctx.p, d.ptr, a.ctypes.data, a.nbytes), "gpuprim: copy to device %s" % device)
    return Arg(d.ptr, a.shape, a.dtype, ctx, keep=d, host=None)


def ready(*args):
    """Before a call that runs on the legacy stream and waits for its result (the library's _sync calls): each GPU
    argument's producer stream waited for (a torch or CuPy stream created non-blocking does not wait for the legacy
    one)."""
    for a in args:
        if a.stream is not None and a.ctx.device >= 0:
            L.check(L.gp_stream_sync(a.ctx.p, a.stream), "gpuprim: waiting for the argument's stream")


def _c_contiguous(shape, strides, item):
    if 0 in shape:
        return True
    want = item
    for dim, st in zip(reversed(shape), reversed(strides)):
        if dim != 1 and st != want:
            return False
        want *= dim
    return True


_REDUCE_VALUE = {}  # (op, dtype number, accumulator dtype) -> how reduce_value reads and types the result


def reduce_value(r, op, dt):
    """A gp_reduce_result_t as NumPy gives the reduction of an array of dtype dt: sums and products of bools and
    integers in int64 / uint64, floats and min / max in dt, count_nonzero an int, argmin / argmax an int64."""
    acc = r.acc_dtype
    how = _REDUCE_VALUE.get((op, dt.num, acc))
    if how is None:
        field = "f64" if acc == L.GP_F64 else "f32" if acc == L.GP_F32 else "i64" if acc == L.GP_I64 else "u64"
        if op in ("argmin", "argmax"):
            how = (None, np.int64)
        elif op == "count_nonzero":
            how = (field, int)
        elif op in ("sum", "prod") and (dt == np.bool_ or dt.kind == "i"):
            how = (field, np.int64)
        elif op in ("sum", "prod") and dt.kind == "u":
            how = ("u64", np.uint64)
        else:
            how = (field, dt.type)  # float sums and products, min / max: the input's dtype (NumPy's)
        _REDUCE_VALUE[(op, dt.num, acc)] = how
    field, make = how
    return make(r.index if field is None else getattr(r.value, field))


def output(like, shape, dtype):
    """A result buffer beside the argument like: a NumPy array on the CPU backend (returned as it is), else a
    DeviceArray on like's device and stream."""
    if not like.on_gpu:
        a = np.empty(shape, dtype)
        return a, host_ptr(a)
    d = DeviceArray(like.ctx, shape, dtype, like.stream)
    return d, d.ptr


def give(result, like, host_in):
    """What a call returns: NumPy for NumPy inputs (copied back when they ran on a GPU), the DeviceArray for
    device inputs."""
    if isinstance(result, DeviceArray) and host_in:
        return result.get()
    return result
