//! Every group-1 variant and every provisional system/CSR instruction is executed by the
//! interpreter itself (none falls through to the asynchronous path), and vector and uniform
//! forms of the same operation agree lane by lane.

use crate::common::*;
use warpkit_isa::{Instr, Latency, Op, OperandClass, INSTRUCTIONS};
use warpkit_sim::trap::CAUSE_UNSUPPORTED;
use warpkit_sim::*;

#[test]
fn every_synchronous_instruction_is_interpreted() {
    let mut count = 0;
    for def in INSTRUCTIONS.iter() {
        if matches!(def.latency, Latency::Async(_)) {
            continue;
        }
        // Even register numbers everywhere keep pairs legal; CSR 0 (exec) is writable.
        let raw: Vec<u32> = def
            .operands
            .iter()
            .map(|o| match o.kind.ty.class {
                OperandClass::VReg | OperandClass::UReg => 4,
                _ => 0,
            })
            .collect();
        let ins = Instr::from_raw(def.op, &raw).unwrap();
        let mut bytes = ins.to_bytes();
        bytes.extend(Instr::from_raw(Op::Endpgm, &[]).unwrap().to_bytes());
        let w = run_bytes(bytes, u32::MAX);
        if let WarpStatus::Trapped(t) = w.status {
            assert_ne!(t.cause, CAUSE_UNSUPPORTED, "{ins} is not interpreted");
        }
        count += 1;
    }
    assert!(count >= 241 + 6, "{count}");
    let group1 = INSTRUCTIONS.iter().filter(|d| d.group == 1).count();
    assert_eq!(group1, 241);
}

fn xorshift(x: &mut u64) -> u32 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    (*x >> 16) as u32
}

const EDGES: [u32; 10] = [
    0,
    1,
    2,
    31,
    32,
    33,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    u32::MAX,
];

