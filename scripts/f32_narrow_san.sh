#!/bin/bash
# f32_narrow_san.sh — FP32 n <= 64 (sgemm_cp 128 x 64 with split K) through the CLI under compute-sanitizer memcheck /
# racecheck, checked against NumPy in f64 (run on the device after a build into build-device)
B=build-device; G=$B/gpuprim
python3 - <<'P'
import numpy as np
r=np.random.default_rng(7)
for (m,n,k) in [(2000,48,1500),(3000,64,4000),(1000,33,2000)]:
    r.standard_normal((m,k)).astype(np.float32).tofile(f'/tmp/a_{m}_{n}_{k}.raw')
    r.standard_normal((k,n)).astype(np.float32).tofile(f'/tmp/b_{m}_{n}_{k}.raw')
P
for s in "2000 48 1500" "3000 64 4000" "1000 33 2000"; do set -- $s; m=$1 n=$2 k=$3
  for tool in memcheck racecheck; do
    echo "### $tool gemm $m x $n x $k"
    compute-sanitizer --tool $tool --error-exitcode 9 $G gemm /tmp/a_${m}_${n}_${k}.raw /tmp/b_${m}_${n}_${k}.raw -o /tmp/c_${m}_${n}_${k}.raw --dtype f32 --shape-a $m,$k --shape-b $k,$n 2>&1 | grep -E "SUMMARY|rror" | head -5
    echo "exit ${PIPESTATUS[0]}"
  done
  python3 -c "
import numpy as np
m,n,k=$m,$n,$k
a=np.fromfile('/tmp/a_%d_%d_%d.raw'%(m,n,k),np.float32).reshape(m,k).astype(np.float64)
b=np.fromfile('/tmp/b_%d_%d_%d.raw'%(m,n,k),np.float32).reshape(k,n).astype(np.float64)
c=np.fromfile('/tmp/c_%d_%d_%d.raw'%(m,n,k),np.float32).reshape(m,n)
ref=a@b; e=(np.abs(c-ref)/(np.abs(a)@np.abs(b))).max()
print('check %dx%dx%d max |c-ref| / (|a||b|) = %.3g' % (m,n,k,e), 'ok' if e<2*k*2.0**-24 else 'BAD')"
done
