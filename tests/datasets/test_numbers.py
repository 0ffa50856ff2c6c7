"""The readers' number parser: every token gives Python's float, bit for bit."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import decimal_numbers, midpoint

from halfspaces.datasets import _numbers as N

DELIM = N.delimiters(b" \t\n#\r\x0b\x0c")


def parse(token: str, use_strtod: bool = True):
    buf = np.frombuffer(token.encode() + b" \n" + b"\0" * N.PAD, dtype=np.uint8).copy()
    with np.errstate(over="ignore"):  # wrapping uint64 arithmetic, when run as Python
        return N.parse_number(buf, 0, DELIM, use_strtod)


def bits(v: float) -> bytes:
    return struct.pack("<d", v)


def check(token: str) -> None:
    """The token parses to float(token) exactly (sign of zero included), or is refused as
    float refuses it; without strtod, a number is either exact or left to Python."""
    try:
        ref = None if "_" in token else float(token)  # '1_0' is refused (Python takes it)
    except ValueError:
        ref = None
    for use_strtod in (True, False):
        v, status, end = parse(token, use_strtod)
        if ref is None:
            assert status == N.NOT_A_NUMBER, token
        elif ref != ref:
            assert status == N.IS_NAN, token
        elif status == N.TO_PYTHON:
            assert not use_strtod, token
            assert end == len(token)
        else:  # an infinity (or overflow) is a value with its own status
            assert status == (N.IS_INF if math.isinf(ref) else N.OK), token
            assert end == len(token), token
            assert bits(v) == bits(ref), (token, v, ref)


# Hard cases: 17-digit mantissas, ties (exact midpoints), subnormals, the limits, 2**53 + 1.
HARD = [
    "9007199254740993", "9007199254740992", "9007199254740995", "18014398509481985",
    "2.2250738585072011e-308", "2.2250738585072014e-308", "2.225073858507201136e-308",
    "4.9406564584124654e-324", "2.4703282292062328e-324", "2.4703282292062327e-324",
    "5e-324", "1e-400", "1.7976931348623157e308", "1.7976931348623158e308",
    "1.797693134862315807e308", "1.7976931348623159e308", "1e309", "1e23", "8.98846567431158e307",
    "0.1", "0.30000000000000004", "123456789012345678", "1844674407370955161500",
    "0.000000000000000000000000000000000000001234", "12345678901234567890123",
    "-0", "+0.0e-999", "0e999", ".5", "5.", "-.5e-3", "1.e5", "00012", "1E+2", "inf",
    "-Infinity", "nan", "NaN", "-nan", "abc", "1e", "1e+", "+", "-", ".", "e5", "1_0", "1x",
    "1.2.3", "1e5.5", "--1", "0x10", "infinit", "in",
    str(midpoint(1.0)), str(midpoint(0.1)), str(midpoint(1e300)), str(midpoint(5e-324)),
    str(midpoint(2.2250738585072014e-308)), str(midpoint(1.7976931348623157e308)),
]


@pytest.mark.parametrize("token", HARD)
def test_hard_cases(token):
    check(token)


@settings(max_examples=400, deadline=None)
@given(token=decimal_numbers(), sign=st.sampled_from(["", "-", "+"]))
def test_generated_tokens_match_python_float(token, sign):
    check(sign + token)


def _round_fraction(x: Fraction) -> float:
    """Round a positive rational to the nearest double, ties to even (normal range)."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    # x in [2**e, 2**(e+1)): 53 significant bits means an ulp of 2**(e - 52)
    ulp = Fraction(2) ** (e - 52)
    n, rest = divmod(x, ulp)
    if rest * 2 > ulp or (rest * 2 == ulp and n % 2 == 1):
        n += 1
    return float(n * ulp) if e - 52 >= -1074 else float("nan")


@settings(max_examples=300, deadline=None)
@given(w=st.integers(1, 10**19 - 1), q=st.integers(-340, 308))
def test_power_of_five_product_is_the_nearest_double_or_undecided(w, q):
    v = N._from_power_of_five(np.uint64(w), q, N._M5, N._E5)
    x = Fraction(w) * Fraction(10) ** q
    ref = _round_fraction(x) if x < 2**1024 else float("inf")
    if v == -2.0:  # beyond the largest double
        assert ref == float("inf"), (w, q, ref)
        return
    if v < 0:  # undecided (or subnormal): strtod takes it
        return
    assert bits(v) == bits(ref), (w, q, v, ref)


def test_power_of_five_product_decides_nearly_always():
    # The product is the fast path for 16-19 digit numbers: it must rarely give up.
    rng = np.random.default_rng(0)
    ws = rng.integers(10**15, 10**19 - 1, size=2000, dtype=np.uint64)
    qs = rng.integers(-300, 290, size=2000)
    undecided = sum(N._from_power_of_five(w, int(q), N._M5, N._E5) < 0
                    for w, q in zip(ws, qs, strict=True))
    assert undecided <= 20
    # and a tie of 2**53 + 1 (exactly halfway) is left to strtod, which rounds to even
    assert N._from_power_of_five(np.uint64(2**53 + 1), 0, N._M5, N._E5) == -1.0
    assert parse("9007199254740993")[0] == 2.0**53


def test_the_table_brackets_every_power_of_five():
    for q in (-342, -300, -23, -1, 0, 1, 27, 28, 55, 56, 308):
        hi, lo = (int(v) for v in N._M5[q - N._Q_MIN])
        m, e = (hi << 64) | lo, int(N._E5[q - N._Q_MIN])
        exact = Fraction(5) ** q
        assert 2**127 <= m < 2**128
        assert Fraction(m) * Fraction(2) ** e <= exact < Fraction(m + 1) * Fraction(2) ** e


@settings(max_examples=300, deadline=None)
@given(text=st.binary(min_size=8, max_size=8) | st.text("0123456789 .:e\n", min_size=8,
                                                       max_size=8).map(str.encode))
def test_digit_run_counts_and_reads_the_leading_digits(text):
    k = len(text) - len(text.lstrip(b"0123456789"))
    word = np.frombuffer(text, dtype="<u8")[0]
    with np.errstate(over="ignore"):
        got_k, value = N.digit_run(word)
    assert got_k == k
    assert int(value) == (int(text[:k]) if k else 0)
