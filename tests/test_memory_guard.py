"""Allocations that grow with n^2 are refused with a MemoryBudgetError, not an abort or an
OOM kill: proved in a subprocess under a small address-space limit (RLIMIT_AS)."""

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
                            ("pegasos", KernelPegasosSVC(max_iter=1))):
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
    # the estimate is in the message: 110 bytes per entry of 12000^2 for the interior point
    assert f"{110 * 12000**2 / 2**20:,.0f} MB" in lines[0]


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
