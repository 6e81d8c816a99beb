//! `--engine`: both engines give the same dump, output and step-limit report; an unknown
//! engine is refused with exit 2 and a message naming the choices.

use crate::common::*;

const KERNEL: &str = "
    umov.l u1, 300
    laneid v1
top:
    mul v2, v1, v1
    add v3, v3, v2
    uaddi u2, u2, 7
    cmp.lt.u32.vi u4, v1, 20
    saveexec.and u5, u4
    add.vi v3, v3, 1
    exec.set u5
    uaddi u1, u1, -1
    bnz u1, top
    endpgm
";

/// The run summary with its wall-clock figure (`, 0.002 s,`) taken out.
fn without_wall_time(text: &str) -> String {
    text.split(", ")
        .filter(|part| !(part.ends_with(" s") && part[..part.len() - 2].parse::<f64>().is_ok()))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn both_engines_give_the_same_dump_and_report() {
    let d = dir("engine");
    let k = d.join("k.s");
    std::fs::write(&k, KERNEL).unwrap();
    let mut dumps = Vec::new();
    for engine in ["interp", "jit"] {
        for max_steps in ["100000", "1234"] {
            let dump = d.join(format!("{engine}-{max_steps}.json"));
            let o = warpkit(&[
                "run",
                s(&k),
                "--engine",
                engine,
                "--max-steps",
                max_steps,
                "--dump-state",
                s(&dump),
            ]);
            let code = if max_steps == "1234" { 1 } else { 0 };
            assert_eq!(o.status.code(), Some(code), "{engine}: {}", stderr(&o));
            dumps.push((
                std::fs::read_to_string(&dump).unwrap(),
                String::from_utf8_lossy(&o.stdout).into_owned(),
                without_wall_time(&stderr(&o)),
            ));
        }
    }
    assert!(
        dumps[0] == dumps[2],
        "full runs differ: {:?} / {:?}",
        dumps[0].2,
        dumps[2].2
    );
    assert!(
        dumps[1] == dumps[3],
        "limited runs differ: {:?} / {:?}",
        dumps[1].2,
        dumps[3].2
    );
    assert!(dumps[1].2.contains("1234"), "{}", dumps[1].2);
}

#[test]
fn an_unknown_engine_is_refused() {
    let d = dir("engine-bad");
    let k = d.join("k.s");
    std::fs::write(&k, "endpgm\n").unwrap();
    let o = warpkit(&["run", s(&k), "--engine", "fast"]);
    expect(&o, 2, &["unknown engine 'fast'", "jit", "interp"]);
    let o = warpkit(&["examples", "--engine", "fast"]);
    expect(&o, 2, &["unknown engine 'fast'"]);
}
