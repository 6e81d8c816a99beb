//! `warpkit._native`: the Python binding of warpkit (docs/python.md). Every operation is a
//! call into the workspace libraries — `warpkit-asm` to assemble and disassemble,
//! `warpkit-isa` to decode, `warpkit-host` to load kernels and launch them — so Python sees
//! exactly what the CLI does. `python/warpkit/__init__.py` re-exports this module, and
//! `__init__.pyi` types it.

use numpy::{PyArray1, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;
use warpkit_host::report::{
    deadlock_message_at, hazard_message_at, location_suffix, step_limit_message, trap_message_at,
};
use warpkit_host::{ArgValue, BufferOut, Launch, LaunchResult, Limits, SetupError, WordBuffer};
use warpkit_sim::launch::{TrapReport, CODE_BASE};
use warpkit_sim::trap::cause_name;
use warpkit_sim::CancelFlag;

mod opencl;
mod stepping;

create_exception!(
    warpkit,
    Error,
    PyException,
    "Base class of every error warpkit raises."
);
create_exception!(
    warpkit,
    AssemblyError,
    Error,
    "The source did not assemble. `str(e)` is the diagnostics exactly as `warpkit asm` \
     prints them; `e.diagnostics` lists them (file, line, col, text) and `e.file`, `e.line`, \
     `e.col`, `e.text` are those of the first."
);
create_exception!(
    warpkit,
    CompileError,
    Error,
    "The OpenCL C source did not compile. `str(e)` is the diagnostics exactly as `warpkit cc` \
     prints them (clang's form: `file:line:col: error: message`, the source line, a caret); \
     `e.diagnostics` lists the errors and the warnings found before them, and `e.file`, \
     `e.line`, `e.col`, `e.text` are those of the first error."
);
create_exception!(
    warpkit,
    DecodeError,
    Error,
    "The bytes are not an instruction."
);
create_exception!(
    warpkit,
    LaunchError,
    Error,
    "The launch was refused before anything ran (bad grid, block, arguments, limits)."
);
create_exception!(
    warpkit,
    RunError,
    Error,
    "The kernel ran but did not finish: `e.run` is the `Run` (buffers, warps, reports), \
     `str(e)` the report lines of `warpkit run`."
);
create_exception!(
    warpkit,
    Trap,
    RunError,
    "A warp trapped. Attributes of the first trap: cause, cause_name, pc, info, workgroup, \
     warp, asm, address, lane; `e.traps` lists every trap."
);
create_exception!(
    warpkit,
    Deadlock,
    RunError,
    "Warps wait at a barrier that a stopped sibling will never reach; `e.workgroup`."
);
create_exception!(
    warpkit,
    LimitExceeded,
    RunError,
    "A warp reached the step limit (`max_steps`), or hazards were reported with \
     `strict_hazards=True`."
);

/// An assembled or loaded kernel.
#[pyclass(module = "warpkit", frozen)]
struct Program {
    inner: warpkit_asm::Program,
    /// The kernel of the metadata `load(path, kernel=NAME)` chose.
    kernel: Option<String>,
}

impl Program {
    fn new(inner: warpkit_asm::Program) -> Program {
        Program {
            inner,
            kernel: None,
        }
    }

    /// `inner` with `kernel` chosen for `launch` (a `ValueError` if its metadata does not
    /// declare it).
    fn chosen(inner: warpkit_asm::Program, kernel: Option<String>) -> PyResult<Program> {
        if let Some(name) = &kernel {
            warpkit_host::select_kernel(&inner, Some(name), None)
                .map_err(|e| PyValueError::new_err(format!("kernel={name:?}: {e}")))?;
        }
        Ok(Program { inner, kernel })
    }
}

#[pymethods]
impl Program {
    /// A program whose code is `code` (raw bytes; PC 0 is the first byte).
    #[staticmethod]
    fn from_bytes(code: &[u8]) -> Program {
        Program::new(warpkit_asm::Program {
            text: code.to_vec(),
            ..Default::default()
        })
    }

    /// The kernels the program's metadata declares (`.kernel`/`.param`), in declaration
    /// order: dicts with `name`, `shared_bytes`, `scratch_bytes`, `block` (a tuple or None)
    /// and `params` (dicts with `name`, `kind`, `c_type`).
    #[getter]
    fn kernels<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for k in &self.inner.kernels {
            let d = PyDict::new(py);
            d.set_item("name", &k.name)?;
            d.set_item("shared_bytes", k.shared_bytes)?;
            d.set_item("scratch_bytes", k.scratch_bytes)?;
            d.set_item("block", k.block.map(|[x, y, z]| (x, y, z)))?;
            let params = PyList::empty(py);
            for p in &k.params {
                let pd = PyDict::new(py);
                pd.set_item("name", &p.name)?;
                pd.set_item("kind", p.kind.name())?;
                pd.set_item("c_type", &p.c_type)?;
                params.append(pd)?;
            }
            d.set_item("params", params)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// The kernel `load(path, kernel=NAME)` chose, or None.
    #[getter]
    fn kernel(&self) -> Option<String> {
        self.kernel.clone()
    }

    /// The warnings of the compiler (OpenCL C) or the assembler, as `Diagnostic`s.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for w in &self.inner.warnings {
            let d = Diagnostic {
                severity: "warning",
                file: w.file.clone(),
                line: w.line,
                col: w.column,
                text: w.message.clone(),
            };
            list.append(Py::new(py, d)?)?;
        }
        Ok(list)
    }

    /// The code (`.text`) as bytes.
    #[getter]
    fn bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.text)
    }

    /// The `.data` section as bytes.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.data)
    }

    /// Every label: name -> offset from the start of its section.
    #[getter]
    fn symbols<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for s in &self.inner.symbols {
            d.set_item(&s.name, s.offset)?;
        }
        Ok(d)
    }

    /// The section (".text" or ".data") of each label.
    #[getter]
    fn symbol_sections<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for s in &self.inner.symbols {
            d.set_item(&s.name, s.section.name())?;
        }
        Ok(d)
    }

    /// The program as `warpkit dis` prints it; with `plain=True`, only the instructions,
    /// one a line, in text that reassembles to the same bytes.
    #[pyo3(signature = (*, plain = false))]
    fn disassemble(&self, plain: bool) -> String {
        warpkit_asm::disassemble_program(&self.inner, &warpkit_asm::DisOptions { plain })
    }

    fn __len__(&self) -> usize {
        self.inner.text.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<warpkit.Program: {} bytes of code, {} bytes of data, {} symbols>",
            self.inner.text.len(),
            self.inner.data.len(),
            self.inner.symbols.len()
        )
    }
}

