"""Zip and tar archives: packing workspace paths, and unpacking only what stays inside the target folder.

Nautilus 43 compresses and extracts through its GUI only (no D-Bus method), so the adapter does
it with Python's zipfile/tarfile, with the checks a hostile archive needs: no absolute names,
no '..', no links or devices, nothing overwritten, and bounded member count and size.
"""

from __future__ import annotations

import os
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from asil.protocol import InvalidAction

MAX_MEMBERS = 10_000
MAX_BYTES = 200 * 1024 * 1024



def _is_zip(path: Path) -> bool:
    return path.name.lower().endswith(".zip")


def _gzipped(path: Path) -> bool:
    return path.suffix.lower() in (".gz", ".tgz")


def _tree(source: Path) -> list[Path]:
    """``source`` and everything under it, never through a symlink (zip has no portable symlinks, and a
    followed link could pack files from outside the workspace): symlinks are left out."""
    if source.is_symlink():
        return []
    if not source.is_dir():
        return [source]
    found = [source]
    for folder, dirs, files in os.walk(source):  # does not descend into symlinked folders
        for name in sorted(dirs) + sorted(files):
            path = Path(folder, name)
            if not path.is_symlink():
                found.append(path)
    return sorted(found)


def pack(sources: list[Path], archive: Path) -> None:
    """Write ``archive`` with each source under its own name (folders recursively); temp file, then rename."""
    temp = archive.with_name(f".{archive.name}.asil-part")
    try:
        if _is_zip(archive):
            with zipfile.ZipFile(temp, "w", zipfile.ZIP_DEFLATED) as zf:
                for source in sources:
                    for path in _tree(source):
                        zf.write(path, path.relative_to(source.parent).as_posix())
        else:
            with tarfile.open(temp, "w:gz") if _gzipped(archive) else tarfile.open(temp, "w") as tf:
                for source in sources:
                    tf.add(source, source.name)
        os.replace(temp, archive)
    finally:
        temp.unlink(missing_ok=True)


def _names(archive: Path, shown: str) -> list[tuple[str, bool, int]]:
    """(name, is_folder, size) of every member; InvalidAction for anything unsafe or unreadable."""
    try:
        if _is_zip(archive):
            with zipfile.ZipFile(archive) as zf:
                return [(i.filename, i.is_dir(), i.file_size) for i in zf.infolist()]
        with tarfile.open(archive, "r:*") as tf:
            members = []
            for m in tf.getmembers():
                if not (m.isfile() or m.isdir()):
                    raise InvalidAction(f"{shown!r} holds {m.name!r}, a link or device, which is not extracted.",
                                        hint="Only archives of plain files and folders can be extracted.")
                members.append((m.name, m.isdir(), m.size))
            return members
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        raise InvalidAction(f"{shown!r} is not a readable archive ({exc}).",
                            hint="Give a .zip, .tar, .tar.gz or .tgz file.", code="bad_archive") from None


def check_members(archive: Path, folder: Path, shown: str) -> list[str]:
    """The top-level names the archive would create in ``folder``; refuses unsafe or clashing archives."""
    members = _names(archive, shown)
    if len(members) > MAX_MEMBERS or sum(size for _, _, size in members) > MAX_BYTES:
        raise InvalidAction(f"{shown!r} is too large to extract here (over {MAX_MEMBERS} members or "
                            f"{MAX_BYTES // 2**20} MiB).", hint="Extract a smaller archive.")
    tops: list[str] = []
    base = Path(os.path.realpath(folder))
    for name, is_folder, _ in members:
        parts = PurePosixPath(name).parts
        if not parts or name.startswith("/") or ".." in parts or "\\" in name or "\x00" in name:
            raise InvalidAction(f"{shown!r} holds the unsafe name {name!r}, which would land outside the folder.",
                                hint="Only archives whose names stay inside the folder can be extracted.")
        if parts[0] not in tops:
            tops.append(parts[0])
        target = folder.joinpath(*parts)
        real = Path(os.path.realpath(target))  # a symlink already in the folder must not lead out of it
        if real != base and base not in real.parents:
            raise InvalidAction(f"Extracting {shown!r} would write {name!r} through a symlink out of the folder.",
                                hint="Extract into a folder without symlinks, or remove the link first.")
        if os.path.lexists(target) and not (is_folder and target.is_dir()):
            raise InvalidAction(f"Extracting {shown!r} would overwrite {name!r} in the destination.",
                                hint="Extract into a new or empty folder.", code="path_exists")
    return tops


def unpack(archive: Path, folder: Path) -> list[str]:
    tops = check_members(archive, folder, archive.name)
    folder.mkdir(exist_ok=True)
    if _is_zip(archive):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(folder)
    else:
        with tarfile.open(archive, "r:*") as tf:
            tf.extractall(folder, filter="data")
    return tops


def member_names(archive: Path) -> list[str]:
    """Sorted member names, folders without a trailing slash (checkpoints read this)."""
    return sorted({name.rstrip("/") for name, _, _ in _names(archive, archive.name)})
