/*
 * fuzz_npy_header.c — libFuzzer target: the .npy header parser (gp_npy_header_size, gp_npy_parse_header) on any
 * bytes. Whatever it accepts must describe a sane array (offset past the preamble, count = product of the shape).
 * Built by scripts/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined) and, for ctest, by replay_main.c.
 */
#include "gpuprim.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t hb = 0;
    if (gp_npy_header_size(data, size, &hb) == GP_OK && (hb < 10 || hb > GP_NPY_MAX_HEADER + 12)) abort();
    gp_array_desc_t d;
    if (gp_npy_parse_header(data, size, &d) == GP_OK) {
        size_t count = 1;
        for (int k = 0; k < d.ndim; k++) count *= d.shape[k];
        if (d.data_offset > size || d.count != count || d.elem_size != gp_dtype_size(d.dtype) || d.ndim < 0 ||
            d.ndim > GP_NPY_MAX_DIMS)
            abort();
    }
    return 0;
}
