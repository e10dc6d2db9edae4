/*
 * cmd_reduce.c — `gpuprim reduce FILE|- --op OP [--dtype T] [--offset BYTES] [--count N] [--device cpu|ID] [--json]`
 * Reduces a .npy file (recognised by its magic; dtype from its header) or raw binary (--dtype required, like
 * np.memmap, after --offset bytes), or standard input, on the GPU (or the CPU backend). The array is read whole into
 * (pinned) host memory in 64 MiB steps, with a progress bar on a terminal, then reduced with gp_reduce: the same bits
 * as any other gp_reduce of those elements. Inputs larger than the memory at hand are refused (streaming is not
 * implemented yet). --json prints one object: op, dtype, elements, value (minmax: [min, max]; non-finite values as
 * the strings "nan", "inf", "-inf"), index (argmin/argmax), acc_dtype, seconds, gbps, device.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STEP ((size_t)64 << 20)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void progress(size_t done, size_t total, double t0, int *shown)
{
    if (!isatty(2) || total == 0) return;
    double el = now_s() - t0;
    if (el < 1.0 && done < total) return; /* only work that takes over a second shows a bar */
    int w = 40, k = (int)((double)done / (double)total * w);
    fprintf(stderr, "\r[%.*s%*s] %5.1f%%  %.0f MB/s", k, "########################################", w - k, "",
            100.0 * (double)done / (double)total, el > 0 ? (double)done / el / 1e6 : 0.0);
    if (done >= total) fputc('\n', stderr);
    *shown = 1;
}

/* Reads count elements of desc from f into buf (host byte order). */
static gp_status_t read_all(FILE *f, const gp_array_desc_t *d, size_t count, void *buf, const char *name)
{
    const size_t per = STEP / d->elem_size;
    double t0 = now_s();
    int shown = 0;
    for (size_t done = 0; done < count;) {
        size_t want = count - done < per ? count - done : per, got = 0;
        gp_status_t st = gp_array_fread(f, d, want, (char *)buf + done * d->elem_size, &got);
        if (st != GP_OK) return st;
        done += got;
        progress(done, count, t0, &shown);
        if (got < want) {
            if (shown) fputc('\n', stderr);
            fprintf(stderr, "gpuprim reduce: %s: byte %zu: the data ends after %zu of %zu elements\n", name,
                    d->data_offset + done * d->elem_size, done, count);
            return GP_ERR_FORMAT;
        }
    }
    return GP_OK;
}

/* Standard input, whole, into a growing buffer. */
static unsigned char *slurp(FILE *f, size_t *len)
{
    size_t cap = (size_t)1 << 20, n = 0;
    unsigned char *b = malloc(cap);
    while (b) {
        if (n == cap) {
            unsigned char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                return NULL;
            }
            b = nb;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    *len = n;
    return b;
}

static void print_scalar(FILE *o, int32_t acc, gp_scalar_t v, int json)
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

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuprim reduce FILE|- --op OP [--dtype T] [--offset BYTES] [--count N] [-d cpu|ID] [--json]\n"
               "  OP: sum prod min max minmax argmin argmax and or xor count_nonzero\n"
               "  FILE: .npy (dtype from the header) or raw binary (--dtype required; --offset skips a header);\n"
               "  '-' reads standard input. The result is deterministic: the same bits on any GPU or the CPU.\n");
}

