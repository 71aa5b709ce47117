# ruff: noqa: F821
# mypy: ignore-errors
# (UNO step code: `doc`, `desktop`, `ctx` and `uno` are bound by the uno channel, asil/native/uno.py)
# impress-drop-backup: delete the backup slide (its title starts with 'Backup').
pages = doc.DrawPages
for index in reversed(range(pages.Count)):
    page = pages.getByIndex(index)
    titles = [page.getByIndex(n).getString() for n in range(page.Count)
              if page.getByIndex(n).ShapeType == "com.sun.star.presentation.TitleTextShape"]
    if titles and titles[0].startswith("Backup"):
        pages.remove(page)
        print("removed slide", index + 1, repr(titles[0]))
print("slides left:", pages.Count)
