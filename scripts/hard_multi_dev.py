"""Hard multi-app tasks around the developer and files-and-mail apps: notebooks fed from sheets and decks, mails
that change code, sheets and folders, folder names that become diagrams and config files."""

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
    notebook,
    para,
    sheet,
    task,
    text,
    tree,
)


def sensor_readings_report() -> Json:
    readings = [21.5, 23.0, 27.5, 22.0, 29.0, 24.5]
    rows: list[list[Any]] = [["Hour", "Reading (°C)"], *([h, r] for h, r in zip(range(8, 14), readings, strict=True)),
                             ["Alert limit", 26], ["Notebook mean", None]]
    cells = [("data", "code", "readings = []"), ("limit", "code", "limit = None"),
             ("stats", "code", "mean = round(sum(readings) / len(readings), 2)\n"
                               "alerts = sum(1 for r in readings if r > limit)\nprint(mean, alerts)")]
    mean = round(sum(readings) / len(readings), 2)
    alerts = sum(1 for r in readings if r > 26)
    blocks = [para("Sensor report", "Title"), para("Status: [STATUS]"),
              {"table": [["Figure", "Value"], ["Mean", ""], ["Alerts", ""]], "name": "Results"}]
    return task("sensor-readings-report", ["calc", "jupyter", "writer"], "data",
                "calc/sensors.ods (app calc, sheet Sensors) holds today's readings and the alert limit. In "
                "jupyter/sensors.ipynb (app jupyter) set readings to the six readings in hour order and limit to the "
                "sheet's alert limit, then run the notebook. Write its mean and alert count into the Results table of "
                "writer/report.odt (app writer), replace [STATUS] with ALERT if there was any alert (else OK), and put "
                "the mean into the sheet's 'Notebook mean' cell (B9) with the number format '0.00'.",
                [sheet("calc/sensors.ods", "Sensors", rows), notebook("jupyter/sensors.ipynb", cells),
                 document("writer/report.odt", blocks)],
                [[cp("variable_value", "jupyter", None, "readings", readings, tolerance=1e-9),
                  cp("variable_value", "jupyter", None, "limit", 26, tolerance=1e-9),
                  cp("cell_output", "jupyter", None, "stats", f"{mean} {alerts}"),
                  cp("table_rows", "writer", None, "Results", [["Figure", "Value"], ["Mean", str(mean)],
                                                              ["Alerts", str(alerts)]]),
                  cp("document_text", "writer", None, None, r"(?m)^Status: ALERT$"),
                  cp("cell_value", "calc", None, "Sensors!B9", mean, tolerance=0.001),
                  cp("cell_style", "calc", None, "Sensors!B9", {"number_format": "0.00"})]],
                [look("calc", "Sensors"),
                 call("jupyter", "edit_cell", cell="data", source=f"readings = {readings}"),
                 call("jupyter", "edit_cell", cell="limit", source="limit = 26"),
                 call("jupyter", "run_all"),
                 call("writer", "set_table_cells", table="Results", cell="B2", values=[[str(mean)], [str(alerts)]]),
                 call("writer", "find_replace", find="[STATUS]", replace="ALERT"),
                 {"action_type": "set_value", "app": "calc", "target": "Sensors!B9", "params": {"value": mean}},
                 call("calc", "format_range", range="Sensors!B9", number_format="0.00")])


