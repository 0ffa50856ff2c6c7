"""Decimal text to float64, correctly rounded, in compiled code (the readers' number parser).

A token ``[+-]? (digits [. digits] | . digits) ([eE] [+-]? digits)?`` (or ``inf``,
``infinity``, ``nan`` in any case) is read as ``w * 10**q`` with ``w`` its first 19
significant digits (an exact uint64) and ``q`` the decimal exponent, then converted by the
first of these that applies:

1. **Clinger's fast path** (Clinger 1990): ``w <= 2**53`` and ``|q| <= 22``. Both ``w`` and
   ``10**|q|`` are exact doubles, so ``w * 10**q`` or ``w / 10**-q`` is one IEEE operation,
   correctly rounded.
2. **A truncated product of powers of five** (the idea of Eisel and Lemire, Lemire 2021,
   "Number parsing at a gigabyte per second"), for ``w`` of at most 19 digits and
   ``-342 <= q <= 308``. ``w * 10**q = w * 5**q * 2**q``; a table holds, for each ``q``, the
   128-bit ``M_q`` and exponent ``E_q`` with ``5**q in [M_q, M_q + 1) * 2**E_q`` (``M_q`` in
   ``[2**127, 2**128)``, computed at import from exact integers). With ``w`` shifted so that
   its top bit is set (``w_n``), the exact value lies in the interval
   ``[w_n M_q, w_n M_q + w_n)`` of 192-bit integers (times a power of two). The double
   nearest to every point of the interval is the same when the interval lies inside one
   half-ulp cell (between a representable value and a midpoint); that double is returned.
   Otherwise (a crossing has probability about ``2**-73``), a value exactly on a midpoint
   (ties are broken to even), a subnormal result or more than 19 significant digits, the
   number goes on to
3. **C's strtod** (correctly rounded in glibc), or, when strtod cannot be used (a locale
   whose decimal point is not ``"."``), back to Python's ``float`` (status 3).

So every value is the correctly rounded double, as Python's ``float`` and scikit-learn's
reader give. The buffer must hold a delimiter after each token (the readers keep a final
newline); the table ``delim`` (uint8[256], non-zero: delimiter) says which bytes end a
token. Bytes are read as ``buf[np.uint64(p)]``: an unsigned index needs no test for a
negative value on every access, which also lets loops over bytes vectorize.
"""

from __future__ import annotations

import ctypes
import locale
import math

import numpy as np
from numba import config as numba_config
from numba import njit, types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

# C's strtod, resolved by name when the kernel is linked (so the kernel stays cacheable);
# the two integer arguments are the addresses of the first byte and of the end pointer.
_strtod = types.ExternalFunction("strtod", types.float64(types.intp, types.intp))
# The processor's bit counts (tzcnt, lzcnt) on a non-zero uint64.
_trailing_zeros, _leading_zeros = trailing_zeros, leading_zeros
if numba_config.DISABLE_JIT:  # plain-Python run of the kernels (coverage, debugging)
    _strtod = ctypes.CDLL(None).strtod
    _strtod.restype = ctypes.c_double
    _strtod.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

    def _trailing_zeros(x):
        return (int(x) & -int(x)).bit_length() - 1

    def _leading_zeros(x):
        return 64 - int(x).bit_length()

# Status of a parsed number (IS_INF: infinite, written so or beyond the largest double).
OK, NOT_A_NUMBER, IS_NAN, TO_PYTHON, IS_INF = 0, 1, 2, 3, 4

# 10**k for k = 0..22: every one is exactly representable as a float64.
POW10 = np.array([float(10**k) for k in range(23)])

_Q_MIN, _Q_MAX = -342, 308  # below, w 10**q < 2**-1075 rounds to 0; above, it overflows


def _powers_of_five() -> tuple[np.ndarray, np.ndarray]:
    """(M, E): rows (hi, lo) of the 128-bit M_q and the exponents E_q, q = _Q_MIN.._Q_MAX,
    with 5**q in [M_q, M_q + 1) * 2**E_q and 2**127 <= M_q < 2**128 (exact integer math)."""
    table = np.empty((_Q_MAX - _Q_MIN + 1, 2), dtype=np.uint64)
    expo = np.empty(_Q_MAX - _Q_MIN + 1, dtype=np.int64)
    for q in range(_Q_MIN, _Q_MAX + 1):
        p = 5 ** abs(q)
        b = p.bit_length()
        if q >= 0:  # M = floor(5**q / 2**(b - 128)), E = b - 128
            m = p >> (b - 128) if b >= 128 else p << (128 - b)
            e = b - 128
        else:  # M = floor(2**(b + 127) / 5**-q), E = -(b + 127)
            m = (1 << (b + 127)) // p
            e = -(b + 127)
        table[q - _Q_MIN] = (m >> 64, m & (2**64 - 1))
        expo[q - _Q_MIN] = e
    return table, expo


