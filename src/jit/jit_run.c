/*
 * jit_run.c — the calls that run user operators: gp_reduce_uop, gp_transform, gp_transform_reduce. GPU: the module's
 * kernels launched on the stream (the reduce kernel's tile results in the context workspace, the last block folding
 * them); CPU: the shared object's tile functions over OpenMP chunks of tiles, the levels folded serially.
 */
#define _GNU_SOURCE
#include "jit_internal.h"
#include "../scan/scan_internal.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------ traps (CPU backend) */
/* A trap in user code (an integer division by zero, an invalid address, a stack overflow) while a CPU operator runs
 * jumps back to the guard around that call on its own thread, and the call returns GP_ERR_USER_TRAP (gpuprim.h).
 * The handlers are the process's while any thread runs an operator (counted: calls on several threads, each on its
 * own context, share one installation), then the earlier ones come back; a fault outside a guard is handed to the
 * earlier handler. They run on an alternate stack of the thread's (its own, or one made here and kept for the
 * thread's life), so a stack overflow in user code reaches them. */
static __thread sigjmp_buf *t_jb;
static __thread volatile sig_atomic_t t_sig;
static const int k_trap_sigs[4] = {SIGFPE, SIGILL, SIGSEGV, SIGBUS};
static pthread_mutex_t g_trap_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_trap_users;                /* threads inside gp__jit_traps_on .. off */
static struct sigaction g_trap_old[4]; /* the handlers before the first of them */

static void on_trap(int sig)
{
    if (t_jb) {
        t_sig = sig;
        siglongjmp(*t_jb, 1);
    }
    for (int i = 0; i < 4; i++) /* not an operator's: the fault repeats under the earlier handler */
        if (k_trap_sigs[i] == sig) sigaction(sig, &g_trap_old[i], NULL);
}

typedef gp__jit_traps_t traps_t;

void gp__jit_traps_on(traps_t *t)
{
    t->trap = 0;
    pthread_mutex_lock(&g_trap_lock);
    if (g_trap_users++ == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_trap;
        sa.sa_flags = SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        for (int i = 0; i < 4; i++) sigaction(k_trap_sigs[i], &sa, &g_trap_old[i]);
    }
    pthread_mutex_unlock(&g_trap_lock);
}

gp_status_t gp__jit_traps_off(traps_t *t, const char *fn)
{
    pthread_mutex_lock(&g_trap_lock);
    if (--g_trap_users == 0)
        for (int i = 0; i < 4; i++) sigaction(k_trap_sigs[i], &g_trap_old[i], NULL);
    pthread_mutex_unlock(&g_trap_lock);
    const int s = t->trap;
    if (s == 0) return GP_OK;
    return gp__error(GP_ERR_USER_TRAP, "%s: the operator trapped on the CPU backend (%s%s); its output is undefined",
                     fn, s == SIGFPE ? "SIGFPE" : s == SIGILL ? "SIGILL" : s == SIGSEGV ? "SIGSEGV" : "SIGBUS",
                     s == SIGFPE ? ": an integer division by zero or overflow"
                     : s == SIGSEGV || s == SIGBUS ? ": an invalid memory access or a stack overflow" : "");
}

/* The thread's alternate signal stack: kept if it has one, else one made here, freed when the thread ends. */
enum { ALT_STACK_BYTES = 64 * 1024 };
static pthread_key_t g_alt_key;
static pthread_once_t g_alt_once = PTHREAD_ONCE_INIT;
static __thread int t_alt_ready;
static void alt_free(void *p)
{
    stack_t off;
    memset(&off, 0, sizeof off);
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, NULL);
    free(p);
}
static void alt_key_make(void) { pthread_key_create(&g_alt_key, alt_free); }
static void alt_stack_ensure(void)
{
    if (t_alt_ready) return;
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) {
        t_alt_ready = 1;
        return;
    }
    pthread_once(&g_alt_once, alt_key_make);
    void *mem = malloc(ALT_STACK_BYTES);
    if (!mem) return; /* then a stack overflow is not caught: the process ends as it would have */
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = mem;
    ss.ss_size = ALT_STACK_BYTES;
    if (sigaltstack(&ss, NULL) != 0) {
        free(mem);
        return;
    }
    pthread_setspecific(g_alt_key, mem);
    t_alt_ready = 1;
}

/* Runs run(arg) on this thread under the trap guard (its own frame: nothing here changes after sigsetjmp). Returns
 * 0, or 1 after a trap (recorded in t->trap). */
__attribute__((noinline)) int gp__jit_guarded(traps_t *t, void (*run)(void *), void *arg)
{
    alt_stack_ensure();
    sigjmp_buf jb;
    if (sigsetjmp(jb, 1) != 0) {
        t_jb = NULL;
        __atomic_store_n(&t->trap, (int)t_sig, __ATOMIC_RELAXED);
        return 1;
    }
    t_jb = &jb;
    run(arg);
    t_jb = NULL;
    return 0;
}