/// Assemble `src`; `filename` names it in diagnostics.
#[pyfunction]
#[pyo3(signature = (src, *, filename = "<string>"))]
fn assemble(py: Python<'_>, src: &str, filename: &str) -> PyResult<Program> {
    match warpkit_asm::assemble(src, filename) {
        Ok(inner) => Ok(Program::new(inner)),
        Err(errors) => Err(assembly_error(py, &errors, src)),
    }
}

fn assembly_error(py: Python<'_>, errors: &warpkit_asm::AsmErrors, src: &str) -> PyErr {
    let err = AssemblyError::new_err(errors.render(src).trim_end().to_string());
    let built = (|| -> PyResult<()> {
        let value = err.value(py);
        let list = PyList::empty(py);
        for e in &errors.errors {
            let d = Diagnostic {
                severity: "error",
                file: e.file.clone(),
                line: e.line,
                col: e.column,
                text: e.kind.to_string(),
            };
            list.append(Py::new(py, d)?)?;
        }
        if let Some(first) = errors.errors.first() {
            value.setattr("file", &first.file)?;
            value.setattr("line", first.line)?;
            value.setattr("col", first.column)?;
            value.setattr("text", first.kind.to_string())?;
        }
        value.setattr("diagnostics", list)?;
        Ok(())
    })();
    match built {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// One diagnostic of the assembler or the compiler: `file:line:col: error: text` (or
/// `warning:`); line and col are 0 for a message about the whole file.
#[pyclass(module = "warpkit", frozen, get_all)]
struct Diagnostic {
    /// "error" or "warning".
    severity: &'static str,
    file: String,
    line: usize,
    col: usize,
    text: String,
}

#[pymethods]
impl Diagnostic {
    fn __str__(&self) -> String {
        if self.line == 0 {
            return format!("{}: {}: {}", self.file, self.severity, self.text);
        }
        format!(
            "{}:{}:{}: {}: {}",
            self.file, self.line, self.col, self.severity, self.text
        )
    }

    fn __repr__(&self) -> String {
        format!("<warpkit.Diagnostic {}>", self.__str__())
    }
}

/// Read a kernel from a file: OpenCL C (`.cl`, compiled with `defines`, `undefines`,
/// `include_dirs` and `options` as `warpkit.compile` takes them), assembly source (`.s`,
/// `.S`, `.asm`), an ELF code object, or raw code — as `warpkit run FILE` does. `kernel`
/// chooses a kernel of the program's metadata, which `launch` then runs and checks the
/// arguments against (as `warpkit run --kernel NAME`).
#[pyfunction]
#[pyo3(signature = (path, *, kernel = None, defines = None, undefines = None,
    include_dirs = None, options = None))]
fn load(
    py: Python<'_>,
    path: std::path::PathBuf,
    kernel: Option<String>,
    defines: Option<&Bound<'_, PyAny>>,
    undefines: Option<Vec<String>>,
    include_dirs: Option<Vec<std::path::PathBuf>>,
    options: Option<&str>,
) -> PyResult<Program> {
    let given =
        defines.is_some() || undefines.is_some() || include_dirs.is_some() || options.is_some();
    let cl = opencl::options(defines, undefines, include_dirs, options)?;
    let bytes = warpkit_host::read_kernel_file(&path).map_err(|e| load_error(py, e))?;
    let kind = warpkit_host::KernelKind::detect(&path, &bytes);
    if given && kind != warpkit_host::KernelKind::OpenCl {
        return Err(PyValueError::new_err(format!(
            "{}: defines, undefines, include_dirs and options apply to OpenCL C (a `.cl` file) only",
            path.display()
        )));
    }
    let name = path.display().to_string();
    let inner = warpkit_host::load_kernel_bytes_with(&bytes, &name, kind, &cl)
        .map_err(|e| load_error(py, e))?;
    Program::chosen(inner, kernel)
}

/// The exception for a kernel that did not load: `AssemblyError`, `CompileError`, or
/// `ValueError` (an unreadable file, a malformed object); `warpkit.Error` for a compiler bug.
fn load_error(py: Python<'_>, e: warpkit_host::LoadError) -> PyErr {
    use warpkit_host::LoadError;
    match e {
        LoadError::Assembly { errors, text } => assembly_error(py, &errors, &text),
        LoadError::Compile {
            rendered,
            diagnostics,
        } => opencl::compile_error(py, &rendered, &diagnostics),
        e @ LoadError::CompilerOutput { .. } => Error::new_err(e.to_string()),
        e => PyValueError::new_err(e.to_string()),
    }
}

/// Workgroup shared memory for a `ptr.local` parameter of a kernel with metadata:
/// `nbytes` bytes placed after the kernel's static shared memory; the argument's slot holds
/// their offset.
#[pyclass(module = "warpkit", frozen)]
struct Local {
    #[pyo3(get)]
    nbytes: u64,
}

#[pymethods]
impl Local {
    #[new]
    fn new(nbytes: u64) -> Local {
        Local { nbytes }
    }

    fn __repr__(&self) -> String {
        format!("warpkit.local({})", self.nbytes)
    }
}

/// `nbytes` bytes of workgroup shared memory for a `ptr.local` parameter (a `Local`).
#[pyfunction]
fn local(nbytes: u64) -> Local {
    Local { nbytes }
}

/// Disassemble `data` as `warpkit dis` does (addresses from `base`); with `plain=True`,
/// only the instructions in text that reassembles to the same bytes.
#[pyfunction]
#[pyo3(signature = (data, *, base = 0, plain = false))]
fn disassemble(data: &[u8], base: u64, plain: bool) -> String {
    warpkit_asm::disassemble(data, base, &warpkit_asm::DisOptions { plain })
}

