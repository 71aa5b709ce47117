# ruff: noqa: F821
# mypy: ignore-errors
# (UNO step code: `doc`, `desktop`, `ctx` and `uno` are bound by the uno channel, asil/native/uno.py)
# impress-subtitle-year: the title slide's subtitle says 2024; make it 2025.
page = doc.DrawPages.getByIndex(0)
for number in range(page.Count):
    shape = page.getByIndex(number)
    if shape.getString() == "Investor update 2024":
        shape.setString("Investor update 2025")
        print("subtitle now:", shape.getString())
