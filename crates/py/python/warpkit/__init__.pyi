"""Type stubs of the warpkit package (docs/python.md)."""

from os import PathLike
from typing import Any, Final, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

Dims = Union[int, Tuple[int], Tuple[int, int], Tuple[int, int, int], Sequence[int]]
ArgValue = Union[int, float, npt.NDArray[Any], bytes, bytearray, "Buffer", "Local"]

class Error(Exception):
    """Base class of every error warpkit raises."""

class AssemblyError(Error):
    """The source did not assemble; str(e) is the diagnostics as `warpkit asm` prints them."""

    diagnostics: list[Diagnostic]
    file: str
    line: int
    col: int
    text: str

class CompileError(Error):
    """The OpenCL C source did not compile; str(e) is the diagnostics as `warpkit cc` prints
    them; `diagnostics` lists the errors and the warnings found before them; file, line,
    col and text are those of the first error."""

    diagnostics: list[Diagnostic]
    file: str
    line: int
    col: int
    text: str

class DecodeError(Error):
    """The bytes are not an instruction."""

class LaunchError(Error):
    """The launch was refused before anything ran."""

class RunError(Error):
    """The kernel ran but did not finish; `run` holds what it produced."""

    run: Run
    messages: list[str]

class Trap(RunError):
    """A warp trapped; the attributes are those of the first trap."""

    cause: int
    cause_name: str
    pc: int
    info: int
    workgroup: Tuple[int, int, int]
    warp: int
    asm: str
    address: Optional[int]
    lane: Optional[int]
    traps: list[TrapInfo]

class Deadlock(RunError):
    """Warps wait at a barrier that a stopped sibling will never reach."""

class LimitExceeded(RunError):
    """The step limit was reached, or hazards were reported with strict_hazards=True."""

class Diagnostic:
    """One diagnostic of the assembler or the compiler; str() is
    `file:line:col: SEVERITY: text` (line and col 0: about the whole file)."""

    severity: str
    file: str
    line: int
    col: int
    text: str

class Program:
    """An assembled or loaded kernel."""

    @staticmethod
    def from_bytes(code: bytes) -> Program:
        """A program whose code is `code` (PC 0 is the first byte)."""
    @property
    def bytes(self) -> bytes:
        """The code (.text)."""
    @property
    def data(self) -> bytes:
        """The .data section."""
    @property
    def symbols(self) -> dict[str, int]:
        """Label name -> offset from the start of its section."""
    @property
    def symbol_sections(self) -> dict[str, str]:
        """Label name -> ".text" or ".data"."""
    def disassemble(self, *, plain: bool = False) -> str:
        """The program as `warpkit dis` prints it (plain: reassemblable text only)."""
    @property
    def kernels(self) -> list[dict[str, Any]]:
        """The kernels of the metadata (.kernel/.param): name, shared_bytes, scratch_bytes,
        block (a tuple or None), params (dicts with name, kind, c_type)."""
    @property
    def kernel(self) -> Optional[str]:
        """The kernel `load(path, kernel=NAME)` or `compile(..., kernel=NAME)` chose, or None."""
    @property
    def warnings(self) -> list[Diagnostic]:
        """The compiler's or the assembler's warnings."""
    def __len__(self) -> int: ...

class Instr:
    """A decoded instruction; str(i) == i.mnemonic + " " + ", ".join(i.operands)."""

    @property
    def mnemonic(self) -> str: ...
    @property
    def operands(self) -> list[str]: ...
    @property
    def format(self) -> str: ...
    @property
    def fields(self) -> dict[str, int]: ...
    @property
    def word(self) -> int: ...
    @property
    def length(self) -> int: ...
    @property
    def family(self) -> str: ...

class Buffer:
    """A zero-filled buffer argument of `nbytes` bytes (returned as uint8, or `dtype`)."""

    nbytes: int
    def __init__(self, nbytes: int, dtype: Any = None) -> None: ...

class Local:
    """`nbytes` of workgroup shared memory for a `ptr.local` parameter (kernel metadata)."""

    nbytes: int
    def __init__(self, nbytes: int) -> None: ...

def local(nbytes: int) -> Local:
    """`nbytes` of workgroup shared memory for a `ptr.local` parameter: a `Local`."""

