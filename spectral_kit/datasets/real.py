"""Loaders for the public data sets the papers use, fetched once and checked by sha256.

Where a file comes from, in order:

1. a local copy under ``$SPECTRAL_KIT_DATA/<folder>/<file>`` (a directory laid out like the
   table below, e.g. an offline mirror for a classroom or CI);
2. the download cache ``$SPECTRAL_KIT_CACHE`` (default ``~/.cache/spectral_kit``; an empty
   value counts as unset, as the XDG variables do);
3. a download from the UCI repository (or the data set's home page), falling back to a
   byte-identical mirror.

Every file is checked against its published sha256 before it is parsed, so all three routes
give exactly the same bytes. A local copy that fails the check is reported (both sha256 and
the file named) and passed over for a verified cached copy when there is one; it never leads
to a download. A download is written to a ``.part`` file beside its destination, removed on
any failure, and ``.part`` files left by a download that was killed are removed by the next
attempt. Nothing is downloaded at import time.

Data sets (samples × features): ionosphere 351 × 34, sonar 208 × 60, segmentation
2310 × 19, spambase 4601 × 57, colon 62 × 2000, ecoli 336 × 7, dermatology 366 × 34.
UCI data are CC BY 4.0; cite the UCI repository and the donors (see each loader).
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import shutil
import socket
import tempfile
import time
import urllib.request
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..validation import check_choice

__all__ = [
    "DATA_FILES",
    "RealData",
    "data_home",
    "fetch_file",
    "load_colon",
    "load_dataset",
    "load_dermatology",
    "load_ecoli",
    "load_ionosphere",
    "load_segmentation",
    "load_sonar",
    "load_spambase",
]

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
_RAW = "https://raw.githubusercontent.com"


@dataclass(frozen=True)
class DataFile:
    """One file of a data set: where it lives locally and online, and its sha256."""

    folder: str
    name: str
    sha256: str
    urls: tuple[str, ...]


#: The files of every data set (``name → tuple of DataFile``): where each lives under
#: ``SPECTRAL_KIT_DATA`` (``folder/name``), its published sha256, and the URLs it is
#: downloaded from (the original first, then a byte-identical mirror).
DATA_FILES: dict[str, tuple[DataFile, ...]] = {
    "ionosphere": (
        DataFile(
            "ionosphere", "ionosphere.data",
            "46d52186b84e20be52918adb93e8fb9926b34795ff7504c24350ae0616a04bbd",
            (
                f"{_UCI}/ionosphere/ionosphere.data",
                f"{_RAW}/NicolasCendron/NeuralNetworksPy/"
                "037a7fa55f54b2a5604d01e1738859c61e486263/ionosphere.data",
            ),
        ),
    ),
    "sonar": (
        DataFile(
            "sonar", "sonar.all-data",
            "e90434cdbf00fcf93ffa911fe447ae25606979658e60f1d32e155c3b5240234d",
            (
                f"{_UCI}/undocumented/connectionist-bench/sonar/sonar.all-data",
                f"{_RAW}/menelaos-demetriou/sonar_prediction/"
                "a6850bd67d5cfce378d9b05811153d0b66b424d8/data/sonar.all-data",
            ),
        ),
    ),
    "segmentation": tuple(
        DataFile(
            "segment", name, sha,
            (
                f"{_UCI}/image/{name}",
                f"{_RAW}/Ivesf1m/kcm_f_gh/78f933e55d2abf86da8fbb541e6d9115bcecea16/{name}",
            ),
        )
        for name, sha in (
            ("segmentation.data",
             "ed5b5aee8081bbe875357149f73f50d7085e22cc0897f5b52eb7b52fea969a5b"),
            ("segmentation.test",
             "2e9e966479d54c6aaec309059376dd9c89c1b46bf3a23aceeefb36d20d93a189"),
        )
    ),
    "spambase": (
        DataFile(
            "spambase", "spambase.data",
            "b1ef93de71f97714d3d7d4f58fc9f718da7bbc8ac8a150eff2778616a8097b12",
            (
                f"{_UCI}/spambase/spambase.data",
                f"{_RAW}/obaidM/NaturalLanguageProcessing/"
                "c3bf7dfe8e0d76a25befdc4deee3a70919aeba49/spambase.data",
            ),
        ),
    ),
    "colon": tuple(
        DataFile(
            "colon", name, sha,
            (f"{_RAW}/lata1207/DMD_Clustering/7d5dd7e591a3751b36230db3fb471634144de277/{name}",),
        )
        for name, sha in (
            ("I2000.txt", "92a03c4b9c0e42acd1cdc0ccc10203529806364bf8fb5a769e04e03c5777c8fd"),
            ("tissue.txt", "716355bf5860d959c08755e2656700bf5a5e9c2674ac18287df72a5893f00086"),
        )
    ),
    "ecoli": (
        DataFile(
            "ecoli", "ecoli.data",
            "008bd8fbb1d8b34040c3c8c4e987cac2a7ebf116e008b140cc6441be5261ba1d",
            (
                f"{_UCI}/ecoli/ecoli.data",
                f"{_RAW}/jbrownlee/Datasets/f0bef02fdcc60eafa1f2512fe84cc0e4ed420822/ecoli.data",
            ),
        ),
    ),
    "dermatology": (
        DataFile(
            "dermatology", "dermatology.data",
            "455eba77f72cd087ce54a5a266c514c5f34e85000c8689ad09e796d68ad45742",
            (
                f"{_UCI}/dermatology/dermatology.data",
                f"{_RAW}/SeeNoBee/Machine-Learning/"
                "7233b07c0b0a103449f3f72c93ef6abeaf78f0f8/dermatology.data",
            ),
        ),
    ),
}


@dataclass(frozen=True)
class RealData:
    """A labelled real data set, samples × features (scikit-learn's orientation).

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data, samples as rows.
    y : ndarray of int, shape (n_samples,)
        Class of every sample, coded 0, 1, ... in the order of ``target_names``.
    feature_names, target_names : tuple of str
        Names of the columns of X and of the classes.
    name : str
        The data set's name, a key of :data:`DATA_FILES`.

    Examples
    --------
    ``M`` is the papers' features-as-rows matrix:

    >>> import numpy as np
    >>> from spectral_kit.datasets import RealData
    >>> data = RealData(X=np.zeros((3, 2)), y=np.array([0, 1, 0]), feature_names=("a", "b"),
    ...                 target_names=("no", "yes"), name="toy")
    >>> data.M.shape
    (2, 3)

    The loaders return one; the first call downloads the file unless a verified copy is
    under ``SPECTRAL_KIT_DATA`` or in the cache:

    >>> from spectral_kit.datasets import load_sonar
    >>> sonar = load_sonar()  # doctest: +SKIP
    >>> sonar.X.shape, sonar.target_names  # doctest: +SKIP
    ((208, 60), ('M', 'R'))
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    target_names: tuple[str, ...]
    name: str

    @property
    def M(self) -> np.ndarray:
        """Features as rows (n_features × n_samples), the papers' orientation."""
        return self.X.T


def data_home() -> Path:
    """The download cache: ``$SPECTRAL_KIT_CACHE`` or ``~/.cache/spectral_kit``.

    An empty (or blank) ``SPECTRAL_KIT_CACHE`` counts as unset: read as a path it would be
    the current directory, which a shell line such as ``SPECTRAL_KIT_CACHE= jupyter lab``
    never means.

    Returns
    -------
    pathlib.Path
        The folder that downloads are written to (it may not exist yet).

    Examples
    --------
    >>> import os
    >>> from pathlib import Path
    >>> from unittest import mock
    >>> from spectral_kit.datasets import data_home
    >>> with mock.patch.dict(os.environ, {"SPECTRAL_KIT_CACHE": "/srv/kit-data"}):
    ...     print(data_home().as_posix())
    /srv/kit-data
    >>> with mock.patch.dict(os.environ, {"SPECTRAL_KIT_CACHE": ""}):
    ...     data_home() == Path.home() / ".cache" / "spectral_kit"
    True
    """
    configured = os.environ.get("SPECTRAL_KIT_CACHE", "").strip()
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "spectral_kit"


#: A ``.part`` file not written to for this long belongs to no live download.
STALE_PART_SECONDS = 15 * 60


def _part_prefix(spec: DataFile) -> str:
    """How this process names its partial downloads of ``spec`` (host and pid, so that the
    next attempt can tell a dead download's leftovers from a live one's)."""
    return f".{spec.name}.{os.getpid()}.{socket.gethostname()}."


def _pid_alive(pid: int) -> bool | None:
    if os.name != "posix" or pid <= 0:
        return None  # on Windows os.kill(pid, 0) would stop the process, not ask about it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_parts(folder: Path, spec: DataFile) -> list[Path]:
    """Remove the ``.part`` files of ``spec`` that no live download is writing."""
    removed = []
    host = socket.gethostname()
    for part in folder.glob(f".{_glob_escape(spec.name)}.*.part"):
        # .<name>.<pid>.<host>.<random>.part (a host name may hold dots, the others not)
        fields = part.name[len(spec.name) + 2:].split(".")
        pid = int(fields[0]) if len(fields) >= 4 and fields[0].isdigit() else -1
        owner = ".".join(fields[1:-2])
        try:
            idle = time.time() - part.stat().st_mtime
        except OSError:
            continue
        dead = owner == host and pid != os.getpid() and _pid_alive(pid) is False
        if dead or idle > STALE_PART_SECONDS:
            with contextlib.suppress(OSError):
                part.unlink()
                removed.append(part)
    return removed


def _glob_escape(name: str) -> str:
    """``name`` with the characters that are special to :meth:`pathlib.Path.glob` escaped."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch_file(spec: DataFile, *, download: bool = True) -> Path:
    """Path to a verified copy of ``spec``: local mirror, cache, or a fresh download.

    Parameters
    ----------
    spec : DataFile
        One file of a data set, an entry of :data:`DATA_FILES`.
    download : bool
        Download the file when no verified local or cached copy exists.

    Returns
    -------
    pathlib.Path
        A file whose sha256 is the published one: under ``SPECTRAL_KIT_DATA``, in the
        cache (:func:`data_home`), or just downloaded into the cache.

    Raises
    ------
    OSError
        If no copy with the right sha256 can be found or downloaded.

    Examples
    --------
    >>> from spectral_kit.datasets import DATA_FILES, fetch_file
    >>> spec = DATA_FILES["ionosphere"][0]
    >>> spec.folder, spec.name, spec.sha256[:12]
    ('ionosphere', 'ionosphere.data', '46d52186b84e')

    Without a local copy and with ``download=False`` the error says so (here both folders
    are empty):

    >>> import os, tempfile
    >>> from unittest import mock
    >>> with tempfile.TemporaryDirectory() as empty, mock.patch.dict(
    ...         os.environ, {"SPECTRAL_KIT_DATA": empty, "SPECTRAL_KIT_CACHE": empty}):
    ...     fetch_file(spec, download=False)
    Traceback (most recent call last):
    ...
    OSError: ionosphere.data is not available locally and download=False.

    With a network (or a verified copy) the path comes back:

    >>> fetch_file(spec).name  # doctest: +SKIP
    'ionosphere.data'
    """
    local_root = os.environ.get("SPECTRAL_KIT_DATA", "").strip()
    bad_local = ""
    if local_root:
        local = Path(local_root).expanduser() / spec.folder / spec.name
        if local.is_file():
            actual = _sha256(local)
            if actual == spec.sha256:
                return local
            bad_local = (f"{local} does not match the published sha256 of {spec.name} "
                         f"(it has sha256 {actual}, the published one is {spec.sha256}); the "
                         "copy under SPECTRAL_KIT_DATA is corrupted or a different version")
    cached = data_home() / spec.folder / spec.name
    if bad_local:
        # A verified cached copy is the same bytes the mirror should have held.
        if cached.is_file() and _sha256(cached) == spec.sha256:
            warnings.warn(f"{bad_local}; using the verified cached copy {cached} instead.",
                          stacklevel=2)
            return cached
        raise OSError(f"{bad_local}. Replace it with a verified copy (`spectral-kit data` "
                      "fetches one into the cache when SPECTRAL_KIT_DATA is unset).")
    corrupted = ""
    if cached.is_file():
        if _sha256(cached) == spec.sha256:
            return cached
        # A cached copy is ours to replace; say so rather than pass over it in silence.
        corrupted = (f"the cached copy {cached} did not match the published sha256 (a "
                     "truncated or altered download) and was removed")
        cached.unlink()
        warnings.warn(f"{spec.name}: {corrupted}; fetching it again.", stacklevel=2)
    if not download:
        raise OSError(f"{spec.name} is not available locally and download=False"
                      + (f" ({corrupted})" if corrupted else "") + ".")
    cached.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_parts(cached.parent, spec)
    errors = [corrupted] if corrupted else []
    for url in spec.urls:
        tmp = None
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                fd, tmp = tempfile.mkstemp(dir=cached.parent, prefix=_part_prefix(spec),
                                           suffix=".part")
                with os.fdopen(fd, "wb") as handle:
                    shutil.copyfileobj(response, handle)
            if _sha256(Path(tmp)) != spec.sha256:
                errors.append(f"{url}: sha256 mismatch")
                continue
            os.replace(tmp, cached)
            tmp = None
            return cached
        except (OSError, http.client.HTTPException) as exc:  # a dropped connection too
            errors.append(f"{url}: {type(exc).__name__}: {exc}")
        finally:  # never leave a partial or rejected download behind
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
    raise OSError(
        f"could not obtain {spec.name} ({'; '.join(errors)}). Set SPECTRAL_KIT_DATA to a "
        f"directory holding {spec.folder}/{spec.name}, or connect to the internet."
    )


def _paths(name: str, download: bool) -> list[Path]:
    return [fetch_file(spec, download=download) for spec in DATA_FILES[name]]


def _labels(raw: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    names, y = np.unique(raw, return_inverse=True)
    return y.astype(np.int64), tuple(str(n) for n in names)


def _csv_with_label(path: Path) -> tuple[np.ndarray, np.ndarray]:
    rows = [line.strip().split(",") for line in path.read_text().splitlines() if line.strip()]
    X = np.array([r[:-1] for r in rows], dtype=np.float64)
    return X, np.array([r[-1] for r in rows])


def load_ionosphere(*, download: bool = True) -> RealData:
    """Ionosphere radar returns, 351 × 34, classes b(ad)/g(ood) (Sigillito et al., 1989).

    Used by Moghaddam, Weiss & Avidan (2006, Sec. 3.2, Fig. 3) and Mavroeidis &
    Vazirgiannis (Sec. 5).

    Parameters
    ----------
    download : bool
        Download the file when no verified copy is under ``SPECTRAL_KIT_DATA`` or in the
        cache; with False a missing file is an OSError.

    Returns
    -------
    RealData
        X of shape (351, 34); y is 1 for g(ood) returns.

    Examples
    --------
    Feature a02 is zero in every sample: remove it before ``preprocess_rows``, which
    refuses constant rows.

    >>> from spectral_kit.datasets import DATA_FILES, load_ionosphere
    >>> DATA_FILES["ionosphere"][0].name
    'ionosphere.data'
    >>> data = load_ionosphere()  # doctest: +SKIP
    >>> data.X.shape, data.target_names  # doctest: +SKIP
    ((351, 34), ('b', 'g'))
    >>> data.feature_names[1], float(data.X[:, 1].std())  # doctest: +SKIP
    ('a02', 0.0)
    """
    (path,) = _paths("ionosphere", download)
    X, raw = _csv_with_label(path)
    y, names = _labels(raw)
    return RealData(X, y, tuple(f"a{i + 1:02d}" for i in range(34)), names, "ionosphere")


def load_sonar(*, download: bool = True) -> RealData:
    """Sonar mines vs rocks, 208 × 60, classes M/R (Gorman & Sejnowski, 1988).

    Used by Moghaddam, Weiss & Avidan (2006, Sec. 3.2, Fig. 2).

    Parameters
    ----------
    download : bool
        Download the file when no verified copy is under ``SPECTRAL_KIT_DATA`` or in the
        cache; with False a missing file is an OSError.

    Returns
    -------
    RealData
        X of shape (208, 60), 60 frequency bands; y is 1 for R (rock).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.datasets import DATA_FILES, load_sonar
    >>> DATA_FILES["sonar"][0].sha256[:16]
    'e90434cdbf00fcf9'
    >>> data = load_sonar()  # doctest: +SKIP
    >>> data.M.shape, data.target_names, np.bincount(data.y).tolist()  # doctest: +SKIP
    ((60, 208), ('M', 'R'), [111, 97])
    """
    (path,) = _paths("sonar", download)
    X, raw = _csv_with_label(path)
    y, names = _labels(raw)
    return RealData(X, y, tuple(f"band{i + 1:02d}" for i in range(60)), names, "sonar")


def load_segmentation(*, part: str = "all", download: bool = True) -> RealData:
    """UCI image segmentation, seven classes: ``part="all"`` is the training and test files
    together (2310 × 19), ``"train"`` the 210-sample file, ``"test"`` the 2100-sample file.

    Used by Shashua & Wolf (2004, Sec. 6, UCI table) and Mavroeidis & Vazirgiannis
    (Sec. 5).

    Parameters
    ----------
    part : {"all", "train", "test"}
        Which of the two files to read.
    download : bool
        Download the file when no verified copy is under ``SPECTRAL_KIT_DATA`` or in the
        cache; with False a missing file is an OSError.

    Returns
    -------
    RealData
        X of shape (2310, 19) for ``part="all"``; 330 samples of each class.

    Examples
    --------
    >>> from spectral_kit.datasets import DATA_FILES, load_segmentation
    >>> [spec.name for spec in DATA_FILES["segmentation"]]
    ['segmentation.data', 'segmentation.test']
    >>> load_segmentation(part="train").X.shape  # doctest: +SKIP
    (210, 19)
    >>> load_segmentation().target_names  # doctest: +SKIP
    ('BRICKFACE', 'CEMENT', 'FOLIAGE', 'GRASS', 'PATH', 'SKY', 'WINDOW')
    """
    part = check_choice(part, "part", ("all", "train", "test"))
    paths = _paths("segmentation", download)
    paths = {"all": paths, "train": paths[:1], "test": paths[1:]}[part]
    X_parts, raw_parts, header = [], [], ()
    for path in paths:
        for line in path.read_text().splitlines():
            line = line.strip()
            if not line or line.startswith(";"):
                continue
            if line.startswith("REGION-CENTROID-COL"):
                header = tuple(line.split(","))
                continue
            label, *values = line.split(",")
            raw_parts.append(label)
            X_parts.append(values)
    y, names = _labels(np.array(raw_parts))
    return RealData(np.array(X_parts, dtype=np.float64), y, header, names, "segmentation")


def load_spambase(*, download: bool = True) -> RealData:
    """Spambase e-mail features, 4601 × 57, 1 = spam (Hopkins et al., HP Labs, 1999).

    Used by Mavroeidis & Vazirgiannis (Sec. 5).

    Parameters
    ----------
    download : bool
        Download the file when no verified copy is under ``SPECTRAL_KIT_DATA`` or in the
        cache; with False a missing file is an OSError.

    Returns
    -------
    RealData
        X of shape (4601, 57); y is 1 for spam (1813 of the 4601 e-mails).

    Examples
    --------
    >>> from spectral_kit.datasets import DATA_FILES, load_spambase
    >>> DATA_FILES["spambase"][0].folder
    'spambase'
    >>> spam = load_spambase()  # doctest: +SKIP
    >>> spam.X.shape, round(float(spam.y.mean()), 3)  # doctest: +SKIP
    ((4601, 57), 0.394)
    """
    (path,) = _paths("spambase", download)
    X, raw = _csv_with_label(path)
    y = raw.astype(np.float64).astype(np.int64)
    return RealData(X, y, tuple(f"f{i + 1:02d}" for i in range(57)), ("non-spam", "spam"),
                    "spambase")


def load_colon(*, download: bool = True) -> RealData:
    """Alon et al. (1999) colon cancer: 62 tissues × 2000 genes; y = 1 for tumour.

    ``tissue.txt`` gives a negative sign to tumour tissues and a positive one to normal.

    Used by Moghaddam, Weiss & Avidan (2006, Sec. 3.3, Fig. 4).

    Parameters
    ----------
    download : bool
        Download the file when no verified copy is under ``SPECTRAL_KIT_DATA`` or in the
        cache; with False a missing file is an OSError.

    Returns
    -------
    RealData
        X of shape (62, 2000) (tissues × genes); y is 1 for the 40 tumour tissues.

    Examples
    --------
    Two files, the expression matrix and the tissue signs:

    >>> import numpy as np
    >>> from spectral_kit.datasets import DATA_FILES, load_colon
    >>> [spec.name for spec in DATA_FILES["colon"]]
    ['I2000.txt', 'tissue.txt']
    >>> colon = load_colon()  # doctest: +SKIP
    >>> colon.M.shape, np.bincount(colon.y).tolist()  # doctest: +SKIP
    ((2000, 62), [22, 40])
    """
    expr_path, tissue_path = _paths("colon", download)
    X = np.array(expr_path.read_bytes().split(), dtype=np.float64).reshape(2000, 62).T
    signs = np.array(tissue_path.read_bytes().split(), dtype=np.int64)
    y = (signs < 0).astype(np.int64)
    return RealData(X, y, tuple(f"gene{i + 1:04d}" for i in range(2000)), ("normal", "tumour"),
                    "colon")


def load_ecoli(*, download: bool = True) -> RealData:
    """Ecoli protein localisation sites, 336 × 7, eight classes (Horton & Nakai, 1996).

    Used by Shashua & Wolf (2004, Sec. 6, UCI table).

    Parameters
    ----------
    download : bool
        Download the file when no verified copy is under ``SPECTRAL_KIT_DATA`` or in the
        cache; with False a missing file is an OSError.

    Returns
    -------
    RealData
        X of shape (336, 7); two of the eight classes have only two samples.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.datasets import DATA_FILES, load_ecoli
    >>> len(DATA_FILES["ecoli"][0].urls)
    2
    >>> ecoli = load_ecoli()  # doctest: +SKIP
    >>> dict(zip(ecoli.target_names, np.bincount(ecoli.y).tolist()))  # doctest: +SKIP
    {'cp': 143, 'im': 77, 'imL': 2, 'imS': 2, 'imU': 35, 'om': 20, 'omL': 5, 'pp': 52}
    """
    (path,) = _paths("ecoli", download)
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    X = np.array([r[1:8] for r in rows], dtype=np.float64)
    y, names = _labels(np.array([r[8] for r in rows]))
    return RealData(X, y, ("mcg", "gvh", "lip", "chg", "aac", "alm1", "alm2"), names, "ecoli")


def load_dermatology(*, impute_age: bool = True, download: bool = True) -> RealData:
    """Dermatology, 366 × 34, six diseases (Güvenir et al., 1998).

    Eight patients have no recorded age (``?``); with ``impute_age`` the median age is used,
    otherwise those rows are dropped.

    Used by Shashua & Wolf (2004, Sec. 6, UCI table).

    Parameters
    ----------
    impute_age : bool
        Give the eight patients without a recorded age the median age (True) or drop them.
    download : bool
        Download the file when no verified copy is under ``SPECTRAL_KIT_DATA`` or in the
        cache; with False a missing file is an OSError.

    Returns
    -------
    RealData
        X of shape (366, 34) (358 rows without imputation), age last; y in 0…5.

    Examples
    --------
    >>> from spectral_kit.datasets import DATA_FILES, load_dermatology
    >>> DATA_FILES["dermatology"][0].urls[0].rsplit("/", 1)[-1]
    'dermatology.data'
    >>> load_dermatology(impute_age=False).X.shape  # doctest: +SKIP
    (358, 34)
    >>> load_dermatology().feature_names[-1]  # doctest: +SKIP
    'age'
    """
    (path,) = _paths("dermatology", download)
    rows = [line.strip().split(",") for line in path.read_text().splitlines() if line.strip()]
    age = np.array([np.nan if r[33] == "?" else float(r[33]) for r in rows])
    X = np.array([[float(v) for v in r[:33]] for r in rows])
    y = np.array([int(r[34]) for r in rows]) - 1
    if impute_age:
        age = np.where(np.isnan(age), np.nanmedian(age), age)
        keep = np.ones(len(rows), dtype=bool)
    else:
        keep = ~np.isnan(age)
    X = np.column_stack([X, age])[keep]
    names = ("psoriasis", "seborrheic dermatitis", "lichen planus", "pityriasis rosea",
             "chronic dermatitis", "pityriasis rubra pilaris")
    return RealData(X, y[keep], (*tuple(f"a{i + 1:02d}" for i in range(33)), "age"), names,
                    "dermatology")


_LOADERS = {
    "ionosphere": load_ionosphere,
    "sonar": load_sonar,
    "segmentation": load_segmentation,
    "spambase": load_spambase,
    "colon": load_colon,
    "ecoli": load_ecoli,
    "dermatology": load_dermatology,
}


def load_dataset(name: str, **kwargs: object) -> RealData:
    """Load a data set by name (one of :data:`DATA_FILES`).

    Parameters
    ----------
    name : str
        "colon", "dermatology", "ecoli", "ionosphere", "segmentation", "sonar" or
        "spambase".
    **kwargs
        Passed to the data set's loader (``download``; ``part`` for segmentation,
        ``impute_age`` for dermatology).

    Returns
    -------
    RealData
        X (samples × features), y, the feature and class names.

    Examples
    --------
    >>> from spectral_kit.datasets import DATA_FILES, load_dataset
    >>> sorted(DATA_FILES)
    ['colon', 'dermatology', 'ecoli', 'ionosphere', 'segmentation', 'sonar', 'spambase']
    >>> load_dataset("iris")
    Traceback (most recent call last):
    ...
    ValueError: name must be one of colon, dermatology, ..., spambase; got 'iris'.
    >>> load_dataset("segmentation", part="test").X.shape  # doctest: +SKIP
    (2100, 19)
    """
    if name not in _LOADERS:
        raise ValueError(f"name must be one of {', '.join(sorted(_LOADERS))}; got {name!r}.")
    return _LOADERS[name](**kwargs)
