/*
 * output.c — arr_out (output.h): a streamed array to a .npy or raw file, written whole or not at all.
 */
#define _POSIX_C_SOURCE 200809L
#include "output.h"

#include <errno.h>
#include <string.h>

static int arr_ends_with(const char *s, const char *suf)
{
    const size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

int arr_out_open(arr_out_t *a, const char *verb, const char *path, gp_dtype_t dtype)
{
    memset(a, 0, sizeof *a);
    a->dtype = dtype;
    a->npy = arr_ends_with(path, ".npy");
    if ((a->f = out_open(&a->o, path)) == NULL) {
        fprintf(stderr, "gpuprim %s: cannot write %s: %s (nothing written)\n", verb, path, strerror(a->o.err));
        return EXIT_FAIL;
    }
    if (a->npy) { /* room for the longest count */
        unsigned char head[512];
        const size_t most = (size_t)-1;
        if (gp_npy_header(dtype, 1, &most, 0, 0, head, sizeof head, &a->hbytes) != GP_OK ||
            fwrite(head, 1, a->hbytes, a->f) != a->hbytes) {
            fprintf(stderr, "gpuprim %s: %s: %s (nothing written)\n", verb, path, errno ? strerror(errno) : gp_last_error());
            out_close(&a->o, 0);
            a->f = NULL;
            return EXIT_FAIL;
        }
    }
    return EXIT_OK;
}

int arr_out_write(arr_out_t *a, const void *data, size_t n)
{
    if (n && fwrite(data, gp_dtype_size(a->dtype), n, a->f) != n) {
        a->err = errno ? errno : EIO;
        return -1;
    }
    a->count += n;
    return 0;
}

int arr_out_close(arr_out_t *a, const char *verb, int ok)
{
    if (a->f == NULL) return ok ? EXIT_FAIL : EXIT_OK;
    const int want = ok;
    if (a->err) ok = 0;
    if (ok && a->npy) { /* the real count into the reserved header */
        unsigned char head[512];
        size_t h2 = 0;
        if (gp_npy_header(a->dtype, 1, &a->count, 0, a->hbytes, head, sizeof head, &h2) != GP_OK || h2 != a->hbytes ||
            fflush(a->f) != 0 || fseeko(a->f, 0, SEEK_SET) != 0 || fwrite(head, 1, h2, a->f) != h2)
            ok = 0, a->err = errno ? errno : EIO;
    }
    if (out_close(&a->o, ok) != 0 && ok) ok = 0, a->err = a->o.err;
    a->f = NULL;
    if (!want) return EXIT_OK; /* discarded on purpose */
    if (!ok) {
        fprintf(stderr, "gpuprim %s: cannot write %s: %s (nothing written)\n", verb, a->o.path,
                strerror(a->err ? a->err : EIO));
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

gp_status_t stream_chunks(gp_ctx_t *ctx, const input_t *in, size_t chunk_bytes, size_t granule, double t0,
                          gp_chunk_fn fn, void *user)
{
    progress_bar_t bar = {t0, 0};
    gp_stream_opts_t so;
    memset(&so, 0, sizeof so);
    so.chunk_bytes = chunk_bytes;
    so.progress = progress_bar;
    so.progress_user = &bar;
    const gp_status_t st = gp_array_stream(ctx, in->f, &in->d, in->want, granule, &so, fn, user);
    if (bar.shown) fputc('\n', stderr);
    return st;
}

int stream_failed(const char *verb, const char *path, gp_status_t st, const arr_out_t *a, const arr_out_t *b)
{
    const int err = a && a->err ? a->err : b && b->err ? b->err : 0;
    if (err) {
        fprintf(stderr, "gpuprim %s: cannot write %s: %s (nothing written)\n", verb,
                a && a->err ? a->o.path : b->o.path, strerror(err));
        return EXIT_FAIL;
    }
    const char *e = gp_last_error(), *p = strstr(e, "byte ");
    fprintf(stderr, "gpuprim %s: %s: %s (nothing written)\n", verb, path, p && st == GP_ERR_FORMAT ? p : e);
    return EXIT_FAIL;
}
