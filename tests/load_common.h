/*
 * load_common.h — gp_array_read / gp_array_load on one context, into each kind of memory it offers: random data
 * read whole from a file position, in small stages and a few threads (every stage boundary and a short last stage),
 * big-endian and bool descriptions, a pipe of unknown length that grows the buffer, a short input answered with the
 * byte where it ends, refusals; each result compared with the file's bytes. gp_array_write from each kind: after
 * buffered bytes at an odd position, mapped and in order, small stages, to a write-only, an appending and a pipe
 * output, a failing device, progress, refusals. test_io runs it on the CPU backend, gpu_core on a GPU (device, pinned
 * and managed memory).
 */
#ifndef GP_TESTS_LOAD_COMMON_H
#define GP_TESTS_LOAD_COMMON_H

#include "common.h"

#include <stdio.h>
#include <unistd.h>

typedef struct load_seen {
    size_t calls, last, total;
    int backwards;
} load_seen_t;

static void load_progress(void *user, size_t done, size_t total)
{
    load_seen_t *s = user;
    s->backwards |= done < s->last;
    s->calls++, s->last = done, s->total = total;
}

/* buf's n elements of es bytes back on the host (copied from device memory when need be) compared with want */
static int load_same(gp_ctx_t *ctx, const gp_buffer_t *b, const void *want, size_t bytes)
{
    if (bytes == 0) return 1;
    unsigned char *h = malloc(bytes);
    REQUIRE(h, "malloc");
    const void *src = b->host ? b->host : b->device;
    const gp_status_t st = b->host ? (memcpy(h, src, bytes), GP_OK) : gp_memcpy_sync(ctx, h, src, bytes);
    const int same = st == GP_OK && memcmp(h, want, bytes) == 0;
    free(h);
    return same;
}

