"""Hard multi-app tasks that start from an office document or diagram: figures, names and lists read in Calc,
Writer, Impress, draw.io, Inkscape or a mail land in a deliverable of another app, with the edits around them."""

from __future__ import annotations

from typing import Any

from hard_multi_parts import (
    DECK,
    Json,
    batch,
    call,
    cp,
    deck,
    document,
    drawio,
    look,
    mail,
    message,
    obs,
    para,
    setv,
    sheet,
    svg,
    task,
    text,
)

REGIONS = ["North", "South", "East", "West"]


def quarter_close() -> Json:
    quarters = {"North": [300, 320, 310, 350], "South": [210, 190, 230, 250], "East": [400, 390, 420, 380],
                "West": [280, 300, 290, 310]}
    fixed = {"East": 410, "West": 295}  # the finance mail's corrections of Q4
    rows: list[list[Any]] = [["Region", "Q1", "Q2", "Q3", "Q4", "Total"]]
    rows += [[r, *quarters[r], f"=SUM(B{i + 2}:E{i + 2})"] for i, r in enumerate(REGIONS)]
    rows.append(["All", "=SUM(B2:B5)", "=SUM(C2:C5)", "=SUM(D2:D5)", "=SUM(E2:E5)", "=SUM(F2:F5)"])
    totals = {r: sum(quarters[r][:3]) + fixed.get(r, quarters[r][3]) for r in REGIONS}
    grand = sum(totals.values())
    correction = message("Q4 correction", "Finance <finance@example.com>",
                         "Hi,\ntwo Q4 figures in sales.ods are wrong: East Q4 should read 410 (not 380) and West Q4 "
                         "should read 295 (not 310). Everything else stands.\n")
    blocks = [para("Q4 close", "Title"), para("Grand total: [TOTAL]"),
              {"table": [["Region", "Total"], *([r, ""] for r in REGIONS)], "name": "Totals"}]
    return task("quarter-close", ["thunderbird", "calc", "writer"], "office",
                "Finance mailed corrections to the Q4 figures (app thunderbird). Apply them in calc/sales.ods (app calc, "
                "sheet Sales) and make its Total column (F1:F6) bold. Then fill the Totals table of writer/report.odt "
                "(app writer) with each region's corrected yearly total and replace [TOTAL] with the corrected grand "
                "total. Finally file the correction mail in the Archive folder and send cfo@example.com a message with "
                "the subject 'Q4 close <grand total>' (e.g. 'Q4 close 1234').",
                [mail([correction]), sheet("calc/sales.ods", "Sales", rows), document("writer/report.odt", blocks)],
                [[cp("cell_value", "calc", None, "Sales!E4", 410), cp("cell_value", "calc", None, "Sales!E5", 295),
                  cp("cell_value", "calc", None, "Sales!F6", grand),
                  cp("cell_style", "calc", None, "Sales!F6", {"bold": True}),
                  cp("table_rows", "writer", None, "Totals", [["Region", "Total"], *([r, str(totals[r])] for r in REGIONS)]),
                  cp("document_text", "writer", None, None,  # with or without a thousands separator
                     f"(?m)^Grand total: {grand // 1000},?{grand % 1000:03d}$"),
                  cp("mail_subjects", "thunderbird", None, "Archive", "Q4 correction"),
                  cp("mail_sent_text", "thunderbird", None, f"Q4 close {grand}", r"To: .*cfo@example\.com")]],
                [look("thunderbird"), setv("calc", "Sales!E4", 410), setv("calc", "Sales!E5", 295),
                 call("calc", "format_range", range="Sales!F1:F6", bold=True),
                 call("writer", "set_table_cells", table="Totals", cell="B2", values=[[totals[r]] for r in REGIONS]),
                 call("writer", "find_replace", find="[TOTAL]", replace=str(grand)),
                 call("thunderbird", "move_messages", messages=["INBOX#3"], folder="Archive"),
                 call("thunderbird", "send_message", to=["cfo@example.com"], subject=f"Q4 close {grand}",
                      body=f"The corrected Q4 close is {grand}.\n")])


