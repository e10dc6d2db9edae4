/*
 * group.c — gp_group_t: a set of contexts, one per GPU, and the exchanges between them. NCCL is loaded with dlopen
 * on the first group call that needs it (like NVRTC in src/jit), so the library links against the CUDA runtime
 * alone and a machine without NCCL runs everything else; the emulated transport needs no NCCL at all.
 */
#include "group_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifdef GP_HAVE_NCCL
#include <nccl.h>
#endif
#ifndef GP_NCCL_LIBDIR
#define GP_NCCL_LIBDIR "/usr/local/cuda/lib64"
#endif

/* ---------------------------------------------------------------------------------------------- NCCL, loaded */
#ifdef GP_HAVE_NCCL
static struct {
    int tried;
    void *h;
    int version;
    ncclResult_t (*get_unique_id)(ncclUniqueId *);
    ncclResult_t (*init_all)(ncclComm_t *, int, const int *);
    ncclResult_t (*init_rank)(ncclComm_t *, int, ncclUniqueId, int);
    ncclResult_t (*destroy)(ncclComm_t);
    ncclResult_t (*all_gather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
    ncclResult_t (*all_reduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
    ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*group_start)(void);
    ncclResult_t (*group_end)(void);
    const char *(*errstr)(ncclResult_t);
    const char *(*last_error)(ncclComm_t);
    ncclResult_t (*get_version)(int *);
    char why[400];
} g_nccl;
static pthread_mutex_t g_nccl_lock = PTHREAD_MUTEX_INITIALIZER;

static int nccl_sym(const char *name, void *field, size_t size)
{
    void *p = dlsym(g_nccl.h, name);
    if (!p) {
        snprintf(g_nccl.why, sizeof g_nccl.why, "libnccl has no %s", name);
        return 0;
    }
    memcpy(field, &p, size);
    return 1;
}
#define NSYM(field, name) nccl_sym((name), &g_nccl.field, sizeof g_nccl.field)

static void nccl_load(void)
{
    g_nccl.tried = 1;
    char names[3][300];
    int nn = 0;
    const char *env = getenv("GP_NCCL");
    if (env && env[0]) snprintf(names[nn++], sizeof names[0], "%.290s", env);
    snprintf(names[nn++], sizeof names[0], "libnccl.so.%d", NCCL_MAJOR);
    snprintf(names[nn++], sizeof names[0], "%.250s/libnccl.so.%d", GP_NCCL_LIBDIR, NCCL_MAJOR);
    for (int i = 0; i < nn && !g_nccl.h; i++) g_nccl.h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!g_nccl.h) {
        const char *e = dlerror();
        snprintf(g_nccl.why, sizeof g_nccl.why, "NCCL is not installed (dlopen libnccl.so.%d: %.250s); set GP_NCCL to "
                 "its path", NCCL_MAJOR, e ? e : "not found");
        return;
    }
    int ok = NSYM(get_unique_id, "ncclGetUniqueId") && NSYM(init_all, "ncclCommInitAll") &&
             NSYM(init_rank, "ncclCommInitRank") && NSYM(destroy, "ncclCommDestroy") &&
             NSYM(all_gather, "ncclAllGather") && NSYM(all_reduce, "ncclAllReduce") &&
             NSYM(group_start, "ncclGroupStart") && NSYM(group_end, "ncclGroupEnd") &&
             NSYM(errstr, "ncclGetErrorString") && NSYM(get_version, "ncclGetVersion");
    if (ok && !NSYM(last_error, "ncclGetLastError")) g_nccl.last_error = NULL; /* optional */
    if (ok && (!NSYM(send, "ncclSend") || !NSYM(recv, "ncclRecv"))) g_nccl.send = NULL, g_nccl.recv = NULL; /* 2.7+ */
    if (!ok) {
        dlclose(g_nccl.h);
        g_nccl.h = NULL;
        return;
    }
    g_nccl.why[0] = 0;
    if (g_nccl.get_version(&g_nccl.version) != ncclSuccess) g_nccl.version = 0;
}

static gp_status_t nccl_ready(const char *fn)
{
    pthread_mutex_lock(&g_nccl_lock);
    if (!g_nccl.tried) nccl_load();
    pthread_mutex_unlock(&g_nccl_lock);
    if (!g_nccl.h) return gp__error(GP_ERR_UNSUPPORTED, "%s: %s", fn, g_nccl.why);
    return GP_OK;
}

