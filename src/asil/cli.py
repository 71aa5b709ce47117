"""The ``asil`` command line. Bad input gets one sentence on stderr and exit code 2."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from asil.protocol import AsilError
from asil.training.cli import add_export_parser, add_rollout_parser, add_tasks_commands

EXIT_OK, EXIT_ERROR, EXIT_INVALID = 0, 1, 2


class UsageError(AsilError):
    code = "usage"


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


def cmd_apps(args: argparse.Namespace) -> int:
    from asil.plugins import app_names, plugin
    from asil.tasks.loader import builtin_root, task_files

    print(f"{'app':<12} {'pattern':<8} {'files':<22} {'tasks':>5} render ready  detail")
    for name in app_names():
        record = plugin(name)
        ready = record.adapter_class().readiness()
        tasks = len(task_files(builtin_root().parent / record.suite)) if record.suite else 0  # suite: under asil/tasks
        print(f"{name:<12} {record.pattern:<8} {','.join(record.extensions) or '-':<22} {tasks:>5} "
              f"{'yes' if record.render else 'no':<6} {'yes' if ready.ready else 'no':<6} {ready.detail}")
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from asil.plugins import adapter_class, app_names

    if args.report is not None:
        from asil.onboard.readiness import report_text, write_report

        reports = write_report(args.report, args.app or None)
        print(report_text(reports), end="")
        print(f"written: {args.report / 'readiness.json'} and readiness.txt")
        return EXIT_OK if all(r.ready for r in reports) else EXIT_ERROR
    missing = 0
    for name in app_names():
        ready = adapter_class(name).readiness()
        missing += not ready.ready and not ready.external
        status = "ok " if ready.ready else "NOT CONFIGURED" if ready.external else "MISSING"
        print(f"{status} {name}: {ready.detail}")
    return EXIT_OK if not missing else EXIT_ERROR


def cmd_onboard(args: argparse.Namespace) -> int:
    from asil.onboard.pipeline import run_cli

    provider = None
    if args.model:
        from asil.llm.providers import make_provider

        provider = make_provider(args.model, base_url=args.base_url)
    return run_cli(args.profile, allow_actions=args.allow_actions, install=args.install, out=args.out, provider=provider)


def cmd_schema(args: argparse.Namespace) -> int:
    from asil.plugins import adapter_class

    _print_json(adapter_class(args.app).action_schema().model_dump(mode="json", exclude_none=True))
    return EXIT_OK


def _open(file: str, app: str | None) -> Any:
    from asil.plugins import adapter_class, app_for_path
    from asil.workspace import Workspace

    path = Path(file)
    if not path.exists():
        raise UsageError(f"The file {file!r} does not exist.", hint="Give the path of an existing document.")
    workspace = Workspace(path.resolve().parent)
    return adapter_class(app or app_for_path(path))(workspace, path.name)


def cmd_observe(args: argparse.Namespace) -> int:
    with _open(args.file, args.app) as adapter:
        observation = adapter.observe(view=args.view, offset=args.offset, limit=args.limit)
    if args.json:
        _print_json(observation.to_agent_dict())
    else:
        print(observation.summary)
        for element in observation.elements:
            extra = f"  {element.meta.get('formula')}" if "formula" in element.meta else ""
            shown = element.meta.get("display", element.value)
            if shown is None:
                shown = element.label or ""
            print(f"  {element.id:<16} {element.data_type or element.type:<9} {shown!s}{extra}")
    return EXIT_OK


def cmd_act(args: argparse.Namespace) -> int:
    from asil.protocol import parse_action

    action = parse_action(args.action)
    with _open(args.file, args.app) as adapter:
        result = adapter.execute(action, observe=False)
        if result.ok:
            adapter.save()
    payload = result.model_dump(mode="json", exclude_none=True)
    if result.ok:
        _print_json(payload)
        return EXIT_OK
    assert result.error is not None
    print(f"{result.error.message}{' ' + result.error.hint if result.error.hint else ''}", file=sys.stderr)
    return EXIT_INVALID if result.status == "invalid" else EXIT_ERROR


def one_line(text: str, width: int) -> str:
    """``text`` on one line (every run of whitespace, newlines included, is one space), cut to ``width`` with "..."."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 3] + "..."


