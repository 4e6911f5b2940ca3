"""``python -m gluonlite.tools.parse_log LOG`` (``mxnet.tools.parse_log``): the per-epoch
table of a training log, as MXNet 1.9's tool prints it.

It reads the lines that ``Module.fit`` / ``mx.callback`` log::

    Epoch[0] Train-accuracy=0.5
    Epoch[0] Time cost=12.3
    Epoch[0] Validation-accuracy=0.6

and averages, per epoch (numbered from 1 in the table), each ``Train-<metric>``,
``Validation-<metric>`` (``--metric-names``, default ``accuracy``) and the time, as a
markdown table (``--format markdown``) or tab-separated (``--format none``).

MXNet's script parses its command line when imported; here the work is in
:func:`parse` and :func:`format_table`, and :func:`main` is the command line.  An epoch
missing one of the values raises ``ZeroDivisionError`` in MXNet's tool; here the cell
reads ``nan``.
"""
from __future__ import annotations

import argparse
import re
import sys
from typing import Iterable, Optional, Sequence

__all__ = ["parse", "format_table", "main"]


def _patterns(metric_names: Sequence[str]) -> list:
    train = [re.compile(r".*Epoch\[(\d+)\] Train-" + m + r".*=([.\d]+)") for m in metric_names]
    val = [re.compile(r".*Epoch\[(\d+)\] Validation-" + m + r".*=([.\d]+)")
           for m in metric_names]
    return train + val + [re.compile(r".*Epoch\[(\d+)\] Time.*=([.\d]+)")]


def parse(lines: Iterable[str], metric_names: Sequence[str] = ("accuracy",)) -> dict:
    """``{epoch: [mean of each column]}`` (columns: the train metrics, the validation
    metrics, the time; ``nan`` where an epoch has no value), epochs in order of first
    appearance.  A line counts for the first pattern it matches."""
    patterns = _patterns(metric_names)
    sums: dict = {}
    for line in lines:
        for column, pattern in enumerate(patterns):
            match = pattern.match(line)
            if match is not None:
                cells = sums.setdefault(int(match.group(1)), [[0.0, 0] for _ in patterns])
                cells[column][0] += float(match.group(2))
                cells[column][1] += 1
                break
    return {epoch: [total / count if count else float("nan") for total, count in cells]
            for epoch, cells in sums.items()}


def format_table(table: dict, metric_names: Sequence[str] = ("accuracy",),
                 fmt: str = "markdown") -> str:
    """The table :func:`parse` returned as MXNet's tool prints it (``fmt`` is
    ``'markdown'`` or ``'none'``)."""
    names = (["train-" + m for m in metric_names] + ["val-" + m for m in metric_names])
    rows = []
    if fmt == "markdown":
        rows.append("| epoch | " + " | ".join(names[:len(metric_names)]) + " | "
                    + " | ".join(names[len(metric_names):]) + " | time |")
        rows.append("| --- " * (len(names) + 2) + "|")
        for epoch, values in table.items():
            rows.append("| %2d | " % (epoch + 1) + " | ".join("%f" % v for v in values[:-1])
                        + " | %.1f |" % values[-1])
    elif fmt == "none":
        rows.append("\t".join(["epoch"] + names + ["time"]))
        for epoch, values in table.items():
            rows.append("\t".join(["%2d" % (epoch + 1)] + ["%f" % v for v in values[:-1]]
                                  + ["%.1f" % values[-1]]))
    else:
        raise ValueError(f"parse_log: format must be 'markdown' or 'none', got {fmt!r}")
    return "\n".join(rows)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Print the table of the log named on the command line; returns 0."""
    parser = argparse.ArgumentParser(prog="parse_log", description="Parse mxnet output log")
    parser.add_argument("logfile", nargs=1, type=str, help="the log file for parsing")
    parser.add_argument("--format", type=str, default="markdown", choices=["markdown", "none"],
                        help="the format of the parsed outout")
    parser.add_argument("--metric-names", type=str, nargs="+", default=["accuracy"],
                        help="names of metrics in log which should be parsed")
    args = parser.parse_args(argv)
    with open(args.logfile[0]) as f:
        table = parse(f, args.metric_names)
    print(format_table(table, args.metric_names, args.format))
    return 0


if __name__ == "__main__":
    sys.exit(main())