static gp_status_t nccl_error(ncclResult_t r, const char *fn, const char *what, ncclComm_t comm)
{
    const char *detail = g_nccl.last_error ? g_nccl.last_error(comm) : "";
    return gp__error(r == ncclInvalidArgument || r == ncclInvalidUsage ? GP_ERR_INVALID_ARG : GP_ERR_CUDA,
                     "%s: %s: %s%s%s", fn, what, g_nccl.errstr(r), detail && detail[0] ? ": " : "",
                     detail ? detail : "");
}
#define NCCL_TRY(fn, what, comm, expr)                                                      \
    do {                                                                                    \
        ncclResult_t r_ = (expr);                                                           \
        if (r_ != ncclSuccess) {                                                            \
            st = nccl_error(r_, (fn), (what), (comm));                                      \
            goto fail;                                                                      \
        }                                                                                   \
    } while (0)
#endif

/* ---------------------------------------------------------------------------------------------- creation */
static gp_status_t group_alloc(gp_group_t **out, int nlocal)
{
    gp_group_t *g = calloc(1, sizeof *g);
    if (g) {
        g->ctx = calloc((size_t)nlocal, sizeof *g->ctx);
        g->stream = calloc((size_t)nlocal, sizeof *g->stream);
        g->cstream = calloc((size_t)nlocal, sizeof *g->cstream);
        g->comm = calloc((size_t)nlocal, sizeof *g->comm);
        g->scr = calloc((size_t)nlocal * GP__GROUP_SLOTS, sizeof *g->scr);
        g->scr_cap = calloc((size_t)nlocal * GP__GROUP_SLOTS, sizeof *g->scr_cap);
    }
    if (!g || !g->ctx || !g->stream || !g->cstream || !g->comm || !g->scr || !g->scr_cap) {
        gp_group_destroy(g); /* no members yet: frees the arrays */
        return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_group_create: %d members", nlocal);
    }
    g->nlocal = nlocal;
    *out = g;
    return GP_OK;
}

/* Contexts and streams of the members on devices dev[0..nlocal-1]. */
static gp_status_t group_members(gp_group_t *g, const int *dev, int same_device)
{
    for (int i = 0; i < g->nlocal; i++) {
        gp_status_t st = gp_ctx_create(&g->ctx[i], same_device ? dev[0] : dev[i]);
        if (st != GP_OK) return st;
        if (!gp__is_cpu(g->ctx[i])) {
            cudaError_t e = cudaStreamCreateWithFlags(&g->stream[i], cudaStreamNonBlocking);
            if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&g->cstream[i], cudaStreamNonBlocking);
            if (e != cudaSuccess) return gp__cuda_error(e, "gp_group_create: cudaStreamCreate", __FILE__, __LINE__);
        }
    }
    g->gpu = g->nlocal > 0 && !gp__is_cpu(g->ctx[0]);
    return GP_OK;
}

static void host_scratch_free(gp_group_t *g, void *p);

gp_status_t gp_group_destroy(gp_group_t *g)
{
    if (!g) return GP_OK;
    gp_status_t st = gp_group_reducer_destroy(g->cached);
    for (int k = 0; k < GP__GROUP_HSLOTS; k++) host_scratch_free(g, g->hscr[k]); /* no copy outlives a call */
    for (int i = 0; i < g->nlocal; i++) {
        if (g->ctx[i] && g->stream[i]) {
            cudaSetDevice(gp_ctx_device(g->ctx[i]));
            const cudaError_t e = cudaStreamSynchronize(g->stream[i]);
            if (e != cudaSuccess && st == GP_OK) st = gp__cuda_error(e, "gp_group_destroy: a member's stream", __FILE__, __LINE__);
        }
#ifdef GP_HAVE_NCCL
        if (g->comm[i]) g_nccl.destroy((ncclComm_t)g->comm[i]);
#endif
        if (g->ctx[i] && g->stream[i]) {
            cudaSetDevice(gp_ctx_device(g->ctx[i]));
            cudaStreamDestroy(g->stream[i]);
            if (g->cstream[i]) cudaStreamDestroy(g->cstream[i]);
        }
        for (int k = 0; k < GP__GROUP_SLOTS; k++) gp__group_free(g, i, g->scr[i * GP__GROUP_SLOTS + k]);
        const gp_status_t cs = gp_ctx_destroy(g->ctx[i]);
        if (cs != GP_OK && st == GP_OK) st = cs;
    }
    free(g->ctx);
    free(g->stream);
    free(g->cstream);
    free(g->comm);
    free(g->scr);
    free(g->scr_cap);
    free(g);
    return st;
}

