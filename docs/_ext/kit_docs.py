"""The documentation site's own Sphinx extension.

At ``config-inited`` it writes the generated sources (ignored by git):

* ``notebooks/`` -- copies of the kit's notebooks, each opened by a line with a "Launch on
  Binder" link and a download link, and with inline names of the public API (`` `q_alpha` ``)
  turned into links to their reference pages. Stored outputs are shown as they are; a notebook
  without outputs, or with an error output, is a build warning (an error under ``-W``).
* ``api/`` -- one page per subpackage listing its ``__all__``, from which autosummary writes a
  page per name.

It adds the directives ``kit-reproductions`` (the stored full-mode tables with their verdict
badges) and ``kit-benchmarks`` (the stored benchmark runs), and copies MathJax into the site
so that formulas typeset without a network.
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

DOCS = Path(__file__).resolve().parent.parent
ROOT = DOCS.parent
NOTEBOOKS = ROOT / "notebooks"
GENERATED_NOTEBOOKS = DOCS / "notebooks"
GENERATED_API = DOCS / "api"
GENERATED = DOCS / "_generated"
DOWNLOADS = GENERATED / "downloads"
BENCHMARKS = DOCS / "benchmarks"

#: The subpackages whose ``__all__`` make the API reference, in reading order.
SUBPACKAGES = (
    "qalpha", "sparse_lda", "weighting", "stability", "theory", "topography", "estimators",
    "baselines", "metrics", "preprocess", "linalg", "datasets", "plots", "widgets",
    "exercises", "reproduce", "bench", "validation", "memory", "progress",
)

#: Public names that are not objects with a docstring of their own (constants, registries).
_DATA_KINDS = (dict, list, tuple, str, int, float, frozenset, set)


# -- the API reference --------------------------------------------------------------------------
def public_names() -> dict[str, list[str]]:
    """``{subpackage: sorted __all__}`` for every documented subpackage."""
    out = {}
    for sub in SUBPACKAGES:
        module = importlib.import_module(f"spectral_kit.{sub}")
        out[sub] = sorted(getattr(module, "__all__", []))
    return out


def canonical_targets() -> dict[str, str]:
    """Each public name → the dotted path of its reference page (first subpackage wins)."""
    targets: dict[str, str] = {}
    for sub, names in public_names().items():
        for name in names:
            targets.setdefault(name, f"spectral_kit.{sub}.{name}")
    return targets


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().splitlines()[0] if doc and doc.strip() else ""


def write_api_pages() -> None:
    GENERATED_API.mkdir(exist_ok=True)
    names = public_names()
    index = [
        "API reference", "=============", "",
        "Every public name of the kit, by subpackage. Paper-level functions take ``M`` with "
        "features as rows (the papers' notation); the scikit-learn estimators take ``X`` with "
        "samples as rows.", "",
        "The names of ``spectral_kit`` itself (``from spectral_kit import q_alpha``) are the "
        "most used ones of the subpackages below:", "",
    ]
    top = importlib.import_module("spectral_kit")
    targets = canonical_targets()
    for name in sorted(top.__all__):
        target = targets.get(name)
        if target is None:
            logger.warning("spectral_kit.%s is in spectral_kit.__all__ but in no subpackage's "
                           "__all__: it has no reference page", name)
            continue
        index.append(f"* :py:obj:`spectral_kit.{name} <{target}>`")
    index += ["", ".. toctree::", "   :maxdepth: 1", ""]
    index += [f"   {sub}" for sub in names]
    _write(GENERATED_API / "index.rst", "\n".join(index) + "\n")
    for sub, members in names.items():
        module = importlib.import_module(f"spectral_kit.{sub}")
        title = f"``spectral_kit.{sub}``"
        lines = [title, "=" * len(title), "", f".. automodule:: spectral_kit.{sub}",
                 "   :no-members:", "", f".. currentmodule:: spectral_kit.{sub}", ""]
        objects = [m for m in members if not isinstance(getattr(module, m), _DATA_KINDS)]
        data = [m for m in members if m not in objects]
        if objects:
            lines += [".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
            lines += [f"   {m}" for m in objects]
            lines.append("")
        for m in data:
            lines += [f".. autodata:: {m}", "   :no-value:", ""]
        _write(GENERATED_API / f"{sub}.rst", "\n".join(lines))


def public_dataclasses() -> dict[str, type]:
    """Every public frozen result (a dataclass), by its reference page's dotted name."""
    import dataclasses

    found = {}
    for sub, names in public_names().items():
        module = importlib.import_module(f"spectral_kit.{sub}")
        for name in names:
            obj = getattr(module, name)
            if isinstance(obj, type) and dataclasses.is_dataclass(obj):
                found[f"spectral_kit.{sub}.{name}"] = obj
    return found


