//! `warpkit debug`: an interactive debugger over a launch. [`Debugger`] parses and executes
//! one command line at a time and returns its output as text, so the terminal shell
//! ([`repl`]), batch scripts and tests all drive the same code. It is a client of the host
//! library's [`Stepper`] and the simulator's hooks: the model runs the kernel, the debugger
//! only decides where it pauses and shows or changes the state there; warps, registers
//! and memory are reached through the stepper, whose typed errors are worded here.
//! Commands: docs/debugger.md.

pub mod hooks;
pub mod parse;
pub mod repl;

use crate::run_report::{step_limit_text, Shown};
use hooks::{trap_report, Breakpoint, DebugHooks, Goal, Stop, Watch};
use parse::{AddrBase, AddrExpr, Reg, Space};
use std::fmt::Write as _;
use warpkit_host::report::{
    deadlock_message_at, hazard_message_at, location_suffix, trap_message_at, warp_name,
};
use warpkit_host::{LaunchResult, StateError, Stepper};
use warpkit_sim::hooks::{MemSpace, WatchTarget};
use warpkit_sim::launch::{DeadlockReport, LimitReport, Progress, CODE_BASE};
use warpkit_sim::{CancelFlag, Warp, WarpId, WarpStatus, Writeback, LANES, NUM_COUNTERS};

/// What one command line produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    /// The command failed (bad syntax, nothing to inspect); `text` says why.
    pub error: bool,
    /// `quit` was given.
    pub quit: bool,
}

/// Every command, for `help` and completion.
pub const COMMANDS: &[(&str, &str)] = &[
    ("break", "break LABEL|FILE:LINE|LINE|0xPC [if REG OP NUMBER]: stop before that instruction"),
    ("delete", "delete [N...]: remove breakpoints and watchpoints (all without N)"),
    ("run", "run: the same as continue"),
    ("continue", "continue: run until a breakpoint, watchpoint, trap, deadlock or the end"),
    ("step", "step [N]: execute N (1) instructions of the selected warp"),
    ("next", "next: as step, but a jal/jalr call runs until it returns"),
    ("finish", "finish: run until the selected warp returns (jr) from the current call"),
    ("warp", "warp WG.W: select warp W of workgroup WG (flat index)"),
    ("info", "info warps|breakpoints|pending|hazards"),
    ("regs", "regs: pc, exec, mode and the uniform registers of the selected warp"),
    ("p", "p REG: print vN, vN[LANE], uN, u[A:B], pc, exec or a CSR (print)"),
    ("x", "x/NFU ADDR: examine memory (F: x d u; U: b h w); ADDR: number, buffer, u[N:N+1], shared:ADDR"),
    ("watch", "watch vN[LANE]|vN|uN|ADDR|shared:ADDR: stop after an instruction writes it"),
    ("disas", "disas [ADDR|LABEL] [N]: disassemble N (8) instructions with their source lines"),
    ("set", "set REG = VALUE: change vN[LANE], vN (every lane), uN, exec"),
    ("help", "help: this list"),
    ("quit", "quit: leave the debugger"),
];

/// What `info` shows.
pub const INFO_SUBJECTS: &[&str] = &["warps", "breakpoints", "pending", "hazards"];

/// Instructions `disas` shows by default.
const DISAS_LINES: u64 = 8;
/// `step N` at most.
const MAX_STEP: u64 = 1 << 40;

/// The debugger: a paused launch and what the user set up.
pub struct Debugger<'p> {
    /// The paused launch; `None` once it has finished.
    stepper: Option<Stepper>,
    object: &'p warpkit_asm::Program,
    /// The text of the files the kernel's source lines name, where readable.
    texts: warpkit_asm::SourceTexts,
    shown: Shown,
    breakpoints: Vec<Breakpoint>,
    watches: Vec<Watch>,
    next_id: u32,
    /// Selected warp: flat workgroup index and warp index.
    selected: (u64, u32),
    resume_from: Option<(WarpId, u64, u32)>,
    /// Warps and workgroups whose stop was already reported.
    reported: Vec<(u64, Option<u32>)>,
    /// Start of every instruction, and the calls and returns among them.
    starts: Vec<u32>,
    calls: Vec<u32>,
    returns: Vec<u32>,
    waitcnts: Vec<u32>,
    result: Option<LaunchResult>,
    cancel: Option<CancelFlag>,
}

fn fail(text: impl Into<String>) -> Reply {
    Reply {
        text: format!("error: {}\n", text.into()),
        error: true,
        quit: false,
    }
}

fn ok(text: String) -> Reply {
    Reply {
        text,
        error: false,
        quit: false,
    }
}

/// "0.1": flat workgroup and warp.
fn short(flat: u64, warp: u32) -> String {
    format!("{flat}.{warp}")
}

