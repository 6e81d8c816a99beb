//! Checkpoints (docs/checkpoints.md): the whole state of a [`Session`] paused between two
//! instructions, written to bytes and read back, so a run can stop and go on later with
//! the same results as a run that never stopped.
//!
//! Framing, all integers little-endian:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | [`MAGIC`] |
//! | 8 | 4 | format version ([`FORMAT_VERSION`]) |
//! | 12 | 4 | CRC-32 (IEEE) of the payload |
//! | 16 | 8 | payload length in bytes |
//! | 24 | length | payload: the state, serde-encoded with postcard 1 |
//!
//! Reading checks each in turn and then rebuilds every part of the state, checking it
//! as it goes (registers in range, counters under their limits, mappings that do not
//! overlap, workgroup counts that match the launch), so a damaged or foreign file gives
//! a [`CheckpointError`], never a panic or a state the interpreter cannot run.

use super::{
    check, Active, DeadlockReport, LaunchConfig, Layout, LimitReport, Outcome, Session, TrapReport,
    CODE_BASE,
};
use crate::memory::{
    GlobalMemory, RegionImage, ScratchImage, ScratchMemory, SharedImage, SharedMemory,
};
use crate::program::Program;
use crate::state::queue::Hazard;
use crate::state::warp::{Warp, WarpImage};
use crate::state::Core;
use crate::workgroup::{Deadlock, Workgroup};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The first 8 bytes of every checkpoint. The high first byte catches a file that went
/// through a 7-bit channel; the newline one that went through line-ending conversion.
pub const MAGIC: [u8; 8] = *b"\x89WKCKPT\n";

/// The version of the payload's layout. Any change to what is stored, or how, changes it;
/// a checkpoint of another version is refused, never misread. 2: source columns in the line
/// table, and scratch memory (the launch's bytes per lane, the running workgroup's scratch).
pub const FORMAT_VERSION: u32 = 2;

/// Bytes before the payload.
pub const HEADER_BYTES: usize = 24;

/// Why bytes are not a checkpoint this warpkit can resume.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    /// The bytes do not start with [`MAGIC`].
    #[error("not a warpkit checkpoint (it does not start with the checkpoint magic)")]
    BadMagic,
    /// The bytes end within the header, or hold less payload than the header announces;
    /// the text says how much there is.
    #[error("truncated checkpoint: {0}")]
    Truncated(String),
    /// The header names a format version other than [`FORMAT_VERSION`].
    #[error(
        "checkpoint format version {found}, but this warpkit ({}) reads only version {FORMAT_VERSION}",
        env!("CARGO_PKG_VERSION")
    )]
    Version {
        /// The version the header names.
        found: u32,
    },
    /// The payload's CRC-32 is not the one the header gives.
    #[error("corrupted checkpoint: the payload's CRC-32 is {computed:#010x}, the header says {stored:#010x}")]
    Checksum {
        /// The CRC-32 the header gives.
        stored: u32,
        /// The CRC-32 of the payload as read.
        computed: u32,
    },
    /// The framing is sound but the payload is not a state: bytes past its end, or data
    /// that does not decode; the text says which.
    #[error("corrupted checkpoint: {0}")]
    Corrupted(String),
    /// The state decodes but does not hold together (a register out of range, overlapping
    /// mappings, counts that disagree with the launch), or the program is not the
    /// checkpoint's; the text says what.
    #[error("invalid checkpoint: {0}")]
    Invalid(String),
}

/// The program's source lines as the client that loaded it recorded them (the model reads
/// no source): file names, rows of (address, file index, line, column) in code order, and
/// the end of the code they cover. Kept so a resumed run names `file:line[:column]` in its
/// reports as the uninterrupted run does.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLines {
    /// Source file names, indexed by the rows' file index.
    pub files: Vec<String>,
    /// `(code offset, file index, line, column)`, in code order; line 0 means no source
    /// line, column 0 an unknown column.
    pub rows: Vec<(u64, u32, u32, u32)>,
    /// First code offset past the code the rows cover.
    pub end: u64,
}

/// The launch configuration as stored (everything but the cancel flag).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct ConfigImage {
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    scratch_bytes: u32,
    threads: u64,
    max_steps: u64,
    keep_warps: bool,
    bare: bool,
    entry: u32,
    max_total_steps: Option<u64>,
}

/// The workgroup being run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct ActiveImage {
    flat: u64,
    id: [u32; 3],
    warps: Vec<WarpImage>,
    deadlock: Option<Deadlock>,
    budget: Option<u64>,
    shared: SharedImage,
    /// Its scratch memory's pages that are not all zero.
    scratch: ScratchImage,
    core: Core,
}

