/*
 * test_io.c — .npy and raw files: round trips of every dtype and shape (scalar, empty, 1-D to 3-D, Fortran order),
 * hand-made headers of versions 1.0, 2.0 and 3.0, big-endian data, bool, Python-2 'L' shapes; and every malformed
 * case answered with GP_ERR_FORMAT naming the right byte offset, nothing written; the loader on the CPU backend
 * (load_common.h). Run: ctest -R test_io.
 */
#define _DEFAULT_SOURCE         /* madvise */
#define _POSIX_C_SOURCE 200809L /* fseeko, ftruncate (load_common.h) */
#include "common.h"
#include "load_common.h"

#include <sys/mman.h>
#include <unistd.h>

static char g_dir[256];

static const char *tmp_path(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    return p;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f && fwrite(data, 1, len, f) == len && fclose(f) == 0, "writing %s", path);
}

/* A .npy of version major.minor with the given dict text (padded and newline-terminated here) and data. */
static size_t make_npy(unsigned char *out, int major, const char *dict, const void *data, size_t dlen)
{
    size_t pre = major == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = (pre + dl + 1 + 63) / 64 * 64, hlen = total - pre;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    out[8] = (unsigned char)(hlen & 0xff);
    out[9] = (unsigned char)(hlen >> 8);
    if (major > 1) out[10] = out[11] = 0;
    memcpy(out + pre, dict, dl);
    memset(out + pre + dl, ' ', hlen - dl - 1);
    out[total - 1] = '\n';
    memcpy(out + total, data, dlen);
    return total + dlen;
}

static void test_round_trips(void)
{
    static const gp_dtype_t dts[] = {GP_U8, GP_I8, GP_U16, GP_I16, GP_U32, GP_I32, GP_U64, GP_I64, GP_F16, GP_F32,
                                     GP_F64};
    static const struct { int ndim; size_t shape[3]; } shapes[] = {{0, {0}}, {1, {0}}, {1, {1}}, {1, {1031}},
                                                                   {2, {3, 4}}, {3, {2, 3, 5}}, {2, {0, 7}}};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int fo = 0; fo < 2; fo++) {
                size_t count = 1;
                for (int i = 0; i < shapes[s].ndim; i++) count *= shapes[s].shape[i];
                size_t es = gp_dtype_size(dts[d]), bytes = count * es;
                unsigned char *src = malloc(bytes + 1);
                tc_fill(src, bytes, GP_U8);
                const char *path = tmp_path("rt.npy");
                OK(gp_npy_save(path, dts[d], shapes[s].ndim, shapes[s].shape, fo, src));
                gp_array_desc_t desc;
                void *data = NULL;
                OK(gp_npy_load(path, &desc, &data));
                CHECK(desc.dtype == dts[d] && desc.ndim == shapes[s].ndim && desc.count == count &&
                          desc.fortran_order == fo && desc.version_major == 1 && desc.data_offset % 64 == 0 &&
                          !desc.big_endian,
                      "%s ndim %d fo %d: desc", gp_dtype_name(dts[d]), shapes[s].ndim, fo);
                for (int i = 0; i < shapes[s].ndim; i++) CHECK(desc.shape[i] == shapes[s].shape[i], "shape[%d]", i);
                CHECK(data && memcmp(data, src, bytes) == 0, "%s: data", gp_dtype_name(dts[d]));
                free(data);
                free(src);
            }
    size_t sh = 4;
    CHECK_ST(gp_npy_save(tmp_path("x.npy"), GP_BF16, 1, &sh, 0, "abcdefgh"), GP_ERR_UNSUPPORTED);
    CHECK(strstr(gp_last_error(), "bf16") != NULL, "%s", gp_last_error());
}