/// A decoded instruction.
#[pyclass(module = "warpkit", frozen)]
struct Instr {
    inner: warpkit_isa::Instr,
}

#[pymethods]
impl Instr {
    #[getter]
    fn mnemonic(&self) -> &'static str {
        self.inner.def().mnemonic
    }

    /// The operands as `str(instr)` writes them (keyed ones as `name=value`; trailing
    /// optional operands at their default left out): `str(i) == i.mnemonic + " " +
    /// ", ".join(i.operands)`.
    #[getter]
    fn operands(&self) -> Vec<String> {
        let text = self.inner.to_string();
        match text.split_once(' ') {
            // Operands never contain ", " (registers, ranges, numbers, enum names).
            Some((_, rest)) => rest.split(", ").map(str::to_string).collect(),
            None => Vec::new(),
        }
    }

    /// The format's name (section 2.2).
    #[getter]
    fn format(&self) -> &'static str {
        self.inner.def().format.name
    }

    /// Every field of the format, most significant first: name -> value.
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let word = self.inner.encode();
        for f in self.inner.def().format.fields {
            d.set_item(f.name, f.extract(word))?;
        }
        Ok(d)
    }

    /// The instruction word (32 or 64 bits).
    #[getter]
    fn word(&self) -> u64 {
        self.inner.encode()
    }

    /// Length in bytes (4 or 8).
    #[getter]
    fn length(&self) -> usize {
        self.inner.len()
    }

    /// The instruction family (seed 002).
    #[getter]
    fn family(&self) -> &'static str {
        self.inner.def().family
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("<warpkit.Instr {}>", self.inner)
    }

    fn __eq__(&self, other: PyRef<'_, Instr>) -> bool {
        self.inner == other.inner
    }
}

/// Decode one instruction from an int (its word: 32-bit if it fits, else 64-bit) or from
/// bytes (little-endian; the first instruction).
#[pyfunction]
fn decode(word_or_bytes: &Bound<'_, PyAny>) -> PyResult<Instr> {
    let v = word_or_bytes;
    let bytes: Vec<u8> = if let Ok(b) = v.cast::<PyBytes>() {
        b.as_bytes().to_vec()
    } else if let Ok(b) = v.cast::<pyo3::types::PyByteArray>() {
        b.to_vec()
    } else if let Ok(w) = v.extract::<u64>() {
        match u32::try_from(w) {
            Ok(w32) => w32.to_le_bytes().to_vec(),
            Err(_) => w.to_le_bytes().to_vec(),
        }
    } else {
        return Err(PyTypeError::new_err(
            "decode takes an int (the instruction word) or bytes",
        ));
    };
    warpkit_isa::decode(&bytes)
        .map(|(inner, _)| Instr { inner })
        .map_err(|e| DecodeError::new_err(e.to_string()))
}

/// A zero-filled buffer argument of `nbytes` bytes; after the run it comes back as a
/// `numpy.uint8` array (or of `dtype`, if given).
#[pyclass(module = "warpkit", frozen)]
struct Buffer {
    #[pyo3(get)]
    nbytes: usize,
    dtype: Option<Py<PyAny>>,
}

#[pymethods]
impl Buffer {
    #[new]
    #[pyo3(signature = (nbytes, dtype = None))]
    fn new(nbytes: usize, dtype: Option<Py<PyAny>>) -> Buffer {
        Buffer { nbytes, dtype }
    }

    fn __repr__(&self) -> String {
        format!("warpkit.Buffer({})", self.nbytes)
    }
}

/// How a buffer argument comes back: the dtype and shape it went in with.
struct BufferShape {
    name: String,
    dtype: Option<Py<PyAny>>,
    shape: Option<Py<PyTuple>>,
}

/// A trap of one warp.
#[pyclass(module = "warpkit", frozen, get_all)]
struct TrapInfo {
    workgroup: (u32, u32, u32),
    warp: u32,
    /// The trap cause number (docs/abi.md, seed 001 section 3.3).
    cause: u32,
    cause_name: &'static str,
    pc: u32,
    info: u32,
    /// The trapping instruction, disassembled.
    asm: String,
    /// For a memory fault: the address and the first faulting lane.
    address: Option<u64>,
    lane: Option<u32>,
    /// The line `warpkit run` prints (without `error: `).
    message: String,
}

#[pymethods]
impl TrapInfo {
    fn __str__(&self) -> String {
        self.message.clone()
    }

    fn __repr__(&self) -> String {
        format!("<warpkit.TrapInfo {}>", self.message)
    }
}

/// `lines` locates the trapping instruction in the source, as `warpkit run` does.
fn trap_info(t: &TrapReport, lines: &warpkit_asm::LineTable) -> TrapInfo {
    let [x, y, z] = t.workgroup;
    TrapInfo {
        workgroup: (x, y, z),
        warp: t.warp,
        cause: t.trap.cause,
        cause_name: cause_name(t.trap.cause),
        pc: t.trap.pc,
        info: t.trap.info,
        asm: t.asm.clone(),
        address: t.address.map(|(a, _)| a),
        lane: t.address.map(|(_, l)| l),
        message: trap_message_at(t, lines),
    }
}

/// A hazard report (section 2.6).
#[pyclass(module = "warpkit", frozen, get_all)]
struct Hazard {
    /// "RAW" or "WAW".
    kind: &'static str,
    workgroup: (u32, u32, u32),
    warp: u32,
    pc: u32,
    register: String,
    pending_pc: u32,
    asm: String,
    pending_asm: String,
    message: String,
}

#[pymethods]
impl Hazard {
    fn __str__(&self) -> String {
        self.message.clone()
    }

    fn __repr__(&self) -> String {
        format!("<warpkit.Hazard {}>", self.message)
    }
}

/// Counts of a launch.
#[pyclass(module = "warpkit", frozen, get_all)]
struct Stats {
    workgroups: u64,
    warps: u64,
    /// Warp-instructions retired.
    instructions: u64,
    /// Active lanes summed over retired vector instructions.
    lane_ops: u64,
    hazards: u64,
    /// Seconds spent simulating (the figure `warpkit run` prints).
    wall: f64,
}

