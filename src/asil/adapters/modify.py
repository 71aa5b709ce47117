"""``modify_file``: a list of operations on the app's document, applied atomically with one save.

An operation is named after the app function it runs (``{"op": "insert_rows", "params": {...}}``) or is
``set_value`` (``{"op": "set_value", "target": "Sheet1!B3", "params": {"value": 5}}``), and it is
validated exactly like that function or set_value. It is built on the app's batch: the operations become
the members of one batch (which every file-backed adapter runs all or nothing against a snapshot), and
the document is saved once when all of them succeeded. A failed operation leaves the file on disk
byte-for-byte as it was, and the error names the operation by its place and kind.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from asil.adapters.params import Params, parse_params
from asil.protocol import Action, AsilError, InvalidAction

if TYPE_CHECKING:
    from asil.adapters.functions import FunctionTable, Vocabulary

SET_VALUE = "set_value"
_MEMBER = re.compile(r"^Batch (?:action|step) (\d+)(?: \([^)]*\))?: ")


class Operation(Params):
    op: str = Field(description="The operation's kind: an app function's name, or set_value.")
    target: str | None = Field(None, description="set_value only: the element id it sets, as in a set_value action.")
    params: dict[str, Any] = Field(default_factory=dict,
                                   description="The operation's parameters, exactly as the function (or set_value) takes them.")


def modify_params(max_operations: int) -> type[Params]:
    """The params of ``modify_file``: the operations, in the order they apply."""

    class ModifyFile(Params):
        operations: Annotated[list[Operation], Field(min_length=1, max_length=max_operations)]

    return ModifyFile


def operation_kinds(vocabulary: Vocabulary, functions: FunctionTable[Any]) -> list[str]:
    """What an operation may be: set_value where the app takes it, then every function a batch may hold."""
    kinds: list[str] = [SET_VALUE] if SET_VALUE in vocabulary.action_types and SET_VALUE in vocabulary.batch_members else []
    if "invoke_function" in vocabulary.batch_members:
        excluded = set(functions.batch_excluded())
        kinds += [name for name in functions.names() if name not in excluded]
    return kinds


def modify_schema(vocabulary: Vocabulary, functions: FunctionTable[Any]) -> dict[str, Any]:
    """The JSON Schema of modify_file's params with the operation kinds listed (the published schema)."""
    schema = vocabulary.modify_model.model_json_schema()
    operation = schema["$defs"]["Operation"]["properties"]["op"]
    operation["enum"] = operation_kinds(vocabulary, functions)
    return schema


def as_batch(action: Action, vocabulary: Vocabulary, functions: FunctionTable[Any], document: str | None) -> Action:
    """The batch that runs a modify_file action's operations; InvalidAction naming a bad operation otherwise."""
    if document is not None and action.target not in (None, "", document):
        raise InvalidAction(f"modify_file changes the open document {document!r}, not {action.target!r}.",
                            hint=f'Give "target": "{document}" or leave the target out.')
    operations = parse_params(vocabulary.modify_model, action.params, "modify_file").operations
    kinds = operation_kinds(vocabulary, functions)
    members = []
    for index, operation in enumerate(operations, start=1):
        if operation.op not in kinds:
            raise InvalidAction(f"Operation {index} ({operation.op}) is not an operation of {vocabulary.app}'s "
                                "modify_file.", hint=f"Operations: {', '.join(kinds)}.", code="bad_params")
        if operation.op == SET_VALUE:
            members.append({"action_type": SET_VALUE, "target": operation.target, "params": operation.params})
        elif operation.target is not None:
            raise InvalidAction(f"Operation {index} ({operation.op}) takes no target; what it acts on goes in "
                                "its params.", hint="Only set_value operations have a target.", code="bad_params")
        else:
            members.append({"action_type": "invoke_function", "target": operation.op, "params": operation.params})
    return Action(action_type="batch", params={"actions": members})


def name_operation(exc: AsilError, action: Action) -> AsilError:
    """``exc`` from the batch with "Batch action N: ..." read as "Operation N (kind): ..." of ``action``."""
    found = _MEMBER.match(exc.message) if action.action_type == "modify_file" else None
    if found is None:
        return exc
    index = int(found.group(1))
    raw = action.params.get("operations", [])
    kind = raw[index - 1].get("op", "?") if index <= len(raw) and isinstance(raw[index - 1], dict) else "?"
    message = f"Operation {index} ({kind}): {exc.message[found.end():]}".replace(
        "Nothing in the batch was applied.", "Nothing was applied and the file is unchanged.")
    renamed = type(exc).__new__(type(exc))
    renamed.__dict__.update(exc.__dict__)
    renamed.args, renamed.message = (message,), message
    return renamed
