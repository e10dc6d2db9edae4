#!/usr/bin/env python3
"""perf_tables.py BENCH_JSON [MORE_JSON...] > docs/PERFORMANCE.md

Makes the performance tables from what `scripts/device_check.sh bench` writes (bench.json): for each suite a header
object {"suite", "command", "commit"} followed by the reports `gpuprim bench SUITE --json` printed ({"title", "device",
"date", "timing", ..., "rows": [...]}). Later files replace the suites earlier ones gave, so a run of one suite updates
its tables alone. The output is the whole of docs/PERFORMANCE.md: one section per suite, in the order given, each
table under its device, driver, date, commit and command.
"""
import json
import sys


def objects(text):
    """Every JSON object in text, in order (the suites print one or more, each on its own lines)."""
    dec = json.JSONDecoder()
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            break
        if text[i] != "{":  # a stray line (a suite's note on stderr that reached the file): skip it
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        obj, i = dec.raw_decode(text, i)
        yield obj


def suites(paths):
    order, found = [], {}
    for p in paths:
        with open(p, encoding="utf-8") as f:
            text = f.read()
        current = None
        for obj in objects(text):
            if "suite" in obj and "rows" not in obj:
                current = obj["suite"]
                if current not in found:
                    order.append(current)
                found[current] = {"head": obj, "reports": []}
            elif current is not None and "rows" in obj:
                found[current]["reports"].append(obj)
    return [(s, found[s]) for s in order]


def cell(v):
    if v is None:
        return ""
    return str(v).replace("|", "\\|")


def table(rep, out):
    rows = rep.get("rows", [])
    if not rows:
        out.append("(no rows)\n")
        return
    cols = list(rows[0].keys())
    out.append("| " + " | ".join(cols) + " |")
    out.append("|" + "|".join("---" for _ in cols) + "|")
    for r in rows:
        out.append("| " + " | ".join(cell(r.get(c)) for c in cols) + " |")
    out.append("")


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    out = ["# Performance", "",
           "The current measurements, made by `scripts/perf_tables.py` from `scripts/device_check.sh bench` (the",
           "suites' `--json`). Each table says where and how it was measured; the method (medians, rotated inputs, the",
           "ceilings measured in the same run) is in docs/guide/bench.md, and each family's design doc says why its",
           "numbers are what they are.", ""]
    for name, s in suites(argv[1:]):
        h = s["head"]
        out.append("## bench %s" % name if name != "files" else "## The data verbs on a file")
        out.append("")
        if not s["reports"]:
            out.append("(no rows: the suite did not run to the end on that machine; `%s`, commit %s)"
                       % (h.get("command", ""), h.get("commit", "unknown")))
            out.append("")
        for rep in s["reports"]:
            if rep.get("title") and len(s["reports"]) > 1:
                out.append("### %s" % rep["title"])
                out.append("")
            meta = [(k, v) for k, v in rep.items() if k not in ("title", "rows") and not isinstance(v, list)]
            out.append("- command: `%s`, commit %s" % (h.get("command", ""), h.get("commit", "unknown")))
            for k, v in meta:
                out.append("- %s: %s" % (k, v))
            out.append("")
            table(rep, out)
    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
