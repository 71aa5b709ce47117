"""The llama.cpp build check: a build that multiplies with AMX crashes the server on its first request here
(llama.cpp issue #20824), so the server is refused with the command that rebuilds it."""

from __future__ import annotations

from pathlib import Path

from asil.llm.local_server import REBUILD, uses_amx

# llama_print_system_info() of the native build on this machine (crashed) and of `make`'s AVX2 build
NATIVE = ("CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX_VNNI = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
          "AVX512 = 1 | AVX512_VBMI = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | AMX_INT8 = 1 | LLAMAFILE = 1 | "
          "OPENMP = 1 | REPACK = 1 | ")
AVX2 = ("CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | LLAMAFILE = 1 | OPENMP = 1 | "
        "REPACK = 1 | ")


def test_an_amx_build_is_recognised_and_an_avx2_build_is_not() -> None:
    assert uses_amx(NATIVE)
    assert not uses_amx(AVX2)


def test_the_rebuild_command_turns_amx_off_the_way_the_makefile_does() -> None:
    makefile = (Path(__file__).parents[2] / "Makefile").read_text()
    flags = REBUILD.split("'")[1]
    assert flags in makefile and "NATIVE=OFF" in flags and "AMX" not in flags
