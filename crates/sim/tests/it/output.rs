//! The shapes of `--dump-state` and of the commit trace.

use crate::common::*;
use serde_json::Value;
use warpkit_sim::*;

fn run_traced(src: &str, exec: u32) -> (Workgroup, VecTracer, Core) {
    let prog = Program::new(asm(src));
    let mut wg = Workgroup::new([0, 0, 0], &[exec]);
    let mut core = Core::default();
    let mut t = VecTracer::default();
    wg.run(&prog, &mut core, &mut NoMemory, &mut t, 10_000);
    (wg, t, core)
}

#[test]
fn dump_state_has_the_documented_shape() {
    let (wg, _, core) = run_traced(
        "umovi u63, -1\nmov.vl v127, 7\ncsrr u1, clock\nendpgm",
        u32::MAX,
    );
    let text = dump_state_json(&wg.warps, &core);
    let v: Value = serde_json::from_str(&text).unwrap();
    let warps = v["warps"].as_array().unwrap();
    assert_eq!(warps.len(), 1);
    let w = &warps[0];
    let keys: Vec<&str> = w.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    for k in ["workgroup", "warp", "pc", "exec", "u", "v", "csr", "trap"] {
        assert!(keys.contains(&k), "{k}");
    }
    assert_eq!(w["workgroup"], serde_json::json!([0, 0, 0]));
    assert_eq!(w["warp"], 0);
    assert_eq!(w["pc"], 16);
    assert_eq!(w["exec"], u32::MAX);
    assert_eq!(w["u"].as_array().unwrap().len(), 64);
    assert_eq!(w["u"][63], u32::MAX);
    let vs = w["v"].as_array().unwrap();
    assert_eq!(vs.len(), 128);
    assert!(vs.iter().all(|r| r.as_array().unwrap().len() == 32));
    assert_eq!(w["v"][127][31], 7);
    let csr = w["csr"].as_object().unwrap();
    for def in warpkit_isa::CSRS.iter() {
        assert!(csr.contains_key(def.name), "{}", def.name);
    }
    assert_eq!(csr["exec"], u32::MAX);
    assert_eq!(csr["clock"], 4);
    assert_eq!(csr["time"], 4);
    assert_eq!(w["trap"], Value::Null);
}

#[test]
fn dump_state_reports_the_trap() {
    let (wg, _, core) = run_traced("nop\ncsrw clock, u0\nendpgm", u32::MAX);
    let v: Value = serde_json::from_str(&dump_state_json(&wg.warps, &core)).unwrap();
    assert_eq!(
        v["warps"][0]["trap"],
        serde_json::json!({"cause": 9, "pc": 4, "info": 0x20})
    );
    assert_eq!(v["warps"][0]["pc"], 4);
}

#[test]
fn trace_records_writes() {
    let (_, t, _) = run_traced(
        "laneid v1\ncmp.lt.u32.vi u2, v1, 2\nsaveexec.and u3, u2\nadd64 v[4:5], v[0:1], v[0:1]\nexec.set u3\numovi u9, 3\ncsrw mode, u9\ncsrw trappc, u9\n.word 0xffffffff",
        0xf,
    );
    let c = &t.commits;
    assert_eq!(c.len(), 9);
    assert_eq!(c[0].asm, "laneid v1");
    assert_eq!(
        c[0].writes,
        vec![Written::V {
            reg: 1,
            lanes: vec![(0, 0), (1, 1), (2, 2), (3, 3)]
        }]
    );
    assert_eq!(c[1].writes, vec![Written::U { reg: 2, value: 3 }]);
    assert_eq!(
        c[2].writes,
        vec![Written::U { reg: 3, value: 0xf }, Written::Exec(3)]
    );
    assert_eq!(c[3].exec, 3);
    assert_eq!(c[3].writes.len(), 2, "both registers of the pair");
    assert_eq!(c[4].writes, vec![Written::Exec(0xf)]);
    assert_eq!(
        c[6].writes,
        vec![Written::Csr {
            number: 1,
            name: "mode",
            value: 3
        }]
    );
    assert_eq!(
        c[7].writes[0],
        Written::Csr {
            number: 0x42,
            name: "trappc",
            value: 3
        }
    );
    assert_eq!(
        c[8].trap,
        Some((
            Trap {
                cause: 1,
                pc: 32,
                info: u32::MAX
            },
            false
        ))
    );
    assert_eq!(c[8].asm, ".word 0xffffffff");
    assert_eq!(c[8].step, 9);
}

#[test]
fn trace_json_lines_parse() {
    let (_, t, _) = run_traced(
        "umovi u1, 16\ncsrw trapbase, u1\nmovi v1, 5\n.word 0xffffffff\ncsrr u2, trapcause\nendpgm",
        u32::MAX,
    );
    let lines: Vec<Value> = t
        .commits
        .iter()
        .map(|c| serde_json::from_str(&c.to_json()).unwrap())
        .collect();
    for l in &lines {
        for k in [
            "workgroup",
            "warp",
            "step",
            "pc",
            "encoding",
            "asm",
            "exec",
            "v",
            "u",
            "exec_write",
            "csr",
            "trap",
            "end",
        ] {
            assert!(l.get(k).is_some(), "{k} in {l}");
        }
    }
    assert_eq!(lines[2]["v"][0]["reg"], 1);
    assert_eq!(lines[2]["v"][0]["lanes"].as_array().unwrap().len(), 32);
    assert_eq!(lines[3]["trap"]["handled"], true);
    assert_eq!(lines[3]["csr"][0]["name"], "trapcause");
    assert_eq!(lines[4]["pc"], 16);
    assert_eq!(lines[5]["end"], true);
    assert!(t.commits[1].to_text().contains("trapbase=0x10"));
}

#[test]
fn write_tracer_emits_a_header() {
    let prog = Program::new(asm("nop\nendpgm"));
    let mut wg = Workgroup::new([0, 0, 0], &[1]);
    let mut t = WriteTracer::new(Vec::new(), TraceFormat::Json);
    wg.run(&prog, &mut Core::default(), &mut NoMemory, &mut t, 100);
    let out = String::from_utf8(t.finish().unwrap()).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    let head: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(head["schema"], "warpkit-trace");
    assert_eq!(head["version"], TRACE_SCHEMA_VERSION);
}

#[test]
fn barrier_holds_warps_until_all_arrive() {
    // Two warps: warp 0 writes u-space before the barrier, both continue after it.
    let prog = Program::new(asm("csrr u1, time\nbarrier\ncsrr u2, time\nendpgm"));
    let mut wg = Workgroup::new([0, 0, 0], &[u32::MAX, 0xffff]);
    let mut core = Core::default();
    let s = wg.run(&prog, &mut core, &mut NoMemory, &mut NoHooks, 100);
    assert!(s.all_ended());
    assert_eq!(s.ended, 2);
    // Both warps committed two instructions before either passed the barrier.
    assert_eq!((wg.warps[0].u[1], wg.warps[1].u[1]), (0, 2));
    assert_eq!((wg.warps[0].u[2], wg.warps[1].u[2]), (4, 6));
    assert_eq!(core.committed, 8);
}
