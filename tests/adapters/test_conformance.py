import pytest

from asil.adapters import adapter_names
from asil.adapters.check import check_adapter
from asil.workspace import Workspace


@pytest.mark.parametrize("name", adapter_names())
def test_every_registered_adapter_conforms(name: str, workspace: Workspace) -> None:
    check_adapter(name, workspace)
