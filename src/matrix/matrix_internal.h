/*
 * matrix_internal.h — what src/matrix shares: the physical view of a matrix (its storage rows) and the backends.
 */
#ifndef GP_MATRIX_INTERNAL_H
#define GP_MATRIX_INTERNAL_H

#include "../core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A matrix as stored: prows storage rows of pcols elements, ld elements apart (row-major: rows x cols; column-major:
 * cols x rows). */
typedef struct gp__phys {
    char *data;
    size_t prows, pcols, ld, es;
} gp__phys_t;

/* out[q][p] = in[p][q] for p < in.prows, q < in.pcols (out: in.pcols x in.prows). */
GP_INTERNAL gp_status_t gp__transpose_gpu(gp_ctx_t *ctx, const gp__phys_t *out, const gp__phys_t *in,
                                          cudaStream_t stream);
GP_INTERNAL void gp__transpose_cpu(const gp__phys_t *out, const gp__phys_t *in);

#ifdef __cplusplus
}
#endif
#endif
