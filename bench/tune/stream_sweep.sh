#!/usr/bin/env bash
# stream_sweep.sh BUILD_DIR — where the time of `gpuprim reduce FILE` goes on this machine: a 4 GiB raw file in the
# page cache, read by dd (one thread), then reduced with reader threads x chunk sizes; prints one line per setting
# with the end-to-end and the after-setup (stream_gbps) figures. Writes the file to /tmp and removes it.
set -u
B=${1:-build-device}
G=$B/gpuprim
F=/tmp/gp_sweep_u8.raw
head -c $((4 << 30)) /dev/urandom >$F
cat $F >/dev/null
echo "--- page cache read, one thread (dd bs=64M):"
dd if=$F of=/dev/null bs=64M 2>&1 | tail -1
for c in 16M 64M 256M 1G; do
  r=$($G reduce $F --dtype u8 --op sum --json --read map --chunk $c | grep -o '"value.*stream_gbps": [0-9.]*')
  echo "map (pinned page cache) chunk $c: $r"
done
for t in 4 8 16; do
  for c in 16M 64M; do
    r=$($G reduce $F --dtype u8 --op sum --json --read pread --threads $t --chunk $c | grep -o '"value.*stream_gbps": [0-9.]*')
    echo "pread threads $t chunk $c: $r"
  done
done
echo "--- after dropping nothing: a second map run"
$G reduce $F --dtype u8 --op sum --json | grep -o '"value.*stream_gbps": [0-9.]*'
$G reduce $F --dtype u8 --op sum --json --device cpu --count $((1 << 28)) | grep -o '"value.*stream_gbps": [0-9.]*'
$G reduce $F --dtype u8 --op sum --json --count $((1 << 28)) | grep -o '"value.*stream_gbps": [0-9.]*' 
rm -f $F
