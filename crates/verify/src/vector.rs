//! Conformance vectors (docs/conformance.md): one JSON file holding a program's bytes, its
//! launch, the architectural state before the run and the state expected after it. The
//! model runs a vector through the same workgroup machinery as `warpkit run`, starting
//! every warp from the vector's pre-state instead of the ABI's initial registers.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use warpkit_isa::{csr_by_name, CSRS};
use warpkit_sim::launch::{self, Arg, ArgValue, LaunchConfig, ARGS_BASE, CODE_BASE};
use warpkit_sim::memory::{GlobalMemory, ScratchMemory, SharedMemory};
use warpkit_sim::{
    status_name, Core, Engine, MemEnv, NoHooks, Program, Warp, WarpStatus, Workgroup, LANES,
    NUM_UREGS, NUM_VREGS,
};

/// The `schema` every vector names.
pub const SCHEMA: &str = "warpkit-conformance-vector";
/// The format's version; a vector of another version is refused.
pub const VERSION: u32 = 1;
/// CSRs a pre-state cannot set: the counters start at 0 in every run (docs/abi.md).
const COUNTERS: [&str; 4] = ["clock", "clockh", "time", "timeh"];

/// One conformance vector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vector {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// A name unique in its suite (the file name without `.json`).
    pub name: String,
    /// The mnemonic of the instruction variant it tests, if it tests one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The suite group of that variant (`group1`, `system`, `float`, `memory`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// What each warp of the pre-state exercises, one line per warp (informative).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cases: Vec<String>,
    /// The program's bytes.
    pub program: ProgramBytes,
    /// The launch shape.
    pub launch: Launch,
    /// The state before the run.
    pub pre: State,
    /// The state expected after the run.
    pub post: State,
}

/// A program as raw bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramBytes {
    /// Code, mapped read-only at `CODE_BASE` (PC 0 is its first byte); hex.
    #[serde(with = "hex")]
    pub code: Vec<u8>,
    /// `.data`, mapped read-write right after the code, at `CODE_BASE` plus the code size
    /// rounded up to 16; hex, empty for none.
    #[serde(default, with = "hex", skip_serializing_if = "Vec::is_empty")]
    pub data: Vec<u8>,
}

/// How the program is launched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Launch {
    /// Workgroups in x, y, z.
    pub grid: [u32; 3],
    /// Threads per workgroup in x, y, z.
    pub block: [u32; 3],
    /// Bytes of shared memory per workgroup.
    pub shared: u32,
    /// Bytes of scratch memory per lane.
    #[serde(default)]
    pub scratch: u32,
    /// Instructions each warp may attempt.
    pub max_steps: u64,
}

impl Default for Launch {
    fn default() -> Launch {
        Launch {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared: 4096,
            scratch: 0,
            max_steps: 10_000,
        }
    }
}

impl Launch {
    fn workgroups(&self) -> u64 {
        self.grid.iter().map(|&d| u64::from(d)).product()
    }

    fn warps_per_group(&self) -> u64 {
        self.block
            .iter()
            .map(|&d| u64::from(d))
            .product::<u64>()
            .div_ceil(32)
    }

    fn config(&self) -> LaunchConfig {
        LaunchConfig {
            grid: self.grid,
            block: self.block,
            shared_bytes: self.shared,
            scratch_bytes: self.scratch,
            threads: 1,
            max_steps: self.max_steps,
            keep_warps: true,
            ..LaunchConfig::default()
        }
    }
}

/// The architectural state of a launch: every warp, and memory regions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// One entry per warp, workgroups in flat order, then warps in order.
    pub warps: Vec<WarpState>,
    /// Memory regions: in a pre-state, mapped with these contents; in a post-state, their
    /// contents after the run.
    #[serde(default)]
    pub memory: Vec<Region>,
}

/// One warp's registers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WarpState {
    /// Its workgroup's coordinates.
    pub workgroup: [u32; 3],
    /// Its index in the workgroup.
    pub warp: u32,
    /// PC, an offset from `CODE_BASE`.
    pub pc: u32,
    /// EXEC.
    pub exec: u32,
    /// `u0`..`u63`.
    pub u: Vec<u32>,
    /// `v0`..`v127`, each 32 lanes.
    pub v: Vec<Vec<u32>>,
    /// CSRs by name (`exec` is the field above and may be left out).
    pub csr: BTreeMap<String, u32>,
    /// How the warp stopped (post-states only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// The trap that stopped it, if one did.
    #[serde(default)]
    pub trap: Option<TrapState>,
}