def budget_review_deck() -> Json:
    plan = [("Marketing", 120, 135), ("R&D", 300, 280), ("Sales", 150, 171), ("Support", 80, 78)]
    rows: list[list[Any]] = [["Department", "Planned", "Actual", "Variance"]]
    rows += [[d, p, a, f"=C{i + 2}-B{i + 2}"] for i, (d, p, a) in enumerate(plan)]
    slides = [*DECK, {"layout": "title_content", "title": "Budget review", "body": ["?"]}]
    red = "#FFC7CE"
    return task("budget-review-deck", ["calc", "impress"], "office",
                "calc/budget.ods (app calc, sheet Budget) compares planned and actual spend. Give the Variance cell of "
                f"every department that is over budget the background {red}. In impress/deck.odp (app impress) replace "
                "the '?' bullet of the 'Budget review' slide with those departments, one bullet each in sheet order, "
                "set that slide's notes to '<n> departments over budget', and append one slide per such department, "
                "in the same order, titled '<department> over budget' with the body 'Overspend: <variance>' and a fade "
                "transition.",
                [sheet("calc/budget.ods", "Budget", rows), deck(slides=slides)],
                [[cp("cell_style", "calc", None, "Budget!D2", {"background": red}),
                  cp("cell_style", "calc", None, "Budget!D4", {"background": red}),
                  cp("slide_text", "impress", None, "6", r"^Budget review\nMarketing\nSales$"),
                  cp("slide_notes", "impress", None, "6", "2 departments over budget"),
                  cp("slide_titles", "impress", None, None, [s["title"] for s in slides]
                     + ["Marketing over budget", "Sales over budget"]),
                  cp("slide_text", "impress", None, "7", r"(?m)^Overspend: 15$"),
                  cp("slide_text", "impress", None, "8", r"(?m)^Overspend: 21$"),
                  cp("slide_transition", "impress", None, "7", "fade"), cp("slide_transition", "impress", None, "8", "fade"),
                  cp("slide_transition", "impress", None, "6", None, note="guard: only the new slides")]],
                [look("calc", "Budget"),
                 batch("calc", call("calc", "format_range", range="Budget!D2", background=red),
                       call("calc", "format_range", range="Budget!D4", background=red)),
                 call("impress", "set_body", slide="slide-6", text=["Marketing", "Sales"]),
                 call("impress", "set_notes", slide="slide-6", text="2 departments over budget"),
                 call("impress", "add_slide", layout="title_content", title="Marketing over budget", body="Overspend: 15"),
                 call("impress", "add_slide", layout="title_content", title="Sales over budget", body="Overspend: 21"),
                 call("impress", "set_transition", slides=["slide-7", "slide-8"], effect="fade")])


def funnel_three_apps() -> Json:
    rows: list[list[Any]] = [["Metric", "Value"], ["Visitors", 12000], ["Signups", 840], ["Paid", 126],
                             ["Signup rate", "=B3/B2"], ["Paid rate", "=B4/B3"]]
    boxes = [("v", "Visitors: ?"), ("s", "Signups: ?"), ("p", "Paid: ?")]
    body = "\n".join(f'    <text id="t-{k}" x="20" y="{30 + 30 * i}" style="font-size:18px">{k.title()}: ?</text>'
                     for i, k in enumerate(("visitors", "signups", "paid")))
    return task("funnel-three-apps", ["calc", "drawio", "inkscape"], "office",
                "calc/kpi.ods (app calc, sheet KPI) holds this month's funnel. In drawio/funnel.drawio (app drawio) "
                "replace each '?' in the three boxes with the sheet's count (e.g. 'Visitors: 100') and label the "
                "arrow out of Visitors with the sheet's signup rate and the arrow out of Signups with its paid rate, "
                "each as a whole percentage (e.g. '5%'). In inkscape/funnel.svg (app inkscape) replace the '?' of the three "
                "texts with the same counts.",
                [sheet("calc/kpi.ods", "KPI", rows), drawio("drawio/funnel.drawio", boxes), svg("inkscape/funnel.svg", body)],
                [[cp("drawio_label", "drawio", None, "v", "Visitors: 12000"),
                  cp("drawio_label", "drawio", None, "s", "Signups: 840"),
                  cp("drawio_label", "drawio", None, "p", "Paid: 126"),
                  cp("drawio_label", "drawio", None, "e0", "7%"), cp("drawio_label", "drawio", None, "e1", "15%"),
                  cp("svg_text", "inkscape", None, "#t-visitors", "Visitors: 12000"),
                  cp("svg_text", "inkscape", None, "#t-signups", "Signups: 840"),
                  cp("svg_text", "inkscape", None, "#t-paid", "Paid: 126")]],
                [look("calc", "KPI"),
                 batch("drawio", call("drawio", "relabel", cell="v", label="Visitors: 12000"),
                       call("drawio", "relabel", cell="s", label="Signups: 840"),
                       call("drawio", "relabel", cell="p", label="Paid: 126"),
                       call("drawio", "relabel", cell="e0", label="7%"), call("drawio", "relabel", cell="e1", label="15%")),
                 batch("inkscape", call("inkscape", "set_text", id="t-visitors", text="Visitors: 12000"),
                       call("inkscape", "set_text", id="t-signups", text="Signups: 840"),
                       call("inkscape", "set_text", id="t-paid", text="Paid: 126"))])


