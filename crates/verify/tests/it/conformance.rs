//! The conformance suite: it covers every variant of the database, exports the same bytes
//! every time, passes on both engines, fails exactly the planted instruction under a broken
//! DUT, and its self-checking programs pass on both engines and through the C API.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;
use warpkit_isa::{Op, ALL_OPS};
use warpkit_sim::launch::{Arg, ArgValue, ARGS_BASE, BUFFER_BASE};
use warpkit_sim::{Engine, Program};
use warpkit_verify::conformance::{
    self, cases, plant::replace_op, selfcheck, Implementation, Index,
};
use warpkit_verify::dut::{Dut, DutError};
use warpkit_verify::vector::{self, compare, Launch, Vector, VectorError};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpkit-verify-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The suite, exported once for every test that reads it.
fn suite() -> &'static (PathBuf, Index) {
    static SUITE: OnceLock<(PathBuf, Index)> = OnceLock::new();
    SUITE.get_or_init(|| {
        let dir = temp("suite");
        let done = conformance::export(&dir).expect("the suite exports");
        (dir, done.index)
    })
}

#[test]
fn every_variant_has_one_vector_and_group_one_has_241() {
    let (_, index) = suite();
    assert_eq!(index.vectors.len(), ALL_OPS.len());
    let mut seen = BTreeMap::new();
    for e in &index.vectors {
        let op = Op::from_mnemonic(&e.variant).expect("a database variant");
        assert_eq!(e.group, cases::group_of(op));
        *seen.entry(e.variant.clone()).or_insert(0) += 1;
    }
    assert!(seen.values().all(|&n| n == 1), "a variant twice");
    assert_eq!(index.groups["group1"], 241, "seed 002's group 1");
    let count = |g: u16, memory: bool| {
        ALL_OPS
            .iter()
            .filter(|op| op.def().group == g && op.def().memory.is_some() == memory)
            .count()
    };
    assert_eq!(index.groups["float"], count(101, false));
    assert_eq!(index.groups["memory"], count(101, true));
    assert_eq!(index.groups["system"], count(100, false) + count(100, true));
    assert!(index.groups["float"] > 0 && index.groups["memory"] > 0);
    assert_eq!(index.programs.len(), index.vectors.len());
}

#[test]
fn vectors_cover_exec_patterns_traps_and_branches() {
    let (dir, index) = suite();
    let load = |name: &str| {
        let e = index.vectors.iter().find(|e| e.name == name).unwrap();
        Vector::load(&dir.join(&e.file)).unwrap()
    };
    let add = load("add");
    let execs: Vec<u32> = add.pre.warps.iter().map(|w| w.exec).collect();
    assert!(execs.contains(&u32::MAX) && execs.contains(&0));
    assert!(execs.iter().any(|e| e.count_ones() == 1));
    assert!(execs.iter().any(|e| e.count_ones() > 1 && *e != u32::MAX));
    // A branch: taken (mark 2) in some warps, not (mark 1) in others.
    let b = load("bexecz");
    let marks: Vec<u32> = b.post.warps.iter().map(|w| w.u[55]).collect();
    assert!(marks.contains(&1) && marks.contains(&2), "{marks:?}");
    // Memory: a misaligned access and an access fault.
    let g = load("gload.b32");
    let causes: Vec<u32> = g
        .post
        .warps
        .iter()
        .filter_map(|w| w.trap.map(|t| t.cause))
        .collect();
    assert!(causes.contains(&4) && causes.contains(&5), "{causes:?}");
    // Every group has trapping cases somewhere.
    let mut trapping = BTreeMap::new();
    for e in &index.vectors {
        let v = Vector::load(&dir.join(&e.file)).unwrap();
        if v.post.warps.iter().any(|w| w.trap.is_some()) {
            *trapping.entry(e.group.clone()).or_insert(0) += 1;
        }
    }
    for g in ["group1", "float", "memory", "system"] {
        assert!(trapping.get(g).copied().unwrap_or(0) > 0, "no trap in {g}");
    }
}

