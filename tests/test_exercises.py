"""The notebooks' exercises: every answer gets a verdict, and never an exception.

Each registered exercise is fed its right answer (and the same value in other forms), a
rounded one, and wrong ones of several kinds: a wrong value, text, a list of the wrong
length, NaN, a dict, a generator, no answer at all. The expected values are compared with
independent computations (the library's own function where the registry uses a closed form,
and the other way round).
"""

from __future__ import annotations

import json
import math
import re
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from spectral_kit.exercises import REGISTRY, check, hint, solutions, verdict

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
IDS = list(REGISTRY)


def _significant(x: float, digits: int) -> float:
    return float(f"{x:.{digits}g}")


def _wrong_value(ex):
    expected = ex.expected()
    if ex.kind == "indices":
        return [i + 1 for i in expected] if max(expected) < 50 else [0, 1, 2][: len(expected)]
    if ex.kind == "grid":
        grid = list(ex.params["grid"])
        return grid[0] if not math.isclose(grid[0], expected) else grid[-1]
    return 1.5 * expected + 1.0


def _rounded(ex):
    expected = ex.expected()
    if ex.kind == "indices":
        return [float(i) for i in reversed(expected)]
    rounded = _significant(float(expected), 2)
    if ex.kind != "grid" and abs(rounded - expected) <= ex.atol + ex.rtol * abs(expected):
        rounded = _significant(float(expected), 1)     # 0.072 is 0.072 to two digits: try one
    return rounded


def _right_forms(ex):
    expected = ex.expected()
    if ex.kind == "indices":
        return [expected, tuple(reversed(expected)), np.array(expected), set(expected)]
    return [expected, np.float64(expected), np.array(expected), float(expected)]


@pytest.mark.parametrize("exercise_id", IDS)
def test_the_right_answer_in_any_form_is_correct(exercise_id):
    ex = REGISTRY[exercise_id]
    for answer in _right_forms(ex):
        result = verdict(exercise_id, answer)
        assert result.correct, (answer, result.message)


@pytest.mark.parametrize("exercise_id", IDS)
def test_a_rounded_answer_is_close_or_correct(exercise_id):
    ex = REGISTRY[exercise_id]
    rounded = _rounded(ex)
    result = verdict(exercise_id, rounded)
    if ex.kind == "indices":
        assert result.correct, result.message          # 7.0 is index 7; the order is free
        return
    expected = float(ex.expected())
    if abs(rounded - expected) <= ex.atol + ex.rtol * abs(expected):
        assert result.correct, result.message          # rounding changed nothing
    else:
        assert result.status == "close", result.message
        assert "exact integer" in result.message if ex.kind == "integer" else \
            "check your rounding" in result.message


WRONG_KINDS = {
    "wrong value": ("wrong", None),
    "text": ("invalid", None),
    "list of 2": ("invalid", None),
    "NaN": ("invalid", "NaN is not an answer"),
    "dict": ("invalid", "dict"),
    "generator": ("invalid", "generator"),
    "nothing (...)": ("unanswered", "Not answered yet"),
}


def _wrong_answer(ex, kind):
    return {
        "wrong value": lambda: _wrong_value(ex),
        "text": lambda: "0.07",
        "list of 2": lambda: [1, 2],
        "NaN": lambda: float("nan"),
        "dict": lambda: {"answer": 1},
        "generator": lambda: (i for i in range(3)),
        "nothing (...)": lambda: ...,
    }[kind]()


@pytest.mark.parametrize("kind", list(WRONG_KINDS))
@pytest.mark.parametrize("exercise_id", IDS)
def test_wrong_answers_get_a_reason_not_a_traceback(exercise_id, kind, capsys):
    ex = REGISTRY[exercise_id]
    answer = _wrong_answer(ex, kind)
    status, phrase = WRONG_KINDS[kind]
    result = verdict(exercise_id, answer)
    if kind == "NaN" and ex.kind == "indices":
        phrase = "NaN"                                    # "expected a list of indices, ..."
    if kind == "list of 2" and ex.kind == "indices":
        assert result.status == "invalid"
        assert f"expected {len(ex.expected())} indices, got 2" in result.message
    else:
        assert result.status == status, result.message
    if phrase:
        assert phrase in result.message
    if kind == "list of 2" and ex.kind != "indices":
        kind_word = "integer" if ex.kind == "integer" else "number"
        assert f"expected one {kind_word}, got a list of 2" in result.message
    if kind == "text" and ex.kind != "indices":
        assert "remove the quotes" in result.message
    check(exercise_id, _wrong_answer(ex, kind))           # prints, never raises
    assert capsys.readouterr().out.strip() == result.message


