/*
 * stream.c — gp_array_stream: an array from a file or pipe, chunk by chunk, through the context. On a GPU the chunks
 * go round a ring of pinned host buffers and device buffers: the calling thread reads chunk i+1 (with several threads
 * and pread on a regular file) while the copy stream moves chunk i to the device and the compute stream runs the
 * caller's work on chunk i-1 — the primers' overlap of transfers and kernels with streams and events.
 *   host buffer b is refilled after copied[b] (its previous H2D copy is done);
 *   device buffer b is rewritten after consumed[b] (the work enqueued on its previous chunk is done).
 */
#define _DEFAULT_SOURCE /* madvise */
#define _POSIX_C_SOURCE 200809L
#include "io_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DEFAULT_CHUNK ((size_t)16 << 20) /* measured best on an H200 host (docs/design/io.md) */
#define MAX_BUFFERS 8

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14's; older kernels say EINVAL */
#endif

/* The pages under map[start, start + bytes) made present, by a team over 2 MiB pieces: 0, or a failed piece's errno
 * (EFAULT past the file's end, EINVAL where the kernel has no MADV_POPULATE_READ). */
static int populate(const unsigned char *map, size_t start, size_t bytes, size_t page)
{
    const size_t lo = start / page * page, end = start + bytes, piece = (size_t)2 << 20;
    const size_t np = (end - lo + piece - 1) / piece;
    int err = 0;
#pragma omp parallel for schedule(static) if (np > 1)
    for (size_t q = 0; q < np; q++) {
        const size_t a = lo + q * piece, z = a + piece < end ? a + piece : end;
        if (madvise((void *)(map + a), z - a, MADV_POPULATE_READ) != 0) {
#pragma omp atomic write
            err = errno;
        }
    }
    return err;
}

/* After a chunk of got of the want elements asked for: nonzero ends the stream (a stop, or the input's end; *st the
 * error when it ends short of count, the input's end at byte `at`), 0 goes on. */
static int chunk_end(const gp_stream_opts_t *o, size_t got, size_t want, size_t count, const char *fn, size_t at,
                     size_t done, gp_status_t *st)
{
    if (got == want) return o->stop && o->stop(o->stop_user);
    if (count != GP_COUNT_ALL) *st = gp__src_ends(fn, at, done, count);
    return 1;
}

