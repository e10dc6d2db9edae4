/*
 * test_uop.c — user operators on the CPU backend (the system C compiler): the built-ins' bits through user ops, maps,
 * transform-reduce, refusals and compile errors at the user's line:column; the disk cache (miss, hit, a truncated
 * and a corrupted entry rebuilt, four processes writing one entry at once, GP_JIT_CACHE=off); and, without a GPU,
 * NVRTC compiling every kernel template for sm_90 (errors at line:column, the cubin cache) and the select module's
 * kernel frame at its launch bounds (no spills to speak of). NVRTC or the C compiler missing: those parts are reported
 * skipped.
 */
#define _GNU_SOURCE
#include "uop_common.h"

#include "jit/jit_internal.h"

#include <dirent.h>
#include <elf.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_dir[256];

static void rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[600];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(dir);
}

/* the entries of the cache with extension ext: count, and the first one's path */
static int entries(const char *ext, char *first, size_t size)
{
    DIR *d = opendir(g_dir);
    int k = 0;
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const size_t l = strlen(e->d_name), el = strlen(ext);
        if (e->d_name[0] != '.' && l > el && strcmp(e->d_name + l - el, ext) == 0) {
            if (k == 0 && first) snprintf(first, size, "%s/%s", g_dir, e->d_name);
            k++;
        }
    }
    closedir(d);
    return k;
}

static int create_src(gp_ctx_t *ctx, const char *src, int *source)
{
    gp_uop_desc_t d;
    memset(&d, 0, sizeof d);
    d.kind = GP_UOP_BINARY;
    d.dtype = GP_F64;
    d.src = src;
    d.identity = "0";
    d.commutative = 1;
    gp_uop_t *op = NULL;
    gp_status_t st = gp_uop_create(ctx, &d, &op);
    if (st != GP_OK) return 0;
    double r = -1, x[3] = {1, 2, 3};
    st = gp_reduce_uop_sync(ctx, op, 3, x, &r);
    gp_uop_build_seconds(op, source);
    gp_uop_destroy(op);
    return st == GP_OK && r == 6.0;
}

static void test_cache_cpu(void)
{
    char path[700];
    gp_ctx_t *c1, *c2;
    OK(gp_ctx_create(&c1, GP_DEVICE_CPU));
    int src = -1;
    CHECK(create_src(c1, "a + b + 0.0", &src) && src == 0, "first create compiles (source %d)", src);
    CHECK(create_src(c1, "a + b + 0.0", &src) && src == 2, "second create on the context: memory (source %d)", src);
    CHECK(entries(".so", path, sizeof path) == 1, "one .so entry in the cache");
    OK(gp_ctx_create(&c2, GP_DEVICE_CPU));
    CHECK(create_src(c2, "a + b + 0.0", &src) && src == 1, "a new context: the disk cache (source %d)", src);
    gp_ctx_destroy(c2);
    gp_ctx_destroy(c1); /* unloads the object: corrupting a file that is mapped would fault this process, not test it */
    /* a truncated entry is rebuilt, never used (a writer never changes an entry in place: it renames a new file) */
    struct stat s;
    stat(path, &s);
    CHECK(truncate(path, s.st_size / 2) == 0, "truncate");
    OK(gp_ctx_create(&c2, GP_DEVICE_CPU));
    CHECK(create_src(c2, "a + b + 0.0", &src) && src == 0, "truncated entry: rebuilt (source %d)", src);
    gp_ctx_destroy(c2);
    /* a flipped byte in the middle */
    FILE *f = fopen(path, "r+b");
    if (f) {
        fseek(f, 100, SEEK_SET);
        int ch = fgetc(f);
        fseek(f, 100, SEEK_SET);
        fputc(ch ^ 0x5a, f);
        fclose(f);
    }
    OK(gp_ctx_create(&c2, GP_DEVICE_CPU));
    CHECK(create_src(c2, "a + b + 0.0", &src) && src == 0, "corrupt entry: rebuilt (source %d)", src);
    gp_ctx_destroy(c2);
    OK(gp_ctx_create(&c2, GP_DEVICE_CPU));
    CHECK(create_src(c2, "a + b + 0.0", &src) && src == 1, "the rebuilt entry is used (source %d)", src);
    gp_ctx_destroy(c2);
    /* concurrent writers: four processes create a new op at once */
    pid_t kids[4];
    for (int i = 0; i < 4; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            gp_ctx_t *c;
            int sr = -1;
            const int ok = gp_ctx_create(&c, GP_DEVICE_CPU) == GP_OK && create_src(c, "(a + b) * 1.0", &sr);
            _exit(ok ? 0 : 1);
        }
    }
    int all = 1;
    for (int i = 0; i < 4; i++) {
        int st = 0;
        waitpid(kids[i], &st, 0);
        all &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    CHECK(all, "four concurrent writers all succeed");
    OK(gp_ctx_create(&c2, GP_DEVICE_CPU));
    CHECK(create_src(c2, "(a + b) * 1.0", &src) && src == 1, "after concurrent writers: a valid entry (source %d)", src);
    gp_ctx_destroy(c2);
    CHECK(entries(".so", NULL, 0) == 2, "two entries, no temporaries left behind (%d)", entries(".so", NULL, 0));
    /* off */
    setenv("GP_JIT_CACHE", "off", 1);
    OK(gp_ctx_create(&c2, GP_DEVICE_CPU));
    CHECK(create_src(c2, "a + b - 0.0", &src) && src == 0, "cache off: compiled (source %d)", src);
    gp_ctx_destroy(c2);
    setenv("GP_JIT_CACHE", g_dir, 1);
    CHECK(entries(".so", NULL, 0) == 2, "cache off wrote nothing");
}

