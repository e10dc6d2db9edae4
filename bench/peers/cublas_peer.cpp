// cublas_peer.cpp — cuBLAS calls for `gpuprim bench` (C++ is allowed here only). 64-bit cuBLAS API, so n may exceed
// 2^31. axpy takes alpha from the host; dot writes its result to device memory (no synchronization inside).
#include "peers.h"

#ifdef GP_NO_CUBLAS
#include <cstdio>
extern "C" int gp_peer_create(gp_peer_t **peer, int, char *err)
{
    *peer = nullptr;
    std::snprintf(err, 256, "built without cuBLAS");
    return 1;
}
extern "C" void gp_peer_destroy(gp_peer_t *) {}
extern "C" const char *gp_peer_version(gp_peer_t *) { return "none (built without cuBLAS)"; }
extern "C" int gp_peer_axpy(gp_peer_t *, int, size_t, double, const void *, void *, gp_peer_stream_t, char *err)
{
    std::snprintf(err, 256, "built without cuBLAS");
    return 1;
}
extern "C" int gp_peer_dot(gp_peer_t *, int, size_t, const void *, const void *, void *, gp_peer_stream_t, char *err)
{
    std::snprintf(err, 256, "built without cuBLAS");
    return 1;
}
extern "C" int gp_peer_transpose_f32(gp_peer_t *, size_t, size_t, const float *, size_t, float *, size_t,
                                     gp_peer_stream_t, char *err)
{
    std::snprintf(err, 256, "built without cuBLAS");
    return 1;
}
extern "C" int gp_peer_gemm(gp_peer_t *, int, size_t, size_t, size_t, const void *, const void *, void *,
                            gp_peer_stream_t, char *err)
{
    std::snprintf(err, 256, "built without cuBLAS");
    return 1;
}
extern "C" int gp_peer_gemm_ex(gp_peer_t *, int, size_t, size_t, size_t, const void *, const void *, float *,
                               gp_peer_stream_t, char *err)
{
    std::snprintf(err, 256, "built without cuBLAS");
    return 1;
}
extern "C" int gp_peer_gemm_batched_ex(gp_peer_t *, int, size_t, size_t, size_t, size_t, const void *, const void *,
                                       float *, gp_peer_stream_t, char *err)
{
    std::snprintf(err, 256, "built without cuBLAS");
    return 1;
}
#else
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

struct gp_peer {
    cublasHandle_t handle;
    char version[64];
};

static int fail(char *err, const char *what, cublasStatus_t s)
{
    std::snprintf(err, 256, "%s: %s (%s)", what, cublasGetStatusName(s), cublasGetStatusString(s));
    return 1;
}

