/* commands.h — the CLI's verbs (tools/gpuprim/): one cmd_<verb>.c each, defining `const verb_t verb_<name>`
 * (support.h) and listed by one word in main.c's table, from which dispatch, `gpuprim help`, did-you-mean and the
 * shell completions (`gpuprim completion bash|zsh`, made at build time) come; tests/test_cli_surface.sh checks the
 * man page and every --help against it. argv[0] is the verb; each returns an exit code (support.h). Verbs call the
 * helpers below them (util.h's device_auto.c, progress.c, values.c; input.c, output.c, pipeline.c, tools/support, the bench room), never each other, except
 * through cli_run (the demo, which runs verbs in turn) and the pairs named below. */
#ifndef GP_CLI_COMMANDS_H
#define GP_CLI_COMMANDS_H

#include "util.h"

extern const verb_t *const cli_verbs[]; /* NULL-terminated (main.c) */
extern const int cli_nverbs;
/* Runs the verb argv[0] names (EXIT_USAGE for none). */
int cli_run(int argc, char **argv);

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

#endif
