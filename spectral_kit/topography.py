"""Topographical model of all relevant feature subsets (Shashua & Wolf 2004, Sec. 4).

Rounds of Q-α with side information in which the features chosen so far play the part of the
side data: round r runs Def. 3 with ``D = diag(Σ_{s<r} α⁽ˢ⁾²)``, so α⁽ʳ⁾ is pushed towards
features that earlier rounds left out and finds another valid solution. The first round has
D = 0 and is plain Q-α.

Each round also gives the features coordinates: as in multi-dimensional scaling, the leading
eigenvectors of that round's G form a frame, and a feature's direction in the plane of the
first two (the normalised pair) is its 1-D coordinate for the round. With r rounds every
feature gets r coordinates (the map) and r relevancies (the ellipse axes of Fig. 2b).

Relevancy per round. The first eigenvector of a round's G scores how strongly each feature
takes part in the cluster structure that round found; in round 1 it is α itself. From round 2
on α is the eigenvector of ``(D + λI)⁻¹G``, which deliberately down-weights the features of
earlier rounds -- including hybrid features relevant to both solutions. We therefore report
both: ``alpha`` (what each round selects) and ``relevance`` (G's leading eigenvector, the
feature's relevancy to that round's solution, used for the ellipses). On the paper's
synthetic data the hybrids are high in ``relevance`` for both rounds, as the paper reports,
while their round-2 ``alpha`` is small.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import LinearOperator, eigsh

from .linalg import fix_sign, top_eigenvectors
from .preprocess import preprocess_rows
from .qalpha.engine import extend_result
from .qalpha.models import StandardModel
from .qalpha.side import SideInformationModel, SideQAlphaResult
from .qalpha.standard import METHOD_CHOICES, SOLVERS, check_k, resolve_method, run_model
from .validation import as_generator, check_choice, check_finite_scalar, check_int

__all__ = ["TopographicMap", "topographic_map"]


@dataclass(frozen=True)
class TopographicMap:
    """The topographical model of Shashua & Wolf (2004, Sec. 4).

    Attributes
    ----------
    alpha : ndarray of shape (rounds, n_features)
        α of every round (round 1 = plain Q-α; later rounds = Q-α-SI with D = Σ α² of the
        earlier rounds).
    relevance : ndarray of shape (rounds, n_features)
        Leading eigenvector of every round's G (unit norm, Σ > 0): each feature's relevancy
        to the solution found in that round.
    coordinates : ndarray of shape (n_features, rounds)
        The 1-D coordinate of every feature per round: the angle (radians, in (−π, π]) of the
        pair (first, second eigenvector of the round's G).
    frames : ndarray of shape (rounds, n_features, n_frame)
        The leading eigenvectors of every round's G (the MDS frames).
    D : ndarray of shape (rounds, n_features)
        The side variances each round used (zeros in round 1).
    lam : float
        λ of every round's ``(D + λI)⁻¹G``.
    k : int
        Number of leading eigenvectors per round.
    results : tuple of SideQAlphaResult
        The full result of every round.

    Examples
    --------
    Round r uses the squared weights of the earlier rounds as its side variances:

    >>> import numpy as np
    >>> from spectral_kit import topographic_map
    >>> from spectral_kit.datasets import make_topographic
    >>> data = make_topographic(random_state=0)
    >>> topo = topographic_map(data.M, k=2, rounds=2, random_state=0)
    >>> topo.rounds, topo.alpha.shape, topo.coordinates.shape, topo.frames.shape
    (2, (2, 20), (20, 2), (2, 20, 3))
    >>> bool(np.all(topo.D[0] == 0)), bool(np.allclose(topo.D[1], topo.alpha[0] ** 2))
    (True, True)
    """

    alpha: np.ndarray
    relevance: np.ndarray
    coordinates: np.ndarray
    frames: np.ndarray
    D: np.ndarray
    lam: float
    k: int
    results: tuple[SideQAlphaResult, ...]

    @property
    def rounds(self) -> int:
        """The number of rounds."""
        return int(self.alpha.shape[0])

    def top_features(self, round_index: int, n_select: int) -> np.ndarray:
        """Indices of the ``n_select`` most relevant features of one round (0-based).

        Parameters
        ----------
        round_index : int
            The round, 0-based.
        n_select : int
            How many features.

        Returns
        -------
        ndarray of int
            Feature indices by decreasing ``relevance`` in that round.
        """
        return np.argsort(-self.relevance[round_index], kind="stable")[:n_select]


#: Largest number of features for which the MDS frame is computed from an explicit G.
DENSE_FRAME_MAX = 2000


def _frame(op: LinearOperator, n_frame: int) -> np.ndarray:
    """Leading eigenvectors of G as columns; the first signed so that Σ > 0, the others so
    that their largest entry is positive (a deterministic MDS frame)."""
    n = op.shape[0]
    if n <= DENSE_FRAME_MAX:
        G = op.dense()
        _w, U = top_eigenvectors(0.5 * (G + G.T), n_frame)
    else:
        w, U = eigsh(op, k=n_frame, which="LA", v0=np.ones(n))
        U = U[:, np.argsort(-w)]
    U[:, 0] = fix_sign(U[:, 0])
    for j in range(1, n_frame):
        if U[int(np.argmax(np.abs(U[:, j]))), j] < 0:
            U[:, j] = -U[:, j]
    return U


def topographic_map(
    M: object,
    k: int,
    rounds: int = 2,
    *,
    lam: float = 0.1,
    n_frame: int = 3,
    method: str = "auto",
    max_iter: int = 300,
    tol: float = 1e-6,
    solver: str = "auto",
    random_state: object = None,
) -> TopographicMap:
    """Rounds of Q-α-SI and the MDS coordinates of the features (Shashua & Wolf 2004, Sec. 4).

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        Data with **features as rows** (raw; rows are centred and scaled to unit norm).
    k : int
        Number of leading eigenvectors per round. Centred data with c clusters span c − 1
        between-cluster directions, so k = c − 1 isolates one solution per round (with k = c
        the spare direction picks up part of another solution).
    rounds : int
        Number of rounds (≥ 1); the paper draws 2.
    lam : float
        λ > 0 of every round's ``(D + λI)⁻¹G``. Small λ forbids earlier features more
        strongly; the first round (D = 0) does not depend on λ.
    n_frame : int
        Number of leading eigenvectors of each G kept in ``frames`` (≥ 2).
    method, max_iter, tol, solver, random_state
        As in :func:`spectral_kit.q_alpha` (every round starts from the PCA subspace).

    Returns
    -------
    TopographicMap
        ``alpha`` (rounds × n), ``relevance`` (rounds × n), ``coordinates`` (n × rounds),
        the frames and per-round results.

    Examples
    --------
    The data of Fig. 2: features 1, 2, 3 and A, B, C make two clusterings, 1A, 2B, 3C are
    their sums. Round 1 finds the first solution, round 2 the second; the hybrids are
    relevant to both.

    >>> from spectral_kit import topographic_map
    >>> from spectral_kit.datasets import make_topographic
    >>> data = make_topographic(random_state=0)
    >>> topo = topographic_map(data.M, k=2, rounds=2, random_state=0)
    >>> [sorted(data.feature_names[i] for i in topo.top_features(r, 6)) for r in (0, 1)]
    [['1', '1A', '2', '2B', '3', '3C'], ['1A', '2B', '3C', 'A', 'B', 'C']]
    """
    rounds = check_int(rounds, "rounds", low=1, high=100,
                       hint="Each round finds one more solution; the paper draws two.")
    lam = check_finite_scalar(
        lam, "lam", low=0.0, low_inclusive=False,
        hint="Round 1 has D = 0, so D + λI needs λ > 0.",
    )
    method = check_choice(method, "method", METHOD_CHOICES)
    solver = check_choice(solver, "solver", SOLVERS)
    max_iter = check_int(max_iter, "max_iter", low=1)
    tol = check_finite_scalar(tol, "tol", low=0.0, low_inclusive=False)
    Mp = preprocess_rows(M)
    n = Mp.shape[0]
    if n < 2:
        raise ValueError(f"M must have at least 2 feature rows; got shape {Mp.shape}.")
    n_frame = check_int(n_frame, "n_frame", low=2, high=n)
    k = check_k(k, Mp.shape[1])
    method = resolve_method(method, Mp.shape[1])
    rng = as_generator(random_state)
    base = StandardModel(Mp)
    D = np.zeros(n)
    alphas, relevance, frames, Ds, results = [], [], [], [], []
    for _ in range(rounds):
        model = SideInformationModel(base, D + lam)
        raw = run_model(
            model, k, method=method, init="pca", n_init=1, max_iter=max_iter, tol=tol,
            solver=solver, rng=rng, spectrum="standard", criterion="top",
        )
        result = extend_result(raw, SideQAlphaResult, D=D.copy(), lam=lam, side_scale="alpha")
        frame = _frame(base.alpha_operator(result.Q, result.alpha), n_frame)
        alphas.append(result.alpha)
        relevance.append(frame[:, 0])
        frames.append(frame)
        Ds.append(D.copy())
        results.append(result)
        D = D + result.alpha**2
    frames_arr = np.stack(frames)
    coordinates = np.arctan2(frames_arr[:, :, 1], frames_arr[:, :, 0]).T
    return TopographicMap(
        alpha=np.stack(alphas), relevance=np.stack(relevance), coordinates=coordinates,
        frames=frames_arr, D=np.stack(Ds), lam=lam, k=k, results=tuple(results),
    )
