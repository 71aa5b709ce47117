# ruff: noqa: F821
# mypy: ignore-errors
# (UNO step code: `doc`, `desktop`, `ctx` and `uno` are bound by the uno channel, asil/native/uno.py)
# writer-retitle: change the title paragraph's text; setString on the paragraph keeps its Title style.
paragraphs = doc.Text.createEnumeration()
while paragraphs.hasMoreElements():
    paragraph = paragraphs.nextElement()
    if paragraph.supportsService("com.sun.star.text.Paragraph") and paragraph.getString() == "Project Falcon status":
        paragraph.setString("Project Falcon status report")
        print("retitled; style:", paragraph.ParaStyleName)
        break
else:
    raise LookupError("no paragraph reads 'Project Falcon status'")
