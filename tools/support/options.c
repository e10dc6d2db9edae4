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
        *device = DEVICE_AUTO;
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

/* The common options: their bits, names, values and help, in the help's order. */
static const struct common_opt {
    unsigned bit;
    const char *names, *arg, *help, *def;
    opt_kind_t kind;
} k_common[] = {
    {COMMON_DEVICE, "-d|--device", "ID|cpu", "where it runs: a GPU by number, or the CPU backend",
     "GPU 0 when one answers, else the CPU backend", OPT_TEXT},
    {COMMON_JSON, "--json", NULL, "the results as JSON", NULL, OPT_FLAG},
    {COMMON_CSV, "--csv", NULL, "the results as CSV", NULL, OPT_FLAG},
    {COMMON_SVG, "--svg", "FILE", "a chart of the results, as SVG", NULL, OPT_FILE},
    {COMMON_REPS, "--reps", "N", "timed repetitions of each measurement", NULL, OPT_COUNT},
    {COMMON_WARMUP, "--warmup", "N", "untimed runs before them", NULL, OPT_COUNT},
};
enum { NCOMMON = sizeof k_common / sizeof k_common[0] };

/* a names one of the verb's options or a common one (so "-o --json" is taken for a slip, not a file name). */
static int known_option(const cli_spec_t *spec, const char *a)
{
    for (int k = 0; k < NCOMMON; k++)
        if (opt_named(k_common[k].names, a)) return 1;
    if (spec->sweep && (strcmp(a, "-b") == 0 || strcmp(a, "-e") == 0 || strcmp(a, "-f") == 0)) return 1;
    for (const cli_opt_t *o = spec->opts; o && o->names; o++)
        if (opt_named(o->names, a)) return 1;
    return 0;
}

