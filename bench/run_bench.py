"""Run a benchmark under gluonlite, PyTorch CPU and MXNet 1.9.1 in one go and print one table.

The reference frameworks live in side virtual environments (never imported by
gluonlite or its tests)::

    python3 -m venv ~/.venvs/mxnet-ref && ~/.venvs/mxnet-ref/bin/pip install mxnet==1.9.1 "numpy<1.24"
    python3 -m venv ~/.venvs/torch && ~/.venvs/torch/bin/pip install torch==2.13.0 numpy

Usage: ``python bench/run_bench.py bench_dispatch.py [extra args]``.  A framework
whose environment is missing is skipped.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHONS = {
    "gluonlite": sys.executable,
    "numpy": sys.executable,
    "torch": os.path.expanduser("~/.venvs/torch/bin/python"),
    "mxnet": os.path.expanduser("~/.venvs/mxnet-ref/bin/python"),
}


def run(script: str, extra: list[str]) -> dict:
    table: dict = {}
    # every framework's BLAS on every core, as PyTorch's and MXNet's own defaults are
    # (gluonlite's import would otherwise take half), unless the caller chose a count
    env = dict(os.environ)
    env.setdefault("OPENBLAS_NUM_THREADS", str(os.cpu_count() or 1))
    for framework, python in PYTHONS.items():
        if not os.path.exists(python):
            print(f"# {framework}: {python} missing, skipped", file=sys.stderr)
            continue
        cmd = [python, os.path.join(HERE, script), "--framework", framework, "--json", *extra]
        res = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if res.returncode != 0:
            if "choice" in res.stderr:
                continue  # the benchmark has no case for this framework
            print(f"# {framework} failed:\n{res.stderr[-2000:]}", file=sys.stderr)
            continue
        line = [ln for ln in res.stdout.splitlines() if ln.startswith("{")][-1]
        table[framework] = json.loads(line)
    return table


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    table = run(sys.argv[1], sys.argv[2:])
    for result in table.values():  # flat results ({"case": number}) go in one table
        flat = {k: v for k, v in result.items() if isinstance(v, (int, float))}
        for k in flat:
            del result[k]
        if flat:
            result.setdefault("results", {}).update(flat)
    metrics = sorted({k for v in table.values() for k in v if k != "framework"})
    for metric in metrics:
        cases = list(dict.fromkeys(c for v in table.values() for c in v.get(metric, {})))
        frameworks = [f for f in table if metric in table[f]]
        print(f"\n{metric}")
        print("| case | " + " | ".join(frameworks) + " |")
        print("|---|" + "---|" * len(frameworks))
        for case in cases:
            cells = [table[f][metric].get(case) for f in frameworks]
            print(f"| {case} | " + " | ".join("-" if c is None else f"{c:.2f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
