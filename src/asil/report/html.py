"""``report.html``: one self-contained page (inline CSS, JS and SVG; no network).

Step renders are referenced relative to the report file by default (the page stays small and
works when opened from the run folder); ``embed_images=True`` inlines them as data URIs so the
file can travel alone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape
from pathlib import Path

from asil.report.charts import success_by_app, success_by_budget
from asil.report.runs import RunSet
from asil.report.tables import Table
from asil.report.viewer import ImageLinks, viewer

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1f24;background:#fff}
header,main{max-width:1280px;margin:0 auto;padding:0 20px}
header{border-bottom:1px solid #d0d7de;padding-bottom:8px}
h1{font-size:22px;margin:16px 0 4px}h2{font-size:18px;margin:28px 0 8px}h3{font-size:16px}
nav a{margin-right:14px}
.charts{display:flex;flex-wrap:wrap;gap:20px}
figure{margin:0}figcaption{font-weight:600;margin:4px 0}
.chart .grid{stroke:#e1e4e8}.chart .tick,.chart .label{font-size:11px;fill:#57606a}
.legend{font-size:12px}.legend .key{margin-right:14px;white-space:nowrap}
.legend i{display:inline-block;width:8px;height:8px;border:2px solid;margin-right:5px}
table.data{border-collapse:collapse;margin:6px 0 4px;font-variant-numeric:tabular-nums}
table.data th,table.data td{border:1px solid #d0d7de;padding:3px 8px;text-align:right}
table.data th:first-child,table.data td:first-child{text-align:left}
table.data thead th{background:#f6f8fa}
.note{color:#57606a;font-size:12px;max-width:1100px;margin:2px 0}
details.task{border:1px solid #d0d7de;border-radius:6px;margin:6px 0;padding:4px 10px}
details.task summary{cursor:pointer}
.badge{border-radius:10px;padding:0 8px;font-size:12px;color:#fff}
.badge.ok{background:#1a7f37}.badge.fail{background:#cf222e}
table.steps{border-collapse:collapse;width:100%;margin:8px 0;table-layout:fixed}
table.steps td,table.steps th{border-top:1px solid #eaeef2;vertical-align:top;padding:4px;text-align:left}
table.steps td.n{width:28px}table.steps pre{white-space:pre-wrap;word-break:break-word;margin:0;font-size:12px}
.status.ok{color:#1a7f37}.status.invalid,.status.error{color:#cf222e}
.render img{max-width:100%;border:1px solid #d0d7de}
.strip{display:flex;gap:4px;overflow-x:auto;margin:6px 0}.strip figure{flex:none}.strip img{height:96px;border:1px solid #d0d7de}
.checkpoints{font-size:12px}.checkpoints .pass{color:#1a7f37}.checkpoints .fail{color:#cf222e}
.error{color:#cf222e}.toolbar{margin:8px 0}
"""

# Captions under renders say the image's real size once the browser has decoded it, or that it
# could not be loaded; a #task-... address opens that task.
SCRIPT = """
document.querySelectorAll('.render img').forEach(function(img){
  function sized(){var s=img.parentNode.querySelector('.size');
    if(s){s.textContent='('+img.naturalWidth+'\\u00d7'+img.naturalHeight+' px)';}}
  function missing(){var s=img.parentNode.querySelector('.size');
    if(s){s.textContent='(render could not be loaded)';s.className='size missing';}}
  if(img.complete&&img.naturalWidth){sized();}else{img.addEventListener('load',sized);img.addEventListener('error',missing);}
});
function openHash(){var id=decodeURIComponent(location.hash.slice(1));var el=id&&document.getElementById(id);
  if(el&&el.tagName==='DETAILS'){el.open=true;el.scrollIntoView();}}
window.addEventListener('hashchange',openHash);openHash();
var only=document.getElementById('failed-only');
if(only){only.addEventListener('change',function(){document.querySelectorAll('details.task.ok').forEach(
  function(d){d.style.display=only.checked?'none':'';});});}
"""


def table_html(table: Table) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in table.rows)
    if not table.rows:
        body = f'<tr><td colspan="{len(table.columns)}">no rows</td></tr>'
    notes = "".join(f'<p class="note">{escape(note)}</p>' for note in table.notes)
    return (f'<h3>{escape(table.title)}</h3><table class="data" id="table-{escape(_slug(table.key))}">'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{notes}")


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-")


def render_html(sets: list[RunSet], tables: list[Table], report_path: Path, embed_images: bool = False) -> str:
    runs = [run for item in sets for run in item.runs]
    links = ImageLinks(report_path.parent, embed_images)
    folders = "".join(f"<li>{escape(run.label)} — <code>{escape(str(run.folder))}</code>, "
                      f"{len(run.results)} tasks</li>" for run in runs)
    charts = success_by_app(sets) + success_by_budget(sets)
    created = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>ASIL report</title><style>{STYLE}</style></head>
<body><header><h1>ASIL benchmark report</h1><ul>{folders}</ul><small>written {created}</small>
<nav><a href="#charts">charts</a><a href="#tables">tables</a><a href="#trajectories">trajectories</a></nav></header>
<main><section id="charts"><h2>Charts</h2><div class="charts">{charts}</div></section>
<section id="tables"><h2>Tables</h2>{"".join(table_html(t) for t in tables)}</section>
<section id="trajectories"><h2>Trajectories</h2>
<div class="toolbar"><label><input type="checkbox" id="failed-only"> failed tasks only</label></div>
{viewer(runs, links)}</section></main>
<script>{SCRIPT}</script></body></html>
"""
