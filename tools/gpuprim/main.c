/*
 * main.c — the gpuprim command line: one verb per cmd_<verb>.c.
 *   gpuprim info | bandwidth | bench <primitive> | lab <primitive> | demo | version | help
 * Exit codes: util.h (0 ok, 1 failure, 2 usage, 3 no GPU, 4 no driver, 5 verification failed).
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

/* The verbs, in the order `gpuprim help` lists them (commands.h says what reads this table). */
const verb_t cli_verbs[] = {
    {"info", "", "GPUs (and the CPU backend): what deviceQuery shows that matters", &spec_info, cmd_info},
    {"bandwidth", "", "transfer bandwidth of every memory kind over a size sweep", &spec_bandwidth, cmd_bandwidth},
    {"reduce", "FILE|- --op OP", "reduce a .npy / raw file or stdin (deterministic: same bits on GPU and CPU)",
     &spec_reduce, cmd_reduce},
    {"histogram", "FILE|- --bins N", "np.histogram of a .npy / raw file or stdin (even, explicit edges or direct)",
     &spec_histogram, cmd_histogram},
    {"scan", "FILE|- --op OP -o OUT", "prefix scan (np.cumsum ...) of a file or stdin, streamed", &spec_scan, cmd_scan},
    {"select", "FILE|- --where PRED -o OUT", "the elements PRED keeps (gt:X, in:LO,HI, nonzero, nan ...), streamed",
     &spec_select, cmd_select},
    {"map", "FILE|- --src 'EXPR' -o OUT", "y = EXPR over x, your C compiled at run time (code run as you)", &spec_map,
     cmd_map},
    {"unique", "FILE|- -o OUT", "consecutive duplicates removed, streamed", &spec_unique, cmd_unique},
    {"rle", "FILE|- -o VALUES --lengths LENGTHS", "run-length encoding, streamed", &spec_rle, cmd_rle},
    {"transpose", "IN OUT", "transpose a .npy / raw matrix (every dtype)", &spec_transpose, cmd_transpose},
    {"gemm", "A B -o C", "C = alpha op(A) op(B) + beta C0 (f32, f64; tf32 bf16 fp16 on tensor cores)", &spec_gemm,
     cmd_gemm},
    {"bench", "SUITE", "a primitive against its peer (CUB, cuBLAS) and the ceilings, same run (gpuprim bench --help)",
     NULL, cmd_bench},
    {"lab", "TOPIC", "every version of a technique verified and timed side by side (gpuprim lab --list)", NULL,
     cmd_lab},
    {"demo", "", "a short tour (the main job of `make demo`)", &spec_demo, cmd_demo},
    {"completion", "bash|zsh", "the shell completion script, made from these tables", NULL, cmd_completion},
    {"version", "", "print the version", NULL, cmd_version},
    {"help", "", "this list", NULL, cmd_help},
};
const int cli_nverbs = sizeof cli_verbs / sizeof cli_verbs[0];
enum { NVERBS = sizeof cli_verbs / sizeof cli_verbs[0] };

static void usage(FILE *f)
{
    fprintf(f, "gpuprim %d.%d.%d — GPU parallel primitives from C\n"
               "usage: gpuprim <verb> [options]   (gpuprim <verb> --help for each)\n",
            GP_VERSION_MAJOR, GP_VERSION_MINOR, GP_VERSION_PATCH);
    for (int i = 0; i < NVERBS; i++) {
        char head[64];
        snprintf(head, sizeof head, "%s %s", cli_verbs[i].name, cli_verbs[i].args);
        fprintf(f, "  %-38s %s\n", head, cli_verbs[i].summary);
    }
    fprintf(f, "Common options: -d/--device ID|cpu|auto, --json, --csv, --svg FILE, --reps N, --warmup N; --opt=value "
               "works too.\n");
}

static int cmd_version(int argc, char **argv)
{
    (void)argc, (void)argv;
    printf("gpuprim %d.%d.%d (library %d)\n", GP_VERSION_MAJOR, GP_VERSION_MINOR, GP_VERSION_PATCH, gp_version());
    return EXIT_OK;
}

static int cmd_help(int argc, char **argv)
{
    (void)argc, (void)argv;
    usage(stdout);
    return EXIT_OK;
}

/* Edit distance (insert, delete, substitute, swap of neighbours), for "did you mean". */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), d[33][33];
    if (la > 32 || lb > 32) return 99;
    for (size_t i = 0; i <= la; i++) d[i][0] = i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

static int run(int argc, char **argv);

/* A verb may leave a GPU context starting in the background (a streaming verb's CPU head finished first): the output is
 * complete, so leave without waiting for the driver, and without tearing the runtime down under that thread. */
/* The CPU backend's OpenMP teams wait passively unless the user said otherwise: idle workers spinning between regions
 * made a busy 2-core machine slower than one thread (docs/PERFORMANCE.md, "A busy machine"). The policy is read when
 * the OpenMP runtime loads, before main: so the process starts again, once, with it set. */
static void passive_openmp(char **argv)
{
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
    if (setenv("OMP_WAIT_POLICY", "passive", 0) != 0) return;
    execv("/proc/self/exe", argv); /* on failure: go on as we are */
}

int main(int argc, char **argv)
{
    passive_openmp(argv);
    int rc = run(argc, argv);
    if (gp_ctx_opens_pending()) {
        if (fflush(stdout) != 0 && rc == EXIT_OK) rc = EXIT_FAIL;
        fflush(stderr);
        _exit(rc);
    }
    return rc;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *verb = argv[1];
    argc--, argv++;
    if (strcmp(verb, "--version") == 0) return cmd_version(argc, argv);
    if (strcmp(verb, "-h") == 0 || strcmp(verb, "--help") == 0) return cmd_help(argc, argv);
    for (int i = 0; i < NVERBS; i++)
        if (strcmp(verb, cli_verbs[i].name) == 0) return cli_verbs[i].run(argc, argv);
    const char *best = NULL;
    size_t bd = 3;
    for (int k = 0; k < NVERBS; k++) {
        const char *name = cli_verbs[k].name;
        const size_t d = distance(verb, name);
        if (d < bd || (strncmp(verb, name, strlen(verb)) == 0 && strlen(verb) >= 2 && d < 99))
            bd = d < bd ? d : bd, best = name;
    }
    if (best)
        fprintf(stderr, "gpuprim: unknown verb '%s'; did you mean '%s'? (gpuprim help lists the verbs)\n", verb, best);
    else
        fprintf(stderr, "gpuprim: unknown verb '%s' (gpuprim help lists the verbs)\n", verb);
    return EXIT_USAGE;
}
