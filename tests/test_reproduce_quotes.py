"""A "published" value must be printed in the paper: every row of the stored tables is
checked against the words it quotes, and the words against the papers' text.

(a) Every row with a published value or a claim carries the paper's words and their place,
    declared once in the reproduction's module (the source of truth), and a value row's
    number occurs in those words; a claim row states its test and shows no number as
    published.
(b) When the papers' text copies are reachable (``SPECTRAL_KIT_PAPERS``, a folder of text
    files), every declared quote occurs in its paper, compared with whitespace, line-break
    hyphenation, typographic quotes and LaTeX normalised. Without the folder these tests
    skip and say why; CI's ``.ci/run`` points the variable at ``../shared/seeds``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from spectral_kit.reproduce import (
    KINDS,
    QUOTES,
    Comparison,
    Quote,
    compare,
    compare_claim,
    compare_claim_band,
    load_reference,
    quote,
)
from spectral_kit.reproduce._papers import (
    MAX_GAP,
    PAPER_TITLES,
    PAPERS_ENV,
    find_quote,
    normalise,
    numbers_in,
    paper_texts,
    printed_in,
)
from spectral_kit.reproduce.reference import stored_keys

DECLARED = {(q.paper, q.place, q.text) for q in QUOTES}


def _problems(key: str) -> list[str]:
    result = load_reference(key)
    problems = []
    for i, c in enumerate(result.comparisons):
        where = f"{key} #{i} {c.quantity!r}"
        if c.kind not in KINDS:
            problems.append(f"{where}: kind {c.kind!r}")
            continue
        if c.verdict == "not published" or c.published is None:
            if c.published is not None or c.verdict != "not published" or c.kind != "value":
                problems.append(f"{where}: a row without a published value must be 'not "
                                f"published' (published={c.published!r}, {c.verdict})")
            continue
        if not c.quote or not c.source:
            problems.append(f"{where}: published {c.published!r} without the paper's words "
                            "and place")
            continue
        if (result.paper, c.source, c.quote) not in DECLARED:
            problems.append(f"{where}: its quote is not one its module declares (the stored "
                            "table is stale: regenerate it)")
        if c.kind == "value" and not printed_in(c.published, c.quote):
            problems.append(f"{where}: {c.published!r} is not printed in “{c.quote}”")
        if c.kind == "claim" and (not c.test or c.published != c.quote):
            problems.append(f"{where}: a claim shows the quoted statement as published and "
                            "states its test")
    return problems


@pytest.mark.parametrize("key", stored_keys())
def test_every_stored_published_value_is_printed_in_its_quote(key):
    problems = _problems(key)
    assert not problems, "\n".join(problems)


def test_the_stored_tables_use_every_declared_quote():
    used = {(r.paper, c.source, c.quote) for r in map(load_reference, stored_keys())
            for c in r.comparisons if c.quote}
    assert not DECLARED - used, sorted(DECLARED - used)


#: Rows that once showed, as published, numbers the papers do not print: (key, quantity
#: prefix, how many rows).
ONCE_INVENTED = (
    ("wolf-bileschi-2005/wishart", "mean top eigenvalue of A₂", 2),
    ("wolf-bileschi-2005/wishart", "mean of v₁ᵀA₂v₁", 2),
    ("wolf-bileschi-2005/wishart", "cos²(u₁, v₁) of A's top eigenvector, n₁=", 4),
    ("wolf-bileschi-2005/fig2", "first PC uninformative", 2),
    ("shashua-wolf-2004/pairwise", "fraction of draws with α > 0", 5),
    ("shashua-wolf-2004/fig2-topography", "draws where", 2),
    ("moghaddam-weiss-avidan-2006/fig3-ionosphere", "ST error − ESLDA error", 1),
    ("moghaddam-weiss-avidan-2006/fig2-sonar", "GSLDA error at k = 30 − error with all", 1),
    ("moghaddam-weiss-avidan-2006/fig1", "GSLDA: k of the lowest mean ratio", 6),
    ("moghaddam-weiss-avidan-2006/eslda-exact", "share of random pairs", 1),
    ("mavroeidis-vazirgiannis/sbs-uci", "segmentation SbS-LSI a ≥ 45%", 3),
)


@pytest.mark.parametrize(("key", "prefix", "count"), ONCE_INVENTED)
def test_rows_that_once_invented_numbers_are_claims(key, prefix, count):
    rows = [c for c in load_reference(key).comparisons if c.quantity.startswith(prefix)
            and c.verdict != "not published"]
    assert len(rows) == count
    for c in rows:
        assert c.kind == "claim" and c.published == c.quote and c.test, c.quantity
    if key.endswith("pairwise"):  # λ is a parameter the paper does not name
        assert all("kit's choice" in c.test and "names no λ" in c.test for c in rows)


# -- (b): the quotes against the papers ---------------------------------------------------------

def _papers() -> dict[str, str]:
    texts = paper_texts()
    if not texts:
        pytest.skip(f"the papers' text is not reachable: set {PAPERS_ENV} to a folder of their "
                    "text copies (CI sets it to ../shared/seeds)")
    return texts


@pytest.mark.parametrize("paper", sorted(PAPER_TITLES))
def test_every_paper_is_found_by_its_title(paper):
    assert paper in _papers(), f"no text copy of {paper} in {os.environ.get(PAPERS_ENV)}"


@pytest.mark.parametrize("q", QUOTES, ids=lambda q: f"{q.paper}:{q.place}:{q.text[:30]}")
def test_every_quote_occurs_in_its_paper(q):
    texts = _papers()
    assert q.paper in texts, f"no text copy of {q.paper}"
    assert find_quote(q.text, texts[q.paper]), f"not in {q.paper}: “{q.text}” ({q.place})"


def test_a_misquote_is_caught_in_the_real_paper():
    texts = _papers()
    ws = texts["wolf-shashua-2005"]
    assert find_quote("for n > 20 the probability becomes very close to 1", ws)
    assert not find_quote("for n > 21 the probability becomes very close to 1", ws)
    assert not find_quote("at least 30 times more likely … even for s > 1000", ws.replace(
        "even for", "even up to"))


def test_unset_papers_folder_is_no_papers_and_a_bad_one_is_named(tmp_path, monkeypatch):
    monkeypatch.delenv(PAPERS_ENV, raising=False)
    assert paper_texts() == {}
    with pytest.raises(ValueError, match=PAPERS_ENV):
        paper_texts(tmp_path / "missing")
    (tmp_path / "a.txt").write_text("# Generalized Spectral Bounds for Sparse\nLDA\n\nbody")
    assert list(paper_texts(tmp_path)) == ["moghaddam-weiss-avidan-2006"]


# -- the matching rules --------------------------------------------------------------------------

def test_normalise_folds_latex_unicode_hyphenation_and_whitespace():
    latex = r"a mean of  $n_2/q^2(\sqrt{n_2} + \sqrt{q})^2$ [8]"
    assert normalise(latex) == normalise("a mean of n₂/q²(√n₂ + √q)² [8]")
    assert normalise(r"($\approx 11\%$ at $k = 16$)") == normalise("(≈ 11% at k = 16)")
    assert normalise("an intractable enu-\n\nmeration") == normalise("an intractable enumeration")
    assert normalise("“half-sparsity” — *at least*") == normalise('"half-sparsity" - at least')
    assert normalise("s = 0.75$ <sup>3</sup>. Next") == normalise("s = 0.75. Next")
    assert normalise("half-sparsity") != normalise("halfsparsity")  # a real hyphen stays


def test_find_quote_honours_order_and_gap_of_elisions():
    text = "alpha beta gamma. " + "x " * (MAX_GAP + 10) + "delta epsilon"
    assert find_quote("alpha beta … gamma", text)
    assert not find_quote("gamma … alpha", text)  # out of order
    assert not find_quote("beta … delta", text)  # too far apart for one elision
    assert not find_quote("…", text) and not find_quote("zeta", text)


def test_printed_in_reads_digits_percentages_ranges_words_and_outcomes():
    assert numbers_in("(9% at k = 30)") == [9.0, 0.09, 30.0]
    assert printed_in(0.09, "test error of GSLDA (9% at k = 30)")
    assert printed_in((5.0, 10.0), "a sparsity gap around 5 – 10")
    assert printed_in(0.728, "wine 0.7280 0.9635")
    assert printed_in(0.0, "was constantly zero")
    assert printed_in("{1, 3} (3)", "stable eigenvector spaces for k = 1 and k = 3")
    assert not printed_in(8, "occurs at half-sparsity (k = n/2)")  # derived, not printed
    assert not printed_in(21, "for n > 20 the probability")
    assert not printed_in(2, "n₂ and a02")  # digits glued to letters are names
    assert not printed_in(None, "0") and not printed_in("no number", "1")


# -- the row kinds ---------------------------------------------------------------------------------

# Built directly, not declared with quote(): the registry holds only the reproductions' words.
Q = Quote("wolf-bileschi-2005", "Sec. 3.1, last paragraph",
          "the assignment of weights by taking the first PCA of the data is uninformative")


def test_a_claim_shows_the_quote_and_its_test_never_a_number():
    c = compare_claim_band("ratio", 1.1, Q, reading=1.0, rtol=0.25, close_rtol=0.5,
                           ci=(0.95, 1.2), test="ratio within 25 % of 1")
    assert (c.kind, c.verdict, c.published, c.source) == (
        "claim", "reproduced", Q.text, Q.place)
    _, _, published, _, note = c.cells()
    assert published == f"claim: “{Q.text}” ({Q.place})" and "1.0" not in published
    assert note.startswith("Test: ratio within 25 % of 1.")
    assert "min-width" in _one_row_html(c) and "white-space:normal" in _one_row_html(c)
    # the band decides as compare() would: outside the close band differs
    assert compare_claim_band("r", 2.0, Q, reading=1.0, rtol=0.25, test="t").verdict == "differs"
    assert compare_claim_band("r", 1.1, Q, reading=1.0, rtol=0.05, close_rtol=0.2,
                              test="t").verdict == "close"


def test_a_value_row_quotes_the_words_that_print_it():
    c = compare("gap", None, (5.0, 10.0), rtol=0.0, samples=[6.9, 7.0, 7.1],
                quote=Quote("wolf-shashua-2005", "Sec. 6", "a sparsity gap around 5 – 10"))
    assert c.kind == "value" and c.verdict == "reproduced" and c.source == "Sec. 6"
    assert c.cells()[2] == "5–10 (Sec. 6)"
    assert c.cells()[4].startswith("Printed: “a sparsity gap around 5 – 10”.")
    with pytest.raises(ValueError, match="place"):
        compare("gap", 1.0, 1.0, source="Table 2", quote=Q)
    with pytest.raises(TypeError, match="Quote"):
        compare("gap", 1.0, 1.0, quote="a sparsity gap around 5 – 10")


def test_compare_claim_defaults_to_the_sign_test_and_keeps_legacy_text_claims():
    rng = np.random.default_rng(0)
    c = compare_claim("A − B", rng.normal(1.0, 0.3, 20), Q)
    assert (c.kind, c.verdict, c.quote) == ("claim", "reproduced", Q.text)
    assert c.test == "the 95 % interval of the difference lies above 0"
    legacy = compare_claim("A − B", 0.2, "> 0")
    assert legacy.published == "> 0" and legacy.quote == "" and legacy.kind == "claim"


def test_quote_declares_each_quote_once(monkeypatch):
    from spectral_kit.reproduce import _core

    monkeypatch.setattr(_core, "QUOTES", [])
    first = quote("wolf-bileschi-2005", "Abstract", "words")
    assert quote("wolf-bileschi-2005", "Abstract", "words") == first
    assert [first] == _core.QUOTES
    with pytest.raises(ValueError, match="paper"):
        quote("no-such-paper", "Sec. 1", "words")
    with pytest.raises(ValueError, match="text"):
        quote("wolf-bileschi-2005", "Sec. 1", "  ")
    assert [first] == _core.QUOTES


def test_rows_validate_their_kind_and_round_trip_through_json():
    with pytest.raises(ValueError, match="kind"):
        Comparison("x", 1.0, 1.0, "reproduced", kind="number")
    with pytest.raises(ValueError, match="test"):
        Comparison("x", 1.0, "words", "reproduced", kind="claim", quote="words")
    c = compare_claim_band("ratio", 1.1, Q, reading=1.0, rtol=0.25, test="t", n=3)
    assert Comparison.from_dict(c.to_dict()) == c
    old = {k: v for k, v in c.to_dict().items() if k not in ("kind", "quote", "test")}
    assert Comparison.from_dict({**old, "published": 1.0}).kind == "value"


def _one_row_html(c: Comparison) -> str:
    from spectral_kit.reproduce import Reproduction

    return Reproduction("k", "wolf-bileschi-2005", "t", (c,))._repr_html_()