def public_classes() -> list[tuple[type, bool]]:
    """Every public class, with whether it is a frozen result (a dataclass)."""
    import dataclasses

    out = []
    for sub, names in public_names().items():
        module = importlib.import_module(f"spectral_kit.{sub}")
        for name in names:
            obj = getattr(module, name)
            if isinstance(obj, type):
                out.append((obj, dataclasses.is_dataclass(obj)))
    return out


def public_data() -> list[str]:
    """Public names bound to plain data (constants, registries), which have no page."""
    out = []
    for sub, names in public_names().items():
        module = importlib.import_module(f"spectral_kit.{sub}")
        out += [n for n in names if isinstance(getattr(module, n), _DATA_KINDS)]
    return out


def check_dataclass_docstrings(app: Sphinx) -> None:
    """Results are read, not built, by users: their fields are documented as Attributes
    (numpydoc's own check would ask for a Parameters section instead), and each has an
    Examples section like every other public name."""
    import dataclasses

    from numpydoc.docscrape import NumpyDocString

    for dotted, cls in public_dataclasses().items():
        doc = NumpyDocString(cls.__doc__ or "")
        documented = {p.name.split(":")[0].strip() for section in ("Attributes", "Parameters")
                      for p in doc[section]}
        documented |= {n.strip() for item in documented for n in item.split(",")}
        missing = [f.name for f in dataclasses.fields(cls)
                   if not f.name.startswith("_") and f.name not in documented]
        if not doc["Summary"]:
            logger.warning("%s: no summary line", dotted)
        if missing:
            logger.warning("%s: fields not documented under Attributes: %s", dotted,
                           ", ".join(missing))
        if not doc["Examples"]:
            logger.warning("%s: no Examples section", dotted)


# -- notebooks ----------------------------------------------------------------------------------
def notebook_sources() -> list[Path]:
    """The notebooks the site renders: student tracks, the dashboard and the appendices."""
    return sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "appendix").glob("*.ipynb"))


_INLINE_NAME = re.compile(r"(?<![`\w{])`([A-Za-z_][A-Za-z0-9_.]*)(\(\))?`(?!`)")


def link_api_names(text: str, targets: dict[str, str]) -> str:
    """Turn inline code that names a public object (`` `q_alpha` ``, `` `SparseLDA()` ``,
    `` `spectral_kit.q_alpha` ``) into a MyST reference to its page."""

    def replace(match: re.Match) -> str:
        name = match.group(1)
        short = name.rsplit(".", 1)[-1]
        if name.startswith("spectral_kit.") or "." not in name:
            target = targets.get(short)
            if target is not None:
                return f"{{py:obj}}`{name}{match.group(2) or ''} <{target}>`"
        return match.group(0)

    # Code fences and maths stay as they are.
    parts = re.split(r"(```.*?```|\$\$.*?\$\$)", text, flags=re.S)
    return "".join(p if i % 2 else _INLINE_NAME.sub(replace, p) for i, p in enumerate(parts))


