//! Calibration recovers every parameter of the default machine and of the three others in
//! `machines/`: exactly for latencies, sizes and counts, within 2% for bandwidth, and as a
//! bound (or not at all) only where the parameter cannot show on that machine.

use warpkit_timing::calibrate::{calibrate, Recovery};
use warpkit_timing::Machine;

fn machine(file: &str) -> Machine {
    let path = format!("{}/../../machines/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Machine::from_toml(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn check(m: &Machine) -> warpkit_timing::Calibration {
    let cal = calibrate(m, 1).unwrap_or_else(|e| panic!("{}: {e}", m.name));
    let table = cal.render_text();
    println!("{table}");
    assert!(cal.ok(), "{table}");
    cal
}

#[test]
fn default_machine() {
    let cal = check(&machine("default.toml"));
    // The default machine shows everything but what its issue rate or DRAM bandwidth
    // hides: the VALU's count (4 units, 4 instructions issued a cycle) and the L2's MSHRs.
    for p in &cal.parameters {
        if matches!(p.recovery, Recovery::AtLeast | Recovery::NotObservable) {
            println!("bounded: {} ({})", p.name, p.note);
        }
    }
}

/// The parameters a machine shows only as a bound (or not at all), by design of the
/// machine file (see its comments).
fn only_bounded(cal: &warpkit_timing::Calibration) -> Vec<&str> {
    cal.parameters
        .iter()
        .filter(|p| !matches!(p.recovery, Recovery::Exact | Recovery::Within2Percent))
        .map(|p| p.name.as_str())
        .collect()
}

#[test]
fn small_machine() {
    let cal = check(&machine("small.toml"));
    // The VALU takes as much as the compute unit issues (2 a cycle), and DRAM bandwidth
    // limits misses in flight before the L2's MSHRs do.
    assert_eq!(
        only_bounded(&cal),
        ["units.valu.count", "units.valu.interval", "l2.mshrs"]
    );
}

#[test]
fn wide_machine() {
    let cal = check(&machine("wide.toml"));
    let bounded = only_bounded(&cal);
    // The VALU takes more than the compute unit issues; DRAM bandwidth limits misses in
    // flight before the L2's MSHRs do.
    for name in ["units.valu.count", "units.valu.interval", "l2.mshrs"] {
        assert!(bounded.contains(&name), "{name}: {bounded:?}");
    }
    for name in [
        "compute_units",
        "cu.warp_slots",
        "cu.vregs",
        "cu.max_workgroups",
        "dram.bytes_per_cycle",
        "l2.size_bytes",
        "shared.banks",
    ] {
        assert!(!bounded.contains(&name), "{name} only bounded");
    }
}

#[test]
fn mshr_bound_machine() {
    let cal = check(&machine("mshr-bound.toml"));
    let bounded = only_bounded(&cal);
    // wide.toml with few L2 MSHRs: they limit misses in flight before DRAM bandwidth does.
    for name in [
        "units.valu.count",
        "units.valu.interval",
        "dram.bytes_per_cycle",
    ] {
        assert!(bounded.contains(&name), "{name}: {bounded:?}");
    }
    for name in [
        "compute_units",
        "cu.warp_slots",
        "cu.vregs",
        "cu.max_workgroups",
        "l2.mshrs",
        "l2.size_bytes",
        "shared.banks",
    ] {
        assert!(!bounded.contains(&name), "{name} only bounded");
    }
}

#[test]
fn report_serialises() {
    let cal = warpkit_timing::Calibration {
        machine: "m".into(),
        machine_hash: "0".into(),
        launches: 0,
        parameters: vec![],
    };
    let back: warpkit_timing::Calibration = serde_json::from_str(&cal.to_json()).unwrap();
    assert_eq!(back, cal);
}
