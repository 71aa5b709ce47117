# ruff: noqa: F821
# mypy: ignore-errors
# (UNO step code: `doc`, `desktop`, `ctx` and `uno` are bound by the uno channel, asil/native/uno.py)
# calc-trim-names: strip stray spaces from the names (A) and cities (C), leaving the e-mails (B) alone.
sheet = doc.Sheets.getByName("Contacts")
fixed = 0
for column in ("A", "C"):
    for row in range(2, 10):
        cell = sheet.getCellRangeByName(f"{column}{row}")
        text = cell.getString()
        if text != text.strip():
            cell.setString(text.strip())
            fixed += 1
print("cells trimmed:", fixed)
