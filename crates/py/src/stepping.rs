//! `warpkit.Simulator`: a launch stepped from Python, one instruction or a breakpoint at a
//! time, with its registers and memory readable and writable in between. A client of
//! `warpkit_host::Stepper` (shared with the C API), whose commits are the records of
//! `warpkit run --trace`.

use super::{
    detached, raise_failure, setup, setup_error, to_run, BufferShape, Error, Instr, LaunchError,
    LaunchOptions,
};
use numpy::{PyArray1, PyUntypedArray};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use warpkit_host::{StateError, StepState, Stepper, StopReason};
use warpkit_sim::hooks::MemAccess as SimMemAccess;
use warpkit_sim::{Commit as SimCommit, WarpId, Written};

/// Steps of one call run on the calling thread (GIL released) below this; more, or a run
/// to a breakpoint, run on a worker thread so a Ctrl-C can interrupt them.
const INLINE_STEPS: u64 = 4096;

/// The writes of one vector register: the lanes written (EXEC-active), ascending, and
/// their new values.
#[pyclass(module = "warpkit", frozen, get_all)]
struct VWrite {
    reg: u32,
    lanes: Vec<u32>,
    values: Vec<u32>,
}

#[pymethods]
impl VWrite {
    /// Bit `l` set for every lane written.
    #[getter]
    fn mask(&self) -> u32 {
        self.lanes.iter().fold(0, |m, l| m | (1 << l))
    }

    fn __repr__(&self) -> String {
        let pairs: Vec<String> = self
            .lanes
            .iter()
            .zip(&self.values)
            .map(|(l, v)| format!("{l}:{v:#x}"))
            .collect();
        format!("<warpkit.VWrite v{} {{{}}}>", self.reg, pairs.join(" "))
    }
}

/// One lane's memory access: `addr` rounded down to 4 bytes, the words from there,
/// byte enables, and for an atomic the old word (docs/trace.md, "Memory records").
#[pyclass(module = "warpkit", frozen, get_all)]
struct LaneAccess {
    lane: u32,
    addr: u64,
    data: Vec<u32>,
    mask: u32,
    old: Option<u32>,
}

/// The accesses of one memory instruction.
#[pyclass(module = "warpkit", frozen, get_all)]
struct MemAccess {
    /// "load", "store" or "atomic".
    kind: &'static str,
    /// "global" or "shared".
    space: &'static str,
    /// Bytes per lane.
    size: u32,
    lanes: Vec<Py<LaneAccess>>,
}

/// An asynchronous write-back retired by a commit: the issuing instruction's PC and what
/// it wrote.
#[pyclass(module = "warpkit", frozen, get_all)]
struct Retired {
    pc: u32,
    v: Vec<Py<VWrite>>,
    /// Uniform register -> value.
    u: Py<PyDict>,
}

/// One executed instruction: the record `warpkit run --trace` writes for it.
#[pyclass(module = "warpkit", frozen, get_all)]
struct Commit {
    workgroup: (u32, u32, u32),
    /// The warp's index in its workgroup.
    warp: u32,
    /// The warp's instruction count, from 1.
    step: u64,
    pc: u32,
    /// The instruction's bytes as one little-endian number.
    encoding: u64,
    /// 4 or 8 bytes.
    length: usize,
    /// The canonical disassembly.
    asm: String,
    /// EXEC when the instruction executed.
    exec: u32,
    /// Vector registers written (both registers of a pair).
    v: Vec<Py<VWrite>>,
    /// Uniform registers written: register -> value.
    u: Py<PyDict>,
    /// The new EXEC if the instruction wrote it, else None.
    exec_write: Option<u32>,
    /// CSRs written other than EXEC: dicts with name, number, value.
    csr: Py<PyList>,
    /// None, or a dict with cause, pc, info, handled.
    trap: Option<Py<PyDict>>,
    mem: Vec<Py<MemAccess>>,
    retired: Vec<Py<Retired>>,
    /// True for the `endpgm` that ended the warp.
    ended: bool,
    json: String,
    text: String,
}

#[pymethods]
impl Commit {
    /// The JSON Lines record of `warpkit run --trace` (docs/trace.md), without newline.
    fn to_json(&self) -> String {
        self.json.clone()
    }

