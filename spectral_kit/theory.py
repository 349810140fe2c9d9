"""Random-matrix facts behind the papers' claims, as functions a student can check.

* Positivity (Wolf & Shashua 2005, Sec. 4.1): the probability that the leading eigenvector of a
  symmetric matrix with i.i.d. N(μ, σ²) entries is same-sign (Theorem 10, Fig. 2a);
  the bias of f = (aᵀb)(aᵀc)(bᵀc) that makes G's entries positive on average (Props. 7–9).
* Sparsity (Sec. 4.2): Lemma 13's bound on the summed weight of the irrelevant features, and
  the Wishart moments that say how it grows.
* Detectability (Wolf & Bileschi 2005, Sec. 2): the mean top eigenvalue of a Wishart matrix.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from math import comb

import numpy as np
import scipy.linalg
from scipy.special import ndtr, ndtri  # normal CDF/quantile, without all of scipy.stats

from .preprocess import preprocess_rows
from .validation import (
    as_generator,
    check_array,
    check_finite_scalar,
    check_int,
    check_mask,
    check_memory,
    check_probability,
)

__all__ = [
    "MonteCarloEstimate",
    "PositivityResult",
    "PositivitySampler",
    "SparsityBound",
    "lemma13_bound",
    "narayana_moment",
    "positivity_prediction",
    "positivity_probability",
    "smallest_n_above",
    "triple_product",
    "triple_product_expectation",
    "triple_product_minimizer",
    "triple_product_monte_carlo",
    "wishart_second_moment",
    "wishart_top_eigenvalue",
    "wishart_top_eigenvalue_as_printed",
]


def narayana_moment(k: int, ratio: float) -> float:
    """k-th moment of the Marchenko–Pastur law: ``m_k = Σ_{j<k} c^j/(j+1) C(k,j) C(k−1,j)``.

    For ``W = (1/q) M Mᵀ`` with M an n × q matrix of independent zero-mean, unit-variance
    entries, ``(1/n) E trace(W^k) → m_k`` with ``c = n/q`` (Wolf & Shashua 2005, Sec. 4.2,
    the Narayana polynomials).

    Parameters
    ----------
    k : int
        Order of the moment, k ≥ 1.
    ratio : float
        c = n / q > 0.

    Returns
    -------
    float
        ``m_k``; ``m_1 = 1``, ``m_2 = 1 + c``, ``m_3 = 1 + 3c + c²``.

    Examples
    --------
    >>> from spectral_kit.theory import narayana_moment
    >>> narayana_moment(2, 0.5), narayana_moment(3, 0.5)
    (1.5, 2.75)

    Against a simulated Wishart matrix with n = 200 and q = 400:

    >>> import numpy as np
    >>> M = np.random.default_rng(0).standard_normal((200, 400))
    >>> W = M @ M.T / 400
    >>> round(float(np.trace(W @ W @ W)) / 200, 2)
    2.73
    """
    k = check_int(k, "k", low=1, high=1000,
                  hint="Moments beyond the 1000th overflow float64 for any ratio ≥ 1.")
    c = check_finite_scalar(ratio, "ratio", low=0.0, low_inclusive=False)
    try:
        value = float(sum(c**j / (j + 1) * comb(k, j) * comb(k - 1, j) for j in range(k)))
    except OverflowError:
        value = float("inf")
    if not np.isfinite(value):
        raise ValueError(f"the moment m_k for k={k} and ratio={c:g} overflows float64; use a "
                         "smaller k or ratio.")
    return value


def wishart_second_moment(n: int, q: int) -> float:
    """``(1/n) E trace(W²) ≈ 1 + n/q`` for ``W = (1/q) M Mᵀ`` (Sec. 4.2).

    Wolf & Shashua (2005, Sec. 4.2) use it for the numerator of Lemma 13: for n₂ i.i.d.
    irrelevant features ``Σγ_i² ≈ n₂(1 + n₂/q)``.

    Parameters
    ----------
    n : int
        Number of rows of M (features), ≥ 1.
    q : int
        Number of columns of M (samples), ≥ 1.

    Returns
    -------
    float
        ``1 + n/q``, the second Narayana moment (:func:`narayana_moment` with k = 2).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.theory import wishart_second_moment
    >>> wishart_second_moment(200, 400)
    1.5
    >>> M = np.random.default_rng(0).standard_normal((200, 400))
    >>> W = M @ M.T / 400
    >>> round(float(np.trace(W @ W)) / 200, 3)
    1.494
    """
    n = check_int(n, "n", low=1)
    q = check_int(q, "q", low=1)
    return narayana_moment(2, n / q)


def wishart_top_eigenvalue(n2: int, q: int, *, variance: float | None = None) -> float:
    """Mean top eigenvalue of ``A₂ = M₂ᵀM₂`` for an n₂ × q matrix M₂ of i.i.d. noise.

    The Marchenko–Pastur edge ``σ² (√n₂ + √q)²`` (Geman 1980; Johnstone 2001), with entry
    variance ``σ² = 1/q`` by default -- the setting of Wolf & Bileschi (2005, Sec. 2), where
    every irrelevant feature has expected squared norm 1.

    Parameters
    ----------
    n2 : int
        Number of noise rows n₂ (the irrelevant features), ≥ 1.
    q : int
        Number of columns (samples), ≥ 1.
    variance : float, optional
        Variance σ² of the entries; default 1/q.

    Returns
    -------
    float
        ``σ² (√n₂ + √q)²``.

    Notes
    -----
    The report prints this mean as ``n₂/q² (√n₂ + √q)²``, which is the expression above
    times n₂/q; the same factor appears in its ``n₁ + n₂/q²`` for ``v₁ᵀAv₁`` (the top-left
    entry of A₂ is a sum of n₂ squares of variance 1/q, whose mean is n₂/q). Simulation
    agrees with the Marchenko–Pastur value; :func:`wishart_top_eigenvalue_as_printed`
    returns the printed expression for comparison.

    Examples
    --------
    200 noise features seen on q = 100 samples, entries of variance 1/q:

    >>> import numpy as np
    >>> from spectral_kit.theory import wishart_top_eigenvalue
    >>> round(wishart_top_eigenvalue(200, 100), 3)
    5.828
    >>> M2 = np.random.default_rng(0).standard_normal((200, 100)) / np.sqrt(100)
    >>> round(float(np.linalg.eigvalsh(M2.T @ M2)[-1]), 2)
    5.43

    The simulated top eigenvalue lies a little below the edge at this size (the edge is
    the limit as n₂ and q grow), and far from the printed expression's 11.66.
    """
    n2 = check_int(n2, "n2", low=1)
    q = check_int(q, "q", low=1)
    s2 = 1.0 / q if variance is None else check_finite_scalar(
        variance, "variance", low=0.0, low_inclusive=False
    )
    with np.errstate(over="ignore"):
        edge = float(s2 * (np.sqrt(n2) + np.sqrt(q)) ** 2)
    if not np.isfinite(edge):
        raise ValueError(
            f"the edge σ²(√n2 + √q)² overflows for variance={s2:g}; it scales with the "
            "variance, so compute it for variance=1 and multiply in your own units."
        )
    return edge


def wishart_top_eigenvalue_as_printed(n2: int, q: int) -> float:
    """The expression ``n₂/q² (√n₂ + √q)²`` exactly as printed in Wolf & Bileschi (2005).

    Sec. 2 of the report, for the mean top eigenvalue of ``A₂ = M₂ᵀM₂``; it is
    :func:`wishart_top_eigenvalue` times n₂/q (see the Notes there).

    Parameters
    ----------
    n2 : int
        Number of noise rows n₂, ≥ 1.
    q : int
        Number of columns (samples), ≥ 1.

    Returns
    -------
    float
        ``n₂/q² (√n₂ + √q)²``.

    Examples
    --------
    >>> from spectral_kit.theory import (
    ...     wishart_top_eigenvalue, wishart_top_eigenvalue_as_printed)
    >>> round(wishart_top_eigenvalue_as_printed(200, 100), 3)
    11.657
    >>> round(wishart_top_eigenvalue(200, 100) * 200 / 100, 3)
    11.657
    """
    n2 = check_int(n2, "n2", low=1)
    q = check_int(q, "q", low=1)
    return float(n2 / q**2 * (np.sqrt(n2) + np.sqrt(q)) ** 2)


# -- Theorem 10: positivity of the leading eigenvector -----------------------------------------

#: Trials per block of the Monte Carlo; block b of size n always uses the same random numbers,
#: so estimates are reproducible however the work is split or cached.
BLOCK = 25
#: Largest n whose eigendecompositions are cached (the cache is also bounded in bytes).
CACHE_MAX_N = 160
_CACHE_BYTES = 64 * 2**20


@dataclass(frozen=True)
class PositivityResult:
    """Monte-Carlo estimate of P(leading eigenvector is same-sign), per n.

    What :func:`positivity_probability` returns: the curve of Fig. 2a of Wolf & Shashua
    (2005) for Theorem 10.

    Attributes
    ----------
    n : ndarray of int
        The matrix sizes simulated.
    probability, lower, upper : ndarray
        Estimated probability and its Wilson score interval at ``confidence``.
    successes, trials : ndarray of int
        Same-sign leading eigenvectors found, and matrices drawn, per n.
    ratio : float
        μ/σ, the only parameter the probability depends on besides n.
    confidence : float
        Level of the interval.

    Examples
    --------
    >>> from spectral_kit.theory import positivity_probability
    >>> res = positivity_probability([5, 20, 40], mu=1.0, sigma=2.0, trials=100)
    >>> res.ratio, res.successes.tolist(), res.trials.tolist()
    (0.5, [42, 65, 95], [100, 100, 100])
    >>> res.probability.tolist()
    [0.42, 0.65, 0.95]
    >>> bool((res.lower <= res.probability).all() and (res.probability <= res.upper).all())
    True
    """

    n: np.ndarray
    probability: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    successes: np.ndarray
    trials: np.ndarray
    ratio: float
    confidence: float


def wilson_interval(
    successes: np.ndarray, trials: np.ndarray, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for binomial proportions (better than ±2·SE near 0 and 1)."""
    s = np.asarray(successes, dtype=np.float64)
    t = np.maximum(np.asarray(trials, dtype=np.float64), 1.0)
    z = ndtri(0.5 + confidence / 2)
    p = s / t
    centre = (p + z**2 / (2 * t)) / (1 + z**2 / t)
    half = z * np.sqrt(p * (1 - p) / t + z**2 / (4 * t**2)) / (1 + z**2 / t)
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def _symmetric_block(n: int, seed: int, block: int) -> np.ndarray:
    """BLOCK symmetric matrices with i.i.d. N(0, 1) entries on and above the diagonal."""
    rng = np.random.default_rng([seed, n, block])
    S = rng.standard_normal((BLOCK, n, n))
    upper = np.triu(S)
    return upper + np.swapaxes(np.triu(S, 1), 1, 2)


