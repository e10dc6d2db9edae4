/* gpu_lab_segsort.c — every version of `gpuprim lab segsort` runs and equals the CPU backend's segmented sort exactly
 * on the GPU (--quick: 2^18 keys), through the topic table and the runner's interface as the CLI runs it, and its
 * three claims are made. Exit 77 without a GPU. */
#include "lab_common.h"

int main(void)
{
    static const char *const versions[] = {"01", "02", "03", "04*"};
    return lab_topic_check("segsort", versions, 4, 4, 3, 0, 3);
}