ODD_ANSWERS = [True, 1 + 2j, np.zeros((2, 2)), np.array([0.5]), object(), [[1, 2]], "",
               float("inf"), [1.5, 2.5, 3.5], [3, 3, 4], np.array([True, False]), {1, 2, 3},
               range(3), b"1", type, print]


@pytest.mark.parametrize("exercise_id", IDS)
def test_check_never_raises_on_odd_inputs(exercise_id, capsys):
    for answer in ODD_ANSWERS:
        result = verdict(exercise_id, answer)
        assert result.status in ("invalid", "wrong"), (answer, result.message)
        check(exercise_id, answer)
    assert "Traceback" not in capsys.readouterr().out


def test_messages_say_what_is_wrong():
    assert "expected an integer, got 2.5" in verdict("03.2", 2.5).message
    assert "expected one number, got an array of shape (1,)" in verdict("01.1", np.array([0.07])).message
    assert "answer[0]" in verdict("01.1", [0.072]).message
    assert "wrong sign" in verdict("03.4", -REGISTRY["03.4"].expected()).message
    assert "factor of 10^1" in verdict("01.1", 0.72).message
    assert "boolean mask" in verdict("02.4", np.array([True, False])).message
    assert "appears more than once" in verdict("03.3", [7, 7, 9]).message
    assert "2 of your 3 indices are right" in verdict("03.3", [6, 8, 9]).message
    assert "grid" in verdict("02.2", 0.5).message                 # not a value of the grid
    assert "There is no exercise '09.1'" in verdict("09.1", 1.0).message
    assert verdict("01.1", 0.0719).status == "close"              # within 5 %
    assert verdict("01.1", 0.05).status == "wrong"


def test_hints_come_one_step_at_a_time(capsys):
    n = len(REGISTRY["01.3"].hints)
    hint("01.3", step=1)
    first = capsys.readouterr().out
    assert f"Hint 1 of {n}" in first and f"Hint 2 of {n}" not in first
    hint("01.3")
    second = capsys.readouterr().out
    assert f"Hint 2 of {n}" in second and f"Hint 1 of {n}" in second
    for _ in range(n + 2):
        hint("01.3")
    assert "last hint" in capsys.readouterr().out
    hint("99.9")
    assert "no exercise" in capsys.readouterr().out


def test_solutions_on_purpose(monkeypatch, capsys):
    text = str(solutions("03"))
    assert [f"Exercise 03.{i}" in text for i in range(1, 5)] == [True] * 4
    assert "137846528820" in text                                    # C(40, 20), computed
    assert "Exercise 03.2" in str(solutions("03.2")) and "03.1" not in str(solutions("03.2"))
    assert "**Exercise 01.1" in solutions("01")._repr_markdown_()
    check("01.1", 0.5)
    assert "Answer:" not in capsys.readouterr().out                  # no solution by default
    monkeypatch.setenv("SPECTRAL_KIT_SOLUTIONS", "1")
    check("01.1", 0.5)
    assert "Answer: 0.072" in capsys.readouterr().out


def test_numeric_ids_name_the_same_exercise(capsys):
    # a student types the id without quotes, or without the leading zero
    for given in (1.1, "1.1", " 01.1 ", np.float64(1.1)):
        assert verdict(given, 0.072).correct, given
        check(given, 0.072)
        assert capsys.readouterr().out.strip() == "Correct.", given
    assert verdict(3.2, math.comb(40, 20)).correct
    assert "Exercise 03.2" in str(solutions(3.2)) and "03.1" not in str(solutions(3.2))
    assert [f"Exercise 03.{i}" in str(solutions(3)) for i in range(1, 5)] == [True] * 4
    assert "Exercise 01.3" in str(solutions("1"))
    hint(1.3, step=1)
    assert "Hint 1 of" in capsys.readouterr().out


