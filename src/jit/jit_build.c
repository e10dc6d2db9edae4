/*
 * jit_build.c — turning a module's source into code: NVRTC (loaded with dlopen on first use, so programs that never
 * create a user operator do not need libnvrtc) to a cubin for the context's architecture, and the system C compiler
 * (GP_CC, else cc) to a shared object; both through the disk cache.
 *
 * Disk cache: GP_JIT_CACHE=DIR (or "off" / "0" / "" to disable), else $XDG_CACHE_HOME/gpuprim, else ~/.cache/gpuprim.
 * An entry is <32 hex digits of the key>.cubin or .so: the payload followed by a 48-byte trailer (magic, key, payload
 * length, 128-bit checksum of the payload). The key hashes the whole generated source (the user's text, the types, the
 * embedded templates, gpuprim's version) with the architecture, the CUDA runtime version, NVRTC's library name and
 * the options (GPU), or the compiler's resolved path, size, inode and time and its flags (CPU).
 * Trust: the directory is opened without following a link and used only when it is the caller's and nobody else can
 * write it (created 0700); every later step goes through that open directory (openat / renameat), so a path swapped
 * after the check is never followed. An entry is used only when it is a regular file of the caller's, not writable by
 * others, whose trailer and checksum match (a truncated or corrupt entry is never used); a shared object is loaded
 * through the open directory's /proc/self/fd path by the name checked (the name carries the key). Writers write a
 * private temporary in the directory and rename it into place. An ELF loader ignores bytes after the object's
 * segments, so the .so entry is dlopen'ed as it is.
 * Compiles of the host compiler run in a private directory (mkdtemp, 0700) under time and memory limits; directories
 * left by a killed process are removed by the next compile.
 */
#define _GNU_SOURCE
#include "jit_internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <nvrtc.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#ifndef GP_CUDA_LIBDIR
#define GP_CUDA_LIBDIR "/usr/local/cuda/lib64"
#endif

void gp__jit_hash(const void *p, size_t n, uint64_t key[2])
{
    const unsigned char *b = p;
    uint64_t h0 = 0xcbf29ce484222325ull, h1 = 0x84222325cbf29ce4ull;
    for (size_t i = 0; i < n; i++) {
        h0 = (h0 ^ b[i]) * 0x100000001b3ull;
        h1 = (h1 ^ (uint64_t)(b[i] + 0x5bu)) * 0x100000001b3ull;
        h1 ^= h1 >> 29;
    }
    key[0] = h0;
    key[1] = h1 ^ (uint64_t)n;
}

/* hash of several strings, each followed by a NUL */
static void hash_parts(uint64_t key[2], const char *const *parts, int np)
{
    size_t total = 0;
    for (int i = 0; i < np; i++) total += strlen(parts[i]) + 1;
    char *all = malloc(total ? total : 1);
    if (!all) { /* hash the first part only: still a valid (if weaker) key */
        gp__jit_hash(parts[0], strlen(parts[0]), key);
        return;
    }
    size_t o = 0;
    for (int i = 0; i < np; i++) {
        const size_t l = strlen(parts[i]) + 1;
        memcpy(all + o, parts[i], l);
        o += l;
    }
    gp__jit_hash(all, total, key);
    free(all);
}

/* The disk cache: *dfd the directory open (-1: the cache is off), its path in buf. A directory that exists but is not
 * safe to load code from (a link, another user's, writable by its group or by others) fails the create, naming it; one that cannot
 * be made (no HOME, a read-only file system) turns the cache off. */
