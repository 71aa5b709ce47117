"""Command-line parts of training: ``asil tasks generate``, ``asil tasks audit``, ``asil export sft``, ``asil export verl``,
``asil rollout serve``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from asil.protocol import AsilError

EXIT_OK, EXIT_ERROR = 0, 1


class TrainingUsageError(AsilError):
    code = "usage"


def add_tasks_commands(tasks_sub: Any) -> None:
    p = tasks_sub.add_parser("generate", help="generate the train/val suites from templates (audited, sound)")
    p.add_argument("--app", action="append", default=[], help="only this app (repeatable; default: all 14)")
    p.add_argument("--seed", type=int, default=0, help="the same seed gives the same tasks (default 0)")
    p.add_argument("--workers", type=int, default=1, help="apps generated at once, each in its own process")
    p.add_argument("--out", type=Path, help="folder for <suite>/<app>/*.json (default: ASIL's training suites)")
    p.add_argument("--train", type=int, help="train tasks per app (default: the paper's 32, GIMP 64)")
    p.add_argument("--val", type=int, help="val tasks per app (default: 8, GIMP 16)")
    p.set_defaults(func=cmd_generate)
    p = tasks_sub.add_parser("audit", help="overlap audit of training tasks against every benchmark suite")
    p.add_argument("--suite", action="append", default=[], help="a suite to audit (repeatable; default: train, val)")
    p.add_argument("--tasks-dir", action="append", default=[], type=Path,
                   help="audit the tasks in this folder as one iteration (repeatable)")
    p.add_argument("--out", type=Path, help="write every verdict as JSON lines here")
    p.add_argument("--judge-model", help="label the riskiest pairs with this model (OpenAI-compatible)")
    p.add_argument("--judge-url", help="the judge's endpoint (default: $ASIL_BASE_URL or $OPENAI_BASE_URL)")
    p.add_argument("--judge-top", type=int, default=10, help="pairs the judge labels (default 10)")
    p.set_defaults(func=cmd_audit)


def cmd_generate(args: argparse.Namespace) -> int:
    from asil.tasks.loader import training_root
    from asil.training.audit import HeldOut, PoolRow, table10
    from asil.training.generate import AppGeneration, RejectedTask, generate, generated_apps, quota, write_suites

    known = generated_apps()
    apps = args.app or known
    unknown = [a for a in apps if a not in known]
    if unknown:
        raise TrainingUsageError(f"No templates for app {unknown[0]!r}; apps with templates: {', '.join(known)}.")
    if args.workers < 1:
        raise TrainingUsageError("--workers must be at least 1.")
    wanted = {a: (args.train if args.train is not None else quota(a)[0],
                  args.val if args.val is not None else quota(a)[1]) for a in apps}
    out = args.out or training_root()
    held_out = HeldOut.benchmark()
    written: list[Path] = []
    refused: list[str] = []

    def write(result: AppGeneration) -> None:  # each app as soon as it is done: a long run keeps what it made
        try:
            written.extend(write_suites([result], out, held_out))
        except RejectedTask as exc:
            refused.append(str(exc))

    results = generate(apps, args.seed, args.workers, wanted=wanted, on_done=write)
    print(table10([PoolRow(r.app, r.verdicts) for r in results]))
    print(f"\n{'app':<12} {'candidates':>10} {'train':>6} {'val':>5} {'unsound':>8} {'seconds':>8}")
    for r in results:
        print(f"{r.app:<12} {len(r.verdicts):>10} {len(r.kept['train']):>6} {len(r.kept['val']):>5} "
              f"{len(r.unsound):>8} {r.seconds:>8.1f}")
    print(f"wrote {len(written)} tasks to {out}")
    for problem in refused:
        print(problem, file=sys.stderr)
    incomplete = [r.app for r in results if not r.complete]
    if incomplete:
        print(f"quota not filled for: {', '.join(incomplete)} (their templates ran out)", file=sys.stderr)
    return EXIT_ERROR if incomplete or refused else EXIT_OK


def cmd_audit(args: argparse.Namespace) -> int:
    from asil.tasks.loader import TaskError, load_tasks
    from asil.training.audit import HeldOut, PoolRow, table10, top_pairs, write_verdicts

    pools: list[tuple[str, list[Any]]] = []
    try:
        for folder in args.tasks_dir:
            if not folder.is_dir():
                raise TrainingUsageError(f"{folder} is not a folder of task files.")
            pools.append((folder.name, load_tasks(root=folder)))
        for suite in args.suite or ([] if args.tasks_dir else ["train", "val"]):
            pools.append((suite, load_tasks(suite=suite)))
    except TaskError as exc:
        raise TrainingUsageError(exc.message) from None
    empty = [name for name, tasks in pools if not tasks]
    if empty:
        raise TrainingUsageError(f"No tasks to audit in {empty[0]!r}; generate them with 'asil tasks generate'.")
    held_out = HeldOut.benchmark()
    rows = [PoolRow(name, held_out.assess_many([(t, None) for t in tasks])) for name, tasks in pools]
    if args.judge_model:
        _judge(args, held_out, pools, rows, top_pairs)
    print(table10(rows))
    print(selected_summary(rows))
    if args.judge_model:
        print("\nLLM judge on the riskiest pairs:")
        for verdict in top_pairs([v for row in rows for v in row.verdicts], args.judge_top):
            print(f"  {verdict.task_id} vs {verdict.nearest}: risk {verdict.risk:.3f} -> {verdict.judge}")
    if args.out:
        write_verdicts(args.out, [v for row in rows for v in row.verdicts])
    return EXIT_ERROR if any(row.counts["reject"] for row in rows) else EXIT_OK


def _judge(args: argparse.Namespace, held_out: Any, pools: list[tuple[str, list[Any]]], rows: list[Any],
           top_pairs: Any) -> None:
    from asil.llm.client import OpenAICompatibleClient
    from asil.training.judge import judge_pairs

    client = OpenAICompatibleClient(args.judge_model, base_url=args.judge_url, server="openai",
                                    context_length=32768, retries=1)
    candidates = {t.id: t for _, tasks in pools for t in tasks}
    held = {t.id: t for t in held_out.tasks}
    judge_pairs(client, top_pairs([v for row in rows for v in row.verdicts], args.judge_top), candidates, held)


def selected_summary(rows: list[Any]) -> str:
    """Table 10(b): per selected set, its size, strict accepts and ratio, and its maximum risk."""
    lines = ["", "Table 10(b): selected task sets",
             f"{'set':<22} {'tasks':>6} {'strict accept':>14} {'accept ratio':>13} {'max risk':>9}"]
    for row in rows:
        total, accepted = len(row.verdicts), row.counts["accept"]
        lines.append(f"{row.name:<22} {total:>6} {accepted:>14} {accepted / total if total else 0:>12.1%} "
                     f"{row.max_risk:>9.3f}")
    return "\n".join(lines)


def add_export_parser(sub: Any) -> None:
    export = sub.add_parser("export", help="training data from tasks and runs")
    export_sub = export.add_subparsers(dest="export_command", required=True)
    p = export_sub.add_parser("sft", help="step-level chat rows: SFT-v0 replays, agentic-guided steps, merged")
    p.add_argument("--out", type=Path, required=True, help="folder for sft_v0.jsonl, agentic_guided.jsonl, merged.jsonl")
    p.add_argument("--suite", default="train", help="tasks replayed for SFT-v0 (default: train)")
    p.add_argument("--app", help="only tasks of this app")
    p.add_argument("--tasks-dir", type=Path, help="replay the tasks in this folder instead of a suite")
    p.add_argument("--limit", type=int, help="replay at most this many tasks (in id order)")
    p.add_argument("--no-replay", action="store_true", help="write no SFT-v0 rows (only rows from --runs)")
    p.add_argument("--runs", nargs="*", type=Path, default=[], metavar="RUN_DIR",
                   help="bench run folders (recorded with --full-observations) for agentic-guided rows")
    p.add_argument("--teacher-model", help="the teacher writing thoughts (default: a deterministic template)")
    p.add_argument("--teacher-url", help="the teacher's OpenAI-compatible endpoint")
    p.add_argument("--rerun-failed", action="append", default=[], choices=["compact", "detailed"],
                   help="re-run the tasks --runs failed with this step hint (repeatable: each level re-runs what "
                        "is still failed) and keep their verified steps; needs --model and --base-url")
    p.add_argument("--model", help="the policy for --rerun-failed (its name on the server)")
    p.add_argument("--base-url", help="the policy's OpenAI-compatible endpoint")
    p.add_argument("--server", default="openai", help="how the server takes sampling options (as asil bench)")
    p.add_argument("--constrained", action="store_true", help="send each reply's JSON Schema (as asil bench)")
    p.add_argument("--budget", type=int, help="step budget of each re-run (default: the task's own)")
    p.set_defaults(func=cmd_export_sft)
    p = export_sub.add_parser("verl", help="verl RL rows (parquet): the ReAct agent's first prompt per task")
    p.add_argument("--out", type=Path, required=True, help="folder for <suite>.parquet (verl's train/val files)")
    p.add_argument("--suite", action="append", default=[], help="a suite to export (repeatable; default: train)")
    p.add_argument("--app", help="only tasks of this app")
    p.add_argument("--limit", type=int, help="at most this many tasks per suite (in id order)")
    p.add_argument("--agent-name", default="tool_agent", help="verl agent loop named in each row (default tool_agent)")
    p.set_defaults(func=cmd_export_verl)


def cmd_export_sft(args: argparse.Namespace) -> int:
    from asil.tasks.loader import TaskError, builtin_root, load_tasks, training_root
    from asil.training.sft import merge, replay_rows, table7, write_jsonl

    if args.teacher_url and not args.teacher_model:
        raise TrainingUsageError("--teacher-url needs --teacher-model (the model's name on that server).")
    if args.rerun_failed and not (args.runs and args.model and args.base_url):
        raise TrainingUsageError("--rerun-failed needs --runs (the failed episodes), --model and --base-url "
                                 "(the policy that re-runs them).")
    missing = [str(r) for r in args.runs if not r.is_dir()]
    if missing:
        raise TrainingUsageError(f"{missing[0]} is not a run folder (one written by 'asil bench').")
    try:
        tasks = [] if args.no_replay else load_tasks(suite=None if args.tasks_dir else args.suite, app=args.app,
                                                     root=args.tasks_dir)
    except TaskError as exc:
        raise TrainingUsageError(exc.message) from None
    if not args.no_replay and not tasks:
        raise TrainingUsageError("No task to replay matches that suite/app; see 'asil tasks list --suite train'.")
    tasks = tasks[:args.limit] if args.limit else tasks
    teacher = None
    if args.teacher_model:
        from asil.llm.client import OpenAICompatibleClient

        teacher = OpenAICompatibleClient(args.teacher_model, base_url=args.teacher_url, server="openai",
                                         context_length=32768, retries=1)
    v0: list[dict[str, Any]] = []
    for task in tasks:
        rows, problem = replay_rows(task, teacher, args.teacher_model or "")
        v0 += rows
        print(f"{'ok  ' if not problem else 'SKIP'} {task.id} {len(rows)} rows{'  ' + problem if problem else ''}",
              flush=True)
    guided: list[dict[str, Any]] = []
    if args.runs:
        from asil.training.sft import guided_rows

        roots = [builtin_root(), training_root(), *_run_task_dirs(args.runs)]
        known = {t.id: t for root in roots for t in load_tasks(root=root)}
        known.update({t.id: t for t in tasks})
        guided, skipped = guided_rows(args.runs, known)
        for reason, count in sorted(skipped.items()):
            print(f"skipped {count} episode(s): {reason}")
        guided += _hinted_rows(args, known)
    merged = merge(v0, guided)
    for name, rows in (("sft_v0", v0), ("agentic_guided", guided), ("merged", merged)):
        write_jsonl(args.out / f"{name}.jsonl", rows)
    print(table7([("SFT-v0", v0), ("agentic-guided", guided), ("merged (dedup)", merged)]))
    return EXIT_OK


def _hinted_rows(args: argparse.Namespace, known: dict[str, Any]) -> list[dict[str, Any]]:
    """--rerun-failed: each level re-runs what the runs (and earlier levels) left failed; their verified rows."""
    from asil.training.guided import rerun_failed
    from asil.training.sft import guided_rows

    rows: list[dict[str, Any]] = []
    runs = list(args.runs)
    for level in args.rerun_failed:
        out = args.out / "reruns" / level
        summaries = rerun_failed(runs, known, level, out, args.budget, model=args.model, base_url=args.base_url,
                                 server=args.server, constrained=args.constrained)
        solved = {s["task_id"] for s in summaries if s["success"]}
        print(f"re-ran {len(summaries)} failed task(s) with {level} hints: {len(solved)} verified", flush=True)
        level_rows, _ = guided_rows([out], known)
        rows += [{**row, "hint": level} for row in level_rows]
        runs.append(out)  # a task solved now is not re-run at the next level
    return rows


def cmd_export_verl(args: argparse.Namespace) -> int:
    from asil.tasks.loader import HARD_SUITE, TaskError, load_tasks
    from asil.training.verl import TOOL_CONFIG_FILE, initial_prompt, suite_names, tool_config, verl_row, write_parquet

    if args.limit is not None and args.limit < 1:
        raise TrainingUsageError("--limit must be at least 1.")
    if HARD_SUITE in args.suite:  # held out: measuring on it after training on it would mean nothing
        raise TrainingUsageError("The hard suite is held out and never exported as training data.",
                                 hint="Run it with: asil bench --suite hard")
    try:
        suites = {suite: load_tasks(suite=suite, app=args.app) for suite in args.suite or ["train"]}
    except TaskError as exc:
        raise TrainingUsageError(exc.message) from None
    empty = [suite for suite, tasks in suites.items() if not tasks]
    if empty:
        raise TrainingUsageError(f"No task in suite {empty[0]!r}{' for app ' + repr(args.app) if args.app else ''}; "
                                 f"suites: {', '.join(suite_names())}.")
    for suite, tasks in suites.items():
        tasks = tasks[:args.limit] if args.limit else tasks
        rows = [verl_row(task, index, suite, initial_prompt(task), args.agent_name)
                for index, task in enumerate(tasks)]
        write_parquet(args.out / f"{suite}.parquet", rows)
        print(f"{suite}: {len(rows)} rows -> {args.out / f'{suite}.parquet'}")
    # JSON is YAML: verl reads this with OmegaConf.load (multi_turn.tool_config_path)
    (args.out / TOOL_CONFIG_FILE).write_text(json.dumps(tool_config(), indent=2) + "\n", encoding="utf-8")
    print(f"verl tool config (asil.training.verl_tool.AsilTool) -> {args.out / TOOL_CONFIG_FILE}")
    return EXIT_OK


def add_rollout_parser(sub: Any) -> None:
    rollout = sub.add_parser("rollout", help="the HTTP rollout service for on-policy RL")
    rollout_sub = rollout.add_subparsers(dest="rollout_command", required=True)
    p = rollout_sub.add_parser("serve", help="POST /rollout runs the ReAct agent against a policy endpoint")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8321, help="port (default 8321)")
    p.add_argument("--workers", type=int, default=2, help="rollouts run at once (default 2)")
    p.set_defaults(func=cmd_rollout_serve)


def cmd_rollout_serve(args: argparse.Namespace) -> int:
    from asil.training.rollout import serve

    if args.workers < 1:
        raise TrainingUsageError("--workers must be at least 1.")
    serve(args.host, args.port, args.workers)
    return EXIT_OK


def _run_task_dirs(runs: list[Path]) -> list[Path]:
    """The --tasks-dir folders the runs were made from (their run.json says), that still exist."""
    import json

    folders = []
    for record in (p for run in runs for p in sorted(run.rglob("run.json"))):
        tasks_dir = json.loads(record.read_text(encoding="utf-8")).get("tasks_dir")
        if tasks_dir and Path(tasks_dir).is_dir():
            folders.append(Path(tasks_dir))
    return folders
