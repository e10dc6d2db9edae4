/* report.c — reports as a table, JSON or CSV, and one-record results, through one writer (support.h). */
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
    int at = 0; /* a key given again replaces its value */
    while (at < r->nmeta && strcmp(r->meta_key[at], key) != 0) at++;
    if (at >= REPORT_MAX_META) return;
    snprintf(r->meta_key[at], sizeof r->meta_key[0], "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->meta_val[at], sizeof r->meta_val[0], fmt, ap);
    va_end(ap);
    if (at == r->nmeta) r->nmeta++;
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

