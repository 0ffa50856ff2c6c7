# %% [markdown]
# # 6. VC dimension and shattering
#
# Halfspaces shatter a set when they realize every labelling of it. In $\mathbb{R}^d$ (with
# an offset) $d + 1$ affinely independent points are shattered and no $d + 2$ points are
# (Radon: they split into two sets whose convex hulls meet), so $\mathrm{VCdim} = d + 1$.
#
# Data: points of the bundled `points` set.

# %%
import itertools

import numpy as np

from halfspaces.datasets import load
from halfspaces.theory import is_linearly_separable, radon_partition, shatters

X, _ = load("points")

# %% [markdown]
# ## Exercise 1: three points of the data set are shattered, four are not

# %%
three, four = X[:3], X[:4]
res3, res4 = shatters(three), shatters(four)
print(f"3 points shattered: {bool(res3)}; 4 points: {bool(res4)}")
assert res3 and not res4
# by brute force: every labelling of the three is separable
assert all(is_linearly_separable(three, labels) for labels in
           itertools.product([-1, 1], repeat=3) if len(set(labels)) == 2)
print("a labelling of the four that no line realizes:", res4.failing_labelling)
assert not is_linearly_separable(four, res4.failing_labelling)

# %% [markdown]
# ## Exercise 2: Radon's partition of the four points
#
# Both convex hulls contain the same point; the labelling +1 on one set, -1 on the other is
# the one no halfspace realizes.

# %%
radon = radon_partition(four)
print("I =", radon.positive, "J =", radon.negative, "meet at", radon.point)
for rows in (radon.positive, radon.negative):
    lam = radon.weights[rows] / radon.weights[rows].sum()
    assert np.allclose(lam @ four[rows], radon.point) and np.all(lam >= 0)
assert not is_linearly_separable(four, radon.labels)

# %% [markdown]
# ## Exercise 3: VCdim = d + 1 in $\mathbb{R}^3$, and d through the origin

# %%
rng = np.random.default_rng(0)
P = rng.normal(size=(5, 3))
assert shatters(P[:4]) and not shatters(P)                       # d + 1 = 4, not 5
assert shatters(P[:3], fit_intercept=False) and not shatters(P[:4], fit_intercept=False)
print("R^3: 4 points shattered, 5 not; through the origin 3, not 4")
