/*
 * uop.c — user operators: the checks, the module source (a generated preamble that places the user's text at line 1
 * of a file named "op", "map" or "identity", then the embedded templates), create / destroy, the context's list of
 * modules.
 */
#define _POSIX_C_SOURCE 200809L
#include "jit_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t g_mods_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *storage_c(gp_dtype_t d)
{
    static const char *t[] = {"unsigned char", "signed char", "unsigned short", "short", "unsigned int", "int",
                              "unsigned long long", "long long", "unsigned short", "unsigned short", "float",
                              "double"};
    return t[d];
}
static const char *value_c(gp_dtype_t d) { return d == GP_F16 || d == GP_BF16 ? "float" : storage_c(d); }
static size_t value_size(gp_dtype_t d) { return d == GP_F16 || d == GP_BF16 ? 4 : gp_dtype_size(d); }

/* A growing string. */
typedef struct {
    char *p;
    size_t len, cap;
    int oom;
} sbuf_t;
static void sb_add(sbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf_t *b, const char *fmt, ...)
{
    if (b->oom) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
        b->oom = 1;
        return;
    }
    if (b->len + (size_t)k + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + (size_t)k + 1) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)k;
}

/* Lines of the preamble after a user text restart at this line of "gpuprim-jit" (messages about template code). */
#define TEMPLATE_LINE 1000

/* The user's source as an expression (no `return` in it) or a function body. */
static int is_body(const char *s)
{
    for (const char *p = strstr(s, "return"); p; p = strstr(p + 1, "return")) {
        const int before = p == s || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                                       (p[-1] >= '0' && p[-1] <= '9'));
        const char c = p[6];
        const int after = !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
        if (before && after) return 1;
    }
    return 0;
}

/* The identity's components: top-level commas (outside brackets) split it. Returns the count; starts[i] the byte
 * offsets (at most max). */
int gp__jit_split_identity(const char *s, size_t *starts, size_t *lens, int max)
{
    int k = 0, depth = 0;
    size_t b = 0, i = 0;
    for (;; i++) {
        const char c = s[i];
        if (c == '(' || c == '[' || c == '{') depth++;
        if (c == ')' || c == ']' || c == '}') depth--;
        if (c == '\0' || (c == ',' && depth == 0)) {
            if (k < max) {
                starts[k] = b;
                lens[k] = i - b;
            }
            k++;
            b = i + 1;
            if (c == '\0') break;
        }
    }
    return k;
}

/* The user function of a binary op over T. */
static void add_binary(sbuf_t *b, const gp_uop_t *op, int gpu)
{
    const char *fn = gpu ? "static __device__ __forceinline__" : "static inline";
    sb_add(b, "#define GPJ_BINARY 1\n#define GPJ_K %d\n#define GPJ_COMM %d\n#define GPJ_T %s\n#define GPJ_IN %s\n"
              "#define GPJ_ESZ %zu\n", op->arity, op->commutative, value_c(op->dtype), storage_c(op->dtype),
           (size_t)op->arity * gp_dtype_size(op->dtype));
    const char *conv = op->dtype == GP_F16 ? "gpj_h2f" : op->dtype == GP_BF16 ? "gpj_b2f" : "(GPJ_T)";
    const char *back = op->dtype == GP_F16 ? "gpj_f2h" : op->dtype == GP_BF16 ? "gpj_f2b" : "(GPJ_IN)";
    sb_add(b, "%s GPJ_T gpj_in(GPJ_IN v) { return %s(v); }\n", fn, conv);
    sb_add(b, "%s GPJ_IN gpj_back(GPJ_T v) { return %s(v); }\n#define T GPJ_T\n", fn, back);
    if (op->arity == 1) {
        if (is_body(op->src))
            sb_add(b, "%s T gpj_user(T a, T b)\n{\n#line 1 \"op\"\n%s\n#line %d \"gpuprim-jit\"\n}\n", fn, op->src,
                   TEMPLATE_LINE);
        else
            sb_add(b, "%s T gpj_user(T a, T b)\n{\nreturn (T)(\n#line 1 \"op\"\n%s\n);\n#line %d \"gpuprim-jit\"\n}\n",
                   fn, op->src, TEMPLATE_LINE);
        sb_add(b, "%s void gpj_comb(const T *a, const T *b, T *r) { r[0] = gpj_user(a[0], b[0]); }\n", fn);
    } else {
        sb_add(b, "%s void gpj_user(const T *a, const T *b, T *r)\n{\n#line 1 \"op\"\n%s\n#line %d \"gpuprim-jit\"\n}\n",
               fn, op->src, TEMPLATE_LINE);
        sb_add(b, "%s void gpj_comb(const T *a, const T *b, T *r)\n{\n    T t[GPJ_K];\n    gpj_user(a, b, t);\n"
                  "    for (int i = 0; i < GPJ_K; i++) r[i] = t[i];\n}\n", fn);
    }
    /* the identity, component by component, each at its own line and column of the user's text */
    size_t st[GP__JIT_MAX_ARITY], ln[GP__JIT_MAX_ARITY];
    gp__jit_split_identity(op->identity, st, ln, GP__JIT_MAX_ARITY);
    /* inf and nan spelled as NumPy prints them ("-inf") are INFINITY and NAN inside the identity */
    sb_add(b, "#define inf INFINITY\n#define nan NAN\n%s void gpj_ident(T *r)\n{\n", fn);
    for (int i = 0; i < op->arity; i++) {
        int line = 1;
        size_t col0 = 0;
        for (size_t j = 0; j < st[i]; j++)
            if (op->identity[j] == '\n') line++, col0 = j + 1;
        sb_add(b, "r[%d] = (T)(\n#line %d \"identity\"\n%*s%.*s\n);\n#line %d \"gpuprim-jit\"\n", i, line,
               (int)(st[i] - col0), "", (int)ln[i], op->identity + st[i], TEMPLATE_LINE);
    }
    sb_add(b, "}\n#undef inf\n#undef nan\n#undef T\n");
}