class TrapInfo:
    """How one warp trapped; str() is the line `warpkit run` prints."""

    workgroup: Tuple[int, int, int]
    warp: int
    cause: int
    cause_name: str
    pc: int
    info: int
    asm: str
    address: Optional[int]
    lane: Optional[int]
    message: str

class Hazard:
    """A register hazard (section 2.6); str() is the CLI's warning text."""

    kind: str
    workgroup: Tuple[int, int, int]
    warp: int
    pc: int
    register: str
    pending_pc: int
    asm: str
    pending_asm: str
    message: str

class Stats:
    """Counts of a launch; `wall` is the simulation time in seconds."""

    workgroups: int
    warps: int
    instructions: int
    lane_ops: int
    hazards: int
    wall: float

class Warp:
    """The final state of one warp."""

    workgroup: Tuple[int, int, int]
    warp: int
    pc: int
    exec: int
    v: npt.NDArray[np.uint32]
    u: npt.NDArray[np.uint32]
    csr: dict[str, int]
    trap: Optional[TrapInfo]
    status: str

class Run:
    """The result of a launch."""

    buffers: dict[str, npt.NDArray[Any]]
    warps: list[Warp]
    traps: list[TrapInfo]
    trap: Optional[TrapInfo]
    hazards: list[Hazard]
    stats: Stats
    ok: bool
    messages: list[str]
    timing: Optional[dict[str, Any]]
    """With `launch(..., timing=...)`, the timing report (the JSON of `warpkit run
    --timing-json`, parsed; docs/timing.md); else None."""

def assemble(src: str, *, filename: str = "<string>") -> Program:
    """Assemble source text; raises AssemblyError."""

Defines = Union[
    Mapping[str, Union[str, int, float, None]],
    Sequence[Union[str, Tuple[str, Union[str, int, float, None]]]],
]

def load(
    path: Union[str, PathLike[str]],
    *,
    kernel: Optional[str] = None,
    defines: Optional[Defines] = None,
    undefines: Optional[Sequence[str]] = None,
    include_dirs: Optional[Sequence[Union[str, PathLike[str]]]] = None,
    options: Optional[str] = None,
) -> Program:
    """Read a kernel file: OpenCL C (.cl, compiled with the options of `compile`), assembly
    source (.s, .S, .asm), ELF code object or raw code; `kernel` chooses a kernel of its
    metadata for `launch` (ValueError if there is none)."""

def compile(
    source_or_path: Union[str, PathLike[str]],
    *,
    defines: Optional[Defines] = None,
    undefines: Optional[Sequence[str]] = None,
    include_dirs: Optional[Sequence[Union[str, PathLike[str]]]] = None,
    options: Optional[str] = None,
    kernel: Optional[str] = None,
    filename: Optional[str] = None,
) -> Program:
    """Compile OpenCL C: a str holding a newline or a `{` is source text (named `filename`,
    default "<string>"), any other str or os.PathLike a path; raises CompileError."""

def disassemble(data: bytes, *, base: int = 0, plain: bool = False) -> str:
    """Disassemble bytes as `warpkit dis` does."""

def decode(word_or_bytes: Union[int, bytes]) -> Instr:
    """Decode one instruction from its word or its little-endian bytes."""

def spec() -> dict[str, Any]:
    """The ISA database: the JSON of `warpkit spec --json` as dicts and lists."""

def code_base() -> int:
    """The address the code is mapped at (PC is an offset from it)."""

DEFAULT_SHARED_BYTES: Final = 65536
"""Shared memory per workgroup when `shared` is not given (the library's default)."""

def launch(
    program: Union[Program, str],
    grid: Optional[Dims] = None,
    block: Optional[Dims] = None,
    args: Optional[Mapping[str, ArgValue]] = None,
    *,
    shared: int = 65536,
    scratch: Optional[int] = None,
    threads: Optional[int] = None,
    max_steps: int = 100_000_000,
    entry: Optional[str] = None,
    keep_warps: bool = True,
    strict_hazards: bool = False,
    check: bool = True,
    engine: Optional[str] = None,
    max_memory: int = 1 << 30,
    max_workgroups: int = 1 << 20,
    timing: Union[bool, str, PathLike[str], None] = None,
) -> Run:
    """Launch `program`; raises Trap, Deadlock or LimitExceeded unless check=False. With
    `timing` (True: the default machine; a machine file's path; a machine's TOML text) the
    launch is also timed and `Run.timing` holds the report."""

