"""The README's example runs as printed."""

from __future__ import annotations

import re
from pathlib import Path


def test_readme_python_example_runs(capsys):
    text = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "the README lost its example"
    exec(compile(blocks[0], "README.md", "exec"), {})
    printed = capsys.readouterr().out.split("\n")
    assert float(printed[1]) > 0.8  # cross-validated accuracy of the pipeline