/* A trap in user code on the CPU backend is an error status, and the process goes on. */
static void test_traps_cpu(void)
{
    gp_ctx_t *c;
    OK(gp_ctx_create(&c, GP_DEVICE_CPU));
    int32_t x[100000], y[100000];
    for (int i = 0; i < 100000; i++) x[i] = i + 1;
    gp_uop_t *div0 = uc_make(c, GP_UOP_MAP, GP_I32, 1, GP_I32, "100 / (x - 777)", NULL, 1); /* x = 777 */
    gp_uop_t *nul = uc_make(c, GP_UOP_BINARY, GP_I32, 1, 0, "*(volatile int *)0 + a + b", "0", 1);
    gp_uop_t *pred = uc_make(c, GP_UOP_PRED, GP_I32, 1, 0, "100 / (x - 5000) > 0", NULL, 1);
    int32_t r = 0;
    size_t kept = 0;
    if (div0) CHECK_ST(gp_transform(c, div0, 100000, x, y, NULL), GP_ERR_USER_TRAP);
    CHECK(strstr(gp_last_error(), "SIGFPE") != NULL, "names the signal: %s", gp_last_error());
    if (nul) CHECK_ST(gp_reduce_uop_sync(c, nul, 100000, x, &r), GP_ERR_USER_TRAP);
    if (nul) CHECK_ST(gp_reduce_uop_sync(c, nul, 0, x, &r), GP_OK); /* the identity alone runs no user code */
    if (pred) CHECK_ST(gp_select_if_sync(c, pred, 100000, x, y, &kept), GP_ERR_USER_TRAP);
    gp_uop_t *fine = uc_make(c, GP_UOP_MAP, GP_I32, 1, GP_I32, "x + 1", NULL, 1);
    if (fine) {
        OK(gp_transform(c, fine, 100000, x, y, NULL));
        CHECK(y[99999] == 100001, "an operator after a trap runs: %d", (int)y[99999]);
    }
    gp_uop_destroy(div0), gp_uop_destroy(nul), gp_uop_destroy(pred), gp_uop_destroy(fine);
    gp_ctx_destroy(c);
}

