import pytest

from asil.adapters import app_names
from asil.adapters.check import check_adapter
from asil.plugins import adapter_class
from asil.workspace import Workspace


@pytest.mark.parametrize("name", app_names())
def test_every_registered_adapter_conforms(name: str, workspace: Workspace) -> None:
    readiness = adapter_class(name).readiness()
    if not readiness.ready:  # e.g. a service that cannot run on this machine; `asil doctor` says why
        pytest.skip(f"{name} is not ready here: {readiness.detail}")
    check_adapter(name, workspace)
