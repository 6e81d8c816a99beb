//! Every knob of the machine matters: for each field, a kernel that depends on it changes
//! its cycles in the expected direction when the field changes, and a kernel that does not
//! depend on it keeps exactly the same cycles. (`units.mem.latency` has no effect by the
//! model's definition, memory instructions being asynchronous, and `name` none either:
//! both are checked to change nothing.)

use warpkit_sim::launch::{Arg, ArgValue, LaunchConfig};
use warpkit_sim::Program;
use warpkit_timing::machine::{DispatchPolicy, Policy};
use warpkit_timing::{launch_timed, Machine, TimingOptions};

#[derive(Clone)]
struct K {
    src: String,
    grid: u32,
    warps: u32,
    shared: u32,
    buffer: Vec<u8>,
}

fn k(src: String) -> K {
    K {
        src,
        grid: 1,
        warps: 1,
        shared: 0,
        buffer: vec![],
    }
}

impl K {
    fn grid(mut self, g: u32) -> K {
        self.grid = g;
        self
    }
    fn warps(mut self, w: u32) -> K {
        self.warps = w;
        self
    }
    fn shared(mut self, s: u32) -> K {
        self.shared = s;
        self
    }
    fn buffer(mut self, b: Vec<u8>) -> K {
        self.buffer = b;
        self
    }
}

fn cycles(m: &Machine, k: &K) -> u64 {
    let p = warpkit_asm::assemble(&k.src, "k.s").unwrap_or_else(|e| panic!("{e}\n{}", k.src));
    let p = Program::with_data(p.text, p.data);
    let cfg = LaunchConfig {
        grid: [k.grid, 1, 1],
        block: [32 * k.warps, 1, 1],
        shared_bytes: k.shared,
        threads: 1,
        ..LaunchConfig::default()
    };
    let args = vec![Arg {
        name: "b".into(),
        value: ArgValue::Buffer(k.buffer.clone()),
    }];
    let opts = TimingOptions {
        machine: m.clone(),
        threads: 1,
        ..TimingOptions::default()
    };
    let (r, rep) = launch_timed(&p, &cfg, args, &opts).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.traps.is_empty(), "{:?}", r.traps);
    rep.cycles
}

fn rep(n: usize, line: impl Fn(usize) -> String) -> String {
    (0..n).map(|i| line(i) + "\n").collect()
}

const BASE: &str = "umovi u16, 0\numovi u17, 1\n";

fn chain(line: &str) -> K {
    k(format!("{}endpgm\n", rep(32, |_| line.to_string())))
}
fn valu_chain() -> K {
    chain("add v10, v10, v10")
}
fn salu_chain() -> K {
    chain("uadd u20, u20, u20")
}
/// Independent instructions of one class from `warps` warps.
fn stream(line: &str, warps: u32) -> K {
    k(format!(
        "{}endpgm\n",
        rep(256, |i| line.replace("R", &(4 + i % 24).to_string()))
    ))
    .warps(warps)
}
/// A pointer chase through `offsets` (cyclic), `loads` loads.
fn chase(offsets: &[u64], loads: usize) -> K {
    let end = *offsets.iter().max().unwrap() as usize + 4;
    let mut b = vec![0u8; end];
    for (i, &o) in offsets.iter().enumerate() {
        let next = offsets[(i + 1) % offsets.len()] as u32;
        b[o as usize..o as usize + 4].copy_from_slice(&next.to_le_bytes());
    }
    k(format!(
        "{BASE}{}endpgm\n",
        rep(loads, |_| "waitcnt vm=0\ngload.b32 v10, v10, u[16:17], 0"
            .into())
    ))
    .buffer(b)
}
fn one_word() -> K {
    chase(&[0], 16)
}
fn cold_loads(n: usize) -> K {
    k(format!(
        "{BASE}movi v9, 0\n{}endpgm\n",
        rep(n, |i| format!(
            "gload.b32 v{}, v9, u[16:17], {}",
            10 + i,
            i * 128
        ))
    ))
    .buffer(vec![0u8; 128 * n + 4])
}
fn ds(stride: u32) -> K {
    k(format!(
        "laneid v8\nmovi v7, {stride}\nmul v8, v8, v7\n{}endpgm\n",
        rep(16, |_| "dsload.b32 v10, v8, 0".into())
    ))
    .shared(32 * stride + 4)
}
/// Warps 0 and `other` (the rest end at once): a stream, a cold load, a stream.
fn policy_kernel(other: u32) -> K {
    let phase = rep(500, |i| format!("add v{}, v0, v1", 4 + i % 8));
    k(format!(
        "{BASE}bz u29, 8f\nuaddi u61, u29, -{other}\nbz u61, 8f\nendpgm\n8:\numovi u23, 512\numul u22, u29, u23\nadd.vu v2, v1, u22\n{phase}gload.b32 v3, v2, u[16:17], 0\nwaitcnt vm=0\n{phase}endpgm\n"
    ))
    .warps(other + 1)
    .buffer(vec![0u8; 512 * (other as usize + 1)])
}
fn bandwidth() -> K {
    k(format!(
        "{BASE}umul u22, u12, u11\nuadd u22, u22, u29\numovi u23, 2\nuslli u23, u23, 12\numul u22, u22, u23\nadd.vu v9, v1, u22\n{}waitcnt vm=0\nendpgm\n",
        rep(32, |i| format!("gload.b32 v{}, v9, u[16:17], {}", 10 + i, i * 128))
    ))
    .grid(16)
    .warps(4)
    .buffer(vec![0u8; 16 * 4 * 8192])
}
fn lines(n: u64, stride: u64) -> Vec<u64> {
    (0..n).map(|i| i * stride).collect()
}

