"""The explorer: controls → library call → artists updated in place.

An :class:`Explorer` owns one matplotlib figure (an ipympl canvas in a live notebook), a set
of canonical sliders (:mod:`spectral_kit.widgets.controls`), a status line and an error
area. Subclasses implement three methods:

* ``_build_controls()`` → dict of canonical name → slider;
* ``_draw(figure)`` → create axes and artists once (with the ``plot_*`` functions);
* ``_render(values)`` → compute and update the artists; it may instead return a generator
  whose steps refine the picture progressively (each step a bounded amount of work).

The same object can be driven without a browser: ``explorer.update(n=50, mu=0.2)`` sets the
sliders, runs the computation (to completion outside a kernel) and returns the explorer, so
tests and benchmarks check what the plot shows through the artists' data.

A constructor never waits for a progressive refinement: it returns with the first picture,
and the rest follows between kernel messages (in a kernel) or on :meth:`Explorer.finish`.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import io
import numbers
import os
import time
import traceback
from collections import deque
from collections.abc import Iterator
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from PIL import Image as PILImage
from threadpoolctl import ThreadpoolController

from ..plots._style import DRAW_LOCK, FIGURE_DPI, PNG_SCALE, figure_style
from ..validation import check_finite_scalar

__all__ = ["Explorer"]

#: Render explorers as static PNG images instead of live widgets (used when notebooks are
#: executed to be stored with their outputs, so that they read well without a kernel).
STATIC_ENV = "SPECTRAL_KIT_STATIC_WIDGETS"


_CONTROLLER: ThreadpoolController | None = None


def _one_blas_thread() -> Any:
    """Limit BLAS/OpenMP to one thread for a slider move (small problems: threads only add
    overhead). The libraries are scanned once, not on every move, which would cost more than
    some redraws."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1)


