/*
 * fuzz_input.c — libFuzzer target: the CLI's input opener (tools/gpuprim/input.c) on any bytes, the three ways a
 * data verb meets them: a file path, a seekable standard input, and a pipe (at most 60000 bytes, so one write fills
 * it). Whatever opens is read to its end through gp_array_fread. Messages go to stderr (libFuzzer: -close_fd_mask=2).
 */
#define _GNU_SOURCE
#include "input.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void drain(input_t *in)
{
    unsigned char buf[4096];
    size_t left = in->want, got = 0;
    while (left && in->d.elem_size && in->d.elem_size <= sizeof buf) {
        size_t k = sizeof buf / in->d.elem_size;
        if (left != GP_COUNT_ALL && k > left) k = left;
        if (gp_array_fread(in->f, &in->d, k, buf, &got) != GP_OK || got == 0) break;
        if (left != GP_COUNT_ALL) left -= got;
    }
}

static void open_as(const char *path, int raw)
{
    input_t in;
    if (input_open(&in, "fuzz", path, raw, GP_F32, 0, 0, GP_COUNT_ALL) == EXIT_OK) {
        drain(&in);
        input_close(&in);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/gpuprim_fuzz_input_%ld", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    open_as(path, size & 1);
    FILE *saved = stdin;
    if ((stdin = fopen(path, "rb")) != NULL) { /* a file on standard input: seekable */
        open_as("-", 1);
        fclose(stdin);
    }
    int fd[2];
    if (size <= 60000 && pipe(fd) == 0) { /* a pipe on standard input */
        if (write(fd[1], data, size) != (ssize_t)size) size = 0;
        close(fd[1]);
        if ((stdin = fdopen(fd[0], "rb")) != NULL) {
            open_as("-", 0);
            fclose(stdin);
        } else {
            close(fd[0]);
        }
    }
    stdin = saved;
    return 0;
}
