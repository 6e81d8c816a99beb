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

/// The sweep of docs/timing.md (its figure, docs/timing-sweep.svg, and its table,
/// docs/timing-sweep.csv, both written by one `warpkit timing sweep` at full size) is what
/// the model gives today. Rerunning all of it takes too long for the test suite, so this
/// reruns one machine of it for every kernel (the cheapest: the most compute units and the
/// smallest L2) and compares the cycles with the committed table, then checks that the
/// committed plot holds exactly the committed table's values.
#[test]
fn the_committed_sweep_is_what_the_model_gives_today() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let csv = read(&docs.join("timing-sweep.csv"));
    let svg = read(&docs.join("timing-sweep.svg"));
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(
        header[..5],
        [
            "kernel",
            "compute_units",
            "l2.size_bytes",
            "cycles",
            "speedup"
        ]
    );
    let max_cus = rows
        .iter()
        .map(|r| r[1].parse::<u32>().unwrap())
        .max()
        .unwrap();
    let min_l2 = rows
        .iter()
        .map(|r| r[2].parse::<u32>().unwrap())
        .min()
        .unwrap();
    let mut kernels: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    kernels.dedup();

    let mut args = vec!["timing", "sweep", "-q"];
    args.extend(&kernels);
    let (cus, l2) = (
        format!("compute_units={max_cus}"),
        format!("l2.size_bytes={min_l2}"),
    );
    args.extend(["--set", &cus, "--set", &l2, "--csv", "-"]);
    let o = warpkit(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let fresh = String::from_utf8_lossy(&o.stdout).into_owned();
    for line in fresh.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let committed = rows
            .iter()
            .find(|r| r[0] == f[0] && r[1] == f[1] && r[2] == f[2])
            .unwrap_or_else(|| panic!("no row for {line} in docs/timing-sweep.csv"));
        // cycles, and the machine's hash (the last column).
        assert_eq!(
            (committed[3], committed.last()),
            (f[3], f.last()),
            "docs/timing-sweep.csv is out of date: rerun the command in docs/timing.md"
        );
    }

    // Every point of the plot is a row of the table: its y, the speedup, as the plot's
    // tooltips print it.
    let shown = |v: f64| {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    // Computed from the cycles as the sweep does: the kernel's first row over this one.
    let cycles = |r: &Vec<&str>| r[3].parse::<u64>().unwrap() as f64;
    let mut want: Vec<String> = rows
        .iter()
        .map(|r| {
            let first = rows.iter().find(|q| q[0] == r[0]).unwrap();
            shown(cycles(first) / cycles(r))
        })
        .collect();
    let mut got: Vec<String> = svg
        .split("<circle ")
        .filter_map(|c| {
            let title = c.split_once("<title>")?.1.split_once("</title>")?.0;
            Some(title.rsplit_once(" = ")?.1.to_string())
        })
        .collect();
    want.sort();
    got.sort();
    assert_eq!(
        got, want,
        "docs/timing-sweep.svg does not plot docs/timing-sweep.csv"
    );
}