/// A workgroup that has run to its end: its reports, and its warps if they are kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct OutcomeImage {
    warps: u64,
    instructions: u64,
    steps: u64,
    lane_ops: u64,
    hazard_count: u64,
    traps: Vec<TrapReport>,
    step_limits: Vec<LimitReport>,
    deadlock: Option<DeadlockReport>,
    hazards: Vec<Hazard>,
    kept: Vec<WarpImage>,
    core: Core,
    interrupted: bool,
}

/// The payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Image {
    /// The warpkit version that wrote it (for messages; the format version decides).
    writer: String,
    text: Vec<u8>,
    data: Vec<u8>,
    lines: SourceLines,
    config: ConfigImage,
    /// Global memory: every mapping, its permission and contents.
    memory: Vec<RegionImage>,
    /// The buffer arguments: name and address.
    buffers: Vec<(String, u64)>,
    /// Which buffers were given as 32-bit words (and go back as words).
    buffers_as_words: Vec<bool>,
    /// The next workgroup to start (flat index).
    next: u64,
    active: Option<ActiveImage>,
    /// Workgroups `0..outcomes.len()` have run to their end.
    outcomes: Vec<OutcomeImage>,
    /// Host time spent running so far.
    wall_nanos: u64,
}

/// A checkpoint read back and checked: everything a [`Session`] needs to go on.
pub struct Checkpoint {
    writer: String,
    text: Vec<u8>,
    data: Vec<u8>,
    lines: SourceLines,
    config: LaunchConfig,
    layout: Layout,
    groups: u64,
    next: u64,
    active: Option<Active>,
    outcomes: Vec<Outcome>,
    wall: Duration,
}

impl std::fmt::Debug for Checkpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoint")
            .field("writer", &self.writer)
            .field("config", &self.config)
            .field("next", &self.next)
            .field("steps", &self.steps())
            .finish_non_exhaustive()
    }
}

impl Checkpoint {
    /// Read a checkpoint: framing, version, checksum, then the state, checked throughout.
    pub fn decode(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
        let payload = unframe(bytes)?;
        let image: Image = match postcard::take_from_bytes(payload) {
            Ok((image, [])) => image,
            Ok((_, rest)) => {
                return Err(CheckpointError::Corrupted(format!(
                    "{} bytes left after the state",
                    rest.len()
                )))
            }
            Err(e) => {
                return Err(CheckpointError::Corrupted(format!(
                    "the state does not decode ({e})"
                )))
            }
        };
        restore(image).map_err(CheckpointError::Invalid)
    }

    /// The program the checkpoint runs; [`Session::resume`] takes it back.
    pub fn program(&self) -> Program {
        Program::with_data(self.text.clone(), self.data.clone())
    }

    /// The launch configuration (without a cancel flag; see [`Session::set_cancel`]).
    pub fn config(&self) -> &LaunchConfig {
        &self.config
    }

    /// The program's source lines, as given to [`Session::checkpoint_with_lines`].
    pub fn lines(&self) -> &SourceLines {
        &self.lines
    }

    /// The warpkit version that wrote the checkpoint.
    pub fn writer(&self) -> &str {
        &self.writer
    }

    /// Instructions the grid had attempted when the checkpoint was taken.
    pub fn steps(&self) -> u64 {
        let warps = self.active.iter().flat_map(|a| &a.group.warps);
        self.outcomes
            .iter()
            .map(|o| o.steps)
            .chain(warps.map(|w| w.steps))
            .fold(0, u64::saturating_add)
    }

    /// The buffer arguments: name and address.
    pub fn buffers(&self) -> &[(String, u64)] {
        &self.layout.buffers
    }

    /// Workgroups run to their end, and in the grid.
    pub fn workgroups(&self) -> (u64, u64) {
        (self.outcomes.len() as u64, self.groups)
    }
}

impl<'p> Session<'p> {
    /// The state of the session, as the bytes of a checkpoint ([`Checkpoint::decode`]
    /// reads them). Taken while paused (or before the first or after the last
    /// instruction): what the hooks saw of the last instruction is not kept.
    pub fn checkpoint(&self) -> Vec<u8> {
        self.checkpoint_with_lines(&SourceLines::default())
    }

