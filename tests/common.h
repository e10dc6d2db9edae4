/*
 * common.h — what the test programs share: checks that count, random data, poison, tolerant comparison, GPU skip.
 * Each test program ends with tc_finish(), which prints "N passed, M failed" and returns the exit code.
 * GPU programs call tc_require_gpu() first: with no GPU it prints the reason and exits 77 (ctest: skipped).
 */
#ifndef GP_TESTS_COMMON_H
#define GP_TESTS_COMMON_H

#include "gpuprim.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long tc_pass, tc_fail;

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (cond) {                                                                                          \
            tc_pass++;                                                                                       \
        } else {                                                                                             \
            tc_fail++;                                                                                       \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                  \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fprintf(stderr, " [last error: %s]\n", gp_last_error());                                          \
        }                                                                                                    \
    } while (0)

/* Status check: expected status, and on mismatch the detail string. */
#define CHECK_ST(expr, want)                                                                                 \
    do {                                                                                                     \
        gp_status_t st_ = (expr);                                                                            \
        CHECK(st_ == (want), "%s returned %s (%d), wanted %s", #expr, gp_status_string(st_), (int)st_,       \
              gp_status_string(want));                                                                       \
    } while (0)
#define OK(expr) CHECK_ST(expr, GP_OK)

/* A fatal precondition: report and stop. */
#define REQUIRE(cond, ...)                                                                                   \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "FATAL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                 \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fprintf(stderr, " [last error: %s]\n", gp_last_error());                                          \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

static inline int tc_finish(const char *name)
{
    printf("%s: %ld passed, %ld failed\n", name, tc_pass, tc_fail);
    return tc_fail ? 1 : 0;
}

static inline void tc_require_gpu(const char *name)
{
    int n = 0;
    gp_status_t st = gp_device_count(&n);
    if (st != GP_OK || n == 0) {
        printf("%s: SKIPPED: no GPU (%s: %s)\n", name, gp_status_string(st), gp_last_error());
        exit(77);
    }
}

/* Fresh random data every run unless GP_TEST_SEED is set; the seed is printed so a failure can be replayed. */
static uint64_t tc_state;
static inline void tc_seed(const char *name)
{
    const char *s = getenv("GP_TEST_SEED");
    if (s)
        tc_state = strtoull(s, NULL, 0);
    else {
        FILE *f = fopen("/dev/urandom", "rb");
        if (!f || fread(&tc_state, sizeof tc_state, 1, f) != 1) tc_state = 0x1234567887654321ull;
        if (f) fclose(f);
    }
    if (tc_state == 0) tc_state = 1;
    printf("%s: seed GP_TEST_SEED=0x%016llx\n", name, (unsigned long long)tc_state);
}
static inline uint64_t tc_next(void)
{
    tc_state ^= tc_state << 13;
    tc_state ^= tc_state >> 7;
    tc_state ^= tc_state << 17;
    return tc_state;
}
/* floats uniform in [-1, 1) (never all zero), ints uniform over the full int32 range (wrapping is exercised). */
static inline void tc_fill(void *p, size_t n, gp_dtype_t dt)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = tc_next();
        if (dt == GP_F32)
            ((float *)p)[i] = (float)((double)(r >> 40) * 0x1p-23 - 1.0);
        else if (dt == GP_F64)
            ((double *)p)[i] = (double)(r >> 11) * 0x1p-52 - 1.0;
        else if (dt == GP_I32)
            ((int32_t *)p)[i] = (int32_t)(uint32_t)(r >> 32);
        else
            ((uint8_t *)p)[i] = (uint8_t)(r >> 56);
    }
}

/* Poison: 0xFF bytes are NaN for floats and -1 for ints: never a plausible result of the random inputs. */
static inline void tc_poison(void *p, size_t bytes) { memset(p, 0xff, bytes); }

/* atol + rtol * |ref| for floats (NaN never passes), exact for ints. Prints at most 10 mismatches. */
static inline size_t tc_compare(const char *what, gp_dtype_t dt, const void *got, const void *ref, size_t n,
                                double atol, double rtol)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        int ok;
        double g = 0, r = 0;
        if (dt == GP_I32) {
            ok = ((const int32_t *)got)[i] == ((const int32_t *)ref)[i];
            g = ((const int32_t *)got)[i], r = ((const int32_t *)ref)[i];
        } else {
            g = dt == GP_F32 ? ((const float *)got)[i] : ((const double *)got)[i];
            r = dt == GP_F32 ? ((const float *)ref)[i] : ((const double *)ref)[i];
            ok = fabs(g - r) <= atol + rtol * fabs(r);
        }
        if (!ok && ++bad <= 10) fprintf(stderr, "  %s: [%zu] got %.9g want %.9g\n", what, i, g, r);
    }
    if (bad > 10) fprintf(stderr, "  %s: %zu mismatches in all\n", what, bad);
    return bad;
}

/* A dot result against the reference: exact for i32 (int64 bits), else within 1e-12 * sum |x_i y_i| (both sides
 * accumulate in double or better). x and y are the n inputs on the host. Returns 1 when it matches. */
static inline int tc_dot_matches(const char *what, gp_dtype_t dt, size_t n, const void *x, const void *y,
                                 const void *got, const void *ref)
{
    if (dt == GP_I32) {
        int64_t g, w;
        memcpy(&g, got, 8);
        memcpy(&w, ref, 8);
        if (g != w) fprintf(stderr, "  %s: dot %lld want %lld\n", what, (long long)g, (long long)w);
        return g == w;
    }
    double g, w, mag = 0;
    memcpy(&g, got, 8);
    memcpy(&w, ref, 8);
    for (size_t i = 0; i < n; i++)
        mag += fabs(dt == GP_F32 ? (double)((const float *)x)[i] * ((const float *)y)[i]
                                 : ((const double *)x)[i] * ((const double *)y)[i]);
    int ok = fabs(g - w) <= 1e-300 + 1e-12 * mag;
    if (!ok) fprintf(stderr, "  %s: dot %.17g want %.17g\n", what, g, w);
    return ok;
}

/* The sizes docs/ARCHITECTURE.md asks every primitive to cover. */
static const size_t tc_sizes[] = {0, 1, 31, 32, 33, 1023, 1025, (1u << 20) + 3};
#define TC_NSIZES (sizeof tc_sizes / sizeof tc_sizes[0])

#endif
