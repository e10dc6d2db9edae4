/* sort_external.c — the out-of-core sort (sort_external.h): runs, then windows merged in run order. */
#define _POSIX_C_SOURCE 200809L
#include "sort_external.h"
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

enum { MIN_RUN = 1024, MIN_BUF = 256 };

typedef struct run {
    size_t first, count; /* elements of the runs' file */
    size_t read;         /* of them read into buf so far */
    unsigned char *buf;  /* B elements of room */
    size_t have;         /* elements in buf, from its start */
} run_t;

double ext_sort_need(gp_ctx_t *ctx, const input_t *in)
{
    if (in->want == GP_COUNT_ALL) return 0;
    const size_t n = in->want, es = in->d.elem_size;
    size_t ws = 0;
    if (gp_sort_workspace_bytes(ctx, in->d.dtype, n, 0, 0, &ws) != GP_OK) ws = 0;
    /* the CPU backend's scratch is a copy of the keys (malloc'd by the call) */
    return 2.0 * (double)n * (double)es + (double)ws + (gp_ctx_device(ctx) == GP_DEVICE_CPU ? (double)n * es : 0);
}

size_t ext_sort_default_limit(gp_ctx_t *ctx)
{
    if (gp_ctx_device(ctx) == GP_DEVICE_CPU) {
        gp_cpu_info_t ci;
        return gp_cpu_info(&ci) == GP_OK ? ci.avail_mem_bytes / 2 : 0;
    }
    gp_device_info_t di;
    return gp_device_info(gp_ctx_device(ctx), &di) == GP_OK ? di.free_mem_bytes / 10 * 9 : 0;
}

/* where the runs go: beside the output (a path), else $TMPDIR or /tmp (standard output, a FIFO, a device) */
static void runs_dir(const char *out, char *dir, size_t len)
{
    struct stat st;
    const int beside = strcmp(out, "-") != 0 && !(stat(out, &st) == 0 && !S_ISREG(st.st_mode));
    if (!beside) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, len, "%s", t && t[0] ? t : "/tmp");
        return;
    }
    snprintf(dir, len, "%s", out);
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, len, ".");
    else if (slash == dir) dir[1] = 0;
    else *slash = 0;
}

