"""The check that picks the portable code where the hand-written vector code does not
compile or gives other bits (a numba newer than the tested ones). The portable code itself
is the definition the vector code is tested against (``test_primitives*.py``), and
``benchmarks/bench_portable.py`` fits with each and checks the models are the same."""

from __future__ import annotations

from numba import config as numba_config

from halfspaces import _primitives, _simd
from halfspaces._primitives import dot_dense_scalar


def test_the_check_accepts_the_vector_code_on_this_numba():
    """The check an untested numba gets passes here (with the JIT: without it the
    intrinsics do not run, and the check refuses them)."""
    code = _primitives._vector_code(check=True)
    assert (code is None) == bool(numba_config.DISABLE_JIT)
    if code is not None:
        assert code[0] is _simd.dot_dense_vector


def test_the_check_refuses_vector_code_with_other_bits(monkeypatch):
    monkeypatch.setattr(_simd, "dot_dense_vector",
                        lambda w, x: dot_dense_scalar(w, x) + 2.0**-40)
    assert _primitives._vector_code(check=True) is None


def test_the_check_refuses_vector_code_that_does_not_compile(monkeypatch):
    def refused(*args):
        raise NotImplementedError("this LLVM has no such intrinsic")

    monkeypatch.setattr(_simd, "touch", refused)
    assert _primitives._vector_code(check=True) is None
