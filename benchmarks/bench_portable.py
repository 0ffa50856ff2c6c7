"""The hand-written vector code (``halfspaces._simd``) against the portable code that replaces
it on an untested numba (``HALFSPACES_PORTABLE_KERNELS=1``): the passes that use it.

    python benchmarks/bench_portable.py             # 200,000 x 100 dense, 100,000-row CSR
    python benchmarks/bench_portable.py --quick     # small sets, a smoke test

Two worker processes hold the same data, one with the vector code and one with the portable
code (its own NUMBA_CACHE_DIR: cached passes keep the code they were compiled with); each
round times every call once in each, alternating which goes first, and the medians of the
rounds' process CPU times are compared. Calls:

- dense, in order: ``Perceptron(max_iter=1, shuffle=False).fit`` (the dense dot);
- dense, shuffled: ``Perceptron(max_iter=1, random_state=0).fit`` (the dot and the prefetch
  hints of the rows ahead);
- CSR, dual coordinate descent: ``SVC(solver='dcd', max_iter=5, random_state=0).fit`` (a
  CSR row summed in the dense row's order, and the prefetch hints).

Both workers must fit the same models, bit for bit: the script compares their coefficients.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import load_average, make_dense_planted, make_sparse_planted  # noqa: E402

CALLS = ("dense, in order", "dense, shuffled", "CSR, dual coordinate descent")


def _worker(quick: bool) -> None:
    """Serve rounds on stdin: for each line, time every call once and print the times."""
    from halfspaces import SVC, Perceptron, _primitives

    warnings.simplefilter("ignore")
    rows = 20_000 if quick else 200_000
    Xd, yd = make_dense_planted(rows, 100, noise=0.05, random_state=1)
    Xs, ys = make_sparse_planted(rows // 2, 20_000, 50, noise=0.05, random_state=2)
    fits = {CALLS[0]: lambda: Perceptron(max_iter=1, shuffle=False).fit(Xd, yd),
            CALLS[1]: lambda: Perceptron(max_iter=1, random_state=0).fit(Xd, yd),
            CALLS[2]: lambda: SVC(solver="dcd", max_iter=5, tol=1e-12,
                                                 random_state=0).fit(Xs, ys)}
    digests = {name: hashlib.sha256(fit().coef_.tobytes()).hexdigest()  # compiles too
               for name, fit in fits.items()}
    print(json.dumps({"vector_code": _primitives.VECTOR_CODE is not None,
                      "digests": digests}), flush=True)
    for _ in sys.stdin:
        times = {}
        for name, fit in fits.items():
            start = time.process_time()
            fit()
            times[name] = time.process_time() - start
        print(json.dumps(times), flush=True)


def _start(portable: bool, quick: bool, cache: str) -> subprocess.Popen:
    env = dict(os.environ)
    if portable:
        env.update(HALFSPACES_PORTABLE_KERNELS="1", NUMBA_CACHE_DIR=cache)
    return subprocess.Popen([sys.executable, __file__, "--worker", *(["--quick"] * quick)],
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="small sets, for a smoke test")
    parser.add_argument("--repeats", type=int, default=7, help="rounds (default 7)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.quick)
        return
    print(f"bench_portable: {'quick' if args.quick else 'full'} run, {args.repeats} rounds of"
          f" process CPU time; {load_average()}")
    with tempfile.TemporaryDirectory() as cache:
        workers = {"vector code": _start(False, args.quick, cache),
                   "portable code": _start(True, args.quick, cache)}
        ready = {name: json.loads(w.stdout.readline()) for name, w in workers.items()}
        assert ready["vector code"]["vector_code"] and not ready["portable code"]["vector_code"]
        same = ready["vector code"]["digests"] == ready["portable code"]["digests"]
        times = {name: {call: [] for call in CALLS} for name in workers}
        for round_ in range(args.repeats):
            order = list(workers) if round_ % 2 == 0 else list(workers)[::-1]
            for name in order:
                workers[name].stdin.write("go\n")
                workers[name].stdin.flush()
                for call, seconds in json.loads(workers[name].stdout.readline()).items():
                    times[name][call].append(seconds)
        for worker in workers.values():
            worker.stdin.close()
            worker.wait()
    for call in CALLS:
        print(f"\n{call}")
        for name in workers:
            runs = times[name][call]
            print(f"  {name:<14s} median {statistics.median(runs) * 1e3:9.1f} ms   (runs:"
                  f" {', '.join(f'{v * 1e3:.1f}' for v in runs)})")
        ratio = statistics.median(times["portable code"][call]) \
            / statistics.median(times["vector code"][call])
        paired = statistics.median(p / v for p, v in zip(times["portable code"][call],
                                                         times["vector code"][call],
                                                         strict=True))
        print(f"  portable / vector code: {ratio:.3f} (paired {paired:.3f}); the vector code"
              f" is kept where this is at least 1.10")
    differ = [call for call in CALLS if ready["vector code"]["digests"][call]
              != ready["portable code"]["digests"][call]]
    print(f"\nsame models, bit for bit: {'yes' if same else 'NO: ' + ', '.join(differ)}")
    print(f"after: {load_average()}")


if __name__ == "__main__":
    main()
