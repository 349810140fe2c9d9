"""Sphinx configuration of the kit's documentation site.

Build it with ``python3 kit.py docs`` (or ``sphinx-build -W --keep-going docs docs/_build/html``).
Notebooks are rendered from their stored outputs (nothing is executed); the API reference is
generated from each subpackage's ``__all__``; the reproduction and benchmark pages are
generated from the stored full-mode results and the stored benchmark runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# The kit of this checkout, not an installed copy; the site's own extension beside it.
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

import spectral_kit  # noqa: E402

project = "spectral_kit"
author = "spectral_kit developers"
copyright = "spectral_kit developers"
release = version = spectral_kit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
    "sphinx_copybutton",
    "sphinx_design",
    "kit_docs",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md", "_generated/downloads"]
templates_path = ["_templates"]
html_static_path = ["_static"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
nitpicky = False
suppress_warnings = ["myst.header"]

# -- notebooks: stored outputs only -------------------------------------------------------------
nb_execution_mode = "off"
nb_output_stderr = "remove"
nb_merge_streams = True
# Explorers are stored as PNG pictures; prefer a picture to a widget placeholder.
nb_mime_priority_overrides = [
    ("html", "application/vnd.jupyter.widget-view+json", None),
]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "substitution"]
myst_heading_anchors = 3

# -- API reference ------------------------------------------------------------------------------
# The API pages are written by kit_docs at config-inited. Naming them (rather than True, which
# takes the list of documents from the previous build's cached environment) makes autosummary
# write the reference pages of a subpackage that is new since the last build.
from kit_docs import SUBPACKAGES  # noqa: E402

autosummary_generate = [f"api/{sub}.rst" for sub in SUBPACKAGES]
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"  # numpydoc's Parameters section carries the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = True
# Every public docstring is checked (kit_docs raises these to build errors): a summary, every
# parameter documented, what it returns, and an Examples section.
numpydoc_validation_checks = {"PR01", "PR02", "RT01", "SS01", "EX01"}
# The check is for the public names themselves: frozen results (dataclasses) document their
# fields as Attributes, which kit_docs checks; the methods listed on a class's page and the
# public constants (a dict or tuple, whose docstring is their type's) are not checked.
from kit_docs import public_classes, public_data  # noqa: E402

numpydoc_validation_exclude = (
    {rf"\.{cls.__name__}$" for cls, is_result in public_classes() if is_result}
    | {rf"\.{cls.__name__}\.\w+$" for cls, _ in public_classes()}
    | {rf"\.{name}$" for name in public_data()}
)

# -- maths without a network: MathJax 2 served from the site itself ------------------------------
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
mathjax2_config = {
    # myst-nb marks notebook sections "tex2jax_ignore" (their dollar signs are not maths) and
    # its own maths nodes "math": those are the ones to typeset.
    "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]],
                "processEscapes": True, "ignoreClass": "tex2jax_ignore|mathjax_ignore",
                "processClass": "tex2jax_process|mathjax_process|math|output_area"},
    # The packaged MathJax carries the STIX web fonts only.
    "HTML-CSS": {"availableFonts": [], "webFont": "STIX-Web", "imageFont": None,
                 "preferredFont": None},
    "SVG": {"font": "STIX-Web"},
}

# -- theme --------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "spectral_kit"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_show_sourcelink = False
html_last_updated_fmt = None
html_css_files = ["kit.css"]

#: Where the notebooks are launched from ("Launch on Binder" on every notebook page).
kit_binder_url = "https://mybinder.org/v2/gh/spectral-kit/spectral_kit/HEAD"
