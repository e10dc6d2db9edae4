/*
 * save.c — gp_array_write: bytes held in memory (host, or device memory on a GPU) written to a file at its position,
 * the counterpart of load.c. A regular file opted in (map_pages) gets its range allocated first, then is filled
 * through a shared mapping by several threads; anything else is written in order. Device memory comes out through a
 * ring of pinned stages, each copied out while the next is in flight (docs/design/io.md, "Writing a whole array").
 */
#define _GNU_SOURCE /* fallocate */
#include "io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SAVE_STAGE ((size_t)4 << 20)    /* a pinned stage; four of them: pinning costs about 1 ms a MiB */
#define SAVE_STAGES_MAX 8
#define SAVE_MAP_MIN ((size_t)8 << 20)  /* below this a mapping costs more than it saves */
#define SAVE_PIECE ((size_t)512 << 10)  /* a thread's piece of a copy into the mapping */
#define SAVE_ROUND ((size_t)64 << 20)   /* host memory: a progress report per round */

typedef struct save {
    const char *fn;
    FILE *f;
    unsigned char *map; /* the mapping's byte for the file's position pos0, or NULL: written in order */
    off_t pos0;
    int threads;
    gp_stream_opts_t o;
    size_t total;
} save_t;

/* bytes of src to the output's byte `at` (relative to pos0): into the mapping by the threads, else in order */
static gp_status_t sink(save_t *S, size_t at, const unsigned char *src, size_t bytes)
{
    if (S->map == NULL) {
        if (fwrite(src, 1, bytes, S->f) != bytes)
            return gp__error(GP_ERR_IO, "%s: write failed at byte %lld: %s", S->fn, (long long)S->pos0 + (long long)at,
                             strerror(errno ? errno : EIO));
        return GP_OK;
    }
    const long long pieces = (long long)((bytes + SAVE_PIECE - 1) / SAVE_PIECE);
    int t = S->threads;
    if (t > pieces) t = (int)pieces;
    /* any team size: each piece is copied once, by whichever thread takes it */
#pragma omp parallel for num_threads(t > 0 ? t : 1) schedule(dynamic, 1)
    for (long long p = 0; p < pieces; p++) {
        const size_t a = (size_t)p * SAVE_PIECE, m = bytes - a < SAVE_PIECE ? bytes - a : SAVE_PIECE;
        memcpy(S->map + at + a, src + a, m);
    }
    return GP_OK;
}

static void report(const save_t *S, size_t done)
{
    if (S->o.progress) S->o.progress(S->o.progress_user, done, S->total);
}

static gp_status_t from_host(save_t *S, const unsigned char *src, size_t bytes)
{
    for (size_t done = 0; done < bytes;) {
        const size_t m = bytes - done < SAVE_ROUND ? bytes - done : SAVE_ROUND;
        GP_TRY_RET(sink(S, done, src + done, m));
        done += m;
        report(S, done);
    }
    return GP_OK;
}

/* device memory through nb pinned stages: stage b's copy out of the device in flight while the stage before it is
 * written */
