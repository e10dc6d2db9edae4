/*
 * cmd_lab.c — `gpuprim lab`: the one runner of the lab's topics (lab/lab.h, the table in lab/topics.c). It parses the
 * common options and the topic's own, opens the CPU context and the GPU one, runs the topic, prints its report and
 * its claims table (table, --json, --csv) and draws its charts (--svg). `gpuprim lab --list` lists the topics,
 * `gpuprim lab TOPIC --list` a topic's versions.
 */
#include "commands.h"
#include "lab.h"

#include <stdlib.h>
#include <string.h>

/* Every lab compares the CPU versions with the GPU ones: a CPU context always, and the GPU the options ask for
 * (none, with a note, where there is no GPU). Returns EXIT_OK or the exit code to return. */
static int lab_contexts(const char *title, int device, gp_ctx_t **cpu, gp_ctx_t **gpu, const char *doing)
{
    char why[700] = "";
    *cpu = *gpu = NULL;
    gp_status_t st = gp_ctx_create(cpu, GP_DEVICE_CPU);
    if (st == GP_OK && device != GP_DEVICE_CPU) {
        st = open_context(device, gpu, why, sizeof why);
        if (st == GP_OK && gp_ctx_device(*gpu) == GP_DEVICE_CPU) {
            gp_ctx_destroy(*gpu);
            *gpu = NULL;
        }
    }
    if (st != GP_OK) {
        fprintf(stderr, "%s: %s: %s\n", title, gp_status_string(st), gp_last_error());
        gp_ctx_destroy(*cpu);
        *cpu = NULL;
        return st == GP_ERR_NO_DRIVER ? EXIT_NO_DRIVER : st == GP_ERR_NO_DEVICE ? EXIT_NO_GPU : EXIT_FAIL;
    }
    if (why[0]) note_cpu(title, why, doing);
    return EXIT_OK;
}

/* ---------------------------------------------------------------------------------------------- the runner */
static void lab_usage(FILE *f)
{
    fprintf(f, "usage: gpuprim lab TOPIC [options]   (gpuprim lab TOPIC --help; gpuprim lab --list)\n");
}

static void list_topics(FILE *f)
{
    for (int t = 0; lab_topics[t]; t++) fprintf(f, "%-12s %s\n", lab_topics[t]->name, lab_topics[t]->summary);
}

/* A topic's option values as cli_parse fills them: the runner's --list, then the topic's own (lab_run_t.value). */
typedef struct lab_vals {
    const char *list;
    const char *value[LAB_MAX_OPTS];
} lab_vals_t;

/* A topic's spec for cli_parse, cli_usage and the completions: the runner's --list and the topic's own options
 * (opts: LAB_MAX_OPTS + 2 entries), its summary and help as the help's text (about: the buffer it is made in). */
static cli_spec_t topic_spec(const lab_topic_t *t, const char *verb, cli_opt_t *opts, char *about, size_t cap)
{
    int no = 0;
    opts[no++] = (cli_opt_t){"--list", OPT_FLAG, NULL, offsetof(lab_vals_t, list), "list the topic's versions", NULL,
                             NULL, NULL};
    for (int k = 0; t->opts && k < LAB_MAX_OPTS && t->opts[k].name; k++)
        opts[no++] = (cli_opt_t){t->opts[k].name, t->opts[k].arg ? OPT_TEXT : OPT_FLAG, t->opts[k].arg,
                                 offsetof(lab_vals_t, value) + (size_t)k * sizeof(const char *), t->opts[k].help,
                                 NULL, NULL, NULL};
    opts[no] = (cli_opt_t){NULL, 0, NULL, 0, NULL, NULL, NULL, NULL};
    /* the summary, then the help's lines without their two-space indent (cli_usage indents them) */
    int len = snprintf(about, cap, "%s\n", t->summary);
    for (const char *p = t->help; p && *p && len >= 0 && (size_t)len < cap;) {
        const size_t l = strcspn(p, "\n");
        const char *q = p;
        size_t ql = l;
        while (ql && *q == ' ' && q - p < 2) q++, ql--;
        len += snprintf(about + len, cap - (size_t)len, "\n%.*s", (int)ql, q);
        p += l + (p[l] == '\n');
    }
    return (cli_spec_t){verb, COMMON_ALL, NULL, opts, 0, "[options]", about, NULL};
}

