# %% [markdown]
# # 1. The online game and the perceptron
#
# Each round the learner sees $x_t$, predicts $\hat y_t = \mathrm{sign}\langle w_t, x_t\rangle$,
# then sees $y_t$; a **mistake** is $y_t \langle w_t, x_t\rangle \le 0$ (a tie counts). On a
# mistake the perceptron updates $w_{t+1} = w_t + y_t x_t$.
#
# **Novikoff.** If $\|x_t\| \le R$ and some unit $u$ has $y_t\langle u, x_t\rangle \ge \gamma$,
# the perceptron makes at most $(R/\gamma)^2$ mistakes, on any sequence, in any order.
#
# Data: the bundled `points` set (200 separable points in the plane).

# %%
import matplotlib.pyplot as plt
import numpy as np

from halfspaces import Perceptron, play
from halfspaces.adversaries import TightNovikoffAdversary
from halfspaces.datasets import load
from halfspaces.plotting import perceptron_update_example, plot_mistakes, plot_perceptron_update
from halfspaces.theory import data_radius, max_margin_separator, perceptron_bound

X, y = load("points")
X.shape, np.unique(y)

# %% [markdown]
# One pass of the game, the perceptron through the origin (Novikoff's setting):

# %%
learner = Perceptron(fit_intercept=False)
transcript = play(learner, X, y)
print(transcript.summary())

# %% [markdown]
# ## Exercise 1: compute $R$, $\gamma$ and the bound by hand, and check the run against it
#
# $R = \max_i \|x_i\|$; $\gamma$ is the largest margin of a unit $u$ through the origin, the
# max-margin separator without offset.

# %%
R = np.linalg.norm(X, axis=1).max()
w_star, _, gamma = max_margin_separator(X, y, fit_intercept=False)
bound = (R / gamma) ** 2
print(f"R = {R:.4f}, gamma = {gamma:.4f}, (R/gamma)^2 = {bound:.1f}")
print(f"mistakes {transcript.n_mistakes} <= bound: {transcript.n_mistakes <= bound}")
# the library's answer is the same
res = perceptron_bound(X, y, fit_intercept=False)
assert np.isclose(res.radius, R) and np.isclose(res.bound, bound)
assert np.isclose(data_radius(X), R)
assert transcript.n_mistakes <= bound
# gamma is the margin of w*: min_i y_i <w*, x_i> / ||w*||
assert np.isclose((y * (X @ w_star)).min() / np.linalg.norm(w_star), gamma)

# %%
fig, ax = plt.subplots(figsize=(6, 4))
plot_mistakes(transcript, bound=bound, ax=ax, bound_label="Novikoff bound")

# %% [markdown]
# ## Exercise 2: one update, drawn
#
# The perceptron's third mistake: $w_t$, $y_t x_t$ and $w_{t+1}$, and the boundaries
# before and after. Check that the update raises $y_t\langle w, x_t\rangle$ by
# $\|x_t\|^2$.

# %%
w_t, x_t, y_t = perceptron_update_example(X, y, mistake=2)
before, after = y_t * (w_t @ x_t), y_t * ((w_t + y_t * x_t) @ x_t)
print(f"y<w_t, x_t> = {before:.4f} <= 0 (a mistake); after the update {after:.4f}")
assert before <= 0 and np.isclose(after - before, x_t @ x_t)
fig, ax = plt.subplots(figsize=(5, 5.5))
plot_perceptron_update(w_t, x_t, y_t, ax=ax)

# %% [markdown]
# ## Exercise 3: cycle until no mistake (the batch perceptron)
#
# Playing the same sequence again and again, the perceptron stops making mistakes after a
# finite number of passes (Novikoff bounds the mistakes of all passes together), and then
# separates the data: ERM in the realizable case.

# %%
learner, per_pass = Perceptron(fit_intercept=False), []
for _ in range(100):
    per_pass.append(play(learner, X, y).n_mistakes)
    if per_pass[-1] == 0:
        break
print("mistakes per pass:", per_pass, "total", sum(per_pass))
assert per_pass[-1] == 0 and sum(per_pass) <= bound
assert np.all(y * (X @ learner.coef_[0]) > 0)  # it separates the data

# %% [markdown]
# ## Exercise 4: the bound is tight
#
# An adversary that shows $x_t = e_t$ in $\mathbb{R}^k$ and answers the opposite of each
# prediction forces a mistake every round; the labels it chose have margin
# $\gamma = 1/\sqrt{k}$ with $R = 1$, so it forced exactly $(R/\gamma)^2 = k$ mistakes.

# %%
k = 12
adversary = TightNovikoffAdversary(k)
forced = play(Perceptron(fit_intercept=False), adversary)
print(f"{forced.n_mistakes} mistakes in {k} rounds; margin {adversary.margin:.4f},"
      f" (R/gamma)^2 = {(1 / adversary.margin) ** 2:.1f}")
assert forced.n_mistakes == k and np.isclose((1 / adversary.margin) ** 2, k)
