/* test_cli_util.c — the CLI's helpers that are not a verb: the --device auto model and the -b/-e/-f sweep. */
#include "common.h"
#include "util.h"

static void test_auto_model(void)
{
    double c, g;
    /* a 1 MiB file: the GPU's start-up alone is longer than the CPU's whole job */
    const work_t small = {WORK_REDUCE_FAST, 1 << 20, 0, 0};
    work_estimate(&small, &c, &g);
    CHECK(c < g && g >= 0.25, "1 MiB sum: cpu %.3f gpu %.3f", c, g);
    CHECK(pick_device("t", DEVICE_FASTEST, &small, 1) == GP_DEVICE_CPU, "1 MiB sum goes to the CPU");
    /* a 4 GiB histogram of 2^21 bins: the CPU backend's wide-bin rate loses to the start-up */
    const work_t wide = {WORK_HIST_WIDE, 4.0 * (1u << 30), 0, 2};
    work_estimate(&wide, &c, &g);
    CHECK(g < c, "4 GiB wide histogram: cpu %.3f gpu %.3f", c, g);
    CHECK(pick_device("t", DEVICE_FASTEST, &wide, 1) == DEVICE_AUTO, "wide histogram goes to the GPU");
    /* an 8192^3 SGEMM: seconds on a CPU, a fraction of one on a GPU */
    const work_t gemm = {WORK_GEMM, 3.0 * 8192 * 8192 * 4, 2.0 * 8192.0 * 8192.0 * 8192.0, 16};
    work_estimate(&gemm, &c, &g);
    CHECK(g < c, "8192^3 gemm: cpu %.3f gpu %.3f", c, g);
    /* unknown size: rates alone, no start-up */
    const work_t pipe = {WORK_REDUCE_SLOW, -1, 0, 2};
    work_estimate(&pipe, &c, &g);
    CHECK(c > 0 && g > 0 && g < 0.25, "pipe: cpu %.3f gpu %.3f (no start-up)", c, g);
    /* an explicit device is left alone */
    CHECK(pick_device("t", 3, &small, 1) == 3 && pick_device("t", GP_DEVICE_CPU, &wide, 1) == GP_DEVICE_CPU,
          "explicit devices");
    int d = 0;
    CHECK(parse_device("auto", &d) == 0 && d == DEVICE_FASTEST, "parse auto");
    CHECK(parse_device("autox", &d) != 0, "parse autox refused");
}

static void test_sweep(void)
{
    size_t v[64];
    sweep_t s = {8, 32, 2, 3};
    CHECK(sweep_check("t", &s) == 0 && sweep_sizes(&s, v, 64) == 3 && v[0] == 8 && v[1] == 16 && v[2] == 32, "8..32");
    sweep_t t = {10, 50, 3, 3};
    CHECK(sweep_sizes(&t, v, 64) == 3 && v[2] == 50, "ends on MAX: %zu", v[2]);
    sweep_t u = {1 << 20, 1 << 30, 4, 1}; /* -b alone: to the default end */
    u.b = (size_t)2 << 30;
    CHECK(sweep_check("t", &u) == 0 && u.e == u.b && sweep_sizes(&u, v, 64) == 1, "-b past the default end");
    sweep_t w = {4, 2, 2, 3};
    CHECK(sweep_check("t", &w) != 0, "b > e refused");
    sweep_t x = {1, (size_t)1 << 40, 1.0001, 3};
    CHECK(sweep_sizes(&x, v, 64) == 64, "capped at max");
}

int main(void)
{
    tc_seed("test_cli_util");
    test_auto_model();
    test_sweep();
    return tc_finish("test_cli_util");
}