impl<'p> Debugger<'p> {
    /// A debugger over `stepper`, paused before the first instruction of workgroup 0.
    /// `object` gives labels and source lines, `source` the assembly text and its name
    /// (other files the lines name are read when shown).
    pub fn new(
        mut stepper: Stepper,
        object: &'p warpkit_asm::Program,
        source: Option<(String, String)>,
        shown: Shown,
    ) -> Debugger<'p> {
        stepper.pause_at_workgroup_end(true);
        stepper.ensure_started();
        let cancel = stepper.config().cancel.clone();
        let prog = stepper.program();
        let (mut starts, mut calls, mut returns, mut waitcnts) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut pc = 0u32;
        while (pc as usize) < prog.text().len() {
            starts.push(pc);
            let (_, len) = prog.encoding(pc);
            match prog.disassemble(pc).split_whitespace().next() {
                Some("jal" | "jalr") => calls.push(pc),
                Some("jr") => returns.push(pc),
                Some("waitcnt") => waitcnts.push(pc),
                _ => {}
            }
            pc += len.max(4) as u32;
        }
        let known: Vec<(&str, &str)> = source
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str()))
            .collect();
        let texts = warpkit_asm::SourceTexts::load(&object.lines, &known);
        Debugger {
            stepper: Some(stepper),
            object,
            texts,
            shown,
            breakpoints: Vec::new(),
            watches: Vec::new(),
            next_id: 1,
            selected: (0, 0),
            resume_from: None,
            reported: Vec::new(),
            starts,
            calls,
            returns,
            waitcnts,
            result: None,
            cancel,
        }
    }

    /// Operands a command could complete to: registers, CSRs, labels, buffers.
    pub fn completions(&self) -> Vec<String> {
        let mut w: Vec<String> = ["exec", "pc"].map(String::from).to_vec();
        w.extend(warpkit_isa::CSRS.iter().map(|c| c.name.to_string()));
        w.extend((0..warpkit_sim::NUM_VREGS).map(|r| format!("v{r}")));
        w.extend((0..warpkit_sim::NUM_UREGS).map(|r| format!("u{r}")));
        w.extend(self.object.symbols.iter().map(|s| s.name.clone()));
        if let Some(s) = &self.stepper {
            w.extend(s.buffers().iter().map(|(n, _)| n.clone()));
        }
        w.sort();
        w.dedup();
        w
    }

    /// Execute one command line.
    pub fn execute(&mut self, line: &str) -> Reply {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return ok(String::new());
        }
        let (cmd, rest) = match line.find(|c: char| c.is_whitespace() || c == '/') {
            Some(i) => (&line[..i], line[i..].trim()),
            None => (line, ""),
        };
        match cmd {
            "break" | "b" => self.break_cmd(rest),
            "delete" | "d" => self.delete(rest),
            "run" | "r" | "continue" | "c" => self.no_args(rest, |d| d.resume(Goal::Continue)),
            "step" | "s" | "si" | "stepi" => self.step(rest),
            "next" | "n" | "ni" | "nexti" => self.no_args(rest, Debugger::next),
            "finish" => self.no_args(rest, Debugger::finish),
            "warp" => self.warp_cmd(rest),
            "info" | "i" => self.info(rest),
            "regs" => self.no_args(rest, Debugger::regs),
            "p" | "print" => self.print(rest),
            "x" => self.examine(rest),
            "watch" => self.watch(rest),
            "disas" | "disassemble" => self.disas(rest),
            "set" => self.set(rest),
            "help" | "h" => {
                let mut t = String::new();
                for (_, h) in COMMANDS {
                    let _ = writeln!(t, "  {h}");
                }
                ok(t)
            }
            "quit" | "q" | "exit" => Reply {
                text: String::new(),
                error: false,
                quit: true,
            },
            _ => fail(format!("unknown command `{cmd}` (help lists the commands)")),
        }
    }

    fn no_args(&mut self, rest: &str, f: impl FnOnce(&mut Self) -> Reply) -> Reply {
        if !rest.is_empty() {
            return fail(format!("unexpected `{rest}`"));
        }
        f(self)
    }

    // ---- locations -------------------------------------------------------------------

    /// The source line that produced the instruction at `pc`.
    fn line_of(&self, pc: u32) -> Option<warpkit_asm::Location<'_>> {
        self.object.lines.lookup(u64::from(pc))
    }

    /// "k.s:12" for `pc`, if known.
    fn where_is(&self, pc: u32) -> Option<String> {
        self.line_of(pc).map(|l| l.to_string())
    }

    /// A code location: a label, LINE or FILE:LINE of the source, or a number.
    fn location(&self, text: &str) -> Result<u32, String> {
        let text = text.trim();
        let in_code = |pc: u64| {
            u32::try_from(pc)
                .ok()
                .filter(|pc| self.starts.binary_search(pc).is_ok())
                .ok_or_else(|| {
                    format!("`{text}`: {pc:#x} is not the start of an instruction of the code")
                })
        };
        let line_no = text.rsplit_once(':').map_or(text, |(_, l)| l);
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if text.starts_with("0x") || text.starts_with("0X") {
            let n = warpkit_host::number::parse_u64(text)
                .map_err(|_| format!("`{text}` is not a number"))?;
            return in_code(n);
        }
        if digits(line_no) {
            let n: u32 = line_no
                .parse()
                .map_err(|_| format!("`{text}`: bad line number"))?;
            if self.object.lines.is_empty() {
                return Err(format!(
                    "`{text}`: the kernel has no source lines (it was not assembled from \
                     source, or its ELF file has no .debug_line)"
                ));
            }
            let file = text.rsplit_once(':').map(|(f, _)| f);
            // FILE:LINE:COLUMN, as reports print a location with a column.
            if let Some((f, l)) = file.and_then(|f| f.rsplit_once(':')) {
                if digits(l) && !f.is_empty() {
                    let line: u32 = l
                        .parse()
                        .map_err(|_| format!("`{text}`: bad line number"))?;
                    return self
                        .object
                        .lines
                        .address_of_column(Some(f), line, n)
                        .map(|a| a as u32)
                        .ok_or_else(|| format!("`{text}`: no code at or after it"));
                }
            }
            // The first instruction of that line or, for a line without code, of the next.
            return self
                .object
                .lines
                .address_of_line(file, n)
                .map(|a| a as u32)
                .ok_or_else(|| format!("`{text}`: no code at or after line {n}"));
        }
        match self.object.symbol(text) {
            Some(s) if s.section == warpkit_asm::Section::Text => in_code(s.offset),
            Some(_) => Err(format!("`{text}` is a data label, not code")),
            None => Err(format!("no label `{text}` in the kernel")),
        }
    }

    // ---- breakpoints and watchpoints -------------------------------------------------

    fn break_cmd(&mut self, rest: &str) -> Reply {
        if rest.is_empty() {
            return fail("break LABEL|LINE|FILE:LINE|0xPC [if COND]");
        }
        let (loc, cond) = match rest.split_once(" if ") {
            Some((l, c)) => (l.trim(), Some(c)),
            None => (rest, None),
        };
        let pc = match self.location(loc) {
            Ok(pc) => pc,
            Err(e) => return fail(e),
        };
        let cond = match cond.map(parse::cond).transpose() {
            Ok(c) => c,
            Err(e) => return fail(e),
        };
        let id = self.next_id;
        self.next_id += 1;
        let mut t = format!("breakpoint {id} at {pc:#x}");
        if let Some(w) = self.where_is(pc) {
            let _ = write!(t, " ({w})");
        }
        if let Some(c) = &cond {
            let _ = write!(t, " if {}", c.text);
        }
        t.push('\n');
        self.breakpoints.push(Breakpoint {
            id,
            pc,
            cond,
            spec: loc.to_string(),
        });
        ok(t)
    }

    fn watch(&mut self, rest: &str) -> Reply {
        let target =
            if rest.starts_with(['v', 'u']) && !rest.contains(':') || rest.starts_with("u[") {
                match parse::reg(rest) {
                    Ok(Reg::VLane(reg, lane)) => WatchTarget::VLane { reg, lane },
                    Ok(Reg::V(r)) => WatchTarget::VReg(r),
                    Ok(Reg::U(r)) => WatchTarget::UReg(r),
                    Ok(_) => return fail("watch vN[LANE], vN, uN or an address"),
                    Err(e) => return fail(e),
                }
            } else {
                match parse::addr(rest).and_then(|a| self.resolve(&a)) {
                    Ok((space, addr)) => WatchTarget::Memory {
                        space: match space {
                            Space::Global => MemSpace::Global,
                            Space::Shared => MemSpace::Shared,
                        },
                        addr,
                        len: 4,
                    },
                    Err(e) => return fail(e),
                }
            };
        let id = self.next_id;
        self.next_id += 1;
        self.watches.push(Watch {
            id,
            target,
            spec: rest.to_string(),
        });
        ok(format!("watchpoint {id}: {rest}\n"))
    }

    fn delete(&mut self, rest: &str) -> Reply {
        if rest.is_empty() {
            let n = self.breakpoints.len() + self.watches.len();
            self.breakpoints.clear();
            self.watches.clear();
            return ok(format!("deleted {n} breakpoints and watchpoints\n"));
        }
        let mut t = String::new();
        for w in rest.split_whitespace() {
            let Ok(id) = w.parse::<u32>() else {
                return fail(format!("`{w}` is not a breakpoint number"));
            };
            let before = self.breakpoints.len() + self.watches.len();
            self.breakpoints.retain(|b| b.id != id);
            self.watches.retain(|b| b.id != id);
            if before == self.breakpoints.len() + self.watches.len() {
                return fail(format!("no breakpoint or watchpoint {id}"));
            }
            let _ = writeln!(t, "deleted {id}");
        }
        ok(t)
    }

    // ---- running ---------------------------------------------------------------------

    fn selected_id(&self) -> WarpId {
        let cfg = self.stepper.as_ref().map(|s| s.config().grid);
        let [gx, gy, _] = cfg.unwrap_or([1, 1, 1]);
        let f = self.selected.0 as u32;
        WarpId {
            workgroup: [f % gx, (f / gx) % gy, f / gx / gy],
            warp: self.selected.1,
        }
    }

    /// "WG.W" of a warp, as `warp` selects it.
    fn label(&self, id: WarpId) -> String {
        short(self.flat_of(id), id.warp)
    }

    fn flat_of(&self, id: WarpId) -> u64 {
        self.flat_of_workgroup(id.workgroup)
    }

    fn flat_of_workgroup(&self, [x, y, z]: [u32; 3]) -> u64 {
        let [gx, gy, _] = self.stepper.as_ref().map_or([1, 1, 1], |s| s.config().grid);
        u64::from(x) + u64::from(gx) * (u64::from(y) + u64::from(gy) * u64::from(z))
    }

    /// The selected warp, if its workgroup is the one loaded.
    fn warp(&self) -> Result<&Warp, String> {
        let s = self
            .stepper
            .as_ref()
            .ok_or_else(|| self.state_text(&StateError::NoWorkgroup))?;
        s.warp_by_id(self.selected_id())
            .map_err(|e| self.state_text(&e))
    }

    /// The stepper and the selected warp's index in the running workgroup, to change or
    /// read its registers through the stepper.
    fn selected_mut(&mut self) -> Result<(&mut Stepper, u32), String> {
        // The lookup's refusals in the debugger's words first; the index then holds.
        self.warp()?;
        let id = self.selected_id();
        let s = self.stepper.as_mut().ok_or("the launch has finished")?;
        let index = s.warp_index(id).map_err(|e| e.to_string())?;
        Ok((s, index))
    }

    /// A refused access to the launch's state, in the debugger's words: workgroups by flat
    /// index, as `warp WG.W` names them.
    fn state_text(&self, e: &StateError) -> String {
        let running = self.stepper.as_ref().and_then(Stepper::current_flat);
        match e {
            StateError::NoWorkgroup => {
                "the launch has finished; there is no warp state left".into()
            }
            StateError::NotCurrent { current, .. } => format!(
                "workgroup {} is not running (workgroup {} is); select one of its warps \
                 or run until it starts",
                self.selected.0,
                self.flat_of_workgroup(*current)
            ),
            StateError::NoSuchWarp { warp, .. } => format!(
                "workgroup {} has no warp {warp}",
                running.unwrap_or(self.selected.0)
            ),
            e => e.to_string(),
        }
    }

    fn step(&mut self, rest: &str) -> Reply {
        let n = if rest.is_empty() {
            1
        } else {
            match warpkit_host::number::parse_u64(rest) {
                Ok(n) if (1..=MAX_STEP).contains(&n) => n,
                _ => return fail(format!("step N: N must be a number from 1 to {MAX_STEP}")),
            }
        };
        if let Err(e) = self.steppable() {
            return fail(e);
        }
        self.resume(Goal::Step {
            warp: self.selected_id(),
            left: n,
        })
    }

    /// Whether the selected warp can execute an instruction.
    fn steppable(&self) -> Result<(), String> {
        let Some(s) = self.stepper.as_ref() else {
            return Err("the launch has finished".into());
        };
        let Some(flat) = s.current_flat() else {
            return Err("the launch has finished".into());
        };
        let deadlocked = s.deadlock().is_some();
        if self.selected.0 < flat {
            return Err(format!("workgroup {} has finished", self.selected.0));
        }
        if self.selected.0 == flat {
            let w = self.warp()?;
            if !matches!(w.status, WarpStatus::Running | WarpStatus::AtBarrier)
                || (w.status == WarpStatus::AtBarrier && deadlocked)
            {
                return Err(format!(
                    "warp {} has stopped ({}); select another with `warp WG.W`",
                    short(self.selected.0, self.selected.1),
                    status_text(w, deadlocked, self.waitcnts.binary_search(&w.pc).is_ok())
                ));
            }
        }
        Ok(())
    }

    fn next(&mut self) -> Reply {
        if let Err(e) = self.steppable() {
            return fail(e);
        }
        let warp = self.selected_id();
        let pc = self.warp().map(|w| w.pc).ok();
        match pc {
            Some(pc) if self.calls.binary_search(&pc).is_ok() => {
                let len = self
                    .stepper
                    .as_ref()
                    .map_or(4, |s| s.program().encoding(pc).1.max(4));
                self.resume(Goal::Return {
                    warp,
                    pc: pc + len as u32,
                    depth: 0,
                })
            }
            _ => self.resume(Goal::Step { warp, left: 1 }),
        }
    }

    fn finish(&mut self) -> Reply {
        if let Err(e) = self.steppable() {
            return fail(e);
        }
        self.resume(Goal::Finish {
            warp: self.selected_id(),
            depth: 0,
        })
    }

    /// Run under `goal` until something pauses it; say where and why.
    fn resume(&mut self, goal: Goal) -> Reply {
        let Some(stepper) = self.stepper.as_mut() else {
            return fail("the launch has finished; nothing more runs");
        };
        if let Some(c) = &self.cancel {
            c.as_atomic()
                .store(false, std::sync::atomic::Ordering::Relaxed);
        }
        let mut hooks = DebugHooks {
            goal,
            breakpoints: &self.breakpoints,
            watches: &self.watches,
            resume_from: self.resume_from,
            calls: &self.calls,
            returns: &self.returns,
            stop: None,
            paused_before: None,
            max_steps: stepper.config().max_steps,
        };
        let mut t = String::new();
        let progress = loop {
            let p = stepper.run_observed(&mut hooks);
            if p != Progress::Paused || hooks.stop.is_some() || !stepper.at_workgroup_end() {
                break p;
            }
            // The end of a workgroup: a pause only if something went wrong there.
            let reports = end_reports(stepper, &mut self.reported, &self.shown, &self.object.lines);
            if !reports.is_empty() {
                t.push_str(&reports);
                break p;
            }
            // A stepped warp in this workgroup has ended: stop there too.
            if let Goal::Step { warp, .. } | Goal::Return { warp, .. } | Goal::Finish { warp, .. } =
                hooks.goal
            {
                if stepper
                    .current()
                    .is_some_and(|(id, _)| id == warp.workgroup)
                {
                    let flat = stepper.current_flat().unwrap_or(0);
                    let _ = writeln!(t, "warp {} has ended", short(flat, warp.warp));
                    break p;
                }
            }
        };
        let stop = hooks.stop.take();
        self.resume_from = hooks.paused_before;
        match progress {
            Progress::Paused => {}
            Progress::Finished => {
                let r = self.stepper.take().map(Stepper::finish);
                if let Some(r) = &r {
                    let s = &r.stats;
                    let _ = writeln!(
                        t,
                        "the launch finished: {} workgroups, {} warps, {} instructions, {} \
                         lane-operations, {} hazards{}",
                        s.workgroups,
                        s.warps,
                        s.instructions,
                        s.lane_ops,
                        s.hazards,
                        if r.ok() {
                            ""
                        } else {
                            " (with errors reported above)"
                        }
                    );
                }
                self.result = r;
                return ok(t);
            }
            Progress::Interrupted => {
                let _ = writeln!(t, "interrupted");
            }
        }
        t.push_str(&self.mark_step_limits());
        if let Some(stop) = stop {
            self.describe_stop(&mut t, stop);
        }
        // The pause's workgroup end, if the stop came before it.
        if let Some(s) = self.stepper.as_ref() {
            if s.at_workgroup_end() {
                t.push_str(&end_reports(
                    s,
                    &mut self.reported,
                    &self.shown,
                    &self.object.lines,
                ));
            }
        }
        if let Ok(w) = self.warp() {
            if w.status == WarpStatus::Running {
                let here = w.pc;
                t.push_str(&self.disas_lines(here, 1));
            }
        }
        ok(t)
    }

    /// Warps of the running workgroup that have executed `--max-steps` instructions are
    /// stopped at the step limit, as the run loop would stop them before their next
    /// instruction; report each once, as `warpkit run` does.
    fn mark_step_limits(&mut self) -> String {
        let mut t = String::new();
        let Some(s) = self.stepper.as_mut() else {
            return t;
        };
        let max_steps = s.config().max_steps;
        let Some(flat) = s.current_flat() else {
            return t;
        };
        let warps = s.current().map_or(0, |(_, warps)| warps.len() as u32);
        for i in 0..warps {
            let Ok(w) = s.warp_mut(i) else {
                continue;
            };
            if w.status != WarpStatus::Running || w.steps < max_steps {
                continue;
            }
            w.status = WarpStatus::StepLimit;
            if self.reported.contains(&(flat, Some(w.id.warp))) {
                continue;
            }
            self.reported.push((flat, Some(w.id.warp)));
            let l = LimitReport {
                workgroup: w.id.workgroup,
                warp: w.id.warp,
                pc: w.pc,
                steps: w.steps,
            };
            let who = warp_name(l.workgroup, l.warp);
            let _ = writeln!(
                t,
                "error: {}{}",
                step_limit_text(&who, &l, &self.shown),
                location_suffix(&self.object.lines, l.pc)
            );
        }
        t
    }

    fn describe_stop(&mut self, t: &mut String, stop: Stop) {
        let select = |d: &mut Self, id: WarpId| {
            d.selected = (d.flat_of(id), id.warp);
        };
        match stop {
            Stop::Done(w) | Stop::Limit(w) => select(self, w),
            Stop::Ended(w) => {
                select(self, w);
                let status = self
                    .warp()
                    .map(|w| status_text(w, false, false))
                    .unwrap_or_default();
                let _ = writeln!(t, "warp {} has stopped: {status}", self.label(w));
            }
            Stop::Breakpoint(id, w) => {
                select(self, w);
                let _ = writeln!(t, "breakpoint {id}, warp {}", self.label(w));
            }
            Stop::Watch { id, warp, pc } => {
                select(self, warp);
                let spec = self
                    .watches
                    .iter()
                    .find(|w| w.id == id)
                    .map(|w| (w.spec.clone(), w.target));
                if let Some((spec, target)) = spec {
                    let now = self.watched_value(target).unwrap_or_default();
                    let _ = writeln!(
                        t,
                        "watchpoint {id}: {spec} written by warp {} at pc {pc:#x} `{}`{now}{}",
                        self.label(warp),
                        self.stepper
                            .as_ref()
                            .map(|s| s.program().disassemble(pc))
                            .unwrap_or_default(),
                        location_suffix(&self.object.lines, pc)
                    );
                }
            }
            Stop::Trap(r) => {
                let flat = self.flat_of(WarpId {
                    workgroup: r.workgroup,
                    warp: r.warp,
                });
                self.selected = (flat, r.warp);
                self.reported.push((flat, Some(r.warp)));
                let _ = writeln!(t, "error: {}", trap_message_at(&r, &self.object.lines));
            }
        }
    }

    /// "; now 7" for a watched register lane or word of the selected warp.
    fn watched_value(&mut self, target: WatchTarget) -> Option<String> {
        let (s, index) = self.selected_mut().ok()?;
        Some(match target {
            WatchTarget::VLane { reg, lane } => {
                let row = s.vreg(index, reg).ok()?;
                format!("; now {:#x}", row.get(lane as usize)?)
            }
            WatchTarget::UReg(r) => format!("; now {:#x}", s.ureg(index, r).ok()?),
            WatchTarget::Memory { space, addr, .. } => {
                let s = match space {
                    MemSpace::Global => Space::Global,
                    MemSpace::Shared => Space::Shared,
                };
                format!("; now {:#010x}", self.read_word(s, addr).ok()?)
            }
            WatchTarget::VReg(_) => return None,
        })
    }

    // ---- warps -----------------------------------------------------------------------

    fn warp_cmd(&mut self, rest: &str) -> Reply {
        let parsed = rest.split_once('.').and_then(|(g, w)| {
            Some((g.trim().parse::<u64>().ok()?, w.trim().parse::<u32>().ok()?))
        });
        let Some((g, w)) = parsed else {
            return fail("warp WG.W: a flat workgroup index and a warp index, e.g. `warp 0.1`");
        };
        let Some(s) = &self.stepper else {
            return fail("the launch has finished");
        };
        let cfg = s.config();
        let warps = cfg
            .block
            .iter()
            .map(|&d| u64::from(d))
            .product::<u64>()
            .div_ceil(32);
        if g >= s.workgroups() || u64::from(w) >= warps {
            return fail(format!(
                "no warp {g}.{w}: the grid has {} workgroups of {warps} warps",
                s.workgroups()
            ));
        }
        if s.current_flat().is_some_and(|flat| g < flat) {
            return fail(format!("workgroup {g} has already finished"));
        }
        self.selected = (g, w);
        let mut t = format!("selected warp {g}.{w}\n");
        if let Ok(warp) = self.warp() {
            t.push_str(&self.disas_lines(warp.pc, 1));
        }
        ok(t)
    }

    fn info(&mut self, rest: &str) -> Reply {
        match rest {
            "warps" | "warp" => self.info_warps(),
            "breakpoints" | "break" | "watch" | "watchpoints" => {
                let mut t = String::new();
                for b in &self.breakpoints {
                    let _ = write!(t, "{:<3} breakpoint {:#x} {}", b.id, b.pc, b.spec);
                    if let Some(c) = &b.cond {
                        let _ = write!(t, " if {}", c.text);
                    }
                    t.push('\n');
                }
                for w in &self.watches {
                    let _ = writeln!(t, "{:<3} watchpoint {}", w.id, w.spec);
                }
                if t.is_empty() {
                    t = "no breakpoints or watchpoints\n".into();
                }
                ok(t)
            }
            "pending" => self.info_pending(),
            "hazards" => self.info_hazards(),
            _ => fail("info warps|breakpoints|pending|hazards"),
        }
    }

    fn info_warps(&self) -> Reply {
        let Some(s) = self.stepper.as_ref() else {
            return fail("the launch has finished");
        };
        let (Some(flat), Some(([x, y, z], warps))) = (s.current_flat(), s.current()) else {
            return fail("the launch has finished");
        };
        let deadlocked = s.deadlock().is_some();
        let mut t = format!("workgroup {flat} ({x},{y},{z}):\n");
        for (i, w) in warps.iter().enumerate() {
            let mark = if (flat, i as u32) == self.selected {
                '*'
            } else {
                ' '
            };
            let status = status_text(w, deadlocked, self.waitcnts.binary_search(&w.pc).is_ok());
            let pc = match w.status {
                WarpStatus::Trapped(t) => t.pc,
                _ => w.pc,
            };
            let _ = writeln!(
                t,
                "{mark} {:<6} {:<38} pc {:#06x}  {} steps",
                short(flat, i as u32),
                status,
                pc,
                w.steps
            );
        }
        ok(t)
    }

    fn info_pending(&self) -> Reply {
        let w = match self.warp() {
            Ok(w) => w,
            Err(e) => return fail(e),
        };
        let prog = self.stepper.as_ref().map(|s| s.program());
        let mut t = String::new();
        for c in 0..NUM_COUNTERS {
            let ops = w.pending(c);
            let name = warpkit_isa::COUNTERS.get(c).map_or("?", |d| d.name);
            let _ = writeln!(t, "{name}: {} in flight", ops.len());
            for op in ops {
                let dest = match op.writeback {
                    Writeback::None => "no register".to_string(),
                    Writeback::V {
                        first, count, mask, ..
                    } => format!("{} (lanes {mask:#010x})", reg_range('v', first, count)),
                    Writeback::U { first, count, .. } => reg_range('u', first, count),
                };
                let _ = writeln!(
                    t,
                    "  pc {:#06x} `{}` -> {dest}",
                    op.pc,
                    prog.map(|p| p.disassemble(op.pc)).unwrap_or_default()
                );
            }
        }
        ok(t)
    }

    fn info_hazards(&self) -> Reply {
        let Some(s) = self.stepper.as_ref() else {
            return fail("the launch has finished");
        };
        let (Some(flat), Some((_, warps))) = (s.current_flat(), s.current()) else {
            return fail("the launch has finished");
        };
        let mut t = String::new();
        for (i, w) in warps.iter().enumerate() {
            if w.hazard_count == 0 {
                continue;
            }
            let _ = writeln!(
                t,
                "warp {}: {} hazards ({} kept)",
                short(flat, i as u32),
                w.hazard_count,
                w.hazards.len()
            );
            for h in &w.hazards {
                let _ = writeln!(t, "  {}", hazard_message_at(h, &self.object.lines));
            }
        }
        if t.is_empty() {
            t = format!("no hazards in workgroup {flat} so far\n");
        }
        ok(t)
    }

    // ---- registers -------------------------------------------------------------------

    fn regs(&mut self) -> Reply {
        let w = match self.warp() {
            Ok(w) => w,
            Err(e) => return fail(e),
        };
        let deadlocked = self
            .stepper
            .as_ref()
            .is_some_and(|s| s.deadlock().is_some());
        let mut t = format!(
            "warp {} ({}): {}, {} steps\n",
            short(self.selected.0, self.selected.1),
            warp_name(w.id.workgroup, w.id.warp),
            status_text(w, deadlocked, self.waitcnts.binary_search(&w.pc).is_ok()),
            w.steps
        );
        let _ = writeln!(
            t,
            "pc   {:#010x}  exec {:#010x}  mode {:#010x}",
            w.pc,
            w.exec(),
            w.csr.mode()
        );
        for row in 0..warpkit_sim::NUM_UREGS / 8 {
            for r in row * 8..row * 8 + 8 {
                let _ = write!(t, "{:<4}{:#010x} ", format!("u{r}"), w.u[r]);
            }
            t.pop();
            t.push('\n');
        }
        ok(t)
    }

    fn print(&mut self, rest: &str) -> Reply {
        let reg = match parse::reg(rest) {
            Ok(r) => r,
            Err(e) => return fail(e),
        };
        let exec = match self.warp() {
            Ok(w) => w.exec(),
            Err(e) => return fail(e),
        };
        let t = match reg {
            Reg::V(r) => {
                let row = match self.vreg(r) {
                    Ok(row) => row,
                    Err(e) => return fail(e),
                };
                let mut t = format!("v{r} = {{\n");
                for l0 in (0..LANES).step_by(8) {
                    let _ = write!(t, "  [{l0:>2}]");
                    for x in &row[l0..l0 + 8] {
                        let _ = write!(t, " {x:#010x}");
                    }
                    t.push('\n');
                }
                t.push_str("}\n");
                t
            }
            Reg::VLane(r, l) => {
                let x = match self.vreg(r) {
                    Ok(row) => row[l as usize],
                    Err(e) => return fail(e),
                };
                let off = if (exec >> l) & 1 == 0 {
                    " (lane inactive)"
                } else {
                    ""
                };
                format!("v{r}[{l}] = {x:#010x} ({x}){off}\n")
            }
            Reg::U(r) => {
                let x = match self.ureg(r) {
                    Ok(x) => x,
                    Err(e) => return fail(e),
                };
                format!("u{r} = {x:#010x} ({x})\n")
            }
            Reg::URange(a, b) => {
                let mut words = Vec::new();
                for r in a..=b {
                    match self.ureg(r) {
                        Ok(x) => words.push(x),
                        Err(e) => return fail(e),
                    }
                }
                let mut t = format!("u[{a}:{b}] =");
                for x in &words {
                    let _ = write!(t, " {x:#010x}");
                }
                if let [lo, hi] = words[..] {
                    let v = u64::from(lo) | u64::from(hi) << 32;
                    let _ = write!(t, " (64-bit {v:#x})");
                }
                t.push('\n');
                t
            }
            Reg::Pc => {
                let pc = match self.warp() {
                    Ok(w) => w.pc,
                    Err(e) => return fail(e),
                };
                let mut t = format!("pc = {pc:#x}");
                if let Some(l) = self.where_is(pc) {
                    let _ = write!(t, " ({l})");
                }
                t.push('\n');
                t
            }
            Reg::Exec => format!("exec = {exec:#010x} ({} lanes active)\n", exec.count_ones()),
            Reg::Csr(name, n) => {
                let read = self.selected_mut().map(|(s, index)| s.read_csr(index, n));
                match read {
                    Ok(Ok(x)) => format!("{name} = {x:#010x} ({x})\n"),
                    _ => return fail(format!("cannot read {name}")),
                }
            }
        };
        ok(t)
    }

    /// Vector register `r` of the selected warp.
    fn vreg(&mut self, r: u32) -> Result<[u32; LANES], String> {
        let (s, index) = self.selected_mut()?;
        let row = s.vreg(index, r);
        row.map_err(|e| self.state_text(&e))
    }

    /// Uniform register `r` of the selected warp.
    fn ureg(&mut self, r: u32) -> Result<u32, String> {
        let (s, index) = self.selected_mut()?;
        let x = s.ureg(index, r);
        x.map_err(|e| self.state_text(&e))
    }

    fn set(&mut self, rest: &str) -> Reply {
        let Some((lhs, rhs)) = rest.split_once('=') else {
            return fail("set REG = VALUE");
        };
        let value = match warpkit_host::number::parse_u64(rhs.trim()) {
            Ok(v) => v,
            Err(_) => {
                // Negative numbers as two's complement.
                match rhs.trim().parse::<i64>() {
                    Ok(v) => v as u64,
                    Err(_) => return fail(format!("`{}` is not a number", rhs.trim())),
                }
            }
        };
        let reg = match parse::reg(lhs) {
            Ok(r) => r,
            Err(e) => return fail(e),
        };
        let wide = matches!(reg, Reg::URange(..));
        if !wide && value > u64::from(u32::MAX) && value < (i32::MIN as i64 as u64) {
            return fail(format!("{value:#x} does not fit 32 bits"));
        }
        let v32 = value as u32;
        let (s, index) = match self.selected_mut() {
            Ok(x) => x,
            Err(e) => return fail(e),
        };
        let done = match reg {
            Reg::VLane(r, l) => s.set_vreg_lane(index, r, l, v32),
            Reg::V(r) => (0..LANES as u32).try_for_each(|l| s.set_vreg_lane(index, r, l, v32)),
            Reg::U(r) => s.set_ureg(index, r, v32),
            Reg::URange(a, b) if b == a + 1 => s
                .set_ureg(index, a, value as u32)
                .and_then(|()| s.set_ureg(index, b, (value >> 32) as u32)),
            Reg::Exec => s.warp_mut(index).map(|w| w.set_exec(v32)),
            _ => return fail("set changes vN[LANE], vN, uN, u[N:N+1] or exec"),
        };
        if let Err(e) = done {
            return fail(self.state_text(&e));
        }
        ok(format!("{} = {value:#x}\n", lhs.trim()))
    }

    // ---- memory ----------------------------------------------------------------------

    /// The space and address an address expression names.
    fn resolve(&self, a: &AddrExpr) -> Result<(Space, u64), String> {
        let base = match &a.base {
            AddrBase::Number(n) => *n,
            AddrBase::UPair(r) => self.warp()?.u64(*r as usize),
            AddrBase::Name(n) => {
                let found = match (&self.stepper, &self.result) {
                    (Some(s), _) => s.buffers().iter().find(|(b, _)| b == n).map(|b| b.1),
                    (None, Some(r)) => r.buffers.iter().find(|b| &b.name == n).map(|b| b.address),
                    (None, None) => None,
                };
                if let Some(b) = found {
                    b
                } else if let Some(s) = self
                    .object
                    .symbol(n)
                    .filter(|s| s.section == warpkit_asm::Section::Text)
                {
                    CODE_BASE + s.offset
                } else {
                    return Err(format!("no buffer argument or code label `{n}`"));
                }
            }
        };
        let addr = base
            .checked_add(a.offset)
            .ok_or("the address overflows 64 bits")?;
        Ok((a.space, addr))
    }

    fn read_word(&mut self, space: Space, addr: u64) -> Result<u32, String> {
        let aligned = addr & !3;
        let Some(s) = self.stepper.as_mut() else {
            // After the launch, the buffers are what is left of memory.
            let r = self.result.as_ref().ok_or("the launch has finished")?;
            return r
                .buffers
                .iter()
                .filter(|_| space == Space::Global)
                .find_map(|b| {
                    let off = usize::try_from(aligned.checked_sub(b.address)?).ok()?;
                    let w = b.bytes.get(off..off.checked_add(4)?)?;
                    Some(u32::from_le_bytes(w.try_into().ok()?))
                })
                .ok_or_else(|| {
                    format!(
                        "cannot read memory at {addr:#x}: the launch has finished and only its \
                         buffers are left"
                    )
                });
        };
        let bytes = match space {
            Space::Global => s.read_memory(aligned, 4),
            Space::Shared => s.read_shared(aligned, 4),
        };
        let bytes = bytes.map_err(|e| match e {
            StateError::Unmapped { .. } => {
                format!("cannot read global memory at {addr:#x}: not mapped")
            }
            StateError::OutsideShared { size, .. } => {
                format!("cannot read shared memory at {addr:#x}: the workgroup has {size} bytes")
            }
            StateError::NoWorkgroup => "no workgroup is running".into(),
            e => e.to_string(),
        })?;
        let word: [u8; 4] = bytes[..]
            .try_into()
            .map_err(|_| format!("cannot read memory at {addr:#x}"))?;
        Ok(u32::from_le_bytes(word))
    }

    fn examine(&mut self, rest: &str) -> Reply {
        let (fmt, addr) = match rest.strip_prefix('/') {
            Some(r) => match r.split_once(char::is_whitespace) {
                Some((f, a)) => (f, a),
                None => return fail("x/NFU ADDR: the address is missing"),
            },
            None => ("", rest),
        };
        let f = match parse::format(fmt) {
            Ok(f) => f,
            Err(e) => return fail(e),
        };
        let (space, start) = match parse::addr(addr).and_then(|a| self.resolve(&a)) {
            Ok(x) => x,
            Err(e) => return fail(e),
        };
        if start % u64::from(f.size) != 0 {
            return fail(format!("{start:#x} is not aligned to {} bytes", f.size));
        }
        let per_line = if f.size == 4 { 4 } else { 8 };
        let prefix = if space == Space::Shared {
            "shared:"
        } else {
            ""
        };
        let mut t = String::new();
        for i in 0..f.count {
            let a = start + i * u64::from(f.size);
            if i % per_line == 0 {
                if i > 0 {
                    t.push('\n');
                }
                let _ = write!(t, "{prefix}{a:#x}:");
            }
            let word = match self.read_word(space, a) {
                Ok(w) => w,
                Err(e) => {
                    t.push('\n');
                    return Reply {
                        text: t + &format!("error: {e}\n"),
                        error: true,
                        quit: false,
                    };
                }
            };
            let shift = 8 * (a & 3) as u32;
            let bits = 8 * f.size;
            let raw = if bits == 32 {
                word
            } else {
                (word >> shift) & ((1u32 << bits) - 1)
            };
            let _ = match f.radix {
                'x' => write!(t, " {raw:#0w$x}", w = 2 + 2 * f.size as usize),
                'u' => write!(t, " {raw}"),
                _ => {
                    let signed = (i64::from(raw) << (64 - bits)) >> (64 - bits);
                    write!(t, " {signed}")
                }
            };
        }
        t.push('\n');
        ok(t)
    }

    // ---- code ------------------------------------------------------------------------

    fn disas(&mut self, rest: &str) -> Reply {
        let mut words = rest.split_whitespace();
        let start = match words.next() {
            Some(a) => match self.location(a) {
                Ok(pc) => pc,
                Err(e) => return fail(e),
            },
            None => match self.warp() {
                Ok(w) => w.pc,
                Err(_) => 0,
            },
        };
        let n = match words.next().map(str::parse::<u64>) {
            None => DISAS_LINES,
            Some(Ok(n)) if (1..=4096).contains(&n) => n,
            Some(_) => return fail("disas [ADDR] [N]: N from 1 to 4096"),
        };
        ok(self.disas_lines(start, n))
    }

    /// `n` instructions from `pc`, each under its source line when that changes.
    fn disas_lines(&self, pc: u32, n: u64) -> String {
        let Some(prog) = self.stepper.as_ref().map(|s| s.program()) else {
            return String::new();
        };
        let current = self.warp().ok().map(|w| w.pc);
        let first = self.starts.partition_point(|&s| s < pc);
        let mut t = String::new();
        let mut last_line = None;
        for &at in self.starts.iter().skip(first).take(n as usize) {
            if let Some(l) = self.line_of(at) {
                if last_line != Some((l.file_index, l.line, l.column)) {
                    last_line = Some((l.file_index, l.line, l.column));
                    let text = self.texts.line(l.file_index, l.line).unwrap_or("").trim();
                    let _ = writeln!(t, "{l}: {text}");
                }
            }
            let arrow = if current == Some(at) { "=>" } else { "  " };
            let bp = if self.breakpoints.iter().any(|b| b.pc == at) {
                "*"
            } else {
                " "
            };
            let _ = writeln!(t, "{arrow}{bp}{at:#06x}:  {}", prog.disassemble(at));
        }
        t
    }
}

