#!/bin/sh
# build.sh BUILD JOBS — `make demo`'s build: the whole log in BUILD/build.log, the progress on one line (the percent
# CMake's Makefiles print, or Ninja's [done/total]) with the file being built, rewritten in place on a terminal and
# every 10% otherwise; on failure the log's last 40 lines. Exit status: the build's.
b=${1:-build} j=${2:-2}
log=$b/build.log
tty=0; [ -t 1 ] && tty=1
echo "building gpuprim (log: $log) ..."
# mawk (Debian's awk) buffers its input from a pipe unless told -W interactive: the progress would stall for minutes
awk_i=awk
[ -z "$(awk -W interactive 'BEGIN{}' </dev/null 2>&1)" ] && awk_i="awk -W interactive"
{ cmake --build "$b" -j "$j" 2>&1; echo "gpuprim-build-status $?"; } | tee "$log" | $awk_i -v tty="$tty" '
  function show(p, what) {
    if (tty) { printf "\r  %3d%%  %-70.70s", p, what; fflush() }
    else if (p >= last + 10 || p == 100) { printf "  %3d%%  %s\n", p, what; fflush(); last = p - p % 10 }
  }
  BEGIN { last = -10 }
  /^\[ *[0-9]+%\]/ { p = $0; sub(/^\[ */, "", p); sub(/%.*/, "", p); w = $0; sub(/^\[[^]]*\] */, "", w); show(p + 0, w); next }
  /^\[[0-9]+\/[0-9]+\]/ { split(substr($1, 2), a, "/"); w = $0; sub(/^\[[^]]*\] */, "", w); show(int(100 * a[1] / a[2]), w); next }
  END { if (tty) printf "\n" }'
rc=$(sed -n 's/^gpuprim-build-status //p' "$log" | tail -1)
[ "${rc:-1}" = 0 ] && { echo "built"; exit 0; }
tail -40 "$log"
exit 1