static void test_hand_made(void)
{
    unsigned char buf[4096];
    gp_array_desc_t d;
    void *data = NULL;
    /* Version 2.0 and 3.0 headers, keys in another order, double quotes, no trailing comma, a 'L' suffix. */
    const float f[3] = {1.5f, -2.25f, 3.0f};
    size_t len = make_npy(buf, 2, "{\"shape\": (3L,), 'fortran_order': False, 'descr': '<f4'}", f, sizeof f);
    write_file(tmp_path("v2.npy"), buf, len);
    OK(gp_npy_load(tmp_path("v2.npy"), &d, &data));
    CHECK(d.version_major == 2 && d.count == 3 && d.dtype == GP_F32 && data && memcmp(data, f, sizeof f) == 0, "v2");
    free(data);
    len = make_npy(buf, 3, "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 1), }", "\x01\x00\xff\xff", 4);
    write_file(tmp_path("v3.npy"), buf, len);
    OK(gp_npy_load(tmp_path("v3.npy"), &d, &data));
    CHECK(d.version_major == 3 && d.fortran_order == 1 && ((int16_t *)data)[0] == 1 && ((int16_t *)data)[1] == -1,
          "v3");
    free(data);
    /* Big-endian doubles are swapped to host order. */
    const unsigned char be[16] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18};
    len = make_npy(buf, 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", be, sizeof be);
    write_file(tmp_path("be.npy"), buf, len);
    OK(gp_npy_load(tmp_path("be.npy"), &d, &data));
    CHECK(d.big_endian == 1 && ((double *)data)[0] == 1.0 && fabs(((double *)data)[1] + 3.141592653589793) < 1e-15,
          "big endian: %g %g", ((double *)data)[0], ((double *)data)[1]);
    free(data);
    /* Bool reads as u8; a scalar has ndim 0 and one element. */
    len = make_npy(buf, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }", "\x01", 1);
    write_file(tmp_path("bool.npy"), buf, len);
    OK(gp_npy_inspect(tmp_path("bool.npy"), &d));
    CHECK(d.dtype == GP_U8 && d.ndim == 0 && d.count == 1, "bool scalar");
}

/* Malformed files: GP_ERR_FORMAT, the expected "byte N", and desc/data untouched. */
static void expect_bad(const char *name, const unsigned char *bytes, size_t len, const char *want, int header_bad)
{
    write_file(tmp_path(name), bytes, len);
    gp_array_desc_t d;
    memset(&d, 0x5a, sizeof d);
    void *data = (void *)0x1;
    CHECK_ST(gp_npy_load(tmp_path(name), &d, &data), GP_ERR_FORMAT);
    CHECK(strstr(gp_last_error(), want) != NULL, "%s: wanted '%s' in: %s", name, want, gp_last_error());
    CHECK(data == (void *)0x1 && ((unsigned char *)&d)[0] == 0x5a, "%s: output written", name);
    /* The same bytes through the in-memory parser give the same offset. */
    if (header_bad && len >= 12) {
        CHECK_ST(gp_npy_parse_header(bytes, len, &d), GP_ERR_FORMAT);
        CHECK(strstr(gp_last_error(), want) != NULL, "%s: parser: wanted '%s' in: %s", name, want, gp_last_error());
    }
}

/* The file offset of token inside a version-1 header's dict. */
static size_t at(const char *dict, const char *token) { return 10 + (size_t)(strstr(dict, token) - dict); }