def _same_sign(V: np.ndarray) -> np.ndarray:
    """Rows of V (one eigenvector per row) whose entries are all > 0 or all < 0."""
    return np.all(V > 0, axis=-1) | np.all(V < 0, axis=-1)


def _secular_top(lam: np.ndarray, z: np.ndarray, r: float) -> np.ndarray:
    """Largest root t of ``1 = r Σ z_i² / (t − λ_i)`` for each row: the top eigenvalue of
    ``S + r 11ᵀ`` when ``S = V diag(λ) Vᵀ`` (ascending λ) and ``z = Vᵀ1``.

    For r > 0 the root lies in ``(λ_n, λ_n + r‖z‖²]`` and ``h(t) = r Σ z²/(t − λ) − 1``
    decreases there; for r < 0 it lies in ``(λ_{n−1}, λ_n)`` (interlacing) and h increases.
    Vectorised bisection over all rows at once.
    """
    z2 = z**2
    top = lam[:, -1]
    if r > 0:
        lo, hi = top.copy(), top + r * z2.sum(axis=1) + 1e-12
    else:
        lo, hi = lam[:, -2].copy(), top.copy()
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            h = r * np.sum(z2 / (mid[:, None] - lam), axis=1) - 1.0
        below_root = h > 0 if r > 0 else h < 0
        lo = np.where(below_root, mid, lo)
        hi = np.where(below_root, hi, mid)
    return 0.5 * (lo + hi)