#[pymethods]
impl Stats {
    fn __repr__(&self) -> String {
        format!(
            "<warpkit.Stats {} workgroups, {} warps, {} instructions, {} lane-ops, {} hazards, {:.6} s>",
            self.workgroups, self.warps, self.instructions, self.lane_ops, self.hazards, self.wall
        )
    }
}

/// The final state of one warp.
#[pyclass(module = "warpkit", frozen, get_all)]
struct Warp {
    workgroup: (u32, u32, u32),
    warp: u32,
    pc: u32,
    exec: u32,
    /// Vector registers: numpy.uint32 array of shape (128, 32), [register, lane].
    v: Py<PyAny>,
    /// Uniform registers: numpy.uint32 array of shape (64,).
    u: Py<PyAny>,
    /// CSR name -> value.
    csr: Py<PyDict>,
    /// The trap that stopped the warp, or None.
    trap: Option<Py<PyAny>>,
    /// "ended", "trapped", "step_limit" or "running".
    status: &'static str,
}

/// The result of a launch.
#[pyclass(module = "warpkit", frozen)]
struct Run {
    /// Buffer argument name -> numpy array of its final bytes, with the dtype and shape the
    /// argument had (`Buffer`/bytes arguments: numpy.uint8).
    #[pyo3(get)]
    buffers: Py<PyDict>,
    /// Final state of every warp (workgroup then warp order) if `keep_warps`, else [].
    #[pyo3(get)]
    warps: Py<PyList>,
    /// Every trap (TrapInfo).
    #[pyo3(get)]
    traps: Py<PyList>,
    /// The first trap, or None.
    #[pyo3(get)]
    trap: Option<Py<PyAny>>,
    /// Hazard reports (at most a few per warp; `stats.hazards` counts all).
    #[pyo3(get)]
    hazards: Py<PyList>,
    #[pyo3(get)]
    stats: Py<Stats>,
    /// Every warp ended with `endpgm` (no trap, step limit or deadlock).
    #[pyo3(get)]
    ok: bool,
    /// The report lines `warpkit run` prints for this run (traps, step limits, deadlocks).
    #[pyo3(get)]
    messages: Vec<String>,
    /// With `launch(..., timing=...)`: the timing report as dicts and lists, the JSON of
    /// `warpkit run --timing-json` parsed (docs/timing.md); None otherwise.
    #[pyo3(get)]
    timing: Option<Py<PyAny>>,
    /// Which exception the run raises when checked, decided from the reports themselves
    /// (never from `messages`, whose wording is free to change).
    failure: Option<Failure>,
}

/// Why a run did not finish, in the order [`raise_failure`] looks for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    Trap,
    Deadlock,
    /// A step limit, or a run interrupted before its end.
    Limit,
}

impl Failure {
    /// The first trap first, then a deadlock, then anything else that stopped a warp.
    fn of(traps: usize, deadlocks: usize, step_limits: usize, interrupted: bool) -> Option<Self> {
        if traps > 0 {
            Some(Failure::Trap)
        } else if deadlocks > 0 {
            Some(Failure::Deadlock)
        } else if step_limits > 0 || interrupted {
            Some(Failure::Limit)
        } else {
            None
        }
    }
}

#[pymethods]
impl Run {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<warpkit.Run ok={} {}>",
            if self.ok { "True" } else { "False" },
            self.stats.borrow(py).__repr__()
        )
    }
}

fn dims(what: &str, v: &Bound<'_, PyAny>) -> PyResult<[u32; 3]> {
    let bad = || {
        PyValueError::new_err(format!(
            "{what}: expected an int or a tuple of 1 to 3 ints, each from 1 to {}",
            u32::MAX
        ))
    };
    let parts: Vec<u32> = if let Ok(n) = v.extract::<u32>() {
        vec![n]
    } else {
        v.extract::<Vec<u32>>().map_err(|_| bad())?
    };
    if parts.is_empty() || parts.len() > 3 || parts.contains(&0) {
        return Err(bad());
    }
    let mut out = [1u32; 3];
    out[..parts.len()].copy_from_slice(&parts);
    Ok(out)
}

fn setup_error(e: SetupError) -> PyErr {
    LaunchError::new_err(e.to_string())
}

/// The arguments of a kernel with metadata, given by name in any order: each parameter
/// once, bound in parameter order (`warpkit_host::params`); returns how buffers come back.
fn add_params(
    l: &mut Launch,
    kernel: &warpkit_asm::KernelInfo,
    args: &Bound<'_, PyDict>,
) -> PyResult<Vec<BufferShape>> {
    let mut given: Vec<(String, Bound<'_, PyAny>)> = Vec::with_capacity(args.len());
    for (k, v) in args.iter() {
        let name: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err("argument names must be str"))?;
        given.push((name, v));
    }
    let names: Vec<&str> = given.iter().map(|(n, _)| n.as_str()).collect();
    let order = warpkit_host::params::order_by_name(kernel, &names)
        .map_err(|e| LaunchError::new_err(e.to_string()))?;
    let mut shapes = Vec::new();
    for i in order {
        let (name, v) = &given[i];
        let (value, shape) = param_value(l, name, v)?;
        l.param(name, value).map_err(setup_error)?;
        shapes.extend(shape);
    }
    Ok(shapes)
}