gp_status_t gp_group_unique_id(gp_group_id_t *id)
{
    static const char fn[] = "gp_group_unique_id";
    GP_ARG_NONNULL(fn, id);
#ifdef GP_HAVE_NCCL
    GP_TRY_RET(nccl_ready(fn));
    _Static_assert(sizeof(ncclUniqueId) == sizeof id->bytes, "gp_group_id_t holds an ncclUniqueId");
    ncclUniqueId u;
    ncclResult_t r = g_nccl.get_unique_id(&u);
    if (r != ncclSuccess) return nccl_error(r, fn, "ncclGetUniqueId", NULL);
    memcpy(id->bytes, &u, sizeof u);
    return GP_OK;
#else
    return gp__error(GP_ERR_UNSUPPORTED, "%s: this gpuprim was built without NCCL (nccl.h not found)", fn);
#endif
}

gp_status_t gp_group_create_local(gp_group_t **group, int ndev, const int *devices)
{
    static const char fn[] = "gp_group_create_local";
    GP_ARG_NONNULL(fn, group);
    *group = NULL;
    int have = 0;
    GP_TRY_RET(gp_device_count(&have));
    if (ndev < 0) return gp__error(GP_ERR_INVALID_ARG, "%s: ndev is %d", fn, ndev);
    if (ndev == 0) {
        if (devices) return gp__error(GP_ERR_INVALID_ARG, "%s: devices given with ndev 0 (every GPU)", fn);
        ndev = have;
    }
    int *dev = malloc((size_t)ndev * sizeof *dev);
    if (!dev) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d devices", fn, ndev);
    gp_status_t st = GP_OK;
    gp_group_t *g = NULL;
    for (int i = 0; i < ndev; i++) {
        dev[i] = devices ? devices[i] : i;
        if (dev[i] < 0 || dev[i] >= have) {
            st = gp__error(GP_ERR_NO_DEVICE, "%s: devices[%d] is %d; this machine has %d GPU%s", fn, i, dev[i], have,
                           have == 1 ? "" : "s");
            goto fail;
        }
        for (int j = 0; j < i; j++)
            if (dev[j] == dev[i]) {
                st = gp__error(GP_ERR_INVALID_ARG, "%s: device %d is listed twice (devices[%d] and devices[%d]); one "
                                                   "rank per GPU (gp_group_create_emulated shares one)", fn, dev[i], j, i);
                goto fail;
            }
    }
#ifdef GP_HAVE_NCCL
    GP_TRY(nccl_ready(fn));
    GP_TRY(group_alloc(&g, ndev));
    g->nccl = 1;
    g->size = ndev;
    GP_TRY(group_members(g, dev, 0));
    {
        ncclComm_t *comms = calloc((size_t)ndev, sizeof *comms);
        if (!comms) {
            st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d communicators", fn, ndev);
            goto fail;
        }
        ncclResult_t r = g_nccl.init_all(comms, ndev, dev);
        for (int i = 0; i < ndev; i++) g->comm[i] = comms[i];
        free(comms);
        if (r != ncclSuccess) {
            st = nccl_error(r, fn, "ncclCommInitAll", NULL);
            goto fail;
        }
    }
    free(dev);
    *group = g;
    return GP_OK;
#else
    st = gp__error(GP_ERR_UNSUPPORTED, "%s: this gpuprim was built without NCCL (nccl.h not found); "
                                       "gp_group_create_emulated needs none", fn);
    goto fail;
#endif
fail:
    free(dev);
    gp_group_destroy(g);
    return st;
}