struct Case {
    knob: &'static str,
    base: fn(&mut Machine),
    change: fn(&mut Machine),
    dep: K,
    /// Cycles go up (true) or down when the knob changes.
    up: bool,
    indep: K,
}

fn none(_: &mut Machine) {}

fn cases() -> Vec<Case> {
    let one_cu = |m: &mut Machine| m.compute_units = 1;
    let _ = one_cu;
    let long = valu_chain();
    vec![
        Case {
            knob: "compute_units",
            base: none,
            change: |m| m.compute_units = 2,
            dep: long.clone().grid(16),
            up: true,
            indep: long.clone(),
        },
        Case {
            knob: "cu.warp_slots",
            base: |m| m.compute_units = 1,
            change: |m| m.cu.warp_slots = 8,
            dep: long.clone().grid(8).warps(4),
            up: true,
            indep: long.clone(),
        },
        Case {
            knob: "cu.vregs",
            base: |m| m.compute_units = 1,
            change: |m| m.cu.vregs = 256,
            dep: k(format!("movi v127, 0\n{}", valu_chain().src)).grid(8),
            up: true,
            indep: long.clone(),
        },
        Case {
            knob: "cu.vreg_granule",
            base: |m| {
                m.compute_units = 1;
                m.cu.vregs = 512;
                m.cu.max_workgroups = 64;
                m.cu.warp_slots = 64
            },
            change: |m| m.cu.vreg_granule = 128,
            dep: long.clone().grid(32),
            up: true,
            indep: long.clone(),
        },
        Case {
            knob: "cu.shared_bytes",
            base: |m| m.compute_units = 1,
            change: |m| m.cu.shared_bytes = 8192,
            dep: long.clone().grid(16).shared(4096),
            up: true,
            indep: long.clone().shared(4096),
        },
        Case {
            knob: "cu.max_workgroups",
            base: |m| m.compute_units = 1,
            change: |m| m.cu.max_workgroups = 2,
            dep: long.clone().grid(16),
            up: true,
            indep: long.clone(),
        },
        Case {
            knob: "cu.schedulers",
            base: none,
            change: |m| m.cu.schedulers = 1,
            dep: stream("add vR, v0, v1", 8),
            up: true,
            indep: long.clone(),
        },
        Case {
            knob: "cu.issue_width",
            base: |m| m.cu.schedulers = 1,
            change: |m| m.cu.issue_width = 2,
            dep: stream("add vR, v0, v1", 8),
            up: false,
            indep: long.clone(),
        },
        Case {
            knob: "cu.policy",
            base: |m| m.cu.schedulers = 1,
            change: |m| m.cu.policy = Policy::GreedyThenOldest,
            dep: policy_kernel(1),
            up: false,
            indep: long.clone(),
        },
        Case {
            knob: "units.valu.count",
            base: none,
            change: |m| m.units.valu.count = 1,
            dep: stream("add vR, v0, v1", 8),
            up: true,
            indep: salu_chain(),
        },
        Case {
            knob: "units.valu.interval",
            base: none,
            change: |m| m.units.valu.interval = 4,
            dep: stream("add vR, v0, v1", 8),
            up: true,
            indep: salu_chain(),
        },
        Case {
            knob: "units.valu.latency",
            base: none,
            change: |m| m.units.valu.latency = Some(9),
            dep: valu_chain(),
            up: true,
            indep: salu_chain(),
        },
        Case {
            knob: "units.salu.count",
            base: |m| m.units.salu.interval = 4,
            change: |m| m.units.salu.count = 4,
            dep: stream("uadd uR, u14, u15", 8),
            up: false,
            indep: valu_chain(),
        },
        Case {
            knob: "units.salu.interval",
            base: none,
            change: |m| m.units.salu.interval = 3,
            dep: stream("uadd uR, u14, u15", 8),
            up: true,
            indep: valu_chain(),
        },
        Case {
            knob: "units.salu.latency",
            base: none,
            change: |m| m.units.salu.latency = Some(7),
            dep: salu_chain(),
            up: true,
            indep: valu_chain(),
        },
        Case {
            knob: "units.sfu.count",
            base: none,
            change: |m| m.units.sfu.count = 4,
            dep: stream("frcp.f32 vR, v0", 8),
            up: false,
            indep: valu_chain(),
        },
        Case {
            knob: "units.sfu.interval",
            base: none,
            change: |m| m.units.sfu.interval = 8,
            dep: stream("frcp.f32 vR, v0", 8),
            up: true,
            indep: valu_chain(),
        },
        Case {
            knob: "units.sfu.latency",
            base: none,
            change: |m| m.units.sfu.latency = Some(40),
            dep: chain("frcp.f32 v10, v10"),
            up: true,
            indep: valu_chain(),
        },
        Case {
            knob: "units.mem.count",
            base: |m| m.units.mem.interval = 4,
            change: |m| m.units.mem.count = 4,
            dep: stream("dsload.b32 vR, v1, 0", 8).shared(4),
            up: false,
            indep: valu_chain(),
        },
        Case {
            knob: "units.mem.interval",
            base: none,
            change: |m| m.units.mem.interval = 4,
            dep: stream("dsload.b32 vR, v1, 0", 8).shared(4),
            up: true,
            indep: valu_chain(),
        },
        Case {
            knob: "units.branch.count",
            base: |m| m.units.branch.interval = 4,
            change: |m| m.units.branch.count = 4,
            dep: stream("jmp 1f\n1:", 8),
            up: false,
            indep: valu_chain(),
        },
        Case {
            knob: "units.branch.interval",
            base: none,
            change: |m| m.units.branch.interval = 3,
            dep: stream("jmp 1f\n1:", 8),
            up: true,
            indep: valu_chain(),
        },
        Case {
            knob: "units.branch.latency",
            base: none,
            change: |m| m.units.branch.latency = Some(5),
            dep: chain("jal u30, 1f\n1:"),
            up: true,
            indep: valu_chain(),
        },
        Case {
            knob: "latency",
            base: none,
            change: |m| {
                m.latency.insert("add".into(), 9);
            },
            dep: valu_chain(),
            up: true,
            indep: chain("sub v10, v10, v10"),
        },
        Case {
            knob: "shared.banks",
            base: none,
            change: |m| m.shared.banks = 8,
            dep: ds(4),
            up: true,
            indep: ds(0),
        },
        Case {
            knob: "shared.bank_bytes",
            base: none,
            change: |m| m.shared.bank_bytes = 16,
            dep: ds(16),
            up: false,
            indep: ds(0),
        },
        Case {
            knob: "shared.latency",
            base: none,
            change: |m| m.shared.latency = 40,
            dep: ds(0),
            up: true,
            indep: valu_chain(),
        },
        Case {
            knob: "l1.size_bytes",
            base: none,
            change: |m| m.l1.size_bytes = 4096,
            dep: chase(&lines(64, 128), 256),
            up: true,
            indep: one_word(),
        },
        Case {
            knob: "l1.line_bytes, l2.line_bytes",
            base: none,
            change: |m| {
                m.l1.line_bytes = 64;
                m.l2.line_bytes = 64
            },
            dep: chase(&lines(32, 64), 32),
            up: true,
            indep: one_word(),
        },
        Case {
            knob: "l1.ways",
            base: none,
            change: |m| m.l1.ways = 1,
            dep: chase(&lines(4, 16384), 64),
            up: true,
            indep: one_word(),
        },
        Case {
            knob: "l1.hit_latency",
            base: none,
            change: |m| m.l1.hit_latency = 50,
            dep: one_word(),
            up: true,
            indep: valu_chain(),
        },
        Case {
            knob: "l1.mshrs",
            base: none,
            change: |m| m.l1.mshrs = 4,
            dep: cold_loads(32),
            up: true,
            indep: one_word(),
        },
        Case {
            knob: "l2.size_bytes",
            base: none,
            change: |m| m.l2.size_bytes = 65536,
            dep: chase(&lines(1024, 128), 3072),
            up: true,
            indep: one_word(),
        },
        Case {
            knob: "l2.ways",
            base: none,
            change: |m| m.l2.ways = 1,
            dep: chase(&lines(8, 1 << 20), 64),
            up: true,
            indep: one_word(),
        },
        Case {
            knob: "l2.hit_latency",
            base: none,
            change: |m| m.l2.hit_latency = 200,
            dep: chase(&lines(256, 128), 768),
            up: true,
            indep: one_word(),
        },
        Case {
            knob: "l2.mshrs",
            base: none,
            change: |m| m.l2.mshrs = 4,
            dep: cold_loads(32),
            up: true,
            indep: one_word(),
        },
        Case {
            knob: "dram.latency",
            base: none,
            change: |m| m.dram.latency = 800,
            dep: chase(&lines(16, 65536), 16),
            up: true,
            indep: valu_chain(),
        },
        Case {
            knob: "dram.bytes_per_cycle",
            base: none,
            change: |m| m.dram.bytes_per_cycle = 4.0,
            dep: bandwidth(),
            up: true,
            indep: one_word(),
        },
        Case {
            knob: "dispatch.policy",
            base: none,
            change: |m| m.dispatch.policy = DispatchPolicy::Fill,
            dep: stream("frcp.f32 vR, v0", 1).grid(2),
            up: true,
            indep: stream("frcp.f32 vR, v0", 1),
        },
    ]
}