def cmd_tasks(args: argparse.Namespace) -> int:
    tasks = _load_tasks(args)
    if args.tasks_command == "list":
        for task in tasks:
            print(f"{task.id:<34} {task.suite:<6} {','.join(task.apps):<8} {task.region:<21} {task.domain:<14} "
                  f"{one_line(task.instruction, 70)}")
        return EXIT_OK
    from asil.runner.check import check_task

    failures = 0
    for task in tasks:
        check = check_task(task)
        failures += not check.ok
        print(f"{'PASS' if check.ok else 'FAIL'} {task.id:<34} reference {check.reference_score:.2f} "
              f"initial {check.initial_score:.2f}{'  ' + check.detail if check.detail else ''}", flush=True)
    print(f"{len(tasks) - failures}/{len(tasks)} tasks sound")
    return EXIT_OK if failures == 0 else EXIT_ERROR


def cmd_run(args: argparse.Namespace) -> int:
    from asil.agents import make_agent
    from asil.runner.episode import run_episode
    from asil.runner.progress import LiveStatus
    from asil.tasks import get_task

    task = get_task(args.task_id, root=args.tasks_dir)
    _check_timeout("--episode-timeout", args.episode_timeout)
    result = run_episode(task, make_agent(args.agent, **_agent_kwargs(args)), Path(args.out), budget=args.budget,
                         full_observations=args.full_observations, render=args.render,
                         timeout_s=args.episode_timeout, status=LiveStatus(), hints=args.hints == "on",
                         keep_final_state=args.keep_final_state)
    print(f"{task.id}: {'success' if result.success else 'failure'} score {result.score:.3f} "
          f"steps {result.steps} ({result.termination}) -> {Path(args.out) / task.id}")
    if result.error:
        print(f"reason: {result.error.splitlines()[0]}", file=sys.stderr)
    return EXIT_OK if result.termination not in ("agent_error", "env_error", "llm_error") else EXIT_ERROR


def cmd_bench(args: argparse.Namespace) -> int:
    from asil.runner.bench import AgentSpec, run_bench, run_settings
    from asil.runner.progress import Progress
    from asil.runner.results import RunRecord
    from asil.runner.summary import format_table

    tasks = _load_tasks(args)
    if args.workers < 1:
        raise UsageError(f"--workers must be 1 or more, not {args.workers}.", hint="e.g. --workers 2")
    _check_timeout("--episode-timeout", args.episode_timeout)
    if args.ray_address and args.backend != "ray":
        raise UsageError("--ray-address applies to the ray backend only.", hint="Add --backend ray.")
    if args.repeats < 1:
        raise UsageError(f"--repeats must be 1 or more, not {args.repeats}.", hint="e.g. --repeats 2")
    agent = AgentSpec(args.agent, _agent_kwargs(args))
    record = RunRecord(settings=run_settings(agent, args.budget, args.backend, args.hints == "on"), suite=args.suite,
                       app=args.app, tasks_dir=str(args.tasks_dir) if args.tasks_dir else None,
                       task_ids=args.task or None, workers=args.workers, episode_timeout_s=args.episode_timeout,
                       render=args.render, keep_final_state=args.keep_final_state)
    progress = Progress(len(tasks))

    def resumed(finished: dict[str, Any]) -> None:
        progress.done = progress.resumed = len(finished)
        progress.succeeded = sum(r.success for r in finished.values())
        progress.start()

    options: dict[str, Any] = {"budget": args.budget, "render": args.render, "backend": args.backend,
                               "workers": args.workers, "episode_timeout_s": args.episode_timeout,
                               "ray_address": args.ray_address, "live": True,
                               "keep_final_state": args.keep_final_state,
                               "full_observations": args.full_observations}
    if args.repeats > 1:
        return _bench_repeats(tasks, agent, Path(args.out), args.repeats, record, options)
    summary = run_bench(tasks, agent, Path(args.out), progress=progress.update, record=record, on_resume=resumed,
                        **options)
    print()
    print(format_table(summary))
    return EXIT_OK


