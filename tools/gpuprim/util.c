/* util.c — CLI helpers: options, devices, contexts, progress (values of options are parsed by lab/parse.c). */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int bad_value(const char *verb, const char *opt, const char *what, const char *val)
{
    fprintf(stderr, "gpuprim%s%s: %s: expected %s, got '%s'\n", verb ? " " : "", verb ? verb : "", opt, what,
            val ? val : "(nothing)");
    return EXIT_USAGE;
}

int parse_sweep(const char *verb, int argc, char **argv, int *i, sweep_t *s)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strcmp(a, "-b") == 0 || strcmp(a, "-e") == 0) {
        size_t x = 0;
        if (parse_size(v, &x) != 0 || x == 0) return bad_value(verb, a, "a size > 0", v ? v : ""), -1;
        if (a[1] == 'b') s->b = x, s->given |= 1;
        else s->e = x, s->given |= 2;
        ++*i;
        return 1;
    }
    if (strcmp(a, "-f") == 0) {
        double f = 0;
        if (parse_number(v, &f) != 0 || !(f > 1.0) || f > 1e6) return bad_value(verb, a, "a factor > 1", v ? v : ""), -1;
        s->f = f;
        ++*i;
        return 1;
    }
    return 0;
}

int sweep_check(const char *verb, sweep_t *s)
{
    if (s->given == 1 && s->b > s->e) s->e = s->b; /* -b alone past the default end: that one size */
    if (s->given == 2 && s->e < s->b) s->b = s->e; /* -e alone below the default start: that one size */
    if (s->b > s->e) {
        fprintf(stderr, "gpuprim %s: -b %zu is larger than -e %zu\n", verb, s->b, s->e);
        return EXIT_USAGE;
    }
    return 0;
}

size_t sweep_sizes(const sweep_t *s, size_t *out, size_t max)
{
    size_t n = 0;
    for (double x = (double)s->b; n < max && x <= (double)s->e * (1 + 1e-12); x *= s->f) {
        const size_t v = (size_t)(x + 0.5);
        if (n == 0 || v != out[n - 1]) out[n++] = v;
    }
    if (n > 0 && n < max && out[n - 1] < s->e) out[n++] = s->e; /* always end on MAX */
    return n;
}

int parse_device(const char *s, int *device)
{
    if (s == NULL) return -1;
    if (strcmp(s, "cpu") == 0) {
        *device = GP_DEVICE_CPU;
        return 0;
    }
    if (strcmp(s, "auto") == 0) {
        *device = DEVICE_FASTEST;
        return 0;
    }
    char *end = NULL;
    long d = strtol(s, &end, 10);
    if (*s == 0 || *end != 0 || d < 0 || d > 1024) return -1;
    *device = (int)d;
    return 0;
}

int parse_common(int argc, char **argv, int *i, cli_common_t *c)
{
    const char *a = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strcmp(a, "--json") == 0) return c->fmt = FMT_JSON, c->given |= COMMON_JSON, 1;
    if (strcmp(a, "--csv") == 0) return c->fmt = FMT_CSV, c->given |= COMMON_CSV, 1;
    if (strcmp(a, "--device") == 0 || strcmp(a, "-d") == 0) {
        if (parse_device(val, &c->device) != 0) {
            fprintf(stderr, "gpuprim: %s needs 'cpu', 'auto' or a device number, got '%s'\n", a, val ? val : "");
            return -1;
        }
        c->given |= COMMON_DEVICE;
        ++*i;
        return 1;
    }
    if (strcmp(a, "--svg") == 0) {
        if (val == NULL) {
            fprintf(stderr, "gpuprim: --svg needs a file name\n");
            return -1;
        }
        c->svg = val;
        c->given |= COMMON_SVG;
        ++*i;
        return 1;
    }
    if (strcmp(a, "--reps") == 0 || strcmp(a, "--warmup") == 0) {
        size_t v = 0;
        if (parse_size(val, &v) != 0 || v < (a[2] == 'r' ? 1u : 0u) || v > 100000) {
            fprintf(stderr, "gpuprim: %s needs a count, got '%s'\n", a, val ? val : "");
            return -1;
        }
        if (a[2] == 'r')
            c->reps = (int)v, c->given |= COMMON_REPS;
        else
            c->warmup = (int)v, c->given |= COMMON_WARMUP;
        ++*i;
        return 1;
    }
    return 0;
}

