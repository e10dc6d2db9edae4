/*
 * fuzz_options.c — libFuzzer target: the CLI's numeric and name parsers (parse_size, parse_number, parse_pair,
 * parse_device, gp_dtype_parse, gp_pred_parse) on any NUL-terminated text. An accepted size must print back to a value
 * that parses to itself; an accepted number must be finite; an accepted predicate has a valid kind and no flags.
 */
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char s[256];
    if (size >= sizeof s) size = sizeof s - 1;
    memcpy(s, data, size);
    s[size] = 0;
    size_t v = 0, a = 0, b = 0;
    if (parse_size(s, &v) == 0) {
        char back[32];
        size_t w = 1;
        snprintf(back, sizeof back, "%zu", v);
        if (parse_size(back, &w) != 0 || w != v) abort();
    }
    double x = 0;
    if (parse_number(s, &x) == 0 && !isfinite(x)) abort();
    (void)parse_pair(s, &a, &b);
    int dev = 0;
    if (parse_device(s, &dev) == 0 && dev < GP_DEVICE_CPU) abort();
    gp_dtype_t dt;
    if (gp_dtype_parse(s, &dt) == GP_OK && gp_dtype_size(dt) == 0) abort();
    gp_pred_t p;
    if (gp_pred_parse(s, &p) == GP_OK && ((unsigned)p.kind >= GP_PRED_FLAGS || p.flags != NULL)) abort();
    return 0;
}