def _kernel_loop() -> Any | None:
    """The IPython kernel's IO loop when running inside one, else ``None``."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return None
    shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    return getattr(kernel, "io_loop", None)


class Explorer:
    """Base class of the live explorers.

    Parameters
    ----------
    **values
        Initial slider values by canonical name (e.g. ``n=50``).

    Attributes
    ----------
    controls : dict of str → ipywidgets widget
    figure : matplotlib Figure
    latencies : list of float
        Seconds from a control change to the figure redrawn with the new artists (first
        response; progressive refinements are not included).
    update_latencies : list of float
        Seconds from a control change to the artists updated (computation included, the
        redraw excluded).
    errors : list of str
        Tracebacks of failed updates (also shown in red below the figure).

    Raises
    ------
    ValueError
        For an unknown control, or a slider value outside its range or not a whole number
        where the slider is an integer one (here and in :meth:`update`); for an option out of
        range.

    Examples
    --------
    A minimal explorer: one canonical slider, one animated artist, computed in ``_render``.

    >>> from spectral_kit.widgets import Explorer, make_slider
    >>> class Level(Explorer):
    ...     def _build_controls(self):
    ...         return {"mu": make_slider("mu")}
    ...     def _draw(self, figure):
    ...         ax = figure.subplots()
    ...         ax.set_xlim(0, 1)
    ...         ax.set_ylim(-1, 1)
    ...         (self.line,) = ax.plot([0, 1], [0, 0])
    ...         self.animate(self.line)
    ...     def _render(self, values):
    ...         self.line.set_ydata([values["mu"]] * 2)
    >>> explorer = Level()
    >>> _ = explorer.update(mu=0.5)
    >>> float(explorer.line.get_ydata()[0]), explorer.errors
    (0.5, [])
    >>> explorer.close()
    """

    #: Figure size in inches.
    figsize: tuple[float, float] = (8.0, 3.2)
    #: Seconds of computation per refinement step of progressive explorers.
    step_budget: float = 0.06

    def __init__(self, **values: Any):
        self.controls: dict[str, widgets.Widget] = self._build_controls()
        self.latencies: list[float] = []
        self.update_latencies: list[float] = []
        self.errors: list[str] = []
        self._animated: list = []
        self._background = None
        self._frame_key: tuple | None = None
        self._saving = False
        self._pending: Iterator | None = None
        self._refining = False
        self._closed = False
        self._batch = False
        self._layout_frozen = False
        self._set_values(values)
        #: The values the explorer started from, which the reset button brings back.
        self.initial_values: dict[str, Any] = dict(self.values)
        with plt.ioff(), figure_style():
            self.figure: Figure = plt.figure(figsize=self.figsize, dpi=FIGURE_DPI,
                                             layout="constrained")
        self._configure_canvas()
        self.figure.canvas.mpl_connect("draw_event", self._after_full_draw)
        self.status = widgets.HTML(layout=widgets.Layout(min_height="1.4em"))
        self.status.add_class("spectral-kit-status")
        self.error_area = widgets.HTML(layout=widgets.Layout(display="none"))
        self.error_area.add_class("spectral-kit-error")
        self.reset_button = widgets.Button(
            description="Reset", icon="undo", tooltip="back to the starting values",
            layout=widgets.Layout(width="90px"),
        )
        self.reset_button.add_class("spectral-kit-reset")
        self.reset_button.on_click(lambda _button: self.reset())
        with DRAW_LOCK, _one_blas_thread(), figure_style():
            self._draw(self.figure)
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        # The first picture only: a refinement continues between kernel messages, or on
        # finish() without a kernel; a constructor never waits for it.
        self.refresh(raise_errors=True, finish=False)

    # -- subclass API ----------------------------------------------------------------------
    def _build_controls(self) -> dict[str, widgets.Widget]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _draw(self, figure: Figure) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _render(self, values: dict[str, Any]) -> Iterator | None:  # pragma: no cover
        raise NotImplementedError

    # -- public API ------------------------------------------------------------------------
    @property
    def values(self) -> dict[str, Any]:
        """Current control values by canonical name."""
        return {name: control.value for name, control in self.controls.items()}

    def update(self, *, finish: bool | None = None, **values: Any) -> Explorer:
        """Set controls by name, recompute once and redraw; errors are raised.

        Every value is checked before any is set: a bad one raises and leaves the explorer
        (controls and figure) as it was.

        Parameters
        ----------
        finish : bool, optional
            Run progressive refinement to completion before returning. Default: only
            outside a kernel (headless use); in a kernel the refinement continues between
            messages, so a cell never waits for it.
        **values
            Control values by canonical name.
        """
        self._set_values(values)
        if finish is None:
            finish = _kernel_loop() is None
        self.refresh(raise_errors=True, finish=finish)
        return self

    def reset(self) -> Explorer:
        """Bring every control back to the value the explorer started from and redraw (the
        reset button). In a kernel the refinement continues between messages."""
        self._set_values(self.initial_values)
        self.refresh(finish=_kernel_loop() is None)
        return self

    def refresh(self, *, raise_errors: bool = False, finish: bool = False) -> None:
        """Recompute from the current control values and redraw the figure."""
        if self._closed:
            raise RuntimeError("this explorer is closed; create a new one")
        with DRAW_LOCK:
            self._refresh(raise_errors, finish)

    def _refresh(self, raise_errors: bool, finish: bool) -> None:
        self._pending = None
        self._set_refining(False)
        start = time.perf_counter()
        try:
            with _one_blas_thread():
                pending = self._render(self.values)
                self.update_latencies.append(time.perf_counter() - start)
                self._draw_now()
            self.latencies.append(time.perf_counter() - start)
            self._clear_error()
        except Exception as exc:  # shown to the student instead of vanishing in a log
            self._show_error(exc)
            if raise_errors:
                raise
            return
        if pending is not None:
            self._pending = pending
            if finish:
                self.finish()
            else:
                self._set_refining(True)
                self._schedule()

    def finish(self) -> Explorer:
        """Run any pending progressive refinement to completion."""
        while self._pending is not None:
            self._step(reschedule=False)
        return self

    def close(self) -> None:
        """Stop observing the controls, close the widgets and free the figure."""
        if self._closed:
            return
        self._closed = True
        self._pending = None
        for control in self.controls.values():
            control.unobserve(self._on_change, names="value")
            control.close()
        self.status.close()
        self.error_area.close()
        self.reset_button.close()
        canvas = self.figure.canvas
        if isinstance(canvas, widgets.DOMWidget):
            canvas.close()
        plt.close(self.figure)

    def snapshot(self, scale: float = 1.0) -> bytes:
        """The current figure as PNG bytes, ``scale`` times the pixels it has on screen."""
        scale = check_finite_scalar(scale, "scale", low=0.0, low_inclusive=False)
        if min(self.figure.get_size_inches()) * FIGURE_DPI * scale < 1.0:
            raise ValueError(f"scale={scale:g} leaves the image less than a pixel wide; "
                             "use a scale near 1 (2 for a sharp print).")
        buffer = io.BytesIO()
        with DRAW_LOCK, self._static_render():
            self.figure.savefig(buffer, format="png", dpi=FIGURE_DPI * scale)
        if scale != 1.0:
            # Saving at another resolution leaves the canvas' renderer at that size: the
            # cached background no longer fits it, the next redraw is a full one.
            self._background = None
        return buffer.getvalue()

    @contextlib.contextmanager
    def _static_render(self) -> Iterator[None]:
        """Render every artist in one pass (savefig skips animated ones), without blitting."""
        self._saving = True
        for artist in self._animated:
            artist.set_animated(False)
        try:
            yield
        finally:
            for artist in self._animated:
                artist.set_animated(True)
            self._saving = False

    @property
    def widget(self) -> widgets.Widget:
        """The whole explorer as one ipywidgets box (controls and reset button, figure,
        status, errors)."""
        controls = list(self.controls.values())
        columns = [widgets.VBox(controls[i::2]) for i in range(2)]
        parts: list[widgets.Widget] = [widgets.HBox([*columns, self.reset_button])]
        canvas = self.figure.canvas
        if isinstance(canvas, widgets.DOMWidget):
            parts.append(canvas)
        parts += [self.status, self.error_area]
        box = widgets.VBox(parts)
        box.add_class("spectral-kit-explorer")
        return box

    def png_bundle(self) -> tuple[dict, dict]:
        """The current picture as a display bundle: a PNG with twice the pixels (sharp on
        HiDPI screens and projectors), shown at the figure's size."""
        png = self.snapshot(scale=PNG_SCALE)
        # Inches × dpi, not the canvas size: ipympl multiplies the canvas' dpi by the
        # screen's device pixel ratio.
        width, height = self.figure.get_size_inches() * FIGURE_DPI
        data = {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": repr(self)}
        metadata = {"image/png": {"width": round(width), "height": round(height)}}
        return data, metadata

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict, dict]:
        static = bool(os.environ.get(STATIC_ENV))
        if static:
            # A stored picture is final: no kernel will refine it later.
            self.finish()
        data, metadata = self.png_bundle()
        if static:
            return data, metadata
        # Renderers without the widget model (nbconvert, PDF, GitHub) show the PNG of the
        # current state; JupyterLab shows the widget, from the saved widget state when the
        # notebook is reopened without a kernel.
        return {**data, **self.widget._repr_mimebundle_(**kwargs)}, metadata

    def __repr__(self) -> str:
        values = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        return f"{type(self).__name__}({values})"

    # -- internals ---------------------------------------------------------------------------
    def _set_values(self, values: dict[str, Any]) -> None:
        """Check every value, then set them all (observers silenced): one bad value raises
        before any control moves."""
        checked = self._check_values(dict(values))
        self._batch = True
        try:
            self._assign(checked)
        finally:
            self._batch = False

    def _limits(self, name: str, values: dict[str, Any]) -> tuple[float, float] | None:
        """The range allowed for control ``name`` when ``values`` are set together (None
        for a control without a range). Subclasses whose ranges depend on another control
        override it."""
        control = self.controls[name]
        low, high = getattr(control, "min", None), getattr(control, "max", None)
        if low is None or high is None:
            return None
        if hasattr(control, "base"):  # log slider: min/max are exponents
            low, high = control.base**low, control.base**high
        return float(low), float(high)

    def _check_values(self, values: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(values) - set(self.controls))
        if unknown:
            raise ValueError(
                f"unknown control(s) {', '.join(unknown)} for {type(self).__name__}; "
                f"its controls are {', '.join(self.controls)}."
            )
        for name, value in values.items():
            limits = self._limits(name, values)
            if limits is None:
                continue
            low, high = limits
            slack = 1e-12 * max(abs(low), abs(high), 1.0)
            if (isinstance(value, bool) or not isinstance(value, numbers.Real)
                    or not low - slack <= value <= high + slack):
                raise ValueError(f"{name} must lie in [{low:g}, {high:g}]; got {value!r}.")
            if isinstance(self.controls[name], widgets.IntSlider) and value != int(value):
                raise ValueError(f"{name} must be a whole number; got {value!r}.")
        return values

    def _assign(self, values: dict[str, Any]) -> None:
        """Set checked values on the controls (called with observers silenced)."""
        for name, value in values.items():
            self.controls[name].value = value

    def _on_change(self, change: dict) -> None:
        if not self._batch:
            self.refresh()

    def _configure_canvas(self) -> None:
        canvas = self.figure.canvas
        for attribute, value in (("header_visible", False), ("footer_visible", False),
                                 ("resizable", False), ("toolbar_visible", False)):
            if hasattr(canvas, attribute):
                setattr(canvas, attribute, value)
        draw = canvas.draw

        def locked_draw(*args: Any, **kwargs: Any) -> Any:
            # ipympl redraws on the front end's requests (first display, resize), possibly
            # on another thread than the explorer's own updates.
            with DRAW_LOCK:
                return draw(*args, **kwargs)

        canvas.draw = locked_draw
        if isinstance(canvas, widgets.DOMWidget) and hasattr(canvas, "send_binary"):
            # Give the canvas its size before anything is drawn: ipympl's front end turns
            # every image it receives into a data URL of its offscreen canvas, and an
            # unsized canvas yields an empty, "broken" image that then fails to draw.
            width, height = self.figure.bbox.size
            canvas._size = (float(width), float(height))
            _prefix_data_url(canvas)

    def animate(self, *artists: Any) -> None:
        """Declare artists that change on slider moves (called from ``_draw``).

        They are drawn over a cached background of everything else (blitting) as long as no
        axes changed limits, scale or labels, which keeps a redraw to a fraction of a full
        one: text layout dominates matplotlib's redraw time.
        """
        for artist in artists:
            artist.set_animated(True)
            self._animated.append(artist)

    def _frame(self) -> tuple:
        """What the cached background depends on: the resolution (ipympl multiplies the
        figure's dpi by the screen's device pixel ratio once a front end attaches), and
        every axes' limits, scales and labels."""
        axes = [
            (tuple(np.round(ax.viewLim.bounds, 12)), ax.get_xscale(), ax.get_yscale(),
             ax.get_title(), ax.get_xlabel(), ax.get_ylabel(), ax.get_visible())
            for ax in self.figure.axes
        ]
        return (self.figure.dpi, *self.figure.canvas.get_width_height(), *axes)

    def _draw_now(self) -> None:
        canvas = self.figure.canvas
        if hasattr(canvas, "_force_full"):
            # ipympl may send a frame as its difference from the previous one, and the front
            # end applies it to whatever it shows: a difference that reaches a front end
            # which missed the previous frame (first display, or a burst of refinement
            # steps) leaves a half-drawn picture. Whole frames are complete on their own.
            canvas._force_full = True
        if not self._layout_frozen:
            if self.figure.get_layout_engine() is not None:
                # Constrained layout costs more than the rest of a redraw; lay the figure
                # out once, then keep the axes where they are.
                canvas.draw()
                self.figure.set_layout_engine("none")
            self._layout_frozen = True
        if not self._animated:
            canvas.draw_idle()
            return
        if self._background is None or self._frame() != self._frame_key:
            canvas.draw()  # _after_full_draw caches the background and blits the artists
        else:
            canvas.restore_region(self._background)
            self._blit_animated()

    def _blit_animated(self) -> None:
        for artist in self._animated:
            if artist.get_visible():
                self.figure.draw_artist(artist)
        self.figure.canvas.blit(self.figure.bbox)

    def _after_full_draw(self, event: Any) -> None:
        """After any full draw -- ours, or one the front end asks for (first display,
        resize) -- cache the background, which excludes the animated artists, and draw them
        over it."""
        if not self._animated or self._saving or self._closed:
            return
        canvas = self.figure.canvas
        self._background = canvas.copy_from_bbox(self.figure.bbox)
        self._frame_key = self._frame()
        self._blit_animated()

    def _schedule(self, moved: bool = True) -> None:
        # Inside a kernel the refinement continues between messages, so sliders stay live;
        # without one (scripts, tests) it waits for finish() or the next update().
        loop = _kernel_loop()
        if loop is not None:
            # add_callback is the thread-safe way in: comm messages (slider moves) may be
            # handled outside the main thread, which runs the loop.
            loop.add_callback(functools.partial(_REFINEMENTS.add, self, loop, moved))

    def _step(self, reschedule: bool = True) -> None:
        with DRAW_LOCK:
            self._step_locked(reschedule)

    def _step_locked(self, reschedule: bool) -> None:
        pending = self._pending
        if pending is None or self._closed:
            return
        try:
            with _one_blas_thread():
                next(pending)
                self._draw_now()
        except StopIteration:
            self._pending = None
            self._draw_now()
            self._set_refining(False)
            return
        except Exception as exc:
            self._pending = None
            self._set_refining(False)
            self._show_error(exc)
            if not reschedule:
                raise
            return
        if reschedule and self._pending is pending:
            self._schedule(moved=False)

    def _set_refining(self, refining: bool) -> None:
        """Mark the status line ``spectral-kit-refining`` while a progressive refinement
        is under way: a page (or a browser test) can tell the explorer's final picture from
        a frame on the way there without guessing from how long the canvas stayed still."""
        if refining == self._refining or self._closed:
            return
        self._refining = refining
        if refining:
            self.status.add_class(REFINING_CLASS)
        else:
            self.status.remove_class(REFINING_CLASS)

    def _show_error(self, exc: BaseException) -> None:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.errors.append(text)
        self.error_area.value = (
            "<pre style='color:#b00020;white-space:pre-wrap;margin:0'>"
            f"{type(exc).__name__}: {_escape(str(exc))}</pre>"
        )
        self.error_area.layout.display = "block"
        self.status.value = "<span style='color:#b00020'>update failed: see below</span>"

    def _clear_error(self) -> None:
        if self.error_area.layout.display != "none":
            self.error_area.value = ""
            self.error_area.layout.display = "none"


