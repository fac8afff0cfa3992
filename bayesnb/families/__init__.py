"""Feature families: the likelihood of one declared feature (or block of columns).

Every family follows the same four-step kernel, shared by the classifier and by EM:

``encode(data)``
    Raw columns to a numeric design: one-hot indicators of Boolean and categorical
    columns (stored as category codes, several columns folded into one code), counts
    (dense or sparse) or floats (centred block by block in the products). A missing
    value becomes a zero row (discrete) or is left out where a Gaussian's sums show
    it, so it drops out of both the counts and the likelihood.
``count(enc, resp)``
    Sufficient statistics given responsibilities ``resp`` of shape (n, K): one-hot
    labels for a classifier, soft memberships inside EM. One matrix product, or one
    weighted histogram of the codes (compiled, :mod:`bayesnb._compiled`).
``estimate(stats, method)``
    Parameters from statistics under the declared conjugate prior.
``log_likelihood(enc, params)``
    The (n, K) log-likelihood of every row under every class. One matrix product,
    or one table lookup per group of codes.

Families are declared unbound (``Categorical()``) and bound to training data by the
model, which learns their categories, edges or scale.
"""

from bayesnb.families.base import Family
from bayesnb.families.discrete import Bernoulli, Binned, Categorical, Multinomial
from bayesnb.families.gamma import Gamma
from bayesnb.families.gaussian import Gaussian
from bayesnb.families.multivariate import MultivariateGaussian

FAMILIES = {
    cls.kind: cls
    for cls in (Bernoulli, Categorical, Binned, Multinomial, Gaussian, MultivariateGaussian, Gamma)
}

__all__ = [
    "FAMILIES",
    "Bernoulli",
    "Binned",
    "Categorical",
    "Family",
    "Gamma",
    "Gaussian",
    "Multinomial",
    "MultivariateGaussian",
]
