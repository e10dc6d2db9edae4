/* options.c — command lines (support.h): the one option parser of every verb, suite and topic, and the values of
 * options (sizes, numbers, pairs, devices, sweeps). Fuzzed through tests/fuzz/fuzz_options.c. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <stdio.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int parse_size(const char *s, size_t *out)
{
    if (s == NULL || *s < '0' || *s > '9') return -1; /* no sign, space, NaN or empty string */
    uint64_t v = 0;
    if (s[0] == '2' && s[1] == '^') {
        const char *e = s + 2;
        unsigned k = 0;
        if (*e < '0' || *e > '9') return -1;
        for (; *e >= '0' && *e <= '9'; e++)
            if ((k = k * 10 + (unsigned)(*e - '0')) > 63) return -1;
        if (*e) return -1;
        *out = (size_t)1 << k;
        return 0;
    }
    /* digits [. digits] [K|M|G|T [i][B]]: a fraction only with a suffix, and only when the product is whole */
    uint64_t mant = 0, div = 1;
    int frac = 0;
    const char *p = s;
    for (; (*p >= '0' && *p <= '9') || (*p == '.' && !frac); p++) {
        if (*p == '.') {
            frac = 1;
            if (p[1] < '0' || p[1] > '9') return -1;
            continue;
        }
        if (__builtin_mul_overflow(mant, 10, &mant) || __builtin_add_overflow(mant, (uint64_t)(*p - '0'), &mant))
            return -1;
        if (frac && __builtin_mul_overflow(div, 10, &div)) return -1;
    }
    uint64_t mul = 1;
    if (*p) {
        switch (*p) {
        case 'k': case 'K': mul = 1ull << 10; break;
        case 'm': case 'M': mul = 1ull << 20; break;
        case 'g': case 'G': mul = 1ull << 30; break;
        case 't': case 'T': mul = 1ull << 40; break;
        default: return -1;
        }
        p++;
        if (*p == 'i') p++;
        if (*p == 'B') p++;
        if (*p) return -1;
    }
    if (__builtin_mul_overflow(mant, mul, &v) || v % div != 0) return -1;
    v /= div;
    if (v > (uint64_t)SIZE_MAX) return -1;
    *out = (size_t)v;
    return 0;
}

int parse_number(const char *s, double *out)
{
    if (s == NULL || *s == 0 || isspace((unsigned char)*s)) return -1;
    char *end = NULL;
    errno = 0;
    const double v = strtod(s, &end);
    if (end == s || *end != 0 || !isfinite(v) || (errno == ERANGE && fabs(v) > 1.0)) return -1;
    *out = v;
    return 0;
}

int parse_pair(const char *s, size_t *a, size_t *b)
{
    const char *comma = s ? strchr(s, ',') : NULL;
    if (comma == NULL || comma - s >= 64) return -1;
    char first[64];
    memcpy(first, s, (size_t)(comma - s));
    first[comma - s] = 0;
    return parse_size(first, a) == 0 && parse_size(comma + 1, b) == 0 ? 0 : -1;
}

size_t parse_number_list(const char *s, double **out)
{
    *out = NULL;
    if (s == NULL) return 0;
    size_t cap = 16, k = 0;
    double *v = malloc(cap * sizeof *v);
    const char *p = s;
    while (v && *p) {
        const char *comma = strchr(p, ',');
        const size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char num[64];
        double d;
        if (len == 0 || len >= sizeof num) break;
        memcpy(num, p, len);
        num[len] = 0;
        if (strcmp(num, "inf") == 0 || strcmp(num, "+inf") == 0) d = INFINITY;
        else if (strcmp(num, "-inf") == 0) d = -INFINITY;
        else if (strcmp(num, "nan") == 0) d = NAN;
        else if (parse_number(num, &d) != 0) break;
        if (k == cap) {
            double *nv = realloc(v, (cap *= 2) * sizeof *v);
            if (!nv) break;
            v = nv;
        }
        v[k++] = d;
        p += len;
        if (*p == ',' && p[1]) p++;
        else if (*p) break;
    }
    if (!v || *p || k == 0) {
        free(v);
        return 0;
    }
    *out = v;
    return k;
}

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

/* Whether argv[i] is split at '=': a "--name=value" argument that is not the value of the option before it
 * (`-o --odd=name` gives -o the whole text). */
static int splits(const cli_spec_t *spec, char **argv, int i)
{
    return i > 0 && strncmp(argv[i], "--", 2) == 0 && strchr(argv[i], '=') != NULL &&
           !(i > 1 && strchr(argv[i - 1], '=') == NULL && takes_value(spec, argv[i - 1]));
}

/* "--name=value" arguments split in two (copies that live to the process's end; the caller's argv is untouched). */
static char **split_eq(const cli_spec_t *spec, int argc, char **argv, int *nargc)
{
    int extra = 0;
    for (int i = 1; i < argc; i++) extra += splits(spec, argv, i);
    *nargc = argc;
    if (extra == 0) return argv;
    char **out = malloc(sizeof *out * (size_t)(argc + extra + 1));
    if (out == NULL || g_nsplit >= 64) return free(out), argv;
    int n = 0;
    for (int i = 0; i < argc; i++) {
        const char *eq = splits(spec, argv, i) ? strchr(argv[i], '=') : NULL;
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
    argv = split_eq(spec, argc, argv, &argc);
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

