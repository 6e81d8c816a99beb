//! The microbenchmarks and what each recovers, in the order they build on each other:
//! occupancy limits (what can be placed at all), fixed latencies (dependent chains),
//! compute units and workgroup limits (waves of long workgroups), unit throughput (single
//! warp bursts and many-warp streams), issue (schedulers x width), shared memory (latency
//! and conflict strides), the memory hierarchy (pointer chases, footprint and stride
//! sweeps, streams) and the policies.

use warpkit_isa::{Latency, Op, OperandClass};
use warpkit_sim::launch::MAX_SHARED_BYTES;

use super::bench::{chase, chase_buffer, repeat, set_u, Bench, Shape, BASE};
use super::fit::{first_true, passes, ratio};
use super::report::{CalibrateError, Parameter, Recovery, Value};
use crate::machine::{DispatchPolicy, Machine, Policy, Unit};

/// The instruction classes, as machine files name their units.
pub const CLASSES: [&str; 5] = ["valu", "salu", "sfu", "mem", "branch"];

type R<T> = Result<T, CalibrateError>;

/// What one class's units were measured to do.
#[derive(Debug, Clone, Default)]
struct ClassRate {
    /// Cycles per instruction of one warp's independent stream, as a fraction.
    single: (u64, u64),
    /// Count and interval when a single warp's burst shows them (count < interval).
    exact: Option<(u64, u64)>,
    /// Instructions per cycle of many warps, as a fraction.
    many: (u64, u64),
}

struct Cal<'m> {
    b: Bench<'m>,
    m: &'m Machine,
    rows: Vec<Parameter>,
    // Measured so far.
    lat: [u64; 5],
    mnemonic: [&'static str; 5],
    wmax: u64,
    granule: Option<u64>,
    vg: Option<(u64, u64)>,
    slots: Option<u64>,
    shared_cap: Option<u64>,
    cus: Option<u64>,
    per_cu: Option<u64>,
    rates: Vec<ClassRate>,
    issue: Option<u64>,
    sched: Option<(u64, u64)>,
    shared_lat: u64,
    dram: u64,
    l1_hit: u64,
    l2_hit: u64,
    line: u64,
    l1_lines: u64,
    bpc: Option<f64>,
    /// Misses in flight at most (chip), when the MSHR benchmarks found it.
    in_flight_cap: Option<u64>,
}

const VALU: usize = 0;
const SALU: usize = 1;
const SFU: usize = 2;
const MEM: usize = 3;
const BRANCH: usize = 4;

/// Run every benchmark; the rows and the number of launches.
pub(crate) fn run(machine: &Machine, threads: usize) -> R<(Vec<Parameter>, u64)> {
    let mut c = Cal {
        b: Bench::new(machine, threads),
        m: machine,
        rows: Vec::new(),
        lat: [0; 5],
        mnemonic: [""; 5],
        wmax: 1,
        granule: None,
        vg: None,
        slots: None,
        shared_cap: None,
        cus: None,
        per_cu: None,
        rates: vec![ClassRate::default(); 5],
        issue: None,
        sched: None,
        shared_lat: 0,
        dram: 0,
        l1_hit: 0,
        l2_hit: 0,
        line: 0,
        l1_lines: 1,
        bpc: None,
        in_flight_cap: None,
    };
    c.fits()?;
    c.latencies()?;
    c.overrides()?;
    c.memory()?;
    c.units()?;
    c.hidden_latencies();
    c.issue()?;
    c.compute_units()?;
    c.shared()?;
    c.mshrs()?;
    c.bandwidth()?;
    c.policy()?;
    c.dispatch()?;
    let order = field_order();
    let rank = |n: &str| {
        order
            .iter()
            .position(|o| *o == n)
            .unwrap_or(if n.starts_with("latency.") {
                1000
            } else {
                2000
            })
    };
    c.rows.sort_by_key(|p| rank(&p.name));
    Ok((c.rows, c.b.launches()))
}