def style_from_notebook() -> Json:
    lengths = [34, 88, 61, 97, 72, 101, 55, 93, 78, 84, 66, 99, 47, 90, 81, 95, 70, 58, 86, 92]
    cells = [("data", "code", f"lengths = {lengths}\nindents = [4, 4, 2, 4, 4, 4, 2, 4]"),
             ("p90", "code", "ordered = sorted(lengths)\np90 = ordered[int(0.9 * len(ordered)) - 1]\n"
                             "tab = max(set(indents), key=indents.count)\nprint(p90, tab)")]
    ordered = sorted(lengths)
    p90 = ordered[int(0.9 * len(ordered)) - 1]
    return task("style-from-notebook", ["jupyter", "codeserver"], "developer",
                "jupyter/style.ipynb (app jupyter) measures the code base: p90 (a line length) and tab (the usual "
                "indent). Run it, then in code-server (app codeserver) set the user settings editor.rulers to a list "
                "holding just p90, editor.tabSize to tab and editor.insertSpaces to true, and create "
                "codeserver/.editorconfig with a '[*]' section holding 'indent_size = <tab>' and "
                "'max_line_length = <p90>'. Finally add a markdown cell at the end of the notebook reading "
                "'Applied: ruler <p90>, tab <tab>'.",
                [notebook("jupyter/style.ipynb", cells), text("codeserver/README.md", "# Style\n\nTeam editor settings.\n")],
                [[cp("codeserver_setting", "codeserver", None, "user:editor.rulers", [p90]),
                  cp("codeserver_setting", "codeserver", None, "user:editor.tabSize", 4),
                  cp("codeserver_setting", "codeserver", None, "user:editor.insertSpaces", True),
                  cp("text_regex", "codeserver", None, "codeserver/.editorconfig", rf"max_line_length\s*=\s*{p90}\b"),
                  cp("text_regex", "codeserver", None, "codeserver/.editorconfig", r"indent_size\s*=\s*4\b"),
                  cp("notebook_source", "jupyter", None, "markdown", rf"Applied: ruler {p90}, tab 4")]],
                [call("jupyter", "run_all"),
                 call("codeserver", "set_setting", key="editor.rulers", value=[p90]),
                 call("codeserver", "set_setting", key="editor.tabSize", value=4),
                 call("codeserver", "set_setting", key="editor.insertSpaces", value=True),
                 call("codeserver", "create_file", path="codeserver/.editorconfig",
                      content=f"root = true\n\n[*]\nindent_size = 4\nmax_line_length = {p90}\n"),
                 call("jupyter", "insert_cell", after="p90", cell_type="markdown", source=f"Applied: ruler {p90}, tab 4")])


def forecast_to_deck() -> Json:
    cells = [("inputs", "code", "customers = [12, 15, 19, 24]\nhorizon = 2"),
             ("model", "code", "growth = round(sum(b / a for a, b in zip(customers, customers[1:])) / 3, 3)\n"
                               "forecast = round(customers[-1] * growth ** horizon)\nprint(growth, forecast)")]
    slides = [*DECK[:3], {"layout": "title_content", "title": "Traction",
                          "body": ["12 pilot customers", "Forecast horizon: 6 quarters"]}, DECK[4]]
    customers = [12, 15, 19, 24]
    growth = round(sum(b / a for a, b in zip(customers, customers[1:], strict=False)) / 3, 3)
    forecast = round(customers[-1] * growth ** 6)
    return task("forecast-to-deck", ["impress", "jupyter"], "data",
                "jupyter/forecast.ipynb (app jupyter) forecasts customers. Set its horizon to the forecast horizon the "
                "Traction slide of impress/deck.odp (app impress) states and run it. Then append a slide titled "
                "'Forecast' whose body is '<forecast> customers in <horizon> quarters' with a fade transition, and set "
                "the Traction slide's notes to 'Quarterly growth factor <growth>' (as the notebook prints them). Leave the "
                "notebook without outputs.",
                [deck(slides=slides), notebook("jupyter/forecast.ipynb", cells)],
                [[cp("variable_value", "jupyter", None, "horizon", 6),
                  cp("variable_value", "jupyter", None, "forecast", forecast),
                  cp("slide_title", "impress", None, "6", "Forecast"),
                  cp("slide_text", "impress", None, "6", rf"(?m)^{forecast} customers in 6 quarters$"),
                  cp("slide_transition", "impress", None, "6", "fade"),
                  cp("slide_notes", "impress", None, "4", f"Quarterly growth factor {growth}"),
                  cp("outputs_cleared", "jupyter", None, None, True)]],
                [look("impress", "slide-4"),
                 call("jupyter", "replace_in_cell", cell="inputs", old="horizon = 2", new="horizon = 6"),
                 call("jupyter", "run_all"),
                 call("impress", "add_slide", layout="title_content", title="Forecast",
                      body=f"{forecast} customers in 6 quarters"),
                 call("impress", "set_transition", slides=["slide-6"], effect="fade"),
                 call("impress", "set_notes", slide="slide-4", text=f"Quarterly growth factor {growth}"),
                 call("jupyter", "clear_outputs")])