static void add_map(sbuf_t *b, const gp_uop_t *op, int gpu)
{
    const char *fn = gpu ? "static __device__ __forceinline__" : "static inline";
    const gp_dtype_t d = op->dtype, u = op->out_dtype;
    sb_add(b, "#define GPJ_MAP 1\n#define GPJ_XIN %s\n#define GPJ_XT %s\n#define GPJ_UT %s\n#define GPJ_OUT %s\n",
           storage_c(d), value_c(d), value_c(u), storage_c(u));
    const char *cin = d == GP_F16 ? "gpj_h2f" : d == GP_BF16 ? "gpj_b2f" : "(GPJ_XT)";
    const char *cout = u == GP_F16 ? "gpj_f2h" : u == GP_BF16 ? "gpj_f2b" : "(GPJ_OUT)";
    sb_add(b, "%s GPJ_XT gpj_xin(GPJ_XIN v) { return %s(v); }\n", fn, cin);
    sb_add(b, "%s GPJ_OUT gpj_out(GPJ_UT v) { return %s(v); }\n#define T GPJ_XT\n#define U GPJ_UT\n", fn, cout);
    if (is_body(op->src))
        sb_add(b, "%s U gpj_map(T x)\n{\n#line 1 \"map\"\n%s\n#line %d \"gpuprim-jit\"\n}\n", fn, op->src,
               TEMPLATE_LINE);
    else
        sb_add(b, "%s U gpj_map(T x)\n{\nreturn (U)(\n#line 1 \"map\"\n%s\n);\n#line %d \"gpuprim-jit\"\n}\n", fn,
               op->src, TEMPLATE_LINE);
    sb_add(b, "#undef T\n#undef U\n");
}

/* A comparison: gpj_less over two keys of arity components (f16 / bf16 compared as the floats they widen to). */
static void add_less(sbuf_t *b, const gp_uop_t *op, int gpu)
{
    const char *fn = gpu ? "static __device__ __forceinline__" : "static inline";
    const gp_dtype_t d = op->dtype;
    sb_add(b, "#define GPJ_LESS 1\n#define GPJ_K %d\n#define GPJ_T %s\n#define GPJ_IN %s\n#define GPJ_ESZ %zu\n",
           op->arity, value_c(d), storage_c(d), (size_t)op->arity * gp_dtype_size(d));
    const char *conv = d == GP_F16 ? "gpj_h2f" : d == GP_BF16 ? "gpj_b2f" : "(GPJ_T)";
    sb_add(b, "%s GPJ_T gpj_in(GPJ_IN v) { return %s(v); }\ntypedef struct { GPJ_IN c[GPJ_K]; } GPJ_KEY;\n#define T GPJ_T\n",
           fn, conv);
    const char *args = op->arity == 1 ? "T a, T b" : "const T *a, const T *b";
    if (is_body(op->src))
        sb_add(b, "%s int gpj_user_less(%s)\n{\n#line 1 \"less\"\n%s\n#line %d \"gpuprim-jit\"\n}\n", fn, args,
               op->src, TEMPLATE_LINE);
    else
        sb_add(b, "%s int gpj_user_less(%s)\n{\nreturn (\n#line 1 \"less\"\n%s\n) ? 1 : 0;\n#line %d \"gpuprim-jit\"\n}\n",
               fn, args, op->src, TEMPLATE_LINE);
    if (op->arity == 1)
        sb_add(b, "%s int gpj_less(GPJ_KEY a, GPJ_KEY b) { return gpj_user_less(gpj_in(a.c[0]), gpj_in(b.c[0])) != 0; }\n",
               fn);
    else
        sb_add(b, "%s int gpj_less(GPJ_KEY a, GPJ_KEY b)\n{\n    T x[GPJ_K], y[GPJ_K];\n"
                  "    for (int i = 0; i < GPJ_K; i++) {\n        x[i] = gpj_in(a.c[i]);\n        y[i] = gpj_in(b.c[i]);\n"
                  "    }\n    return gpj_user_less(x, y) != 0;\n}\n", fn);
    sb_add(b, "#undef T\n");
}