class PositivitySampler:
    """Monte-Carlo engine behind :func:`positivity_probability`.

    The leading eigenvector of ``G = μJ + σS`` (J all-ones, S symmetric standard normal) is
    that of ``S + (μ/σ) J``: it depends on n and the ratio r = μ/σ only. For n up to
    ``CACHE_MAX_N`` (160) the eigendecompositions ``S = V Λ Vᵀ`` are computed once per block
    and cached; any r then costs only a secular equation and ``v ∝ V (tI − Λ)⁻¹ Vᵀ1``, which
    is what makes the μ and σ sliders instant. Larger n are solved directly per r.

    Parameters
    ----------
    seed : int
        Seed of the matrices: trial t of size n is always the same matrix for a seed.
    cache_bytes : int
        Largest memory (bytes) the cached eigendecompositions may take (64 MiB by default).

    Examples
    --------
    Same-sign leading eigenvectors among 100 matrices of size 10, for μ/σ = 1 and 2:

    >>> from spectral_kit.theory import PositivitySampler
    >>> sampler = PositivitySampler(seed=0)
    >>> sampler.count(10, 1.0, 100)
    (99, 100)
    >>> sampler.count(10, 2.0, 100)
    (100, 100)

    One of the matrices itself, for a picture (sign chosen so that its entries sum ≥ 0):

    >>> v = sampler.leading_eigenvector(10, 2.0)
    >>> v.shape, bool((v > 0).all())
    ((10,), True)
    """

    def __init__(self, seed: int = 0, cache_bytes: int = _CACHE_BYTES):
        self.seed = seed
        self._cache: OrderedDict = OrderedDict()
        self._cache_bytes = cache_bytes
        self._used = 0
        self._last_block: tuple | None = None

    def _decomposition(self, n: int, block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        key = (n, block)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        lam, V = np.linalg.eigh(_symmetric_block(n, self.seed, block))
        z = V.sum(axis=1)  # z = Vᵀ1 for every matrix of the block
        entry = (lam, V, z)
        size = lam.nbytes + V.nbytes + z.nbytes
        if size <= self._cache_bytes // 4:
            self._cache[key] = entry
            self._used += size
            while self._used > self._cache_bytes:
                _, old = self._cache.popitem(last=False)
                self._used -= sum(a.nbytes for a in old)
        return entry

    def block_positive(self, n: int, ratio: float, block: int) -> np.ndarray:
        """Same-sign indicator of the leading eigenvector for the BLOCK trials of a block.

        Parameters
        ----------
        n : int
            Matrix size.
        ratio : float
            μ/σ.
        block : int
            Block index: trials ``block·25 … block·25 + 24``.

        Returns
        -------
        ndarray of bool, shape (25,)
            True where the leading eigenvector is same-sign.
        """
        return self.blocks_positive(n, ratio, [block])

    def blocks_positive(self, n: int, ratio: float, blocks: list[int]) -> np.ndarray:
        """Same-sign indicators for several blocks, solved together (one secular solve).

        Parameters
        ----------
        n, ratio
            As in :meth:`block_positive`.
        blocks : list of int
            Block indices.

        Returns
        -------
        ndarray of bool, shape (25 · len(blocks),)
            True where the leading eigenvector is same-sign, block after block.
        """
        if n == 1:
            return np.ones(BLOCK * len(blocks), dtype=bool)
        if n > CACHE_MAX_N:
            return np.array([self._direct(n, ratio, b * BLOCK + t)
                             for b in blocks for t in range(BLOCK)])
        parts = [self._decomposition(n, block) for block in blocks]
        lam = np.concatenate([p[0] for p in parts])
        V = np.concatenate([p[1] for p in parts])
        z = np.concatenate([p[2] for p in parts])
        if ratio == 0.0:
            return _same_sign(V[:, :, -1])
        t = _secular_top(lam, z, ratio)
        with np.errstate(divide="ignore", invalid="ignore"):
            w = z / (t[:, None] - lam)
        # v ∝ V (tI − Λ)⁻¹ Vᵀ1 is the leading eigenvector of S + r11ᵀ.
        return _same_sign(np.einsum("bij,bj->bi", V, w))

    def _matrix(self, n: int, trial: int) -> np.ndarray:
        """The symmetric matrix S of one trial: the same as row ``trial % BLOCK`` of
        :func:`_symmetric_block`, drawn on its own from the block's stream.

        Drawing a whole block at once costs BLOCK matrices (0.5 s at n = 500) before the
        first trial can be solved; drawn one by one, a deadline is honoured per trial.
        """
        block, t = divmod(trial, BLOCK)
        stream = self._last_block
        if stream is None or stream[0] != (n, block) or stream[1] > t:
            stream = ((n, block), -1, np.random.default_rng([self.seed, n, block]), None)
        key, index, rng, S = stream
        while index < t:  # the stream yields the block's matrices in order
            S = rng.standard_normal((n, n))
            index += 1
        self._last_block = (key, index, rng, S)
        return np.triu(S) + np.triu(S, 1).T

    def _direct(self, n: int, ratio: float, trial: int) -> bool:
        """Same-sign test of one trial by a direct top-eigenvector solve (large n)."""
        G = self._matrix(n, trial) + ratio
        _, v = scipy.linalg.eigh(G, subset_by_index=[n - 1, n - 1], check_finite=False)
        return bool(_same_sign(v[:, 0]))

    def leading_eigenvector(self, n: int, ratio: float, trial: int = 0) -> np.ndarray:
        """The leading eigenvector of one sampled ``S + r J`` (trial index within block 0…).

        Parameters
        ----------
        n : int
            Matrix size.
        ratio : float
            r = μ/σ.
        trial : int
            Which trial's matrix (the same one :meth:`count` uses).

        Returns
        -------
        ndarray of shape (n,)
            The unit eigenvector, signed so that its entries sum to ≥ 0.
        """
        G = self._matrix(n, trial) + ratio
        _, v = scipy.linalg.eigh(G, subset_by_index=[n - 1, n - 1], check_finite=False)
        v = v[:, 0]
        return v if v.sum() >= 0 else -v

    def count(
        self, n: int, ratio: float, trials: int, *, start: int = 0, deadline: float | None = None
    ) -> tuple[int, int]:
        """Successes and trials done among trials ``start … trials−1``.

        With a ``deadline`` (a ``time.perf_counter()`` value) the work stops at the first
        block boundary after it, so a caller can refine an estimate progressively.

        Parameters
        ----------
        n, ratio
            As in :meth:`block_positive`.
        trials : int
            One past the last trial to count.
        start : int
            The first trial to count.
        deadline : float, optional
            A ``time.perf_counter()`` value after which to stop.

        Returns
        -------
        (int, int)
            Same-sign leading eigenvectors found, and trials done.
        """
        if start >= trials:
            return 0, 0
        if n > CACHE_MAX_N:
            # Large n: one direct solve per trial, so a deadline is honoured within a block.
            successes = done = 0
            for trial in range(start, trials):
                successes += self._direct(n, ratio, trial)
                done += 1
                if deadline is not None and time.perf_counter() > deadline:
                    break
            return successes, done
        first, last = start // BLOCK, (trials - 1) // BLOCK
        blocks = list(range(first, last + 1))
        chunks = [blocks] if deadline is None else [[b] for b in blocks]
        successes = done = 0
        for chunk in chunks:
            ok = self.blocks_positive(n, ratio, chunk)
            lo = max(start - chunk[0] * BLOCK, 0)
            hi = min(trials - chunk[0] * BLOCK, ok.size)
            successes += int(ok[lo:hi].sum())
            done += hi - lo
            if deadline is not None and time.perf_counter() > deadline:
                break
        return successes, done


_SAMPLERS: dict[int, PositivitySampler] = {}


def _sampler(seed: int) -> PositivitySampler:
    if seed not in _SAMPLERS:
        _SAMPLERS[seed] = PositivitySampler(seed)
    return _SAMPLERS[seed]


def positivity_probability(
    n: int | object,
    mu: float,
    sigma: float,
    trials: int = 2000,
    random_state: int = 0,
    *,
    confidence: float = 0.95,
) -> PositivityResult:
    """Probability that the leading eigenvector of a random symmetric matrix is same-sign.

    The matrix has i.i.d. N(μ, σ²) entries on and above the diagonal (Theorem 10 of Wolf &
    Shashua 2005, simulated in Fig. 2a). Since eigenvectors ignore scale, the probability
    depends on n and μ/σ only; results are cached by (n, block of trials, seed), so repeated
    calls with other μ or σ are fast.

    Parameters
    ----------
    n : int or array-like of int
        Matrix size(s), each ≥ 1.
    mu : float
        Mean μ of the entries.
    sigma : float
        Standard deviation σ > 0.
    trials : int
        Number of random matrices per n.
    random_state : int
        Seed; the matrices for a given (n, trial, seed) are always the same.
    confidence : float
        Level of the Wilson score interval.

    Returns
    -------
    PositivityResult
        Probabilities with confidence bounds, per n.

    Examples
    --------
    The setting of Fig. 2a (μ = 1/6, σ = √2/6), where the paper reads the probability as
    above 0.99 for n > 20:

    >>> from spectral_kit.theory import positivity_prediction, positivity_probability
    >>> res = positivity_probability([5, 50], mu=1/6, sigma=2**0.5/6, trials=200)
    >>> res.probability.tolist()
    [0.625, 1.0]
    >>> [round(float(p), 3) for p in res.lower]
    [0.556, 0.981]

    The large-n prediction agrees without a simulation:

    >>> [round(float(p), 3) for p in positivity_prediction([5, 50], 1/6, 2**0.5/6)]
    [0.557, 1.0]
    """
    sizes = np.atleast_1d(_check_sizes(n))
    mu = check_finite_scalar(mu, "mu")
    sigma = check_finite_scalar(
        sigma, "sigma", low=0.0, low_inclusive=False,
        hint="σ must be positive; with σ = 0 the matrix is μJ and its eigenvector is constant.",
    )
    trials = check_int(trials, "trials", low=1, high=10**7,
                       hint="Ten million trials already give probabilities to ±0.0003.")
    check_memory(_positivity_bytes(sizes, trials), f"the n × n matrices for n = {sizes.max()}",
                 hint="Simulate smaller n (positivity_prediction needs no simulation).")
    if not isinstance(random_state, (int, np.integer)) or isinstance(random_state, bool):
        raise TypeError(
            f"random_state must be an int seed here (the cache is keyed by it); got "
            f"{random_state!r}."
        )
    if random_state < 0 or random_state >= 2**63:
        raise ValueError(f"random_state must be a seed in [0, 2^63); got {random_state}.")
    confidence = check_probability(confidence, "confidence")
    sampler = _sampler(int(random_state))
    ratio = mu / sigma
    successes = np.array([sampler.count(int(m), ratio, trials)[0] for m in sizes])
    counts = np.full(sizes.shape, trials)
    lower, upper = wilson_interval(successes, counts, confidence)
    return PositivityResult(
        n=sizes.astype(np.int64), probability=successes / counts, lower=lower, upper=upper,
        successes=successes, trials=counts, ratio=ratio, confidence=confidence,
    )


def _positivity_bytes(sizes: np.ndarray, trials: int) -> float:
    """Peak memory of :func:`positivity_probability` (measured: tests/memory_probe.py): up
    to :data:`CACHE_MAX_N`, the eigenvectors of every block of trials and their
    concatenation, all alive at once on a first call (later calls find blocks in the cache);
    beyond, the few n × n copies of one trial's direct solve."""
    def one(n: float) -> float:
        if n <= CACHE_MAX_N:
            return 2 * 8.0 * trials * n * n
        return 3.6 * 8.0 * n * n
    return max(one(float(n)) for n in np.ravel(sizes))


def _check_sizes(n: object) -> np.ndarray:
    """``n`` as an integer array (any shape) of matrix sizes ≥ 1."""
    sizes = np.asarray(n)
    if sizes.dtype.kind not in "iu":
        raise TypeError(f"n must be an integer or an array of integers; got dtype {sizes.dtype}.")
    if sizes.size == 0 or sizes.min() < 1:
        raise ValueError(f"n must contain sizes ≥ 1; got {sizes.tolist()}.")
    return sizes


def positivity_prediction(n: int | object, mu: float, sigma: float) -> np.ndarray:
    """Large-n prediction of the same-sign probability: ``Φ(sqrt(θ² − 1))ⁿ``, θ = μ√n/σ.

    ``G/σ = S + (μ/σ)J`` is a Wigner matrix with a rank-one spike of strength θ (relative to
    the bulk radius 2√n). For θ > 1 the leading eigenvector has overlap ``a² = 1 − 1/θ²``
    with ``1/√n``, so its entries are roughly ``(a + sqrt(1 − a²) g_i)/√n`` with independent
    standard normal g_i; all are positive with probability ``Φ(a/sqrt(1−a²))ⁿ``. For θ ≤ 1
    the eigenvector carries no trace of the mean and the probability vanishes. Not in the
    paper: a check on its Monte-Carlo statements (Sec. 4.1) that needs no simulation.

    Parameters
    ----------
    n, mu, sigma
        As in :func:`positivity_probability`.

    Returns
    -------
    ndarray
        The predicted probability per n (the shape of ``n``).

    Examples
    --------
    Fig. 2a's setting, and the paper's second simulation (μ = 0.1, σ = 1), of which it
    says "the probability is above 0.99 starting from n = 500": the prediction reaches 0.99
    only near n = 2100 (the reproduction ``wolf-shashua-2005/positivity`` finds the same by
    simulation).

    >>> from spectral_kit.theory import positivity_prediction
    >>> [round(float(p), 3) for p in positivity_prediction([10, 20, 30], 1/6, 2**0.5/6)]
    [0.794, 0.973, 0.997]
    >>> [round(float(p), 3) for p in positivity_prediction([500, 1000, 2100], 0.1, 1.0)]
    [0.0, 0.259, 0.992]
    """
    sizes = _check_sizes(n).astype(np.float64)
    mu = check_finite_scalar(mu, "mu")
    sigma = check_finite_scalar(sigma, "sigma", low=0.0, low_inclusive=False)
    theta = mu * np.sqrt(sizes) / sigma
    with np.errstate(invalid="ignore"):
        z = np.sqrt(np.maximum(theta**2 - 1.0, 0.0))
    return np.where(theta > 1.0, ndtr(z) ** sizes, 0.0)


def smallest_n_above(level: float, n: np.ndarray, values: np.ndarray) -> int | None:
    """Smallest n from which every value (an estimate or a confidence bound) stays above
    ``level``, or None when the last one does not.

    How the kit reads statements such as "for n > 20 the probability becomes very close to
    1 (above 0.99)" (Wolf & Shashua 2005, Sec. 4.1) off a simulated curve.

    Parameters
    ----------
    level : float
        The level the values must exceed.
    n : array-like of shape (m,)
        The sizes, increasing.
    values : array-like of shape (m,)
        The value at each size.

    Returns
    -------
    int or None
        The first n of the last run of values above ``level``; None when the value at the
        largest n is not above it.

    Examples
    --------
    >>> from spectral_kit.theory import smallest_n_above
    >>> smallest_n_above(0.99, [5, 10, 20, 40, 80], [0.6, 0.995, 0.98, 0.992, 0.999])
    40
    >>> smallest_n_above(0.99, [5, 10], [0.6, 0.9]) is None
    True
    """
    level = check_finite_scalar(level, "level")
    vals = check_array(values, "values", ndim=1)
    sizes = np.asarray(n) if not isinstance(n, (str, bytes, dict)) else np.asarray([])
    if sizes.ndim != 1 or sizes.dtype.kind not in "iuf" or sizes.shape != vals.shape:
        raise ValueError(f"n must be a 1-D array of sizes of the length of values "
                         f"({vals.size}); got {n!r:.60}.")
    n = sizes
    ok = vals > level
    if not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    return int(n[0] if bad.size == 0 else n[bad[-1] + 1])


# -- Props. 7–9: why the entries of G are positive on average ----------------------------------


@dataclass(frozen=True)
class MonteCarloEstimate:
    """A Monte-Carlo mean with its standard error and the closed form it estimates.

    What :func:`triple_product_monte_carlo` returns (Props. 8–9 of Wolf & Shashua 2005).

    Attributes
    ----------
    mean : float
        Average over the samples.
    stderr : float
        Standard error of the mean (sample standard deviation / √samples).
    exact : float
        The closed form the mean estimates.
    samples : int
        How many random draws the mean is over.

    Examples
    --------
    >>> from spectral_kit.theory import triple_product_monte_carlo
    >>> est = triple_product_monte_carlo([1, 0, 0, 0], [1, 1, 0, 0], k=2, samples=5000,
    ...                                  random_state=0)
    >>> round(est.mean, 3), round(est.exact, 3), est.samples
    (0.253, 0.25, 5000)
    >>> abs(est.z_score) < 3
    True
    """

    mean: float
    stderr: float
    exact: float
    samples: int

    @property
    def z_score(self) -> float:
        """(mean − exact) / stderr: within ±3 about 99.7 % of the time."""
        return (self.mean - self.exact) / self.stderr if self.stderr > 0 else 0.0


def _unit(v: object, name: str) -> np.ndarray:
    a = check_array(v, name, ndim=1)
    # by the largest entry first (exact for a power of two): ‖a‖ of a vector of entries
    # near 1e200 overflows and of entries near 1e-170 underflows, but its direction does not
    top = float(np.abs(a).max())
    if top == 0:
        raise ValueError(f"{name} must be a non-zero vector (it is scaled to the unit sphere).")
    a = np.ldexp(a, -int(np.frexp(top)[1]))
    return a / np.linalg.norm(a)


def triple_product(a: object, b: object, c: object) -> float:
    """``f = (aᵀb)(aᵀc)(bᵀc)`` for unit vectors (inputs are scaled to unit norm).

    A term of ``G_ij = Σ_l (m_iᵀq_l)(m_jᵀq_l)(m_iᵀm_j)`` (Wolf & Shashua 2005, Sec. 4.1,
    the function of Props. 7–9).

    Parameters
    ----------
    a, b, c : array-like of shape (q,)
        Non-zero vectors of one length; each is scaled to unit norm.

    Returns
    -------
    float
        f, in [−1/8, 1] (Prop. 7 gives the minimum).

    Examples
    --------
    With ``aᵀb = bᵀc = 1/√2`` and ``aᵀc = 1/2`` (after scaling), f = 1/4:

    >>> from spectral_kit.theory import triple_product
    >>> round(triple_product([1, 0, 0], [1, 1, 0], [1, 0, 1]), 4)
    0.25
    """
    a, b, c = _unit(a, "a"), _unit(b, "b"), _unit(c, "c")
    if not a.size == b.size == c.size:
        raise ValueError(
            f"a, b and c must have the same length; got {a.size}, {b.size} and {c.size}."
        )
    return float((a @ b) * (a @ c) * (b @ c))


def triple_product_minimizer(q: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three unit vectors in R^q attaining the minimum −1/8 of f (Prop. 7).

    Following the proof: γ₂ = π, β = γ₁ and cos 2β = −1/2, i.e. a and c at ±60° from b
    in a plane with aᵀc = cos 120°.

    Parameters
    ----------
    q : int
        Dimension, ≥ 2.

    Returns
    -------
    (ndarray, ndarray, ndarray)
        Unit vectors a, b, c of shape (q,).

    Examples
    --------
    >>> from spectral_kit.theory import triple_product, triple_product_minimizer
    >>> a, b, c = triple_product_minimizer(3)
    >>> round(triple_product(a, b, c), 6)
    -0.125
    """
    q = check_int(q, "q", low=2)
    check_memory(3 * 8.0 * q, f"three vectors in R^q for q = {q}")
    angle = np.pi / 3
    a = np.zeros(q)
    b = np.zeros(q)
    c = np.zeros(q)
    b[0] = 1.0
    a[:2] = np.cos(angle), np.sin(angle)
    c[:2] = np.cos(angle), -np.sin(angle)
    return a, b, c


def triple_product_expectation(a: object, b: object, k: int = 1) -> float:
    """``E_C[Σ_{i≤k} (aᵀb)(aᵀc_i)(bᵀc_i)] = (k/q)(aᵀb)²`` for k orthonormal c_i drawn
    uniformly (Prop. 8 for k = 1, Prop. 9 for k ≥ 1).

    Parameters
    ----------
    a, b : array-like of shape (q,)
        Non-zero vectors of one length; each is scaled to unit norm.
    k : int
        Number of orthonormal vectors c_i, 1 ≤ k ≤ q.

    Returns
    -------
    float
        ``(k/q)(aᵀb)²`` for the unit-norm a and b: never negative, which is why G's
        entries are positive on average.

    Examples
    --------
    In R⁴ with ``aᵀb = 1/√2`` after scaling, ``(aᵀb)² = 1/2``:

    >>> from spectral_kit.theory import triple_product_expectation
    >>> round(triple_product_expectation([1, 0, 0, 0], [1, 1, 0, 0], k=1), 4)
    0.125
    >>> round(triple_product_expectation([1, 0, 0, 0], [1, 1, 0, 0], k=2), 4)
    0.25
    """
    a, b = _unit(a, "a"), _unit(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same length; got {a.size} and {b.size}.")
    q = a.size
    k = check_int(k, "k", low=1, high=q)
    return float(k / q * (a @ b) ** 2)


def triple_product_monte_carlo(
    a: object, b: object, k: int = 1, *, samples: int = 20000, random_state: object = None
) -> MonteCarloEstimate:
    """Monte-Carlo check of Props. 8–9: average f over uniformly random orthonormal
    ``c_1 … c_k`` (Haar-distributed, from the QR of a Gaussian matrix).

    Parameters
    ----------
    a, b, k
        As in :func:`triple_product_expectation`.
    samples : int
        Number of random orthonormal sets drawn, ≥ 2.
    random_state : None, int or Generator
        Seed of the draws.

    Returns
    -------
    MonteCarloEstimate
        The mean of f over the draws, its standard error and the closed form
        :func:`triple_product_expectation`.

    Examples
    --------
    >>> from spectral_kit.theory import triple_product_monte_carlo
    >>> est = triple_product_monte_carlo([1, 0, 0, 0], [1, 1, 0, 0], k=1, samples=5000,
    ...                                  random_state=0)
    >>> round(est.exact, 4), abs(est.mean - est.exact) < 3 * est.stderr
    (0.125, True)
    """
    a, b = _unit(a, "a"), _unit(b, "b")
    exact = triple_product_expectation(a, b, k)
    samples = check_int(samples, "samples", low=2)
    rng = as_generator(random_state)
    q = a.size
    check_memory(3 * 8.0 * samples * q * k,
                 f"samples={samples} random {q} × {k} orthonormal bases",
                 hint="Use fewer samples.")
    Z = rng.standard_normal((samples, q, k))
    C, R = np.linalg.qr(Z)
    C = C * np.sign(np.diagonal(R, axis1=1, axis2=2))[:, None, :]  # Haar measure
    values = (a @ b) * np.einsum("i,sik,j,sjk->s", a, C, b, C)
    return MonteCarloEstimate(
        mean=float(values.mean()), stderr=float(values.std(ddof=1) / np.sqrt(samples)),
        exact=exact, samples=samples,
    )


# -- Lemma 13: the summed weight of the irrelevant features -------------------------------------


@dataclass(frozen=True)
class SparsityBound:
    """Lemma 13 for one Q-α result.

    Attributes
    ----------
    observed : float
        ``Σ_{i irrelevant} α_i``.
    bound : float
        ``sqrt(Σ γ_i² / λ)`` with γ the eigenvalues of M₂M₂ᵀ and λ the largest eigenvalue of G.
    wishart_bound : float
        The same with ``Σγ²`` replaced by its Wishart approximation ``n₂(1 + n₂/q)``
        (Sec. 4.2): what the bound would be for i.i.d. irrelevant features.
    lam : float
        λ, the largest eigenvalue of G.
    n_irrelevant : int
        n₂, the number of irrelevant features.

    Examples
    --------
    ``holds`` says whether the observed sum is within the bound:

    >>> from spectral_kit import q_alpha
    >>> from spectral_kit.datasets import make_multiclass_clusters
    >>> from spectral_kit.theory import lemma13_bound
    >>> data = make_multiclass_clusters(n_clusters=3, random_state=0)
    >>> bound = lemma13_bound(data.M, data.relevant, q_alpha(data.M, k=3, random_state=0))
    >>> bound.n_irrelevant, bound.holds
    (120, True)
    """

    observed: float
    bound: float
    wishart_bound: float
    lam: float
    n_irrelevant: int

    @property
    def holds(self) -> bool:
        """Whether ``observed ≤ bound`` (up to round-off)."""
        return self.observed <= self.bound * (1 + 1e-9)


def lemma13_bound(M: object, relevant: object, result: object) -> SparsityBound:
    """Lemma 13 of Wolf & Shashua (2005): ``Σ_{irrelevant} α_i ≤ sqrt(Σ γ_i² / λ)``.

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        The data (features as rows) that ``result`` was computed from with the default
        preprocessing (rows centred and scaled to unit norm).
    relevant : array-like of bool, shape (n_features,)
        Mask of the relevant features (M₁); the others are M₂.
    result : QAlphaResult
        A standard-spectrum Q-α result on M (``alpha``, ``Q``).

    Returns
    -------
    SparsityBound
        The observed ``Σ_{irrelevant} α_i``, the bound, its Wishart approximation and λ.

    Examples
    --------
    The data of Fig. 3b with three clusters: the 120 irrelevant features carry a summed
    weight of 2.23, well within the bound.

    >>> import numpy as np
    >>> from spectral_kit import preprocess_rows, q_alpha
    >>> from spectral_kit.datasets import make_multiclass_clusters
    >>> from spectral_kit.theory import lemma13_bound
    >>> data = make_multiclass_clusters(n_clusters=3, random_state=0)
    >>> res = q_alpha(data.M, k=3, random_state=0)
    >>> b = lemma13_bound(data.M, data.relevant, res)
    >>> round(b.observed, 3), round(b.bound, 3), round(b.wishart_bound, 3)
    (2.232, 11.744, 11.73)

    The same bound from the eigenvalues of ``M₂M₂ᵀ`` and of ``G = (MMᵀ) ∘ (MQQᵀMᵀ)``:

    >>> Mp = preprocess_rows(data.M)
    >>> M2 = Mp[~data.relevant]
    >>> gamma = np.linalg.eigvalsh(M2 @ M2.T)
    >>> P = Mp @ res.Q
    >>> lam = np.linalg.eigvalsh((Mp @ Mp.T) * (P @ P.T))[-1]
    >>> round(float(np.sqrt((gamma**2).sum() / lam)), 3)
    11.744
    """
    Mp = preprocess_rows(M)
    mask = check_mask(relevant, "relevant", Mp.shape[0])
    if not (hasattr(result, "alpha") and hasattr(result, "Q")):
        raise TypeError(f"result must be the QAlphaResult of q_alpha on M; got "
                        f"{type(result).__name__}.")
    alpha = check_array(result.alpha, "result.alpha", ndim=1)
    Q = check_array(result.Q, "result.Q")
    if alpha.shape != (Mp.shape[0],) or Q.shape[0] != Mp.shape[1]:
        raise ValueError(f"result does not belong to M: α has {alpha.size} entries and Q "
                         f"{Q.shape[0]} rows for M of shape {Mp.shape}.")
    M2 = Mp[~mask]
    # Σγ² = ‖M₂M₂ᵀ‖_F² = ‖M₂ᵀM₂‖_F²: a q × q product instead of n₂ × n₂.
    gamma_sq = float(np.sum((M2.T @ M2) ** 2))
    P = Mp @ Q
    # λ = αᵀGα for the returned α (the leading eigenvector of G), without forming G.
    W = Mp.T @ (P * alpha[:, None])
    lam = float(np.einsum("nk,nk->n", Mp @ W, P) @ alpha)
    n2, q = M2.shape
    return SparsityBound(
        observed=float(alpha[~mask].sum()),
        bound=float(np.sqrt(gamma_sq / lam)),
        wishart_bound=float(np.sqrt(n2 * (1 + n2 / q) / lam)),
        lam=lam,
        n_irrelevant=int(n2),
    )