const char *gpu_absent_reason(gp_status_t st, char *buf, size_t len)
{
    if (st == GP_ERR_NO_DRIVER || st == GP_ERR_NO_DEVICE)
        snprintf(buf, len, "no NVIDIA GPU/driver found");
    else
        snprintf(buf, len, "GPU 0 failed (%s: %s)", gp_status_string(st), gp_last_error());
    return buf;
}

int common_only(const char *verb, const cli_common_t *c, unsigned allowed)
{
    static const struct { unsigned bit; const char *name; } opts[] = {
        {COMMON_DEVICE, "--device"}, {COMMON_JSON, "--json"}, {COMMON_CSV, "--csv"},
        {COMMON_SVG, "--svg"}, {COMMON_REPS, "--reps"}, {COMMON_WARMUP, "--warmup"}};
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        if (!(c->given & opts[k].bit) || (allowed & opts[k].bit)) continue;
        char takes[128] = "";
        for (size_t q = 0; q < sizeof opts / sizeof opts[0]; q++)
            if (allowed & opts[q].bit)
                snprintf(takes + strlen(takes), sizeof takes - strlen(takes), "%s%s", takes[0] ? " " : "", opts[q].name);
        fprintf(stderr, "gpuprim %s: %s does not apply to %s (it takes %s)\n", verb, opts[k].name, verb,
                takes[0] ? takes : "none of the common options");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}


void note_cpu(const char *who, const char *why, const char *doing)
{
    static atomic_int shown; /* once per process, whichever thread comes first */
    if (atomic_fetch_add(&shown, 1) || who == NULL) return;
    fprintf(stderr, "%s: %s — %s\n", who, why, doing);
}

/* Why a GP_DEVICE_DEFAULT context is on the CPU backend, in one short line. */
static void fallback_why(const gp_ctx_t *ctx, char *why_cpu, size_t why_len)
{
    int n = 0;
    const gp_status_t dc = gp_device_count(&n);
    if (dc == GP_ERR_NO_DRIVER || dc == GP_ERR_NO_DEVICE)
        snprintf(why_cpu, why_len, "no NVIDIA GPU/driver found");
    else
        snprintf(why_cpu, why_len, "GPU 0 failed (%s)", gp_ctx_fallback_reason(ctx));
}

gp_status_t open_context(int device, gp_ctx_t **ctx, char *why_cpu, size_t why_len)
{
    if (why_cpu && why_len) why_cpu[0] = 0;
    if (device == DEVICE_FASTEST) device = DEVICE_AUTO; /* verbs without a work model: the default */
    gp_status_t st = gp_ctx_create(ctx, device); /* DEVICE_AUTO is the library's GP_DEVICE_DEFAULT */
    if (st == GP_OK && device == DEVICE_AUTO && why_cpu && gp_ctx_device(*ctx) == GP_DEVICE_CPU)
        fallback_why(*ctx, why_cpu, why_len);
    return st;
}

double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int context_opened(const char *verb, int device, gp_status_t st, const gp_ctx_t *ctx)
{
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim %s: %s: %s\n", verb, gp_status_string(st), gp_last_error());
        return st == GP_ERR_NO_DRIVER ? EXIT_NO_DRIVER : st == GP_ERR_NO_DEVICE ? EXIT_NO_GPU : EXIT_FAIL;
    }
    if ((device == DEVICE_AUTO || device == DEVICE_FASTEST) && gp_ctx_device(ctx) == GP_DEVICE_CPU) {
        char why[700], who[64];
        fallback_why(ctx, why, sizeof why);
        snprintf(who, sizeof who, "gpuprim %s", verb);
        note_cpu(who, why, "using the CPU backend");
    }
    return EXIT_OK;
}

