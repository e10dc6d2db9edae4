/* gpu_lab_memory.c — every version of `gpuprim lab memory` runs and verifies its output on the GPU (--quick sizes),
 * through the topic table and the runner's interface, as the CLI runs it. Exit 77 without a GPU. */
#include "lab_common.h"

int main(void)
{
    static const char *const secs[] = {"coalescing", "banks", "constant", "texture", "registers", "divergence",
                                       "atomics", "staircase"};
    return lab_topic_check("memory", secs, 8, 151, 12, 7, 2);
}
