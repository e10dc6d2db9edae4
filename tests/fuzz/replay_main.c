/*
 * replay_main.c — runs a libFuzzer target without libFuzzer (any C compiler, for ctest): every file of the corpus
 * folders given, then N deterministic mutations of each (byte flips, truncations, insertions), so `make test` exercises
 * the parsers on every submission. Usage: fuzz_replay_X [-n N] DIR|FILE... Prints "N passed, 0 failed"; a target that
 * crashes or aborts fails the test.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
    return g_rng;
}

static long g_runs;

static void run_file(const char *path, int mutations)
{
    FILE *f = fopen(path, "rb");
    if (!f) return;
    uint8_t *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 64, f) : 0;
    fclose(f);
    if (!buf) return;
    LLVMFuzzerTestOneInput(buf, n), g_runs++;
    uint8_t *m = malloc((1 << 20));
    for (int k = 0; m && k < mutations; k++) {
        size_t len = n;
        memcpy(m, buf, n);
        const int edits = 1 + (int)(next() % 4);
        for (int e = 0; e < edits; e++) {
            const uint64_t r = next();
            switch (r % 4) {
            case 0: if (len) m[(r >> 8) % len] ^= (uint8_t)(1u << ((r >> 40) % 8)); break;
            case 1: if (len) m[(r >> 8) % len] = (uint8_t)(r >> 32); break;
            case 2: if (len) len = (size_t)((r >> 8) % len); break;
            default: if (len < (1 << 20) - 64) {
                    const size_t at = len ? (size_t)((r >> 8) % len) : 0;
                    memmove(m + at + 1, m + at, len - at);
                    m[at] = (uint8_t)(r >> 32);
                    len++;
                }
            }
        }
        LLVMFuzzerTestOneInput(m, len), g_runs++;
    }
    free(m);
    free(buf);
}

int main(int argc, char **argv)
{
    int mutations = 200;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            mutations = atoi(argv[++i]);
            continue;
        }
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "replay: %s: not found\n", argv[i]);
            printf("0 passed, 1 failed\n");
            return 1;
        }
        if (!S_ISDIR(sb.st_mode)) {
            run_file(argv[i], mutations);
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
            run_file(p, mutations);
        }
        if (d) closedir(d);
    }
    printf("%s: %ld inputs replayed\n%ld passed, 0 failed\n", argv[0], g_runs, g_runs);
    return g_runs > 0 ? 0 : 1;
}
