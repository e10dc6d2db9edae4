/* gpu_lab_concurrency.c — every version of `gpuprim lab concurrency` runs and verifies its output on the GPU (--quick
 * sizes), through the topic table and the runner's interface, as the CLI runs it: every section present (a device
 * without persisting L2 or clusters says "skipped" for that section), the claims and charts made. Exit 77 without a
 * GPU. */
#include "lab_common.h"

int main(void)
{
    static const char *const secs[] = {"overlap", "kernels", "timers", "graphs", "persist", "managed", "dsm"};
    return lab_topic_check("concurrency", secs, 7, 30, 8, 3, 3);
}
