"""Writing output files whole: a file is written under a temporary name next to it and
only then renamed over the old one, so a full disk, a file-size limit or a killed process
leaves the earlier file as it was (and no half-written one), on every command line and page
that writes one."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


def _file_mode() -> int:
    """The permissions a new file gets here (0o666 less the umask), for the temporary
    file, which ``mkstemp`` makes readable by its owner only."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A temporary path in ``path``'s folder to write to; when the block ends without an
    error it replaces ``path`` in one step, otherwise it is removed and ``path`` is left as
    it was.

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
    path = Path(path)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    os.close(handle)
    part = Path(name)
    try:
        os.chmod(part, _file_mode())
        yield part
        os.replace(part, path)
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
