"""Tasks: the model, the loader, and workspace setup."""

from asil.tasks.loader import TaskError, get_task, load_tasks
from asil.tasks.model import Setup, SetupFile, Task
from asil.tasks.setup import FILE_BUILDERS, file_builder, prepare_workspace

__all__ = ["FILE_BUILDERS", "Setup", "SetupFile", "Task", "TaskError", "file_builder", "get_task", "load_tasks",
           "prepare_workspace"]
