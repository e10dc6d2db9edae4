/* svg.c — SVG bar, column and line charts, written whole or not at all (support.h). */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* ---------------------------------------------------------------------------------------------- line charts */
static double chart_x(const line_chart_t *c, double x) { return c->logx ? log2(x > 0 ? x : 1e-300) : x; }

int svg_line_charts(const char *path, const char *title, const line_chart_t *charts, int n)
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
        const line_chart_t *c = &charts[k];
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