int gp__jit_sort_ipt(size_t es, size_t vb)
{
    const size_t ipt = 64 / (es + vb);
    return ipt < 1 ? 1 : ipt > 16 ? 16 : (int)ipt;
}

int gp__jit_sort_bst(size_t es, size_t vb)
{
    const size_t tile = (size_t)512 * (size_t)gp__jit_sort_ipt(es, vb), per = es + (vb ? 4 + vb : 0);
    return (tile + tile / 32) * per + 64 <= 48 * 1024 ? 512 : 256; /* static shared memory: 48 KiB */
}

static void add_pred(sbuf_t *b, const gp_uop_t *op, int gpu)
{
    const char *fn = gpu ? "static __device__ __forceinline__" : "static inline";
    const gp_dtype_t d = op->dtype;
    sb_add(b, "#define GPJ_PRED 1\n#define GPJ_XIN %s\n#define GPJ_XT %s\n", storage_c(d), value_c(d));
    const char *cin = d == GP_F16 ? "gpj_h2f" : d == GP_BF16 ? "gpj_b2f" : "(GPJ_XT)";
    sb_add(b, "%s GPJ_XT gpj_xin(GPJ_XIN v) { return %s(v); }\n#define T GPJ_XT\n", fn, cin);
    if (is_body(op->src))
        sb_add(b, "%s int gpj_pred(T x)\n{\n#line 1 \"pred\"\n%s\n#line %d \"gpuprim-jit\"\n}\n", fn, op->src,
               TEMPLATE_LINE);
    else
        sb_add(b, "%s int gpj_pred(T x)\n{\nreturn (\n#line 1 \"pred\"\n%s\n) ? 1 : 0;\n#line %d \"gpuprim-jit\"\n}\n",
               fn, op->src, TEMPLATE_LINE);
    sb_add(b, "#undef T\n");
}

/* the GPU modules' first lines: the conversions jit_common.h needs, INFINITY and NAN without the C headers */
static const char GPU_PRELUDE[] = "#define GPJ_FN static __device__ __forceinline__\n#define GPJ_F2U(f) __float_as_uint(f)\n"
                                  "#define GPJ_U2F(u) __uint_as_float(u)\n#ifndef INFINITY\n"
                                  "#define INFINITY __int_as_float(0x7f800000)\n#endif\n#ifndef NAN\n"
                                  "#define NAN __int_as_float(0x7fffffff)\n#endif\n";

