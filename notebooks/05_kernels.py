# %% [markdown]
# # 5. Kernels
#
# The kernel perceptron keeps $f(x) = \sum_i \alpha_i y_i k(x_i, x)$ ($\alpha_i$: its
# mistakes on $x_i$) and never forms $w$; with $k(x, x') = (\langle x, x'\rangle + c)^d$ or
# $\exp(-\gamma\|x - x'\|^2)$ it separates data that no line separates.
#
# Data: the bundled `points`, relabelled by the quadrant, $y = \mathrm{sign}(x_1 x_2)$ (XOR):
# not linearly separable.

# %%
import matplotlib.pyplot as plt
import numpy as np

from halfspaces import KernelPerceptron
from halfspaces.datasets import load
from halfspaces.plotting import plot_decision_boundary
from halfspaces.theory import is_linearly_separable

X, _ = load("points")
X = X - X.mean(axis=0)
y = np.where(X[:, 0] * X[:, 1] >= 0, 1, -1)
assert not is_linearly_separable(X, y)  # no line: Farkas says so

# %% [markdown]
# ## Exercise 1: a degree-2 polynomial kernel separates XOR
#
# $x_1 x_2$ is a feature of $(\langle x, x'\rangle + 1)^2$, so the data is separable in its
# feature space and the kernel perceptron converges.

# %%
poly = KernelPerceptron(kernel="poly", degree=2, coef0=1.0, gamma=1.0, max_iter=200,
                        shuffle=False).fit(X, y)
print(f"poly: mistakes per pass {poly.mistakes_per_epoch_}, converged {poly.converged_}")
assert poly.converged_ and poly.score(X, y) == 1.0


# the same score from the dual coefficients, by hand
def k(A, B):
    return (A @ B.T + 1.0) ** 2


f = k(X, poly.support_vectors_) @ poly.dual_coef_[0] + poly.intercept_[0]
assert np.allclose(f, poly.decision_function(X))
fig, ax = plt.subplots(figsize=(5.5, 6))
plot_decision_boundary(poly, X, y, ax=ax, title="kernel perceptron, poly degree 2")

# %% [markdown]
# ## Exercise 2: the rbf kernel

# %%
rbf = KernelPerceptron(kernel="rbf", gamma=5.0, max_iter=200, shuffle=False).fit(X, y)
print(f"rbf: {len(rbf.support_)} points erred on; converged {rbf.converged_}")
assert rbf.converged_ and rbf.score(X, y) == 1.0
fig, ax = plt.subplots(figsize=(5.5, 6))
plot_decision_boundary(rbf, X, y, ax=ax, title="kernel perceptron, rbf")
