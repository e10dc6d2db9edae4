#!/usr/bin/env python3
"""Where one kernel's warps wait, from Nsight Compute's SASS-level source page: the share of stall samples and of
executed instructions per phase (the stretches between block barriers), per instruction class, and the hottest lines.

Make the page on a GPU machine (one launch of the kernel, full sections, the source imported):
  ncu --kernel-name regex:NAME --launch-skip 1 --launch-count 1 --set full --import-source yes -o rep CMD...
  ncu -i rep.ncu-rep --page source --csv --print-source sass > sass.csv
Usage: bench/tune/ncu_stalls.py sass.csv [KERNEL_SUBSTRING] [--elements N]
  --elements N: also print executed warp instructions per 32 elements (the work the launch did)
"""
import csv
import re
import sys


def kernels(rows):
    """(name, header, data rows) per kernel on the page"""
    starts = [i for i, r in enumerate(rows) if r and r[0] == "Kernel Name"] + [len(rows)]
    for a, b in zip(starts, starts[1:]):
        yield rows[a][1], rows[a + 1], rows[a + 2:b]


def num(x):
    try:
        return float(x)
    except ValueError:
        return 0.0


def main():
    args = sys.argv[1:]
    elements = None
    if "--elements" in args:
        k = args.index("--elements")
        elements = float(args[k + 1])
        del args[k:k + 2]
    if not args:
        print(__doc__)
        return 2
    rows = list(csv.reader(open(args[0])))
    want = args[1] if len(args) > 1 else ""
    for name, h, data in kernels(rows):
        if want not in name:
            continue
        si, ei = h.index("Warp Stall Sampling (All Samples)"), h.index("Instructions Executed")
        data = [r for r in data if len(r) > max(si, ei)]
        st = sum(num(r[si]) for r in data) or 1.0
        ex = sum(num(r[ei]) for r in data) or 1.0
        print(f"== {name[:110]}\n   {len(data)} SASS lines, {st:.0f} stall samples, {ex:.0f} warp instructions executed")
        if elements:
            print(f"   {ex / (elements / 32):.1f} warp instructions per 32 elements")
        print("   phase (between barriers)        samples  executed")
        bars = [i for i, r in enumerate(data) if "BAR.SYNC" in r[1]]
        for a, b in zip([0] + bars, bars + [len(data)]):
            s = sum(num(r[si]) for r in data[a:b]) / st
            e = sum(num(r[ei]) for r in data[a:b]) / ex
            if s > 0.005 or e > 0.005:
                print(f"   lines {a:5d}-{b:5d}                {100 * s:6.1f}%  {100 * e:6.1f}%")
        print("   class                            samples  executed")
        for cls in ["MATCH", "ATOMS", "ATOMG", "BAR", "LDS", "STS", "LDG", "STG", "SHFL", "POPC", "STRONG", "LDC"]:
            sel = [r for r in data if re.search(r"\b" + cls if cls != "STRONG" else cls, r[1])]
            s = sum(num(r[si]) for r in sel) / st
            e = sum(num(r[ei]) for r in sel) / ex
            print(f"   {cls:8s} ({len(sel):4d} lines)          {100 * s:6.1f}%  {100 * e:6.1f}%")
        print("   hottest lines (the stall usually waits on the instruction before)")
        for i in sorted(sorted(range(len(data)), key=lambda i: -num(data[i][si]))[:25]):
            print(f"   {i:5d} {100 * num(data[i][si]) / st:5.1f}%  {data[i][1].strip()[:80]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