gp_status_t gp__jit_source(const gp_uop_t *op, const gp_uop_t *op2, int gpu, char **out)
{
    sbuf_t b = {0};
    sb_add(&b, "/* gpuprim %d user operator module (%s) */\n", gp_version(), gpu ? "NVRTC" : "host C");
    if (gpu) {
        sb_add(&b, "%s", GPU_PRELUDE);
    } else {
        sb_add(&b, "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdbool.h>\n#include <stdlib.h>\n"
                   "#include <string.h>\n"
                   "#define GPJ_FN static inline\n"
                   "static inline unsigned gpj_f2u_(float f) { unsigned u; memcpy(&u, &f, 4); return u; }\n"
                   "static inline float gpj_u2f_(unsigned u) { float f; memcpy(&f, &u, 4); return f; }\n"
                   "#define GPJ_F2U(f) gpj_f2u_(f)\n#define GPJ_U2F(u) gpj_u2f_(u)\n");
    }
    sb_add(&b, "#line 1 \"jit_common.h\"\n%s\n", gp__jit_common_text);
    const gp_uop_t *map = op->kind == GP_UOP_MAP ? op : NULL, *bin = op->kind == GP_UOP_BINARY ? op : op2;
    if (op->kind == GP_UOP_LESS) {
        add_less(&b, op, gpu);
        if (gpu)
            sb_add(&b, "#define GPJ_SORT 1\n#define GPJ_VB 0\n#define GPJ_IPT %d\n#define GPJ_BST %d\n"
                       "#line 1 \"jit_sort.cuh\"\n%s\n",
                   gp__jit_sort_ipt((size_t)op->arity * gp_dtype_size(op->dtype), 0),
                   gp__jit_sort_bst((size_t)op->arity * gp_dtype_size(op->dtype), 0), gp__jit_sort_text);
        else
            sb_add(&b, "#line 1 \"jit_host.h\"\n%s\n", gp__jit_host_text);
        if (b.oom) {
            free(b.p);
            return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_uop_create: the module source");
        }
        *out = b.p;
        return GP_OK;
    }
    if (op->kind == GP_UOP_PRED) add_pred(&b, op, gpu);
    if (map) add_map(&b, map, gpu);
    if (bin) add_binary(&b, bin, gpu);
    if (map && bin) sb_add(&b, "#define GPJ_TR 1\n");
    sb_add(&b, "#line 1 \"%s\"\n%s\n", gpu ? "jit_kernels.cuh" : "jit_host.h", gpu ? gp__jit_kernels_text : gp__jit_host_text);
    if (gpu && op->kind == GP_UOP_PRED) /* gp_select_if: the built-in select's single pass over the predicate */
        sb_add(&b, "#line 1 \"lookback.cuh\"\n%s\n#line 1 \"select_lb.cuh\"\n%s\n#line 1 \"jit_select.cuh\"\n%s\n",
               gp__jit_lookback_text, gp__jit_sellb_text, gp__jit_sel_text);
    if (b.oom) {
        free(b.p);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_uop_create: the module source");
    }
    *out = b.p;
    return GP_OK;
}

size_t gp__jit_ordered_run(size_t es) { return 256 / es > 0 ? 256 / es : 1; }

int gp__jit_scan_run(size_t vb) { return vb <= 8 ? 16 : vb <= 16 ? 8 : vb <= 32 ? 4 : vb <= 64 ? 2 : 1; }

gp_status_t gp__jit_scan_source(const gp_uop_t *op, char **out)
{
    sbuf_t b = {0};
    sb_add(&b, "/* gpuprim %d user operator scan module (NVRTC) */\n", gp_version());
    sb_add(&b, "%s#define GPJ_SCAN 1\n", GPU_PRELUDE);
    sb_add(&b, "#line 1 \"jit_common.h\"\n%s\n", gp__jit_common_text);
    add_binary(&b, op, 1);
    sb_add(&b, "#line 1 \"jit_kernels.cuh\"\n%s\n", gp__jit_kernels_text);
    sb_add(&b, "constexpr int THREADS = 256;\n#line 1 \"lookback.cuh\"\n%s\n#line 1 \"scan_lb.cuh\"\n%s\n",
           gp__jit_lookback_text, gp__jit_lb_text);
    sb_add(&b, "#line 1 \"jit_scan.cuh\"\n%s\n", gp__jit_scan_text);
    if (b.oom) {
        free(b.p);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_scan_uop: the module source");
    }
    *out = b.p;
    return GP_OK;
}

gp_status_t gp__jit_sort_source(const gp_uop_t *op, size_t vb, char **out)
{
    sbuf_t b = {0};
    sb_add(&b, "/* gpuprim %d user comparison sort module (NVRTC) */\n", gp_version());
    sb_add(&b, "%s#line 1 \"jit_common.h\"\n%s\n", GPU_PRELUDE, gp__jit_common_text);
    add_less(&b, op, 1);
    const size_t es = (size_t)op->arity * gp_dtype_size(op->dtype);
    sb_add(&b, "#define GPJ_SORT 1\n#define GPJ_VB %zu\n#define GPJ_IPT %d\n#define GPJ_BST %d\n#line 1 \"jit_sort.cuh\"\n%s\n",
           vb, gp__jit_sort_ipt(es, vb), gp__jit_sort_bst(es, vb), gp__jit_sort_text);
    if (b.oom) {
        free(b.p);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_sort_uop: the module source");
    }
    *out = b.p;
    return GP_OK;
}

