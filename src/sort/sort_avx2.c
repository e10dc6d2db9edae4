/*
 * sort_avx2.c — the CPU backend's sort of 4- and 8-byte keys alone with AVX2, where the CPU has no AVX-512F
 * (docs/design/sort.md, "The CPU backend"): the keys become their radix keys (sort_internal.h) with the top bit
 * flipped, and a quicksort sorts those as signed integers — partitions by a table of lane permutations (a vector's
 * keys below the pivot first) and two whole-vector stores, parts of up to 16 vectors by sorting networks in
 * registers, the parts as OpenMP tasks; sort_avx2_body.h, once per width — then they become the keys again. Floats'
 * zeros and NaNs keep their bits in input order as in sort_simd.c. The same bits come out as from the radix sort.
 */
#include "sort_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GP_NO_AVX2)
#include <immintrin.h>

#define SIMD __attribute__((target("avx2,popcnt")))
#define ALWAYS __attribute__((always_inline))
#if defined(__clang__) /* a pragma clang cannot honour is a warning; it unrolls these constant-bound loops itself */
#define UNROLL
#else
#define UNROLL _Pragma("GCC unroll 16") /* the networks' loops (sort_avx2_body.h) */
#endif
enum { TASK_MIN = 1 << 13 };

/* lane permutations by mask: entry m holds, a nibble a lane, the source lane of each place — the lanes set in m
 * first, then the others, both in order (8 lanes of 4 bytes; 4 lanes of 8 bytes as pairs of 4-byte lanes) */
static const uint32_t lut32[256] = {
    0x76543210, 0x76543210, 0x76543201, 0x76543210, 0x76543102, 0x76543120, 0x76543021, 0x76543210,
    0x76542103, 0x76542130, 0x76542031, 0x76542310, 0x76541032, 0x76541320, 0x76540321, 0x76543210,
    0x76532104, 0x76532140, 0x76532041, 0x76532410, 0x76531042, 0x76531420, 0x76530421, 0x76534210,
    0x76521043, 0x76521430, 0x76520431, 0x76524310, 0x76510432, 0x76514320, 0x76504321, 0x76543210,
    0x76432105, 0x76432150, 0x76432051, 0x76432510, 0x76431052, 0x76431520, 0x76430521, 0x76435210,
    0x76421053, 0x76421530, 0x76420531, 0x76425310, 0x76410532, 0x76415320, 0x76405321, 0x76453210,
    0x76321054, 0x76321540, 0x76320541, 0x76325410, 0x76310542, 0x76315420, 0x76305421, 0x76354210,
    0x76210543, 0x76215430, 0x76205431, 0x76254310, 0x76105432, 0x76154320, 0x76054321, 0x76543210,
    0x75432106, 0x75432160, 0x75432061, 0x75432610, 0x75431062, 0x75431620, 0x75430621, 0x75436210,
    0x75421063, 0x75421630, 0x75420631, 0x75426310, 0x75410632, 0x75416320, 0x75406321, 0x75463210,
    0x75321064, 0x75321640, 0x75320641, 0x75326410, 0x75310642, 0x75316420, 0x75306421, 0x75364210,
    0x75210643, 0x75216430, 0x75206431, 0x75264310, 0x75106432, 0x75164320, 0x75064321, 0x75643210,
    0x74321065, 0x74321650, 0x74320651, 0x74326510, 0x74310652, 0x74316520, 0x74306521, 0x74365210,
    0x74210653, 0x74216530, 0x74206531, 0x74265310, 0x74106532, 0x74165320, 0x74065321, 0x74653210,
    0x73210654, 0x73216540, 0x73206541, 0x73265410, 0x73106542, 0x73165420, 0x73065421, 0x73654210,
    0x72106543, 0x72165430, 0x72065431, 0x72654310, 0x71065432, 0x71654320, 0x70654321, 0x76543210,
    0x65432107, 0x65432170, 0x65432071, 0x65432710, 0x65431072, 0x65431720, 0x65430721, 0x65437210,
    0x65421073, 0x65421730, 0x65420731, 0x65427310, 0x65410732, 0x65417320, 0x65407321, 0x65473210,
    0x65321074, 0x65321740, 0x65320741, 0x65327410, 0x65310742, 0x65317420, 0x65307421, 0x65374210,
    0x65210743, 0x65217430, 0x65207431, 0x65274310, 0x65107432, 0x65174320, 0x65074321, 0x65743210,
    0x64321075, 0x64321750, 0x64320751, 0x64327510, 0x64310752, 0x64317520, 0x64307521, 0x64375210,
    0x64210753, 0x64217530, 0x64207531, 0x64275310, 0x64107532, 0x64175320, 0x64075321, 0x64753210,
    0x63210754, 0x63217540, 0x63207541, 0x63275410, 0x63107542, 0x63175420, 0x63075421, 0x63754210,
    0x62107543, 0x62175430, 0x62075431, 0x62754310, 0x61075432, 0x61754320, 0x60754321, 0x67543210,
    0x54321076, 0x54321760, 0x54320761, 0x54327610, 0x54310762, 0x54317620, 0x54307621, 0x54376210,
    0x54210763, 0x54217630, 0x54207631, 0x54276310, 0x54107632, 0x54176320, 0x54076321, 0x54763210,
    0x53210764, 0x53217640, 0x53207641, 0x53276410, 0x53107642, 0x53176420, 0x53076421, 0x53764210,
    0x52107643, 0x52176430, 0x52076431, 0x52764310, 0x51076432, 0x51764320, 0x50764321, 0x57643210,
    0x43210765, 0x43217650, 0x43207651, 0x43276510, 0x43107652, 0x43176520, 0x43076521, 0x43765210,
    0x42107653, 0x42176530, 0x42076531, 0x42765310, 0x41076532, 0x41765320, 0x40765321, 0x47653210,
    0x32107654, 0x32176540, 0x32076541, 0x32765410, 0x31076542, 0x31765420, 0x30765421, 0x37654210,
    0x21076543, 0x21765430, 0x20765431, 0x27654310, 0x10765432, 0x17654320, 0x07654321, 0x76543210,
};
static const uint32_t lut64[16] = {
    0x76543210, 0x76543210, 0x76541032, 0x76543210, 0x76321054, 0x76325410, 0x76105432, 0x76543210,
    0x54321076, 0x54327610, 0x54107632, 0x54763210, 0x32107654, 0x32765410, 0x10765432, 0x76543210,
};

#define W 32
#include "sort_avx2_body.h"
#undef W
#define W 64
#include "sort_avx2_body.h"
#undef W

int gp__sort_cpu_avx2(size_t ks, int kind, size_t n, const void *keys_in, void *keys_out, int descending)
{
    if (gp__sort_cpu_isa < 1 || !(gp__cpu_features() & GP__CPU_AVX2)) return 0;
    return ks == 4 ? sort_keys_32(keys_in, keys_out, n, kind, descending)
                   : sort_keys_64(keys_in, keys_out, n, kind, descending);
}
#else
int gp__sort_cpu_avx2(size_t ks, int kind, size_t n, const void *keys_in, void *keys_out, int descending)
{
    (void)ks, (void)kind, (void)n, (void)keys_in, (void)keys_out, (void)descending;
    return 0;
}
#endif