gp_status_t gp_group_create_rank(gp_group_t **group, const gp_group_id_t *id, int nranks, int rank, int device)
{
    static const char fn[] = "gp_group_create_rank";
    GP_ARG_NONNULL(fn, group);
    *group = NULL;
    GP_ARG_NONNULL(fn, id);
    if (nranks < 1) return gp__error(GP_ERR_INVALID_ARG, "%s: nranks is %d", fn, nranks);
    if (rank < 0 || rank >= nranks)
        return gp__error(GP_ERR_INVALID_ARG, "%s: rank %d is outside [0, %d)", fn, rank, nranks);
    int have = 0;
    GP_TRY_RET(gp_device_count(&have));
    if (device < 0 || device >= have)
        return gp__error(GP_ERR_NO_DEVICE, "%s: device %d; this machine has %d GPU%s", fn, device, have,
                         have == 1 ? "" : "s");
#ifdef GP_HAVE_NCCL
    GP_TRY_RET(nccl_ready(fn));
    gp_status_t st = GP_OK;
    gp_group_t *g = NULL;
    GP_TRY(group_alloc(&g, 1));
    g->nccl = 1;
    g->rank_path = 1;
    g->size = nranks;
    g->rank0 = rank;
    GP_TRY(group_members(g, &device, 0));
    {
        ncclUniqueId u;
        memcpy(&u, id->bytes, sizeof u);
        ncclComm_t c = NULL;
        GP_CUDA_TRY(cudaSetDevice(device));
        NCCL_TRY(fn, "ncclCommInitRank", NULL, g_nccl.init_rank(&c, nranks, u, rank));
        g->comm[0] = c;
    }
    *group = g;
    return GP_OK;
fail:
    gp_group_destroy(g);
    return st;
#else
    return gp__error(GP_ERR_UNSUPPORTED, "%s: this gpuprim was built without NCCL (nccl.h not found)", fn);
#endif
}

gp_status_t gp_group_create_emulated(gp_group_t **group, int nmembers, int device)
{
    static const char fn[] = "gp_group_create_emulated";
    GP_ARG_NONNULL(fn, group);
    *group = NULL;
    if (nmembers < 1 || nmembers > 1024)
        return gp__error(GP_ERR_INVALID_ARG, "%s: nmembers is %d (1 to 1024)", fn, nmembers);
    if (device != GP_DEVICE_CPU) {
        int have = 0;
        GP_TRY_RET(gp_device_count(&have));
        if (device < 0 || device >= have)
            return gp__error(GP_ERR_NO_DEVICE, "%s: device %d; this machine has %d GPU%s", fn, device, have,
                             have == 1 ? "" : "s");
    }
    gp_group_t *g = NULL;
    gp_status_t st = GP_OK;
    GP_TRY(group_alloc(&g, nmembers));
    g->size = nmembers;
    GP_TRY(group_members(g, &device, 1));
    *group = g;
    return GP_OK;
fail:
    gp_group_destroy(g);
    return st;
}

/* ---------------------------------------------------------------------------------------------- accessors */
int gp_group_size(const gp_group_t *g) { return g ? g->size : 0; }
int gp_group_local_count(const gp_group_t *g) { return g ? g->nlocal : 0; }
int gp_group_rank(const gp_group_t *g, int member)
{
    return g && member >= 0 && member < g->nlocal ? g->rank0 + member : -1;
}
gp_ctx_t *gp_group_ctx(const gp_group_t *g, int member)
{
    return g && member >= 0 && member < g->nlocal ? g->ctx[member] : NULL;
}
gp_stream_t gp_group_stream(const gp_group_t *g, int member)
{
    return g && member >= 0 && member < g->nlocal ? (gp_stream_t)g->stream[member] : NULL;
}
const char *gp_group_transport(const gp_group_t *g) { return !g ? "" : g->nccl ? "nccl" : "emulated"; }

gp_status_t gp__group_check(const char *fn, const gp_group_t *g)
{
    if (!g) return gp__error(GP_ERR_INVALID_ARG, "%s: group is NULL", fn);
    return GP_OK;
}