def guest_brief_to_show() -> Json:
    segments = ["Headlines", "Interview", "Listener questions"]
    blocks = [para("Episode 12 – production brief", "Title"), para("Recording on Thursday in studio B."),
              para("Guest", "Heading 1"),
              para("Our guest is Dr. Lena Ortiz, who studies coral reef recovery at the Bergen marine institute."),
              para("Running order", "Heading 1"),
              para("We open with the headlines, then the interview, and close with listener questions.")]
    slides: list[Json] = [{"layout": "title_slide", "title": "Episode 12", "body": "Live from studio B"},
              {"layout": "title_content", "title": "Agenda", "body": ["?"]},
              {"layout": "title_content", "title": "Guest", "body": ["?"]}]
    return task("guest-brief-to-show", ["writer", "impress", "obs"], "streaming",
                "Prepare the show from writer/brief.odt (app writer). In impress/deck.odp (app impress) make the Agenda "
                "slide's bullets the segments of the running order, in order, one per bullet (e.g. 'Headlines'), and "
                "retitle the 'Guest' slide with the guest's name, title included, with the single bullet 'Coral reef "
                "recovery'. In OBS (app obs) create one empty scene per segment named like its bullet, set the text "
                "of the 'Title' source to 'Episode 12', and add a text source 'Lower Third' to the Main scene showing "
                "the guest's name as on the slide.",
                [document("writer/brief.odt", blocks), deck(slides=slides), obs()],
                [[cp("slide_text", "impress", None, "2", r"^Agenda\nHeadlines\nInterview\nListener questions$"),
                  cp("slide_title", "impress", None, "3", "Dr. Lena Ortiz"),
                  cp("slide_text", "impress", None, "3", r"(?m)^Coral reef recovery$"),
                  *(cp("obs_scene_exists", "obs", None, s, True) for s in segments),
                  cp("obs_input_value", "obs", None, "Title.settings.text", "Episode 12"),
                  cp("obs_input_value", "obs", None, "Lower Third.settings.text", "Dr. Lena Ortiz")]],
                [look("writer"),
                 call("impress", "set_body", slide="slide-2", text=segments),
                 call("impress", "set_title", slide="slide-3", text="Dr. Lena Ortiz"),
                 call("impress", "set_body", slide="slide-3", text=["Coral reef recovery"]),
                 batch("obs", *(call("obs", "create_scene", name=s) for s in segments)),
                 call("obs", "set_input_settings", input="Title", settings={"text": "Episode 12"}),
                 call("obs", "add_input", scene="Main", name="Lower Third", kind="text", text="Dr. Lena Ortiz")])


