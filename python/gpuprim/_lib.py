"""libgpuprim through ctypes: where the library is found, the C types of the calls used, statuses made exceptions.

The library is looked for in this order: $GPUPRIM_LIB (a path to libgpuprim.so), the package's own directory (a
wheel or `make python` puts it there), then the system's loader path. ctypes releases the GIL for every call.
"""
import ctypes
import os

_here = os.path.dirname(os.path.abspath(__file__))


class Error(RuntimeError):
    """A gpuprim call failed for a reason other than its arguments; the message is gp_last_error()'s."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _load():
    tried = []
    cands = []
    if os.environ.get("GPUPRIM_LIB"):
        cands.append(os.environ["GPUPRIM_LIB"])
    cands += [os.path.join(_here, "libgpuprim.so"), "libgpuprim.so.0", "libgpuprim.so"]
    for c in cands:
        try:
            return ctypes.CDLL(c)
        except OSError as e:
            tried.append("%s (%s)" % (c, e))
    raise ImportError("gpuprim: libgpuprim.so was not found; build it (make) and install the package (make python), or "
                      "set GPUPRIM_LIB to its path. Tried: " + "; ".join(tried))


lib = _load()

# ---------------------------------------------------------------------------------------------- types
c_status = ctypes.c_int
c_size = ctypes.c_size_t
c_ptr = ctypes.c_void_p
c_int = ctypes.c_int
c_dbl = ctypes.c_double

GP_OK, GP_ERR_INVALID_ARG, GP_ERR_OVERFLOW, GP_ERR_OUT_OF_MEMORY = 0, 1, 2, 3
GP_ERR_NO_DEVICE, GP_ERR_NO_DRIVER, GP_ERR_UNSUPPORTED = 4, 5, 6
GP_DEVICE_CPU, GP_DEVICE_DEFAULT = -1, -2
GP_U8, GP_I8, GP_U16, GP_I16, GP_U32, GP_I32, GP_U64, GP_I64, GP_F16, GP_BF16, GP_F32, GP_F64 = range(12)
GP_DTYPE_COUNT = 12
OPS = ["sum", "prod", "min", "max", "minmax", "argmin", "argmax", "and", "or", "xor", "count_nonzero"]
OP = {name: i for i, name in enumerate(OPS)}
GP_MEM_DEVICE = 0
GP_MEM_PINNED = 2
GP_SCAN_INCLUSIVE, GP_SCAN_EXCLUSIVE = 0, 1
GP_HIST_EVEN, GP_HIST_RANGE, GP_HIST_DIRECT = 0, 1, 2
GP_ROW_MAJOR, GP_COL_MAJOR = 0, 1
GP_OP_N, GP_OP_T = 0, 1


class Scalar(ctypes.Union):
    _fields_ = [("f64", ctypes.c_double), ("f32", ctypes.c_float), ("i64", ctypes.c_int64), ("u64", ctypes.c_uint64)]


class ReduceResult(ctypes.Structure):
    _fields_ = [("value", Scalar), ("value2", Scalar), ("index", ctypes.c_int64), ("acc_dtype", ctypes.c_int32),
                ("op", ctypes.c_int32)]


class SortOpts(ctypes.Structure):
    _fields_ = [("descending", c_int), ("begin_bit", c_int), ("end_bit", c_int)]


class UniqueOpts(ctypes.Structure):
    _fields_ = [("size", c_size), ("nan_distinct", c_int)]


class HistBins(ctypes.Structure):
    _fields_ = [("mode", c_int), ("nbins", c_size), ("lo", c_dbl), ("hi", c_dbl),
                ("edges", ctypes.POINTER(ctypes.c_double)), ("closed_last", c_int), ("numpy_edges", c_int)]


class Matrix(ctypes.Structure):
    _fields_ = [("data", c_ptr), ("rows", c_size), ("cols", c_size), ("ld", c_size), ("dtype", c_int),
                ("layout", c_int)]


class CpuInfo(ctypes.Structure):
    _fields_ = [("model", ctypes.c_char * 128), ("logical_cores", c_int), ("omp_max_threads", c_int),
                ("total_mem_bytes", c_size), ("avail_mem_bytes", c_size)]


class DeviceInfo(ctypes.Structure):
    _fields_ = [("device", c_int), ("name", ctypes.c_char * 256), ("uuid", ctypes.c_char * 48), ("cc_major", c_int),
                ("cc_minor", c_int), ("sm_count", c_int), ("clock_khz", c_int), ("mem_clock_khz", c_int),
                ("mem_bus_width_bits", c_int), ("mem_bandwidth_gbs", c_dbl), ("total_mem_bytes", c_size),
                ("free_mem_bytes", c_size), ("l2_bytes", c_int), ("persisting_l2_max_bytes", c_int),
                ("smem_per_block", c_size), ("smem_per_sm", c_size), ("smem_per_block_optin", c_size),
                ("const_mem_bytes", c_size), ("regs_per_block", c_int), ("regs_per_sm", c_int), ("warp_size", c_int),
                ("max_threads_per_block", c_int), ("max_threads_per_sm", c_int), ("max_blocks_per_sm", c_int),
                ("max_block_dim", c_int * 3), ("max_grid_dim", c_int * 3), ("async_engines", c_int),
                ("unified_addressing", c_int), ("managed_memory", c_int), ("concurrent_managed_access", c_int),
                ("pageable_memory_access", c_int), ("can_map_host_memory", c_int), ("host_register_supported", c_int),
                ("cluster_launch", c_int), ("cooperative_launch", c_int), ("ecc_enabled", c_int), ("integrated", c_int),
                ("memory_pools", c_int), ("pci_domain", c_int), ("pci_bus", c_int), ("pci_device", c_int),
                ("driver_version", c_int), ("runtime_version", c_int)]


class Pred(ctypes.Structure):
    _fields_ = [("kind", c_int), ("a", c_dbl), ("b", c_dbl), ("flags", c_ptr)]


class UopDesc(ctypes.Structure):
    _fields_ = [("kind", c_int), ("dtype", c_int), ("arity", c_int), ("out_dtype", c_int), ("src", ctypes.c_char_p),
                ("identity", ctypes.c_char_p), ("commutative", c_int)]


class Buffer(ctypes.Structure):
    _fields_ = [("host", c_ptr), ("device", c_ptr), ("bytes", c_size), ("kind", c_int), ("device_id", c_int)]


class ArrayDesc(ctypes.Structure):
    _fields_ = [("dtype", c_int), ("ndim", c_int), ("shape", c_size * 32), ("fortran_order", c_int),
                ("big_endian", c_int), ("version_major", c_int), ("version_minor", c_int), ("data_offset", c_size),
                ("count", c_size), ("elem_size", c_size), ("bool_values", c_int)]


def _proto(name, *args):
    f = getattr(lib, name)
    f.restype = c_status
    f.argtypes = list(args)
    return f


P = ctypes.POINTER
gp_last_error = lib.gp_last_error
gp_last_error.restype = ctypes.c_char_p
gp_last_error.argtypes = []
gp_status_string = lib.gp_status_string
gp_status_string.restype = ctypes.c_char_p
gp_status_string.argtypes = [c_status]
gp_version = lib.gp_version
gp_version.restype = c_int
gp_version.argtypes = []
gp_ctx_device = lib.gp_ctx_device
gp_ctx_device.restype = c_int
gp_ctx_device.argtypes = [c_ptr]

calls = {
    "gp_ctx_create": (P(c_ptr), c_int),
    "gp_ctx_destroy": (c_ptr,),
    "gp_device_count": (P(c_int),),
    "gp_cpu_info": (P(CpuInfo),),
    "gp_device_info": (c_int, P(DeviceInfo)),
    "gp_stream_sync": (c_ptr, c_ptr),
    "gp_mem_alloc": (c_ptr, c_int, c_size, P(Buffer)),
    "gp_mem_free": (c_ptr, P(Buffer)),
    "gp_memcpy_sync": (c_ptr, c_ptr, c_ptr, c_size),
    "gp_memcpy": (c_ptr, c_ptr, c_ptr, c_size, c_ptr),
    "gp_reduce_sync": (c_ptr, c_int, c_int, c_size, c_ptr, P(ReduceResult)),
    "gp_reduce": (c_ptr, c_int, c_int, c_size, c_ptr, c_ptr, c_ptr),
    "gp_reduce_acc_sync": (c_ptr, c_int, c_int, c_int, c_size, c_ptr, P(ReduceResult)),
    "gp_reduce_segmented": (c_ptr, c_int, c_int, c_size, c_ptr, c_size, c_ptr, c_ptr, c_ptr),
    "gp_scan": (c_ptr, c_int, c_int, c_int, c_size, c_ptr, c_ptr, c_ptr),
    "gp_scan_acc": (c_ptr, c_int, c_int, c_int, c_int, c_size, c_ptr, c_ptr, c_ptr),
    "gp_scan_segmented": (c_ptr, c_int, c_int, c_int, c_size, c_ptr, c_size, c_ptr, c_ptr, c_ptr),
    "gp_sort": (c_ptr, c_int, c_size, c_ptr, c_ptr, P(SortOpts), c_ptr),
    "gp_sort_sync": (c_ptr, c_int, c_size, c_ptr, c_ptr, P(SortOpts)),
    "gp_argsort": (c_ptr, c_int, c_size, c_ptr, c_int, c_ptr, P(SortOpts), c_ptr),
    "gp_argsort_sync": (c_ptr, c_int, c_size, c_ptr, c_int, c_ptr, P(SortOpts)),
    "gp_sort_segmented": (c_ptr, c_int, c_size, c_ptr, c_ptr, c_size, c_ptr, c_ptr, c_size, c_ptr, P(SortOpts),
                          c_ptr),
    "gp_searchsorted": (c_ptr, c_int, c_size, c_ptr, c_size, c_ptr, c_int, c_int, c_ptr, c_ptr),
    "gp_merge": (c_ptr, c_int, c_size, c_ptr, c_size, c_ptr, c_ptr, c_size, c_ptr, c_ptr, c_ptr, c_int, c_ptr),
    "gp_topk": (c_ptr, c_int, c_size, c_size, c_ptr, c_size, c_int, c_ptr, c_int, c_ptr, c_ptr),
    "gp_partition_kth_sync": (c_ptr, c_int, c_size, c_size, c_ptr, c_size, c_ptr, c_int, c_ptr),
    "gp_unique_sorted_opts_sync": (c_ptr, c_int, c_size, c_ptr, c_ptr, c_int, c_ptr, c_ptr, c_ptr, P(c_size),
                                   P(UniqueOpts)),
    "gp_sorted_until": (c_int, c_size, c_ptr, c_int, P(c_size)),
    "gp_histogram_accumulate": (c_ptr, c_int, c_size, c_ptr, P(HistBins), c_int, c_ptr, c_ptr),
    "gp_memset": (c_ptr, c_ptr, c_int, c_size, c_ptr),
    "gp_pred_parse": (ctypes.c_char_p, P(Pred)),
    "gp_group_create_local": (P(c_ptr), c_int, P(c_int)),
    "gp_group_create_emulated": (P(c_ptr), c_int, c_int),
    "gp_group_destroy": (c_ptr,),
    "gp_group_split": (c_ptr, c_int, c_size, c_int, P(c_size), P(c_size)),
    "gp_group_scatter": (c_ptr, c_int, c_size, c_ptr, P(Buffer)),
    "gp_group_free_shards": (c_ptr, P(Buffer)),
    "gp_group_reduce": (c_ptr, c_int, c_int, c_int, P(c_size), P(c_ptr), P(ReduceResult)),
    "gp_group_scan": (c_ptr, c_int, c_int, c_int, c_int, P(c_size), P(c_ptr), P(c_ptr)),
    "gp_group_sort": (c_ptr, c_int, P(c_size), P(c_ptr), P(c_ptr), c_size, P(c_ptr), P(c_ptr), c_int),
    "gp_group_argsort": (c_ptr, c_int, P(c_size), P(c_ptr), c_int, P(c_ptr), c_int),
    "gp_group_histogram": (c_ptr, c_int, P(c_size), P(c_ptr), P(HistBins), c_int, c_ptr),
    "gp_group_reduce_segmented": (c_ptr, c_int, c_int, P(c_size), P(c_ptr), c_size, c_ptr, c_ptr),
    "gp_group_dot": (c_ptr, c_int, P(c_size), P(c_ptr), P(c_ptr), c_ptr),
    "gp_vec_dot_sync": (c_ptr, c_int, c_size, c_ptr, c_ptr, c_ptr),
    "gp_uop_create": (c_ptr, P(UopDesc), P(c_ptr)),
    "gp_uop_destroy": (c_ptr,),
    "gp_reduce_uop_sync": (c_ptr, c_ptr, c_size, c_ptr, c_ptr),
    "gp_transform": (c_ptr, c_ptr, c_size, c_ptr, c_ptr, c_ptr),
    "gp_scan_uop": (c_ptr, c_ptr, c_int, c_size, c_ptr, c_ptr, c_ptr),
    "gp_select_if_sync": (c_ptr, c_ptr, c_size, c_ptr, c_ptr, P(c_size)),
    "gp_sort_uop_sync": (c_ptr, c_ptr, c_size, c_ptr, c_ptr, c_size, c_ptr, c_ptr),
    "gp_select_sync": (c_ptr, c_int, c_size, c_ptr, P(Pred), c_ptr, P(c_size)),
    "gp_partition_sync": (c_ptr, c_int, c_size, c_ptr, P(Pred), c_ptr, P(c_size)),
    "gp_run_length_encode_sync": (c_ptr, c_int, c_size, c_ptr, c_ptr, c_ptr, P(c_size)),
    "gp_reduce_by_key_sync": (c_ptr, c_int, c_int, c_size, c_ptr, c_int, c_ptr, c_ptr, c_ptr, P(c_size)),
    "gp_scan_by_key": (c_ptr, c_int, c_int, c_size, c_ptr, c_int, c_int, c_ptr, c_ptr, c_ptr),
    "gp_gemm": (c_ptr, c_int, c_int, c_dbl, P(Matrix), P(Matrix), c_dbl, P(Matrix), c_ptr),
    "gp_matrix_transpose": (c_ptr, P(Matrix), P(Matrix), c_ptr),
    "gp_npy_inspect": (ctypes.c_char_p, P(ArrayDesc)),
    "gp_raw_inspect": (ctypes.c_char_p, c_int, c_size, c_size, P(ArrayDesc)),
    "gp_array_read": (c_ptr, c_ptr, P(ArrayDesc), c_size, c_ptr, c_ptr),
}
for _name, _args in calls.items():
    globals()[_name] = _proto(_name, *_args)


# the C library's stdio, for the FILE * the file calls take
libc = ctypes.CDLL(None, use_errno=True)
libc.fopen.restype = c_ptr
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.fclose.argtypes = [c_ptr]
libc.fseeko.restype = c_int
libc.fseeko.argtypes = [c_ptr, ctypes.c_int64, c_int]
GP_COUNT_ALL = (1 << 64) - 1


def last_error():
    return (gp_last_error() or b"").decode("utf-8", "replace")


def check(status, what=None):
    """Raises the exception a status means: ValueError for bad arguments, gpuprim.Error for the rest."""
    if status == GP_OK:
        return
    msg = last_error() or (gp_status_string(status) or b"").decode()
    if what:
        msg = "%s: %s" % (what, msg)
    if status == GP_ERR_INVALID_ARG:
        raise ValueError(msg)
    if status == GP_ERR_OUT_OF_MEMORY:
        raise MemoryError(msg)
    raise Error(status, msg)

gp_uop_value_bytes = lib.gp_uop_value_bytes
gp_uop_value_bytes.restype = c_size
gp_uop_value_bytes.argtypes = [c_ptr]
GP_UOP_BINARY, GP_UOP_MAP, GP_UOP_PRED, GP_UOP_LESS = 0, 1, 2, 3
for _name, _res, _args in (("gp_group_size", c_int, [c_ptr]), ("gp_group_local_count", c_int, [c_ptr]),
                           ("gp_group_rank", c_int, [c_ptr, c_int]), ("gp_group_ctx", c_ptr, [c_ptr, c_int]),
                           ("gp_group_transport", ctypes.c_char_p, [c_ptr]),
                           ("gp_scan_out_dtype", c_int, [c_int, c_int, c_int]),
                           ("gp_reduce_acc_dtype", c_int, [c_int, c_int])):
    globals()[_name] = getattr(lib, _name)
    globals()[_name].restype, globals()[_name].argtypes = _res, _args