impl WarpState {
    /// Warp `warp` of workgroup `workgroup` with every register and CSR zero.
    pub fn zero(workgroup: [u32; 3], warp: u32, exec: u32) -> WarpState {
        WarpState {
            workgroup,
            warp,
            pc: 0,
            exec,
            u: vec![0; NUM_UREGS],
            v: vec![vec![0; LANES]; NUM_VREGS],
            csr: CSRS
                .iter()
                .filter(|c| c.name != "exec")
                .map(|c| (c.name.to_string(), 0))
                .collect(),
            status: None,
            trap: None,
        }
    }

    fn of(w: &Warp, core: &Core) -> WarpState {
        WarpState {
            workgroup: w.id.workgroup,
            warp: w.id.warp,
            pc: w.pc,
            exec: w.exec(),
            u: w.u.to_vec(),
            v: w.v.iter().map(|r| r.to_vec()).collect(),
            csr: CSRS
                .iter()
                .filter(|c| c.name != "exec")
                .map(|c| {
                    let value = w.csr_read(u32::from(c.number), core).unwrap_or(0);
                    (c.name.to_string(), value)
                })
                .collect(),
            status: Some(match status_name(w.status, true) {
                "ended" => Status::Ended,
                "trapped" => Status::Trapped,
                "step_limit" => Status::StepLimit,
                _ => Status::Deadlocked,
            }),
            trap: match w.status {
                WarpStatus::Trapped(t) => Some(TrapState {
                    cause: t.cause,
                    pc: t.pc,
                    info: t.info,
                }),
                _ => None,
            },
        }
    }
}

/// How a warp stopped (docs/abi.md, "State dumps").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// `endpgm`.
    Ended,
    /// A trap with `trapbase` 0.
    Trapped,
    /// The step limit.
    StepLimit,
    /// Left at a barrier a stopped sibling never reached.
    Deadlocked,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Ended => "ended",
            Status::Trapped => "trapped",
            Status::StepLimit => "step_limit",
            Status::Deadlocked => "deadlocked",
        })
    }
}

/// A trap that stopped a warp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrapState {
    /// The cause (docs/abi.md, "Trap causes").
    pub cause: u32,
    /// The trapping instruction's PC.
    pub pc: u32,
    /// `trapinfo`.
    pub info: u32,
}

/// Which memory a region is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Space {
    /// Global memory: 64-bit addresses.
    Global,
    /// The workgroup's shared memory: byte offsets.
    Shared,
}

/// A run of bytes of memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    /// Global or shared.
    pub space: Space,
    /// Its first byte's address (global) or offset (shared).
    pub address: u64,
    /// The contents; hex.
    #[serde(with = "hex")]
    pub bytes: Vec<u8>,
}

/// A vector that cannot be read or run.
#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Not JSON, or not a vector's shape.
    #[error("{path}:{line}:{column}: {message}")]
    Json {
        /// The file (or `<vector>`).
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Well-formed JSON whose content is inconsistent; `at` is the JSON path.
    #[error("{path}: {at}: {message}")]
    Invalid {
        /// The file (or `<vector>`).
        path: String,
        /// Where in the vector (`pre.warps[2].v[5]`).
        at: String,
        /// What is wrong.
        message: String,
    },
    /// The model refused the program or launch.
    #[error("{path}: the launch is refused: {message}")]
    Launch {
        /// The file (or `<vector>`).
        path: String,
        /// The model's reason.
        message: String,
    },
}

fn invalid(at: impl Into<String>, message: impl Into<String>) -> VectorError {
    VectorError::Invalid {
        path: "<vector>".into(),
        at: at.into(),
        message: message.into(),
    }
}

impl VectorError {
    /// The same error naming `path` as the file.
    pub fn in_file(self, file: &str) -> VectorError {
        match self {
            VectorError::Json {
                line,
                column,
                message,
                ..
            } => VectorError::Json {
                path: file.into(),
                line,
                column,
                message,
            },
            VectorError::Invalid { at, message, .. } => VectorError::Invalid {
                path: file.into(),
                at,
                message,
            },
            VectorError::Launch { message, .. } => VectorError::Launch {
                path: file.into(),
                message,
            },
            e => e,
        }
    }
}

fn json_error(e: serde_json::Error) -> VectorError {
    VectorError::Json {
        path: "<vector>".into(),
        line: e.line(),
        column: e.column(),
        message: json_message(&e),
    }
}

/// serde_json's message without the position it appends (the error carries it).
pub(crate) fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_string()
}