_M5, _E5 = _powers_of_five()

PAD = 8  # bytes a buffer needs after its last token (for load8), as _io.PAD
POW10_INT = np.array([10**k for k in range(9)], dtype=np.uint64)


_ZEROS8 = np.uint64(0x3030303030303030)
_SIXES8 = np.uint64(0x0606060606060606)
_HIGH_NIBBLES = np.uint64(0xF0F0F0F0F0F0F0F0)
_EVEN_BYTES = np.uint64(0x00FF00FF00FF00FF)
_EVEN_SHORTS = np.uint64(0x0000FFFF0000FFFF)
_MUL_100 = np.uint64(100 * 2**16 + 1)
_MUL_10000 = np.uint64(10000 * 2**32 + 1)
_S8, _S16, _S24 = np.uint64(8), np.uint64(16), np.uint64(24)
_TWO, _THREE, _FOUR, _FIVE, _SIX, _SEVEN = (np.uint64(k) for k in range(2, 8))
_S40, _S48, _S56, _S58 = np.uint64(40), np.uint64(48), np.uint64(56), np.uint64(58)
_U32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_MAX = np.uint64(2**64 - 1)
_TWO53 = np.uint64(1) << np.uint64(53)
_TEN = np.uint64(10)


def strtod_usable() -> bool:
    """strtod reads '.' as the decimal point only under a C-like LC_NUMERIC locale."""
    return locale.localeconv()["decimal_point"] == "."


def delimiters(chars: bytes) -> np.ndarray:
    """The ``delim`` table of :func:`parse_number`: 1 for each byte of ``chars``, else 0."""
    table = np.zeros(256, dtype=np.uint8)
    table[np.frombuffer(chars, dtype=np.uint8)] = 1
    return table


@njit(cache=True, inline="always")
def _mul128(a, b):
    """(high, low) 64-bit halves of the 128-bit product of the uint64s a and b."""
    a0, a1 = a & _U32, a >> _S32
    b0, b1 = b & _U32, b >> _S32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> _S32) + (p01 & _U32) + (p10 & _U32)
    low = ((mid & _U32) << _S32) | (p00 & _U32)
    high = p11 + (p01 >> _S32) + (p10 >> _S32) + (mid >> _S32)
    return high, low


@njit(cache=True, inline="always")
def _add(a, b):
    """(a + b mod 2**64, carry) of the uint64s a and b (written so as never to overflow)."""
    if a > _MAX - b:
        return a - (_MAX - b) - _ONE, _ONE
    return a + b, _ZERO


@njit(cache=True)
def _from_power_of_five(w, q, m5, e5):
    """The double nearest to ``w * 10**q`` (uint64 w > 0, _Q_MIN <= q <= _Q_MAX), -2.0 when
    it is beyond the largest double, or -1.0 when the truncated product cannot decide it
    (see the module docstring)."""
    lz = np.int64(_leading_zeros(w))
    wn = w << np.uint64(lz)
    hi, lo = m5[q - _Q_MIN, 0], m5[q - _Q_MIN, 1]
    # Lower end of the interval: wn * (hi 2**64 + lo) = (a2, a1, a0), 192 bits.
    a2, a1 = _mul128(wn, hi)
    c1, a0 = _mul128(wn, lo)
    a1, carry = _add(a1, c1)
    a2 += carry  # no carry out: the product is below 2**192
    # Upper end (inclusive): plus wn - 1, in 192 bits; a carry out of the top means that the
    # interval reaches 2**192, whose cell differs.
    b0, carry = _add(a0, wn - _ONE)
    b1, carry = _add(a1, carry)
    b2, carry = _add(a2, carry)
    if carry:
        return -1.0
    # The top bit of a2 is bit 63 or 62 (wn, hi >= 2**63): the cell (half an ulp of a 53-bit
    # mantissa) is 2**(64 + 10) or 2**(64 + 9) of these units.
    shift = np.uint64(10) if a2 >> np.uint64(63) else np.uint64(9)
    j = a2 >> shift
    if b2 >> shift != j:
        return -1.0
    if j & _ONE and a2 & ((_ONE << shift) - _ONE) == _ZERO and a1 == _ZERO and a0 == _ZERO:
        return -1.0  # maybe exactly a midpoint: ties go to even, left to strtod
    mant = (j + _ONE) >> _ONE  # round to nearest: the cell says which side of the midpoint
    # value = mant * 2**(shift + 1 + 128 + E_q + q - lz) with mant <= 2**53
    k = int(shift) + 129 + e5[q - _Q_MIN] + q - lz
    top = k + (53 if mant == _TWO53 else 52)  # the exponent of the leading bit
    if top > 1023:
        return -2.0  # beyond the largest double
    if top < -1022:
        return -1.0  # subnormal: left to strtod
    return math.ldexp(float(mant), int(k))


