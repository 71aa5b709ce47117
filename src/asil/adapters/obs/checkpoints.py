"""Checkpoint types that read the OBS scene collection saved in the workspace, and recordings.

The episode saves OBS's own collection into the workspace before judging, so these read that
file (no OBS needs to start). Targets: a scene (``"Intro"``), an input field (``"Title.settings.text"``,
``"Music.muted"``), a scene item field (``"Intro/Title.position"``), a filter field
(``"Webcam/Key.settings.similarity"``), a video setting (``"base"``, ``"output"``, ``"fps"``, read from
the ``<stem>.video.json`` file saved beside the collection), collections, profiles and studio mode (the open
collection plus ``<stem>.config.json``) or a workspace file (recordings, screenshots).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from asil.adapters.obs.adapter import DEFAULT_DOCUMENT
from asil.adapters.obs.collection import collection_state, load_collection
from asil.adapters.obs.config import config_document, load_config, studio_state
from asil.adapters.obs.video import load_video, video_document, video_state
from asil.evaluate.checkpoints import (
    Checkpoint,
    CheckpointUnreadable,
    EvalContext,
    checkpoint_type,
    dig,
    entry,
    png_size,
    require,
)
from asil.protocol import DocumentError


def saved_state(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    document = cp.document or DEFAULT_DOCUMENT
    try:
        data = load_collection(ctx.workspace.resolve(document), document)
    except DocumentError as exc:
        raise CheckpointUnreadable(exc.message) from None
    return collection_state(data, ctx.workspace.root)


def _scenes(ctx: EvalContext, cp: Checkpoint) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in saved_state(ctx, cp)["scenes"]}


def _owner_and_field(target: str) -> tuple[str, list[str]]:
    """'Scene/Source.position' -> ('Scene/Source', ['position']); a '.' inside names is not supported."""
    owner, _, rest = target.partition(".")
    return owner, rest.split(".") if rest else []


@checkpoint_type("obs_scene_exists")
def scene_exists(ctx: EvalContext, cp: Checkpoint) -> bool:
    """True when a scene named ``target`` exists."""
    return require(cp.target, "scene name") in _scenes(ctx, cp)


@checkpoint_type("obs_scene_names", default_compare="set")
def scene_names(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """All scene names in OBS's order."""
    return list(_scenes(ctx, cp))


@checkpoint_type("obs_program_scene")
def program_scene(ctx: EvalContext, cp: Checkpoint) -> Any:
    """The program (live) scene's name."""
    return saved_state(ctx, cp)["current_scene"]


@checkpoint_type("obs_input_exists")
def input_exists(ctx: EvalContext, cp: Checkpoint) -> bool:
    """True when an input named ``target`` exists."""
    return require(cp.target, "input name") in saved_state(ctx, cp)["inputs"]


@checkpoint_type("obs_input_value", default_compare="approx")
def input_value(ctx: EvalContext, cp: Checkpoint) -> Any:
    """An input field: ``Title.kind``, ``Title.settings.text``, ``Music.muted``, ``Music.volume_db``."""
    name, path = _owner_and_field(require(cp.target, "target"))
    return dig(entry(saved_state(ctx, cp)["inputs"], name, "input"), path, f"input {name!r}")


@checkpoint_type("obs_scene_sources")
def scene_sources(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The sources shown in scene ``target``, bottom to top."""
    scene = entry(_scenes(ctx, cp), require(cp.target, "scene name"), "scene")
    return [item["source"] for item in scene["items"]]


@checkpoint_type("obs_item_value", default_compare="approx")
def item_value(ctx: EvalContext, cp: Checkpoint) -> Any:
    """A scene item field: ``Intro/Title.position`` ([x, y]), ``.scale``, ``.rotation``, ``.visible``, ``.crop.left``."""
    owner, path = _owner_and_field(require(cp.target, "target"))
    scene_name, _, source = owner.partition("/")
    scene = entry(_scenes(ctx, cp), scene_name, "scene")
    hits = [item for item in scene["items"] if item["source"] == source]
    if len(hits) != 1:
        raise CheckpointUnreadable(f"scene {scene_name!r} shows {source!r} {len(hits)} times, not once")
    return dig(hits[0], path, f"item {owner!r}")


@checkpoint_type("obs_filter_value", default_compare="approx")
def filter_value(ctx: EvalContext, cp: Checkpoint) -> Any:
    """A filter field: ``Webcam/Key.kind``, ``.enabled``, ``.settings.opacity``."""
    owner, path = _owner_and_field(require(cp.target, "target"))
    source, _, name = owner.partition("/")
    hits = [f for f in _filters_of(ctx, cp, source) if f["name"] == name]
    if not hits:
        raise CheckpointUnreadable(f"source {source!r} has no filter {name!r}")
    return dig(hits[0], path or ["kind"], f"filter {owner!r}")


@checkpoint_type("obs_filter_names")
def filter_names(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The names of source ``target``'s filters, in order."""
    return [f["name"] for f in _filters_of(ctx, cp, require(cp.target, "source name"))]


def _filters_of(ctx: EvalContext, cp: Checkpoint, source: str) -> list[dict[str, Any]]:
    state = saved_state(ctx, cp)
    if source in state["inputs"]:
        found: list[dict[str, Any]] = state["inputs"][source]["filters"]
        return found
    for scene in state["scenes"]:
        if scene["name"] == source:
            return list(scene["filters"])
    raise CheckpointUnreadable(f"there is no source {source!r}")


@checkpoint_type("obs_video", default_compare="approx")
def video(ctx: EvalContext, cp: Checkpoint) -> Any:
    """Saved video settings: ``base`` or ``output`` ([width, height]) or ``fps``; OBS's defaults when no file."""
    field = require(cp.target, "video field (base, output or fps)")
    document = video_document(cp.document or DEFAULT_DOCUMENT)
    try:
        state = video_state(load_video(ctx.workspace.resolve(document), document))
    except DocumentError as exc:
        raise CheckpointUnreadable(exc.message) from None
    if field not in state:
        raise CheckpointUnreadable(f"video settings have no {field!r} (use base, output or fps)")
    return state[field]


@checkpoint_type("obs_media_duration", default_compare="range")
def media_duration(ctx: EvalContext, cp: Checkpoint) -> float:
    """Seconds of the recording (or any media file) at workspace path ``target``, read by ffprobe."""
    path = ctx.workspace.resolve(require(cp.target, "file path"))
    if not path.is_file() or shutil.which("ffprobe") is None:
        raise CheckpointUnreadable(f"cannot read {cp.target!r} (missing file or ffprobe)")
    done = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "json", str(path)],
                          capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    try:
        return float(json.loads(done.stdout)["format"]["duration"])
    except (ValueError, KeyError, TypeError):
        raise CheckpointUnreadable(f"ffprobe found no duration in {cp.target!r}") from None