/// The value of one argument of a kernel with metadata, and how a buffer comes back: an
/// int or a float (checked against the parameter's kind by the host), a numpy array,
/// bytes, bytearray or `Buffer` (a buffer), a `Local` (shared memory).
fn param_value(
    l: &Launch,
    name: &str,
    v: &Bound<'_, PyAny>,
) -> PyResult<(warpkit_host::ParamValue, Option<BufferShape>)> {
    use warpkit_host::ParamValue;
    if let Ok(local) = v.cast::<Local>() {
        return Ok((ParamValue::Local(local.get().nbytes), None));
    }
    if let Ok(b) = v.cast::<Buffer>() {
        let b = b.get();
        let shape = BufferShape {
            name: name.to_string(),
            dtype: b.dtype.as_ref().map(|d| d.clone_ref(v.py())),
            shape: None,
        };
        return Ok((ParamValue::Zeroed(b.nbytes as u64), Some(shape)));
    }
    if v.cast::<PyUntypedArray>().is_ok()
        || v.cast::<PyBytes>().is_ok()
        || v.cast::<pyo3::types::PyByteArray>().is_ok()
    {
        if let Ok(a) = v.cast::<PyUntypedArray>() {
            let nbytes = a.getattr("nbytes")?.extract::<u64>()?;
            if nbytes.saturating_add(8) > l.memory_left() {
                return Err(LaunchError::new_err(format!(
                    "argument `{name}` needs {nbytes} bytes, more than the {} bytes left under \
                     the memory limit of {} bytes (max_memory)",
                    l.memory_left(),
                    l.limits().max_memory
                )));
            }
        }
        let (value, shape) = arg_value(name, v)?;
        return Ok((ParamValue::Buffer(value), shape));
    }
    // A Python float (numpy.float64 is one), then anything with __index__ (int, numpy
    // integers), then anything else with __float__ (numpy.float32, numpy.float16).
    if v.is_instance_of::<pyo3::types::PyFloat>() {
        return Ok((ParamValue::Float(v.extract::<f64>()?), None));
    }
    if v.is_instance_of::<pyo3::types::PyInt>() || v.hasattr("__index__")? {
        let n = v.extract::<i128>().map_err(|_| {
            PyValueError::new_err(format!("argument `{name}`: {v} does not fit 128 bits"))
        })?;
        return Ok((ParamValue::Int(n), None));
    }
    if let Ok(f) = v.extract::<f64>() {
        return Ok((ParamValue::Float(f), None));
    }
    Err(PyTypeError::new_err(format!(
        "argument `{name}`: expected an int, a float, a numpy array, bytes, warpkit.Buffer or \
         warpkit.local(nbytes), not {}",
        v.get_type().name()?
    )))
}

/// Append the argument `name` = `v` to `l`; returns how a buffer comes back.
fn add_arg(l: &mut Launch, name: &str, v: &Bound<'_, PyAny>) -> PyResult<Option<BufferShape>> {
    // A zero-filled buffer is charged to the memory limit before it is allocated, an
    // array before it is copied.
    if let Ok(b) = v.cast::<Buffer>() {
        let b = b.get();
        // As words: its pages stay untouched until the kernel writes them, and the model's
        // memory becomes the result's array.
        l.zeroed_words(name, b.nbytes as u64).map_err(setup_error)?;
        return Ok(Some(BufferShape {
            name: name.to_string(),
            dtype: b.dtype.as_ref().map(|d| d.clone_ref(v.py())),
            shape: None,
        }));
    }
    if let Ok(a) = v.cast::<PyUntypedArray>() {
        let nbytes = a.getattr("nbytes")?.extract::<u64>()?;
        if nbytes.saturating_add(8) > l.memory_left() {
            return Err(LaunchError::new_err(format!(
                "argument `{name}` needs {nbytes} bytes, more than the {} bytes left under the \
                 memory limit of {} bytes (max_memory)",
                l.memory_left(),
                l.limits().max_memory
            )));
        }
    }
    let (value, shape) = arg_value(name, v)?;
    l.arg(name, value).map_err(setup_error)?;
    Ok(shape)
}

/// The value of one argument, and how a buffer comes back.
fn arg_value(name: &str, v: &Bound<'_, PyAny>) -> PyResult<(ArgValue, Option<BufferShape>)> {
    let shape = |dtype: Option<Py<PyAny>>, shape: Option<Py<PyTuple>>| {
        Some(BufferShape {
            name: name.to_string(),
            dtype,
            shape,
        })
    };
    if let Ok(a) = v.cast::<PyUntypedArray>() {
        let words = array_words(a)?;
        let dims = PyTuple::new(v.py(), a.shape())?.unbind();
        let dtype = a.dtype().into_any().unbind();
        return Ok((ArgValue::Words(words), shape(Some(dtype), Some(dims))));
    }
    if let Ok(b) = v.cast::<PyBytes>() {
        return Ok((ArgValue::Buffer(b.as_bytes().to_vec()), shape(None, None)));
    }
    if let Ok(b) = v.cast::<pyo3::types::PyByteArray>() {
        return Ok((ArgValue::Buffer(b.to_vec()), shape(None, None)));
    }
    if let Ok(n) = v.extract::<i128>() {
        if n < i128::from(i64::MIN) || n > i128::from(u64::MAX) {
            return Err(PyValueError::new_err(format!(
                "argument `{name}`: {n} does not fit a 64-bit slot"
            )));
        }
        return Ok((ArgValue::Int(n as u64), None));
    }
    Err(PyTypeError::new_err(format!(
        "argument `{name}`: expected an int, a numpy array, bytes or warpkit.Buffer, not {}",
        v.get_type().name()?
    )))
}

/// The bytes of `a` in C order as the model's memory words, copied once, straight from
/// the array's memory into the words the model then runs on (another layout than C order
/// is made contiguous first).
fn array_words(a: &Bound<'_, PyUntypedArray>) -> PyResult<WordBuffer> {
    let np = a.py().import("numpy")?;
    let contiguous = if a.is_c_contiguous() {
        a.clone().into_any()
    } else {
        np.call_method1("ascontiguousarray", (a,))?
    };
    let flat = contiguous
        .call_method1("reshape", (-1,))?
        .call_method1("view", (np.getattr("uint8")?,))?
        .cast_into::<PyArray1<u8>>()?
        .readonly();
    let bytes = flat.as_slice()?;
    let whole = bytes.chunks_exact(4);
    let tail = whole.remainder();
    let mut words = Vec::with_capacity(bytes.len().div_ceil(4));
    words.extend(whole.map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    if !tail.is_empty() {
        let mut last = [0u8; 4];
        last[..tail.len()].copy_from_slice(tail);
        words.push(u32::from_le_bytes(last));
    }
    Ok(WordBuffer {
        words,
        len: bytes.len() as u64,
    })
}

/// A buffer's final contents as a 1-D `numpy.uint8` array that owns them: the model's own
/// memory (words) or bytes, never copied.
fn buffer_array<'py>(py: Python<'py>, out: BufferOut) -> PyResult<Bound<'py, PyAny>> {
    let Some(WordBuffer { mut words, len }) = out.words else {
        return Ok(PyArray1::from_vec(py, out.bytes).into_any());
    };
    // The model's words hold little-endian bytes; numpy reads them in the host's order.
    if cfg!(target_endian = "big") {
        words.iter_mut().for_each(|w| *w = w.to_le());
    }
    let whole = 4 * words.len() as u64;
    let bytes = PyArray1::from_vec(py, words)
        .into_any()
        .call_method1("view", (py.import("numpy")?.getattr("uint8")?,))?;
    if len == whole {
        Ok(bytes)
    } else {
        bytes.get_item(pyo3::types::PySlice::new(py, 0, len as isize, 1))
    }
}

