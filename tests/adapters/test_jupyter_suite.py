"""The JupyterLab suite's shape: twenty-six tasks (five on JupyterLab's own state), an infeasible one, several with
more than one success path."""

from __future__ import annotations

from asil.tasks import load_tasks


def test_the_jupyter_suite_has_twenty_varied_tasks() -> None:
    tasks = load_tasks(suite="core", app="jupyter")  # the multi suite mixes apps
    assert len(tasks) == 26
    assert sum(not t.feasible for t in tasks) == 1
    assert sum(len(t.evaluator.paths) > 1 for t in tasks) >= 2
    kinds = {cp.type for t in tasks for path in t.evaluator.paths for cp in path}
    assert {"executes_cleanly", "variable_value", "cell_source", "cell_output", "outputs_cleared",
            "file_exists"} <= kinds
    functions = {a.target for t in tasks for a in t.reference if a.action_type == "invoke_function"}
    assert {"insert_cell", "replace_in_cell", "move_cell", "run_all", "clear_outputs", "set_cell_type"} <= functions
    assert {"lab_open_documents", "lab_active_document", "lab_kernel_running", "text_regex", "file_absent"} <= kinds
    assert {"open_document", "activate_document", "close_document", "write_file", "rename_file", "delete_file",
            "start_kernel"} <= functions
