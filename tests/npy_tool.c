/*
 * npy_tool.c — a test helper over gpuprim's file API, driven by npy_interop.py:
 *   npy_tool dump FILE        header fields on the first line, then one element per line in file order
 *                             (integers in decimal, f32 %.9g, f64 %.17g, f16 as 0x bits)
 *   npy_tool copy IN OUT      load IN and save it to OUT (same dtype, shape and order)
 * Exit 0 on success; on failure the library's message on stderr and exit 1.
 */
#include "gpuprim.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_elem(const gp_array_desc_t *d, const void *data, size_t i)
{
    switch (d->dtype) {
    case GP_U8: printf("%u\n", ((const uint8_t *)data)[i]); break;
    case GP_I8: printf("%d\n", ((const int8_t *)data)[i]); break;
    case GP_U16: printf("%u\n", ((const uint16_t *)data)[i]); break;
    case GP_I16: printf("%d\n", ((const int16_t *)data)[i]); break;
    case GP_U32: printf("%" PRIu32 "\n", ((const uint32_t *)data)[i]); break;
    case GP_I32: printf("%" PRId32 "\n", ((const int32_t *)data)[i]); break;
    case GP_U64: printf("%" PRIu64 "\n", ((const uint64_t *)data)[i]); break;
    case GP_I64: printf("%" PRId64 "\n", ((const int64_t *)data)[i]); break;
    case GP_F16: printf("0x%04x\n", ((const uint16_t *)data)[i]); break;
    case GP_F32: printf("%.9g\n", ((const float *)data)[i]); break;
    case GP_F64: printf("%.17g\n", ((const double *)data)[i]); break;
    default: printf("?\n");
    }
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "dump") != 0 && strcmp(argv[1], "copy") != 0) ||
        (strcmp(argv[1], "copy") == 0 && argc < 4)) {
        fprintf(stderr, "usage: npy_tool dump FILE | npy_tool copy IN OUT\n");
        return 2;
    }
    gp_array_desc_t d;
    void *data = NULL;
    gp_status_t st = gp_npy_load(argv[2], &d, &data);
    if (st != GP_OK) {
        fprintf(stderr, "%s\n", gp_last_error());
        return 1;
    }
    if (strcmp(argv[1], "copy") == 0) {
        st = gp_npy_save(argv[3], d.dtype, d.ndim, d.shape, d.fortran_order, data);
        free(data);
        if (st != GP_OK) fprintf(stderr, "%s\n", gp_last_error());
        return st != GP_OK;
    }
    printf("dtype=%s ndim=%d fortran=%d big_endian=%d version=%d.%d count=%zu shape=", gp_dtype_name(d.dtype),
           d.ndim, d.fortran_order, d.big_endian, d.version_major, d.version_minor, d.count);
    for (int i = 0; i < d.ndim; i++) printf("%s%zu", i ? "," : "", d.shape[i]);
    printf("\n");
    for (size_t i = 0; i < d.count; i++) print_elem(&d, data, i);
    free(data);
    return 0;
}