static gp_status_t cache_open(const char *what, char *buf, size_t size, int *dfd)
{
    *dfd = -1;
    buf[0] = '\0';
    const char *env = getenv("GP_JIT_CACHE");
    if (env) {
        if (env[0] == '\0' || strcmp(env, "off") == 0 || strcmp(env, "0") == 0) return GP_OK;
        snprintf(buf, size, "%s", env);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (xdg && xdg[0] == '/')
            snprintf(buf, size, "%s/gpuprim", xdg);
        else if (home && home[0])
            snprintf(buf, size, "%s/.cache/gpuprim", home);
        else
            return GP_OK;
    }
    /* mkdir -p, each new directory 0700 */
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", buf);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            (void)mkdir(tmp, 0700);
            *p = '/';
        }
    (void)mkdir(tmp, 0700);
    const int fd = open(buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
        return gp__error(GP_ERR_INVALID_ARG, "%s: the operator cache %s is not a directory (or is a symbolic link): "
                         "refused (GP_JIT_CACHE=off turns the cache off)", what, buf);
    if (fd < 0 || fstat(fd, &sb) != 0) { /* cannot be made: no cache */
        if (fd >= 0) close(fd);
        buf[0] = '\0';
        return GP_OK;
    }
    if (sb.st_uid != geteuid() || (sb.st_mode & 022) != 0) {
        close(fd);
        return gp__error(GP_ERR_INVALID_ARG, "%s: the operator cache %s is %s (mode %03o): refused, since code is "
                         "loaded from it (use a directory only you can write, or GP_JIT_CACHE=off)", what, buf,
                         sb.st_uid != geteuid() ? "another user's"
                         : (sb.st_mode & 002)   ? "writable by others"
                                                : "writable by its group",
                         (unsigned)(sb.st_mode & 0777));
    }
    if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) != 0) { /* ours but read-only: used neither way */
        close(fd);
        buf[0] = '\0';
        return GP_OK;
    }
    *dfd = fd;
    return GP_OK;
}

/* ------------------------------------------------------------------------------------------ entries */
#define TRAILER 48
static const char MAGIC[8] = {'G', 'P', 'J', 'I', 'T', 'v', '1', '\0'};

static void trailer_make(unsigned char t[TRAILER], const uint64_t key[2], const void *payload, size_t n)
{
    uint64_t sum[2], len = n;
    gp__jit_hash(payload, n, sum);
    memcpy(t, MAGIC, 8);
    memcpy(t + 8, key, 16);
    memcpy(t + 24, &len, 8);
    memcpy(t + 32, sum, 16);
}

static void entry_name(char *buf, size_t size, const uint64_t key[2], const char *ext)
{
    snprintf(buf, size, "%016llx%016llx.%s", (unsigned long long)key[0], (unsigned long long)key[1], ext);
}

/* Reads and checks an entry of the open cache directory: a regular file of the caller's that nobody else can write,
 * its trailer and checksum matching. *payload (malloc'ed) of *n bytes and 1, or 0 when missing or bad; with keep_fd,
 * *fd stays open on the file checked (else -1). */
static int entry_read(int dfd, const char *name, const uint64_t key[2], void **payload, size_t *n, int *fd_out)
{
    if (fd_out) *fd_out = -1;
    const int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return 0;
    struct stat sb;
    int ok = 0;
    unsigned char *buf = NULL;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid() && (sb.st_mode & 022) == 0 &&
        sb.st_size >= TRAILER && sb.st_size < (1l << 30) && (buf = malloc((size_t)sb.st_size)) != NULL) {
        size_t got = 0;
        while (got < (size_t)sb.st_size) {
            const ssize_t r = pread(fd, buf + got, (size_t)sb.st_size - got, (off_t)got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += (size_t)r;
        }
        if (got == (size_t)sb.st_size) {
            const size_t pn = got - TRAILER;
            unsigned char want[TRAILER];
            trailer_make(want, key, buf, pn);
            ok = memcmp(want, buf + pn, TRAILER) == 0;
            if (ok) {
                *payload = buf;
                *n = pn;
                buf = NULL;
            }
        }
    }
    free(buf);
    if (ok && fd_out) *fd_out = fd;
    else close(fd);
    return ok;
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        const ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return 0;
        c += w;
        n -= (size_t)w;
    }
    return 1;
}

/* A name no other writer picks: pid, a counter and the clock. */
static void unique_name(char *buf, size_t size, const char *prefix)
{
    static unsigned serial;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(buf, size, "%s%ld-%u-%lx%lx", prefix, (long)getpid(), __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED),
             (unsigned long)ts.tv_sec, (unsigned long)ts.tv_nsec);
}

/* Writes payload + trailer to a private temporary in the cache directory and renames it to name. Best effort:
 * failures leave no file. */
static void entry_write(int dfd, const char *name, const uint64_t key[2], const void *payload, size_t n)
{
    char tmp[128];
    int fd = -1;
    for (int tries = 0; tries < 10 && fd < 0; tries++) {
        unique_name(tmp, sizeof tmp, ".gpj-");
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) return;
    }
    if (fd < 0) return;
    unsigned char t[TRAILER];
    trailer_make(t, key, payload, n);
    const int ok = write_all(fd, payload, n) && write_all(fd, t, TRAILER);
    if (close(fd) != 0 || !ok || renameat(dfd, tmp, dfd, name) != 0) unlinkat(dfd, tmp, 0);
}

