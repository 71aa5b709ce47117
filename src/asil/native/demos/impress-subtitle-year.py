# impress-subtitle-year: the title slide's subtitle says 2024; make it 2025.
page = doc.DrawPages.getByIndex(0)
for number in range(page.Count):
    shape = page.getByIndex(number)
    if shape.getString() == "Investor update 2024":
        shape.setString("Investor update 2025")
        print("subtitle now:", shape.getString())
