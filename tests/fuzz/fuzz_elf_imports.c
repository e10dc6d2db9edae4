/*
 * fuzz_elf_imports.c — libFuzzer target: the check of what a compiled CPU operator imports (src/jit/jit_imports.c)
 * over any bytes. It reads only within the buffer (AddressSanitizer sees the rest), answers GP_OK or GP_ERR_COMPILE,
 * and a refusal says why. Seeds: a shared object calling sin (accepted) and one calling exit (refused).
 */
#include "jit/jit_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    void *copy = malloc(size ? size : 1); /* exactly size bytes: a read past them is reported */
    if (!copy) return 0;
    memcpy(copy, data, size);
    const gp_status_t st = gp__jit_check_imports("fuzz", copy, size);
    if (st != GP_OK && st != GP_ERR_COMPILE) abort();
    if (st == GP_ERR_COMPILE && strncmp(gp_last_error(), "fuzz: ", 6) != 0) abort();
    free(copy);
    return 0;
}