/// Run the vector form on 32 lanes of (a, b) pairs and the uniform form on each pair.
#[test]
fn vector_and_uniform_forms_agree() {
    let pairs = [
        ("add", "uadd"),
        ("sub", "usub"),
        ("sll", "usll"),
        ("slt", "uslt"),
        ("sltu", "usltu"),
        ("xor", "uxor"),
        ("srl", "usrl"),
        ("sra", "usra"),
        ("or", "uor"),
        ("and", "uand"),
        ("min", "umin"),
        ("max", "umax"),
        ("minu", "uminu"),
        ("maxu", "umaxu"),
        ("andn", "uandn"),
        ("orn", "uorn"),
        ("xnor", "uxnor"),
        ("mul", "umul"),
        ("mulh", "umulh"),
        ("mulhu", "umulhu"),
        ("mulhsu", "umulhsu"),
        ("czero.eqz", "uczero.eqz"),
        ("czero.nez", "uczero.nez"),
        ("rol", "urol"),
        ("ror", "uror"),
        ("bfm", "ubfm"),
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..4 {
        let mut a = [0u32; 32];
        let mut b = [0u32; 32];
        for l in 0..32 {
            a[l] = if round == 0 {
                EDGES[l % 10]
            } else {
                xorshift(&mut seed)
            };
            b[l] = if round == 0 {
                EDGES[(l / 10 + l) % 10]
            } else {
                xorshift(&mut seed)
            };
            if round == 2 {
                b[l] &= 63;
            }
        }
        for (vop, uop) in pairs {
            // Lane values through the uniform file: mov.vu into a cndmask'd lane each.
            let mut src = String::new();
            for l in 0..32 {
                src += &format!(
                    "umov.l u1, {}\numov.l u2, {}\numov.l u3, {}\nmov.vu v9, u1\ncndmask v1, v9, u3\nmov.vu v9, u2\ncndmask v2, v9, u3\n{uop} u4, u1, u2\nmov.vu v9, u4\ncndmask v4, v9, u3\n",
                    a[l],
                    b[l],
                    1u64 << l
                );
            }
            src += &format!("{vop} v3, v1, v2\nendpgm");
            let w = run(&src);
            ended(&w);
            for l in 0..32 {
                assert_eq!(
                    w.v[3][l], w.v[4][l],
                    "{vop}/{uop} on {:#x}, {:#x}",
                    a[l], b[l]
                );
            }
        }
    }
}

#[test]
fn unary_vector_and_uniform_forms_agree() {
    let pairs = [
        ("not", "unot"),
        ("clz", "uclz"),
        ("ctz", "uctz"),
        ("cpop", "ucpop"),
        ("brev", "ubrev"),
        ("sext.b", "usext.b"),
        ("sext.h", "usext.h"),
        ("mov", "umov"),
    ];
    let mut seed = 0x1234_5678_9abc_def1u64;
    for (vop, uop) in pairs {
        let randoms: Vec<u32> = (0..10).map(|_| xorshift(&mut seed)).collect();
        for &a in EDGES.iter().chain(&randoms) {
            let w = run(&format!(
                "umov.l u1, {a}\nmov.vu v1, u1\n{vop} v2, v1\n{uop} u2, u1\nendpgm"
            ));
            assert_eq!(w.v[2][0], w.u[2], "{vop}/{uop} on {a:#x}");
        }
    }
}

#[test]
fn masked_and_full_exec_agree() {
    // The EXEC == all-ones fast path and the masked path give the same active lanes.
    let src = "laneid v1\nmul.vl v2, v1, 0x9e3779b9\nxor v3, v2, v1\nmulhu v4, v3, v2\nadd64 v[6:7], v[2:3], v[4:5]\nsra.vi v8, v3, 7\nmac v8, v3, v4\nendpgm";
    let full = run(src);
    let mask = 0x5a5a_a5a5u32;
    let part = run_exec(src, mask);
    for r in 1..9 {
        for l in 0..32 {
            let expect = if (mask >> l) & 1 != 0 {
                full.v[r][l]
            } else {
                0
            };
            assert_eq!(part.v[r][l], expect, "v{r} lane {l}");
        }
    }
}

/// For every vector instruction: with a partial EXEC, active lanes get exactly the full-EXEC
/// result and inactive lanes keep their old value; compares give the full mask & EXEC.
#[test]
fn exec_gating_holds_for_every_vector_instruction() {
    use warpkit_isa::{Flags, Role};
    let mut seed = 0xdead_beef_cafe_f00du64;
    for def in INSTRUCTIONS.iter().filter(|d| d.group == 1) {
        if def.flags.contains(Flags::EI) {
            continue;
        }
        // Registers: destination v40/u40 (pairs even), sources v2, v4, v6 / u4, u6.
        let raw: Vec<u32> = def
            .operands
            .iter()
            .map(|o| match (o.kind.ty.class, o.name, o.role) {
                (OperandClass::VReg, _, Role::Write | Role::ReadWrite) => 40,
                (OperandClass::UReg, _, Role::Write) => 40,
                (OperandClass::VReg, "rs1", _) => 2,
                (OperandClass::VReg, "rs2", _) => 4,
                (OperandClass::VReg, _, _) => 6,
                (OperandClass::UReg, "rs1", _) => 4,
                (OperandClass::UReg, _, _) => 6,
                _ => xorshift(&mut seed) & ((1u32 << o.field.width().min(31)) - 1),
            })
            .collect();
        let ins = Instr::from_raw(def.op, &raw).unwrap();
        let mut bytes = ins.to_bytes();
        bytes.extend(Instr::from_raw(Op::Endpgm, &[]).unwrap().to_bytes());
        let prog = Program::new(bytes);
        let mut init = Warp::new(Default::default(), u32::MAX);
        for r in 0..64 {
            for l in 0..32 {
                init.v[r][l] = match xorshift(&mut seed) % 4 {
                    0 => EDGES[(xorshift(&mut seed) % 10) as usize],
                    _ => xorshift(&mut seed),
                };
            }
        }
        for r in 0..64 {
            init.u[r] = xorshift(&mut seed);
        }
        // Keep movrel indexes small enough to stay in the file half the time.
        init.u[6] &= 0x7f;
        let run_with = |exec: u32| {
            let mut w = init.clone();
            w.set_exec(exec);
            w.run(&prog, &mut Core::default(), &mut NoMemory, &mut NoHooks, 10);
            assert_eq!(w.status, WarpStatus::Ended, "{ins}");
            w
        };
        let full = run_with(u32::MAX);
        let mask = xorshift(&mut seed);
        let part = run_with(mask);
        if def.flags.contains(Flags::UR) {
            assert_eq!(part.u[40], full.u[40] & mask, "{ins}");
            continue;
        }
        for r in 0..128 {
            for l in 0..32 {
                let expect = if (mask >> l) & 1 != 0 {
                    full.v[r][l]
                } else {
                    init.v[r][l]
                };
                assert_eq!(part.v[r][l], expect, "{ins}: v{r} lane {l}");
            }
        }
    }
}

/// For every instruction whose destination may name one of its sources: the result is
/// the same as with a distinct destination (sources are read before anything is written).
#[test]
fn destination_may_alias_any_source() {
    use warpkit_isa::{Flags, Role};
    let mut seed = 0x0123_4567_89ab_cdefu64;
    let mut checked = 0;
    for def in INSTRUCTIONS.iter().filter(|d| d.group == 1) {
        if def.flags.contains(Flags::BR)
            || def.flags.contains(Flags::IX)
            || def.flags.contains(Flags::IR)
        {
            continue;
        }
        let Some(dst) = def
            .operands
            .iter()
            .position(|o| matches!(o.role, Role::Write | Role::ReadWrite))
        else {
            continue;
        };
        let dclass = def.operands[dst].kind.ty.class;
        let base: Vec<u32> = def
            .operands
            .iter()
            .enumerate()
            .map(|(k, o)| match o.kind.ty.class {
                _ if k == dst => 40,
                OperandClass::VReg | OperandClass::UReg => 2 + 2 * k as u32,
                _ => xorshift(&mut seed) & ((1u32 << o.field.width().min(31)) - 1),
            })
            .collect();
        let mut init = Warp::new(Default::default(), 0x7fff_fffe);
        for r in 0..64 {
            for l in 0..32 {
                init.v[r][l] = xorshift(&mut seed);
            }
            init.u[r] = xorshift(&mut seed);
        }
        for (k, o) in def.operands.iter().enumerate() {
            if k == dst || o.kind.ty.class != dclass {
                continue;
            }
            let src = base[k] as usize;
            let count = usize::from(def.operands[dst].kind.regs.max(1));
            let run_with = |raw: &[u32], preset: bool| {
                let ins = Instr::from_raw(def.op, raw).unwrap();
                let mut bytes = ins.to_bytes();
                bytes.extend(Instr::from_raw(Op::Endpgm, &[]).unwrap().to_bytes());
                let prog = Program::new(bytes);
                let mut w = init.clone();
                if preset {
                    // The distinct destination starts with what the aliased one holds.
                    for j in 0..count {
                        if dclass == OperandClass::VReg {
                            w.v[40 + j] = w.v[src + j];
                        } else {
                            w.u[40 + j] = w.u[src + j];
                        }
                    }
                }
                w.run(&prog, &mut Core::default(), &mut NoMemory, &mut NoHooks, 10);
                assert_eq!(w.status, WarpStatus::Ended, "{ins}");
                (w, ins)
            };
            let (distinct, _) = run_with(&base, true);
            let mut aliased_raw = base.clone();
            aliased_raw[dst] = base[k];
            let (aliased, ins) = run_with(&aliased_raw, false);
            for j in 0..count {
                if dclass == OperandClass::VReg {
                    assert_eq!(aliased.v[src + j], distinct.v[40 + j], "{ins}");
                } else {
                    assert_eq!(aliased.u[src + j], distinct.u[40 + j], "{ins}");
                }
            }
            assert_eq!(aliased.exec(), distinct.exec(), "{ins}");
            checked += 1;
        }
    }
    assert!(checked > 150, "{checked}");
}
