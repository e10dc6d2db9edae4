/* test_cli_util.c — the CLI's helpers that are not a verb: the --device auto model, the -b/-e/-f sweep and the one
 * option parser every verb uses (cli_parse). */
#define _POSIX_C_SOURCE 200809L
#include "common.h"
#include "commands.h"

static void test_auto_model(void)
{
    double c, g;
    /* a 1 MiB file: the GPU's start-up alone is longer than the CPU's whole job */
    const work_t small = {WORK_REDUCE_FAST, 1 << 20, 0, 0};
    work_estimate(&small, &c, &g);
    CHECK(c < g && g >= 0.25, "1 MiB sum: cpu %.3f gpu %.3f", c, g);
    CHECK(pick_device("t", DEVICE_AUTO, &small, 1) == GP_DEVICE_CPU, "1 MiB sum goes to the CPU");
    /* a 4 GiB histogram of 2^21 bins: the CPU backend's wide-bin rate loses to the start-up */
    const work_t wide = {WORK_HIST_WIDE, 4.0 * (1u << 30), 0, 2};
    work_estimate(&wide, &c, &g);
    CHECK(g < c, "4 GiB wide histogram: cpu %.3f gpu %.3f", c, g);
    CHECK(pick_device("t", DEVICE_AUTO, &wide, 1) == DEVICE_DEFAULT, "wide histogram goes to the GPU");
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
    CHECK(parse_device("auto", &d) == 0 && d == DEVICE_AUTO, "parse auto");
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
typedef struct t_opts {
    const char *n, *flag, *mode, *a, *b;
} t_opts_t;
static const cli_opt_t k_t_opts[] = {
    {"-n|--count", OPT_COUNT, "N", OPT_AT(t_opts_t, n), "a count", NULL, NULL, NULL},
    {"--flag", OPT_FLAG, NULL, OPT_AT(t_opts_t, flag), "a flag", NULL, NULL, NULL},
    {"--mode", OPT_WORD, "x|y", OPT_AT(t_opts_t, mode), "a word", "x", NULL, NULL},
    {"--a", OPT_TEXT, "A", OPT_AT(t_opts_t, a), "one of two", NULL, "--b", NULL},
    {"--b", OPT_TEXT, "B", OPT_AT(t_opts_t, b), "the other", NULL, NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static t_opts_t g_t;
static int parse(char **argv, int argc, unsigned common, sweep_t *sw, const char **n, const char **flag,
                 cli_common_t *c, const char **pos, int *npos)
{
    const cli_spec_t spec = {"t", common, sw, k_t_opts, 2, "IN [OUT] [options]", "A test verb.", "bytes"};
    *c = (cli_common_t){DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    memset(&g_t, 0x5a, sizeof g_t); /* poisoned: cli_parse clears every member */
    const int r = cli_parse(&spec, argc, argv, c, &g_t, pos, npos);
    *n = g_t.n, *flag = g_t.flag;
    return r;
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
    char *a9[] = {"t", "--bogus", "-h"};
    CHECK(parse(a9, 3, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE, "an error before -h is an error");
    char *a10[] = {"t", "--flag", "--help"};
    CHECK(parse(a10, 3, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == CLI_HELP, "--help prints the help");
    char *a11[] = {"t", "--mode", "z"};
    CHECK(parse(a11, 3, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE, "a word not in the table");
    char *a12[] = {"t", "--mode", "y"};
    CHECK(parse(a12, 3, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_OK && g_t.mode &&
              strcmp(g_t.mode, "y") == 0 && !g_t.a && !g_t.b && !g_t.flag && !g_t.n,
          "a word of the table; the options not given are NULL");
    char *a13[] = {"t", "--b", "1", "--a", "2"};
    CHECK(parse(a13, 5, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE,
          "conflicting options refused (named on either side, either order)");
    char *a14[] = {"t", "-d", "auto"};
    CHECK(parse(a14, 3, COMMON_ALL, NULL, &n, &flag, &c, pos, &npos) == EXIT_USAGE,
          "-d auto refused by a verb without COMMON_AUTO");
    CHECK(parse(a14, 3, COMMON_ALL | COMMON_AUTO, NULL, &n, &flag, &c, pos, &npos) == EXIT_OK &&
              c.device == DEVICE_AUTO,
          "-d auto taken with COMMON_AUTO");
    /* the help, made from the table: every option with its value, default and conflicts, and the sweep */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    sweep_t sw2 = {1, 2, 2, 0};
    const cli_spec_t spec = {"t", COMMON_ALL | COMMON_AUTO, &sw2, k_t_opts, 2, "IN [OUT] [options]", "A test verb.",
                             "bytes"};
    cli_usage(&spec, m);
    fclose(m);
    CHECK(text && strstr(text, "usage: gpuprim t IN [OUT] [options]") && strstr(text, "A test verb.") &&
              strstr(text, "-n, --count N") && strstr(text, "--mode x|y") && strstr(text, "(default: x)") &&
              strstr(text, "(not with --b)") && strstr(text, "-b MIN") && strstr(text, "ID|cpu|auto") &&
              strstr(text, "--svg FILE") && strstr(text, "-h, --help"),
          "the help holds every option: %s", text ? text : "(none)");
    free(text);
    CHECK(opt_yes(NULL, 1) == 1 && opt_yes("no", 1) == 0 && opt_yes("0", 1) == 0 && opt_yes("yes", 0) == 1 &&
              opt_yes("true", 0) == 1,
          "yes/no words");
}

int main(void)
{
    tc_seed("test_cli_util");
    test_auto_model();
    test_sweep();
    test_cli_parse();
    return tc_finish("test_cli_util");
}
