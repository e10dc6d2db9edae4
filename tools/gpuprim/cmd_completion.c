/*
 * cmd_completion.c — `gpuprim completion bash|zsh`: the shell completion scripts, made from the verb table
 * (main.c), the bench suites (cmd_bench.c), each one's options (its cli_spec_t) and the lab's topics. The build runs
 * it to make the installed scripts, so a new verb, suite, topic or option completes without an edit here.
 */
#include "commands.h"

#include <string.h>

/* What an option's value completes to: a word list, or files. */
static const struct {
    const char *opts; /* space-separated names */
    const char *words; /* NULL: files */
} k_values[] = {
    {"--op", "sum prod min max minmax argmin argmax and or xor count_nonzero mat2 mat3 mat4 affine first last"},
    {"--dtype --out-dtype --map-dtype", "u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64 bool"},
    {"--acc", "default u8 i8 u16 i16 u32 i32 u64 i64 f32 f64"},
    {"-d --device", "cpu auto 0 1 2 3"},
    {"--precision", "fp32 tf32 bf16 fp16"},
    {"--read", "pread map"},
    {"--order", "c f"},
    {"--devices", "all cpu:2 gpu:2 0,1"},
    {"--where", "nonzero nan notnan eq: ne: lt: le: gt: ge: in:"},
    {"-o --output --svg --lengths --c", NULL},
};
enum { NVALUES = sizeof k_values / sizeof k_values[0] };