/* a is an option that takes a value (the verb's, a common one, or the sweep's). */
static int takes_value(const cli_spec_t *spec, const char *a)
{
    for (int k = 0; k < NCOMMON; k++)
        if (opt_named(k_common[k].names, a)) return k_common[k].arg != NULL;
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

static const char **slot(void *vals, const cli_opt_t *o) { return (const char **)(void *)((char *)vals + o->at); }

/* The words of an OPT_WORD option ("a b c"), from .words or arg's alternatives. */
static const char *words_of(const char *words, const char *arg, char *buf, size_t cap)
{
    if (words) return words;
    snprintf(buf, cap, "%s", arg ? arg : "");
    for (char *p = buf; *p; p++)
        if (*p == '|') *p = ' ';
    return buf;
}

const char *cli_opt_words(const cli_opt_view_t *o, char *buf, size_t cap)
{
    if (o->kind != OPT_WORD) return cap ? (buf[0] = 0, buf) : buf;
    const char *w = words_of(o->words, o->arg, buf, cap);
    if (w != buf) snprintf(buf, cap, "%s", w);
    return buf;
}

/* v is one of the space-separated words */
static int is_word(const char *words, const char *v)
{
    const size_t n = strlen(v);
    for (const char *p = words; *p;) {
        const size_t l = strcspn(p, " ");
        if (l == n && n && strncmp(p, v, n) == 0) return 1;
        p += l;
        while (*p == ' ') p++;
    }
    return 0;
}

/* one of a's names is among names ("--a|--b") */
static int names_meet(const char *a, const char *names)
{
    if (!names) return 0;
    for (const char *p = a; *p;) {
        const size_t l = strcspn(p, "|");
        char nm[64];
        snprintf(nm, sizeof nm, "%.*s", (int)l, p);
        if (opt_named(names, nm)) return 1;
        p += l + (p[l] == '|');
    }
    return 0;
}

/* An option given before o (seen[]) that o or it names among its conflicts, or NULL. */
static const cli_opt_t *conflict_given(const cli_spec_t *spec, const cli_opt_t *o, const unsigned char *seen)
{
    for (const cli_opt_t *q = spec->opts; q && q->names; q++)
        if (q != o && seen[q - spec->opts] && (names_meet(q->names, o->conflicts) || names_meet(o->names, q->conflicts)))
            return q;
    return NULL;
}

int cli_parse(const cli_spec_t *spec, int argc, char **argv, cli_common_t *c, void *vals, const char **pos, int *npos)
{
    const char *v = spec->verb;
    *npos = 0;
    int nopts = 0;
    for (const cli_opt_t *o = spec->opts; o && o->names; o++, nopts++) *slot(vals, o) = NULL; /* a verb may run twice */
    argv = split_eq(spec, argc, argv, &argc);
    unsigned char seen[128] = {0}; /* which of the verb's options were given */
    if (nopts > (int)sizeof seen) {
        fprintf(stderr, "gpuprim %s: its option table has more than %zu options\n", v, sizeof seen);
        return EXIT_USAGE;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            cli_usage(spec, stdout);
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
        if (k > 0 && (c->given & COMMON_DEVICE) && c->device == DEVICE_AUTO && !(spec->common & COMMON_AUTO) &&
            (spec->common & COMMON_DEVICE)) {
            fprintf(stderr, "gpuprim %s: %s auto weighs the backends for a data verb's input; %s has none to weigh "
                            "(give cpu or a GPU number)\n", v, a, v);
            return EXIT_USAGE;
        }
        if (k == 0 && spec->sweep) k = parse_sweep(v, argc, argv, &i, spec->sweep);
        if (k < 0) return EXIT_USAGE;
        if (k > 0) continue;
        const cli_opt_t *o = spec->opts;
        while (o && o->names && !opt_named(o->names, a)) o++;
        if (o && o->names) {
            const size_t idx = (size_t)(o - spec->opts);
            if (seen[idx]++) {
                fprintf(stderr, "gpuprim %s: %s is given twice\n", v, a);
                return EXIT_USAGE;
            }
            if (o->arg == NULL) {
                *slot(vals, o) = a;
            } else if (i + 1 >= argc) {
                fprintf(stderr, "gpuprim %s: %s needs a value (%s)\n", v, a, o->arg);
                return EXIT_USAGE;
            } else {
                const char *val = argv[++i];
                char wb[512];
                const char *words = o->kind == OPT_WORD ? words_of(o->words, o->arg, wb, sizeof wb) : NULL;
                if (words && !is_word(words, val)) {
                    fprintf(stderr, "gpuprim %s: %s: expected one of %s, got '%s'\n", v, a, words, val);
                    return EXIT_USAGE;
                }
                *slot(vals, o) = val;
            }
            const cli_opt_t *q = conflict_given(spec, o, seen);
            if (q) {
                fprintf(stderr, "gpuprim %s: %s and %s: give one (gpuprim %s --help)\n", v, q->names, o->names, v);
                return EXIT_USAGE;
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

int opt_yes(const char *v, int dflt)
{
    if (v == NULL) return dflt;
    return !(strcmp(v, "no") == 0 || strcmp(v, "false") == 0 || strcmp(v, "0") == 0);
}

/* ---------------------------------------------------------------------------------------------- the help */
void cli_each_option(const cli_spec_t *spec, int (*fn)(void *user, const cli_opt_view_t *o), void *user)
{
    for (const cli_opt_t *o = spec->opts; o && o->names; o++) {
        const cli_opt_view_t w = {o->names, o->arg, o->help, o->def, o->conflicts, o->words, o->kind};
        if (fn(user, &w)) return;
    }
    if (spec->sweep) {
        char h[160];
        snprintf(h, sizeof h, "the sweep: sizes MIN, MIN*FACTOR, ... up to MAX (%s)",
                 spec->sweep_unit ? spec->sweep_unit : "elements");
        const cli_opt_view_t s[] = {{"-b", "MIN", h, NULL, NULL, NULL, OPT_COUNT},
                                    {"-e", "MAX", "the sweep's largest size", NULL, NULL, NULL, OPT_COUNT},
                                    {"-f", "FACTOR", "the sweep's step, a factor > 1", NULL, NULL, NULL, OPT_NUMBER}};
        for (int k = 0; k < 3; k++)
            if (fn(user, &s[k])) return;
    }
    for (int k = 0; k < NCOMMON; k++) {
        if (!(spec->common & k_common[k].bit)) continue;
        cli_opt_view_t w = {k_common[k].names, k_common[k].arg, k_common[k].help, k_common[k].def, NULL, NULL,
                            k_common[k].kind};
        if (k_common[k].bit == COMMON_DEVICE) w.words = "cpu 0 1 2 3";
        if (k_common[k].bit == COMMON_DEVICE && (spec->common & COMMON_AUTO)) {
            w.arg = "ID|cpu|auto";
            w.words = "cpu auto 0 1 2 3";
            w.help = "where it runs: a GPU by number, the CPU backend, or auto: the backend estimated faster for "
                     "this input (said on stderr)";
        }
        if (fn(user, &w)) return;
    }
    const cli_opt_view_t h = {"-h|--help", NULL, "this help", NULL, NULL, NULL, OPT_FLAG};
    fn(user, &h);
}

/* text's words from column at (where the caller's cursor is), wrapped before width, later lines indented to indent */
static void wrap(FILE *f, const char *text, int at, int indent, int width)
{
    int col = at, first = 1;
    for (const char *p = text; *p;) {
        const size_t w = strcspn(p, " ");
        if (!first && col + 1 + (int)w > width) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, w, f);
        col += (int)w, first = 0;
        p += w;
        while (*p == ' ') p++;
    }
}

static int usage_line(void *user, const cli_opt_view_t *o)
{
    FILE *f = user;
    char head[96], names[64];
    snprintf(names, sizeof names, "%s", o->names);
    char shown[80] = "";
    for (const char *p = names; *p;) { /* "-o|--output" as "-o, --output" */
        const size_t l = strcspn(p, "|");
        snprintf(shown + strlen(shown), sizeof shown - strlen(shown), "%s%.*s", shown[0] ? ", " : "", (int)l, p);
        p += l + (p[l] == '|');
    }
    snprintf(head, sizeof head, "  %s%s%s", shown, o->arg ? " " : "", o->arg ? o->arg : "");
    fputs(head, f);
    enum { COL = 28, WIDTH = 118 };
    int at = (int)strlen(head);
    if (at + 2 > COL) {
        fprintf(f, "\n%*s", COL, "");
        at = COL;
    } else {
        fprintf(f, "%*s", COL - at, "");
        at = COL;
    }
    char text[1400];
    char wb[512];
    snprintf(text, sizeof text, "%s", o->help ? o->help : "");
    if (o->kind == OPT_WORD && o->words && o->arg && !strchr(o->arg, '|'))
        snprintf(text + strlen(text), sizeof text - strlen(text), "; %s is one of: %s", o->arg,
                 words_of(o->words, o->arg, wb, sizeof wb));
    if (o->def) snprintf(text + strlen(text), sizeof text - strlen(text), " (default: %s)", o->def);
    if (o->conflicts) {
        snprintf(text + strlen(text), sizeof text - strlen(text), " (not with ");
        for (const char *p = o->conflicts; *p;) {
            const size_t l = strcspn(p, "|");
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s%.*s", p == o->conflicts ? "" : ", ",
                     (int)l, p);
            p += l + (p[l] == '|');
        }
        snprintf(text + strlen(text), sizeof text - strlen(text), ")");
    }
    wrap(f, text, at, COL, WIDTH);
    fputc('\n', f);
    return 0;
}

void cli_usage(const cli_spec_t *spec, FILE *f)
{
    const char *syn = spec->synopsis && spec->synopsis[0] ? spec->synopsis : "[options]";
    for (int first = 1; *syn; first = 0) {
        const size_t l = strcspn(syn, "\n");
        fprintf(f, "%s gpuprim %s %.*s\n", first ? "usage:" : "      ", spec->verb, (int)l, syn);
        syn += l + (syn[l] == '\n');
    }
    for (const char *p = spec->about ? spec->about : ""; *p;) { /* paragraphs (a blank line between), re-wrapped */
        const char *end = strstr(p, "\n\n");
        const size_t l = end ? (size_t)(end - p) : strlen(p);
        char para[4096];
        snprintf(para, sizeof para, "%.*s", (int)(l < sizeof para ? l : sizeof para - 1), p);
        for (char *q = para; *q; q++)
            if (*q == '\n') *q = ' ';
        fputs("  ", f);
        wrap(f, para, 2, 2, 118);
        fputc('\n', f);
        p += l;
        while (*p == '\n') p++;
    }
    fputs("options:\n", f);
    cli_each_option(spec, usage_line, f);
}
