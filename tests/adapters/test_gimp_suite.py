"""The GIMP task suite's shape (the tasks themselves are proven sound by tests/test_tasks.py)."""

from __future__ import annotations

from asil.tasks import load_tasks


def test_the_gimp_suite_has_twenty_tasks_with_an_infeasible_one_and_several_paths() -> None:
    tasks = load_tasks(suite="core", app="gimp")  # the multi suite mixes apps
    assert len(tasks) >= 20
    assert sum(not t.feasible for t in tasks) == 1
    assert sum(len(t.evaluator.paths) > 1 for t in tasks) >= 2
    assert {f.kind for t in tasks for f in t.setup.files} == {"image", "asset"}  # assets: photos to place as layers
    kinds = {f.path.rsplit(".", 1)[-1] for t in tasks for f in t.setup.files}
    assert kinds == {"png", "xcf", "jpg"}  # flattened photos, layered documents and photo files to place


def test_the_core_photos_are_the_hard_suites_photos_byte_for_byte() -> None:
    from asil.tasks.loader import builtin_root, hard_root

    core = builtin_root() / "core" / "gimp" / "assets"
    photos = sorted(core.glob("*.jpg"))
    assert len(photos) == 3
    for photo in photos:
        assert photo.read_bytes() == (hard_root() / "assets" / photo.name).read_bytes(), photo.name


def test_issue_14_sub_items_each_have_three_tasks_on_the_xcf() -> None:
    tasks = {t.id: t for t in load_tasks(suite="core", app="gimp")}
    checks = [c for t in tasks.values() for path in t.evaluator.paths for c in path]
    layer_fields = {c.target.rpartition(".")[2] for c in checks if c.type == "gimp_layer_value" and c.target}
    assert {"mode", "font", "font_size", "color", "fill"} <= layer_fields
    xcf_composites = {t.id for t in tasks.values() for path in t.evaluator.paths for c in path
                      if c.type == "gimp_pixel_stats" and str(c.document).endswith(".xcf")}
    assert len(xcf_composites) >= 6
    placing = [t for t in tasks.values() if any(a.target == "place_image" for a in t.reference)]
    assert len(placing) >= 3
