/*
 * half.h — 16-bit floats and TF32 on the host and the device (GP__HD): the one set of routines both backends use, so
 * narrowed outputs and rounded inputs agree bit for bit (the scans' narrow outputs, the tensor-core GEMM's inputs and
 * outputs). Header-only, no CUDA headers needed.
 */
#ifndef GP_CORE_HALF_H
#define GP_CORE_HALF_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define GP__HD __host__ __device__
#else
#define GP__HD
#endif
/* f32 to IEEE half / bfloat16 bits, rounding to nearest even (overflow to inf, subnormals exact, NaN kept a quiet
 * NaN with the top payload bits): the one routine both backends use, so narrowed scan outputs agree bit for bit. */
static inline GP__HD uint16_t gp__f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    const uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520: inf */
    if (ax >= 0x38800000u) {                                    /* normal: 2^-14 and up */
        uint32_t r = ax - 0x38000000u;
        r += 0xfffu + ((r >> 13) & 1u);
        return (uint16_t)(sign | (r >> 13));
    }
    if (ax <= 0x33000000u) return sign; /* <= 2^-25: 0 (2^-25 is a tie, to even) */
    const uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, sh = 126u - e;
    uint32_t q = m >> sh;
    const uint32_t rem = m & ((1u << sh) - 1u), half = 1u << (sh - 1u);
    if (rem > half || (rem == half && (q & 1u))) q++;
    return (uint16_t)(sign | q);
}
static inline GP__HD uint16_t gp__f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

/* IEEE half / bfloat16 bits to f32 (exact). */
static inline GP__HD float gp__f16_bits_to_f32(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu, bits;
    if (ex == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: normalize */
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 0x400u));
            bits = sign | (uint32_t)(112 - e) << 23 | (man & 0x3ffu) << 13;
        }
    } else if (ex == 31) {
        bits = sign | 0x7f800000u | man << 13;
    } else {
        bits = sign | (ex + 112) << 23 | man << 13;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}
static inline GP__HD float gp__bf16_bits_to_f32(uint16_t h)
{
    const uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}
/* f32 as the tensor cores read it for TF32: the top 19 bits (sign, exponent, 10 mantissa bits), the low 13 bits
 * dropped — truncation toward zero, kept in an f32. Every bit pattern is masked the same way (a NaN whose payload lies
 * only in the low 13 bits reads as an infinity). */
static inline GP__HD float gp__f32_to_tf32(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    x &= 0xffffe000u;
    memcpy(&f, &x, 4);
    return f;
}

#endif
