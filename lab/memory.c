/*
 * memory.c — `gpuprim lab memory`: the memory hierarchy of the primers measured on the user's GPU. Eight sections,
 * each a sweep or a progression of versions whose every output is checked exactly (kernels: memory.cu), timed with
 * the harness, shown with % of a ceiling measured in the same run (or the theoretical rate where the section has
 * one), the theory's prediction beside it, and the primers' claims with a verdict in a second table.
 */
#include "lab.h"
#include "memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SEC_COALESCING = 1, SEC_BANKS = 2, SEC_CONSTANT = 4, SEC_TEXTURE = 8, SEC_REGISTERS = 16, SEC_DIVERGENCE = 32,
       SEC_ATOMICS = 64, SEC_STAIRCASE = 128, SEC_ALL = 255 };
static const char *const sec_names[] = {"coalescing", "banks", "constant", "texture", "registers", "divergence",
                                        "atomics", "staircase"};

typedef struct mlab {
    lab_run_t *r;
    gp_ctx_t *g;
    int quick;
    int clock_khz, l2, smem_sm, sms;
    bench_ceilings_t ce;
    unsigned long long *bad; /* device counter of the check kernels */
    int rc;                  /* EXIT_FAIL once a launch failed */
} mlab_t;

/* ---------------------------------------------------------------------------------------------- timing */
typedef enum { J_COPY, J_AOS, J_SOA, J_SMEM, J_CONST, J_GATHER, J_REGS, J_DIVERGE, J_ATOM, J_CHASE, J_STREAM } jkind_t;
typedef struct job {
    jkind_t kind;
    void *a, *b, *c;
    size_t n, m;
    int i0, i1, i2, i3;
    unsigned long long t;
    float f;
} job_t;

static int job_launch(const job_t *j, gp_stream_t s)
{
    switch (j->kind) {
    case J_COPY: return lm_copy(j->a, j->b, j->n, j->i0, j->i1, j->i2, s);
    case J_AOS: return lm_aos_step(j->a, j->n, j->f, s);
    case J_SOA: return lm_soa_step(j->a, j->b, j->n, j->f, s);
    case J_SMEM: return lm_smem(j->a, j->i0, j->i1, j->i2, j->i3, s);
    case J_CONST: return lm_const(j->a, j->b, j->i0, j->i1, j->i2, j->i3, s);
    case J_GATHER: return lm_gather(j->a, j->b, j->t, j->i0, j->i1, j->i2, s);
    case J_REGS: return lm_regs(j->a, j->b, j->i0, j->i1, s);
    case J_DIVERGE: return lm_diverge(j->a, j->i0, j->i1, j->i2, s);
    case J_ATOM: return lm_atomics(j->a, j->n, j->i0, j->i1, s);
    case J_CHASE: return lm_chase(j->a, j->i0, j->b, s);
    case J_STREAM: return lm_stream_read(j->a, j->n, j->m, j->b, j->i0, j->i1, s);
    }
    return -1;
}

static gp_status_t job_rep(void *u, int rep, gp_stream_t s)
{
    (void)rep;
    return job_launch(u, s) == 0 ? GP_OK : GP_ERR_CUDA;
}

/* Runs j once (for the check) and synchronizes: 0, or says what failed and returns -1. */
static int once(mlab_t *m, const job_t *j, const char *what)
{
    int e = job_launch(j, NULL);
    if (e == 0 && gp_stream_sync(m->g, NULL) != GP_OK) e = -1;
    if (e) {
        fprintf(stderr, "gpuprim lab memory: %s: %s\n", what, e > 0 ? lm_error(e) : gp_last_error());
        m->rc = EXIT_FAIL;
        return -1;
    }
    return 0;
}

/* Median microseconds of j over the run's repetitions (reps: 0 for the run's own); < 0 when it failed. */
static double timed(mlab_t *m, job_t *j, const char *what, int reps)
{
    bench_stats_t st;
    if (bench_time(m->g, job_rep, NULL, j, m->r->warmup, reps ? reps : m->r->reps, NULL, &st) != GP_OK) {
        fprintf(stderr, "gpuprim lab memory: %s: timing: %s\n", what, gp_last_error());
        m->rc = EXIT_FAIL;
        return -1;
    }
    return st.median_ms * 1e3;
}

static unsigned long long bad_count(mlab_t *m)
{
    unsigned long long b = ~0ull;
    if (gp_memcpy_sync(m->g, &b, m->bad, sizeof b) != GP_OK) m->rc = EXIT_FAIL;
    return b;
}

/* One result row: section, version, parameter, time, a value with its unit, % of a ceiling (<= 0: none), theory,
 * check. */
static void row(mlab_t *m, const char *sec, const char *ver, const char *param, double us, double value,
                const char *unit, double pct, const char *theory, const char *check)
{
    char cus[32], cv[32], cp[32];
    snprintf(cus, sizeof cus, "%.2f", us);
    snprintf(cv, sizeof cv, "%.4g", value);
    if (pct > 0) snprintf(cp, sizeof cp, "%.1f", pct);
    else cp[0] = 0;
    const char *cells[] = {sec, ver, param, cus, cv, unit, cp, theory, check};
    report_row(&m->r->report, cells);
}

static const char *verdict_ratio(char *buf, size_t len, double measured, double predicted, double tolerance)
{
    const double q = measured / predicted;
    if (q >= 1 / tolerance && q <= tolerance) snprintf(buf, len, "holds (measured %.2fx of the prediction)", q);
    else snprintf(buf, len, "does not hold here: measured %.2fx of the prediction", q);
    return buf;
}

static void *dev_alloc(mlab_t *m, size_t bytes, gp_buffer_t *b)
{
    if (gp_mem_alloc(m->g, GP_MEM_DEVICE, bytes ? bytes : 16, b) != GP_OK) {
        fprintf(stderr, "gpuprim lab memory: %zu bytes of device memory: %s\n", bytes, gp_last_error());
        m->rc = EXIT_FAIL;
        return NULL;
    }
    return b->device;
}

