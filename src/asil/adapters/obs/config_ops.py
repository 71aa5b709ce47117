"""Renaming and removing scene collections and profiles: OBS's own file changes, made while OBS is stopped.

obs-websocket 5.1 has no request that renames or removes a scene collection or a profile. OBS itself
does both on files: a collection is a JSON file in ``basic/scenes`` carrying its name inside, a
profile a folder in ``basic/profiles`` whose ``basic.ini`` holds ``[General] Name``; Rename writes the
new name (and a new file or folder name), Remove deletes the file or folder. OBS 29 builds its
Scene Collection and Profile menus from those files and switches only through its menus, so a file
changed behind a running OBS would leave a menu entry that cannot be opened. The adapter therefore
makes the change to what it keeps for OBS (:class:`Kept`: the open collection's checkpoint, the other
collections' files, the profiles' video settings) and restarts OBS, which reads its config folder
anew, as after a restart of the real program.

Removing the open collection or the current profile is refused: OBS's own Remove first switches to
another one, and an agent can do that with switch_collection / switch_profile.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asil.adapters.obs import actions as act
from asil.adapters.obs.operations import Names, some_names
from asil.adapters.obs.studio_ops import COLLECTION_HINT, _free_collection, _no_recording
from asil.protocol import InvalidAction
from asil.workspace import Workspace


@dataclass
class Kept:
    """What a (re)started OBS gets besides its program: the open collection's name and its checkpoint file,
    the other collections' files, the current profile and the other profiles' video settings."""

    collection: str
    checkpoint: Path
    others: dict[str, Path]
    profile: str
    profiles: dict[str, dict[str, int]]


Edit = Callable[[Kept, Any], list[str]]


@dataclass(frozen=True)
class ConfigEdit:
    """The handler of a function that changes OBS's config files: ``check`` against the names model,
    ``edit`` the kept config (the adapter then restarts OBS on it)."""

    check: Callable[[Names, Any, Workspace], None]
    edit: Edit


def _current_collection(names: Names) -> str:
    return str(names.obs.request("GetSceneCollectionList")["currentSceneCollectionName"])


def _known_collection(names: Names, name: str) -> None:
    if name not in names.collections:
        raise InvalidAction(f"There is no scene collection {name!r}.",
                            hint=COLLECTION_HINT.format(some_names(names.collections)), code="unknown_collection")


def _rename_file(file: Path, name: str) -> None:
    data = json.loads(file.read_text(encoding="utf-8"))
    data["name"] = name  # OBS lists a collection by the name inside its file
    file.write_text(json.dumps(data, indent=4), encoding="utf-8")


# ------------------------------------------------------------------ scene collections
def check_rename_collection(names: Names, p: act.RenameCollection, ws: Workspace) -> None:
    _no_recording(names, "Scene collections")
    _known_collection(names, p.collection)
    _free_collection(names, p.name)


def rename_collection(kept: Kept, p: act.RenameCollection) -> list[str]:
    if p.collection == kept.collection:
        _rename_file(kept.checkpoint, p.name)
        kept.collection = p.name
    else:
        file = kept.others.pop(p.collection)
        _rename_file(file, p.name)
        kept.others[p.name] = file
    return ["@collections", "@program"]


def check_remove_collection(names: Names, p: act.CollectionParams, ws: Workspace) -> None:
    _no_recording(names, "Scene collections")
    _known_collection(names, p.collection)
    if p.collection == _current_collection(names):
        others = [n for n in names.collections if n != p.collection]
        raise InvalidAction(f"The scene collection {p.collection!r} is the open one and cannot be removed.",
                            hint=(f"Switch to another collection first (switch_collection: {some_names(others)})."
                                  if others else "Create or switch to another collection first."),
                            code="collection_open")


def remove_collection(kept: Kept, p: act.CollectionParams) -> list[str]:
    kept.others.pop(p.collection).unlink(missing_ok=True)
    return ["@collections"]


# ------------------------------------------------------------------ profiles
def _known_profile(names: Names, name: str) -> None:
    if name not in names.profiles:
        raise InvalidAction(f"There is no profile {name!r}.", hint=f"Profiles: {some_names(names.profiles)}.",
                            code="unknown_profile")


def check_rename_profile(names: Names, p: act.RenameProfile, ws: Workspace) -> None:
    _no_recording(names, "Profiles")
    _known_profile(names, p.profile)
    if p.name in names.profiles:
        raise InvalidAction(f"There is already a profile {p.name!r}.",
                            hint=f"Choose another name; profiles: {some_names(names.profiles)}.", code="name_taken")


def rename_profile(kept: Kept, p: act.RenameProfile) -> list[str]:
    if p.profile == kept.profile:
        kept.profile = p.name
    else:
        kept.profiles[p.name] = kept.profiles.pop(p.profile)
    return ["@profiles"]


def check_remove_profile(names: Names, p: act.ProfileParams, ws: Workspace) -> None:
    _no_recording(names, "Profiles")
    _known_profile(names, p.profile)
    if p.profile == names.obs.request("GetProfileList")["currentProfileName"]:
        others = [n for n in names.profiles if n != p.profile]
        raise InvalidAction(f"The profile {p.profile!r} is the current one and cannot be removed.",
                            hint=(f"Switch to another profile first (switch_profile: {some_names(others)})."
                                  if others else "Create or switch to another profile first."),
                            code="profile_current")


def remove_profile(kept: Kept, p: act.ProfileParams) -> list[str]:
    del kept.profiles[p.profile]
    return ["@profiles"]
