/*
 * main.c — the gpuprim command line: the table of verbs (one cmd_<verb>.c each), dispatch, help, did-you-mean.
 * Exit codes: support.h (0 ok, 1 failure, 2 usage, 3 no GPU, 4 no driver, 5 verification failed).
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The verbs, in the order `gpuprim help` lists them: a verb is one cmd_<verb>.c defining `const verb_t verb_<name>`
 * and one word here (commands.h says what reads this table). */
#define VERBS(X) X(info) X(bandwidth) X(reduce) X(histogram) X(scan) X(select) X(map) X(unique) X(rle) X(sort) \
    X(argsort) X(searchsorted) X(topk) X(partition) X(argpartition) X(merge) X(groupby) X(transpose) X(gemm) X(bench) X(lab) X(demo) X(completion) X(version) X(help)

#define DECLARE(name) extern const verb_t verb_##name;
VERBS(DECLARE)
#define ENTRY(name) &verb_##name,
const verb_t *const cli_verbs[] = {VERBS(ENTRY) NULL};
const int cli_nverbs = sizeof cli_verbs / sizeof cli_verbs[0] - 1;
enum { NVERBS = sizeof cli_verbs / sizeof cli_verbs[0] - 1 };

static void usage(FILE *f)
{
    fprintf(f, "gpuprim %d.%d.%d — GPU parallel primitives from C\n"
               "usage: gpuprim <verb> [options]   (gpuprim <verb> --help for each)\n",
            GP_VERSION_MAJOR, GP_VERSION_MINOR, GP_VERSION_PATCH);
    for (int i = 0; i < NVERBS; i++) {
        char head[64];
        snprintf(head, sizeof head, "%s %s", cli_verbs[i]->name, cli_verbs[i]->args);
        fprintf(f, "  %-38s %s\n", head, cli_verbs[i]->summary);
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

const verb_t verb_version = {"version", "", "print the version", NULL, cmd_version, NULL};
const verb_t verb_help = {"help", "", "this list", NULL, cmd_help, NULL};

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

static int dispatch(int argc, char **argv);

/* A verb may leave a GPU context starting in the background (a streaming verb's CPU head finished first): the output is
 * complete, so leave without waiting for the driver, and without tearing the runtime down under that thread. */
/* The CPU backend's OpenMP teams wait passively unless the user said otherwise: idle workers spinning between regions
 * made a busy 2-core machine slower than one thread (docs/design/io.md, "Tuning"). The policy is read when
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
    int rc = dispatch(argc, argv);
    if (gp_ctx_opens_pending()) {
        if (fflush(stdout) != 0 && rc == EXIT_OK) rc = EXIT_FAIL;
        fflush(stderr);
        _exit(rc);
    }
    return rc;
}

int cli_run(int argc, char **argv)
{
    for (int i = 0; i < NVERBS; i++)
        if (strcmp(argv[0], cli_verbs[i]->name) == 0) return cli_verbs[i]->run(argc, argv);
    return EXIT_USAGE;
}

static int dispatch(int argc, char **argv)
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
        if (strcmp(verb, cli_verbs[i]->name) == 0) return cli_verbs[i]->run(argc, argv);
    const char *best = NULL;
    size_t bd = 3;
    for (int k = 0; k < NVERBS; k++) {
        const char *name = cli_verbs[k]->name;
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
