"""The "your data" page: a CSV upload or one of the kit's data sets → :func:`explore`.

:func:`read_csv_table` and :func:`split_label` turn an uploaded file into X, y and feature
names, or raise a :class:`DataFileError` whose message is written for the page (what is
wrong, where, and what to do). :class:`DataPage` is the page itself (the Voilà notebook
``notebooks/your_data.ipynb`` displays one): a file upload with its size limit stated, a label
column picker, a menu of data sets, and the explorer below; a bad file only changes the message
line, the kernel and the explorer already shown stay.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import Any

import ipywidgets as widgets
import numpy as np

__all__ = ["DATASETS", "MAX_UPLOAD_BYTES", "DataFileError", "DataPage", "Table",
           "load_menu_dataset", "read_csv_table", "split_label"]

#: Largest CSV the page accepts (the explorer screens wide data, but a page upload travels
#: through the browser and the kernel's messages in one piece).
MAX_UPLOAD_BYTES = 20 * 1024**2

#: Cells read as missing values.
MISSING = {"", "na", "n/a", "nan", "null", "none", "?", "-"}

#: Label column names recognised by default (case-insensitive).
LABEL_NAMES = ("class", "label", "target", "y", "diagnosis", "outcome", "species")

NO_LABEL = "(none)"


class DataFileError(ValueError):
    """A file the page cannot explore; the message says why and what to do."""


@dataclass(frozen=True)
class Table:
    """A parsed CSV: the header and the cells as strings, column by column.

    Attributes
    ----------
    columns : tuple of str
    cells : list of list of str
        ``cells[j]`` holds column j's values, one per data row.
    numeric : tuple of bool
        Whether every present cell of column j is a number.
    """

    columns: tuple[str, ...]
    cells: list[list[str]]
    numeric: tuple[bool, ...]

    @property
    def n_rows(self) -> int:
        return len(self.cells[0]) if self.cells else 0

    def default_label(self) -> str:
        """A column named like a label, else the last non-numeric column, else none."""
        for name in self.columns:
            if name.strip().lower() in LABEL_NAMES:
                return name
        text = [c for c, num in zip(self.columns, self.numeric) if not num]
        return text[-1] if text else NO_LABEL


def _is_number(cell: str) -> bool:
    try:
        return math.isfinite(float(cell))
    except ValueError:
        return False


def _size(n: float) -> str:
    return f"{n / 1024**2:.0f} MB" if n >= 1024**2 else f"{n / 1024:.0f} KB"


def read_csv_table(content: bytes, name: str = "file.csv",
                   max_bytes: int = MAX_UPLOAD_BYTES) -> Table:
    """Parse an uploaded CSV (header row, comma/semicolon/tab separated).

    Raises
    ------
    DataFileError
        A file over ``max_bytes``, not text, not a table, without data rows, or with rows of
        different lengths.
    """
    if len(content) > max_bytes:
        raise DataFileError(
            f"{name} is {_size(len(content))}; this page takes CSV files up to "
            f"{_size(max_bytes)}. For larger data call spectral_kit.explore(X, y) in a "
            "notebook (it screens wide data to what stays interactive).")
    if b"\x00" in content[:4096]:
        raise DataFileError(f"{name} is not a text file (it holds binary data); upload a CSV "
                            "file: one header row, then one row per sample.")
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = content.decode("latin-1")
        except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes every byte
            raise DataFileError(f"{name} is not a text file; upload a CSV file.") from None
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise DataFileError(f"{name} is empty; upload a CSV with a header row and data rows.")
    try:
        dialect = csv.Sniffer().sniff(lines[0] + "\n" + "\n".join(lines[1:20]), ",;\t")
        delimiter = dialect.delimiter
    except csv.Error:
        delimiter = ","
    rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter))
    header = [h.strip() for h in rows[0]]
    if len(header) < 2:
        raise DataFileError(
            f"{name} does not look like a CSV table: its first line has {len(header)} field "
            "(expected a header row of column names separated by commas).")
    if len(set(header)) != len(header) or any(h == "" for h in header):
        raise DataFileError(f"{name}: the header row needs a unique, non-empty name for every "
                            "column.")
    body = rows[1:]
    if not body:
        raise DataFileError(f"{name} has a header but no data rows.")
    bad = [i + 2 for i, row in enumerate(body) if len(row) != len(header)]
    if bad:
        shown = ", ".join(map(str, bad[:5])) + (" …" if len(bad) > 5 else "")
        raise DataFileError(
            f"{name}: {len(bad)} row(s) do not have {len(header)} fields like the header "
            f"(line(s) {shown}); is it a CSV file, with the same separator on every line?")
    cells = [[row[j].strip() for row in body] for j in range(len(header))]
    numeric = tuple(all(_is_number(c) or c.lower() in MISSING for c in col)
                    and any(_is_number(c) for c in col) for col in cells)
    return Table(tuple(header), cells, numeric)


def split_label(table: Table, label: str = NO_LABEL) -> tuple[np.ndarray, np.ndarray | None,
                                                              list[str], list[str]]:
    """X (numeric columns except the label), y and the feature names; plus notes for the page.

    Non-numeric columns other than the label are left out (and named in a note).

    Raises
    ------
    DataFileError
        Missing values, fewer than 3 rows, fewer than 2 numeric feature columns, a label with
        one class or a class of one sample.
    """
    if label != NO_LABEL and label not in table.columns:
        raise DataFileError(f"label column {label!r} is not in the file; pick one of "
                            f"{', '.join(table.columns)}.")
    notes: list[str] = []
    features = [j for j, c in enumerate(table.columns) if c != label and table.numeric[j]]
    dropped = [c for j, c in enumerate(table.columns) if c != label and not table.numeric[j]]
    if dropped:
        shown = ", ".join(dropped[:6]) + (" …" if len(dropped) > 6 else "")
        notes.append(f"left out {len(dropped)} non-numeric column(s): {shown} (pick one as "
                     "the label column if it holds the classes)")
    if len(features) < 2:
        raise DataFileError(
            f"the file has {len(features)} numeric feature column(s)"
            + (f" ({len(dropped)} non-numeric: {', '.join(dropped[:6])})" if dropped else "")
            + "; the explorer needs at least 2 columns of numbers.")
    n = table.n_rows
    if n < 3:
        raise DataFileError(f"the file has {n} data row(s); the explorer needs at least 3 "
                            "samples (bootstrap intervals resample them).")
    missing = [(i + 2, table.columns[j]) for j in features
               for i, c in enumerate(table.cells[j]) if c.lower() in MISSING]
    if missing:
        shown = ", ".join(f"line {r} column {c}" for r, c in missing[:4])
        shown += " …" if len(missing) > 4 else ""
        raise DataFileError(
            f"the file has {len(missing)} missing value(s) ({shown}); "
            "remove those rows or impute the values before uploading.")
    X = np.array([[float(c) for c in table.cells[j]] for j in features]).T
    y = None
    if label != NO_LABEL:
        j = table.columns.index(label)
        raw = table.cells[j]
        if any(c.lower() in MISSING for c in raw):
            raise DataFileError(f"label column {label!r} has missing values; every sample "
                                "needs a class.")
        classes, counts = np.unique(raw, return_counts=True)
        if classes.size < 2:
            only = str(classes[0])
            raise DataFileError(f"label column {label!r} has a single class ({only!r}); "
                                f"pick another label column, or {NO_LABEL} to explore "
                                "without labels.")
        if classes.size > max(20, n // 2):
            raise DataFileError(f"label column {label!r} has {classes.size} different values "
                                f"in {n} rows: it looks like a measurement, not classes; pick "
                                f"another label column or {NO_LABEL}.")
        if counts.min() < 2:
            lonely = [str(c) for c in classes[counts < 2][:3]]
            raise DataFileError(f"label column {label!r} has class(es) {lonely} with a single "
                                "sample; sparse LDA needs 2 samples per class.")
        y = np.asarray(raw)
    return X, y, [table.columns[j] for j in features], notes


def _sklearn(name: str) -> Callable[[], tuple]:
    def load() -> tuple:
        from sklearn import datasets

        bunch = getattr(datasets, f"load_{name}")()
        return bunch.data, bunch.target, [str(s) for s in bunch.feature_names]

    return load


def _kit(name: str) -> Callable[[], tuple]:
    def load() -> tuple:
        from ..datasets import load_dataset

        data = load_dataset(name)
        return data.X, data.y, list(data.feature_names)

    return load


#: The menu: label → loader returning (X, y, feature names).
DATASETS: dict[str, Callable[[], tuple]] = {
    "Sonar (208 × 60)": _kit("sonar"),
    "Ionosphere (351 × 34)": _kit("ionosphere"),
    "colon cancer (62 × 2000)": _kit("colon"),
    "Spambase (4601 × 57)": _kit("spambase"),
    "wine, scikit-learn (178 × 13)": _sklearn("wine"),
    "breast cancer, scikit-learn (569 × 30)": _sklearn("breast_cancer"),
}


def load_menu_dataset(label: str) -> tuple:
    """(X, y, feature names) of a menu entry."""
    if label not in DATASETS:
        raise ValueError(f"label must be one of {', '.join(DATASETS)}; got {label!r}.")
    return DATASETS[label]()


class DataPage:
    """The page: upload or menu → message line → :class:`DataExplorer`.

    Attributes
    ----------
    upload, label, menu, explore_button, message : ipywidgets widgets
    explorer : DataExplorer or None
        The explorer shown (kept when a later file is rejected).
    """

    def __init__(self, *, max_bytes: int = MAX_UPLOAD_BYTES, **explorer_options: Any):
        self.max_bytes = int(max_bytes)
        self.options = explorer_options
        self.table: Table | None = None
        self.source = ""
        self.explorer = None
        self.upload = widgets.FileUpload(accept=".csv,text/csv", multiple=False,
                                         description="Upload CSV")
        self.label = widgets.Dropdown(options=[NO_LABEL], value=NO_LABEL,
                                      description="label column",
                                      style={"description_width": "90px"})
        self.menu = widgets.Dropdown(options=["(choose)", *DATASETS], value="(choose)",
                                     description="or a data set",
                                     style={"description_width": "90px"},
                                     layout=widgets.Layout(width="420px"))
        self.explore_button = widgets.Button(description="Explore", icon="play",
                                             button_style="primary")
        self.message = widgets.HTML()
        self.message.add_class("spectral-kit-data-message")
        self.output = widgets.VBox()
        self.upload.observe(self._on_upload, names="value")
        self.menu.observe(self._on_menu, names="value")
        self.explore_button.on_click(lambda _b: self.explore())
        limit = widgets.HTML(
            f"<small>CSV up to {_size(self.max_bytes)}: a header row, one row per sample; "
            "numeric columns become features, pick the column that holds the classes.</small>")
        self.widget = widgets.VBox([
            widgets.HBox([self.upload, self.label, self.explore_button]), limit,
            self.menu, self.message, self.output])
        self.widget.add_class("spectral-kit-data-page")

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    # -- actions -----------------------------------------------------------------------------
    def load_bytes(self, content: bytes, name: str = "file.csv") -> bool:
        """Parse an uploaded file and offer its columns as labels; False (and a message) if
        the file is rejected."""
        try:
            table = read_csv_table(bytes(content), name, self.max_bytes)
        except DataFileError as exc:
            self._say(str(exc), error=True)
            return False
        self.table, self.source = table, name
        self.label.options = [NO_LABEL, *table.columns]
        self.label.value = table.default_label()
        self._say(f"{name}: {table.n_rows} rows × {len(table.columns)} columns; label column "
                  f"{self.label.value}. Press Explore.")
        return True

    def explore(self) -> bool:
        """Build the explorer from the loaded file and the label picked; False (and a
        message) when the data cannot be explored."""
        if self.table is None:
            self._say("Upload a CSV file or choose a data set first.", error=True)
            return False
        try:
            X, y, names, notes = split_label(self.table, self.label.value)
        except DataFileError as exc:
            self._say(f"{self.source}: {exc}", error=True)
            return False
        return self._show(X, y, names, self.source, notes)

    def choose(self, label: str) -> bool:
        """Explore a data set of the menu."""
        try:
            X, y, names = load_menu_dataset(label)
        except Exception as exc:  # a download that failed: said in the page
            self._say(f"{label}: could not be loaded ({exc}).", error=True)
            return False
        return self._show(X, y, names, label, [])

    def _show(self, X: Any, y: Any, names: list[str], source: str, notes: list[str]) -> bool:
        from .data_explorer import DataExplorer

        try:
            explorer = DataExplorer(X, y, feature_names=names, **self.options)
        except (ValueError, TypeError) as exc:
            self._say(f"{source}: {exc}", error=True)
            return False
        if self.explorer is not None:
            self.explorer.close()
        self.explorer = explorer
        self.explorer_widget = explorer.widget
        self.output.children = [self.explorer_widget]
        n, p = explorer.shape
        text = f"{source}: {n} samples × {p} features" + (
            f", {np.unique(y).size} classes" if y is not None else ", no labels")
        if notes:
            text += "; " + "; ".join(notes)
        self._say(text + ".")
        return True

    def _say(self, text: str, *, error: bool = False) -> None:
        colour = "#b00020" if error else "#1b5e20"
        self.message.value = f"<p style='color:{colour};margin:4px 0'>{escape(text)}</p>"
        self.message_is_error = error

    def _on_upload(self, change: dict) -> None:
        files = change["new"]
        if not files:
            return
        item = files[0] if isinstance(files, (list, tuple)) else next(iter(files.values()))
        content = item["content"] if isinstance(item, dict) else item.content
        name = item["name"] if isinstance(item, dict) else item.name
        if self.load_bytes(bytes(content), name):
            self.explore()

    def _on_menu(self, change: dict) -> None:
        if change["new"] in DATASETS:
            self.choose(change["new"])
