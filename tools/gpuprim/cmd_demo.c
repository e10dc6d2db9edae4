/*
 * cmd_demo.c — `gpuprim demo`, the main job behind `make demo`: device info, the transfer table, the vector bench
 * against cuBLAS, the reduction bench against CUB and the vector lab's triad progression — on the GPU, or on the CPU backend (with a note) where
 * there is none. Finishes in well under two minutes on either.
 */
#include "commands.h"

#include <string.h>

static int step(const char *title, const char *verb, int (*fn)(int, char **), int argc, char **argv)
{
    printf("\n### %s\n$ gpuprim%s%s", title, verb ? " " : "", verb ? verb : "");
    for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
    printf("\n");
    fflush(stdout);
    int rc = fn(argc, argv);
    fflush(stdout);
    return rc;
}

int cmd_demo(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        printf("usage: gpuprim demo\n  a short tour: info, bandwidth, bench vector, bench reduce, lab vector.\n");
        return strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ? EXIT_OK : EXIT_USAGE;
    }
    int n = 0;
    gp_status_t st = gp_device_count(&n);
    const int gpu = st == GP_OK && n > 0;
    printf("gpuprim %d.%d.%d demo — %s\n", GP_VERSION_MAJOR, GP_VERSION_MINOR, GP_VERSION_PATCH,
           gpu ? "on GPU 0" : "on the CPU backend");
    if (!gpu)
    {
        char why[600];
        printf("note: %s — every step below runs on the CPU backend (C + OpenMP);\n      on a machine with a "
               "GPU the same command measures the GPU.\n", gpu_absent_reason(st, why, sizeof why));
    }
    int rc = EXIT_OK;
    char *info[] = {"info"};
    int k = step("device", NULL, cmd_info, 1, info);
    if (k != EXIT_OK && k != EXIT_NO_GPU && k != EXIT_NO_DRIVER) rc = k;
    if (gpu) {
        char *bw[] = {"bandwidth", "-b", "64M", "-e", "64M", "--reps", "5"};
        if ((k = step("transfers: every host memory kind, 64 MiB", NULL, cmd_bandwidth, 7, bw)) != EXIT_OK) rc = k;
        char *bv[] = {"vector", "--reps", "10"};
        if ((k = step("vector ops against cuBLAS and the bandwidth ceilings", "bench", bench_vector, 3, bv)) != EXIT_OK) rc = k;
        char *br[] = {"reduce", "--reps", "10"};
        if ((k = step("deterministic reductions against CUB", "bench", bench_reduce, 3, br)) != EXIT_OK) rc = k;
        char *lab[] = {"lab", "vector", "--op", "triad", "-n", "2^24", "--reps", "5"};
        if ((k = step("the triad progression, each version verified", NULL, cmd_lab, 8, lab)) != EXIT_OK) rc = k;
    } else {
        char *bv[] = {"vector", "--device", "cpu", "-n", "2^24", "--reps", "3", "--warmup", "1"};
        if ((k = step("vector ops on the CPU backend", "bench", bench_vector, 9, bv)) != EXIT_OK) rc = k;
        char *br[] = {"reduce", "--device", "cpu", "-n", "2^20", "--reps", "2", "--warmup", "0"};
        if ((k = step("reductions on the CPU backend (the GPU's bits, by the same tree)", "bench", bench_reduce, 9,
                      br)) != EXIT_OK)
            rc = k;
        char *lab[] = {"lab", "vector", "--device", "cpu", "--op", "all", "-n", "2^20", "--reps", "3"};
        if ((k = step("the vector lab's CPU versions, each verified", NULL, cmd_lab, 10, lab)) != EXIT_OK) rc = k;
    }
    printf("\ndemo %s\n", rc == EXIT_OK ? "finished" : "FAILED (see the messages above)");
    return rc;
}