def _check_timeout(flag: str, seconds: float | None) -> None:
    if seconds is not None and seconds <= 0:
        raise UsageError(f"{flag} must be a positive number of seconds, not {seconds:g}.")


def _bench_repeats(tasks: list[Any], agent: Any, out: Path, repeats: int, record: Any, options: dict[str, Any]) -> int:
    from asil.runner.bench import repeat_folder, run_repeats
    from asil.runner.summary import format_table

    summaries = run_repeats(tasks, agent, out, repeats, record, **options)
    for repeat, summary in enumerate(summaries, start=1):
        seed = (summary.get("settings") or {}).get("seed")
        print(f"\nrepeat {repeat} of {repeats} (seed {'-' if seed is None else seed}) -> {repeat_folder(out, repeat)}")
        print(format_table(summary))
    print(f"\nmean ± SD over the repeats: asil report {out}")
    return EXIT_OK


def _load_tasks(args: argparse.Namespace) -> list[Any]:
    """The selected tasks, or one sentence saying why there are none."""
    from asil.tasks import load_tasks

    tasks = load_tasks(suite=args.suite, app=args.app, root=args.tasks_dir)
    wanted = getattr(args, "task", None) or []
    if wanted:
        unknown = sorted(set(wanted) - {t.id for t in tasks})
        if unknown:
            raise UsageError(f"No task {unknown[0]!r} matches that suite/app.",
                             hint="Run 'asil tasks list' to see all tasks.")
        tasks = [t for t in tasks if t.id in wanted]
    if tasks:
        return tasks
    raise UsageError("No task matches that suite/app.", hint="Run 'asil tasks list' to see all tasks.")


def cmd_report(args: argparse.Namespace) -> int:
    from asil.report import build_report

    report = build_report([Path(d) for d in args.dirs], Path(args.out) if args.out else None, args.embed_images,
                          args.table)
    print(report.text, end="")
    print(f"\nwrote {report.html_path} and {report.text_path}")
    return EXIT_OK


def cmd_band(args: argparse.Namespace) -> int:
    from asil.tasks.bands import read_band

    if args.write:
        from asil.runner.bands import write_band

        band = write_band(args.band, progress=lambda line: print(line, file=sys.stderr, flush=True))
        print(f"wrote {args.band}: {len(band.selected)} of {len(band.candidates)} candidates")
    else:
        band = read_band(args.band)
    print(f"rule: {band.rule}")
    print(f"{'task':<36} {'app':<12} {'actions':>7} {'checks':>6} {'funcs':>5} {'obs bytes':>9}")
    for c in band.candidates:
        if c.selected:
            print(f"{c.id:<36} {c.app:<12} {c.actions:>7} {c.checkpoints:>6} {c.functions:>5} {c.observation_bytes:>9}")
    return EXIT_OK


def cmd_audit(args: argparse.Namespace) -> int:
    from asil.runner.audit import audit_run, format_audit

    audit = audit_run(Path(args.run_dir), args.balanced)
    print(format_audit(audit))
    return EXIT_OK if not audit.disagreements else EXIT_ERROR


def cmd_annotate(args: argparse.Namespace) -> int:
    from asil.annotate import Judge, annotate
    from asil.llm import make_provider
    from asil.report.text import format_report

    if args.provider == "scripted":
        if args.model or args.base_url:
            raise UsageError("--provider scripted takes no --model or --base-url.")
        judge = Judge(make_provider("scripted"), "scripted")
    else:
        if not args.model:
            raise UsageError("Name the judge model.", hint="--model NAME [--base-url URL], or --provider scripted.")
        options = {k: getattr(args, k) for k in ("base_url", "api_key", "server") if getattr(args, k)}
        judge = Judge(make_provider(args.model, **options), args.model)
    result = annotate([Path(d) for d in args.dirs], judge, [Path(h) for h in args.human])
    print(format_report(result.tables), end="")
    written = ", ".join(str(Path(folder) / "annotations.json") for folder in result.annotated)
    print(f"\nwrote {written}")
    return EXIT_OK


SAMPLING = ("temperature", "top_p", "top_k", "seed", "thinking_budget", "answer_tokens", "caps")  # RuntimeParams