gp_status_t gp__jit_seg_source(const gp_uop_t *op, char **out)
{
    sbuf_t b = {0};
    sb_add(&b, "/* gpuprim %d user operator segmented module (NVRTC) */\n", gp_version());
    sb_add(&b, "%s#define GPJ_SEGM 1\n", GPU_PRELUDE);
    sb_add(&b, "#line 1 \"jit_common.h\"\n%s\n", gp__jit_common_text);
    add_binary(&b, op, 1);
    sb_add(&b, "#line 1 \"jit_kernels.cuh\"\n%s\n", gp__jit_kernels_text);
    sb_add(&b, "#define SEGQ_THREADS 256\n#line 1 \"seg_queue.cuh\"\n%s\n", gp__jit_segq_text);
    sb_add(&b, "#line 1 \"jit_seg.cuh\"\n%s\n", gp__jit_seg_text);
    if (b.oom) {
        free(b.p);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_reduce_segmented_uop: the module source");
    }
    *out = b.p;
    return GP_OK;
}

/* An operator is C text, not a program: the preprocessor's tokens (#, the digraph %: and the trigraph ??=) outside
 * string and character literals are refused, so no #include reads a file into the compiler's messages and no
 * #define expands without bound. */
gp_status_t gp__jit_check_text(const char *fn, const char *what, const char *t)
{
    char quote = 0;
    for (size_t i = 0; t[i]; i++) {
        const char c = t[i];
        if (quote) {
            if (c == '\\' && t[i + 1]) i++;
            else if (c == quote) quote = 0;
            continue;
        }
        if (c == '"' || c == '\'') {
            quote = c;
            continue;
        }
        if (c == '#' || (c == '%' && t[i + 1] == ':') || (c == '?' && t[i + 1] == '?' && t[i + 2] == '='))
            return gp__error(GP_ERR_INVALID_ARG, "%s: desc->%s byte %zu: preprocessor directives (#include, #define, "
                             "...) are not taken in an operator", fn, what, i);
    }
    return GP_OK;
}

const char *gp__uop_kind_name(gp_uop_kind_t kind)
{
    return kind == GP_UOP_BINARY ? "binary op" : kind == GP_UOP_MAP ? "map" : kind == GP_UOP_PRED ? "predicate" : "comparison";
}

