/* parse.c — values of command-line options (lab/lab.h): sizes, numbers, pairs. Used by the CLI's option parser and
 * by the lab topics for their own options; fuzzed through tests/fuzz/fuzz_options.c. */
#include "lab.h"

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
