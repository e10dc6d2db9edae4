/*
 * npy.c — .npy and raw binary arrays: header parsing with byte offsets in every error, load/save, raw inspection, and
 * chunked reads that swap to host byte order. Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
 *   magic "\x93NUMPY", major, minor, header length (uint16 LE for 1.x, uint32 LE for 2.x/3.x), then a Python dict
 *   literal {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } ending in '\n'; data follows.
 */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include "../core/internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static const unsigned char k_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

static int host_big_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 0;
}

gp_status_t gp_npy_header_size(const void *buf, size_t len, size_t *header_bytes)
{
    static const char fn[] = "gp_npy_header_size";
    GP_ARG_NONNULL(fn, buf);
    GP_ARG_NONNULL(fn, header_bytes);
    const unsigned char *b = buf;
    size_t i = 0;
    for (; i < 6 && i < len; i++)
        if (b[i] != k_magic[i]) return gp__error(GP_ERR_FORMAT, "npy: byte %zu: not a .npy file (bad magic)", i);
    if (len < 8) return gp__error(GP_ERR_FORMAT, "npy: byte %zu: file ends inside the 8-byte preamble", len);
    const unsigned major = b[6];
    if (major < 1 || major > 3)
        return gp__error(GP_ERR_FORMAT, "npy: byte 6: format version %u.%u is not 1.x, 2.x or 3.x", major, b[7]);
    const size_t lenbytes = major == 1 ? 2 : 4;
    if (len < 8 + lenbytes)
        return gp__error(GP_ERR_FORMAT, "npy: byte %zu: file ends inside the header length field", len);
    size_t hlen = (size_t)b[8] | (size_t)b[9] << 8;
    if (lenbytes == 4) hlen |= (size_t)b[10] << 16 | (size_t)b[11] << 24;
    if (hlen > GP_NPY_MAX_HEADER)
        return gp__error(GP_ERR_FORMAT, "npy: byte 8: header length %zu is over the %d-byte limit", hlen,
                         GP_NPY_MAX_HEADER);
    *header_bytes = 8 + lenbytes + hlen;
    return GP_OK;
}

/* ---------------------------------------------------------------------------------------------- dict parser */
typedef struct cursor {
    const char *s;
    size_t pos, end; /* pos/end are file offsets (the buffer starts at offset 0) */
} cursor_t;

static void skip_ws(cursor_t *c)
{
    while (c->pos < c->end && (c->s[c->pos] == ' ' || c->s[c->pos] == '\t' || c->s[c->pos] == '\n' ||
                               c->s[c->pos] == '\r'))
        c->pos++;
}

static int peek(cursor_t *c) { return c->pos < c->end ? (unsigned char)c->s[c->pos] : -1; }

static gp_status_t expect(cursor_t *c, char ch, const char *what)
{
    skip_ws(c);
    if (peek(c) != ch) return gp__error(GP_ERR_FORMAT, "npy: byte %zu: expected '%c' %s", c->pos, ch, what);
    c->pos++;
    return GP_OK;
}

/* A quoted Python string (no escapes needed for the keys and descrs of .npy); copies it to out. */
static gp_status_t parse_string(cursor_t *c, char *out, size_t cap)
{
    skip_ws(c);
    int q = peek(c);
    if (q != '\'' && q != '"') return gp__error(GP_ERR_FORMAT, "npy: byte %zu: expected a quoted string", c->pos);
    size_t start = ++c->pos, n = 0;
    while (c->pos < c->end && c->s[c->pos] != q) {
        const unsigned char ch = (unsigned char)c->s[c->pos];
        if (ch < 0x20 || ch > 0x7e)
            return gp__error(GP_ERR_FORMAT, "npy: byte %zu: byte 0x%02x inside a header string", c->pos, ch);
        if (ch == '\\' || n + 1 >= cap)
            return gp__error(GP_ERR_FORMAT, "npy: byte %zu: unsupported string in header", start);
        out[n++] = c->s[c->pos++];
    }
    if (c->pos >= c->end) return gp__error(GP_ERR_FORMAT, "npy: byte %zu: unterminated string", start - 1);
    c->pos++;
    out[n] = 0;
    return GP_OK;
}

/* The descr NumPy writes for the supported dtypes: a byte-order mark, a kind and a one-digit size ("<f4", "|u1",
 * "|b1"); a mark is optional as in np.dtype. Nothing else is taken: no signs, spaces or padding inside. */
