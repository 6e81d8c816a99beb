//! Functional coverage: the generated model, the bins a known program hits, in-process
//! against trace-file measurement, merging, user-edited models and bad model files.

use std::collections::BTreeSet;
use warpkit_sim::launch::{launch_traced, LaunchConfig};
use warpkit_sim::{Program, TraceFormat};
use warpkit_verify::cover::{
    measure_launch, measure_trace, BinStat, Category, CoverHooks, Coverage, Model, ModelError,
    Step, Tracker,
};

fn program(src: &str) -> Program {
    let object = warpkit_asm::assemble(src, "test.s").expect("assembles");
    Program::with_data(object.text, object.data)
}

fn config() -> LaunchConfig {
    LaunchConfig {
        threads: 2,
        ..LaunchConfig::default()
    }
}

fn hit(c: &Coverage) -> BTreeSet<String> {
    c.bins
        .iter()
        .filter(|(_, s)| s.hits > 0)
        .map(|(id, _)| id.clone())
        .collect()
}

/// EXEC partial and full, sign boundaries, a uniform taken branch, a divergent branch not
/// taken, a CSR read, and a trap that stops the warp.
const DIRECTED: &str = "
    umov.l u1, 0xffff
    movi v1, 1
    mov.vl v2, 0x80000000
    add v5, v1, v2
    saveexec.and u2, u1
    add v6, v1, v1
    bany u1, over
    nop
over:
    exec.set u2
    bnone u1, end
    csrr u3, warpid
    csrw clock, u0
end:
    endpgm
";

#[test]
fn the_generated_model_has_every_instruction_csr_and_trap_cause() {
    let model = Model::generate();
    let ids: BTreeSet<&str> = model.bins().iter().map(|b| b.id.as_str()).collect();
    for def in warpkit_isa::INSTRUCTIONS.iter() {
        assert!(
            ids.contains(format!("{}/executed", def.mnemonic).as_str()),
            "{} has no executed bin",
            def.mnemonic
        );
    }
    let executed = model
        .bins()
        .iter()
        .filter(|b| b.category == Category::Instructions)
        .count();
    assert_eq!(executed, warpkit_isa::OP_COUNT);
    for c in warpkit_isa::CSRS.iter() {
        assert!(ids.contains(format!("csr.{}/read", c.name).as_str()));
        assert_eq!(
            ids.contains(format!("csr.{}/write", c.name).as_str()),
            c.writable
        );
    }
    for name in ["trap/illegal_insn", "trap/illegal_csr", "trap/fp_exception"] {
        assert!(ids.contains(name), "{name}");
    }
    // The kinds of bins the database calls for, on instructions that have them.
    for id in [
        "add.vu/exec.partial",
        "add.vu/rs2.sign_min",
        "add.vi/imm.min",
        "fadd.f32/rs1.neg_subnormal",
        "fadd.f32/flag.nx",
        "fadd.f64/rd.pos_snan",
        "fadd.f16/rs2.neg_inf",
        "cvt.f32.i32/rs1.sign_max",
        "cvt.f32.i32/rd.pos_normal",
        "bany/branch.divergent",
        "bz/branch.taken",
        "fdiv.f32/hazard.raw",
        "gload.b32/counter.full",
        "dsstore.b32/counter.full",
    ] {
        assert!(ids.contains(id), "{id} missing");
    }
    for id in [
        "uadd/exec.full",         // uniform: not gated by EXEC
        "bz/branch.divergent",    // a uniform condition cannot diverge
        "dsstore.b32/hazard.raw", // a store has no result to read early
        "add/flag.nx",            // not a floating-point instruction
        "fadd.f32/rs1.zero",      // float operands get float classes
        "gload.b32/rd.pos_zero",  // memory is not floating point
    ] {
        assert!(!ids.contains(id), "{id} should not be a bin");
    }
    // The YAML it writes reads back as the same model.
    let again = Model::parse(&model.to_yaml(), "model.yaml").expect("reads back");
    assert_eq!(again.coverpoints(), model.coverpoints());
    assert_eq!(again.bins(), model.bins());
}

