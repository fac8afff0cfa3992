"""Special functions the package needs more accurately than their textbook forms give.

:func:`log_rising` is :math:`\\ln\\Gamma(a + n) - \\ln\\Gamma(a)`, the term of every
Dirichlet-multinomial, Student-t and Normal-Inverse-Gamma normalizer. Written as that
difference it loses all precision once ``a`` is large: the two log-gammas are near
:math:`a \\ln a` while their difference is near :math:`n \\ln a`, so at
:math:`a = 10^{15}` (a class of that much weight) the difference is off by whole nats.
"""

from __future__ import annotations

import numpy as np

from bayesnb._lazy import special

#: From this ``a`` on, the difference of Stirling's series (with the terms below) is
#: exact to the last bits: the first term left out is below 1e-17 there.
_STIRLING_FROM = 15.0
#: Stirling's series for ln Gamma: the coefficients B_2k / (2k (2k - 1)) of z^(1 - 2k).
_STIRLING = (
    1.0 / 12.0,
    -1.0 / 360.0,
    1.0 / 1260.0,
    -1.0 / 1680.0,
    1.0 / 1188.0,
    -691.0 / 360360.0,
    1.0 / 156.0,
)


def log_rising(a, n) -> np.ndarray:
    r""":math:`\ln\Gamma(a + n) - \ln\Gamma(a)` for ``a > 0`` and ``n >= 0``
    (broadcast), to within a few units of the last place of the result's size.

    For integer ``n`` it is the log of the rising factorial
    :math:`a (a + 1) \cdots (a + n - 1)`. Below ``a = 15`` the log-gammas are small and
    their difference is taken as it is; from there on it is the difference of
    Stirling's series at ``a + n`` and ``a``, arranged so that nothing large cancels:
    :math:`(a - \tfrac12)\,\mathrm{log1p}(n/a) + n \ln(a + n) - n` plus the series'
    differences.

    Examples
    --------
    >>> import math
    >>> from bayesnb._special import log_rising
    >>> float(log_rising(1e15, 3)) - math.log(1e15 * (1e15 + 1) * (1e15 + 2))
    0.0
    """
    a, n = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(n, dtype=float))
    out = np.empty(a.shape)
    small = a < _STIRLING_FROM
    if small.any():
        out[small] = special.gammaln(a[small] + n[small]) - special.gammaln(a[small])
    large = ~small
    if large.any():
        x, m = a[large], n[large]
        z = x + m
        value = (x - 0.5) * np.log1p(m / x) + m * np.log(z) - m
        # the series' terms c_k (z^(1-2k) - x^(1-2k)), from their powers of 1/z and 1/x
        inv_z2, inv_x2 = 1.0 / (z * z), 1.0 / (x * x)
        pz, px = 1.0 / z, 1.0 / x
        for c in _STIRLING:
            value += c * (pz - px)
            pz, px = pz * inv_z2, px * inv_x2
        out[large] = value
    return out if out.ndim else out[()]
