# %% [markdown]
# # 3. Margins, the max-margin and soft-margin SVM, duality
#
# Functional margin $y_i(\langle w, x_i\rangle + b)$, geometric margin
# $\min_i y_i(\langle w, x_i\rangle + b)/\|w\|$. The **hard-margin SVM**
# $\min \tfrac12\|w\|^2$ s.t. $y_i(\langle w, x_i\rangle + b) \ge 1$ finds the largest
# geometric margin $\gamma = 1/\|w^*\|$. The **soft margin** adds slacks:
# $\min \tfrac12\|w\|^2 + C\sum_i \xi_i$; its dual is
# $\max_\alpha \sum_i\alpha_i - \tfrac12\sum_{ij}\alpha_i\alpha_j y_iy_j\langle x_i,x_j\rangle$,
# $0 \le \alpha_i \le C$, $\sum_i \alpha_i y_i = 0$, with $w = \sum_i \alpha_i y_i x_i$.
#
# Data: the bundled `points`.

# %%
import matplotlib.pyplot as plt
import numpy as np

from halfspaces import SVC
from halfspaces.datasets import load
from halfspaces.plotting import plot_decision_boundary, plot_max_margin, plot_regularization
from halfspaces.theory import functional_margins, geometric_margin, max_margin_separator

X, y = load("points")

# %% [markdown]
# ## Exercise 1: the max margin, three ways

# %%
w, b, gamma = max_margin_separator(X, y)
hard = SVC(C=np.inf, kernel="linear").fit(X, y)
w_svm, b_svm = hard.coef_[0], hard.intercept_[0]
print(f"gamma = {gamma:.5f}; 1/||w_svm|| = {1 / np.linalg.norm(w_svm):.5f};"
      f" geometric margin of the SVM = {geometric_margin(w_svm, X, y, b_svm):.5f}")
assert np.isclose(gamma, 1 / np.linalg.norm(w_svm), rtol=1e-4)
assert np.isclose(gamma, geometric_margin(w_svm, X, y, b_svm), rtol=1e-4)
# the support vectors have functional margin 1
f = functional_margins(w_svm, X, y, b_svm)
assert np.allclose(f[hard.support_], 1.0, atol=1e-4) and f.min() > 1 - 1e-4

# %%
fig, ax = plt.subplots(figsize=(5.5, 6))
plot_max_margin(X, y, ax=ax)

# %% [markdown]
# ## Exercise 2: primal and dual optima agree (strong duality), and the KKT conditions

# %%
C = 1.0
soft = SVC(C=C, kernel="linear", solver="qp").fit(X, y)  # the QP: the dual of the notes
w, b = soft.coef_[0], soft.intercept_[0]
alpha_y = np.zeros(len(y))
alpha_y[soft.support_] = soft.dual_coef_[0]  # alpha_i y_i
alpha = alpha_y * y
xi = np.maximum(0, 1 - y * (X @ w + b))
primal = 0.5 * w @ w + C * xi.sum()
K = X @ X.T
dual = alpha.sum() - 0.5 * alpha_y @ K @ alpha_y
print(f"primal {primal:.6f}, dual {dual:.6f}, gap {primal - dual:.2e}")
assert abs(primal - dual) <= 1e-4 * max(1.0, abs(primal))
assert np.allclose(w, alpha_y @ X, atol=1e-6)                   # w = sum alpha_i y_i x_i
assert np.all(alpha >= -1e-9) and np.all(alpha <= C + 1e-9)     # 0 <= alpha <= C
assert abs(alpha_y.sum()) < 1e-6                                  # sum alpha_i y_i = 0
print(f"{len(soft.support_)} support vectors; {(xi > 1e-6).sum()} points with a slack")

# %%
fig, ax = plt.subplots(figsize=(5.5, 6))
plot_decision_boundary(soft, X, y, ax=ax, title=f"soft margin, C = {C}")

# %% [markdown]
# ## Exercise 3: regularization: a small and a large $\lambda$ ($C = 1/(\lambda n)$)

# %%
fig = plt.figure(figsize=(10, 4.5), layout="constrained")
plot_regularization(X, y, lams=(1e-3, 1.0), fig=fig)
narrow = SVC(lam=1e-3, kernel="linear").fit(X, y)
wide = SVC(lam=1.0, kernel="linear").fit(X, y)
assert np.linalg.norm(wide.coef_) < np.linalg.norm(narrow.coef_)  # a wider margin 1/||w||
