//! Launch configurations at and past every limit are refused with a typed error, never a
//! panic or an attempt to run them.

use warpkit_sim::launch::*;
use warpkit_sim::Program;

#[test]
fn dimensions_whose_product_overflows_u64_are_refused() {
    // Regression: the grid and block volumes were computed in u64 and overflowed.
    let p = Program::new(Vec::new());
    let huge = [u32::MAX; 3];
    let err = launch(
        &p,
        &LaunchConfig {
            grid: huge,
            ..LaunchConfig::default()
        },
        vec![],
    )
    .unwrap_err();
    assert_eq!(err, LaunchError::GridTooLarge(u64::MAX));
    let err = launch(
        &p,
        &LaunchConfig {
            block: huge,
            ..LaunchConfig::default()
        },
        vec![],
    )
    .unwrap_err();
    assert_eq!(err, LaunchError::BlockTooLarge(u64::MAX));
    assert_eq!(
        workgroup_count(&LaunchConfig {
            grid: [u32::MAX, 2, 1],
            ..LaunchConfig::default()
        }),
        Err(LaunchError::GridTooLarge(2 * u64::from(u32::MAX)))
    );
}

#[test]
fn a_block_at_the_limit_runs() {
    let p = Program::new(
        warpkit_isa::Instr::from_raw(warpkit_isa::Op::Endpgm, &[])
            .unwrap()
            .to_bytes()
            .to_vec(),
    );
    let r = launch(
        &p,
        &LaunchConfig {
            block: [8, 8, 16],
            threads: 1,
            ..LaunchConfig::default()
        },
        vec![],
    )
    .unwrap();
    assert!(r.ok());
    assert_eq!(r.stats.warps, 32);
}