static int has_word(const char *list, const char *w)
{
    const size_t n = strlen(w);
    for (const char *p = list; (p = strstr(p, w)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
    return 0;
}

/* Every option name of a spec (its own, the common ones it takes, the sweep's), space-separated, then --help. */
static void spec_options(FILE *f, const cli_spec_t *s)
{
    static const struct {
        unsigned bit;
        const char *names;
    } common[] = {{COMMON_DEVICE, "-d --device"}, {COMMON_JSON, "--json"}, {COMMON_CSV, "--csv"},
                  {COMMON_SVG, "--svg"},          {COMMON_REPS, "--reps"}, {COMMON_WARMUP, "--warmup"}};
    for (const cli_opt_t *o = s ? s->opts : NULL; o && o->names; o++) {
        for (const char *p = o->names; *p; p++) fputc(*p == '|' ? ' ' : *p, f);
        fputc(' ', f);
    }
    for (size_t k = 0; s && k < sizeof common / sizeof common[0]; k++)
        if (s->common & common[k].bit) fprintf(f, "%s ", common[k].names);
    if (s && s->sweep) fputs("-b -e -f ", f);
    fputs("--help", f);
}

static void bash(FILE *f)
{
    fputs("# bash completion for gpuprim, made by `gpuprim completion bash` from its tables\n"
          "_gpuprim() {\n"
          "    local cur prev verb opts\n"
          "    cur=${COMP_WORDS[COMP_CWORD]}\n"
          "    prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"",
          f);
    for (int i = 0; i < cli_nverbs; i++) fprintf(f, "%s%s", i ? " " : "", cli_verbs[i].name);
    fputs("\" -- \"$cur\")); return\n    fi\n    case $prev in\n", f);
    for (int k = 0; k < NVALUES; k++) {
        fputs("        ", f);
        for (const char *p = k_values[k].opts; *p; p++) fputc(*p == ' ' ? '|' : *p, f);
        if (k_values[k].words)
            fprintf(f, ") COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return;;\n", k_values[k].words);
        else
            fputs(") COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n", f);
    }
    fputs("    esac\n    verb=${COMP_WORDS[1]}\n    case $verb in\n        bench|lab)\n"
          "            if [ \"$COMP_CWORD\" -eq 2 ]; then\n"
          "                if [ \"$verb\" = bench ]; then opts=\"",
          f);
    for (int i = 0; i < bench_nsuites; i++) fprintf(f, "%s%s", i ? " " : "", bench_suites[i].name);
    fputs("\"; else opts=\"--list", f);
    for (int t = 0; lab_topics[t]; t++) fprintf(f, " %s", lab_topics[t]->name);
    fputs("\"; fi\n                COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); return\n            fi\n"
          "            verb=\"$verb ${COMP_WORDS[2]}\";;\n    esac\n    case $verb in\n",
          f);
    for (int i = 0; i < cli_nverbs; i++) {
        if (!cli_verbs[i].spec) continue;
        fprintf(f, "        %s) opts=\"", cli_verbs[i].name);
        spec_options(f, cli_verbs[i].spec);
        fputs("\";;\n", f);
    }
    for (int i = 0; i < bench_nsuites; i++) {
        fprintf(f, "        \"bench %s\") opts=\"", bench_suites[i].name);
        spec_options(f, bench_suites[i].spec);
        fputs("\";;\n", f);
    }
    for (int t = 0; lab_topics[t]; t++) {
        fprintf(f, "        \"lab %s\") opts=\"--list ", lab_topics[t]->name);
        for (const lab_opt_t *o = lab_topics[t]->opts; o && o->name; o++) fprintf(f, "%s ", o->name);
        fputs("-d --device --json --csv --svg --reps --warmup --help\";;\n", f);
    }
    fputs("        *) opts=\"--help\";;\n    esac\n"
          "    if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    else\n        COMPREPLY=($(compgen -f -- \"$cur\"))\n    fi\n}\ncomplete -F _gpuprim gpuprim\n",
          f);
}

/* One zsh _arguments spec per option: '--op[OP]:OP:(sum ...)', a flag '--json', a file '-o[OUT]:OUT:_files'. */
static void zsh_option(FILE *f, const char *name, const char *arg)
{
    if (!arg) {
        fprintf(f, " '%s'", name);
        return;
    }
    const char *words = "";
    int files = 0;
    for (int k = 0; k < NVALUES; k++)
        if (has_word(k_values[k].opts, name)) words = k_values[k].words, files = words == NULL;
    if (files) fprintf(f, " '%s[%s]:%s:_files'", name, arg, arg);
    else if (words && words[0]) fprintf(f, " '%s[%s]:%s:(%s)'", name, arg, arg, words);
    else fprintf(f, " '%s[%s]:%s:'", name, arg, arg);
}

static void zsh_spec(FILE *f, const cli_spec_t *s)
{
    for (const cli_opt_t *o = s ? s->opts : NULL; o && o->names; o++) {
        char buf[64];
        const char *p = o->names;
        while (*p) {
            size_t n = strcspn(p, "|");
            if (n >= sizeof buf) n = sizeof buf - 1;
            memcpy(buf, p, n), buf[n] = 0;
            zsh_option(f, buf, o->arg);
            p += n + (p[n] == '|');
        }
    }
    if (s && (s->common & COMMON_DEVICE)) zsh_option(f, "-d", "DEVICE"), zsh_option(f, "--device", "DEVICE");
    if (s && (s->common & COMMON_JSON)) zsh_option(f, "--json", NULL);
    if (s && (s->common & COMMON_CSV)) zsh_option(f, "--csv", NULL);
    if (s && (s->common & COMMON_SVG)) zsh_option(f, "--svg", "FILE");
    if (s && (s->common & COMMON_REPS)) zsh_option(f, "--reps", "N");
    if (s && (s->common & COMMON_WARMUP)) zsh_option(f, "--warmup", "N");
    if (s && s->sweep) zsh_option(f, "-b", "MIN"), zsh_option(f, "-e", "MAX"), zsh_option(f, "-f", "FACTOR");
    fputs(" '--help' '*:file:_files';;\n", f);
}

static void zsh(FILE *f)
{
    fputs("#compdef gpuprim\n# zsh completion for gpuprim, made by `gpuprim completion zsh` from its tables\n"
          "local -a verbs\nverbs=(",
          f);
    for (int i = 0; i < cli_nverbs; i++) fprintf(f, "%s%s", i ? " " : "", cli_verbs[i].name);
    fputs(")\nif (( CURRENT == 2 )); then\n  _describe 'verb' verbs\n  return\nfi\nlocal verb=${words[2]}\n"
          "case $verb in\n  bench) (( CURRENT == 3 )) && { _values 'suite'",
          f);
    for (int i = 0; i < bench_nsuites; i++) fprintf(f, " %s", bench_suites[i].name);
    fputs("; return }; verb=\"bench ${words[3]}\";;\n  lab) (( CURRENT == 3 )) && { _values 'topic' --list", f);
    for (int t = 0; lab_topics[t]; t++) fprintf(f, " %s", lab_topics[t]->name);
    fputs("; return }; verb=\"lab ${words[3]}\";;\nesac\ncase $verb in\n", f);
    for (int i = 0; i < cli_nverbs; i++) {
        if (!cli_verbs[i].spec) continue;
        fprintf(f, "  %s) _arguments -s", cli_verbs[i].name);
        zsh_spec(f, cli_verbs[i].spec);
    }
    for (int i = 0; i < bench_nsuites; i++) {
        fprintf(f, "  'bench %s') _arguments -s", bench_suites[i].name);
        zsh_spec(f, bench_suites[i].spec);
    }
    for (int t = 0; lab_topics[t]; t++) {
        fprintf(f, "  'lab %s') _arguments -s '--list'", lab_topics[t]->name);
        for (const lab_opt_t *o = lab_topics[t]->opts; o && o->name; o++) zsh_option(f, o->name, o->arg);
        fputs(" '-d[DEVICE]:DEVICE:(cpu auto 0 1 2 3)' '--json' '--csv' '--svg[FILE]:FILE:_files' '--reps[N]:N:'"
              " '--warmup[N]:N:' '--help';;\n",
              f);
    }
    fputs("  *) _files;;\nesac\n", f);
}

int cmd_completion(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "bash") == 0) {
        bash(stdout);
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
    }
    if (argc == 2 && strcmp(argv[1], "zsh") == 0) {
        zsh(stdout);
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
    }
    FILE *f = argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) ? stdout : stderr;
    fprintf(f, "usage: gpuprim completion bash|zsh   (the completion script on standard output; the build installs "
               "both)\n");
    return f == stdout ? EXIT_OK : EXIT_USAGE;
}