impl Vector {
    /// Parse and check a vector's JSON text.
    pub fn parse(text: &str) -> Result<Vector, VectorError> {
        let v: Vector = serde_json::from_str(text).map_err(json_error)?;
        v.validate()?;
        Ok(v)
    }

    /// Read, parse and check the vector in `path`; errors name the file.
    pub fn load(path: &Path) -> Result<Vector, VectorError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| VectorError::Io {
            path: name.clone(),
            source,
        })?;
        Vector::parse(&text).map_err(|e| e.in_file(&name))
    }

    /// The vector as pretty JSON (the bytes `warpkit conformance export` writes).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string(self).expect("a vector always serialises");
        s.push('\n');
        s
    }

    /// Check everything the JSON shape cannot: schema, version, register counts, CSR names,
    /// one pre-state warp per warp of the launch in order, memory regions.
    pub fn validate(&self) -> Result<(), VectorError> {
        self.validate_input()?;
        self.check_state("post", &self.post, true)
    }

    /// Check what a run needs: schema, version, launch and pre-state.
    pub fn validate_input(&self) -> Result<(), VectorError> {
        if self.schema != SCHEMA {
            return Err(invalid(
                "schema",
                format!("`{}`, expected `{SCHEMA}`", self.schema),
            ));
        }
        if self.version != VERSION {
            return Err(invalid(
                "version",
                format!("{}, this warpkit reads version {VERSION}", self.version),
            ));
        }
        let l = &self.launch;
        if l.grid.contains(&0) || l.block.contains(&0) {
            return Err(invalid("launch", "a zero grid or block dimension"));
        }
        let threads: u64 = l.block.iter().map(|&d| u64::from(d)).product();
        if threads > launch::MAX_BLOCK_THREADS {
            return Err(invalid(
                "launch.block",
                format!("{threads} threads, at most 1024"),
            ));
        }
        if l.workgroups() > 4096 {
            return Err(invalid(
                "launch.grid",
                format!("{} workgroups, a vector holds at most 4096", l.workgroups()),
            ));
        }
        if l.max_steps > warpkit_sim::DEFAULT_MAX_STEPS {
            return Err(invalid(
                "launch.max_steps",
                format!(
                    "{}, at most {} (a vector must end)",
                    l.max_steps,
                    warpkit_sim::DEFAULT_MAX_STEPS
                ),
            ));
        }
        if l.shared > launch::MAX_SHARED_BYTES {
            return Err(invalid("launch.shared", "more than 16 MiB"));
        }
        if l.scratch > launch::MAX_SCRATCH_BYTES || !l.scratch.is_multiple_of(4) {
            return Err(invalid(
                "launch.scratch",
                "not a multiple of 4 of at most 1 MiB",
            ));
        }
        self.check_state("pre", &self.pre, false)
    }

    fn check_state(&self, name: &str, s: &State, post: bool) -> Result<(), VectorError> {
        let l = &self.launch;
        let per = l.warps_per_group();
        let expected = l.workgroups() * per;
        if s.warps.len() as u64 != expected {
            return Err(invalid(
                format!("{name}.warps"),
                format!(
                    "{} warps, the launch has {expected} ({} workgroups of {per})",
                    s.warps.len(),
                    l.workgroups()
                ),
            ));
        }
        for (k, w) in s.warps.iter().enumerate() {
            let at = format!("{name}.warps[{k}]");
            let flat = (k as u64 / per) as u32;
            let [gx, gy, _] = l.grid;
            let wg = [flat % gx, (flat / gx) % gy, flat / gx / gy];
            if w.workgroup != wg || u64::from(w.warp) != k as u64 % per {
                return Err(invalid(
                    at,
                    format!(
                        "is warp {} of workgroup {:?}; expected warp {} of workgroup {wg:?} here",
                        w.warp,
                        w.workgroup,
                        k as u64 % per
                    ),
                ));
            }
            if w.u.len() != NUM_UREGS {
                return Err(invalid(
                    format!("{at}.u"),
                    format!("{} registers, expected {NUM_UREGS}", w.u.len()),
                ));
            }
            if w.v.len() != NUM_VREGS {
                return Err(invalid(
                    format!("{at}.v"),
                    format!("{} registers, expected {NUM_VREGS}", w.v.len()),
                ));
            }
            for (r, row) in w.v.iter().enumerate() {
                if row.len() != LANES {
                    return Err(invalid(
                        format!("{at}.v[{r}]"),
                        format!("{} lanes, expected {LANES}", row.len()),
                    ));
                }
            }
            for (c, &value) in &w.csr {
                if csr_by_name(c).is_none() {
                    return Err(invalid(format!("{at}.csr.{c}"), "no such CSR"));
                }
                if !post && value != 0 && COUNTERS.contains(&c.as_str()) {
                    return Err(invalid(
                        format!("{at}.csr.{c}"),
                        "the counters start at 0 in every run",
                    ));
                }
            }
            if !post && (w.status.is_some() || w.trap.is_some()) {
                return Err(invalid(at, "a pre-state warp has no status or trap"));
            }
            if post && w.status.is_none() {
                return Err(invalid(at, "a post-state warp needs its status"));
            }
        }
        for (k, r) in s.memory.iter().enumerate() {
            let at = format!("{name}.memory[{k}]");
            if r.space == Space::Shared {
                if l.workgroups() != 1 {
                    return Err(invalid(
                        at,
                        "shared-memory regions need a launch of one workgroup",
                    ));
                }
                if r.address.saturating_add(r.bytes.len() as u64) > u64::from(l.shared) {
                    return Err(invalid(at, "past the end of shared memory"));
                }
            } else if r.address.checked_add(r.bytes.len() as u64).is_none() {
                return Err(invalid(at, "wraps around the address space"));
            }
        }
        Ok(())
    }

    /// A vector for `program` launched as `launch` with `args` (docs/abi.md): every warp
    /// starts with the ABI's initial registers at `entry`, the argument block and the
    /// buffers are its memory regions, and the post-state is what the model computes
    /// (interpreter). `warpkit shrink` builds its vectors so.
    pub fn from_program(
        name: &str,
        program: &Program,
        launch: &Launch,
        entry: u32,
        args: Vec<Arg>,
    ) -> Result<Vector, VectorError> {
        let mut p = program.clone();
        p.set_engine(Engine::Interp);
        let mut cfg = launch.config();
        cfg.max_steps = 0;
        cfg.entry = entry;
        let initial = launch::launch(&p, &cfg, args.clone()).map_err(|e| VectorError::Launch {
            path: "<vector>".into(),
            message: e.to_string(),
        })?;
        let core = Core::default();
        let warps = initial
            .warps
            .iter()
            .map(|w| {
                let mut s = WarpState::of(w, &core);
                s.pc = entry;
                s.status = None;
                s.trap = None;
                s
            })
            .collect();
        let mut memory = Vec::new();
        let mut block = Vec::new();
        let mut buffers = initial.buffers.iter();
        for a in &args {
            match &a.value {
                ArgValue::Int(v) => block.extend_from_slice(&v.to_le_bytes()),
                _ => {
                    let b = buffers.next().expect("one buffer per buffer argument");
                    block.extend_from_slice(&b.address.to_le_bytes());
                    let bytes = match &b.words {
                        Some(w) => w
                            .words
                            .iter()
                            .flat_map(|x| x.to_le_bytes())
                            .take(w.len as usize)
                            .collect(),
                        None => b.bytes.clone(),
                    };
                    memory.push(Region {
                        space: Space::Global,
                        address: b.address,
                        bytes,
                    });
                }
            }
        }
        if !block.is_empty() {
            memory.insert(
                0,
                Region {
                    space: Space::Global,
                    address: ARGS_BASE,
                    bytes: block,
                },
            );
        }
        let mut v = Vector {
            schema: SCHEMA.into(),
            version: VERSION,
            name: name.into(),
            variant: None,
            group: None,
            cases: Vec::new(),
            program: ProgramBytes {
                code: program.text().to_vec(),
                data: program.data().to_vec(),
            },
            launch: launch.clone(),
            pre: State {
                warps,
                memory: memory.clone(),
            },
            post: State::default(),
        };
        v.post = run(&v, Engine::Interp)?;
        Ok(v)
    }

    /// The regions a run reports: the expected post-state's, or else the pre-state's and
    /// the program's `.data`.
    fn reported_regions(&self) -> Vec<(Space, u64, usize)> {
        if !self.post.memory.is_empty() {
            return self
                .post
                .memory
                .iter()
                .map(|r| (r.space, r.address, r.bytes.len()))
                .collect();
        }
        let mut out: Vec<_> = self
            .pre
            .memory
            .iter()
            .map(|r| (r.space, r.address, r.bytes.len()))
            .collect();
        if !self.program.data.is_empty() {
            out.push((
                Space::Global,
                CODE_BASE + self.data_address_offset(),
                self.program.data.len(),
            ));
        }
        out
    }

    fn data_address_offset(&self) -> u64 {
        warpkit_isa::data_offset(self.program.code.len() as u64)
    }
}

