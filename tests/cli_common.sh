# cli_common.sh — what the CLI test scripts share (sourced): $g the executable, $tmp a scratch folder removed at exit,
# the pass/fail counters, expect_rc, says and json_ok. Each script ends with cli_finish NAME.
g=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_rc() { # expected-rc description command...
  want=$1; what=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
  if [ "$rc" = "$want" ]; then ok; else bad "$what: exit $rc, wanted $want"; head -c 2000 "$tmp/err" >&2; fi
}
says() { # description pattern file
  if grep -q -- "$2" "$3"; then ok; else bad "$1: '$2' not in: $(head -c 400 "$3")"; fi
}
json_ok() { # file: valid JSON (python3 when present, else a brace check)
  if command -v python3 >/dev/null 2>&1; then python3 -m json.tool "$1" >/dev/null
  else head -c1 "$1" | grep -q '{'; fi
}
cli_finish() { # name
  echo "$1: $pass passed, $fail failed"
  [ "$fail" = 0 ]
}
