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

static void topic_usage(const lab_topic_t *t, FILE *f)
{
    fprintf(f, "usage: gpuprim lab %s [--list] [-d DEVICE|cpu] [--reps N] [--warmup N] [--json|--csv] [--svg FILE]",
            t->name);
    for (int k = 0; t->opts && t->opts[k].name; k++)
        fprintf(f, " [%s%s%s]", t->opts[k].name, t->opts[k].arg ? " " : "", t->opts[k].arg ? t->opts[k].arg : "");
    fprintf(f, "\n  %s\n", t->summary);
    fprintf(f, "%s\n", t->help);
    for (int k = 0; t->opts && t->opts[k].name; k++)
        fprintf(f, "  %s%s%s: %s\n", t->opts[k].name, t->opts[k].arg ? " " : "", t->opts[k].arg ? t->opts[k].arg : "",
                t->opts[k].help);
}

static const lab_topic_t *g_usage_topic; /* the topic whose usage cli_parse prints for --help */
static void usage_of_topic(FILE *f) { topic_usage(g_usage_topic, f); }

/* One runner for every topic of lab/lab.h: options, contexts, the topic's run, the report, the charts. */
static int run_topic(const lab_topic_t *t, int argc, char **argv)
{
    char title[64];
    snprintf(title, sizeof title, "gpuprim lab %s", t->name);
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 10, 2, 0};
    lab_run_t *r = calloc(1, sizeof *r);
    if (r == NULL) {
        fprintf(stderr, "%s: out of host memory\n", title);
        return EXIT_FAIL;
    }
    r->topic = t;
    /* the runner's --list and the topic's own options, parsed like every verb's */
    const char *o_list = NULL;
    cli_opt_t opts[LAB_MAX_OPTS + 2];
    int no = 0;
    opts[no++] = (cli_opt_t){"--list", NULL, &o_list};
    for (int k = 0; t->opts && k < LAB_MAX_OPTS && t->opts[k].name; k++)
        opts[no++] = (cli_opt_t){t->opts[k].name, t->opts[k].arg, &r->value[k]};
    opts[no] = (cli_opt_t){NULL, NULL, NULL};
    g_usage_topic = t;
    const cli_spec_t spec = {title + strlen("gpuprim "), COMMON_ALL, NULL, opts, 0, usage_of_topic};
    int npos = 0;
    int rc = cli_parse(&spec, argc, argv, &c, NULL, &npos);
    if (rc == EXIT_OK && o_list) t->list(stdout);
    if (rc != EXIT_OK || o_list) {
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
    static const verb_t *list[MAX_TOPICS + 1];
    if (list[0]) return list;
    int n = 0;
    for (int t = 0; lab_topics[t] && n < MAX_TOPICS; t++, n++) {
        int k = 0;
        opts[n][k++] = (cli_opt_t){"--list", NULL, NULL};
        for (const lab_opt_t *o = lab_topics[t]->opts; o && o->name && k <= LAB_MAX_OPTS; o++)
            opts[n][k++] = (cli_opt_t){o->name, o->arg, NULL};
        specs[n] = (cli_spec_t){lab_topics[t]->name, COMMON_ALL, NULL, opts[n], 0, NULL};
        subs[n] = (verb_t){lab_topics[t]->name, "", lab_topics[t]->summary, &specs[n], NULL, NULL};
        list[n] = &subs[n];
    }
    list[n] = NULL;
    return list;
}

const verb_t verb_lab = {"lab", "TOPIC", "every version of a technique verified and timed side by side (gpuprim lab --list)",
                         NULL, cmd_lab, lab_subs};