/* One call into the operator's module, run under the guard: which function and its arguments. */
typedef enum { U_IDENT, U_TILES, U_FOLD, U_SEG, U_MAP, U_SCAN_TILE, U_SCAN_OUT, U_COMBS, U_COUNT, U_SELECT } ukind_t;
typedef struct ucall {
    ukind_t kind;
    const gp__jit_mod_t *m;
    const void *p0, *p1;
    void *p2, *p3, *p4;
    size_t z0, z1, z2;
    int flag;
    size_t ret;
} ucall_t;

static void ucall_run(ucall_t *u)
{
    const gp__jit_mod_t *m = u->m;
    switch (u->kind) {
    case U_IDENT: m->h_ident(u->p2); break;
    case U_TILES: m->h_tiles(u->p0, u->z0, u->z1, u->z2, u->p2); break;
    case U_FOLD: m->h_fold(u->p0, u->z0, u->z1, u->z2, u->p2); break;
    case U_SEG: u->ret = (size_t)m->h_seg(u->p0, u->z0, (const long long *)u->p1, u->z1, u->z2, u->p2); break;
    case U_MAP: m->h_map(u->p0, u->p2, u->z0, u->z1); break;
    case U_SCAN_TILE: m->h_scan_tile(u->p0, u->z0, u->p2, u->p3, u->p4); break;
    case U_SCAN_OUT: m->h_scan_out(u->p0, u->z0, u->p1, u->flag, u->p2); break;
    case U_COMBS: /* the carries' left fold: C[t] = C[t-1] o C[t] for t = 2 .. z0 (z1: value bytes) */
        for (size_t t = 2; t <= u->z0; t++) {
            char *c = u->p2;
            m->h_comb(c + (t - 1) * u->z1, c + t * u->z1, c + t * u->z1);
        }
        break;
    case U_COUNT: u->ret = m->h_count(u->p0, u->z0, u->z1); break;
    case U_SELECT: m->h_select(u->p0, u->z0, u->z1, u->p2); break;
    }
}

static void ucall_thunk(void *u) { ucall_run(u); }
static int guarded(traps_t *tr, ucall_t *u) { return gp__jit_guarded(tr, ucall_thunk, u); }

/* Bytes of one input element of a reduce: arity components of dtype (transform-reduce: one x). */
static size_t elem_bytes(const gp_uop_t *op) { return (size_t)op->arity * gp_dtype_size(op->dtype); }

static size_t gpu_tile_elems(int commutative, size_t es)
{
    if (commutative) return (size_t)256 * 16 * (16 / es);
    return (size_t)256 * gp__jit_ordered_run(es);
}

static gp_status_t check_common(const char *fn, gp_ctx_t *ctx, const gp_uop_t *op, gp_uop_kind_t kind,
                                const char *which)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if (op == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: %s is NULL", fn, which);
    if (op->ctx != ctx)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s was created on another context", fn, which);
    if (op->kind != kind)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s is a %s, not a %s", fn, which, gp__uop_kind_name(op->kind),
                         gp__uop_kind_name(kind));
    return GP_OK;
}

static gp_status_t check_x(const char *fn, size_t n, const void *x, gp_dtype_t dtype, size_t es, const char *name)
{
    size_t bytes;
    if (!gp__mul_ok(n, es, &bytes)) return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu elements overflow", fn, n);
    if (n && x == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: %s is NULL", fn, name);
    if (n && ((uintptr_t)x % gp_dtype_size(dtype)) != 0)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s is not aligned to its dtype (%zu bytes)", fn, name,
                         gp_dtype_size(dtype));
    return GP_OK;
}