#[test]
fn export_is_deterministic() {
    let (dir, _) = suite();
    let again = temp("again");
    conformance::export(&again).unwrap();
    let files = |d: &Path| {
        let mut out = BTreeMap::new();
        let mut stack = vec![d.to_path_buf()];
        while let Some(p) = stack.pop() {
            for e in std::fs::read_dir(&p).unwrap() {
                let e = e.unwrap().path();
                if e.is_dir() {
                    stack.push(e);
                } else {
                    let rel = e.strip_prefix(d).unwrap().to_path_buf();
                    out.insert(rel, std::fs::read(&e).unwrap());
                }
            }
        }
        out
    };
    let (a, b) = (files(dir), files(&again));
    assert_eq!(a.len(), b.len());
    for (k, v) in &a {
        assert!(
            b.get(k) == Some(v),
            "{} differs between exports",
            k.display()
        );
    }
    let _ = std::fs::remove_dir_all(&again);
}

#[test]
fn the_suite_passes_on_both_engines() {
    let (dir, index) = suite();
    for engine in [Engine::Interp, Engine::Jit] {
        let out = conformance::run(dir, &Implementation::Model(engine), |_| {}).unwrap();
        assert_eq!(out.len(), index.vectors.len());
        let failed: Vec<_> = out.iter().filter(|o| !o.pass).collect();
        assert!(failed.is_empty(), "{engine}: {failed:?}");
    }
}

/// The example DUT with a planted bug, built by `cargo test` beside this binary.
fn broken_dut() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().join("examples");
    let p = dir.join(format!("broken_dut{}", std::env::consts::EXE_SUFFIX));
    assert!(
        p.exists(),
        "{} is missing: cargo test builds the examples",
        p.display()
    );
    p
}

#[test]
fn a_planted_bug_fails_exactly_its_instructions_vectors() {
    let (dir, index) = suite();
    let cmd = format!("{} xor or", broken_dut().display());
    let out = conformance::run(dir, &Implementation::Dut(Dut::new(&cmd)), |_| {}).unwrap();
    let failed: Vec<&str> = out
        .iter()
        .filter(|o| !o.pass)
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(failed, ["xor"]);
    let xor = out.iter().find(|o| o.name == "xor").unwrap();
    assert!(
        xor.mismatches.iter().any(|m| m.contains(": v8 lane ")),
        "{:?}",
        xor.mismatches
    );
    assert_eq!(out.len(), index.vectors.len());
}

#[test]
fn warpkit_as_its_own_dut_passes_through_the_protocol() {
    let (dir, index) = suite();
    // The model behind the DUT protocol: the broken DUT with a no-op swap.
    let cmd = format!("{} add add", broken_dut().display());
    let dut = Dut::new(&cmd);
    for e in index.vectors.iter().step_by(20) {
        let v = Vector::load(&dir.join(&e.file)).unwrap();
        let state = dut.run(&v).unwrap();
        assert!(compare(&v.post, &state).is_empty(), "{}", e.name);
    }
}

#[test]
fn dut_failures_are_typed() {
    let (dir, index) = suite();
    let v = Vector::load(&dir.join(&index.vectors[0].file)).unwrap();
    match Dut::new("exit 3").run(&v) {
        Err(DutError::Exit { code: Some(3), .. }) => {}
        r => panic!("{r:?}"),
    }
    match Dut::new("echo 'not json'; true").run(&v) {
        Err(DutError::BadOutput { line: 1, .. }) => {}
        r => panic!("{r:?}"),
    }
    // A DUT that never ends, in a shell that waits for it: both are ended.
    match Dut::new("sleep 100000; true")
        .with_timeout(Duration::from_millis(200))
        .run(&v)
    {
        Err(DutError::Timeout(_)) => {}
        r => panic!("{r:?}"),
    }
    // The vector's path is the last argument.
    let out = Dut::new("cat")
        .run(&v)
        .expect_err("a vector is not a state");
    assert!(matches!(out, DutError::BadOutput { .. }), "{out}");
}

#[test]
fn vectors_round_trip_through_json() {
    let (dir, index) = suite();
    for e in &index.vectors {
        let text = std::fs::read_to_string(dir.join(&e.file)).unwrap();
        let v = Vector::parse(&text).unwrap();
        assert_eq!(v.to_json(), text, "{}", e.name);
        assert_eq!(Vector::parse(&v.to_json()).unwrap(), v);
    }
}