/* ---------------------------------------------------------------------------------------------- coalescing */
static void sec_coalescing(mlab_t *m)
{
    lab_run_t *r = m->r;
    const size_t n = m->quick ? (size_t)1 << 19 : (size_t)1 << 25, ns = n / 8; /* stride: n / 8 outputs */
    const size_t in_n = ns * 32 > n + 32 ? ns * 32 : n + 32;
    gp_buffer_t bi = {0}, bo = {0};
    float *in = dev_alloc(m, in_n * 4, &bi), *out = in ? dev_alloc(m, n * 4, &bo) : NULL;
    if (!out || lm_fill(in, in_n, 3, NULL) != 0) goto done;
    lab_chart_t *co = lab_chart(r, "coalescing: copy out[i] = in[i + offset]", "offset (elements)", "GB/s", 0);
    lab_chart_t *cs = lab_chart(r, "coalescing: copy out[i] = in[i * stride]", "stride (elements)", "GB/s", 0);
    double base = 0, worst = 1e300;
    int worst_off = 0;
    { /* the first timed kernel of a run pays for clocks and TLBs coming up: one untimed pass of the sweep's first */
        job_t w = {.kind = J_COPY, .a = out, .b = in, .n = n, .i0 = 0, .i1 = 1, .i2 = 256};
        if (timed(m, &w, "warm-up", 0) < 0) goto done;
    }
    for (int off = 0; off <= 32 && m->rc == EXIT_OK; off++) {
        job_t j = {.kind = J_COPY, .a = out, .b = in, .n = n, .i0 = off, .i1 = 1, .i2 = 256};
        char ver[32], par[32], th[64], chk[64] = "ok";
        snprintf(ver, sizeof ver, "offset copy");
        snprintf(par, sizeof par, "offset %d", off);
        if (once(m, &j, ver) || lm_check_copy(out, n, off, 1, 3, m->bad, NULL)) break;
        const unsigned long long b = bad_count(m);
        if (b) snprintf(chk, sizeof chk, "FAIL: %llu wrong", b), lab_fail(r, par, "%llu elements wrong", b);
        const double us = timed(m, &j, par, 0), gbs = 8.0 * (double)n / (us * 1e3);
        if (us < 0) break;
        /* 32-byte sectors per warp: 4 read + 4 written aligned; a misaligned start reads a fifth. */
        snprintf(th, sizeof th, "x%.3f time (%d+4 sectors/warp)", off % 8 ? 9 / 8.0 : 1.0, off % 8 ? 5 : 4);
        row(m, "coalescing", ver, par, us, gbs, "GB/s", 100 * gbs / m->ce.d2d_gbs, th, chk);
        lab_point(co, "offset copy", off, gbs);
        if (off % 8 == 0) base += gbs / 5; /* the mean of the five aligned offsets */
        else if (gbs < worst) worst = gbs, worst_off = off;
    }
    double s1 = 0, s2 = 0, s8 = 0, s16 = 0, s32 = 0;
    for (int st = 1; st <= 32 && m->rc == EXIT_OK; st++) {
        job_t j = {.kind = J_COPY, .a = out, .b = in, .n = ns, .i0 = 0, .i1 = st, .i2 = 256};
        char par[32], th[64], chk[64] = "ok";
        snprintf(par, sizeof par, "stride %d", st);
        if (once(m, &j, par) || lm_check_copy(out, ns, 0, st, 3, m->bad, NULL)) break;
        const unsigned long long b = bad_count(m);
        if (b) snprintf(chk, sizeof chk, "FAIL: %llu wrong", b), lab_fail(r, par, "%llu elements wrong", b);
        const double us = timed(m, &j, par, 0), gbs = 8.0 * (double)ns / (us * 1e3);
        if (us < 0) break;
        const int sectors = st >= 8 ? 32 : 4 * st;
        snprintf(th, sizeof th, "x%.2f time (%d+4 sectors/warp)", (sectors + 4) / 8.0, sectors);
        row(m, "coalescing", "strided copy", par, us, gbs, "GB/s", 100 * gbs / m->ce.d2d_gbs, th, chk);
        lab_point(cs, "strided copy", st, gbs);
        if (st == 1) s1 = gbs;
        if (st == 2) s2 = gbs;
        if (st == 8) s8 = gbs;
        if (st == 16) s16 = gbs;
        if (st == 32) s32 = gbs;
    }
    if (m->rc == EXIT_OK && base > 0 && s1 > 0 && s2 > 0 && s8 > 0 && s16 > 0 && s32 > 0) {
        char meas[200], v[256];
        snprintf(meas, sizeof meas, "worst misaligned offset %d: %.0f GB/s against %.0f aligned (mean of 0, 8, 16, 24, "
                 "32): x%.2f time", worst_off, worst, base, base / worst);
        if (base / worst <= 1.125 * 1.05)
            snprintf(v, sizeof v, "holds%s", base / worst < 1.05 ? ": the extra sector is the neighbouring warp's, "
                                                                   "already on its way through the L2" : "");
        else
            snprintf(v, sizeof v, "does not hold here: x%.2f against at most x1.125", base / worst);
        lab_claim(r, "coalescing", "a misaligned start costs at most one extra 128-byte segment per warp "
                                   "(predicted at most x1.125 time in 32-byte sectors)", meas, v);
        snprintf(meas, sizeof meas, "stride 2: x%.2f, 8: x%.2f, 16: x%.2f, 32: x%.2f the time of stride 1", s1 / s2,
                 s1 / s8, s1 / s16, s1 / s32);
        const double flat = s16 / s32; /* ~1 when nothing changes past 16 */
        if (s1 / s2 > 1.2 && s1 / s8 > s1 / s2 && flat > 0.85)
            snprintf(v, sizeof v, "holds in shape; the 32-byte-sector model (x4.5 from stride 8) is %s: time grows "
                     "until stride 16 and is flat after, as if memory moved %s", s1 / s32 > 4.5 * 1.2 ? "too low" : "close",
                     s1 / s32 > 4.5 * 1.2 ? "64-byte units" : "32-byte sectors");
        else
            snprintf(v, sizeof v, "does not hold here");
        lab_claim(r, "coalescing", "strided reads waste the rest of each segment: time grows with the stride until "
                                   "every element is its own sector (predicted x4.5 from stride 8 on)", meas, v);
    }
    /* array of structs vs struct of arrays: x += vx * dt over n particles of 8 floats */
    const size_t np = m->quick ? (size_t)1 << 16 : (size_t)1 << 24;
    gp_buffer_t bp = {0}, bx = {0}, bv = {0};
    float *p = m->rc == EXIT_OK ? dev_alloc(m, np * 32, &bp) : NULL, *x = p ? dev_alloc(m, np * 4, &bx) : NULL,
          *vx = x ? dev_alloc(m, np * 4, &bv) : NULL;
    double t_aos = 0, t_soa = 0;
    for (int soa = 0; soa < 2 && vx && m->rc == EXIT_OK; soa++) {
        job_t j = {.kind = soa ? J_SOA : J_AOS, .a = soa ? x : p, .b = vx, .n = np, .f = 0.5f};
        const char *ver = soa ? "struct of arrays" : "array of structs";
        char chk[64] = "ok";
        if (soa ? lm_fill(x, np, 5, NULL) || lm_fill(vx, np, 6, NULL) : lm_fill(p, np * 8, 4, NULL)) break;
        if (once(m, &j, ver)) break;
        const lm_step_check_t c = soa ? (lm_step_check_t){1, 0, 1, 0, 5, 6, 0.5f} : (lm_step_check_t){8, 0, 8, 4, 4, 4, 0.5f};
        if (lm_check_step(soa ? x : p, np, soa ? 1 : 8, &c, m->bad, NULL)) break;
        const unsigned long long b = bad_count(m);
        if (b) snprintf(chk, sizeof chk, "FAIL: %llu wrong", b), lab_fail(r, ver, "%llu particles wrong", b);
        const double us = timed(m, &j, ver, 0), gbs = 12.0 * (double)np / (us * 1e3);
        if (us < 0) break;
        *(soa ? &t_soa : &t_aos) = us;
        row(m, "coalescing", ver, "x += vx*dt, 8 fields", us, gbs, "GB/s useful", 100 * gbs / m->ce.d2d_gbs,
            soa ? "12 B/particle moved" : "64 B/particle moved (a sector each way)", chk);
    }
    if (t_aos > 0 && t_soa > 0) {
        char meas[160], v[160];
        snprintf(meas, sizeof meas, "array of structs x%.2f the time of struct of arrays", t_aos / t_soa);
        lab_claim(r, "coalescing", "a field of an array of structs is a strided access; struct of arrays coalesces "
                                   "(predicted x5.3: 64 against 12 bytes per particle)",
                  meas, verdict_ratio(v, sizeof v, t_aos / t_soa, 64.0 / 12, 1.5));
    }
    gp_mem_free(m->g, &bp);
    gp_mem_free(m->g, &bx);
    gp_mem_free(m->g, &bv);
done:
    gp_mem_free(m->g, &bi);
    gp_mem_free(m->g, &bo);
}