/* ------------------------------------------------------------------------------------------ reduce */
static gp_status_t reduce_gpu(gp_ctx_t *ctx, const char *fn, gp__jit_mod_t *m, int commutative, size_t es,
                              size_t vbytes, size_t n, const void *x, void *result, void *host, cudaStream_t stream)
{
    if (!m->k_reduce) return gp__error(GP_ERR_INTERNAL, "%s: the module has no reduce kernel", fn);
    const size_t tile = gpu_tile_elems(commutative, es), ntiles = (n + tile - 1) / tile;
    const size_t fill = (size_t)m->blocks_per_sm * (size_t)ctx->sm_count;
    const size_t per = ntiles ? (ntiles + fill - 1) / fill : 1;
    const unsigned grid = ntiles ? (unsigned)((ntiles + per - 1) / per) : 1u;
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, 256 + (ntiles ? ntiles : 1) * vbytes, &ws));
    void *res = host ? ws : result;
    void *partials = (char *)ws + 256;
    unsigned *counter = ctx->counters + GP__COUNTER_JIT;
    int aligned = ((uintptr_t)x & 15) == 0 ? 2 : ((uintptr_t)x & 3) == 0 ? 1 : 0; /* 16-byte, 4-byte, neither */
    size_t nn = n, nt = ntiles;
    void *args[] = {(void *)&x, &nn, &nt, &aligned, &partials, &counter, &res};
    /* on sm_90 a programmatic dependent launch, as gp_reduce's (the kernel waits for the previous one first) */
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute at[1];
    memset(&cfg, 0, sizeof cfg);
    memset(at, 0, sizeof at);
    cfg.gridDim = gp__jit_dim3(grid);
    cfg.blockDim = gp__jit_dim3(256);
    cfg.dynamicSmemBytes = m->smem;
    cfg.stream = stream;
    if (ctx->cc_major >= 9) {
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = at;
        cfg.numAttrs = 1;
    }
    cudaError_t e = cudaLaunchKernelExC(&cfg, (const void *)m->k_reduce, args);
    if (e != cudaSuccess) return gp__cuda_error(e, fn, __FILE__, __LINE__);
    GP_TRY_RET(GP_CHECK_LAUNCH(fn));
    if (!host) return GP_OK;
    e = cudaMemcpyAsync(host, res, vbytes, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    return e == cudaSuccess ? GP_OK : gp__cuda_error(e, "the result", __FILE__, __LINE__);
}

static gp_status_t reduce_cpu(const char *fn, gp__jit_mod_t *m, size_t vbytes, size_t es, size_t n, const void *x,
                              void *result)
{
    if (!m->h_tiles || !m->h_fold || !m->h_ident || !m->tile_elems || !m->group_elems)
        return gp__error(GP_ERR_INTERNAL, "%s: the module has no reduce functions", fn);
    traps_t tr;
    if (n == 0) {
        gp__jit_traps_on(&tr);
        ucall_t u = {U_IDENT, m, NULL, NULL, result, NULL, NULL, 0, 0, 0, 0, 0};
        guarded(&tr, &u);
        return gp__jit_traps_off(&tr, fn);
    }
    const size_t ntiles = (n + m->tile_elems - 1) / m->tile_elems;
    char *a = malloc(ntiles * vbytes), *b = malloc(((ntiles + m->group_elems - 1) / m->group_elems) * vbytes + 1);
    if (!a || !b) {
        free(a);
        free(b);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu tile results", fn, ntiles);
    }
    const size_t per = 16, chunks = (ntiles + per - 1) / per;
    const int par = gp__cpu_par(1, n * es);
    gp__jit_traps_on(&tr);
#pragma omp parallel for schedule(dynamic, 1) if (par)
    for (long c = 0; c < (long)chunks; c++) {
        const size_t t0 = (size_t)c * per, t1 = t0 + per < ntiles ? t0 + per : ntiles;
        ucall_t u = {U_TILES, m, x, NULL, a, NULL, NULL, n, t0, t1, 0, 0};
        guarded(&tr, &u);
    }
    size_t mm = ntiles;
    while (mm > 1 && tr.trap == 0) {
        const size_t groups = (mm + m->group_elems - 1) / m->group_elems;
        ucall_t u = {U_FOLD, m, a, NULL, b, NULL, NULL, mm, 0, groups, 0, 0};
        guarded(&tr, &u);
        char *t = a;
        a = b;
        b = t;
        mm = groups;
    }
    const gp_status_t st = gp__jit_traps_off(&tr, fn);
    if (st == GP_OK) memcpy(result, a, vbytes);
    free(a);
    free(b);
    return st;
}

static gp_status_t reduce_uop(const char *fn, gp_ctx_t *ctx, const gp_uop_t *op, size_t n, const void *x,
                              void *result, void *host, gp_stream_t stream)
{
    GP_TRY_RET(check_common(fn, ctx, op, GP_UOP_BINARY, "op"));
    const size_t es = elem_bytes(op);
    GP_TRY_RET(check_x(fn, n, x, op->dtype, es, "x"));
    if (!host && !result) return gp__error(GP_ERR_INVALID_ARG, "%s: result is NULL", fn);
    if (host && !result) return gp__error(GP_ERR_INVALID_ARG, "%s: result_host is NULL", fn);
    const size_t vb = gp_uop_value_bytes(op);
    if (gp__is_cpu(ctx)) return reduce_cpu(fn, op->mod, vb, es, n, x, result);
    GP_TRY_RET(host ? gp__no_capture(ctx, fn, "it waits for the result") : GP_OK);
    return reduce_gpu(ctx, fn, op->mod, op->commutative, es, vb, n, x, host ? NULL : result, host ? result : NULL,
                      (cudaStream_t)stream);
}