static gp_status_t parse_descr(const char *d, size_t at, gp_array_desc_t *desc)
{
    char order = '=';
    const char *p = d;
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=') order = *p++;
    const char kind = *p ? *p++ : 0;
    if (!(p[0] >= '1' && p[0] <= '9' && p[1] == 0))
        return gp__error(GP_ERR_FORMAT, "npy: byte %zu: descr '%s' is not a simple numeric dtype", at, d);
    const int size = p[0] - '0';
    gp_dtype_t dt;
    switch (kind) {
    case 'f': dt = size == 2 ? GP_F16 : size == 4 ? GP_F32 : size == 8 ? GP_F64 : GP_DTYPE_COUNT; break;
    case 'i': dt = size == 1 ? GP_I8 : size == 2 ? GP_I16 : size == 4 ? GP_I32 : size == 8 ? GP_I64 : GP_DTYPE_COUNT; break;
    case 'u': dt = size == 1 ? GP_U8 : size == 2 ? GP_U16 : size == 4 ? GP_U32 : size == 8 ? GP_U64 : GP_DTYPE_COUNT; break;
    case 'b': dt = size == 1 ? GP_U8 : GP_DTYPE_COUNT; break;
    default: dt = GP_DTYPE_COUNT;
    }
    if (dt == GP_DTYPE_COUNT)
        return gp__error(GP_ERR_FORMAT, "npy: byte %zu: unsupported dtype '%s' (f2 f4 f8 i1-i8 u1-u8 b1)", at, d);
    desc->dtype = dt;
    desc->bool_values = kind == 'b';
    desc->elem_size = gp_dtype_size(dt);
    desc->big_endian = desc->elem_size > 1 && (order == '>' || (order == '=' && host_big_endian()));
    return GP_OK;
}

static gp_status_t parse_shape(cursor_t *c, gp_array_desc_t *desc)
{
    GP_TRY_RET(expect(c, '(', "to open the shape tuple"));
    desc->ndim = 0;
    size_t count = 1;
    for (;;) {
        skip_ws(c);
        if (peek(c) == ')') {
            c->pos++;
            break;
        }
        const size_t at = c->pos;
        if (peek(c) < '0' || peek(c) > '9')
            return gp__error(GP_ERR_FORMAT, "npy: byte %zu: shape entries must be non-negative integers", at);
        unsigned long long v = 0;
        while (peek(c) >= '0' && peek(c) <= '9') {
            unsigned d = (unsigned)(peek(c) - '0');
            if (v > (ULLONG_MAX - d) / 10)
                return gp__error(GP_ERR_FORMAT, "npy: byte %zu: shape entry overflows", at);
            v = v * 10 + d;
            c->pos++;
        }
        if (peek(c) == 'L') c->pos++; /* Python 2 long literal */
        if (desc->ndim == GP_NPY_MAX_DIMS)
            return gp__error(GP_ERR_FORMAT, "npy: byte %zu: more than %d dimensions", at, GP_NPY_MAX_DIMS);
        if (!gp__mul_ok(count, (size_t)v, &count))
            return gp__error(GP_ERR_FORMAT, "npy: byte %zu: element count overflows size_t", at);
        desc->shape[desc->ndim++] = (size_t)v;
        skip_ws(c);
        if (peek(c) == ',') {
            c->pos++;
            continue;
        }
        if (peek(c) != ')') return gp__error(GP_ERR_FORMAT, "npy: byte %zu: expected ',' or ')' in shape", c->pos);
    }
    desc->count = count;
    return GP_OK;
}

