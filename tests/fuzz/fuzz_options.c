/*
 * fuzz_options.c — libFuzzer target: the CLI's value parsers (parse_size, parse_number, parse_number_list (the
 * --edges / --range lists), parse_pair, parse_device, gp_dtype_parse, gp_pred_parse) on any NUL-terminated text, and
 * the option parser (cli_parse) on the text split into arguments at spaces. An accepted size prints back to a value
 * that parses to itself; an accepted number is finite; an accepted list has one number per comma-separated field; an
 * accepted predicate has a valid kind and no flags; cli_parse returns one of its three answers, and every value it
 * sets is an argument's text (or its part after '=').
 */
#include "support.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cli_parse over the text split at spaces, as a verb with a flag, valued options, a sweep and one positional. */
static void fuzz_cli(const char *s)
{
    char buf[256], *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", s);
    argv[argc++] = "verb";
    for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " ")) argv[argc++] = t;
    argv[argc] = NULL;
    typedef struct { const char *op, *flag, *out, *mode; } vals_t;
    const cli_opt_t opts[] = {{"--op", OPT_TEXT, "OP", OPT_AT(vals_t, op), "op", NULL, "--mode", NULL},
                              {"--flag", OPT_FLAG, NULL, OPT_AT(vals_t, flag), "flag", NULL, NULL, NULL},
                              {"-o|--output", OPT_FILE, "OUT", OPT_AT(vals_t, out), "out", NULL, NULL, NULL},
                              {"--mode", OPT_WORD, "a|b", OPT_AT(vals_t, mode), "mode", NULL, NULL, NULL},
                              {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
    sweep_t sw = {1, 2, 2.0, 0};
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    const cli_spec_t spec = {"verb", COMMON_ALL | COMMON_AUTO, &sw, opts, 1, "[options]", "A verb.", "bytes"};
    int npos = 0;
    vals_t v;
    const char *pos[1] = {NULL};
    const int r = cli_parse(&spec, argc, argv, &c, &v, pos, &npos);
    const char *o_op = v.op, *o_out = v.out;
    if (r == EXIT_OK && v.mode && strcmp(v.mode, "a") != 0 && strcmp(v.mode, "b") != 0) abort();
    if (r == EXIT_OK && v.op && v.mode) abort();
    if (r != EXIT_OK && r != EXIT_USAGE && r != CLI_HELP) abort();
    if (npos < 0 || npos > 1) abort();
    const char *set[] = {o_op, o_out, npos ? pos[0] : NULL, c.svg};
    for (size_t k = 0; k < sizeof set / sizeof set[0]; k++) {
        if (!set[k]) continue;
        int found = 0;
        for (int i = 1; i < argc && !found; i++) {
            const char *eq = strchr(argv[i], '=');
            found = strcmp(set[k], argv[i]) == 0 || (eq && strcmp(set[k], eq + 1) == 0);
        }
        if (!found) abort();
    }
    if (r == EXIT_OK && (c.given & COMMON_JSON) && (c.given & COMMON_CSV)) abort();
}

/* --help prints the help on stdout: sent to /dev/null (libFuzzer reports on stderr) */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return freopen("/dev/null", "w", stdout) ? 0 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char s[256];
    if (size >= sizeof s) size = sizeof s - 1;
    memcpy(s, data, size);
    s[size] = 0;
    size_t v = 0, a = 0, b = 0;
    if (parse_size(s, &v) == 0) {
        char back[32];
        size_t w = 1;
        snprintf(back, sizeof back, "%zu", v);
        if (parse_size(back, &w) != 0 || w != v) abort();
    }
    double x = 0;
    if (parse_number(s, &x) == 0 && !isfinite(x)) abort();
    (void)parse_pair(s, &a, &b);
    int dev = 0;
    if (parse_device(s, &dev) == 0 && dev < GP_DEVICE_CPU && dev != DEVICE_AUTO) abort();
    double *list = NULL;
    const size_t nl = parse_number_list(s, &list);
    if ((nl == 0) != (list == NULL)) abort();
    size_t commas = 0;
    for (const char *p = s; *p; p++) commas += *p == ',';
    if (nl && nl != commas + 1) abort(); /* every comma separates two numbers */
    free(list);
    fuzz_cli(s);
    gp_dtype_t dt;
    if (gp_dtype_parse(s, &dt) == GP_OK && gp_dtype_size(dt) == 0) abort();
    gp_pred_t p;
    if (gp_pred_parse(s, &p) == GP_OK && ((unsigned)p.kind >= GP_PRED_FLAGS || p.flags != NULL)) abort();
    return 0;
}