gp_status_t gp_reduce_uop(gp_ctx_t *ctx, const gp_uop_t *op, size_t n, const void *x, void *result,
                          gp_stream_t stream)
{
    return reduce_uop("gp_reduce_uop", ctx, op, n, x, result, NULL, stream);
}

gp_status_t gp_reduce_uop_sync(gp_ctx_t *ctx, const gp_uop_t *op, size_t n, const void *x, void *result_host)
{
    return reduce_uop("gp_reduce_uop_sync", ctx, op, n, x, result_host, result_host, NULL);
}

/* ------------------------------------------------------------------------------------------ segmented */
gp_status_t gp_reduce_segmented_uop(gp_ctx_t *ctx, const gp_uop_t *op, size_t n, const void *x, size_t nseg,
                                    const int64_t *offsets, void *out, gp_stream_t stream)
{
    static const char fn[] = "gp_reduce_segmented_uop";
    GP_TRY_RET(check_common(fn, ctx, op, GP_UOP_BINARY, "op"));
    const size_t es = elem_bytes(op), vb = gp_uop_value_bytes(op);
    GP_TRY_RET(check_x(fn, n, x, op->dtype, es, "x"));
    size_t bytes;
    if (nseg >= (size_t)1 << 60 || !gp__mul_ok(nseg, vb, &bytes))
        return gp__error(GP_ERR_OVERFLOW, "%s: nseg = %zu segments overflow", fn, nseg);
    if (nseg == 0) return GP_OK;
    if (offsets == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: offsets is NULL", fn);
    if (((uintptr_t)offsets & 7) != 0) return gp__error(GP_ERR_INVALID_ARG, "%s: offsets is not 8-byte aligned", fn);
    if (out == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: out is NULL", fn);
    const size_t va = vb / (size_t)op->arity; /* the value type's size */
    if (((uintptr_t)out % va) != 0)
        return gp__error(GP_ERR_INVALID_ARG, "%s: out is not aligned to the op's value type (%zu bytes)", fn, va);
    if (n > ((size_t)1 << 62) / (es > 0 ? es : 1)) return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu elements", fn, n);
    if (gp__is_cpu(ctx)) {
        gp__jit_mod_t *m = op->mod;
        if (!m->h_seg) return gp__error(GP_ERR_INTERNAL, "%s: the module has no segmented function", fn);
        const size_t per = 256, chunks = (nseg + per - 1) / per;
        int fail = 0;
        const int par = gp__cpu_par(1, n * es) && chunks > 1;
        traps_t tr;
        gp__jit_traps_on(&tr);
#pragma omp parallel for schedule(dynamic, 1) if (par) reduction(| : fail)
        for (long c = 0; c < (long)chunks; c++) {
            const size_t s0 = (size_t)c * per, s1 = s0 + per < nseg ? s0 + per : nseg;
            int f = 0;
            ucall_t u = {U_SEG, m, x, offsets, out, NULL, NULL, n, s0, s1, 0, 0};
            if (guarded(&tr, &u) == 0) f = u.ret != 0;
            fail |= f;
        }
        GP_TRY_RET(gp__jit_traps_off(&tr, fn));
        return fail ? gp__error(GP_ERR_OUT_OF_MEMORY, "%s: tile values of a segment", fn) : GP_OK;
    }
    gp_uop_t *mo = (gp_uop_t *)op;
    if (!mo->seg_mod) { /* the segmented kernel's module, built on first use */
        GP_TRY_RET(gp__no_capture(ctx, fn, "its first call compiles the segmented kernel"));
        char *src = NULL;
        int source = 0;
        GP_TRY_RET(gp__jit_seg_source(op, &src));
        gp_status_t st = gp__jit_module(ctx, fn, src, 0, &mo->seg_mod, &source);
        free(src);
        if (st != GP_OK) return st;
    }
    gp__jit_mod_t *m = mo->seg_mod;
    if (!m->k_seg) return gp__error(GP_ERR_INTERNAL, "%s: the module has no segmented kernel", fn);
    /* the chunk of a large segment (jit_seg.cuh): 16384 elements (commutative), one ordered tile otherwise */
    const size_t chunk = op->commutative ? 16384 : gpu_tile_elems(0, es), cap = 2 * (n / chunk) + 2;
    /* workspace (seg_queue.cuh): the queue (512 bytes), per chunk slot a descriptor (16), a value, a counter (4) */
    const size_t part_off = 512 + cap * 16, cnt_off = (part_off + cap * vb + 15) / 16 * 16;
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, cnt_off + cap * 4, &ws));
    char *w = ws;
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e = cudaMemsetAsync(w, 0, part_off, s);
    if (e == cudaSuccess) e = cudaMemsetAsync(w + cnt_off, 0, cap * 4, s);
    if (e != cudaSuccess) return gp__cuda_error(e, "clearing the segment queue", __FILE__, __LINE__);
    int per = 0;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, (const void *)m->k_seg, 256, 0);
    if (e != cudaSuccess) return gp__cuda_error(e, "occupancy of the segmented kernel", __FILE__, __LINE__);
    size_t grid = (size_t)(per > 0 ? per : 1) * (size_t)ctx->sm_count;
    const size_t work = (nseg + 31) / 32 + n / chunk;
    if (grid > work) grid = work ? work : 1;
    void *q = w, *desc = w + 512, *part = w + part_off, *cnt = w + cnt_off;
    size_t nn = n, ns = nseg, cp = cap;
    void *args[] = {(void *)&x, &nn, &ns, (void *)&offsets, &out, &q, &desc, &part, &cnt, &cp};
    e = cudaLaunchKernel((const void *)m->k_seg, gp__jit_dim3((unsigned)grid), gp__jit_dim3(256), args, 0, s);
    if (e != cudaSuccess) return gp__cuda_error(e, fn, __FILE__, __LINE__);
    return GP_CHECK_LAUNCH(fn);
}

