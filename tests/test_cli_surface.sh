#!/bin/sh
# The CLI's surface agrees with its tables. Each verb's, bench suite's and lab topic's help names exactly the options
# its parser takes (`gpuprim completion options`, read from the same table cli_parse reads): an option a help text
# shows that the parser refuses, or one the parser takes that the help leaves out, fails here, as does a help written
# by hand beside the table. Every option the table lists is also run through the parser. The completions (made from
# the tables) parse and hold every verb, suite and topic; the man page has every verb and each verb's options;
# docs/guide/cli-reference.md is `gpuprim completion markdown`'s text; docs/guide/cli.md's table names every verb.
# $1: the gpuprim executable; $2: the source tree (share/, docs/).
set -u
. "$(dirname "$0")/cli_common.sh"
src=$2
man=$tmp/gpuprim.1
bash_c=$tmp/gpuprim.bash
zsh_c=$tmp/_gpuprim
expect_rc 0 "completion bash" "$g" completion bash
cp "$tmp/out" "$bash_c"
expect_rc 0 "completion zsh" "$g" completion zsh
cp "$tmp/out" "$zsh_c"
expect_rc 2 "completion of an unknown shell" "$g" completion fish
expect_rc 0 "completion man" "$g" completion man "$src/share/gpuprim.1"
cp "$tmp/out" "$man"
expect_rc 1 "completion man of a missing page" "$g" completion man "$tmp/no-such-page"
expect_rc 2 "completion options of a verb without a table" "$g" completion options frobnicate
if command -v bash >/dev/null 2>&1; then bash -n "$bash_c" && ok || bad "the bash completion does not parse"; fi
if command -v zsh >/dev/null 2>&1; then zsh -n "$zsh_c" && ok || bad "the zsh completion does not parse"; fi

"$g" help >"$tmp/help" 2>&1
verbs=$(awk '/^  [a-z]/ {print $1}' "$tmp/help")
[ -n "$verbs" ] && ok || bad "gpuprim help lists no verbs"
for v in $verbs version help; do
  grep -q "compgen -W \"[^\"]*\b$v\b" "$bash_c" && ok || bad "bash completion lacks the verb $v"
  grep -q "verbs=(.*\b$v\b" "$zsh_c" && ok || bad "zsh completion lacks the verb $v"
  case $v in version|help|completion) ;; *) grep -q "^\.B[IR]* \"*$v\b" "$man" && ok || bad "man page lacks the verb $v";; esac
done
expect_rc 2 "an unknown verb" "$g" frobnicate
"$g" redcue >"$tmp/dym" 2>&1
says "did you mean" "did you mean 'reduce'" "$tmp/dym"