static int write_all(int fd, const void *p, size_t bytes, off_t at)
{
    const unsigned char *b = p;
    while (bytes) {
        const ssize_t w = pwrite(fd, b, bytes, at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        b += w, bytes -= (size_t)w, at += w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t bytes, off_t at)
{
    unsigned char *b = p;
    while (bytes) {
        const ssize_t r = pread(fd, b, bytes, at);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        b += r, bytes -= (size_t)r, at += r;
    }
    return 0;
}

/* the run length: the largest R with its sort's memory (keys in and out, the workspace; the CPU backend's copy of the
 * keys) within the limit */
static size_t plan_run(gp_ctx_t *ctx, gp_dtype_t dt, size_t es, size_t limit)
{
    const int cpu = gp_ctx_device(ctx) == GP_DEVICE_CPU;
    size_t r = limit / ((cpu ? 3 : 2) * es);
    for (int i = 0; i < 64 && r >= MIN_RUN; i++) {
        size_t ws = 0;
        if (gp_sort_workspace_bytes(ctx, dt, r, 0, 0, &ws) != GP_OK) return 0;
        if ((double)(cpu ? 3 : 2) * r * es + (double)ws <= (double)limit) return r;
        r -= r / 8;
    }
    return 0;
}

/* the most runs one merge pass takes within the limit: MIN_BUF keys of each buffered (the host buffers and the two
 * windows: twice the runs' keys on a GPU, three times on the CPU backend), a sixteenth kept for the merges */
static size_t max_fan_in(size_t limit, size_t es, int on_cpu)
{
    return limit / 16 * 15 / ((on_cpu ? 3 : 2) * es * MIN_BUF);
}

/* a window's pieces (in run order, np of them, at off[] in a) merged pairwise, stably, until one is left: in a or b
 * (*res) */
static gp_status_t merge_pieces(gp_ctx_t *ctx, gp_dtype_t dt, size_t es, int np, size_t *off, unsigned char *a,
                                unsigned char *b, unsigned char **res)
{
    while (np > 1) {
        int q = 0;
        for (int i = 0; i < np; i += 2) {
            const size_t na = off[i + 1] - off[i];
            gp_status_t st;
            if (i + 1 < np)
                st = gp_merge_sync(ctx, dt, na, a + off[i] * es, off[i + 2] - off[i + 1], a + off[i + 1] * es,
                                   b + off[i] * es, 0, NULL, NULL, NULL, 0);
            else
                st = gp_memcpy_sync(ctx, b + off[i] * es, a + off[i] * es, na * es);
            if (st != GP_OK) return st;
            off[q++] = off[i];
        }
        off[q] = off[np];
        np = q;
        unsigned char *t = a;
        a = b, b = t;
    }
    *res = a;
    return GP_OK;
}

/* the merge's memory: each run's next B keys in host memory (F runs at most a pass), windows of F B keys twice on
 * the device (host memory on the CPU backend), the scratch of the window's split */
typedef struct merger {
    const char *verb, *path;
    gp_ctx_t *ctx, *cpu;
    gp_dtype_t dt;
    size_t es, B, F;
    int on_cpu;
    unsigned char *rbuf, *win, *lasts, *sorted, *w0, *w1;
    size_t *off, *take, windows;
} merger_t;

/* a merge's destination: the output, or a runs file from byte `at` on */
typedef struct sink {
    arr_out_t *ao;
    int fd;
    off_t at;
} sink_t;

static int merge_failed(const merger_t *m)
{
    fprintf(stderr, "gpuprim %s: %s: out of core: %s (nothing written)\n", m->verb, m->path, gp_last_error());
    return EXIT_FAIL;
}

/* runs[0, nr) of the file fd merged into sk, window by window: a window is every buffered key that must come before
 * any key still in the file — with S the smallest last buffered key of the runs not wholly read, the keys below S
 * from every run, and the keys equal to S from the runs up to the first whose keys equal to S may go on in the file
 * (later runs' equal keys wait, so equal keys leave in run order: stable) — merged pairwise in run order. */
static int merge_runs(merger_t *m, int fd, run_t *runs, size_t nr, sink_t *sk)
{
    const size_t es = m->es, B = m->B;
    size_t total = 0, written = 0;
    for (size_t j = 0; j < nr; j++) {
        runs[j].buf = m->rbuf + j * B * es, runs[j].read = runs[j].have = 0;
        total += runs[j].count;
    }
    const gp_sort_opts_t so = {0, 0, 0};
    while (written < total) {
        if (sk->ao) /* the window buffers the writer may still hold (they are queued, not copied: the limit holds) */
            arr_out_release(sk->ao, m->w0), arr_out_release(sk->ao, m->w1), arr_out_release(sk->ao, m->win);
        size_t nl = 0; /* refill; the last keys of the runs with keys left in the file */
        for (size_t j = 0; j < nr; j++) {
            run_t *r = &runs[j];
            const size_t more = r->count - r->read, room = B - r->have, k = more < room ? more : room;
            if (k && read_all(fd, r->buf + r->have * es, k * es, (off_t)((r->first + r->read) * es)) != 0) {
                fprintf(stderr, "gpuprim %s: out of core: reading the runs back: %s\n", m->verb, strerror(errno));
                return EXIT_FAIL;
            }
            r->have += k, r->read += k;
            if (r->have && r->read < r->count) memcpy(m->lasts + nl++ * es, r->buf + (r->have - 1) * es, es);
        }
        const unsigned char *S = NULL;
        if (nl) {
            if (gp_sort_sync(m->cpu, m->dt, nl, m->lasts, m->sorted, &so) != GP_OK) return merge_failed(m);
            S = m->sorted;
        }
        int open_tie = 0;
        size_t np = 0, wn = 0;
        for (size_t j = 0; j < nr; j++) {
            run_t *r = &runs[j];
            size_t t = r->have;
            if (S && r->have) {
                uint64_t le = 0, lt = 0;
                if (gp_searchsorted_sync(m->cpu, m->dt, r->have, r->buf, 1, S, 1, GP_U64, &le) != GP_OK ||
                    gp_searchsorted_sync(m->cpu, m->dt, r->have, r->buf, 1, S, 0, GP_U64, &lt) != GP_OK)
                    return merge_failed(m);
                t = open_tie ? (size_t)lt : (size_t)le;
                if (!open_tie && le == r->have && r->read < r->count) open_tie = 1;
            }
            m->take[j] = t;
            if (t) {
                m->off[np++] = wn;
                if (gp_memcpy_sync(m->ctx, m->w0 + wn * es, r->buf, t * es) != GP_OK) return merge_failed(m);
                wn += t;
            }
        }
        m->off[np] = wn;
        unsigned char *res = NULL;
        if (merge_pieces(m->ctx, m->dt, es, (int)np, m->off, m->w0, m->w1, &res) != GP_OK) return merge_failed(m);
        const unsigned char *outp = res;
        if (!m->on_cpu) {
            if (gp_memcpy_sync(m->ctx, m->win, res, wn * es) != GP_OK) return merge_failed(m);
            outp = m->win;
        }
        if (sk->ao && arr_out_submit(sk->ao, outp, wn) != 0) return stream_failed(m->verb, m->path, GP_OK, sk->ao, NULL);
        if (!sk->ao) {
            if (write_all(sk->fd, outp, wn * es, sk->at) != 0) {
                fprintf(stderr, "gpuprim %s: out of core: writing merged runs: %s (nothing written)\n", m->verb,
                        strerror(errno));
                return EXIT_FAIL;
            }
            sk->at += (off_t)(wn * es);
        }
        for (size_t j = 0; j < nr; j++) {
            run_t *r = &runs[j];
            if (m->take[j] && m->take[j] < r->have)
                memmove(r->buf, r->buf + m->take[j] * es, (r->have - m->take[j]) * es);
            r->have -= m->take[j];
        }
        written += wn;
        m->windows++;
    }
    return EXIT_OK;
}

/* an unlinked temporary file in dir (mode 0600, made by mkstemp: never through a planted link) */
static int temp_file(const char *verb, const char *dir)
{
    char tmpl[4200];
    snprintf(tmpl, sizeof tmpl, "%s/.gpuprim-sort-runs-XXXXXX", dir);
    const int fd = mkstemp(tmpl);
    if (fd < 0) {
        fprintf(stderr, "gpuprim %s: out of core: cannot make the runs' file in %s: %s\n", verb, dir, strerror(errno));
        return -1;
    }
    unlink(tmpl); /* gone with the process, however it ends */
    return fd;
}

int ext_sort_run(const ext_sort_t *e)
{
    const char *verb = e->verb;
    input_t *in = e->in;
    gp_ctx_t *ctx = e->ctx, *cpu = NULL;
    const gp_dtype_t dt = in->d.dtype;
    const size_t es = in->d.elem_size, known = in->want;
    const int on_cpu = gp_ctx_device(ctx) == GP_DEVICE_CPU;
    const gp_sort_opts_t so = {0, 0, 0};
    char dir[4096];
    runs_dir(e->out, dir, sizeof dir);
    int rc = EXIT_FAIL, fd = -1;
    run_t *runs = NULL;
    spinner_t sp = {NULL};
    size_t nruns = 0, total = 0, cap_runs = 0;
    unsigned char *h = NULL, *h2 = NULL, *rbuf = NULL, *win = NULL, *lasts = NULL, *sorted = NULL;
    size_t *off = NULL, *take = NULL;
    gp_buffer_t d0 = {0}, d1 = {0};
    arr_out_t ao;
    memset(&ao, 0, sizeof ao);
    int ao_open = 0;
    const size_t R = plan_run(ctx, dt, es, e->limit);
    if (R == 0) {
        fprintf(stderr, "gpuprim %s: --mem-limit %zu bytes is too small to sort runs of at least %d %s keys out of "
                        "core\n", verb, e->limit, MIN_RUN, gp_dtype_name(dt));
        return EXIT_USAGE;
    }
    if (known != GP_COUNT_ALL) { /* the runs' space (and the output's, where it is written on the same file system) */
        struct statvfs vs;
        struct stat a, b;
        char odir[4096];
        const char *t = getenv("TMPDIR");
        if (strcmp(e->out, "-") == 0) snprintf(odir, sizeof odir, "%s", t && t[0] ? t : "/tmp");
        else runs_dir(e->out, odir, sizeof odir);
        const size_t runs_est = (known + R - 1) / R;
        const double need = (double)known * es *
                            ((runs_est > max_fan_in(e->limit, es, on_cpu) ? 2.0 : 1.0) +
                             (stat(dir, &a) == 0 && stat(odir, &b) == 0 && a.st_dev == b.st_dev ? 1.0 : 0.0));
        if (statvfs(dir, &vs) == 0 && (double)vs.f_bavail * vs.f_frsize < need) {
            const double avail = (double)vs.f_bavail * vs.f_frsize;
            fprintf(stderr, "gpuprim %s: %s: out of core: the sorted runs (and the output beside them) need %.0f bytes "
                            "(%.3f GiB) in %s, which has %.0f bytes (%.3f GiB) free: %.0f bytes short; nothing written\n",
                    verb, e->path, need, need / 1073741824.0, dir, avail, avail / 1073741824.0, need - avail);
            return EXIT_FAIL;
        }
    }
    if ((fd = temp_file(verb, dir)) < 0) return EXIT_FAIL;
    if (!on_cpu && gp_ctx_create(&cpu, GP_DEVICE_CPU) != GP_OK) {
        fprintf(stderr, "gpuprim %s: %s\n", verb, gp_last_error());
        goto out;
    }
    if (on_cpu) cpu = ctx;
    spinner_start(&sp, verb); /* a terminal sees the runs and the merge passes */
    /* ---- the runs: R keys read, sorted, written */
    h = malloc(R * es), h2 = malloc(R * es);
    if (!h || !h2 || (!on_cpu && (gp_mem_alloc(ctx, GP_MEM_DEVICE, R * es, &d0) != GP_OK ||
                                  gp_mem_alloc(ctx, GP_MEM_DEVICE, R * es, &d1) != GP_OK))) {
        fprintf(stderr, "gpuprim %s: out of core: runs of %zu keys: no memory (%s)\n", verb, R,
                h && h2 ? gp_last_error() : "host");
        goto out;
    }
    for (;;) {
        const size_t want = known == GP_COUNT_ALL ? R : known - total < R ? known - total : R;
        if (want == 0) break;
        const size_t got = fread(h, es, want, in->f);
        if (got < want && known != GP_COUNT_ALL) {
            const double at = (double)in->d.data_offset + (double)(total + got) * es;
            fprintf(stderr, "gpuprim %s: %s: %s at byte %.0f: expected %zu elements of %zu bytes (nothing written)\n",
                    verb, e->path, ferror(in->f) ? strerror(errno) : "the data ends", at, known, es);
            goto out;
        }
        if (got == 0) break;
        spinner_set(&sp, "%s: out of core: run %zu (%.0f MB read)", verb, nruns + 1, (double)(total + got) * es / 1e6);
        gp_status_t st;
        unsigned char *sorted_run = h2;
        if (on_cpu) {
            st = gp_sort_sync(ctx, dt, got, h, h2, &so);
        } else {
            st = gp_memcpy_sync(ctx, d0.device, h, got * es);
            if (st == GP_OK) st = gp_sort_sync(ctx, dt, got, d0.device, d1.device, &so);
            if (st == GP_OK) st = gp_memcpy_sync(ctx, h2, d1.device, got * es);
        }
        if (st != GP_OK) {
            fprintf(stderr, "gpuprim %s: %s: out of core: %s\n", verb, e->path, gp_last_error());
            goto out;
        }
        if (nruns == cap_runs) {
            cap_runs = cap_runs ? 2 * cap_runs : 16;
            run_t *nr = realloc(runs, cap_runs * sizeof *nr);
            if (!nr) {
                fprintf(stderr, "gpuprim %s: out of host memory\n", verb);
                goto out;
            }
            runs = nr;
        }
        if (write_all(fd, sorted_run, got * es, (off_t)(total * es)) != 0) {
            fprintf(stderr, "gpuprim %s: out of core: writing the runs in %s: %s (nothing written)\n", verb, dir,
                    strerror(errno));
            goto out;
        }
        runs[nruns++] = (run_t){total, got, 0, NULL, 0};
        total += got;
        if (got < want) break; /* standard input's end */
    }
    free(h), free(h2), h = h2 = NULL;
    gp_mem_free(ctx, &d0), gp_mem_free(ctx, &d1);
    const size_t runs_made = nruns;
    /* ---- the merge: passes of F runs at most (merge_runs) until the last writes the output */
    const double t_merge = now_seconds();
    merger_t mg = {verb, e->path, ctx, cpu, dt, es, 0, 0, on_cpu, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0};
    size_t passes = 0;
    if (nruns) {
        const size_t fmax = max_fan_in(e->limit, es, on_cpu);
        if (fmax < 2) {
            fprintf(stderr, "gpuprim %s: --mem-limit %zu bytes is too small to merge runs out of core (two runs of "
                            "%d keys at least)\n", verb, e->limit, MIN_BUF);
            rc = EXIT_USAGE;
            goto out;
        }
        mg.F = nruns < fmax ? nruns : fmax;
        mg.B = e->limit / ((on_cpu ? 3 : 2) * mg.F * es) / 16 * 15; /* a sixteenth for the merges' workspace */
        if (mg.B > R) mg.B = R;
        const size_t W = mg.B * mg.F;
        mg.rbuf = rbuf = malloc(W * es), mg.lasts = lasts = malloc(mg.F * es), mg.sorted = sorted = malloc(mg.F * es);
        mg.off = off = malloc((mg.F + 1) * sizeof *off), mg.take = take = malloc(mg.F * sizeof *take);
        if (!on_cpu) mg.win = win = malloc(W * es);
        const gp_mem_kind_t kind = on_cpu ? GP_MEM_PAGEABLE : GP_MEM_DEVICE;
        if (!rbuf || !lasts || !sorted || !off || !take || (!on_cpu && !win) ||
            gp_mem_alloc(ctx, kind, W * es, &d0) != GP_OK || gp_mem_alloc(ctx, kind, W * es, &d1) != GP_OK) {
            fprintf(stderr, "gpuprim %s: out of core: merging %zu runs: no memory\n", verb, nruns);
            goto out;
        }
        mg.w0 = on_cpu ? (unsigned char *)d0.host : (unsigned char *)d0.device;
        mg.w1 = on_cpu ? (unsigned char *)d1.host : (unsigned char *)d1.device;
        while (nruns > mg.F) { /* a pass: each F consecutive runs into one, in a second file at the same places */
            const int fd2 = temp_file(verb, dir);
            if (fd2 < 0) goto out;
            size_t nn = 0;
            spinner_set(&sp, "%s: out of core: merge pass %zu, %zu runs into %zu", verb, passes + 1, nruns,
                        (nruns + mg.F - 1) / mg.F);
            for (size_t g = 0; g < nruns; g += mg.F) {
                const size_t k = nruns - g < mg.F ? nruns - g : mg.F;
                sink_t sk = {NULL, fd2, (off_t)(runs[g].first * es)};
                if ((rc = merge_runs(&mg, fd, runs + g, k, &sk)) != EXIT_OK) {
                    close(fd2);
                    goto out;
                }
                size_t cnt = 0;
                for (size_t j = g; j < g + k; j++) cnt += runs[j].count;
                runs[nn++] = (run_t){runs[g].first, cnt, 0, NULL, 0};
            }
            close(fd);
            fd = fd2, nruns = nn, passes++;
        }
    }
    {
        gp_array_desc_t like = in->d;
        like.ndim = 1;
        if ((rc = arr_out_open_like(&ao, verb, e->out, &like)) != EXIT_OK) goto out;
        ao_open = 1;
        sink_t sk = {&ao, -1, 0};
        spinner_set(&sp, "%s: out of core: merging %zu runs into %s", verb, nruns, e->out);
        if (nruns && (rc = merge_runs(&mg, fd, runs, nruns, &sk)) != EXIT_OK) goto out;
        passes++;
    }
    if ((rc = arr_out_close(&ao, verb, 1)) != EXIT_OK) {
        ao_open = 0;
        goto out;
    }
    ao_open = 0;
    spinner_stop(&sp);
    {
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t rec = {0};
        rec_add(&rec, "verb", 0, "%s", verb);
        rec_add(&rec, "dtype", 0, "%s", gp_dtype_name(dt));
        rec_add(&rec, "elements", 1, "%zu", total);
        rec_add(&rec, "order", 0, "ascending");
        rec_add(&rec, "out_of_core", 1, "1");
        rec_add(&rec, "mem_limit_bytes", 1, "%zu", e->limit);
        rec_add(&rec, "runs", 1, "%zu", runs_made);
        rec_add(&rec, "run_elements", 1, "%zu", R);
        rec_add(&rec, "merge_passes", 1, "%zu", passes);
        rec_add(&rec, "merge_windows", 1, "%zu", mg.windows);
        rec_add(&rec, "runs_dir", 0, "%s", dir);
        rec_add(&rec, "merge_seconds", 1, "%.6f", now_seconds() - t_merge);
        rec_add(&rec, "seconds", 1, "%.6f", now_seconds() - e->t0);
        rec_add(&rec, "device", 0, "%s", desc);
        rec_emit(&rec, e->fmt, "{verb}: {elements} {dtype} ascending out of core: {runs} runs of {run_elements}, "
                               "{merge_passes} merge pass(es), {merge_windows} windows ({seconds:%.3f} s end to end; "
                               "{device})\n",
                 summary_stream(e->out));
    }
    rc = EXIT_OK;
out:
    spinner_stop(&sp);
    if (ao_open) arr_out_close(&ao, verb, 0);
    if (fd >= 0) close(fd);
    gp_mem_free(ctx, &d0), gp_mem_free(ctx, &d1);
    if (cpu && cpu != ctx) gp_ctx_destroy(cpu);
    free(runs), free(h), free(h2), free(rbuf), free(win), free(lasts), free(sorted), free(off), free(take);
    return rc;
}
