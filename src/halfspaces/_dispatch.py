"""How a compiled primitive is resolved for the types it gets: the input types of the
passes (:class:`CSR` rows, :class:`Difference` weights) and :func:`resolved`, which makes a
primitive's stub run the implementation for its first argument's kind, at compile time in
compiled code and at each call from Python (the primitives are in
:mod:`halfspaces._primitives`)."""

from __future__ import annotations

import functools
import inspect
from typing import NamedTuple

import numpy as np
from numba import config as numba_config
from numba import types
from numba.extending import overload


class CSR(NamedTuple):
    """The arrays of a canonical CSR matrix, as the compiled passes take it."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray


class Difference(NamedTuple):
    """The weight vector ``w - a u``, read entry by entry and never materialised."""

    w: np.ndarray
    u: np.ndarray
    a: float


def _kind(x) -> str | None:
    """'array', 'CSR', 'Difference' or 'none' for a value or for its numba type (else None)."""
    cls = getattr(x, "instance_class", type(x))  # numba's type of a NamedTuple names it
    if cls in (CSR, Difference):
        return cls.__name__
    if x is None or isinstance(x, types.NoneType):
        return "none"
    return "array" if isinstance(x, (np.ndarray, types.Array)) else None


def resolved(*, inline: bool = False, **impls):
    """Turn a stub (the signature and docstring of a primitive) into the function that
    runs ``impls[kind of its first argument]`` (keywords ``array``, ``CSR``,
    ``Difference``, ``none``), chosen at compile time in compiled code (numba's ``@overload``), at
    each call from Python.

    The implementations are plain functions with the stub's parameters, never ``@njit``
    ones (numba would cache an implementation compiled for ``@overload``, which has no
    Python entry point, under the name of the ``@njit`` function, and a later call from
    Python would load it); they may call ``@njit`` functions. ``inline=True`` inlines the
    implementation where it is called (numba's ``inline="always"``): a row update called in
    a large pass otherwise stays a call with its arguments on the stack (measured: 10% of
    a mini-batch Pegasos pass on a9a). Check the pass's LLVM (``inspect_llvm``) both ways:
    numba gives the inlined arguments their own references, and where its pruning misses
    them each call costs an atomic ``NRT_incref``/``NRT_decref`` pair per array (plain
    Pegasos' CSR pass paid two pairs per violator for an inlined ``row_axpy2``; left to
    LLVM, that call is inlined without them).
    """

    def decorate(stub):
        def dispatch(*args):
            return impls[_kind(args[0])](*args)

        functools.update_wrapper(dispatch, stub)  # name, docstring and signature
        if not numba_config.DISABLE_JIT:

            def typer(*args):
                return impls.get(_kind(args[0]))

            typer.__signature__ = inspect.signature(stub)
            overload(dispatch, inline="always" if inline else "never",
                     jit_options={"cache": True})(typer)
        return dispatch

    return decorate
