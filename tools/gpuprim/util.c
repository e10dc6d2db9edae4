/* util.c — CLI helpers: sizes, devices, reports in three formats, SVG bar charts. */
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

void rec_add(record_t *r, const char *key, int raw, const char *fmt, ...)
{
    if (r->n >= RECORD_MAX) return;
    snprintf(r->key[r->n], sizeof r->key[0], "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->val[r->n], sizeof r->val[0], fmt, ap);
    va_end(ap);
    r->raw[r->n++] = raw;
}

static void csv_cell(FILE *f, const char *s);

void rec_print(const record_t *r, out_format_t fmt, FILE *f)
{
    if (fmt == FMT_CSV) {
        for (int k = 0; k < r->n; k++) fprintf(f, "%s%s", k ? "," : "", r->key[k]);
        fputc('\n', f);
        for (int k = 0; k < r->n; k++) {
            if (k) fputc(',', f);
            csv_cell(f, r->val[k]);
        }
        fputc('\n', f);
        return;
    }
    fputc('{', f);
    for (int k = 0; k < r->n; k++) {
        fprintf(f, "%s\"%s\": ", k ? ", " : "", r->key[k]);
        if (r->raw[k]) fputs(r->val[k], f);
        else json_string(f, r->val[k]);
    }
    fputs("}\n", f);
}

gp_status_t reducer_sink_push(void *user, const void *chunk, size_t count, size_t first, gp_stream_t stream)
{
    reducer_sink_t *k = user;
    (void)first;
    if (k->t_first == 0) k->t_first = now_seconds();
    k->elements += count;
    return gp_reducer_push(k->red, chunk, count, stream);
}

static atomic_int g_background;
void background_begin(void) { atomic_fetch_add(&g_background, 1); }
void background_end(void) { atomic_fetch_sub(&g_background, 1); }
int background_pending(void) { return atomic_load(&g_background) > 0; }

void note_cpu(const char *who, const char *why, const char *doing)
{
    static atomic_int shown; /* once per process, whichever thread comes first */
    if (atomic_fetch_add(&shown, 1) || who == NULL) return;
    fprintf(stderr, "%s: %s — %s\n", who, why, doing);
}

gp_status_t open_context(int device, gp_ctx_t **ctx, char *why_cpu, size_t why_len)
{
    if (why_cpu && why_len) why_cpu[0] = 0;
    if (device == DEVICE_FASTEST) device = DEVICE_AUTO; /* verbs without a work model: the default */
    gp_status_t st = gp_ctx_create(ctx, device); /* DEVICE_AUTO is the library's GP_DEVICE_DEFAULT */
    if (st == GP_OK && device == DEVICE_AUTO && why_cpu && gp_ctx_device(*ctx) == GP_DEVICE_CPU) {
        int n = 0;
        const gp_status_t dc = gp_device_count(&n);
        if (dc == GP_ERR_NO_DRIVER || dc == GP_ERR_NO_DEVICE)
            snprintf(why_cpu, why_len, "no NVIDIA GPU/driver found");
        else
            snprintf(why_cpu, why_len, "GPU 0 failed (%s)", gp_ctx_fallback_reason(*ctx));
    }
    return st;
}

void describe_device(gp_ctx_t *ctx, char *out, size_t len)
{
    int dev = gp_ctx_device(ctx);
    if (dev == GP_DEVICE_CPU) {
        gp_cpu_info_t c;
        gp_cpu_info(&c);
        snprintf(out, len, "CPU backend: %s, %d threads", c.model, c.omp_max_threads);
        return;
    }
    gp_device_info_t d;
    if (gp_device_info(dev, &d) != GP_OK) {
        snprintf(out, len, "device %d", dev);
        return;
    }
    snprintf(out, len, "%s (sm_%d%d, %d SMs, %.0f GB/s theoretical), driver %d.%d, runtime %d.%d", d.name,
             d.cc_major, d.cc_minor, d.sm_count, d.mem_bandwidth_gbs, d.driver_version / 1000,
             (d.driver_version % 1000) / 10, d.runtime_version / 1000, (d.runtime_version % 1000) / 10);
}

void today(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%d", &tm);
}

/* ---------------------------------------------------------------------------------------------- reports */
void report_init(report_t *r, const char *title, const char *const *cols, const int *numeric, int ncols)
{
    memset(r, 0, sizeof *r);
    r->title = title;
    r->ncols = ncols < REPORT_MAX_COLS ? ncols : REPORT_MAX_COLS;
    for (int c = 0; c < r->ncols; c++) {
        r->cols[c] = cols[c];
        r->numeric[c] = numeric ? numeric[c] : 0;
    }
}

void report_meta(report_t *r, const char *key, const char *fmt, ...)
{
    if (r->nmeta >= REPORT_MAX_META) return;
    snprintf(r->meta_key[r->nmeta], sizeof r->meta_key[0], "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->meta_val[r->nmeta], sizeof r->meta_val[0], fmt, ap);
    va_end(ap);
    r->nmeta++;
}

int report_row(report_t *r, const char *const *cells)
{
    if (r->nrows == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        char **c = realloc(r->cells, (size_t)cap * r->ncols * sizeof *c);
        if (c == NULL) return -1;
        r->cells = c;
        r->cap = cap;
    }
    for (int c = 0; c < r->ncols; c++) {
        const char *s = cells[c] ? cells[c] : "";
        r->cells[(size_t)r->nrows * r->ncols + c] = strdup(s);
    }
    return r->nrows++;
}

const char *report_cell(const report_t *r, int row, int col)
{
    const char *s = r->cells[(size_t)row * r->ncols + col];
    return s ? s : "";
}

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void csv_cell(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void report_print(const report_t *r, out_format_t fmt, FILE *f)
{
    if (fmt == FMT_JSON) {
        fprintf(f, "{");
        json_string(f, "title");
        fprintf(f, ": ");
        json_string(f, r->title ? r->title : "");
        for (int m = 0; m < r->nmeta; m++) {
            fprintf(f, ", ");
            json_string(f, r->meta_key[m]);
            fprintf(f, ": ");
            json_string(f, r->meta_val[m]);
        }
        fprintf(f, ", \"rows\": [");
        for (int i = 0; i < r->nrows; i++) {
            fprintf(f, "%s\n  {", i ? "," : "");
            for (int c = 0; c < r->ncols; c++) {
                const char *s = report_cell(r, i, c);
                fprintf(f, "%s", c ? ", " : "");
                json_string(f, r->cols[c]);
                fprintf(f, ": ");
                if (r->numeric[c])
                    fputs(*s ? s : "null", f);
                else
                    json_string(f, s);
            }
            fprintf(f, "}");
        }
        fprintf(f, "\n]}\n");
        return;
    }
    if (fmt == FMT_CSV) { /* plain CSV: one header row; the report's metadata (device, date ...) as trailing columns */
        for (int c = 0; c < r->ncols; c++) {
            if (c) fputc(',', f);
            csv_cell(f, r->cols[c]);
        }
        for (int m = 0; m < r->nmeta; m++) {
            fputc(',', f);
            csv_cell(f, r->meta_key[m]);
        }
        fputc('\n', f);
        for (int i = 0; i < r->nrows; i++) {
            for (int c = 0; c < r->ncols; c++) {
                if (c) fputc(',', f);
                csv_cell(f, report_cell(r, i, c));
            }
            for (int m = 0; m < r->nmeta; m++) {
                fputc(',', f);
                csv_cell(f, r->meta_val[m]);
            }
            fputc('\n', f);
        }
        return;
    }
    size_t w[REPORT_MAX_COLS];
    for (int c = 0; c < r->ncols; c++) {
        w[c] = strlen(r->cols[c]);
        for (int i = 0; i < r->nrows; i++) {
            size_t l = strlen(report_cell(r, i, c));
            if (l > w[c]) w[c] = l;
        }
    }
    if (r->title) fprintf(f, "== %s\n", r->title);
    for (int m = 0; m < r->nmeta; m++) fprintf(f, "   %s: %s\n", r->meta_key[m], r->meta_val[m]);
    for (int c = 0; c < r->ncols; c++)
        fprintf(f, "%s%*s", c ? "  " : "", r->numeric[c] ? (int)w[c] : -(int)w[c], r->cols[c]);
    fputc('\n', f);
    for (int i = 0; i < r->nrows; i++) {
        char line[2048];
        size_t len = 0;
        for (int c = 0; c < r->ncols && len < sizeof line; c++) {
            const char *s = report_cell(r, i, c);
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%*s", c ? "  " : "",
                                    r->numeric[c] ? (int)w[c] : -(int)w[c], s);
        }
        if (len >= sizeof line) len = sizeof line - 1;
        while (len > 0 && line[len - 1] == ' ') len--; /* no trailing spaces */
        line[len] = 0;
        fprintf(f, "%s\n", line);
    }
}

void report_free(report_t *r)
{
    for (size_t i = 0; i < (size_t)r->nrows * r->ncols; i++) free(r->cells[i]);
    free(r->cells);
    r->cells = NULL;
    r->nrows = r->cap = 0;
}

/* ---------------------------------------------------------------------------------------------- SVG */
static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

FILE *out_open(out_file_t *o, const char *path)
{
    static unsigned serial;
    o->path = path;
    o->f = NULL;
    o->err = 0;
    if (path == NULL || strlen(path) + 32 >= sizeof o->tmp) {
        o->err = path ? ENAMETOOLONG : EINVAL;
        return NULL;
    }
    for (int tries = 0; tries < 100; tries++) {
        snprintf(o->tmp, sizeof o->tmp, "%s.tmp-%ld-%u", path, (long)getpid(), serial++);
        const int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666); /* the umask applies, as for fopen */
        if (fd >= 0) {
            if ((o->f = fdopen(fd, "wb")) == NULL) {
                o->err = errno;
                close(fd);
                unlink(o->tmp);
            }
            return o->f;
        }
        if (errno != EEXIST) break;
    }
    o->err = errno;
    return NULL;
}

int out_close(out_file_t *o, int ok)
{
    if (o->f == NULL) return -1;
    if (ok && (fflush(o->f) != 0 || ferror(o->f))) ok = 0, o->err = errno;
    if (fclose(o->f) != 0 && ok) ok = 0, o->err = errno;
    o->f = NULL;
    if (ok && rename(o->tmp, o->path) != 0) ok = 0, o->err = errno;
    if (!ok) unlink(o->tmp);
    if (!ok && o->err == 0) o->err = EIO;
    return ok ? 0 : -1;
}

int svg_bar_chart(const char *path, const char *title, const char *unit, const char *const *labels,
                  const double *values, int n, double ref, const char *ref_label)
{
    out_file_t o;
    FILE *f = out_open(&o, path);
    if (f == NULL) {
        fprintf(stderr, "gpuprim: --svg %s: %s\n", path, strerror(o.err));
        return -1;
    }
    int lines = 1;
    for (const char *c = title; *c; c++) lines += *c == '\n';
    const int label_w = 260, bar_w = 520, row_h = 24, top = 34 + 18 * lines, left = 10;
    const int width = left + label_w + bar_w + 90, height = top + n * row_h + 40;
    double vmax = ref > 0 ? ref : 0;
    for (int i = 0; i < n; i++)
        if (values[i] > vmax) vmax = values[i];
    if (vmax <= 0) vmax = 1;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n", width, height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    /* One <text> per title line; the first in bold. */
    const char *line = title;
    for (int l = 0; l < lines; l++) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"%d\"%s>", left, 22 + 18 * l, l ? 12 : 15,
                l ? " fill=\"#333\"" : " font-weight=\"bold\"");
        xml_text(f, buf);
        fprintf(f, "</text>\n");
        line = end ? end + 1 : line + len;
    }
    const int x0 = left + label_w;
    for (int i = 0; i < n; i++) {
        int y = top + i * row_h;
        double v = values[i] > 0 ? values[i] : 0;
        int w = (int)(v / vmax * bar_w + 0.5);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", x0 - 6, y + 15);
        xml_text(f, labels[i]);
        fprintf(f, "</text>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#3b7dd8\"/>\n", x0, y + 3, w,
                row_h - 6);
        fprintf(f, "<text x=\"%d\" y=\"%d\">%.1f</text>\n", x0 + w + 4, y + 15, values[i]);
    }
    if (ref > 0) {
        int x = x0 + (int)(ref / vmax * bar_w + 0.5);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#d83b3b\" stroke-dasharray=\"5,4\"/>\n", x,
                top - 6, x, top + n * row_h);
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#d83b3b\" text-anchor=\"end\">", x, top - 10);
        xml_text(f, ref_label ? ref_label : "");
        fprintf(f, " %.0f</text>\n", ref);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">", x0, top + n * row_h + 24);
    xml_text(f, unit);
    fprintf(f, "</text>\n</svg>\n");
    if (out_close(&o, 1) != 0) {
        fprintf(stderr, "gpuprim: --svg %s: %s\n", path, strerror(o.err));
        return -1;
    }
    return 0;
}

