/*
 * nocuda.c — the CPU-only build's stand-ins (no CUDA toolkit on the building machine; CMake says so once): the CUDA
 * runtime calls the host code makes, each answering that there is no driver, and the GPU launchers the .cu files
 * define in a full build, each refusing. No GPU context can be made, so the public API reaches the CPU backend alone.
 */
#include "core/internal.h"
#include "group/group_internal.h"
#include "histogram/histogram_internal.h"
#include "matrix/matrix_internal.h"
#include "reduce/reduce_internal.h"
#include "scan/scan_internal.h"
#include "sort/sort_internal.h"
#include "vector/vector_internal.h"

#define NOCUDA cudaErrorInsufficientDriver
#define NOGPU(fn) gp__error(GP_ERR_NO_DRIVER, "%s: this gpuprim was built without the CUDA toolkit", fn)

/* ---------------------------------------------------------------------------------------------- the runtime */
const char *cudaGetErrorName(cudaError_t error) { return error == cudaSuccess ? "cudaSuccess" : "cudaErrorInsufficientDriver"; }
const char *cudaGetErrorString(cudaError_t error)
{
    return error == cudaSuccess ? "no error" : "this gpuprim was built without the CUDA toolkit (a CPU-only build)";
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 0;
    return NOCUDA;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) { (void)prop, (void)device; return NOCUDA; }
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) { (void)value, (void)attr, (void)device; return NOCUDA; }
cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit) { (void)value, (void)limit; return NOCUDA; }
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) { (void)limit, (void)value; return NOCUDA; }
cudaError_t cudaDeviceSynchronize(void) { return NOCUDA; }
cudaError_t cudaDriverGetVersion(int *version) { (void)version; return NOCUDA; }
cudaError_t cudaRuntimeGetVersion(int *version) { (void)version; return NOCUDA; }
cudaError_t cudaSetDevice(int device) { (void)device; return NOCUDA; }
cudaError_t cudaCtxResetPersistingL2Cache(void) { return NOCUDA; }
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) { (void)free_bytes, (void)total_bytes; return NOCUDA; }
cudaError_t cudaEventCreate(cudaEvent_t *event) { (void)event; return NOCUDA; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) { (void)event, (void)flags; return NOCUDA; }
cudaError_t cudaEventDestroy(cudaEvent_t event) { (void)event; return NOCUDA; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) { (void)ms, (void)start, (void)end; return NOCUDA; }
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) { (void)event, (void)stream; return NOCUDA; }
cudaError_t cudaEventSynchronize(cudaEvent_t event) { (void)event; return NOCUDA; }
cudaError_t cudaStreamCreate(cudaStream_t *stream) { (void)stream; return NOCUDA; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags) { (void)stream, (void)flags; return NOCUDA; }
cudaError_t cudaStreamDestroy(cudaStream_t stream) { (void)stream; return NOCUDA; }
cudaError_t cudaStreamSynchronize(cudaStream_t stream) { (void)stream; return NOCUDA; }
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) { (void)stream, (void)event, (void)flags; return NOCUDA; }
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue *value) { (void)stream, (void)attr, (void)value; return NOCUDA; }
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) { (void)stream, (void)mode; return NOCUDA; }
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph) { (void)stream, (void)graph; return NOCUDA; }
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status) { (void)stream, (void)status; return NOCUDA; }
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode) { (void)mode; return NOCUDA; }
cudaError_t cudaGraphDestroy(cudaGraph_t graph) { (void)graph; return NOCUDA; }
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) { (void)exec; return NOCUDA; }
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags) { (void)exec, (void)graph, (void)flags; return NOCUDA; }
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) { (void)exec, (void)stream; return NOCUDA; }
cudaError_t cudaMalloc(void **ptr, size_t size) { (void)ptr, (void)size; return NOCUDA; }
cudaError_t cudaMallocHost(void **ptr, size_t size) { (void)ptr, (void)size; return NOCUDA; }
cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags) { (void)ptr, (void)size, (void)flags; return NOCUDA; }
cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height) { (void)ptr, (void)pitch, (void)width, (void)height; return NOCUDA; }
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *ptr, struct cudaExtent extent) { (void)ptr, (void)extent; return NOCUDA; }
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags) { (void)ptr, (void)size, (void)flags; return NOCUDA; }
cudaError_t cudaHostGetDevicePointer(void **device, void *host, unsigned int flags) { (void)device, (void)host, (void)flags; return NOCUDA; }
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) { (void)ptr, (void)size, (void)flags; return NOCUDA; }
cudaError_t cudaHostUnregister(void *ptr) { (void)ptr; return NOCUDA; }
cudaError_t cudaFree(void *ptr) { (void)ptr; return NOCUDA; }
cudaError_t cudaFreeHost(void *ptr) { (void)ptr; return NOCUDA; }
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr) { (void)attributes, (void)ptr; return NOCUDA; }
cudaError_t cudaMemAdvise(const void *ptr, size_t count, enum cudaMemoryAdvise advice, struct cudaMemLocation location) { (void)ptr, (void)count, (void)advice, (void)location; return NOCUDA; }
cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t count, struct cudaMemLocation location, unsigned int flags, cudaStream_t stream) { (void)ptr, (void)count, (void)location, (void)flags, (void)stream; return NOCUDA; }
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) { (void)dst, (void)src, (void)count, (void)kind; return NOCUDA; }
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream) { (void)dst, (void)src, (void)count, (void)kind, (void)stream; return NOCUDA; }
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) { (void)dst, (void)dpitch, (void)src, (void)spitch, (void)width, (void)height, (void)kind, (void)stream; return NOCUDA; }
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream) { (void)p, (void)stream; return NOCUDA; }
cudaError_t cudaMemset(void *ptr, int value, size_t count) { (void)ptr, (void)value, (void)count; return NOCUDA; }
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream) { (void)ptr, (void)value, (void)count, (void)stream; return NOCUDA; }
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value) { (void)func, (void)attr, (void)value; return NOCUDA; }
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block_size, size_t dynamic_smem) { (void)blocks, (void)func, (void)block_size, (void)dynamic_smem; return NOCUDA; }
cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t smem, cudaStream_t stream) { (void)func, (void)grid, (void)block, (void)args, (void)smem, (void)stream; return NOCUDA; }
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args) { (void)config, (void)func, (void)args; return NOCUDA; }
cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code, enum cudaJitOption *jit_options, void **jit_values, unsigned int njit, enum cudaLibraryOption *library_options, void **library_values, unsigned int nlibrary) { (void)library, (void)code, (void)jit_options, (void)jit_values, (void)njit, (void)library_options, (void)library_values, (void)nlibrary; return NOCUDA; }
cudaError_t cudaLibraryGetKernel(cudaKernel_t *kernel, cudaLibrary_t library, const char *name) { (void)kernel, (void)library, (void)name; return NOCUDA; }
cudaError_t cudaLibraryUnload(cudaLibrary_t library) { (void)library; return NOCUDA; }

