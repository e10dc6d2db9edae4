set -u
export OUT
g=build-device/gpuprim
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release > $OUT/build.log 2>&1 && cmake --build build-device -j 16 >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
(cd build-device && ctest -R "cli|gpu_reduce|test_reduce" --timeout 600) > $OUT/ctest.txt 2>&1; tail -3 $OUT/ctest.txt
nproc; uptime
timeout 200 python3 scripts/cpu_vs_numpy.py $g > $OUT/numpy.txt 2>&1
sh scripts/startup.sh $g > $OUT/startup.txt 2>&1
head -c 4294967296 /dev/urandom > /tmp/big.u32; cat /tmp/big.u32 > /dev/null
for k in 1 2 3; do for a in "-d 0" "-d 0 --no-overlap" "-d cpu"; do
 s=$(date +%s.%N); j=$($g reduce /tmp/big.u32 --dtype u32 --op sum $a --json 2>&1); e=$(date +%s.%N); echo "4GiB $a wall $(awk "BEGIN{print $e-$s}") $(echo "$j" | grep -o '"value": [0-9]*\|"seconds": [0-9.]*\|"stream_seconds": [0-9.]*\|"context_seconds": [0-9.]*\|"cpu_head_elements": [0-9]*' | tr '\n' ' ')" >> $OUT/startup.txt; done; done
rm -f /tmp/big.u32
grep -E "wall" $OUT/startup.txt | cut -c1-260; cat $OUT/numpy.txt