/// Run `vector` on the model with `engine`: workgroups one after another in flat order,
/// each warp starting from its pre-state; the post-state reports every warp and the
/// regions of the vector's expected post-state (or, when it has none, of its pre-state).
pub fn run(vector: &Vector, engine: Engine) -> Result<State, VectorError> {
    vector.validate_input()?;
    let l = &vector.launch;
    let mut program = if vector.program.data.is_empty() {
        Program::new(vector.program.code.clone())
    } else {
        Program::with_data(vector.program.code.clone(), vector.program.data.clone())
    };
    program.set_engine(engine);
    let mut global = GlobalMemory::default();
    if !global.map_read_only(CODE_BASE, &vector.program.code) {
        return Err(invalid("program.code", "cannot be mapped"));
    }
    if !vector.program.data.is_empty()
        && !global.map(
            CODE_BASE + vector.data_address_offset(),
            &vector.program.data,
        )
    {
        return Err(invalid("program.data", "cannot be mapped"));
    }
    for (k, r) in vector.pre.memory.iter().enumerate() {
        if r.space == Space::Global && !r.bytes.is_empty() && !global.map(r.address, &r.bytes) {
            return Err(invalid(
                format!("pre.memory[{k}]"),
                "overlaps the code, `.data` or another region",
            ));
        }
    }
    let per = l.warps_per_group() as usize;
    let mut warps = Vec::with_capacity(vector.pre.warps.len());
    let mut shared_after = None;
    for (flat, pre) in vector.pre.warps.chunks(per).enumerate() {
        let execs: Vec<u32> = pre.iter().map(|w| w.exec).collect();
        let mut group = Workgroup::new(pre[0].workgroup, &execs);
        for (w, s) in group.warps.iter_mut().zip(pre) {
            w.pc = s.pc;
            for (r, row) in s.v.iter().enumerate() {
                w.v[r].copy_from_slice(row);
            }
            w.u[0..NUM_UREGS].copy_from_slice(&s.u);
            for (name, &value) in &s.csr {
                let def = csr_by_name(name).expect("validated");
                if name != "exec" && !COUNTERS.contains(&name.as_str()) {
                    w.csr.set(u32::from(def.number), value);
                }
            }
        }
        let mut shared = SharedMemory::new(l.shared);
        for r in &vector.pre.memory {
            if r.space == Space::Shared && !shared.write_bytes(r.address, &r.bytes) {
                return Err(invalid("pre.memory", "a shared region does not fit"));
            }
        }
        let scratch = ScratchMemory::new(flat as u64, per as u32, l.scratch);
        let mut core = Core::default();
        {
            let mut env = MemEnv::new(&global, &mut shared).with_scratch(&scratch);
            group.run(&program, &mut core, &mut env, &mut NoHooks, l.max_steps);
        }
        warps.extend(group.warps.iter().map(|w| WarpState::of(w, &core)));
        shared_after = Some(shared);
    }
    let mut memory = Vec::new();
    for (space, address, len) in vector.reported_regions() {
        let bytes = (0..len as u64)
            .map(|i| {
                let a = address.wrapping_add(i);
                match space {
                    Space::Global => {
                        let mut out = [0u32; 1];
                        global
                            .read_shared(a, 1, &mut out)
                            .map_or(0, |_| out[0] as u8)
                    }
                    Space::Shared => shared_after
                        .as_ref()
                        .and_then(|s| s.word(a / 4))
                        .map_or(0, |w| (w >> (8 * (a % 4))) as u8),
                }
            })
            .collect();
        memory.push(Region {
            space,
            address,
            bytes,
        });
    }
    Ok(State { warps, memory })
}