int open_context_verb(const char *verb, int device, gp_ctx_t **ctx)
{
    if (device == DEVICE_FASTEST) device = DEVICE_AUTO;
    const gp_status_t st = gp_ctx_create(ctx, device);
    return context_opened(verb, device, st, *ctx);
}

void progress_bar(void *user, size_t done, size_t total)
{
    progress_bar_t *b = user;
    if (!isatty(2)) return;
    const double el = now_seconds() - b->t0;
    if (el < progress_after()) return; /* only work that takes over a second shows a bar */
    if (total) {
        int w = 40, k = (int)((double)done / (double)total * w);
        fprintf(stderr, "\r[%.*s%*s] %5.1f%%  %.0f MB/s", k, "########################################", w - k, "",
                100.0 * (double)done / (double)total, (double)done / el / 1e6);
    } else {
        fprintf(stderr, "\r%.1f MB  %.0f MB/s", (double)done / 1e6, (double)done / el / 1e6);
    }
    b->shown = 1;
}

double progress_after(void)
{
    const char *e = getenv("GPUPRIM_PROGRESS_AFTER");
    double v;
    if (e && parse_number(e, &v) == 0 && v >= 0) return v;
    return 1.0;
}

typedef struct spin_impl {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, shown;
    double t0, after;
    char what[96];
} spin_impl_t;

static void *spin_main(void *arg)
{
    spin_impl_t *p = arg;
    static const char marks[] = "|/-\\";
    int k = 0;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        const double el = now_seconds() - p->t0;
        if (el >= p->after) {
            fprintf(stderr, "\r%c %s  %.1f s", marks[k++ % 4], p->what, el);
            fflush(stderr);
            p->shown = 1;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&p->cv, &p->mu, &ts);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

void spinner_start(spinner_t *s, const char *what)
{
    s->impl = NULL;
    if (!isatty(2)) return;
    spin_impl_t *p = calloc(1, sizeof *p);
    if (p == NULL) return; /* no spinner is no failure */
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->t0 = now_seconds(), p->after = progress_after();
    snprintf(p->what, sizeof p->what, "%s", what);
    if (p->after <= 0) { /* at once: the first frame before the work starts */
        fprintf(stderr, "\r| %s  0.0 s", p->what);
        p->shown = 1;
    }
    if (pthread_create(&p->th, NULL, spin_main, p) != 0) {
        if (p->shown) fprintf(stderr, "\r%*s\r", (int)strlen(p->what) + 16, "");
        pthread_cond_destroy(&p->cv), pthread_mutex_destroy(&p->mu), free(p);
        return;
    }
    s->impl = p;
}

void spinner_stop(spinner_t *s)
{
    spin_impl_t *p = s->impl;
    if (p == NULL) return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->th, NULL);
    if (p->shown) fprintf(stderr, "\r%*s\r", (int)strlen(p->what) + 16, "");
    pthread_cond_destroy(&p->cv), pthread_mutex_destroy(&p->mu), free(p);
    s->impl = NULL;
}

/* The model behind --device auto. Per-core CPU rates are the CPU backend's on a 2-core AMD EPYC (Zen 5) host,
 * 2026-11-23 (`gpuprim bench ... -d cpu`, docs/PERFORMANCE.md): fast reductions (sum, min, max, arg*, the typed
 * paths) 10 GB/s, the generic ones (f16/bf16, prod, bitwise, count) 0.5 GB/s, ordered 1 GB/s, histograms up to 64Ki
 * bins 1.1 GB/s and wider 0.1 GB/s, transpose 4.5 GB/s, GEMM 85 GFLOP/s per core (AVX-512). The GPU side: start-up 0.25 s
 * (process, driver and context, pinned ring; H100, docs/PERFORMANCE.md), the input read from the page cache at
 * 6 GB/s on either backend, device rates far above (H2D 20 GB/s, GEMM 40 TFLOP/s). */