/* ------------------------------------------------------------------------------------------ transform */
gp_status_t gp_transform(gp_ctx_t *ctx, const gp_uop_t *map, size_t n, const void *x, void *y, gp_stream_t stream)
{
    static const char fn[] = "gp_transform";
    GP_TRY_RET(check_common(fn, ctx, map, GP_UOP_MAP, "map"));
    GP_TRY_RET(check_x(fn, n, x, map->dtype, gp_dtype_size(map->dtype), "x"));
    GP_TRY_RET(check_x(fn, n, y, map->out_dtype, gp_dtype_size(map->out_dtype), "y"));
    if (n == 0) return GP_OK;
    gp__jit_mod_t *m = map->mod;
    if (gp__is_cpu(ctx)) {
        if (!m->h_map) return gp__error(GP_ERR_INTERNAL, "%s: the module has no map function", fn);
        const size_t per = 65536, chunks = (n + per - 1) / per;
        const int par = gp__cpu_par(1, n * (gp_dtype_size(map->dtype) + gp_dtype_size(map->out_dtype)));
        traps_t tr;
        gp__jit_traps_on(&tr);
#pragma omp parallel for schedule(static) if (par)
        for (long c = 0; c < (long)chunks; c++) {
            const size_t i0 = (size_t)c * per, i1 = i0 + per < n ? i0 + per : n;
            ucall_t u = {U_MAP, m, x, NULL, y, NULL, NULL, i0, i1, 0, 0, 0};
            guarded(&tr, &u);
        }
        return gp__jit_traps_off(&tr, fn);
    }
    if (!m->k_transform) return gp__error(GP_ERR_INTERNAL, "%s: the module has no transform kernel", fn);
    const size_t want = (n + 1023) / 1024, cap = (size_t)ctx->sm_count * 8;
    const unsigned grid = (unsigned)(want < cap ? want : cap);
    size_t nn = n;
    void *args[] = {(void *)&x, &y, &nn};
    cudaError_t e = cudaLaunchKernel((const void *)m->k_transform, gp__jit_dim3(grid), gp__jit_dim3(256), args, 0,
                                     (cudaStream_t)stream);
    if (e != cudaSuccess) return gp__cuda_error(e, fn, __FILE__, __LINE__);
    return GP_CHECK_LAUNCH(fn);
}

/* ------------------------------------------------------------------------------------------ transform-reduce */
static gp_status_t transform_reduce(const char *fn, gp_ctx_t *ctx, const gp_uop_t *map, const gp_uop_t *op, size_t n,
                                    const void *x, void *result, void *host, gp_stream_t stream)
{
    GP_TRY_RET(check_common(fn, ctx, map, GP_UOP_MAP, "map"));
    GP_TRY_RET(check_common(fn, ctx, op, GP_UOP_BINARY, "op"));
    if (op->dtype != map->out_dtype)
        return gp__error(GP_ERR_INVALID_ARG, "%s: op's dtype %s is not map's out_dtype %s", fn,
                         gp_dtype_name(op->dtype), gp_dtype_name(map->out_dtype));
    if (!op->commutative || op->arity != 1)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: op must be commutative and of arity 1 (the tile tree over x)", fn);
    const size_t es = gp_dtype_size(map->dtype);
    GP_TRY_RET(check_x(fn, n, x, map->dtype, es, "x"));
    if (!result) return gp__error(GP_ERR_INVALID_ARG, "%s: %s is NULL", fn, host ? "result_host" : "result");
    /* the fused module: remembered on the map for the last op it met (source texts compared) */
    gp_uop_t *mm = (gp_uop_t *)map;
    gp__jit_mod_t *m = NULL;
    if (mm->tr_mod && mm->tr_src && strcmp(mm->tr_src, op->src) == 0 && strcmp(mm->tr_id, op->identity) == 0 &&
        mm->tr_dtype == op->dtype)
        m = mm->tr_mod;
    if (!m) {
        char *src = NULL;
        int source = 0;
        GP_TRY_RET(gp__no_capture(ctx, fn, "its first call with this op compiles code"));
        GP_TRY_RET(gp__jit_source(map, op, !gp__is_cpu(ctx), &src));
        gp_status_t st = gp__jit_module(ctx, fn, src, 0, &m, &source);
        free(src);
        if (st != GP_OK) return st;
        char *s1 = strdup(op->src), *s2 = strdup(op->identity);
        if (s1 && s2) {
            free(mm->tr_src);
            free(mm->tr_id);
            mm->tr_src = s1;
            mm->tr_id = s2;
            mm->tr_dtype = op->dtype;
            mm->tr_mod = m;
        } else {
            free(s1);
            free(s2);
        }
    }
    const size_t vb = gp_uop_value_bytes(op);
    if (gp__is_cpu(ctx)) return reduce_cpu(fn, m, vb, es, n, x, result);
    GP_TRY_RET(host ? gp__no_capture(ctx, fn, "it waits for the result") : GP_OK);
    return reduce_gpu(ctx, fn, m, 1, es, vb, n, x, host ? NULL : result, host ? result : NULL, (cudaStream_t)stream);
}