def org_chart_from_sheet() -> Json:
    people = [("Ana", "CEO", ""), ("Raj", "CTO", "Ana"), ("Mia", "CFO", "Ana"), ("Leo", "Engineer", "Raj"),
              ("Zoe", "Accountant", "Mia")]
    rows: list[list[Any]] = [["Name", "Role", "Reports to", "In chart"], *([n, r, m, ""] for n, r, m in people)]
    label = {n: f"{n} ({r})" for n, r, _ in people}
    return task("org-chart-from-sheet", ["calc", "drawio"], "office",
                "calc/team.ods (app calc, sheet Team) lists the team. drawio/org.drawio (app drawio) shows only the "
                "CEO so far. Add one box per other person labelled '<Name> (<Role>)' like the CEO's, and an arrow from "
                "each manager's box to each direct report's box. Then write 'yes' in the sheet's 'In chart' column for "
                "everybody now in the chart.",
                [sheet("calc/team.ods", "Team", rows), drawio("drawio/org.drawio", [("ana", label["Ana"])], chain=False)],
                [[cp("drawio_vertex_labels", "drawio", None, None, list(label.values()), compare="set"),
                  *(cp("drawio_edge_count", "drawio", None, f"{label[m]} -> {label[n]}", 1)
                    for n, _, m in people if m),
                  cp("range_values", "calc", None, "Team!D2:D6", [["yes"]] * 5)]],
                [look("calc", "Team"),
                 call("drawio", "add_vertex", label=label["Raj"], x=40, y=160),
                 call("drawio", "add_vertex", label=label["Mia"], x=220, y=160),
                 call("drawio", "add_vertex", label=label["Leo"], x=40, y=280),
                 call("drawio", "add_vertex", label=label["Zoe"], x=220, y=280),
                 *(call("drawio", "connect", source=label[m], target=label[n]) for n, _, m in people if m),
                 call("calc", "set_range", range="Team!D2:D6", values=[["yes"]] * 5)])


def changelog_to_memo() -> Json:
    changelog = ("# Changelog\n\n## Unreleased\n\n- Faster CSV import\n- Dark mode for the dashboard\n"
                 "- Fixed the login timeout\n\n## 2.0.3\n\n- Security fixes\n")
    blocks = [para("Release memo", "Title"), para("Version [VERSION] ships on Friday."),
              para("What is new", "Heading 1")]
    items = ["Faster CSV import", "Dark mode for the dashboard", "Fixed the login timeout"]
    return task("changelog-to-memo", ["codeserver", "writer"], "office",
                "codeserver/CHANGELOG.md (app codeserver) collects the unreleased changes. Release them as version "
                "2.1.0: rename its '## Unreleased' heading to '## 2.1.0'. In writer/memo.odt (app writer) replace "
                "[VERSION] with 2.1.0 and list every unreleased change under 'What is new' as a bulleted list item, "
                "in the changelog's order and wording. Put 'Release <version>' in the memo's page header.",
                [text("codeserver/CHANGELOG.md", changelog), document("writer/memo.odt", blocks)],
                [[cp("text_regex", "codeserver", None, "codeserver/CHANGELOG.md", r"(?m)^## 2\.1\.0\n\n- Faster CSV import"),
                  cp("text_regex", "codeserver", None, "codeserver/CHANGELOG.md", r"\A(?![\s\S]*Unreleased)"),
                  cp("document_text", "writer", None, None, r"(?m)^Version 2\.1\.0 ships on Friday\.$"),
                  cp("list_items", "writer", None, None, items),
                  cp("page_property", "writer", None, "header", "Release 2.1.0", compare="normalized")]],
                [look("codeserver"),
                 call("codeserver", "replace_text", path="codeserver/CHANGELOG.md", old="## Unreleased", new="## 2.1.0"),
                 call("writer", "find_replace", find="[VERSION]", replace="2.1.0"),
                 call("writer", "insert_paragraph", after="p3", text=items[0], style="Text body", list="bullet"),
                 call("writer", "insert_paragraph", after="p4", text=items[1], style="Text body", list="bullet"),
                 call("writer", "insert_paragraph", after="p5", text=items[2], style="Text body", list="bullet"),
                 call("writer", "set_header", text="Release 2.1.0")])