/* kinds: the memory kinds to load into on ctx; dir: a directory for the test's files */
static void load_cases(gp_ctx_t *ctx, const gp_mem_kind_t *kinds, int nkinds, const char *dir)
{
    const size_t n = 300007, skip = 12; /* elements after a 12-byte header of the file's own */
    const size_t bytes = skip + n * 4 + 3; /* and 3 bytes of a partial trailing element */
    unsigned char *file = malloc(bytes);
    REQUIRE(file, "malloc");
    for (size_t i = 0; i < bytes; i++) file[i] = (unsigned char)(tc_next() >> 17);
    char path[512];
    snprintf(path, sizeof path, "%s/gp_load_%d.bin", dir, (int)getpid());
    FILE *w = fopen(path, "wb");
    REQUIRE(w && fwrite(file, 1, bytes, w) == bytes && fclose(w) == 0, "writing %s", path);
    gp_array_desc_t d;
    OK(gp_raw_inspect(path, GP_U32, skip, GP_COUNT_ALL, &d));
    REQUIRE(d.count == n, "raw count %zu", d.count);
    /* stages of 4 KiB + 4 bytes (not a multiple of the page), two of them, three reader threads */
    gp_stream_opts_t o;
    memset(&o, 0, sizeof o);
    o.chunk_bytes = 4100, o.buffers = 2, o.threads = 3;
    for (int k = 0; k < nkinds; k++) {
        const gp_mem_kind_t kind = kinds[k];
        for (int small = 0; small < 2; small++) { /* default stages, then the small ones */
            const gp_stream_opts_t *op = small ? &o : NULL;
            /* gp_array_load, the count from the file (the partial element left), progress reported in order */
            FILE *f = fopen(path, "rb");
            REQUIRE(f && fseek(f, (long)skip, SEEK_SET) == 0, "open");
            gp_buffer_t b;
            size_t got = 0;
            load_seen_t seen = {0, 0, 0, 0};
            gp_stream_opts_t po = small ? o : (gp_stream_opts_t){0};
            po.progress = load_progress, po.progress_user = &seen;
            OK(gp_array_load(ctx, f, &d, GP_COUNT_ALL, kind, &po, &b, &got));
            CHECK(got == n && b.bytes >= n * 4 && load_same(ctx, &b, file + skip, n * 4),
                  "kind %d, small %d: got %zu of %zu", (int)kind, small, got, n);
            CHECK(seen.calls > 0 && !seen.backwards && seen.last == n * 4 && seen.total == n * 4,
                  "progress: %zu calls, last %zu of %zu", seen.calls, seen.last, seen.total);
            CHECK(ftell(f) == (long)(skip + n * 4), "f left after the elements: %ld", ftell(f));
            OK(gp_mem_free(ctx, &b));
            /* gp_array_read of a middle part into a poisoned buffer: the rest untouched */
            const size_t first = 1001, cnt = n - 5000;
            OK(gp_mem_alloc(ctx, kind, (cnt + 8) * 4, &b));
            void *dst = b.host && kind != GP_MEM_DEVICE ? b.host : b.device ? b.device : b.host;
            OK(gp_memset(ctx, dst, 0xA5, (cnt + 8) * 4, NULL));
            OK(gp_stream_sync(ctx, NULL));
            fseek(f, (long)(skip + first * 4), SEEK_SET);
            OK(gp_array_read(ctx, f, &d, cnt, op, dst));
            unsigned char *want = malloc((cnt + 8) * 4);
            REQUIRE(want, "malloc");
            memcpy(want, file + skip + first * 4, cnt * 4);
            memset(want + cnt * 4, 0xA5, 32);
            CHECK(load_same(ctx, &b, want, (cnt + 8) * 4), "kind %d, small %d: a middle part read in place",
                  (int)kind, small);
            /* big-endian: every element swapped */
            gp_array_desc_t be = d;
            be.big_endian = 1;
            fseek(f, (long)(skip + first * 4), SEEK_SET);
            OK(gp_array_read(ctx, f, &be, cnt, op, dst));
            for (size_t i = 0; i < cnt; i++)
                for (int j = 0; j < 4; j++) want[i * 4 + (size_t)j] = file[skip + (first + i) * 4 + 3 - (size_t)j];
            CHECK(load_same(ctx, &b, want, cnt * 4), "kind %d, small %d: big-endian swapped", (int)kind, small);
            /* bools: bytes made 0 / 1 */
            gp_array_desc_t bo = d;
            bo.dtype = GP_U8, bo.elem_size = 1, bo.bool_values = 1;
            fseek(f, (long)skip, SEEK_SET);
            OK(gp_array_read(ctx, f, &bo, cnt, op, dst));
            for (size_t i = 0; i < cnt; i++) want[i] = file[skip + i] != 0;
            CHECK(load_same(ctx, &b, want, cnt), "kind %d, small %d: bools 0 / 1", (int)kind, small);
            /* a short input: the byte where it ends, for a count the file does not hold */
            fseek(f, (long)skip, SEEK_SET);
            CHECK_ST(gp_array_read(ctx, f, &d, n + 1, op, NULL), GP_ERR_INVALID_ARG); /* dst NULL */
            gp_buffer_t big;
            OK(gp_mem_alloc(ctx, kind, (n + 1) * 4, &big));
            fseek(f, (long)skip, SEEK_SET);
            CHECK_ST(gp_array_read(ctx, f, &d, n + 1, op, big.device && kind == GP_MEM_DEVICE ? big.device : big.host),
                     GP_ERR_FORMAT);
            char at[64];
            snprintf(at, sizeof at, "byte %zu: the data ends after %zu of %zu", skip + n * 4, n, n + 1);
            CHECK(strstr(gp_last_error(), at) != NULL, "short input names its end: %s", gp_last_error());
            OK(gp_mem_free(ctx, &big));
            free(want);
            OK(gp_mem_free(ctx, &b));
            fclose(f);
            /* a pipe of unknown length: the buffer grows (from two stages), the partial element ignored */
            char cmd[600];
            snprintf(cmd, sizeof cmd, "cat '%s'", path);
            FILE *pf = popen(cmd, "r");
            REQUIRE(pf, "popen");
            gp_array_desc_t pd = d;
            pd.data_offset = 0, pd.count = GP_COUNT_ALL;
            OK(gp_array_load(ctx, pf, &pd, GP_COUNT_ALL, kind, op, &b, &got));
            const size_t pn = (bytes) / 4;
            CHECK(got == pn && load_same(ctx, &b, file, pn * 4), "kind %d, small %d: pipe: got %zu of %zu",
                  (int)kind, small, got, pn);
            OK(gp_mem_free(ctx, &b));
            pclose(pf);
        }
    }
    /* count 0, refusals */
    FILE *f = fopen(path, "rb");
    REQUIRE(f, "open");
    gp_buffer_t b;
    size_t got = 7;
    OK(gp_array_load(ctx, f, &d, 0, kinds[0], NULL, &b, &got));
    CHECK(got == 0 && b.bytes == 0, "count 0: got %zu, %zu bytes", got, b.bytes);
    OK(gp_array_read(ctx, f, &d, 0, NULL, NULL));
    CHECK_ST(gp_array_read(ctx, f, &d, GP_COUNT_ALL, NULL, file), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "GP_COUNT_ALL") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_array_read(ctx, NULL, &d, 1, NULL, file), GP_ERR_INVALID_ARG);
    gp_stream_opts_t bad = {0};
    bad.buffers = 1;
    CHECK_ST(gp_array_load(ctx, f, &d, 1, kinds[0], &bad, &b, &got), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "opts->buffers") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_array_load(ctx, f, &d, 1, GP_MEM_REGISTERED, NULL, &b, &got), GP_ERR_INVALID_ARG);
    CHECK(b.bytes == 0 && b.host == NULL && b.device == NULL, "nothing allocated on a refusal");
    fclose(f);
    remove(path);
    free(file);
}

