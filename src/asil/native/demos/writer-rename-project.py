# ruff: noqa: F821
# mypy: ignore-errors
# (UNO step code: `doc`, `desktop`, `ctx` and `uno` are bound by the uno channel, asil/native/uno.py)
# writer-rename-project: replace every Falcon with Osprey, the lower-case contact address included.
def replace_all(find, replace):
    descriptor = doc.createReplaceDescriptor()
    descriptor.SearchString = find
    descriptor.ReplaceString = replace
    descriptor.SearchCaseSensitive = True
    return doc.replaceAll(descriptor)


print("addresses:", replace_all("falcon@", "osprey@"), "names:", replace_all("Falcon", "Osprey"))