def mailed_orders_to_sheet() -> Json:
    orders = [("1041", "Widget", 12), ("1042", "Gadget", 5), ("1043", "Widget", 8)]
    prices = {"Widget": 4.5, "Gadget": 12.0}
    msgs = [message(f"Order {n}", "Shop <orders@shop.example>", f"New order {n}: {q} x {item}.\n",
                    date=f"2026-11-0{3 + i}T09:00:00Z") for i, (n, item, q) in enumerate(orders)]
    rows: list[list[Any]] = [["Order", "Item", "Qty", "Unit price", "Amount"]]
    rows += [[n, item, None, prices[item], f"=C{i + 2}*D{i + 2}"] for i, (n, item, _) in enumerate(orders)]
    rows.append(["Total", None, None, None, "=SUM(E2:E4)"])
    total = sum(q * prices[item] for _, item, q in orders)
    return task("mailed-orders-to-sheet", ["thunderbird", "calc"], "office",
                "Three order mails arrived (app thunderbird). Enter each order's quantity in calc/orders.ods (app calc, "
                "sheet Orders, column C) and give the amounts E2:E5 the number format '0.00'. Create a mail folder "
                "'Orders', tag the three order mails 'Work' and move them into it, then send ops@example.com a message with the "
                "subject 'Orders total' whose body states the sheet's total with two decimals.",
                [mail(msgs), sheet("calc/orders.ods", "Orders", rows)],
                [[cp("range_values", "calc", None, "Orders!C2:C4", [[q] for _, _, q in orders]),
                  cp("cell_value", "calc", None, "Orders!E5", total),
                  cp("cell_style", "calc", None, "Orders!E5", {"number_format": "0.00"}),
                  cp("mail_folder_count", "thunderbird", None, "Orders", 3),
                  cp("mail_folder_count", "thunderbird", None, "INBOX", 2),
                  cp("mail_message_tags", "thunderbird", None, "Orders#Order 1042", "Work"),
                  cp("mail_sent_text", "thunderbird", None, "Orders total", rf"To: .*ops@example\.com[\s\S]*{total:.2f}")]],
                [look("thunderbird"),
                 call("calc", "set_range", range="Orders!C2:C4", values=[[q] for _, _, q in orders]),
                 call("calc", "format_range", range="Orders!E2:E5", number_format="0.00"),
                 call("thunderbird", "create_folder", name="Orders"),
                 call("thunderbird", "tag_messages", messages=["INBOX#3", "INBOX#4", "INBOX#5"], add=["Work"]),
                 call("thunderbird", "move_messages", messages=["INBOX#3", "INBOX#4", "INBOX#5"], folder="Orders"),
                 call("thunderbird", "send_message", to=["ops@example.com"], subject="Orders total",
                      body=f"Today's orders total {total:.2f}.\n")])


