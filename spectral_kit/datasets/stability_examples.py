"""The worked examples of Mavroeidis & Vazirgiannis's stability paper, as data.

Shared by the reproduction of Example 1 and the exercise that recomputes its cosine, so that
neither imports the other (exercises sit below reproductions in the layers).
"""

from __future__ import annotations

__all__ = ["EXAMPLE1_DOCUMENTS"]

#: Example 1: term frequencies of "graduation" and "unemployment" in documents d1 … d5.
EXAMPLE1_DOCUMENTS = ((0, 1), (2, 3), (4, 3), (3, 0), (1, 0))