#define EST_GPU_STARTUP 0.25
#define EST_READ_GBS 6.0
#define EST_H2D_GBS 20.0

void work_estimate(const work_t *w, double *cpu_s, double *gpu_s)
{
    gp_cpu_info_t ci;
    int threads = w->threads;
    if (threads <= 0) threads = gp_cpu_info(&ci) == GP_OK && ci.omp_max_threads > 0 ? ci.omp_max_threads : 1;
    double per_core = 10.0; /* GB/s */
    switch (w->kind) {
    case WORK_REDUCE_FAST: per_core = 10.0; break;
    case WORK_REDUCE_SLOW: per_core = 0.5; break;
    case WORK_ORDERED: per_core = 1.0; break;
    case WORK_HIST: per_core = 1.1; break;
    case WORK_HIST_WIDE: per_core = 0.1; break;
    case WORK_TRANSPOSE: per_core = 4.5; break;
    case WORK_GEMM: per_core = 0; break;
    case WORK_SCAN: per_core = 1.0; break; /* the tile pass twice over (aggregates, then outputs) */
    }
    const double b = w->bytes < 0 ? 1e9 : w->bytes; /* unknown: compare per GB, without start-up */
    const double cpu_dev = w->kind == WORK_GEMM ? w->flops / (85e9 * threads) : b / (per_core * 1e9 * threads);
    const double gpu_dev = w->kind == WORK_GEMM ? w->flops / 40e12 : 0;
    double cpu = b / (EST_READ_GBS * 1e9), gpu = cpu;
    if (w->kind == WORK_REDUCE_FAST || w->kind == WORK_REDUCE_SLOW || w->kind == WORK_ORDERED || w->kind == WORK_HIST ||
        w->kind == WORK_HIST_WIDE) {
        cpu = cpu > cpu_dev ? cpu : cpu_dev; /* the streamed CPU backend reduces as it reads (threads) */
        gpu += b / (EST_H2D_GBS * 1e9) * 0.1; /* copies overlap the reads: a tail */
    } else {
        cpu += cpu_dev;
        gpu += 2 * b / (EST_H2D_GBS * 1e9) + gpu_dev;
    }
    if (w->bytes >= 0) gpu += EST_GPU_STARTUP;
    *cpu_s = cpu, *gpu_s = gpu;
}

int pick_device(const char *verb, int device, const work_t *w, int quiet)
{
    if (device != DEVICE_FASTEST) return device;
    double c, g;
    work_estimate(w, &c, &g);
    const int cpu = c <= g;
    if (!quiet) {
        if (w->bytes < 0)
            fprintf(stderr, "gpuprim %s: --device auto: the %s (input of unknown size: %.2f s/GB on the CPU, %.2f s/GB "
                    "on a GPU, estimated)\n", verb, cpu ? "CPU backend" : "GPU", c, g);
        else
            fprintf(stderr, "gpuprim %s: --device auto: the %s (estimated %.3f s on the CPU backend, %.3f s on a GPU "
                    "with its start-up)\n", verb, cpu ? "CPU backend" : "GPU", c, g);
    }
    return cpu ? GP_DEVICE_CPU : DEVICE_AUTO;
}


/* ---------------------------------------------------------------------------------------------- the option parser */
/* names "-n|--count" contains a exactly as one of its alternatives */
static int opt_named(const char *names, const char *a)
{
    const size_t la = strlen(a);
    for (const char *p = names; *p;) {
        const char *bar = strchr(p, '|');
        const size_t l = bar ? (size_t)(bar - p) : strlen(p);
        if (l == la && strncmp(p, a, l) == 0) return 1;
        if (!bar) break;
        p = bar + 1;
    }
    return 0;
}