#[test]
fn bad_vectors_give_located_errors() {
    let (dir, index) = suite();
    let path = dir.join(&index.vectors[0].file);
    let good: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let bad = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = good.clone();
        edit(&mut v);
        Vector::parse(&serde_json::to_string_pretty(&v).unwrap()).unwrap_err()
    };
    let e = bad(&|v| v["pre"]["warps"][2]["v"][5] = serde_json::json!([1, 2, 3]));
    assert_eq!(
        e.to_string(),
        "<vector>: pre.warps[2].v[5]: 3 lanes, expected 32"
    );
    let e = bad(&|v| v["post"]["warps"][1]["u"] = serde_json::json!([0]));
    assert!(
        e.to_string().contains("post.warps[1].u: 1 registers"),
        "{e}"
    );
    let e = bad(&|v| {
        v["pre"]["warps"][0]["csr"]["nosuch"] = serde_json::json!(1);
    });
    assert!(
        e.to_string()
            .contains("pre.warps[0].csr.nosuch: no such CSR"),
        "{e}"
    );
    let e = bad(&|v| v["launch"]["max_steps"] = serde_json::json!(u64::MAX));
    assert!(e.to_string().contains("launch.max_steps"), "{e}");
    let e = bad(&|v| v["schema"] = serde_json::json!("other"));
    assert!(e.to_string().contains("schema"), "{e}");
    let e = bad(&|v| v["pre"]["warps"].as_array_mut().unwrap().truncate(3));
    assert!(
        e.to_string()
            .contains("pre.warps: 3 warps, the launch has 8"),
        "{e}"
    );
    let e = bad(&|v| v["program"]["code"] = serde_json::json!("0g"));
    assert!(matches!(e, VectorError::Json { .. }), "{e}");
    assert!(
        e.to_string().contains("`g` at offset 1 is not a hex digit"),
        "{e}"
    );
    let e = Vector::parse("{\n  \"schema\": 1\n}").unwrap_err();
    match e {
        VectorError::Json { line, column, .. } => assert_eq!((line, column), (2, 13)),
        e => panic!("{e}"),
    }
    let missing = dir.join("no-such.json");
    let e = Vector::load(&missing).unwrap_err();
    assert!(matches!(e, VectorError::Io { .. }));
    // A suite with a bad vector is bad input before anything runs.
    let broken = temp("broken");
    std::fs::write(
        broken.join("index.json"),
        std::fs::read(dir.join("index.json")).unwrap(),
    )
    .unwrap();
    let e = conformance::run(&broken, &Implementation::Model(Engine::Interp), |_| {}).unwrap_err();
    assert!(e.to_string().contains("vectors/"), "{e}");
    let _ = std::fs::remove_dir_all(&broken);
}

#[test]
fn memory_regions_are_mapped_as_given() {
    let src = "
        laneid     v4
        sll.vi     v4, v4, 2
        dsload.b32 v5, v4, 0
        gload.b32  v6, v4, u[16:17], 0
        waitcnt    vm=0, ls=0
        gstore.b32 v5, v4, u[16:17], 128
        waitcnt    vst=0
        endpgm
    ";
    let asm = warpkit_asm::assemble(src, "t.s").unwrap();
    let shared: Vec<u8> = (0..128u32).map(|i| (i * 3) as u8).collect();
    let global: Vec<u8> = (0..256u32).map(|i| (255 - i) as u8).collect();
    let mut warp = vector::WarpState::zero([0, 0, 0], 0, u32::MAX);
    warp.u[16] = 0x4000;
    let mut v = Vector {
        schema: vector::SCHEMA.into(),
        version: vector::VERSION,
        name: "regions".into(),
        variant: None,
        group: None,
        cases: Vec::new(),
        program: vector::ProgramBytes {
            code: asm.text.clone(),
            data: Vec::new(),
        },
        launch: Launch::default(),
        pre: vector::State {
            warps: vec![warp],
            memory: vec![
                vector::Region {
                    space: vector::Space::Shared,
                    address: 0,
                    bytes: shared.clone(),
                },
                vector::Region {
                    space: vector::Space::Global,
                    address: 0x4000,
                    bytes: global.clone(),
                },
            ],
        },
        post: vector::State::default(),
    };
    let post = vector::run(&v, Engine::Interp).unwrap();
    let word = |b: &[u8], l: usize| u32::from_le_bytes(b[4 * l..4 * l + 4].try_into().unwrap());
    for l in 0..32 {
        assert_eq!(post.warps[0].v[5][l], word(&shared, l));
        assert_eq!(post.warps[0].v[6][l], word(&global, l));
    }
    // The store landed in the reported global region, after its unchanged first half.
    assert_eq!(post.memory[1].bytes[..128], global[..128]);
    assert_eq!(post.memory[1].bytes[128..], shared[..]);
    v.post = post;
    v.validate().unwrap();
    assert_eq!(Vector::parse(&v.to_json()).unwrap(), v);
}

