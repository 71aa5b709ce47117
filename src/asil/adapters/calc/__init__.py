"""LibreOffice Calc adapter (file-backed, .ods), computed by a warm headless LibreOffice."""