/* The common options by name, for the checks below. */
static const char *const k_common_names[] = {"--json", "--csv", "-d", "--device", "--svg", "--reps", "--warmup", NULL};

/* a names one of the verb's options or a common one (so "-o --json" is taken for a slip, not a file name). */
static int known_option(const cli_spec_t *spec, const char *a)
{
    for (const char *const *c = k_common_names; *c; c++)
        if (strcmp(*c, a) == 0) return 1;
    if (spec->sweep && (strcmp(a, "-b") == 0 || strcmp(a, "-e") == 0 || strcmp(a, "-f") == 0)) return 1;
    for (const cli_opt_t *o = spec->opts; o && o->names; o++)
        if (opt_named(o->names, a)) return 1;
    return 0;
}

/* a is an option that takes a value (the verb's, a common one, or the sweep's). */
static int takes_value(const cli_spec_t *spec, const char *a)
{
    static const char *const common_valued[] = {"-d", "--device", "--svg", "--reps", "--warmup", NULL};
    for (const char *const *c = common_valued; *c; c++)
        if (strcmp(*c, a) == 0) return 1;
    if (spec->sweep && (strcmp(a, "-b") == 0 || strcmp(a, "-e") == 0 || strcmp(a, "-f") == 0)) return 1;
    for (const cli_opt_t *o = spec->opts; o && o->names; o++)
        if (opt_named(o->names, a)) return o->arg != NULL;
    return 0;
}

static char **g_split[64];
static int g_nsplit;

/* "--name=value" arguments split in two (copies that live to the process's end; the caller's argv is untouched). */
static char **split_eq(int argc, char **argv, int *nargc)
{
    int extra = 0;
    for (int i = 1; i < argc; i++) extra += strncmp(argv[i], "--", 2) == 0 && strchr(argv[i], '=') != NULL;
    *nargc = argc;
    if (extra == 0) return argv;
    char **out = malloc(sizeof *out * (size_t)(argc + extra + 1));
    if (out == NULL || g_nsplit >= 64) return free(out), argv;
    int n = 0;
    for (int i = 0; i < argc; i++) {
        const char *eq = i > 0 && strncmp(argv[i], "--", 2) == 0 ? strchr(argv[i], '=') : NULL;
        if (eq == NULL) {
            out[n++] = argv[i];
            continue;
        }
        char *name = strdup(argv[i]);
        if (name == NULL) return free(out), argv;
        name[eq - argv[i]] = 0;
        out[n++] = name;
        out[n++] = name + (eq - argv[i]) + 1;
    }
    out[n] = NULL;
    g_split[g_nsplit++] = out; /* reachable to the end: what the options point into */
    *nargc = n;
    return out;
}

