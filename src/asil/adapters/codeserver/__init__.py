"""The code-server adapter (service pattern): VS Code settings, keybindings, extensions and tasks in a real code-server."""

from asil.plugins import DEVELOPER, packaged_app

PLUGIN = packaged_app(__name__, "CodeServerAdapter", "service", region=DEVELOPER,
                      builders={"vsix": "build_vsix_file", "codeserver_user_settings": "build_user_settings",
                                "codeserver_keybindings": "build_keybindings",
                                "codeserver_extension": "build_installed_extension",
                                "codeserver_editors": "build_open_editors"},
                      gui="asil.adapters.codeserver.gui:launch")