/// Run `f` on a worker thread with the GIL released, checking every 50 ms for a pending
/// signal (Ctrl-C). A signal sets `cancel`, which stops the model within a few thousand
/// instructions per warp; the signal's exception (`KeyboardInterrupt`) is then raised.
/// The result comes back through a channel, so the call returns as soon as `f` does, not
/// at the next 50 ms tick.
fn detached<T: Send>(
    py: Python<'_>,
    cancel: &AtomicBool,
    f: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let (result, signal) = py.detach(|| {
        std::thread::scope(|scope| {
            let (done, result) = std::sync::mpsc::sync_channel(1);
            let worker = scope.spawn(move || {
                // The receiver outlives the worker (it is joined below).
                let _ = done.send(f());
            });
            let mut signal = None;
            let value = loop {
                match result.recv_timeout(Duration::from_millis(50)) {
                    Ok(value) => break Some(value),
                    // `f` panicked: the sender was dropped without a value.
                    Err(RecvTimeoutError::Disconnected) => break None,
                    Err(RecvTimeoutError::Timeout) => {
                        if signal.is_none() {
                            signal = Python::attach(|py| py.check_signals().err());
                            if signal.is_some() {
                                cancel.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                }
            };
            // Joined here so that a panic is caught, not re-raised by the scope.
            let joined = worker.join();
            (value.filter(|_| joined.is_ok()), signal)
        })
    });
    if let Some(e) = signal {
        return Err(e);
    }
    result.ok_or_else(|| Error::new_err("the simulator panicked (a bug: please report it)"))
}

/// The options `launch` and `Simulator` share.
struct LaunchOptions<'a, 'py> {
    grid: Option<&'a Bound<'py, PyAny>>,
    block: Option<&'a Bound<'py, PyAny>>,
    args: Option<&'a Bound<'py, PyDict>>,
    shared: u32,
    scratch: Option<u32>,
    threads: Option<usize>,
    max_steps: u64,
    entry: Option<&'a str>,
    keep_warps: bool,
    max_memory: u64,
    max_workgroups: u64,
}

/// The checked launch of `program` with `o`, the kernel, and how its buffers come back.
fn setup(
    py: Python<'_>,
    program: &Bound<'_, PyAny>,
    o: LaunchOptions<'_, '_>,
) -> PyResult<(Launch, warpkit_asm::Program, Vec<BufferShape>)> {
    let (kernel, chosen): (warpkit_asm::Program, Option<String>) =
        if let Ok(p) = program.cast::<Program>() {
            (p.get().inner.clone(), p.get().kernel.clone())
        } else if let Ok(src) = program.extract::<String>() {
            (assemble(py, &src, "<string>")?.inner, None)
        } else {
            return Err(PyTypeError::new_err(
                "program: expected a warpkit.Program or assembly source text",
            ));
        };
    let mut l = Launch::new(Limits {
        max_memory: o.max_memory,
        max_workgroups: o.max_workgroups,
    });
    l.max_steps(o.max_steps).map_err(setup_error)?;
    l.threads(o.threads.unwrap_or(0)).map_err(setup_error)?;
    l.keep_warps(o.keep_warps);
    if let Some(g) = o.grid {
        l.grid(dims("grid", g)?).map_err(setup_error)?;
    }
    if let Some(b) = o.block {
        l.block(dims("block", b)?).map_err(setup_error)?;
    }
    l.shared(o.shared).map_err(setup_error)?;
    if let Some(s) = o.scratch {
        l.scratch(s).map_err(setup_error)?;
    }
    if let Some(e) = o.entry {
        l.entry(e);
    }
    let meta = warpkit_host::select_kernel(&kernel, chosen.as_deref(), o.entry).map_err(|e| {
        LaunchError::new_err(match e {
            warpkit_host::ParamError::SeveralKernels { .. } => {
                format!("{e} with warpkit.load(path, kernel=NAME) or launch(..., entry=NAME)")
            }
            e => e.to_string(),
        })
    })?;
    if let Some(meta) = meta {
        l.kernel(meta).map_err(setup_error)?;
        let shapes = match o.args {
            Some(args) => add_params(&mut l, meta, args)?,
            None => add_params(&mut l, meta, &PyDict::new(py))?,
        };
        return Ok((l, kernel, shapes));
    }
    let mut shapes = Vec::new();
    if let Some(args) = o.args {
        for (k, v) in args.iter() {
            let name: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("argument names must be str"))?;
            shapes.extend(add_arg(&mut l, &name, &v)?);
        }
    }
    Ok((l, kernel, shapes))
}

/// The machine `timing=` asks for: None or False for none, True for the default machine,
/// an `os.PathLike` or a str naming a machine file, or a str holding TOML (it has a newline
/// or an `=`).
fn timing_machine(v: &Bound<'_, PyAny>) -> PyResult<Option<warpkit_timing::Machine>> {
    if v.is_none() {
        return Ok(None);
    }
    if let Ok(b) = v.cast::<pyo3::types::PyBool>() {
        return Ok(b.is_true().then(warpkit_timing::Machine::default));
    }
    let bad = |name: &str, e: warpkit_timing::MachineError| {
        PyValueError::new_err(match e {
            warpkit_timing::MachineError::Parse {
                line,
                column,
                message,
            } => format!("timing: {name}:{line}:{column}: {}", message.trim_end()),
            e => format!("timing: {name}: {e}"),
        })
    };
    if let Ok(text) = v.extract::<String>() {
        if text.contains('\n') || text.contains('=') {
            return warpkit_timing::Machine::from_toml(&text)
                .map(Some)
                .map_err(|e| bad("<machine>", e));
        }
    }
    let path: std::path::PathBuf = v.extract().map_err(|_| {
        PyTypeError::new_err(
            "timing: expected True, a machine file's path or a machine's TOML text",
        )
    })?;
    let text = std::fs::read_to_string(&path).map_err(|e| {
        pyo3::exceptions::PyOSError::new_err(format!("timing: {}: {e}", path.display()))
    })?;
    warpkit_timing::Machine::from_toml(&text)
        .map(Some)
        .map_err(|e| bad(&path.display().to_string(), e))
}

/// Launch `program` on the functional model (docs/python.md).
#[pyfunction]
#[pyo3(signature = (
    program, grid = None, block = None, args = None, *,
    shared = warpkit_sim::launch::DEFAULT_SHARED_BYTES, scratch = None, threads = None,
    max_steps = warpkit_sim::DEFAULT_MAX_STEPS, entry = None, keep_warps = true,
    strict_hazards = false, check = true, engine = None,
    max_memory = warpkit_host::launch::DEFAULT_MAX_MEMORY,
    max_workgroups = warpkit_host::launch::DEFAULT_MAX_WORKGROUPS, timing = None
))]
// A default taken from a constant would show as `...`; this one states it, and a test
// holds it to the library's.
#[pyo3(
    text_signature = "(program, grid=None, block=None, args=None, *, shared=65536, scratch=None, \
    threads=None, max_steps=..., entry=None, keep_warps=True, strict_hazards=False, check=True, \
    engine=None, max_memory=..., max_workgroups=..., timing=None)"
)]
#[allow(clippy::too_many_arguments)]
fn launch(
    py: Python<'_>,
    program: &Bound<'_, PyAny>,
    grid: Option<&Bound<'_, PyAny>>,
    block: Option<&Bound<'_, PyAny>>,
    args: Option<&Bound<'_, PyDict>>,
    shared: u32,
    scratch: Option<u32>,
    threads: Option<usize>,
    max_steps: u64,
    entry: Option<&str>,
    keep_warps: bool,
    strict_hazards: bool,
    check: bool,
    engine: Option<&str>,
    max_memory: u64,
    max_workgroups: u64,
    timing: Option<&Bound<'_, PyAny>>,
) -> PyResult<Run> {
    let machine = timing.map(timing_machine).transpose()?.flatten();
    let engine = match engine {
        None => None,
        Some("interpreter" | "interp") => Some(warpkit_sim::Engine::Interp),
        Some("jit") => Some(warpkit_sim::Engine::Jit),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "engine {other:?}: expected \"jit\" or \"interpreter\""
            )))
        }
    };
    let (mut l, kernel, shapes) = setup(
        py,
        program,
        LaunchOptions {
            grid,
            block,
            args,
            shared,
            scratch,
            threads,
            max_steps,
            entry,
            keep_warps,
            max_memory,
            max_workgroups,
        },
    )?;
    let cancel = CancelFlag::new();
    l.cancel(cancel.clone());
    // The kernel's name in a timing report: the one of its metadata that runs.
    let name = l
        .kernel_info()
        .map_or_else(|| "kernel".to_string(), |k| k.name.clone());
    let mut prepared = l.prepare(&kernel).map_err(setup_error)?;
    if let Some(engine) = engine {
        prepared.engine(engine);
    }
    let (result, report) = match machine {
        None => {
            let done = AtomicU64::new(0);
            let result = detached(py, cancel.as_atomic(), || prepared.run_with_progress(&done))?
                .map_err(|e| LaunchError::new_err(e.to_string()))?;
            (result, None)
        }
        Some(machine) => {
            let opts = warpkit_timing::TimingOptions {
                machine,
                kernel: name,
                timeline: false,
                threads: 0,
            };
            let (program, config, args) = prepared.into_parts();
            let (result, report) = detached(py, cancel.as_atomic(), || {
                warpkit_timing::launch_timed(&program, &config, args, &opts)
            })?
            .map_err(|e| LaunchError::new_err(e.to_string()))?;
            (result, Some(report))
        }
    };
    let mut run = to_run(py, result, shapes, max_steps, &kernel.lines)?;
    if let Some(report) = report {
        let json = py
            .import("json")?
            .call_method1("loads", (report.to_json(),))?;
        run.timing = Some(json.unbind());
    }
    if check {
        raise_failure(py, run, strict_hazards)
    } else {
        Ok(run)
    }
}