/* dlopen of the entry name inside the open (checked) cache directory, reached through the directory's descriptor so
 * no path component outside it is resolved again. The name carries the key, so a module the loader already holds
 * under this name was built from the same source by the same compiler. */
static void *dlopen_entry(int dfd, const char *name)
{
    char p[160];
    snprintf(p, sizeof p, "/proc/self/fd/%d/%s", dfd, name);
    return dlopen(p, RTLD_NOW | RTLD_LOCAL);
}

/* ------------------------------------------------------------------------------------------ messages */
/* The compiler's log, kept to the lines about the user's text ("op", "map", "pred", "identity") where there are any,
 * NVRTC's "op(3): error: ..." rewritten as "op:3:COL: error: ..." (the column from the caret line it prints). */
void gp__jit_format_log(char *out, size_t size, const char *log, const char *drop)
{
    size_t o = 0;
    out[0] = '\0';
    const char *p = log;
    while (*p && o + 1 < size) {
        const char *e = strchr(p, '\n');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line - 1 ? len : sizeof line - 1), p);
        p = e ? e + 1 : p + len;
        if (drop && drop[0] && strstr(line, drop)) continue; /* the temporary file's name (host compiler) */
        if (strstr(line, "detected in the compilation of")) continue;
        if (line[0] == '\0') continue;
        char name[32];
        int ln = 0, used = 0;
        if (sscanf(line, "%31[a-z_](%d): %n", name, &ln, &used) == 2 && used > 0) {
            /* find the caret: NVRTC prints the source line then a caret line */
            int col = 0;
            const char *q = p;
            for (int k = 0; k < 2 && *q; k++) {
                const char *qe = strchr(q, '\n');
                const size_t ql = qe ? (size_t)(qe - q) : strlen(q);
                const char *c = memchr(q, '^', ql);
                if (c && k == 1) {
                    int only = 1;
                    for (const char *z = q; z < c; z++)
                        if (*z != ' ') only = 0;
                    if (only) col = (int)(c - q) + 1 - 2; /* NVRTC indents the source line and caret by 2 */
                }
                q = qe ? qe + 1 : q + ql;
            }
            int k;
            if (col >= 1)
                k = snprintf(out + o, size - o, "%s:%d:%d: %s\n", name, ln, col, line + used);
            else
                k = snprintf(out + o, size - o, "%s:%d: %s\n", name, ln, line + used);
            o += k > 0 ? (size_t)k : 0;
            if (o >= size) o = size - 1;
            continue;
        }
        const int k = snprintf(out + o, size - o, "%s\n", line);
        o += k > 0 ? (size_t)k : 0;
        if (o >= size) o = size - 1;
    }
}

static gp_status_t compile_error(const char *what, const char *tool, const char *log, const char *drop)
{
    char msg[3600];
    gp__jit_format_log(msg, sizeof msg, log ? log : "", drop);
    size_t l = strlen(msg);
    while (l && msg[l - 1] == '\n') msg[--l] = '\0';
    return gp__error(GP_ERR_COMPILE, "%s: the operator did not compile (%s):\n%s", what, tool, msg);
}

/* ------------------------------------------------------------------------------------------ NVRTC */
static struct {
    int tried;
    void *h;
    char name[256];
    int major, minor;
    nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *);
    nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*log)(nvrtcProgram, char *);
    nvrtcResult (*cubin_size)(nvrtcProgram, size_t *);
    nvrtcResult (*cubin)(nvrtcProgram, char *);
    nvrtcResult (*destroy)(nvrtcProgram *);
    const char *(*errstr)(nvrtcResult);
    nvrtcResult (*version)(int *, int *);
    char why[400];
} g_rtc;
static pthread_mutex_t g_rtc_lock = PTHREAD_MUTEX_INITIALIZER;

#define GET(field, sym_)                                                                                           \
    do {                                                                                                           \
        void *p_ = dlsym(g_rtc.h, sym_);                                                                                      \
        if (!p_) {                                                                                                 \
            snprintf(g_rtc.why, sizeof g_rtc.why, "%s has no %s", g_rtc.name, sym_);                               \
            dlclose(g_rtc.h);                                                                                      \
            g_rtc.h = NULL;                                                                                        \
            return;                                                                                                \
        }                                                                                                          \
        memcpy(&g_rtc.field, &p_, sizeof p_);                                                                      \
    } while (0)

