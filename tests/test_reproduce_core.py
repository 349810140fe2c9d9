"""The verdict rules of spectral_kit.reproduce: intervals, bands, claims, tables, stored results."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from spectral_kit.reproduce import (
    REGISTRY,
    VERDICT_RULES,
    VERDICTS,
    Comparison,
    Reproduction,
    compare,
    compare_claim,
    load_reference,
    mean_ci,
    median_ci,
    proportion_ci,
    show,
    verdict_counts,
)
from spectral_kit.reproduce import reference as ref
from spectral_kit.reproduce._core import reproduction

README = Path(__file__).resolve().parent.parent / "README.md"


# -- intervals against SciPy ------------------------------------------------------------------
def test_mean_ci_is_scipys_t_interval():
    x = np.random.default_rng(0).normal(3.0, 2.0, size=17)
    lo, hi = mean_ci(x)
    want = stats.t.interval(0.95, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert (lo, hi) == pytest.approx(want)
    assert mean_ci([1.0]) == (-np.inf, np.inf)


def test_proportion_ci_is_wilson():
    lo, hi = proportion_ci(30, 30)
    res = stats.binomtest(30, 30).proportion_ci(0.95, method="wilson")
    assert (lo, hi) == pytest.approx((res.low, res.high))
    lo, hi = proportion_ci(7, 20)
    res = stats.binomtest(7, 20).proportion_ci(0.95, method="wilson")
    assert (lo, hi) == pytest.approx((res.low, res.high))


def test_median_ci_covers_the_median_at_95_percent():
    rng = np.random.default_rng(1)
    covered = 0
    for _ in range(400):
        lo, hi = median_ci(rng.exponential(size=20))
        covered += lo <= np.log(2) <= hi
    assert 0.93 <= covered / 400 <= 0.995
    assert median_ci([1, 2, 3]) == (-np.inf, np.inf)


# -- compare: every verdict is reachable, in both directions ----------------------------------
def test_point_values_fall_in_their_bands():
    assert compare("x", 10.4, 10.0, rtol=0.05).verdict == "reproduced"
    assert compare("x", 11.0, 10.0, rtol=0.05).verdict == "close"
    assert compare("x", 20.0, 10.0, rtol=0.05).verdict == "differs"
    assert compare("x", 2.0, 10.0, rtol=0.05).verdict == "differs"
    assert compare("x", 1.0, None).verdict == "not published"


def test_interval_decides_reproduced_inconclusive_and_differs():
    tight = np.full(50, 10.0) + np.random.default_rng(0).normal(0, 0.01, 50)
    assert compare("x", None, 10.0, rtol=0.05, samples=tight).verdict == "reproduced"
    wide = np.array([5.0, 15.0, 9.0, 11.0])  # mean 10 but the interval leaves the bands
    c = compare("x", None, 10.0, rtol=0.05, samples=wide)
    assert c.verdict == "inconclusive" and c.ours == pytest.approx(10.0) and c.n == 4
    far = np.array([30.0, 31.0, 29.0, 30.5])
    assert compare("x", None, 10.0, rtol=0.05, samples=far).verdict == "differs"


def test_a_printed_range_has_two_sides():
    # "around 5–10": 37.4 is far above the range, not "at least 5".
    assert compare("gap", 37.4, (5.0, 10.0), rtol=0.0, close_rtol=0.5).verdict == "differs"
    assert compare("gap", 7.0, (5.0, 10.0), rtol=0.0).verdict == "reproduced"
    assert compare("gap", 12.0, (5.0, 10.0), rtol=0.0, close_rtol=0.5).verdict == "close"
    assert compare("gap", 3.0, (5.0, 10.0), rtol=0.0, close_rtol=0.1).verdict == "differs"


def test_bounds_have_one_side():
    assert compare("r", 0.95, 0.90, at_least=True, rtol=0).verdict == "reproduced"
    assert compare("r", 0.88, 0.90, at_least=True, rtol=0, close_rtol=0.05).verdict == "close"
    assert compare("r", 0.70, 0.90, at_least=True, rtol=0, close_rtol=0.05).verdict == "differs"
    assert compare("r", 0.1, 0.0, at_most=True, rtol=0, close_rtol=0).verdict == "differs"
    c = compare("r", 0.95, 0.90, at_least=True, rtol=0, ci=(0.85, 1.0))
    assert c.verdict == "inconclusive"


def test_claims_need_the_difference_beyond_its_standard_error():
    rng = np.random.default_rng(2)
    clear = rng.normal(1.0, 0.5, size=30)
    noisy = np.array([1.0, -0.8, 0.5, -0.4, 0.0])
    assert compare_claim("A − B", clear, "> 0").verdict == "reproduced"
    assert compare_claim("A − B", -clear, "> 0").verdict == "differs"
    assert compare_claim("A − B", noisy, "> 0").verdict == "inconclusive"
    assert compare_claim("A − B", -clear, "< 0", side="less").verdict == "reproduced"
    # A deterministic number decides on its own.
    assert compare_claim("A − B", 0.2, "> 0").verdict == "reproduced"
    assert compare_claim("A − B", -0.2, "> 0").verdict == "differs"
    with pytest.raises(ValueError, match="side"):
        compare_claim("A − B", 0.2, "> 0", side="up")


def test_unknown_verdict_is_refused():
    with pytest.raises(ValueError, match="verdict"):
        Comparison("x", 1.0, 1.0, "fine")


def test_verdict_rules_name_every_verdict():
    for verdict in VERDICTS:
        assert f"**{verdict}**" in VERDICT_RULES


# -- quick mode marks its verdicts provisional --------------------------------------------------
def test_quick_mode_keeps_only_final_verdicts():
    key = "test/quick-provisional"

    @reproduction(key, "wolf-shashua-2005", "a test reproduction")
    def fake(*, quick=False, random_state=0):
        return [
            compare("drawn", 1.0, 1.0),
            compare("exact", 1.0, 1.0, final_in_quick=True),
            compare("unpublished", 1.0, None),
        ], {}, {}

    try:
        quick = fake(quick=True)
        full = fake(quick=False)
    finally:
        del REGISTRY[key]
    assert [c.verdict for c in quick.comparisons] == [
        "provisional (quick)", "reproduced", "not published"]
    assert quick.comparisons[0].leaning == "reproduced"
    assert "provisional (quick), leans reproduced" in quick.to_markdown()
    assert "full run" in quick.to_markdown()
    assert [c.verdict for c in full.comparisons] == ["reproduced", "reproduced", "not published"]


# -- tables ------------------------------------------------------------------------------------
def _table() -> Reproduction:
    return Reproduction(
        key="k", paper="wolf-shashua-2005", title="T",
        comparisons=(
            compare("a | b", None, 2.0, samples=[1.95, 2.0, 2.05, 2.0, 1.98, 2.02],
                    source="Table 1",
                    note="line one\nline | two"),
            compare("c", 1.0, None),
        ),
    )


def test_markdown_cells_are_escaped():
    md = _table().to_markdown()
    rows = [line for line in md.splitlines() if line.startswith("| a")]
    assert len(rows) == 1
    # Five cells: the escaped pipes do not split the row.
    assert len(re.split(r"(?<!\\)\|", rows[0])) == 7
    assert "a \\| b" in rows[0] and "line one<br>line \\| two" in rows[0]
    assert "2 (Table 1)" in rows[0] and "[" in rows[0]


def test_html_has_badges_and_unwrapped_numbers():
    html = _table()._repr_html_()
    assert html.count("<tr>") == 3
    assert "white-space:nowrap" in html and "white-space:normal" in html
    assert "background:#009E73" in html  # the "reproduced" badge
    assert "a | b" in html and "line one\nline | two" in html
    assert "<script" not in _table()._repr_html_()


def test_verdict_counts_cover_every_verdict():
    counts = verdict_counts([_table()])
    assert list(counts) == list(VERDICTS)
    assert counts["reproduced"] == 1 and counts["not published"] == 1
    assert sum(counts.values()) == 2
    assert verdict_counts(_table().comparisons) == counts


# -- stored results ----------------------------------------------------------------------------
def test_store_and_load_round_trip(tmp_path, monkeypatch):
    monkeypatch.setattr(ref, "DIRECTORY", tmp_path)
    original = Reproduction(
        key="wolf-shashua-2005/fig3b", paper="wolf-shashua-2005", title="Fig. 3b",
        comparisons=(compare("gap", None, (5.0, 10.0), rtol=0.0, samples=[6.0, 7.0, 8.0],
                             source="Sec. 6"),
                     compare("n", np.int64(3), 3, rtol=0.0)),
        seconds=12.5, settings={"quick": False, "seeds": (1, 2), "x": np.float64(0.5)},
    )
    ref.store(original)
    back = load_reference("wolf-shashua-2005/fig3b")
    assert back.comparisons == original.comparisons
    assert back.stored.startswith("stored full-mode result of")
    assert back.settings["seeds"] == [1, 2] and back.settings["x"] == 0.5
    assert show("wolf-shashua-2005/fig3b").comparisons == original.comparisons
    with pytest.raises(ValueError, match="full-mode"):
        ref.store(Reproduction("k", "wolf-shashua-2005", "t", (), settings={"quick": True}))


def test_an_interrupted_store_keeps_the_stored_result(tmp_path, monkeypatch):
    """The stored results are tracked files the appendices read: an interrupt while one is
    rewritten must leave the old one whole (and no temporary file behind)."""
    from spectral_kit.reproduce import _files

    monkeypatch.setattr(ref, "DIRECTORY", tmp_path)
    result = Reproduction(key="wolf-shashua-2005/fig3b", paper="wolf-shashua-2005",
                          title="Fig. 3b", comparisons=(compare("n", 3, 3, rtol=0.0),),
                          settings={"quick": False})
    path = ref.store(result)
    before = path.read_bytes()

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(_files.os, "replace", interrupted)
    changed = Reproduction(key=result.key, paper=result.paper, title="changed",
                           comparisons=(compare("n", 4, 4, rtol=0.0),),
                           settings={"quick": False})
    with pytest.raises(KeyboardInterrupt):
        ref.store(changed)
    readme = tmp_path / "README.md"
    readme.write_text(f"{ref.README_BEGIN}\nold\n{ref.README_END}\n")
    with pytest.raises(KeyboardInterrupt):
        ref.update_readme(readme, "new")
    assert path.read_bytes() == before
    assert readme.read_text() == f"{ref.README_BEGIN}\nold\n{ref.README_END}\n"
    assert sorted(f.name for f in tmp_path.iterdir()) == sorted([path.name, "README.md"])


def test_a_missing_reference_says_how_to_store_it(tmp_path, monkeypatch):
    monkeypatch.setattr(ref, "DIRECTORY", tmp_path)
    with pytest.raises(KeyError, match=re.escape("python -m spectral_kit.reproduce.reference")):
        load_reference("wolf-shashua-2005/nothing")


def test_readme_line_is_generated_from_the_stored_results():
    text = README.read_text(encoding="utf-8")
    block = re.search(re.escape(ref.README_BEGIN) + r"\n(.*?)\n" + re.escape(ref.README_END),
                      text, re.S)
    assert block, "README lost its verdict-count markers"
    assert block.group(1) == ref.readme_counts(), (
        "README's verdict counts are stale: run "
        "`python -m spectral_kit.reproduce.reference --readme-only`"
    )


def test_update_readme_rewrites_only_between_markers(tmp_path):
    path = tmp_path / "README.md"
    path.write_text(f"before\n{ref.README_BEGIN}\nold\n{ref.README_END}\nafter\n")
    assert ref.update_readme(path, "new line")
    assert path.read_text() == f"before\n{ref.README_BEGIN}\nnew line\n{ref.README_END}\nafter\n"
    assert not ref.update_readme(path, "new line")
    (tmp_path / "bare.md").write_text("no markers")
    with pytest.raises(ValueError, match="markers"):
        ref.update_readme(tmp_path / "bare.md", "x")
