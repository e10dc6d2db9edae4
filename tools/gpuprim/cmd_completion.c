/*
 * cmd_completion.c — `gpuprim completion bash|zsh`: the shell completion scripts, made from the verb table
 * (main.c), each verb's sub-commands (bench's suites, lab's topics: verb_t.subs) and each one's options (its
 * cli_spec_t). The build runs it to make the installed scripts, so a new verb, suite, topic or option completes
 * without an edit here.
 */
#include "commands.h"

#include <errno.h>
#include <string.h>

/* The dtype names the completions offer for an OPT_DTYPE without words of its own. */
static const char k_dtypes[] = "u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64 bool";

/* What an option's value completes to: its words (OPT_WORD's, or an OPT_DTYPE's), files, or nothing (NULL). */
static const char *value_words(const cli_opt_view_t *o, char *buf, size_t cap, int *files)
{
    *files = o->kind == OPT_FILE;
    if (o->kind == OPT_WORD) return cli_opt_words(o, buf, cap);
    if (o->words) return o->words;
    if (o->kind == OPT_DTYPE) return k_dtypes;
    return NULL;
}

/* Every option name of a spec (its own, the sweep's, the common ones it takes, -h), space-separated. */
static int put_names(void *user, const cli_opt_view_t *o)
{
    FILE *f = user;
    for (const char *p = o->names; *p; p++) fputc(*p == '|' ? ' ' : *p, f);
    fputc(' ', f);
    return 0;
}

static void spec_options(FILE *f, const cli_spec_t *s)
{
    if (s) cli_each_option(s, put_names, f);
    else fputs("--help ", f);
}

/* bash: the values of a spec's valued options, as case arms on $prev. */
static int bash_value(void *user, const cli_opt_view_t *o)
{
    FILE *f = user;
    if (!o->arg) return 0;
    char buf[512];
    int files = 0;
    const char *w = value_words(o, buf, sizeof buf, &files);
    fprintf(f, "                %s) ", o->names);
    if (files) fputs("COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n", f);
    else if (w && w[0]) fprintf(f, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return;;\n", w);
    else fputs("COMPREPLY=(); return;;\n", f);
    return 0;
}

static void bash_spec(FILE *f, const char *label, const cli_spec_t *s)
{
    fprintf(f, "        %s) opts=\"", label);
    spec_options(f, s);
    fputs("\"\n            case $prev in\n", f);
    if (s) cli_each_option(s, bash_value, f);
    fputs("            esac;;\n", f);
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
    fputs("\" -- \"$cur\")); return\n    fi\n", f);
    fputs("    verb=${COMP_WORDS[1]}\n    case $verb in\n        ", f);
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
        if (cli_verbs[i]->spec) bash_spec(f, cli_verbs[i]->name, cli_verbs[i]->spec);
        const verb_t *const *subs = cli_verbs[i]->subs ? cli_verbs[i]->subs() : NULL;
        for (int t = 0; subs && subs[t]; t++) {
            char label[96];
            snprintf(label, sizeof label, "\"%s %s\"", cli_verbs[i]->name, subs[t]->name);
            bash_spec(f, label, subs[t]->spec);
        }
    }
    fputs("        *) opts=\"--help\";;\n    esac\n"
          "    if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    else\n        COMPREPLY=($(compgen -f -- \"$cur\"))\n    fi\n}\ncomplete -F _gpuprim gpuprim\n",
          f);
}

/* One zsh _arguments spec per option name: '--op[OP]:OP:(sum ...)', a flag '--json', a file '-o[OUT]:OUT:_files'. */
static int zsh_option(void *user, const cli_opt_view_t *o)
{
    FILE *f = user;
    char buf[512];
    int files = 0;
    const char *w = o->arg ? value_words(o, buf, sizeof buf, &files) : NULL;
    for (const char *p = o->names; *p;) {
        const size_t n = strcspn(p, "|");
        if (!o->arg) fprintf(f, " '%.*s'", (int)n, p);
        else if (files) fprintf(f, " '%.*s[%s]:%s:_files'", (int)n, p, o->arg, o->arg);
        else if (w && w[0]) fprintf(f, " '%.*s[%s]:%s:(%s)'", (int)n, p, o->arg, o->arg, w);
        else fprintf(f, " '%.*s[%s]:%s:'", (int)n, p, o->arg, o->arg);
        p += n + (p[n] == '|');
    }
    return 0;
}