fn to_run(
    py: Python<'_>,
    r: LaunchResult,
    shapes: Vec<BufferShape>,
    max_steps: u64,
    lines: &warpkit_asm::LineTable,
) -> PyResult<Run> {
    let buffers = PyDict::new(py);
    let LaunchResult {
        stats,
        traps,
        step_limits,
        deadlocks,
        hazards,
        buffers: outs,
        warps,
        cores,
        interrupted,
    } = r;
    for (out, shape) in outs.into_iter().zip(&shapes) {
        debug_assert_eq!(out.name, shape.name);
        // The model's memory becomes the array's: no copy.
        let mut arr = buffer_array(py, out)?;
        if let Some(dtype) = &shape.dtype {
            arr = arr.call_method1("view", (dtype.bind(py),))?;
        }
        if let Some(dims) = &shape.shape {
            arr = arr.call_method1("reshape", (dims.bind(py),))?;
        }
        buffers.set_item(&shape.name, arr)?;
    }
    let mut messages = Vec::new();
    let trap_list = PyList::empty(py);
    for t in &traps {
        let info = trap_info(t, lines);
        messages.push(info.message.clone());
        trap_list.append(Py::new(py, info)?)?;
    }
    for s in &step_limits {
        messages.push(step_limit_message(s, max_steps) + &location_suffix(lines, s.pc));
    }
    for d in &deadlocks {
        messages.push(deadlock_message_at(d, lines));
    }
    if let Some(why) = interrupted {
        messages.push(format!("{why}"));
    }
    let hazard_list = PyList::empty(py);
    for h in &hazards {
        let [x, y, z] = h.workgroup;
        hazard_list.append(Py::new(
            py,
            Hazard {
                kind: match h.kind {
                    warpkit_sim::HazardKind::Raw => "RAW",
                    warpkit_sim::HazardKind::Waw => "WAW",
                },
                workgroup: (x, y, z),
                warp: h.warp,
                pc: h.pc,
                register: h.register.clone(),
                pending_pc: h.pending_pc,
                asm: h.asm.clone(),
                pending_asm: h.pending_asm.clone(),
                message: hazard_message_at(h, lines),
            },
        )?)?;
    }
    let warp_list = PyList::empty(py);
    for (w, core) in warps.iter().zip(&cores) {
        let v: Vec<u32> = w.v.iter().flatten().copied().collect();
        let v = PyArray1::from_vec(py, v).reshape([w.v.len(), warpkit_sim::LANES])?;
        let u = PyArray1::from_vec(py, w.u.to_vec());
        let csr = PyDict::new(py);
        for def in warpkit_isa::CSRS.iter() {
            csr.set_item(
                def.name,
                w.csr_read(u32::from(def.number), core).unwrap_or(0),
            )?;
        }
        let (status, trap) = match w.status {
            warpkit_sim::WarpStatus::Trapped(t) => {
                let report = TrapReport {
                    workgroup: w.id.workgroup,
                    warp: w.id.warp,
                    trap: t,
                    asm: String::new(),
                    address: w.fault_address,
                };
                let info = traps
                    .iter()
                    .find(|r| r.workgroup == w.id.workgroup && r.warp == w.id.warp)
                    .map(|t| trap_info(t, lines))
                    .unwrap_or_else(|| trap_info(&report, lines));
                ("trapped", Some(Py::new(py, info)?.into_any()))
            }
            warpkit_sim::WarpStatus::Ended => ("ended", None),
            warpkit_sim::WarpStatus::StepLimit => ("step_limit", None),
            _ => ("running", None),
        };
        let [x, y, z] = w.id.workgroup;
        warp_list.append(Py::new(
            py,
            Warp {
                workgroup: (x, y, z),
                warp: w.id.warp,
                pc: w.pc,
                exec: w.exec(),
                v: v.into_any().unbind(),
                u: u.into_any().unbind(),
                csr: csr.unbind(),
                trap,
                status,
            },
        )?)?;
    }
    let failure = Failure::of(
        traps.len(),
        deadlocks.len(),
        step_limits.len(),
        interrupted.is_some(),
    );
    let first_trap = trap_list.iter().next().map(|t| t.unbind());
    Ok(Run {
        buffers: buffers.unbind(),
        warps: warp_list.unbind(),
        traps: trap_list.unbind(),
        trap: first_trap,
        hazards: hazard_list.unbind(),
        stats: Py::new(
            py,
            Stats {
                workgroups: stats.workgroups,
                warps: stats.warps,
                instructions: stats.instructions,
                lane_ops: stats.lane_ops,
                hazards: stats.hazards,
                wall: stats.wall.as_secs_f64(),
            },
        )?,
        ok: failure.is_none(),
        messages,
        timing: None,
        failure,
    })
}

