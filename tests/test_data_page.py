"""The "your data" page headless: every kind of bad file gets its message in the page and
leaves the explorer already shown in place; good files and the menu reach the explorer."""

from __future__ import annotations

import numpy as np
import pytest

from spectral_kit.widgets.data_page import (
    DATASETS,
    NO_LABEL,
    DataFileError,
    DataPage,
    read_csv_table,
    split_label,
)


def _csv(n=30, p=4, label=True, seed=0) -> bytes:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    header = [f"f{j}" for j in range(p)] + (["species"] if label else [])
    rows = [",".join(header)]
    for i in range(n):
        cells = [f"{v:.5f}" for v in X[i]] + (["a" if i % 2 else "b"] if label else [])
        rows.append(",".join(cells))
    return ("\n".join(rows) + "\n").encode()


@pytest.fixture
def page():
    p = DataPage(n_candidates=4)
    yield p
    if p.explorer is not None:
        p.explorer.close()


def test_good_file_reaches_the_explorer_with_the_label_picked(page):
    assert page.load_bytes(_csv(), "iris.csv")
    assert page.label.value == "species"
    assert page.explore()
    assert page.explorer is not None and page.explorer.shape == (30, 4)
    assert page.explorer.feature_names == ["f0", "f1", "f2", "f3"]
    np.testing.assert_array_equal(np.unique(page.explorer.y), ["a", "b"])
    assert "30 samples × 4 features, 2 classes" in page.message.value
    assert not page.message_is_error


def test_parsed_values_equal_the_file():
    content = b"a;b;c\n1;2.5;x\n-3;4e-1;y\n5;6;x\n7;8;y\n"
    table = read_csv_table(content, "semi.csv")
    X, y, names, notes = split_label(table, "c")
    np.testing.assert_array_equal(X, [[1, 2.5], [-3, 0.4], [5, 6], [7, 8]])
    assert names == ["a", "b"] and list(y) == ["x", "y", "x", "y"] and notes == []


BAD_FILES = {
    "non-numeric columns": (b"name,city\nann,paris\nbob,rome\ncid,oslo\n", NO_LABEL,
                            "2 non-numeric: name, city"),
    "missing values": (b"a,b,c\n1,2,3\n4,,6\n7,8,NA\n1,1,1\n", NO_LABEL,
                       "2 missing value(s) (line 3 column b, line 4 column c)"),
    "one row": (b"a,b,c\n1,2,3\n", NO_LABEL, "1 data row(s)"),
    "one class": (b"a,b,label\n1,2,x\n3,4,x\n5,7,x\n", "label", "single class ('x')"),
    "class of one sample": (b"a,b,label\n1,2,x\n3,4,x\n5,7,y\n", "label", "single sample"),
    "label that is a measurement": (
        b"a,b,c\n" + b"".join(f"{i},{i * i % 7},{i * 0.5}\n".encode() for i in range(60)),
        "c", "looks like a measurement"),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_bad_file_says_why_in_the_page_and_keeps_the_explorer(page, kind):
    assert page.load_bytes(_csv(), "good.csv") and page.explore()
    shown = page.explorer
    content, label, words = BAD_FILES[kind]
    loaded = page.load_bytes(content, "bad.csv")
    if loaded:
        page.label.value = label
        assert not page.explore()
    assert page.message_is_error
    assert words in page.message.value.replace("&#x27;", "'")
    assert page.explorer is shown and page.output.children == (page.explorer_widget,)


@pytest.mark.parametrize(("content", "words"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a text file"),
    (b"just one field per line\nanother\n", "does not look like a CSV table"),
    (b"", "empty"),
    (b"a,b\n1,2,3\n4,5\n", "do not have 2 fields"),
    (b"a,a\n1,2\n", "unique"),
])
def test_non_csv_files_are_named(content, words):
    with pytest.raises(DataFileError, match=words):
        read_csv_table(content, "x.bin")


def test_a_200_mb_file_is_refused_by_its_size_before_parsing(page):
    big = b"a,b\n" + b"1,2\n" * (200 * 1024**2 // 4)
    assert len(big) > 200 * 1024**2
    assert not page.load_bytes(big, "huge.csv")
    assert page.message_is_error and "200 MB" in page.message.value
    assert "up to 20 MB" in page.message.value


def test_menu_lists_the_kit_and_sklearn_data_sets_and_loads_wine(page):
    assert len(DATASETS) == 6
    assert any("Sonar" in k for k in DATASETS) and any("breast" in k for k in DATASETS)
    wine = next(k for k in DATASETS if k.startswith("wine"))
    assert page.choose(wine)
    from sklearn.datasets import load_wine

    np.testing.assert_array_equal(page.explorer.X, load_wine().data)
    assert "3 classes" in page.message.value


def test_menu_real_data(page, real_data):
    real_data("sonar")
    assert page.choose(next(k for k in DATASETS if k.startswith("Sonar")))
    assert page.explorer.shape == (208, 60)
