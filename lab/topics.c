/* topics.c — the lab's one table of topics, in teaching order: `gpuprim lab --list` prints it, `gpuprim lab NAME`
 * runs one. A new topic is one file in lab/ defining its lab_topic_t, and one line here. */
#include "lab.h"

#ifndef GP_CPU_ONLY
extern const lab_topic_t lab_topic_vector, lab_topic_reduce, lab_topic_scan, lab_topic_sort, lab_topic_segsort,
    lab_topic_select, lab_topic_histogram, lab_topic_transpose, lab_topic_gemm, lab_topic_memory, lab_topic_concurrency;
#endif

#ifdef GP_CPU_ONLY /* a CPU-only build has no kernels, so no topics (the runner says so) */
const lab_topic_t *const lab_topics[] = {NULL};
#else
const lab_topic_t *const lab_topics[] = {
    &lab_topic_vector, &lab_topic_reduce, &lab_topic_scan, &lab_topic_sort, &lab_topic_segsort, &lab_topic_select,
    &lab_topic_histogram, &lab_topic_transpose, &lab_topic_gemm, &lab_topic_memory, &lab_topic_concurrency, NULL,
};
#endif