/// Raise the exception for a run that did not finish (the first trap first, then a
/// deadlock, then a step limit or strict hazards); otherwise return it.
fn raise_failure(py: Python<'_>, run: Run, strict_hazards: bool) -> PyResult<Run> {
    let hazards = run.stats.borrow(py).hazards;
    let message = if run.messages.is_empty() {
        format!("{hazards} hazard(s) reported and strict_hazards is set")
    } else {
        run.messages.join("\n")
    };
    let err = match run.failure {
        Some(Failure::Trap) => {
            let err = Trap::new_err(message);
            let value = err.value(py);
            if let Some(t) = &run.trap {
                let t = t.bind(py);
                for attr in [
                    "cause",
                    "cause_name",
                    "pc",
                    "info",
                    "workgroup",
                    "warp",
                    "asm",
                    "address",
                    "lane",
                ] {
                    value.setattr(attr, t.getattr(attr)?)?;
                }
            }
            value.setattr("traps", run.traps.clone_ref(py))?;
            err
        }
        Some(Failure::Deadlock) => Deadlock::new_err(message),
        Some(Failure::Limit) => LimitExceeded::new_err(message),
        None if strict_hazards && hazards > 0 => LimitExceeded::new_err(message),
        None => return Ok(run),
    };
    let value = err.value(py);
    value.setattr("messages", run.messages.clone())?;
    value.setattr("run", Py::new(py, run)?)?;
    Err(err)
}

/// The ISA database as Python objects: the JSON of `warpkit spec --json`, parsed.
#[pyfunction]
fn spec(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let text = warpkit_host::spec::database_json().to_string();
    py.import("json")?.call_method1("loads", (text,))
}

/// The address the code is mapped at (PC is an offset from it; docs/abi.md).
#[pyfunction]
fn code_base() -> u64 {
    CODE_BASE
}

/// The `warpkit` extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(assemble, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(opencl::compile, m)?)?;
    m.add_function(wrap_pyfunction!(disassemble, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(launch, m)?)?;
    m.add_function(wrap_pyfunction!(code_base, m)?)?;
    m.add_function(wrap_pyfunction!(spec, m)?)?;
    // The default of `shared=`, exported so the stub and docs can be checked against it.
    m.add(
        "DEFAULT_SHARED_BYTES",
        warpkit_sim::launch::DEFAULT_SHARED_BYTES,
    )?;
    m.add_class::<Program>()?;
    m.add_class::<Diagnostic>()?;
    m.add_class::<Instr>()?;
    m.add_class::<Buffer>()?;
    m.add_class::<Local>()?;
    m.add_function(wrap_pyfunction!(local, m)?)?;
    m.add_class::<Run>()?;
    m.add_class::<Warp>()?;
    m.add_class::<TrapInfo>()?;
    m.add_class::<Hazard>()?;
    m.add_class::<Stats>()?;
    stepping::register(m)?;
    m.add("Error", py.get_type::<Error>())?;
    m.add("AssemblyError", py.get_type::<AssemblyError>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("DecodeError", py.get_type::<DecodeError>())?;
    m.add("LaunchError", py.get_type::<LaunchError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    m.add("Trap", py.get_type::<Trap>())?;
    m.add("Deadlock", py.get_type::<Deadlock>())?;
    m.add("LimitExceeded", py.get_type::<LimitExceeded>())?;
    Ok(())
}