gp_status_t gp_group_sync(gp_group_t *g)
{
    static const char fn[] = "gp_group_sync";
    GP_TRY_RET(gp__group_check(fn, g));
    for (int i = 0; i < g->nlocal; i++) {
        if (!g->stream[i]) continue;
        GP_TRY_RET(gp__ctx_enter(g->ctx[i], fn));
        cudaError_t e = cudaStreamSynchronize(g->stream[i]);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_group_sync: cudaStreamSynchronize", __FILE__, __LINE__);
    }
    return GP_OK;
}

gp_status_t gp__group_check_shards(const char *fn, const gp_group_t *g, gp_dtype_t dtype, const size_t *counts,
                                   const void *const *shards, const char *what)
{
    if (!counts) return gp__error(GP_ERR_INVALID_ARG, "%s: counts is NULL", fn);
    if (!shards) return gp__error(GP_ERR_INVALID_ARG, "%s: %s is NULL", fn, what);
    const size_t es = gp_dtype_size(dtype);
    for (int i = 0; i < g->nlocal; i++) {
        size_t bytes;
        if (!gp__mul_ok(counts[i], es, &bytes))
            return gp__error(GP_ERR_OVERFLOW, "%s: counts[%d] = %zu elements overflow a size", fn, i, counts[i]);
        if (counts[i] && !shards[i])
            return gp__error(GP_ERR_INVALID_ARG, "%s: %s[%d] is NULL with counts[%d] = %zu", fn, what, i, i, counts[i]);
        if (shards[i] && es && (uintptr_t)shards[i] % es)
            return gp__error(GP_ERR_INVALID_ARG, "%s: %s[%d] is not aligned to its %zu-byte elements", fn, what, i, es);
    }
    return GP_OK;
}

/* ---------------------------------------------------------------------------------------------- memory */
gp_status_t gp__group_alloc(gp_group_t *g, int member, size_t bytes, void **p)
{
    *p = NULL;
    if (bytes == 0) bytes = 16;
    if (!g->gpu) {
        *p = gp__host_alloc(bytes);
        return *p ? GP_OK : gp__error(GP_ERR_OUT_OF_MEMORY, "gp_group: %zu bytes of host memory", bytes);
    }
    GP_TRY_RET(gp__ctx_enter(g->ctx[member], "gp_group"));
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        *p = NULL;
        return gp__cuda_error(e, "gp_group: cudaMalloc", __FILE__, __LINE__);
    }
    return GP_OK;
}

gp_status_t gp__group_scratch(gp_group_t *g, int member, int slot, size_t bytes, void **p)
{
    const int k = member * GP__GROUP_SLOTS + slot;
    if (bytes > g->scr_cap[k] || !g->scr[k]) {
        size_t c = g->scr_cap[k] ? g->scr_cap[k] : 256;
        while (c < bytes) c *= 2;
        if (g->gpu && g->stream[member]) { /* the old buffer may still be in use on the member's stream */
            GP_TRY_RET(gp__ctx_enter(g->ctx[member], "gp_group"));
            cudaError_t e = cudaStreamSynchronize(g->stream[member]);
            if (e != cudaSuccess) return gp__cuda_error(e, "gp_group: waiting for a member", __FILE__, __LINE__);
        }
        void *q = NULL;
        GP_TRY_RET(gp__group_alloc(g, member, c, &q));
        gp__group_free(g, member, g->scr[k]);
        g->scr[k] = q;
        g->scr_cap[k] = c;
    }
    *p = g->scr[k];
    return GP_OK;
}

static void host_scratch_free(gp_group_t *g, void *p)
{
    if (!p) return;
    if (g->gpu) cudaFreeHost(p);
    else free(p);
}

gp_status_t gp__group_host_scratch(gp_group_t *g, int slot, size_t bytes, void **p)
{
    *p = NULL;
    if (bytes > g->hscr_cap[slot] || !g->hscr[slot]) {
        size_t c = g->hscr_cap[slot] ? g->hscr_cap[slot] : 4096;
        while (c < bytes) c *= 2;
        void *q = NULL;
        if (g->gpu) {
            const cudaError_t e = cudaMallocHost(&q, c);
            if (e != cudaSuccess) {
                cudaGetLastError();
                return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_group: %zu bytes of page-locked host memory", c);
            }
        } else if (!(q = malloc(c))) {
            return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_group: %zu bytes of host memory", c);
        }
        host_scratch_free(g, g->hscr[slot]);
        g->hscr[slot] = q;
        g->hscr_cap[slot] = c;
    }
    *p = g->hscr[slot];
    return GP_OK;
}

