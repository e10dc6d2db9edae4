/* write_ways.c — how 1 GiB held in memory is written fastest to a fresh file in the page cache on this machine, the
 * question behind gp_array_write's way and its default writer threads (src/io/save.c, docs/design/io.md): a shared
 * mapping of the file filled by 4, 8 and 16 threads in 512 KiB pieces (the range allocated first, as the library
 * does), the same with each piece prefaulted (MADV_POPULATE_WRITE), the mapping populated at once (MAP_POPULATE),
 * ftruncate instead of fallocate, one write() of 16 MiB pieces, and pwrite by 4, 8 and 16 threads; each timed from
 * open to close with the process's page faults, three rounds.
 * Build and run: gcc -std=c11 -O2 -fopenmp bench/tune/write_ways.c -o /tmp/write_ways && /tmp/write_ways [FILE]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define N ((size_t)1 << 30)
#define PIECE ((size_t)512 << 10)
enum { MAP, MAP_PREFAULT, MAP_POPULATED, MAP_FTRUNCATE, WRITE_ONE, PWRITE, WAYS };
static const char *const g_names[WAYS] = {"mapping + memcpy (gp_array_write)", "mapping, each piece prefaulted",
                                          "mapping with MAP_POPULATE", "ftruncate + mapping", "write(), one thread",
                                          "pwrite() of 4 MiB"};

static long faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt + u.ru_majflt;
}

/* way w with th threads: 0, or -1 (errno says) */
static int write_way(int w, int th, const char *path, const unsigned char *src)
{
    const int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) return -1;
    int bad = 0;
    if (w <= MAP_FTRUNCATE) {
        if (w == MAP_FTRUNCATE ? ftruncate(fd, (off_t)N) != 0 : fallocate(fd, 0, 0, (off_t)N) != 0) bad = 1;
        const int flags = MAP_SHARED | (w == MAP_POPULATED ? MAP_POPULATE : 0);
        unsigned char *m = bad ? MAP_FAILED : mmap(NULL, N, PROT_READ | PROT_WRITE, flags, fd, 0);
        if (m != MAP_FAILED) {
#pragma omp parallel for num_threads(th) schedule(dynamic, 1)
            for (long p = 0; p < (long)(N / PIECE); p++) {
                if (w == MAP_PREFAULT) madvise(m + (size_t)p * PIECE, PIECE, MADV_POPULATE_WRITE);
                memcpy(m + (size_t)p * PIECE, src + (size_t)p * PIECE, PIECE);
            }
            munmap(m, N);
        } else
            bad = 1;
    } else if (w == WRITE_ONE) {
        for (size_t a = 0; a < N && !bad; a += (size_t)16 << 20)
            if (write(fd, src + a, (size_t)16 << 20) != (ssize_t)16 << 20) bad = 1;
    } else {
#pragma omp parallel for num_threads(th) schedule(static) reduction(| : bad)
        for (int t = 0; t < th; t++)
            for (size_t a = N / (size_t)th * (size_t)t, e = a + N / (size_t)th; a < e; a += (size_t)4 << 20)
                if (pwrite(fd, src + a, (size_t)4 << 20, (off_t)a) != (ssize_t)4 << 20) bad = 1;
    }
    return close(fd) != 0 || bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "/tmp/gp_write_ways.out";
    unsigned char *src = malloc(N);
    if (!src) return 1;
#pragma omp parallel for
    for (long i = 0; i < (long)(N / 8); i++)
        ((unsigned long long *)src)[i] = (unsigned long long)i * 0x9e3779b97f4a7c15ull;
    static const int threads[] = {4, 8, 16};
    for (int round = 0; round < 3; round++)
        for (int w = 0; w < WAYS; w++)
            for (int k = 0; k < 3; k++) {
                if ((w == MAP_POPULATED || w == WRITE_ONE) && k != 2) continue; /* one setting each */
                const int th = w == WRITE_ONE ? 1 : threads[k];
                unlink(path);
                sync();
                const long f0 = faults();
                const double t0 = omp_get_wtime();
                if (write_way(w, th, path, src) != 0) {
                    perror(g_names[w]);
                    continue;
                }
                printf("%-36s %2d threads %.3f s %7ld faults\n", g_names[w], th, omp_get_wtime() - t0, faults() - f0);
            }
    unlink(path);
    free(src);
    return 0;
}