static void zsh_spec(FILE *f, const cli_spec_t *s)
{
    if (s) cli_each_option(s, zsh_option, f);
    fputs(" '*:file:_files';;\n", f);
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

/* The man page's options of one spec: .TP entries with each option's value, help, default and conflicts. */
static int man_option(void *user, const cli_opt_view_t *o)
{
    FILE *f = user;
    char wb[512];
    fputs(".TP\n.B ", f);
    for (const char *p = o->names; *p;) {
        const size_t n = strcspn(p, "|");
        char nm[64];
        snprintf(nm, sizeof nm, "%.*s", (int)n, p);
        if (p != o->names) fputs(", ", f);
        roff(f, nm);
        p += n + (p[n] == '|');
    }
    if (o->arg) fputs(" ", f), roff(f, o->arg);
    fputs("\n", f);
    roff(f, o->help ? o->help : "");
    if (o->kind == OPT_WORD && o->words && o->arg && !strchr(o->arg, '|'))
        fprintf(f, "; %s is one of: ", o->arg), roff(f, cli_opt_words(o, wb, sizeof wb));
    if (o->def) fputs(" (default: ", f), roff(f, o->def), fputs(")", f);
    if (o->conflicts) {
        fputs(" (not with ", f);
        for (const char *p = o->conflicts; *p;) {
            const size_t n = strcspn(p, "|");
            char nm[64];
            snprintf(nm, sizeof nm, "%.*s", (int)n, p);
            if (p != o->conflicts) fputs(", ", f);
            roff(f, nm);
            p += n + (p[n] == '|');
        }
        fputs(")", f);
    }
    fputs("\n", f);
    return 0;
}

/* The common options of a spec, ", "-separated on stdout (the options not in its own table). */
typedef struct common_names {
    const cli_spec_t *spec;
    int n;
} common_names_t;
static int man_common(void *user, const cli_opt_view_t *o)
{
    common_names_t *c = user;
    for (const cli_opt_t *q = c->spec->opts; q && q->names; q++)
        if (q->names == o->names) return 0;
    char nm[64];
    snprintf(nm, sizeof nm, "%.*s", (int)strcspn(o->names, "|"), o->names);
    printf("%s ", c->n++ ? "," : "");
    roff(stdout, nm);
    if (o->arg) printf(" "), roff(stdout, o->arg);
    return 0;
}

/* The man page: the hand-written PAGE with its .TH line carrying this version; before DESCRIPTION every verb of the
 * table with its arguments and summary (and the sub-commands of those that have them); before COMMON OPTIONS each
 * verb's own options from its table. A new verb or option is on the page without an edit there; the hand-written
 * VERBS section adds what a line cannot say. */
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
        if (strncmp(line, ".SH COMMON OPTIONS", 18) == 0) {
            printf(".SH OPTIONS OF EACH VERB\nMade from the option tables the parser reads (gpuprim VERB \\-\\-help "
                   "prints the same).\n");
            for (int i = 0; i < cli_nverbs; i++) {
                const cli_spec_t *sp = cli_verbs[i]->spec;
                if (!sp) continue;
                printf(".SS ");
                roff(stdout, cli_verbs[i]->name);
                for (const char *p = sp->synopsis ? sp->synopsis : ""; *p;) { /* the first form */
                    const size_t n = strcspn(p, "\n");
                    char first[256];
                    snprintf(first, sizeof first, " %.*s", (int)n, p);
                    roff(stdout, first);
                    break;
                }
                printf("\n");
                for (const cli_opt_t *o = sp->opts; o && o->names; o++) {
                    const cli_opt_view_t w = {o->names, o->arg, o->help, o->def, o->conflicts, o->words, o->kind};
                    man_option(stdout, &w);
                }
                printf(".PP\nThe common options it takes (COMMON OPTIONS):");
                common_names_t cn = {sp, 0};
                cli_each_option(sp, man_common, &cn);
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

/* Markdown text: '|' escaped for a table cell. */
static void md(FILE *f, const char *s)
{
    for (; s && *s; s++) *s == '|' ? fputs("\\|", f) : fputc(*s, f);
}

static int md_option(void *user, const cli_opt_view_t *o)
{
    FILE *f = user;
    char wb[512];
    fputs("| ", f);
    for (const char *p = o->names; *p;) {
        const size_t n = strcspn(p, "|");
        fprintf(f, "%s`%.*s`", p == o->names ? "" : ", ", (int)n, p);
        p += n + (p[n] == '|');
    }
    fputs(" | ", f);
    if (o->arg) fputs("`", f), md(f, o->arg), fputs("`", f);
    fputs(" | ", f);
    md(f, o->help);
    if (o->kind == OPT_WORD && o->words && o->arg && !strchr(o->arg, '|'))
        fprintf(f, "; %s is one of: ", o->arg), md(f, cli_opt_words(o, wb, sizeof wb));
    if (o->conflicts) {
        fputs(" (not with ", f);
        for (const char *p = o->conflicts; *p;) {
            const size_t n = strcspn(p, "|");
            fprintf(f, "%s`%.*s`", p == o->conflicts ? "" : ", ", (int)n, p);
            p += n + (p[n] == '|');
        }
        fputs(")", f);
    }
    fputs(" | ", f);
    md(f, o->def);
    fputs(" |\n", f);
    return 0;
}

static void md_spec(FILE *f, const char *name, const cli_spec_t *s)
{
    fprintf(f, "\n## %s\n\n", name);
    for (const char *p = s->synopsis ? s->synopsis : ""; *p;) {
        const size_t n = strcspn(p, "\n");
        fprintf(f, "    gpuprim %s %.*s\n", name, (int)n, p);
        p += n + (p[n] == '\n');
    }
    for (const char *p = s->about ? s->about : ""; *p;) { /* each paragraph on one line */
        fputs("\n", f);
        while (*p && !(p[0] == '\n' && p[1] == '\n')) {
            const size_t n = strcspn(p, "\n");
            fprintf(f, "%.*s%s", (int)n, p, p[n] == '\n' && p[n + 1] != '\n' ? " " : "\n");
            p += n + (p[n] == '\n' && p[n + 1] != '\n');
        }
        while (*p == '\n') p++;
    }
    fputs("\n| option | value | what it does | default |\n|---|---|---|---|\n", f);
    cli_each_option(s, md_option, f);
}

/* Every verb's and bench suite's options as Markdown (docs/guide/cli-reference.md is this text; the lab's topics,
 * which a CPU-only build lacks, are left to gpuprim lab TOPIC --help). */
static int markdown(void)
{
    FILE *f = stdout;
    fputs("# gpuprim: every verb's options\n\n"
          "Made by `gpuprim completion markdown` from the option tables the parser reads, so it says what the parser\n"
          "takes; `make cli-reference` writes this file and `tests/test_cli_surface.sh` fails when it is stale. What\n"
          "each verb is for, with examples: [cli.md](cli.md). The lab's topics: `gpuprim lab TOPIC --help`.\n",
          f);
    for (int i = 0; i < cli_nverbs; i++) {
        if (cli_verbs[i]->spec) md_spec(f, cli_verbs[i]->name, cli_verbs[i]->spec);
        if (strcmp(cli_verbs[i]->name, "bench") != 0 || !cli_verbs[i]->subs) continue;
        const verb_t *const *subs = cli_verbs[i]->subs();
        for (int t = 0; subs && subs[t]; t++) {
            char name[96];
            snprintf(name, sizeof name, "bench %s", subs[t]->name);
            if (subs[t]->spec) md_spec(f, name, subs[t]->spec);
        }
    }
    return fflush(f) == 0 ? EXIT_OK : EXIT_FAIL;
}

/* The options the parser takes for VERB (or "bench SUITE", "lab TOPIC"), one per line: each name, its kind, its
 * value's name and its words, for tests/test_cli_surface.sh to hold every help against. */
static const char *const k_kind_names[] = {"flag", "text", "file", "count", "number", "word", "dtype"};
static int list_option(void *user, const cli_opt_view_t *o)
{
    (void)user;
    char buf[512];
    for (const char *p = o->names; *p;) {
        const size_t n = strcspn(p, "|");
        int files = 0;
        const char *w = o->arg ? value_words(o, buf, sizeof buf, &files) : NULL;
        printf("%.*s %s %s %s\n", (int)n, p, k_kind_names[o->kind], o->arg ? o->arg : "-", w ? w : "");
        p += n + (p[n] == '|');
    }
    return 0;
}

static int options_of(const char *verb, const char *sub)
{
    for (int i = 0; i < cli_nverbs; i++) {
        if (strcmp(cli_verbs[i]->name, verb) != 0) continue;
        const cli_spec_t *s = cli_verbs[i]->spec;
        const verb_t *const *subs = cli_verbs[i]->subs ? cli_verbs[i]->subs() : NULL;
        for (int t = 0; sub && subs && subs[t]; t++)
            if (strcmp(subs[t]->name, sub) == 0) s = subs[t]->spec;
        if (!s || (sub && s == cli_verbs[i]->spec)) break;
        cli_each_option(s, list_option, NULL);
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
    }
    fprintf(stderr, "gpuprim completion options: '%s%s%s' has no option table\n", verb, sub ? " " : "", sub ? sub : "");
    return EXIT_USAGE;
}

static int cmd_completion(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "man") == 0) return man(argv[2]);
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "options") == 0) return options_of(argv[2], argc == 4 ? argv[3] : NULL);
    if (argc == 2 && strcmp(argv[1], "markdown") == 0) return markdown();
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
               "       gpuprim completion man PAGE   (the man page PAGE with every verb of the table and its options; "
               "the build installs all three)\n"
               "       gpuprim completion options VERB [SUB]   (the options the parser takes: name, kind, value, words)\n"
               "       gpuprim completion markdown   (every verb's and bench suite's options: docs/guide/cli-reference.md)\n");
    return f == stdout ? EXIT_OK : EXIT_USAGE;
}

const verb_t verb_completion = {"completion", "bash|zsh|man PAGE|options VERB|markdown",
                                "the shell completions, the man page's verbs and options, made from these tables", NULL,
                                cmd_completion, NULL};
