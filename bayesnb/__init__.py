"""bayesnb: the Bayesian workflow around naive Bayes and mixture models.

Declare a model generatively (a class variable with a Dirichlet prior and one
likelihood per feature, each with its conjugate prior) and fit it with maximum
likelihood, MAP or the full posterior predictive.
"""

from bayesnb import datasets
from bayesnb.families import Bernoulli, Binned, Categorical, Gaussian, Multinomial
from bayesnb.model import load
from bayesnb.naive_bayes import NaiveBayes, NaiveBayesFit, count_parameters
from bayesnb.priors import (
    Beta,
    Dirichlet,
    NormalInverseGamma,
    ZeroProbabilityWarning,
    laplace,
    m_estimate,
)

__version__ = "0.1.0"

__all__ = [
    "Bernoulli",
    "Beta",
    "Binned",
    "Categorical",
    "Dirichlet",
    "Gaussian",
    "Multinomial",
    "NaiveBayes",
    "NaiveBayesFit",
    "NormalInverseGamma",
    "ZeroProbabilityWarning",
    "count_parameters",
    "datasets",
    "laplace",
    "load",
    "m_estimate",
]