/* path's whole contents (malloc'd) and length */
static unsigned char *load_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    REQUIRE(f && fseeko(f, 0, SEEK_END) == 0, "open %s", path);
    const long long n = (long long)ftello(f);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    REQUIRE(b && fseeko(f, 0, SEEK_SET) == 0 && fread(b, 1, (size_t)n, f) == (size_t)n, "read %s", path);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* gp_array_write of bytes from each kind of memory on ctx; dir: a directory for the test's files */
static void write_cases(gp_ctx_t *ctx, const gp_mem_kind_t *kinds, int nkinds, const char *dir)
{
    const size_t bytes = ((size_t)9 << 20) + 13, head = 37, tail = 5; /* mapped (8 MiB or more), odd places */
    unsigned char *data = malloc(bytes), *want = malloc(head + bytes + tail);
    REQUIRE(data && want, "malloc");
    for (size_t i = 0; i < bytes; i++) data[i] = (unsigned char)(tc_next() >> 13);
    memset(want, 'h', head);
    memcpy(want + head, data, bytes);
    memset(want + head + bytes, 't', tail);
    char path[512];
    snprintf(path, sizeof path, "%s/gp_write_%d.bin", dir, (int)getpid());
    for (int k = 0; k < nkinds; k++) {
        gp_buffer_t b;
        OK(gp_mem_alloc(ctx, kinds[k], bytes, &b));
        void *src = b.host && kinds[k] != GP_MEM_DEVICE ? b.host : b.device ? b.device : b.host;
        OK(gp_memcpy_sync(ctx, src, data, bytes));
        /* mode: 0 in order, 1 mapped, 2 mapped with small stages and 3 threads, 3 write-only (mapping refused),
         * 4 appending (not mapped), 5 a pipe */
        for (int mode = 0; mode < 6; mode++) {
            gp_stream_opts_t o;
            memset(&o, 0, sizeof o);
            o.map_pages = mode != 0;
            if (mode == 2) o.chunk_bytes = 4100 * 3, o.buffers = 3, o.threads = 3;
            load_seen_t seen = {0, 0, 0, 0};
            o.progress = load_progress, o.progress_user = &seen;
            char cmd[600];
            snprintf(cmd, sizeof cmd, "cat > '%s'", path);
            remove(path);
            FILE *f = mode == 5 ? popen(cmd, "w") : fopen(path, mode == 3 ? "wb" : mode == 4 ? "ab" : "w+b");
            REQUIRE(f && fwrite(want, 1, head, f) == head, "open %s (mode %d)", path, mode);
            OK(gp_array_write(ctx, f, src, bytes, &o));
            if (mode < 4) CHECK(ftello(f) == (off_t)(head + bytes), "mode %d: f left past the bytes", mode);
            REQUIRE(fwrite(want + head + bytes, 1, tail, f) == tail, "the tail");
            REQUIRE(mode == 5 ? pclose(f) == 0 : fclose(f) == 0, "close");
            size_t len = 0;
            unsigned char *got = load_slurp(path, &len);
            CHECK(len == head + bytes + tail && memcmp(got, want, len) == 0, "kind %d, mode %d: %zu bytes written",
                  (int)kinds[k], mode, len);
            CHECK(seen.calls > 0 && !seen.backwards && seen.last == bytes && seen.total == bytes,
                  "kind %d, mode %d: progress %zu calls, last %zu of %zu", (int)kinds[k], mode, seen.calls, seen.last,
                  seen.total);
            free(got);
        }
        /* a small write into an existing file's middle, mapped on request (below the mapping's least: in order) */
        FILE *f = fopen(path, "r+b");
        REQUIRE(f && fseeko(f, 100, SEEK_SET) == 0, "reopen");
        gp_stream_opts_t o = {0};
        o.map_pages = 1;
        OK(gp_array_write(ctx, f, src, 1000, &o));
        OK(gp_array_write(ctx, f, src, 0, &o));
        fclose(f);
        size_t len = 0;
        unsigned char *got = load_slurp(path, &len);
        memcpy(want + 100, data, 1000);
        CHECK(len == head + bytes + tail && memcmp(got, want, len) == 0, "kind %d: 1000 bytes at byte 100",
              (int)kinds[k]);
        memset(want, 'h', head), memcpy(want + head, data, bytes);
        free(got);
        /* a device that refuses the bytes: GP_ERR_IO naming the byte */
        FILE *full = fopen("/dev/full", "wb");
        if (full) {
            CHECK_ST(gp_array_write(ctx, full, src, bytes, &o), GP_ERR_IO);
            CHECK(strstr(gp_last_error(), "write failed at byte") != NULL, "%s", gp_last_error());
            fclose(full);
        }
        OK(gp_mem_free(ctx, &b));
    }
    /* refusals */
    FILE *f = fopen(path, "wb");
    REQUIRE(f, "open");
    CHECK_ST(gp_array_write(ctx, NULL, data, 4, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_array_write(ctx, f, NULL, 4, NULL), GP_ERR_INVALID_ARG);
    OK(gp_array_write(ctx, f, NULL, 0, NULL));
    gp_stream_opts_t bad = {0};
    bad.buffers = 9;
    CHECK_ST(gp_array_write(ctx, f, data, 4, &bad), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "opts->buffers") != NULL, "%s", gp_last_error());
    bad.buffers = 0, bad.threads = -1;
    CHECK_ST(gp_array_write(ctx, f, data, 4, &bad), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "opts->threads") != NULL, "%s", gp_last_error());
    fclose(f);
    remove(path);
    free(data), free(want);
}