static void rtc_load(void)
{
    g_rtc.tried = 1;
    char names[4][200];
    int nn = 0;
    const char *env = getenv("GP_NVRTC");
    if (env && env[0]) snprintf(names[nn++], sizeof names[0], "%s", env);
    snprintf(names[nn++], sizeof names[0], "libnvrtc.so.%d", CUDART_VERSION / 1000);
    snprintf(names[nn++], sizeof names[0], "%s/libnvrtc.so.%d", GP_CUDA_LIBDIR, CUDART_VERSION / 1000);
    snprintf(names[nn++], sizeof names[0], "libnvrtc.so");
    for (int i = 0; i < nn && !g_rtc.h; i++) {
        g_rtc.h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (g_rtc.h) snprintf(g_rtc.name, sizeof g_rtc.name, "%.200s", strrchr(names[i], '/') ? strrchr(names[i], '/') + 1 : names[i]);
    }
    if (!g_rtc.h) {
        const char *e = dlerror();
        snprintf(g_rtc.why, sizeof g_rtc.why, "NVRTC is not installed (dlopen libnvrtc.so.%d: %s); set GP_NVRTC to "
                 "its path", CUDART_VERSION / 1000, e ? e : "not found");
        return;
    }
    GET(create, "nvrtcCreateProgram");
    GET(compile, "nvrtcCompileProgram");
    GET(log_size, "nvrtcGetProgramLogSize");
    GET(log, "nvrtcGetProgramLog");
    GET(cubin_size, "nvrtcGetCUBINSize");
    GET(cubin, "nvrtcGetCUBIN");
    GET(destroy, "nvrtcDestroyProgram");
    GET(errstr, "nvrtcGetErrorString");
    GET(version, "nvrtcVersion");
    if (g_rtc.version(&g_rtc.major, &g_rtc.minor) != NVRTC_SUCCESS) g_rtc.major = g_rtc.minor = 0;
}

static gp_status_t rtc_compile(const char *what, const char *src, const char *arch, const char *const *opts,
                               void **cubin, size_t *bytes, int *source);

gp_status_t gp__jit_cubin(const char *what, const char *src, const char *arch, void **cubin, size_t *bytes,
                          int *source)
{
    char opt_arch[32], rt[32];
    snprintf(opt_arch, sizeof opt_arch, "-arch=%s", arch);
    snprintf(rt, sizeof rt, "cudart %d nvrtc %d", CUDART_VERSION, CUDART_VERSION / 1000);
    const char *opts[] = {opt_arch, "--fmad=false", "-std=c++17"};
    const char *parts[] = {src, opt_arch, opts[1], opts[2], rt};
    uint64_t key[2];
    hash_parts(key, parts, 5);
    char dir[1024], name[64];
    int dfd = -1;
    GP_TRY_RET(cache_open(what, dir, sizeof dir, &dfd));
    entry_name(name, sizeof name, key, "cubin");
    if (dfd >= 0 && entry_read(dfd, name, key, cubin, bytes, NULL)) {
        close(dfd);
        *source = GP__JIT_DISK;
        return GP_OK;
    }
    gp_status_t st = rtc_compile(what, src, arch, opts, cubin, bytes, source);
    if (st == GP_OK && dfd >= 0) entry_write(dfd, name, key, *cubin, *bytes);
    if (dfd >= 0) close(dfd);
    return st;
}