static void test_malformed(void)
{
    unsigned char buf[4096], bad[4096];
    char want[160];
    const float f[4] = {1, 2, 3, 4};
    const char *good = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
    size_t len = make_npy(buf, 1, good, f, sizeof f), hdr = len - sizeof f;
    memcpy(bad, buf, len);
    bad[5] = 'Z';
    expect_bad("magic.npy", bad, len, "byte 5: not a .npy file", 1);
    memcpy(bad, buf, len);
    bad[6] = 4;
    expect_bad("version.npy", bad, len, "byte 6: format version 4.0", 1);
    expect_bad("short.npy", buf, 7, "byte 7: file ends inside the 8-byte preamble", 0);
    snprintf(want, sizeof want, "byte 40: the file ends inside its %zu-byte header", hdr);
    expect_bad("hlen.npy", buf, 40, want, 0);
    memcpy(bad, buf, len);
    bad[hdr - 1] = ' ';
    snprintf(want, sizeof want, "byte %zu: the header does not end with a newline", hdr - 1);
    expect_bad("newline.npy", bad, len, want, 1);
    const char *d1 = "['descr', '<f4']";
    len = make_npy(bad, 1, d1, f, sizeof f);
    expect_bad("dict.npy", bad, len, "byte 10: expected '{'", 1);
    const char *d2 = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'extra': 1}";
    len = make_npy(bad, 1, d2, f, sizeof f);
    snprintf(want, sizeof want, "byte %zu: unexpected or repeated key 'extra'", at(d2, "'extra'"));
    expect_bad("key.npy", bad, len, want, 1);
    const char *d3 = "{'descr': '<c8', 'fortran_order': False, 'shape': (4,), }";
    len = make_npy(bad, 1, d3, f, sizeof f);
    snprintf(want, sizeof want, "byte %zu: unsupported dtype '<c8'", at(d3, "'<c8'"));
    expect_bad("descr.npy", bad, len, want, 1);
    const char *d4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, -1), }";
    len = make_npy(bad, 1, d4, f, sizeof f);
    snprintf(want, sizeof want, "byte %zu: shape entries must be non-negative", at(d4, "-1"));
    expect_bad("shape.npy", bad, len, want, 1);
    const char *d5 = "{'descr': '<f4', 'fortran_order': 0, 'shape': (4,), }";
    len = make_npy(bad, 1, d5, f, sizeof f);
    snprintf(want, sizeof want, "byte %zu: fortran_order must be True or False", at(d5, "0,"));
    expect_bad("order.npy", bad, len, want, 1);
    len = make_npy(bad, 1, "{'descr': '<f4', 'fortran_order': False}", f, sizeof f);
    expect_bad("noshape.npy", bad, len, "lacks 'shape'", 1);
    len = make_npy(bad, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4000000000000, 4000000000000), }",
                   f, sizeof f);
    expect_bad("overflow.npy", bad, len, "overflows size_t", 1);
    /* Data shorter than the shape says: the offset where the file ends (the header itself is fine). */
    len = make_npy(bad, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", f, sizeof f);
    snprintf(want, sizeof want, "byte %zu: the file ends", len);
    expect_bad("trunc.npy", bad, len, want, 0);
    gp_array_desc_t d;
    CHECK_ST(gp_npy_inspect(tmp_path("no-such-file.npy"), &d), GP_ERR_IO);
    CHECK(strstr(gp_last_error(), "no-such-file.npy") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_npy_parse_header(buf, 30, &d), GP_ERR_FORMAT);
    snprintf(want, sizeof want, "byte 30: the header runs to byte %zu", hdr);
    CHECK(strstr(gp_last_error(), want) != NULL, "%s", gp_last_error());
    size_t hb = 0;
    OK(gp_npy_header_size(buf, 10, &hb));
    CHECK(hb == hdr, "header size %zu", hb);
    /* Only what NumPy writes. A NUL or control byte inside a string, a descr with a sign or a space, and
     * a header length past the cap are refused with the offset. */
    const char *d6 = "{'descr': '<f4Qxx', 'fortran_order': False, 'shape': (4,), }";
    len = make_npy(bad, 1, d6, f, sizeof f);
    bad[at(d6, "Q")] = 0; /* NumPy reads '<f4\0xx' as no dtype; it was once taken as '<f4' */
    snprintf(want, sizeof want, "byte %zu: byte 0x00 inside a header string", at(d6, "Q"));
    expect_bad("nul.npy", bad, len, want, 1);
    const char *d7 = "{'descr': '<f 4', 'fortran_order': False, 'shape': (4,), }";
    len = make_npy(bad, 1, d7, f, sizeof f);
    expect_bad("space.npy", bad, len, "is not a simple numeric dtype", 1);
    const char *d8 = "{'descr': '<f+4', 'fortran_order': False, 'shape': (4,), }";
    len = make_npy(bad, 1, d8, f, sizeof f);
    expect_bad("plus.npy", bad, len, "is not a simple numeric dtype", 1);
    const char *d9 = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), '\x1b[31mkey': 1}";
    len = make_npy(bad, 1, d9, f, sizeof f);
    snprintf(want, sizeof want, "byte %zu: byte 0x1b inside a header string", at(d9, "\x1b"));
    expect_bad("escape.npy", bad, len, want, 1);
    unsigned char big[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xff, 0xff, 0xff, 0xff};
    CHECK_ST(gp_npy_header_size(big, 12, &hb), GP_ERR_FORMAT);
    CHECK(strstr(gp_last_error(), "byte 8: header length 4294967295 is over") != NULL, "cap: %s", gp_last_error());
}

