"""The Writer adapter: .odt text documents in a warm headless LibreOffice."""
