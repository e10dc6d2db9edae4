/* merge_items_variant.cu — one variant of the merge kernel for merge_items.sh: src/sort/merge.cu compiled with the
 * tuning defines it is given (-DGP_MERGE_ITEMS_KEYS=.., -DGP_MERGE_VEC_MINB=..), its entry renamed -DMERGE_VARIANT=name. */
#define gp__merge_gpu MERGE_VARIANT
#include "../../src/sort/merge.cu"
