/* probe_clock.h — what the bench/tune probes time with: a monotonic clock in seconds and qsort's order of doubles. */
#ifndef GP_PROBE_CLOCK_H
#define GP_PROBE_CLOCK_H
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
#endif