/* ---------------------------------------------------------------------------------------------- banks */
/* Wavefronts of one warp request: WORD-byte loads at lane * stride words (broadcast within a word), processed per
 * phase of 128 bytes (32 lanes of 4 bytes, 16 of 8, 8 of 16); each phase takes the most distinct words any bank holds. */
int lm_wavefronts(int word, int stride)
{
    const int per_phase = 128 / word, w4 = word / 4;
    int total = 0;
    for (int ph = 0; ph < 32 / per_phase; ph++) {
        int most = 0;
        for (int bank = 0; bank < 32; bank++) {
            long seen[32];
            int ns = 0;
            for (int l = ph * per_phase; l < (ph + 1) * per_phase; l++)
                for (int q = 0; q < w4; q++) {
                    const long w = (long)l * stride * w4 + q; /* the 32-bit word */
                    if (w % 32 != bank) continue;
                    int dup = 0;
                    for (int k = 0; k < ns; k++) dup |= seen[k] == w;
                    if (!dup) seen[ns++] = w;
                }
            if (ns > most) most = ns;
        }
        total += most;
    }
    return total;
}

static uint32_t smem_ref(int word, int stride, int iters, int lane)
{
    const uint32_t per_row = 128u / (uint32_t)word, mask = 8192u / ((uint32_t)word / 4) - 1, w4 = (uint32_t)word / 4;
    uint32_t acc = 0;
    for (int it = 0; it < iters; it++) {
        const uint32_t w = ((uint32_t)lane * (uint32_t)stride + (uint32_t)it * per_row) & mask;
        for (uint32_t q = 0; q < w4; q++) acc += (w * w4 + q) * 2654435761u;
    }
    return acc;
}

static void sec_banks(mlab_t *m)
{
    lab_run_t *r = m->r;
    const int grid = 2 * m->sms, iters = m->quick ? 128 : 4096, threads = grid * 1024;
    gp_buffer_t bo = {0};
    uint32_t *out = dev_alloc(m, (size_t)threads * 4, &bo), *h = malloc((size_t)threads * 4);
    lab_chart_t *ch = lab_chart(r, "shared memory: cycles per warp request", "stride (words)", "cycles", 0);
    static const struct { int word, stride; const char *what; } pts[] = {
        {4, 0, "broadcast"}, {4, 1, ""}, {4, 2, ""}, {4, 3, ""}, {4, 4, ""}, {4, 5, ""}, {4, 6, ""}, {4, 7, ""},
        {4, 8, ""}, {4, 9, ""}, {4, 12, ""}, {4, 15, ""}, {4, 16, ""}, {4, 17, ""}, {4, 24, ""}, {4, 31, ""},
        {4, 32, "a column of float[32][32]"}, {4, 33, "padded: float[32][33]"},
        {8, 1, ""}, {8, 2, ""}, {8, 4, ""}, {8, 8, ""}, {8, 16, ""}, {8, 17, "padded"},
        {16, 1, ""}, {16, 2, ""}, {16, 4, ""}, {16, 8, ""}, {16, 9, "padded"}};
    double c1 = 0, c32 = 0, c33 = 0, c0 = 0;
    for (size_t k = 0; out && h && k < sizeof pts / sizeof pts[0] && m->rc == EXIT_OK; k++) {
        const int word = pts[k].word, stride = pts[k].stride;
        job_t j = {.kind = J_SMEM, .a = out, .i0 = word, .i1 = stride, .i2 = iters, .i3 = grid};
        char ver[48], par[64], th[64], chk[96] = "ok";
        snprintf(ver, sizeof ver, "%d-bit loads", word * 8);
        snprintf(par, sizeof par, "stride %d%s%s", stride, pts[k].what[0] ? ", " : "", pts[k].what);
        if (once(m, &j, par) || gp_memcpy_sync(m->g, h, out, (size_t)threads * 4) != GP_OK) break;
        uint32_t ref[32];
        for (int l = 0; l < 32; l++) ref[l] = smem_ref(word, stride, iters, l); /* a thread's sum depends on its lane */
        size_t wrong = 0;
        for (int t = 0; t < threads; t++) wrong += h[t] != ref[t & 31];
        if (wrong) snprintf(chk, sizeof chk, "FAIL: %zu threads wrong", wrong), lab_fail(r, par, "%zu threads", wrong);
        const double us = timed(m, &j, par, 0);
        if (us < 0) break;
        /* requests per SM: 2 blocks x 32 warps x iters; cycles at the device's peak clock */
        const double cyc = us * 1e-6 * m->clock_khz * 1e3 / (2.0 * 32 * iters);
        const int wf = lm_wavefronts(word, stride);
        snprintf(th, sizeof th, "%d wavefront%s", wf, wf == 1 ? "" : "s");
        /* % of the peak: 128 bytes per cycle per SM */
        row(m, "banks", ver, par, us, cyc, "cycles/request", 100.0 * (32.0 * word / 128) / cyc, th, chk);
        if (word == 4 && stride >= 1 && stride <= 32) lab_point(ch, "32-bit", stride, cyc);
        if (word == 8 && stride <= 16) lab_point(ch, "64-bit", stride, cyc);
        if (word == 16 && stride <= 8) lab_point(ch, "128-bit", stride, cyc);
        if (word == 4 && stride == 0) c0 = cyc;
        if (word == 4 && stride == 1) c1 = cyc;
        if (word == 4 && stride == 32) c32 = cyc;
        if (word == 4 && stride == 33) c33 = cyc;
    }
    if (c1 > 0 && c32 > 0 && c33 > 0) {
        char meas[160], v[160];
        snprintf(meas, sizeof meas, "stride 32 x%.1f the cycles of stride 1", c32 / c1);
        lab_claim(r, "banks", "threads of a warp reading different words of one bank are serialized (a column of a "
                              "32x32 float tile: 32-way, predicted x32)", meas, verdict_ratio(v, sizeof v, c32 / c1, 32, 1.3));
        snprintf(meas, sizeof meas, "float[32][33] column x%.2f the cycles of stride 1", c33 / c1);
        lab_claim(r, "banks", "padding the tile to 33 columns puts a column on 32 banks (predicted x1)", meas,
                  verdict_ratio(v, sizeof v, c33 / c1, 1, 1.3));
        snprintf(meas, sizeof meas, "all lanes on one word x%.2f the cycles of stride 1", c0 / c1);
        lab_claim(r, "banks", "when all threads of a warp read the same word it is one transaction (broadcast)", meas,
                  verdict_ratio(v, sizeof v, c0 / c1, 1, 1.3));
    }
    free(h);
    gp_mem_free(m->g, &bo);
}