#: CSS class of an explorer's status line while its picture is still being refined.
REFINING_CLASS = "spectral-kit-refining"

#: Seconds the kernel's loop is left to its messages between two refinement steps.
STEP_GAP = 0.02


class _Refinements:
    """The kernel's refinement steps, one at a time across every explorer (round robin),
    with :data:`STEP_GAP` between two.

    Each explorer scheduling its own steps put one step of every refining explorer in each
    turn of the kernel's loop, and a slider message, which needs several turns before its
    handler runs (the kernel receives, locks, dispatches, each an ``await``), waited a
    turn's worth of steps at each of them: a dashboard whose other cards were still
    refining answered a move in 0.6-1.4 s instead of 0.15 s. One step at a time with a
    short gap lets the message through in about one step. Only the loop's thread touches
    this queue (:meth:`Explorer._schedule` reaches it through ``add_callback``).
    """

    def __init__(self) -> None:
        self.queue: deque[Explorer] = deque()
        self.loop: Any = None
        self.armed = False

    def add(self, explorer: Explorer, loop: Any, moved: bool) -> None:
        """Queue an explorer's next step: first if a control just moved (the student
        watches that card), else after the other explorers' steps."""
        if moved:
            with contextlib.suppress(ValueError):
                self.queue.remove(explorer)
            self.queue.appendleft(explorer)
        elif explorer not in self.queue:
            self.queue.append(explorer)
        if loop is not self.loop:
            self.loop, self.armed = loop, False
        self._arm(now=moved)

    def _arm(self, now: bool) -> None:
        if self.armed or not self.queue:
            return
        self.armed = True
        later = getattr(self.loop, "call_later", None)
        if now or later is None:
            self.loop.add_callback(self.run)
        else:
            later(STEP_GAP, self.run)

    def run(self) -> None:
        self.armed = False
        while self.queue:
            explorer = self.queue.popleft()
            if explorer._pending is not None and not explorer._closed:
                explorer._step()  # reschedules itself through Explorer._schedule
                break
        self._arm(now=False)


