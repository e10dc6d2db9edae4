/* test_lab.c — the lab's pieces that need no GPU: the bank-conflict theory the memory lab prints, the topic table,
 * the runner's option lookup, the report with a claims table in JSON, and the line-chart SVG. */
#define _POSIX_C_SOURCE 200809L
#include "lab.h"
#include "memory.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *b = calloc(1, 1 << 20);
    size_t n = b ? fread(b, 1, (1 << 20) - 1, f) : 0;
    (void)n;
    fclose(f);
    return b;
}

int main(void)
{
    /* 32-bit words: gcd(stride, 32)-way conflicts; stride 0 is a broadcast */
    static const int s4[][2] = {{0, 1}, {1, 1}, {2, 2}, {3, 1}, {4, 4}, {6, 2}, {8, 8}, {16, 16}, {17, 1}, {24, 8},
                                {32, 32}, {33, 1}};
    for (size_t k = 0; k < sizeof s4 / sizeof s4[0]; k++)
        CHECK(lm_wavefronts(4, s4[k][0]) == s4[k][1], "32-bit stride %d: %d wavefronts, expected %d", s4[k][0],
              lm_wavefronts(4, s4[k][0]), s4[k][1]);
    /* 64-bit: two half-warp phases at least; 128-bit: four quarter-warp phases */
    CHECK(lm_wavefronts(8, 1) == 2, "64-bit stride 1: %d", lm_wavefronts(8, 1));
    CHECK(lm_wavefronts(8, 2) == 4, "64-bit stride 2: %d", lm_wavefronts(8, 2));
    CHECK(lm_wavefronts(8, 16) == 32, "64-bit stride 16: %d", lm_wavefronts(8, 16));
    CHECK(lm_wavefronts(8, 17) == 2, "64-bit stride 17: %d", lm_wavefronts(8, 17));
    CHECK(lm_wavefronts(16, 1) == 4, "128-bit stride 1: %d", lm_wavefronts(16, 1));
    CHECK(lm_wavefronts(16, 8) == 32, "128-bit stride 8: %d", lm_wavefronts(16, 8));
    CHECK(lm_wavefronts(16, 9) == 4, "128-bit stride 9: %d", lm_wavefronts(16, 9));

    /* the topic table: every topic complete and found by name */
    int ntopics = 0;
    for (int t = 0; lab_topics[t]; t++, ntopics++) {
        const lab_topic_t *tp = lab_topics[t];
        CHECK(tp->name && tp->summary && tp->help && tp->list && tp->run, "topic %d incomplete", t);
        CHECK(lab_topic_find(tp->name) == tp, "topic %s not found by name", tp->name);
        int k = 0;
        while (tp->opts && tp->opts[k].name) k++;
        CHECK(k <= LAB_MAX_OPTS, "topic %s: %d options", tp->name, k);
    }
    CHECK(ntopics >= 1 && lab_topic_find("memory") != NULL, "memory topic missing");
    CHECK(lab_topic_find("nothing") == NULL, "found a topic that is not there");

    /* options by name, the report with claims, the charts */
    lab_run_t *r = calloc(1, sizeof *r);
    r->topic = lab_topic_find("memory");
    r->value[1] = "";
    r->svg = 1;
    CHECK(lab_opt(r, "--quick") != NULL && lab_opt(r, "--only") == NULL && lab_opt(r, "--nope") == NULL, "lab_opt");
    gp_ctx_t *cpu = NULL;
    CHECK(gp_ctx_create(&cpu, GP_DEVICE_CPU) == GP_OK, "cpu context");
    r->cpu = cpu;
    static const char *const cols[] = {"a", "b"};
    static const int num[] = {0, 1};
    lab_begin(r, "t", cols, num, 2);
    const char *row1[] = {"x \"q\"", "1.5"};
    report_row(&r->report, row1);
    lab_claim(r, "sec", "claim", "measured", "holds");
    char path[] = "/tmp/gp_test_lab_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
    CHECK(f != NULL, "temp file");
    if (f) {
        report_print_with(&r->report, &r->claims, "claims", FMT_JSON, f);
        fclose(f);
        char *s = slurp(path);
        CHECK(s && strstr(s, "\"rows\": [") && strstr(s, "\"claims\": [") && strstr(s, "\"x \\\"q\\\"\"") &&
                  strstr(s, "\"verdict\": \"holds\"") && strstr(s, "\"b\": 1.5"),
              "JSON report: %s", s ? s : "(none)");
        free(s);
    }
    lab_chart_t *c = lab_chart(r, "chart", "x", "y", 1);
    CHECK(c != NULL, "lab_chart");
    for (int k = 0; k < 100; k++) lab_point(c, "s", 1 << (k % 20), k); /* more points than fit: dropped, no overflow */
    lab_point(c, "t", 1, 1);
    CHECK(c && c->npoints[0] == CHART_MAX_POINTS && c->nseries == 2, "points kept: %d", c ? c->npoints[0] : -1);
    char svg[64];
    snprintf(svg, sizeof svg, "%s.svg", path);
    CHECK(svg_line_charts(svg, "title <&>", r->chart, r->nchart) == 0, "svg written");
    char *s = slurp(svg);
    CHECK(s && strstr(s, "<polyline") && strstr(s, "title &lt;&amp;&gt;") && strstr(s, "</svg>"), "svg content");
    free(s);
    CHECK(svg_line_charts("/nonexistent-dir/x.svg", "t", r->chart, r->nchart) != 0, "svg to a bad path fails");
    unlink(svg);
    unlink(path);
    report_free(&r->report);
    report_free(&r->claims);
    gp_ctx_destroy(cpu);
    free(r);
    if (fails) fprintf(stderr, "test_lab: %d FAILED\n", fails);
    else printf("test_lab: all passed\n");
    return fails ? 1 : 0;
}
