/* gpu_lab_scan.c — every version of `gpuprim lab scan` runs and equals the host's prefix sum exactly on the GPU
 * (--quick: 2^18 elements), through the topic table and the runner's interface as the CLI runs it, the version the
 * library takes marked, and its six claims are made. Exit 77 without a GPU. */
#include "lab_common.h"

#include "scan/scan_internal.h"

int main(void)
{
    const int te = gp__scan_auto_kernel(GP_U32) == GP__SCAN_KERNEL_ENGINE;
    const char *const versions[] = {"01", "02", "03", "04", "05", "06", te ? "07" : "07*", te ? "08*" : "08"};
    return lab_topic_check("scan", versions, 8, 8, 6, 0, 3);
}
