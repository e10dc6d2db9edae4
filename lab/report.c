/* report.c — the lab's and the CLI's output (lab/lab.h): reports as a table, JSON or CSV; one-record results; files
 * written whole or not at all; SVG bar, column and line charts. */
#define _POSIX_C_SOURCE 200809L
#include "lab.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

void report_print(const report_t *r, out_format_t fmt, FILE *f) { report_print_with(r, NULL, NULL, fmt, f); }

/* Row i's fields as JSON "col": value pairs (numeric columns unquoted, an empty numeric cell null). */
static void json_row_fields(FILE *f, const report_t *r, int i)
{
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
}

void report_print_with(const report_t *r, const report_t *extra, const char *extra_key, out_format_t fmt, FILE *f)
{
    if (r->flat && fmt == FMT_JSON) { /* one result: its row as one object on one line */
        for (int i = 0; i < r->nrows; i++) {
            fputc('{', f);
            json_row_fields(f, r, i);
            fputs("}\n", f);
        }
        return;
    }
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
            json_row_fields(f, r, i);
            fprintf(f, "}");
        }
        fprintf(f, "\n]");
        if (extra && extra->nrows) {
            fprintf(f, ", ");
            json_string(f, extra_key);
            fprintf(f, ": [");
            for (int i = 0; i < extra->nrows; i++) {
                fprintf(f, "%s\n  {", i ? "," : "");
                for (int c = 0; c < extra->ncols; c++) {
                    fprintf(f, "%s", c ? ", " : "");
                    json_string(f, extra->cols[c]);
                    fprintf(f, ": ");
                    json_string(f, report_cell(extra, i, c));
                }
                fprintf(f, "}");
            }
            fprintf(f, "\n]");
        }
        fprintf(f, "}\n");
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
        if (extra && extra->nrows) { /* a second table after one empty line */
            fputc('\n', f);
            report_print(extra, fmt, f);
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
    /* the second table as a list: its rows are sentences */
    for (int i = 0; extra && i < extra->nrows; i++) {
        if (i == 0) fprintf(f, "\n== %s\n", extra->title ? extra->title : extra_key);
        for (int c = 0; c < extra->ncols; c++)
            fprintf(f, c ? "   %s: %s\n" : "%s: %s\n", extra->cols[c], report_cell(extra, i, c));
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

/* ---------------------------------------------------------------------------------------------- records */
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

void rec_print(const record_t *r, out_format_t fmt, FILE *f)
{
    /* one writer: the record is a one-row report printed flat */
    const char *cols[RECORD_MAX], *cells[RECORD_MAX];
    int numeric[RECORD_MAX];
    static char plain[RECORD_MAX][sizeof r->val[0]];
    for (int k = 0; k < r->n; k++) {
        cols[k] = r->key[k], cells[k] = r->val[k], numeric[k] = r->raw[k];
        if (fmt == FMT_CSV && r->raw[k]) { /* a JSON value in CSV: its strings ("nan", "inf") without quotes */
            size_t o = 0;
            for (const char *c = r->val[k]; *c && o + 1 < sizeof plain[k]; c++)
                if (*c != '"') plain[k][o++] = *c;
            plain[k][o] = 0;
            cells[k] = plain[k];
        }
    }
    report_t rep;
    report_init(&rep, NULL, cols, numeric, r->n);
    rep.flat = 1;
    report_row(&rep, cells);
    report_print(&rep, fmt == FMT_CSV ? FMT_CSV : FMT_JSON, f);
    report_free(&rep);
}

/* ---------------------------------------------------------------------------------------------- report lines */
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

void report_meta_device(report_t *r, gp_ctx_t *ctx)
{
    char desc[512], date[16];
    describe_device(ctx, desc, sizeof desc);
    today(date, sizeof date);
    report_meta(r, "device", "%s", desc);
    report_meta(r, "date", "%s", date);
}

/* ---------------------------------------------------------------------------------------------- line charts */
static double chart_x(const lab_chart_t *c, double x) { return c->logx ? log2(x > 0 ? x : 1e-300) : x; }

int svg_line_charts(const char *path, const char *title, const lab_chart_t *charts, int n)
{
    static const char *const colour[] = {"#3b7dd8", "#d83b3b", "#2a9d4a", "#e08a1e", "#8a4fd0", "#555555"};
    out_file_t o;
    FILE *f = out_open(&o, path);
    if (f == NULL) {
        fprintf(stderr, "gpuprim: --svg %s: %s\n", path, strerror(o.err));
        return -1;
    }
    const int left = 80, plot_w = 640, plot_h = 220, legend_w = 200, panel_h = plot_h + 90, top = 40;
    const int width = left + plot_w + legend_w + 20, height = top + (n > 0 ? n : 1) * panel_h;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", width, height);
    fprintf(f, "<text x=\"10\" y=\"24\" font-size=\"15\" font-weight=\"bold\">");
    xml_text(f, title);
    fprintf(f, "</text>\n");
    for (int k = 0; k < n; k++) {
        const lab_chart_t *c = &charts[k];
        const int y_top = top + k * panel_h + 26, y0 = y_top + plot_h;
        double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
        for (int s = 0; s < c->nseries; s++)
            for (int p = 0; p < c->npoints[s]; p++) {
                const double x = chart_x(c, c->x[s][p]);
                if (x < xmin) xmin = x;
                if (x > xmax) xmax = x;
                if (c->y[s][p] > ymax) ymax = c->y[s][p];
            }
        if (!(xmin < xmax)) xmin -= 1, xmax += 1;
        if (!isfinite(xmin)) xmin = 0, xmax = 1;
        const double step = ymax > 0 ? nice_step(ymax) : 1, ytop = ymax > 0 ? ceil(ymax / step) * step : 1;
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">", left, y_top - 10);
        xml_text(f, c->title);
        fprintf(f, "</text>\n");
        for (double t = 0; t <= ytop + step / 2; t += step) {
            const int y = y0 - (int)(t / ytop * plot_h + 0.5);
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n", left, y, left + plot_w, y);
            fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.4g</text>\n", left - 6, y + 4, t);
        }
        /* x ticks: the points of the first series (at most ~12 labels) */
        if (c->nseries > 0) {
            const int np = c->npoints[0], every = np > 12 ? (np + 11) / 12 : 1;
            for (int p = 0; p < np; p += every) {
                const double x = left + (chart_x(c, c->x[0][p]) - xmin) / (xmax - xmin) * plot_w;
                const double v = c->x[0][p];
                char lab[32];
                if (c->logx && v >= 1024 * 1024) snprintf(lab, sizeof lab, "%.4gM", v / (1024.0 * 1024));
                else if (c->logx && v >= 1024) snprintf(lab, sizeof lab, "%.4gK", v / 1024.0);
                else snprintf(lab, sizeof lab, "%.4g", v);
                fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, y0 + 16, lab);
            }
        }
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", left, y0, left + plot_w, y0);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", left, y_top, left, y0);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">", left + plot_w / 2, y0 + 34);
        xml_text(f, c->xlabel);
        fprintf(f, "%s</text>\n", c->logx ? " (log scale)" : "");
        fprintf(f, "<text x=\"14\" y=\"%d\" fill=\"#555\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">",
                y_top + plot_h / 2, y_top + plot_h / 2);
        xml_text(f, c->ylabel);
        fprintf(f, "</text>\n");
        for (int s = 0; s < c->nseries; s++) {
            const char *col = colour[s % 6];
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
            for (int p = 0; p < c->npoints[s]; p++)
                fprintf(f, "%s%.1f,%.1f", p ? " " : "",
                        left + (chart_x(c, c->x[s][p]) - xmin) / (xmax - xmin) * plot_w,
                        y0 - (c->y[s][p] > 0 ? c->y[s][p] : 0) / ytop * plot_h);
            fprintf(f, "\"/>\n");
            for (int p = 0; p < c->npoints[s]; p++)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                        left + (chart_x(c, c->x[s][p]) - xmin) / (xmax - xmin) * plot_w,
                        y0 - (c->y[s][p] > 0 ? c->y[s][p] : 0) / ytop * plot_h, col);
            const int ly = y_top + 14 + 18 * s;
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n",
                    left + plot_w + 16, ly - 4, left + plot_w + 36, ly - 4, col);
            fprintf(f, "<text x=\"%d\" y=\"%d\">", left + plot_w + 42, ly);
            xml_text(f, c->series[s]);
            fprintf(f, "</text>\n");
        }
    }
    fprintf(f, "</svg>\n");
    if (out_close(&o, 1) != 0) {
        fprintf(stderr, "gpuprim: --svg %s: %s\n", path, strerror(o.err));
        return -1;
    }
    return 0;
}
