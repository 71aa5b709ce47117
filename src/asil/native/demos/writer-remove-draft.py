# ruff: noqa: F821
# mypy: ignore-errors
# (UNO step code: `doc`, `desktop`, `ctx` and `uno` are bound by the uno channel, asil/native/uno.py)
# writer-remove-draft: delete the 'DRAFT - do not circulate' paragraph, whole (text and paragraph break).
paragraphs = doc.Text.createEnumeration()
while paragraphs.hasMoreElements():
    paragraph = paragraphs.nextElement()
    if paragraph.supportsService("com.sun.star.text.Paragraph") and paragraph.getString().startswith("DRAFT"):
        paragraph.dispose()  # removes the paragraph from the text
        print("removed the draft line")
        break
