/* util.c — CLI helpers: sizes, devices, reports in three formats, SVG bar charts. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int parse_size(const char *s, size_t *out)
{
    if (s == NULL || *s == 0) return -1;
    if (s[0] == '2' && s[1] == '^') {
        char *end = NULL;
        long e = strtol(s + 2, &end, 10);
        if (*end != 0 || e < 0 || e > 62) return -1;
        *out = (size_t)1 << e;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0) return -1;
    double mul = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mul = 1024.0; break;
        case 'M': mul = 1024.0 * 1024; break;
        case 'G': mul = 1024.0 * 1024 * 1024; break;
        default: return -1;
        }
        end++;
        if (*end == 'i' || *end == 'B') end++;
        if (*end == 'B') end++;
        if (*end) return -1;
    }
    v *= mul;
    if (v > 9.0e18) return -1;
    *out = (size_t)v;
    return 0;
}

int parse_device(const char *s, int *device)
{
    if (s == NULL) return -1;
    if (strcmp(s, "cpu") == 0) {
        *device = GP_DEVICE_CPU;
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
    if (strcmp(a, "--json") == 0) return c->fmt = FMT_JSON, 1;
    if (strcmp(a, "--csv") == 0) return c->fmt = FMT_CSV, 1;
    if (strcmp(a, "--device") == 0 || strcmp(a, "-d") == 0) {
        if (parse_device(val, &c->device) != 0) {
            fprintf(stderr, "gpuprim: %s needs 'cpu' or a device number, got '%s'\n", a, val ? val : "");
            return -1;
        }
        ++*i;
        return 1;
    }
    if (strcmp(a, "--svg") == 0) {
        if (val == NULL) {
            fprintf(stderr, "gpuprim: --svg needs a file name\n");
            return -1;
        }
        c->svg = val;
        ++*i;
        return 1;
    }
    if (strcmp(a, "--reps") == 0 || strcmp(a, "--warmup") == 0) {
        char *end = NULL;
        long v = val ? strtol(val, &end, 10) : -1;
        if (val == NULL || *end != 0 || v < (a[2] == 'r' ? 1 : 0) || v > 100000) {
            fprintf(stderr, "gpuprim: %s needs a count, got '%s'\n", a, val ? val : "");
            return -1;
        }
        if (a[2] == 'r')
            c->reps = (int)v;
        else
            c->warmup = (int)v;
        ++*i;
        return 1;
    }
    return 0;
}

gp_status_t open_context(int device, gp_ctx_t **ctx, char *why_cpu, size_t why_len)
{
    if (why_cpu && why_len) why_cpu[0] = 0;
    if (device != DEVICE_AUTO) return gp_ctx_create(ctx, device);
    int n = 0;
    gp_status_t st = gp_device_count(&n);
    if (st == GP_OK && n > 0) {
        st = gp_ctx_create(ctx, 0);
        if (st == GP_OK) return st;
    }
    if (why_cpu) snprintf(why_cpu, why_len, "%s: %s", gp_status_string(st), gp_last_error());
    return gp_ctx_create(ctx, GP_DEVICE_CPU);
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
    if (strpbrk(s, ",\"\n") == NULL) {
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
    if (fmt == FMT_CSV) {
        for (int m = 0; m < r->nmeta; m++) fprintf(f, "# %s: %s\n", r->meta_key[m], r->meta_val[m]);
        for (int c = 0; c < r->ncols; c++) {
            if (c) fputc(',', f);
            csv_cell(f, r->cols[c]);
        }
        fputc('\n', f);
        for (int i = 0; i < r->nrows; i++) {
            for (int c = 0; c < r->ncols; c++) {
                if (c) fputc(',', f);
                csv_cell(f, report_cell(r, i, c));
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

int svg_bar_chart(const char *path, const char *title, const char *unit, const char *const *labels,
                  const double *values, int n, double ref, const char *ref_label)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) return -1;
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
    return fclose(f) == 0 ? 0 : -1;
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
    if (why[0]) fprintf(stderr, "gpuprim %s: no GPU (%s); using the CPU backend\n", verb, why);
    return EXIT_OK;
}

void progress_bar(void *user, size_t done, size_t total)
{
    progress_bar_t *b = user;
    if (!isatty(2)) return;
    const double el = now_seconds() - b->t0;
    if (el < 1.0) return; /* only work that takes over a second shows a bar */
    if (total) {
        int w = 40, k = (int)((double)done / (double)total * w);
        fprintf(stderr, "\r[%.*s%*s] %5.1f%%  %.0f MB/s", k, "########################################", w - k, "",
                100.0 * (double)done / (double)total, (double)done / el / 1e6);
    } else {
        fprintf(stderr, "\r%.1f MB  %.0f MB/s", (double)done / 1e6, (double)done / el / 1e6);
    }
    b->shown = 1;
}
