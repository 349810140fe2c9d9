"""Tables for notebooks: the same digits in HTML and in text, escaped cells, clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from spectral_kit.tables import table


def test_html_and_text_show_the_same_formatted_values():
    t = table([[5, 0.96534, None, True], [np.int64(10), np.float64(1.0), "a|b", False]],
              ["n", "P", "note", "ok"], caption="Fig. 2a", digits=[0, 3, 0, 0])
    html = t._repr_html_()
    for cell in ("<td>0.965</td>", "<td>1.000</td>", "<td>—</td>", "<td>yes</td>", "<td>no</td>",
                 "<td>10</td>", "<caption>Fig. 2a</caption>", "<td>a|b</td>"):
        assert cell in html
    lines = str(t).splitlines()
    assert lines[0] == "Fig. 2a"
    assert lines[2].split() == ["5", "0.965", "—", "yes"]
    assert repr(t) == str(t)


def test_cells_are_escaped():
    html = table([["<b>x</b> & y"]], ["<q>"])._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt; &amp; y" in html and "&lt;q&gt;" in html
    assert "<b>" not in html


def test_non_finite_values_are_shown_not_hidden():
    assert "nan" in str(table([[float("nan")]], ["x"]))


def test_bad_shapes_name_the_argument():
    with pytest.raises(ValueError, match=r"rows\[1\] has 1 values; the header has 2"):
        table([[1, 2], [3]], ["a", "b"])
    with pytest.raises(ValueError, match="digits has 1 entries"):
        table([[1, 2]], ["a", "b"], digits=[1])
    with pytest.raises(ValueError, match="header must name"):
        table([], [])
