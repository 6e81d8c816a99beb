//! `warpkit examples` runs the OpenCL C examples (`opencl/NAME`, compiled on the way) with
//! the hand-written ones: selection by name, the engine option, the list, and
//! `--save-images` for `opencl/mandelbrot`.

use warpkit_examples::{find, Size};

use crate::common::*;

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn opencl_examples_run_by_name_on_either_engine() {
    for engine in ["interp", "jit"] {
        let o = warpkit(&[
            "examples",
            "opencl/vadd",
            "opencl/softmax",
            "vadd",
            "--small",
            "--threads",
            "1",
            "--engine",
            engine,
        ]);
        let text = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{engine}: {}{text}", stderr(&o));
        assert!(
            text.contains("opencl/vadd ") && text.contains("opencl/softmax "),
            "{text}"
        );
        assert!(text.contains("3 of 3 kernels checked ✓"), "{text}");
    }
}

#[test]
fn the_list_names_the_opencl_examples() {
    let o = warpkit(&["examples", "--list"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    for name in ["vadd", "reduce", "sgemm", "mandelbrot"] {
        assert!(text.contains(&format!("opencl/{name} ")), "{text}");
    }
    let o = warpkit(&["examples", "opencl/nope"]);
    expect(&o, 2, &["no example `opencl/nope`", "opencl/vadd"]);
}

#[test]
fn opencl_mandelbrot_is_saved_under_its_name() {
    let d = dir("opencl-images");
    let o = warpkit(&[
        "examples",
        "opencl/mandelbrot",
        "--small",
        "--save-images",
        s(&d),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let bytes = std::fs::read(d.join("opencl/mandelbrot.png")).expect("the image exists");
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a valid PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut pixels).expect("valid image data");
    pixels.truncate(info.buffer_size());
    let counts = &find("opencl/mandelbrot")
        .expect("exists")
        .case(Size::Small)
        .expected[0]
        .words;
    let want: Vec<u8> = counts.iter().map(|&c| u8::try_from(c).unwrap()).collect();
    assert_eq!(pixels, want);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn json_reports_each_kernel_and_save_cases_writes_its_files() {
    let d = dir("opencl-cases");
    let o = warpkit(&[
        "examples",
        "opencl/reduce",
        "vadd",
        "--small",
        "--json",
        "-",
        "--save-cases",
        s(&d),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let json = &text[text.find('[').expect("a JSON array after the table")..];
    let reports: serde_json::Value = serde_json::from_str(json).expect("valid JSON");
    let reports = reports.as_array().expect("an array");
    assert_eq!(reports.len(), 2, "{text}");
    for (r, name, launches) in [(&reports[0], "opencl/reduce", 2), (&reports[1], "vadd", 1)] {
        assert_eq!(r["name"], name);
        assert_eq!(r["passed"], true);
        assert_eq!(r["launches"], launches);
        assert!(r["wall_seconds"].as_f64().expect("seconds") > 0.0, "{r}");
        assert!(r["instructions"].as_u64().expect("count") > 0, "{r}");
    }
    // The case's manifest, its input and the model's outputs of the checked buffers.
    let manifest = std::fs::read_to_string(d.join("opencl/reduce/case.txt")).expect("written");
    assert!(manifest.starts_with("warpkit-case 1\n"), "{manifest}");
    let input = std::fs::read(d.join("opencl/reduce/stage0-in.bin")).expect("the input");
    let case = find("opencl/reduce").expect("exists").case(Size::Small);
    assert_eq!(
        warpkit_examples::StageArg::Bytes(input),
        case.stages[0].args[0].1
    );
    let total = std::fs::read(d.join("opencl/reduce/check1-total.bin")).expect("an output");
    assert_eq!(warpkit_examples::to_words(&total), case.expected[1].words);
    assert!(d.join("vadd/case.txt").exists());
    // A file where the directory should be is refused before anything runs.
    let file = d.join("file");
    std::fs::write(&file, b"keep").unwrap();
    let o = warpkit(&["examples", "vadd", "--small", "--save-cases", s(&file)]);
    expect(&o, 2, &["--save-cases", "not a directory"]);
    assert_eq!(std::fs::read(&file).unwrap(), b"keep");
    std::fs::remove_dir_all(&d).unwrap();
}
