/*
 * input.c — the CLI's input opening (input.h): .npy by magic, raw binary, standard input with the sniffed bytes given
 * back (seek on a file, a replaying FILE on a pipe).
 */
#define _GNU_SOURCE /* fopencookie */
#include "input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
static gp_status_t npy_header_from_stream(FILE *f, gp_array_desc_t *d, size_t *consumed, const char *verb,
                                          const char *name)
{
    unsigned char pre[12];
    size_t got = 0, hbytes = 0;
    if (!read_exact(f, pre, 8, &got)) {
        fprintf(stderr, "gpuprim %s: %s: byte %zu: the input ends inside the .npy preamble\n", verb, name, got);
        return GP_ERR_FORMAT;
    }
    gp_status_t st;
    if (pre[6] < 1 || pre[6] > 3) { /* the library's message for a bad version */
        st = gp_npy_header_size(pre, 8, &hbytes);
        fprintf(stderr, "gpuprim %s: %s: %s\n", verb, name, gp_last_error());
        return st;
    }
    const size_t npre = pre[6] == 1 ? 10 : 12;
    if (!read_exact(f, pre + 8, npre - 8, &got)) {
        fprintf(stderr, "gpuprim %s: %s: byte %zu: the input ends inside the .npy header length\n", verb, name, 8 + got);
        return GP_ERR_FORMAT;
    }
    st = gp_npy_header_size(pre, npre, &hbytes);
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim %s: %s: %s\n", verb, name, gp_last_error());
        return st;
    }
    unsigned char *h = malloc(hbytes); /* hbytes >= npre: the length field itself is part of it */
    if (!h) {
        fprintf(stderr, "gpuprim %s: %s: no memory for a %zu-byte .npy header\n", verb, name, hbytes);
        return GP_ERR_OUT_OF_MEMORY;
    }
    memcpy(h, pre, npre);
    if (!read_exact(f, h + npre, hbytes - npre, &got)) {
        fprintf(stderr, "gpuprim %s: %s: byte %zu: the input ends inside the %zu-byte .npy header\n", verb, name,
                npre + got, hbytes);
        free(h);
        return GP_ERR_FORMAT;
    }
    st = gp_npy_parse_header(h, hbytes, d);
    free(h);
    if (st != GP_OK) fprintf(stderr, "gpuprim %s: %s: %s\n", verb, name, gp_last_error());
    *consumed = hbytes;
    return st;
}