/* an operator's description: kind, dtype and source, the rest zero */
static gp_uop_desc_t desc_of(gp_uop_kind_t kind, gp_dtype_t dtype, const char *src)
{
    gp_uop_desc_t d;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    d.dtype = dtype;
    d.src = src;
    return d;
}

/* NVRTC without a device: every template variant compiles for sm_90; errors carry positions; cubins are cached. */
static void test_nvrtc(void)
{
    gp_uop_desc_t d = desc_of(GP_UOP_BINARY, GP_F32, "a + b");
    d.identity = "-0.0f";
    d.commutative = 1;
    int src = -1;
    double sec = 0;
    gp_status_t st = gp__uop_compile_test(&d, "sm_90", 0, &src, &sec);
    if (st == GP_ERR_UNSUPPORTED) {
        printf("test_uop: NVRTC part SKIPPED: %s\n", gp_last_error());
        return;
    }
    CHECK(st == GP_OK && src == 0, "NVRTC compiles a + b for sm_90 (%s, source %d)", gp_status_string(st), src);
    printf("test_uop: NVRTC first compile %.1f ms\n", 1e3 * sec);
    st = gp__uop_compile_test(&d, "sm_90", 0, &src, &sec);
    CHECK(st == GP_OK && src == 1, "the cubin from the disk cache (source %d)", src);
    printf("test_uop: NVRTC cache hit %.2f ms\n", 1e3 * sec);
    char path[700];
    CHECK(entries(".cubin", path, sizeof path) == 1, "one cubin entry");
    CHECK(truncate(path, 64) == 0, "truncate");
    st = gp__uop_compile_test(&d, "sm_90", 0, &src, &sec);
    CHECK(st == GP_OK && src == 0, "truncated cubin: recompiled (source %d)", src);
    const struct {
        gp_uop_kind_t kind;
        gp_dtype_t dt;
        int k;
        gp_dtype_t out;
        const char *src, *id;
        int comm;
    } cs[] = {
        {GP_UOP_BINARY, GP_U8, 1, 0, "a ^ b", "0", 1},
        {GP_UOP_BINARY, GP_I16, 1, 0, "a > b ? a : b", "-32768", 1},
        {GP_UOP_BINARY, GP_F16, 1, 0, "a + b", "0.0f", 1},
        {GP_UOP_BINARY, GP_BF16, 2, 0, "r[0] = a[0] + b[0]; r[1] = fmaxf(a[1], b[1]);", "0, -INFINITY", 1},
        {GP_UOP_BINARY, GP_F64, 2, 0, "r[0] = b[0] * a[0]; r[1] = b[0] * a[1] + b[1];", "1, 0", 0},
        {GP_UOP_BINARY, GP_F32, 3, 0, "r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2];", "0,0,0", 0},
        {GP_UOP_BINARY, GP_U64, 2, 0, "r[0] = a[0] + b[0]; r[1] = a[1] ^ b[1];", "0, 0", 1},
        {GP_UOP_MAP, GP_F32, 1, GP_F16, "x * 2.0f", NULL, 1},
        {GP_UOP_MAP, GP_U8, 1, GP_F64, "{ double t = x; return sqrt(t); }", NULL, 1},
        {GP_UOP_MAP, GP_BF16, 1, GP_I32, "(int)x", NULL, 1},
        {GP_UOP_PRED, GP_F32, 1, 0, "x > 0.5f && !isnan(x)", NULL, 1},
        {GP_UOP_LESS, GP_U32, 1, 0, "a < b", NULL, 1},
        {GP_UOP_LESS, GP_F16, 1, 0, "{ if (a != a) return 0; return a < b || b != b; }", NULL, 1},
        {GP_UOP_LESS, GP_F64, 16, 0, "a[15] < b[15]", NULL, 1},
    };
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        memset(&d, 0, sizeof d);
        d.kind = cs[c].kind;
        d.dtype = cs[c].dt;
        d.arity = cs[c].k;
        d.out_dtype = cs[c].out;
        d.src = cs[c].src;
        d.identity = cs[c].id;
        d.commutative = cs[c].comm;
        st = gp__uop_compile_test(&d, "sm_90", 0, &src, &sec);
        CHECK(st == GP_OK, "NVRTC: '%s' over %s", cs[c].src, gp_dtype_name(cs[c].dt));
        if (cs[c].kind == GP_UOP_BINARY && (cs[c].k * gp_dtype_size(cs[c].dt)) % 4 == 0) {
            st = gp__uop_compile_test(&d, "sm_90", 1, &src, &sec);
            CHECK(st == GP_OK, "NVRTC: the scan of '%s' over %s", cs[c].src, gp_dtype_name(cs[c].dt));
        }
        if (cs[c].kind == GP_UOP_LESS) { /* the sort kernels moving 16-byte values */
            st = gp__uop_compile_test(&d, "sm_90", 3, &src, &sec);
            CHECK(st == GP_OK, "NVRTC: the sort by '%s' over %s with values", cs[c].src, gp_dtype_name(cs[c].dt));
        }
        if (cs[c].kind == GP_UOP_BINARY) { /* the segmented module (seg_queue.cuh + jit_seg.cuh) */
            st = gp__uop_compile_test(&d, "sm_90", 2, &src, &sec);
            CHECK(st == GP_OK, "NVRTC: the segmented reduction of '%s' over %s", cs[c].src, gp_dtype_name(cs[c].dt));
        }
    }
    memset(&d, 0, sizeof d);
    d.kind = GP_UOP_BINARY;
    d.dtype = GP_F32;
    d.src = "a + c";
    d.identity = "0";
    CHECK_ST(gp__uop_compile_test(&d, "sm_90", 0, &src, &sec), GP_ERR_COMPILE);
    CHECK(strstr(gp_last_error(), "op:1:5") != NULL, "NVRTC error at op:1:5: %s", gp_last_error());
    d.src = "a +\n\n  b * ;";
    CHECK_ST(gp__uop_compile_test(&d, "sm_90", 0, &src, &sec), GP_ERR_COMPILE);
    CHECK(strstr(gp_last_error(), "op:3:") != NULL, "NVRTC error on line 3: %s", gp_last_error());
    d.src = "a + b";
    d.identity = "1.0f +* 2";
    CHECK_ST(gp__uop_compile_test(&d, "sm_90", 0, &src, &sec), GP_ERR_COMPILE);
    CHECK(strstr(gp_last_error(), "identity:1:") != NULL, "NVRTC error in the identity: %s", gp_last_error());
}