static gp_status_t rtc_compile(const char *what, const char *src, const char *arch, const char *const *opts,
                               void **cubin, size_t *bytes, int *source)
{
    pthread_mutex_lock(&g_rtc_lock);
    if (!g_rtc.tried) rtc_load();
    pthread_mutex_unlock(&g_rtc_lock);
    if (!g_rtc.h) return gp__error(GP_ERR_UNSUPPORTED, "%s: %s", what, g_rtc.why);
    nvrtcProgram prog = NULL;
    nvrtcResult r = g_rtc.create(&prog, src, "gpuprim-jit", 0, NULL, NULL);
    if (r != NVRTC_SUCCESS)
        return gp__error(r == NVRTC_ERROR_OUT_OF_MEMORY ? GP_ERR_OUT_OF_MEMORY : GP_ERR_INTERNAL, "%s: NVRTC: %s", what,
                         g_rtc.errstr(r));
    r = g_rtc.compile(prog, 3, opts);
    gp_status_t st = GP_OK;
    if (r != NVRTC_SUCCESS) {
        size_t ls = 0;
        char *log = NULL;
        if (g_rtc.log_size(prog, &ls) == NVRTC_SUCCESS && (log = malloc(ls + 1))) {
            if (g_rtc.log(prog, log) != NVRTC_SUCCESS) log[0] = '\0';
            log[ls] = '\0';
        }
        char tool[64];
        snprintf(tool, sizeof tool, "NVRTC %d.%d, %s", g_rtc.major, g_rtc.minor, arch);
        st = r == NVRTC_ERROR_COMPILATION ? compile_error(what, tool, log, NULL)
                                          : gp__error(GP_ERR_INTERNAL, "%s: NVRTC: %s", what, g_rtc.errstr(r));
        free(log);
    } else {
        size_t n = 0;
        char *c = NULL;
        if (g_rtc.cubin_size(prog, &n) != NVRTC_SUCCESS || !(c = malloc(n)) || g_rtc.cubin(prog, c) != NVRTC_SUCCESS) {
            free(c);
            st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the compiled module (%zu bytes)", what, n);
        } else {
            *cubin = c;
            *bytes = n;
            *source = GP__JIT_COMPILED;
        }
    }
    g_rtc.destroy(&prog);
    return st;
}

/* ------------------------------------------------------------------------------------------ host compiler */
static const char *const CC_FLAGS[] = {"-std=c11", "-O2", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math",
                                       "-fvisibility=hidden", "-fdiagnostics-color=never", "-w"};
#define NFLAGS ((int)(sizeof CC_FLAGS / sizeof CC_FLAGS[0]))

/* The first 64 KiB of a file of the private build directory, NUL-terminated (NULL when missing). */
static char *read_text(int dirfd, const char *name)
{
    const int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return NULL;
    char *buf = malloc(65536);
    size_t n = 0;
    while (buf && n < 65535) {
        const ssize_t r = read(fd, buf + n, 65535 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n += (size_t)r;
    }
    if (buf) buf[n] = '\0';
    close(fd);
    return buf;
}

/* The compiler's identity for the key: its resolved path, size, inode and change time (another compiler behind
 * `cc`, or an upgrade, is another key). */
static void compiler_id(const char *cc, char *out, size_t size)
{
    char found[4096] = "";
    if (strchr(cc, '/')) {
        snprintf(found, sizeof found, "%s", cc);
    } else {
        const char *path = getenv("PATH");
        for (const char *p = path ? path : "/usr/bin:/bin"; *p && !found[0];) {
            const char *c = strchr(p, ':');
            const size_t l = c ? (size_t)(c - p) : strlen(p);
            char cand[4096];
            snprintf(cand, sizeof cand, "%.*s/%s", (int)l, l ? p : ".", cc);
            if (access(cand, X_OK) == 0) snprintf(found, sizeof found, "%s", cand);
            p = c ? c + 1 : p + l;
        }
    }
    char real[4096];
    struct stat sb;
    if (found[0] && realpath(found, real) && stat(real, &sb) == 0)
        snprintf(out, size, "%s %lld %llu %lld.%09ld", real, (long long)sb.st_size, (unsigned long long)sb.st_ino,
                 (long long)sb.st_ctim.tv_sec, sb.st_ctim.tv_nsec);
    else
        snprintf(out, size, "%s (not found)", cc);
}

/* The private build directories: TMPDIR (else /tmp)/gpuprim-jit-PID-XXXXXX. Those of processes that no longer run
 * (killed while compiling) are removed here, the next time anything compiles. */
#define BUILD_PREFIX "gpuprim-jit-"
static const char *const BUILD_FILES[] = {"op.c", "op.so", "op.log"};

static void build_dir_remove(int parent, const char *name)
{
    const int d = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d >= 0) {
        for (size_t k = 0; k < sizeof BUILD_FILES / sizeof BUILD_FILES[0]; k++) unlinkat(d, BUILD_FILES[k], 0);
        close(d);
    }
    unlinkat(parent, name, AT_REMOVEDIR);
}