/* One runner for every topic of lab/lab.h: options, contexts, the topic's run, the report, the charts. */
static int run_topic(const lab_topic_t *t, int argc, char **argv)
{
    char title[64];
    snprintf(title, sizeof title, "gpuprim lab %s", t->name);
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 10, 2, 0};
    lab_run_t *r = calloc(1, sizeof *r);
    if (r == NULL) {
        fprintf(stderr, "%s: out of host memory\n", title);
        return EXIT_FAIL;
    }
    r->topic = t;
    /* the runner's --list and the topic's own options, parsed like every verb's */
    cli_opt_t opts[LAB_MAX_OPTS + 2];
    char about[4096];
    const cli_spec_t spec = topic_spec(t, title + strlen("gpuprim "), opts, about, sizeof about);
    lab_vals_t vals;
    int npos = 0;
    int rc = cli_parse(&spec, argc, argv, &c, &vals, NULL, &npos);
    memcpy(r->value, vals.value, sizeof r->value);
    if (rc == EXIT_OK && vals.list) t->list(stdout);
    if (rc != EXIT_OK || vals.list) {
        free(r);
        return rc == CLI_HELP ? EXIT_OK : rc;
    }
    r->reps = c.given & COMMON_REPS ? c.reps : t->reps > 0 ? t->reps : c.reps;
    r->warmup = c.given & COMMON_WARMUP ? c.warmup : t->reps > 0 ? t->warmup : c.warmup;
    r->svg = c.svg != NULL;
    if (t->needs_gpu && c.device == GP_DEVICE_CPU) {
        fprintf(stderr, "%s: needs a GPU (-d cpu has nothing to measure)\n", title);
        free(r);
        return EXIT_USAGE;
    }
    rc = lab_contexts(title, c.device, &r->cpu, &r->gpu,
                      t->needs_gpu ? "nothing to measure without a GPU" : "CPU versions only");
    if (rc == EXIT_OK && t->needs_gpu && r->gpu == NULL) rc = EXIT_NO_GPU;
    if (rc == EXIT_OK) rc = t->run(r);
    if (rc == EXIT_OK || rc == EXIT_MISMATCH) {
        report_print_with(&r->report, &r->claims, "claims", c.fmt, stdout);
        if (c.svg && svg_line_charts(c.svg, title, r->chart, r->nchart) != 0 && rc == EXIT_OK) rc = EXIT_FAIL;
    }
    if (rc == EXIT_MISMATCH) fprintf(stderr, "%s: %d version(s) FAILED verification\n", title, r->failed);
    report_free(&r->report);
    report_free(&r->claims);
    gp_ctx_destroy(r->gpu);
    gp_ctx_destroy(r->cpu);
    free(r);
    return rc;
}

static int cmd_lab(int argc, char **argv)
{
    if (lab_topics[0] == NULL) { /* a CPU-only build: the topics' versions are kernels */
        fprintf(stderr, "gpuprim lab: this gpuprim was built without the CUDA toolkit: it has no lab topics\n");
        return EXIT_NO_DRIVER;
    }
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        lab_usage(argc < 2 ? stderr : stdout);
        if (argc >= 2) list_topics(stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "--list") == 0) {
        list_topics(stdout);
        return EXIT_OK;
    }
    const lab_topic_t *topic = lab_topic_find(argv[1]);
    if (topic) return run_topic(topic, argc - 1, argv + 1);
    fprintf(stderr, "gpuprim lab: unknown topic '%s' (gpuprim lab --list lists them)\n", argv[1]);
    return EXIT_USAGE;
}

/* The topics as sub-commands (for the completions): each one's options as a cli_spec_t, made once. */
static const verb_t *const *lab_subs(void)
{
    enum { MAX_TOPICS = 32 };
    static verb_t subs[MAX_TOPICS];
    static cli_spec_t specs[MAX_TOPICS];
    static cli_opt_t opts[MAX_TOPICS][LAB_MAX_OPTS + 2];
    static char about[MAX_TOPICS][4096];
    static char names[MAX_TOPICS][48];
    static const verb_t *list[MAX_TOPICS + 1];
    if (list[0]) return list;
    int n = 0;
    for (int t = 0; lab_topics[t] && n < MAX_TOPICS; t++, n++) {
        snprintf(names[n], sizeof names[n], "lab %s", lab_topics[t]->name);
        specs[n] = topic_spec(lab_topics[t], names[n], opts[n], about[n], sizeof about[n]);
        subs[n] = (verb_t){lab_topics[t]->name, "", lab_topics[t]->summary, &specs[n], NULL, NULL};
        list[n] = &subs[n];
    }
    list[n] = NULL;
    return list;
}

const verb_t verb_lab = {"lab", "TOPIC", "every version of a technique verified and timed side by side (gpuprim lab --list)",
                         NULL, cmd_lab, lab_subs};