/// One difference between an expected and an actual state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    /// What differs: `warp 2 of workgroup (0,0,0): v8 lane 5`, `global memory 0x100000004`.
    pub location: String,
    /// The expected value, as text (hex for numbers).
    pub expected: String,
    /// The actual value.
    pub actual: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: expected {}, actual {}",
            self.location, self.expected, self.actual
        )
    }
}

fn hex32(x: u32) -> String {
    format!("{x:#x}")
}

fn trap_text(t: &Option<TrapState>) -> String {
    match t {
        None => "none".into(),
        Some(t) => format!("cause {} at pc {:#x} info {:#x}", t.cause, t.pc, t.info),
    }
}

/// Every difference between `expected` and `actual`: per warp its status, trap, PC, EXEC,
/// each uniform register, each lane of each vector register and each CSR the expected
/// state names; then each byte of each expected memory region. Empty when they agree.
pub fn compare(expected: &State, actual: &State) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let mut push = |location: String, e: String, a: String| {
        out.push(Mismatch {
            location,
            expected: e,
            actual: a,
        })
    };
    if expected.warps.len() != actual.warps.len() {
        push(
            "number of warps".into(),
            expected.warps.len().to_string(),
            actual.warps.len().to_string(),
        );
    }
    for (e, a) in expected.warps.iter().zip(&actual.warps) {
        let [x, y, z] = e.workgroup;
        let at = format!("warp {} of workgroup ({x},{y},{z})", e.warp);
        if (e.workgroup, e.warp) != (a.workgroup, a.warp) {
            push(
                format!("{at}: identity"),
                format!("warp {} of {:?}", e.warp, e.workgroup),
                format!("warp {} of {:?}", a.warp, a.workgroup),
            );
            continue;
        }
        if e.status != a.status {
            let s = |s: &Option<Status>| s.map_or("none".into(), |s| s.to_string());
            push(format!("{at}: status"), s(&e.status), s(&a.status));
        }
        if e.trap != a.trap {
            push(
                format!("{at}: trap"),
                trap_text(&e.trap),
                trap_text(&a.trap),
            );
        }
        if e.pc != a.pc {
            push(format!("{at}: pc"), hex32(e.pc), hex32(a.pc));
        }
        if e.exec != a.exec {
            push(format!("{at}: exec"), hex32(e.exec), hex32(a.exec));
        }
        for (r, x) in e.u.iter().enumerate() {
            match a.u.get(r) {
                Some(y) if y == x => {}
                y => push(
                    format!("{at}: u{r}"),
                    hex32(*x),
                    y.map_or("missing".into(), |y| hex32(*y)),
                ),
            }
        }
        for (r, row) in e.v.iter().enumerate() {
            for (lane, x) in row.iter().enumerate() {
                match a.v.get(r).and_then(|row| row.get(lane)) {
                    Some(y) if y == x => {}
                    y => push(
                        format!("{at}: v{r} lane {lane}"),
                        hex32(*x),
                        y.map_or("missing".into(), |y| hex32(*y)),
                    ),
                }
            }
        }
        for (name, x) in &e.csr {
            match a.csr.get(name) {
                Some(y) if y == x => {}
                y => push(
                    format!("{at}: csr {name}"),
                    hex32(*x),
                    y.map_or("missing".into(), |y| hex32(*y)),
                ),
            }
        }
    }
    for r in &expected.memory {
        let space = match r.space {
            Space::Global => "global",
            Space::Shared => "shared",
        };
        let found = actual.memory.iter().find(|m| {
            m.space == r.space && m.address <= r.address && {
                let off = (r.address - m.address) as usize;
                off + r.bytes.len() <= m.bytes.len()
            }
        });
        let Some(m) = found else {
            push(
                format!(
                    "{space} memory {:#x}..{:#x}",
                    r.address,
                    r.address + r.bytes.len() as u64
                ),
                "a region".into(),
                "none reported".into(),
            );
            continue;
        };
        let off = (r.address - m.address) as usize;
        for (i, (x, y)) in r.bytes.iter().zip(&m.bytes[off..]).enumerate() {
            if x != y {
                push(
                    format!("{space} memory {:#x}", r.address + i as u64),
                    format!("{x:#04x}"),
                    format!("{y:#04x}"),
                );
            }
        }
    }
    out
}

/// Bytes as a lowercase hex string.
mod hex {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        let mut out = String::with_capacity(bytes.len() * 2);
        for b in bytes {
            out.push_str(&format!("{b:02x}"));
        }
        s.serialize_str(&out)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        super::parse_hex(&text).map_err(D::Error::custom)
    }
}

/// Parse a hex string (whitespace allowed between bytes); the error names the offset.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<(usize, u8)> = text
        .bytes()
        .enumerate()
        .filter(|(_, b)| !b.is_ascii_whitespace())
        .collect();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits ({})", digits.len()));
    }
    digits
        .chunks(2)
        .map(|p| {
            let d = |(i, b): (usize, u8)| {
                (b as char)
                    .to_digit(16)
                    .ok_or_else(|| format!("`{}` at offset {i} is not a hex digit", b as char))
            };
            Ok((d(p[0])? * 16 + d(p[1])?) as u8)
        })
        .collect()
}