    /// The instruction decoded (`warpkit.decode` of its bytes), or None for bytes that are
    /// not an instruction (an illegal-instruction trap).
    #[getter]
    fn instruction(&self) -> Option<Instr> {
        let bytes = self.encoding.to_le_bytes();
        let (inner, _) = warpkit_isa::decode(bytes.get(..self.length)?).ok()?;
        Some(Instr { inner })
    }

    /// The line of `warpkit run --trace --trace-format text`.
    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        format!("<warpkit.Commit {}>", self.text)
    }
}

fn vwrites(py: Python<'_>, w: &[Written]) -> PyResult<(Vec<Py<VWrite>>, Py<PyDict>)> {
    let mut v = Vec::new();
    let u = PyDict::new(py);
    for w in w {
        match w {
            Written::V { reg, lanes } => v.push(Py::new(
                py,
                VWrite {
                    reg: *reg,
                    lanes: lanes.iter().map(|&(l, _)| l).collect(),
                    values: lanes.iter().map(|&(_, x)| x).collect(),
                },
            )?),
            Written::U { reg, value } => u.set_item(reg, value)?,
            _ => {}
        }
    }
    Ok((v, u.unbind()))
}

fn mem_access(py: Python<'_>, m: &SimMemAccess) -> PyResult<Py<MemAccess>> {
    let lanes = m
        .lanes
        .iter()
        .map(|l| {
            Py::new(
                py,
                LaneAccess {
                    lane: l.lane,
                    addr: l.addr,
                    data: l.data.clone(),
                    mask: l.mask,
                    old: l.old,
                },
            )
        })
        .collect::<PyResult<_>>()?;
    Py::new(
        py,
        MemAccess {
            kind: m.kind.name(),
            space: m.space.name(),
            size: m.size,
            lanes,
        },
    )
}

fn commit(py: Python<'_>, c: &SimCommit) -> PyResult<Commit> {
    let (v, u) = vwrites(py, &c.writes)?;
    let csr = PyList::empty(py);
    let mut exec_write = None;
    for w in &c.writes {
        match w {
            Written::Exec(e) => exec_write = Some(*e),
            Written::Csr {
                number,
                name,
                value,
            } => {
                let d = PyDict::new(py);
                d.set_item("name", name)?;
                d.set_item("number", number)?;
                d.set_item("value", value)?;
                csr.append(d)?;
            }
            _ => {}
        }
    }
    let trap = match c.trap {
        Some((t, handled)) => {
            let d = PyDict::new(py);
            d.set_item("cause", t.cause)?;
            d.set_item("pc", t.pc)?;
            d.set_item("info", t.info)?;
            d.set_item("handled", handled)?;
            Some(d.unbind())
        }
        None => None,
    };
    let retired = c
        .retired
        .iter()
        .map(|(pc, w)| {
            let (v, u) = vwrites(py, w)?;
            Py::new(py, Retired { pc: *pc, v, u })
        })
        .collect::<PyResult<_>>()?;
    let [x, y, z] = c.workgroup;
    Ok(Commit {
        workgroup: (x, y, z),
        warp: c.warp,
        step: c.step,
        pc: c.pc,
        encoding: c.encoding,
        length: c.len,
        asm: c.asm.clone(),
        exec: c.exec,
        v,
        u,
        exec_write,
        csr: csr.unbind(),
        trap,
        mem: c
            .mem
            .iter()
            .map(|m| mem_access(py, m))
            .collect::<PyResult<_>>()?,
        retired,
        ended: c.ended,
        json: c.to_json(),
        text: c.to_text(),
    })
}

fn state_error(e: StateError) -> PyErr {
    match e {
        StateError::NoWorkgroup => Error::new_err(e.to_string()),
        StateError::Unmapped { .. } | StateError::OutsideShared { .. } => {
            PyIndexError::new_err(e.to_string())
        }
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A launch run step by step (docs/python.md, "Stepping").
#[pyclass(module = "warpkit")]
pub(crate) struct Simulator {
    stepper: Option<Stepper>,
    shapes: Vec<BufferShape>,
    max_steps: u64,
    /// `.text` labels and their offsets, for `run_until(pc="label")`.
    labels: Vec<(String, u32)>,
    /// The kernel's source lines, for the reports of `finish()`.
    lines: warpkit_asm::LineTable,
}

impl Simulator {
    fn stepper(&mut self) -> PyResult<&mut Stepper> {
        self.stepper
            .as_mut()
            .ok_or_else(|| Error::new_err("the simulator has been finished"))
    }

    /// The index in the running workgroup of `warp`: an int, or (workgroup, index).
    fn warp_index(&mut self, warp: &Bound<'_, PyAny>) -> PyResult<u32> {
        if let Ok(i) = warp.extract::<u32>() {
            return Ok(i);
        }
        let ((x, y, z), w) = warp.extract::<((u32, u32, u32), u32)>().map_err(|_| {
            PyTypeError::new_err("warp: expected an int or a tuple ((x, y, z), index)")
        })?;
        self.stepper()?
            .warp_index(WarpId {
                workgroup: [x, y, z],
                warp: w,
            })
            .map_err(state_error)
    }

    fn pc_of(&self, pc: &Bound<'_, PyAny>) -> PyResult<u32> {
        if let Ok(pc) = pc.extract::<u32>() {
            return Ok(pc);
        }
        let name: String = pc
            .extract()
            .map_err(|_| PyTypeError::new_err("pc: expected an int or a .text label"))?;
        self.labels
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, pc)| pc)
            .ok_or_else(|| PyValueError::new_err(format!("pc: no .text label `{name}`")))
    }
}