/* np.memmap's rule: the bytes after the offset are whole elements. */
static int partial_tail(const char *verb, const char *path, size_t size, size_t offset, gp_dtype_t dtype)
{
    const size_t es = gp_dtype_size(dtype);
    fprintf(stderr, "gpuprim %s: %s: byte %zu: the input ends inside an element (%zu bytes after offset %zu are not a "
                    "whole number of %zu-byte %s elements; --count N reads the first N)\n", verb, path,
            size - (size - offset) % es, size - offset, offset, es, gp_dtype_name(dtype));
    return EXIT_FAIL;
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
    unsigned char magic[6] = {0};
    struct stat sb;
    if (strcmp(path, "-") != 0) {
        if ((f = fopen(path, "rb")) == NULL) {
            fprintf(stderr, "gpuprim %s: %s: %s\n", verb, path, strerror(errno));
            return EXIT_FAIL;
        }
        owned = 1;
        if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
            fprintf(stderr, "gpuprim %s: %s: %s\n", verb, path, strerror(EISDIR));
            fclose(f);
            return EXIT_FAIL;
        }
        if (fstat(fileno(f), &sb) == 0 && !S_ISREG(sb.st_mode)) { /* a FIFO or device: read once, as a stream */
            in->src = f, pre->src = f, f = NULL, owned = 0;
        }
    }
    if (strcmp(path, "-") == 0 || in->src) {
        /* Sniff the .npy magic, then give the bytes back: by seeking when the input is a file, else through a FILE
         * that replays them before the rest of the stream. */
        FILE *src = pre->src;
        const off_t pos0 = ftello(src);
        pre->npre = fread(pre->bytes, 1, sizeof pre->bytes, src);
        npy = pre->npre == 6 && memcmp(pre->bytes, "\x93NUMPY", 6) == 0;
        if (pos0 >= 0 && fseeko(src, pos0, SEEK_SET) == 0) {
            f = src;
        } else {
            cookie_io_functions_t io = {prefixed_read, NULL, NULL, NULL};
            if ((f = fopencookie(pre, "r", io)) == NULL) {
                fprintf(stderr, "gpuprim %s: %s: %s\n", verb, path, strerror(errno));
                if (in->src) fclose(in->src), in->src = NULL;
                return EXIT_FAIL;
            }
            owned = 1;
        }
        size_t used = 0;
        if (npy) {
            if (npy_header_from_stream(f, &d, &used, verb, path) != GP_OK) rc = EXIT_FAIL;
        } else if (!have_dtype) {
            fprintf(stderr, "gpuprim %s: %s: raw input needs --dtype\n", verb, path);
            rc = EXIT_USAGE;
        } else {
            d.dtype = dtype, d.elem_size = gp_dtype_size(dtype), d.data_offset = offset, d.ndim = 1;
            d.count = GP_COUNT_ALL;
            for (size_t skip = 0; skip < offset && rc == EXIT_OK; skip++)
                if (getc(f) == EOF) {
                    fprintf(stderr, "gpuprim %s: %s: byte %zu: the input ends before the offset %zu\n", verb, path,
                            skip, offset);
                    rc = EXIT_FAIL;
                }
            /* a seekable standard input holds a known number of bytes: whole elements only, as np.memmap */
            if (rc == EXIT_OK && f == stdin && count == GP_COUNT_ALL && fstat(fileno(f), &sb) == 0 &&
                S_ISREG(sb.st_mode) && (size_t)sb.st_size >= (size_t)pos0 + offset &&
                ((size_t)sb.st_size - (size_t)pos0 - offset) % d.elem_size != 0)
                rc = partial_tail(verb, path, (size_t)sb.st_size - (size_t)pos0, offset, dtype);
        }
    } else {
        npy = fread(magic, 1, 6, f) == 6 && memcmp(magic, "\x93NUMPY", 6) == 0;
        gp_status_t st = GP_OK;
        if (npy) {
            st = gp_npy_inspect(path, &d);
        } else if (!have_dtype) {
            fprintf(stderr, "gpuprim %s: %s is not a .npy file: raw input needs --dtype\n", verb, path);
            rc = EXIT_USAGE;
        } else {
            st = gp_raw_inspect(path, dtype, offset, count, &d);
            if (st == GP_OK && count == GP_COUNT_ALL && fstat(fileno(f), &sb) == 0 && (size_t)sb.st_size > offset &&
                ((size_t)sb.st_size - offset) % d.elem_size != 0)
                rc = partial_tail(verb, path, (size_t)sb.st_size, offset, dtype);
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
        if (in->src) fclose(in->src), in->src = NULL;
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
    if (in->under && in->under_owned) fclose(in->under);
    if (in->src) fclose(in->src);
    free(in->mem);
    in->f = in->under = in->src = NULL;
    in->mem = NULL;
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

/* ---------------------------------------------------------------------------------------------- C order */
/* dst = the elements of the Fortran-order src in C order: an odometer over the C index, last axis fastest. */
static void f_to_c(void *dst, const void *src, const gp_array_desc_t *d)
{
    const int nd = d->ndim;
    const size_t es = d->elem_size;
    size_t fstride[GP_NPY_MAX_DIMS], coord[GP_NPY_MAX_DIMS] = {0}, foff = 0;
    for (int k = 0; k < nd; k++) fstride[k] = k ? fstride[k - 1] * d->shape[k - 1] : 1;
    unsigned char *o = dst;
    const unsigned char *s = src;
    for (size_t i = 0; i < d->count; i++) {
        switch (es) {
        case 1: o[i] = s[foff]; break;
        case 2: memcpy(o + i * 2, s + foff * 2, 2); break;
        case 4: memcpy(o + i * 4, s + foff * 4, 4); break;
        default: memcpy(o + i * 8, s + foff * 8, 8); break;
        }
        for (int k = nd - 1; k >= 0; k--) { /* the next C index */
            foff += fstride[k];
            if (++coord[k] < d->shape[k]) break;
            foff -= fstride[k] * d->shape[k];
            coord[k] = 0;
        }
    }
}

int input_c_order(input_t *in, const char *verb)
{
    if (!in->npy || !in->d.fortran_order) return EXIT_OK;
    in->d.fortran_order = 0;
    if (in->d.ndim < 2 || in->d.count == 0) return EXIT_OK; /* one axis: the orders agree */
    const size_t n = in->d.count, es = in->d.elem_size;
    void *raw = malloc(n * es), *c = malloc(n * es);
    size_t got = 0;
    if (raw == NULL || c == NULL) {
        fprintf(stderr, "gpuprim %s: %s: a Fortran-order array is reordered in memory: no room for 2 x %zu bytes\n",
                verb, in->name, n * es);
        free(raw), free(c);
        return EXIT_FAIL;
    }
    gp_array_desc_t file = in->d;
    file.fortran_order = 1;
    if (gp_array_fread(in->f, &file, n, raw, &got) != GP_OK || got != n) {
        fprintf(stderr, "gpuprim %s: %s: byte %zu: the data ends after %zu of %zu elements\n", verb, in->name,
                file.data_offset + got * es, got, n);
        free(raw), free(c);
        return EXIT_FAIL;
    }
    f_to_c(c, raw, &file);
    free(raw);
    FILE *m = fmemopen(c, n * es, "rb");
    if (m == NULL) {
        fprintf(stderr, "gpuprim %s: %s: %s\n", verb, in->name, strerror(errno));
        free(c);
        return EXIT_FAIL;
    }
    if (in->owned) fclose(in->f);
    if (in->src) fclose(in->src), in->src = NULL;
    in->f = m, in->owned = 1, in->mem = c;
    in->d.big_endian = 0; /* gp_array_fread gave host order (and bools as 0 / 1) */
    in->d.data_offset = 0;
    return EXIT_OK;
}

/* ---------------------------------------------------------------------------------------------- conversion */
/* The converting FILE: reads whole elements of the file's dtype beneath, in host order, and gives the target's. */
static double elem_as_double(gp_dtype_t dt, const unsigned char *p)
{
    switch (dt) {
    case GP_U8: return *p;
    case GP_I8: return (int8_t)*p;
    case GP_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case GP_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case GP_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case GP_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case GP_U64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case GP_I64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case GP_F16: { uint16_t v; memcpy(&v, p, 2); return gp_f16_to_f32(v); }
    case GP_BF16: { uint16_t v; memcpy(&v, p, 2); return gp_bf16_to_f32(v); }
    case GP_F32: { float v; memcpy(&v, p, 4); return v; }
    default: { double v; memcpy(&v, p, 8); return v; }
    }
}

static void store_as(gp_dtype_t dt, unsigned char *o, double v)
{
    switch (dt) {
    case GP_I32: { /* saturated: a 64-bit value past i32 stays past every bin (direct bins are < 2^31) */
        const int32_t x = v < -2147483648.0 ? INT32_MIN : v > 2147483647.0 ? INT32_MAX : (int32_t)v;
        memcpy(o, &x, 4);
        break;
    }
    case GP_U32: { uint32_t x = (uint32_t)v; memcpy(o, &x, 4); break; }
    case GP_F32: { float x = (float)v; memcpy(o, &x, 4); break; }
    default: memcpy(o, &v, 8); break; /* f64 */
    }
}

static ssize_t convert_read(void *cookie, char *buf, size_t size)
{
    input_t *in = cookie;
    const size_t ies = in->fd.elem_size, oes = in->d.elem_size, most = size / oes;
    unsigned char tmp[8192];
    size_t done = 0;
    while (done < most) {
        size_t want = most - done;
        if (want > sizeof tmp / ies) want = sizeof tmp / ies;
        size_t got = 0;
        if (gp_array_fread(in->under, &in->fd, want, tmp, &got) != GP_OK) return -1;
        for (size_t i = 0; i < got; i++)
            store_as(in->d.dtype, (unsigned char *)buf + (done + i) * oes, elem_as_double(in->from, tmp + i * ies));
        done += got;
        if (got < want) break;
    }
    return (ssize_t)(done * oes);
}

int input_convert(input_t *in, const char *verb, gp_dtype_t dtype)
{
    in->from = in->d.dtype;
    if (in->d.dtype == dtype) return EXIT_OK;
    in->fd = in->d;
    cookie_io_functions_t io = {convert_read, NULL, NULL, NULL};
    FILE *c = fopencookie(in, "r", io);
    if (c == NULL) {
        fprintf(stderr, "gpuprim %s: %s: %s\n", verb, in->name, strerror(errno));
        return EXIT_FAIL;
    }
    in->under = in->f, in->under_owned = in->owned;
    in->f = c, in->owned = 1;
    in->d.dtype = dtype;
    in->d.elem_size = gp_dtype_size(dtype);
    in->d.big_endian = 0;
    in->d.bool_values = 0;
    in->d.data_offset = 0;
    return EXIT_OK;
}
