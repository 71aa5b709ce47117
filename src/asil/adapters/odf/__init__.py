"""OpenDocument packages read without LibreOffice: safety checks and a hardened XML reader."""
