"""Cold-run time of two devlint checkouts, side by side, in alternating pairs.

    python benchmarks/paired.py OLD_CHECKOUT NEW_CHECKOUT CORPUS [--pairs 5] [--jobs 2]
        [--old-args "--output-format concise"] [--new-args "--output-format full"]

Each pair runs `python -m devlint --isolated --no-cache -q --exit-zero CORPUS` once from each
checkout (PYTHONPATH set to it), the order alternating from pair to pair, so that the noise of a
shared machine falls on both sides alike. Prints every pair, the median of each side, and the
median and range of the paired ratios NEW/OLD: the figure for "not more than N% slower". Each run's
CPU time (user + system, the process and its workers) is printed too: on a machine shared with
other heavy jobs, wall time mostly measures them, and the CPU ratio is the steadier figure.
`--old-args`/`--new-args` add options to one side (split on spaces): the same checkout twice with
two output formats measures what a format costs.
Run by hand, never by the tests.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time


def cold_run(checkout: str, corpus: str, jobs: int, extra: str = "") -> tuple[float, float]:
    """(wall seconds, CPU seconds of the run and its workers)."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(checkout)}
    command = [sys.executable, "-m", "devlint", "--isolated", "--no-cache", "-q", "--exit-zero",
               "--jobs", str(jobs), *extra.split(), os.path.abspath(corpus)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # Run in the checkout: `python -m` puts the working directory first on sys.path, before PYTHONPATH, so a
    # run started in another checkout would run that checkout's devlint.
    subprocess.run(command, env=env, cwd=os.path.abspath(checkout), stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("corpus")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--old-args", default="", help="more devlint options for the old side")
    parser.add_argument("--new-args", default="", help="more devlint options for the new side")
    args = parser.parse_args()
    olds, news, ratios, cpu_ratios = [], [], [], []
    for index in range(args.pairs):
        if index % 2:
            new = cold_run(args.new, args.corpus, args.jobs, args.new_args)
            old = cold_run(args.old, args.corpus, args.jobs, args.old_args)
        else:
            old = cold_run(args.old, args.corpus, args.jobs, args.old_args)
            new = cold_run(args.new, args.corpus, args.jobs, args.new_args)
        olds.append(old)
        news.append(new)
        ratios.append(new[0] / old[0])
        cpu_ratios.append(new[1] / old[1])
        print(f"pair {index + 1}: old {old[0]:.1f} s ({old[1]:.1f} s CPU), new {new[0]:.1f} s ({new[1]:.1f} s CPU),"
              f" ratio {ratios[-1]:.3f} (CPU {cpu_ratios[-1]:.3f})", flush=True)
    print(f"median: old {statistics.median(o[0] for o in olds):.1f} s,"
          f" new {statistics.median(n[0] for n in news):.1f} s;"
          f" paired ratio median {statistics.median(ratios):.3f} (range {min(ratios):.3f}-{max(ratios):.3f});"
          f" CPU ratio median {statistics.median(cpu_ratios):.3f}"
          f" (range {min(cpu_ratios):.3f}-{max(cpu_ratios):.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