gp_status_t gp_transform_reduce(gp_ctx_t *ctx, const gp_uop_t *map, const gp_uop_t *op, size_t n, const void *x,
                                void *result, gp_stream_t stream)
{
    return transform_reduce("gp_transform_reduce", ctx, map, op, n, x, result, NULL, stream);
}

gp_status_t gp_transform_reduce_sync(gp_ctx_t *ctx, const gp_uop_t *map, const gp_uop_t *op, size_t n, const void *x,
                                     void *result_host)
{
    return transform_reduce("gp_transform_reduce_sync", ctx, map, op, n, x, result_host, result_host, NULL);
}

/* ------------------------------------------------------------------------------------------ scan */
static gp_status_t scan_cpu(const char *fn, gp__jit_mod_t *mod, size_t vb, size_t eb, size_t n, const void *x,
                            void *y, int excl)
{
    if (!mod->h_scan_tile || !mod->h_scan_out || !mod->h_comb)
        return gp__error(GP_ERR_INTERNAL, "%s: the module has no scan functions", fn);
    const size_t tile = (size_t)256 * (size_t)gp__jit_scan_run(vb), nt = (n + tile - 1) / tile;
    char *C = malloc((nt + 1) * vb); /* C[t]: the carry into tile t (t >= 1) */
    int fail = C == NULL;
    const int par = gp__cpu_par(1, n * eb) && nt > 1;
    traps_t tr;
    gp__jit_traps_on(&tr);
#pragma omp parallel if (par) reduction(| : fail)
    {
        char *L = malloc((tile + 256 + 8) * vb);
        fail |= L == NULL;
#pragma omp for schedule(static)
        for (long t = 0; t < (long)nt; t++) {
            if (!L || !C) continue;
            const size_t m = n - (size_t)t * tile < tile ? n - (size_t)t * tile : tile;
            ucall_t u = {U_SCAN_TILE, mod, (const char *)x + (size_t)t * tile * eb, NULL, L, L + tile * vb,
                         L + (tile + 256) * vb, m, 0, 0, 0, 0};
            guarded(&tr, &u);
            memcpy(C + ((size_t)t + 1) * vb, L + (m - 1) * vb, vb); /* A_t, until the carries */
        }
#pragma omp single
        if (C) /* I_t = I_(t-1) o A_t: the left fold */
        {
            ucall_t u = {U_COMBS, mod, NULL, NULL, C, NULL, NULL, nt, vb, 0, 0, 0};
            guarded(&tr, &u);
        }
#pragma omp for schedule(static)
        for (long t = 0; t < (long)nt; t++) {
            if (!L || !C) continue;
            const size_t m = n - (size_t)t * tile < tile ? n - (size_t)t * tile : tile;
            ucall_t u = {U_SCAN_TILE, mod, (const char *)x + (size_t)t * tile * eb, NULL, L, L + tile * vb,
                         L + (tile + 256) * vb, m, 0, 0, 0, 0};
            ucall_t o = {U_SCAN_OUT, mod, L, t ? C + (size_t)t * vb : NULL, (char *)y + (size_t)t * tile * eb, NULL,
                         NULL, m, 0, 0, excl, 0};
            if (guarded(&tr, &u) == 0) guarded(&tr, &o);
        }
        free(L);
    }
    free(C);
    GP_TRY_RET(gp__jit_traps_off(&tr, fn));
    return fail ? gp__error(GP_ERR_OUT_OF_MEMORY, "%s: tile buffers", fn) : GP_OK;
}

