"""The codeserver app."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="codeserver",
    adapter="asil.adapters.codeserver.adapter:CodeServerAdapter",
    pattern="service",
    checkpoints=("asil.adapters.codeserver.checkpoints",),
    validator="asil.adapters.codeserver.validator:raw_judge",
    builders={
        "vsix": "asil.adapters.codeserver.builders:build_vsix_file",
        "codeserver_user_settings": "asil.adapters.codeserver.builders:build_user_settings",
        "codeserver_keybindings": "asil.adapters.codeserver.builders:build_keybindings",
        "codeserver_extension": "asil.adapters.codeserver.builders:build_installed_extension",
    },
    suite="suites/core/codeserver",
    render=True,
)