    /// As [`Session::checkpoint`], keeping the program's source lines with it.
    pub fn checkpoint_with_lines(&self, lines: &SourceLines) -> Vec<u8> {
        let c = &self.config;
        let image = Image {
            writer: env!("CARGO_PKG_VERSION").to_string(),
            text: self.program.text().to_vec(),
            data: self.program.data().to_vec(),
            lines: lines.clone(),
            config: ConfigImage {
                grid: c.grid,
                block: c.block,
                shared_bytes: c.shared_bytes,
                scratch_bytes: c.scratch_bytes,
                threads: c.threads as u64,
                max_steps: c.max_steps,
                keep_warps: c.keep_warps,
                bare: c.bare,
                entry: c.entry,
                max_total_steps: c.max_total_steps,
            },
            memory: self.layout.global.image(),
            buffers: self.layout.buffers.clone(),
            buffers_as_words: self.layout.as_words.clone(),
            next: self.next,
            active: self.active.as_ref().map(|a| ActiveImage {
                flat: a.flat,
                id: a.group.id,
                warps: a.group.warps.iter().map(Warp::image).collect(),
                deadlock: a.group.deadlock.clone(),
                budget: a.group.budget,
                shared: a.shared.image(),
                scratch: a.scratch.image(),
                core: a.core.clone(),
            }),
            outcomes: self
                .outcomes
                .iter()
                .map(|o| OutcomeImage {
                    warps: o.warps,
                    instructions: o.instructions,
                    steps: o.steps,
                    lane_ops: o.lane_ops,
                    hazard_count: o.hazard_count,
                    traps: o.traps.clone(),
                    step_limits: o.step_limits.clone(),
                    deadlock: o.deadlock.clone(),
                    hazards: o.hazards.clone(),
                    kept: o.kept.iter().map(Warp::image).collect(),
                    core: o.core.clone(),
                    interrupted: o.interrupted,
                })
                .collect(),
            wall_nanos: u64::try_from(self.wall.as_nanos()).unwrap_or(u64::MAX),
        };
        // Serialising to memory fails only for types serde cannot describe; these are
        // plain data, so an empty payload here would be a bug, caught by every test that
        // reads a checkpoint back.
        let payload = postcard::to_allocvec(&image).unwrap_or_default();
        frame(&payload)
    }

    /// The session `checkpoint` was taken from, paused where it was, running `program`,
    /// which must be the checkpoint's own ([`Checkpoint::program`]). The configuration's
    /// host threads and cancel flag can then be set again.
    pub fn resume(
        program: &'p Program,
        checkpoint: Checkpoint,
    ) -> Result<Session<'p>, CheckpointError> {
        if program.text() != checkpoint.text.as_slice()
            || program.data() != checkpoint.data.as_slice()
        {
            return Err(CheckpointError::Invalid(
                "the program is not the one the checkpoint runs".into(),
            ));
        }
        Ok(Session {
            program,
            config: checkpoint.config,
            layout: checkpoint.layout,
            groups: checkpoint.groups,
            next: checkpoint.next,
            active: checkpoint.active,
            outcomes: checkpoint.outcomes,
            pool: Vec::new(),
            wall: checkpoint.wall,
            pause_at_end: false,
            held: false,
        })
    }
}

/// Header and payload.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of a framed checkpoint, once magic, version, length and checksum agree.
fn unframe(bytes: &[u8]) -> Result<&[u8], CheckpointError> {
    let magic = &bytes[..bytes.len().min(MAGIC.len())];
    if magic != &MAGIC[..magic.len()] {
        return Err(CheckpointError::BadMagic);
    }
    if bytes.len() < HEADER_BYTES {
        return Err(CheckpointError::Truncated(format!(
            "{} bytes, fewer than the {HEADER_BYTES}-byte header",
            bytes.len()
        )));
    }
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let version = word(8);
    if version != FORMAT_VERSION {
        return Err(CheckpointError::Version { found: version });
    }
    let stored = word(12);
    let len = u64::from(word(16)) | (u64::from(word(20)) << 32);
    let have = (bytes.len() - HEADER_BYTES) as u64;
    if have < len {
        return Err(CheckpointError::Truncated(format!(
            "the header announces {len} bytes of state, the file holds {have}"
        )));
    }
    if have > len {
        return Err(CheckpointError::Corrupted(format!(
            "{} bytes after the end of the state",
            have - len
        )));
    }
    let payload = &bytes[HEADER_BYTES..];
    let computed = crc32fast::hash(payload);
    if computed != stored {
        return Err(CheckpointError::Checksum { stored, computed });
    }
    Ok(payload)
}