gp_status_t gp_scan_uop(gp_ctx_t *ctx, const gp_uop_t *op, gp_scan_kind_t kind, size_t n, const void *x, void *y,
                        gp_stream_t stream)
{
    static const char fn[] = "gp_scan_uop";
    GP_TRY_RET(check_common(fn, ctx, op, GP_UOP_BINARY, "op"));
    if (kind != GP_SCAN_INCLUSIVE && kind != GP_SCAN_EXCLUSIVE)
        return gp__error(GP_ERR_INVALID_ARG, "%s: kind %d is not GP_SCAN_INCLUSIVE or GP_SCAN_EXCLUSIVE", fn, (int)kind);
    const size_t eb = elem_bytes(op), vb = gp_uop_value_bytes(op);
    if (eb % 4)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: elements of %zu bytes: scans take whole 4-byte words (f32, i32 "
                         "and wider, or tuples of 4k bytes)", fn, eb);
    /* the look-back kernel parks the in-tile values in the elements' own words while it waits: exact only where a
     * value is its element (f16 / bf16 compute in f32, wider than their storage) */
    if (op->dtype == GP_F16 || op->dtype == GP_BF16)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s elements compute in f32: scan them as f32 (gp_transform to f32 "
                         "first)", fn, gp_dtype_name(op->dtype));
    GP_TRY_RET(check_x(fn, n, x, op->dtype, eb, "x"));
    GP_TRY_RET(check_x(fn, n, y, op->dtype, eb, "y"));
    if (n && (((uintptr_t)x | (uintptr_t)y) & 3))
        return gp__error(GP_ERR_INVALID_ARG, "%s: x and y must be 4-byte aligned", fn);
    if (n == 0) return GP_OK;
    if (gp__is_cpu(ctx)) return scan_cpu(fn, op->mod, vb, eb, n, x, y, kind == GP_SCAN_EXCLUSIVE);
    gp_uop_t *mo = (gp_uop_t *)op;
    if (!mo->scan_mod) { /* the scan kernel's module, built on first use */
        GP_TRY_RET(gp__no_capture(ctx, fn, "its first call compiles the scan kernel"));
        char *src = NULL;
        int source = 0;
        GP_TRY_RET(gp__jit_scan_source(op, &src));
        gp_status_t st = gp__jit_module(ctx, fn, src, 0, &mo->scan_mod, &source);
        free(src);
        if (st != GP_OK) return st;
    }
    gp__jit_mod_t *m = mo->scan_mod;
    const size_t tile = (size_t)256 * (size_t)gp__jit_scan_run(vb), ntiles = (n + tile - 1) / tile;
    if (ntiles > 0x7fffffffu) return gp__error(GP_ERR_UNSUPPORTED, "%s: %zu tiles (at most 2^31 - 1)", fn, ntiles);
    const size_t head = gp__lb_head_bytes(ntiles); /* the ticket, the statuses (scan_internal.h) */
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, gp__lb_bytes(ntiles, vb), &ws));
    char *w = ws;
    cudaError_t e = cudaMemsetAsync(w, 0, head, (cudaStream_t)stream);
    if (e != cudaSuccess) return gp__cuda_error(e, "clearing the tile statuses", __FILE__, __LINE__);
    const unsigned char *heads = NULL;
    void *ticket = w, *status = w + 16, *agg = w + head, *incl = w + head + ntiles * vb, *cin = NULL, *cout = NULL;
    size_t nn = n;
    int excl = kind == GP_SCAN_EXCLUSIVE;
    void *args[] = {(void *)&x, &y, &heads, &nn, &excl, &ticket, &status, &agg, &incl, &cin, &cout};
    e = cudaLaunchKernel((const void *)m->k_scan, gp__jit_dim3((unsigned)ntiles), gp__jit_dim3(256), args, 0,
                         (cudaStream_t)stream);
    if (e != cudaSuccess) return gp__cuda_error(e, fn, __FILE__, __LINE__);
    return GP_CHECK_LAUNCH(fn);
}

