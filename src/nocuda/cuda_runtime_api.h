/*
 * cuda_runtime_api.h (CPU-only build) — the part of the CUDA runtime's interface libgpuprim's host code names, for a
 * machine without the CUDA toolkit: the types and constants it uses and the calls' prototypes, answered by
 * src/nocuda/nocuda.c (every call: no device). Only the CPU-only build puts this folder on the include path.
 */
#ifndef GP_NOCUDA_RUNTIME_API_H
#define GP_NOCUDA_RUNTIME_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUDART_VERSION 0

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInsufficientDriver = 35,
    cudaErrorCallRequiresNewerDriver = 36,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorStubLibrary = 34,
    cudaErrorNotSupported = 801
} cudaError_t;

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef struct CUlib_st *cudaLibrary_t;
typedef struct CUkern_st *cudaKernel_t;
typedef struct cudaArray *cudaArray_t;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterReadOnly 0x08
#define cudaMemAttachGlobal 0x01

typedef struct dim3 {
    unsigned int x, y, z;
} dim3;

enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice,
                      cudaMemcpyDefault };
enum cudaMemoryType { cudaMemoryTypeUnregistered, cudaMemoryTypeHost, cudaMemoryTypeDevice, cudaMemoryTypeManaged };
enum cudaDeviceAttr {
    cudaDevAttrClockRate = 13,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrCanMapHostMemory = 19,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrConcurrentManagedAccess = 89,
    cudaDevAttrMaxPersistingL2CacheSize = 108,
    cudaDevAttrMaxAccessPolicyWindowSize = 109
};
enum cudaLimit { cudaLimitPersistingL2CacheSize = 6 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum cudaMemoryAdvise { cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly, cudaMemAdviseSetPreferredLocation,
                        cudaMemAdviseUnsetPreferredLocation, cudaMemAdviseSetAccessedBy };
enum cudaMemLocationType { cudaMemLocationTypeInvalid, cudaMemLocationTypeDevice, cudaMemLocationTypeHost };
enum cudaAccessProperty { cudaAccessPropertyNormal, cudaAccessPropertyStreaming, cudaAccessPropertyPersisting };
enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed };
enum cudaStreamCaptureStatus { cudaStreamCaptureStatusNone, cudaStreamCaptureStatusActive,
                               cudaStreamCaptureStatusInvalidated };
typedef enum cudaStreamAttrID { cudaStreamAttributeAccessPolicyWindow = 1 } cudaStreamAttrID;
typedef enum cudaLaunchAttributeID { cudaLaunchAttributeProgrammaticStreamSerialization = 5 } cudaLaunchAttributeID;
enum cudaJitOption { cudaJitMaxRegisters };
enum cudaLibraryOption { cudaLibraryHostUniversalFunctionAndDataTable };

struct cudaMemLocation {
    enum cudaMemLocationType type;
    int id;
};
struct cudaAccessPolicyWindow {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    enum cudaAccessProperty hitProp, missProp;
};
typedef union cudaStreamAttrValue {
    struct cudaAccessPolicyWindow accessPolicyWindow;
} cudaStreamAttrValue;
typedef struct cudaLaunchAttribute {
    cudaLaunchAttributeID id;
    union {
        unsigned int programmaticStreamSerializationAllowed;
    } val;
} cudaLaunchAttribute;
typedef struct cudaLaunchConfig {
    dim3 gridDim, blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned int numAttrs;
} cudaLaunchConfig_t;
struct cudaPointerAttributes {
    enum cudaMemoryType type;
    int device;
    void *devicePointer, *hostPointer;
};
struct cudaPitchedPtr {
    void *ptr;
    size_t pitch, xsize, ysize;
};
struct cudaExtent {
    size_t width, height, depth;
};
struct cudaPos {
    size_t x, y, z;
};
struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    struct cudaExtent extent;
    enum cudaMemcpyKind kind;
};
struct cudaDeviceProp {
    char name[256];
    struct {
        char bytes[16];
    } uuid;
    size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerBlockOptin, sharedMemPerMultiprocessor, totalConstMem;
    int regsPerBlock, regsPerMultiprocessor, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
    int major, minor, multiProcessorCount, maxThreadsPerMultiProcessor, maxBlocksPerMultiProcessor;
    int memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize, asyncEngineCount, ECCEnabled, integrated;
    int pciBusID, pciDeviceID, pciDomainID, canMapHostMemory, unifiedAddressing, managedMemory;
    int concurrentManagedAccess, pageableMemoryAccess, hostRegisterSupported, memoryPoolsSupported, clusterLaunch;
    int cooperativeLaunch;
};

const char *cudaGetErrorName(cudaError_t error);
const char *cudaGetErrorString(cudaError_t error);
cudaError_t cudaGetLastError(void);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit);
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDriverGetVersion(int *version);
cudaError_t cudaRuntimeGetVersion(int *version);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaCtxResetPersistingL2Cache(void);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue *value);
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status);
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaMalloc(void **ptr, size_t size);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *ptr, struct cudaExtent extent);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaHostGetDevicePointer(void **device, void *host, unsigned int flags);
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);
cudaError_t cudaMemAdvise(const void *ptr, size_t count, enum cudaMemoryAdvise advice, struct cudaMemLocation location);
cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t count, struct cudaMemLocation location, unsigned int flags,
                                 cudaStream_t stream);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream);
cudaError_t cudaMemset(void *ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream);
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block_size,
                                                          size_t dynamic_smem);
cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t smem, cudaStream_t stream);
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code, enum cudaJitOption *jit_options,
                                void **jit_values, unsigned int njit, enum cudaLibraryOption *library_options,
                                void **library_values, unsigned int nlibrary);
cudaError_t cudaLibraryGetKernel(cudaKernel_t *kernel, cudaLibrary_t library, const char *name);
cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library, const char *name);
cudaError_t cudaLibraryUnload(cudaLibrary_t library);

#ifdef __cplusplus
}
#endif
#endif
