"""Allocations that grow with n^2 are refused with a MemoryBudgetError, not an abort or an
OOM kill: proved in a subprocess under a small address-space limit (RLIMIT_AS)."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from halfspaces import SVC, MemoryBudgetError
from halfspaces._memory import available_memory, check_allocation

_CHILD = textwrap.dedent("""
    import resource, sys
    import numpy as np
    from halfspaces import SVC, KernelPegasosSVC, MemoryBudgetError
    from halfspaces._memory import available_memory

    used = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (used + (400 << 20), resource.RLIM_INFINITY))
    assert available_memory() <= 400 << 20
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12000, 5))
    y = np.where(X[:, 0] > 0, 1, -1)
    for name, estimator in (("qp", SVC(kernel="rbf", solver="qp")),
                            ("cache", SVC(kernel="rbf", solver="smo", cache_size=2000)),
                            ("callable", SVC(kernel=lambda A, B: A @ B.T, solver="smo")),
                            ("pegasos", KernelPegasosSVC(max_iter=1, cache_size=2000))):
        try:
            estimator.fit(X, y)
        except MemoryBudgetError as err:
            print(name, "refused:", err)
        else:
            print(name, "fitted")
    """)


def test_refusals_under_an_address_space_limit():
    done = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["qp", "refused:"], ["cache", "refused:"], ["callable", "refused:"],
        ["pegasos", "refused:"]]
    assert "solver='smo'" in lines[0] and "smaller cache_size" in lines[1]
    assert "by name" in lines[2]
    assert "smaller cache_size" in lines[3]
    # the estimate is in the message: 110 bytes per entry of 12000^2 for the interior point
    assert f"{110 * 12000**2 / 2**20:,.0f} MB" in lines[0]


_BLOCKS_CHILD = textwrap.dedent("""
    import json, resource
    import numpy as np
    from halfspaces import KernelPegasosSVC, KernelPerceptron

    rng = np.random.default_rng(0)
    X = rng.normal(size=(12000, 5))
    y = np.where(X[:, 0] > 0, 1, -1)
    for warm in (KernelPegasosSVC(max_iter=1), KernelPerceptron(max_iter=1)):
        warm.fit(X[:50], y[:50])  # imports and kernels loaded before the baseline
    out = {"base": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    for name, estimator in (("pegasos", KernelPegasosSVC(max_iter=1, cache_size=100)),
                            ("perceptron", KernelPerceptron(max_iter=1, cache_size=100))):
        out[name] = estimator.fit(X, y).score(X[:2000], y[:2000])
        out[name + "_peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(out))
    """)


@pytest.mark.jit_only  # a pass over 12,000 rows, each reading 12,000 kernel values
def test_kernel_passes_stay_within_their_cache():
    """The 12000 x 12000 Gram matrix takes 2.2 GB while it is computed: kernel Pegasos and the
    kernel perceptron run their passes over blocks of cache_size MB instead, and the
    process's peak grows by at most the cache plus 200 MB."""
    done = subprocess.run([sys.executable, "-c", _BLOCKS_CHILD], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    for name in ("pegasos", "perceptron"):
        assert out[name] > 0.9  # y = sign(x_0): learnable
        assert out[name + "_peak"] - out["base"] <= (100 + 200) << 20, (name, out)


def test_check_allocation_refuses_past_the_budget():
    room = available_memory()
    assert room is None or room > 0
    if room is not None:
        with pytest.raises(MemoryBudgetError, match="needs about") as caught:
            check_allocation("owner", room + (1 << 30), "a test array", "Do less.")
        assert isinstance(caught.value, MemoryError)
        assert caught.value.needed == room + (1 << 30)
    check_allocation("owner", 1024, "a small array", "-")  # fits: nothing raised


def test_smo_fits_where_the_qp_is_refused(monkeypatch):
    from halfspaces import _memory

    X = np.random.default_rng(1).normal(size=(300, 3))
    y = np.where(X[:, 0] + X[:, 1] ** 2 > 0.5, 1, -1)
    monkeypatch.setattr(_memory, "available_memory", lambda: 5 << 20)  # 5 MB
    with pytest.raises(MemoryBudgetError, match="solver='smo'"):
        SVC(kernel="rbf", solver="qp").fit(X, y)
    assert SVC(kernel="rbf", solver="smo", cache_size=1).fit(X, y).solver_ == "smo"
