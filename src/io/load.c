/*
 * load.c — gp_array_read / gp_array_load: an array from a file or pipe into its final place in one pass. Host memory
 * is filled by the source itself (a regular file: slices read in parallel with pread, straight into place); device
 * memory through a ring of pinned stages, each copied to its place in the destination while the next is read
 * (docs/design/io.md, "Loading").
 */
#define _POSIX_C_SOURCE 200809L
#include "io_internal.h"

#include <errno.h>
#include <string.h>

#define LOAD_CHUNK ((size_t)32 << 20) /* a stage: eight reader threads of 4 MiB */
#define LOAD_STAGES_MAX 8

typedef struct load {
    const char *fn;
    const gp_array_desc_t *d;
    gp_stream_opts_t o;
    gp__src_t s;
    size_t at0;      /* the input's offset of its first element, for messages */
    size_t total;    /* the count expected, for progress (0: unknown) */
    size_t progress; /* elements reported so far by earlier calls (a grown buffer's) */
} load_t;

static gp_status_t short_input(const load_t *L, size_t done, size_t want)
{
    if (L->s.err)
        return gp__error(GP_ERR_IO, "%s: read failed at byte %zu: %s", L->fn, L->at0 + done * L->d->elem_size,
                         strerror(L->s.err));
    return gp__src_ends(L->fn, L->at0 + done * L->d->elem_size, done, want);
}

static void report(const load_t *L, size_t done)
{
    if (L->o.progress) L->o.progress(L->o.progress_user, done * L->d->elem_size, L->total * L->d->elem_size);
}

/* Up to want elements into host memory at dst; *got = elements read. exact: fewer is an error. */
static gp_status_t read_host(load_t *L, unsigned char *dst, size_t want, int exact, size_t *got)
{
    const size_t es = L->d->elem_size;
    /* rounds of 16 MiB a reader thread: few enough forks, a progress report per round */
    const size_t round = ((size_t)L->s.threads * ((size_t)16 << 20)) / es * es;
    size_t done = 0;
    *got = 0;
    while (done < want) {
        const size_t m = want - done < round / es ? want - done : round / es;
        const size_t nbytes = gp__src_read(&L->s, dst + done * es, m * es), n = nbytes / es;
        gp__src_host_order(L->d, dst + done * es, n);
        done += n;
        *got = done;
        report(L, L->progress + done);
        if (n < m) {
            if (exact || L->s.err) return short_input(L, L->progress + done, L->progress + want);
            /* a partial trailing element stays unread as counted */
            break;
        }
    }
    return GP_OK;
}

/* Up to want elements into device memory at dst through pinned stages; *got as read_host. */
static gp_status_t read_device(load_t *L, unsigned char *dst, size_t want, int exact, size_t *got)
{
    *got = 0;
    if (want == 0) return GP_OK;
    const size_t es = L->d->elem_size;
    size_t chunk = L->o.chunk_bytes ? L->o.chunk_bytes : LOAD_CHUNK;
    chunk = chunk / es ? chunk / es * es : es;
    const size_t total = want * es;
    if (chunk > total) chunk = total; /* a small input pins no more than itself */
    int nb = L->o.buffers ? L->o.buffers : 3;
    if ((size_t)nb * chunk > total) nb = (int)((total + chunk - 1) / chunk); /* a small input: fewer stages */
    if (nb < 1) nb = 1;
    void *host[LOAD_STAGES_MAX] = {0};
    cudaEvent_t copied[LOAD_STAGES_MAX] = {0};
    cudaStream_t cs = NULL;
    gp_status_t st = GP_OK;
    size_t done = 0;
    GP_CUDA_TRY(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    for (int b = 0; b < nb; b++) {
        GP_CUDA_TRY(cudaHostAlloc(&host[b], chunk, cudaHostAllocDefault));
        GP_CUDA_TRY(cudaEventCreateWithFlags(&copied[b], cudaEventDisableTiming));
    }
    for (size_t i = 0; done < want; i++) {
        const int b = (int)(i % (size_t)nb);
        const size_t m = want - done < chunk / es ? want - done : chunk / es;
        if (i >= (size_t)nb) GP_CUDA_TRY(cudaEventSynchronize(copied[b])); /* the stage's last copy is done */
        const size_t nbytes = gp__src_read(&L->s, host[b], m * es), n = nbytes / es;
        gp__src_host_order(L->d, host[b], n);
        if (n > 0) {
            GP_CUDA_TRY(cudaMemcpyAsync(dst + done * es, host[b], n * es, cudaMemcpyHostToDevice, cs));
            GP_CUDA_TRY(cudaEventRecord(copied[b], cs));
        }
        done += n;
        report(L, L->progress + done);
        if (n < m) {
            if (exact || L->s.err) {
                st = short_input(L, L->progress + done, L->progress + want);
                goto fail;
            }
            break;
        }
    }
    GP_CUDA_TRY(cudaStreamSynchronize(cs));
    *got = done;
fail:
    if (cs) cudaStreamSynchronize(cs);
    for (int b = 0; b < nb; b++) {
        if (host[b]) cudaFreeHost(host[b]);
        if (copied[b]) cudaEventDestroy(copied[b]);
    }
    if (cs) cudaStreamDestroy(cs);
    return st;
}

static gp_status_t load_begin(load_t *L, const char *fn, gp_ctx_t *ctx, FILE *f, const gp_array_desc_t *desc,
                              const gp_stream_opts_t *opts)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_NO_CAPTURE(ctx, fn, "it reads a file and waits for its copies");
    GP_ARG_NONNULL(fn, f);
    GP_ARG_NONNULL(fn, desc);
    if ((unsigned)desc->dtype >= GP_DTYPE_COUNT || desc->elem_size != gp_dtype_size(desc->dtype))
        return gp__error(GP_ERR_INVALID_ARG, "%s: desc is not a valid array description", fn);
    memset(L, 0, sizeof *L);
    L->fn = fn, L->d = desc;
    if (opts) L->o = *opts;
    if (L->o.buffers != 0 && (L->o.buffers < 2 || L->o.buffers > LOAD_STAGES_MAX))
        return gp__error(GP_ERR_INVALID_ARG, "%s: opts->buffers = %d (2..%d)", fn, L->o.buffers, LOAD_STAGES_MAX);
    if (L->o.threads < 0 || L->o.threads > GP__IO_MAX_THREADS)
        return gp__error(GP_ERR_INVALID_ARG, "%s: opts->threads = %d (0..%d)", fn, L->o.threads, GP__IO_MAX_THREADS);
    gp__src_open(&L->s, f, L->o.threads);
    L->at0 = L->s.fd >= 0 ? (size_t)L->s.pos : desc->data_offset;
    return GP_OK;
}

