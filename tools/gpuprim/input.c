/*
 * input.c — the CLI's input opening (input.h): .npy by magic, raw binary, standard input with the sniffed bytes given
 * back (seek on a file, a replaying FILE on a pipe).
 */
#define _GNU_SOURCE /* fopencookie */
#include "input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static ssize_t prefixed_read(void *cookie, char *buf, size_t size)
{
    prefixed_t *p = cookie;
    size_t n = 0;
    while (p->pos < p->npre && n < size) buf[n++] = (char)p->bytes[p->pos++];
    if (n < size) n += fread(buf + n, 1, size - n, p->src);
    return n == 0 && ferror(p->src) ? -1 : (ssize_t)n;
}

/* Reads exactly len bytes of standard input; the bytes read so far go to *got. */
static int read_exact(FILE *f, void *buf, size_t len, size_t *got)
{
    *got = fread(buf, 1, len, f);
    return *got == len;
}

/* The .npy header from a stream (standard input): leaves f at the data. The preamble is read in two steps (the
 * magic and version, then the 2- or 4-byte length the version calls for), so no byte past the header is consumed, and
 * the length is checked (gp_npy_header_size caps it) before anything is allocated. */
static gp_status_t npy_header_from_stream(FILE *f, gp_array_desc_t *d, size_t *consumed, const char *verb)
{
    unsigned char pre[12];
    size_t got = 0, hbytes = 0;
    if (!read_exact(f, pre, 8, &got)) {
        fprintf(stderr, "gpuprim %s: -: byte %zu: the input ends inside the .npy preamble\n", verb, got);
        return GP_ERR_FORMAT;
    }
    gp_status_t st;
    if (pre[6] < 1 || pre[6] > 3) { /* the library's message for a bad version */
        st = gp_npy_header_size(pre, 8, &hbytes);
        fprintf(stderr, "gpuprim %s: -: %s\n", verb, gp_last_error());
        return st;
    }
    const size_t npre = pre[6] == 1 ? 10 : 12;
    if (!read_exact(f, pre + 8, npre - 8, &got)) {
        fprintf(stderr, "gpuprim %s: -: byte %zu: the input ends inside the .npy header length\n", verb, 8 + got);
        return GP_ERR_FORMAT;
    }
    st = gp_npy_header_size(pre, npre, &hbytes);
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim %s: -: %s\n", verb, gp_last_error());
        return st;
    }
    unsigned char *h = malloc(hbytes); /* hbytes >= npre: the length field itself is part of it */
    if (!h) {
        fprintf(stderr, "gpuprim %s: -: no memory for a %zu-byte .npy header\n", verb, hbytes);
        return GP_ERR_OUT_OF_MEMORY;
    }
    memcpy(h, pre, npre);
    if (!read_exact(f, h + npre, hbytes - npre, &got)) {
        fprintf(stderr, "gpuprim %s: -: byte %zu: the input ends inside the %zu-byte .npy header\n", verb,
                npre + got, hbytes);
        free(h);
        return GP_ERR_FORMAT;
    }
    st = gp_npy_parse_header(h, hbytes, d);
    free(h);
    if (st != GP_OK) fprintf(stderr, "gpuprim %s: -: %s\n", verb, gp_last_error());
    *consumed = hbytes;
    return st;
}

