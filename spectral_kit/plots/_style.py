"""Colours shared by every plot of the kit (colour-blind safe, from the Okabe–Ito palette)."""

RELEVANT = "#0072B2"
IRRELEVANT = "#BBBBBB"
POSITIVE = "#0072B2"
NEGATIVE = "#D55E00"
ACCENT = "#009E73"
MUTED = "#999999"

FIGURE_DPI = 80