gp_status_t gp_npy_parse_header(const void *buf, size_t len, gp_array_desc_t *desc)
{
    static const char fn[] = "gp_npy_parse_header";
    GP_ARG_NONNULL(fn, desc);
    size_t total = 0;
    gp_status_t st = gp_npy_header_size(buf, len, &total);
    if (st != GP_OK) return st;
    const unsigned char *b = buf;
    if (len < total)
        return gp__error(GP_ERR_FORMAT, "npy: byte %zu: the header runs to byte %zu, past the end of the input", len,
                         total);
    gp_array_desc_t d;
    memset(&d, 0, sizeof d);
    d.version_major = b[6];
    d.version_minor = b[7];
    d.data_offset = total;
    cursor_t c = {(const char *)buf, d.version_major == 1 ? 10 : 12, total};
    if (total == c.pos || b[total - 1] != '\n')
        return gp__error(GP_ERR_FORMAT, "npy: byte %zu: the header does not end with a newline", total ? total - 1 : 0);
    GP_TRY_RET(expect(&c, '{', "to open the header dict"));
    int have_descr = 0, have_order = 0, have_shape = 0;
    for (;;) {
        skip_ws(&c);
        if (peek(&c) == '}') {
            c.pos++;
            break;
        }
        char key[32], val[64];
        const size_t kat = c.pos;
        GP_TRY_RET(parse_string(&c, key, sizeof key));
        GP_TRY_RET(expect(&c, ':', "after a key"));
        skip_ws(&c);
        const size_t vat = c.pos;
        if (strcmp(key, "descr") == 0 && !have_descr) {
            GP_TRY_RET(parse_string(&c, val, sizeof val));
            GP_TRY_RET(parse_descr(val, vat, &d));
            have_descr = 1;
        } else if (strcmp(key, "fortran_order") == 0 && !have_order) {
            if (c.end - c.pos >= 4 && memcmp(c.s + c.pos, "True", 4) == 0) {
                d.fortran_order = 1;
                c.pos += 4;
            } else if (c.end - c.pos >= 5 && memcmp(c.s + c.pos, "False", 5) == 0) {
                c.pos += 5;
            } else {
                return gp__error(GP_ERR_FORMAT, "npy: byte %zu: fortran_order must be True or False", vat);
            }
            have_order = 1;
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            GP_TRY_RET(parse_shape(&c, &d));
            have_shape = 1;
        } else {
            return gp__error(GP_ERR_FORMAT, "npy: byte %zu: unexpected or repeated key '%s'", kat, key);
        }
        skip_ws(&c);
        if (peek(&c) == ',') {
            c.pos++;
            continue;
        }
        if (peek(&c) != '}') return gp__error(GP_ERR_FORMAT, "npy: byte %zu: expected ',' or '}'", c.pos);
    }
    skip_ws(&c);
    if (c.pos != total)
        return gp__error(GP_ERR_FORMAT, "npy: byte %zu: unexpected text after the header dict", c.pos);
    if (!have_descr || !have_order || !have_shape)
        return gp__error(GP_ERR_FORMAT, "npy: byte %zu: the header dict lacks '%s'", total,
                         !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
    if (d.ndim == 0) d.count = 1;
    size_t bytes;
    if (!gp__mul_ok(d.count, d.elem_size, &bytes) || bytes > (size_t)INT64_MAX - total)
        return gp__error(GP_ERR_FORMAT, "npy: byte %zu: %zu elements of %zu bytes overflow", total, d.count,
                         d.elem_size);
    *desc = d;
    return GP_OK;
}

/* ---------------------------------------------------------------------------------------------- files */
static gp_status_t file_size(FILE *f, const char *path, size_t *size)
{
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0) return gp__error(GP_ERR_IO, "%s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode)) return gp__error(GP_ERR_IO, "%s: not a regular file", path);
    *size = (size_t)sb.st_size;
    return GP_OK;
}

static gp_status_t check_holds(const char *path, const gp_array_desc_t *d, size_t size)
{
    size_t need = d->data_offset + d->count * d->elem_size;
    if (size < need)
        return gp__error(GP_ERR_FORMAT, "%s: byte %zu: the file ends, but its %zu elements of %zu bytes from byte %zu "
                                        "need %zu bytes", path, size, d->count, d->elem_size, d->data_offset, need);
    return GP_OK;
}

static gp_status_t inspect_open(const char *path, gp_array_desc_t *desc, FILE **out)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return gp__error(GP_ERR_IO, "%s: %s", path, strerror(errno));
    gp_status_t st;
    size_t size = 0, hbytes = 0, n;
    unsigned char pre[12];
    char *hdr = NULL;
    if ((st = file_size(f, path, &size)) != GP_OK) goto fail;
    n = fread(pre, 1, sizeof pre, f);
    if ((st = gp_npy_header_size(pre, n, &hbytes)) != GP_OK) goto prefix;
    if (hbytes > size) {
        st = gp__error(GP_ERR_FORMAT, "npy: byte %zu: the file ends inside its %zu-byte header", size, hbytes);
        goto prefix;
    }
    if ((hdr = malloc(hbytes)) == NULL) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu header bytes", path, hbytes);
        goto fail;
    }
    if (fseek(f, 0, SEEK_SET) != 0 || fread(hdr, 1, hbytes, f) != hbytes) {
        st = gp__error(GP_ERR_IO, "%s: reading the header: %s", path, strerror(errno));
        goto fail;
    }
    if ((st = gp_npy_parse_header(hdr, hbytes, desc)) != GP_OK) goto prefix;
    if ((st = check_holds(path, desc, size)) != GP_OK) goto fail;
    free(hdr);
    *out = f;
    return GP_OK;
