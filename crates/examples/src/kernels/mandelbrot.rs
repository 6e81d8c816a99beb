use super::common::*;
use super::fp;
use crate::{Case, Image, Outputs, Size};
use rayon::prelude::*;

/// The iteration limit: a count fits one 8-bit palette index.
const MAX_ITER: u32 = 255;
const FOUR: u32 = 0x4080_0000;
const TWO: u32 = 0x4000_0000;

pub(super) fn case(size: Size) -> Case {
    let (width, height): (u32, u32) = match size {
        Size::Small => (64, 48),
        Size::Full => (320, 240),
    };
    // The view [-2.2, 0.8] x [-1.125, 1.125], as f32 bit patterns.
    let x0 = (-2.2f32).to_bits();
    let step = fp::div(0x4040_0000, fp::from_u32(width)); // 3 / width
    let y0 = fp::mul(fp::mul(step, fp::from_u32(height)), 0x3f00_0000); // half the height
    let counts = reference(width, height, x0, y0, step, MAX_ITER);
    one_case(
        format!("{width}x{height}"),
        vec![stage(
            [width / 16, height / 16, 1],
            [16, 16, 1],
            0,
            vec![
                ("out", zeroed_words((width * height) as usize)),
                ("width", int(u64::from(width))),
                ("height", int(u64::from(height))),
                ("x0", int(u64::from(x0))),
                ("y0", int(u64::from(y0))),
                ("step", int(u64::from(step))),
                ("max_iter", int(u64::from(MAX_ITER))),
            ],
        )],
        vec![expect(0, "out", counts)],
    )
}

fn reference(width: u32, height: u32, x0: u32, y0: u32, step: u32, max_iter: u32) -> Vec<u32> {
    // Rows are independent; on the suite's pool they share the cores with other kernels.
    (0..height)
        .into_par_iter()
        .flat_map_iter(|py| {
            let ci = fp::fma(fp::from_u32(py), step ^ 0x8000_0000, y0);
            (0..width).map(move |px| {
                let cr = fp::fma(fp::from_u32(px), step, x0);
                let (mut x, mut y, mut count) = (fp::ZERO, fp::ZERO, 0);
                loop {
                    let (x2, y2) = (fp::mul(x, x), fp::mul(y, y));
                    if fp::gt(fp::add(x2, y2), FOUR) {
                        break;
                    }
                    y = fp::fma(fp::mul(x, y), TWO, ci);
                    x = fp::add(fp::sub(x2, y2), cr);
                    count += 1;
                    if count == max_iter {
                        break;
                    }
                }
                count
            })
        })
        .collect()
}

/// The counts the kernel wrote, one palette index per pixel (index = count).
pub(super) fn image(case: &Case, out: &Outputs) -> Image {
    let width = input_int(case, 0, "width") as u32;
    let height = input_int(case, 0, "height") as u32;
    let max_iter = input_int(case, 0, "max_iter") as u32;
    let pixels = out
        .words(0, "out")
        .iter()
        .map(|&c| c.min(255) as u8)
        .collect();
    Image {
        width,
        height,
        pixels,
        palette: palette(max_iter),
    }
}

/// 256 colours: black inside the set (index `max_iter`), a blue-orange-white ramp over
/// the square root of the count outside it. Plain binary64 arithmetic, no libm.
fn palette(max_iter: u32) -> Vec<[u8; 3]> {
    (0..256u32)
        .map(|i| {
            if i >= max_iter {
                return [0, 0, 0];
            }
            let t = (f64::from(i) / f64::from(max_iter)).sqrt();
            let u = 1.0 - t;
            let channel = |v: f64| (v * 255.0).clamp(0.0, 255.0) as u8;
            [
                channel(9.0 * u * t * t * t + t * t),
                channel(15.0 * u * u * t * t + 0.6 * t),
                channel(8.5 * u * u * u * t + 0.3 * t + 0.15 * u),
            ]
        })
        .collect()
}
