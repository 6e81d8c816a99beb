//! `warpkit timing sweep`: knobs set by their TOML path, every combination timed, the
//! table, CSV, JSON and SVG outputs, their determinism, and clear errors for bad knobs.

use std::path::Path;

use crate::common::*;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Elements named `name` in `svg` (`<name ...>`).
fn count(svg: &str, name: &str) -> usize {
    svg.matches(&format!("<{name} ")).count()
}

#[test]
fn sweep_writes_table_csv_json_and_svg_the_same_for_any_threads() {
    let d = dir("sweep");
    let run = |threads: &str, tag: &str| {
        let svg = d.join(format!("{tag}.svg"));
        let csv = d.join(format!("{tag}.csv"));
        let json = d.join(format!("{tag}.json"));
        let o = warpkit(&[
            "timing",
            "sweep",
            "--small",
            "--set",
            "compute_units=1,2",
            "--set",
            "l2.size_bytes=262144,1048576",
            "vadd",
            "reduce",
            "--threads",
            threads,
            "--svg",
            s(&svg),
            "--csv",
            s(&csv),
            "--json",
            s(&json),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            read(&svg),
            read(&csv),
            read(&json),
        )
    };
    let (table, svg, csv, json) = run("1", "one");
    // The table: a header and one row per kernel and machine.
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 1 + 2 * 4, "{table}");
    assert!(
        lines[0].starts_with("kernel") && lines[0].contains("compute_units"),
        "{table}"
    );
    assert!(lines[0].contains("l2.size_bytes") && lines[0].contains("cycles"));
    assert!(
        lines[1].starts_with("vadd") && lines[1].contains("256KiB"),
        "{table}"
    );

    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 9, "{csv}");
    assert_eq!(
        rows[0][..4],
        ["kernel", "compute_units", "l2.size_bytes", "cycles"]
    );
    for r in &rows[1..] {
        let cycles: u64 = r[3].parse().unwrap();
        assert!(cycles > 0, "{csv}");
    }
    // The first machine is each kernel's baseline.
    assert_eq!(rows[1][4], "1.000000");
    assert_eq!(rows[5][4], "1.000000");

    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["schema"], "warpkit-timing-sweep");
    assert_eq!(v["knobs"][0]["path"], "compute_units");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 8);
    for r in runs {
        let stalls = r["stalls"].as_object().unwrap();
        assert_eq!(stalls.len(), 14);
        let total: u64 = stalls.values().map(|x| x.as_u64().unwrap()).sum();
        let cus: u64 = r["settings"]["compute_units"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        // Every warp slot of every compute unit, every cycle (32 slots per unit).
        assert_eq!(total, r["cycles"].as_u64().unwrap() * cus * 32, "{r}");
    }
    assert_ne!(runs[0]["machine_hash"], runs[1]["machine_hash"]);

    // One line per kernel and L2 size, one point per compute-unit count.
    assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(count(&svg, "polyline"), 4, "{svg}");
    assert_eq!(count(&svg, "circle"), 8 + 4, "{svg}");
    for label in [
        ">compute_units<",
        ">cycles<",
        ">vadd, l2.size_bytes=256KiB<",
        ">reduce, l2.size_bytes=1MiB<",
    ] {
        assert!(svg.contains(label), "no {label} in {svg}");
    }

    // Timing depends only on the recorded streams and the machine.
    let (table2, svg2, csv2, json2) = run("2", "two");
    assert_eq!(table, table2);
    assert_eq!(svg, svg2);
    assert_eq!(csv, csv2);
    assert_eq!(json, json2);
}

#[test]
fn sweep_a_kernel_file_over_a_categorical_knob() {
    let d = dir("sweep-file");
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/saxpy.s");
    let machine = d.join("m.toml");
    std::fs::write(&machine, "name = \"tiny\"\ncompute_units = 2\n").unwrap();
    let svg = d.join("p.svg");
    let o = warpkit(&[
        "timing",
        "sweep",
        s(&kernel),
        "--machine",
        s(&machine),
        "--set",
        "cu.policy=lrr,gto",
        "--grid",
        "2",
        "--block",
        "64",
        "--arg",
        "x=buf:512",
        "--arg",
        "y=buf:512",
        "--arg",
        "a=3",
        "--arg",
        "n=100",
        "--y",
        "speedup",
        "--svg",
        s(&svg),
        "--title",
        "saxpy <policy>",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = String::from_utf8_lossy(&o.stdout);
    assert_eq!(table.lines().count(), 3, "{table}");
    assert!(table.contains("lrr") && table.contains("gto"), "{table}");
    let svg = read(&svg);
    assert!(svg.contains(">lrr<") && svg.contains(">gto<"), "{svg}");
    assert!(svg.contains(">saxpy &lt;policy&gt;<"), "{svg}");
    assert!(svg.contains(">speedup over cu.policy=lrr<"), "{svg}");
    assert_eq!(count(&svg, "polyline"), 1);
}

#[test]
fn bad_knobs_and_kernels_are_refused_before_anything_runs() {
    let sweep = |extra: &[&str]| {
        let mut v = vec!["timing", "sweep", "--small"];
        v.extend_from_slice(extra);
        warpkit(&v)
    };
    let o = sweep(&["vadd", "--set", "cu.warp_slotz=1,2"]);
    expect(
        &o,
        2,
        &[
            "cu.warp_slotz",
            "is not a machine field",
            "cu.warp_slots",
            "l2.size_bytes",
        ],
    );
    let o = sweep(&["vadd", "--set", "l2.size_bytes=1000"]);
    expect(&o, 2, &["l2.size_bytes=1000", "not a"]);
    let o = sweep(&["vadd", "--set", "compute_units=0"]);
    expect(&o, 2, &["compute_units", "at least 1"]);
    let o = sweep(&["vadd", "--set", "compute_units"]);
    expect(&o, 2, &["expected PATH=VALUE"]);
    let o = sweep(&[
        "vadd",
        "--set",
        "compute_units=1",
        "--set",
        "compute_units=2",
    ]);
    expect(&o, 2, &["set twice"]);
    let o = sweep(&["vadd", "--set", "latency.frob=3"]);
    expect(&o, 2, &["`frob` is not an instruction mnemonic"]);
    let o = sweep(&["no-such-kernel", "--set", "compute_units=1"]);
    expect(&o, 2, &["neither an example kernel", "sgemm"]);
    let o = sweep(&["vadd", "--set", "compute_units=1", "--grid", "4"]);
    expect(&o, 2, &["launch options", "kernel files only"]);
    // reduce's workgroups have 8 warps.
    let o = sweep(&["reduce", "--set", "cu.warp_slots=4"]);
    expect(&o, 2, &["reduce with cu.warp_slots=4", "does not fit"]);
}
