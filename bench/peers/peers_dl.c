/*
 * peers_dl.c — the CLI's side of the peers (peers.h): each gp_peer_* call forwards to libgpuprim_peers.so, which is
 * loaded with dlopen on the first call, so cuBLAS and CUB are loaded only by the verbs that measure against them
 * (`bench`, the matrix labs), never for a data verb or the CPU backend. The module is looked for beside the executable
 * (the build tree), then in ../lib/gpuprim/ from it (an installed tree), then on the loader's path; GPUPRIM_PEERS
 * names it explicitly. Without it every call fails with the reason in err, and the benches say the peer is missing.
 */
#define _GNU_SOURCE
#include "peers.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *g_lib;
static int g_tried;
static char g_why[200] = "the peers module was not loaded";

static void *try_open(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) snprintf(g_why, sizeof g_why, "%s", dlerror());
    return h;
}

static void *sym(const char *name)
{
    if (!g_tried) {
        g_tried = 1;
        const char *env = getenv("GPUPRIM_PEERS");
        if (env && *env) {
            g_lib = try_open(env);
        } else {
            char exe[PATH_MAX], path[PATH_MAX + 64];
            const ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
            if (k > 0) {
                exe[k] = 0;
                char *slash = strrchr(exe, '/');
                if (slash) *slash = 0;
                snprintf(path, sizeof path, "%s/libgpuprim_peers.so", exe);
                if (access(path, R_OK) == 0) g_lib = try_open(path);
                if (!g_lib) {
                    snprintf(path, sizeof path, "%s/../lib/gpuprim/libgpuprim_peers.so", exe);
                    if (access(path, R_OK) == 0) g_lib = try_open(path);
                }
            }
            if (!g_lib) g_lib = try_open("libgpuprim_peers.so");
        }
    }
    return g_lib ? dlsym(g_lib, name) : NULL;
}

static int missing(char *err)
{
    if (err) snprintf(err, 256, "cuBLAS/CUB peers unavailable: %s", g_why);
    return -1;
}

/* One forwarding function per peers.h entry: f is the module's, looked up once. */
#define FORWARD(name, params, args)                                                                                    \
    int name params                                                                                                    \
    {                                                                                                                  \
        static int(*f) params;                                                                                        \
        if (!f) *(void **)(&f) = sym(#name);                                                                           \
        return f ? f args : missing(err);                                                                              \
    }

FORWARD(gp_peer_create, (gp_peer_t **peer, int device, char *err), (peer, device, err))
FORWARD(gp_peer_axpy, (gp_peer_t *peer, int dtype_size, size_t n, double alpha, const void *x, void *y,
                       gp_peer_stream_t stream, char *err), (peer, dtype_size, n, alpha, x, y, stream, err))
FORWARD(gp_peer_dot, (gp_peer_t *peer, int dtype_size, size_t n, const void *x, const void *y, void *result_dev,
                      gp_peer_stream_t stream, char *err), (peer, dtype_size, n, x, y, result_dev, stream, err))
FORWARD(gp_peer_cub_prepare, (gp_peer_t *peer, gp_peer_cub_t kind, size_t n, char *err), (peer, kind, n, err))
FORWARD(gp_peer_cub, (gp_peer_t *peer, gp_peer_cub_t kind, size_t n, const void *x, void *out_dev,
                         gp_peer_stream_t stream, char *err), (peer, kind, n, x, out_dev, stream, err))
FORWARD(gp_peer_segsum_prepare, (size_t nseg, const long long *offsets, char *err), (nseg, offsets, err))
FORWARD(gp_peer_segsum, (size_t nseg, const long long *offsets, const float *x, float *out_dev,
                         gp_peer_stream_t stream, char *err), (nseg, offsets, x, out_dev, stream, err))
FORWARD(gp_peer_bykey_prepare, (int scan, size_t n, char *err), (scan, n, err))
FORWARD(gp_peer_bykey, (int scan, size_t n, const int *keys, const float *vals, int *keys_out, float *vals_out,
                        gp_peer_stream_t stream, char *err), (scan, n, keys, vals, keys_out, vals_out, stream, err))
FORWARD(gp_peer_segsort_prepare, (int radix, size_t n, size_t nseg, const long long *offsets, char *err),
        (radix, n, nseg, offsets, err))
FORWARD(gp_peer_segsort, (int radix, size_t n, size_t nseg, const long long *offsets, const unsigned *keys,
                          unsigned *keys_out, gp_peer_stream_t stream, char *err),
        (radix, n, nseg, offsets, keys, keys_out, stream, err))
FORWARD(gp_peer_mergesort_prepare, (size_t n, char *err), (n, err))
FORWARD(gp_peer_mergesort, (size_t n, const unsigned *keys, unsigned *keys_out, gp_peer_stream_t stream, char *err),
        (n, keys, keys_out, stream, err))
FORWARD(gp_peer_histogram_prepare, (int u8, size_t n, int nbins, double lo, double hi, char *err),
        (u8, n, nbins, lo, hi, err))
FORWARD(gp_peer_histogram, (int u8, size_t n, const void *x, int nbins, double lo, double hi, unsigned *counts_dev,
                            gp_peer_stream_t stream, char *err), (u8, n, x, nbins, lo, hi, counts_dev, stream, err))
FORWARD(gp_peer_transpose_f32, (gp_peer_t *peer, size_t rows, size_t cols, const float *in, size_t ldi, float *out,
                                size_t ldo, gp_peer_stream_t stream, char *err),
        (peer, rows, cols, in, ldi, out, ldo, stream, err))
FORWARD(gp_peer_gemm, (gp_peer_t *peer, int f64, size_t m, size_t n, size_t k, const void *a, const void *b, void *c,
                       gp_peer_stream_t stream, char *err), (peer, f64, m, n, k, a, b, c, stream, err))
FORWARD(gp_peer_gemm_batched_ex, (gp_peer_t *peer, int prec, size_t m, size_t n, size_t k, size_t batch,
                                  const void *a, const void *b, float *c, gp_peer_stream_t stream, char *err),
        (peer, prec, m, n, k, batch, a, b, c, stream, err))
FORWARD(gp_peer_gemm_ex, (gp_peer_t *peer, int prec, size_t m, size_t n, size_t k, const void *a, const void *b,
                          float *c, gp_peer_stream_t stream, char *err), (peer, prec, m, n, k, a, b, c, stream, err))

void gp_peer_destroy(gp_peer_t *peer)
{
    static void (*f)(gp_peer_t *);
    if (peer == NULL) return;
    if (!f) *(void **)(&f) = sym("gp_peer_destroy");
    if (f) f(peer);
}

const char *gp_peer_cub_name(gp_peer_cub_t kind)
{
    static const char *(*f)(gp_peer_cub_t);
    if (!f) *(void **)(&f) = sym("gp_peer_cub_name");
    return f ? f(kind) : "CUB (unavailable)";
}

unsigned long long *gp_peer_selected(void)
{
    static unsigned long long *(*f)(void);
    if (!f) *(void **)(&f) = sym("gp_peer_selected");
    return f ? f() : NULL;
}

unsigned long long *gp_peer_rle_lengths(void)
{
    static unsigned long long *(*f)(void);
    if (!f) *(void **)(&f) = sym("gp_peer_rle_lengths");
    return f ? f() : NULL;
}

const char *gp_peer_version(gp_peer_t *peer)
{
    static const char *(*f)(gp_peer_t *);
    if (!f) *(void **)(&f) = sym("gp_peer_version");
    return f ? f(peer) : "none (peers module not loaded)";
}
