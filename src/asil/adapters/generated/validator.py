"""The raw validator of every generated app: its bundle's second, independent read path.

The adapter reads through the app's interface (the document's XPaths, the service's HTTP API, the
scripting runtime); this reads the saved file the program itself keeps (the ``.dia`` XML, Syncthing's
``config.xml``, the ``Document.xml`` inside an ``.FCStd``) through the profile's separately declared
raw paths, with no program running. Anything it cannot read is a failed checkpoint.
"""

from __future__ import annotations

from typing import Any

from asil.adapters.generated.bundle import load_bundle
from asil.adapters.generated.checkpoints import split_target
from asil.adapters.generated.stores import read_xml_records
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, default_compare
from asil.evaluate.compare import compare
from asil.protocol import AsilError
from asil.workspace import Workspace


def _actual(cp: Checkpoint, workspace: Workspace) -> Any:
    bundle = load_bundle(str(cp.app))
    location = workspace.resolve(cp.document or bundle.document)
    records = {f"{kind}/{ident}": (kind, fields)
               for kind, ident, fields in read_xml_records(bundle.raw, bundle.raw_elements, location, workspace)}
    target = str(cp.target)
    if cp.type == "profile_exists":
        return target in records
    if cp.type == "profile_count":
        return sum(kind == target for kind, _ in records.values())
    element, field = split_target(target)
    fields = records[element][1]
    return fields[field]


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None, answer: str | None) -> bool:
    if cp.type not in ("profile_field", "profile_exists", "profile_count") or not cp.app or not cp.target:
        return False
    try:
        actual = _actual(cp, workspace)
    except (AsilError, CheckpointUnreadable, KeyError, ValueError, OSError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)