# The option-like words of a text: -x or --name, starting a word (after a space, a bracket, a quote, a comma, a
# slash or a bar), never a number (-0.0, x[:-1]) or a hyphenated word (non-multiples, 1-D).
opt_words() {
  grep -oE -- "(^|[][ (,'/|])--?[A-Za-z][A-Za-z0-9-]*" "$1" | sed -E "s/^[][ (,'/|]//" | sort -u
}
# The value the parser accepts for an option of kind K whose words are W (a flag: none).
probe_value() { # kind words
  case $1 in
    flag) ;;
    word) echo "${2%% *}";;
    count) echo 1;;
    number) echo 2;;
    dtype) echo f32;;
    file) echo "$tmp/probe";;
    *) case $2 in *cpu*) echo cpu;; *) echo x;; esac;;
  esac
}
# check LABEL ARGS...: the help of `gpuprim ARGS --help` against `gpuprim completion options ARGS`, both ways, and
# every option of the table through the parser.
check() {
  label=$1; shift
  "$g" "$@" --help >"$tmp/h" 2>&1 || bad "$label --help failed"
  head -1 "$tmp/h" | grep -q "^usage: gpuprim $label" && ok || bad "$label --help does not start with its usage line"
  "$g" completion options "$@" >"$tmp/t" 2>&1 || { bad "$label: completion options failed: $(cat "$tmp/t")"; return; }
  cut -d' ' -f1 "$tmp/t" | sort -u >"$tmp/accepted"
  opt_words "$tmp/h" >"$tmp/shown"
  [ -s "$tmp/accepted" ] && ok || bad "$label: the parser takes no options"
  for o in $(comm -23 "$tmp/shown" "$tmp/accepted"); do bad "$label: --help shows $o, which the parser refuses"; done
  for o in $(comm -13 "$tmp/shown" "$tmp/accepted"); do bad "$label: the parser takes $o, which --help does not show"; done
  while read -r name kind arg words; do
    val=$(probe_value "$kind" "$words")
    if [ -n "$val" ]; then "$g" "$@" "$name" "$val" --help >"$tmp/p" 2>&1; else "$g" "$@" "$name" --help >"$tmp/p" 2>&1; fi
    [ $? = 0 ] && head -1 "$tmp/p" | grep -q "^usage:" && ok || bad "$label: the parser refuses its own $name $val: $(head -2 "$tmp/p")"
  done <"$tmp/t"
  # a value the help offers after a valued option ("--order c|f", "-d ID|cpu|auto", "(--device auto"): each
  # lower-case word of it (not a NAME) is one the parser takes
  grep -oE -- "(^|[][ (,'/|])--?[A-Za-z][A-Za-z0-9-]*[ =][a-z0-9][a-z0-9:,.]*(\|[A-Za-z0-9][A-Za-z0-9:,.]*)*" "$tmp/h" |
    sed -E "s/^[][ (,'/|]//; s/[.,]+\$//" | sort -u >"$tmp/offers"
  while read -r offer; do
    name=${offer%%[ =]*}; vals=${offer#*[ =]}
    kind=$(awk -v n="$name" '$1 == n {print $2; exit}' "$tmp/t")
    [ -n "$kind" ] && [ "$kind" != flag ] || continue
    for alt in $(echo "$vals" | tr '|' ' '); do
      case $alt in *[A-Z]*) continue;; esac
      "$g" "$@" "$name" "$alt" --help >"$tmp/p" 2>&1 && ok || bad "$label: --help offers $name $alt, which the parser refuses: $(head -1 "$tmp/p")"
    done
  done <"$tmp/offers"
  "$g" "$@" --no-such-option --help >"$tmp/p" 2>&1
  [ $? = 2 ] && ok || bad "$label: an unknown option is not refused"
}
for v in $verbs; do
  case $v in bench|lab|completion|version|help) continue;; esac
  check "$v" "$v"
  grep -q "^\.SS $v\b" "$man" && ok || bad "the man page lacks $v's options"
  # the verb's line of gpuprim help names only options it takes
  grep "^  $v " "$tmp/help" >"$tmp/line"
  "$g" completion options "$v" | cut -d' ' -f1 | sort -u >"$tmp/accepted"
  for o in $(opt_words "$tmp/line" | comm -23 - "$tmp/accepted"); do bad "gpuprim help's $v line shows $o, which $v refuses"; done
done
suites=$("$g" bench --help 2>&1 | awk '/^  [a-z]/ {print $1}')
[ -n "$suites" ] && ok || bad "gpuprim bench --help lists no suites"
for s in $suites; do
  grep -q "^ *bench) opts=\"[^\"]*\b$s\b" "$bash_c" && ok || bad "bash completion lacks bench $s"
  grep -q "bench) .*_values 'SUITE'.*\b$s\b" "$zsh_c" && ok || bad "zsh completion lacks bench $s"
  check "bench $s" bench "$s"
done
for t in $("$g" lab --list 2>/dev/null | awk 'NF && $1 !~ /^-/ {print $1}' | grep -v ':' | sort -u); do
  grep -q "^ *lab) opts=\"[^\"]*\b$t\b" "$bash_c" && ok || bad "bash completion lacks lab $t"
  grep -q "lab) .*_values 'TOPIC'.*\b$t\b" "$zsh_c" && ok || bad "zsh completion lacks lab $t"
  check "lab $t" lab "$t"
done

# the reference made from the tables is the one in docs/, and the guide's table names every verb
"$g" completion markdown >"$tmp/ref.md" 2>&1
if cmp -s "$tmp/ref.md" "$src/docs/guide/cli-reference.md"; then ok; else
  bad "docs/guide/cli-reference.md is not what the tables say: run make cli-reference ($(diff "$src/docs/guide/cli-reference.md" "$tmp/ref.md" | head -5))"
fi
for v in $verbs; do
  case $v in completion|version|help) continue;; esac
  grep -q "^| \`gpuprim $v\b" "$src/docs/guide/cli.md" || grep -q "^| .*\`gpuprim $v\b" "$src/docs/guide/cli.md" && ok ||
    bad "docs/guide/cli.md's table lacks gpuprim $v"
done
cli_finish test_cli_surface
