/*
 * jit_common.h — conversions both halves of a user operator's module use (embedded by src/jit/uop.c after
 * GPJ_FN and GPJ_F2U / GPJ_U2F are defined for the target: the same integer routines on the GPU and the CPU, so the
 * two give the same bits). f16 / bf16 widen exactly; f32 narrows to nearest even, overflow to inf, NaN kept quiet
 * (the routine of the scans' narrow outputs, src/scan/scan_internal.h).
 */
GPJ_FN float gpj_h2f(unsigned short h)
{
    unsigned sign = (unsigned)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
    if (ex == 0) {
        if (man == 0) {
            bits = sign;
        } else {
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 0x400u));
            bits = sign | (unsigned)(112 - e) << 23 | (man & 0x3ffu) << 13;
        }
    } else if (ex == 31) {
        bits = sign | 0x7f800000u | man << 13;
    } else {
        bits = sign | (ex + 112) << 23 | man << 13;
    }
    return GPJ_U2F(bits);
}
GPJ_FN float gpj_b2f(unsigned short h) { return GPJ_U2F((unsigned)h << 16); }
GPJ_FN unsigned short gpj_f2h(float f)
{
    const unsigned x = GPJ_F2U(f);
    const unsigned short sign = (unsigned short)((x >> 16) & 0x8000u);
    const unsigned ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return (unsigned short)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    if (ax >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);
    if (ax >= 0x38800000u) {
        unsigned r = ax - 0x38000000u;
        r += 0xfffu + ((r >> 13) & 1u);
        return (unsigned short)(sign | (r >> 13));
    }
    if (ax <= 0x33000000u) return sign;
    const unsigned e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, sh = 126u - e;
    unsigned q = m >> sh;
    const unsigned rem = m & ((1u << sh) - 1u), half = 1u << (sh - 1u);
    if (rem > half || (rem == half && (q & 1u))) q++;
    return (unsigned short)(sign | q);
}
GPJ_FN unsigned short gpj_f2b(float f)
{
    unsigned x = GPJ_F2U(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (unsigned short)(x >> 16);
}
