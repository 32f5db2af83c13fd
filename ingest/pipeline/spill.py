"""A worker's large result handed over as a file instead of through the pool's pipe.

Why: a result sent through `ProcessPoolExecutor` is pickled whole into one bytes object in the
worker and read whole into another in the main process before it is unpickled; for DA-619p
(619 pages, 10 MB pickled) that held about 18 MB more at the worker's peak and 10 MB more at
the main process's. And the page ranges of a split document (`ingest.pipeline.split`) went
through the main process (unpickled there, about 45 MB of page layouts, then pickled again for
the assembling worker) although only the assembling worker reads them: the main process's peak
went from 67 to 159 MB for that alone (docs/benchmarks.md, "Memory per process").

So a worker writes such a value with `pickle.dump` into the run's spill directory (streamed:
no whole-pickle buffer) and returns a `Spilled`; whoever needs the value reads it with
`pickle.load` (streamed) - the main process for a document's result, the assembling worker for
the page ranges, which the main process only passes on. The directory is made and removed by
the pool (`workers._execute_in_pool`), so files left by a killed task go with it. Files are
private to the run (mode 0600, a directory of the run's own, mode 0700), under the system's
temporary directory (`TMPDIR`); where that is a tmpfs the bytes sit in memory there, but in no
process's resident set, and only until they are read.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Spilled:
    """A value pickled into the file at `path`. `keep`: the pool passes it on as it is (the
    caller reads it, e.g. a page range for the assembling worker); otherwise the pool reads it
    back in the main process before returning the result."""

    path: str
    keep: bool = False

    def load(self) -> Any:
        """The value (the file stays: `remove` it when no task may need it again, e.g. a retry)."""
        with open(self.path, "rb") as file:
            return pickle.load(file)

    def remove(self) -> None:
        try:
            os.unlink(self.path)
        except OSError:
            pass


def spill(value: Any, directory: str, keep: bool = False) -> Spilled | Any:
    """`value` written to a new file in `directory`, as a `Spilled`; `value` itself when it cannot
    be written (a full disk, the directory gone): the pipe still works, at the old memory cost."""
    try:
        handle, path = tempfile.mkstemp(dir=directory, prefix="result-", suffix=".pickle")
    except OSError:
        return value
    try:
        with os.fdopen(handle, "wb") as file:
            pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)
    except OSError:
        Spilled(path).remove()
        return value
    return Spilled(path, keep)


def loaded(value: Any) -> Any:
    """`value`, read back and its file removed when it is a `Spilled` not kept for a later task."""
    if isinstance(value, Spilled) and not value.keep:
        try:
            return value.load()
        finally:
            value.remove()
    return value
