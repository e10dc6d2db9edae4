/* test_cli_util.c — the CLI's helpers that are not a verb: the --device auto model, the -b/-e/-f sweep and the one
 * option parser every verb uses (cli_parse). */
#include "common.h"
#include "commands.h"

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

/* cli_parse, the one option parser: alternatives, flags, values, positionals, the sweep, help and every refusal. */
static int g_usage_calls;
static void count_usage(FILE *f)
{
    (void)f;
    g_usage_calls++;
}
static int parse(char **argv, int argc, unsigned common, sweep_t *sw, const char **n, const char **flag,
                 cli_common_t *c, const char **pos, int *npos)
{
    const cli_opt_t opts[] = {{"-n|--count", "N", n}, {"--flag", NULL, flag}, {NULL, NULL, NULL}};
    const cli_spec_t spec = {"t", common, sw, opts, 2, count_usage};
    *c = (cli_common_t){DEVICE_AUTO, FMT_TABLE, NULL, 1, 0, 0};
    *n = *flag = NULL;
    return cli_parse(&spec, argc, argv, c, pos, npos);
}
static void test_cli_parse(void)
{
    const char *n, *flag, *pos[2];
    int npos;
    cli_common_t c;
    sweep_t sw = {1, 100, 2, 0};
    char *a1[] = {"t", "in.npy", "--count", "7", "--csv", "--flag", "out.npy", "-b", "4", "-d", "cpu"};
    CHECK(parse(a1, 11, COMMON_ALL, &sw, &n, &flag, &c, pos, &npos) == EXIT_OK, "a full command line parses");
    CHECK(n && strcmp(n, "7") == 0 && flag && npos == 2 && strcmp(pos[0], "in.npy") == 0 &&
              strcmp(pos[1], "out.npy") == 0 && c.fmt == FMT_CSV && c.device == GP_DEVICE_CPU && sw.given && sw.b == 4,
          "values, flag, positionals, common options and the sweep");
    char *a2[] = {"t", "-n", "1", "-n", "2", "-"};
    CHECK(parse(a2, 6, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE, "an option given twice is refused");
    char *a2b[] = {"t", "-n", "1", "--count", "2"};
    CHECK(parse(a2b, 5, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE, "twice under its two names");
    char *a2c[] = {"t", "--count=2", "-", "--device=cpu"};
    CHECK(parse(a2c, 4, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_OK && strcmp(n, "2") == 0 &&
              npos == 1 && strcmp(pos[0], "-") == 0 && c.device == GP_DEVICE_CPU,
          "--opt=value; '-' is a positional (stdin)");
    char *a2d[] = {"t", "--json", "--csv"};
    CHECK(parse(a2d, 3, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE, "--json with --csv refused");
    char *a2e[] = {"t", "-n", "--json"};
    CHECK(parse(a2e, 3, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE, "an option as a value refused");
    char *a2f[] = {"t", "-d", "cpu", "--device", "0"};
    CHECK(parse(a2f, 5, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE, "-d and --device: twice");
    char *a2g[] = {"t", "--flag", "--count", "-3"};
    CHECK(parse(a2g, 4, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_OK && strcmp(n, "-3") == 0 && flag,
          "a flag, then a value that starts with '-'");
    char *a3[] = {"t", "--count"};
    CHECK(parse(a3, 2, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE, "a value option at the end");
    char *a4[] = {"t", "--bogus"};
    CHECK(parse(a4, 2, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE, "an unknown option");
    char *a5[] = {"t", "a", "b", "c"};
    CHECK(parse(a5, 4, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE, "a third positional");
    char *a6[] = {"t", "--svg", "x.svg"};
    CHECK(parse(a6, 3, COMMON_DEVICE | COMMON_JSON, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE,
          "a common option the verb does not take is refused");
    char *a7[] = {"t", "-b", "4"};
    CHECK(parse(a7, 3, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE, "no sweep: -b is unknown");
    char *a8[] = {"t", "--reps", "0"};
    CHECK(parse(a8, 3, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE, "--reps 0 is a bad value");
    g_usage_calls = 0;
    char *a9[] = {"t", "--bogus", "-h"};
    CHECK(parse(a9, 3, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE && g_usage_calls == 0,
          "an error before -h is an error");
    char *a10[] = {"t", "--flag", "--help"};
    CHECK(parse(a10, 3, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == CLI_HELP && g_usage_calls == 1,
          "--help prints the usage");
}

int main(void)
{
    tc_seed("test_cli_util");
    test_auto_model();
    test_sweep();
    test_cli_parse();
    return tc_finish("test_cli_util");
}
