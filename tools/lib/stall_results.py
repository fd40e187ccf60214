"""Reads what tools/stall-experiment measures by: the pager's notifications around a freeze
(results/pages/pages.jsonl, the live file, and in `summary` also the archived pages-*.jsonl) and, in `summary`, the stored runs, as the markdown table of
docs/MEASUREMENTS.md. Reads files only.

  stall_results.py find <pages.jsonl> <after_ms> firing|resolved <since_ms>
      prints "received_ms alertname" of the first matching notification, or nothing
  stall_results.py summary <repo-root> [--since DATE]
      prints the table of every run in results/experiments/stall/ frozen at or after DATE (UTC)
"""
import datetime
import glob
import json
import os
import re
import sys


def lines_of(paths):
    """The lines of each file in turn (the archive before the live file)."""
    for path in paths:
        with open(path) as f:
            yield from f


def first_page(paths, after, want, since):
    """The first notification after `after` (ms) with a firing page alert ("firing"), or
    ("resolved") the first one after `after` by which every page alert that fired since `since`
    (the freeze) has resolved again. Returns (received_ms, alert) or None."""
    active = {}
    for line in lines_of(paths):
        try:
            p = json.loads(line)
        except ValueError:
            continue
        if p["received_ms"] <= since:
            continue
        pages = [a for a in p["alerts"] if a.get("severity") == "page"]
        for a in pages:
            key = (a["alertname"], a["labels"].get("layer"))
            if a["status"] == "firing":
                active[key] = a["alertname"]
            else:
                active.pop(key, None)
        if p["received_ms"] <= after:
            continue
        if want == "firing":
            hit = [a for a in pages if a["status"] == "firing"]
        else:
            hit = [a for a in pages if a["status"] == "resolved"] if not active else []
        if hit:
            return p["received_ms"], hit[0]
    return None


def tenths(ms):
    """Seconds with one decimal, rounded half up on the milliseconds."""
    return "-" if ms is None else f"{(ms + 50) // 100 / 10:.1f} s"


def reconciled(root, run):
    """The run's verdict cell: from its reconcile.json, else from the last table of the
    reconcile-wait output stored beside the run (results/runs/ is not in git)."""
    report = os.path.join(root, run.get("reconcile_report") or f"results/runs/{run['run_id']}/reconcile.json")
    layers, verdict = None, None
    if os.path.isfile(report):
        r = json.load(open(report))
        layers = [(l["layer"], l["expected"], l["verdict"]) for l in r["layers"]]
        verdict = r["verdict"]
    else:
        txt = os.path.join(root, "results/experiments/stall", f"{run['run_id']}.reconcile.txt")
        if os.path.isfile(txt):
            # Each reconciliation pass prints its table, then "run <id>: <verdict> (...)"; the last pass counts.
            rows, table = [], None
            for line in open(txt):
                if line.startswith("layer "):
                    table = []
                elif table is not None and re.match(r"^[a-z_.]+\s+\d+\s", line):
                    f = line.split()
                    table.append((f[0], int(f[1]), f[-1]))
                elif table is not None and not line.strip().startswith("---"):
                    rows, table = table, None
                m = re.match(rf"^run {re.escape(run['run_id'])}: (\w+) ", line)
                if m:
                    layers, verdict = rows, m.group(1)
    if not layers:
        return "not reconciled", 0
    exact = sum(1 for _, _, v in layers if v == "exact")
    raw = [e for l, e, _ in layers if l == "clickstream.raw"]
    cell = f"{verdict} ({exact}/{len(layers)} exact" + (f"; raw {raw[0]:,})" if raw else ")")
    return cell, len(layers)


def utc(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)


def alert_name(alert):
    layer = alert["labels"].get("layer")
    return alert["alertname"] + (f"({layer})" if layer else "")


def summary(root, since_ms):
    # The archive (pages-until-DATE.jsonl) sorts before the live pages.jsonl.
    pages = sorted(glob.glob(os.path.join(root, "results/pages/*.jsonl")))
    runs = []
    for f in sorted(glob.glob(os.path.join(root, "results/experiments/stall/stall-*.json"))):
        r = json.load(open(f))
        if r["stopped_at"] >= since_ms:
            runs.append(r)
    runs.sort(key=lambda r: (r["component"], r["stopped_at"]))
    days = {utc(r["stopped_at"]).date() for r in runs}
    clock = "%H:%M:%S" if len(days) <= 1 else "%Y-%m-%d %H:%M:%S"
    rows, layer_counts = [], set()
    for r in runs:
        stop, cont = r["stopped_at"], r["continued_at"]
        page = first_page(pages, stop, "firing", stop)
        resolved = first_page(pages, cont, "resolved", stop) if page else None
        age = r.get("probe_age_before_s") or {}
        cell, n = reconciled(root, r)
        if n:
            layer_counts.add(n)
        rows.append([
            r["component"],
            utc(stop).strftime(clock),
            " / ".join(f"{age[l]} s" if l in age else "-" for l in ("valid", "clean")),
            alert_name(page[1]) if page else "no page",
            tenths(page[0] - stop if page else None),
            tenths(r["stall_ms"]),
            tenths(resolved[0] - cont if resolved else None),
            cell,
        ])
    verdict_head = "run reconciled" + (f" ({layer_counts.pop()} layers)" if len(layer_counts) == 1 else "")
    head = ["component", "SIGSTOP (UTC)", "probe age before (valid / clean)", "first page line",
            "SIGSTOP to page", "stall", "SIGCONT to every page resolved", verdict_head]
    widths = [max(len(row[i]) for row in [head] + rows) for i in range(len(head))]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
    print(line(head))
    print(line(["-" * w for w in widths]))
    for row in rows:
        print(line(row))


def parse_since(argv):
    since_ms = 0
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--since" and args:
            value = args.pop(0)
            try:
                t = datetime.datetime.fromisoformat(value)
            except ValueError:
                sys.exit(f"--since '{value}' is invalid: expected a UTC date or time such as 2026-12-01 or 2026-12-01T01:40Z")
            if t.tzinfo is None:
                t = t.replace(tzinfo=datetime.timezone.utc)
            since_ms = int(t.timestamp() * 1000)
        else:
            sys.exit(f"unknown argument '{a}': usage: tools/stall-experiment summary [--since DATE]")
    return since_ms


if __name__ == "__main__":
    if sys.argv[1:2] == ["find"] and len(sys.argv) == 6:
        hit = first_page([sys.argv[2]], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
        if hit:
            print(hit[0], hit[1]["alertname"])
    elif sys.argv[1:2] == ["summary"] and len(sys.argv) >= 3:
        summary(sys.argv[2], parse_since(sys.argv[3:]))
    else:
        sys.exit(__doc__)
