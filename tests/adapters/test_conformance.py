import pytest

from asil.adapters import adapter_names
from asil.adapters.check import check_adapter
from asil.adapters.registry import get_adapter_class
from asil.workspace import Workspace


@pytest.mark.parametrize("name", adapter_names())
def test_every_registered_adapter_conforms(name: str, workspace: Workspace) -> None:
    readiness = get_adapter_class(name).readiness()
    if not readiness.ready:  # e.g. a service that cannot run on this machine; `asil doctor` says why
        pytest.skip(f"{name} is not ready here: {readiness.detail}")
    check_adapter(name, workspace)
