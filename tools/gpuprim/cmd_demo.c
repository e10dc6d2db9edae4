/*
 * cmd_demo.c — `gpuprim demo`, the main job behind `make demo`: device info, the transfer table, the vector bench
 * against cuBLAS, the reduction bench against CUB and the vector lab's triad progression — on the GPU, or on the CPU
 * backend (with a note) where there is none — then the data verbs (reduce, histogram, transpose) on files it generates,
 * and what to try next. Finishes in well under two minutes on either.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs one verb (argv[0]) as the command line shown. */
static int step(const char *title, int argc, char **argv)
{
    printf("\n### %s\n$ gpuprim", title);
    for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
    printf("\n");
    fflush(stdout);
    int rc = cli_run(argc, argv);
    fflush(stdout);
    return rc;
}

static const cli_spec_t spec_demo = {"demo", 0, NULL, NULL, 0, NULL,
                                     "A short tour: info, bandwidth, bench vector, bench reduce, lab vector.", NULL};

static int cmd_demo(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    int npos = 0;
    const int pr = cli_parse(&spec_demo, argc, argv, &c, NULL, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
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
        note_cpu(NULL, why, NULL); /* said: the steps below stay quiet about it */
    }
    int rc = EXIT_OK;
    char *info[] = {"info"};
    int k = step("device", 1, info);
    if (k != EXIT_OK && k != EXIT_NO_GPU && k != EXIT_NO_DRIVER) rc = k;
    if (gpu) {
        char *bw[] = {"bandwidth", "-b", "64M", "-e", "64M", "--reps", "5"};
        if ((k = step("transfers: every host memory kind, 64 MiB", 7, bw)) != EXIT_OK) rc = k;
        char *bv[] = {"bench", "vector", "--reps", "10"};
        if ((k = step("vector ops against cuBLAS and the bandwidth ceilings", 4, bv)) != EXIT_OK) rc = k;
        char *br[] = {"bench", "reduce", "--reps", "10"};
        if ((k = step("deterministic reductions against CUB", 4, br)) != EXIT_OK) rc = k;
        char *lab[] = {"lab", "vector", "--op", "triad", "-n", "2^24", "--reps", "5"};
        if ((k = step("the triad progression, each version verified", 8, lab)) != EXIT_OK) rc = k;
    } else {
        char *bv[] = {"bench", "vector", "--device", "cpu", "-n", "2^24", "--reps", "3", "--warmup", "1"};
        if ((k = step("vector ops on the CPU backend", 10, bv)) != EXIT_OK) rc = k;
        char *br[] = {"bench", "reduce", "--device", "cpu", "-n", "2^20", "--reps", "2", "--warmup", "0"};
        if ((k = step("reductions on the CPU backend (the GPU's bits, by the same tree)", 10, br)) != EXIT_OK)
            rc = k;
        char *lab[] = {"lab", "vector", "--device", "cpu", "--op", "all", "-n", "2^20", "--reps", "3"};
        /* a CPU-only build (no CUDA toolkit) has no lab topics: the step says so and the tour goes on */
        if ((k = step("the vector lab's CPU versions, each verified", 10, lab)) != EXIT_OK && k != EXIT_NO_DRIVER) rc = k;
    }
    /* The data verbs on files made here: 2^22 normal f32 values (.npy) and a 1000 x 3000 matrix. */
    char dir[] = "/tmp/gpuprim-demo-XXXXXX", vec[64], mat[64], matt[64], srt[64];
    const size_t nv = (size_t)1 << 22, rows = 1000, cols = 3000;
    float *x = malloc(nv * sizeof *x);
    if (x && mkdtemp(dir)) {
        uint64_t r = 0x243f6a8885a308d3ull;
        for (size_t i = 0; i < nv; i += 2) { /* Box-Muller on a xorshift stream */
            double u[2];
            for (int k = 0; k < 2; k++) {
                r ^= r << 13, r ^= r >> 7, r ^= r << 17;
                u[k] = ((double)(r >> 11) + 0.5) * 0x1p-53;
            }
            const double m = sqrt(-2 * log(u[0]));
            x[i] = (float)(m * cos(6.283185307179586 * u[1]));
            if (i + 1 < nv) x[i + 1] = (float)(m * sin(6.283185307179586 * u[1]));
        }
        snprintf(vec, sizeof vec, "%s/normal.npy", dir);
        snprintf(mat, sizeof mat, "%s/matrix.npy", dir);
        snprintf(matt, sizeof matt, "%s/matrix_t.npy", dir);
        snprintf(srt, sizeof srt, "%s/sorted.npy", dir);
        const size_t shape[2] = {rows, cols};
        if (gp_npy_save(vec, GP_F32, 1, &nv, 0, x) == GP_OK && gp_npy_save(mat, GP_F32, 2, shape, 0, x) == GP_OK) {
            char *rd[] = {"reduce", vec, "--op", "sum"};
            if ((k = step("a deterministic sum of a .npy file (the same bits on any GPU or the CPU)", 4, rd)) != EXIT_OK)
                rc = k;
            char *am[] = {"reduce", vec, "--op", "argmax"};
            if ((k = step("its argmax (NumPy's index)", 4, am)) != EXIT_OK) rc = k;
            char *hi[] = {"histogram", vec, "--bins", "16"};
            if ((k = step("its histogram, np.histogram's bins over the data's range", 4, hi)) !=
                EXIT_OK)
                rc = k;
            char *so[] = {"sort", vec, "-o", srt};
            if ((k = step("the values sorted in NumPy's order (stable; NaN last), .npy in and out", 4, so)) != EXIT_OK)
                rc = k;
            char *tr[] = {"transpose", mat, matt};
            if ((k = step("a 1000 x 3000 matrix transposed, .npy in and out", 3, tr)) != EXIT_OK)
                rc = k;
        }
        unlink(vec), unlink(mat), unlink(matt), unlink(srt), rmdir(dir);
    }
    free(x);
    printf("\ndemo %s\n", rc == EXIT_OK ? "finished" : "FAILED (see the messages above)");
    printf("\nNext, on your own data (.npy, raw binary with --dtype, or - for a pipe):\n"
           "  gpuprim reduce FILE --op sum|min|max|argmax|...    gpuprim histogram FILE --bins 100 --svg h.svg\n"
           "  gpuprim transpose IN.npy OUT.npy                    gpuprim gemm A.npy B.npy -o C.npy\n"
           "  gpuprim sort IN.npy -o OUT.npy [--descending]       gpuprim argsort IN.npy -o IDX.npy\n"
           "  gpuprim lab reduce     (every reduction technique of the primers, verified and timed)\n"
           "  gpuprim bench reduce   (against CUB in the same run)   gpuprim <verb> --help for the options\n");
    return rc;
}

const verb_t verb_demo = {"demo", "", "a short tour (the main job of `make demo`)",
                         &spec_demo, cmd_demo, NULL};
