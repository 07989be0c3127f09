"""Output files are written whole (packing.io.replacing): the earlier file survives a failed
write, a link's target is replaced (not the link), permissions are kept, a read-only file
is refused as writing it in place would be, and devices are written in place."""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from packing.io import replacing, write_replacing


def test_a_failed_write_leaves_the_old_file_and_no_part(tmp_path):
    path = tmp_path / "out.json"
    path.write_text("old")
    with pytest.raises(RuntimeError):
        with replacing(path) as part:
            part.write_text("half")
            raise RuntimeError("killed")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_a_link_keeps_pointing_at_its_target_which_gets_the_new_content(tmp_path):
    real, link = tmp_path / "real.json", tmp_path / "link.json"
    real.write_text("old")
    link.symlink_to(real)
    write_replacing(link, "new")
    assert link.is_symlink() and real.read_text() == "new" and link.read_text() == "new"


def test_permissions_are_kept_and_a_new_file_gets_the_umask(tmp_path):
    private = tmp_path / "private.json"
    private.write_text("old")
    private.chmod(0o600)
    write_replacing(private, "new")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    mask = os.umask(0o027)
    try:
        fresh = write_replacing(tmp_path / "fresh.json", "x")
    finally:
        os.umask(mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o640


def test_a_read_only_file_is_refused():
    """As a user without root's right to write anything: a forked child that becomes
    ``nobody`` when the tests run as root (in a folder of its own that ``nobody`` can
    reach: pytest's are the test user's alone)."""
    folder = Path(tempfile.mkdtemp())
    folder.chmod(0o777)
    locked = folder / "locked.json"
    locked.write_text("old")
    locked.chmod(0o444)
    child = os.fork()
    if child == 0:
        code = 4
        try:
            if os.geteuid() == 0:
                os.chown(locked, 65534, 65534)
                os.setuid(65534)
            write_replacing(locked, "new")
            code = 0
        except PermissionError as error:
            code = 3 if error.filename == str(locked) else 5  # named as the user gave it, not a temporary file
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 3  # refused, as writing the file in place would be
    assert locked.read_text() == "old" and [p.name for p in folder.iterdir()] == ["locked.json"]
    shutil.rmtree(folder)


def test_a_device_is_written_in_place():
    write_replacing("/dev/null", "discarded")
    assert stat.S_ISCHR(Path("/dev/null").stat().st_mode)
