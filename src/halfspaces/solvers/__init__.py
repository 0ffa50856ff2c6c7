"""Solvers: QP (Clarabel), LP (HiGHS through scipy), dual coordinate descent (numba), the
linear SVM's low-rank interior point."""