/// Rebuild the state `image` describes, checking it.
fn restore(image: Image) -> Result<Checkpoint, String> {
    let c = image.config;
    let config = LaunchConfig {
        grid: c.grid,
        block: c.block,
        shared_bytes: c.shared_bytes,
        scratch_bytes: c.scratch_bytes,
        threads: usize::try_from(c.threads).unwrap_or(0),
        max_steps: c.max_steps,
        keep_warps: c.keep_warps,
        bare: c.bare,
        entry: c.entry,
        cancel: None,
        max_total_steps: c.max_total_steps,
    };
    let groups = check(&config).map_err(|e| format!("its launch is refused: {e}"))?;
    let global = GlobalMemory::from_image(image.memory)?;
    match global.bytes_at(CODE_BASE) {
        Some(code) if code == image.text && global.mapping_at(CODE_BASE) == Some(false) => {}
        _ => return Err("the code is not mapped, read-only, at CODE_BASE".into()),
    }
    if image.buffers_as_words.len() != image.buffers.len() {
        return Err("the buffers' forms do not match the buffers".into());
    }
    for (name, base) in &image.buffers {
        if global.mapping_at(*base) != Some(true) {
            return Err(format!("buffer `{name}` is not mapped at {base:#x}"));
        }
    }
    let started = image.outcomes.len() as u64 + u64::from(image.active.is_some());
    if image.next > groups || started != image.next {
        return Err(format!(
            "{} workgroups finished and {} running, but the next to start is {} of {groups}",
            image.outcomes.len(),
            u64::from(image.active.is_some()),
            image.next
        ));
    }
    let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
    let nwarps = threads.div_ceil(32);
    let warps = |images: Vec<WarpImage>, wg: [u32; 3]| -> Result<Vec<Warp>, String> {
        images
            .into_iter()
            .enumerate()
            .map(|(i, w)| {
                let w = Warp::from_image(w).map_err(|e| format!("warp {i} of {wg:?}: {e}"))?;
                if w.steps > config.max_steps {
                    return Err(format!("warp {i} of {wg:?} is past the step limit"));
                }
                if w.id.workgroup != wg || w.id.warp as usize != i {
                    return Err(format!("warp {i} of {wg:?} names itself {:?}", w.id));
                }
                Ok(w)
            })
            .collect()
    };
    let [gx, gy, _] = config.grid;
    let active = match image.active {
        None => None,
        Some(a) => {
            let flat = a.flat as u32;
            let id = [flat % gx, (flat / gx) % gy, flat / gx / gy];
            if a.flat.checked_add(1) != Some(image.next)
                || a.id != id
                || a.warps.len() as u64 != nwarps
            {
                return Err(format!(
                    "the running workgroup {} has {} warps (expected workgroup {} with {nwarps})",
                    a.flat,
                    a.warps.len(),
                    image.next.saturating_sub(1)
                ));
            }
            let mut group = Workgroup::new(a.id, &[]);
            group.warps = warps(a.warps, a.id)?;
            group.deadlock = a.deadlock;
            group.budget = a.budget;
            Some(Active {
                flat: a.flat,
                group,
                shared: SharedMemory::from_image(a.shared, config.shared_bytes)?,
                scratch: ScratchMemory::from_image(
                    a.scratch,
                    a.flat,
                    nwarps as u32,
                    config.scratch_bytes,
                )?,
                core: a.core,
            })
        }
    };
    let mut outcomes = Vec::with_capacity(image.outcomes.len());
    for (flat, o) in image.outcomes.into_iter().enumerate() {
        let expected = if config.keep_warps { nwarps } else { 0 };
        if o.kept.len() as u64 != expected {
            return Err(format!(
                "a finished workgroup keeps {} warps (expected {expected})",
                o.kept.len()
            ));
        }
        // Workgroups finish in flat order (start_workgroup's numbering).
        let flat = flat as u32;
        let wg = [flat % gx, (flat / gx) % gy, flat / gx / gy];
        outcomes.push(Outcome {
            warps: o.warps,
            instructions: o.instructions,
            steps: o.steps,
            lane_ops: o.lane_ops,
            hazard_count: o.hazard_count,
            // Not architectural, and not in the image: a resumed run counts its own.
            memory_fallbacks: Default::default(),
            traps: o.traps,
            step_limits: o.step_limits,
            deadlock: o.deadlock,
            hazards: o.hazards,
            kept: warps(o.kept, wg)?,
            core: o.core,
            interrupted: o.interrupted,
        });
    }
    Ok(Checkpoint {
        writer: image.writer,
        text: image.text,
        data: image.data,
        lines: image.lines,
        config,
        layout: Layout {
            global,
            buffers: image.buffers,
            as_words: image.buffers_as_words,
        },
        groups,
        next: image.next,
        active,
        outcomes,
        wall: Duration::from_nanos(image.wall_nanos),
    })
}