gp_status_t gp_array_read(gp_ctx_t *ctx, FILE *f, const gp_array_desc_t *desc, size_t count,
                          const gp_stream_opts_t *opts, void *dst)
{
    static const char fn[] = "gp_array_read";
    load_t L;
    GP_TRY_RET(load_begin(&L, fn, ctx, f, desc, opts));
    if (count == GP_COUNT_ALL)
        return gp__error(GP_ERR_INVALID_ARG, "%s: count is GP_COUNT_ALL (dst's room must be known: gp_array_load "
                                             "sizes its buffer from the input)", fn);
    size_t bytes;
    if (!gp__mul_ok(count, desc->elem_size, &bytes))
        return gp__error(GP_ERR_INVALID_ARG, "%s: count %zu is too large", fn, count);
    if (count > 0) GP_ARG_NONNULL(fn, dst);
    L.total = count;
    size_t got = 0;
    const gp_status_t st = gp__io_is_device(ctx, dst) ? read_device(&L, dst, count, 1, &got)
                                                     : read_host(&L, dst, count, 1, &got);
    gp__src_close(&L.s);
    return st;
}

gp_status_t gp_array_load(gp_ctx_t *ctx, FILE *f, const gp_array_desc_t *desc, size_t count, gp_mem_kind_t kind,
                          const gp_stream_opts_t *opts, gp_buffer_t *buf, size_t *got)
{
    static const char fn[] = "gp_array_load";
    GP_ARG_NONNULL(fn, buf);
    GP_ARG_NONNULL(fn, got);
    memset(buf, 0, sizeof *buf);
    *got = 0;
    load_t L;
    GP_TRY_RET(load_begin(&L, fn, ctx, f, desc, opts));
    const size_t es = desc->elem_size;
    if (count == GP_COUNT_ALL && L.s.fd >= 0) /* a regular file: its size says how many */
        count = L.s.size > L.s.pos ? (size_t)(L.s.size - L.s.pos) / es : 0;
    size_t bytes = 0;
    if (count != GP_COUNT_ALL && !gp__mul_ok(count, es, &bytes))
        return gp__error(GP_ERR_INVALID_ARG, "%s: count %zu is too large", fn, count);
    gp_status_t st = GP_OK;
    gp_buffer_t b;
    memset(&b, 0, sizeof b);
    size_t have = 0;
    const int dv = kind == GP_MEM_DEVICE && !gp__is_cpu(ctx); /* device memory: the copy engine fills it */
    if (count != GP_COUNT_ALL) { /* known: one buffer, read whole */
        GP_TRY(gp_mem_alloc(ctx, kind, bytes, &b));
        L.total = count;
        void *p = dv ? b.device : b.host;
        GP_TRY(dv ? read_device(&L, p, count, 1, &have) : read_host(&L, p, count, 1, &have));
    } else { /* a stream of unknown length: the buffer doubles as it fills */
        for (;;) {
            const size_t room = b.bytes / es - have;
            if (room == 0) {
                gp_buffer_t nb;
                /* two stages first, then doubled */
                const size_t stage = L.o.chunk_bytes ? L.o.chunk_bytes : LOAD_CHUNK;
                const size_t cap = b.bytes ? 2 * b.bytes : (2 * stage / es ? 2 * stage / es : 1) * es;
                if (cap < b.bytes) {
                    st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the input outgrows the address space", fn);
                    goto fail;
                }
                GP_TRY(gp_mem_alloc(ctx, kind, cap, &nb));
                if (have && (st = gp_memcpy_sync(ctx, dv ? nb.device : nb.host, dv ? b.device : b.host,
                                                 have * es)) != GP_OK) {
                    gp_mem_free(ctx, &nb);
                    goto fail;
                }
                gp_mem_free(ctx, &b);
                b = nb;
                continue;
            }
            unsigned char *p = (unsigned char *)(dv ? b.device : b.host) + have * es;
            size_t n = 0;
            L.progress = have;
            GP_TRY(dv ? read_device(&L, p, room, 0, &n) : read_host(&L, p, room, 0, &n));
            have += n;
            if (n < room) break;
        }
    }
    gp__src_close(&L.s);
    *buf = b;
    *got = have;
    return GP_OK;
fail:
    gp__src_close(&L.s);
    gp_mem_free(ctx, &b);
    return st;
}
