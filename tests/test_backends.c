/*
 * test_backends.c — every family's GPU table (src/core/backend.h) has each slot set in a build with CUDA, and none
 * in a CPU-only build (GP_CPU_ONLY): a launcher left out of its table would be a NULL call on a GPU. A new family's
 * table is one line below.
 */
#include "common.h"

#include "core/internal.h"
#include "group/group_internal.h"
#include "histogram/histogram_internal.h"
#include "matrix/matrix_internal.h"
#include "reduce/reduce_internal.h"
#include "scan/scan_internal.h"
#include "sort/sort_internal.h"
#include "vector/vector_internal.h"

typedef void (*fnptr_t)(void);

/* a table is a struct of function pointers only: read it slot by slot */
static void check_table(const char *name, const void *table, size_t bytes)
{
    const int cpu_only =
#ifdef GP_CPU_ONLY
        1;
#else
        0;
#endif
    CHECK(bytes % sizeof(fnptr_t) == 0, "%s: %zu bytes, not whole function pointers", name, bytes);
    size_t set = 0, slots = bytes / sizeof(fnptr_t);
    for (size_t i = 0; i < slots; i++) {
        fnptr_t f;
        memcpy(&f, (const char *)table + i * sizeof f, sizeof f);
        if (f) set++;
    }
    CHECK(set == (cpu_only ? 0 : slots), "%s: %zu of %zu slots set in a %s build", name, set, slots,
          cpu_only ? "CPU-only" : "CUDA");
    printf("  %-20s %zu slots, %zu set\n", name, slots, set);
}
#define TABLE(t) check_table(#t, &t, sizeof t)

int main(void)
{
    TABLE(gp__core_gpu_ops);
    TABLE(gp__hist_gpu_ops);
    TABLE(gp__matrix_gpu_ops);
    TABLE(gp__reduce_gpu_ops);
    TABLE(gp__scan_gpu_ops);
    TABLE(gp__sort_gpu_ops);
    TABLE(gp__vec_gpu_ops);
    TABLE(gp__group_gpu_ops);
    return tc_finish("test_backends");
}
