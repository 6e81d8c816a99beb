//! `warpkit examples --save-images DIR`: the PNG it writes is valid and its pixels are the
//! values the kernel computed.

use std::path::{Path, PathBuf};
use warpkit_examples::{find, Size};

use crate::common::*;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpkit-images-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn decode(path: &Path) -> (png::OutputInfo, Vec<u8>, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path).expect("the image exists"),
    ));
    decoder.set_transformations(png::Transformations::IDENTITY);
    let mut reader = decoder.read_info().expect("a valid PNG header");
    let palette = reader.info().palette.as_ref().expect("a palette").to_vec();
    let mut pixels = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut pixels).expect("valid image data");
    pixels.truncate(info.buffer_size());
    (info, pixels, palette)
}

#[test]
fn mandelbrot_is_saved_as_a_png_of_its_counts() {
    let dir = scratch("mandelbrot");
    let d = dir.to_str().unwrap();
    let out = warpkit(&["examples", "mandelbrot", "--small", "--save-images", d]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (info, pixels, palette) = decode(&dir.join("mandelbrot.png"));
    assert_eq!((info.width, info.height), (64, 48));
    assert_eq!(info.color_type, png::ColorType::Indexed);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    assert_eq!(palette.len(), 3 * 256);
    // The run checked the kernel's counts against this reference bit for bit.
    let counts = &find("mandelbrot").unwrap().case(Size::Small).expected[0].words;
    let want: Vec<u8> = counts.iter().map(|&c| u8::try_from(c).unwrap()).collect();
    assert_eq!(pixels, want);
    assert!(want.contains(&255) && want.iter().any(|&p| p < 8));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kernels_without_a_picture_write_none() {
    let dir = scratch("none");
    let out = warpkit(&[
        "examples",
        "vadd",
        "--small",
        "--save-images",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_is_not_an_image_directory() {
    let dir = scratch("file");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("taken");
    std::fs::write(&file, b"keep me").unwrap();
    let out = warpkit(&[
        "examples",
        "mandelbrot",
        "--small",
        "--save-images",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"));
    assert_eq!(std::fs::read(&file).unwrap(), b"keep me");
    std::fs::remove_dir_all(&dir).unwrap();
}