#[test]
fn every_knob_moves_a_kernel_that_depends_on_it_and_no_other() {
    let mut failures = Vec::new();
    for c in cases() {
        let mut base = Machine::default();
        (c.base)(&mut base);
        let mut changed = base.clone();
        (c.change)(&mut changed);
        assert!(
            changed.validate().is_ok(),
            "{}: {:?}",
            c.knob,
            changed.validate()
        );
        assert_ne!(base, changed, "{}", c.knob);
        let (d0, d1) = (cycles(&base, &c.dep), cycles(&changed, &c.dep));
        let (i0, i1) = (cycles(&base, &c.indep), cycles(&changed, &c.indep));
        let moved = if c.up { d1 > d0 } else { d1 < d0 };
        if !moved || i0 != i1 {
            failures.push(format!(
                "{}: dependent {d0} -> {d1} (expected {}), independent {i0} -> {i1}",
                c.knob,
                if c.up { "up" } else { "down" }
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_field_has_a_case() {
    // The machine's fields as its TOML names them; each is covered above or below.
    let toml = Machine::default().to_toml();
    let covered: Vec<&str> = cases().iter().flat_map(|c| c.knob.split(", ")).collect();
    let mut table = String::new();
    for line in toml.lines() {
        let line = line.trim();
        if let Some(t) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            table = t.to_string();
            continue;
        }
        let Some((key, _)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim();
        let name = if table.is_empty() {
            key.to_string()
        } else {
            format!("{table}.{key}")
        };
        if name == "name" || name == "units.mem.latency" {
            continue;
        }
        assert!(
            covered.contains(&name.as_str())
                || (table == "latency" && covered.contains(&"latency")),
            "no sensitivity case for {name}"
        );
    }
}

#[test]
fn the_name_and_the_mem_class_latency_change_nothing() {
    let kernels = [valu_chain(), ds(4), one_word(), cold_loads(8)];
    for change in [
        (|m: &mut Machine| m.name = "other".into()) as fn(&mut Machine),
        |m| m.units.mem.latency = Some(99),
    ] {
        let mut m = Machine::default();
        change(&mut m);
        for kn in &kernels {
            assert_eq!(cycles(&Machine::default(), kn), cycles(&m, kn));
        }
    }
}