#[test]
fn compare_names_register_lane_and_values() {
    let (dir, index) = suite();
    let e = index.vectors.iter().find(|e| e.name == "add").unwrap();
    let v = Vector::load(&dir.join(&e.file)).unwrap();
    let mut actual = v.post.clone();
    actual.warps[1].v[8][5] ^= 1;
    actual.warps[0].u[20] = 7;
    actual.warps[3].exec = 0;
    let m: Vec<String> = compare(&v.post, &actual)
        .iter()
        .map(ToString::to_string)
        .collect();
    let lane = v.post.warps[1].v[8][5];
    assert_eq!(
        m,
        [
            format!(
                "warp 0 of workgroup (0,0,0): u20: expected {:#x}, actual 0x7",
                v.post.warps[0].u[20]
            ),
            format!(
                "warp 1 of workgroup (0,0,0): v8 lane 5: expected {lane:#x}, actual {:#x}",
                lane ^ 1
            ),
            "warp 3 of workgroup (0,0,0): exec: expected 0xffffffff, actual 0x0".to_string(),
        ]
    );
}

#[test]
fn a_vector_from_a_program_has_the_abi_state() {
    let src = "
        uload.b64  u[16:17], u[0:1], 0
        waitcnt    sm=0
        sll.vi     v5, v3, 2
        gload.b32  v6, v5, u[16:17], 0
        waitcnt    vm=0
        add.vi     v6, v6, 1
        gstore.b32 v6, v5, u[16:17], 0
        endpgm
    ";
    let asm = warpkit_asm::assemble(src, "t.s").unwrap();
    let program = Program::new(asm.text.clone());
    let launch = Launch {
        block: [64, 1, 1],
        ..Launch::default()
    };
    let args = vec![Arg {
        name: "buf".into(),
        value: ArgValue::Buffer((0..256u32).map(|i| i as u8).collect()),
    }];
    let v = Vector::from_program("t", &program, &launch, 0, args).unwrap();
    assert_eq!(v.pre.warps.len(), 2);
    assert_eq!(v.pre.warps[1].u[0], ARGS_BASE as u32);
    assert_eq!(v.pre.warps[1].v[3][0], 32);
    assert_eq!(v.pre.memory[0].address, ARGS_BASE);
    assert_eq!(v.pre.memory[1].address, BUFFER_BASE);
    assert_eq!(v.post.memory[1].bytes[0], 1);
    assert_eq!(v.post.memory[1].bytes[4], 5);
    v.validate().unwrap();
    let jit = vector::run(&v, Engine::Jit).unwrap();
    assert!(compare(&v.post, &jit).is_empty());
}

fn words(dir: &Path, e: &conformance::ProgramEntry, engine: Engine) -> Vec<u32> {
    let code = std::fs::read(dir.join(&e.bin)).unwrap();
    selfcheck::run_result(&code, e.block, engine).unwrap()
}

