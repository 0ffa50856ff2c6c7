# %% [markdown]
# # 7. ERM by linear programming, and logistic regression
#
# In the realizable case ERM is a feasibility problem: find $(w, b)$ with
# $y_i(\langle w, x_i\rangle + b) \ge 1$ for all $i$, a linear program. When it has no
# solution, Farkas' lemma gives a proof: $\alpha \ge 0$, $\alpha \ne 0$, with
# $\sum_i \alpha_i y_i x_i = 0$ and $\sum_i \alpha_i y_i = 0$.
#
# Logistic regression minimizes the smooth surrogate
# $\frac1n\sum_i \log(1 + e^{-y_i(\langle w, x_i\rangle + b)}) + \frac{1}{2Cn}\|w\|^2$ and
# gives probabilities $P(y = 1 \mid x) = \sigma(\langle w, x\rangle + b)$.
#
# Data: the bundled `points` (separable) and `heart_scale` (not).

# %%
import matplotlib.pyplot as plt
import numpy as np

from halfspaces import LogisticRegression, LPSeparator
from halfspaces.datasets import load
from halfspaces.plotting import plot_decision_boundary, plot_reliability
from halfspaces.theory import is_linearly_separable

X, y = load("points")
H, h = load("heart_scale")
H = H.toarray()

# %% [markdown]
# ## Exercise 1: the LP finds a separator of `points`

# %%
lp = LPSeparator().fit(X, y)
w, b = lp.coef_[0], lp.intercept_[0]
print(f"w = {w}, b = {b:.4f}; min y(w.x + b) = {(y * (X @ w + b)).min():.4f}")
assert (y * (X @ w + b)).min() >= 1 - 1e-7 and lp.score(X, y) == 1.0

# %% [markdown]
# ## Exercise 2: `heart_scale` is not separable: check the Farkas certificate

# %%
res = is_linearly_separable(H, h)
alpha = res.certificate
print(f"separable: {bool(res)}; certificate on {len(res.rows)} rows")
assert not res and np.all(alpha >= 0) and alpha.sum() > 0
scale = np.abs(alpha[:, None] * H).sum()
assert np.abs((alpha * h) @ H).max() <= 1e-7 * scale     # sum alpha_i y_i x_i = 0
assert abs((alpha * h).sum()) <= 1e-7 * alpha.sum()       # sum alpha_i y_i = 0
# so any (w, b) has sum_i alpha_i y_i (w.x_i + b) = 0: some certified row is not separated

# %% [markdown]
# ## Exercise 3: logistic regression's probabilities are $\sigma(\langle w, x\rangle + b)$

# %%
logreg = LogisticRegression(C=1.0).fit(H, h)
p = logreg.predict_proba(H)[:, 1]
z = H @ logreg.coef_[0] + logreg.intercept_[0]
assert np.allclose(p, 1 / (1 + np.exp(-z)))
print(f"training accuracy {logreg.score(H, h):.3f}")
fig, ax = plt.subplots(figsize=(5, 5))
plot_reliability(h, p, ax=ax, label="logistic regression on heart_scale")

# %%
fig, ax = plt.subplots(figsize=(5.5, 6))
plot_decision_boundary(LogisticRegression(C=1.0).fit(X, y), X, y, ax=ax,
                       title="logistic regression on points")
