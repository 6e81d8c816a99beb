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
