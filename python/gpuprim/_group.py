"""gpuprim.Group: one array split over a group of GPUs (NCCL in this process) or emulated members, with one GPU's
bits (docs/design/group.md). NumPy in, NumPy out: the group splits the array evenly (gp_group_split), each member
works on its shard in its own memory, and the result comes back whole."""
import ctypes

import numpy as np

from . import _lib as L
from ._arrays import gp_dtype, np_dtype, reduce_value

_HIST_TYPES = {np.dtype(t) for t in (np.uint8, np.uint16, np.int32, np.uint32, np.float32, np.float64)}
_SCALAR = ("sum", "prod", "min", "max", "and", "or", "xor", "count_nonzero", "argmin", "argmax")
_SEGMENTED = ("sum", "prod", "min", "max", "and", "or", "xor", "count_nonzero")


class Group:
    """A group of members: devices "all" (every GPU of this process, NCCL), a list of GPU ordinals, "cpu:K" (K
    members emulated on the CPU backend) or "gpu:K" (K members emulated on GPU 0). Close it (or use `with`) to free
    its members and scratch; every method waits for its result."""

    def __init__(self, devices="all"):
        p = ctypes.c_void_p()
        if isinstance(devices, str) and devices[:4] in ("cpu:", "gpu:"):
            try:
                k = int(devices[4:])
            except ValueError:
                raise ValueError("gpuprim.Group: %r: cpu:K or gpu:K with K a whole number" % devices) from None
            if k < 1:
                raise ValueError("gpuprim.Group: %r: at least one member" % devices)
            L.check(L.gp_group_create_emulated(ctypes.byref(p), k, L.GP_DEVICE_CPU if devices[0] == "c" else 0),
                    "gpuprim.Group(%r)" % devices)
        elif devices == "all":
            L.check(L.gp_group_create_local(ctypes.byref(p), 0, None), "gpuprim.Group('all')")
        else:
            try:
                ids = [int(d) for d in devices]
            except (TypeError, ValueError):
                raise ValueError("gpuprim.Group: devices %r: 'all', a list of GPU ordinals, 'cpu:K' or 'gpu:K'"
                                 % (devices,)) from None
            arr = (ctypes.c_int * len(ids))(*ids)
            L.check(L.gp_group_create_local(ctypes.byref(p), len(ids), arr), "gpuprim.Group(%r)" % (devices,))
        self._p = p
        self.size = L.gp_group_size(p)
        self.local = L.gp_group_local_count(p)
        self.transport = (L.gp_group_transport(p) or b"").decode()

    def __repr__(self):
        return "gpuprim.Group(size=%d, transport=%s)" % (self.size, self.transport)

    def close(self):
        if self._p:
            L.gp_group_destroy(self._p)
            self._p = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    # ------------------------------------------------------------------------------------------ shards
    def _live(self, name):
        if not self._p:
            raise ValueError("gpuprim.Group.%s: the group is closed" % name)

    def _scatter(self, a, name):
        """a flattened (C order), split over the members: (NumPy array, gp dtype, counts, shard buffers)."""
        self._live(name)
        a = np.ascontiguousarray(np.asarray(a)).reshape(-1)
        g = gp_dtype(a.dtype)
        shards = (L.Buffer * self.local)()
        L.check(L.gp_group_scatter(self._p, g, a.size, a.ctypes.data, shards), "gpuprim.Group.%s" % name)
        counts = (ctypes.c_size_t * self.local)()
        for i in range(self.local):
            first, count = ctypes.c_size_t(), ctypes.c_size_t()
            L.check(L.gp_group_split(self._p, g, a.size, L.gp_group_rank(self._p, i), ctypes.byref(first),
                                     ctypes.byref(count)), "gpuprim.Group.%s" % name)
            counts[i] = count.value
        return a, g, counts, shards

    def _alloc(self, counts, dtype, name):
        bufs = (L.Buffer * self.local)()
        for i in range(self.local):
            L.check(L.gp_mem_alloc(L.gp_group_ctx(self._p, i), L.GP_MEM_DEVICE, counts[i] * np.dtype(dtype).itemsize,
                                   ctypes.byref(bufs[i])), "gpuprim.Group.%s" % name)
        return bufs

    @staticmethod
    def _ptrs(bufs):
        return (ctypes.c_void_p * len(bufs))(*[b.device or b.host for b in bufs])

    def _gather(self, bufs, counts, dtype, name):
        """The members' outputs, in rank order, as one NumPy array (this process holds every rank)."""
        out = np.empty(sum(counts), dtype)
        at = 0
        for i in range(self.local):
            nb = counts[i] * out.itemsize
            if nb:
                L.check(L.gp_memcpy_sync(L.gp_group_ctx(self._p, i), out.ctypes.data + at, bufs[i].device or
                                         bufs[i].host, nb), "gpuprim.Group.%s" % name)
            at += nb
        return out

    def _free(self, bufs):
        for i in range(self.local):
            if bufs[i].bytes:
                L.gp_mem_free(L.gp_group_ctx(self._p, i), ctypes.byref(bufs[i]))

    def _whole(self, name):
        if self.local != self.size:
            raise ValueError("gpuprim.Group.%s: a group spread over processes takes each rank's own shard (the C "
                             "API); this Python call splits one array in this process" % name)

    # ------------------------------------------------------------------------------------------ operations
    def reduce(self, a, op="sum"):
        """op over a (flattened) with the bits of one GPU (gp_group_reduce): sum, prod, min, max, and, or, xor,
        count_nonzero, argmin, argmax. A NumPy scalar as gpuprim.sum & co. give it."""
        if op not in _SCALAR:
            raise ValueError("gpuprim.Group.reduce: op %r (%s)" % (op, ", ".join(_SCALAR)))
        self._whole("reduce")
        a, g, counts, shards = self._scatter(a, "reduce")
        try:
            if a.size == 0 and op in ("min", "max", "argmin", "argmax"):
                raise ValueError("zero-size array to reduction operation %s which has no identity" % op)
            r = L.ReduceResult()
            L.check(L.gp_group_reduce(self._p, L.OP[op], g, L.GP_DTYPE_COUNT, counts, self._ptrs(shards),
                                      ctypes.byref(r)), "gpuprim.Group.reduce")
        finally:
            L.gp_group_free_shards(self._p, shards)
        return reduce_value(r, op, a.dtype)

    def sum(self, a):
        return self.reduce(a, "sum")

    def cumsum(self, a):
        """np.cumsum of a (flattened) across the members, in its default accumulator (gp_scan_out_dtype), with one
        GPU's bits (gp_group_scan)."""
        return self._scan(a, "sum")

    def cumprod(self, a):
        return self._scan(a, "prod")

    def _sharded(self, a, name, out_dtype, call):
        """a scattered, call(g, counts, shards, outs) over the members into outputs of out_dtype (None: a's), the
        outputs gathered whole; every buffer freed."""
        self._whole(name)
        a, g, counts, shards = self._scatter(a, name)
        ys = None
        try:
            odt = a.dtype if out_dtype is None else np.dtype(out_dtype)
            ys = self._alloc(counts, odt, name)
            L.check(call(g, counts, self._ptrs(shards), self._ptrs(ys)), "gpuprim.Group." + name)
            return self._gather(ys, counts, odt, name)
        finally:
            if ys is not None:
                self._free(ys)
            L.gp_group_free_shards(self._p, shards)

    def _scan(self, a, op):
        g = gp_dtype(np.asarray(a).dtype)
        out_gp = L.gp_scan_out_dtype(L.OP[op], g, L.GP_DTYPE_COUNT)
        if out_gp == L.GP_DTYPE_COUNT:
            raise TypeError("gpuprim.Group.cum%s: not over %s" % (op, np.asarray(a).dtype))
        return self._sharded(a, "cum" + op, np_dtype(out_gp), lambda g, c, x, y: L.gp_group_scan(
            self._p, L.OP[op], g, L.GP_DTYPE_COUNT, L.GP_SCAN_INCLUSIVE, c, x, y))

    def sort(self, a, *, descending=False):
        """a (flattened) sorted across the members (gp_group_sort): NumPy's stable order, one GPU's bits."""
        return self._sharded(a, "sort", None, lambda g, c, x, y: L.gp_group_sort(
            self._p, g, c, x, y, 0, None, None, 1 if descending else 0))

    def argsort(self, a, *, descending=False):
        """np.argsort(a.ravel(), kind='stable') across the members (gp_group_argsort), int64 (the u64 positions'
        bits)."""
        return self._sharded(a, "argsort", np.int64, lambda g, c, x, y: L.gp_group_argsort(
            self._p, g, c, x, L.GP_U64, y, 1 if descending else 0))

    def histogram(self, a, bins=10, range=None, density=False):
        """np.histogram of a (flattened) across the members (gp_group_histogram): NumPy's edges
        (np.histogram_bin_edges), the counts of one GPU, (counts int64, bin_edges)."""
        self._whole("histogram")
        x = np.asarray(a).ravel()
        if x.dtype == np.bool_:
            x = x.astype(np.uint8)  # as NumPy's histogram takes bools
        edges = np.histogram_bin_edges(x, bins, range)
        if x.dtype not in _HIST_TYPES:  # as NumPy compares: integers as float64, float16 widened exactly
            x = x.astype(np.float32 if x.dtype == np.float16 else np.float64 if x.dtype.kind in "iu" else x.dtype)
        e64 = np.ascontiguousarray(edges, dtype=np.float64)
        if np.any(e64[:-1] >= e64[1:]):
            raise ValueError("too many bins for data range: edges must increase strictly")
        nbins = len(e64) - 1
        b = L.HistBins(L.GP_HIST_RANGE, nbins, 0.0, 0.0, e64.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), 1, 0)
        x, g, counts, shards = self._scatter(x, "histogram")
        out = np.zeros(nbins + 3, np.uint64)
        try:
            L.check(L.gp_group_histogram(self._p, g, counts, self._ptrs(shards), ctypes.byref(b), L.GP_U64,
                                         out.ctypes.data), "gpuprim.Group.histogram")
        finally:
            L.gp_group_free_shards(self._p, shards)
        c = out[:nbins].astype(np.int64)
        if density:
            return c / np.diff(edges).astype(float) / c.sum(), edges
        return c, edges

    def segment_reduce(self, a, offsets, op="sum"):
        """gpuprim.segment_reduce across the members (gp_group_reduce_segmented): op over each segment
        [offsets[i], offsets[i + 1]) of a (flattened), in the reduction's accumulator dtype, every segment the bits of
        one GPU whatever the shard edges. offsets: nseg + 1 int64 values, nondecreasing (refused otherwise), clamped
        to [0, len(a)]."""
        if op not in _SEGMENTED:
            raise ValueError("gpuprim.Group.segment_reduce: op %r (%s)" % (op, ", ".join(_SEGMENTED)))
        self._whole("segment_reduce")
        off = np.ascontiguousarray(np.asarray(offsets, dtype=np.int64)).reshape(-1)
        if off.size < 1:
            raise ValueError("gpuprim.Group.segment_reduce: offsets hold nseg + 1 values (at least one)")
        g = gp_dtype(np.asarray(a).dtype)
        adt = L.gp_reduce_acc_dtype(L.OP[op], g)
        if adt == L.GP_DTYPE_COUNT:
            raise TypeError("gpuprim.Group.segment_reduce: %s over %s" % (op, np.asarray(a).dtype))
        out = np.empty(off.size - 1, np.float32 if adt == L.GP_F32 else np_dtype(adt))
        a, g, counts, shards = self._scatter(a, "segment_reduce")
        try:
            L.check(L.gp_group_reduce_segmented(self._p, L.OP[op], g, counts, self._ptrs(shards), off.size - 1,
                                                off.ctypes.data, out.ctypes.data), "gpuprim.Group.segment_reduce")
        finally:
            L.gp_group_free_shards(self._p, shards)
        return out

    def dot(self, a, b):
        """gpuprim.dot across the members (gp_group_dot): each member's dot of its shards, the partial results added
        in rank order. int32: exact, one GPU's bits; float32 / float64: a double sum whose association follows the
        shards (deterministic for a group's size, within rounding of gpuprim.dot's)."""
        self._whole("dot")
        x, y = np.asarray(a).reshape(-1), np.asarray(b).reshape(-1)
        if x.dtype != y.dtype or x.dtype not in (np.float32, np.float64, np.int32):
            raise TypeError("gpuprim.Group.dot: a and b of one dtype of float32, float64, int32 (got %s and %s)"
                            % (x.dtype, y.dtype))
        if x.size != y.size:
            raise ValueError("gpuprim.Group.dot: a has %d elements, b %d" % (x.size, y.size))
        x, g, counts, xs = self._scatter(x, "dot")
        try:
            y, _, _, ys = self._scatter(y, "dot")
            try:
                out = np.zeros(1, np.float64)
                L.check(L.gp_group_dot(self._p, g, counts, self._ptrs(xs), self._ptrs(ys), out.ctypes.data),
                        "gpuprim.Group.dot")
            finally:
                L.gp_group_free_shards(self._p, ys)
        finally:
            L.gp_group_free_shards(self._p, xs)
        return out.view(np.float64)[0] if x.dtype.kind == "f" else out.view(np.int64)[0]