def photos_to_project() -> Json:
    note = message("Harbor site photos", "Ines Park <ines@example.com>",
                   "Hi,\nthe site photo for the Harbor project is attached. Please file it in the project's photos "
                   "folder and move the old draft notes into its archive folder.\n",
                   attachments=[{"name": "site-01.txt", "content_type": "text/plain", "text": "Harbor site photo 01\n"}])
    entries = [{"path": "projects/harbor/notes-draft.txt", "content": "draft\n"},
               {"path": "projects/harbor/plan.txt", "content": "plan\n"},
               {"path": "projects/meadow/notes-draft.txt", "content": "meadow draft\n"}]
    return task("photos-to-project", ["thunderbird", "nautilus"], "files",
                "Do what the mail 'Harbor site photos' (app thunderbird) asks in nautilus/projects (app nautilus): "
                "create the project's 'photos' and 'archive' folders, save the attachment under its own name into "
                "photos, and move the draft notes into archive. Then reply to the sender with the subject "
                "'Re: Harbor site photos' and move the mail to the Archive mail folder.",
                [mail([note]), tree(entries)],
                [[cp("nautilus_folder_listing", "nautilus", None, "nautilus/projects/harbor/photos", ["site-01.txt"]),
                  cp("nautilus_folder_listing", "nautilus", None, "nautilus/projects/harbor/archive", ["notes-draft.txt"]),
                  cp("nautilus_folder_listing", "nautilus", None, "nautilus/projects/harbor",
                     ["archive", "photos", "plan.txt"]),
                  cp("nautilus_path_exists", "nautilus", None, "nautilus/projects/meadow/notes-draft.txt", True,
                     note="guard: the other project is untouched"),
                  cp("mail_sent_text", "thunderbird", None, "Re: Harbor site photos", r"To: .*ines@example\.com"),
                  cp("mail_subjects", "thunderbird", None, "Archive", "Harbor site photos")]],
                [look("thunderbird"),
                 call("nautilus", "create_folder", path="nautilus/projects/harbor/photos"),
                 call("nautilus", "create_folder", path="nautilus/projects/harbor/archive"),
                 call("thunderbird", "save_attachment", message="INBOX#3", name="site-01.txt",
                      path="nautilus/projects/harbor/photos/site-01.txt"),
                 call("nautilus", "move", sources=["nautilus/projects/harbor/notes-draft.txt"],
                      destination="nautilus/projects/harbor/archive"),
                 call("thunderbird", "send_message", to=["ines@example.com"], subject="Re: Harbor site photos",
                      body="Filed, thanks.\n"),
                 call("thunderbird", "move_messages", messages=["INBOX#3"], folder="Archive")])


def repo_conventions_mail() -> Json:
    ask = message("Repo conventions", "Dana Lee <dana@example.com>",
                  "Hi,\nfor the atlas repo please: set the editor tab size to 2 and turn on format on save (user "
                  "settings), bump VERSION to 1.4.0, rename the changelog's 'Unreleased' heading to that version, and "
                  "add a build task labelled 'build' that runs 'make dist', and bind ctrl+shift+b to "
                  "workbench.action.tasks.build. Reply when done.\n")
    return task("repo-conventions-mail", ["thunderbird", "codeserver"], "developer",
                "Carry out the requests of the mail 'Repo conventions' (app thunderbird) in code-server (app "
                "codeserver; the repo is codeserver/atlas), then reply to the sender with the subject "
                "'Re: Repo conventions'.",
                [mail([ask]), text("codeserver/atlas/VERSION", "1.3.2\n"),
                 text("codeserver/atlas/CHANGELOG.md", "# Changelog\n\n## Unreleased\n\n- New export\n\n## 1.3.2\n\n- Fixes\n")],
                [[cp("codeserver_setting", "codeserver", None, "user:editor.tabSize", 2),
                  cp("codeserver_setting", "codeserver", None, "user:editor.formatOnSave", True),
                  cp("text_regex", "codeserver", None, "codeserver/atlas/VERSION", r"\A1\.4\.0\n?\Z"),
                  cp("text_regex", "codeserver", None, "codeserver/atlas/CHANGELOG.md", r"(?m)^## 1\.4\.0$"),
                  cp("codeserver_task", "codeserver", None, "build", "make dist"),
                  cp("codeserver_keybinding", "codeserver", None, "ctrl+shift+b", "workbench.action.tasks.build"),
                  cp("mail_sent_text", "thunderbird", None, "Re: Repo conventions", r"To: .*dana@example\.com")]],
                [look("thunderbird"),
                 call("codeserver", "set_setting", key="editor.tabSize", value=2),
                 call("codeserver", "set_setting", key="editor.formatOnSave", value=True),
                 call("codeserver", "write_file", path="codeserver/atlas/VERSION", content="1.4.0\n"),
                 call("codeserver", "replace_text", path="codeserver/atlas/CHANGELOG.md", old="## Unreleased",
                      new="## 1.4.0"),
                 call("codeserver", "add_task", label="build", command="make dist", group="build"),
                 call("codeserver", "add_keybinding", key="ctrl+shift+b", command="workbench.action.tasks.build"),
                 call("thunderbird", "send_message", to=["dana@example.com"], subject="Re: Repo conventions",
                      body="Done: settings, VERSION 1.4.0, changelog and the build task.\n")],
                open_={"codeserver": "codeserver/atlas/VERSION"})


