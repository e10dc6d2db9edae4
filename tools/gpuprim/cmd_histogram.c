/*
 * cmd_histogram.c — `gpuprim histogram FILE|- --bins N (--range LO,HI | --edges E0,E1,... | --direct) [--dtype T]
 * [--offset B] [--count N] [-d cpu|ID] [--json|--csv] [--svg FILE]`: the histogram of a .npy / raw file or standard
 * input, streamed in chunks through gp_array_stream (any size; a progress bar on a terminal after a second), each
 * chunk's counts added on the device into one set of 64-bit counts (gp_histogram_accumulate), copied back once.
 * Prints a bar chart for up to 64 bins, else a summary; --json: bins, lo, hi, counts, below, above, nan, elements,
 * seconds, gbps, device; --csv: one row per bin; --svg: a chart (up to 256 bins).
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct hjob {
    gp_ctx_t *ctx;
    gp_dtype_t dtype;
    int mode; /* 0 even, 1 range, 2 direct */
    size_t nbins;
    double lo, hi;
    const double *edges;
    void *dcounts;   /* nbins + 3 u64: device memory on a GPU, host on the CPU backend */
    uint64_t *total; /* host copy at the end */
    size_t elements;
} hjob_t;

/* One chunk: its counts added on the context into dcounts (no copy, no wait: the chunks' kernels queue up). */
static gp_status_t count_chunk(void *user, const void *x, size_t n, size_t first, gp_stream_t s)
{
    hjob_t *j = user;
    (void)first;
    const gp_hist_bins_t bins = {(gp_hist_mode_t)j->mode, j->nbins, j->lo, j->hi, j->edges};
    gp_status_t st = gp_histogram_accumulate(j->ctx, j->dtype, n, x, &bins, GP_U64, j->dcounts, s);
    if (st == GP_OK) j->elements += n;
    return st;
}

/* "a,b,c" into a malloc'd array; returns the count or 0 on a bad list. */
static size_t parse_list(const char *s, double **out)
{
    size_t cap = 16, k = 0;
    double *v = malloc(cap * sizeof *v);
    const char *p = s;
    while (v && *p) {
        char *end;
        const double d = strtod(p, &end);
        if (end == p) break;
        if (k == cap) {
            double *nv = realloc(v, (cap *= 2) * sizeof *v);
            if (!nv) break;
            v = nv;
        }
        v[k++] = d;
        p = end;
        if (*p == ',') p++;
        else if (*p) break;
    }
    if (!v || *p) {
        free(v);
        return 0;
    }
    *out = v;
    return k;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuprim histogram FILE|- --bins N (--range LO,HI | --edges E0,E1,... | --direct) [--dtype T]\n"
               "                         [--offset B] [--count N] [-d cpu|ID] [--json|--csv] [--svg FILE]\n"
               "  even bins over [LO, HI), explicit increasing edges, or bin = value (integer input); values below,\n"
               "  above and NaN are counted apart. Input: .npy (dtype from its header), raw (--dtype) or '-'.\n");
}

