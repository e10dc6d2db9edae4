/* gpu_lab_scan.c — every version of `gpuprim lab scan` runs and equals the host's prefix sum exactly on the GPU
 * (--quick: 2^18 elements), through the topic table and the runner's interface as the CLI runs it, and its five
 * claims are made. Exit 77 without a GPU. */
#include "lab_common.h"

int main(void)
{
    static const char *const versions[] = {"01", "02", "03", "04", "05", "06", "07*"};
    return lab_topic_check("scan", versions, 7, 7, 5, 0, 3);
}
