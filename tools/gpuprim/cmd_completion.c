/*
 * cmd_completion.c — `gpuprim completion bash|zsh`: the shell completion scripts, made from the verb table
 * (main.c), each verb's sub-commands (bench's suites, lab's topics: verb_t.subs) and each one's options (its
 * cli_spec_t). The build runs it to make the installed scripts, so a new verb, suite, topic or option completes
 * without an edit here.
 */
#include "commands.h"

#include <errno.h>
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
    {"--ranks", "env"},
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

/* The verbs that have sub-commands, as "a|b" (a case pattern), and each one's words. */
static void sub_verbs(FILE *f, const char *sep)
{
    int k = 0;
    for (int i = 0; i < cli_nverbs; i++)
        if (cli_verbs[i]->subs) fprintf(f, "%s%s", k++ ? sep : "", cli_verbs[i]->name);
}

static void sub_words(FILE *f, const verb_t *v)
{
    const verb_t *const *subs = v->subs();
    for (int t = 0; subs && subs[t]; t++) fprintf(f, "%s%s", t ? " " : "", subs[t]->name);
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
    for (int i = 0; i < cli_nverbs; i++) fprintf(f, "%s%s", i ? " " : "", cli_verbs[i]->name);
    fputs("\" -- \"$cur\")); return\n    fi\n    case $prev in\n", f);
    for (int k = 0; k < NVALUES; k++) {
        fputs("        ", f);
        for (const char *p = k_values[k].opts; *p; p++) fputc(*p == ' ' ? '|' : *p, f);
        if (k_values[k].words)
            fprintf(f, ") COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return;;\n", k_values[k].words);
        else
            fputs(") COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n", f);
    }
    fputs("    esac\n    verb=${COMP_WORDS[1]}\n    case $verb in\n        ", f);
    sub_verbs(f, "|");
    fputs(")\n            if [ \"$COMP_CWORD\" -eq 2 ]; then\n                case $verb in\n", f);
    for (int i = 0; i < cli_nverbs; i++) {
        if (!cli_verbs[i]->subs) continue;
        fprintf(f, "                    %s) opts=\"", cli_verbs[i]->name);
        sub_words(f, cli_verbs[i]);
        fputs("\";;\n", f);
    }
    fputs("                esac\n                COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); return\n"
          "            fi\n            verb=\"$verb ${COMP_WORDS[2]}\";;\n    esac\n    case $verb in\n",
          f);
    for (int i = 0; i < cli_nverbs; i++) {
        if (cli_verbs[i]->spec) {
            fprintf(f, "        %s) opts=\"", cli_verbs[i]->name);
            spec_options(f, cli_verbs[i]->spec);
            fputs("\";;\n", f);
        }
        const verb_t *const *subs = cli_verbs[i]->subs ? cli_verbs[i]->subs() : NULL;
        for (int t = 0; subs && subs[t]; t++) {
            fprintf(f, "        \"%s %s\") opts=\"", cli_verbs[i]->name, subs[t]->name);
            spec_options(f, subs[t]->spec);
            fputs("\";;\n", f);
        }
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
    for (int i = 0; i < cli_nverbs; i++) fprintf(f, "%s%s", i ? " " : "", cli_verbs[i]->name);
    fputs(")\nif (( CURRENT == 2 )); then\n  _describe 'verb' verbs\n  return\nfi\nlocal verb=${words[2]}\n"
          "case $verb in\n",
          f);
    for (int i = 0; i < cli_nverbs; i++) {
        if (!cli_verbs[i]->subs) continue;
        fprintf(f, "  %s) (( CURRENT == 3 )) && { _values '%s'", cli_verbs[i]->name, cli_verbs[i]->args);
        const verb_t *const *subs = cli_verbs[i]->subs();
        for (int t = 0; subs && subs[t]; t++) fprintf(f, " %s", subs[t]->name);
        fprintf(f, "; return }; verb=\"%s ${words[3]}\";;\n", cli_verbs[i]->name);
    }
    fputs("esac\ncase $verb in\n", f);
    for (int i = 0; i < cli_nverbs; i++) {
        if (cli_verbs[i]->spec) {
            fprintf(f, "  %s) _arguments -s", cli_verbs[i]->name);
            zsh_spec(f, cli_verbs[i]->spec);
        }
        const verb_t *const *subs = cli_verbs[i]->subs ? cli_verbs[i]->subs() : NULL;
        for (int t = 0; subs && subs[t]; t++) {
            fprintf(f, "  '%s %s') _arguments -s", cli_verbs[i]->name, subs[t]->name);
            zsh_spec(f, subs[t]->spec);
        }
    }
    fputs("  *) _files;;\nesac\n", f);
}

/* Text for roff: '-' as \- (a real minus), nothing else needs escaping in the tables' words. */
static void roff(FILE *f, const char *s)
{
    for (; *s; s++) *s == '-' ? fputs("\\-", f) : fputc(*s, f);
}

/* The man page: the hand-written PAGE with its .TH line carrying this version, and before DESCRIPTION every verb of
 * the table with its arguments and summary (and the sub-commands of those that have them), so that a new verb is on
 * the page without an edit there; the hand-written VERBS section adds what a line cannot say. */
static int man(const char *page)
{
    FILE *in = fopen(page, "r");
    if (!in) {
        fprintf(stderr, "gpuprim completion man: %s: %s\n", page, strerror(errno));
        return EXIT_FAIL;
    }
    char line[4096];
    while (fgets(line, sizeof line, in)) {
        if (strncmp(line, ".TH ", 4) == 0) {
            char date[32] = "";
            const char *q = strchr(line, '"'), *e = q ? strchr(q + 1, '"') : NULL;
            if (q && e && (size_t)(e - q - 1) < sizeof date) memcpy(date, q + 1, (size_t)(e - q - 1)), date[e - q - 1] = 0;
            printf(".TH GPUPRIM 1 \"%s\" \"gpuprim %d.%d.%d\" \"User Commands\"\n", date, GP_VERSION_MAJOR,
                   GP_VERSION_MINOR, GP_VERSION_PATCH);
            continue;
        }
        if (strncmp(line, ".SH DESCRIPTION", 15) == 0) {
            printf(".PP\nThe verbs (gpuprim help):\n");
            for (int i = 0; i < cli_nverbs; i++) {
                printf(".TP\n.B ");
                roff(stdout, cli_verbs[i]->name);
                if (cli_verbs[i]->args[0]) printf(" "), roff(stdout, cli_verbs[i]->args);
                printf("\n");
                roff(stdout, cli_verbs[i]->summary);
                const verb_t *const *subs = cli_verbs[i]->subs ? cli_verbs[i]->subs() : NULL;
                for (int t = 0; subs && subs[t]; t++) printf("%s", t ? ", " : ": "), roff(stdout, subs[t]->name);
                printf(".\n");
            }
        }
        fputs(line, stdout);
    }
    const int bad = ferror(in);
    fclose(in);
    if (bad) {
        fprintf(stderr, "gpuprim completion man: %s: read error\n", page);
        return EXIT_FAIL;
    }
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
}

static int cmd_completion(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "man") == 0) return man(argv[2]);
    if (argc == 2 && strcmp(argv[1], "bash") == 0) {
        bash(stdout);
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
    }
    if (argc == 2 && strcmp(argv[1], "zsh") == 0) {
        zsh(stdout);
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
    }
    FILE *f = argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) ? stdout : stderr;
    fprintf(f, "usage: gpuprim completion bash|zsh   (the completion script on standard output)\n"
               "       gpuprim completion man PAGE   (the man page PAGE with every verb of the table; the build installs "
               "all three)\n");
    return f == stdout ? EXIT_OK : EXIT_USAGE;
}

const verb_t verb_completion = {"completion", "bash|zsh|man PAGE", "the shell completions and the man page's verb list, made from these tables",
                         NULL, cmd_completion, NULL};