_REFINEMENTS = _Refinements()


def _prefix_data_url(canvas: Any) -> None:
    """Send ipympl's frames as PNG images and keep its ``_data_url`` a valid data URL.

    Until its front end has said it is initialised (``syncing_data_url``), ipympl 0.10
    stores each redrawn image in ``_data_url`` as bare base64 and then sends the figure's
    raw RGBA buffer, not the PNG it was given, as the frame: the front end takes it for a
    PNG and its picture breaks. Explorers draw before they are displayed, and refine their
    picture while the front end attaches, so such frames are common. Here the frame stays
    the PNG, and ``_data_url`` (what a front end, or a notebook saved with its widget state,
    shows first) is the whole current picture with its prefix, set in the same state message.
    """
    send = canvas.send

    def send_binary(data: Any) -> None:
        with canvas.hold_sync():
            if getattr(canvas, "syncing_data_url", False):
                buffer = getattr(canvas, "_last_buff", None)
                if buffer is not None:
                    pixels = buffer.view(dtype=np.uint8).reshape((*buffer.shape, 4))
                    with io.BytesIO() as png:
                        PILImage.fromarray(pixels).save(png, format="png")
                        url = base64.b64encode(png.getvalue()).decode("ascii")
                    canvas._data_url = "data:image/png;base64," + url
            send({"data": '{"type": "binary"}'}, buffers=[data])

    canvas.send_binary = send_binary


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
