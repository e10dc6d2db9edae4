/*
 * nocuda.c — the CPU-only build's CUDA runtime (no CUDA toolkit on the building machine; CMake says so once): the
 * runtime calls the host code makes, each answering that there is no driver. No GPU context can be made, so the public
 * API reaches the CPU backend alone; the families' GPU launchers are NULL slots of their tables (core/backend.h).
 */
#include <cuda_runtime_api.h>

#define NOCUDA cudaErrorInsufficientDriver

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
cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library, const char *name) { (void)dptr, (void)bytes, (void)library, (void)name; return NOCUDA; }
cudaError_t cudaLibraryUnload(cudaLibrary_t library) { (void)library; return NOCUDA; }
