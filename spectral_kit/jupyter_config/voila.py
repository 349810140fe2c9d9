"""Voilà's Python configuration, read beside ``voila.json`` by standalone Voilà and by the
``voila/render`` pages of a Jupyter server: the hook below lets a closed tab shut its kernel
down (see :mod:`spectral_kit.jupyter_config.voila_hooks`)."""

from spectral_kit.jupyter_config.voila_hooks import prelaunch_hook

c = get_config()  # noqa: F821 -- defined by traitlets when it loads this file
c.VoilaConfiguration.prelaunch_hook = prelaunch_hook
