//! Running microbenchmarks: assembly text in, cycles out, with a count of the launches.

use std::cell::Cell;

use warpkit_sim::launch::{Arg, ArgValue, LaunchConfig};
use warpkit_sim::Program;

use super::report::CalibrateError;
use crate::{launch_timed, Machine, TimingError, TimingOptions};

/// The shape of one launch.
#[derive(Debug, Clone)]
pub(crate) struct Shape {
    /// Workgroups.
    pub grid: u32,
    /// Warps per workgroup.
    pub warps: u32,
    /// Shared memory bytes per workgroup.
    pub shared: u32,
    /// The one buffer argument (its address is the first buffer's, `BUFFER_BASE`).
    pub buffer: Option<Vec<u8>>,
}

impl Shape {
    pub fn warps(warps: u32) -> Shape {
        Shape {
            grid: 1,
            warps,
            shared: 0,
            buffer: None,
        }
    }
    pub fn one() -> Shape {
        Shape::warps(1)
    }
    pub fn grid(mut self, grid: u32) -> Shape {
        self.grid = grid;
        self
    }
    pub fn shared(mut self, shared: u32) -> Shape {
        self.shared = shared;
        self
    }
    pub fn buffer(mut self, bytes: Vec<u8>) -> Shape {
        self.buffer = Some(bytes);
        self
    }
}

/// Runs kernels on the machine under calibration and reports cycles only.
pub(crate) struct Bench<'m> {
    machine: &'m Machine,
    threads: usize,
    launches: Cell<u64>,
}

impl<'m> Bench<'m> {
    pub fn new(machine: &'m Machine, threads: usize) -> Bench<'m> {
        Bench {
            machine,
            threads,
            launches: Cell::new(0),
        }
    }

    pub fn launches(&self) -> u64 {
        self.launches.get()
    }

    fn launch(&self, src: &str, shape: &Shape) -> Result<Result<u64, TimingError>, CalibrateError> {
        let program = warpkit_asm::assemble(src, "calibrate.s")
            .map_err(|e| CalibrateError::Assemble(format!("{e}\n--- kernel ---\n{}", head(src))))?;
        let program = Program::with_data(program.text, program.data);
        let config = LaunchConfig {
            grid: [shape.grid, 1, 1],
            block: [32 * shape.warps, 1, 1],
            shared_bytes: shape.shared,
            threads: self.threads,
            ..LaunchConfig::default()
        };
        let args = shape
            .buffer
            .iter()
            .map(|b| Arg {
                name: "buf".into(),
                value: ArgValue::Buffer(b.clone()),
            })
            .collect();
        let opts = TimingOptions {
            machine: self.machine.clone(),
            kernel: "calibrate".into(),
            timeline: false,
            threads: self.threads,
        };
        self.launches.set(self.launches.get() + 1);
        match launch_timed(&program, &config, args, &opts) {
            Ok((result, report)) => {
                if let Some(t) = result.traps.first() {
                    return Err(CalibrateError::Kernel(format!(
                        "a microbenchmark trapped (cause {} at pc {:#x}: {})\n--- kernel ---\n{}",
                        t.trap.cause,
                        t.trap.pc,
                        t.asm,
                        head(src)
                    )));
                }
                if !result.step_limits.is_empty() || !result.deadlocks.is_empty() {
                    return Err(CalibrateError::Kernel(format!(
                        "a microbenchmark did not finish\n--- kernel ---\n{}",
                        head(src)
                    )));
                }
                Ok(Ok(report.cycles))
            }
            Err(e @ TimingError::DoesNotFit { .. }) => Ok(Err(e)),
            Err(e) => Err(CalibrateError::Timing(e)),
        }
    }

    /// Cycles of `src` launched as `shape`.
    pub fn cycles(&self, src: &str, shape: &Shape) -> Result<u64, CalibrateError> {
        self.launch(src, shape)?.map_err(CalibrateError::Timing)
    }

    /// Whether a workgroup of `shape` can be placed on a compute unit at all.
    pub fn fits(&self, src: &str, shape: &Shape) -> Result<bool, CalibrateError> {
        Ok(self.launch(src, shape)?.is_ok())
    }
}

fn head(src: &str) -> String {
    let lines: Vec<&str> = src.lines().take(40).collect();
    lines.join("\n")
}

/// A straight run of `n` copies of `body` (each copy given its index).
pub(crate) fn repeat(n: u64, mut body: impl FnMut(u64) -> String) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&body(i));
        s.push('\n');
    }
    s
}

/// Load the first buffer's base address (docs/abi.md: the first buffer is mapped at
/// `BUFFER_BASE`) into `u[16:17]` without a memory access, so no cache line is touched
/// before the measured accesses.
pub(crate) const BASE: &str = "umovi u16, 0\numovi u17, 1\n";

/// Run `k` pointer-chasing loads, each `waitcnt vm=0` then `gload.b32 v10, v10,
/// u[16:17], 0` (a load's result reaches its register at the `waitcnt`), 16 to a loop
/// iteration and the rest straight. The loop counter is decremented early in the
/// iteration and the branch issues right after the last load, so the loop costs nothing
/// while a load takes at least 2 cycles: each load costs its latency plus the `waitcnt`'s
/// issue cycle.
pub(crate) fn chase(k: u64) -> String {
    const STEP: &str = "waitcnt vm=0\ngload.b32 v10, v10, u[16:17], 0";
    let mut s = String::from(BASE);
    let iters = k / 16;
    if iters > 0 {
        s.push_str(&set_u("u20", iters));
        s.push_str("2:\n");
        s.push_str(STEP);
        s.push_str("\nuaddi u20, u20, -1\n");
        s.push_str(&repeat(15, |_| STEP.into()));
        s.push_str("bnz u20, 2b\n");
    }
    s.push_str(&repeat(k % 16, |_| STEP.into()));
    s.push_str("endpgm\n");
    s
}

/// Set a uniform register to a 32-bit value.
pub(crate) fn set_u(reg: &str, value: u64) -> String {
    let v = value as u32;
    if v < (1 << 16) {
        format!("umovi {reg}, {v}\n")
    } else {
        format!(
            "umovi {reg}, {}\nuslli {reg}, {reg}, 16\numovi u63, {}\nuor {reg}, {reg}, u63\n",
            v >> 16,
            v & 0xffff
        )
    }
}

/// A buffer of `count` 32-bit chase pointers: the word at byte `offsets[i]` holds
/// `offsets[(i + 1) % count]`.
pub(crate) fn chase_buffer(offsets: &[u64]) -> Vec<u8> {
    let end = offsets.iter().max().copied().unwrap_or(0) + 4;
    let mut b = vec![0u8; end as usize];
    for (i, &o) in offsets.iter().enumerate() {
        let next = offsets[(i + 1) % offsets.len()] as u32;
        b[o as usize..o as usize + 4].copy_from_slice(&next.to_le_bytes());
    }
    b
}