fn field_order() -> Vec<String> {
    let mut v: Vec<String> = [
        "compute_units",
        "cu.warp_slots",
        "cu.vregs",
        "cu.vreg_granule",
        "cu.shared_bytes",
        "cu.max_workgroups",
        "cu.schedulers",
        "cu.issue_width",
        "cu.policy",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for class in CLASSES {
        for f in ["count", "interval", "latency"] {
            v.push(format!("units.{class}.{f}"));
        }
    }
    for f in [
        "shared.banks",
        "shared.bank_bytes",
        "shared.latency",
        "l1.size_bytes",
        "l1.line_bytes",
        "l1.ways",
        "l1.hit_latency",
        "l1.mshrs",
        "l2.size_bytes",
        "l2.line_bytes",
        "l2.ways",
        "l2.hit_latency",
        "l2.mshrs",
        "dram.latency",
        "dram.bytes_per_cycle",
        "dispatch.policy",
    ] {
        v.push(f.into());
    }
    v
}

fn unit(m: &Machine, class: usize) -> &Unit {
    match class {
        VALU => &m.units.valu,
        SALU => &m.units.salu,
        SFU => &m.units.sfu,
        MEM => &m.units.mem,
        _ => &m.units.branch,
    }
}

fn db_latency(mnemonic: &str) -> Option<u64> {
    match Op::from_mnemonic(mnemonic)?.def().latency {
        Latency::Fixed(n) => Some(u64::from(n)),
        Latency::Async(_) => None,
    }
}

impl Cal<'_> {
    // ---- rows ----

    fn row(
        &mut self,
        name: &str,
        configured: Value,
        measured: Option<Value>,
        recovery: Recovery,
        benchmark: &str,
        note: String,
    ) {
        let ok = match (&recovery, &configured, &measured) {
            (Recovery::Exact, c, Some(m)) => c == m,
            (Recovery::Within2Percent, Value::Float(c), Some(Value::Float(m))) => {
                (c - m).abs() <= 0.02 * c.abs()
            }
            (Recovery::AtLeast, Value::Int(c), Some(Value::Int(m))) => c >= m,
            (Recovery::AtLeast, Value::Float(c), Some(Value::Float(m))) => *c >= m * 0.98,
            (Recovery::NotObservable, _, _) => true,
            _ => false,
        };
        self.rows.push(Parameter {
            name: name.into(),
            configured,
            measured,
            recovery,
            benchmark: benchmark.into(),
            ok,
            note,
        });
    }

    fn exact(&mut self, name: &str, configured: u64, measured: u64, benchmark: &str) {
        self.row(
            name,
            Value::Int(configured),
            Some(Value::Int(measured)),
            Recovery::Exact,
            benchmark,
            String::new(),
        );
    }

    fn at_least(&mut self, name: &str, configured: u64, bound: u64, benchmark: &str, note: &str) {
        self.row(
            name,
            Value::Int(configured),
            Some(Value::Int(bound)),
            Recovery::AtLeast,
            benchmark,
            note.into(),
        );
    }

    fn unobservable(&mut self, name: &str, configured: Value, benchmark: &str, note: &str) {
        self.row(
            name,
            configured,
            None,
            Recovery::NotObservable,
            benchmark,
            note.into(),
        );
    }

    // ---- primitives ----

    fn t(&self, src: &str, shape: &Shape) -> R<u64> {
        self.b.cycles(src, shape)
    }

    /// Cycles per repetition of `line` in a straight run (the slope between n and 2n).
    fn slope(
        &self,
        line: &dyn Fn(u64) -> String,
        prologue: &str,
        shape: &Shape,
        n: u64,
    ) -> R<(u64, u64)> {
        let src = |k: u64| format!("{prologue}{}endpgm\n", repeat(k, line));
        let a = self.t(&src(n), shape)?;
        let b = self.t(&src(2 * n), shape)?;
        Ok((b.saturating_sub(a), n))
    }

    /// The vector registers a warp may use (at most 128), from the occupancy fit.
    fn vreg_budget(&self, warps: u64) -> u64 {
        match (self.granule, self.vg) {
            (Some(g), Some((lo, _))) => ((lo / warps.max(1)) * g).clamp(8, 128),
            _ => 128,
        }
    }

    // ---- occupancy: what can be placed at all ----

    fn fits(&mut self) -> R<()> {
        let kernel = |r: u64| format!("movi v{}, 0\nendpgm\n", r - 1);
        let fits = |w: u64, r: u64, s: u64| {
            self.b
                .fits(&kernel(r), &Shape::warps(w as u32).shared(s as u32))
        };
        if !fits(1, 1, 0)? {
            return Err(CalibrateError::Machine(
                "a workgroup of one warp does not fit".into(),
            ));
        }
        let wmax = if fits(32, 1, 0)? {
            32
        } else {
            first_true(2, 32, |w| Ok::<_, CalibrateError>(!fits(w, 1, 0)?))? - 1
        };
        self.wmax = wmax;
        let mut rstar = Vec::new();
        for w in 1..=wmax {
            let r = if fits(w, 128, 0)? {
                128
            } else {
                first_true(2, 128, |r| Ok::<_, CalibrateError>(!fits(w, r, 0)?))? - 1
            };
            rstar.push((w, r));
        }
        // Shared memory: the largest workgroup allocation that can be placed.
        let max = u64::from(MAX_SHARED_BYTES);
        let shared_bench = "largest workgroup shared memory that can be placed (binary search)";
        if fits(1, 1, max)? {
            self.at_least(
                "cu.shared_bytes",
                self.m.cu.shared_bytes.into(),
                max,
                shared_bench,
                "a launch cannot ask for more shared memory per workgroup",
            );
        } else {
            let s = first_true(0, max, |s| Ok::<_, CalibrateError>(!fits(1, 1, s)?))?;
            if s == 0 {
                return Err(CalibrateError::Machine("no workgroup fits".into()));
            }
            self.shared_cap = Some(s - 1);
            self.exact(
                "cu.shared_bytes",
                self.m.cu.shared_bytes.into(),
                s - 1,
                shared_bench,
            );
        }
        // Vector registers: the largest register count that fits w warps is
        // granule * floor(vregs / granule / w); find the granules and register files
        // consistent with every w.
        let vbench = "largest register count that fits w warps, for every w (binary search)";
        let mut found: Vec<(u64, u64, u64)> = Vec::new();
        for g in 1..=128u64 {
            let (mut lo, mut hi) = (0u64, u64::MAX);
            let mut ok = true;
            for &(w, r) in &rstar {
                let m = r.div_ceil(g);
                lo = lo.max(w * m);
                if r < 128 {
                    if r % g != 0 {
                        ok = false;
                        break;
                    }
                    hi = hi.min(w * (m + 1) - 1);
                }
            }
            if ok && lo <= hi {
                found.push((g, lo, hi));
            }
        }
        let bounded = rstar.iter().any(|&(_, r)| r < 128);
        let cfg_v = u64::from(self.m.cu.vregs);
        let cfg_g = u64::from(self.m.cu.vreg_granule);
        match found.last().copied() {
            Some((g, lo, hi)) if bounded => {
                self.granule = Some(g);
                self.vg = Some((lo, hi));
                let note = if found.len() > 1 {
                    format!(
                        "granules {:?} also fit the measurements; the largest is taken",
                        found.iter().map(|f| f.0).collect::<Vec<_>>()
                    )
                } else {
                    String::new()
                };
                self.row(
                    "cu.vreg_granule",
                    Value::Int(cfg_g),
                    Some(Value::Int(g)),
                    Recovery::Exact,
                    vbench,
                    note,
                );
                if lo == hi {
                    self.row(
                        "cu.vregs",
                        Value::Int(cfg_v),
                        Some(Value::Int(g * lo)),
                        Recovery::Exact,
                        vbench,
                        "measured in granules (only whole granules can be allocated)".into(),
                    );
                } else {
                    self.at_least(
                        "cu.vregs",
                        cfg_v,
                        g * lo,
                        vbench,
                        "the measurements leave a range",
                    );
                }
            }
            _ => {
                let most = rstar.iter().map(|&(w, _)| w * 128).max().unwrap_or(128);
                self.at_least(
                    "cu.vregs",
                    cfg_v,
                    most,
                    vbench,
                    "every register count fits every workgroup size",
                );
                self.unobservable(
                    "cu.vreg_granule",
                    Value::Int(cfg_g),
                    vbench,
                    "the register file never limits a workgroup of at most 32 warps",
                );
                self.vg = None;
            }
        }
        // Warp slots, when the largest workgroup that fits is limited by slots and not
        // by registers (its warps need one granule each).
        let sbench = "largest workgroup (warps) that can be placed";
        // (Without a register limit every count fits wmax warps, so wmax + 1 warps of
        // one granule each fit the register file too.)
        let regs_fit_more = self.vg.map_or(!bounded, |(lo, _)| wmax < lo);
        if wmax < 32 && regs_fit_more {
            self.slots = Some(wmax);
            self.exact("cu.warp_slots", self.m.cu.warp_slots.into(), wmax, sbench);
        }
        Ok(())
    }

    // ---- fixed latencies: dependent chains ----

    fn latencies(&mut self) -> R<()> {
        let over = &self.m.latency;
        let pick = |c: &[&'static str]| c.iter().copied().find(|m| !over.contains_key(*m));
        let classes: [(usize, Option<&'static str>, &str); 4] = [
            (
                VALU,
                pick(&["add", "sub", "xor", "or", "and"]),
                "{m} v10, v10, v10",
            ),
            (
                SALU,
                pick(&["uadd", "usub", "uxor", "uor", "uand"]),
                "{m} u20, u20, u20",
            ),
            (BRANCH, pick(&["jal"]), "{m} u30, 1f\n1:"),
            (
                SFU,
                pick(&["frcp.f32", "fsqrt.f32", "fexp2.f32", "flog2.f32"]),
                "{m} v10, v10",
            ),
        ];
        for (class, mn, pattern) in classes {
            let name = format!("units.{}.latency", CLASSES[class]);
            let Some(mn) = mn else {
                self.unobservable(
                    &name,
                    Value::Int(0),
                    "dependent chain",
                    "every candidate instruction has a latency override",
                );
                continue;
            };
            let line = pattern.replace("{m}", mn);
            let (d, n) = self.slope(&|_| line.clone(), "", &Shape::one(), 16)?;
            let p = (d + n / 2) / n;
            self.lat[class] = p;
            self.mnemonic[class] = mn;
            let configured = unit(self.m, class)
                .latency
                .map(u64::from)
                .or_else(|| db_latency(mn))
                .unwrap_or(0);
            let bench = format!("dependent chain of {mn} (16 vs 32)");
            let note = if unit(self.m, class).latency.is_none() {
                format!("no class latency: the ISA database latency of {mn}")
            } else {
                String::new()
            };
            self.row(
                &name,
                Value::Int(configured),
                Some(Value::Int(p)),
                Recovery::Exact,
                &bench,
                note,
            );
        }
        if let Some(l) = self.m.units.mem.latency {
            self.unobservable("units.mem.latency", Value::Int(l.into()), "-", "memory instructions are asynchronous: their completion comes from the memory model, never a fixed latency");
        }
        // Shared memory latency: a chain of conflict-free loads (all lanes one word).
        let (d, n) = self.slope(
            &|_| "dsload.b32 v10, v9, 0".into(),
            "",
            &Shape::one().shared(4),
            16,
        )?;
        self.shared_lat = (d + n / 2) / n;
        self.exact(
            "shared.latency",
            self.m.shared.latency.into(),
            self.shared_lat,
            "dependent chain of broadcast dsload.b32 (16 vs 32)",
        );
        Ok(())
    }

    /// Every latency override of the machine file, by a chain of its instruction with
    /// every register operand the same (so each instance depends on the previous one).
    fn overrides(&mut self) -> R<()> {
        let entries: Vec<(String, u32)> = self
            .m
            .latency
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        for (mn, lat) in entries {
            let name = format!("latency.{mn}");
            let bench = format!("dependent chain of {mn} (16 vs 32)");
            let Some(line) = chain_line(&mn) else {
                self.unobservable(&name, Value::Int(lat.into()), &bench, "the instruction writes no register, or is asynchronous or a memory access: a fixed latency has no effect");
                continue;
            };
            match self.slope(&|_| line.clone(), "", &Shape::one().shared(1024), 16) {
                Ok((d, n)) => self.exact(&name, lat.into(), (d + n / 2) / n, &bench),
                Err(CalibrateError::Kernel(e)) => self.unobservable(
                    &name,
                    Value::Int(lat.into()),
                    &bench,
                    &format!("the chain cannot run: {}", e.lines().next().unwrap_or("")),
                ),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    // ---- compute units and workgroup limits: waves ----

    /// The kernel of the wave benchmarks: warp 0 runs a long dependent chain, the others
    /// end at once; whether it needs the buffer; and the chain's length in cycles. The
    /// chain is of VALU instructions or of L1-hitting loads, whichever lets more warps of
    /// a compute unit run their chains at once without waiting for units or issue.
    /// Warps of a compute unit that can run the wave chains at once without waiting for
    /// units or issue: by VALU chains and by L1-hit chains.
    fn wave_support(&self) -> (f64, f64) {
        let rate = |c: usize| self.rates[c].many.0 as f64 / self.rates[c].many.1.max(1) as f64;
        let issue = self.issue.map_or(f64::INFINITY, |i| i as f64);
        let lv = self.lat[VALU].max(1);
        let lm = self.l1_hit + 1;
        (
            lv as f64 * rate(VALU).min(issue),
            lm as f64 * rate(MEM).min(rate(SALU)).min(issue / 2.0),
        )
    }

    fn wave_kernel(&self, regs: u64) -> (String, bool, u64) {
        let lv = self.lat[VALU].max(1);
        let lm = self.l1_hit + 1;
        let (by_valu, by_load) = self.wave_support();
        let top = regs.max(11) - 1;
        if by_load > by_valu && self.line > 0 {
            let n = 256u64.div_ceil(lm).max(16);
            let src = format!(
                "{BASE}movi v{top}, 0\nbnz u29, 9f\n{}9:\nendpgm\n",
                repeat(n, |_| "waitcnt vm=0\ngload.b32 v10, v10, u[16:17], 0"
                    .into())
            );
            (src, true, n * lm)
        } else {
            let n = 256u64.div_ceil(lv).max(16);
            let mn = self.mnemonic[VALU];
            let src = format!(
                "movi v{top}, 0\nbnz u29, 9f\n{}9:\nendpgm\n",
                repeat(n, |_| format!("{mn} v4, v4, v4"))
            );
            (src, false, n * lv)
        }
    }

    /// The number of workgroups of `shape` that run at once on the chip: the largest
    /// grid that takes one wave of the wave kernel. `None` beyond `max`.
    fn concurrency(&self, shape: &Shape, regs: u64, max: u64) -> R<Option<u64>> {
        let (src, buffer, d) = self.wave_kernel(regs);
        let shape = if buffer {
            shape.clone().buffer(vec![0u8; self.line.max(4) as usize])
        } else {
            shape.clone()
        };
        let t1 = self.t(&src, &shape)?;
        let late =
            |g: u64| -> R<bool> { Ok(self.t(&src, &shape.clone().grid(g as u32))? >= t1 + d / 2) };
        let mut g = 2;
        while !late(g)? {
            if g >= max {
                return Ok(None);
            }
            g = (g * 2).min(max);
        }
        Ok(Some(first_true(g / 2 + 1, g, late)? - 1))
    }

    fn compute_units(&mut self) -> R<()> {
        // A workgroup that takes a whole compute unit: all its shared memory, else all
        // its warp slots.
        let exclusive = if let Some(s) = self.shared_cap.filter(|&s| s > 0) {
            Some(Shape::one().shared(s as u32))
        } else {
            self.slots.map(|w| Shape::warps(w as u32))
        };
        let bench = "waves of workgroups that each take a whole compute unit";
        let cfg = u64::from(self.m.compute_units);
        match exclusive {
            Some(shape) => match self.concurrency(&shape, 5, 4096)? {
                Some(n) => {
                    self.cus = Some(n);
                    self.exact("compute_units", cfg, n, bench);
                }
                None => self.at_least(
                    "compute_units",
                    cfg,
                    4096,
                    bench,
                    "more than the benchmark tries",
                ),
            },
            None => self.unobservable(
                "compute_units",
                Value::Int(cfg),
                bench,
                "no workgroup can be made to take a whole compute unit",
            ),
        }
        let Some(cus) = self.cus else {
            self.unobservable(
                "cu.max_workgroups",
                Value::Int(self.m.cu.max_workgroups.into()),
                "-",
                "needs the compute units",
            );
            return Ok(());
        };
        // Workgroups of one warp: min(max_workgroups, slots, register file) per CU.
        let mbench = "waves of one-warp workgroups";
        let g = self.granule.unwrap_or(1);
        let regs_cap = self.vg.map(|(lo, _)| lo / 11u64.div_ceil(g));
        let per_cu = self
            .concurrency(&Shape::one(), 5, cus * 1024)?
            .map(|n| n / cus);
        self.per_cu = per_cu;
        let cfg_m = u64::from(self.m.cu.max_workgroups);
        match per_cu {
            Some(c1) => {
                let slots_known_above =
                    self.slots.is_some_and(|s| c1 < s) || (self.slots.is_none() && c1 < self.wmax);
                let regs_above = regs_cap.is_none_or(|r| c1 < r);
                // More chains than the units sustain would slow each other and end the
                // wave early: the count is then only a bound.
                let (a, b) = self.wave_support();
                let crowded = c1 as f64 >= a.max(b).floor();
                if slots_known_above && regs_above && !crowded {
                    self.exact("cu.max_workgroups", cfg_m, c1, mbench);
                } else {
                    self.at_least(
                        "cu.max_workgroups",
                        cfg_m,
                        c1,
                        mbench,
                        "warp slots or registers limit one-warp workgroups first",
                    );
                }
            }
            None => self.at_least(
                "cu.max_workgroups",
                cfg_m,
                1024,
                mbench,
                "more than the benchmark tries",
            ),
        }
        // Warp slots above 32 (a workgroup has at most 32 warps): waves of w-warp
        // workgroups, floor(slots / w) per compute unit, for several w.
        if self.slots.is_none() {
            let sbench = "waves of w-warp workgroups, w = 32 down to 2";
            let mut lo = self.wmax;
            let mut hi = u64::MAX;
            for w in (2..=self.wmax).rev() {
                if lo == hi {
                    break;
                }
                let Some(n) = self.concurrency(&Shape::warps(w as u32), 5, cus * 1024)? else {
                    continue;
                };
                let c = n / cus;
                let regs_ok = regs_cap.is_none_or(|r| c < r / w);
                if per_cu.is_some_and(|c1| c < c1) && regs_ok && c > 0 {
                    lo = lo.max(w * c);
                    hi = hi.min(w * c + w - 1);
                }
            }
            let cfg = u64::from(self.m.cu.warp_slots);
            if lo == hi {
                self.slots = Some(lo);
                self.exact("cu.warp_slots", cfg, lo, sbench);
            } else {
                self.at_least(
                    "cu.warp_slots",
                    cfg,
                    lo,
                    sbench,
                    "workgroup or register limits come first",
                );
            }
        }
        Ok(())
    }

    // ---- functional units ----

    /// A unit busy longer than an instruction's latency (count x latency <= interval)
    /// paces a dependent chain by its interval: the latency does not show then.
    fn hidden_latencies(&mut self) {
        for class in [VALU, SALU, BRANCH, SFU] {
            let Some((c, i)) = self.rates[class].exact else {
                continue;
            };
            if self.lat[class] * c > i {
                continue;
            }
            let name = format!("units.{}.latency", CLASSES[class]);
            if let Some(p) = self.rows.iter_mut().find(|p| p.name == name) {
                p.recovery = Recovery::NotObservable;
                p.measured = None;
                p.ok = true;
                p.note = format!("the units' interval ({i} cycles for {c}) paces a dependent chain: the latency is at most {}", self.lat[class]);
            }
        }
    }

    /// Warps for many-warp streams: as many as fit, in a count that every likely number
    /// of schedulers divides, so each scheduler has the same share and none finishes
    /// late alone (schedulers issue in index order, so a starved one would).
    fn balanced_warps(&self) -> u64 {
        let most = self.wmax.min(self.slots.unwrap_or(32)).min(32);
        [24, 12, 8, 6, 4, 3, 2, 1]
            .into_iter()
            .find(|&w| w <= most)
            .unwrap_or(1)
    }

    /// One independent instruction of `class`, the `j`-th of a stream with `regs`
    /// destination registers to rotate through. Memory instructions are L1 hits on one
    /// line ([`Cal::prologue`] brings it in).
    fn independent(&self, class: usize, j: u64, regs: u64) -> String {
        let r = j % regs.max(1);
        match class {
            VALU => format!("{} v{}, v0, v1", self.mnemonic[VALU], 4 + r),
            SALU => format!("{} u{}, u14, u15", self.mnemonic[SALU], 20 + r),
            SFU => format!("{} v{}, v0", self.mnemonic[SFU], 4 + r),
            MEM => format!("gload.b32 v{}, v1, u[16:17], 0", 4 + r),
            _ => "jmp 1f\n1:".into(),
        }
    }

    /// What a stream of `class` needs first: for memory, the line its loads hit.
    fn prologue(&self, class: usize) -> String {
        if class == MEM {
            format!("{BASE}gload.b32 v3, v1, u[16:17], 0\nwaitcnt vm=0\n")
        } else {
            String::new()
        }
    }

    fn stream_shape(&self, class: usize, warps: u64) -> Shape {
        let s = Shape::warps(warps as u32);
        if class == MEM {
            s.buffer(vec![0u8; self.line.max(4) as usize])
        } else {
            s
        }
    }

    /// The in-flight limit of the class's counter (async instructions), else none.
    fn in_flight(&self, class: usize) -> u64 {
        let mn = match class {
            SFU => self.mnemonic[SFU],
            MEM => "gload.b32",
            _ => return u64::MAX,
        };
        match Op::from_mnemonic(mn).map(|op| op.def().latency) {
            Some(Latency::Async(c)) => u64::from(warpkit_isa::COUNTERS[c as usize].max_outstanding),
            _ => u64::MAX,
        }
    }

    /// Registers a stream of `class` rotates through so that no instance waits for the
    /// one before it with the same destination.
    fn stream_regs(&self, class: usize, warps: u64) -> u64 {
        let lat = match class {
            MEM => self.l1_hit,
            _ => self.lat[class],
        };
        let cap = match class {
            SALU => 40,
            BRANCH => 1,
            _ => self.vreg_budget(warps).saturating_sub(5).max(1),
        };
        (lat + 1).min(cap)
    }

    fn units(&mut self) -> R<()> {
        let warps = self.balanced_warps();
        for class in 0..5 {
            if class != MEM && class != BRANCH && self.mnemonic[class].is_empty() {
                continue;
            }
            // One warp's burst: with count < interval it issues `count` instructions
            // back to back, then waits for the first unit to be free again. (A burst
            // stays within the counter's in-flight limit, which would stop it too.)
            let regs = self.stream_regs(class, 1);
            let pro = self.prologue(class);
            let shape = self.stream_shape(class, 1);
            let burst = |k: u64| -> R<u64> {
                self.t(
                    &format!(
                        "{pro}{}endpgm\n",
                        repeat(k, |j| self.independent(class, j, regs))
                    ),
                    &shape,
                )
            };
            let top = if class == BRANCH {
                64
            } else {
                self.in_flight(class).min(64).min(regs + 1)
            };
            let mut exact = None;
            let mut prev = burst(1)?;
            for k in 2..=top {
                let cur = burst(k)?;
                if cur - prev > 1 {
                    // `endpgm` is a salu instruction: it is the last of a salu burst.
                    let count = if class == SALU { k } else { k - 1 };
                    exact = Some((count, cur - prev + count - 1));
                    break;
                }
                prev = cur;
            }
            // Many warps, each an independent stream.
            let regs = self.stream_regs(class, warps);
            let shape = self.stream_shape(class, warps);
            let (d, n) = self.slope(&|j| self.independent(class, j, regs), &pro, &shape, 240)?;
            let many = ratio(n * warps, d, 64, 0.01).unwrap_or((n * warps, d.max(1)));
            self.rates[class] = ClassRate {
                single: (1, 1),
                exact,
                many,
            };
        }
        Ok(())
    }

    // ---- issue: schedulers x width ----

    /// The rate (instructions per cycle) of a mixed stream on the warps in `slots` of one
    /// workgroup (the others end at once).
    fn mixed_rate(&self, slots: &[u64], n_rounds: u64) -> R<(u64, u64)> {
        let top = slots.iter().max().copied().unwrap_or(0) + 1;
        let mut pro = String::new();
        for s in slots {
            pro.push_str(&format!("uaddi u61, u29, {}\nbz u61, 8f\n", -(*s as i64)));
        }
        pro.push_str("endpgm\n8:\n");
        let pattern = self.mix_pattern();
        let len = pattern.len() as u64;
        let body = move |j: u64| pattern[(j % len) as usize].replace("{j}", &(j / len).to_string());
        let vreg = self.stream_regs(VALU, top);
        let body = |j: u64| {
            let s = body(j);
            s.replace("{v}", &(4 + j % vreg).to_string())
                .replace("{u}", &(20 + j % 40).to_string())
        };
        let shape = Shape::warps(top as u32).shared(4);
        let (d, n) = self.slope(&body, &pro, &shape, n_rounds * len)?;
        Ok((n * slots.len() as u64, d.max(1)))
    }

    /// The weights of valu, salu and branch in the mixed stream: proportional to their
    /// measured many-warp rates, so no class's units limit it before issue does.
    fn mix_weights(&self) -> [u64; 3] {
        let r = [
            self.rates[VALU].many,
            self.rates[SALU].many,
            self.rates[BRANCH].many,
        ];
        // When the VALU is the fastest class, it carries the stream and the others
        // stay lightly loaded: schedulers take free units in index order, so a busy
        // slow class would starve the last schedulers and hide the issue limit.
        let rate = |(p, q): (u64, u64)| p as f64 / q as f64;
        if rate(r[0]) >= 2.0 * rate(r[1]).max(rate(r[2])) {
            return [16, 1, 1];
        }
        let q = r
            .iter()
            .fold(1u64, |l, &(_, q)| l / super::fit::gcd(l, q) * q);
        let mut w = r.map(|(p, d)| (p * (q / d)).max(1));
        let total: u64 = w.iter().sum();
        if total > 128 {
            w = w.map(|x| (x * 128).div_ceil(total).max(1));
        }
        w
    }

    /// One round of the mixed stream.
    fn mix_pattern(&self) -> Vec<String> {
        let [wv, ws, wb] = self.mix_weights();
        let mut v = Vec::new();
        // Interleaved, so a warp's stream never waits on one class for long.
        let most = wv.max(ws).max(wb);
        for k in 0..most {
            if k < wv {
                v.push(format!("{} v{{v}}, v0, v1", self.mnemonic[VALU]));
            }
            if k < ws {
                v.push(format!("{} u{{u}}, u14, u15", self.mnemonic[SALU]));
            }
            if k < wb {
                v.push("jmp 1f\n1:".into());
            }
        }
        v
    }

    fn mix_capacity(&self) -> f64 {
        let w = self.mix_weights();
        let total: u64 = w.iter().sum();
        [VALU, SALU, BRANCH]
            .iter()
            .zip(w)
            .map(|(&c, wc)| {
                let (p, q) = self.rates[c].many;
                (p as f64 / q as f64) * total as f64 / wc as f64
            })
            .fold(f64::INFINITY, f64::min)
    }

    fn issue(&mut self) -> R<()> {
        let warps = self.balanced_warps();
        let all: Vec<u64> = (0..warps).collect();
        let (p, q) = self.mixed_rate(&all, 40)?;
        let rate = p as f64 / q as f64;
        let cap = self.mix_capacity();
        let ibench = "mixed valu/salu/branch streams from every warp of a workgroup";
        let cfg_s = u64::from(self.m.cu.schedulers);
        let cfg_w = u64::from(self.m.cu.issue_width);
        let cfg_i = cfg_s * cfg_w;
        let issue = if rate < cap * 0.98 && rate < warps as f64 * 0.98 {
            ratio(p, q, 4, 0.05).filter(|r| r.1 == 1).map(|r| r.0)
        } else {
            None
        };
        // Unit counts and intervals, now that the issue limit is known.
        for (class, class_name) in CLASSES.iter().enumerate() {
            let cr = self.rates[class].clone();
            let (cname, iname) = (
                format!("units.{class_name}.count"),
                format!("units.{class_name}.interval"),
            );
            let u = unit(self.m, class);
            let (cc, ci) = (u64::from(u.count), u64::from(u.interval));
            if let Some((c, i)) = cr.exact {
                let b = "one warp's burst of independent instructions (count before the first wait, interval from its length)";
                self.exact(&cname, cc, c, b);
                self.exact(&iname, ci, i, b);
                continue;
            }
            // Without a known issue limit, the fastest class may be limited by issue
            // rather than by its units.
            let fastest = self
                .rates
                .iter()
                .map(|r| r.many.0 as f64 / r.many.1 as f64)
                .fold(0.0, f64::max);
            let limit = match issue {
                Some(i) => i as f64,
                None => fastest.min(warps as f64),
            };
            let r = cr.many.0 as f64 / cr.many.1 as f64;
            let b =
                "independent streams from many warps (instructions per cycle = count / interval)";
            if r < limit * 0.98 {
                let (a, d) = cr.many;
                let ok = cc * d == a * ci;
                let note = format!(
                    "count / interval = {a}/{d}: a warp issues at most one instruction a cycle, so only the ratio shows when count >= interval"
                );
                self.rows.push(Parameter {
                    name: cname,
                    configured: Value::Int(cc),
                    measured: Some(Value::Int(a)),
                    recovery: Recovery::Ratio,
                    benchmark: b.into(),
                    ok,
                    note: note.clone(),
                });
                self.rows.push(Parameter {
                    name: iname,
                    configured: Value::Int(ci),
                    measured: Some(Value::Int(d)),
                    recovery: Recovery::Ratio,
                    benchmark: b.into(),
                    ok,
                    note,
                });
            } else {
                let bound = cr.many.0.div_ceil(cr.many.1);
                self.at_least(
                    &cname,
                    cc,
                    bound,
                    b,
                    "the class's units accept work as fast as the compute unit issues it",
                );
                self.row(
                    &iname,
                    Value::Int(ci),
                    None,
                    Recovery::NotObservable,
                    b,
                    "the class's units accept work as fast as the compute unit issues it".into(),
                );
            }
        }
        let Some(i) = issue else {
            let bound = (rate.floor() as u64).max(1);
            self.row(
                "cu.schedulers",
                Value::Int(cfg_s),
                None,
                Recovery::NotObservable,
                ibench,
                "the units limit issue first".into(),
            );
            self.row("cu.issue_width", Value::Int(cfg_w), None, Recovery::NotObservable, ibench, format!("the units limit issue first (schedulers x width >= {bound}; mixed rate {rate:.3}, unit capacity {cap:.3})"));
            let _ = cfg_i;
            return Ok(());
        };
        self.issue = Some(i);
        // Which factorisation schedulers x width: warps in chosen slots, slot s on
        // scheduler s % schedulers.
        let cands: Vec<(u64, u64)> = (1..=i).filter(|s| i % s == 0).map(|s| (s, i / s)).collect();
        let predict = |(s, w): (u64, u64), set: &[u64]| -> u64 {
            let mut per = vec![0u64; s as usize];
            for x in set {
                per[(x % s) as usize] += 1;
            }
            per.iter().map(|&n| n.min(w)).sum()
        };
        let mut sets: Vec<Vec<u64>> = Vec::new();
        for j in 1..warps.min(2 * i + 1) {
            sets.push(vec![0, j]);
        }
        for &(s, w) in &cands {
            let set: Vec<u64> = (0..=w).map(|k| k * s).collect();
            if set.iter().all(|&x| x < warps) {
                sets.push(set);
            }
        }
        let mut alive = cands.clone();
        for set in sets {
            if alive.len() <= 1 {
                break;
            }
            let preds: Vec<u64> = alive.iter().map(|&c| predict(c, &set)).collect();
            if preds.iter().all(|&p| p == preds[0]) {
                continue;
            }
            let (p, q) = self.mixed_rate(&set, 40)?;
            let got = (p as f64 / q as f64).round() as u64;
            alive.retain(|&c| {
                predict(c, &set).min(cap.floor() as u64) == got.min(cap.floor() as u64)
            });
        }
        let sbench = "mixed streams on chosen warp slots (slot s on scheduler s % schedulers)";
        if alive.len() == 1 {
            let (s, w) = alive[0];
            self.sched = Some((s, w));
            self.exact("cu.schedulers", cfg_s, s, sbench);
            self.exact("cu.issue_width", cfg_w, w, sbench);
        } else {
            let note = format!("schedulers x width = {i}; candidates {alive:?}");
            self.row(
                "cu.schedulers",
                Value::Int(cfg_s),
                None,
                Recovery::NotObservable,
                sbench,
                note.clone(),
            );
            self.row(
                "cu.issue_width",
                Value::Int(cfg_w),
                None,
                Recovery::NotObservable,
                sbench,
                note,
            );
        }
        Ok(())
    }

    // ---- shared memory banks ----

    fn shared(&mut self) -> R<()> {
        let n = 16;
        // Each load is followed by `gap` adds of its (zero) result to the address, so
        // the next load waits for it and the memory units, busy passes x interval, are
        // always free again by then: the chain's period is latency + passes - 1 + gap x
        // the add's latency.
        let (c, i) = self.rates[MEM].exact.unwrap_or(self.rates[MEM].many);
        let lv = self.lat[VALU].max(1);
        let gap = (32 * i)
            .div_ceil(c.max(1))
            .saturating_sub(self.shared_lat)
            .div_ceil(lv);
        let mn = self.mnemonic[VALU];
        let run = |stride: u64, op: &str| -> R<u64> {
            let pro = format!("laneid v8\nmovi v7, {stride}\nmul v8, v8, v7\n");
            let step = format!(
                "{op} v10, v8, 0\n{}",
                repeat(gap, |_| format!("{mn} v8, v8, v10"))
            );
            let src = format!("{pro}{}endpgm\n", repeat(n, |_| step.clone()));
            self.t(&src, &Shape::one().shared((31 * stride + 4) as u32))
        };
        let base = run(0, "dsload.b32")?;
        let cap = self.shared_cap.unwrap_or(u64::from(MAX_SHARED_BYTES));
        let mut seen: Vec<(u64, u64, u64)> = Vec::new();
        let words = (1..=64u64)
            .chain([96, 128, 192, 256, 512, 1024])
            .map(|k| (4 * k, 4));
        let bytes = [1u64, 2, 3, 5, 9, 17, 33, 65, 129, 257, 513]
            .into_iter()
            .map(|s| (s, 1));
        for (stride, size) in words.chain(bytes) {
            if 31 * stride + 4 > cap {
                continue;
            }
            let t = run(stride, if size == 4 { "dsload.b32" } else { "dsload.u8" })?;
            seen.push((stride, size, (t.saturating_sub(base) + n / 2) / n + 1));
        }
        let mut fits = Vec::new();
        for bytes in (0..=10).map(|e| 1u64 << e) {
            for banks in 1..=2048u64 {
                if seen
                    .iter()
                    .all(|&(s, z, p)| passes(s, z, banks, bytes) == p)
                {
                    fits.push((banks, bytes));
                }
            }
        }
        let bench = "dsload.b32 chains at lane strides 4..4096 bytes (passes per access)";
        let (cb, cw) = (
            u64::from(self.m.shared.banks),
            u64::from(self.m.shared.bank_bytes),
        );
        match fits.as_slice() {
            [(b, w)] => {
                self.exact("shared.banks", cb, *b, bench);
                self.exact("shared.bank_bytes", cw, *w, bench);
            }
            [] => {
                self.row(
                    "shared.banks",
                    Value::Int(cb),
                    None,
                    Recovery::Exact,
                    bench,
                    format!("no bank layout explains the passes {seen:?}"),
                );
                self.row(
                    "shared.bank_bytes",
                    Value::Int(cw),
                    None,
                    Recovery::Exact,
                    bench,
                    String::new(),
                );
            }
            many => {
                let note = format!(
                    "{} layouts fit, e.g. {:?}",
                    many.len(),
                    &many[..many.len().min(4)]
                );
                self.row(
                    "shared.banks",
                    Value::Int(cb),
                    None,
                    Recovery::NotObservable,
                    bench,
                    note.clone(),
                );
                self.row(
                    "shared.bank_bytes",
                    Value::Int(cw),
                    None,
                    Recovery::NotObservable,
                    bench,
                    note,
                );
            }
        }
        Ok(())
    }

    // ---- memory hierarchy ----

    /// Cycles of a chase of `k` loads through `offsets` (cyclic).
    fn chase_t(&self, offsets: &[u64], k: u64) -> R<u64> {
        self.t(&chase(k), &Shape::one().buffer(chase_buffer(offsets)))
    }

    /// Cycles of one pass over `offsets` after a warm-up pass.
    fn pass_cost(&self, offsets: &[u64]) -> R<u64> {
        let n = offsets.len() as u64;
        let a = self.chase_t(offsets, 2 * n)?;
        let b = self.chase_t(offsets, 3 * n)?;
        Ok(b.saturating_sub(a))
    }

    fn memory(&mut self) -> R<()> {
        // L1 hit latency: a chase of one word (each load also waits one cycle for its
        // `waitcnt` to issue).
        let a = self.chase_t(&[0], 32)?;
        let b = self.chase_t(&[0], 64)?;
        self.l1_hit = (b - a + 16) / 32 - 1;
        // DRAM latency: a chase over lines never touched before. When a line's transfer
        // takes longer than the latency, the channel is still busy with the previous
        // line: dependent adds between the loads space them out until the latency stops
        // changing.
        let far: Vec<u64> = (0..64).map(|i| i * 65536).collect();
        let far_buf = chase_buffer(&far);
        let hit_buf = chase_buffer(&[0]);
        let mn = self.mnemonic[VALU];
        let spaced = |gap: u64, k: u64, buf: &Vec<u8>| -> R<u64> {
            let step = format!(
                "waitcnt vm=0\n{}gload.b32 v10, v10, u[16:17], 0",
                repeat(gap, |_| format!("{mn} v10, v10, v11"))
            );
            let src = format!("{BASE}{}endpgm\n", repeat(k, |_| step.clone()));
            self.t(&src, &Shape::one().buffer(buf.clone()))
        };
        let per = |gap: u64, buf: &Vec<u8>| -> R<u64> {
            Ok((spaced(gap, 32, buf)? - spaced(gap, 16, buf)? + 8) / 16)
        };
        let mut cold = 0;
        let mut last = None;
        for gap in [0u64, 8, 32, 128, 512] {
            let c = per(gap, &far_buf)?;
            if gap == 0 {
                cold = c;
            }
            // The same spacing between L1 hits costs the same: the difference is the
            // miss's extra time.
            let d = (c + self.l1_hit).saturating_sub(per(gap, &hit_buf)?);
            if last == Some(d) || mn.is_empty() {
                last = Some(d);
                break;
            }
            last = Some(d);
        }
        self.dram = last.unwrap_or(0);
        self.exact(
            "l1.hit_latency",
            self.m.l1.hit_latency.into(),
            self.l1_hit,
            "pointer chase of one word (32 vs 64 loads)",
        );
        self.exact(
            "dram.latency",
            self.m.dram.latency.into(),
            self.dram,
            "pointer chase over lines never touched (64 KiB apart; 16 vs 32 loads), spaced by dependent adds until the channel is idle at each miss",
        );
        // Line size: the smallest stride at which every load of a cold chase costs what
        // a load 64 KiB from the last one costs.
        let mut line = None;
        for e in 2..=16u32 {
            let s = 1u64 << e;
            let offs: Vec<u64> = (0..128).map(|i| i * s).collect();
            let a = self.chase_t(&offs, 64)?;
            let b = self.chase_t(&offs, 128)?;
            if b - a >= 64 * cold {
                line = Some(s);
                break;
            }
        }
        let lbench = "cold pointer chases at strides 4 B..64 KiB: the smallest stride where every load misses";
        let Some(line) = line else {
            return Err(CalibrateError::Machine("no stride up to 64 KiB makes every load miss: the line size is beyond the benchmark, or L1 and DRAM latencies are equal".into()));
        };
        self.line = line;
        self.exact("l1.line_bytes", self.m.l1.line_bytes.into(), line, lbench);
        self.exact("l2.line_bytes", self.m.l2.line_bytes.into(), line, lbench);
        // L2 hit latency: lines written (allocated in the L2 only: stores do not
        // allocate in the L1), then chased.
        let l2src = |lines: u64, chased: u64| {
            format!(
                "{BASE}{}movi v12, 0\n{}waitcnt vst=0\nmovi v10, 0\n{}endpgm\n",
                set_u("u21", line),
                repeat(lines, |_| {
                    "add.vu v13, v12, u21\ngstore.b32 v13, v12, u[16:17], 0\nadd.vu v12, v12, u21"
                        .into()
                }),
                repeat(chased, |_| "waitcnt vm=0\ngload.b32 v10, v10, u[16:17], 0"
                    .into())
            )
        };
        let buf = vec![0u8; (33 * line) as usize];
        let a = self.t(&l2src(32, 16), &Shape::one().buffer(buf.clone()))?;
        let b = self.t(&l2src(32, 32), &Shape::one().buffer(buf))?;
        self.l2_hit = (b - a + 8) / 16 - 1;
        self.exact(
            "l2.hit_latency",
            self.m.l2.hit_latency.into(),
            self.l2_hit,
            "lines written (in the L2, not the L1), then chased (16 vs 32 loads)",
        );
        // L1 capacity and ways: cyclic chases over N consecutive lines; the first N
        // with a miss per pass is capacity + 1, and then ways + 1 lines of one set miss.
        let lines = |n: u64| -> Vec<u64> { (0..n).map(|i| i * line).collect() };
        let (h1, h2, d) = (self.l1_hit, self.l2_hit, self.dram);
        let cbench = "cyclic pointer chases over N consecutive lines: first N with misses = lines + 1; misses then = ways + 1";
        if h2 > h1 {
            let miss = |n: u64| -> R<bool> { Ok(self.pass_cost(&lines(n))? > n * (h1 + 1)) };
            let mut n = 2;
            while !miss(n)? {
                n *= 2;
                if n > (1 << 22) {
                    return Err(CalibrateError::Machine(
                        "the L1 is larger than the benchmark tries".into(),
                    ));
                }
            }
            let knee = first_true(n / 2 + 1, n, miss)?;
            let cost = self.pass_cost(&lines(knee))?;
            let misses = (cost - knee * (h1 + 1)) / (h2 - h1);
            self.l1_lines = knee - 1;
            self.exact(
                "l1.size_bytes",
                self.m.l1.size_bytes.into(),
                (knee - 1) * line,
                cbench,
            );
            self.exact(
                "l1.ways",
                self.m.l1.ways.into(),
                misses.saturating_sub(1),
                cbench,
            );
        } else {
            self.unobservable(
                "l1.size_bytes",
                Value::Int(self.m.l1.size_bytes.into()),
                cbench,
                "L1 and L2 hits take the same time",
            );
            self.unobservable(
                "l1.ways",
                Value::Int(self.m.l1.ways.into()),
                cbench,
                "L1 and L2 hits take the same time",
            );
            self.l1_lines = 1;
        }
        if d > h2 {
            let start = 2 * (self.l1_lines + 1);
            let miss = |n: u64| -> R<bool> { Ok(self.pass_cost(&lines(n))? > n * (h2 + 1)) };
            let mut n = start;
            while !miss(n)? {
                n *= 2;
                if n > (1 << 22) {
                    return Err(CalibrateError::Machine(
                        "the L2 is larger than the benchmark tries".into(),
                    ));
                }
            }
            let knee = first_true((n / 2 + 1).max(start), n, miss)?;
            let cost = self.pass_cost(&lines(knee))?;
            let misses = (cost - knee * (h2 + 1)) / (d - h2);
            self.exact(
                "l2.size_bytes",
                self.m.l2.size_bytes.into(),
                (knee - 1) * line,
                cbench,
            );
            self.exact(
                "l2.ways",
                self.m.l2.ways.into(),
                misses.saturating_sub(1),
                cbench,
            );
        } else {
            self.unobservable(
                "l2.size_bytes",
                Value::Int(self.m.l2.size_bytes.into()),
                cbench,
                "L2 hits and DRAM take the same time",
            );
            self.unobservable(
                "l2.ways",
                Value::Int(self.m.l2.ways.into()),
                cbench,
                "L2 hits and DRAM take the same time",
            );
        }
        Ok(())
    }

    // ---- DRAM bandwidth: streams of line loads from many warps on every CU ----

    fn stream_src(&self, warps: u64, iters: u64) -> String {
        let line = self.line;
        // Destinations to rotate through: a load waits for the one before it with the
        // same destination, so more registers keep more lines in flight.
        let regs = self.vreg_budget(warps).saturating_sub(11).clamp(1, 32);
        let k = 32 * iters;
        format!(
            "{BASE}umul u22, u12, u11\nuadd u22, u22, u29\n{}umul u22, u22, u23\nadd.vu v9, v1, u22\n{}{}2:\n{}add.vu v9, v9, u24\nuaddi u20, u20, -1\nbnz u20, 2b\nendpgm\n",
            set_u("u23", k * line),
            set_u("u24", 32 * line),
            set_u("u20", iters),
            repeat(32, |j| format!(
                "gload.b32 v{}, v9, u[16:17], {}",
                10 + j % regs,
                j * line
            )),
        )
        .replace("{warps}", &warps.to_string())
    }

    /// Bytes per cycle of `grid` workgroups of `warps` warps streaming.
    fn stream_rate(&self, grid: u64, warps: u64) -> R<f64> {
        let per = 32 * grid * warps;
        let iters = (16384 / per).max(2);
        let bytes = |it: u64| vec![0u8; (per * it * self.line) as usize];
        let shape = |it: u64| {
            Shape::warps(warps as u32)
                .grid(grid as u32)
                .buffer(bytes(it))
        };
        let a = self.t(&self.stream_src(warps, iters), &shape(iters))?;
        let b = self.t(&self.stream_src(warps, 2 * iters), &shape(2 * iters))?;
        Ok((per * iters * self.line) as f64 / (b.saturating_sub(a)).max(1) as f64)
    }

    fn bandwidth(&mut self) -> R<()> {
        let cus = self.cus.unwrap_or(1);
        let warps = self
            .wmax
            .min(8)
            .min(self.per_cu.unwrap_or(1).max(1) * self.wmax);
        let full = self.stream_rate(2 * cus, warps)?;
        let half = self.stream_rate(cus, warps.div_ceil(2))?;
        let bench = "line loads streamed by every warp of 2 x CUs workgroups (bytes per cycle; again with a quarter of the warps)";
        let cfg = self.m.dram.bytes_per_cycle;
        // Misses in flight bound a stream to (misses x line / latency) bytes a cycle: a
        // rate near that bound says nothing of DRAM's.
        let latency_bound = self
            .in_flight_cap
            .is_some_and(|m| full >= 0.9 * (m * self.line) as f64 / self.dram as f64);
        let steady = match self.in_flight_cap {
            Some(_) => !latency_bound,
            None => (full - half).abs() <= 0.02 * full,
        };
        if steady {
            self.bpc = Some(full);
            self.row(
                "dram.bytes_per_cycle",
                Value::Float(cfg),
                Some(Value::Float(full)),
                Recovery::Within2Percent,
                bench,
                String::new(),
            );
        } else {
            self.row(
                "dram.bytes_per_cycle",
                Value::Float(cfg),
                Some(Value::Float(full.max(half))),
                Recovery::AtLeast,
                bench,
                "the streams are limited by misses in flight, not by DRAM".into(),
            );
        }
        Ok(())
    }

    // ---- MSHRs: misses in flight ----

    fn mshrs(&mut self) -> R<()> {
        let line = self.line;
        let kmax = self
            .vreg_budget(1)
            .saturating_sub(11)
            .min(self.in_flight(MEM) - 1);
        let loads = |k: u64| {
            repeat(k, |j| {
                format!("gload.b32 v{}, v9, u[16:17], {}", 10 + j, j * line)
            })
        };
        let src1 = |k: u64| format!("{BASE}movi v9, 0\n{}endpgm\n", loads(k));
        let buf = vec![0u8; ((kmax + 2) * line) as usize];
        let one = Shape::one().buffer(buf);
        // A load that must wait for an MSHR waits for a whole miss: the time jumps by
        // about the DRAM latency, where one more load otherwise adds a line's transfer.
        let jump = (self.dram / 4).max(2);
        let mut prev = self.t(&src1(1), &one)?;
        let mut knee = None;
        for k in 2..=kmax {
            let cur = self.t(&src1(k), &one)?;
            if cur.saturating_sub(prev) > jump {
                knee = Some(k - 1);
                break;
            }
            prev = cur;
        }
        let hidden = u64::MAX;
        let bench1 = "one warp's cold line loads: the first load that waits for a miss to complete";
        let (c1, c2) = (u64::from(self.m.l1.mshrs), u64::from(self.m.l2.mshrs));
        let Some(a) = knee else {
            let bound = kmax.min(hidden);
            let _ = bound;
            self.unobservable("l1.mshrs", Value::Int(c1), bench1, "no wait seen: DRAM bandwidth, registers or the vm counter limit the loads in flight first");
            self.unobservable("l2.mshrs", Value::Int(c2), bench1, "no wait seen");
            return Ok(());
        };
        // Several compute units at once: the L2's MSHRs are shared by all of them.
        let cus = self.cus.unwrap_or(1);
        let bench2 = "cold line loads from every compute unit at once: the first that waits (the L2's MSHRs are shared)";
        let exclusive = self.shared_cap.filter(|&s| s > 0);
        let mut knee2 = None;
        let mut tried = a;
        if let (true, Some(s)) = (cus > 1, exclusive) {
            let src = |k: u64, extra: u64| {
                format!(
                    "{BASE}{}umul u22, u12, u23\nadd.vu v9, v1, u22\n{}usltiu u25, u12, {extra}\nbz u25, 7f\ngload.b32 v{}, v9, u[16:17], {}\n7:\nendpgm\n",
                    set_u("u23", (a + 2) * line),
                    loads(k),
                    10 + k,
                    k * line
                )
            };
            let buf = vec![0u8; (cus * (a + 2) * line) as usize];
            let shape = Shape::one().shared(s as u32).grid(cus as u32).buffer(buf);
            let mut prev = self.t(&src(0, 1), &shape)?;
            let top = (cus * a)
                .min(self.vreg_budget(1).saturating_sub(12) * cus)
                .min(1024);
            for x in 2..=top {
                let (k, extra) = (x / cus, x % cus);
                let cur = self.t(&src(k, extra), &shape)?;
                tried = x;
                if cur.saturating_sub(prev) > jump {
                    knee2 = Some(x - 1);
                    break;
                }
                prev = cur;
            }
        }
        match knee2 {
            Some(m2) if m2 > a => {
                self.in_flight_cap = Some(m2);
                self.exact("l1.mshrs", c1, a, bench1);
                self.exact("l2.mshrs", c2, m2, bench2);
            }
            Some(m2) => {
                self.in_flight_cap = Some(m2);
                self.at_least("l1.mshrs", c1, a, bench1, "the L2's MSHRs limit first");
                self.exact("l2.mshrs", c2, m2, bench2);
            }
            None if cus > 1 && exclusive.is_some() => {
                self.in_flight_cap = Some(cus * a);
                self.exact("l1.mshrs", c1, a, bench1);
                let _ = (tried, hidden);
                self.unobservable("l2.mshrs", Value::Int(c2), bench2, "no wait seen: DRAM bandwidth or the L1s' MSHRs limit the misses in flight first");
            }
            None => {
                self.at_least(
                    "l1.mshrs",
                    c1,
                    a,
                    bench1,
                    "one compute unit cannot tell the L1's MSHRs from the L2's",
                );
                self.at_least(
                    "l2.mshrs",
                    c2,
                    a,
                    bench1,
                    "one compute unit cannot tell the L1's MSHRs from the L2's",
                );
            }
        }
        Ok(())
    }

    // ---- policies ----

    fn policy(&mut self) -> R<()> {
        let bench = "width + 1 warps on one scheduler, each a stream, a cold load and a stream (one issue a cycle: the load's latency hides only under gto; more: gto leaves the youngest warp to finish alone)";
        let cfg = Value::Text(
            match self.m.cu.policy {
                Policy::LooseRoundRobin => "lrr",
                Policy::GreedyThenOldest => "gto",
            }
            .into(),
        );
        let Some((s, w)) = self.sched else {
            self.unobservable(
                "cu.policy",
                cfg,
                bench,
                "needs the schedulers and issue width",
            );
            return Ok(());
        };
        if w * s >= self.wmax || self.mix_capacity() < w as f64 {
            self.unobservable("cu.policy", cfg, bench, "width + 1 warps cannot share a scheduler in one workgroup, or the units cannot keep them issuing");
            return Ok(());
        }
        let slots: Vec<u64> = (0..=w).map(|k| k * s).collect();
        let mut pro = String::from(BASE);
        for x in &slots {
            pro.push_str(&format!("uaddi u61, u29, {}\nbz u61, 8f\n", -(*x as i64)));
        }
        pro.push_str("endpgm\n8:\n");
        // The VALU alone when it takes `w` instructions every cycle (interval 1), so the
        // warps never wait for a unit; else the mix.
        let (vp, vq) = self.rates[VALU].many;
        let pattern = if vq == 1 && vp >= w && !self.mnemonic[VALU].is_empty() {
            vec![format!("{} v{{v}}, v0, v1", self.mnemonic[VALU])]
        } else {
            self.mix_pattern()
        };
        let len = pattern.len() as u64;
        let vreg = self.stream_regs(VALU, w * s + 1);
        // Cold loads one after another stall a warp for at least 200 cycles in all.
        let loads = 200u64.div_ceil(self.dram + 1);
        let stall = loads * (self.dram + 1);
        let rounds = (stall + 64).div_ceil(len);
        let phase = repeat(rounds * len, |j| {
            pattern[(j % len) as usize]
                .replace("{v}", &(4 + j % vreg).to_string())
                .replace("{u}", &(20 + j % 40).to_string())
        });
        let cold = repeat(loads, |j| {
            format!(
                "gload.b32 v3, v2, u[16:17], {}\nwaitcnt vm=0",
                j * self.line
            )
        });
        let src = |load: bool| {
            format!(
                "{pro}{}umul u22, u29, u23\nadd.vu v2, v1, u22\n{phase}{}waitcnt vm=0\n{phase}endpgm\n",
                set_u("u23", (loads + 1) * self.line),
                if load { cold.as_str() } else { "" }
            )
        };
        let top = w * s + 1;
        let shape =
            Shape::warps(top as u32).buffer(vec![0u8; ((loads + 2) * self.line * top) as usize]);
        let with = self.t(&src(true), &shape)?;
        let without = self.t(&src(false), &shape)?;
        let lrr = if w == 1 {
            with.saturating_sub(without) > stall / 2
        } else {
            // With several issues a cycle, greedy-then-oldest keeps the `w` oldest warps
            // issuing and leaves the last one to finish alone (about 2N cycles for N
            // instructions a warp), where round-robin shares the scheduler evenly (about
            // N (w + 1) / w).
            let n = 2 * rounds * len;
            let mid = (n * (w + 1) / w + 2 * n) / 2;
            without < mid
        };
        self.row(
            "cu.policy",
            cfg,
            Some(Value::Text(if lrr { "lrr" } else { "gto" }.into())),
            Recovery::Exact,
            bench,
            String::new(),
        );
        Ok(())
    }

    fn dispatch(&mut self) -> R<()> {
        let bench = "two one-warp workgroups, each a stream of the slowest class: on one compute unit (fill) they share its units";
        let cfg = Value::Text(
            match self.m.dispatch.policy {
                DispatchPolicy::RoundRobin => "round-robin",
                DispatchPolicy::Fill => "fill",
            }
            .into(),
        );
        if self.cus.unwrap_or(1) < 2 || self.per_cu.unwrap_or(1) < 2 {
            self.unobservable(
                "dispatch.policy",
                cfg,
                bench,
                "needs two compute units that each hold two workgroups",
            );
            return Ok(());
        }
        // The class whose units two warps can saturate: rate of many warps below twice
        // one warp's.
        let pick = (0..5)
            .filter(|&c| c == MEM || c == BRANCH || !self.mnemonic[c].is_empty())
            .find(|&c| {
                let r = &self.rates[c];
                let single = r.single.1 as f64 / r.single.0 as f64;
                let many = r.many.0 as f64 / r.many.1 as f64;
                many < 1.5 * single
            });
        let Some(class) = pick else {
            self.unobservable(
                "dispatch.policy",
                cfg,
                bench,
                "no class's units are shared by two warps",
            );
            return Ok(());
        };
        let regs = self.stream_regs(class, 2);
        let src = format!(
            "{}endpgm\n",
            repeat(420, |j| self.independent(class, j, regs))
        );
        let t1 = self.t(&src, &Shape::one().shared(4))?;
        let t2 = self.t(&src, &Shape::one().shared(4).grid(2))?;
        let fill = t2 > t1 + t1 / 5;
        self.row(
            "dispatch.policy",
            cfg,
            Some(Value::Text(
                if fill { "fill" } else { "round-robin" }.into(),
            )),
            Recovery::Exact,
            bench,
            String::new(),
        );
        Ok(())
    }
}

/// A line of assembly that uses `mnemonic` with every register operand the same
/// registers, so each copy depends on the one before; `None` when a fixed latency cannot
/// show (no register written, asynchronous, memory, a keyed operand).
fn chain_line(mnemonic: &str) -> Option<String> {
    let def = Op::from_mnemonic(mnemonic)?.def();
    if def.memory.is_some() || matches!(def.latency, Latency::Async(_)) {
        return None;
    }
    let writes = def.operands.iter().any(|o| {
        matches!(
            o.role,
            warpkit_isa::Role::Write | warpkit_isa::Role::ReadWrite
        )
    });
    if !writes {
        return None;
    }
    let mut ops = Vec::new();
    let mut label = false;
    for o in def.operands {
        // Keyed and optional operands may be left out: they take their defaults.
        if o.kind.keyed || o.kind.optional {
            continue;
        }
        let ty = o.ty();
        let regs = o.kind.regs.max(1);
        let text = match ty.class {
            OperandClass::VReg if ty.half => "v16.l".to_string(),
            OperandClass::VReg => match regs {
                1 => "v16".into(),
                n => format!("v[16:{}]", 16 + u32::from(n) - 1),
            },
            OperandClass::UReg => match regs {
                1 => "u24".into(),
                n => format!("u[24:{}]", 24 + u32::from(n) - 1),
            },
            _ if ty.pc_relative => {
                label = true;
                "1f".into()
            }
            _ => "0".into(),
        };
        ops.push(text);
    }
    // Some operands are modifiers the syntax writes otherwise (or leaves out): the
    // first spelling that assembles is the one.
    let regs_only: Vec<String> = ops
        .iter()
        .filter(|o| o.starts_with('v') || o.starts_with('u') || o.as_str() == "1f")
        .cloned()
        .collect();
    [ops, regs_only].into_iter().find_map(|ops| {
        let mut s = format!("{mnemonic} {}", ops.join(", "));
        if label {
            s.push_str("\n1:");
        }
        warpkit_asm::assemble(&format!("{s}\nendpgm\n"), "chain.s")
            .is_ok()
            .then_some(s)
    })
}
