/* gpu_lab_sort.c — every version of `gpuprim lab sort` runs and equals the host's sorted keys exactly on the GPU
 * (--quick: 2^18 keys), through the topic table and the runner's interface as the CLI runs it, and its five claims
 * are made. Exit 77 without a GPU. */
#include "lab_common.h"

int main(void)
{
    static const char *const versions[] = {"01", "02", "03", "04", "05", "06*"};
    return lab_topic_check("sort", versions, 6, 6, 5, 0, 3);
}
