/* status.c — status names, the thread-local error detail, dtype names, version. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char g_detail[512];

int gp_version(void) { return GP_VERSION_MAJOR * 10000 + GP_VERSION_MINOR * 100 + GP_VERSION_PATCH; }

const char *gp_status_string(gp_status_t status)
{
    switch (status) {
    case GP_OK: return "success";
    case GP_ERR_INVALID_ARG: return "invalid argument";
    case GP_ERR_OVERFLOW: return "size overflow";
    case GP_ERR_OUT_OF_MEMORY: return "out of memory";
    case GP_ERR_NO_DEVICE: return "no CUDA device";
    case GP_ERR_NO_DRIVER: return "no usable CUDA driver";
    case GP_ERR_UNSUPPORTED: return "unsupported";
    case GP_ERR_CUDA: return "CUDA error";
    case GP_ERR_IO: return "I/O error";
    case GP_ERR_FORMAT: return "malformed input";
    case GP_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *gp_last_error(void) { return g_detail; }

gp_status_t gp__error(gp_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_detail, sizeof g_detail, fmt, ap);
    va_end(ap);
    return status;
}

gp_status_t gp__cuda_error(cudaError_t err, const char *what, const char *file, int line)
{
    /* Clear the runtime's last error so the next launch check does not report this one again. */
    (void)cudaGetLastError();
    gp_status_t st = GP_ERR_CUDA;
    switch (err) {
    case cudaErrorMemoryAllocation: st = GP_ERR_OUT_OF_MEMORY; break;
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice: st = GP_ERR_NO_DEVICE; break;
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorCallRequiresNewerDriver: st = GP_ERR_NO_DRIVER; break;
    case cudaErrorInvalidValue: st = GP_ERR_INVALID_ARG; break;
    case cudaErrorNotSupported: st = GP_ERR_UNSUPPORTED; break;
    default: break;
    }
    const char *base = strrchr(file, '/');
    return gp__error(st, "%s: %s: %s (%s:%d)", what, cudaGetErrorName(err), cudaGetErrorString(err),
                     base ? base + 1 : file, line);
}

gp_status_t gp__check_launch(const char *kernel, const char *file, int line)
{
    cudaError_t e = cudaGetLastError();
#ifdef GP_SYNC_CHECK
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
#endif
    return e == cudaSuccess ? GP_OK : gp__cuda_error(e, kernel, file, line);
}

static const struct {
    const char *name;
    size_t size;
} g_dtypes[GP_DTYPE_COUNT] = {
    [GP_U8] = {"u8", 1},   [GP_I8] = {"i8", 1},   [GP_U16] = {"u16", 2},   [GP_I16] = {"i16", 2},
    [GP_U32] = {"u32", 4}, [GP_I32] = {"i32", 4}, [GP_U64] = {"u64", 8},   [GP_I64] = {"i64", 8},
    [GP_F16] = {"f16", 2}, [GP_BF16] = {"bf16", 2}, [GP_F32] = {"f32", 4}, [GP_F64] = {"f64", 8},
};

size_t gp_dtype_size(gp_dtype_t d) { return (unsigned)d < GP_DTYPE_COUNT ? g_dtypes[d].size : 0; }
const char *gp_dtype_name(gp_dtype_t d) { return (unsigned)d < GP_DTYPE_COUNT ? g_dtypes[d].name : "?"; }

gp_status_t gp_dtype_parse(const char *name, gp_dtype_t *dtype)
{
    GP_ARG_NONNULL("gp_dtype_parse", name);
    GP_ARG_NONNULL("gp_dtype_parse", dtype);
    for (int i = 0; i < GP_DTYPE_COUNT; i++)
        if (strcmp(name, g_dtypes[i].name) == 0) {
            *dtype = (gp_dtype_t)i;
            return GP_OK;
        }
    /* NumPy-style aliases. */
    static const struct { const char *alias; gp_dtype_t d; } aliases[] = {
        {"float32", GP_F32}, {"float64", GP_F64}, {"float16", GP_F16}, {"bfloat16", GP_BF16},
        {"int8", GP_I8}, {"uint8", GP_U8}, {"int16", GP_I16}, {"uint16", GP_U16},
        {"int32", GP_I32}, {"uint32", GP_U32}, {"int64", GP_I64}, {"uint64", GP_U64},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0) {
            *dtype = aliases[i].d;
            return GP_OK;
        }
    return gp__error(GP_ERR_INVALID_ARG, "gp_dtype_parse: unknown dtype '%s' (u8 i8 u16 i16 u32 i32 u64 i64 f16 "
                                         "bf16 f32 f64)", name);
}