void gp__group_free(gp_group_t *g, int member, void *p)
{
    if (!p) return;
    if (!g->gpu) {
        gp__host_free(p);
        return;
    }
    cudaSetDevice(gp_ctx_device(g->ctx[member]));
    cudaFree(p);
}

gp_status_t gp__group_to_host(gp_group_t *g, int member, void *host, const void *src, size_t bytes)
{
    if (!g->gpu) {
        memcpy(host, src, bytes);
        return GP_OK;
    }
    GP_TRY_RET(gp__ctx_enter(g->ctx[member], "gp_group"));
    cudaError_t e = cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, g->stream[member]);
    if (e == cudaSuccess) e = cudaStreamSynchronize(g->stream[member]);
    return e == cudaSuccess ? GP_OK : gp__cuda_error(e, "gp_group: reading results", __FILE__, __LINE__);
}

/* ---------------------------------------------------------------------------------------------- exchanges */
#ifdef GP_HAVE_NCCL
/* One collective on every member's communicator and stream, in one NCCL group: all = 0 an all-gather of count values
 * from send[i] into recv[i], 1 an in-place all-reduce sum of recv[i]. */
static gp_status_t nccl_collective(gp_group_t *g, const char *fn, int all, const void *const *send, void *const *recv,
                                   size_t count, ncclDataType_t t)
{
    gp_status_t st = GP_OK;
    int open = 0;
    NCCL_TRY(fn, "ncclGroupStart", NULL, g_nccl.group_start());
    open = 1;
    for (int i = 0; i < g->nlocal; i++) {
        const ncclComm_t c = (ncclComm_t)g->comm[i];
        GP_TRY(gp__ctx_enter(g->ctx[i], fn));
        if (all) NCCL_TRY(fn, "ncclAllReduce", c, g_nccl.all_reduce(recv[i], recv[i], count, t, ncclSum, c, g->stream[i]));
        else NCCL_TRY(fn, "ncclAllGather", c, g_nccl.all_gather(send[i], recv[i], count, t, c, g->stream[i]));
    }
    open = 0;
    NCCL_TRY(fn, "ncclGroupEnd", NULL, g_nccl.group_end());
    return GP_OK;
fail:
    if (open) g_nccl.group_end();
    return st;
}
#endif

gp_status_t gp__group_allgather(gp_group_t *g, const void *const *send, void *const *recv, size_t bytes)
{
    static const char fn[] = "gp_group (all-gather)";
    gp_status_t st = GP_OK;
    if (bytes == 0) return GP_OK;
#ifdef GP_HAVE_NCCL
    if (g->nccl) return nccl_collective(g, fn, 0, send, recv, bytes, ncclUint8);
#endif
    /* Emulated: every send is complete once the members' streams are; each member's copies are then queued on its
     * own stream, so whatever the member does next with recv is ordered after them (a plain cudaMemcpy between
     * device buffers returns before the copy is done, and the members' non-blocking streams are not ordered after
     * the legacy stream it runs on). */
    GP_TRY_RET(gp_group_sync(g));
    for (int i = 0; i < g->nlocal; i++)
        for (int r = 0; r < g->nlocal; r++) {
            char *dst = (char *)recv[i] + (size_t)r * bytes;
            if (!g->gpu) {
                memcpy(dst, send[r], bytes);
                continue;
            }
            cudaError_t e = cudaMemcpyAsync(dst, send[r], bytes, cudaMemcpyDeviceToDevice, g->stream[i]);
            if (e != cudaSuccess) return gp__cuda_error(e, "gp_group (emulated all-gather)", __FILE__, __LINE__);
        }
    (void)st;
    (void)fn;
    return GP_OK;
}