/* ---------------------------------------------------------------------------------------------- constant */
static void sec_constant(mlab_t *m)
{
    lab_run_t *r = m->r;
    const int grid = 4 * m->sms, iters = m->quick ? 256 : 8192, threads = grid * 256;
    gp_buffer_t bt = {0}, bo = {0};
    uint32_t *tab = dev_alloc(m, 4096 * 4, &bt), *out = tab ? dev_alloc(m, (size_t)threads * 4, &bo) : NULL;
    uint32_t *h = malloc((size_t)threads * 4), ht[4096], ref[2][32];
    for (int i = 0; i < 4096; i++) ht[i] = lm_hash((uint64_t)i, 7);
    for (int d = 0; d < 2; d++)
        for (int l = 0; l < 32; l++) {
            uint32_t acc = 0;
            for (int it = 0; it < iters; it++)
                acc += ht[((uint32_t)it * 97u + (d ? (uint32_t)l : 0u)) & (LM_CONST_WINDOW - 1)];
            ref[d][l] = acc;
        }
    if (!out || !h || gp_memcpy_sync(m->g, tab, ht, sizeof ht) != GP_OK || lm_const_upload(NULL) != 0) {
        if (m->rc == EXIT_OK) fprintf(stderr, "gpuprim lab memory: constant: setup failed\n"), m->rc = EXIT_FAIL;
        goto done;
    }
    static const char *const path[] = {"__constant__", "__ldg (read-only)", "plain global loads"};
    double t[3][2] = {{0}};
    for (int p = 0; p < 3 && m->rc == EXIT_OK; p++)
        for (int d = 0; d < 2 && m->rc == EXIT_OK; d++) {
            job_t j = {.kind = J_CONST, .a = out, .b = tab, .i0 = p, .i1 = d, .i2 = iters, .i3 = grid};
            char par[64], chk[96] = "ok";
            snprintf(par, sizeof par, "%s", d ? "index = lane (32 words)" : "warp-uniform index");
            if (once(m, &j, path[p]) || gp_memcpy_sync(m->g, h, out, (size_t)threads * 4) != GP_OK) goto done;
            size_t wrong = 0;
            for (int k = 0; k < threads; k++) wrong += h[k] != ref[d][k & 31];
            if (wrong) snprintf(chk, sizeof chk, "FAIL: %zu threads", wrong), lab_fail(r, path[p], "%zu threads", wrong);
            const double us = timed(m, &j, path[p], 0);
            if (us < 0) goto done;
            t[p][d] = us;
            const double per = (double)threads / 32 * iters / (us * 1e-6) / 1e9; /* G warp loads / s */
            row(m, "constant", path[p], par, us, per, "G warp-loads/s", 0,
                p == 0 ? (d ? "32 addresses: serialized" : "one address: broadcast") : (d ? "one 128-byte line" : "one word"),
                chk);
        }
    if (t[0][0] > 0 && t[0][1] > 0 && t[1][0] > 0 && t[1][1] > 0) {
        char meas[200], v[160];
        snprintf(meas, sizeof meas, "uniform: constant %.0f us, __ldg %.0f us; 32 addresses: constant x%.1f slower "
                 "than uniform, __ldg x%.2f", t[0][0], t[1][0], t[0][1] / t[0][0], t[1][1] / t[1][0]);
        lab_claim(r, "constant", "constant memory is very efficient when all threads of a warp read the same "
                                 "address; different addresses are served one after another",
                  meas, t[0][1] / t[0][0] > 4 ? "holds: a divergent index serializes the constant cache"
                                               : verdict_ratio(v, sizeof v, t[0][1] / t[0][0], 32, 2));
        snprintf(meas, sizeof meas, "uniform index: __constant__ %.2fx the time of __ldg", t[0][0] / t[1][0]);
        lab_claim(r, "constant", "for a warp-uniform index, constant memory beats the global (L1/read-only) path",
                  meas, t[0][0] <= t[1][0] * 1.05 ? "holds" : "does not hold here: the L1 path is as fast or faster");
    }
done:
    free(h);
    gp_mem_free(m->g, &bt);
    gp_mem_free(m->g, &bo);
}

/* ---------------------------------------------------------------------------------------------- texture */
static void sec_texture(mlab_t *m)
{
    lab_run_t *r = m->r;
    const int w = m->quick ? 512 : 4096, h = w;
    const size_t px = (size_t)w * h;
    gp_buffer_t bi = {0}, bo = {0};
    float *img = dev_alloc(m, px * 4, &bi), *out = img ? dev_alloc(m, px * 4, &bo) : NULL;
    float *hi = malloc(px * 4), *ho = malloc(px * 4), *ref = malloc(px * 4);
    unsigned long long tex = 0;
    void *arr = NULL;
    if (!out || !hi || !ho || !ref || lm_fill(img, px, 9, NULL) != 0 || gp_stream_sync(m->g, NULL) != GP_OK ||
        gp_memcpy_sync(m->g, hi, img, px * 4) != GP_OK) {
        if (m->rc == EXIT_OK) fprintf(stderr, "gpuprim lab memory: texture: setup failed\n"), m->rc = EXIT_FAIL;
        goto done;
    }
    int e = lm_tex_create(img, w, h, &tex, &arr);
    if (e) {
        fprintf(stderr, "gpuprim lab memory: texture object: %s\n", lm_error(e));
        m->rc = EXIT_FAIL;
        goto done;
    }
    static const char *const path[] = {"plain loads", "__ldg (read-only)", "texture object (cudaArray)",
                                       "unrotated plain loads"};
    double t[4] = {0};
    for (int p = 0; p < 4 && m->rc == EXIT_OK; p++) {
        /* the reference of this version's geometry (the three rotated versions share one) */
        for (int y = 0; y < h && (p == 0 || p == 3); y++)
            for (int x = 0; x < w; x++) {
                int xs = x, ys = y;
                if (p != 3) lm_rotate(x, y, w, h, &xs, &ys);
                float acc = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        const int u = xs + dx < 0 ? 0 : xs + dx >= w ? w - 1 : xs + dx;
                        const int v = ys + dy < 0 ? 0 : ys + dy >= h ? h - 1 : ys + dy;
                        acc += hi[(size_t)v * w + u];
                    }
                ref[(size_t)y * w + x] = acc;
            }
        job_t j = {.kind = J_GATHER, .a = out, .b = img, .t = tex, .i0 = w, .i1 = h, .i2 = p};
        char par[64], chk[96] = "ok";
        snprintf(par, sizeof par, "%dx%d, 3x3 around (x, y) %s", w, h, p == 3 ? "as is" : "rotated 30 deg");
        if (gp_memset(m->g, out, 0xff, px * 4, NULL) != GP_OK || once(m, &j, path[p]) ||
            gp_memcpy_sync(m->g, ho, out, px * 4) != GP_OK)
            break;
        size_t wrong = 0;
        for (size_t i = 0; i < px; i++) wrong += memcmp(&ho[i], &ref[i], 4) != 0;
        if (wrong) snprintf(chk, sizeof chk, "FAIL: %zu pixels", wrong), lab_fail(r, path[p], "%zu pixels", wrong);
        const double us = timed(m, &j, path[p], 0);
        if (us < 0) break;
        t[p] = us;
        const double gbs = 8.0 * (double)px / (us * 1e3);
        row(m, "texture", path[p], par, us, gbs, "GB/s (4 B in + 4 B out per pixel)", 100 * gbs / m->ce.d2d_gbs,
            p == 3 ? "rows: coalesced" : p == 2 ? "2D-local tiles in the texture cache" : "lines along rows only", chk);
    }
    if (t[0] > 0 && t[1] > 0 && t[2] > 0) {
        char meas[200];
        snprintf(meas, sizeof meas, "rotated gather: texture %.0f us, __ldg %.0f us, plain %.0f us (texture x%.2f "
                 "the time of __ldg)", t[2], t[1], t[0], t[2] / t[1]);
        lab_claim(r, "texture", "texture fetches go through a dedicated cache with 2D locality and hardware "
                                "addressing, faster for 2D-local reads", meas,
                  t[2] < 0.95 * t[1] ? "holds" : "does not hold here: the unified L1 serves __ldg as well as the texture path");
        snprintf(meas, sizeof meas, "__ldg x%.2f the time of plain loads", t[1] / t[0]);
        lab_claim(r, "texture", "since cc 3.5, __ldg / const __restrict__ loads use the read-only (texture) cache",
                  meas, t[1] <= 1.05 * t[0] ? "holds (no slower)" : "does not hold here: __ldg is slower");
    }