prefix: {
    char detail[512];
    snprintf(detail, sizeof detail, "%s", gp_last_error());
    gp__error(st, "%s: %s", path, detail);
}
fail:
    free(hdr);
    fclose(f);
    return st;
}

gp_status_t gp_npy_inspect(const char *path, gp_array_desc_t *desc)
{
    GP_ARG_NONNULL("gp_npy_inspect", path);
    GP_ARG_NONNULL("gp_npy_inspect", desc);
    FILE *f = NULL;
    gp_array_desc_t d;
    gp_status_t st = inspect_open(path, &d, &f);
    if (st != GP_OK) return st;
    fclose(f);
    *desc = d;
    return GP_OK;
}

void gp__swap_bytes(void *buf, size_t count, size_t es)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < count; i++, p += es)
        for (size_t a = 0, b = es - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

void gp__bool_bytes(void *buf, size_t count)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < count; i++) p[i] = p[i] != 0;
}

gp_status_t gp_array_fread(FILE *f, const gp_array_desc_t *desc, size_t count, void *buf, size_t *got)
{
    static const char fn[] = "gp_array_fread";
    GP_ARG_NONNULL(fn, f);
    GP_ARG_NONNULL(fn, desc);
    GP_ARG_NONNULL(fn, got);
    *got = 0;
    if (count == 0) return GP_OK;
    GP_ARG_NONNULL(fn, buf);
    if ((unsigned)desc->dtype >= GP_DTYPE_COUNT || desc->elem_size != gp_dtype_size(desc->dtype))
        return gp__error(GP_ERR_INVALID_ARG, "%s: desc is not a valid array description", fn);
    size_t bytes;
    if (!gp__mul_ok(count, desc->elem_size, &bytes))
        return gp__error(GP_ERR_OVERFLOW, "%s: %zu elements overflow", fn, count);
    size_t n = fread(buf, 1, bytes, f);
    *got = n / desc->elem_size;
    if (desc->big_endian != host_big_endian() && desc->elem_size > 1) gp__swap_bytes(buf, *got, desc->elem_size);
    if (desc->bool_values) gp__bool_bytes(buf, *got);
    if (n < bytes && ferror(f)) return gp__error(GP_ERR_IO, "%s: read failed: %s", fn, strerror(errno));
    return GP_OK;
}

gp_status_t gp_npy_load(const char *path, gp_array_desc_t *desc, void **data)
{
    static const char fn[] = "gp_npy_load";
    GP_ARG_NONNULL(fn, path);
    GP_ARG_NONNULL(fn, desc);
    GP_ARG_NONNULL(fn, data);
    FILE *f = NULL;
    gp_array_desc_t d;
    gp_status_t st = inspect_open(path, &d, &f);
    if (st != GP_OK) return st;
    size_t bytes = d.count * d.elem_size, got = 0;
    void *buf = malloc(bytes ? bytes : 1);
    if (buf == NULL) {
        fclose(f);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu bytes for the data of %s", fn, bytes, path);
    }
    if (fseeko(f, (off_t)d.data_offset, SEEK_SET) != 0)
        st = gp__error(GP_ERR_IO, "%s: seek: %s", path, strerror(errno));
    if (st == GP_OK) st = gp_array_fread(f, &d, d.count, buf, &got);
    if (st == GP_OK && got != d.count)
        st = gp__error(GP_ERR_FORMAT, "%s: byte %zu: the data ends early", path, d.data_offset + got * d.elem_size);
    fclose(f);
    if (st != GP_OK) {
        free(buf);
        return st;
    }
    *desc = d;
    *data = buf;
    return GP_OK;
}

static const char *npy_descr(gp_dtype_t dt)
{
    switch (dt) {
    case GP_U8: return "|u1";
    case GP_I8: return "|i1";
    case GP_U16: return "<u2";
    case GP_I16: return "<i2";
    case GP_U32: return "<u4";
    case GP_I32: return "<i4";
    case GP_U64: return "<u8";
    case GP_I64: return "<i8";
    case GP_F16: return "<f2";
    case GP_F32: return "<f4";
    case GP_F64: return "<f8";
    default: return NULL;
    }
}

