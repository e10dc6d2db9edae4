/*
 * jit_select.cuh — gp_select_if: a user predicate as the keep policy of select_lb.cuh's single pass (the built-in
 * select's own kernel body). Embedded by src/jit/uop.c after the predicate's preamble (GPJ_XIN, gpj_xin, gpj_pred)
 * and select_lb.cuh. Elements past n are zero-filled by the body before the policy sees them; their answers are
 * discarded.
 */
struct GPJ_KP {
    __device__ __forceinline__ void prepare() {}
    __device__ __forceinline__ bool keep(GPJ_XIN e, size_t, size_t) const { return gpj_pred(gpj_xin(e)) != 0; }
    __device__ __forceinline__ bool eq(GPJ_XIN, GPJ_XIN) const { return false; }
};

/* the launch's shape as the module was compiled (threads a block, elements a tile), read by the library at load */
extern "C" __device__ unsigned long long gpj_select_shape[2] = {SEL_THREADS, sel_tile<GPJ_XIN, MODE_PRED>()};

extern "C" __global__ void __launch_bounds__(SEL_THREADS, sel_min_blocks<GPJ_XIN, MODE_PRED, 0>())
    gpj_select(const GPJ_XIN *x, size_t n, GPJ_XIN *y, unsigned *ticket, unsigned long long *desc,
               const unsigned long long *total, unsigned long long *count_out)
{
    sel_body<GPJ_XIN, MODE_PRED, 0>(x, n, GPJ_KP(), y, ticket, desc, total, count_out);
}