done:
    lm_tex_destroy(tex, arr);
    free(hi);
    free(ho);
    free(ref);
    gp_mem_free(m->g, &bi);
    gp_mem_free(m->g, &bo);
}

/* ---------------------------------------------------------------------------------------------- registers */
static void sec_registers(mlab_t *m)
{
    lab_run_t *r = m->r;
    const int threads = m->sms * (m->quick ? 256 : 4096);
    gp_buffer_t bi = {0}, bo = {0};
    uint32_t *in = dev_alloc(m, (size_t)threads * LM_REG_WORDS * 4, &bi);
    uint32_t *out = in ? dev_alloc(m, (size_t)threads * 4, &bo) : NULL;
    uint32_t *hin = malloc((size_t)threads * LM_REG_WORDS * 4), *h = malloc((size_t)threads * 4);
    if (!out || !hin || !h || lm_fill_u32(in, (size_t)threads * LM_REG_WORDS, 12, NULL) != 0 ||
        gp_stream_sync(m->g, NULL) != GP_OK ||
        gp_memcpy_sync(m->g, hin, in, (size_t)threads * LM_REG_WORDS * 4) != GP_OK) {
        if (m->rc == EXIT_OK) fprintf(stderr, "gpuprim lab memory: registers: setup failed\n"), m->rc = EXIT_FAIL;
        goto done;
    }
    lab_chart_t *ch = lab_chart(r, "registers: one kernel at several register caps", "resident 256-thread blocks per SM "
                                "asked (__launch_bounds__)", "microseconds", 0);
    static const int minb[] = {1, 2, 4, 6, 8};
    double t_free = 0, t_spill = 0;
    int spill_regs = 0, spill_local = 0;
    for (int k = 0; k < 5 && m->rc == EXIT_OK; k++) {
        int regs = 0, local = 0, bps = 0;
        const int e = lm_regs_attr(minb[k], &regs, &local, &bps);
        if (e) {
            fprintf(stderr, "gpuprim lab memory: registers: %s\n", lm_error(e));
            m->rc = EXIT_FAIL;
            break;
        }
        job_t j = {.kind = J_REGS, .a = out, .b = in, .i0 = threads, .i1 = minb[k]};
        char par[64], th[96], chk[96] = "ok";
        snprintf(par, sizeof par, "__launch_bounds__(256, %d)", minb[k]);
        if (gp_memset(m->g, out, 0xff, (size_t)threads * 4, NULL) != GP_OK || once(m, &j, par) ||
            gp_memcpy_sync(m->g, h, out, (size_t)threads * 4) != GP_OK)
            break;
        size_t wrong = 0;
        for (int t = 0; t < threads; t += (t < 4096 || t > threads - 4096) ? 1 : 97)
            wrong += h[t] != lm_regs_ref(hin, threads, t);
        if (wrong) snprintf(chk, sizeof chk, "FAIL: %zu threads", wrong), lab_fail(r, par, "%zu threads", wrong);
        const double us = timed(m, &j, par, 0);
        if (us < 0) break;
        /* occupancy: resident warps over the SM's 64 */
        snprintf(th, sizeof th, "%d regs, %d B spilled, %d blocks/SM = %d%% occupancy", regs, local, bps,
                 bps * 8 * 100 / 64);
        row(m, "registers", "register cap", par, us, (double)threads / (us * 1e-6) / 1e9, "G threads/s", 0, th, chk);
        lab_point(ch, "time", minb[k], us);
        if (local == 0 && (t_free == 0 || us < t_free)) t_free = us;
        if (local > 0 && local > spill_local) t_spill = us, spill_regs = regs, spill_local = local;
    }
    if (t_free > 0 && t_spill > 0) {
        char meas[200];
        snprintf(meas, sizeof meas, "capped at %d registers (%d B spilled per thread): x%.2f the time of the best "
                 "build without spills", spill_regs, spill_local, t_spill / t_free);
        lab_claim(r, "registers", "fewer registers per thread let more blocks reside, but a cap below what the kernel "
                                  "needs spills to local memory, which has global memory's latency",
                  meas, t_spill > 1.1 * t_free ? "holds: the spills cost more than the occupancy gained"
                                               : "does not hold here: the occupancy gained hides the spills");
    }
    /* block-size sweep on the coalesced copy */
    const size_t n = m->quick ? (size_t)1 << 18 : (size_t)1 << 25;
    gp_buffer_t ci = {0}, co = {0};
    float *cin = m->rc == EXIT_OK ? dev_alloc(m, n * 4, &ci) : NULL, *cout = cin ? dev_alloc(m, n * 4, &co) : NULL;
    lab_chart_t *cb = lab_chart(r, "block size: one element per thread copy", "threads per block", "GB/s", 1);
    double best = 0, at32 = 0;
    for (int b = 32; cout && b <= 1024 && m->rc == EXIT_OK; b *= 2) {
        if (b == 32 && lm_fill(cin, n, 3, NULL) != 0) break;
        int bps = 0;
        lm_copy_occupancy(b, &bps);
        job_t j = {.kind = J_COPY, .a = cout, .b = cin, .n = n, .i0 = 0, .i1 = 1, .i2 = b};
        char par[48], th[96], chk[96] = "ok";
        snprintf(par, sizeof par, "%d threads per block", b);
        if (once(m, &j, par) || lm_check_copy(cout, n, 0, 1, 3, m->bad, NULL)) break;
        const unsigned long long bad = bad_count(m);
        if (bad) snprintf(chk, sizeof chk, "FAIL: %llu", bad), lab_fail(r, par, "%llu elements", bad);
        const double us = timed(m, &j, par, 0), gbs = 8.0 * (double)n / (us * 1e3);
        if (us < 0) break;
        const int warps = bps * b / 32;
        snprintf(th, sizeof th, "%d blocks/SM = %d%% occupancy", bps, (warps > 64 ? 64 : warps) * 100 / 64);
        row(m, "registers", "block-size sweep", par, us, gbs, "GB/s", 100 * gbs / m->ce.d2d_gbs, th, chk);
        lab_point(cb, "copy", b, gbs);
        if (gbs > best) best = gbs;
        if (b == 32) at32 = gbs;
    }
    if (best > 0 && at32 > 0) {
        char meas[160];
        snprintf(meas, sizeof meas, "32-thread blocks reach %.0f%% of the best block size's bandwidth", 100 * at32 / best);
        lab_claim(r, "registers", "blocks too small to fill the SM (a cap on resident blocks) leave it idle", meas,
                  at32 < 0.9 * best ? "holds" : "does not hold here: enough blocks reside to hide it");
    }
    gp_mem_free(m->g, &ci);
    gp_mem_free(m->g, &co);
done:
    free(hin);
    free(h);
    gp_mem_free(m->g, &bi);
    gp_mem_free(m->g, &bo);
}

