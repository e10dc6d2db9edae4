/* values.c — values as the verbs print them (util.h): a reduction's scalar and one element of any dtype, as text or
 * JSON. */
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A scalar of kind acc (GP_F32, GP_F64, GP_I64 or else unsigned) as JSON or text: %.9g / %.17g, nan and inf as
 * strings in JSON. */
void print_scalar(FILE *o, int32_t acc, gp_scalar_t v, int json)
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

/* One value of dtype at p, as JSON or text. */
void print_elem(FILE *o, gp_dtype_t dt, const void *p, int json)
{
    gp_scalar_t v;
    int32_t kind = GP_I64;
    v.u64 = 0;
    switch (dt) {
    case GP_U8: v.u64 = *(const uint8_t *)p, kind = GP_U64; break;
    case GP_U16: v.u64 = *(const uint16_t *)p, kind = GP_U64; break;
    case GP_U32: v.u64 = *(const uint32_t *)p, kind = GP_U64; break;
    case GP_U64: memcpy(&v.u64, p, 8), kind = GP_U64; break;
    case GP_I8: v.i64 = *(const int8_t *)p; break;
    case GP_I16: v.i64 = *(const int16_t *)p; break;
    case GP_I32: v.i64 = *(const int32_t *)p; break;
    case GP_I64: memcpy(&v.i64, p, 8); break;
    case GP_F16: v.f32 = gp_f16_to_f32(*(const uint16_t *)p), kind = GP_F32; break;
    case GP_BF16: v.f32 = gp_bf16_to_f32(*(const uint16_t *)p), kind = GP_F32; break;
    case GP_F32: memcpy(&v.f32, p, 4), kind = GP_F32; break;
    default: memcpy(&v.f64, p, 8), kind = GP_F64; break;
    }
    print_scalar(o, kind, v, json);
}
