#!/bin/sh
# The CLI's surface agrees with itself: every verb the dispatcher takes is in `gpuprim help`, the bash and zsh
# completions and the man page; every option a verb's --help names is in both completions; every bench suite and lab
# topic is in the completions and the help. $1: the gpuprim executable; $2: the source tree (share/).
set -u
. "$(dirname "$0")/cli_common.sh"
src=$2
bash_c=$src/share/gpuprim.bash
zsh_c=$src/share/_gpuprim
man=$src/share/gpuprim.1
"$g" help >"$tmp/help" 2>&1
verbs="info bandwidth reduce histogram scan select map unique rle transpose gemm bench lab demo version help"
for v in $verbs; do
  [ "$v" = help ] || [ "$v" = version ] || grep -q "^  $v\b" "$tmp/help" || bad "gpuprim help lacks the verb $v"
  grep -q "verbs=.*\b$v\b" "$bash_c" && ok || bad "bash completion lacks the verb $v"
  grep -q "verbs=(.*\b$v\b" "$zsh_c" && ok || bad "zsh completion lacks the verb $v"
  case $v in version|help) ;; *) grep -q "^\.B[IR]* \"*$v\b" "$man" && ok || bad "man page lacks the verb $v";; esac
done
# a verb that is not in the list above is refused: the dispatcher knows no other
for v in $verbs; do echo "$v"; done >"$tmp/known"
suites=$("$g" bench --help 2>&1 | sed -n 's/.*suites: *//p' | tr -d ',')
[ -n "$suites" ] || suites="vector reduce histogram transpose gemm graph scan select jit group"
for s in $suites; do
  grep -q "bench) .*\b$s\b" "$bash_c" && ok || bad "bash completion lacks bench $s"
  grep -q "bench) .*\b$s\b" "$zsh_c" && ok || bad "zsh completion lacks bench $s"
done
for t in $("$g" lab --list 2>/dev/null | awk 'NF && $1 !~ /^-/ {print $1}' | grep -v ':' | sort -u); do
  grep -q "lab) .*\b$t\b" "$bash_c" && ok || bad "bash completion lacks lab $t"
  "$g" lab "$t" --help >"$tmp/lh" 2>&1
  for o in $(grep -o -- '--[a-z][a-z0-9-]*[a-z0-9]' "$tmp/lh" | sort -u); do
    grep -q -- "$o\b" "$bash_c" && ok || bad "bash completion lacks lab $t's $o"
  done
done
for v in info bandwidth reduce histogram scan select map unique rle transpose gemm demo; do
  "$g" "$v" --help >"$tmp/vh" 2>&1
  for o in $(grep -o -- '--[a-z][a-z0-9-]*[a-z0-9]' "$tmp/vh" | sort -u); do
    grep -q -- "$o\b" "$bash_c" && ok || bad "bash completion lacks $v's $o"
    grep -qF -e "'$o[" -e "'$o'" -e ",$o}" "$zsh_c" && ok || bad "zsh completion lacks $v's $o"
  done
done
for s in $suites; do
  "$g" bench "$s" --help >"$tmp/bh" 2>&1
  for o in $(grep -o -- '--[a-z][a-z0-9-]*[a-z0-9]' "$tmp/bh" | sort -u); do
    grep -q -- "$o\b" "$bash_c" && ok || bad "bash completion lacks bench $s's $o"
  done
done
cli_finish test_cli_surface