def launch_cell(relative: str, binder_url: str) -> dict[str, Any]:
    depth = "../" * (relative.count("/") + 1)
    text = (
        f"[Launch on Binder]({binder_url}?urlpath=lab/tree/notebooks/{relative}) · "
        f"{{download}}`Download this notebook <{depth}_generated/downloads/{relative}>` · "
        "run it with "
        "`python3 kit.py lab`. The outputs below were stored when the notebook was last "
        "built; the explorers are live in JupyterLab."
    )
    return {"cell_type": "markdown", "metadata": {"tags": ["kit-launch"]},
            "source": f"```{{admonition}} Run this notebook\n:class: tip\n{text}\n```"}


def check_outputs(relative: str, nb: dict) -> None:
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    if code and not any(c.get("outputs") for c in code):
        logger.warning("notebooks/%s has no stored outputs: build it with "
                       ".ci/build_notebooks.py", relative)
    for i, cell in enumerate(code):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                logger.warning("notebooks/%s: code cell %d stores an error (%s)", relative, i,
                               out.get("ename"))


def write_notebooks(binder_url: str) -> None:
    targets = canonical_targets()
    for source in notebook_sources():
        relative = source.relative_to(NOTEBOOKS).as_posix()
        nb = json.loads(source.read_text(encoding="utf-8"))
        check_outputs(relative, nb)
        for cell in nb["cells"]:
            if cell["cell_type"] == "markdown":
                text = "".join(cell["source"]) if isinstance(cell["source"], list) else \
                    cell["source"]
                cell["source"] = link_api_names(text, targets)
        title_at = next((i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown"),
                        -1)
        nb["cells"].insert(title_at + 1, launch_cell(relative, binder_url))
        target = GENERATED_NOTEBOOKS / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        _write(target, json.dumps(nb, ensure_ascii=False, indent=1) + "\n")
        # The download link serves the notebook as it is in the repository.
        download = DOWNLOADS / relative
        download.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, download)
    helper = NOTEBOOKS / "appendix" / "_appendix.py"
    if helper.exists():
        shutil.copyfile(helper, GENERATED_NOTEBOOKS / "appendix" / helper.name)