/// "v[4:7]" or "v5".
fn reg_range(kind: char, first: u8, count: u8) -> String {
    if count <= 1 {
        format!("{kind}{first}")
    } else {
        format!(
            "{kind}[{first}:{}]",
            u32::from(first) + u32::from(count) - 1
        )
    }
}

/// running, at barrier, waiting on a counter, ended, trapped, step limit, deadlocked.
/// `at_waitcnt`: the warp's next instruction is a `waitcnt`.
fn status_text(w: &Warp, deadlocked: bool, at_waitcnt: bool) -> String {
    match w.status {
        WarpStatus::Running if at_waitcnt && !w.queue.is_empty() => {
            "waiting on a counter (waitcnt)".into()
        }
        WarpStatus::Running => "running".into(),
        WarpStatus::AtBarrier if deadlocked => "deadlocked at a barrier".into(),
        WarpStatus::AtBarrier => "at barrier".into(),
        WarpStatus::Ended => "ended".into(),
        WarpStatus::Trapped(t) => format!(
            "trapped (cause {}, {})",
            t.cause,
            warpkit_sim::trap::cause_name(t.cause)
        ),
        WarpStatus::StepLimit => "stopped at the step limit".into(),
    }
}

/// Reports of the warps of the current, finished workgroup that stopped badly and were
/// not yet reported: as `warpkit run` words them.
fn end_reports(
    s: &Stepper,
    reported: &mut Vec<(u64, Option<u32>)>,
    shown: &Shown,
    lines: &warpkit_asm::LineTable,
) -> String {
    let (Some(flat), Some((id, warps))) = (s.current_flat(), s.current()) else {
        return String::new();
    };
    let mut t = String::new();
    for w in warps {
        if reported.contains(&(flat, Some(w.id.warp))) {
            continue;
        }
        match w.status {
            WarpStatus::Trapped(_) => {
                if let Some(r) = trap_report(w, s.program()) {
                    let _ = writeln!(t, "error: {}", trap_message_at(&r, lines));
                }
            }
            WarpStatus::StepLimit => {
                let l = LimitReport {
                    workgroup: w.id.workgroup,
                    warp: w.id.warp,
                    pc: w.pc,
                    steps: w.steps,
                };
                let who = warp_name(l.workgroup, l.warp);
                let _ = writeln!(
                    t,
                    "error: {}{}",
                    step_limit_text(&who, &l, shown),
                    location_suffix(lines, l.pc)
                );
            }
            _ => continue,
        }
        reported.push((flat, Some(w.id.warp)));
    }
    if let Some(d) = s.deadlock() {
        if !reported.contains(&(flat, None)) {
            reported.push((flat, None));
            let _ = writeln!(
                t,
                "error: {}",
                deadlock_message_at(
                    &DeadlockReport {
                        workgroup: id,
                        deadlock: d.clone(),
                    },
                    lines
                )
            );
        }
    }
    t
}

#[cfg(test)]
mod tests;
