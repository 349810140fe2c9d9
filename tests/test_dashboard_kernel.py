"""The dashboard's kernel stays small once its explorers are refined: what a card keeps
between slider moves is bounded, and the pictures are those of the stand-alone explorers."""

from __future__ import annotations

import numpy as np

from spectral_kit.widgets import PositivityExplorer
from spectral_kit.widgets.dashboard import CARDS, POSITIVITY_CACHE, _explorer_for


def test_the_positivity_card_caches_no_eigendecompositions_and_draws_the_same_curve():
    """At the card's 200 trials the curve's blocks (about 83 MB) do not fit the sampler's
    64 MiB cache, which a refined kernel then held for nothing; the card's sampler keeps
    none, draws from the same matrices, and a μ move gives the stand-alone explorer's curve."""
    card = next(c for c in CARDS if c.explorer == "PositivityExplorer")
    on_card, alone = _explorer_for(card), PositivityExplorer()
    try:
        assert on_card.sampler.seed == alone.sampler.seed
        for explorer in (on_card, alone):
            explorer.update(mu=0.25)
            explorer.finish()
        assert on_card.sampler._used <= POSITIVITY_CACHE and not on_card.sampler._cache
        # the stand-alone explorer cached its decompositions: the same numbers either way
        assert alone.sampler._used > 0
        for key in ("n", "probability", "lower", "upper"):
            np.testing.assert_array_equal(on_card.result[key], alone.result[key])
    finally:
        on_card.close()
        alone.close()