static gp_status_t npy_header(const char *fn, gp_dtype_t dtype, int is_bool, int ndim, const size_t *shape,
                              int fortran_order, size_t min_bytes, void *buf, size_t cap, size_t *bytes)
{
    GP_ARG_NONNULL(fn, buf);
    GP_ARG_NONNULL(fn, bytes);
    if ((unsigned)dtype >= GP_DTYPE_COUNT) return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d", fn, (int)dtype);
    if (is_bool && dtype != GP_U8)
        return gp__error(GP_ERR_INVALID_ARG, "%s: bool_values with dtype %s (bools are GP_U8)", fn, gp_dtype_name(dtype));
    const char *descr = is_bool ? "|b1" : npy_descr(dtype);
    if (descr == NULL) return gp__error(GP_ERR_UNSUPPORTED, "%s: %s has no .npy descriptor", fn, gp_dtype_name(dtype));
    if (ndim < 0 || ndim > GP_NPY_MAX_DIMS) return gp__error(GP_ERR_INVALID_ARG, "%s: ndim %d", fn, ndim);
    if (ndim > 0) GP_ARG_NONNULL(fn, shape);
    if (min_bytes > ((size_t)1 << 30)) return gp__error(GP_ERR_INVALID_ARG, "%s: min_bytes %zu", fn, min_bytes);
    char dict[64 + 24 * GP_NPY_MAX_DIMS];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': (", descr,
                       fortran_order ? "True" : "False");
    for (int i = 0; i < ndim; i++)
        len += snprintf(dict + len, sizeof dict - (size_t)len, "%zu%s", shape[i], ndim == 1 || i + 1 < ndim ? ", " : "");
    if (ndim == 1) len -= 1; /* "(5,)" */
    len += snprintf(dict + len, sizeof dict - (size_t)len, "), }");
    if (len <= 0 || (size_t)len >= sizeof dict) /* cannot happen for GP_NPY_MAX_DIMS dims; says so to the compiler */
        return gp__error(GP_ERR_INVALID_ARG, "%s: header dict too long", fn);
    /* Pad with spaces so magic + length + dict + '\n' is a multiple of 64 (and at least min_bytes). */
    size_t pre = 10, total = (pre + (size_t)len + 1 + 63) / 64 * 64;
    if (total < min_bytes) total = (min_bytes + 63) / 64 * 64;
    int major = 1;
    if (total - pre > 65535) {
        major = 2, pre = 12;
        total = (pre + (size_t)len + 1 + 63) / 64 * 64;
        if (total < min_bytes) total = (min_bytes + 63) / 64 * 64;
    }
    if (total > cap)
        return gp__error(GP_ERR_INVALID_ARG, "%s: the header needs %zu bytes, the buffer holds %zu", fn, total, cap);
    const size_t hlen = total - pre;
    unsigned char *head = buf;
    memcpy(head, k_magic, 6);
    head[6] = (unsigned char)major;
    head[7] = 0;
    head[8] = (unsigned char)(hlen & 0xff);
    head[9] = (unsigned char)(hlen >> 8 & 0xff);
    if (major == 2) {
        head[10] = (unsigned char)(hlen >> 16 & 0xff);
        head[11] = (unsigned char)(hlen >> 24 & 0xff);
    }
    memcpy(head + pre, dict, (size_t)len);
    memset(head + pre + len, ' ', total - pre - (size_t)len - 1);
    head[total - 1] = '\n';
    *bytes = total;
    return GP_OK;
}

gp_status_t gp_npy_header(gp_dtype_t dtype, int ndim, const size_t *shape, int fortran_order, size_t min_bytes,
                          void *buf, size_t cap, size_t *bytes)
{
    return npy_header("gp_npy_header", dtype, 0, ndim, shape, fortran_order, min_bytes, buf, cap, bytes);
}

gp_status_t gp_npy_header_desc(const gp_array_desc_t *desc, size_t min_bytes, void *buf, size_t cap, size_t *bytes)
{
    static const char fn[] = "gp_npy_header_desc";
    GP_ARG_NONNULL(fn, desc);
    return npy_header(fn, desc->dtype, desc->bool_values, desc->ndim, desc->shape, desc->fortran_order, min_bytes,
                      buf, cap, bytes);
}