static gp_status_t check_desc(const char *fn, const gp_uop_desc_t *d)
{
    if ((unsigned)d->kind > GP_UOP_LESS)
        return gp__error(GP_ERR_INVALID_ARG,
                         "%s: desc->kind %d is not GP_UOP_BINARY, GP_UOP_MAP, GP_UOP_PRED or GP_UOP_LESS", fn,
                         (int)d->kind);
    if ((unsigned)d->dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: desc->dtype %d is not a dtype", fn, (int)d->dtype);
    if (d->src == NULL || d->src[strspn(d->src, " \t\r\n")] == '\0')
        return gp__error(GP_ERR_INVALID_ARG, "%s: desc->src is empty", fn);
    if (strlen(d->src) > 16384) return gp__error(GP_ERR_INVALID_ARG, "%s: desc->src is longer than 16384 bytes", fn);
    GP_TRY_RET(gp__jit_check_text(fn, "src", d->src));
    if (d->kind == GP_UOP_BINARY && d->identity) GP_TRY_RET(gp__jit_check_text(fn, "identity", d->identity));
    const int k = d->arity == 0 ? 1 : d->arity;
    if (d->kind == GP_UOP_BINARY) {
        if (k < 1 || k > GP__JIT_MAX_ARITY)
            return gp__error(GP_ERR_INVALID_ARG, "%s: desc->arity %d is not in 1..%d", fn, d->arity, GP__JIT_MAX_ARITY);
        if (d->identity == NULL || d->identity[strspn(d->identity, " \t\r\n")] == '\0')
            return gp__error(GP_ERR_INVALID_ARG, "%s: desc->identity is empty (a binary op needs its identity)", fn);
        if (strlen(d->identity) > 16384)
            return gp__error(GP_ERR_INVALID_ARG, "%s: desc->identity is longer than 16384 bytes", fn);
        size_t st[GP__JIT_MAX_ARITY], ln[GP__JIT_MAX_ARITY];
        const int c = gp__jit_split_identity(d->identity, st, ln, GP__JIT_MAX_ARITY);
        if (c != k)
            return gp__error(GP_ERR_INVALID_ARG, "%s: desc->identity has %d component%s, the arity is %d", fn, c,
                             c == 1 ? "" : "s", k);
        for (int i = 0; i < c; i++)
            if (strspn(d->identity + st[i], " \t\r\n") >= ln[i])
                return gp__error(GP_ERR_INVALID_ARG, "%s: desc->identity component %d is empty", fn, i + 1);
        const size_t es = (size_t)k * gp_dtype_size(d->dtype);
        if (d->commutative && es != 1 && es != 2 && es != 4 && es != 8 && es != 16)
            return gp__error(GP_ERR_UNSUPPORTED,
                             "%s: a commutative op's element must be 1, 2, 4, 8 or 16 bytes (the tile tree's 16-byte "
                             "vectors), not %zu: pass commutative = 0 (the ordered tree)", fn, es);
    } else if (d->kind == GP_UOP_LESS) {
        if (k < 1 || k > GP__JIT_MAX_ARITY)
            return gp__error(GP_ERR_INVALID_ARG, "%s: desc->arity %d is not in 1..%d", fn, d->arity, GP__JIT_MAX_ARITY);
    } else {
        if (k != 1) return gp__error(GP_ERR_INVALID_ARG, "%s: desc->arity %d: maps and predicates take one value", fn, d->arity);
        if (d->kind == GP_UOP_MAP && (unsigned)d->out_dtype >= GP_DTYPE_COUNT)
            return gp__error(GP_ERR_INVALID_ARG, "%s: desc->out_dtype %d is not a dtype", fn, (int)d->out_dtype);
    }
    return GP_OK;
}

static gp_status_t uop_fill(gp_uop_t *op, const gp_uop_desc_t *d)
{
    op->kind = d->kind;
    op->dtype = d->dtype;
    op->out_dtype = d->kind == GP_UOP_MAP ? d->out_dtype : d->dtype;
    op->arity = d->arity == 0 ? 1 : d->arity;
    op->commutative = d->kind == GP_UOP_BINARY ? (d->commutative != 0) : 1;
    op->src = strdup(d->src);
    op->identity = strdup(d->kind == GP_UOP_BINARY ? d->identity : "0");
    if (!op->src || !op->identity) return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_uop_create: copies of the source");
    return GP_OK;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void uop_free(gp_uop_t *op)
{
    if (!op) return;
    free(op->src);
    free(op->identity);
    free(op->tr_src);
    free(op->tr_id);
    free(op);
}

gp_status_t gp_uop_create(gp_ctx_t *ctx, const gp_uop_desc_t *desc, gp_uop_t **out)
{
    static const char fn[] = "gp_uop_create";
    GP_ARG_NONNULL(fn, out);
    *out = NULL;
    GP_ARG_NONNULL(fn, desc);
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_NO_CAPTURE(ctx, fn, "it compiles and loads code");
    GP_TRY_RET(check_desc(fn, desc));
    const double t0 = now_s();
    gp_uop_t *op = calloc(1, sizeof *op);
    if (!op) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the handle", fn);
    op->ctx = ctx;
    char *src = NULL;
    gp_status_t st = uop_fill(op, desc);
    if (st == GP_OK) st = gp__jit_source(op, NULL, !gp__is_cpu(ctx), &src);
    if (st == GP_OK) st = gp__jit_module(ctx, fn, src, gp__jit_ordered_smem(op), &op->mod, &op->source);
    free(src);
    if (st != GP_OK) {
        uop_free(op);
        return st;
    }
    op->build_s = now_s() - t0;
    *out = op;
    return GP_OK;
}

gp_status_t gp_uop_destroy(gp_uop_t *op)
{
    uop_free(op);
    return GP_OK;
}

size_t gp_uop_value_bytes(const gp_uop_t *op)
{
    if (!op) return 0;
    return (size_t)op->arity * value_size(op->kind == GP_UOP_MAP ? op->out_dtype : op->dtype);
}

double gp_uop_build_seconds(const gp_uop_t *op, int *source)
{
    if (source) *source = op ? op->source : 0;
    return op ? op->build_s : 0.0;
}

/* ------------------------------------------------------------------------------------------ modules */
size_t gp__jit_ordered_smem(const gp_uop_t *op)
{
    if (op->kind != GP_UOP_BINARY || op->commutative) return 0;
    const size_t es = (size_t)op->arity * gp_dtype_size(op->dtype);
    if (es % 4) return 0;
    const size_t r = gp__jit_ordered_run(es);
    return (size_t)256 * ((r * es / 4) | 1) * 4;
}

static gp_status_t load_gpu(gp_ctx_t *ctx, const char *what, const char *src, gp__jit_mod_t *m, int *source)
{
    int minor = 0;
    cudaError_t e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ctx->device);
    if (e != cudaSuccess) return gp__cuda_error(e, "compute capability", __FILE__, __LINE__);
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d%d", ctx->cc_major, minor);
    void *cubin = NULL;
    size_t bytes = 0;
    GP_TRY_RET(gp__jit_cubin(what, src, arch, &cubin, &bytes, source));
    e = cudaLibraryLoadData(&m->lib, cubin, NULL, NULL, 0, NULL, NULL, 0);
    free(cubin);
    if (e != cudaSuccess) return gp__cuda_error(e, "loading a user operator's module", __FILE__, __LINE__);
    /* only the kernels this module defines (a failed lookup is an API error to compute-sanitizer) */
    const int bin = strstr(src, "#define GPJ_BINARY 1") != NULL, map = strstr(src, "#define GPJ_MAP 1") != NULL,
              tr = strstr(src, "#define GPJ_TR 1") != NULL, scan = strstr(src, "#define GPJ_SCAN 1") != NULL;
    if (scan) {
        if ((e = cudaLibraryGetKernel(&m->k_scan, m->lib, "gpj_scan")) != cudaSuccess)
            return gp__cuda_error(e, "a user operator's scan kernel", __FILE__, __LINE__);
        return GP_OK;
    }
    if (strstr(src, "#define GPJ_SORT 1")) {
        if ((e = cudaLibraryGetKernel(&m->k_bsort, m->lib, "gpj_bsort")) != cudaSuccess ||
            (e = cudaLibraryGetKernel(&m->k_part, m->lib, "gpj_part")) != cudaSuccess ||
            (e = cudaLibraryGetKernel(&m->k_merge, m->lib, "gpj_merge")) != cudaSuccess)
            return gp__cuda_error(e, "a user comparison's sort kernels", __FILE__, __LINE__);
        return GP_OK;
    }
    if (strstr(src, "#define GPJ_SEGM 1")) {
        if ((e = cudaLibraryGetKernel(&m->k_seg, m->lib, "gpj_seg")) != cudaSuccess)
            return gp__cuda_error(e, "a user operator's segmented kernel", __FILE__, __LINE__);
        return GP_OK;
    }
    if (strstr(src, "#define GPJ_PRED 1")) {
        void *shape = NULL;
        size_t sb = 0;
        if ((e = cudaLibraryGetKernel(&m->k_select, m->lib, "gpj_select")) != cudaSuccess ||
            (e = cudaLibraryGetGlobal(&shape, &sb, m->lib, "gpj_select_shape")) != cudaSuccess ||
            (e = sb == sizeof m->sel_shape ? cudaMemcpy(m->sel_shape, shape, sb, cudaMemcpyDeviceToHost)
                                           : cudaErrorInvalidValue) != cudaSuccess)
            return gp__cuda_error(e, "a user predicate's select kernel", __FILE__, __LINE__);
    }
    if (bin && (e = cudaLibraryGetKernel(&m->k_reduce, m->lib, "gpj_reduce")) != cudaSuccess)
        return gp__cuda_error(e, "a user operator's reduce kernel", __FILE__, __LINE__);
    if (map && !tr && (e = cudaLibraryGetKernel(&m->k_transform, m->lib, "gpj_transform")) != cudaSuccess)
        return gp__cuda_error(e, "a user operator's transform kernel", __FILE__, __LINE__);
    m->blocks_per_sm = 1;
    if (m->k_reduce) {
        int per = 0;
        if (m->smem > 48 * 1024 &&
            (e = cudaFuncSetAttribute((const void *)m->k_reduce, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)m->smem)) != cudaSuccess)
            return gp__cuda_error(e, "shared memory of a user operator's kernel", __FILE__, __LINE__);
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, (const void *)m->k_reduce, 256, m->smem);
        if (e != cudaSuccess) return gp__cuda_error(e, "occupancy of a user operator's kernel", __FILE__, __LINE__);
        m->blocks_per_sm = per > 0 ? per : 1;
    }
    return GP_OK;
}

