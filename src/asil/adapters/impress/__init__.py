"""The Impress adapter: .odp presentations in a warm headless LibreOffice."""