def _write(path: Path, text: str) -> None:
    """Write only when the text changed, so that Sphinx rebuilds only what changed."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


# -- directives ---------------------------------------------------------------------------------
class ReproductionsDirective(SphinxDirective):
    """``.. kit-reproductions:: [PAPER]`` -- the stored full-mode tables (of one paper)."""

    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        from spectral_kit.reproduce import PAPERS
        from spectral_kit.reproduce.reference import load_references

        paper = self.arguments[0] if self.arguments else None
        if paper is not None and paper not in PAPERS:
            raise self.error(f"unknown paper {paper!r}; one of {', '.join(PAPERS)}")
        self.env.note_dependency(str(ROOT / "spectral_kit" / "reproduce" / "reference"))
        out: list[nodes.Node] = []
        for result in load_references():
            if paper is not None and result.paper != paper:
                continue
            section = nodes.section(ids=[nodes.make_id(result.key)])
            section += nodes.title(text=f"{result.title} ({result.key})")
            section += nodes.raw("", result._repr_html_(), format="html")
            out.append(section)
        return out


class BenchmarksDirective(SphinxDirective):
    """``.. kit-benchmarks::`` -- every stored benchmark run (``docs/benchmarks/*.json``)."""

    option_spec: ClassVar[dict] = {"only": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        from spectral_kit.bench import load_run

        only = set(self.options.get("only", "").split())
        files = sorted(BENCHMARKS.glob("*.json"))
        if not files:
            logger.warning("no stored benchmark runs in docs/benchmarks (store them with "
                           "`spectral-kit bench --save docs/benchmarks`)")
        out: list[nodes.Node] = []
        for path in files:
            self.env.note_dependency(str(path))
            run = load_run(path)
            if only and run.name not in only:
                continue
            section = nodes.section(ids=[nodes.make_id("bench-" + run.name)])
            section += nodes.title(text=run.name)
            section += nodes.paragraph(text=run.caption())
            section += nodes.raw("", run.html_table(), format="html")
            out.append(section)
        return out


# -- wiring -------------------------------------------------------------------------------------
NOTEBOOK_INDEX = """# Notebooks

Each paper has two notebooks. The **student track** tells the story, with live explorers and
exercises that check themselves, and runs all in seconds; the **research appendix** reproduces
the paper's experiments, our numbers beside the published ones. The pages below show the outputs
stored with each notebook; launch one on Binder (or with `python3 kit.py lab`) to move the
sliders.

```{toctree}
:maxdepth: 1
:caption: Student tracks

%(tracks)s
```

```{toctree}
:maxdepth: 1
:caption: Research appendices

%(appendices)s
```
"""


def write_notebook_index() -> None:
    tracks = [p.stem for p in sorted(NOTEBOOKS.glob("*.ipynb"))]
    appendices = [f"appendix/{p.stem}" for p in sorted((NOTEBOOKS / "appendix").glob("*.ipynb"))]
    _write(GENERATED_NOTEBOOKS / "index.md", NOTEBOOK_INDEX % {
        "tracks": "\n".join(tracks), "appendices": "\n".join(appendices)})


def write_verdict_rules() -> None:
    from spectral_kit.reproduce import VERDICT_RULES

    GENERATED.mkdir(exist_ok=True)
    _write(GENERATED / "verdict_rules.md", VERDICT_RULES + "\n")


def generate(app: Sphinx, config: Any) -> None:
    write_api_pages()
    write_notebooks(config.kit_binder_url)
    write_notebook_index()
    write_verdict_rules()


def copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    import jupyter_server_mathjax

    source = Path(jupyter_server_mathjax.__file__).parent / "static"
    target = Path(app.outdir) / "_static" / "mathjax"
    if not (target / "MathJax.js").exists():
        shutil.copytree(source, target, dirs_exist_ok=True)


_FOREIGN_REF = re.compile(r":ref:`([^`<]+?)\s*<[^`>]+>`")


def plain_foreign_refs(app: Sphinx, what: str, name: str, obj: Any, options: Any,
                       lines: list[str]) -> None:
    """Methods inherited from scikit-learn (``score``, ``fit_transform``, ...) point to labels
    of scikit-learn's own site (:ref:`accuracy <accuracy_score>`), undefined here: keep
    their text, drop the link."""
    if (getattr(obj, "__module__", None) or "").startswith("sklearn"):
        lines[:] = [_FOREIGN_REF.sub(r"\1", line) for line in lines]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("kit_binder_url", "", "html")
    # Before autosummary (builder-inited) reads the generated API pages.
    app.connect("config-inited", generate)
    app.connect("builder-inited", check_dataclass_docstrings)
    app.connect("autodoc-process-docstring", plain_foreign_refs)
    app.connect("build-finished", copy_mathjax)
    app.add_directive("kit-reproductions", ReproductionsDirective)
    app.add_directive("kit-benchmarks", BenchmarksDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def lint(subpackages: list[str]) -> int:
    """Print the docstring problems the site's build reports, for some subpackages only:
    ``python docs/_ext/kit_docs.py qalpha sparse_lda`` (a quicker loop than a whole build)."""
    import dataclasses

    from numpydoc.validate import validate

    checks = {"PR01", "PR02", "RT01", "SS01", "EX01"}
    problems = 0
    for sub, names in public_names().items():
        if subpackages and sub not in subpackages:
            continue
        module = importlib.import_module(f"spectral_kit.{sub}")
        for name in names:
            obj = getattr(module, name)
            dotted = f"spectral_kit.{sub}.{name}"
            if isinstance(obj, _DATA_KINDS):
                continue
            if isinstance(obj, type) and dataclasses.is_dataclass(obj):
                continue  # checked by check_dataclass_docstrings at build time
            defined = f"{obj.__module__}.{getattr(obj, '__qualname__', name)}"
            for code, message in validate(defined)["errors"]:
                if code in checks:
                    problems += 1
                    print(f"{dotted}: {code} {message}")
    return problems


if __name__ == "__main__":
    import sys

    sys.exit(1 if lint(sys.argv[1:]) else 0)
