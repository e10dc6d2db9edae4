/*
 * fuzz_uop_text.c — libFuzzer target: how a user operator's text is handled before and after the compiler: the
 * identity split into components, the refusal of preprocessor tokens, and the compiler's log rewritten to the user's
 * positions. Any text: the components lie inside the text and do not overlap; a text the check accepts has no '#'
 * outside literals; the log's rewrite is always terminated and within its buffer.
 */
#include "jit/jit_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = 0;
    const size_t len = strlen(s);
    size_t st[16], ln[16];
    const int k = gp__jit_split_identity(s, st, ln, 16);
    if (k < 1) abort();
    for (int i = 0; i < k && i < 16; i++) {
        if (st[i] > len || st[i] + ln[i] > len) abort();
        if (i > 0 && st[i] < st[i - 1] + ln[i - 1]) abort();
    }
    if (gp__jit_check_text("fuzz", "src", s) == GP_OK) { /* no '#' outside a literal */
        char q = 0;
        for (size_t i = 0; i < len; i++) {
            if (q) {
                if (s[i] == '\\' && s[i + 1]) i++;
                else if (s[i] == q) q = 0;
            } else if (s[i] == '"' || s[i] == '\'') {
                q = s[i];
            } else if (s[i] == '#') {
                abort();
            }
        }
    }
    char out[512];
    memset(out, 'x', sizeof out);
    gp__jit_format_log(out, 200, s, size % 3 ? "op.c" : NULL);
    if (memchr(out, 0, 200) == NULL || out[200] != 'x') abort();
    free(s);
    return 0;
}