@njit(cache=True, inline="always")
def load8(buf, p):
    """The 8 bytes buf[p:p + 8] as a uint64, buf[p] the lowest byte (one unaligned load once
    compiled). The buffer must extend 8 bytes past the last token (see :data:`PAD`)."""
    q = np.uint64(p)  # an unsigned index: no test for negative indices, so the loads merge
    return (np.uint64(buf[np.uint64(q)]) | (np.uint64(buf[q + _ONE]) << _S8)
            | (np.uint64(buf[q + _TWO]) << _S16) | (np.uint64(buf[q + _THREE]) << _S24)
            | (np.uint64(buf[q + _FOUR]) << _S32) | (np.uint64(buf[q + _FIVE]) << _S40)
            | (np.uint64(buf[q + _SIX]) << _S48) | (np.uint64(buf[q + _SEVEN]) << _S56))


@njit(cache=True, inline="always")
def digit_run(word):
    """(k, value) for the 8 bytes of ``word`` (first byte lowest): k leading ASCII digits and
    their value, without a branch per digit.

    ``a = word ^ '00000000'`` maps the digits to bytes 0..9; a byte is a digit when neither
    ``a`` nor ``a + 6`` reaches 0x10 (a carry out of a byte can only disturb later bytes,
    after the first non-digit). The digits shifted to the top of the word read as an
    8-digit number: pairs, then quadruples, then all eight are combined by three multiplies.
    """
    a = word ^ _ZEROS8
    nondigit = (a | (a + _SIXES8)) & _HIGH_NIBBLES
    if nondigit == _ZERO:
        k = 8
    else:
        k = np.int64(_trailing_zeros(nondigit)) // 8
        if k == 0:
            return 0, _ZERO
        a <<= np.uint64(64 - 8 * k)
    a = (a * _TEN + (a >> _S8)) & _EVEN_BYTES  # 16-bit lanes: 10 d_2i + d_2i+1
    a = ((a * _MUL_100) >> _S16) & _EVEN_SHORTS  # 32-bit lanes: four digits
    a = (a * _MUL_10000) >> _S32  # eight digits
    return k, a


@njit(cache=True, inline="always")
def digits(buf, p, w):
    """Read the ASCII digits from buf[p]: ``(w * 10**k + their value, end)`` for k digits
    (modulo 2**64)."""
    k, v = digit_run(load8(buf, p))
    w = w * POW10_INT[k] + v
    p += k
    while k == 8:
        k, v = digit_run(load8(buf, p))
        w = w * POW10_INT[k] + v
        p += k
    return w, p


@njit(cache=True)
def _match_word(buf, s, e, word):
    """Whether buf[s:e] equals the lowercase ASCII ``word`` (uint8 array), ignoring case."""
    if e - s != word.size:
        return False
    for k in range(word.size):
        c = buf[np.uint64(s + k)]
        if 65 <= c <= 90:
            c += 32
        if c != word[k]:
            return False
    return True


_INF = np.frombuffer(b"inf", dtype=np.uint8).copy()
_INFINITY = np.frombuffer(b"infinity", dtype=np.uint8).copy()
_NAN = np.frombuffer(b"nan", dtype=np.uint8).copy()


@njit(cache=True)
def token_end(buf, p, delim):
    """The first delimiter at or after ``p``."""
    while delim[buf[np.uint64(p)]] == 0:
        p += 1
    return p


@njit(cache=True)
def _word(buf, start, neg, delim):
    """``(value, status, end)`` of a token without digits: inf, infinity, nan (any case),
    or not a number."""
    e = token_end(buf, start, delim)
    if _match_word(buf, start, e, _INF) or _match_word(buf, start, e, _INFINITY):
        return (-np.inf if neg else np.inf), IS_INF, e
    if _match_word(buf, start, e, _NAN):
        return np.nan, IS_NAN, e
    return 0.0, NOT_A_NUMBER, e


@njit(cache=True, inline="always")
def _exponent(buf, p):
    """``(ok, exponent, end)`` of an optional ``[eE][+-]digits`` at ``p`` (0 when absent;
    not ok when the ``e`` has no digit). The exponent saturates near 100000, far beyond
    every double."""
    expo = 0
    c = buf[np.uint64(p)]
    if c != 101 and c != 69:
        return True, 0, p
    p += 1
    c = buf[np.uint64(p)]
    eneg = False
    if c == 43 or c == 45:
        eneg = c == 45
        p += 1
        c = buf[np.uint64(p)]
    if not (48 <= c <= 57):
        return False, 0, p
    while 48 <= c <= 57:
        if expo < 100000:
            expo = expo * 10 + (int(c) - 48)
        p += 1
        c = buf[np.uint64(p)]
    return True, (-expo if eneg else expo), p