int cli_parse(const cli_spec_t *spec, int argc, char **argv, cli_common_t *c, const char **pos, int *npos)
{
    const char *v = spec->verb;
    *npos = 0;
    for (const cli_opt_t *o = spec->opts; o && o->names; o++) *o->value = NULL; /* a verb may run twice (the demo) */
    argv = split_eq(argc, argv, &argc);
    unsigned char seen[64] = {0}; /* which of the verb's options were given */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            if (spec->usage) spec->usage(stdout);
            return CLI_HELP;
        }
        if (i + 1 < argc && takes_value(spec, a) && known_option(spec, argv[i + 1])) {
            fprintf(stderr, "gpuprim %s: %s needs a value, got the option '%s' (gpuprim %s --help)\n", v, a, argv[i + 1],
                    v);
            return EXIT_USAGE;
        }
        const unsigned before = c->given;
        int k = parse_common(argc, argv, &i, c);
        if (k > 0 && (c->given & ~before) == 0) { /* its bit was set already: -d and --device are one option */
            fprintf(stderr, "gpuprim %s: %s is given twice\n", v, a);
            return EXIT_USAGE;
        }
        if (k > 0 && (c->given & COMMON_JSON) && (c->given & COMMON_CSV)) {
            fprintf(stderr, "gpuprim %s: --json and --csv: give one\n", v);
            return EXIT_USAGE;
        }
        if (k == 0 && spec->sweep) k = parse_sweep(v, argc, argv, &i, spec->sweep);
        if (k < 0) return EXIT_USAGE;
        if (k > 0) continue;
        const cli_opt_t *o = spec->opts;
        while (o && o->names && !opt_named(o->names, a)) o++;
        if (o && o->names) {
            const size_t idx = (size_t)(o - spec->opts);
            if (idx < sizeof seen && seen[idx]++) {
                fprintf(stderr, "gpuprim %s: %s is given twice\n", v, a);
                return EXIT_USAGE;
            }
            if (o->arg == NULL) {
                *o->value = a;
            } else if (i + 1 >= argc) {
                fprintf(stderr, "gpuprim %s: %s needs a value (%s)\n", v, a, o->arg);
                return EXIT_USAGE;
            } else {
                *o->value = argv[++i];
            }
            continue;
        }
        if ((a[0] != '-' || strcmp(a, "-") == 0) && *npos < spec->max_pos) {
            pos[(*npos)++] = a;
            continue;
        }
        if (a[0] != '-' || strcmp(a, "-") == 0)
            fprintf(stderr, "gpuprim %s: unexpected argument '%s' (gpuprim %s --help)\n", v, a, v);
        else
            fprintf(stderr, "gpuprim %s: unknown option '%s' (gpuprim %s --help lists the options)\n", v, a, v);
        return EXIT_USAGE;
    }
    return common_only(v, c, spec->common);
}

/* A scalar of kind acc (GP_F32, GP_F64, GP_I64 or else unsigned) as JSON or text: %.9g / %.17g, nan and inf as
 * strings in JSON. */
void print_scalar(FILE *o, int32_t acc, gp_scalar_t v, int json)
{
    double d = acc == GP_F32 ? (double)v.f32 : acc == GP_F64 ? v.f64 : 0;
    if ((acc == GP_F32 || acc == GP_F64) && !isfinite(d)) {
        const char *s = isnan(d) ? "nan" : d > 0 ? "inf" : "-inf";
        fprintf(o, json ? "\"%s\"" : "%s", s);
    } else if (acc == GP_F32) {
        fprintf(o, "%.9g", d);
    } else if (acc == GP_F64) {
        fprintf(o, "%.17g", d);
    } else if (acc == GP_I64) {
        fprintf(o, "%lld", (long long)v.i64);
    } else {
        fprintf(o, "%llu", (unsigned long long)v.u64);
    }
}

/* One value of dtype at p, as JSON or text. */
void print_elem(FILE *o, gp_dtype_t dt, const void *p, int json)
{
    gp_scalar_t v;
    int32_t kind = GP_I64;
    v.u64 = 0;
    switch (dt) {
    case GP_U8: v.u64 = *(const uint8_t *)p, kind = GP_U64; break;
    case GP_U16: v.u64 = *(const uint16_t *)p, kind = GP_U64; break;
    case GP_U32: v.u64 = *(const uint32_t *)p, kind = GP_U64; break;
    case GP_U64: memcpy(&v.u64, p, 8), kind = GP_U64; break;
    case GP_I8: v.i64 = *(const int8_t *)p; break;
    case GP_I16: v.i64 = *(const int16_t *)p; break;
    case GP_I32: v.i64 = *(const int32_t *)p; break;
    case GP_I64: memcpy(&v.i64, p, 8); break;
    case GP_F16: v.f32 = gp_f16_to_f32(*(const uint16_t *)p), kind = GP_F32; break;
    case GP_BF16: v.f32 = gp_bf16_to_f32(*(const uint16_t *)p), kind = GP_F32; break;
    case GP_F32: memcpy(&v.f32, p, 4), kind = GP_F32; break;
    default: memcpy(&v.f64, p, 8), kind = GP_F64; break;
    }
    print_scalar(o, kind, v, json);
}