/* ---------------------------------------------------------------------------------------------- divergence */
static uint32_t diverge_ref(int mode, uint32_t t, int iters)
{
    const uint32_t lane = t & 31, warp = t >> 5, x = t * 2654435761u, y = t ^ 0x9e3779b9u;
    const int b = mode == 0 ? 0 : mode == 2 ? (int)(warp & 1) : (int)(lane & 1);
    return b ? lm_path_b(y, iters) : lm_path_a(x, iters);
}

static void sec_divergence(mlab_t *m)
{
    lab_run_t *r = m->r;
    const int grid = 8 * m->sms, iters = m->quick ? 64 : 2048, threads = grid * 256;
    gp_buffer_t bo = {0};
    uint32_t *out = dev_alloc(m, (size_t)threads * 4, &bo), *h = malloc((size_t)threads * 4);
    static const char *const ver[] = {"no branch (one path)", "branch on lane parity", "branch on warp parity",
                                      "both paths, select (predicated)"};
    static const char *const th[] = {"1 path per warp", "2 paths per warp, one after the other",
                                     "1 path per warp", "2 paths per thread"};
    double t[4] = {0};
    for (int mode = 0; out && h && mode < 4 && m->rc == EXIT_OK; mode++) {
        job_t j = {.kind = J_DIVERGE, .a = out, .i0 = mode, .i1 = iters, .i2 = grid};
        char par[48], chk[96] = "ok";
        snprintf(par, sizeof par, "%d steps per path", iters);
        if (once(m, &j, ver[mode]) || gp_memcpy_sync(m->g, h, out, (size_t)threads * 4) != GP_OK) break;
        size_t wrong = 0;
        for (int k = 0; k < threads; k += (k < 4096 || k > threads - 4096) ? 1 : 61)
            wrong += h[k] != diverge_ref(mode, (uint32_t)k, iters);
        if (wrong) snprintf(chk, sizeof chk, "FAIL: %zu threads", wrong), lab_fail(r, ver[mode], "%zu threads", wrong);
        const double us = timed(m, &j, ver[mode], 0);
        if (us < 0) break;
        t[mode] = us;
        row(m, "divergence", ver[mode], par, us, t[0] > 0 ? us / t[0] : 1, "x no branch", 0, th[mode], chk);
    }
    if (t[0] > 0 && t[1] > 0 && t[2] > 0) {
        char meas[160], v[160];
        snprintf(meas, sizeof meas, "lane-parity branch x%.2f the time of the warp-parity branch (same work per "
                 "thread); predicated x%.2f", t[1] / t[2], t[3] / t[2]);
        lab_claim(r, "divergence", "threads of one warp taking different branches run both paths one after the "
                                   "other (predicted x2); a branch uniform per warp costs nothing",
                  meas, verdict_ratio(v, sizeof v, t[1] / t[2], 2, 1.25));
    }
    free(h);
    gp_mem_free(m->g, &bo);
}

/* ---------------------------------------------------------------------------------------------- atomics */
static void sec_atomics(mlab_t *m)
{
    lab_run_t *r = m->r;
    const size_t n = m->quick ? (size_t)1 << 20 : (size_t)1 << 26;
    const int maxa = 1 << 20;
    gp_buffer_t bc = {0};
    uint32_t *c = dev_alloc(m, (size_t)maxa * 4, &bc), *h = malloc((size_t)maxa * 4);
    static const struct { int mode, addresses; } pts[] = {
        {0, 1}, {0, 32}, {0, 1024}, {0, 32768}, {0, 1 << 20}, {1, 1}, {1, 32}, {1, 1024}, {1, 8192},
        {2, 1}, {2, 32}, {2, 1 << 20}};
    static const char *const ver[] = {"global atomicAdd", "shared counters, flushed per block",
                                      "warp-aggregated (__match_any_sync)"};
    lab_chart_t *ch = lab_chart(r, "atomics: n increments over A counters", "counters", "G updates/s", 1);
    double g1 = 0, gmany = 0, s1 = 0, w1 = 0;
    for (size_t k = 0; c && h && k < sizeof pts / sizeof pts[0] && m->rc == EXIT_OK; k++) {
        const int mode = pts[k].mode, a = pts[k].addresses;
        job_t j = {.kind = J_ATOM, .a = c, .n = n, .i0 = a, .i1 = mode};
        char par[48], chk[96] = "ok";
        snprintf(par, sizeof par, "%d counter%s", a, a == 1 ? "" : "s");
        if (once(m, &j, ver[mode]) || gp_memcpy_sync(m->g, h, c, (size_t)a * 4) != GP_OK) break;
        size_t wrong = 0;
        for (int i = 0; i < a; i++) wrong += h[i] != (uint32_t)(n / (size_t)a);
        if (wrong) snprintf(chk, sizeof chk, "FAIL: %zu counters", wrong), lab_fail(r, ver[mode], "%zu counters", wrong);
        const double us = timed(m, &j, ver[mode], 0), rate = (double)n / (us * 1e3);
        if (us < 0) break;
        row(m, "atomics", ver[mode], par, us, rate, "G updates/s", 0,
            mode == 0 ? (a == 1 ? "every update on one address" : a < 32 ? "lanes collide in a warp" : "one address per lane")
                      : mode == 1 ? "block-local, then A global adds per block" : "one atomic per distinct address in a warp",
            chk);
        lab_point(ch, ver[mode], a, rate);
        if (mode == 0 && a == 1) g1 = rate;
        if (mode == 0 && a == (1 << 20)) gmany = rate;
        if (mode == 1 && a == 1) s1 = rate;
        if (mode == 2 && a == 1) w1 = rate;
    }
    if (g1 > 0 && gmany > 0 && s1 > 0 && w1 > 0) {
        char meas[240];
        snprintf(meas, sizeof meas, "one counter: global %.2f, shared %.2f, warp-aggregated %.2f G updates/s; "
                 "2^20 counters: global %.2f", g1, s1, w1, gmany);
        lab_claim(r, "atomics", "atomic operations are expensive because updates of one address are serialized; "
                                "shared-memory partials and fewer, aggregated atomics relieve it", meas,
                  gmany > 2 * g1 && (s1 > g1 || w1 > g1) ? "holds" : "does not hold here: one address is as fast");
    }
    free(h);
    gp_mem_free(m->g, &bc);
}