gp_status_t gp__group_alltoallv(gp_group_t *g, const void *const *send, const size_t *soff, const size_t *sbytes,
                                void *const *recv, const size_t *roff, const size_t *rbytes)
{
    static const char fn[] = "gp_group (all-to-all)";
    const int R = g->size;
#ifdef GP_HAVE_NCCL
    if (g->nccl) {
        if (!g_nccl.send || !g_nccl.recv)
            return gp__error(GP_ERR_UNSUPPORTED, "%s: this NCCL has no ncclSend / ncclRecv (2.7 or later needed)", fn);
        gp_status_t st = GP_OK;
        int open = 0;
        NCCL_TRY(fn, "ncclGroupStart", NULL, g_nccl.group_start());
        open = 1;
        for (int i = 0; i < g->nlocal; i++) {
            const ncclComm_t c = (ncclComm_t)g->comm[i];
            const int me = g->rank0 + i;
            GP_TRY(gp__ctx_enter(g->ctx[i], fn));
            for (int j = 0; j < R; j++) {
                const size_t k = (size_t)i * R + (size_t)j;
                if (j == me) { /* its own slice: a copy on its stream */
                    if (sbytes[k])
                        GP_CUDA_TRY(cudaMemcpyAsync((char *)recv[i] + roff[k], (const char *)send[i] + soff[k],
                                                    sbytes[k], cudaMemcpyDeviceToDevice, g->stream[i]));
                    continue;
                }
                if (sbytes[k])
                    NCCL_TRY(fn, "ncclSend", c, g_nccl.send((const char *)send[i] + soff[k], sbytes[k], ncclUint8, j, c,
                                                            g->stream[i]));
                if (rbytes[k])
                    NCCL_TRY(fn, "ncclRecv", c, g_nccl.recv((char *)recv[i] + roff[k], rbytes[k], ncclUint8, j, c,
                                                            g->stream[i]));
            }
        }
        open = 0;
        NCCL_TRY(fn, "ncclGroupEnd", NULL, g_nccl.group_end());
        return GP_OK;
    fail:
        if (open) g_nccl.group_end();
        return st;
    }
#endif
    /* Emulated: every member is here (rank = member); each receives on its own stream once all sends are complete */
    GP_TRY_RET(gp_group_sync(g));
    for (int i = 0; i < g->nlocal; i++)
        for (int q = 0; q < R; q++) {
            const size_t k = (size_t)i * R + (size_t)q, ks = (size_t)q * R + (size_t)i;
            if (!rbytes[k]) continue;
            if (rbytes[k] != sbytes[ks])
                return gp__error(GP_ERR_INTERNAL, "%s: rank %d sends %zu bytes to rank %d, which expects %zu", fn, q,
                                 sbytes[ks], i, rbytes[k]);
            char *dst = (char *)recv[i] + roff[k];
            const char *src = (const char *)send[q] + soff[ks];
            if (!g->gpu) {
                memcpy(dst, src, rbytes[k]);
                continue;
            }
            cudaError_t e = cudaMemcpyAsync(dst, src, rbytes[k], cudaMemcpyDeviceToDevice, g->stream[i]);
            if (e != cudaSuccess) return gp__cuda_error(e, "gp_group (emulated all-to-all)", __FILE__, __LINE__);
        }
    return GP_OK;
}

static void sum_into(gp_dtype_t dt, void *acc, const void *x, size_t count)
{
    for (size_t k = 0; k < count; k++) {
        switch (dt) {
        case GP_U32: ((uint32_t *)acc)[k] += ((const uint32_t *)x)[k]; break;
        case GP_U64:
        case GP_I64: ((uint64_t *)acc)[k] += ((const uint64_t *)x)[k]; break;
        case GP_F32: ((float *)acc)[k] += ((const float *)x)[k]; break;
        default: ((double *)acc)[k] += ((const double *)x)[k]; break;
        }
    }
}