#[test]
fn a_known_program_hits_exactly_the_expected_bins() {
    let model = Model::generate();
    let (result, cov) =
        measure_launch(&model, "directed.s", &program(DIRECTED), &config(), vec![]).unwrap();
    assert_eq!(result.traps.len(), 1, "the csrw traps");
    let expected: BTreeSet<String> = [
        "umov.l/executed",
        "umov.l/rd.other",
        "umov.l/imm.other",
        "movi/executed",
        "movi/exec.full",
        "movi/rd.one",
        "movi/imm.one",
        "mov.vl/executed",
        "mov.vl/exec.full",
        "mov.vl/rd.sign_min",
        "mov.vl/imm.sign_min",
        "add/executed",
        "add/exec.full",
        "add/exec.partial",
        "add/rs1.one",
        "add/rs2.sign_min",
        "add/rs2.one",
        "add/rd.other",
        "saveexec.and/executed",
        "saveexec.and/rd.all_ones",
        "saveexec.and/rs1.other",
        "bany/executed",
        "bany/rs1.other",
        "bany/branch.uniform",
        "bany/branch.taken",
        "exec.set/executed",
        "exec.set/rs1.all_ones",
        "bnone/executed",
        "bnone/rs1.other",
        "bnone/branch.divergent",
        "bnone/branch.not_taken",
        "csrr/executed",
        "csrr/rd.zero",
        "csr.warpid/read",
        "trap/illegal_csr",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    let got = hit(&cov);
    assert_eq!(
        got,
        expected,
        "extra: {:?}\nmissing: {:?}",
        got.difference(&expected).collect::<Vec<_>>(),
        expected.difference(&got).collect::<Vec<_>>()
    );
    let add = &cov.bins["add/exec.full"];
    assert_eq!((add.hits, add.first.as_deref()), (1, Some("directed.s")));
    assert_eq!(cov.bins["add/executed"].hits, 2);
    assert_eq!(cov.bins["nop/executed"].hits, 0);
    assert_eq!(cov.bins["nop/executed"].first, None);
}

/// A read before the wait, a counter at its limit, floating-point classes and flags.
const ASYNC_FLOAT: &str = "
    mov.vl v1, 0x3f800000
    movi v2, 0
    fdiv.f32 v3, v1, v2
    add v4, v3, v1
    waitcnt sfu=0
    fdiv.f32 v10, v1, v1
    fdiv.f32 v11, v1, v1
    fdiv.f32 v12, v1, v1
    fdiv.f32 v13, v1, v1
    fdiv.f32 v14, v1, v1
    fdiv.f32 v15, v1, v1
    fdiv.f32 v16, v1, v1
    waitcnt sfu=0
    fadd.f32 v5, v3, v1
    endpgm
";

#[test]
fn hazards_saturation_and_float_classes_are_seen() {
    let model = Model::generate();
    let (result, cov) =
        measure_launch(&model, "async.s", &program(ASYNC_FLOAT), &config(), vec![]).unwrap();
    // The model's own hazard report sees the read before the wait too, and only it.
    assert_eq!(result.hazards.len(), 1, "{:?}", result.hazards);
    assert_eq!(result.hazards[0].register, "v3");
    let got = hit(&cov);
    assert_eq!(cov.bins["fdiv.f32/hazard.raw"].hits, 1);
    for id in [
        "fdiv.f32/hazard.raw",
        "fdiv.f32/counter.full",
        "fdiv.f32/flag.dz",
        "fdiv.f32/rs1.pos_normal",
        "fdiv.f32/rs2.pos_zero",
        "fdiv.f32/rd.pos_inf",
        "fadd.f32/rs1.pos_inf",
        "fadd.f32/rd.pos_inf",
        "waitcnt/executed",
    ] {
        assert!(got.contains(id), "{id} not hit; hit: {got:?}");
    }
    assert!(!got.contains("fadd.f32/flag.dz"));
    // Seven in flight against a limit of six: one issue at the limit.
    assert_eq!(cov.bins["fdiv.f32/counter.full"].hits, 1);
}

fn traced(prog: &Program, cfg: &LaunchConfig, model: &Model, name: &str) -> Coverage {
    let (_, out) = launch_traced(prog, cfg, vec![], Vec::new(), TraceFormat::Json).unwrap();
    let bytes = out.unwrap();
    let mut tracker = Tracker::new(model);
    measure_trace(&mut tracker, bytes.as_slice(), name).unwrap();
    tracker.coverage(model, name)
}

#[test]
fn in_process_and_trace_file_coverage_agree() {
    let model = Model::generate();
    let wide = LaunchConfig {
        grid: [3, 1, 1],
        block: [80, 1, 1],
        threads: 3,
        ..LaunchConfig::default()
    };
    for (name, src, cfg) in [
        ("directed.s", DIRECTED, config()),
        ("async.s", ASYNC_FLOAT, config()),
        ("async-wide.s", ASYNC_FLOAT, wide.clone()),
        ("directed-wide.s", DIRECTED, wide),
    ] {
        let prog = program(src);
        let (_, live) = measure_launch(&model, name, &prog, &cfg, vec![]).unwrap();
        let file = traced(&prog, &cfg, &model, name);
        assert_eq!(live, file, "{name}");
        assert!(live.hit_count() > 10, "{name}");
    }
    // The example kernels, every stage, as the suite runs them.
    for name in [
        "reduce",
        "histogram",
        "scan",
        "softmax",
        "bitonic",
        "opencl/vadd",
    ] {
        let ex = warpkit_examples::find(name).unwrap();
        let case = ex.case(warpkit_examples::Size::Small);
        let code = ex.code().unwrap();
        let mut hooks = CoverHooks::new(&model);
        ex.launch_stages_observed(&case, &code, &mut hooks).unwrap();
        let live = hooks.tracker.coverage(&model, name);
        let mut tracer = warpkit_sim::WriteTracer::new(Vec::new(), TraceFormat::Json);
        ex.launch_stages_observed(&case, &code, &mut tracer)
            .unwrap();
        let bytes = tracer.finish().unwrap();
        let mut tracker = Tracker::new(&model);
        measure_trace(&mut tracker, bytes.as_slice(), name).unwrap();
        let file = tracker.coverage(&model, name);
        assert_eq!(live, file, "{name}");
        assert!(live.hit_count() > 20, "{name}: {}", live.hit_count());
    }
}

#[test]
fn steps_from_commits_measure_what_the_hooks_measure() {
    let model = Model::generate();
    let prog = program(ASYNC_FLOAT);
    let cfg = LaunchConfig {
        grid: [2, 1, 1],
        block: [48, 1, 1],
        ..LaunchConfig::default()
    };
    let mut commits = warpkit_sim::VecTracer::default();
    warpkit_sim::launch::launch_with_tracer(&prog, &cfg, vec![], &mut commits).unwrap();
    let mut tracker = Tracker::new(&model);
    for c in &commits.commits {
        tracker.step(&Step::from_commit(c));
    }
    let (_, live) = measure_launch(&model, "a.s", &prog, &cfg, vec![]).unwrap();
    assert_eq!(tracker.coverage(&model, "a.s"), live);
    assert!(
        live.bins["add/exec.partial"].hits > 0,
        "the partial warps show"
    );
}

fn synthetic(bins: &[(&str, u64, Option<&str>)], programs: &[&str]) -> Coverage {
    Coverage {
        programs: programs.iter().map(|p| p.to_string()).collect(),
        bins: bins
            .iter()
            .map(|(id, hits, first)| {
                (
                    id.to_string(),
                    BinStat {
                        category: "values".into(),
                        hits: *hits,
                        first: first.map(String::from),
                    },
                )
            })
            .collect(),
    }
}

fn merged(a: &Coverage, b: &Coverage) -> Coverage {
    let mut m = a.clone();
    m.merge(b);
    m
}

#[test]
fn merge_is_commutative_and_associative_and_adds_runs() {
    let model = Model::generate();
    let (_, d) = measure_launch(&model, "gen-10.s", &program(DIRECTED), &config(), vec![]).unwrap();
    let (_, f) =
        measure_launch(&model, "gen-9.s", &program(ASYNC_FLOAT), &config(), vec![]).unwrap();
    let x = synthetic(
        &[("a/x", 3, Some("b.s")), ("extra/only", 1, Some("z.s"))],
        &["b.s", "z.s"],
    );
    let y = synthetic(&[("a/x", 2, Some("a.s")), ("a/y", 0, None)], &["a.s"]);
    for (p, q) in [(&d, &f), (&x, &y), (&d, &x), (&f, &y)] {
        assert_eq!(merged(p, q), merged(q, p));
    }
    for (p, q, r) in [(&d, &f, &x), (&x, &y, &d), (&y, &f, &x)] {
        assert_eq!(merged(&merged(p, q), r), merged(p, &merged(q, r)));
    }
    let xy = merged(&x, &y);
    assert_eq!(xy.bins["a/x"].hits, 5);
    assert_eq!(xy.bins["a/x"].first.as_deref(), Some("a.s"));
    assert_eq!(xy.bins["a/y"].first, None);
    assert_eq!(xy.bins["extra/only"].hits, 1);
    // Hits add; the first program is the earlier in natural order (gen-9 before gen-10).
    let df = merged(&d, &f);
    assert_eq!(
        df.bins["movi/executed"].hits,
        d.bins["movi/executed"].hits + f.bins["movi/executed"].hits
    );
    assert_eq!(df.bins["movi/executed"].first.as_deref(), Some("gen-9.s"));
    assert_eq!(
        df.bins["bany/branch.taken"].first.as_deref(),
        Some("gen-10.s")
    );
    assert_eq!(df.programs.len(), 2);
    // The database round-trips.
    assert_eq!(Coverage::from_json(&df.to_json(), "db.json").unwrap(), df);
}

#[test]
fn a_user_edited_model_is_honoured() {
    let generated = Model::generate().to_yaml();
    // Drop every bin of `add` but `executed`; add a coverpoint over all the add forms.
    let mut edited = String::new();
    let mut in_add = false;
    for line in generated.lines() {
        if line.trim_start().starts_with("- name:") {
            in_add = line.trim_end().ends_with("name: add");
        }
        if in_add && line.trim_start().starts_with("bins:") {
            edited.push_str("    bins: [executed]\n");
            continue;
        }
        edited.push_str(line);
        edited.push('\n');
    }
    edited.push_str(
        "  - name: adds\n    op: \"add*\"\n    bins: [exec.partial, exec.empty, rd.other, rs1.pos_normal]\n",
    );
    let model = Model::parse(&edited, "edited.yaml").unwrap();
    let (_, cov) =
        measure_launch(&model, "directed.s", &program(DIRECTED), &config(), vec![]).unwrap();
    assert!(!cov.bins.contains_key("add/exec.partial"));
    assert_eq!(cov.bins["add/executed"].hits, 2);
    assert_eq!(cov.bins["adds/exec.partial"].hits, 1);
    assert_eq!(cov.bins["adds/exec.empty"].hits, 0);
    assert_eq!(cov.bins["adds/rd.other"].hits, 2);
    // 1.0 as f32 bits is a normal number: a float class asked of an integer operand.
    assert_eq!(cov.bins["adds/rs1.pos_normal"].hits, 0);
    let (_, f) =
        measure_launch(&model, "async.s", &program(ASYNC_FLOAT), &config(), vec![]).unwrap();
    assert_eq!(
        f.bins["adds/rs1.pos_normal"].hits, 0,
        "add reads v3 = +inf, not normal"
    );
    assert_eq!(f.bins["adds/rd.other"].hits, 1);
    // A model of one coverpoint has only its bins.
    let tiny = Model::parse(
        "schema: warpkit-coverage-model\nversion: 1\ncoverpoints:\n  - name: t\n    trap: any\n    bins: [illegal_csr, cause.7]\n",
        "tiny.yaml",
    )
    .unwrap();
    let (_, t) = measure_launch(&tiny, "d.s", &program(DIRECTED), &config(), vec![]).unwrap();
    assert_eq!(t.bins.len(), 2);
    assert_eq!(t.bins["t/illegal_csr"].hits, 1);
    assert_eq!(t.bins["t/cause.7"].hits, 0);
}

fn error(text: &str) -> String {
    match Model::parse(text, "m.yaml") {
        Err(e @ ModelError::Invalid { .. }) => e.to_string(),
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn bad_model_files_give_located_errors() {
    let head = "schema: warpkit-coverage-model\nversion: 1\ncoverpoints:\n";
    let e = error(&format!(
        "{head}  - name: a\n    op: add\n    bins: [executed, exec.sometimes]\n"
    ));
    assert!(e.starts_with("m.yaml:6:"), "{e}");
    assert!(e.contains("exec.sometimes"), "{e}");
    let e = error(&format!(
        "{head}  - name: a\n    op: nosuch\n    bins:\n      - executed\n"
    ));
    assert!(e.starts_with("m.yaml:7:9:") && e.contains("nosuch"), "{e}");
    let e = error(&format!(
        "{head}  - name: a\n    op: add\n    bins: [rs9.zero]\n"
    ));
    assert!(e.starts_with("m.yaml:6:") && e.contains("rs9"), "{e}");
    let e = error(&format!("{head}  - name: a\n    bins: [executed]\n"));
    assert!(
        e.starts_with("m.yaml:4:") && e.contains("watches nothing"),
        "{e}"
    );
    let e = error(&format!(
        "{head}  - name: a\n    op: add\n    csr: exec\n    bins: [executed]\n"
    ));
    assert!(e.starts_with("m.yaml:6:") && e.contains("only one"), "{e}");
    let e = error(&format!(
        "{head}  - name: a\n    op: add\n    bins: [executed]\n  - name: a\n    op: sub\n    bins: [executed]\n"
    ));
    assert!(e.starts_with("m.yaml:7:") && e.contains("twice"), "{e}");
    let e = error("schema: other\nversion: 1\n");
    assert!(e.starts_with("m.yaml:1:") && e.contains("schema"), "{e}");
    let e = error(&format!("{head}  - name: a\n    op: [unclosed\n"));
    assert!(
        e.starts_with("m.yaml:") && !e.starts_with("m.yaml:0:"),
        "{e}"
    );
    let e = error(&format!("{head}  - name: a\n    opp: add\n"));
    assert!(e.contains("opp"), "{e}");
    let e = error(&format!(
        "{head}  - name: c\n    csr: exec\n    bins: [read, poke]\n"
    ));
    assert!(e.starts_with("m.yaml:6:") && e.contains("poke"), "{e}");
}

#[test]
fn bad_trace_lines_give_located_errors() {
    let model = Model::generate();
    let mut tracker = Tracker::new(&model);
    let text = "{\"schema\":\"warpkit-trace\",\"version\":2}\n{\"workgroup\":[0,0,0]}\n";
    let e = measure_trace(&mut tracker, text.as_bytes(), "t.jsonl").unwrap_err();
    assert!(e.to_string().starts_with("t.jsonl:2:"), "{e}");
    let e = measure_trace(&mut tracker, "not json\n".as_bytes(), "t.jsonl").unwrap_err();
    assert!(e.to_string().starts_with("t.jsonl:1:"), "{e}");
    let e = measure_trace(&mut tracker, &b"\n\xff\xfe\n"[..], "bin.jsonl").unwrap_err();
    assert!(e.to_string().starts_with("bin.jsonl:2:"), "{e}");
    let long = vec![b' '; warpkit_verify::cover::MAX_LINE_BYTES as usize + 10];
    let e = measure_trace(&mut tracker, long.as_slice(), "long.jsonl").unwrap_err();
    assert!(
        e.to_string().starts_with("long.jsonl:1:") && e.to_string().contains("longer"),
        "{e}"
    );
    // Well-formed records naming registers, lanes and counters no warp has, at the end of
    // the address space, are measured without harm.
    let odd = r#"{"workgroup":[0,0,0],"warp":0,"step":1,"pc":4294967292,"encoding":"0xffffffffffffffff","asm":"?","exec":4294967295,"v":[{"reg":500,"lanes":[[40,1],[3,7]]}],"u":[{"reg":99,"value":1}],"exec_write":null,"csr":[{"name":"?","number":1023,"value":5}],"trap":null,"mem":[],"retired":[{"pc":12,"v":[{"reg":127,"lanes":[[31,1]]}],"u":[]}],"end":false}"#;
    let branch = r#"{"workgroup":[0,0,0],"warp":0,"step":2,"pc":4294967292,"encoding":"0x00000000","asm":"?","exec":0,"v":[],"u":[],"exec_write":null,"csr":[],"trap":{"cause":77,"pc":0,"info":0,"handled":true},"mem":[],"retired":[],"end":true}"#;
    let text = format!("{odd}\n{branch}\n{odd}\n");
    assert_eq!(
        measure_trace(&mut tracker, text.as_bytes(), "odd.jsonl").unwrap(),
        3
    );
}
