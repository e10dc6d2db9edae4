#!/bin/sh
# The CLI's surface agrees with its tables: the completions (made from the verb, suite and option tables by
# `gpuprim completion`) parse, hold every verb, suite and lab topic; each verb's and suite's options in the table are
# the ones its --help names, both ways; the man page (made from share/gpuprim.1 and the table) has every verb
# `gpuprim help` lists.
# $1: the gpuprim executable; $2: the source tree (share/).
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

# the options a verb's table gives (its line of the bash completion) against the options its --help names
table_opts() { # "verb" or "bench suite": the options of that line, one per line
  sed -n "s/^ *\"*$1\"*) opts=\"\([^\"]*\)\";;/\1/p" "$bash_c" | tr ' ' '\n' | grep -- '^--[a-z]' | sort -u
}
help_opts() { # file: the long options a --help text names (-o's long form --output counted as named by -o)
  { grep -oE -- '--[a-z]([a-z0-9-]*[a-z0-9])?' "$1"; grep -qE -- '(^|[[ ])-o ' "$1" && echo --output; } | sort -u
}
check_verb() { # label help-file table-key
  table_opts "$3" >"$tmp/t"
  help_opts "$2" >"$tmp/h"
  [ -s "$tmp/t" ] && ok || bad "$1: no options in the completion's table"
  for o in $(comm -23 "$tmp/h" "$tmp/t"); do bad "$1: --help names $o, which its option table lacks"; done
  for o in $(comm -13 "$tmp/h" "$tmp/t"); do
    case $o in --help|--device|--json|--csv|--svg|--reps|--warmup) ;; *) bad "$1: option $o is not in its --help";; esac
  done
  ok
}
for v in $verbs; do
  case $v in bench|lab|completion|version|help) continue;; esac
  "$g" "$v" --help >"$tmp/vh" 2>&1
  check_verb "$v" "$tmp/vh" "$v"
done
suites=$("$g" bench --help 2>&1 | awk '/^  [a-z]/ {print $1}')
[ -n "$suites" ] && ok || bad "gpuprim bench --help lists no suites"
for s in $suites; do
  grep -q "^ *bench) opts=\"[^\"]*\b$s\b" "$bash_c" && ok || bad "bash completion lacks bench $s"
  grep -q "bench) .*_values 'SUITE'.*\b$s\b" "$zsh_c" && ok || bad "zsh completion lacks bench $s"
  "$g" bench "$s" --help >"$tmp/bh" 2>&1
  check_verb "bench $s" "$tmp/bh" "bench $s"
done
for t in $("$g" lab --list 2>/dev/null | awk 'NF && $1 !~ /^-/ {print $1}' | grep -v ':' | sort -u); do
  grep -q "^ *lab) opts=\"[^\"]*\b$t\b" "$bash_c" && ok || bad "bash completion lacks lab $t"
  grep -q "lab) .*_values 'TOPIC'.*\b$t\b" "$zsh_c" && ok || bad "zsh completion lacks lab $t"
  "$g" lab "$t" --help >"$tmp/lh" 2>&1
  for o in $(help_opts "$tmp/lh"); do
    table_opts "lab $t" | grep -qx -- "$o" && ok || bad "bash completion lacks lab $t's $o"
  done
done
cli_finish test_cli_surface