/* ------------------------------------------------------------------------------------------ select_if */
static gp_status_t select_if(const char *fn, gp_ctx_t *ctx, const gp_uop_t *pred, size_t n, const void *x, void *y,
                             uint64_t *count_dev, size_t *count_host, gp_stream_t stream)
{
    GP_TRY_RET(check_common(fn, ctx, pred, GP_UOP_PRED, "pred"));
    const size_t es = gp_dtype_size(pred->dtype);
    GP_TRY_RET(check_x(fn, n, x, pred->dtype, es, "x"));
    GP_TRY_RET(check_x(fn, n, y, pred->dtype, es, "y"));
    if (n && (const char *)x < (const char *)y + n * es && (const char *)y < (const char *)x + n * es)
        return gp__error(GP_ERR_INVALID_ARG, "%s: x and y overlap", fn);
    gp__jit_mod_t *m = pred->mod;
    if (gp__is_cpu(ctx)) {
        if (!m->h_count || !m->h_select) return gp__error(GP_ERR_INTERNAL, "%s: the module has no select functions", fn);
        const size_t per = 65536, chunks = (n + per - 1) / per;
        size_t *off = malloc((chunks + 1) * sizeof *off);
        if (!off) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu chunk counts", fn, chunks);
        const int par = gp__cpu_par(1, n * es);
        traps_t tr;
        gp__jit_traps_on(&tr);
#pragma omp parallel for schedule(static) if (par)
        for (long c = 0; c < (long)chunks; c++) {
            const size_t i0 = (size_t)c * per, i1 = i0 + per < n ? i0 + per : n;
            off[c + 1] = 0;
            ucall_t u = {U_COUNT, m, x, NULL, NULL, NULL, NULL, i0, i1, 0, 0, 0};
            if (guarded(&tr, &u) == 0) off[c + 1] = u.ret;
        }
        if (tr.trap) {
            free(off);
            return gp__jit_traps_off(&tr, fn);
        }
        off[0] = 0;
        for (size_t c = 0; c < chunks; c++) off[c + 1] += off[c];
#pragma omp parallel for schedule(static) if (par)
        for (long c = 0; c < (long)chunks; c++) {
            const size_t i0 = (size_t)c * per, i1 = i0 + per < n ? i0 + per : n;
            ucall_t u = {U_SELECT, m, x, NULL, (char *)y + off[c] * es, NULL, NULL, i0, i1, 0, 0, 0};
            guarded(&tr, &u);
        }
        const size_t kept = off[chunks];
        free(off);
        GP_TRY_RET(gp__jit_traps_off(&tr, fn));
        if (count_dev) *count_dev = kept;
        if (count_host) *count_host = kept;
        return GP_OK;
    }
    if (!m->k_select) return gp__error(GP_ERR_INTERNAL, "%s: the module has no select kernel", fn);
    if (count_host) GP_TRY_RET(gp__no_capture(ctx, fn, "it waits for the count"));
    const size_t tile = (size_t)m->sel_shape[1], ntiles = n ? (n + tile - 1) / tile : 0; /* the module's own */
    if (ntiles > 0x7fffffffu) return gp__error(GP_ERR_UNSUPPORTED, "%s: %zu tiles (at most 2^31 - 1)", fn, ntiles);
    unsigned long long *cnt = count_host ? (unsigned long long *)ctx->dev_result : (unsigned long long *)count_dev;
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e;
    if (n == 0) { /* nothing to launch: the count is 0 */
        if (cnt && (e = cudaMemsetAsync(cnt, 0, 8, s)) != cudaSuccess) return gp__cuda_error(e, fn, __FILE__, __LINE__);
    } else {
        const size_t bytes = 32 + ntiles * 8;
        void *ws = NULL;
        GP_TRY_RET(gp__workspace(ctx, bytes, &ws));
        char *w = ws;
        if ((e = cudaMemsetAsync(w, 0, bytes, s)) != cudaSuccess)
            return gp__cuda_error(e, "clearing the tile descriptors", __FILE__, __LINE__);
        void *ticket = w, *total = w + 16, *desc = w + 32;
        size_t nn = n;
        void *args[] = {(void *)&x, &nn, &y, &ticket, &desc, &total, &cnt};
        if ((e = cudaLaunchKernel((const void *)m->k_select, gp__jit_dim3((unsigned)ntiles),
                                  gp__jit_dim3((unsigned)m->sel_shape[0]), args, 0, s)) != cudaSuccess)
            return gp__cuda_error(e, fn, __FILE__, __LINE__);
        GP_TRY_RET(GP_CHECK_LAUNCH(fn));
    }
    if (!count_host) return GP_OK;
    unsigned long long h = 0;
    if ((e = cudaMemcpyAsync(&h, cnt, 8, cudaMemcpyDeviceToHost, s)) == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) return gp__cuda_error(e, "the count", __FILE__, __LINE__);
    *count_host = (size_t)h;
    return GP_OK;
}

gp_status_t gp_select_if(gp_ctx_t *ctx, const gp_uop_t *pred, size_t n, const void *x, void *y, uint64_t *count_dev,
                         gp_stream_t stream)
{
    return select_if("gp_select_if", ctx, pred, n, x, y, count_dev, NULL, stream);
}

gp_status_t gp_select_if_sync(gp_ctx_t *ctx, const gp_uop_t *pred, size_t n, const void *x, void *y, size_t *count)
{
    GP_ARG_NONNULL("gp_select_if_sync", count);
    return select_if("gp_select_if_sync", ctx, pred, n, x, y, NULL, count, NULL);
}