/* More than 2^31 elements (u8) from a sparse file: random bytes planted around 2^31 and at the end, the holes read as
 * zeros; loaded whole (the count from the file) into kind on ctx and compared at every planted byte and at a stride
 * elsewhere. Skipped (said) when the file cannot be made or the memory is not there. */
static void load_huge(gp_ctx_t *ctx, gp_mem_kind_t kind, const char *dir)
{
    const size_t n = ((size_t)1 << 31) + 4099;
    char path[512];
    snprintf(path, sizeof path, "%s/gp_load_huge_%d.bin", dir, (int)getpid());
    FILE *w = fopen(path, "wb");
    if (!w || ftruncate(fileno(w), (off_t)n) != 0) {
        printf("load_huge: SKIPPED: no sparse file of %zu bytes\n", n);
        if (w) fclose(w), remove(path);
        return;
    }
    size_t at[64];
    unsigned char val[64];
    for (int i = 0; i < 64; i++) {
        at[i] = i < 32 ? ((size_t)1 << 31) - 16 + (size_t)i : n - 32 + (size_t)(i - 32);
        val[i] = (unsigned char)(1 + tc_next() % 255);
        REQUIRE(fseeko(w, (off_t)at[i], SEEK_SET) == 0 && fputc(val[i], w) != EOF, "planting byte %zu", at[i]);
    }
    REQUIRE(fclose(w) == 0, "closing %s", path);
    FILE *f = fopen(path, "rb");
    REQUIRE(f, "open");
    gp_array_desc_t d;
    OK(gp_raw_inspect(path, GP_U8, 0, GP_COUNT_ALL, &d));
    gp_buffer_t b;
    size_t got = 0;
    const gp_status_t st = gp_array_load(ctx, f, &d, GP_COUNT_ALL, kind, NULL, &b, &got);
    fclose(f);
    remove(path);
    if (st == GP_ERR_OUT_OF_MEMORY) {
        printf("load_huge: SKIPPED: %s\n", gp_last_error());
        return;
    }
    CHECK(st == GP_OK && got == n, "huge: %s, got %zu of %zu", gp_status_string(st), got, n);
    if (st != GP_OK) return;
    int same = 1;
    for (int i = 0; i < 64; i++) {
        unsigned char v = 0;
        const unsigned char *src = (const unsigned char *)(b.host ? b.host : b.device) + at[i];
        if (b.host) v = *src;
        else CHECK(gp_memcpy_sync(ctx, &v, src, 1) == GP_OK, "copy back");
        same &= v == val[i];
    }
    for (size_t p = 12345; p < n - 64; p += (size_t)1 << 24) {
        if (p >= ((size_t)1 << 31) - 16 && p < ((size_t)1 << 31) + 16) continue;
        unsigned char v = 1;
        const unsigned char *src = (const unsigned char *)(b.host ? b.host : b.device) + p;
        if (b.host) v = *src;
        else CHECK(gp_memcpy_sync(ctx, &v, src, 1) == GP_OK, "copy back");
        same &= v == 0;
    }
    CHECK(same, "kind %d: 2^31 + 4099 bytes loaded: the planted bytes and the holes", (int)kind);
    OK(gp_mem_free(ctx, &b));
}

#endif
