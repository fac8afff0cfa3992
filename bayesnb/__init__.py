"""bayesnb: the Bayesian workflow around naive Bayes and mixture models.

Declare a model generatively (a class variable with a Dirichlet prior and one
likelihood per feature, each with its conjugate prior) and fit it with maximum
likelihood, MAP or the full posterior predictive.
"""

from bayesnb import bayesnet, datasets, errors
from bayesnb._progress import show_progress
from bayesnb.bayesnet import BayesNet
from bayesnb.compare import compare_fits
from bayesnb.density import DensityFit
from bayesnb.errors import (
    BayesNBError,
    InputError,
    InputTypeError,
    ModelFileError,
    ZeroLikelihoodError,
)
from bayesnb.families import (
    Bernoulli,
    Binned,
    Categorical,
    Gamma,
    Gaussian,
    Multinomial,
    MultivariateGaussian,
)
from bayesnb.mixture import MixtureFit, MonotonicityError, fit_mixture
from bayesnb.model import load, register_loader
from bayesnb.model_choice import compare_components, compare_covariances
from bayesnb.naive_bayes import NaiveBayes, NaiveBayesFit, count_parameters
from bayesnb.priors import (
    Beta,
    Dirichlet,
    NormalInverseGamma,
    NormalInverseWishart,
    PointMass,
    ZeroProbabilityWarning,
    laplace,
    m_estimate,
)
from bayesnb.workflow import cluster_report, compare

# ``bayesnb.text`` is imported on first use (``bnb.text`` or loading a saved TextFit),
# so that ``python -m bayesnb.text`` runs a module not imported before; so is
# ``bayesnb.plots`` (``bnb.plots``), which imports matplotlib when it draws.
register_loader("TextFit", "bayesnb.text")


def __getattr__(name):
    if name in ("text", "plots"):
        import importlib

        return importlib.import_module(f"bayesnb.{name}")
    raise AttributeError(f"module 'bayesnb' has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = [
    "BayesNBError",
    "BayesNet",
    "Bernoulli",
    "Beta",
    "Binned",
    "Categorical",
    "DensityFit",
    "Dirichlet",
    "Gamma",
    "Gaussian",
    "InputError",
    "InputTypeError",
    "MixtureFit",
    "ModelFileError",
    "MonotonicityError",
    "Multinomial",
    "MultivariateGaussian",
    "NaiveBayes",
    "NaiveBayesFit",
    "NormalInverseGamma",
    "NormalInverseWishart",
    "PointMass",
    "ZeroLikelihoodError",
    "ZeroProbabilityWarning",
    "bayesnet",
    "cluster_report",
    "compare",
    "compare_components",
    "compare_covariances",
    "compare_fits",
    "count_parameters",
    "datasets",
    "errors",
    "fit_mixture",
    "laplace",
    "load",
    "m_estimate",
    "plots",
    "show_progress",
    "text",
]
