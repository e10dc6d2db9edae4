/* status.c — status names, the thread-local error detail, dtype names, version. */
#include "internal.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char g_detail[4096]; /* room for a compiler's messages (GP_ERR_COMPILE) */

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
    case GP_ERR_COMPILE: return "compile error";
    case GP_ERR_USER_TRAP: return "user operator trapped";
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

/* Whether the driver library is there at all (the runtime reports its absence as an old driver). */
static int driver_installed(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (h) dlclose(h);
    return h != NULL;
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
    if (st == GP_ERR_NO_DRIVER && !driver_installed()) /* the runtime calls a missing driver "insufficient" */
        return gp__error(st, "%s: no NVIDIA driver is installed (libcuda.so.1 cannot be loaded)", what);
    return gp__error(st, "%s: %s: %s (%s:%d)", what, cudaGetErrorName(err), cudaGetErrorString(err),
                     base ? base + 1 : file, line);
}

gp_status_t gp__check_launch(const char *kernel, const char *file, int line)
{
    cudaError_t e = cudaGetLastError();
#ifdef GP_SYNC_CHECK
    if (e == cudaSuccess && !gp__thread_capturing()) e = cudaDeviceSynchronize(); /* a capture cannot wait */
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

/* NumPy's type string without byte order ("f4", "u1"), as in a .npy header: the dtype, or GP_DTYPE_COUNT. */
static gp_dtype_t typestr_dtype(char kind, const char *digits)
{
    if (digits[0] < '1' || digits[0] > '8' || digits[1] != 0) return GP_DTYPE_COUNT;
    const int size = digits[0] - '0';
    switch (kind) {
    case 'f': return size == 2 ? GP_F16 : size == 4 ? GP_F32 : size == 8 ? GP_F64 : GP_DTYPE_COUNT;
    case 'i': return size == 1 ? GP_I8 : size == 2 ? GP_I16 : size == 4 ? GP_I32 : size == 8 ? GP_I64 : GP_DTYPE_COUNT;
    case 'u': return size == 1 ? GP_U8 : size == 2 ? GP_U16 : size == 4 ? GP_U32 : size == 8 ? GP_U64 : GP_DTYPE_COUNT;
    default: return GP_DTYPE_COUNT;
    }
}

gp_status_t gp_dtype_parse(const char *name, gp_dtype_t *dtype)
{
    GP_ARG_NONNULL("gp_dtype_parse", name);
    GP_ARG_NONNULL("gp_dtype_parse", dtype);
    const char *s = name;
    if (strncmp(s, "np.", 3) == 0) s += 3;
    else if (strncmp(s, "numpy.", 6) == 0) s += 6;
    for (int i = 0; i < GP_DTYPE_COUNT; i++)
        if (strcmp(s, g_dtypes[i].name) == 0) {
            *dtype = (gp_dtype_t)i;
            return GP_OK;
        }
    /* NumPy's names and one-character codes (np.dtype('f') is float32, 'd' float64, 'l' int64 on LP64 Linux). */
    static const struct { const char *alias; gp_dtype_t d; } aliases[] = {
        {"float32", GP_F32}, {"float64", GP_F64}, {"float16", GP_F16}, {"bfloat16", GP_BF16},
        {"int8", GP_I8}, {"uint8", GP_U8}, {"int16", GP_I16}, {"uint16", GP_U16},
        {"int32", GP_I32}, {"uint32", GP_U32}, {"int64", GP_I64}, {"uint64", GP_U64},
        {"half", GP_F16}, {"single", GP_F32}, {"double", GP_F64}, {"float", GP_F64}, {"float_", GP_F64},
        {"byte", GP_I8}, {"ubyte", GP_U8}, {"short", GP_I16}, {"ushort", GP_U16}, {"intc", GP_I32},
        {"uintc", GP_U32}, {"int_", GP_I64}, {"int", GP_I64}, {"uint", GP_U64}, {"longlong", GP_I64},
        {"ulonglong", GP_U64}, {"intp", GP_I64}, {"uintp", GP_U64},
        {"e", GP_F16}, {"f", GP_F32}, {"d", GP_F64}, {"b", GP_I8}, {"B", GP_U8}, {"h", GP_I16}, {"H", GP_U16},
        {"i", GP_I32}, {"I", GP_U32}, {"l", GP_I64}, {"L", GP_U64}, {"q", GP_I64}, {"Q", GP_U64},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(s, aliases[i].alias) == 0) {
            *dtype = aliases[i].d;
            return GP_OK;
        }
    /* Type strings: "f4", "<f4", "=f4", "|u1" (">f4" is big-endian data: not a dtype gpuprim computes on). gpuprim's
     * own names come first, so a bare "i8" / "u8" is 8 bits wide; NumPy's 8-byte integers are "<i8", "int64". */
    if (s == name && s[0] != 0) {
        const char *t = s;
        if (*t == '<' || *t == '=' || *t == '|') t++;
        if (*t && t[1]) {
            gp_dtype_t d = typestr_dtype(t[0], t + 1);
            if (d != GP_DTYPE_COUNT) {
                *dtype = d;
                return GP_OK;
            }
        }
        if (s[0] == '>')
            return gp__error(GP_ERR_UNSUPPORTED, "gp_dtype_parse: '%s' is big-endian: give the dtype without '>' "
                                                 "(raw files are read in host byte order)", name);
    }
    return gp__error(GP_ERR_INVALID_ARG, "gp_dtype_parse: unknown dtype '%s' (u8 i8 u16 i16 u32 i32 u64 i64 f16 "
                                         "bf16 f32 f64, or NumPy's names: float32, np.float32, f4, <f4, ...)", name);
}
