"""A student track's kernel stays small enough for a Binder session: Run All of every
student notebook peaks at most at 400 MB (the dashboard's kernel has its own browser test)."""

from __future__ import annotations

import os

import pytest

from spectral_kit.bench.notebooks import STUDENT_GOAL_MIB, measure_notebook, notebook_tracks
from spectral_kit.notebook_files import notebooks_dir

STUDENT_TRACKS = [path for track, path in notebook_tracks(notebooks_dir())
                  if track == "student"]


def test_student_tracks_are_found():
    assert len(STUDENT_TRACKS) >= 8


@pytest.mark.parametrize("path", STUDENT_TRACKS, ids=[p.stem for p in STUDENT_TRACKS])
def test_run_all_of_a_student_track_peaks_under_400_mb(path, tmp_path):
    seconds, mib, _ = measure_notebook(str(path), str(tmp_path), dict(os.environ))
    print(f"{path.name}: {seconds:.1f} s, peak {mib:.0f} MiB")
    assert mib <= STUDENT_GOAL_MIB, (
        f"{path.name}: Run All peaked at {mib:.0f} MiB, over {STUDENT_GOAL_MIB:.0f} MiB (400 MB)")