gp_status_t gp_npy_save(const char *path, gp_dtype_t dtype, int ndim, const size_t *shape, int fortran_order,
                        const void *data)
{
    static const char fn[] = "gp_npy_save";
    GP_ARG_NONNULL(fn, path);
    if ((unsigned)dtype >= GP_DTYPE_COUNT) return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d", fn, (int)dtype);
    if (npy_descr(dtype) == NULL)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s has no .npy descriptor", fn, gp_dtype_name(dtype));
    if (ndim < 0 || ndim > GP_NPY_MAX_DIMS) return gp__error(GP_ERR_INVALID_ARG, "%s: ndim %d", fn, ndim);
    if (ndim > 0) GP_ARG_NONNULL(fn, shape);
    if (host_big_endian()) return gp__error(GP_ERR_UNSUPPORTED, "%s: big-endian hosts are not supported", fn);
    size_t count = 1;
    for (int i = 0; i < ndim; i++)
        if (!gp__mul_ok(count, shape[i], &count))
            return gp__error(GP_ERR_OVERFLOW, "%s: the shape's element count overflows", fn);
    size_t bytes;
    if (!gp__mul_ok(count, gp_dtype_size(dtype), &bytes)) return gp__error(GP_ERR_OVERFLOW, "%s: size overflows", fn);
    if (bytes > 0) GP_ARG_NONNULL(fn, data);
    unsigned char head[256 + 24 * GP_NPY_MAX_DIMS];
    size_t total = 0;
    GP_TRY_RET(gp_npy_header(dtype, ndim, shape, fortran_order, 0, head, sizeof head, &total));
    /* Written whole or not at all: a temporary beside path, renamed over it once every byte is on its way. */
    char tmp[4096];
    FILE *f = NULL;
    static unsigned serial;
    if (strlen(path) + 40 >= sizeof tmp) return gp__error(GP_ERR_IO, "%s: %s", fn, strerror(ENAMETOOLONG));
    for (int tries = 0; tries < 100 && f == NULL; tries++) {
        snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%u", path, (long)getpid(), __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
        const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno == EEXIST) continue;
        if (fd < 0) return gp__error(GP_ERR_IO, "%s: %s", path, strerror(errno));
        if ((f = fdopen(fd, "wb")) == NULL) {
            const int e = errno;
            close(fd);
            unlink(tmp);
            return gp__error(GP_ERR_IO, "%s: %s", path, strerror(e));
        }
    }
    if (f == NULL) return gp__error(GP_ERR_IO, "%s: no free temporary name beside it", path);
    int ok = fwrite(head, 1, total, f) == total && (bytes == 0 || fwrite(data, 1, bytes, f) == bytes);
    int err = ok ? 0 : errno;
    if (fclose(f) != 0 && ok) ok = 0, err = errno;
    if (ok && rename(tmp, path) != 0) ok = 0, err = errno;
    if (!ok) {
        unlink(tmp);
        return gp__error(GP_ERR_IO, "%s: write failed: %s (nothing written)", path, strerror(err ? err : EIO));
    }
    return GP_OK;
}

gp_status_t gp_raw_inspect(const char *path, gp_dtype_t dtype, size_t offset, size_t count, gp_array_desc_t *desc)
{
    static const char fn[] = "gp_raw_inspect";
    GP_ARG_NONNULL(fn, path);
    GP_ARG_NONNULL(fn, desc);
    if ((unsigned)dtype >= GP_DTYPE_COUNT) return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d", fn, (int)dtype);
    FILE *f = fopen(path, "rb");
    if (f == NULL) return gp__error(GP_ERR_IO, "%s: %s", path, strerror(errno));
    size_t size = 0;
    gp_status_t st = file_size(f, path, &size);
    fclose(f);
    if (st != GP_OK) return st;
    gp_array_desc_t d;
    memset(&d, 0, sizeof d);
    d.dtype = dtype;
    d.elem_size = gp_dtype_size(dtype);
    d.big_endian = host_big_endian();
    d.data_offset = offset;
    if (offset > size)
        return gp__error(GP_ERR_FORMAT, "%s: byte %zu: the file ends before the offset %zu", path, size, offset);
    d.count = count == GP_COUNT_ALL ? (size - offset) / d.elem_size : count;
    d.ndim = 1;
    d.shape[0] = d.count;
    size_t bytes;
    if (!gp__mul_ok(d.count, d.elem_size, &bytes) || bytes > (size_t)INT64_MAX)
        return gp__error(GP_ERR_OVERFLOW, "%s: %zu elements overflow", fn, d.count);
    if ((st = check_holds(path, &d, size)) != GP_OK) return st;
    *desc = d;
    return GP_OK;
}