def project_folders_from_sheet() -> Json:
    projects = [("apollo", "Active"), ("borealis", "Archived"), ("cascade", "Active"), ("delta", "Archived"),
                ("ember", "Active")]
    rows: list[list[Any]] = [["Project", "Status", "Folder"], *([p, s, None] for p, s in projects)]
    entries = [{"path": f"old/{p}/README.txt", "content": f"{p}\n"} for p, _ in projects]
    folders = [f"active/{p}" if s == "Active" else "archive.zip" for p, s in projects]
    return task("project-folders-from-sheet", ["calc", "nautilus"], "files",
                "calc/projects.ods (app calc, sheet Projects) gives each project's status; their folders are in "
                "nautilus/old (app nautilus). Move every Active project's folder into nautilus/active (create it), "
                "pack the Archived projects' folders into nautilus/archive.zip and delete those folders (to the "
                "trash), then fill the sheet's Folder column with where each project now is, relative to nautilus/ "
                "('active/<name>' or 'archive.zip'), make its header row bold, and bookmark nautilus/active with the "
                "label 'Active projects'.",
                [sheet("calc/projects.ods", "Projects", rows), tree(entries)],
                [[cp("nautilus_folder_listing", "nautilus", None, "nautilus/active", ["apollo", "cascade", "ember"]),
                  cp("nautilus_archive_members", "nautilus", None, "nautilus/archive.zip",
                     ["borealis", "borealis/README.txt", "delta", "delta/README.txt"]),
                  cp("nautilus_folder_listing", "nautilus", None, "nautilus/old", []),
                  cp("range_values", "calc", None, "Projects!C2:C6", [[f] for f in folders]),
                  cp("cell_style", "calc", None, "Projects!C1", {"bold": True}),
                  cp("nautilus_bookmark_label", "nautilus", None, "nautilus/active", "Active projects")]],
                [look("calc", "Projects"),
                 call("nautilus", "create_folder", path="nautilus/active"),
                 call("nautilus", "move", sources=[f"nautilus/old/{p}" for p, s in projects if s == "Active"],
                      destination="nautilus/active"),
                 call("nautilus", "compress", paths=["nautilus/old/borealis", "nautilus/old/delta"],
                      archive="nautilus/archive.zip"),
                 call("nautilus", "trash", paths=["nautilus/old/borealis", "nautilus/old/delta"]),
                 call("calc", "set_range", range="Projects!C2:C6", values=[[f] for f in folders]),
                 call("calc", "format_range", range="Projects!A1:C1", bold=True),
                 call("nautilus", "bookmark", path="nautilus/active", label="Active projects")])


