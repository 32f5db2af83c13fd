"""py3langid's bundled model, memory-mapped from an uncompressed copy instead of held in each process.

Why: loaded the usual way (`LanguageIdentifier.from_model_file`), the model is about 78 MB of
private memory per process (the DFA's transition table alone is 37 MB, the full 100,053 x 142
feature table 27 MB) and peaks 25 MB higher while the LZMA file is unpacked. The worker pool's
forkserver loads it and every worker forked from it counts those pages in its resident set, so
it was a third of each worker's 250 MB on DA-619p (docs/benchmarks.md, "Memory per process").

How: the first load unpacks the model once into `ingest.contracts.cache.cache_dir()` (a file
named after the SHA-256 of py3langid's model file, written to a temporary name and renamed, so
readers never see half a file; about 95 MB on disk) and every load maps that file read-only. The arrays are
`memoryview`s and numpy views over the map: a page of the file is resident only once a text
walks it, it is shared by every process through the page cache, and a forked worker counts
only the pages it touches itself. The restricted feature table for `enrich.languages` (24
columns by default, 4.6 MB) is copied into memory as `set_languages` would. Loading from the
map costs no LZMA (about 0.8 s of CPU less per process start).

Answers are identical to py3langid's own loader: the same arrays, the same dtypes and the same
C-contiguous layout of the table the scores are computed from (a test classifies the same texts
both ways). When the cache directory cannot be written, the model is loaded the usual way.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
from pathlib import Path

from ingest.contracts.cache import cache_dir, written_atomically

#: Bumped when the file layout below changes (the file name carries it).
FORMAT = 2
_MAGIC = b"ingest-py3langid\n"
_ALIGN = 4096  # every array starts on a page boundary
#: The file is written in writes of one page: the page cache then holds it as single pages, and a
#: fault maps a few neighbours (64 KiB) instead of a whole large folio (up to 2 MiB, measured on
#: Linux 6.18 ext4 after one big write: 16 touched bytes 4 MiB apart made 26 MB resident, 1 MB
#: after page-sized writes). The map is read with MADV_RANDOM (no read-ahead into large folios).
_PAGE = 4096


def load_identifier(languages: tuple[str, ...]):
    """A py3langid `LanguageIdentifier` answering only `languages` (empty: every language the
    model knows), its arrays mapped from the unpacked copy (module docstring). The codes must
    be known to the model (checked by the caller, `enrich._check_language_codes`)."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    source = MODEL_DIR / MODEL_FILE
    try:
        arrays = _mapped(source)
    except OSError:  # no writable cache directory: the model in memory, as py3langid loads it
        identifier = LanguageIdentifier.from_model_file(source)
        if languages:
            identifier.set_languages(list(languages))
        return identifier
    try:
        return _identifier_from(arrays, languages, LanguageIdentifier)
    finally:
        os.close(arrays["fd"])  # the map stays valid without it


def _identifier_from(arrays: dict, languages: tuple[str, ...], identifier_class):
    """What `from_model_file` then `set_languages(languages)` build, from the mapped arrays."""
    import numpy as np

    classes = arrays["classes"]
    if languages:
        wanted = set(languages)
        indices = [i for i, code in enumerate(classes) if code in wanted]
        ptc = _columns(arrays, indices)
        pc = arrays["pc"][indices]
        classes = [classes[i] for i in indices]
    else:
        ptc, pc = arrays["ptc"], np.array(arrays["pc"])
    # tk_row=(): py3langid would build _rowbase = [r << 8 for r in tk_row], 104,583 ints; the
    # file holds it, mapped.
    identifier = identifier_class(ptc, pc, classes, arrays["nextmove"], arrays["out_feat"], tk_row=())
    identifier.tk_row, identifier._rowbase = arrays["row"], arrays["rowbase"]
    return identifier


def _columns(arrays: dict, indices: list[int]):
    """`ptc[:, indices]` as `set_languages` makes it (C-contiguous, in memory), each column read
    from the transposed copy with `pread`, so the map's pages stay untouched (not resident)."""
    import numpy as np

    transposed = arrays["ptc_t"]
    rows, dtype = transposed.shape[1], transposed.dtype
    table = np.empty((rows, len(indices)), dtype=dtype)
    for column, index in enumerate(indices):
        data = os.pread(arrays["fd"], rows * dtype.itemsize, arrays["ptc_t_at"] + index * rows * dtype.itemsize)
        table[:, column] = np.frombuffer(data, dtype=dtype)
    return table


def _mapped(source: Path) -> dict:
    """The arrays of the unpacked copy of `source`, made first when missing. OSError when the
    copy can be neither read nor made."""
    from py3langid import __version__

    stat = source.stat()  # the installed model: its path, size and time stand for its content
    digest = hashlib.sha256(f"{source}|{stat.st_size}|{stat.st_mtime_ns}|{__version__}".encode()).hexdigest()[:20]
    path = cache_dir() / f"py3langid-{digest}-v{FORMAT}.bin"
    try:
        return _read(path)
    except (OSError, ValueError):
        pass
    _write_in_child(source, path)
    return _read(path)