ODD_IDS = [None, "07", "07.1", "x", "", 7, 99.9, -1, float("nan"), float("inf"), True, [1],
           {"id": 1}, object(), b"01.1", 1e300, np.array([1.1]), type, print]


# ids by position: repr(object()) holds an address, which differs between test processes
@pytest.mark.parametrize("given", ODD_IDS, ids=[f"{i}-{type(v).__name__}" for i, v in
                                                enumerate(ODD_IDS)])
def test_check_hint_and_solutions_never_raise_on_any_id(given, capsys):
    check(given, 0.5)
    check(given)
    hint(given)
    hint("01.1", step=given)
    result = solutions(given)
    out = capsys.readouterr().out
    assert "Traceback" not in out
    if result is None:
        assert "solutions needs a notebook" in out and "01.1" in out


def test_no_arguments_say_how_to_call(capsys):
    check()
    hint()
    assert solutions() is None
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("check needs the exercise and your answer")
    assert out[1].startswith("hint needs the exercise")
    assert out[2].startswith("solutions needs a notebook")


def test_solutions_render_as_markdown_with_maths_in_a_notebook(monkeypatch):
    """With SPECTRAL_KIT_SOLUTIONS=1 a check in a kernel displays the solution as Markdown
    (typeset maths, code blocks), not as printed text with raw LaTeX."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shown = []
    monkeypatch.setattr(shell, "display_pub", type("Pub", (), {
        "publish": lambda self, data, metadata=None, **kw: shown.append(data),
        "is_publishing": False})())
    monkeypatch.setenv("SPECTRAL_KIT_SOLUTIONS", "1")
    try:
        check("01.3", 1.0)
    finally:
        InteractiveShell.clear_instance()
    assert len(shown) == 1 and "text/markdown" in shown[0]
    markdown = shown[0]["text/markdown"]
    assert markdown.startswith("**Exercise 01.3")
    assert REGISTRY["01.3"].solution in markdown


def test_a_mistyped_exercise_number_is_named(capsys):
    check("01.9", 0.5)
    check("9.1", 0.5)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("There is no exercise '01.9'") and "01.3" in out[0]
    assert out[1].startswith("There is no exercise '9.1'")


def test_the_old_form_with_an_explicit_expected_value(capsys):
    check(0.5, 0.5)
    check([8, 9], 0.5)
    check("x", np.array([1, 2]))
    check(0.07, 0.072, hint="k/q·(aᵀb)²")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Correct."
    assert "expected one number, got a list of 2" in out[1]
    assert "expected a list of indices" in out[2]
    assert "check your rounding" in out[3] and "Hint: k/q" in out[3]


def test_expected_values_agree_with_independent_computations():
    """Registry values against the library (or the closed form against the library)."""
    from spectral_kit.datasets import make_wolf_bileschi_fig1
    from spectral_kit.reproduce.stability import EXAMPLE1_DOCUMENTS
    from spectral_kit.sparse_lda import eslda, fbm_covariance
    from spectral_kit.stability import lemma1_distance_bound, lemma1_stable_ks, similarity_matrix
    from spectral_kit.weighting import parameter_free_weights

    assert REGISTRY["01.1"].expected() == pytest.approx(4 / 20 * 0.6**2)
    assert REGISTRY["03.2"].expected() == math.comb(40, 20)
    lam = [4.4, 4.0, 0.4, 0.3]
    assert REGISTRY["05.2"].expected() == pytest.approx(
        lemma1_distance_bound(lam, 0.75, lemma1_stable_ks(lam, 0.75)[0]), rel=1e-12)
    X1 = np.asarray(EXAMPLE1_DOCUMENTS, dtype=float)
    assert REGISTRY["05.1"].expected() == pytest.approx(
        similarity_matrix(X1[[1, 2, 2, 3, 4]], "cosine")[0, 1], rel=1e-12)
    assert REGISTRY["05.1"].expected() == pytest.approx(30 / np.sqrt(46 * 27), rel=1e-12)
    K = fbm_covariance(10, 0.5)
    assert REGISTRY["03.3"].expected() == sorted(eslda(K, np.eye(10), 3).support.tolist())
    data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)
    assert REGISTRY["04.2"].expected() == pytest.approx(
        parameter_free_weights(data.M).eigenvalue, rel=1e-8)
    assert REGISTRY["04.1"].expected() == pytest.approx(100 * 1.5**2)
    assert len(list(combinations(range(10), 3))) == 120          # the brute force's size


def _notebook_sources():
    for path in sorted(NOTEBOOKS.rglob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        yield path, ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def test_every_exercise_is_checked_in_its_notebook_and_nowhere_else():
    used = {}
    for path, sources in _notebook_sources():
        for source in sources:
            for exercise_id in re.findall(r"check\(\"(\d\d\.\d+)\"", source):
                used.setdefault(exercise_id, []).append(path.name)
    assert sorted(used) == sorted(REGISTRY)
    for exercise_id, names in used.items():
        assert names == [n for n in names if n.startswith(exercise_id[:2])], names
        assert len(names) == 1, (exercise_id, names)


def _notebook_texts(path: Path) -> str:
    """Everything a reader of a notebook sees: sources (Markdown and code) and text outputs."""
    texts = []
    for cell in json.loads(path.read_text())["cells"]:
        texts.append("".join(cell["source"]))
        for output in cell.get("outputs", []):
            texts.append("".join(output.get("text", "")))
            for mime, value in output.get("data", {}).items():
                if mime.startswith("text/"):
                    texts.append("".join(value) if isinstance(value, list) else value)
    return "\n".join(texts)


def _printed_forms(ex, digits: tuple[int, ...]) -> set[str]:
    """How a notebook would print the expected value: 3 to 6 significant digits (trailing
    zeros kept, so 3.10 is not 3.1), and an integer as it is."""
    value = ex.expected()
    if ex.kind == "integer":
        return {str(value), f"{value:,}"}
    forms = {f"{float(value):#.{d}g}".rstrip(".") for d in digits}
    return {f for f in forms if "e" not in f}


def test_no_expected_answer_is_printed_in_any_notebook():
    """No notebook (student track or appendix, sources or stored outputs) shows the answer of
    an exercise: with 4 to 6 significant digits anywhere, and with 3 in the exercise's own
    notebook and its appendix, where a three-digit coincidence would be a leak, not chance.
    Grid and index answers are values the exercise's text names, so they cannot be hidden."""
    leaks = []
    paths = sorted(NOTEBOOKS.rglob("*.ipynb"))
    assert len(paths) >= 8
    for path in paths:
        text = _notebook_texts(path)
        for exercise_id, ex in REGISTRY.items():
            if ex.kind in ("grid", "indices"):
                continue
            own = path.name.startswith(ex.notebook + "_")
            for form in _printed_forms(ex, (3, 4, 5, 6) if own else (4, 5, 6)):
                for match in re.finditer(rf"(?<![\d.]){re.escape(form)}(?!\d)", text):
                    context = text[max(0, match.start() - 50): match.end() + 20]
                    leaks.append(f"{path.relative_to(NOTEBOOKS)}: {exercise_id} = {form} in "
                                 f"{context!r}")
    assert not leaks, "\n".join(leaks)


def test_the_scan_finds_a_printed_answer():
    # the scan above would pass on an empty list of notebooks or forms: feed it a leak
    ex = REGISTRY["05.2"]
    forms = _printed_forms(ex, (3, 4))
    assert forms == {"0.714", "0.7143"}
    assert _printed_forms(REGISTRY["03.2"], (3,)) == {"137846528820", "137,846,528,820"}
    assert any(re.search(rf"(?<![\d.]){re.escape(f)}(?!\d)", "bound = 0.714 here")
               for f in forms)
    assert not any(re.search(rf"(?<![\d.]){re.escape(f)}(?!\d)", "3.7146 and 10.714")
                   for f in forms)
