#!/usr/bin/env python3
"""Register-bank conflicts of the FFMAs in a cuobjdump -sass listing, under a 2-bank model (docs/design/matrix.md, f32).

Model (ours, fitted to the SGEMM measurements of 2026-11-25; NVIDIA documents no register banks): a register's bank
is its number mod 2; an FFMA's source operand is served by the reuse cache when the FFMA just before it (non-FFMA
instructions in between do not reset the cache) read the same register in the same slot with .reuse set; the other
distinct source registers are read from the file, and two of them in one bank cost one extra cycle each.

Usage: bench/tune/sass_banks.py LISTING  (cuobjdump -sass output; one line per kernel: FFMAs, conflicting FFMAs, %)
"""
import re
import sys

INSN = re.compile(r'\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)\s+([^;]*);')
REG = re.compile(r'-?\|?R(\d+)(\.reuse)?')


def count(lines):
    prev, total, conflicts = None, 0, 0
    for line in lines:
        m = INSN.search(line)
        if not m:  # an encoding-only line or a label
            continue
        if not m.group(2).startswith('FFMA'):
            prev = None
            continue
        cur, reads = [], set()
        for slot, arg in enumerate(a.strip() for a in m.group(3).split(',')[1:4]):
            r = REG.match(arg)
            if not r:
                cur.append(None)
                continue
            reg = int(r.group(1))
            cur.append((reg, bool(r.group(2))))
            if prev and prev[slot] and prev[slot][0] == reg and prev[slot][1]:
                continue
            reads.add(reg)
        banks = [0, 0]
        for reg in reads:
            banks[reg % 2] += 1
        total += 1
        conflicts += max(banks) > 1
        prev = cur
    return total, conflicts


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    kernels, name = {}, None
    with open(sys.argv[1], errors='replace') as f:
        for line in f:
            if 'Function :' in line:
                name = line.split('Function :')[1].strip()
                kernels[name] = []
            elif name:
                kernels[name].append(line)
    for name, lines in kernels.items():
        total, conflicts = count(lines)
        if total:
            print(f'{total:6d} FFMA {conflicts:6d} conflicting {100.0 * conflicts / total:5.1f}%  {name}')


if __name__ == '__main__':
    main()