#[test]
fn self_checking_programs_pass_on_both_engines() {
    let (dir, index) = suite();
    let mut skipped = 0;
    let mut warps = 0;
    for e in &index.programs {
        for engine in [Engine::Interp, Engine::Jit] {
            let w = words(dir, e, engine);
            for (k, &x) in w.iter().take(e.block as usize / 32).enumerate() {
                assert_eq!(x, selfcheck::PASS, "{} warp {k} on {engine}", e.name);
            }
        }
        // The three forms hold the same code.
        let bin = std::fs::read(dir.join(&e.bin)).unwrap();
        let hex = std::fs::read_to_string(dir.join(&e.hex)).unwrap();
        let from_hex: Vec<u8> = hex
            .lines()
            .filter(|l| !l.starts_with("//"))
            .flat_map(|l| u32::from_str_radix(l, 16).unwrap().to_le_bytes())
            .collect();
        assert_eq!(from_hex, bin, "{}", e.name);
        let elf = warpkit_asm::load_object(&std::fs::read(dir.join(&e.elf)).unwrap()).unwrap();
        assert_eq!(elf.text, bin, "{}", e.name);
        skipped += e.skipped.len();
        warps += e.block as usize / 32;
    }
    // Skipping is for the few cases that depend on where their code lies.
    assert!(skipped * 20 < warps, "{skipped} of {warps} warps skipped");
    let add = index.programs.iter().find(|p| p.name == "add").unwrap();
    assert!(add.skipped.is_empty());
}

#[test]
fn a_self_checking_program_catches_a_planted_bug() {
    let (dir, index) = suite();
    let e = index.programs.iter().find(|p| p.name == "xor").unwrap();
    let code = std::fs::read(dir.join(&e.bin)).unwrap();
    let (xor, or) = (
        Op::from_mnemonic("xor").unwrap(),
        Op::from_mnemonic("or").unwrap(),
    );
    let broken = replace_op(&code, xor, or).unwrap();
    assert_ne!(broken, code);
    let w = selfcheck::run_result(&broken, e.block, Engine::Interp).unwrap();
    let failed: Vec<u32> = w[..8]
        .iter()
        .copied()
        .filter(|&x| x != selfcheck::PASS)
        .collect();
    assert!(!failed.is_empty());
    // The fail word names a vector register check (0x2xx) of the destination, v8.
    assert!(
        failed.iter().all(|&x| x == selfcheck::FAIL | 0x208),
        "{failed:x?}"
    );
}

#[test]
fn self_checking_programs_pass_through_the_c_api() {
    use std::ffi::CString;
    use warpkit_capi::*;
    let (dir, index) = suite();
    let result = CString::new("result").unwrap();
    let mem = CString::new("mem").unwrap();
    for e in index.programs.iter().step_by(3) {
        let code = std::fs::read(dir.join(&e.elf)).unwrap();
        let args = [
            wk_arg {
                name: result.as_ptr(),
                kind: WK_ARG_ZEROED,
                value: 0,
                data: std::ptr::null(),
                len: selfcheck::RESULT_BYTES,
            },
            wk_arg {
                name: mem.as_ptr(),
                kind: WK_ARG_ZEROED,
                value: 0,
                data: std::ptr::null(),
                len: cases::REGION_BYTES,
            },
        ];
        let desc = wk_launch_desc {
            grid: [1, 1, 1],
            block: [e.block, 1, 1],
            shared_bytes: cases::SHARED_BYTES,
            scratch_bytes: 0,
            max_steps: 0,
            args: args.as_ptr(),
            n_args: args.len(),
        };
        // SAFETY: valid pointers for the calls' durations; the simulator is freed once.
        unsafe {
            let sim = wk_sim_new(code.as_ptr(), code.len(), &desc);
            assert!(!sim.is_null(), "{}", e.name);
            let mut executed = 0;
            assert!(wk_sim_run(sim, 0, &mut executed) >= 0, "{}", e.name);
            let mut addr = 0;
            assert_eq!(
                wk_sim_buffer_address(sim, result.as_ptr(), &mut addr),
                WK_OK
            );
            assert_eq!(addr, selfcheck::RESULT_BASE);
            let mut out = [0u8; 32];
            assert_eq!(wk_sim_read_memory(sim, addr, out.as_mut_ptr(), 32), WK_OK);
            wk_sim_free(sim);
            for (k, c) in out.chunks_exact(4).enumerate() {
                let w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                assert_eq!(w, selfcheck::PASS, "{} warp {k} through the C API", e.name);
            }
        }
    }
}
