/* outfile.c — output files written whole or not at all (support.h, out_open): a temporary beside the target renamed
 * over it, or for standard output, FIFOs and devices a private temporary copied there at the end; temporaries are
 * removed when the process is interrupted or dies of SIGBUS. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------- signals */
/* The live temporaries, for the handler: it may only unlink (async-signal-safe), then dies by the same signal. */
enum { OUT_SLOTS = 16 };
static char g_tmp[OUT_SLOTS][4096];
static volatile sig_atomic_t g_live[OUT_SLOTS];

static void on_signal(int sig)
{
    static const char bus[] = "gpuprim: SIGBUS: a mapped file shrank while in use?\n";
    if (sig == SIGBUS && write(2, bus, sizeof bus - 1) < 0) { /* the message is all it can say */
    }
    for (int k = 0; k < OUT_SLOTS; k++)
        if (g_live[k]) unlink(g_tmp[k]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void handlers_once(void)
{
    static int done;
    if (done) return;
    done = 1;
    /* SIGBUS: another process truncating a file the verb reads or writes through a mapping (docs/design/io.md) */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGBUS};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction old, sa;
        if (sigaction(sigs[k], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue; /* nohup's choice stays */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[k], &sa, NULL);
    }
}

static int slot_take(const char *tmp)
{
    handlers_once();
    for (int k = 0; k < OUT_SLOTS; k++)
        if (!g_live[k]) {
            snprintf(g_tmp[k], sizeof g_tmp[k], "%s", tmp);
            g_live[k] = 1;
            return k;
        }
    return -1; /* more than OUT_SLOTS at once: still written whole or not at all, just not cleaned on a signal */
}

static void slot_free(out_file_t *o)
{
    if (o->slot >= 0) g_live[o->slot] = 0;
    o->slot = -1;
}

/* ---------------------------------------------------------------------------------------------- targets */
/* path with every symbolic link followed (also a dangling one: the file it names is created). 0, or an errno. */
static int follow_links(const char *path, char *out, size_t cap)
{
    if (strlen(path) >= cap) return ENAMETOOLONG;
    snprintf(out, cap, "%s", path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat sb;
        if (lstat(out, &sb) != 0 || !S_ISLNK(sb.st_mode)) return 0;
        char link[4096];
        const ssize_t n = readlink(out, link, sizeof link - 1);
        if (n < 0) return errno;
        link[n] = 0;
        if (link[0] == '/') {
            snprintf(out, cap, "%s", link);
            continue;
        }
        char *slash = strrchr(out, '/'); /* relative: from the link's directory */
        const size_t dir = slash ? (size_t)(slash - out) + 1 : 0;
        if (dir + (size_t)n >= cap) return ENAMETOOLONG;
        memcpy(out + dir, link, (size_t)n + 1);
    }
    return ELOOP;
}

/* TARGET.tmp-PID-N files of the caller's whose PID no longer runs (a process killed with SIGKILL leaves its
 * temporary): removed, and nothing else — the name must match exactly, the file be a regular one of the caller's. */
static void sweep_dead_temporaries(const char *target)
{
    char dir[4096];
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - target) + (slash == target), target);
    else snprintf(dir, sizeof dir, ".");
    const size_t bl = strlen(base);
    DIR *d = opendir(dir);
    if (!d) return;
    const int dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, base, bl) != 0 || strncmp(n + bl, ".tmp-", 5) != 0) continue;
        char *end = NULL;
        const long pid = strtol(n + bl + 5, &end, 10);
        if (pid <= 0 || end == n + bl + 5 || *end != '-') continue;
        const char *serial = end + 1;
        if (*serial == 0 || strspn(serial, "0123456789") != strlen(serial)) continue;
        struct stat sb;
        if (pid == (long)getpid() || fstatat(dfd, n, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode) ||
            sb.st_uid != geteuid())
            continue;
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) unlinkat(dfd, n, 0);
    }
    closedir(d);
}

void out_describe(const out_file_t *o, int err, char *buf, size_t cap)
{
    if (err == 0) err = o->err ? o->err : EIO;
    const char *what = strerror(err);
    switch (o->stage) {
    case OUT_AT_TMP: {
        /* the target's directory refused a new file: /proc, a read-only mount, a directory of someone else's */
        struct stat sb;
        const int exists = stat(o->target, &sb) == 0;
        snprintf(buf, cap, "no temporary can be made beside it (%s: %s)%s; nothing written", o->tmp, what,
                 err == ENOENT && exists   ? ": its directory takes no new files"
                 : err == EROFS            ? ": a read-only file system"
                 : err == EACCES           ? ": its directory is not writable by you"
                                           : "");
        break;
    }
    case OUT_AT_COMMIT:
        snprintf(buf, cap, "renaming %s over it: %s; nothing written", o->tmp, what);
        break;
    case OUT_AT_COPY:
        if (o->copied)
            snprintf(buf, cap, "%s after %llu bytes: the output there is incomplete", what, o->copied);
        else
            snprintf(buf, cap, "%s; nothing written", what);
        break;
    case OUT_AT_TARGET:
        snprintf(buf, cap, "%s; nothing written", what);
        break;
    default:
        snprintf(buf, cap, "%s; nothing written", what);
        break;
    }
}

