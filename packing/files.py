"""Writing output files whole: a file is written under a temporary name next to it and
only then renamed over the old one, so a full disk, a file-size limit or an error leaves
the earlier file as it was. A process killed while writing may leave the temporary file
(hidden, ``.NAME.<random>.part``) behind, never a half-written ``NAME``. Used by every
command line that writes a file and by the calibrations the pages save."""
from __future__ import annotations

import errno
import os
import secrets
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pandas as pd


def _new_part(target: Path) -> Path:
    """A new, empty temporary file next to ``target``, with the permissions a new file
    gets here (the kernel applies the umask)."""
    while True:
        part = target.with_name(f".{target.name}.{secrets.token_hex(4)}.part")
        try:
            os.close(os.open(part, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
            return part
        except FileExistsError:
            continue


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A path to write ``path``'s new content to; when the block ends without an error it
    replaces ``path`` in one step, otherwise it is removed and ``path`` is left as it was.

    A link is followed (its target is replaced), an existing file keeps its permissions
    and a read-only one is refused, as writing it in place would; a device or pipe (e.g.
    ``/dev/stdout``) is written in place.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "a.txt").write_text("old")
    3
    >>> try:
    ...     with replacing(folder / "a.txt") as part:
    ...         _ = part.write_text("ne")
    ...         raise OSError("disk full")
    ... except OSError:
    ...     pass
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('old', ['a.txt'])
    >>> with replacing(folder / "a.txt") as part:
    ...     _ = part.write_text("new")
    >>> (folder / "a.txt").read_text()
    'new'
    """
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():
        yield target
        return
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
    if mode is not None and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))
    part = _new_part(target)
    try:
        if mode is not None:
            os.chmod(part, mode)
        yield part
        os.replace(part, target)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


def write_replacing(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` whole (:func:`replacing`); returns ``path``.

    >>> import tempfile
    >>> write_replacing(Path(tempfile.mkdtemp()) / "b.json", "{}").read_text()
    '{}'
    """
    path = Path(path)
    with replacing(path) as part:
        if isinstance(data, bytes):
            part.write_bytes(data)
        else:
            part.write_text(data, encoding="utf-8")
    return path


def write_frame(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write a table whole (:func:`replacing`): Parquet for a ``.parquet`` path, else CSV,
    without the index; returns ``path``.

    >>> import tempfile
    >>> path = write_frame(pd.DataFrame({"a": [1, 2]}), Path(tempfile.mkdtemp()) / "t.csv")
    >>> path.read_text()
    'a\\n1\\n2\\n'
    """
    path = Path(path)
    with replacing(path) as part:
        if path.suffix == ".parquet":
            frame.to_parquet(part, index=False)
        else:
            frame.to_csv(part, index=False)
    return path
