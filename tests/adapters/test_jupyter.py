"""The Jupyter adapter without a kernel: observation, ids, paging, edits, atomic batches, saving."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from asil.adapters.jupyter.adapter import JupyterAdapter
from asil.protocol import Action
from asil.workspace import Workspace
from tests.adapters.jupyter_helpers import code, markdown, write_notebook

PNG_1X1 = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def fn(name: str, **params: object) -> Action:
    return Action(action_type="invoke_function", target=name, params=params)


@pytest.fixture
def notebook(workspace: Workspace) -> Path:
    return write_notebook(workspace, "nb.ipynb", [
        markdown("title", "# Sales"),
        code("load", "values = [1, 2, 3]\nprint(sum(values))",
             [{"output_type": "stream", "name": "stdout", "text": ["6\n"]}], 1),
        code("plot", "show()", [{"output_type": "display_data", "metadata": {},
                                 "data": {"image/png": PNG_1X1 * 50, "text/plain": ["<Figure>"]}},
                                {"output_type": "error", "ename": "ValueError", "evalue": "bad \x1b[31mthing\x1b[0m",
                                 "traceback": ["\x1b[31mValueError\x1b[0m"]}], 2),
    ])


def test_observation_shows_cells_outputs_and_kernel(workspace: Workspace, notebook: Path) -> None:
    with JupyterAdapter(workspace, "nb.ipynb") as adapter:
        obs = adapter.observe()
    assert [e.id for e in obs.elements] == ["title", "load", "plot"]
    assert [e.type for e in obs.elements] == ["markdown", "code", "code"]
    load, plot = obs.elements[1], obs.elements[2]
    assert load.value == "values = [1, 2, 3]\nprint(sum(values))"
    assert load.meta["execution_count"] == 1 and load.meta["outputs"] == ["[stdout] 6\n"]
    assert plot.meta["outputs"][0].startswith("<Figure> (+ [image/png 1x1")
    assert plot.meta["outputs"][1] == "[error] ValueError: bad thing"
    assert PNG_1X1[:40] not in obs.model_dump_json()  # images are summarized, never dumped
    assert obs.app_state.details["kernelspec"]["name"] == "python3"
    assert obs.app_state.details["kernel"]["state"].startswith("not started")
    assert obs.navigation.paging is not None and obs.navigation.paging.total == 3
    assert "plot (ValueError: bad thing)" in obs.summary


def test_cells_without_ids_get_stable_ids_that_are_saved(workspace: Workspace) -> None:
    path = write_notebook(workspace, "old.ipynb", [code(None, "a = 1"), markdown(None, "text"), code(None, "b = 2")], 4)
    with JupyterAdapter(workspace, "old.ipynb") as adapter:
        first = [e.id for e in adapter.observe().elements]
        assert adapter.observe().app_state.dirty
        adapter.execute(fn("insert_cell", index=0, source="z = 0"))
        assert [e.id for e in adapter.observe().elements][1:] == first  # untouched by edits elsewhere
        adapter.save()
    assert first == ["cell-1", "cell-2", "cell-3"]
    saved = json.loads(path.read_text())
    assert saved["nbformat_minor"] == 5 and [c["id"] for c in saved["cells"]][1:] == first
    nbformat.validate(nbformat.reads(path.read_text(), as_version=4))


def test_duplicate_ids_are_repaired(workspace: Workspace) -> None:
    write_notebook(workspace, "dup.ipynb", [code("x", "1"), code("x", "2"), code("bad id!", "3")])
    with JupyterAdapter(workspace, "dup.ipynb") as adapter:
        ids = [e.id for e in adapter.observe().elements]
    assert ids[0] == "x" and len(set(ids)) == 3 and "bad id!" not in ids


def test_a_500_cell_notebook_is_paged_within_8k_tokens(workspace: Workspace) -> None:
    cells = [code(f"c{i}", f"x{i} = {i}\n" + "# long comment line\n" * 40,
                  [{"output_type": "stream", "name": "stdout", "text": "out\n" * 300}], i) for i in range(500)]
    write_notebook(workspace, "big.ipynb", cells)
    with JupyterAdapter(workspace, "big.ipynb") as adapter:
        obs = adapter.observe()
        size = len(json.dumps(obs.to_agent_dict()))
        assert size / 4 <= 8000
        assert obs.navigation.paging is not None and obs.navigation.paging.total == 500
        shown = len(obs.elements)
        assert 1 <= shown < 500 and "more below" in obs.summary
        result = adapter.execute(Action(action_type="navigate", target="c450"))
        assert result.ok and result.observation is not None
        assert result.observation.elements[0].id == "c450"
        paged = adapter.execute(Action(action_type="navigate", params={"offset": 495}))
        assert paged.observation is not None and [e.id for e in paged.observation.elements][-1] == "c499"


def test_edits_change_the_notebook_and_save_valid_nbformat(workspace: Workspace, notebook: Path) -> None:
    with JupyterAdapter(workspace, "nb.ipynb") as adapter:
        steps = [
            Action(action_type="set_value", target="load", params={"source": "values = [4, 5]"}),
            fn("insert_cell", after="title", id="intro", cell_type="markdown", source="Some notes."),
            fn("replace_in_cell", cell="load", old="[4, 5]", new="[4, 5, 6]"),
            fn("move_cell", cell="plot", index=0),
            fn("set_cell_type", cell="intro", cell_type="raw"),
            fn("clear_outputs", cell="plot"),
            fn("delete_cell", cell="title"),
        ]
        for action in steps:
            result = adapter.execute(action)
            assert result.ok, result.error
        adapter.save()
        assert not adapter.observe().app_state.dirty
    saved = nbformat.reads(notebook.read_text(), as_version=4)
    nbformat.validate(saved)
    assert [(c.id, c.cell_type) for c in saved.cells] == [("plot", "code"), ("intro", "raw"), ("load", "code")]
    assert saved.cells[2].source == "values = [4, 5, 6]"
    assert saved.cells[0].outputs == [] and saved.cells[0].execution_count is None
    assert saved.cells[2].outputs  # other cells keep their outputs


def test_changing_a_code_cell_to_markdown_drops_outputs(workspace: Workspace, notebook: Path) -> None:
    with JupyterAdapter(workspace, "nb.ipynb") as adapter:
        assert adapter.execute(fn("set_cell_type", cell="load", cell_type="markdown")).ok
        adapter.save()
    cell = json.loads(notebook.read_text())["cells"][1]
    assert cell["cell_type"] == "markdown" and "outputs" not in cell and "execution_count" not in cell


def test_a_failing_batch_changes_nothing(workspace: Workspace, notebook: Path) -> None:
    before = notebook.read_bytes()
    with JupyterAdapter(workspace, "nb.ipynb") as adapter:
        state = adapter.observe().elements
        result = adapter.execute(Action(action_type="batch", params={"actions": [
            {"action_type": "invoke_function", "target": "delete_cell", "params": {"cell": "title"}},
            {"action_type": "invoke_function", "target": "edit_cell", "params": {"cell": "nope", "source": "x"}}]}))
        assert result.status == "invalid" and result.error is not None
        assert result.error.message.startswith("Batch action 2: There is no cell with id 'nope'.")
        assert adapter.observe().elements == state
        adapter.save()
    assert notebook.read_bytes() == before


def test_a_batch_sees_the_cells_its_earlier_actions_made(workspace: Workspace, notebook: Path) -> None:
    with JupyterAdapter(workspace, "nb.ipynb") as adapter:
        result = adapter.execute(Action(action_type="batch", params={"actions": [
            {"action_type": "invoke_function", "target": "insert_cell", "params": {"id": "new", "source": "a = 1"}},
            {"action_type": "invoke_function", "target": "move_cell", "params": {"cell": "new", "index": 0}}]}))
        assert result.ok and result.changed == ["new"]
        assert [e.id for e in adapter.observe().elements][0] == "new"


BAD_ACTIONS = [
    (Action(action_type="set_value", target="missing", params={"source": "x"}), "There is no cell with id 'missing'."),
    (Action(action_type="set_value", target="load", params={"value": 3}), "set_value needs the parameter 'source'."),
    (fn("edit_cell", cell="load"), "edit_cell needs the parameter 'source'."),
    (fn("insert_cell", cell_type="python", source="x"), "Parameter 'cell_type' of insert_cell is wrong"),
    (fn("insert_cell", id="load", source="x"), "A cell with id 'load' already exists."),
    (fn("insert_cell", before="title", after="load"), "give at most one of before, after or index"),
    (fn("insert_cell", index=99), "Index 99 is past the end of the notebook (3 cells)."),
    (fn("insert_cell", id="bad id", source=""), "Parameter 'id' of insert_cell is wrong"),
    (fn("replace_in_cell", cell="load", old="nothing like it", new=""), "does not occur in cell 'load'"),
    (fn("move_cell", cell="load", after="load"), "A cell cannot be moved next to itself."),
    (fn("run_cell", cell="title"), "Cell 'title' is a markdown cell; only code cells run."),
    (fn("run_cell", cell="load", timeout_s=-1), "Parameter 'timeout_s' of run_cell is wrong"),
    (fn("edit_cell", cell="load", source="x" * 200_001), "Parameter 'source' of edit_cell is wrong"),
    (fn("explode"), "Unknown notebook function 'explode'."),
    (Action(action_type="modify_file", target="nb.ipynb"), "modify_file needs the parameter 'operations'."),
    (Action(action_type="api_call", target="x"), "api_call needs the parameter 'request'"),
    (Action(action_type="api_call", params={"request": "POST /api/terminals"}), "'POST /api/terminals' is not allowed"),
    (Action(action_type="navigate", target="nowhere"), "There is no cell with id 'nowhere'."),
    (Action(action_type="batch", params={"actions": [{"action_type": "done"}]}), "A batch cannot contain done."),
    (Action(action_type="batch", params={"actions": []}), "Parameter 'actions' of batch is wrong"),
]


@pytest.mark.parametrize(("action", "message"), BAD_ACTIONS, ids=lambda a: str(a)[:40])
def test_bad_actions_get_one_clear_sentence_and_leave_the_file_alone(
        workspace: Workspace, notebook: Path, action: Action, message: str) -> None:
    before = notebook.read_bytes()
    with JupyterAdapter(workspace, "nb.ipynb") as adapter:
        result = adapter.execute(action)
        assert result.status == "invalid" and result.error is not None
        assert message in result.error.message, result.error.message
        assert result.error.message.count(". ") <= 1 and "Traceback" not in result.error.message
        assert not adapter.observe().app_state.dirty
        adapter.save()
    assert notebook.read_bytes() == before