FILE *out_open(out_file_t *o, const char *path)
{
    static unsigned serial;
    memset(o, 0, sizeof *o);
    o->path = path;
    o->slot = -1;
    if (path == NULL || strlen(path) + 32 >= sizeof o->tmp) {
        o->err = path ? ENAMETOOLONG : EINVAL;
        o->stage = OUT_AT_TARGET;
        return NULL;
    }
    o->stage = OUT_AT_TARGET;
    struct stat sb;
    if (strcmp(path, "-") == 0) {
        snprintf(o->target, sizeof o->target, "-");
        o->stream = 1;
    } else {
        if ((o->err = follow_links(path, o->target, sizeof o->target)) != 0) return NULL;
        if (stat(o->target, &sb) == 0) {
            if (S_ISDIR(sb.st_mode)) {
                o->err = EISDIR;
                return NULL;
            }
            o->stream = S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode) || S_ISSOCK(sb.st_mode);
            o->keep_mode = S_ISREG(sb.st_mode);
            o->mode = (unsigned)(sb.st_mode & 07777);
        }
    }
    int fd = -1;
    o->stage = OUT_AT_TMP;
    if (!o->stream) sweep_dead_temporaries(o->target);
    if (o->stream) { /* a private file: mkstemp makes it 0600 with O_EXCL */
        const char *dir = getenv("TMPDIR");
        if (dir == NULL || *dir == 0 || strlen(dir) + 32 >= sizeof o->tmp) dir = "/tmp";
        snprintf(o->tmp, sizeof o->tmp, "%s/gpuprim-out-XXXXXX", dir);
        fd = mkstemp(o->tmp);
    } else {
        for (int tries = 0; tries < 100; tries++) {
            const int len = snprintf(o->tmp, sizeof o->tmp, "%s.tmp-%ld-%u", o->target, (long)getpid(), serial++);
            if (len < 0 || (size_t)len >= sizeof o->tmp) {
                errno = ENAMETOOLONG;
                break;
            }
            /* read and write: a held result is written through a shared mapping (gp_array_write); the umask
             * applies, as for fopen */
            fd = open(o->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
            if (fd >= 0 || errno != EEXIST) break;
        }
    }
    if (fd < 0) {
        o->err = errno;
        return NULL;
    }
    o->slot = slot_take(o->tmp);
    o->stage = OUT_AT_WRITE;
    if (o->keep_mode && fchmod(fd, o->mode) != 0) { /* as np.save writing through the old file would keep it */
        o->err = errno;
    } else if ((o->f = fdopen(fd, "w+b")) == NULL) {
        o->err = errno;
    }
    if (o->f == NULL) {
        close(fd);
        unlink(o->tmp);
        slot_free(o);
    }
    return o->f;
}

/* The stream temporary's bytes into the target. 0, or an errno. */
static int copy_out(out_file_t *o)
{
    const int to_stdout = strcmp(o->target, "-") == 0;
    if (to_stdout && fflush(stdout) != 0) return errno ? errno : EIO;
    const int out = to_stdout ? STDOUT_FILENO : open(o->target, O_WRONLY | O_NOCTTY);
    if (out < 0) return errno;
    const int in = open(o->tmp, O_RDONLY | O_NOFOLLOW);
    int err = in < 0 ? errno : 0;
    static char buf[1 << 16];
    for (;;) {
        if (err) break;
        const ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) err = errno;
        if (n <= 0) break;
        for (ssize_t w = 0; w < n && !err;) {
            const ssize_t k = write(out, buf + w, (size_t)(n - w));
            if (k < 0 && errno == EINTR) continue;
            if (k < 0) err = errno;
            else w += k, o->copied += (unsigned long long)k;
        }
    }
    if (in >= 0) close(in);
    if (!to_stdout && close(out) != 0 && !err) err = errno;
    return err;
}

int out_finish(out_file_t *o, int ok)
{
    if (o->f == NULL) return -1;
    if (o->err) ok = 0;
    if (ok && (fflush(o->f) != 0 || ferror(o->f))) ok = 0, o->err = errno ? errno : EIO;
    if (fclose(o->f) != 0 && ok) ok = 0, o->err = errno ? errno : EIO;
    o->f = NULL;
    if (!ok) {
        unlink(o->tmp);
        slot_free(o);
        o->tmp[0] = 0;
        if (o->err == 0) o->err = EIO;
        return -1;
    }
    return 0;
}

int out_commit(out_file_t *o)
{
    if (o->tmp[0] == 0) return -1;
    o->stage = o->stream ? OUT_AT_COPY : OUT_AT_COMMIT;
    int err = o->stream ? copy_out(o) : rename(o->tmp, o->target) != 0 ? errno : 0;
    if (o->stream || err) unlink(o->tmp);
    slot_free(o);
    o->tmp[0] = 0;
    if (err) o->err = err;
    return err ? -1 : 0;
}

void out_discard(out_file_t *o)
{
    if (o->f) out_finish(o, 0);
    if (o->tmp[0]) unlink(o->tmp);
    slot_free(o);
    o->tmp[0] = 0;
}

int out_close(out_file_t *o, int ok)
{
    if (out_finish(o, ok) != 0) return -1;
    return out_commit(o);
}

int out_same_target(const char *path, const char *other)
{
    if (strcmp(path, other) == 0) return 1;
    if (strcmp(path, "-") == 0 || strcmp(other, "-") == 0) return 0;
    char a[4096], b[4096];
    if (follow_links(path, a, sizeof a) != 0 || follow_links(other, b, sizeof b) != 0) return 0;
    if (strcmp(a, b) == 0) return 1;
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int out_is_npy(const char *path)
{
    const size_t n = path ? strlen(path) : 0;
    if (n < 4 || path[n - 4] != '.') return 0;
    for (int i = 0; i < 3; i++)
        if ((path[n - 3 + i] | 0x20) != "npy"[i]) return 0;
    return 1;
}
