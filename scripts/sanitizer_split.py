#!/usr/bin/env python3
"""sanitizer_split.py LOG — a compute-sanitizer log of a run where NCCL works beside gpuprim's kernels, its error
records split into those in NCCL's frames (a kernel named nccl*, or a host backtrace through libnccl) and the rest
(gpuprim's, or the CUDA runtime's on gpuprim's behalf). Prints both counts and the first record that is not NCCL's;
exits 1 when there is one (docs/design/group.md, "The sanitizer where NCCL runs")."""
import re
import sys

PREFIX = "========= "


def records(lines):
    """Each error record: its header line (text right after the prefix) and the indented lines below it."""
    rec = None
    for line in lines:
        line = line.rstrip("\n")
        if not line.startswith("========="):
            continue
        body = line[len(PREFIX):] if line.startswith(PREFIX) else ""
        if not body.strip():  # the blank line that closes a record
            if rec:
                yield rec
            rec = None
            continue
        if not body.startswith(" "):  # a header: a new record, unless it is the tool's own line
            if rec:
                yield rec
            rec = None
            if re.match(r"(COMPUTE-SANITIZER|ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|Target application)", body):
                continue
            rec = [body]
        elif rec is not None:
            rec.append(body.strip())
    if rec:
        yield rec


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: sanitizer_split.py LOG")
    with open(sys.argv[1], errors="replace") as f:
        recs = list(records(f))
    nccl = [r for r in recs if any(re.search(r"nccl", x, re.I) for x in r)]
    ours = [r for r in recs if r not in nccl]
    print(f"sanitizer records: {len(recs)}, in NCCL's frames: {len(nccl)}, elsewhere: {len(ours)}")
    if ours:
        print("first record outside NCCL:")
        for x in ours[0][:20]:
            print("   ", x)
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