def scenes_to_flow_and_deck() -> Json:
    names = ["Opening", "Interview", "Demo", "Q&A", "Closing"]
    scenes = [{"name": n, "items": [{"source": "Backdrop"}]} for n in names]
    backdrop = [{"name": "Backdrop", "kind": "color", "settings": {"color": "#1E1E2E", "width": 640, "height": 360}}]
    slides = [*DECK, {"layout": "title_content", "title": "Run of show", "body": ["?"]}]
    return task("scenes-to-flow-and-deck", ["obs", "drawio", "impress"], "streaming",
                "The show runs through the scenes of OBS (app obs) in their order there. Draw that run in "
                "drawio/show.drawio (app drawio): one box per scene labelled with its name and an arrow from each scene "
                "to the next. Then replace the '?' bullet of the 'Run of show' slide of impress/deck.odp (app impress) "
                "with the scene names, one bullet each, in the same order.",
                [obs(scenes, backdrop), drawio("drawio/show.drawio", [], chain=False), deck(slides=slides)],
                [[cp("drawio_vertex_labels", "drawio", None, None, names, compare="set"),
                  *(cp("drawio_edge_count", "drawio", None, f"{a} -> {b}", 1) for a, b in zip(names, names[1:], strict=False)),
                  cp("slide_text", "impress", None, "6", r"^Run of show\nOpening\nInterview\nDemo\nQ&A\nClosing$")]],
                [look("obs"),
                 batch("drawio", *(call("drawio", "add_vertex", label=n, x=40 + 180 * i, y=40)
                                   for i, n in enumerate(names))),
                 batch("drawio", *(call("drawio", "connect", source=a, target=b)
                                   for a, b in zip(names, names[1:], strict=False))),
                 call("impress", "set_body", slide="slide-6", text=names)])


def chart_to_sheet_and_mail() -> Json:
    heights = {"q1": 120, "q2": 80, "q3": 150, "q4": 60}  # 1 px of bar = 10 units, as the chart's note says
    body = "\n".join(f'    <rect id="bar-{q}" x="{30 + 60 * i}" y="{200 - h}" width="40" height="{h}" style="fill:#8d99ae"/>'
                     for i, (q, h) in enumerate(heights.items()))
    body += ('\n    <text id="title" x="20" y="20" style="font-size:14px">Total: ?</text>'
             '\n    <text id="note" x="20" y="230" style="font-size:10px">Scale: 1 px of bar height = 10 units</text>')
    rows: list[list[Any]] = [["Quarter", "Units"], ["Q1"], ["Q2"], ["Q3"], ["Q4"], ["Total", "=SUM(B2:B5)"]]
    units = [h * 10 for h in heights.values()]
    total = sum(units)
    return task("chart-to-sheet-and-mail", ["inkscape", "calc", "thunderbird"], "office",
                "inkscape/chart.svg (app inkscape) is a bar chart of units per quarter (read its scale note). Enter the "
                "four quarters' units in calc/units.ods (app calc, sheet Units, B2:B5). In the chart, set the title text "
                "to 'Total: <the sheet's total>' and fill the tallest bar with #e76f51, then export the whole page as "
                "PNG to thunderbird/chart.png and mail it (app thunderbird) as an attachment to "
                "sales@example.com with the subject 'Units per quarter'. Make the sheet's Total row (A6:B6) bold.",
                [svg("inkscape/chart.svg", body, 300, 240), sheet("calc/units.ods", "Units", rows), mail([])],
                [[cp("range_values", "calc", None, "Units!B2:B6", [[u] for u in [*units, total]]),
                  cp("svg_text", "inkscape", None, "#title", f"Total: {total}"),
                  cp("svg_style", "inkscape", None, "#bar-q3", {"fill": "#e76f51"}),
                  cp("svg_style", "inkscape", None, "#bar-q1", {"fill": "#8d99ae"}, note="guard: one bar only"),
                  cp("png_size", "inkscape", None, "thunderbird/chart.png", [300, 240]),
                  cp("mail_sent_attachments", "thunderbird", None, "Units per quarter", "chart.png"),
                  cp("cell_style", "calc", None, "Units!A6", {"bold": True}),
                  cp("mail_sent_text", "thunderbird", None, "Units per quarter", r"To: .*sales@example\.com")]],
                [look("inkscape"),
                 call("calc", "set_range", range="Units!B2:B5", values=[[u] for u in units]),
                 call("inkscape", "set_text", id="title", text=f"Total: {total}"),
                 call("inkscape", "restyle", ids=["bar-q3"], style={"fill": "#e76f51"}),
                 call("inkscape", "export_png", path="thunderbird/chart.png"),
                 call("thunderbird", "send_message", to=["sales@example.com"], subject="Units per quarter",
                      body="Chart attached.\n", attachments=["thunderbird/chart.png"]),
                 call("calc", "format_range", range="Units!A6:B6", bold=True)])


TASKS = [quarter_close(), budget_review_deck(), funnel_three_apps(), guest_brief_to_show(), org_chart_from_sheet(),
         changelog_to_memo(), scenes_to_flow_and_deck(), chart_to_sheet_and_mail()]