gp_status_t gp_array_stream(gp_ctx_t *ctx, FILE *f, const gp_array_desc_t *desc, size_t count, size_t granule,
                            const gp_stream_opts_t *opts, gp_chunk_fn fn, void *user)
{
    static const char fn_name[] = "gp_array_stream";
    GP_TRY_RET(gp__ctx_enter(ctx, fn_name));
    GP_NO_CAPTURE(ctx, fn_name, "it reads a file and waits for its chunks");
    GP_ARG_NONNULL(fn_name, f);
    GP_ARG_NONNULL(fn_name, desc);
    GP_ARG_NONNULL(fn_name, fn);
    if ((unsigned)desc->dtype >= GP_DTYPE_COUNT || desc->elem_size != gp_dtype_size(desc->dtype))
        return gp__error(GP_ERR_INVALID_ARG, "%s: desc is not a valid array description", fn_name);
    const size_t es = desc->elem_size;
    if (granule == 0) granule = 1;
    gp_stream_opts_t o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    if (o.buffers == 0) o.buffers = 3;
    if (o.buffers < 2 || o.buffers > MAX_BUFFERS)
        return gp__error(GP_ERR_INVALID_ARG, "%s: opts->buffers = %d (2..%d)", fn_name, o.buffers, MAX_BUFFERS);
    if (o.threads < 0 || o.threads > GP__IO_MAX_THREADS)
        return gp__error(GP_ERR_INVALID_ARG, "%s: opts->threads = %d (0..%d)", fn_name, o.threads, GP__IO_MAX_THREADS);
    size_t chunk = o.chunk_bytes ? o.chunk_bytes : DEFAULT_CHUNK, gbytes;
    if (!gp__mul_ok(granule, es, &gbytes) || gbytes > ((size_t)1 << 40))
        return gp__error(GP_ERR_INVALID_ARG, "%s: granule %zu is too large", fn_name, granule);
    const size_t chunk_elems = (chunk / gbytes > 0 ? chunk / gbytes : 1) * granule;
    chunk = chunk_elems * es;
    gp__src_t s;
    gp__src_open(&s, f, o.threads);
    const off_t pos0 = s.pos;
    const int gpu = !gp__is_cpu(ctx);
    const int swap = desc->big_endian != gp__host_big_endian() && es > 1;
    /* opts->map_pages: a regular file mapped and its pages pinned chunk by chunk (cudaHostRegisterReadOnly), so the
     * copy engine reads the page cache with no CPU copy; pread into pinned buffers when that is refused. Measured
     * slower than parallel pread on an H200 host (pinning page-cache pages costs more than copying them). */
    unsigned char *map = NULL;
    size_t map_len = 0, page = (size_t)sysconf(_SC_PAGESIZE);
    void *reg[MAX_BUFFERS] = {0};
    if (gpu && s.fd >= 0 && !swap && !desc->bool_values && o.map_pages && s.size > 0) {
        map_len = (size_t)s.size;
        void *m = mmap(NULL, map_len, PROT_READ, MAP_SHARED, s.fd, 0);
        if (m != MAP_FAILED) map = m;
    }
    /* opts->map_pages on the CPU backend: the chunks are the mapping's own pages, handed to fn with no copy (each
     * chunk's pages populated first, so a file that shrank is an error here, not a SIGBUS in fn); pread where the
     * kernel has no MADV_POPULATE_READ (before 5.14) or the elements would sit unaligned. */
    const unsigned char *cmap = NULL;
    size_t released = 0; /* the mapping's pages below this are handed back */
    if (!gpu && s.fd >= 0 && !swap && !desc->bool_values && o.map_pages && s.size > 0 && (size_t)s.pos % es == 0) {
        void *m = mmap(NULL, (size_t)s.size, PROT_READ, MAP_SHARED, s.fd, 0);
        if (m != MAP_FAILED) cmap = m, map_len = (size_t)s.size;
    }
    gp_status_t st = GP_OK;
    void *host[MAX_BUFFERS] = {0}, *dev[MAX_BUFFERS] = {0};
    cudaEvent_t copied[MAX_BUFFERS] = {0}, consumed[MAX_BUFFERS] = {0};
    cudaStream_t cs = NULL, ks = NULL;
    const int nb = gpu ? o.buffers : 1;
    for (int b = 0; b < nb && !cmap; b++) {
        if (gpu) {
            GP_CUDA_TRY(cudaHostAlloc(&host[b], chunk, cudaHostAllocDefault));
            GP_CUDA_TRY(cudaMalloc(&dev[b], chunk));
            GP_CUDA_TRY(cudaEventCreateWithFlags(&copied[b], cudaEventDisableTiming));
            GP_CUDA_TRY(cudaEventCreateWithFlags(&consumed[b], cudaEventDisableTiming));
        } else if ((host[b] = gp__host_alloc(chunk)) == NULL) {
            st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: a %zu-byte chunk buffer", fn_name, chunk);
            goto fail;
        }
    }
    if (gpu) {
        GP_CUDA_TRY(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
        GP_CUDA_TRY(cudaStreamCreateWithFlags(&ks, cudaStreamNonBlocking));
    }
    const size_t total_bytes = count == GP_COUNT_ALL ? 0 : count * es;
    size_t done = 0;
    for (size_t i = 0; count == GP_COUNT_ALL || done < count; i++) {
        const int b = (int)(i % (size_t)nb);
        const size_t want = count == GP_COUNT_ALL || count - done > chunk_elems ? chunk_elems : count - done;
        if (gpu && i >= (size_t)nb) GP_CUDA_TRY(cudaEventSynchronize(copied[b]));
        if (reg[b]) {
            cudaHostUnregister(reg[b]);
            reg[b] = NULL;
        }
        if (map) {
            const size_t start = (size_t)s.pos, avail = start < map_len ? map_len - start : 0;
            const size_t nbytes = (want * es < avail ? want * es : avail) / es * es, end = start + nbytes;
            const size_t lo = start / page * page, hi = end / page * page;
            void *r = map + lo;
            if (hi > lo && cudaHostRegister(r, hi - lo, cudaHostRegisterReadOnly) != cudaSuccess) {
                (void)cudaGetLastError(); /* refused (e.g. no read-only registration here): read instead */
                GP_CUDA_TRY(cudaStreamSynchronize(cs)); /* earlier chunks may still be copying from the map */
                for (int q = 0; q < nb; q++)
                    if (reg[q]) cudaHostUnregister(reg[q]), reg[q] = NULL;
                munmap(map, map_len);
                map = NULL;
            } else {
                if (hi > lo) reg[b] = r;
                const size_t got = nbytes / es, head = hi > start ? hi - start : 0;
                if (got > 0) {
                    GP_CUDA_TRY(cudaStreamWaitEvent(cs, consumed[b], 0));
                    if (head) GP_CUDA_TRY(cudaMemcpyAsync(dev[b], map + start, head, cudaMemcpyHostToDevice, cs));
                    if (nbytes > head) { /* the last partial page: through the pinned bounce buffer */
                        memcpy(host[b], map + start + head, nbytes - head);
                        GP_CUDA_TRY(cudaMemcpyAsync((char *)dev[b] + head, host[b], nbytes - head,
                                                    cudaMemcpyHostToDevice, cs));
                    }
                    GP_CUDA_TRY(cudaEventRecord(copied[b], cs));
                    GP_CUDA_TRY(cudaStreamWaitEvent(ks, copied[b], 0));
                    GP_TRY(fn(user, dev[b], got, done, (gp_stream_t)ks));
                    GP_CUDA_TRY(cudaEventRecord(consumed[b], ks));
                    done += got;
                    s.pos += (off_t)nbytes;
                    if (o.progress) o.progress(o.progress_user, done * es, total_bytes);
                }
                if (chunk_end(&o, got, want, count, fn_name, (size_t)pos0 + done * es, done, &st)) break;
                continue;
            }
        }
        if (cmap) {
            const size_t start = (size_t)s.pos, avail = start < map_len ? map_len - start : 0;
            const size_t raw = want * es < avail ? want * es : avail, nbytes = raw / es * es, got = nbytes / es;
            const int e = nbytes ? populate(cmap, start, nbytes, page) : 0;
            if (e == EINVAL || e == ENOSYS) { /* no MADV_POPULATE_READ: read this chunk and the rest */
                munmap((void *)cmap, map_len);
                cmap = NULL;
                if ((host[0] = gp__host_alloc(chunk)) == NULL) {
                    st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: a %zu-byte chunk buffer", fn_name, chunk);
                    goto fail;
                }
                i--;
                continue;
            }
            if (e) {
                st = gp__error(GP_ERR_IO, "%s: bytes %zu..%zu of the file could not be read in place (%s): it shrank "
                               "while being read?", fn_name, start, start + nbytes, strerror(e));
                goto fail;
            }
            if (got > 0) {
                GP_TRY(fn(user, cmap + start, got, done, NULL));
                /* the consumed pages unmapped from this process (they stay in the page cache): its resident set stays
                 * a chunk, not the file */
                const size_t upto = (start + nbytes) / page * page;
                if (upto > released) {
                    madvise((void *)(cmap + released), upto - released, MADV_DONTNEED);
                    released = upto;
                }
                done += got;
                if (o.progress) o.progress(o.progress_user, done * es, total_bytes);
            }
            s.pos += (off_t)raw; /* a trailing partial element too, as a read takes it */
            if (chunk_end(&o, got, want, count, fn_name, (size_t)pos0 + done * es, done, &st)) break;
            continue;
        }
        const size_t nbytes = gp__src_read(&s, host[b], want * es), got = nbytes / es;
        if (s.err) {
            st = gp__error(GP_ERR_IO, "%s: read failed at byte %zu: %s", fn_name,
                           (s.fd >= 0 ? (size_t)pos0 : desc->data_offset) + done * es + nbytes, strerror(s.err));
            goto fail;
        }
        gp__src_host_order(desc, host[b], got);
        if (got > 0) {
            if (gpu) {
                GP_CUDA_TRY(cudaStreamWaitEvent(cs, consumed[b], 0));
                GP_CUDA_TRY(cudaMemcpyAsync(dev[b], host[b], got * es, cudaMemcpyHostToDevice, cs));
                GP_CUDA_TRY(cudaEventRecord(copied[b], cs));
                GP_CUDA_TRY(cudaStreamWaitEvent(ks, copied[b], 0));
                GP_TRY(fn(user, dev[b], got, done, (gp_stream_t)ks));
                GP_CUDA_TRY(cudaEventRecord(consumed[b], ks));
            } else {
                GP_TRY(fn(user, host[b], got, done, NULL));
            }
            done += got;
            if (o.progress) o.progress(o.progress_user, done * es, total_bytes);
        }
        if (chunk_end(&o, got, want, count, fn_name, (s.fd >= 0 ? (size_t)pos0 : desc->data_offset) + done * es, done,
                      &st))
            break; /* f is left just past this chunk */
    }
    if (gpu) GP_CUDA_TRY(cudaStreamSynchronize(ks));
fail:
    gp__src_close(&s);
    if (cmap) munmap((void *)cmap, map_len);
    if (gpu) {
        if (ks) cudaStreamSynchronize(ks);
        if (cs) cudaStreamSynchronize(cs);
        for (int b = 0; b < nb; b++)
            if (reg[b]) cudaHostUnregister(reg[b]);
        if (map) munmap(map, map_len);
        if (ks) cudaStreamDestroy(ks);
        if (cs) cudaStreamDestroy(cs);
    }
    for (int b = 0; b < nb; b++) {
        if (gpu) {
            if (host[b]) cudaFreeHost(host[b]);
            if (dev[b]) cudaFree(dev[b]);
            if (copied[b]) cudaEventDestroy(copied[b]);
            if (consumed[b]) cudaEventDestroy(consumed[b]);
        } else {
            gp__host_free(host[b]);
        }
    }
    return st;
}
