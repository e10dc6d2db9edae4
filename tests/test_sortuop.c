/*
 * test_sortuop.c — gp_sort_uop on the CPU backend (the system C compiler): the cases of sortuop_common.h, and a trap
 * in the comparison. The C compiler missing: reported skipped.
 */
#define _GNU_SOURCE
#include "sortuop_common.h"

#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
    tc_seed("test_sortuop");
    char dir[256];
    snprintf(dir, sizeof dir, "/tmp/gp_test_sortuop_%d", (int)getpid());
    mkdir(dir, 0700);
    setenv("GP_JIT_CACHE", dir, 1);
    gp_ctx_t *ctx;
    OK(gp_ctx_create(&ctx, GP_DEVICE_CPU));
    gp_uop_t *probe = su_less(ctx, GP_U32, 1, "a < b");
    if (!probe && strstr(gp_last_error(), "C compiler")) {
        printf("test_sortuop: SKIPPED: %s\n", gp_last_error());
        tc_fail = 0;
    } else {
        gp_uop_destroy(probe);
        su_all(ctx, 0);
        /* a trap in the comparison: the call fails naming it, the next sort runs */
        int32_t x[20000], y[20000];
        for (int i = 0; i < 20000; i++) x[i] = (i * 7919) % 20000;
        gp_uop_t *div0 = su_less(ctx, GP_I32, 1, "100 / (a - 777) < b");
        if (div0) CHECK_ST(gp_sort_uop_sync(ctx, div0, 20000, x, y, 0, NULL, NULL), GP_ERR_USER_TRAP);
        CHECK(strstr(gp_last_error(), "SIGFPE") != NULL, "names the signal: %s", gp_last_error());
        gp_uop_t *fine = su_less(ctx, GP_I32, 1, "a < b");
        if (fine) {
            OK(gp_sort_uop_sync(ctx, fine, 20000, x, y, 0, NULL, NULL));
            CHECK(y[0] == 0 && y[19999] == 19999, "a sort after a trap: %d .. %d", (int)y[0], (int)y[19999]);
        }
        gp_uop_destroy(div0), gp_uop_destroy(fine);
    }
    gp_ctx_destroy(ctx);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "test_sortuop: could not remove %s\n", dir);
    return tc_finish("test_sortuop");
}