/* ---------------------------------------------------------------------------------------------- staircase */
static void sec_staircase(mlab_t *m)
{
    lab_run_t *r = m->r;
    size_t top = (size_t)1 << 20;
    while (top < 4 * (size_t)m->l2) top <<= 1; /* the first power of two past 4x the L2 the device reports */
    if (m->quick) top = (size_t)1 << 22;
    size_t loads = m->quick ? (size_t)1 << 20 : (size_t)1 << 26; /* 16-byte loads per read pass: >= top / 16 */
    if (loads < top / 16) loads = top / 16;
    const size_t lines_max = top / 128;
    const int steps = m->quick ? 1024 : 32768;
    gp_buffer_t bch = {0}, bcy = {0}, bend = {0}, bbuf = {0};
    uint32_t *chain = dev_alloc(m, top, &bch), *cycle = chain ? dev_alloc(m, lines_max * 4, &bcy) : NULL;
    uint32_t *end = cycle ? dev_alloc(m, 64, &bend) : NULL, *buf = end ? dev_alloc(m, top, &bbuf) : NULL;
    uint32_t *hcy = malloc(lines_max * 4), *nxt = malloc(lines_max * 4), *hbuf = malloc(top);
    if (!buf || !hcy || !nxt || !hbuf || lm_fill_u32(buf, top / 4, 21, NULL) != 0 ||
        gp_stream_sync(m->g, NULL) != GP_OK || gp_memcpy_sync(m->g, hbuf, buf, top) != GP_OK) {
        if (m->rc == EXIT_OK) fprintf(stderr, "gpuprim lab memory: staircase: setup failed\n"), m->rc = EXIT_FAIL;
        goto done;
    }
    lab_chart_t *cl = lab_chart(r, "staircase: pointer-chase latency", "working set (bytes)", "ns per load", 1);
    lab_chart_t *cb = lab_chart(r, "staircase: read bandwidth, whole GPU", "working set (bytes)", "GB/s", 1);
    double lat_small = 0, lat_l2 = 0, lat_top = 0, bw_small = 0, bw_top = 0;
    size_t l2_step = 0;
    double plateau = 0;
    uint64_t rng = 0x243f6a8885a308d3ull;
    for (size_t ws = 4096; ws <= top && m->rc == EXIT_OK; ws <<= 1) {
        const size_t lines = ws / 128;
        /* Sattolo: one cycle through every line, in random order, starting anywhere (line 0 is on it) */
        for (size_t i = 0; i < lines; i++) hcy[i] = (uint32_t)i;
        for (size_t i = lines - 1; i > 0; i--) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            const size_t k = rng % i;
            const uint32_t tmp = hcy[i];
            hcy[i] = hcy[k], hcy[k] = tmp;
        }
        for (size_t i = 0; i < lines; i++) nxt[hcy[i]] = hcy[i + 1 < lines ? i + 1 : 0];
        uint32_t expect = 0;
        for (int s = 0; s < steps; s++) expect = nxt[expect];
        if (gp_memcpy_sync(m->g, cycle, hcy, lines * 4) != GP_OK || lm_chain(chain, cycle, lines, NULL) != 0) {
            m->rc = EXIT_FAIL;
            break;
        }
        char par[48], chk[96] = "ok", th[96];
        if (ws >= (1u << 20)) snprintf(par, sizeof par, "%zu MiB", ws >> 20);
        else snprintf(par, sizeof par, "%zu KiB", ws >> 10);
        job_t j = {.kind = J_CHASE, .a = chain, .b = end, .i0 = steps};
        uint32_t got = ~0u;
        if (gp_memset(m->g, end, 0, 4, NULL) != GP_OK || once(m, &j, "pointer chase") ||
            gp_memcpy_sync(m->g, &got, end, 4) != GP_OK)
            break;
        if (got != expect * 32u) snprintf(chk, sizeof chk, "FAIL: ended at %u, not %u", got, expect * 32u),
                                 lab_fail(r, par, "chase ended at %u", got);
        const double us = timed(m, &j, "pointer chase", m->quick ? 0 : 3), ns = us * 1e3 / steps;
        if (us < 0) break;
        snprintf(th, sizeof th, "%s", ws <= (size_t)m->smem_sm ? "fits one SM's L1" : ws <= (size_t)m->l2 ? "fits the L2"
                                                                                                   : "beyond the L2");
        row(m, "staircase", "pointer chase (1 thread)", par, us, ns, "ns per load", 0, th, chk);
        lab_point(cl, "latency", (double)ws, ns);
        if (ws == 16384) lat_small = ns;
        if (ws <= (size_t)m->l2 / 2) lat_l2 = ns;
        lat_top = ns;
        if (ws == ((size_t)1 << 20)) plateau = ns; /* inside the L2 of any GPU this lab knows, outside any L1 */
        if (!l2_step && plateau > 0 && ns > 1.5 * plateau) l2_step = ws;
        /* streaming read over the same working set by the whole GPU */
        const int passes = ws > (size_t)m->l2; /* past the L2: whole passes one after another */
        const size_t w16 = ws / 16, grid = (size_t)8 * m->sms, done = passes ? loads : loads / grid * grid;
        const size_t full = done / w16, rest = done % w16; /* each word read `full` times, the first `rest` once more */
        uint64_t sum = 0, head = 0;
        for (size_t i = 0; i < ws / 4; i++) {
            sum += hbuf[i];
            if (i < rest * 4) head += hbuf[i];
        }
        const uint32_t want = (uint32_t)((uint64_t)full * sum + head);
        job_t js = {.kind = J_STREAM, .a = buf, .b = end, .n = w16, .m = loads, .i0 = (int)grid, .i1 = passes};
        uint32_t gs = 0;
        char chk2[96] = "ok";
        if (once(m, &js, "streaming read") || gp_memcpy_sync(m->g, &gs, end, 4) != GP_OK) break;
        if (gs != want) snprintf(chk2, sizeof chk2, "FAIL: sum %u, not %u", gs, want), lab_fail(r, par, "sum %u", gs);
        const double us2 = timed(m, &js, "streaming read", 0), gbs = 16.0 * (double)done / (us2 * 1e3);
        if (us2 < 0) break;
        row(m, "staircase", passes ? "streaming read (all SMs, passes)" : "streaming read (each SM the whole set)", par, us2, gbs, "GB/s", 100 * gbs / m->ce.read_gbs, th, chk2);
        lab_point(cb, "read", (double)ws, gbs);
        if (ws == 16384) bw_small = gbs;
        bw_top = gbs;
    }
    if (lat_small > 0 && lat_l2 > 0 && lat_top > 0) {
        char meas[320], v[160];
        snprintf(meas, sizeof meas, "latency %.0f ns (16 KiB), %.0f ns (L2/2), %.0f ns (%zu MiB); latency passes 1.5x "
                 "the L2's at %zu KiB, the device's L2 is %d KiB; read %.0f GB/s at 16 KiB, %.0f at %zu MiB",
                 lat_small, lat_l2, lat_top, top >> 20, l2_step >> 10, m->l2 >> 10, bw_small, bw_top, top >> 20);
        snprintf(v, sizeof v, "%s", lat_small < lat_l2 && lat_l2 < lat_top && l2_step >= (size_t)m->l2 / 2 &&
                                            l2_step <= 4 * (size_t)m->l2 ? "holds: the steps sit at the sizes the device reports"
                                                                          : "does not hold here");
        lab_claim(r, "staircase", "each level further from the SM is larger and slower: L1, then the L2 shared by all "
                                  "SMs, then device memory", meas, v);
    }
