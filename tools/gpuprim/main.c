/*
 * main.c — the gpuprim command line: one verb per cmd_<verb>.c.
 *   gpuprim info | bandwidth | bench <primitive> | lab <primitive> | demo | version | help
 * Exit codes: util.h (0 ok, 1 failure, 2 usage, 3 no GPU, 4 no driver, 5 verification failed).
 */
#include "commands.h"

#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "gpuprim %d.%d.%d — GPU parallel primitives from C\n"
            "usage: gpuprim <verb> [options]   (gpuprim <verb> --help for each)\n"
            "  info                      GPUs (and the CPU backend): what deviceQuery shows that matters\n"
            "  bandwidth                 transfer bandwidth of every memory kind over a size sweep\n"
            "  reduce FILE|- --op OP     reduce a .npy / raw file or stdin (deterministic: same bits on GPU and CPU)\n"
            "  histogram FILE|- --bins N histogram of a .npy / raw file or stdin (even, explicit edges or direct)\n"
            "  scan FILE|- --op OP -o OUT  prefix scan of a .npy / raw file or stdin, streamed (same bits on GPU / CPU)\n"
            "  select FILE|- --where PRED -o OUT  the elements PRED keeps (gt:X, in:LO,HI, nonzero, nan ...), streamed\n"
            "  map FILE|- --src 'EXPR' -o OUT  y = EXPR over x, your C compiled at run time (also reduce --op-src, --map)\n"
            "  unique FILE|- -o OUT       consecutive duplicates removed, streamed\n"
            "  rle FILE|- -o VALUES --lengths LENGTHS   run-length encoding, streamed\n"
            "  transpose IN OUT          transpose a .npy / raw matrix (f32 f64 i32 u8)\n"
            "  gemm A B -o C             C = alpha op(A) op(B) + beta C0 on .npy / raw matrices (f32, f64)\n"
            "  bench vector              copy/scale/add/triad/dot vs ceilings and cuBLAS, same run\n"
            "  bench reduce              gp_reduce vs CUB DeviceReduce and the read ceiling, same run\n"
            "  bench histogram | transpose | gemm | scan | select | graph   against CUB / cuBLAS, same run\n"
            "  lab vector | reduce | scan | histogram | transpose | gemm | memory | concurrency   every version verified\n"
            "                            and timed side by side (gpuprim lab --list)\n"
            "  demo                      a short tour (the main job of `make demo`)\n"
            "  version                   print the version\n"
            "Common options: -d/--device ID|cpu, --json, --csv, --svg FILE, --reps N, --warmup N.\n",
            GP_VERSION_MAJOR, GP_VERSION_MINOR, GP_VERSION_PATCH);
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

/* A verb may leave a GPU context starting in the background (reduce's CPU head start finished first): the output is
 * complete, so leave without waiting for the driver, and without tearing the runtime down under that thread. */
int main(int argc, char **argv)
{
    int rc = run(argc, argv);
    if (background_pending()) {
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
    if (strcmp(verb, "info") == 0) return cmd_info(argc, argv);
    if (strcmp(verb, "bandwidth") == 0) return cmd_bandwidth(argc, argv);
    if (strcmp(verb, "bench") == 0) return cmd_bench(argc, argv);
    if (strcmp(verb, "lab") == 0) return cmd_lab(argc, argv);
    if (strcmp(verb, "demo") == 0) return cmd_demo(argc, argv);
    if (strcmp(verb, "reduce") == 0) return cmd_reduce(argc, argv);
    if (strcmp(verb, "histogram") == 0) return cmd_histogram(argc, argv);
    if (strcmp(verb, "scan") == 0) return cmd_scan(argc, argv);
    if (strcmp(verb, "select") == 0) return cmd_select(argc, argv);
    if (strcmp(verb, "map") == 0) return cmd_map(argc, argv);
    if (strcmp(verb, "unique") == 0) return cmd_unique(argc, argv);
    if (strcmp(verb, "rle") == 0) return cmd_rle(argc, argv);
    if (strcmp(verb, "transpose") == 0) return cmd_transpose(argc, argv);
    if (strcmp(verb, "gemm") == 0) return cmd_gemm(argc, argv);
    if (strcmp(verb, "version") == 0 || strcmp(verb, "--version") == 0) {
        printf("gpuprim %d.%d.%d (library %d)\n", GP_VERSION_MAJOR, GP_VERSION_MINOR, GP_VERSION_PATCH, gp_version());
        return EXIT_OK;
    }
    if (strcmp(verb, "help") == 0 || strcmp(verb, "-h") == 0 || strcmp(verb, "--help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    static const char *const verbs[] = {"info", "bandwidth", "bench", "lab", "demo", "reduce", "histogram",
                                        "scan", "select", "map", "unique", "rle", "transpose", "gemm", "version", "help"};
    const char *best = NULL;
    size_t bd = 3;
    for (size_t k = 0; k < sizeof verbs / sizeof verbs[0]; k++) {
        const size_t d = distance(verb, verbs[k]);
        if (d < bd || (strncmp(verb, verbs[k], strlen(verb)) == 0 && strlen(verb) >= 2 && d < 99))
            bd = d < bd ? d : bd, best = verbs[k];
    }
    if (best)
        fprintf(stderr, "gpuprim: unknown verb '%s'; did you mean '%s'? (gpuprim help lists the verbs)\n", verb, best);
    else
        fprintf(stderr, "gpuprim: unknown verb '%s' (gpuprim help lists the verbs)\n", verb);
    return EXIT_USAGE;
}