static void test_raw_and_fread(void)
{
    int32_t v[100];
    for (int i = 0; i < 100; i++) v[i] = i * 7 - 300;
    write_file(tmp_path("raw.bin"), v, sizeof v);
    gp_array_desc_t d;
    OK(gp_raw_inspect(tmp_path("raw.bin"), GP_I32, 12, GP_COUNT_ALL, &d));
    CHECK(d.count == 97 && d.data_offset == 12 && d.ndim == 1, "raw count %zu", d.count);
    OK(gp_raw_inspect(tmp_path("raw.bin"), GP_I32, 2, GP_COUNT_ALL, &d)); /* 398 bytes: 99 whole elements */
    CHECK(d.count == 99, "raw count %zu", d.count);
    CHECK_ST(gp_raw_inspect(tmp_path("raw.bin"), GP_I32, 8, 99, &d), GP_ERR_FORMAT);
    CHECK(strstr(gp_last_error(), "byte 400") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_raw_inspect(tmp_path("raw.bin"), GP_I32, 401, 0, &d), GP_ERR_FORMAT);
    CHECK_ST(gp_raw_inspect(tmp_path("raw.bin"), (gp_dtype_t)99, 0, 1, &d), GP_ERR_INVALID_ARG);
    /* Chunked reads from an offset, as a streaming pipeline does; big-endian descriptions swap. */
    OK(gp_raw_inspect(tmp_path("raw.bin"), GP_I32, 40, GP_COUNT_ALL, &d));
    FILE *fp = fopen(tmp_path("raw.bin"), "rb");
    REQUIRE(fp && fseek(fp, 40, SEEK_SET) == 0, "open");
    int32_t chunk[32];
    size_t got = 0, total = 0;
    int same = 1;
    do {
        OK(gp_array_fread(fp, &d, 32, chunk, &got));
        for (size_t i = 0; i < got; i++) same &= chunk[i] == v[10 + total + i];
        total += got;
    } while (got == 32);
    CHECK(total == 90 && same, "chunked: %zu elements, same %d", total, same);
    d.big_endian = !d.big_endian;
    fseek(fp, 0, SEEK_SET);
    OK(gp_array_fread(fp, &d, 2, chunk, &got));
    CHECK(got == 2 && chunk[1] == (int32_t)__builtin_bswap32((uint32_t)v[1]), "swapped");
    fclose(fp);
}

/* gp_npy_header: a multiple of 64, padded to at least min_bytes (a reserved header rewritten in place parses to the
 * new shape at the same data offset), refusals for a short buffer and a bad dtype. */
static void test_header(void)
{
    unsigned char a[512], b[1024];
    size_t la = 0, lb = 0, most = (size_t)-1, n = 12345;
    OK(gp_npy_header(GP_U32, 1, &most, 0, 0, a, sizeof a, &la));
    OK(gp_npy_header(GP_U32, 1, &n, 0, la, b, sizeof b, &lb));
    CHECK(la % 64 == 0 && lb == la, "reserved header: %zu and %zu bytes", la, lb);
    gp_array_desc_t d;
    OK(gp_npy_parse_header(b, lb, &d));
    CHECK(d.ndim == 1 && d.shape[0] == n && d.data_offset == la && d.dtype == GP_U32, "rewritten header parses: "
          "ndim %d, shape %zu, offset %zu", d.ndim, d.shape[0], d.data_offset);
    OK(gp_npy_header(GP_F64, 1, &n, 0, 1000, b, sizeof b, &lb));
    CHECK(lb == 1024, "padded to 1000 -> 1024 bytes: %zu", lb);
    OK(gp_npy_parse_header(b, lb, &d));
    CHECK(d.data_offset == 1024 && d.shape[0] == n, "a long padded header parses");
    CHECK_ST(gp_npy_header(GP_F64, 1, &n, 0, 0, b, 32, &lb), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "needs") != NULL, "says how many bytes: %s", gp_last_error());
    CHECK_ST(gp_npy_header(GP_BF16, 1, &n, 0, 0, b, sizeof b, &lb), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_npy_header(GP_F64, 1, &n, 0, 0, NULL, sizeof b, &lb), GP_ERR_INVALID_ARG);
}

