# %% [markdown]
# # 4. (Stochastic) sub-gradient descent and Pegasos
#
# The regularized hinge objective
# $J(\theta, \theta_0) = \frac1n\sum_i \max(0, 1 - y_i(\langle\theta, x_i\rangle + \theta_0))
# + \frac\lambda2\|\theta\|^2$. Pegasos takes one example $i_t$ per step with
# $\eta_t = 1/(\lambda t)$: $\theta \leftarrow (1 - \eta_t\lambda)\theta
# + \eta_t y_{i_t} x_{i_t}[y_{i_t}\langle\theta, x_{i_t}\rangle < 1]$.
#
# Data: the bundled `heart_scale` (270 patients, 13 features).

# %%
import matplotlib.pyplot as plt
import numpy as np

from halfspaces import SVC, PegasosSVC
from halfspaces.datasets import load
from halfspaces.losses import svm_objective
from halfspaces.plotting import pegasos_objective_history, plot_objective

X, y = load("heart_scale")
X = X.toarray()
n, lam = len(y), 0.01

# %% [markdown]
# ## Exercise 1: the objective by hand, and the exact optimum $J^*$
#
# $J^*$ is the same objective at the SVM solved exactly with $C = 1/(\lambda n)$.

# %%
def J(theta, theta_0):
    return np.mean(np.maximum(0, 1 - y * (X @ theta + theta_0))) + lam / 2 * theta @ theta


exact = SVC(lam=lam, kernel="linear", solver="qp").fit(X, y)  # solved to 1e-10
J_star = J(exact.coef_[0], exact.intercept_[0])
assert np.isclose(J_star, svm_objective(exact.coef_[0], exact.intercept_[0], X, y, lam=lam))
same = SVC(C=1 / (lam * n), kernel="linear", solver="qp").fit(X, y)
assert np.allclose(same.coef_, exact.coef_, atol=1e-5)  # the C form is the same problem
print(f"J* = {J_star:.5f}")

# %% [markdown]
# ## Exercise 2: Pegasos approaches $J^*$ epoch after epoch

# %%
history, optimum = pegasos_objective_history(X, y, lam=lam, max_iter=40, random_state=0)
assert np.isclose(optimum, J_star, rtol=1e-6) and np.all(history >= J_star - 1e-9)
print(f"after 1 epoch J - J* = {history[0] - J_star:.4f}; after 40: {history[-1] - J_star:.5f}")
assert history[-1] - J_star < history[0] - J_star
fig, ax = plt.subplots(figsize=(6, 4))
plot_objective(history, optimum, ax=ax, lam=lam, gap=True)

# %% [markdown]
# ## Exercise 3: the step sizes $\eta_t = 1/(\lambda t)$ shrink $\|\theta\|$
#
# Pegasos' iterates stay in the ball $\|\theta\| \le 1/\sqrt\lambda$ that holds the optimum
# (with its optional projection the bound is exact).

# %%
model = PegasosSVC(lam=lam, max_iter=20, random_state=0, projection=True).fit(X, y)
print(f"||theta|| = {np.linalg.norm(model.coef_):.3f} <= 1/sqrt(lam) = {1 / np.sqrt(lam):.3f}")
assert np.linalg.norm(model.coef_) <= 1 / np.sqrt(lam) + 1e-9
assert np.linalg.norm(exact.coef_) <= 1 / np.sqrt(lam) + 1e-9
