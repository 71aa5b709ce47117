# ruff: noqa: F821
# mypy: ignore-errors
# (UNO step code: `doc`, `desktop`, `ctx` and `uno` are bound by the uno channel, asil/native/uno.py)
# calc-total-column: a Total column of Qty * Price formulas and a grand total under it.
sheet = doc.Sheets.getByName("Orders")
sheet.getCellRangeByName("D1").setString("Total")
last = 1
while sheet.getCellByPosition(0, last).getString():
    row = last + 1  # spreadsheet row number of this order
    sheet.getCellByPosition(3, last).setFormula(f"=B{row}*C{row}")
    last += 1
sheet.getCellByPosition(3, last).setFormula(f"=SUM(D2:D{last})")
print("orders:", last - 1, "grand total:", sheet.getCellByPosition(3, last).getValue())
