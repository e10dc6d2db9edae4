/* gpu_lab_select.c — every version of `gpuprim lab select` runs and equals the first k of the CPU backend's sort
 * exactly on the GPU (--quick: 2^18 keys, k = 16, 1024, 65536), through the topic table and the runner's interface as
 * the CLI runs it, and its three claims are made. Exit 77 without a GPU. */
#include "lab_common.h"

int main(void)
{
    static const char *const versions[] = {"01", "02", "03", "04*"};
    return lab_topic_check("select", versions, 4, 12, 3, 1, 3);
}
