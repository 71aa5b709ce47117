# ruff: noqa: F821
# mypy: ignore-errors
# (UNO step code: `doc`, `desktop`, `ctx` and `uno` are bound by the uno channel, asil/native/uno.py)
# calc-sort-scores: sort Results!A1:C11 by Score, highest first, keeping the header row in place.
import uno

sheet = doc.Sheets.getByName("Results")
table = sheet.getCellRangeByName("A1:C11")
key = uno.createUnoStruct("com.sun.star.table.TableSortField")
key.Field = 2  # Score, the third column of the range
key.IsAscending = False
descriptor = {p.Name: p for p in table.createSortDescriptor()}
descriptor["SortFields"].Value = uno.Any("[]com.sun.star.table.TableSortField", (key,))
descriptor["ContainsHeader"].Value = True
uno.invoke(table, "sort", (tuple(descriptor.values()),))
print([sheet.getCellByPosition(0, row).getString() for row in range(1, 4)])