@njit(cache=True, inline="always")
def parse_number(buf, s, delim, use_strtod):
    """Parse the number that starts at buf[s] and ends at the next delimiter.

    Returns (value, status, end): status OK (correctly rounded, finite), NOT_A_NUMBER, IS_NAN,
    IS_INF (value +-inf: an infinity, or beyond the largest double), or TO_PYTHON (a valid
    number left to Python's float: strtod unusable, or it disagreed).
    Inlined into the readers' kernels, where an array argument of a call would cost a
    reference count (an atomic operation) per number.
    """
    p = s
    neg = False
    c = buf[np.uint64(p)]
    if c == 43 or c == 45:
        neg = c == 45
        p += 1
    c = buf[np.uint64(p)]
    if 48 <= c <= 57 and delim[buf[np.uint64(p + 1)]] != 0:  # one digit (0/1, +1/-1)
        v = float(c - 48)
        return (-v if neg else v), OK, p + 1
    # The digits before and after the point, as one integer w (exact up to 19 digits; more
    # wrap around and are read again below), eight at a time.
    start = p
    w, p = digits(buf, p, _ZERO)
    n_int = p - start
    frac = p
    c = buf[np.uint64(p)]
    if c == 46:
        frac = p + 1
        w, p = digits(buf, frac, w)
    n_frac = p - frac
    if n_int + n_frac == 0:  # no digit: inf, infinity, nan, or not a number
        return _word(buf, start, neg, delim)
    ok, expo, p = _exponent(buf, p)
    if not ok or delim[buf[np.uint64(p)]] == 0:
        return 0.0, NOT_A_NUMBER, token_end(buf, p, delim)
    q = expo - n_frac
    if n_int + n_frac > 19:  # more than 19 digits: w again from the significant ones
        w, q, n_sig = _leading_digits(buf, start, n_int, frac, n_frac, expo)
        if n_sig > 19:  # w is truncated
            return _slow(buf, s, p, use_strtod)
    if w == _ZERO:
        return (-0.0 if neg else 0.0), OK, p
    if w <= _TWO53 and -22 <= q <= 22:
        # Clinger's fast path: w and 10**|q| are exact doubles, so one rounding.
        v = float(w) * POW10[q] if q >= 0 else float(w) / POW10[-q]
        return (-v if neg else v), OK, p
    if _Q_MIN <= q <= _Q_MAX:
        v = _from_power_of_five(w, q, _M5, _E5)
        if v >= 0.0:
            return (-v if neg else v), OK, p
        if v == -2.0:
            return (-np.inf if neg else np.inf), IS_INF, p
    elif q > _Q_MAX:  # w >= 1: beyond the largest double
        return (-np.inf if neg else np.inf), IS_INF, p
    return _slow(buf, s, p, use_strtod)


@njit(cache=True)
def _leading_digits(buf, start, n_int, frac, n_frac, expo):
    """(w, q, n_sig): the first 19 significant digits as w, the exponent q of w * 10**q when
    the other digits are dropped, and the number of significant digits."""
    w = _ZERO
    n_sig = 0
    q = expo
    for r in range(start, start + n_int):
        if n_sig > 0 or buf[np.uint64(r)] != 48:
            if n_sig < 19:
                w = w * _TEN + np.uint64(buf[np.uint64(r)] - 48)
            else:  # a dropped digit before the point
                q += 1
            n_sig += 1
    for r in range(frac, frac + n_frac):
        if n_sig > 0 or buf[np.uint64(r)] != 48:
            if n_sig < 19:
                w = w * _TEN + np.uint64(buf[np.uint64(r)] - 48)
                q -= 1
            n_sig += 1
        else:  # a leading zero after the point
            q -= 1
    return w, q, n_sig


@njit(cache=True)
def _slow(buf, s, p, use_strtod):
    """strtod on buf[s:p] (a valid number), or TO_PYTHON."""
    if use_strtod:
        endbox = np.zeros(1, dtype=np.intp)  # strtod's end pointer
        base = buf.ctypes.data
        v = _strtod(base + int(s), endbox.ctypes.data)
        if endbox[0] - base == p:
            return v, (IS_INF if math.isinf(v) else OK), p
    return 0.0, TO_PYTHON, p


@njit(cache=True, nogil=True)
def last_newline(buf, n):
    """The offset of the last newline in buf[:n], or -1."""
    for p in range(n - 1, -1, -1):
        if buf[p] == 10:
            return p
    return -1