def _write_in_child(source: Path, path: Path) -> None:
    """`_write` in a new interpreter: unpacking peaks at about 100 MB above the process's own
    memory (py3langid's loader holds the numpy arrays and their copies at once), which a
    long-lived process (the forkserver, every worker forked from it) would keep as its peak and
    partly as fragmented heap. OSError when it fails. About 1 s of CPU, once per installed model."""
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path; from ingest.pipeline.language_model import _write; "
        "_write(Path(sys.argv[1]), Path(sys.argv[2]))"
    )
    here = str(Path(__file__).resolve().parents[2])  # the directory holding the `ingest` package
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [sys.executable, "-c", code, str(source), str(path)], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise OSError(f"unpacking the language model into {path} failed: {done.stderr.strip()[-500:]}")


def _write(source: Path, path: Path) -> None:
    """Unpack `source` with py3langid's loader and write its arrays to `path` (atomically)."""
    import numpy as np
    from py3langid.modelio import load_model

    ptc, pc, classes, nextmove, row, output = load_model(source)
    row_array = np.frombuffer(row, dtype=_dtype(row))
    arrays = {
        "ptc": np.ascontiguousarray(ptc),
        "ptc_t": np.ascontiguousarray(np.asarray(ptc).T),
        "pc": np.ascontiguousarray(pc),
        "nextmove": np.frombuffer(nextmove, dtype=_dtype(nextmove)),
        "row": row_array,
        "rowbase": row_array.astype(np.uint32) << 8,
        "out_feat": np.asarray(output, dtype=np.int32),
    }
    header: dict = {"classes": list(classes), "arrays": {}}
    offset = 0
    for name, array in arrays.items():
        header["arrays"][name] = {"offset": offset, "dtype": array.dtype.str, "shape": list(array.shape)}
        offset += -(-array.nbytes // _ALIGN) * _ALIGN
    head = json.dumps(header).encode()
    start = -(-(len(_MAGIC) + 8 + len(head)) // _ALIGN) * _ALIGN
    with written_atomically(path) as out:
        out.write(_MAGIC + len(head).to_bytes(8, "little") + head)
        for name, array in arrays.items():
            out.seek(start + header["arrays"][name]["offset"])
            data = memoryview(array).cast("B")
            for at in range(0, len(data), _PAGE):  # page by page: see _PAGE
                out.write(data[at : at + _PAGE])
        out.truncate(start + offset)


def _dtype(array) -> str:
    """The numpy dtype of a stdlib `array.array` (py3langid's 'H' and 'I' tables)."""
    return {2: "<u2", 4: "<u4", 8: "<u8"}[array.itemsize]


def _read(path: Path) -> dict:
    """The arrays of the file at `path`, mapped read-only: numpy arrays for the tables the scores
    use, `memoryview`s for the ones the DFA walk indexes one item at a time (as fast as lists);
    "fd": the open file, for `_columns` (the caller closes it)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        return _arrays(path, fd)
    except BaseException:
        os.close(fd)
        raise


def _arrays(path: Path, fd: int) -> dict:
    """`_read` on the open file `fd`. ValueError when it is not a whole unpacked model."""
    import numpy as np

    mapped = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    if hasattr(mapped, "madvise") and hasattr(mmap, "MADV_RANDOM"):
        mapped.madvise(mmap.MADV_RANDOM)
    if mapped[: len(_MAGIC)] != _MAGIC:
        raise ValueError(f"{path}: not an unpacked py3langid model")
    size = int.from_bytes(mapped[len(_MAGIC) : len(_MAGIC) + 8], "little")
    header = json.loads(mapped[len(_MAGIC) + 8 : len(_MAGIC) + 8 + size])
    start = -(-(len(_MAGIC) + 8 + size) // _ALIGN) * _ALIGN
    arrays: dict = {"classes": header["classes"], "fd": fd, "ptc_t_at": start + header["arrays"]["ptc_t"]["offset"]}
    for name, spec in header["arrays"].items():
        dtype = np.dtype(spec["dtype"])
        count = int(np.prod(spec["shape"]))
        if start + spec["offset"] + count * dtype.itemsize > len(mapped):
            raise ValueError(f"{path}: truncated")
        array = np.frombuffer(mapped, dtype=dtype, count=count, offset=start + spec["offset"]).reshape(spec["shape"])
        arrays[name] = array
    for name, code in (("nextmove", "I"), ("row", "H"), ("rowbase", "I"), ("out_feat", "i")):
        arrays[name] = memoryview(arrays[name]).cast("B").cast(code)
    return arrays