/* ---------------------------------------------------------------------------------------------- the GPU launchers */
gp_status_t gp__launch_copy_kernel(gp_ctx_t *ctx, void *dst, const void *src, size_t bytes, cudaStream_t stream)
{
    (void)ctx, (void)dst, (void)src, (void)bytes, (void)stream;
    return NOGPU("gp_memcpy_kernel");
}
gp_status_t gp__launch_fill_random(gp_ctx_t *ctx, void *dst, size_t n, gp_dtype_t dtype, unsigned long long seed,
                                   cudaStream_t stream)
{
    (void)ctx, (void)dst, (void)n, (void)dtype, (void)seed, (void)stream;
    return NOGPU("fill_random");
}
gp_status_t gp__launch_read_kernel(gp_ctx_t *ctx, const void *src, size_t bytes, unsigned int *sink, cudaStream_t stream)
{
    (void)ctx, (void)src, (void)bytes, (void)sink, (void)stream;
    return NOGPU("read_kernel");
}
const char *gp__hist_kind_name(int kind) { return (void)kind, "cpu"; }
const char *gp__hist_strategy_name(int strategy) { return (void)strategy, "cpu"; }
gp_status_t gp__hist_gpu_ex(gp_ctx_t *ctx, const gp__hist_spec_t *s, gp_dtype_t dtype, size_t n, const void *x,
                            gp_dtype_t count_dtype, void *counts, cudaStream_t stream, int strategy, int cluster,
                            int accumulate, gp__hist_plan_t *plan)
{
    (void)ctx, (void)s, (void)dtype, (void)n, (void)x, (void)count_dtype, (void)counts, (void)stream, (void)strategy;
    (void)cluster, (void)accumulate, (void)plan;
    return NOGPU("gp_histogram");
}
gp_status_t gp__add_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, const gp__add_t *a, cudaStream_t stream)
{
    (void)ctx, (void)dtype, (void)a, (void)stream;
    return NOGPU("gp_matrix_add");
}
const gp__gemm_kernel_t *gp__gemm_kernel_production(gp_dtype_t dtype, int number) { return (void)dtype, (void)number, NULL; }
const gp__gemm_kernel_t *gp__gemm_kernel_pick(gp_dtype_t dtype, size_t n) { return (void)dtype, (void)n, NULL; }
gp_status_t gp__gemm_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, const gp__gemm_t *g, const gp__gemm_kernel_t *kernel,
                         cudaStream_t stream)
{
    (void)ctx, (void)dtype, (void)g, (void)kernel, (void)stream;
    return NOGPU("gp_gemm");
}
gp_status_t gp__gemm_tc_gpu(gp_ctx_t *ctx, gp_gemm_precision_t prec, gp_dtype_t cdt, const gp__gemm_t *g,
                            const gp__batch_t *bt, cudaStream_t stream)
{
    (void)ctx, (void)prec, (void)cdt, (void)g, (void)bt, (void)stream;
    return NOGPU("gp_gemm_ex");
}
gp_status_t gp__gemm_wgmma(gp_gemm_precision_t prec, gp_dtype_t cdt, const gp__gemm_t *g, size_t K, const gp__batch_t *bt,
                           int kind, int sms, unsigned splits, float *ws, cudaStream_t stream)
{
    (void)prec, (void)cdt, (void)g, (void)K, (void)bt, (void)kind, (void)sms, (void)splits, (void)ws, (void)stream;
    return NOGPU("gp_gemm_ex");
}
int gp__gemm_wgmma_tma_ok(const gp__gemm_t *g, size_t K, int kind) { return (void)g, (void)K, (void)kind, 0; }
gp_status_t gp__transpose_gpu(gp_ctx_t *ctx, const gp__phys_t *out, const gp__phys_t *in, cudaStream_t stream)
{
    (void)ctx, (void)out, (void)in, (void)stream;
    return NOGPU("gp_matrix_transpose");
}
gp_status_t gp__ordered_gpu(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x, void *result,
                            void *host, cudaStream_t stream)
{
    (void)ctx, (void)op, (void)dtype, (void)n, (void)x, (void)result, (void)host, (void)stream;
    return NOGPU("gp_reduce_ordered");
}
gp_status_t gp__reduce_gpu(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t n, const void *x,
                           gp_reduce_result_t *result, cudaStream_t stream)
{
    (void)ctx, (void)op, (void)dtype, (void)wide, (void)n, (void)x, (void)result, (void)stream;
    return NOGPU("gp_reduce");
}
gp_status_t gp__reduce_gpu_fold(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t m, const void *src,
                                void *dst, cudaStream_t stream)
{
    (void)ctx, (void)op, (void)dtype, (void)wide, (void)m, (void)src, (void)dst, (void)stream;
    return NOGPU("gp_reduce");
}
gp_status_t gp__reduce_gpu_segmented(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                     size_t nseg, const long long *offsets, void *out, cudaStream_t stream)
{
    (void)ctx, (void)op, (void)dtype, (void)n, (void)x, (void)nseg, (void)offsets, (void)out, (void)stream;
    return NOGPU("gp_reduce_segmented");
}
gp_status_t gp__reduce_gpu_tiles(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t n, const void *x,
                                 long long idx0, void *dst, cudaStream_t stream)
{
    (void)ctx, (void)op, (void)dtype, (void)wide, (void)n, (void)x, (void)idx0, (void)dst, (void)stream;
    return NOGPU("gp_reduce");
}
size_t gp__reduce_gpu_entry_bytes(gp_reduce_op_t op, gp_dtype_t dtype, int wide) { return (void)op, (void)dtype, (void)wide, 0; }
gp_status_t gp__scan_gpu(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x, void *y, int exclusive,
                         const void *carry_in, void *carry_out, cudaStream_t stream)
{
    (void)ctx, (void)op, (void)dtype, (void)n, (void)x, (void)y, (void)exclusive, (void)carry_in, (void)carry_out;
    (void)stream;
    return NOGPU("gp_scan");
}
gp_status_t gp__scan_gpu_aggs(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t din, gp_dtype_t dacc, gp_dtype_t dout, size_t n,
                              const void *x, void *aggs, cudaStream_t stream)
{
    (void)ctx, (void)op, (void)din, (void)dacc, (void)dout, (void)n, (void)x, (void)aggs, (void)stream;
    return NOGPU("gp_scan");
}
gp_status_t gp__scan_gpu_x(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t din, gp_dtype_t dacc, gp_dtype_t dout, size_t n,
                           const void *x, void *y, int exclusive, const void *carry_in, void *carry_out, cudaStream_t stream)
{
    (void)ctx, (void)op, (void)din, (void)dacc, (void)dout, (void)n, (void)x, (void)y, (void)exclusive, (void)carry_in;
    (void)carry_out, (void)stream;
    return NOGPU("gp_scan");
}
size_t gp__scan_gpu_workspace_bytes(gp_dtype_t dtype, size_t n) { return (void)dtype, (void)n, 0; }
gp_status_t gp__oscan_gpu(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x, void *y,
                          int exclusive, const void *carry_in, void *carry_out, cudaStream_t stream)
{
    (void)ctx, (void)op, (void)dtype, (void)n, (void)x, (void)y, (void)exclusive, (void)carry_in, (void)carry_out;
    (void)stream;
    return NOGPU("gp_scan_ordered");
}
gp_status_t gp__segscan_gpu(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                            const uint8_t *heads, const int64_t *offsets, size_t noffsets, void *y, int exclusive,
                            cudaStream_t stream)
{
    (void)ctx, (void)op, (void)dtype, (void)n, (void)x, (void)heads, (void)offsets, (void)noffsets, (void)y;
    (void)exclusive, (void)stream;
    return NOGPU("gp_scan_segmented");
}
gp_status_t gp__select_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp__pred_t *p, int job,
                           void *y, uint64_t *lengths, uint64_t *count_dev, cudaStream_t stream)
{
    (void)ctx, (void)dtype, (void)n, (void)x, (void)p, (void)job, (void)y, (void)lengths, (void)count_dev, (void)stream;
    return NOGPU("gp_select");
}
size_t gp__sort_gpu_workspace_bytes(gp_dtype_t kt, size_t n, size_t vsize, int argsort)
{
    return (void)kt, (void)n, (void)vsize, (void)argsort, 0;
}
gp_status_t gp__sort_gpu(gp_ctx_t *ctx, gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out, size_t vsize,
                         const void *vals_in, void *vals_out, int descending, int lo_bit, int hi_bit,
                         cudaStream_t stream)
{
    (void)ctx, (void)kt, (void)n, (void)keys_in, (void)keys_out, (void)vsize, (void)vals_in, (void)vals_out;
    (void)descending, (void)lo_bit, (void)hi_bit, (void)stream;
    return NOGPU("gp_sort");
}
gp_status_t gp__merge_gpu(gp_ctx_t *ctx, gp_dtype_t dt, size_t na, const void *a, size_t nb, const void *b,
                          void *out, size_t vsize, const void *va, const void *vb, void *vout, int descending,
                          cudaStream_t stream)
{
    (void)ctx, (void)dt, (void)na, (void)a, (void)nb, (void)b, (void)out, (void)vsize, (void)va, (void)vb, (void)vout;
    (void)descending, (void)stream;
    return NOGPU("gp_merge");
}
gp_status_t gp__searchsorted_gpu(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *sorted, size_t m,
                                 const void *queries, int right, size_t ib, void *out, cudaStream_t stream)
{
    (void)ctx, (void)dt, (void)n, (void)sorted, (void)m, (void)queries, (void)right, (void)ib, (void)out, (void)stream;
    return NOGPU("gp_searchsorted");
}
gp_status_t gp__topk_gpu(gp_ctx_t *ctx, gp_dtype_t dt, size_t rows, size_t n, const void *x, size_t k, int largest,
                         void *values, size_t ib, void *indices, cudaStream_t stream)
{
    (void)ctx, (void)dt, (void)rows, (void)n, (void)x, (void)k, (void)largest, (void)values, (void)ib, (void)indices;
    (void)stream;
    return NOGPU("gp_topk");
}
gp_status_t gp__sort_segmented_gpu(gp_ctx_t *ctx, gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out,
                                   size_t vsize, const void *vals_in, void *vals_out, size_t nseg,
                                   const int64_t *offsets, int descending, int lo_bit, int hi_bit, const char *fn,
                                   cudaStream_t stream)
{
    (void)ctx, (void)kt, (void)n, (void)keys_in, (void)keys_out, (void)vsize, (void)vals_in, (void)vals_out;
    (void)nseg, (void)offsets, (void)descending, (void)lo_bit, (void)hi_bit, (void)stream;
    return NOGPU(fn);
}
gp_status_t gp__unique_iota_gpu(size_t wb, size_t n, void *p, cudaStream_t stream)
{
    (void)wb, (void)n, (void)p, (void)stream;
    return NOGPU("gp_unique_sorted_sync");
}
gp_status_t gp__unique_heads_gpu(gp_dtype_t dt, size_t wb, size_t n, const void *s, void *h, cudaStream_t stream)
{
    (void)dt, (void)wb, (void)n, (void)s, (void)h, (void)stream;
    return NOGPU("gp_unique_sorted_sync");
}
gp_status_t gp__unique_emit_gpu(gp_dtype_t dt, size_t wb, size_t ib, size_t n, const void *s, const void *perm,
                                const void *h, void *y, void *first, void *inverse, uint64_t *counts,
                                cudaStream_t stream)
{
    (void)dt, (void)wb, (void)ib, (void)n, (void)s, (void)perm, (void)h, (void)y, (void)first, (void)inverse;
    (void)counts, (void)stream;
    return NOGPU("gp_unique_sorted_sync");
}
gp_status_t gp__vec_gpu(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t stream)
{
    (void)ctx, (void)a, (void)stream;
    return NOGPU("gp_vec");
}

gp_status_t gp__group_sort_count_gpu(gp_dtype_t dtype, int descending, size_t n, const void *sorted, int nq,
                                     const uint64_t *rq, uint64_t *out, cudaStream_t stream)
{
    (void)dtype, (void)descending, (void)n, (void)sorted, (void)nq, (void)rq, (void)out, (void)stream;
    return NOGPU("gp_group_sort");
}

gp_status_t gp__group_sort_iota_gpu(size_t ib, size_t n, uint64_t base, void *out, cudaStream_t stream)
{
    (void)ib, (void)n, (void)base, (void)out, (void)stream;
    return NOGPU("gp_group_argsort");
}