gp_status_t gp__group_allsum(gp_group_t *g, void *const *buf, size_t count, gp_dtype_t dtype)
{
    static const char fn[] = "gp_group (all-reduce)";
    gp_status_t st = GP_OK;
    if (dtype != GP_U32 && dtype != GP_U64 && dtype != GP_I64 && dtype != GP_F32 && dtype != GP_F64)
        return gp__error(GP_ERR_INTERNAL, "%s: dtype %s", fn, gp_dtype_name(dtype));
    if (count == 0) return GP_OK;
    const size_t bytes = count * gp_dtype_size(dtype);
#ifdef GP_HAVE_NCCL
    if (g->nccl) {
        const ncclDataType_t t = dtype == GP_U32 ? ncclUint32 : dtype == GP_U64 ? ncclUint64
                               : dtype == GP_I64 ? ncclInt64 : dtype == GP_F32 ? ncclFloat32 : ncclFloat64;
        return nccl_collective(g, fn, 1, (const void *const *)buf, buf, count, t);
    }
#endif
    /* Emulated: rank 0's values, then each rank's added in rank order, copied back to every member. */
    GP_TRY_RET(gp_group_sync(g));
    unsigned char *acc = malloc(bytes), *tmp = malloc(bytes);
    if (!acc || !tmp) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu bytes", fn, bytes);
        goto done;
    }
    for (int r = 0; r < g->nlocal && st == GP_OK; r++) {
        st = gp__group_to_host(g, r, r ? tmp : acc, buf[r], bytes);
        if (st == GP_OK && r) sum_into(dtype, acc, tmp, count);
    }
    for (int i = 0; i < g->nlocal && st == GP_OK; i++) {
        if (!g->gpu) {
            memcpy(buf[i], acc, bytes);
            continue;
        }
        /* on the member's stream (ordered before its next work), and waited for: acc is freed below */
        cudaError_t e = cudaMemcpyAsync(buf[i], acc, bytes, cudaMemcpyHostToDevice, g->stream[i]);
        if (e == cudaSuccess) e = cudaStreamSynchronize(g->stream[i]);
        if (e != cudaSuccess) st = gp__cuda_error(e, "gp_group (emulated all-reduce)", __FILE__, __LINE__);
    }
done:
    free(acc);
    free(tmp);
    return st;
}

gp_status_t gp__group_allgather_host(gp_group_t *g, const void *local, void *all, size_t bytes)
{
    if (g->nlocal == g->size) { /* every rank is here: nothing to exchange */
        memcpy(all, local, (size_t)g->size * bytes);
        return GP_OK;
    }
    gp_status_t st = GP_OK;
    void **dev = calloc((size_t)g->nlocal * 2, sizeof *dev);
    if (!dev) return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_group: %d buffers", g->nlocal);
    for (int i = 0; i < g->nlocal; i++) {
        GP_TRY(gp__group_scratch(g, i, 2, bytes, &dev[i]));
        GP_TRY(gp__group_scratch(g, i, 3, (size_t)g->size * bytes, &dev[g->nlocal + i]));
        if (g->gpu) {
            GP_CUDA_TRY(cudaMemcpyAsync(dev[i], (const char *)local + (size_t)i * bytes, bytes, cudaMemcpyHostToDevice,
                                        g->stream[i]));
        } else {
            memcpy(dev[i], (const char *)local + (size_t)i * bytes, bytes);
        }
    }
    GP_TRY(gp__group_allgather(g, (const void *const *)dev, dev + g->nlocal, bytes));
    GP_TRY(gp__group_to_host(g, 0, all, dev[g->nlocal], (size_t)g->size * bytes));
fail:
    free(dev);
    return st;
}

gp_status_t gp_group_allreduce(gp_group_t *g, gp_dtype_t dtype, size_t count, void *const *bufs)
{
    static const char fn[] = "gp_group_allreduce";
    GP_TRY_RET(gp__group_check(fn, g));
    GP_ARG_NONNULL(fn, bufs);
    if (dtype != GP_U32 && dtype != GP_U64 && dtype != GP_I64 && dtype != GP_F32 && dtype != GP_F64)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: dtype %s (u32, u64, i64, f32, f64)", fn,
                         (unsigned)dtype < GP_DTYPE_COUNT ? gp_dtype_name(dtype) : "?");
    size_t bytes;
    if (!gp__mul_ok(count, gp_dtype_size(dtype), &bytes)) return gp__error(GP_ERR_OVERFLOW, "%s: count %zu", fn, count);
    for (int i = 0; i < g->nlocal; i++) {
        if (count && !bufs[i]) return gp__error(GP_ERR_INVALID_ARG, "%s: bufs[%d] is NULL", fn, i);
        if ((uintptr_t)bufs[i] % gp_dtype_size(dtype))
            return gp__error(GP_ERR_INVALID_ARG, "%s: bufs[%d] is not aligned to its elements", fn, i);
    }
    return gp__group_allsum(g, bufs, count, dtype);
}