int cmd_histogram(int argc, char **argv)
{
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 1, 0};
    const char *path = NULL;
    size_t nbins = 0, offset = 0, count = GP_COUNT_ALL;
    int have_dtype = 0, have_offset = 0, mode = -1;
    gp_dtype_t dtype = GP_F32;
    double lo = 0, hi = 0, *edges = NULL;
    size_t nedges = 0;
    for (int i = 1; i < argc; i++) {
        int k = parse_common(argc, argv, &i, &c);
        if (k < 0) return EXIT_USAGE;
        if (k > 0) continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            free(edges);
            return EXIT_OK;
        } else if (strcmp(a, "--bins") == 0 && v) {
            if (parse_size(v, &nbins) != 0 || nbins == 0) {
                fprintf(stderr, "gpuprim histogram: --bins: bad count '%s'\n", v);
                free(edges);
                return EXIT_USAGE;
            }
            i++;
        } else if ((strcmp(a, "--range") == 0 || strcmp(a, "--edges") == 0) && v) {
            double *list = NULL;
            const size_t m = parse_list(v, &list);
            if (a[2] == 'r' && m != 2) {
                fprintf(stderr, "gpuprim histogram: --range: expected LO,HI, got '%s'\n", v);
                free(list), free(edges);
                return EXIT_USAGE;
            }
            if (a[2] == 'e' && m < 2) {
                fprintf(stderr, "gpuprim histogram: --edges: expected at least two numbers, got '%s'\n", v);
                free(list), free(edges);
                return EXIT_USAGE;
            }
            if (a[2] == 'r') lo = list[0], hi = list[1], mode = 0, free(list);
            else free(edges), edges = list, nedges = m, mode = 1;
            i++;
        } else if (strcmp(a, "--direct") == 0) {
            mode = 2;
        } else if (strcmp(a, "--dtype") == 0 && v) {
            if (gp_dtype_parse(v, &dtype) != GP_OK) {
                fprintf(stderr, "gpuprim histogram: --dtype: %s\n", gp_last_error());
                free(edges);
                return EXIT_USAGE;
            }
            have_dtype = 1, i++;
        } else if ((strcmp(a, "--offset") == 0 || strcmp(a, "--count") == 0) && v) {
            if (parse_size(v, a[2] == 'o' ? &offset : &count) != 0) {
                fprintf(stderr, "gpuprim histogram: %s: bad number '%s'\n", a, v);
                free(edges);
                return EXIT_USAGE;
            }
            if (a[2] == 'o') have_offset = 1;
            i++;
        } else if ((a[0] != '-' || strcmp(a, "-") == 0) && !path) {
            path = a;
        } else {
            fprintf(stderr, "gpuprim histogram: unknown argument '%s'\n", a);
            usage(stderr);
            free(edges);
            return EXIT_USAGE;
        }
    }
    if (mode == 1) {
        if (nbins && nbins != nedges - 1) {
            fprintf(stderr, "gpuprim histogram: --bins %zu, but --edges gives %zu bins\n", nbins, nedges - 1);
            free(edges);
            return EXIT_USAGE;
        }
        nbins = nedges - 1;
    }
    if (!path || nbins == 0 || mode < 0) {
        fprintf(stderr, "gpuprim histogram: %s\n", !path ? "no input (FILE or -)" : nbins == 0 ? "--bins is required"
                                                                                   : "--range, --edges or --direct is required");
        usage(stderr);
        free(edges);
        return EXIT_USAGE;
    }
    const double t0 = now_seconds();
    input_t in;
    int rc = input_open(&in, "histogram", path, have_dtype, dtype, have_offset, offset, count);
    if (rc != EXIT_OK) {
        free(edges);
        return rc;
    }
    gp_ctx_t *ctx = NULL;
    gp_buffer_t dc = {0};
    const size_t slots = nbins + 3;
    hjob_t j = {NULL, in.d.dtype, mode, nbins, lo, hi, edges, NULL, calloc(slots, 8), 0};
    gp_status_t st = GP_OK;
    if ((rc = open_context_verb("histogram", c.device, &ctx)) != EXIT_OK) goto out;
    j.ctx = ctx;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    if (!j.total || gp_mem_alloc(ctx, gpu ? GP_MEM_DEVICE : GP_MEM_PAGEABLE, slots * 8, &dc) != GP_OK ||
        gp_memset(ctx, gpu ? dc.device : dc.host, 0, slots * 8, NULL) != GP_OK || gp_stream_sync(ctx, NULL) != GP_OK) {
        fprintf(stderr, "gpuprim histogram: %zu counters: out of memory\n", slots);
        rc = EXIT_FAIL;
        goto out;
    }
    j.dcounts = gpu ? dc.device : dc.host;
    progress_bar_t bar = {t0, 0};
    gp_stream_opts_t so;
    memset(&so, 0, sizeof so);
    so.progress = progress_bar;
    so.progress_user = &bar;
    st = gp_array_stream(ctx, in.f, &in.d, in.want, 1, &so, count_chunk, &j);
    if (bar.shown) fputc('\n', stderr);
    if (st == GP_OK && j.elements == 0) /* no data: still validate the bins (and report zeros) */
        st = count_chunk(&j, NULL, 0, 0, NULL);
    if (st == GP_OK) st = gp_memcpy_sync(ctx, j.total, j.dcounts, slots * 8); /* waits for every chunk */
    if (st != GP_OK) {
        const char *e = gp_last_error(), *p = strstr(e, "byte ");
        fprintf(stderr, "gpuprim histogram: %s: %s\n", path, p && st == GP_ERR_FORMAT ? p : e);
        rc = st == GP_ERR_UNSUPPORTED || st == GP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL;
        goto out;
    }
    {
        const double secs = now_seconds() - t0, bytes = (double)j.elements * (double)in.d.elem_size;
        const double glo = mode == 0 ? lo : mode == 1 ? edges[0] : 0, ghi = mode == 0 ? hi : mode == 1 ? edges[nbins] : (double)nbins;
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
#define EDGE(k) (mode == 1 ? edges[k] : mode == 2 ? (double)(k) : lo + ((hi - lo) * (double)(k)) / (double)nbins)
        if (c.fmt == FMT_JSON) {
            printf("{\"bins\": %zu, \"lo\": %.17g, \"hi\": %.17g, \"counts\": [", nbins, glo, ghi);
            for (size_t b = 0; b < nbins; b++) printf(b ? ", %llu" : "%llu", (unsigned long long)j.total[b]);
            printf("], \"below\": %llu, \"above\": %llu, \"nan\": %llu, \"elements\": %zu, \"dtype\": \"%s\", "
                   "\"seconds\": %.6f, \"gbps\": %.3f, \"device\": ",
                   (unsigned long long)j.total[nbins], (unsigned long long)j.total[nbins + 1],
                   (unsigned long long)j.total[nbins + 2], j.elements, gp_dtype_name(in.d.dtype), secs,
                   secs > 0 ? bytes / secs / 1e9 : 0.0);
            json_string(stdout, desc);
            printf("}\n");
        } else if (c.fmt == FMT_CSV) {
            printf("bin,lo,hi,count\n");
            for (size_t b = 0; b < nbins; b++)
                printf("%zu,%.17g,%.17g,%llu\n", b, EDGE(b), EDGE(b + 1), (unsigned long long)j.total[b]);
            printf("below,,%.17g,%llu\nabove,%.17g,,%llu\nnan,,,%llu\n", glo, (unsigned long long)j.total[nbins], ghi,
                   (unsigned long long)j.total[nbins + 1], (unsigned long long)j.total[nbins + 2]);
        } else {
            uint64_t top = 0;
            size_t at = 0;
            for (size_t b = 0; b < nbins; b++)
                if (j.total[b] > top) top = j.total[b], at = b;
            printf("histogram of %zu %s elements, %zu bins over [%g, %g)  (%.3f s, %.2f GB/s; %s)\n", j.elements,
                   gp_dtype_name(in.d.dtype), nbins, glo, ghi, secs, secs > 0 ? bytes / secs / 1e9 : 0.0, desc);
            if (nbins <= 64) {
                for (size_t b = 0; b < nbins; b++) {
                    const int w = top ? (int)(50.0 * (double)j.total[b] / (double)top + 0.5) : 0;
                    printf("[%12.6g, %12.6g) %12llu %.*s\n", EDGE(b), EDGE(b + 1), (unsigned long long)j.total[b], w,
                           "##################################################");
                }
            } else {
                printf("fullest bin %zu [%g, %g): %llu\n", at, EDGE(at), EDGE(at + 1), (unsigned long long)top);
            }
            printf("below %llu, above %llu, NaN %llu\n", (unsigned long long)j.total[nbins],
                   (unsigned long long)j.total[nbins + 1], (unsigned long long)j.total[nbins + 2]);
        }
        if (c.svg) {
            if (nbins > 256) {
                fprintf(stderr, "gpuprim histogram: --svg draws up to 256 bins (%zu here)\n", nbins);
                rc = EXIT_USAGE;
            } else {
                char(*lab)[48] = malloc(nbins * sizeof *lab);
                const char **labels = malloc(nbins * sizeof *labels);
                double *vals = malloc(nbins * sizeof *vals);
                if (lab && labels && vals) {
                    for (size_t b = 0; b < nbins; b++) {
                        snprintf(lab[b], sizeof lab[b], "[%.4g, %.4g)", EDGE(b), EDGE(b + 1));
                        labels[b] = lab[b];
                        vals[b] = (double)j.total[b];
                    }
                    char title[700];
                    snprintf(title, sizeof title, "gpuprim histogram %s\n%zu %s elements; %s", path, j.elements,
                             gp_dtype_name(in.d.dtype), desc);
                    if (svg_bar_chart(c.svg, title, "count", labels, vals, (int)nbins, 0, NULL) != 0) rc = EXIT_FAIL;
                }
                free(lab), free(labels), free(vals);
            }
        }
#undef EDGE
    }
out:
    gp_mem_free(ctx, &dc);
    gp_ctx_destroy(ctx);
    input_close(&in);
    free(j.total), free(edges);
    return rc;
}