static gp_status_t load_cpu(const char *what, const char *src, gp__jit_mod_t *m, int *source)
{
    GP_TRY_RET(gp__jit_so(what, src, &m->so, source));
    return GP_OK;
}

/* dlsym without the object-to-function pointer cast warning */
#include <dlfcn.h>
static void *sym(void *so, const char *name) { return dlsym(so, name); }

/* Frees every module of a context: its attachment's release (gp_ctx_destroy; the device is current). */
static void jit_release(gp_ctx_t *ctx, void *data);
static const char k_jit_attach = 0; /* the key of the modules' slot on a context */

gp_status_t gp__jit_module(gp_ctx_t *ctx, const char *what, const char *src, size_t smem, gp__jit_mod_t **out,
                           int *source)
{
    const int gpu = !gp__is_cpu(ctx);
    uint64_t key[2];
    gp__jit_hash(src, strlen(src), key);
    pthread_mutex_lock(&g_mods_lock);
    void **slot = gp__ctx_attach(ctx, &k_jit_attach, jit_release);
    if (!slot) {
        pthread_mutex_unlock(&g_mods_lock);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the context's module list", what);
    }
    for (gp__jit_mod_t *m = *slot; m; m = m->next)
        if (m->key[0] == key[0] && m->key[1] == key[1]) {
            pthread_mutex_unlock(&g_mods_lock);
            *out = m;
            *source = GP__JIT_MEMORY;
            return GP_OK;
        }
    pthread_mutex_unlock(&g_mods_lock);
    gp__jit_mod_t *m = calloc(1, sizeof *m);
    if (!m) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: a module", what);
    m->key[0] = key[0];
    m->key[1] = key[1];
    m->gpu = gpu;
    m->smem = smem;
    gp_status_t st = gpu ? load_gpu(ctx, what, src, m, source) : load_cpu(what, src, m, source);
    if (st == GP_OK && !gpu) {
        void *p;
        if ((p = sym(m->so, "gpj_h_tiles"))) memcpy(&m->h_tiles, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_fold"))) memcpy(&m->h_fold, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_ident"))) memcpy(&m->h_ident, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_map"))) memcpy(&m->h_map, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_scan_tile"))) memcpy(&m->h_scan_tile, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_scan_out"))) memcpy(&m->h_scan_out, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_comb"))) memcpy(&m->h_comb, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_count"))) memcpy(&m->h_count, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_select"))) memcpy(&m->h_select, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_seg"))) memcpy(&m->h_seg, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_split"))) memcpy(&m->h_split, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_merge"))) memcpy(&m->h_merge, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_sortrun"))) memcpy(&m->h_sortrun, &p, sizeof p);
        if ((p = sym(m->so, "gpj_h_tile_elems"))) m->tile_elems = *(const size_t *)p;
        if ((p = sym(m->so, "gpj_h_group_elems"))) m->group_elems = *(const size_t *)p;
    }
    if (st != GP_OK) {
        if (m->lib) cudaLibraryUnload(m->lib);
        if (m->so) dlclose(m->so);
        free(m);
        return st;
    }
    pthread_mutex_lock(&g_mods_lock);
    m->next = *slot;
    *slot = m;
    pthread_mutex_unlock(&g_mods_lock);
    *out = m;
    return GP_OK;
}