/* The frame (stack) bytes a cubin gives kernel `fn` (its EIATTR_FRAME_SIZE in .nv.info), or -1: not found. The
 * cubin is a 64-bit little-endian ELF; .nv.info holds records {format, attribute, size} and, for a 4-byte-pair
 * value, {symbol index, value}. */
static long cubin_frame(const unsigned char *b, size_t n, const char *fn)
{
    Elf64_Ehdr eh;
    if (n < sizeof eh || memcmp(b, ELFMAG, SELFMAG) != 0 || b[EI_CLASS] != ELFCLASS64) return -1;
    memcpy(&eh, b, sizeof eh);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > n ||
        eh.e_shstrndx >= eh.e_shnum)
        return -1;
    Elf64_Shdr sh, info = {0}, symtab = {0}, strtab = {0};
    memcpy(&sh, b + eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof sh, sizeof sh);
    const uint64_t names = sh.sh_offset;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        memcpy(&sh, b + eh.e_shoff + (uint64_t)i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > n) return -1;
        const char *name = (const char *)b + names + sh.sh_name;
        if (!strcmp(name, ".nv.info")) info = sh;
        else if (!strcmp(name, ".symtab")) symtab = sh;
        else if (!strcmp(name, ".strtab")) strtab = sh;
    }
    long sym_fn = -1, frame = -1;
    for (uint64_t k = 0; k < symtab.sh_size / sizeof(Elf64_Sym); k++) {
        Elf64_Sym sym;
        memcpy(&sym, b + symtab.sh_offset + k * sizeof sym, sizeof sym);
        if (!strcmp((const char *)b + strtab.sh_offset + sym.st_name, fn)) sym_fn = (long)k;
    }
    const unsigned char *r = b + info.sh_offset;
    for (uint64_t i = 0; sym_fn >= 0 && i + 4 <= info.sh_size;) {
        uint16_t size;
        memcpy(&size, r + i + 2, 2);
        if (r[i] != 4) { /* a value in the record itself */
            i += 4;
            continue;
        }
        uint32_t v[2] = {0, 0}; /* {symbol, value} */
        if (size == 8) memcpy(v, r + i + 4, 8);
        if (r[i + 1] == 0x11 /* EIATTR_FRAME_SIZE */ && size == 8 && v[0] == (uint32_t)sym_fn) frame = (long)v[1];
        i += 4 + size;
    }
    return frame;
}