/* A round step (1, 2 or 5 times a power of ten) that cuts [0, top] into about five ticks. */
static double nice_step(double top)
{
    const double raw = top / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

int svg_histogram(const char *path, const char *title, double lo, double hi, const uint64_t *counts, size_t nbins)
{
    const size_t cols = nbins < 240 ? nbins : 240, per = (nbins + cols - 1) / cols, ncol = (nbins + per - 1) / per;
    uint64_t *sum = calloc(ncol ? ncol : 1, sizeof *sum), top = 0;
    if (sum == NULL) {
        fprintf(stderr, "gpuprim: --svg %s: out of memory\n", path);
        return -1;
    }
    for (size_t b = 0; b < nbins; b++) sum[b / per] += counts[b];
    for (size_t k = 0; k < ncol; k++)
        if (sum[k] > top) top = sum[k];
    out_file_t o;
    FILE *f = out_open(&o, path);
    if (f == NULL) {
        fprintf(stderr, "gpuprim: --svg %s: %s\n", path, strerror(o.err));
        free(sum);
        return -1;
    }
    int lines = 1;
    for (const char *c = title; *c; c++) lines += *c == '\n';
    const int left = 80, plot_w = 720, plot_h = 300, top_y = 30 + 18 * lines, width = left + plot_w + 30;
    const int height = top_y + plot_h + 60;
    const double step = top ? nice_step((double)top) : 1, ymax = top ? ceil((double)top / step) * step : 1;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", width, height);
    const char *line = title;
    for (int l = 0; l < lines; l++) {
        const char *end = strchr(line, '\n');
        const size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
        fprintf(f, "<text x=\"10\" y=\"%d\" font-size=\"%d\"%s>", 22 + 18 * l, l ? 12 : 15,
                l ? " fill=\"#333\"" : " font-weight=\"bold\"");
        xml_text(f, buf);
        fprintf(f, "</text>\n");
        line = end ? end + 1 : line + len;
    }
    const int y0 = top_y + plot_h; /* the x axis */
    for (double t = 0; t <= ymax + step / 2; t += step) {
        const int y = y0 - (int)(t / ymax * plot_h + 0.5);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n", left, y, left + plot_w, y);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f</text>\n", left - 6, y + 4, t);
    }
    const double cw = (double)plot_w / (double)(ncol ? ncol : 1);
    for (size_t k = 0; k < ncol; k++) {
        const double h = (double)sum[k] / ymax * plot_h;
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#3b7dd8\"/>\n",
                left + k * cw + (cw > 3 ? 0.5 : 0), y0 - h, cw > 3 ? cw - 1 : cw, h);
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", left, y0, left + plot_w, y0);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", left, top_y, left, y0);
    for (int q = 0; q <= 4; q++) {
        const int x = left + plot_w * q / 4;
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.6g</text>\n", x, y0 + 18,
                lo + (hi - lo) * q / 4.0);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">value (%zu bins%s)</text>\n",
            left + plot_w / 2, y0 + 40, nbins, per > 1 ? ", adjacent bins summed per column" : "");
    fprintf(f, "<text x=\"14\" y=\"%d\" fill=\"#555\" transform=\"rotate(-90 14 %d)\">count</text>\n</svg>\n",
            top_y + plot_h / 2, top_y + plot_h / 2);
    free(sum);
    if (out_close(&o, 1) != 0) {
        fprintf(stderr, "gpuprim: --svg %s: %s\n", path, strerror(o.err));
        return -1;
    }
    return 0;
}

double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int open_context_verb(const char *verb, int device, gp_ctx_t **ctx)
{
    char why[700];
    const gp_status_t st = open_context(device, ctx, why, sizeof why);
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim %s: %s: %s\n", verb, gp_status_string(st), gp_last_error());
        return st == GP_ERR_NO_DRIVER ? EXIT_NO_DRIVER : st == GP_ERR_NO_DEVICE ? EXIT_NO_GPU : EXIT_FAIL;
    }
    if (why[0]) {
        char who[64];
        snprintf(who, sizeof who, "gpuprim %s", verb);
        note_cpu(who, why, "using the CPU backend");
    }
    return EXIT_OK;
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