def _agent_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Options for model-driven agents; the oracle takes none."""
    lstc_only = [flag for flag, given in (("--ablate", args.ablate), ("--max-candidates", args.max_candidates),
                                          ("--gui-channel", args.gui_channel))
                 if given not in (None, False)]
    if lstc_only and args.agent != "lstc":
        raise UsageError(f"{lstc_only[0]} applies to the lstc agent only.", hint="Use --agent lstc.")
    if args.observations is not None and args.agent != "react":
        raise UsageError("--observations applies to the react agent only.", hint="Use --agent react.")
    if args.schema_detail is not None and args.agent not in ("react", "lstc"):
        raise UsageError("--schema-detail applies to the react and lstc agents only.", hint="Use --agent react or lstc.")
    if args.hybrid_vision and args.agent != "react":  # the one agent that sends image parts so far
        raise UsageError("--hybrid-vision applies to the react agent only.", hint="Use --agent react.")
    if args.agent == "oracle":
        return {}
    options: dict[str, Any] = {"model": args.model, "params": _runtime_params(args)}
    for name in ("base_url", "api_key", "server"):
        if getattr(args, name):
            options[name] = getattr(args, name)
    _check_timeout("--call-timeout", args.call_timeout)
    if args.call_timeout is not None:
        options["timeout_s"] = args.call_timeout
    if args.context_length is not None:
        if args.context_length < 256:
            raise UsageError(f"--context-length must be at least 256 tokens, not {args.context_length}.",
                             hint="Give the context the server was started with, e.g. 8192.")
        options["context_length"] = args.context_length
    if args.no_stream:
        options["stream"] = False
    if args.constrained:
        options["constrained"] = True
    if args.ablate:
        options["ablate"] = args.ablate
    if args.max_candidates is not None:
        options["max_candidates"] = args.max_candidates
    if args.gui_channel:
        options["gui_channel"] = True
    if args.observations is not None:
        options["observations"] = args.observations
    if args.hybrid_vision:
        options["hybrid_vision"] = True
    if args.schema_detail is not None:
        options["schema_detail"] = args.schema_detail
    return options


def _runtime_params(args: argparse.Namespace) -> dict[str, Any]:
    """Table 5's sampling parameters as given (each flag defaults to the paper's value), validated."""
    from pydantic import ValidationError

    from asil.llm.params import RuntimeParams

    try:
        return RuntimeParams(**{name: getattr(args, name) for name in SAMPLING}).model_dump()
    except ValidationError as exc:
        first = exc.errors()[0]
        flag = "--" + str(first["loc"][0]).replace("_", "-")
        raise UsageError(f"{flag}: {first['msg']}.", hint="See 'asil run --help' for the paper's defaults.") from None


def cmd_mcp_serve(args: argparse.Namespace) -> int:
    from asil.mcp_server import ServeOptions, serve

    apps = [name.strip() for name in args.app.split(",") if name.strip()]
    if not apps:
        raise UsageError("--app names no app.", hint="e.g. --app calc or --app calc,writer.")
    serve(ServeOptions(apps=apps, workspace=Path(args.workspace), transport=args.transport, host=args.host,
                       port=args.port, token=args.token, read_only=args.read_only,
                       allow_destructive=args.allow_destructive, allowed_hosts=args.allowed_host))
    return EXIT_OK


def _mcp_parser(sub: Any) -> None:
    mcp = sub.add_parser("mcp", help="serve the adapters to MCP clients")
    mcp_sub = mcp.add_subparsers(dest="mcp_command", required=True)
    p = mcp_sub.add_parser("serve", help="an MCP server for the documents of one folder")
    p.add_argument("--app", required=True, help="app(s) to serve, comma-separated, e.g. calc or calc,writer")
    p.add_argument("--workspace", required=True, help="the folder whose documents are served; nothing outside it")
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument("--host", default="127.0.0.1", help="http: address to bind (default loopback)")
    p.add_argument("--port", type=int, default=8765, help="http: port (0 picks a free one)")
    p.add_argument("--token", help="http: bearer token clients must send (default: $ASIL_MCP_TOKEN)")
    p.add_argument("--allowed-host", action="append", default=[],
                   help="http: extra Host name clients may use (DNS-rebinding protection stays on)")
    p.add_argument("--read-only", action="store_true", help="refuse every change; write nothing to the workspace")
    p.add_argument("--allow-destructive", action="store_true",
                   help="allow functions the schema marks destructive (deleting rows, columns, sheets)")
    p.set_defaults(func=cmd_mcp_serve)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="asil", description="Agents operate real software through structured "
                                     "state and semantic actions.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("apps", help="adapters, realization pattern, readiness").set_defaults(func=cmd_apps)
    p = sub.add_parser("doctor", help="readiness of every adapter's real application")
    p.add_argument("--report", type=Path, metavar="DIR",
                   help="check every gate (program, version, start/stop, observe, each function, render, raw validator, "
                        "tasks) and write readiness.json and readiness.txt in DIR; an unchecked gate is not ready")
    p.add_argument("--app", action="append", default=[], help="only this app (repeatable; with --report)")
    p.set_defaults(func=cmd_doctor)
    p = sub.add_parser("onboard", help="qualify, compile, audit, probe and assess an interface profile")
    p.add_argument("profile", type=Path, help="the interface profile (YAML), see docs/onboarding.md")
    p.add_argument("--allow-actions", action="store_true",
                   help="run the probes: start the real program and change state in a throwaway workspace")
    p.add_argument("--install", action="store_true",
                   help="write the bundle into ASIL's generated bundles (the app is then registered)")
    p.add_argument("--out", type=Path, help="folder for the bundle when not installing (default: here)")
    p.add_argument("--model", help="draft write paths from the profile's prose evidence with this model "
                                   "(scripted, replay:FILE.jsonl, or a model served at --base-url)")
    p.add_argument("--base-url", default="http://127.0.0.1:8080/v1", help="the OpenAI-compatible endpoint")
    p.set_defaults(func=cmd_onboard)
    p = sub.add_parser("schema", help="an app's action schema (JSON)")
    p.add_argument("app")
    p.set_defaults(func=cmd_schema)
    p = sub.add_parser("observe", help="observation of a document")
    p.add_argument("file")
    p.add_argument("--app")
    p.add_argument("--view", help="view to show (a sheet name for calc)")
    p.add_argument("--offset", type=int, help="first row of the window (0-based)")
    p.add_argument("--limit", type=int, help="rows in the window")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_observe)
    p = sub.add_parser("act", help="validate and execute one action on a document, then save it")
    p.add_argument("file")
    p.add_argument("--app")
    p.add_argument("--action", required=True, help="the action as JSON")
    p.set_defaults(func=cmd_act)
    tasks = sub.add_parser("tasks", help="list or check tasks")
    tasks_sub = tasks.add_subparsers(dest="tasks_command", required=True)
    for name in ("list", "check"):
        p = tasks_sub.add_parser(name)
        _task_filters(p)
        p.set_defaults(func=cmd_tasks)
    add_tasks_commands(tasks_sub)
    p = sub.add_parser("run", help="run one task with an agent")
    p.add_argument("task_id")
    _agent_options(p)
    p.add_argument("--full-observations", action="store_true", help="store whole observations in traj.jsonl")
    p.add_argument("--tasks-dir", type=Path)
    p.add_argument("--episode-timeout", type=float, metavar="S",
                   help="wall-clock limit of the episode, checked between steps; a late episode ends as a timeout "
                   "and is still evaluated (bound each step with --call-timeout)")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("bench", help="run many tasks (resumable) and print a per-app table")
    _task_filters(p)
    p.add_argument("--task", action="append", default=[], metavar="ID",
                   help="run only this task (repeatable); combines with --suite/--app/--tasks-dir")
    _agent_options(p)
    p.add_argument("--workers", type=int, default=1, help="episodes run at once, each in its own process")
    p.add_argument("--backend", choices=["local", "ray"], default="local",
                   help="local worker processes, or Ray tasks (pip install 'asil[ray]')")
    p.add_argument("--ray-address", help="an existing Ray cluster (default: a private local Ray)")
    p.add_argument("--episode-timeout", type=float, metavar="S",
                   help="wall-clock limit per episode; a late episode is stopped and recorded as a timeout")
    p.add_argument("--full-observations", action="store_true",
                   help="store whole observations in traj.jsonl (needed by 'asil export sft --runs')")
    p.add_argument("--repeats", type=int, default=1, metavar="N",
                   help="run the tasks N times into OUT/repeat-1..N, repeat i with model seed 42+i-1 (recorded in "
                   "run.json); 'asil report OUT' shows mean ± SD")
    p.set_defaults(func=cmd_bench)
    p = sub.add_parser("band", help="a task band drawn from a suite by structural proxies (easy60)")
    p.add_argument("band", help="the band's name: easy60")
    p.add_argument("--write", action="store_true",
                   help="recompute the selection on the current tasks (measuring new or changed tasks' observations "
                   "with the real apps) and rewrite the committed band file")
    p.set_defaults(func=cmd_band)
    p = sub.add_parser("audit", help="raw validators on a run's kept final states, against the evaluator")
    p.add_argument("run_dir", metavar="RUN_DIR", help="a run folder written by 'asil bench --keep-final-state'")
    p.add_argument("--balanced", type=int, metavar="N",
                   help="audit N states: half evaluator successes, half failures (default: every kept state)")
    p.set_defaults(func=cmd_audit)
    _mcp_parser(sub)
    add_export_parser(sub)
    add_rollout_parser(sub)
    p = sub.add_parser("report", help="tables and report.html for one or more run folders")
    p.add_argument("dirs", nargs="+", metavar="DIR", help="run folders written by 'asil bench'")
    p.add_argument("--out", help="where to write the HTML (default: DIR/report.html of the first folder); "
                   "report.txt goes beside it")
    p.add_argument("--embed-images", action="store_true",
                   help="embed step renders as data URIs (default: link them relative to the report)")
    p.add_argument("--table", choices=["1", "2"], help="print only the ASIL paper's Table 1 (regions) or Table 2 "
                   "(GUI / 50max and GUI / 15max by band, native baselines beside ASIL on identical tasks); "
                   "report.html keeps every table")
    p.set_defaults(func=cmd_report)
    p = sub.add_parser("annotate", help="label control failures of a run's episodes (LocalLSTC Tables 6-8)")
    p.add_argument("dirs", nargs="+", metavar="RUN_DIR", help="run folders written by 'asil bench'")
    p.add_argument("--provider", choices=["openai", "scripted"], default="openai",
                   help="openai: any OpenAI-compatible server (--model, --base-url); scripted: the shipped fake judge")
    p.add_argument("--model", help="the judge model's name on the server")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $ASIL_BASE_URL or $OPENAI_BASE_URL)")
    p.add_argument("--api-key", help="default: $ASIL_API_KEY or $OPENAI_API_KEY")
    p.add_argument("--server", help="openai, vllm, llamacpp or ollama (default: $ASIL_SERVER or openai)")
    p.add_argument("--human", action="append", default=[], metavar="CSV",
                   help="human labels: task_id,labels[,annotator][,run]; labels like Loop;Recover or None (repeatable)")
    p.set_defaults(func=cmd_annotate)
    return parser


def _task_filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite")
    p.add_argument("--app")
    p.add_argument("--tasks-dir", type=Path, help="load tasks from this folder instead of the built-in suites")


def _agent_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", default="oracle",
                   help="oracle, react, lstc, gui (screenshots and computer-use input), or a native baseline: uno "
                   "(LibreOffice UNO), drawio-mcp (draw.io MCP)")
    p.add_argument("--model", default="scripted",
                   help="model name on the server, or 'scripted', or 'replay:FILE.jsonl' (react/lstc)")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 "
                   "(default: $ASIL_BASE_URL or $OPENAI_BASE_URL)")
    p.add_argument("--api-key", help="default: $ASIL_API_KEY or $OPENAI_API_KEY")
    p.add_argument("--server", help="how the server takes sampling options: openai, vllm, llamacpp, "
                   "llama-cpp-python, ollama, or auto (asked from the server's /v1/models) (default: $ASIL_SERVER "
                   "or openai)")
    p.add_argument("--context-length", type=int, metavar="TOKENS",
                   help="the server's context window; prompt + completion cap are kept inside it (default: asked "
                   "from the server where it says, else unchecked)")
    p.add_argument("--no-stream", action="store_true",
                   help="ask for whole replies instead of streaming and stopping once the JSON answer is complete")
    p.add_argument("--constrained", action="store_true",
                   help="send each reply's JSON Schema so the server constrains decoding to it (vLLM, llama.cpp, "
                   "llama-cpp-python, Ollama, OpenAI)")
    p.add_argument("--observations", choices=["full", "changes"],
                   help="react: 'full' shows the current observation each step (default); 'changes' shows the first "
                   "observation once and then what each action changed, so a local server re-reads only the "
                   "newest step (its prompt cache keeps the rest)")
    p.add_argument("--schema-detail", choices=["full", "compact"],
                   help="react, lstc: how the apps' actions are described in the system prompt: 'full' (default: "
                   "every function, every example, the tips) or 'compact' (functions and two examples: about a "
                   "third of the tokens, for small local models)")
    p.add_argument("--ablate", help="LSTC ablations, comma-separated: no-l2s, no-s2l, no-persistent-subgoal, "
                   "no-candidates, no-multi-action, no-step-abstraction, no-routing, no-stall-loop, "
                   "no-failure-abstraction (not in the paper: no Step Abstraction call for a failed step, for slow local models)")
    p.add_argument("--gui-channel", action="store_true",
                   help="lstc: the planner may also route steps to the GUI channel (computer-use input on the app's "
                        "real window in a private Xvfb; apps with a GUI launch spec, see docs/gui.md)")
    _runtime_options(p)
    p.add_argument("--call-timeout", type=float, metavar="S",
                   help="wall-clock limit of one model call (default 600); a late call is cancelled, not retried, "
                   "and the episode ends as llm_error")
    p.add_argument("--budget", type=int, help="step budget, e.g. 15, 50 or 100 (default: each task's own, 15 unless "
                   "a task says why it needs more)")
    p.add_argument("--hints", choices=["on", "off"], default="off",
                   help="show the agent each task's success hint, derived from its evaluator (default off)")
    p.add_argument("--keep-final-state", action="store_true",
                   help="keep each episode's judged files as <task>/final_state.tar.gz (for 'asil audit')")
    p.add_argument("--out", default="asil-results")
    p.add_argument("--render", action="store_true",
                   help="write step_N.png and step_N.render.json (skipped when ASIL_DISABLE_RENDER=1)")
    p.add_argument("--hybrid-vision", action="store_true",
                   help="react: attach the app's render of the current state to each observation as an image part "
                   "(multimodal endpoints; apps without a render say so once and go without)")


def _runtime_options(p: argparse.ArgumentParser) -> None:
    """Table 5 of the LocalLSTC paper: sampling parameters sent to the model server (each server kind takes
    the ones it accepts, see asil.llm.params), and the candidate limit of the LSTC planner."""
    from asil.llm.params import RuntimeParams

    group = p.add_argument_group("runtime parameters (LocalLSTC Table 5; defaults are the paper's)")
    for name in SAMPLING:
        info = RuntimeParams.model_fields[name]
        group.add_argument("--" + name.replace("_", "-"), type=type(info.default), default=info.default,
                           help=f"{info.description} (default: {info.default})")
    group.add_argument("--max-candidates", type=int, choices=[1, 2, 3],
                       help="lstc: most candidate proposals per planner call (default: 3)")


def _exit_on(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds: adapters close and atexit stops the programs we started


def exit_cleanly_on_signals() -> None:
    """SIGTERM/SIGHUP end the command like Ctrl-C does, so no started program outlives it."""
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, _exit_on)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    exit_cleanly_on_signals()
    try:
        code: int = args.func(args)
        return code
    except AsilError as exc:  # bad input of any kind: one sentence, exit 2
        _complain(exc)
        return EXIT_INVALID
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130


def _complain(exc: AsilError) -> None:
    print(f"asil: {exc.message}{' ' + exc.hint if exc.hint else ''}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