static gp_status_t from_device(save_t *S, const unsigned char *src, size_t bytes)
{
    size_t chunk = S->o.chunk_bytes ? S->o.chunk_bytes : SAVE_STAGE;
    if (chunk > bytes) chunk = bytes;
    int nb = S->o.buffers ? S->o.buffers : 4;
    const size_t pieces = (bytes + chunk - 1) / chunk;
    if ((size_t)nb > pieces) nb = (int)pieces;
    void *host[SAVE_STAGES_MAX] = {0};
    cudaEvent_t landed[SAVE_STAGES_MAX] = {0};
    cudaStream_t cs = NULL;
    gp_status_t st = GP_OK;
    GP_CUDA_TRY(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    for (int b = 0; b < nb; b++) {
        GP_CUDA_TRY(cudaHostAlloc(&host[b], chunk, cudaHostAllocDefault));
        GP_CUDA_TRY(cudaEventCreateWithFlags(&landed[b], cudaEventDisableTiming));
    }
    for (size_t i = 0; i < pieces && i < (size_t)nb; i++) {
        const size_t a = i * chunk, m = bytes - a < chunk ? bytes - a : chunk;
        GP_CUDA_TRY(cudaMemcpyAsync(host[i], src + a, m, cudaMemcpyDeviceToHost, cs));
        GP_CUDA_TRY(cudaEventRecord(landed[i], cs));
    }
    for (size_t i = 0; i < pieces; i++) {
        const int b = (int)(i % (size_t)nb);
        const size_t a = i * chunk, m = bytes - a < chunk ? bytes - a : chunk;
        GP_CUDA_TRY(cudaEventSynchronize(landed[b]));
        GP_TRY(sink(S, a, host[b], m));
        report(S, a + m);
        const size_t j = i + (size_t)nb; /* the stage refilled with the piece nb ahead */
        if (j < pieces) {
            const size_t aj = j * chunk, mj = bytes - aj < chunk ? bytes - aj : chunk;
            GP_CUDA_TRY(cudaMemcpyAsync(host[b], src + aj, mj, cudaMemcpyDeviceToHost, cs));
            GP_CUDA_TRY(cudaEventRecord(landed[b], cs));
        }
    }
fail:
    if (cs) cudaStreamSynchronize(cs);
    for (int b = 0; b < nb; b++) {
        if (host[b]) cudaFreeHost(host[b]);
        if (landed[b]) cudaEventDestroy(landed[b]);
    }
    if (cs) cudaStreamDestroy(cs);
    return st;
}

/* The range [pos0, pos0 + bytes) of a regular file allocated and mapped: GP_OK with S->map set, GP_OK with it NULL
 * where the file system or the descriptor takes no mapping (written in order then), or the allocation's refusal. */
static gp_status_t map_range(save_t *S, int fd, size_t bytes)
{
    if (fallocate(fd, 0, S->pos0, (off_t)bytes) != 0) {
        const int e = errno;
        if (e == ENOSPC || e == EDQUOT || e == EFBIG)
            return gp__error(GP_ERR_IO, "%s: no room for %zu bytes at byte %lld: %s", S->fn, bytes,
                             (long long)S->pos0, strerror(e));
        return GP_OK; /* EOPNOTSUPP and the like: written in order, where write() says what is wrong */
    }
    const long ps = sysconf(_SC_PAGESIZE);
    const off_t base = S->pos0 / ps * ps;
    const size_t len = (size_t)(S->pos0 - base) + bytes;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, base);
    if (m == MAP_FAILED) return GP_OK; /* a write-only descriptor, a file system without shared mappings */
    S->map = (unsigned char *)m + (S->pos0 - base);
    return GP_OK;
}

static void unmap_range(save_t *S, size_t bytes)
{
    if (!S->map) return;
    const long ps = sysconf(_SC_PAGESIZE);
    const off_t base = S->pos0 / ps * ps;
    munmap(S->map - (S->pos0 - base), (size_t)(S->pos0 - base) + bytes);
    S->map = NULL;
}

gp_status_t gp_array_write(gp_ctx_t *ctx, FILE *f, const void *src, size_t bytes, const gp_stream_opts_t *opts)
{
    static const char fn[] = "gp_array_write";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_NO_CAPTURE(ctx, fn, "it writes a file and waits for its copies");
    GP_ARG_NONNULL(fn, f);
    if (bytes > 0) GP_ARG_NONNULL(fn, src);
    save_t S;
    memset(&S, 0, sizeof S);
    S.fn = fn, S.f = f, S.total = bytes;
    if (opts) S.o = *opts;
    if (S.o.buffers != 0 && (S.o.buffers < 2 || S.o.buffers > SAVE_STAGES_MAX))
        return gp__error(GP_ERR_INVALID_ARG, "%s: opts->buffers = %d (2..%d)", fn, S.o.buffers, SAVE_STAGES_MAX);
    if (S.o.threads < 0 || S.o.threads > GP__IO_MAX_THREADS)
        return gp__error(GP_ERR_INVALID_ARG, "%s: opts->threads = %d (0..%d)", fn, S.o.threads, GP__IO_MAX_THREADS);
    S.threads = S.o.threads ? S.o.threads : omp_get_num_procs();
    if (S.o.threads == 0 && S.threads > GP__IO_THREADS_DEFAULT) S.threads = GP__IO_THREADS_DEFAULT;
    if (bytes == 0) return GP_OK;
    if (fflush(f) != 0)
        return gp__error(GP_ERR_IO, "%s: write failed: %s", fn, strerror(errno ? errno : EIO));
    const int fd = fileno(f);
    struct stat sb;
    S.pos0 = ftello(f);
    if (S.o.map_pages && bytes >= SAVE_MAP_MIN && fd >= 0 && S.pos0 >= 0 && fstat(fd, &sb) == 0 &&
        S_ISREG(sb.st_mode) && !(fcntl(fd, F_GETFL) & O_APPEND))
        GP_TRY_RET(map_range(&S, fd, bytes));
    if (S.pos0 < 0) S.pos0 = 0; /* a stream: offsets in messages count from where it was */
    const gp_status_t st = gp__io_is_device(ctx, src) ? from_device(&S, src, bytes) : from_host(&S, src, bytes);
    if (S.map) {
        unmap_range(&S, bytes);
        if (fseeko(f, S.pos0 + (off_t)bytes, SEEK_SET) != 0 && st == GP_OK)
            return gp__error(GP_ERR_IO, "%s: seeking past the bytes written: %s", fn, strerror(errno));
    }
    return st;
}
