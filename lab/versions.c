/* versions.c — what every topic's table of numbered versions shares (lab_versions.h): which row is production, read
 * from the family's one place, and the `gpuprim lab TOPIC --list` listing. */
#include "lab_versions.h"

#include "histogram/histogram_internal.h"

#include <string.h>

int lab_is_production(lab_table_t t, const lab_version_t *v)
{
    switch (t) {
    case LAB_T_VECTOR:
        for (int op = 0; op < GP__VEC_NOPS; op++)
            if ((v->sel & (1u << op)) && v->id == gp__vec_production_id((gp__vec_op_t)op, v->gpu)) return 1;
        return 0;
    case LAB_T_REDUCE: return v->id == LAB_REDUCE_LIBRARY;
    case LAB_T_SORT: return v->id == LAB_SORT_LIBRARY;
    case LAB_T_SEGSORT: return v->id == LAB_SEGSORT_LIBRARY;
    case LAB_T_SELECT: return v->id == LAB_SELECT_LIBRARY;
    case LAB_T_HISTOGRAM: return v->gpu && (int)v->sel == GP__HS_AUTO;
    case LAB_T_TRANSPOSE: return v->gpu && v->id == GP__TRANSPOSE_PRODUCTION;
    case LAB_T_GEMM: return v->gpu && v->id == gp__matrix_gpu_ops.gemm_pick(GP_F32, 4096)->number;
    case LAB_T_GEMM_TC: /* on sm_90 the library picks one of the TMA kernel's shapes per problem: large, small */
        return v->gpu && ((int)v->sel == gp__gemm_wgmma_pick(16384, 16384, 132) ||
                          (int)v->sel == gp__gemm_wgmma_pick(256, 256, 132));
    }
    return 0;
}

void lab_list_versions(FILE *f, lab_table_t t, const lab_version_t *v, int n)
{
    static const char *const ops[] = {"copy", "scale", "add", "triad", "dot"};
    int w = 4;
    for (int i = 0; i < n; i++) w = (int)strlen(v[i].name) > w ? (int)strlen(v[i].name) : w;
    fprintf(f, "%-4s %-*s %-4s %s%s\n", "id", w, "name", "on", t == LAB_T_VECTOR ? "ops                          " : "",
            "teaches [constraints]");
    for (int i = 0; i < n; i++) {
        char opl[64] = "";
        if (t == LAB_T_VECTOR) {
            for (int op = 0; op < 5; op++)
                if (v[i].sel & (1u << op)) {
                    strcat(opl, opl[0] ? "," : "");
                    strcat(opl, ops[op]);
                }
        }
        fprintf(f, "%-4d %-*s %-4s ", v[i].id, w, v[i].name, v[i].gpu ? "gpu" : "cpu");
        if (t == LAB_T_VECTOR) fprintf(f, "%-28s ", opl);
        fprintf(f, "%s%s%s%s%s\n", v[i].teaches, v[i].constraints[0] ? " [" : "", v[i].constraints,
                v[i].constraints[0] ? "]" : "", lab_is_production(t, &v[i]) ? " <- production" : "");
    }
}
