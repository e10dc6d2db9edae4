/* commands.h — the CLI's verbs (one cmd_<verb>.c each; bench: one cmd_bench_<family>.c per primitive). argv[0] is the
 * verb. Each returns an exit code (lab.h). Verbs call helpers below them (util.c, bench_common.c, lab/), never each
 * other, except the dispatchers (main.c, cmd_bench.c) and the demo, which runs verbs in turn. */
#ifndef GP_CLI_COMMANDS_H
#define GP_CLI_COMMANDS_H

#include "util.h"

/* A verb (or a bench suite): one line of main.c's table (cmd_bench.c's), from which the dispatcher, `gpuprim help`,
 * the did-you-mean suggestions and the shell completions (`gpuprim completion bash|zsh`, made at build time) are
 * generated; the man page is tested against it (tests/test_cli_surface.sh). spec: its options (cli_parse's table;
 * NULL: it parses its own, as lab and bench do). */
typedef struct verb {
    const char *name, *args, *summary;
    const cli_spec_t *spec;
    int (*run)(int argc, char **argv);
} verb_t;
extern const verb_t cli_verbs[], bench_suites[];
extern const int cli_nverbs, bench_nsuites;
int cmd_completion(int argc, char **argv); /* cmd_completion.c */

int cmd_info(int argc, char **argv);
int cmd_bandwidth(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int bench_vector(int argc, char **argv);    /* argv[0] = "vector" (cmd_bench_vector.c) */
int bench_reduce(int argc, char **argv);    /* argv[0] = "reduce" (cmd_bench_reduce.c) */
int bench_histogram(int argc, char **argv); /* argv[0] = "histogram" (cmd_bench_hist.c) */
int bench_transpose(int argc, char **argv); /* argv[0] = "transpose" (cmd_bench_matrix.c) */
int bench_gemm(int argc, char **argv);      /* argv[0] = "gemm" (cmd_bench_matrix.c) */
int bench_graph(int argc, char **argv);     /* argv[0] = "graph" (cmd_bench_graph.c) */
int bench_scan(int argc, char **argv);      /* argv[0] = "scan" (cmd_bench_scan.c) */
int bench_select(int argc, char **argv);    /* argv[0] = "select" (cmd_bench_select.c) */
int bench_jit(int argc, char **argv);       /* argv[0] = "jit" (cmd_bench_jit.c) */
int bench_group(int argc, char **argv);     /* argv[0] = "group" (cmd_bench_group.c) */
/* bench_common.c, below every bench verb: the context, repetitions and report every bench verb starts with (EXIT_OK or an exit
 * code), and one result row (peer_ms <= 0: no peer). */
int bench_begin(const char *title, cli_common_t *c, gp_ctx_t **ctx, report_t *r, char *desc, size_t dlen);
/* The skewed segment mix of the segmented benches: half of n in one segment, then empty (40%), tiny (1-32, 45%),
 * medium (to 8192, 14%) and large (to 2^20, 1%) segments from a fixed generator, up to n. CSR offsets into off (cap
 * values at most); returns the segment count. */
size_t bench_skewed_offsets(int64_t *off, size_t cap, size_t n);
int bench_begin_cols(const char *title, cli_common_t *c, gp_ctx_t **ctx, report_t *r, char *desc, size_t dlen,
                     const char *const *cols, const int *num, int ncols, const char *inputs);
void vec_row(report_t *r, const char *name, const char *dtype, size_t n, double bytes, const bench_stats_t *s,
             const bench_ceilings_t *ce, const char *peer_name, double peer_ms);
int cmd_lab(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_histogram(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_select(int argc, char **argv);
int cmd_map(int argc, char **argv); /* cmd_jit.c */
/* gpuprim reduce with a user operator (--op-src / --map): cmd_jit.c, called by cmd_reduce. */
typedef struct jit_reduce_args {
    int device;
    out_format_t fmt;
    const char *path, *dtype, *offset, *count; /* the input options as given (NULL: absent) */
    const char *op_src, *identity, *map_src, *map_dtype, *op_name;
    int ordered, arity;
} jit_reduce_args_t;
int reduce_jit(const jit_reduce_args_t *a);
/* gpuprim scan --op-src (cmd_jit.c, called by cmd_scan). */
typedef struct jit_scan_args {
    int device;
    out_format_t fmt;
    const char *path, *dtype, *offset, *count, *out;
    const char *op_src, *identity;
    int arity, exclusive;
} jit_scan_args_t;
int scan_jit(const jit_scan_args_t *a);
/* gp_uop_create for a verb: prints why it failed (compile errors with the user's line and a caret); an exit code. */
int jit_make_uop(const char *verb, gp_ctx_t *ctx, const gp_uop_desc_t *d, gp_uop_t **op);
int cmd_unique(int argc, char **argv); /* cmd_runs.c */
int cmd_rle(int argc, char **argv);    /* cmd_runs.c */
int cmd_transpose(int argc, char **argv); /* cmd_matrix.c */
int cmd_gemm(int argc, char **argv);      /* cmd_matrix.c */

/* Each verb's and suite's options (in its cmd_*.c). */
extern const cli_spec_t spec_reduce, spec_histogram, spec_scan, spec_select, spec_map, spec_info, spec_demo, spec_bandwidth, spec_transpose, spec_gemm, spec_unique, spec_rle, spec_bench_graph, spec_bench_group, spec_bench_histogram, spec_bench_jit, spec_bench_transpose, spec_bench_gemm, spec_bench_reduce, spec_bench_scan, spec_bench_select, spec_bench_vector;

#endif
