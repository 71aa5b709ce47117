"""Thunderbird on a real Dovecot IMAP server, driven over Marionette."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="thunderbird",
    adapter="asil.adapters.thunderbird.adapter:ThunderbirdAdapter",
    pattern="service",
    checkpoints=("asil.adapters.thunderbird.checkpoints",),
    validator="asil.adapters.thunderbird.validator:raw_judge",
    builders={
        "maildir": "asil.adapters.thunderbird.builders:build_maildir_file",
        "contacts": "asil.adapters.thunderbird.builders:build_contacts_file",
    },
    suite="suites/core/thunderbird",
    render=True,
)