int cmd_reduce(int argc, char **argv)
{
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 1, 0};
    const char *path = NULL;
    int have_op = 0, have_dtype = 0;
    gp_reduce_op_t op = GP_REDUCE_SUM;
    gp_dtype_t dtype = GP_F32;
    size_t offset = 0, count = GP_COUNT_ALL;
    int have_offset = 0;
    for (int i = 1; i < argc; i++) {
        int k = parse_common(argc, argv, &i, &c);
        if (k < 0) return EXIT_USAGE;
        if (k > 0) continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return EXIT_OK;
        } else if (strcmp(a, "--op") == 0 && v) {
            if (gp_reduce_op_parse(v, &op) != GP_OK) {
                fprintf(stderr, "gpuprim reduce: --op: %s\n", gp_last_error());
                return EXIT_USAGE;
            }
            have_op = 1, i++;
        } else if (strcmp(a, "--dtype") == 0 && v) {
            if (gp_dtype_parse(v, &dtype) != GP_OK) {
                fprintf(stderr, "gpuprim reduce: --dtype: %s\n", gp_last_error());
                return EXIT_USAGE;
            }
            have_dtype = 1, i++;
        } else if ((strcmp(a, "--offset") == 0 || strcmp(a, "--count") == 0) && v) {
            if (parse_size(v, a[2] == 'o' ? &offset : &count) != 0) {
                fprintf(stderr, "gpuprim reduce: %s: bad number '%s'\n", a, v);
                return EXIT_USAGE;
            }
            if (a[2] == 'o') have_offset = 1;
            i++;
        } else if ((a[0] != '-' || strcmp(a, "-") == 0) && !path) {
            path = a;
        } else {
            fprintf(stderr, "gpuprim reduce: unknown argument '%s'\n", a);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (!path || !have_op) {
        fprintf(stderr, "gpuprim reduce: %s\n", !path ? "no input (FILE or -)" : "--op is required");
        usage(stderr);
        return EXIT_USAGE;
    }
    const double t0 = now_s();
    /* Describe the input: .npy by its magic, else raw with --dtype. */
    gp_array_desc_t d;
    unsigned char *stdin_buf = NULL;
    size_t stdin_len = 0;
    FILE *f = NULL;
    int rc = EXIT_OK, npy = 0;
    gp_status_t st = GP_OK;
    if (strcmp(path, "-") == 0) {
        if ((stdin_buf = slurp(stdin, &stdin_len)) == NULL) {
            fprintf(stderr, "gpuprim reduce: out of memory reading standard input\n");
            return EXIT_FAIL;
        }
        npy = stdin_len >= 6 && memcmp(stdin_buf, "\x93NUMPY", 6) == 0;
        if (npy) {
            st = gp_npy_parse_header(stdin_buf, stdin_len, &d);
        } else if (!have_dtype) {
            fprintf(stderr, "gpuprim reduce: raw input needs --dtype\n");
            free(stdin_buf);
            return EXIT_USAGE;
        } else {
            memset(&d, 0, sizeof d);
            d.dtype = dtype, d.elem_size = gp_dtype_size(dtype), d.data_offset = offset, d.ndim = 1;
            if (offset > stdin_len) {
                fprintf(stderr, "gpuprim reduce: -: byte %zu: the input ends before the offset %zu\n", stdin_len,
                        offset);
                free(stdin_buf);
                return EXIT_FAIL;
            }
            d.count = (stdin_len - offset) / d.elem_size;
        }
        if (st == GP_OK && npy && d.data_offset + d.count * d.elem_size > stdin_len) {
            fprintf(stderr, "gpuprim reduce: -: byte %zu: the input ends, but its %zu elements need %zu bytes\n",
                    stdin_len, d.count, d.data_offset + d.count * d.elem_size);
            free(stdin_buf);
            return EXIT_FAIL;
        }
    } else {
        unsigned char magic[6] = {0};
        FILE *probe = fopen(path, "rb");
        if (probe == NULL) {
            fprintf(stderr, "gpuprim reduce: %s: %s\n", path, strerror(errno));
            return EXIT_FAIL;
        }
        npy = fread(magic, 1, 6, probe) == 6 && memcmp(magic, "\x93NUMPY", 6) == 0;
        fclose(probe);
        if (npy) {
            st = gp_npy_inspect(path, &d);
        } else if (!have_dtype) {
            fprintf(stderr, "gpuprim reduce: %s is not a .npy file: raw input needs --dtype\n", path);
            return EXIT_USAGE;
        } else {
            st = gp_raw_inspect(path, dtype, offset, count, &d);
        }
    }
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim reduce: %s\n", gp_last_error());
        free(stdin_buf);
        return EXIT_FAIL;
    }
    if (npy && have_offset) {
        fprintf(stderr, "gpuprim reduce: --offset applies to raw input; a .npy file says where its data starts\n");
        free(stdin_buf);
        return EXIT_USAGE;
    }
    if (npy && have_dtype && dtype != d.dtype) {
        fprintf(stderr, "gpuprim reduce: --dtype %s, but the .npy header says %s\n", gp_dtype_name(dtype),
                gp_dtype_name(d.dtype));
        free(stdin_buf);
        return EXIT_USAGE;
    }
    if (count != GP_COUNT_ALL && count > d.count) {
        fprintf(stderr, "gpuprim reduce: --count %zu, but the input holds %zu elements\n", count, d.count);
        free(stdin_buf);
        return EXIT_USAGE;
    }
    const size_t n = count != GP_COUNT_ALL ? count : d.count, bytes = n * d.elem_size;

    gp_ctx_t *ctx = NULL;
    char why[700];
    if ((st = open_context(c.device, &ctx, why, sizeof why)) != GP_OK) {
        fprintf(stderr, "gpuprim reduce: %s: %s\n", gp_status_string(st), gp_last_error());
        free(stdin_buf);
        return st == GP_ERR_NO_DRIVER ? EXIT_NO_DRIVER : st == GP_ERR_NO_DEVICE ? EXIT_NO_GPU : EXIT_FAIL;
    }
    if (why[0]) fprintf(stderr, "gpuprim reduce: no GPU (%s); using the CPU backend\n", why);
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    gp_buffer_t host = {0}, dev = {0};
    gp_reduce_result_t r;
    if (gpu) {
        gp_device_info_t di;
        if (gp_device_info(gp_ctx_device(ctx), &di) == GP_OK && bytes > di.free_mem_bytes / 10 * 9) {
            fprintf(stderr, "gpuprim reduce: %zu bytes do not fit in the GPU's %zu free bytes, and streaming larger "
                            "inputs is not implemented yet\n", bytes, di.free_mem_bytes);
            rc = EXIT_FAIL;
            goto out;
        }
    }
    /* Host staging: pinned on a GPU (fast H2D), plain on the CPU backend. */
    if (stdin_buf) {
        if (d.big_endian) { /* swap in place through the chunked reader's logic: re-read from memory */
            FILE *m = fmemopen(stdin_buf + d.data_offset, bytes, "rb");
            void *tmp = malloc(bytes ? bytes : 1);
            size_t got = 0;
            if (!m || !tmp || gp_array_fread(m, &d, n, tmp, &got) != GP_OK || got != n) {
                fprintf(stderr, "gpuprim reduce: converting standard input failed\n");
                rc = EXIT_FAIL;
            } else {
                memcpy(stdin_buf + d.data_offset, tmp, bytes);
            }
            if (m) fclose(m);
            free(tmp);
            if (rc != EXIT_OK) goto out;
        }
    } else {
        if ((st = gp_mem_alloc(ctx, gpu ? GP_MEM_PINNED : GP_MEM_PAGEABLE, bytes, &host)) != GP_OK) {
            fprintf(stderr, "gpuprim reduce: %zu bytes of host memory: %s\n", bytes, gp_last_error());
            rc = EXIT_FAIL;
            goto out;
        }
        if ((f = fopen(path, "rb")) == NULL || fseeko(f, (off_t)d.data_offset, SEEK_SET) != 0) {
            fprintf(stderr, "gpuprim reduce: %s: %s\n", path, strerror(errno));
            rc = EXIT_FAIL;
            goto out;
        }
        if (read_all(f, &d, n, host.host, path) != GP_OK) {
            rc = EXIT_FAIL;
            goto out;
        }
    }
    const void *src = stdin_buf ? (const void *)(stdin_buf + d.data_offset) : host.host;
    if (gpu) {
        if ((st = gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &dev)) != GP_OK ||
            (st = gp_memcpy_sync(ctx, dev.device, src, bytes)) != GP_OK ||
            (st = gp_reduce_sync(ctx, op, d.dtype, n, dev.device, &r)) != GP_OK) {
            fprintf(stderr, "gpuprim reduce: %s\n", gp_last_error());
            rc = st == GP_ERR_UNSUPPORTED ? EXIT_USAGE : EXIT_FAIL;
            goto out;
        }
    } else if ((st = gp_reduce_sync(ctx, op, d.dtype, n, src, &r)) != GP_OK) {
        fprintf(stderr, "gpuprim reduce: %s\n", gp_last_error());
        rc = st == GP_ERR_UNSUPPORTED ? EXIT_USAGE : EXIT_FAIL;
        goto out;
    }
    {
        const double secs = now_s() - t0;
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        const int arg = op == GP_REDUCE_ARGMIN || op == GP_REDUCE_ARGMAX;
        if (c.fmt == FMT_JSON) {
            printf("{\"op\": \"%s\", \"dtype\": \"%s\", \"elements\": %zu, \"value\": ", gp_reduce_op_name(op),
                   gp_dtype_name(d.dtype), n);
            if (op == GP_REDUCE_MINMAX) {
                printf("[");
                print_scalar(stdout, r.acc_dtype, r.value, 1);
                printf(", ");
                print_scalar(stdout, r.acc_dtype, r.value2, 1);
                printf("]");
            } else {
                print_scalar(stdout, r.acc_dtype, r.value, 1);
            }
            if (arg) printf(", \"index\": %lld", (long long)r.index);
            printf(", \"acc_dtype\": \"%s\", \"seconds\": %.6f, \"gbps\": %.3f, \"device\": ",
                   gp_dtype_name((gp_dtype_t)r.acc_dtype), secs, secs > 0 ? (double)bytes / secs / 1e9 : 0.0);
            json_string(stdout, desc);
            printf("}\n");
        } else {
            printf("%s of %zu %s elements: ", gp_reduce_op_name(op), n, gp_dtype_name(d.dtype));
            print_scalar(stdout, r.acc_dtype, r.value, 0);
            if (op == GP_REDUCE_MINMAX) {
                printf(" .. ");
                print_scalar(stdout, r.acc_dtype, r.value2, 0);
            }
            if (arg) printf(" at index %lld", (long long)r.index);
            printf("  (%s accumulator; %.3f s, %.2f GB/s end to end; %s)\n", gp_dtype_name((gp_dtype_t)r.acc_dtype),
                   secs, secs > 0 ? (double)bytes / secs / 1e9 : 0.0, desc);
        }
    }
out:
    if (f) fclose(f);
    gp_mem_free(ctx, &host);
    gp_mem_free(ctx, &dev);
    gp_ctx_destroy(ctx);
    free(stdin_buf);
    return rc;
}
