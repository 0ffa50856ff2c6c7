"""Solvers: QP (Clarabel), LP (HiGHS through scipy), dual coordinate descent (numba)."""