/* gp_array_stream on the CPU backend, read (pread) and in place (map_pages): the same elements in the same chunks at
 * any offset and count; mapped chunks are the file's own pages (each just after the last), an offset that would leave
 * elements unaligned is read instead; a stop leaves the file just past its chunk; a file that shrinks while streamed
 * is an error when mapped (its pages are checked before fn sees them), a short read otherwise. */
typedef struct ssink {
    unsigned char *got;
    size_t es, n, calls, stop_after;
    const unsigned char *last;
    int in_order, adjacent;
    FILE *shrink; /* truncated to 64 bytes after the first chunk */
} ssink_t;

static gp_status_t ssink_fn(void *u, const void *chunk, size_t count, size_t first, gp_stream_t st)
{
    ssink_t *s = u;
    (void)st;
    s->in_order &= first == s->n;
    if (s->last && (const unsigned char *)chunk != s->last) s->adjacent = 0;
    memcpy(s->got + first * s->es, chunk, count * s->es);
    s->n = first + count, s->calls++;
    s->last = (const unsigned char *)chunk + count * s->es;
    if (s->shrink && s->calls == 1) REQUIRE(ftruncate(fileno(s->shrink), 64) == 0, "ftruncate");
    return GP_OK;
}

static int ssink_stop(void *u)
{
    const ssink_t *s = u;
    return s->stop_after && s->calls >= s->stop_after;
}

static int populate_works(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fileno(f), 0);
    const int ok = m != MAP_FAILED && madvise(m, 4096, 22 /* MADV_POPULATE_READ */) == 0;
    if (m != MAP_FAILED) munmap(m, 4096);
    fclose(f);
    return ok;
}

