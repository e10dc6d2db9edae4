# test_cli_ranks.sh — `--ranks env` as two hosts would use it, on one two-GPU machine: two `gpuprim` processes started
# with nothing but a launcher's variables (GPUPRIM_* and NCCL_COMM_ID, then torchrun's RANK/WORLD_SIZE/LOCAL_RANK and
# MASTER_ADDR/MASTER_PORT) reduce and histogram one file: rank 0 prints what one GPU prints over the whole file,
# rank 1 prints nothing; scan, sort and argsort write their parts, which joined are one GPU's output. Exit 77 with
# fewer than two GPUs.
. "$(dirname "$0")/cli_common.sh"
ngpu=$("$g" info 2>/dev/null | grep -c '^GPU [0-9]')
if [ "$ngpu" -lt 2 ]; then echo "gpu_cli_ranks: SKIPPED: $ngpu GPU(s); two ranks need a GPU each"; exit 77; fi
head -c 40000012 /dev/urandom >"$tmp/x.bin" # 10000003 f32 / i32: the ranks' parts are uneven
port=$((20000 + $$ % 20000))
value() { sed 's/.*"value": \(.*\), "acc_dtype".*/\1/' "$1"; }
two_ranks() { # family port out0 out1 gpuprim-args...
  fam=$1 p=$2 o0=$3 o1=$4; shift 4
  for r in 0 1; do
    if [ "$fam" = gpuprim ]; then
      env GPUPRIM_RANK=$r GPUPRIM_SIZE=2 GPUPRIM_LOCAL_RANK=$r NCCL_COMM_ID=127.0.0.1:$p "$g" "$@" >"$tmp/r$r" 2>"$tmp/e$r" &
    else
      env RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$p "$g" "$@" >"$tmp/r$r" 2>"$tmp/e$r" &
    fi
    eval "pid$r=\$!"
  done
  wait "$pid0"; rc0=$?
  wait "$pid1"; rc1=$?
  [ "$rc0" = 0 ] && [ "$rc1" = 0 ] && ok || { bad "$fam ranks: $* exited $rc0 / $rc1"; cat "$tmp/e0" "$tmp/e1" >&2; }
  cp "$tmp/r0" "$o0"; cp "$tmp/r1" "$o1"
}
for fam in gpuprim torchrun; do
  for op in sum argmax minmax; do
    for dt in f32 i32; do
      "$g" reduce "$tmp/x.bin" --dtype $dt --op $op -d 0 --json 2>/dev/null >"$tmp/one"
      port=$((port + 2))
      two_ranks $fam $port "$tmp/g0" "$tmp/g1" reduce "$tmp/x.bin" --dtype $dt --op $op --ranks env --json
      [ -s "$tmp/one" ] && [ "$(value "$tmp/one")" = "$(value "$tmp/g0")" ] && ok ||
        bad "$fam: reduce $op $dt: rank 0 printed $(value "$tmp/g0"), one GPU $(value "$tmp/one")"
      [ ! -s "$tmp/g1" ] && ok || bad "$fam: reduce $op $dt: rank 1 printed: $(head -c 200 "$tmp/g1")"
    done
  done
  "$g" histogram "$tmp/x.bin" --dtype i32 --bins 1000 -d 0 --csv >"$tmp/one" 2>/dev/null
  port=$((port + 2))
  two_ranks $fam $port "$tmp/g0" "$tmp/g1" histogram "$tmp/x.bin" --dtype i32 --bins 1000 --ranks env --csv
  [ -s "$tmp/one" ] && cmp -s "$tmp/one" "$tmp/g0" && ok || bad "$fam: histogram counts differ from one GPU's"
  [ ! -s "$tmp/g1" ] && ok || bad "$fam: histogram: rank 1 printed"
done
# scan, sort and argsort: each rank writes its part to OUT.RANK (rank 0's with the .npy header), the parts
# concatenated are one GPU's output
parts_check() { # verb args...: one GPU's output, then two ranks' parts joined
  "$g" "$@" -o "$tmp/one.npy" -d 0 >/dev/null 2>&1
  port=$((port + 2))
  two_ranks torchrun $port "$tmp/g0" "$tmp/g1" "$@" -o "$tmp/parts.npy" --ranks env
  cat "$tmp/parts.npy.0" "$tmp/parts.npy.1" >"$tmp/joined.npy" 2>/dev/null
  [ -s "$tmp/one.npy" ] && cmp -s "$tmp/one.npy" "$tmp/joined.npy" && ok || bad "$1 --ranks env: the parts joined differ from one GPU's output"
  rm -f "$tmp/parts.npy.0" "$tmp/parts.npy.1" "$tmp/one.npy"
}
# a float sum's NaN carries an operand's payload on the CPU and the canonical NaN on a GPU (docs/guide/cli.md), and
# the one-device run may start on the CPU: the float scan's input is finite (the scan's bits are what is compared)
"$g" select "$tmp/x.bin" --dtype f32 --where in:-1e30,1e30 -o "$tmp/xf.bin" -d cpu >/dev/null 2>&1
parts_check scan "$tmp/xf.bin" --dtype f32 --op sum
parts_check scan "$tmp/x.bin" --dtype i32 --op sum
parts_check sort "$tmp/x.bin" --dtype f32
parts_check argsort "$tmp/x.bin" --dtype i32 --descending
port=$((port + 2))
two_ranks gpuprim $port "$tmp/g0" "$tmp/g1" reduce "$tmp/x.bin" --dtype f32 --op sum --ranks env --json
grep -q '"device": "rank 0 of 2 (nccl: GPU 0)"' "$tmp/g0" && ok || bad "the report names the rank: $(head -c 300 "$tmp/g0")"
cli_finish gpu_cli_ranks