static void jit_release(gp_ctx_t *ctx, void *data)
{
    (void)ctx;
    gp__jit_mod_t *m = data;
    while (m) {
        gp__jit_mod_t *next = m->next;
        if (m->lib) cudaLibraryUnload(m->lib);
        if (m->so) dlclose(m->so);
        free(m);
        m = next;
    }
    (void)cudaGetLastError();
}

gp_status_t gp__uop_compile_test(const gp_uop_desc_t *desc, const char *arch, int which, int *source,
                                 double *seconds)
{
    GP_TRY_RET(check_desc("gp__uop_compile_test", desc));
    gp_uop_t op;
    memset(&op, 0, sizeof op);
    gp_status_t st = uop_fill(&op, desc);
    char *src = NULL;
    if (st == GP_OK)
        st = which == 1 ? gp__jit_scan_source(&op, &src)
             : which == 2 ? gp__jit_seg_source(&op, &src)
             : which == 3 ? gp__jit_sort_source(&op, 16, &src)
                          : gp__jit_source(&op, NULL, 1, &src);
    const double t0 = now_s();
    void *cubin = NULL;
    size_t bytes = 0;
    if (st == GP_OK) st = gp__jit_cubin("gp_uop_create", src, arch, &cubin, &bytes, source);
    if (seconds) *seconds = now_s() - t0;
    free(cubin);
    free(src);
    free(op.src);
    free(op.identity);
    return st;
}