static void test_stream_mapped(gp_ctx_t *cpu)
{
    const size_t bytes = ((size_t)3 << 20) + 4 * 1031 + 2; /* a trailing partial element */
    unsigned char *src = malloc(bytes), *got = malloc(bytes);
    REQUIRE(src && got, "memory");
    tc_fill(src, bytes, GP_U8);
    const char *path = tmp_path("stream.bin");
    write_file(path, src, bytes);
    const int pop = populate_works(path);
    static const struct { gp_dtype_t dt; size_t off, count, chunk, granule; } cs[] = {
        {GP_U32, 64, GP_COUNT_ALL, (size_t)300 << 10, 1024}, {GP_U32, 3, GP_COUNT_ALL, (size_t)256 << 10, 1},
        {GP_F64, 8, 200001, (size_t)64 << 10, 7},           {GP_U8, 5, 1000003, (size_t)1 << 20, 1},
        {GP_U16, 2, GP_COUNT_ALL, 4096, 1},                  {GP_I32, 0, 10, 0, 1},
        {GP_F32, 0, GP_COUNT_ALL, 0, 1} /* one chunk of 3 MiB: its pages populated by a team, 2 MiB a thread */};
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        const size_t es = gp_dtype_size(cs[c].dt);
        const size_t avail = (bytes - cs[c].off) / es, n = cs[c].count == GP_COUNT_ALL ? avail : cs[c].count;
        size_t calls[2] = {0, 0};
        for (int map = 0; map < 2; map++) {
            gp_array_desc_t d;
            OK(gp_raw_inspect(path, cs[c].dt, cs[c].off, GP_COUNT_ALL, &d));
            FILE *f = fopen(path, "rb");
            REQUIRE(f && fseek(f, (long)cs[c].off, SEEK_SET) == 0, "open %s", path);
            gp_stream_opts_t o;
            memset(&o, 0, sizeof o);
            o.chunk_bytes = cs[c].chunk, o.map_pages = map;
            memset(got, 0xA5, bytes);
            ssink_t s = {got, es, 0, 0, 0, NULL, 1, 1, NULL};
            OK(gp_array_stream(cpu, f, &d, cs[c].count, cs[c].granule, &o, ssink_fn, &s));
            CHECK(s.n == n && s.in_order && memcmp(got, src + cs[c].off, n * es) == 0,
                  "case %zu map %d: %zu of %zu elements, in order %d, same bytes", c, map, s.n, n, s.in_order);
            const off_t end = (off_t)(cs[c].count == GP_COUNT_ALL ? bytes : cs[c].off + n * es);
            CHECK(ftello(f) == end, "case %zu map %d: the file left at %lld", c, map,
                  (long long)ftello(f));
            const int placed = map && pop && (cs[c].off % es) == 0; /* in place: each chunk the next bytes */
            CHECK(s.calls < 2 || s.adjacent == placed, "case %zu map %d: %zu chunks, adjacent %d (in place %d)", c, map,
                  s.calls, s.adjacent, placed);
            calls[map] = s.calls;
            /* asking for more than the file holds names the byte where it ends, both ways */
            REQUIRE(fseek(f, (long)cs[c].off, SEEK_SET) == 0, "seek");
            ssink_t t = {got, es, 0, 0, 0, NULL, 1, 1, NULL};
            CHECK_ST(gp_array_stream(cpu, f, &d, avail + 1, 1, &o, ssink_fn, &t), GP_ERR_FORMAT);
            char want[64];
            snprintf(want, sizeof want, "byte %zu", cs[c].off + avail * es);
            CHECK(strstr(gp_last_error(), want) != NULL, "case %zu map %d: %s", c, map, gp_last_error());
            /* a stop after two chunks */
            REQUIRE(fseek(f, (long)cs[c].off, SEEK_SET) == 0, "seek");
            ssink_t u = {got, es, 0, 0, 2, NULL, 1, 1, NULL};
            o.stop = ssink_stop, o.stop_user = &u;
            OK(gp_array_stream(cpu, f, &d, cs[c].count, cs[c].granule, &o, ssink_fn, &u));
            const off_t stop_at = u.n == n ? end : (off_t)(cs[c].off + u.n * es); /* or the input's end first */
            CHECK(u.calls == (calls[map] < 2 ? calls[map] : 2) && ftello(f) == stop_at,
                  "case %zu map %d: stopped after %zu chunks at %lld", c, map, u.calls, (long long)ftello(f));
            fclose(f);
        }
        CHECK(calls[0] == calls[1], "case %zu: %zu chunks read, %zu mapped", c, calls[0], calls[1]);
    }
    for (int map = 0; map < 2; map++) { /* the file shrinks after the first chunk */
        write_file(path, src, bytes);
        gp_array_desc_t d;
        OK(gp_raw_inspect(path, GP_U32, 0, GP_COUNT_ALL, &d));
        FILE *f = fopen(path, "r+b"), *w = fopen(path, "r+b");
        REQUIRE(f && w, "open %s", path);
        gp_stream_opts_t o;
        memset(&o, 0, sizeof o);
        o.chunk_bytes = (size_t)1 << 20, o.map_pages = map;
        ssink_t s = {got, 4, 0, 0, 0, NULL, 1, 1, w};
        const gp_status_t st = gp_array_stream(cpu, f, &d, GP_COUNT_ALL, 1, &o, ssink_fn, &s);
        if (map && pop)
            CHECK(st == GP_ERR_IO && strstr(gp_last_error(), "shrank") && s.calls == 1, "mapped, shrunk: status %d "
                  "after %zu chunks: %s", (int)st, s.calls, gp_last_error());
        else
            CHECK(st == GP_OK && s.calls == 1 && s.n == ((size_t)1 << 18), "read, shrunk: status %d, %zu chunks, "
                  "%zu elements", (int)st, s.calls, s.n);
        fclose(f), fclose(w);
    }
    free(src), free(got);
}

int main(void)
{
    tc_seed("test_io");
    snprintf(g_dir, sizeof g_dir, "/tmp/gpuprim_test_io_%d", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", g_dir);
    REQUIRE(system(cmd) == 0, "mkdir");
    test_round_trips();
    test_hand_made();
    test_malformed();
    test_raw_and_fread();
    test_header();
    /* gp_array_read / gp_array_load on the CPU backend, into both of its kinds */
    gp_ctx_t *cpu = NULL;
    REQUIRE(gp_ctx_create(&cpu, GP_DEVICE_CPU) == GP_OK, "CPU context");
    const gp_mem_kind_t kinds[2] = {GP_MEM_DEVICE, GP_MEM_PAGEABLE};
    load_cases(cpu, kinds, 2, g_dir);
    write_cases(cpu, kinds, 2, g_dir);
    test_stream_mapped(cpu);
    if (!getenv("GP_TEST_QUICK")) load_huge(cpu, GP_MEM_PAGEABLE, g_dir);
    OK(gp_ctx_destroy(cpu));
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    return tc_finish("test_io");
}
