"""The Q-α family: one alternating engine, many α- and Q-steps.

* :func:`q_alpha` -- unsupervised Q-α (Wolf & Shashua 2005, Defs. 1–5);
* :func:`q_alpha_supervised` -- supervised Q-α (Def. 6);
* kernel Q-α, side information and pairwise side data (Shashua & Wolf 2004) are further
  models plugged into the same engine (:mod:`spectral_kit.qalpha.engine`).
"""

from __future__ import annotations

from .._lazy import lazy_getattr
from .engine import QAlphaResult
from .standard import q_alpha
from .supervised import q_alpha_supervised

_LAZY = {
    "kernel_q_alpha": ".kernel",
    "q_alpha_side": ".side",
    "q_alpha_pairwise": ".pairwise",
}

__all__ = ["QAlphaResult", "q_alpha", "q_alpha_supervised", *_LAZY]

__getattr__ = lazy_getattr(__name__, _LAZY)