def services_to_diagram_and_env() -> Json:
    services = [("api", 8080), ("auth", 7000), ("web", 3000), ("worker", 9000)]
    entries = [{"path": f"services/{n}-{p}/README.txt", "content": f"{n}\n"} for n, p in services]
    return task("services-to-diagram-and-env", ["nautilus", "drawio", "codeserver"], "developer",
                "nautilus/services (app nautilus) has one folder per service, named '<service>-<port>'. In "
                "drawio/system.drawio (app drawio) add one box per service labelled '<service>:<port>' and an arrow "
                "from the Gateway box to each. In code-server (app codeserver) write codeserver/ports.env with one "
                "line '<SERVICE>_PORT=<port>' per service (service name upper-cased), in alphabetical order.",
                [tree(entries), drawio("drawio/system.drawio", [("gw", "Gateway")], chain=False),
                 text("codeserver/README.md", "# Deploy\n\nPorts live in ports.env.\n")],
                [[cp("drawio_vertex_labels", "drawio", None, None, ["Gateway", *(f"{n}:{p}" for n, p in services)],
                     compare="set"),
                  *(cp("drawio_edge_count", "drawio", None, f"Gateway -> {n}:{p}", 1) for n, p in services),
                  cp("text_regex", "codeserver", None, "codeserver/ports.env",
                     r"\AAPI_PORT=8080\nAUTH_PORT=7000\nWEB_PORT=3000\nWORKER_PORT=9000\n?\Z")]],
                [call("nautilus", "show_folder", path="nautilus/services"),
                 batch("drawio", *(call("drawio", "add_vertex", label=f"{n}:{p}", x=40 + 180 * i, y=200)
                                   for i, (n, p) in enumerate(services))),
                 batch("drawio", *(call("drawio", "connect", source="Gateway", target=f"{n}:{p}") for n, p in services)),
                 call("codeserver", "create_file", path="codeserver/ports.env",
                      content="API_PORT=8080\nAUTH_PORT=7000\nWEB_PORT=3000\nWORKER_PORT=9000\n")])


def pipeline_to_notebook_and_folders() -> Json:
    order = ["ingest", "validate", "clean", "train", "report"]
    boxes = [("c", "clean"), ("r", "report"), ("i", "ingest"), ("t", "train"), ("v", "validate")]  # out of order
    edges = [("i", "v"), ("v", "c"), ("c", "t"), ("t", "r")]
    cells = [("stages", "code", "stages = []"),
             ("plan", "code", "plan = [f'{i + 1:02d}-{s}' for i, s in enumerate(stages)]\nprint(plan)")]
    plan = [f"{i + 1:02d}-{s}" for i, s in enumerate(order)]
    return task("pipeline-to-notebook-and-folders", ["drawio", "jupyter", "nautilus"], "developer",
                "drawio/pipeline.drawio (app drawio) shows the data pipeline's stages joined by arrows. In "
                "jupyter/pipeline.ipynb (app jupyter) set stages to the stage names in arrow order and run the "
                "notebook; then create one folder per entry of the plan it prints under nautilus/pipeline (app "
                "nautilus), named exactly like the entry.",
                [drawio("drawio/pipeline.drawio", boxes, edges=edges), notebook("jupyter/pipeline.ipynb", cells),
                 tree([{"path": "pipeline", "folder": True}])],
                [[cp("variable_value", "jupyter", None, "stages", order),
                  cp("cell_output", "jupyter", None, "plan", "01-ingest"),
                  cp("nautilus_folder_listing", "nautilus", None, "nautilus/pipeline", plan),
                  *(cp("nautilus_path_kind", "nautilus", None, f"nautilus/pipeline/{p}", "folder") for p in plan[:1])]],
                [look("drawio"),
                 call("jupyter", "edit_cell", cell="stages", source=f"stages = {order}"),
                 call("jupyter", "run_all"),
                 *(call("nautilus", "create_folder", path=f"nautilus/pipeline/{p}") for p in plan)])


TASKS = [sensor_readings_report(), style_from_notebook(), forecast_to_deck(), mailed_orders_to_sheet(),
         photos_to_project(), repo_conventions_mail(), project_folders_from_sheet(), services_to_diagram_and_env(),
         pipeline_to_notebook_and_folders()]
