/*
 * matrix_io.c — .npy files as matrix views: C order is row-major, Fortran order column-major, so neither needs
 * reordering on load; saving packs rows whose ld exceeds the inner extent.
 */
#include "../core/internal.h"

#include <stdlib.h>
#include <string.h>

gp_status_t gp_npy_load_matrix(const char *path, gp_matrix_t *m)
{
    static const char fn[] = "gp_npy_load_matrix";
    GP_ARG_NONNULL(fn, path);
    GP_ARG_NONNULL(fn, m);
    gp_array_desc_t d;
    void *data = NULL;
    GP_TRY_RET(gp_npy_load(path, &d, &data));
    if (d.ndim > 2) {
        free(data);
        return gp__error(GP_ERR_FORMAT, "%s: %s has %d dimensions (a matrix has 2; 1-D is read as one row)", fn, path,
                         d.ndim);
    }
    const size_t rows = d.ndim == 2 ? d.shape[0] : 1, cols = d.ndim == 2 ? d.shape[1] : d.ndim == 1 ? d.shape[0] : 1;
    m->data = data;
    m->rows = rows, m->cols = cols;
    m->dtype = d.dtype;
    m->layout = d.fortran_order && d.ndim == 2 ? GP_COL_MAJOR : GP_ROW_MAJOR;
    m->ld = m->layout == GP_ROW_MAJOR ? cols : rows;
    if (m->ld == 0) m->ld = 1;
    return GP_OK;
}

gp_status_t gp_npy_save_matrix(const char *path, const gp_matrix_t *m)
{
    static const char fn[] = "gp_npy_save_matrix";
    GP_ARG_NONNULL(fn, path);
    GP_ARG_NONNULL(fn, m);
    if (m->layout != GP_ROW_MAJOR && m->layout != GP_COL_MAJOR)
        return gp__error(GP_ERR_INVALID_ARG, "%s: m->layout %d is not a gp_layout_t", fn, (int)m->layout);
    if ((unsigned)m->dtype >= GP_DTYPE_COUNT) return gp__error(GP_ERR_INVALID_ARG, "%s: m->dtype %d", fn, (int)m->dtype);
    const size_t shape[2] = {m->rows, m->cols}, es = gp_dtype_size(m->dtype);
    const size_t outer = m->layout == GP_ROW_MAJOR ? m->rows : m->cols, inner = m->layout == GP_ROW_MAJOR ? m->cols : m->rows;
    const int fortran = m->layout == GP_COL_MAJOR;
    if (outer == 0 || inner == 0 || m->ld == inner) return gp_npy_save(path, m->dtype, 2, shape, fortran, m->data);
    if (m->ld < inner)
        return gp__error(GP_ERR_INVALID_ARG, "%s: m->ld = %zu is less than the inner extent %zu", fn, m->ld, inner);
    GP_ARG_NONNULL(fn, m->data);
    size_t bytes;
    if (!gp__mul_ok(outer, inner, &bytes) || !gp__mul_ok(bytes, es, &bytes))
        return gp__error(GP_ERR_OVERFLOW, "%s: %zu x %zu overflows", fn, m->rows, m->cols);
    char *packed = malloc(bytes);
    if (packed == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu bytes to pack the rows", fn, bytes);
    for (size_t r = 0; r < outer; r++) memcpy(packed + r * inner * es, (const char *)m->data + r * m->ld * es, inner * es);
    gp_status_t st = gp_npy_save(path, m->dtype, 2, shape, fortran, packed);
    free(packed);
    return st;
}
