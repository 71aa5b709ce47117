# ruff: noqa: F821
# mypy: ignore-errors
# (UNO step code: `doc`, `desktop`, `ctx` and `uno` are bound by the uno channel, asil/native/uno.py)
# impress-notes: put the speaker note on the 'Problem' slide's notes page (its body placeholder).
for index in range(doc.DrawPages.Count):
    page = doc.DrawPages.getByIndex(index)
    shapes = [page.getByIndex(n) for n in range(page.Count)]
    if any(s.ShapeType == "com.sun.star.presentation.TitleTextShape" and s.getString() == "Problem" for s in shapes):
        notes = page.getNotesPage()
        for n in range(notes.Count):
            shape = notes.getByIndex(n)
            if shape.ShapeType == "com.sun.star.presentation.NotesShape":
                shape.setString("Cite the 2023 MHI industry report.")
                print("note set on slide", index + 1)
