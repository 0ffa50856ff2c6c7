# %% [markdown]
# # 2. Halving and Weighted Majority
#
# A finite class $H$ of $N$ experts. **Halving** keeps the version space
# $V_t = \{h \in H : h \text{ agrees with every round so far}\}$ and predicts its majority
# vote: each mistake removes at least half of $V_t$, so when some $h \in H$ is perfect it
# makes at most $\lfloor\log_2 N\rfloor$ mistakes.
#
# **Weighted Majority** multiplies the weight of every expert that errs by $\beta$ and
# predicts the weighted vote: with $m^*$ the mistakes of the best expert,
# $M \le \dfrac{m^* \ln(1/\beta) + \ln N}{\ln(2/(1+\beta))}$, with no perfect expert needed.
#
# Data: the bundled `points`; the class is decision stumps $s\cdot\mathrm{sign}(x_j - \theta)$.

# %%
import matplotlib.pyplot as plt
import numpy as np

from halfspaces import HalvingClassifier, WeightedMajorityClassifier, play
from halfspaces.datasets import load
from halfspaces.experts import make_hypotheses
from halfspaces.plotting import plot_mistakes
from halfspaces.theory import halving_mistake_bound, weighted_majority_mistake_bound

X, y = load("points")
H = make_hypotheses(X, "stumps", n_hypotheses=256)
N = len(H.hypotheses)
# each stump's predictions on every row: sign(<w_h, x> + b_h), a tie counting as +1
P = np.where(X @ H.hypotheses.T + H.offsets >= 0, 1, -1)
expert_mistakes = (P != y[:, None]).sum(axis=0)
print(f"N = {N} stumps; the best one errs on {expert_mistakes.min()} of {len(y)} points")

# %% [markdown]
# ## Exercise 1: a realizable sequence for Halving
#
# Relabel the points by the best stump, so that one hypothesis is perfect; then Halving's
# mistakes are at most $\log_2 N$, and its final version space is exactly the stumps that
# agree with every row (computed directly from `P`).

# %%
y_real = P[:, expert_mistakes.argmin()]
halving = HalvingClassifier(**H._asdict())
t = play(halving, X, y_real)
bound = halving_mistake_bound(N)
print(f"Halving: {t.n_mistakes} mistakes <= log2 N = {bound}")
consistent = np.all(P == y_real[:, None], axis=0)
assert t.n_mistakes <= bound
assert np.array_equal(halving.version_space_, consistent)
print(f"version space at the end: {consistent.sum()} of {N} stumps")

# %% [markdown]
# The version space shrinking: its size after the rounds $1, 2, 4, 8, \dots$, and
# Halving's mistakes against $\log_2 N$.

# %%
sizes, halving = [], HalvingClassifier(**H._asdict())
for i in range(len(y_real)):
    play(halving, X[i:i + 1], y_real[i:i + 1], classes=[-1, 1])
    sizes.append(int(halving.version_space_.sum()))
for t in [1, 2, 4, 8, 16, 32, 64, 128, len(sizes)]:
    print(f"after round {t:>3}: |V_t| = {sizes[t - 1]}")
assert sizes[-1] == consistent.sum() and np.all(np.diff(sizes) <= 0)
fig, ax = plt.subplots(figsize=(6, 4))
plot_mistakes(play(HalvingClassifier(**H._asdict()), X, y_real), bound=bound, ax=ax,
              bound_label="log2 N")

# %% [markdown]
# ## Exercise 2: Weighted Majority on the real labels (no perfect stump)

# %%
beta = 0.5
wm = WeightedMajorityClassifier(**H._asdict(), beta=beta)
t = play(wm, X, y)
m_star = int(expert_mistakes.min())
wm_bound = weighted_majority_mistake_bound(N, m_star, beta)
by_hand = (m_star * np.log(1 / beta) + np.log(N)) / np.log(2 / (1 + beta))
print(f"WM: {t.n_mistakes} mistakes <= {wm_bound:.1f} (best stump: {m_star})")
assert np.isclose(wm_bound, by_hand) and t.n_mistakes <= wm_bound
assert np.array_equal(wm.expert_mistakes_, expert_mistakes)
fig, ax = plt.subplots(figsize=(6, 4))
plot_mistakes(t, bound=wm_bound, ax=ax, bound_label="Weighted Majority bound")
