"""Thunderbird on a real Dovecot IMAP server, driven over Marionette."""
