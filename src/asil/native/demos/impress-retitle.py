# ruff: noqa: F821
# mypy: ignore-errors
# (UNO step code: `doc`, `desktop`, `ctx` and `uno` are bound by the uno channel, asil/native/uno.py)
# impress-retitle: find the slide titled 'Traction' and give its title shape the new text.
TITLE = "com.sun.star.presentation.TitleTextShape"
for index in range(doc.DrawPages.Count):
    page = doc.DrawPages.getByIndex(index)
    for number in range(page.Count):
        shape = page.getByIndex(number)
        if shape.ShapeType == TITLE and shape.getString() == "Traction":
            shape.setString("Traction and revenue")
            print("retitled slide", index + 1)