int input_open(input_t *in, const char *verb, const char *path, int have_dtype, gp_dtype_t dtype, int have_offset,
               size_t offset, size_t count)
{
    memset(in, 0, sizeof *in);
    in->name = path;
    in->pre.src = stdin;
    gp_array_desc_t d;
    FILE *f = NULL;
    int npy = 0, owned = 0, rc = EXIT_OK;
    prefixed_t *pre = &in->pre;
    memset(&d, 0, sizeof d);
    if (strcmp(path, "-") == 0) {
        /* Sniff the .npy magic, then give the bytes back: by seeking when stdin is a file, else through a FILE that
         * replays them before the rest of the pipe. */
        const off_t pos0 = ftello(stdin);
        pre->npre = fread(pre->bytes, 1, sizeof pre->bytes, stdin);
        npy = pre->npre == 6 && memcmp(pre->bytes, "\x93NUMPY", 6) == 0;
        if (pos0 >= 0 && fseeko(stdin, pos0, SEEK_SET) == 0) {
            f = stdin;
        } else {
            cookie_io_functions_t io = {prefixed_read, NULL, NULL, NULL};
            if ((f = fopencookie(pre, "r", io)) == NULL) {
                fprintf(stderr, "gpuprim %s: -: %s\n", verb, strerror(errno));
                return EXIT_FAIL;
            }
            owned = 1;
        }
        size_t used = 0;
        if (npy) {
            if (npy_header_from_stream(f, &d, &used, verb) != GP_OK) rc = EXIT_FAIL;
        } else if (!have_dtype) {
            fprintf(stderr, "gpuprim %s: raw input needs --dtype\n", verb);
            rc = EXIT_USAGE;
        } else {
            d.dtype = dtype, d.elem_size = gp_dtype_size(dtype), d.data_offset = offset, d.ndim = 1;
            d.count = GP_COUNT_ALL;
            for (size_t skip = 0; skip < offset && rc == EXIT_OK; skip++)
                if (getc(f) == EOF) {
                    fprintf(stderr, "gpuprim %s: -: byte %zu: the input ends before the offset %zu\n", verb, skip,
                            offset);
                    rc = EXIT_FAIL;
                }
        }
    } else {
        unsigned char magic[6] = {0};
        if ((f = fopen(path, "rb")) == NULL) {
            fprintf(stderr, "gpuprim %s: %s: %s\n", verb, path, strerror(errno));
            return EXIT_FAIL;
        }
        owned = 1;
        npy = fread(magic, 1, 6, f) == 6 && memcmp(magic, "\x93NUMPY", 6) == 0;
        gp_status_t st = GP_OK;
        if (npy) {
            st = gp_npy_inspect(path, &d);
        } else if (!have_dtype) {
            fprintf(stderr, "gpuprim %s: %s is not a .npy file: raw input needs --dtype\n", verb, path);
            rc = EXIT_USAGE;
        } else {
            st = gp_raw_inspect(path, dtype, offset, count, &d);
        }
        if (rc == EXIT_OK && st != GP_OK) {
            fprintf(stderr, "gpuprim %s: %s\n", verb, gp_last_error());
            rc = EXIT_FAIL;
        }
        if (rc == EXIT_OK && fseeko(f, (off_t)d.data_offset, SEEK_SET) != 0) {
            fprintf(stderr, "gpuprim %s: %s: %s\n", verb, path, strerror(errno));
            rc = EXIT_FAIL;
        }
    }
    if (rc == EXIT_OK && npy && have_offset) {
        fprintf(stderr, "gpuprim %s: --offset applies to raw input; a .npy file says where its data starts\n", verb);
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK && npy && have_dtype && dtype != d.dtype) {
        fprintf(stderr, "gpuprim %s: --dtype %s, but the .npy header says %s\n", verb, gp_dtype_name(dtype),
                gp_dtype_name(d.dtype));
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK && count != GP_COUNT_ALL && d.count != GP_COUNT_ALL && count > d.count) {
        fprintf(stderr, "gpuprim %s: --count %zu, but the input holds %zu elements\n", verb, count, d.count);
        rc = EXIT_USAGE;
    }
    if (rc != EXIT_OK) {
        if (owned) fclose(f);
        return rc;
    }
    in->f = f;
    in->owned = owned;
    in->npy = npy;
    in->d = d;
    in->want = count != GP_COUNT_ALL ? count : d.count;
    return EXIT_OK;
}

void input_close(input_t *in)
{
    if (in->f && in->owned) fclose(in->f);
    in->f = NULL;
}

double input_bytes(const input_t *in)
{
    if (in->want == GP_COUNT_ALL) return -1;
    return (double)in->want * (double)in->d.elem_size;
}

int input_open_opts(input_t *in, const char *verb, const char *path, const char *o_dtype, const char *o_offset,
                    const char *o_count)
{
    gp_dtype_t dtype = GP_F32;
    size_t offset = 0, count = GP_COUNT_ALL;
    if (o_dtype && gp_dtype_parse(o_dtype, &dtype) != GP_OK) {
        fprintf(stderr, "gpuprim %s: --dtype: %s\n", verb, gp_last_error());
        return EXIT_USAGE;
    }
    if (o_offset && parse_size(o_offset, &offset) != 0) return bad_value(verb, "--offset", "a byte count", o_offset);
    if (o_count && parse_size(o_count, &count) != 0) return bad_value(verb, "--count", "an element count", o_count);
    return input_open(in, verb, path, o_dtype != NULL, dtype, o_offset != NULL, offset, count);
}
