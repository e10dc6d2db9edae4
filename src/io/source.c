/*
 * source.c — the io family's input source: a regular file read by a team of threads with pread, each a slice of the
 * request, anything else read in order (io_internal.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "io_internal.h"

#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

int gp__host_big_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 0;
}

void gp__src_host_order(const gp_array_desc_t *desc, void *buf, size_t n)
{
    if (desc->big_endian != gp__host_big_endian() && desc->elem_size > 1) gp__swap_bytes(buf, n, desc->elem_size);
    if (desc->bool_values) gp__bool_bytes(buf, n);
}

gp_status_t gp__src_ends(const char *fn, size_t at, size_t done, size_t want)
{
    return gp__error(GP_ERR_FORMAT, "%s: byte %zu: the data ends after %zu of %zu elements", fn, at, done, want);
}

void gp__src_open(gp__src_t *s, FILE *f, int threads)
{
    s->f = f, s->fd = -1, s->pos = 0, s->err = 0, s->size = 0;
    if (threads <= 0) {
        threads = omp_get_num_procs();
        if (threads > GP__IO_THREADS_DEFAULT) threads = GP__IO_THREADS_DEFAULT;
    }
    s->threads = threads < 1 ? 1 : threads > GP__IO_MAX_THREADS ? GP__IO_MAX_THREADS : threads;
    struct stat sb;
    const int fd = fileno(f);
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        const off_t p = ftello(f);
        if (p >= 0) s->fd = fd, s->pos = p, s->size = sb.st_size;
    }
}

size_t gp__src_read(gp__src_t *s, void *buf, size_t bytes)
{
    if (s->fd < 0) {
        size_t n = fread(buf, 1, bytes, s->f);
        if (n < bytes && ferror(s->f)) s->err = errno ? errno : EIO;
        return n;
    }
    int t = s->threads;
    if ((size_t)t > bytes / GP__IO_SLICE_MIN) t = (int)(bytes / GP__IO_SLICE_MIN);
    if (t < 1) t = 1;
    const size_t slice = (bytes + (size_t)t - 1) / (size_t)t;
    size_t got[GP__IO_MAX_THREADS];
    int errs[GP__IO_MAX_THREADS];
    /* a team smaller than t (OMP_THREAD_LIMIT, OMP_DYNAMIC, nesting) shares the slices: each slice is read once */
#pragma omp parallel for num_threads(t) schedule(static, 1)
    for (int i = 0; i < t; i++) {
        const size_t a = (size_t)i * slice, b = a + slice < bytes ? a + slice : bytes;
        size_t done = 0;
        errs[i] = 0;
        while (a + done < b) {
            ssize_t r = pread(s->fd, (char *)buf + a + done, b - a - done, s->pos + (off_t)(a + done));
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) errs[i] = errno;
            if (r <= 0) break;
            done += (size_t)r;
        }
        got[i] = done;
    }
    size_t n = 0;
    for (int i = 0; i < t; i++) { /* the bytes read are the slices up to the first short one */
        if (errs[i] && !s->err) s->err = errs[i];
        n += got[i];
        const size_t a = (size_t)i * slice, b = a + slice < bytes ? a + slice : bytes;
        if (got[i] < b - a) break;
    }
    s->pos += (off_t)n;
    return n;
}

void gp__src_close(gp__src_t *s)
{
    if (s->fd >= 0) fseeko(s->f, s->pos, SEEK_SET);
}

int gp__io_is_device(gp_ctx_t *ctx, const void *p)
{
    if (gp__is_cpu(ctx)) return 0;
    struct cudaPointerAttributes pa;
    if (cudaPointerGetAttributes(&pa, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return pa.type == cudaMemoryTypeDevice;
}