extern "C" int gp_peer_create(gp_peer_t **peer, int device, char *err)
{
    *peer = nullptr;
    cudaError_t ce = cudaSetDevice(device);
    if (ce != cudaSuccess) {
        std::snprintf(err, 256, "cudaSetDevice(%d): %s", device, cudaGetErrorString(ce));
        return 1;
    }
    gp_peer *p = static_cast<gp_peer *>(std::calloc(1, sizeof(gp_peer)));
    if (!p) {
        std::snprintf(err, 256, "out of host memory");
        return 1;
    }
    cublasStatus_t s = cublasCreate(&p->handle);
    if (s != CUBLAS_STATUS_SUCCESS) {
        std::free(p);
        return fail(err, "cublasCreate", s);
    }
    int v = 0;
    cublasGetVersion(p->handle, &v);
    std::snprintf(p->version, sizeof p->version, "cuBLAS %d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
    *peer = p;
    return 0;
}

extern "C" void gp_peer_destroy(gp_peer_t *peer)
{
    if (!peer) return;
    cublasDestroy(peer->handle);
    std::free(peer);
}

extern "C" const char *gp_peer_version(gp_peer_t *peer) { return peer ? peer->version : "none"; }

extern "C" int gp_peer_axpy(gp_peer_t *p, int dtype_size, size_t n, double alpha, const void *x, void *y,
                            gp_peer_stream_t stream, char *err)
{
    cublasStatus_t s = cublasSetStream(p->handle, stream);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetPointerMode(p->handle, CUBLAS_POINTER_MODE_HOST);
    if (s != CUBLAS_STATUS_SUCCESS) return fail(err, "cublasSetStream/PointerMode", s);
    if (dtype_size == 4) {
        float a = static_cast<float>(alpha);
        s = cublasSaxpy_64(p->handle, static_cast<int64_t>(n), &a, static_cast<const float *>(x), 1,
                           static_cast<float *>(y), 1);
        return s == CUBLAS_STATUS_SUCCESS ? 0 : fail(err, "cublasSaxpy_64", s);
    }
    s = cublasDaxpy_64(p->handle, static_cast<int64_t>(n), &alpha, static_cast<const double *>(x), 1,
                       static_cast<double *>(y), 1);
    return s == CUBLAS_STATUS_SUCCESS ? 0 : fail(err, "cublasDaxpy_64", s);
}

extern "C" int gp_peer_dot(gp_peer_t *p, int dtype_size, size_t n, const void *x, const void *y, void *result_dev,
                           gp_peer_stream_t stream, char *err)
{
    cublasStatus_t s = cublasSetStream(p->handle, stream);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetPointerMode(p->handle, CUBLAS_POINTER_MODE_DEVICE);
    if (s != CUBLAS_STATUS_SUCCESS) return fail(err, "cublasSetStream/PointerMode", s);
    if (dtype_size == 4) {
        s = cublasSdot_64(p->handle, static_cast<int64_t>(n), static_cast<const float *>(x), 1,
                          static_cast<const float *>(y), 1, static_cast<float *>(result_dev));
        return s == CUBLAS_STATUS_SUCCESS ? 0 : fail(err, "cublasSdot_64", s);
    }
    s = cublasDdot_64(p->handle, static_cast<int64_t>(n), static_cast<const double *>(x), 1,
                      static_cast<const double *>(y), 1, static_cast<double *>(result_dev));
    return s == CUBLAS_STATUS_SUCCESS ? 0 : fail(err, "cublasDdot_64", s);
}

extern "C" int gp_peer_transpose_f32(gp_peer_t *p, size_t rows, size_t cols, const float *in, size_t ldi, float *out,
                                     size_t ldo, gp_peer_stream_t stream, char *err)
{
    /* row-major rows x cols in = column-major cols x rows A; out = A^T (rows x cols column-major = cols x rows
     * row-major): C = 1 * A^T + 0 * C (B = C, beta 0: C is not read) */
    cublasStatus_t s = cublasSetStream(p->handle, stream);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetPointerMode(p->handle, CUBLAS_POINTER_MODE_HOST);
    if (s != CUBLAS_STATUS_SUCCESS) return fail(err, "cublasSetStream/PointerMode", s);
    const float one = 1.0f, zero = 0.0f;
    s = cublasSgeam_64(p->handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int64_t>(rows), static_cast<int64_t>(cols),
                       &one, in, static_cast<int64_t>(ldi), &zero, out, static_cast<int64_t>(ldo), out,
                       static_cast<int64_t>(ldo));
    return s == CUBLAS_STATUS_SUCCESS ? 0 : fail(err, "cublasSgeam_64", s);
}

extern "C" int gp_peer_gemm(gp_peer_t *p, int f64, size_t m, size_t n, size_t k, const void *a, const void *b, void *c,
                            gp_peer_stream_t stream, char *err)
{
    /* row-major C = A B is column-major C^T = B^T A^T: cuBLAS sees n x m = (n x k) (k x m) */
    cublasStatus_t s = cublasSetStream(p->handle, stream);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetPointerMode(p->handle, CUBLAS_POINTER_MODE_HOST);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetMathMode(p->handle, f64 ? CUBLAS_DEFAULT_MATH : CUBLAS_PEDANTIC_MATH);
    if (s != CUBLAS_STATUS_SUCCESS) return fail(err, "cublasSetStream/PointerMode/MathMode", s);
    const int64_t M = static_cast<int64_t>(m), N = static_cast<int64_t>(n), K = static_cast<int64_t>(k);
    if (f64) {
        const double one = 1.0, zero = 0.0;
        s = cublasDgemm_64(p->handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, static_cast<const double *>(b), N,
                           static_cast<const double *>(a), K, &zero, static_cast<double *>(c), N);
    } else {
        const float one = 1.0f, zero = 0.0f;
        s = cublasSgemm_64(p->handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, static_cast<const float *>(b), N,
                           static_cast<const float *>(a), K, &zero, static_cast<float *>(c), N);
    }
    cublasSetMathMode(p->handle, CUBLAS_DEFAULT_MATH);
    return s == CUBLAS_STATUS_SUCCESS ? 0 : fail(err, f64 ? "cublasDgemm_64" : "cublasSgemm_64", s);
}

/* the GemmEx peers' common start: the stream, host scalars, and the types of a precision (1 TF32, 2 BF16, 3 FP16) */
static int ex_setup(gp_peer_t *p, int prec, gp_peer_stream_t stream, cudaDataType_t *in, cublasComputeType_t *ct,
                    char *err)
{
    cublasStatus_t s = cublasSetStream(p->handle, stream);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetPointerMode(p->handle, CUBLAS_POINTER_MODE_HOST);
    if (s != CUBLAS_STATUS_SUCCESS) return fail(err, "cublasSetStream/PointerMode", s);
    *in = prec == 1 ? CUDA_R_32F : prec == 2 ? CUDA_R_16BF : CUDA_R_16F;
    *ct = prec == 1 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    return 0;
}

extern "C" int gp_peer_gemm_ex(gp_peer_t *p, int prec, size_t m, size_t n, size_t k, const void *a, const void *b,
                               float *c, gp_peer_stream_t stream, char *err)
{
    /* row-major C = A B is column-major C^T = B^T A^T: cuBLAS sees n x m = (n x k) (k x m) */
    cudaDataType_t in;
    cublasComputeType_t ct;
    if (ex_setup(p, prec, stream, &in, &ct, err)) return 1;
    cublasStatus_t s;
    const float one = 1.0f, zero = 0.0f;
    s = cublasGemmEx_64(p->handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int64_t>(n), static_cast<int64_t>(m),
                        static_cast<int64_t>(k), &one, b, in, static_cast<int64_t>(n), a, in, static_cast<int64_t>(k),
                        &zero, c, CUDA_R_32F, static_cast<int64_t>(n), ct, CUBLAS_GEMM_DEFAULT);
    return s == CUBLAS_STATUS_SUCCESS ? 0 : fail(err, "cublasGemmEx_64", s);
}

extern "C" int gp_peer_gemm_batched_ex(gp_peer_t *p, int prec, size_t m, size_t n, size_t k, size_t batch,
                                       const void *a, const void *b, float *c, gp_peer_stream_t stream, char *err)
{
    cudaDataType_t in;
    cublasComputeType_t ct;
    if (ex_setup(p, prec, stream, &in, &ct, err)) return 1;
    cublasStatus_t s;
    const float one = 1.0f, zero = 0.0f;
    const int64_t M = static_cast<int64_t>(m), N = static_cast<int64_t>(n), K = static_cast<int64_t>(k);
    s = cublasGemmStridedBatchedEx_64(p->handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, in, N, K * N, a, in, K,
                                      M * K, &zero, c, CUDA_R_32F, N, M * N, static_cast<int64_t>(batch), ct,
                                      CUBLAS_GEMM_DEFAULT);
    return s == CUBLAS_STATUS_SUCCESS ? 0 : fail(err, "cublasGemmStridedBatchedEx_64", s);
}
#endif
