"""Small tables that render as HTML in a notebook and as aligned text elsewhere.

A comparison printed as text wraps mid-number in a narrow window; an HTML table wraps inside
its cells. :func:`table` formats numbers once, so the HTML and the text show the same digits.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["Table", "table"]


def _format(value: Any, digits: int) -> str:
    if value is None:
        return "—"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            return str(float(value))
        return f"{float(value):.{digits}f}"
    return str(value)


class Table:
    """Rows under a header, with an optional caption; see :func:`table`.

    Shown as HTML by a notebook (``_repr_html_``) and as aligned text by ``print``.

    Parameters
    ----------
    header : sequence of str
        The column names.
    rows : sequence of sequences of str
        The cells, already formatted (:func:`table` formats numbers).
    caption : str
        A line above the table.

    Examples
    --------
    >>> from spectral_kit.tables import Table
    >>> t = Table(["data set", "n"], [["sonar", "60"], ["ionosphere", "34"]], "features")
    >>> print(t)
    features
      data set   n
         sonar  60
    ionosphere  34
    >>> t._repr_html_().startswith("<table class='spectral-kit-table'><caption>features<")
    True
    """

    def __init__(self, header: Sequence[str], rows: Sequence[Sequence[str]], caption: str = ""):
        self.header = [str(h) for h in header]
        self.rows = [list(r) for r in rows]
        self.caption = caption

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.header)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>"
            for row in self.rows
        )
        caption = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        return (f"<table class='spectral-kit-table'>{caption}<thead><tr>{head}</tr></thead>"
                f"<tbody>{body}</tbody></table>")

    def __str__(self) -> str:
        lines = [self.header, *self.rows]
        widths = [max(len(line[i]) for line in lines) for i in range(len(self.header))]
        out = [self.caption] if self.caption else []
        out += ["  ".join(v.rjust(w) for v, w in zip(line, widths)) for line in lines]
        return "\n".join(out)

    __repr__ = __str__


def table(rows: Sequence[Sequence[Any]], header: Sequence[str], *, caption: str = "",
          digits: int | Sequence[int] = 3) -> Table:
    """A table for ``display``: every float with ``digits`` decimals, None as "—".

    Parameters
    ----------
    rows : sequence of sequences
        One sequence of values per row, as many as ``header`` has names.
    header : sequence of str
        The column names.
    caption : str
        A line above the table.
    digits : int or sequence of int
        Decimals of floats, for all columns or one number per column.

    Returns
    -------
    Table
        Shown as HTML in a notebook, as aligned text by ``print``; booleans read "yes" or
        "no".

    Examples
    --------
    >>> from spectral_kit.tables import table
    >>> print(table([["Q-α", 0.0412, True], ["PCA", 0.31, False], ["SVM", None, True]],
    ...             ["method", "error", "sparse"], digits=[0, 2, 0]))
    method  error  sparse
       Q-α   0.04     yes
       PCA   0.31      no
       SVM      —     yes
    """
    header = list(header)
    if not header:
        raise ValueError("header must name at least one column.")
    per_column = [digits] * len(header) if isinstance(digits, (int, np.integer)) else list(digits)
    if len(per_column) != len(header):
        raise ValueError(f"digits has {len(per_column)} entries; the header has {len(header)}.")
    formatted = []
    for i, row in enumerate(rows):
        row = list(row)
        if len(row) != len(header):
            raise ValueError(f"rows[{i}] has {len(row)} values; the header has {len(header)}.")
        formatted.append([_format(v, d) for v, d in zip(row, per_column)])
    return Table(header, formatted, caption)
