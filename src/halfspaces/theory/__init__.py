"""The theory, computed: margins, radius, bounds, separability certificates, shattering."""

from __future__ import annotations

from .._lazy import attach

_PUBLIC = {
    "functional_margins": ".margins",
    "geometric_margin": ".margins",
    "data_radius": ".margins",
    "perceptron_mistake_bound": ".bounds",
    "margin_one_mistake_bound": ".bounds",
    "halving_mistake_bound": ".bounds",
    "weighted_majority_mistake_bound": ".bounds",
    "online_to_batch_bound": ".bounds",
    "perceptron_bound": ".bounds",
    "PerceptronBound": ".bounds",
    "is_linearly_separable": ".separability",
    "max_margin_separator": ".separability",
    "SeparabilityResult": ".separability",
    "bounds_report": ".report",
    "BoundsReport": ".report",
    "shatters": ".shattering",
    "ShatterResult": ".shattering",
    "radon_partition": ".shattering",
    "RadonPartition": ".shattering",
}
__getattr__, __dir__, __all__ = attach(__name__, _PUBLIC)
