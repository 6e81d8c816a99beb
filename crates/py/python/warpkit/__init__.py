"""warpkit: the assembler, decoder and golden functional model of the warpkit SIMT GPU ISA.

Numpy arrays in, numpy arrays out::

    import numpy as np, warpkit
    prog = warpkit.load("examples/vadd.s")       # or warpkit.compile("k.cl"), OpenCL C
    a = np.arange(1000, dtype=np.uint32); b = 2 * a
    run = warpkit.launch(prog, grid=4, block=256,
                         args={"a": a, "b": b, "out": np.zeros_like(a), "n": 1000})
    assert (run.buffers["out"] == a + b).all()

See docs/python.md for the whole interface.
"""

from ._native import (
    DEFAULT_SHARED_BYTES,
    AssemblyError,
    Buffer,
    CompileError,
    Commit,
    DecodeError,
    Deadlock,
    Diagnostic,
    Error,
    Hazard,
    Instr,
    LaneAccess,
    LaunchError,
    LimitExceeded,
    Local,
    MemAccess,
    Program,
    Retired,
    Run,
    RunError,
    Simulator,
    Stats,
    Trap,
    TrapInfo,
    VWrite,
    Warp,
    assemble,
    code_base,
    compile,
    decode,
    disassemble,
    launch,
    load,
    local,
    spec,
)

__all__ = [
    "DEFAULT_SHARED_BYTES",
    "AssemblyError",
    "Buffer",
    "CompileError",
    "Commit",
    "DecodeError",
    "Deadlock",
    "Diagnostic",
    "Error",
    "Hazard",
    "Instr",
    "LaneAccess",
    "LaunchError",
    "LimitExceeded",
    "Local",
    "MemAccess",
    "Program",
    "Retired",
    "Run",
    "RunError",
    "Simulator",
    "Stats",
    "Trap",
    "TrapInfo",
    "VWrite",
    "Warp",
    "assemble",
    "code_base",
    "compile",
    "decode",
    "disassemble",
    "launch",
    "load",
    "local",
    "spec",
]