static void build_dirs_sweep(const char *tmpdir)
{
    const int parent = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0) return;
    DIR *dir = fdopendir(dup(parent));
    struct dirent *e;
    while (dir && (e = readdir(dir)) != NULL) {
        long pid = 0;
        struct stat sb;
        if (strncmp(e->d_name, BUILD_PREFIX, strlen(BUILD_PREFIX)) != 0 ||
            sscanf(e->d_name + strlen(BUILD_PREFIX), "%ld-", &pid) != 1 || pid <= 0 || pid == (long)getpid())
            continue;
        if (fstatat(parent, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(sb.st_mode) ||
            sb.st_uid != geteuid())
            continue;
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) build_dir_remove(parent, e->d_name);
    }
    if (dir) closedir(dir);
    close(parent);
}

/* A number from the environment (a whole number > 0), else def. */
static long env_limit(const char *name, long def)
{
    const char *v = getenv(name);
    char *end = NULL;
    const long x = v && *v ? strtol(v, &end, 10) : 0;
    return v && *v && end && *end == '\0' && x > 0 ? x : def;
}

gp_status_t gp__jit_so(const char *what, const char *src, void **so, int *source)
{
    const char *cc = getenv("GP_CC");
    if (!cc || !cc[0]) cc = "cc";
    char ccid[4300];
    compiler_id(cc, ccid, sizeof ccid);
    const char *parts[2 + NFLAGS];
    int np = 0;
    parts[np++] = src;
    parts[np++] = ccid;
    for (int i = 0; i < NFLAGS; i++) parts[np++] = CC_FLAGS[i];
    uint64_t key[2];
    hash_parts(key, parts, np);
    char dir[1024], name[64];
    int dfd = -1;
    GP_TRY_RET(cache_open(what, dir, sizeof dir, &dfd));
    entry_name(name, sizeof name, key, "so");
    *so = NULL;
    if (dfd >= 0) {
        void *payload = NULL;
        size_t n = 0;
        int efd = -1;
        if (entry_read(dfd, name, key, &payload, &n, &efd)) {
            const gp_status_t ck = gp__jit_check_imports(what, payload, n);
            free(payload);
            close(efd);
            if (ck != GP_OK) {
                close(dfd);
                return ck;
            }
            void *h = dlopen_entry(dfd, name);
            if (h) {
                close(dfd);
                *so = h;
                *source = GP__JIT_DISK;
                return GP_OK;
            }
        }
    }
    /* build in a private directory */
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || tmpdir[0] != '/' || strlen(tmpdir) > 900) tmpdir = "/tmp";
    build_dirs_sweep(tmpdir);
    char bdir[1024];
    snprintf(bdir, sizeof bdir, "%s/" BUILD_PREFIX "%ld-XXXXXX", tmpdir, (long)getpid());
    if (mkdtemp(bdir) == NULL) {
        const int e = errno;
        if (dfd >= 0) close(dfd);
        return gp__error(GP_ERR_IO, "%s: a private build directory in %s: %s", what, tmpdir, strerror(e));
    }
    const int bfd = open(bdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    gp_status_t st = GP_OK;
    char cpath[1100], opath[1100];
    snprintf(cpath, sizeof cpath, "%s/op.c", bdir);
    snprintf(opath, sizeof opath, "%s/op.so", bdir);
    {
        const int fd = bfd < 0 ? -1 : openat(bfd, "op.c", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        const int wok = fd >= 0 && write_all(fd, src, strlen(src));
        if (fd >= 0) close(fd);
        if (!wok) {
            st = gp__error(GP_ERR_IO, "%s: writing %s: %s", what, cpath, strerror(errno));
            goto done;
        }
    }
    {
        /* sh sets the limits (inherited by every process the driver starts), then becomes the compiler */
        const long secs = env_limit("GP_JIT_TIMEOUT", 60), mib = env_limit("GP_JIT_MEMORY", 4096);
        char script[200];
        snprintf(script, sizeof script, "ulimit -v %ld 2>/dev/null; ulimit -t %ld 2>/dev/null; exec \"$0\" \"$@\"",
                 mib * 1024, secs + 5);
        char *argv[NFLAGS + 9];
        int a = 0;
        argv[a++] = "sh";
        argv[a++] = "-c";
        argv[a++] = script;
        argv[a++] = (char *)cc;
        for (int i = 0; i < NFLAGS; i++) argv[a++] = (char *)CC_FLAGS[i];
        argv[a++] = "-o";
        argv[a++] = opath;
        argv[a++] = cpath;
        argv[a++] = "-lm";
        argv[a] = NULL;
        char lpath[1100];
        snprintf(lpath, sizeof lpath, "%s/op.log", bdir);
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t at;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, lpath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
        posix_spawnattr_init(&at);
        posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP); /* its own group: a timeout kills all of it */
        posix_spawnattr_setpgroup(&at, 0);
        pid_t pid;
        const int e = posix_spawn(&pid, "/bin/sh", &fa, &at, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&at);
        if (e != 0) {
            st = gp__error(GP_ERR_UNSUPPORTED, "%s: the C compiler '%s' could not be started (%s); set GP_CC", what, cc,
                           strerror(e));
            goto done;
        }
        int status = 0, timed_out = 0;
        struct timespec t0, now;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
            const pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid || (w < 0 && errno != EINTR)) break;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec - t0.tv_sec >= secs) {
                kill(-pid, SIGKILL);
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
                }
                timed_out = 1;
                break;
            }
            const struct timespec nap = {0, 5000000};
            nanosleep(&nap, NULL);
        }
        if (timed_out) {
            st = gp__error(GP_ERR_COMPILE, "%s: the operator did not compile: the C compiler ran past GP_JIT_TIMEOUT = "
                           "%ld s and was stopped", what, secs);
            goto done;
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            char *log = read_text(bfd, "op.log");
            char tool[300];
            snprintf(tool, sizeof tool, "%s", cc);
            if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
                st = gp__error(GP_ERR_UNSUPPORTED, "%s: the C compiler '%s' was not found; set GP_CC", what, cc);
            else if (log && (strstr(log, "out of memory") || strstr(log, "memory exhausted") ||
                             strstr(log, "Cannot allocate memory")))
                st = gp__error(GP_ERR_COMPILE, "%s: the operator did not compile: the C compiler ran out of its "
                               "GP_JIT_MEMORY = %ld MiB", what, mib);
            else if (!log || log[strspn(log, " \t\r\n")] == '\0')
                st = gp__error(GP_ERR_UNSUPPORTED, "%s: the C compiler '%s' failed (%s %d) and printed nothing; set "
                               "GP_CC", what, cc, WIFEXITED(status) ? "exit status" : "signal",
                               WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            else
                st = compile_error(what, tool, log, cpath);
            free(log);
            goto done;
        }
    }
    {
        /* the object read back, its imports checked, then cached and loaded from the entry checked (or, with no
         * cache, from the private directory) */
        char *obj = NULL;
        size_t nobj = 0;
        const int ofd = openat(bfd, "op.so", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        struct stat sb;
        if (ofd >= 0 && fstat(ofd, &sb) == 0 && sb.st_size > 0 && sb.st_size < (1l << 30) &&
            (obj = malloc((size_t)sb.st_size)) && pread(ofd, obj, (size_t)sb.st_size, 0) == (ssize_t)sb.st_size)
            nobj = (size_t)sb.st_size;
        if (ofd >= 0) close(ofd);
        st = nobj ? gp__jit_check_imports(what, obj, nobj)
                  : gp__error(GP_ERR_IO, "%s: reading the compiled operator %s: %s", what, opath, strerror(errno));
        if (st == GP_OK && dfd >= 0) {
            void *payload = NULL;
            entry_write(dfd, name, key, obj, nobj);
            size_t n = 0;
            int efd = -1;
            if (entry_read(dfd, name, key, &payload, &n, &efd)) {
                close(efd);
                void *h = dlopen_entry(dfd, name);
                if (h) *so = h, *source = GP__JIT_COMPILED;
            }
            free(payload);
        }
        free(obj);
        if (st != GP_OK || *so) goto done;
    }
    {
        void *h = dlopen(opath, RTLD_NOW | RTLD_LOCAL); /* the private directory's own object */
        if (!h) {
            const char *e = dlerror();
            st = gp__error(GP_ERR_INTERNAL, "%s: loading the compiled operator: %s", what, e ? e : "dlopen failed");
        } else {
            *so = h;
            *source = GP__JIT_COMPILED;
        }
    }
done:
    if (dfd >= 0) close(dfd);
    if (bfd >= 0) close(bfd);
    {
        const int parent = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (parent >= 0) {
            build_dir_remove(parent, strrchr(bdir, '/') + 1);
            close(parent);
        }
    }
    return st;
}
