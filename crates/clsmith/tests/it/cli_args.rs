//! `TestCase::cli_args` writes what the `warpkit run` command line names, in the contract's
//! spellings, and `check_files` finds the first differing byte.

use warpkit_clsmith::{ArgValue, Config, Mismatch};

#[test]
fn command_line_reproduces_the_case() {
    let dir = crate::scratch("cli");
    // A case with every kind of argument: buffers, a __local pointer, integers, floats.
    let case = (0..200)
        .map(|s| warpkit_clsmith::generate(s, &Config::default()).expect("case"))
        .find(|c| {
            let has = |f: &dyn Fn(&ArgValue) -> bool| c.args.iter().any(|a| f(&a.value));
            has(&|v| matches!(v, ArgValue::Local(_)))
                && has(&|v| matches!(v, ArgValue::F32(_) | ArgValue::F64(_)))
                && has(&|v| matches!(v, ArgValue::Int { value, .. } if *value < 0))
        })
        .expect("some seed has local, float and negative integer arguments");
    let run = case.cli_args(&dir).expect("cli_args");
    let args: Vec<String> = run
        .args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    assert_eq!(args[0], "run");
    assert_eq!(
        std::fs::read_to_string(&args[1]).expect("source"),
        case.source
    );
    let dims = |d: [u32; 3]| format!("{},{},{}", d[0], d[1], d[2]);
    assert_eq!(
        &args[2..8],
        &[
            "--kernel".to_string(),
            case.kernel.clone(),
            "--grid".into(),
            dims(case.grid),
            "--block".into(),
            dims(case.block)
        ]
    );
    let values: Vec<&String> = args
        .iter()
        .zip(args.iter().skip(1))
        .filter(|(k, _)| *k == "--arg")
        .map(|(_, v)| v)
        .collect();
    assert_eq!(
        values.len(),
        case.args.len(),
        "one --arg per parameter, in order"
    );
    for (a, text) in case.args.iter().zip(values) {
        let (name, value) = text.split_once('=').expect("NAME=VALUE");
        assert_eq!(name, a.name);
        match &a.value {
            ArgValue::Buffer(bytes) if bytes.iter().all(|&b| b == 0) => {
                assert_eq!(value, format!("buf:{}", bytes.len()))
            }
            ArgValue::Buffer(bytes) => {
                let path = value.strip_prefix('@').expect("@FILE");
                assert_eq!(&std::fs::read(path).expect("buffer file"), bytes);
            }
            ArgValue::Local(n) => assert_eq!(value, format!("local:{n}")),
            ArgValue::Int { value: v, .. } => assert_eq!(value, v.to_string()),
            ArgValue::F32(x) => {
                assert!(
                    value.starts_with("0x") || value.starts_with("-0x"),
                    "{value}"
                );
                assert_eq!(value, warpkit_clsmith::print::hex_float(*x as f64));
            }
            ArgValue::F64(x) => assert_eq!(value, warpkit_clsmith::print::hex_float(*x)),
        }
    }
    let outs: Vec<&String> = args
        .iter()
        .zip(args.iter().skip(1))
        .filter(|(k, _)| *k == "--out")
        .map(|(_, v)| v)
        .collect();
    assert_eq!(outs.len(), case.expected.len());
    assert_eq!(run.outputs.len(), case.expected.len());

    // Outputs as expected pass; a flipped byte of a checksum names the work-item.
    for ((name, bytes), (oname, path)) in case.expected.iter().zip(&run.outputs) {
        assert_eq!(name, oname);
        std::fs::write(path, bytes).expect("write output");
    }
    assert_eq!(case.check_files(&run), Ok(()));
    let (name, path) = &run.outputs[0];
    assert_eq!(name, "out");
    let mut bytes = case.expected[0].1.clone();
    bytes[8 * 2 + 3] ^= 1;
    std::fs::write(path, &bytes).expect("write output");
    match case.check_files(&run) {
        Err(Mismatch::Bytes {
            name, offset, hint, ..
        }) => {
            assert_eq!((name.as_str(), offset), ("out", 19));
            assert!(hint.contains("work-item 2"), "{hint}");
        }
        other => panic!("expected a byte mismatch, got {other:?}"),
    }
    bytes.pop();
    std::fs::write(path, &bytes).expect("write output");
    assert!(matches!(
        case.check_files(&run),
        Err(Mismatch::Shape { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}
