"""Thunderbird on a real Dovecot IMAP server, driven over Marionette."""

from asil.plugins import FILES, packaged_app

PLUGIN = packaged_app(__name__, "ThunderbirdAdapter", "service", region=FILES,
                      builders={"maildir": "build_maildir_file", "contacts": "build_contacts_file",
                                "compose_windows": "build_compose_windows_file"},
                      scratch=(".asil/thunderbird/profile",),
                      gui="asil.adapters.thunderbird.gui:launch")  # the raw validator reads .asil/thunderbird/saved