/* A predicate's select module, compiled by NVRTC for sm_90 at its launch bounds (8 blocks of 256 threads a SM: 32
 * registers), keeps its kernel's frame small: its mask loop once spilled 108 bytes a thread there, which made a user
 * predicate's select 1.7x slower than gp_select (docs/design/scan.md, "Tuning"). Run in an empty cache directory. */
static void test_select_frame(void)
{
    const gp_uop_desc_t d = desc_of(GP_UOP_PRED, GP_F32, "x > 0");
    int src = -1;
    double sec = 0;
    const gp_status_t st = gp__uop_compile_test(&d, "sm_90", 0, &src, &sec);
    if (st == GP_ERR_UNSUPPORTED) {
        printf("test_uop: the select module's frame SKIPPED: %s\n", gp_last_error());
        return;
    }
    char path[700];
    CHECK(st == GP_OK && entries(".cubin", path, sizeof path) == 1, "NVRTC compiles the select module, one entry");
    FILE *f = fopen(path, "rb");
    unsigned char *b = malloc(1 << 24);
    const size_t n = f && b ? fread(b, 1, 1 << 24, f) : 0;
    if (f) fclose(f);
    long frame = -1;
    for (size_t i = 0; i + 4 <= n && frame < 0; i++) /* the cubin past the entry's header */
        if (!memcmp(b + i, ELFMAG, SELFMAG)) frame = cubin_frame(b + i, n - i, "gpj_select");
    free(b);
    CHECK(frame >= 0 && frame <= 32, "gpj_select's frame at 8 blocks per SM: %ld bytes (at most 32)", frame);
}

int main(void)
{
    tc_seed("test_uop");
    snprintf(g_dir, sizeof g_dir, "/tmp/gp_test_uop_%d", (int)getpid());
    mkdir(g_dir, 0700);
    setenv("GP_JIT_CACHE", g_dir, 1);
    gp_ctx_t *ctx;
    OK(gp_ctx_create(&ctx, GP_DEVICE_CPU));
    gp_uop_t *probe = uc_make(ctx, GP_UOP_BINARY, GP_F32, 1, 0, "a + b", "0.0f", 1);
    if (!probe && strstr(gp_last_error(), "C compiler")) {
        printf("test_uop: CPU part SKIPPED: %s\n", gp_last_error());
        tc_fail = 0;
    } else {
        gp_uop_destroy(probe);
        uc_errors(ctx);
        uc_reduce_builtin(ctx, 0);
        uc_reduce_ordered(ctx, 0);
        uc_maps(ctx, 0);
        uc_scans(ctx, 0);
        uc_select(ctx, 0);
        uc_segmented(ctx, 0);
        rm_dir(g_dir);
        mkdir(g_dir, 0700);
        test_cache_cpu();
        test_traps_cpu();
    }
    gp_ctx_destroy(ctx);
    rm_dir(g_dir);
    mkdir(g_dir, 0700);
    test_select_frame();
    rm_dir(g_dir);
    mkdir(g_dir, 0700);
    test_nvrtc();
    rm_dir(g_dir);
    return tc_finish("test_uop");
}