WarpRef = Union[int, Tuple[Tuple[int, int, int], int]]

class VWrite:
    """The writes of one vector register: lanes written (ascending) and their values."""

    reg: int
    lanes: list[int]
    values: list[int]
    @property
    def mask(self) -> int: ...

class LaneAccess:
    """One lane's memory access (docs/trace.md, "Memory records")."""

    lane: int
    addr: int
    data: list[int]
    mask: int
    old: Optional[int]

class MemAccess:
    """The accesses of one load, store or atomic."""

    kind: str
    space: str
    size: int
    lanes: list[LaneAccess]

class Retired:
    """An asynchronous write-back retired by a commit."""

    pc: int
    v: list[VWrite]
    u: dict[int, int]

class Commit:
    """One executed instruction: the record `warpkit run --trace` writes for it."""

    workgroup: Tuple[int, int, int]
    warp: int
    step: int
    pc: int
    encoding: int
    length: int
    asm: str
    exec: int
    v: list[VWrite]
    u: dict[int, int]
    exec_write: Optional[int]
    csr: list[dict[str, Any]]
    trap: Optional[dict[str, Any]]
    mem: list[MemAccess]
    retired: list[Retired]
    ended: bool
    @property
    def instruction(self) -> Optional[Instr]:
        """The instruction decoded; None for bytes that are not one (an illegal-instruction trap)."""
    def to_json(self) -> str:
        """The JSON Lines trace record, without newline."""

class Simulator:
    """A launch run step by step (docs/python.md, "Stepping")."""

    def __init__(
        self,
        program: Union[Program, str],
        grid: Optional[Dims] = None,
        block: Optional[Dims] = None,
        args: Optional[Mapping[str, ArgValue]] = None,
        *,
        shared: int = 65536,
        scratch: Optional[int] = None,
        max_steps: int = 100_000_000,
        entry: Optional[str] = None,
        max_memory: int = 1 << 30,
        max_workgroups: int = 1 << 20,
    ) -> None: ...
    @property
    def status(self) -> str:
        """"paused", "finished" or "closed"."""
    @property
    def executed(self) -> int: ...
    @property
    def workgroup(self) -> Optional[Tuple[int, int, int]]: ...
    @property
    def warp_count(self) -> int: ...
    @property
    def buffers(self) -> dict[str, int]: ...
    def step(self, n: int = 1) -> list[Commit]:
        """Execute up to n instructions; their commits in execution order."""
    def run_until(
        self,
        pc: Union[int, str, None] = None,
        steps: Optional[int] = None,
        *,
        warp: Optional[Tuple[Tuple[int, int, int], int]] = None,
    ) -> str:
        """Run to a PC (before it executes), a step count or the end: "breakpoint", "steps", "finished"."""
    def pc(self, warp: WarpRef) -> int: ...
    def exec(self, warp: WarpRef) -> int: ...
    def read_vreg(self, warp: WarpRef, r: int) -> npt.NDArray[np.uint32]: ...
    def write_vreg(
        self,
        warp: WarpRef,
        r: int,
        values: Union[int, Sequence[int], npt.NDArray[Any]],
        *,
        lane: Optional[int] = None,
    ) -> None: ...
    def read_ureg(self, warp: WarpRef, r: int) -> int: ...
    def write_ureg(self, warp: WarpRef, r: int, value: int) -> None: ...
    def read_memory(self, addr: int, n: int) -> npt.NDArray[np.uint8]: ...
    def write_memory(self, addr: int, data: Union[bytes, bytearray, npt.NDArray[Any]]) -> None: ...
    def read_shared(self, offset: int, n: int) -> npt.NDArray[np.uint8]: ...
    def write_shared(self, offset: int, data: Union[bytes, bytearray, npt.NDArray[Any]]) -> None: ...
    def finish(self, *, run: bool = True, check: bool = True) -> Run:
        """End the launch: its Run, as `launch` returns it (raising unless check=False)."""