done:
    free(hcy);
    free(nxt);
    free(hbuf);
    gp_mem_free(m->g, &bch);
    gp_mem_free(m->g, &bcy);
    gp_mem_free(m->g, &bend);
    gp_mem_free(m->g, &bbuf);
}

/* ---------------------------------------------------------------------------------------------- the topic */
static const lab_opt_t memory_opts[] = {
    {"--only", "LIST", "the sections to run, comma-separated: coalescing,banks,constant,texture,registers,"
                       "divergence,atomics,staircase (default: all)"},
    {"--quick", NULL, "small sizes and few steps: a check that every version runs and verifies (figures are not "
                      "the device's)"},
    {NULL, NULL, NULL}};

static void memory_list(FILE *f)
{
    static const char *const what[] = {
        "offset copy (offset 0..32), strided copy (stride 1..32), array of structs vs struct of arrays",
        "shared-memory loads of 32/64/128-bit words at strides 0..33: conflicts per request beside cycles, padding, "
        "broadcast",
        "__constant__ vs __ldg vs plain loads, warp-uniform vs per-lane index",
        "a rotated 3x3 gather: plain, __ldg, texture object on a cudaArray, and the unrotated baseline",
        "one kernel at register caps __launch_bounds__(256, 1..8): registers, spills, occupancy; block-size sweep",
        "branch on lane parity vs warp parity vs predicated",
        "global vs shared vs warp-aggregated atomics over 1 .. 2^20 counters",
        "pointer-chase latency and whole-GPU read bandwidth against the working set, 4 KiB .. past 4x the L2"};
    for (int k = 0; k < 8; k++) fprintf(f, "%-11s %s\n", sec_names[k], what[k]);
}

static int memory_run(lab_run_t *r)
{
    unsigned secs = SEC_ALL;
    const char *only = lab_opt(r, "--only");
    if (only) {
        secs = 0;
        const char *p = only;
        while (*p) {
            const size_t len = strcspn(p, ",");
            int found = 0;
            for (int k = 0; k < 8; k++)
                if (strlen(sec_names[k]) == len && strncmp(p, sec_names[k], len) == 0) secs |= 1u << k, found = 1;
            if (!found) {
                fprintf(stderr, "gpuprim lab memory: --only: unknown section '%.*s' (known: coalescing, banks, "
                                "constant, texture, registers, divergence, atomics, staircase)\n", (int)len, p);
                return EXIT_USAGE;
            }
            p += len + (p[len] == ',');
        }
    }
    if (r->gpu == NULL) {
        fprintf(stderr, "gpuprim lab memory: the memory hierarchy is the GPU's: no GPU to measure here\n");
        return EXIT_NO_GPU;
    }
    mlab_t m = {.r = r, .g = r->gpu, .quick = lab_opt(r, "--quick") != NULL, .rc = EXIT_OK};
    static const char *const cols[] = {"section", "version", "parameter", "median_us", "value", "unit", "%ceiling",
                                       "theory", "check"};
    static const int num[] = {0, 0, 0, 1, 1, 0, 1, 0, 0};
    lab_begin(r, "gpuprim lab memory", cols, num, 9);
    gp_buffer_t bb = {0};
    int e = lm_device_attrs(&m.clock_khz, &m.l2, &m.smem_sm, &m.sms);
    if (e) {
        fprintf(stderr, "gpuprim lab memory: device attributes: %s\n", lm_error(e));
        return EXIT_FAIL;
    }
    if (bench_ceilings(m.g, m.quick ? (size_t)1 << 24 : (size_t)1 << 30, r->warmup, r->reps, &m.ce) != GP_OK ||
        (m.bad = dev_alloc(&m, 64, &bb)) == NULL) {
        fprintf(stderr, "gpuprim lab memory: ceilings: %s\n", gp_last_error());
        gp_mem_free(m.g, &bb);
        return EXIT_FAIL;
    }
    report_meta(&r->report, "ceilings", "D2D copy %.0f GB/s, read kernel %.0f GB/s (same run); shared memory 128 "
                "B/cycle/SM at %d MHz peak", m.ce.d2d_gbs, m.ce.read_gbs, m.clock_khz / 1000);
    report_meta(&r->report, "caches", "L2 %d KiB, shared memory up to %d KiB per SM (from the device)", m.l2 >> 10,
                m.smem_sm >> 10);
    if (m.quick) report_meta(&r->report, "note", "--quick: small sizes, figures are not the device's");
    void (*const run[])(mlab_t *) = {sec_coalescing, sec_banks, sec_constant, sec_texture, sec_registers,
                                     sec_divergence, sec_atomics, sec_staircase};
    for (int k = 0; k < 8 && m.rc == EXIT_OK; k++)
        if (secs & (1u << k)) run[k](&m);
    gp_mem_free(m.g, &bb);
    return m.rc != EXIT_OK ? m.rc : r->failed ? EXIT_MISMATCH : EXIT_OK;
}

const lab_topic_t lab_topic_memory = {
    "memory",
    "the memory hierarchy: coalescing, banks, constant, texture, registers, divergence, atomics, staircase",
    "every section a sweep or progression of checked versions on this GPU, with % of a ceiling measured in the same\n"
    "run, the theory's prediction, and the primers' claims with a verdict. About a minute on an H100.",
    memory_opts,
    1,
    0,
    0,
    memory_list,
    memory_run,
};
