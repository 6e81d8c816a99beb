//! `warpkit regress`: shards merged equal the one-shard run (JUnit and JSON Lines), the
//! shard comes from Slurm's or Kubernetes' variables, a failure's reproduction command
//! reproduces it, bad input exits 2, DUTs and timeouts; the Kubernetes manifest of
//! docs/regressions.md parses and its command runs; the documented Slurm array script runs
//! for real on a single-node Slurm (skipped, with a message, where Slurm cannot be started).
//! Suites of generated programs and conformance vectors run when this build has `warpkit
//! gen` and `warpkit conformance` (they are skipped, with a message, otherwise).

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The variables that choose a shard; every run here starts without them, so a test run
/// inside a Slurm job or a Kubernetes pod is not sharded by accident.
const SHARD_VARS: [&str; 5] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_STEP",
    "SLURM_ARRAY_TASK_COUNT",
    "JOB_COMPLETION_INDEX",
];

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_warpkit")
}

fn regress(args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.arg("regress").args(args);
    for v in SHARD_VARS {
        cmd.env_remove(v);
    }
    cmd.envs(vars.iter().copied());
    cmd.output().expect("warpkit runs")
}

/// Stores lane² to the buffer `sig` (the launch's argument 0).
const FILL: &str = "\
    uload.b64 u[16:17], u[0:1], 0
    waitcnt sm=0
    laneid v1
    mul v2, v1, v1
    sll.vi v5, v1, 2
    gstore.b32 v2, v5, u[16:17], 0
    endpgm
";

/// Traps: an illegal mode value.
const TRAP: &str = "\
    umov.l u1, 0xffffffff
    csrw mode, u1
    endpgm
";

/// The bytes FILL stores into a 128-byte `sig`.
fn fill_bytes() -> Vec<u8> {
    (0u32..32).flat_map(|l| (l * l).to_le_bytes()).collect()
}