@checkpoint_type("obs_image_size")
def image_size(ctx: EvalContext, cp: Checkpoint) -> list[int]:
    """[width, height] of the PNG at workspace path ``target`` (an OBS screenshot)."""
    return png_size(ctx.workspace.resolve(require(cp.target, "image path")), repr(cp.target))


# ------------------------------------------------------------------ collections, profiles, studio mode
def _studio(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    """Collections, profiles and studio mode: the open collection plus ``<stem>.config.json`` beside it."""
    document = cp.document or DEFAULT_DOCUMENT
    config_doc = config_document(document)
    try:
        data = load_collection(ctx.workspace.resolve(document), document)
        config = load_config(ctx.workspace.resolve(config_doc), config_doc)
    except DocumentError as exc:
        raise CheckpointUnreadable(exc.message) from None
    return studio_state(data, config)


@checkpoint_type("obs_collection")
def current_collection(ctx: EvalContext, cp: Checkpoint) -> Any:
    """The name of the open scene collection."""
    return _studio(ctx, cp)["collection"]


@checkpoint_type("obs_collection_names", default_compare="set")
def collection_names(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The names of all scene collections (the open one and the others)."""
    return list(_studio(ctx, cp)["collections"])


@checkpoint_type("obs_collection_scenes", default_compare="set")
def collection_scenes(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The scene names of collection ``target`` (unreadable when there is no such collection)."""
    name = require(cp.target, "collection name")
    scenes: list[str] = entry(_studio(ctx, cp)["collections"], name, "scene collection")
    return scenes


@checkpoint_type("obs_profile")
def current_profile(ctx: EvalContext, cp: Checkpoint) -> Any:
    """The name of the current profile."""
    return _studio(ctx, cp)["profile"]


@checkpoint_type("obs_profile_names", default_compare="set")
def profile_names(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The names of all profiles."""
    return list(_studio(ctx, cp)["profiles"])


@checkpoint_type("obs_profile_video", default_compare="approx")
def profile_video(ctx: EvalContext, cp: Checkpoint) -> Any:
    """A profile's video setting: ``Vertical.base``, ``.output`` or ``.fps`` (the current profile's from the
    video file, the others' from the config file)."""
    profile, path = _owner_and_field(require(cp.target, "'<profile>.base|output|fps'"))
    document = cp.document or DEFAULT_DOCUMENT
    if _studio(ctx, cp)["profile"] == profile:
        video_doc = video_document(document)
        try:
            state = video_state(load_video(ctx.workspace.resolve(video_doc), video_doc))
        except DocumentError as exc:
            raise CheckpointUnreadable(exc.message) from None
    else:
        config_doc = config_document(document)
        profiles = load_config(ctx.workspace.resolve(config_doc), config_doc)["profiles"]
        state = video_state(entry(profiles, profile, "profile"))
    return dig(state, path, f"profile {profile!r}")


@checkpoint_type("obs_studio_mode")
def studio_mode(ctx: EvalContext, cp: Checkpoint) -> bool:
    """True when studio mode is on."""
    return bool(_studio(ctx, cp)["studio_mode"])


@checkpoint_type("obs_preview_scene")
def preview_scene(ctx: EvalContext, cp: Checkpoint) -> Any:
    """The studio-mode preview scene's name (None when studio mode is off)."""
    return _studio(ctx, cp)["preview_scene"]