fn bytes_of(data: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = data.cast::<pyo3::types::PyByteArray>() {
        return Ok(b.to_vec());
    }
    if let Ok(a) = data.cast::<PyUntypedArray>() {
        let b = a.call_method0("tobytes")?;
        return Ok(b.cast::<PyBytes>()?.as_bytes().to_vec());
    }
    Err(PyTypeError::new_err(
        "data: expected bytes, bytearray or a numpy array",
    ))
}

#[pymethods]
impl Simulator {
    /// Set up `program`'s launch (the arguments of `warpkit.launch`) to be run step by
    /// step; nothing runs yet.
    #[new]
    #[pyo3(signature = (
        program, grid = None, block = None, args = None, *,
        shared = warpkit_sim::launch::DEFAULT_SHARED_BYTES, scratch = None,
        max_steps = warpkit_sim::DEFAULT_MAX_STEPS, entry = None,
        max_memory = warpkit_host::launch::DEFAULT_MAX_MEMORY,
        max_workgroups = warpkit_host::launch::DEFAULT_MAX_WORKGROUPS
    ))]
    // A default taken from a constant would show as `...`; this one states it, and a test
    // holds it to the library's.
    #[pyo3(
        text_signature = "(program, grid=None, block=None, args=None, *, shared=65536, \
        scratch=None, max_steps=..., entry=None, max_memory=..., max_workgroups=...)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        program: &Bound<'_, PyAny>,
        grid: Option<&Bound<'_, PyAny>>,
        block: Option<&Bound<'_, PyAny>>,
        args: Option<&Bound<'_, PyDict>>,
        shared: u32,
        scratch: Option<u32>,
        max_steps: u64,
        entry: Option<&str>,
        max_memory: u64,
        max_workgroups: u64,
    ) -> PyResult<Simulator> {
        let (l, kernel, shapes) = setup(
            py,
            program,
            LaunchOptions {
                grid,
                block,
                args,
                shared,
                scratch,
                threads: None,
                max_steps,
                entry,
                keep_warps: true,
                max_memory,
                max_workgroups,
            },
        )?;
        let labels = kernel
            .symbols
            .iter()
            .filter(|s| s.section == warpkit_asm::Section::Text)
            .filter_map(|s| Some((s.name.clone(), u32::try_from(s.offset).ok()?)))
            .collect();
        let prepared = l.prepare(&kernel).map_err(setup_error)?;
        let stepper = Stepper::new(prepared).map_err(|e| LaunchError::new_err(e.to_string()))?;
        Ok(Simulator {
            stepper: Some(stepper),
            shapes,
            max_steps,
            labels,
            lines: kernel.lines,
        })
    }

    /// "paused" (more to run) or "finished" (every workgroup has run; `finish()` gives
    /// the Run). "closed" after `finish()`.
    #[getter]
    fn status(&self) -> &'static str {
        match self.stepper.as_ref().map(Stepper::state) {
            Some(StepState::Paused) => "paused",
            Some(StepState::Finished) => "finished",
            None => "closed",
        }
    }

    /// Instructions executed so far, over every warp.
    #[getter]
    fn executed(&mut self) -> PyResult<u64> {
        Ok(self.stepper()?.executed())
    }

    /// The running workgroup's (x, y, z), or None once every workgroup has run.
    #[getter]
    fn workgroup(&mut self) -> PyResult<Option<(u32, u32, u32)>> {
        let s = self.stepper()?;
        s.ensure_started();
        Ok(s.current().map(|([x, y, z], _)| (x, y, z)))
    }

    /// Warps in the running workgroup (0 once every workgroup has run).
    #[getter]
    fn warp_count(&mut self) -> PyResult<usize> {
        let s = self.stepper()?;
        s.ensure_started();
        Ok(s.current().map_or(0, |(_, w)| w.len()))
    }

    /// Buffer argument name -> its global address.
    #[getter]
    fn buffers<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, addr) in self.stepper()?.buffers() {
            d.set_item(name, addr)?;
        }
        Ok(d)
    }

    /// Execute up to `n` instructions; their commits in execution order (fewer when the
    /// launch finishes first).
    #[pyo3(signature = (n = 1))]
    fn step(&mut self, py: Python<'_>, n: u64) -> PyResult<Vec<Commit>> {
        let s = self.stepper()?;
        let mut out = Vec::new();
        if n <= INLINE_STEPS {
            py.detach(|| s.step(n, &mut out));
        } else {
            let flag = s.interrupter();
            detached(py, &flag, || s.step(n, &mut out))?;
        }
        out.iter().map(|c| commit(py, c)).collect()
    }

    /// Run until a warp (`warp`, or any) is about to execute the instruction at `pc` (an
    /// offset or a `.text` label; not yet executed), `steps` instructions have run, or
    /// the launch finishes. Returns "breakpoint", "steps" or "finished". Called again at
    /// the breakpoint it stopped at, it executes that instruction first.
    #[pyo3(signature = (pc = None, steps = None, *, warp = None))]
    fn run_until(
        &mut self,
        py: Python<'_>,
        pc: Option<&Bound<'_, PyAny>>,
        steps: Option<u64>,
        warp: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<&'static str> {
        let pcs: Vec<u32> = pc.map(|p| self.pc_of(p)).transpose()?.into_iter().collect();
        let warp = match warp {
            None => None,
            Some(w) => {
                let ((x, y, z), i) = w.extract::<((u32, u32, u32), u32)>().map_err(|_| {
                    PyTypeError::new_err("warp: expected a tuple ((x, y, z), index)")
                })?;
                Some(WarpId {
                    workgroup: [x, y, z],
                    warp: i,
                })
            }
        };
        let s = self.stepper()?;
        let flag = s.interrupter();
        let (why, _) = detached(py, &flag, || s.run_until(&pcs, warp, steps))?;
        Ok(match why {
            StopReason::Breakpoint { .. } => "breakpoint",
            StopReason::Steps => "steps",
            StopReason::Finished => "finished",
            // Only with a signal, which `detached` raised.
            StopReason::Interrupted => "interrupted",
        })
    }

    /// The PC of `warp` (an index in the running workgroup, or ((x, y, z), index)).
    fn pc(&mut self, warp: &Bound<'_, PyAny>) -> PyResult<u32> {
        let i = self.warp_index(warp)?;
        Ok(self.stepper()?.warp(i).map_err(state_error)?.pc)
    }

    /// EXEC of `warp`.
    fn exec(&mut self, warp: &Bound<'_, PyAny>) -> PyResult<u32> {
        let i = self.warp_index(warp)?;
        Ok(self.stepper()?.warp(i).map_err(state_error)?.exec())
    }

    /// Vector register `r` of `warp`: a numpy.uint32 array of its 32 lanes (a copy).
    fn read_vreg<'py>(
        &mut self,
        py: Python<'py>,
        warp: &Bound<'_, PyAny>,
        r: u32,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let i = self.warp_index(warp)?;
        let row = self.stepper()?.vreg(i, r).map_err(state_error)?;
        Ok(PyArray1::from_slice(py, &row))
    }

    /// Set vector register `r` of `warp`: `values` is 32 lanes (any sequence or array of
    /// ints) or one int for every lane; with `lane`, only that lane is set (to an int).
    #[pyo3(signature = (warp, r, values, *, lane = None))]
    fn write_vreg(
        &mut self,
        warp: &Bound<'_, PyAny>,
        r: u32,
        values: &Bound<'_, PyAny>,
        lane: Option<u32>,
    ) -> PyResult<()> {
        let i = self.warp_index(warp)?;
        let lanes: Vec<(u32, u32)> = if let Ok(x) = values.extract::<u32>() {
            match lane {
                Some(l) => vec![(l, x)],
                None => (0..32).map(|l| (l, x)).collect(),
            }
        } else {
            if lane.is_some() {
                return Err(PyTypeError::new_err("with lane=, values must be one int"));
            }
            let v: Vec<u32> = if let Ok(a) = values.cast::<PyUntypedArray>() {
                a.call_method1("astype", ("uint32",))?
                    .call_method0("tolist")?
                    .extract()?
            } else {
                values.extract().map_err(|_| {
                    PyTypeError::new_err("values: expected an int or 32 ints (0 to 2^32-1)")
                })?
            };
            if v.len() != 32 {
                return Err(PyValueError::new_err(format!(
                    "values: expected 32 lanes, got {}",
                    v.len()
                )));
            }
            (0..32).zip(v).collect()
        };
        let s = self.stepper()?;
        for (l, x) in lanes {
            s.set_vreg_lane(i, r, l, x).map_err(state_error)?;
        }
        Ok(())
    }

    /// Uniform register `r` of `warp`.
    fn read_ureg(&mut self, warp: &Bound<'_, PyAny>, r: u32) -> PyResult<u32> {
        let i = self.warp_index(warp)?;
        self.stepper()?.ureg(i, r).map_err(state_error)
    }

    /// Set uniform register `r` of `warp`.
    fn write_ureg(&mut self, warp: &Bound<'_, PyAny>, r: u32, value: u32) -> PyResult<()> {
        let i = self.warp_index(warp)?;
        self.stepper()?.set_ureg(i, r, value).map_err(state_error)
    }

    /// `n` bytes of global memory at `addr` (code, argument block, buffers, the running
    /// workgroup's scratch) as a numpy.uint8 array; IndexError if any byte is unmapped.
    fn read_memory<'py>(
        &mut self,
        py: Python<'py>,
        addr: u64,
        n: u64,
    ) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let bytes = self.stepper()?.read_memory(addr, n).map_err(state_error)?;
        Ok(PyArray1::from_vec(py, bytes))
    }

    /// Write `data` (bytes, bytearray or a numpy array's bytes) to global memory at
    /// `addr`; nothing is written unless every byte is mapped (else IndexError).
    fn write_memory(&mut self, addr: u64, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let bytes = bytes_of(data)?;
        self.stepper()?
            .write_memory(addr, &bytes)
            .map_err(state_error)
    }

    /// `n` bytes of the running workgroup's shared memory at byte offset `offset`.
    fn read_shared<'py>(
        &mut self,
        py: Python<'py>,
        offset: u64,
        n: u64,
    ) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let bytes = self
            .stepper()?
            .read_shared(offset, n)
            .map_err(state_error)?;
        Ok(PyArray1::from_vec(py, bytes))
    }

    /// Write `data` to the running workgroup's shared memory at byte offset `offset`.
    fn write_shared(&mut self, offset: u64, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let bytes = bytes_of(data)?;
        self.stepper()?
            .write_shared(offset, &bytes)
            .map_err(state_error)
    }

    /// End the launch and return its `Run`, as `warpkit.launch` would (raising `Trap`,
    /// `Deadlock` or `LimitExceeded` unless `check=False`). With `run=True` (the default)
    /// every remaining instruction runs first; with `run=False` the run stops here and
    /// is reported as interrupted if it had not finished. The simulator is closed after.
    #[pyo3(signature = (*, run = true, check = true))]
    fn finish(&mut self, py: Python<'_>, run: bool, check: bool) -> PyResult<super::Run> {
        if run {
            let s = self.stepper()?;
            let flag = s.interrupter();
            detached(py, &flag, || s.run_to_end())?;
        }
        let s = self.stepper.take().expect("checked by stepper()");
        let result = py.detach(|| s.finish());
        let run = to_run(
            py,
            result,
            std::mem::take(&mut self.shapes),
            self.max_steps,
            &self.lines,
        )?;
        if check {
            raise_failure(py, run, false)
        } else {
            Ok(run)
        }
    }

    fn __repr__(&self) -> String {
        match &self.stepper {
            Some(s) => format!(
                "<warpkit.Simulator {}: {} instructions executed>",
                self.status(),
                s.executed()
            ),
            None => "<warpkit.Simulator closed>".into(),
        }
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulator>()?;
    m.add_class::<Commit>()?;
    m.add_class::<VWrite>()?;
    m.add_class::<MemAccess>()?;
    m.add_class::<LaneAccess>()?;
    m.add_class::<Retired>()?;
    Ok(())
}