/// A plan of 13 cases over two configurations: passing and failing directed tests, the
/// engines against each other, a good and a bad program DUT.
fn fixture(test: &str) -> (PathBuf, PathBuf) {
    let d = dir(test);
    std::fs::write(d.join("fill.s"), FILL).unwrap();
    std::fs::write(d.join("trap.s"), TRAP).unwrap();
    std::fs::write(d.join("golden.bin"), fill_bytes()).unwrap();
    std::fs::write(d.join("wrong.bin"), [7u8; 128]).unwrap();
    std::fs::write(
        d.join("dut.sh"),
        format!(
            "prog=$1; out=$2; shift 2\nexec '{}' run \"$prog\" --engine interp \"$@\" --out sig=\"$out/sig.bin\"\n",
            bin()
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("bad-dut.sh"),
        "printf 'not the signature' > \"$2/sig.bin\"\n",
    )
    .unwrap();
    let plan = d.join("plan.yaml");
    std::fs::write(
        &plan,
        "\
name: smoke
configs:
  - name: jit
    engine: jit
    threads: 1
    launch: {args: [\"sig=buf:128\"]}
  - name: interp
    engine: interp
    launch: {args: [\"sig=buf:128\"]}
suites:
  - name: directed
    kind: directed
    tests:
      - file: fill.s
        outputs: {sig: golden.bin}
      - file: trap.s
        exit: 1
        stderr: illegal mode value
      - {file: fill.s, name: fill-wrong, outputs: {sig: wrong.bin}}
  - name: engines
    kind: directed
    against: engines
    outputs: [sig]
    tests: [{file: fill.s}, {file: trap.s, exit: 1}]
  - name: dut
    kind: directed
    dut: sh dut.sh
    outputs: [sig]
    tests: [{file: fill.s}]
  - name: bad-dut
    kind: directed
    dut: sh bad-dut.sh
    outputs: [sig]
    configs: [jit]
    tests: [{file: fill.s}]
",
    )
    .unwrap();
    (d, plan)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn lines(p: &Path) -> Vec<serde_json::Value> {
    read(p)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `text` without each `from` and what follows it up to `to` (kept or not).
fn cut(text: &str, from: &str, to: char, keep_to: bool) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        out.push_str(&rest[..at]);
        let after = &rest[at + from.len()..];
        let end = after.find(to).unwrap();
        rest = if keep_to {
            &after[end..]
        } else {
            &after[end + 1..]
        };
    }
    out.push_str(rest);
    out
}

/// The results with durations taken out: `"duration_ms":N` in JSON (always the last
/// member), `time="S"` in XML.
fn without_durations(text: &str) -> String {
    cut(
        &cut(text, ",\"duration_ms\":", '}', true),
        " time=\"",
        '"',
        false,
    )
}

#[test]
fn four_shards_merge_into_the_one_shard_run() {
    let (d, plan) = fixture("regress-merge");
    let one = d.join("one");
    let o = regress(&[s(&plan), "--out", s(&one), "--no-timing"], &[]);
    expect(
        &o,
        1,
        &[
            "FAIL directed/fill-wrong@jit",
            "13 cases, 10 passed, 3 failed, 0 errors",
        ],
    );
    let results = lines(&one.join("results-0.jsonl"));
    assert_eq!(results.len(), 13);
    let failed: Vec<&str> = results
        .iter()
        .filter(|r| r["status"] != "pass")
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        failed,
        [
            "bad-dut/fill@jit",
            "directed/fill-wrong@interp",
            "directed/fill-wrong@jit"
        ]
    );
    let ids: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "results are sorted by case id");
    assert!(results.iter().all(|r| r.get("duration_ms").is_none()));
    let bad = &results[0];
    assert_eq!(bad["config"], "jit");
    assert!(
        bad["message"]
            .as_str()
            .unwrap()
            .contains("the DUT's buffer `sig` differs from warpkit's"),
        "{bad}"
    );

    // Cases run at once give the same files.
    let parallel = d.join("parallel");
    let o = regress(
        &[s(&plan), "--out", s(&parallel), "--no-timing", "-j", "3"],
        &[],
    );
    expect(&o, 1, &["13 cases, 10 passed, 3 failed"]);
    assert_eq!(
        read(&parallel.join("junit-0.xml")),
        read(&one.join("junit-0.xml"))
    );
    assert_eq!(
        read(&parallel.join("results-0.jsonl")),
        read(&one.join("results-0.jsonl"))
    );

    // Four shards into one directory, each shard a separate process.
    let shards = d.join("shards");
    for i in 0..4 {
        let o = regress(
            &[
                s(&plan),
                "--shard",
                &format!("{i}/4"),
                "--out",
                s(&shards),
                "--no-timing",
            ],
            &[],
        );
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    }
    for i in 0..4 {
        // 13 cases round robin: shard 0 holds 4, the others 3.
        let n = lines(&shards.join(format!("results-{i}.jsonl"))).len();
        assert_eq!(n, if i == 0 { 4 } else { 3 }, "shard {i}");
    }
    let merged = d.join("merged");
    let o = regress(&["merge", s(&shards), "-o", s(&merged)], &[]);
    expect(&o, 1, &["4 shards, 13 cases, 10 passed, 3 failed"]);
    assert_eq!(
        read(&merged.join("junit.xml")),
        read(&one.join("junit-0.xml"))
    );
    assert_eq!(
        read(&merged.join("results.jsonl")),
        read(&one.join("results-0.jsonl"))
    );

    // With durations recorded, shards in separate directories: equal once they are
    // taken out.
    let mut dirs = Vec::new();
    for i in 0..4 {
        let sd = d.join(format!("timed-{i}"));
        regress(
            &[s(&plan), "--shard", &format!("{i}/4"), "--out", s(&sd)],
            &[],
        );
        dirs.push(sd);
    }
    let timed = d.join("timed");
    let mut args = vec!["merge"];
    args.extend(dirs.iter().map(|p| s(p)));
    args.extend(["-o", s(&timed)]);
    expect(&regress(&args, &[]), 1, &[]);
    let junit = read(&timed.join("junit.xml"));
    assert!(junit.contains(" time=\""), "{junit}");
    assert!(read(&timed.join("results.jsonl")).contains("\"duration_ms\":"));
    assert_eq!(without_durations(&junit), read(&one.join("junit-0.xml")));
    assert_eq!(
        without_durations(&read(&timed.join("results.jsonl"))),
        read(&one.join("results-0.jsonl"))
    );
    // ... and `merge --no-timing` drops them.
    let o = regress(
        &[
            "merge",
            s(&dirs[0]),
            s(&dirs[1]),
            s(&dirs[2]),
            s(&dirs[3]),
            "-o",
            s(&d.join("m2")),
            "--no-timing",
        ],
        &[],
    );
    expect(&o, 1, &[]);
    assert_eq!(
        read(&d.join("m2/junit.xml")),
        read(&one.join("junit-0.xml"))
    );
}

#[test]
fn the_environment_picks_the_shard() {
    let (d, plan) = fixture("regress-env");
    let list = |args: &[&str], vars: &[(&str, &str)]| {
        let mut a = vec![s(&plan), "--list"];
        a.extend_from_slice(args);
        let o = regress(&a, vars);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        String::from_utf8(o.stdout).unwrap()
    };
    let whole = list(&[], &[]);
    assert_eq!(whole.lines().count(), 13);
    assert!(whole.starts_with("0\tdirected/fill@jit\t-\t"), "{whole}");
    for i in 0..4 {
        let flag = list(&["--shard", &format!("{i}/4")], &[]);
        let id = i.to_string();
        let slurm = list(
            &[],
            &[
                ("SLURM_ARRAY_TASK_ID", &id),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
        );
        let offset = (i + 1).to_string();
        let slurm1 = list(
            &[],
            &[
                ("SLURM_ARRAY_TASK_ID", &offset),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
        );
        let k8s = list(&["--shards", "4"], &[("JOB_COMPLETION_INDEX", &id)]);
        assert_eq!(flag, slurm);
        assert_eq!(flag, slurm1);
        assert_eq!(flag, k8s);
        let positions: Vec<usize> = flag
            .lines()
            .map(|l| l.split('\t').next().unwrap().parse().unwrap())
            .collect();
        assert!(positions.iter().all(|p| p % 4 == i), "{flag}");
    }
    // A real run from the Kubernetes variable writes that shard's files.
    let out = d.join("k8s");
    let o = regress(
        &[s(&plan), "--shards", "4", "--out", s(&out), "--no-timing"],
        &[("JOB_COMPLETION_INDEX", "2")],
    );
    expect(&o, 0, &["shard 2/4: 3 cases, 3 passed"]);
    let manifest: serde_json::Value =
        serde_json::from_str(&read(&out.join("shard-2.json"))).unwrap();
    assert_eq!(manifest["shard"], 2);
    assert_eq!(manifest["shards"], 4);
    assert_eq!(manifest["total"], 13);
    let flag = d.join("flag");
    regress(
        &[s(&plan), "--shard", "2/4", "--out", s(&flag), "--no-timing"],
        &[],
    );
    assert_eq!(
        read(&out.join("junit-2.xml")),
        read(&flag.join("junit-2.xml"))
    );
    // An index without a count is bad input.
    let o = regress(&[s(&plan), "--list"], &[("JOB_COMPLETION_INDEX", "1")]);
    expect(&o, 2, &["JOB_COMPLETION_INDEX", "--shards N"]);
}

#[test]
fn a_failure_reproduces_from_its_command() {
    let (d, plan) = fixture("regress-repro");
    let out = d.join("out");
    regress(&[s(&plan), "--out", s(&out), "--no-timing"], &[]);
    let results = lines(&out.join("results-0.jsonl"));
    let failed = results.iter().find(|r| r["status"] == "fail").unwrap();
    let passed = results.iter().find(|r| r["status"] == "pass").unwrap();
    let command = failed["reproduce"].as_str().unwrap();
    assert!(
        command.contains(" regress ") && command.contains("--case"),
        "{command}"
    );
    // From another directory, through the shell, as a user would paste it.
    let o = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    let message = failed["message"].as_str().unwrap();
    expect(&o, 1, &[message, "1 cases, 0 passed, 1 failed"]);
    let o = Command::new("sh")
        .arg("-c")
        .arg(passed["reproduce"].as_str().unwrap())
        .output()
        .unwrap();
    expect(&o, 0, &["1 cases, 1 passed"]);
    // --case with --out writes the one case's files, equal to its line in the full run.
    let only = d.join("only");
    let id = failed["id"].as_str().unwrap();
    regress(
        &[s(&plan), "--case", id, "--out", s(&only), "--no-timing"],
        &[],
    );
    let again = lines(&only.join("results-0.jsonl"));
    assert_eq!(again.len(), 1);
    assert_eq!(&again[0], failed);
}

#[test]
fn bad_input_exits_2() {
    let (d, plan) = fixture("regress-bad");
    let bad = d.join("bad.yaml");
    std::fs::write(
        &bad,
        "suites:\n  - name: s\n    kind: gen\n    seeds: [1]\n    against: nothing\n",
    )
    .unwrap();
    expect(
        &regress(&[s(&bad)], &[]),
        2,
        &[&format!(
            "{}:5:14: unknown `against: nothing`",
            bad.display()
        )],
    );
    expect(
        &regress(&[s(&d.join("absent.yaml"))], &[]),
        2,
        &["absent.yaml"],
    );
    expect(
        &regress(&[s(&plan), "--case", "directed/nope@jit"], &[]),
        2,
        &["--case directed/nope@jit: the plan", "no such case"],
    );
    expect(
        &regress(&[s(&plan), "--shard", "4/4"], &[]),
        2,
        &["shard 4 of 4 does not exist"],
    );
    expect(
        &regress(&[s(&plan), "--list"], &[("SLURM_ARRAY_TASK_ID", "x")]),
        2,
        &["SLURM_ARRAY_TASK_ID=x"],
    );
    let one = d.join("one");
    regress(&[s(&plan), "--shard", "1/2", "--out", s(&one)], &[]);
    expect(
        &regress(&["merge", s(&one), "-o", s(&d.join("m"))], &[]),
        2,
        &["shard 0 of 2 is missing"],
    );
    assert!(!d.join("m").exists());
    expect(
        &regress(&["merge", s(&d), "-o", s(&d.join("m"))], &[]),
        2,
        &["no shard-<I>.json"],
    );
}

#[test]
fn a_dut_past_the_timeout_is_killed_and_fails() {
    let d = dir("regress-timeout");
    std::fs::write(d.join("fill.s"), FILL).unwrap();
    let plan = d.join("plan.yaml");
    std::fs::write(
        &plan,
        "timeout: 1\nconfigs: [{name: c, launch: {args: [\"sig=buf:128\"]}}]\nsuites:\n  - name: slow\n    kind: directed\n    dut: sleep 60; true\n    outputs: [sig]\n    tests: [{file: fill.s}]\n",
    )
    .unwrap();
    let o = regress(&[s(&plan), "--out", s(&d.join("out"))], &[]);
    expect(
        &o,
        1,
        &["FAIL slow/fill@c: dut: no result after the plan's timeout of 1 s (killed)"],
    );
}

/// Say that a test skips, on the real stderr: the test harness captures `eprintln!` of
/// passing tests, and a skip must be seen.
fn skip(why: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "skipped: {why}");
}

/// Whether this build has the subcommand `verb` (`warpkit VERB --help` succeeds).
fn has_verb(verb: &str) -> bool {
    Command::new(bin())
        .args([verb, "--help"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn generated_programs_run_on_both_engines_and_merge() {
    if !has_verb("gen") {
        skip("this build has no `warpkit gen`; gen suites are not tested");
        return;
    }
    let d = dir("regress-gen");
    let plan = d.join("plan.yaml");
    std::fs::write(
        &plan,
        "configs: [{name: a}, {name: b, threads: 1, gen: {length: 50}}]\nsuites:\n  - {name: random, kind: gen, seeds: {first: 1, count: 6}}\n",
    )
    .unwrap();
    let one = d.join("one");
    let o = regress(&[s(&plan), "--out", s(&one), "--no-timing"], &[]);
    expect(&o, 0, &["12 cases, 12 passed"]);
    let results = lines(&one.join("results-0.jsonl"));
    assert_eq!(results[0]["seed"], 1);
    let shards = d.join("shards");
    for i in 0..4 {
        regress(
            &[
                s(&plan),
                "--shard",
                &format!("{i}/4"),
                "--out",
                s(&shards),
                "--no-timing",
            ],
            &[],
        );
    }
    let merged = d.join("merged");
    expect(
        &regress(&["merge", s(&shards), "-o", s(&merged)], &[]),
        0,
        &[],
    );
    assert_eq!(
        read(&merged.join("junit.xml")),
        read(&one.join("junit-0.xml"))
    );
    assert_eq!(
        read(&merged.join("results.jsonl")),
        read(&one.join("results-0.jsonl"))
    );
    // A DUT that disagrees fails, with a reproduction command that fails again.
    std::fs::write(d.join("bad-dut.sh"), "printf x > \"$2/sig.bin\"\n").unwrap();
    std::fs::write(
        &plan,
        "suites:\n  - {name: random, kind: gen, seeds: [5], dut: sh bad-dut.sh}\n",
    )
    .unwrap();
    let out = d.join("dut");
    expect(
        &regress(&[s(&plan), "--out", s(&out)], &[]),
        1,
        &["random/seed-5@default"],
    );
    let r = &lines(&out.join("results-0.jsonl"))[0];
    let o = Command::new("sh")
        .arg("-c")
        .arg(r["reproduce"].as_str().unwrap())
        .output()
        .unwrap();
    expect(&o, 1, &["differs from warpkit's"]);
}

#[test]
fn conformance_vectors_run_against_warpkit_and_a_dut() {
    if !has_verb("conformance") {
        skip("this build has no `warpkit conformance`; conformance suites are not tested");
        return;
    }
    let d = dir("regress-conformance");
    let suite = d.join("suite");
    let o = Command::new(bin())
        .args(["conformance", "export", s(&suite)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let plan = d.join("plan.yaml");
    std::fs::write(
        &plan,
        format!(
            "configs: [{{name: jit, engine: jit}}]\nsuites:\n  - {{name: own, kind: conformance, dir: suite}}\n  - {{name: dut, kind: conformance, dir: suite, dut: \"'{}' conformance dut --engine interp\"}}\n",
            bin()
        ),
    )
    .unwrap();
    let o = regress(&[s(&plan), "--list"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let listed = String::from_utf8(o.stdout).unwrap();
    let ids: Vec<&str> = listed
        .lines()
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    assert!(ids.len() >= 2, "{listed}");
    // The first three vectors of each suite, against warpkit's DUT and the given one.
    let mut args = vec![s(&plan)];
    let own: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|i| i.starts_with("own/"))
        .take(3)
        .collect();
    let dut: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|i| i.starts_with("dut/"))
        .take(3)
        .collect();
    for id in own.iter().chain(&dut) {
        args.extend(["--case", id]);
    }
    let o = regress(&args, &[]);
    expect(
        &o,
        0,
        &[&format!(
            "{} cases, {} passed",
            own.len() + dut.len(),
            own.len() + dut.len()
        )],
    );
}

#[test]
fn shards_measure_coverage_and_the_merge_combines_it() {
    if !has_verb("cover") {
        skip("this build has no `warpkit cover`; coverage of shards is not tested");
        return;
    }
    let d = dir("regress-cover");
    // Programs that run alone (no arguments, no trap), as `warpkit cover` runs them.
    std::fs::write(d.join("square.s"), "laneid v1\nmul v2, v1, v1\nendpgm\n").unwrap();
    std::fs::write(
        d.join("count.s"),
        "umov.l u1, 3\ntop:\nuaddi u1, u1, -1\nbnz u1, top\nendpgm\n",
    )
    .unwrap();
    let plan = d.join("plan.yaml");
    std::fs::write(
        &plan,
        "coverage: true\nsuites:\n  - {name: s, kind: directed, tests: [{file: square.s}, {file: count.s}]}\n",
    )
    .unwrap();
    // A relative --out, from the plan's directory.
    for i in 0..2 {
        let o = Command::new(bin())
            .args([
                "regress",
                "plan.yaml",
                "--shard",
                &format!("{i}/2"),
                "--out",
                "out",
            ])
            .current_dir(&d)
            .output()
            .unwrap();
        expect(&o, 0, &[&format!("coverage-{i}.json")]);
    }
    let merged = d.join("merged");
    let o = regress(&["merge", s(&d.join("out")), "-o", s(&merged)], &[]);
    expect(&o, 0, &["coverage.json"]);
    let db: serde_json::Value = serde_json::from_str(&read(&merged.join("coverage.json"))).unwrap();
    assert!(db.is_object(), "{db}");
}

/// The fenced block after `<!-- MARKER -->` in docs/regressions.md.
fn doc_block(marker: &str) -> String {
    let doc = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/regressions.md"));
    let at = doc
        .find(&format!("<!-- {marker} -->"))
        .unwrap_or_else(|| panic!("docs/regressions.md has no `<!-- {marker} -->`"));
    let rest = &doc[at..];
    let start = rest.find("```").unwrap();
    let body = &rest[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()].to_string()
}

#[test]
fn the_documented_kubernetes_job_parses_and_its_command_runs() {
    let manifest: serde_json::Value = serde_saphyr::from_str(&doc_block("kubernetes-indexed-job"))
        .unwrap_or_else(|e| panic!("the manifest is not YAML: {e}"));
    assert_eq!(manifest["kind"], "Job");
    let spec = &manifest["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    let completions = spec["completions"].as_u64().unwrap();
    assert!(spec["parallelism"].as_u64().unwrap() >= 1);
    let container = &spec["template"]["spec"]["containers"][0];
    let command: Vec<&str> = container["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(&command[..2], ["warpkit", "regress"]);
    let shards_at = command.iter().position(|a| *a == "--shards").unwrap();
    assert_eq!(command[shards_at + 1], completions.to_string());
    // The command with this test's plan and output directory, in the pod of index 2.
    let (d, plan) = fixture("regress-k8s");
    let out = d.join("out");
    let args: Vec<String> = command[2..]
        .iter()
        .map(|a| match *a {
            p if p.ends_with(".yaml") => s(&plan).to_string(),
            p if p.starts_with("/results") => s(&out).to_string(),
            a => a.to_string(),
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let index = (completions - 1).min(2).to_string();
    let o = regress(&args, &[("JOB_COMPLETION_INDEX", &index)]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("shard {index}/{completions}")),
        "{}",
        stderr(&o)
    );
    assert!(out.join(format!("results-{index}.jsonl")).is_file());
}

/// Why Slurm cannot run here, if it cannot.
fn slurm_unavailable() -> Option<String> {
    if !Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
    {
        return Some("not root: tools/slurm/single-node.sh starts the daemons as root".into());
    }
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/slurm");
    let install = Command::new("bash").arg(tools.join("install.sh")).output();
    let installed = Command::new("sh")
        .arg("-c")
        .arg("command -v sbatch && PATH=$PATH:/usr/sbin command -v slurmctld")
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        let why = install
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_else(|e| e.to_string());
        return Some(format!("Slurm is not installed ({why})"));
    }
    let start = Command::new("bash")
        .arg(tools.join("single-node.sh"))
        .output();
    match start {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "tools/slurm/single-node.sh could not start Slurm: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Some(format!("cannot run tools/slurm/single-node.sh: {e}")),
    }
}

#[test]
fn a_slurm_job_array_merges_into_the_local_run() {
    if let Some(why) = slurm_unavailable() {
        skip(&format!("the Slurm job-array test: {why}"));
        return;
    }
    let (d, plan) = fixture("regress-slurm");
    let script = d.join("regress.sbatch");
    std::fs::write(&script, doc_block("slurm-array-script")).unwrap();
    let out = d.join("results");
    // The documented submission, bounded: a wedged cluster fails the test instead of
    // hanging it.
    let o = Command::new("timeout")
        .arg("300")
        .arg("sbatch")
        .arg("--wait")
        .arg(format!(
            "--export=ALL,PLAN={},OUT={},WARPKIT={}",
            s(&plan),
            s(&out),
            bin()
        ))
        .arg("--chdir")
        .arg(&d)
        .arg(&script)
        .output()
        .expect("sbatch runs");
    // Tasks that found failures end with exit 1, which `sbatch --wait` passes on.
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "sbatch: {:?} {}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        stderr(&o)
    );
    for i in 0..4 {
        assert!(
            out.join(format!("results-{i}.jsonl")).is_file(),
            "array task {i} wrote no results; its log is in {}",
            d.display()
        );
    }
    let merged = d.join("merged");
    expect(
        &regress(&["merge", s(&out), "-o", s(&merged), "--no-timing"], &[]),
        1,
        &["4 shards, 13 cases"],
    );
    let local = d.join("local");
    regress(&[s(&plan), "--out", s(&local), "--no-timing"], &[]);
    assert_eq!(
        read(&merged.join("junit.xml")),
        read(&local.join("junit-0.xml"))
    );
    assert_eq!(
        read(&merged.join("results.jsonl")),
        read(&local.join("results-0.jsonl"))
    );
}
