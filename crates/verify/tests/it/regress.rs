//! Regression plans: parsing and located errors, deterministic expansion, shards that
//! partition the plan, shard selection from Slurm and Kubernetes variables, the JUnit and
//! JSON Lines files, and merging shards into the one-shard files. Running cases needs the
//! `warpkit` binary and is tested in the CLI's tests (crates/cli/tests/it/regress_cli.rs).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use warpkit_verify::regress::plan::{Against, Engine, Source};
use warpkit_verify::regress::report::{self, CaseResult, Status};
use warpkit_verify::regress::{
    self, expand, merge, parse, resolve, MergeOptions, PlanError, RegressError, Shard, ShardCounts,
    ShardManifest,
};

/// An empty scratch directory for `test`.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpkit-verify-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A directory with programs `a.s`, `b.s`, a golden file and a test list.
fn fixture(test: &str) -> PathBuf {
    let d = dir(test);
    for f in ["a.s", "b.s", "c.s"] {
        std::fs::write(d.join(f), "endpgm\n").unwrap();
    }
    std::fs::write(d.join("golden.bin"), [1u8, 2, 3]).unwrap();
    std::fs::write(d.join("list.txt"), "# smoke tests\nc.s\n\n").unwrap();
    std::fs::create_dir_all(d.join("vectors/sub")).unwrap();
    std::fs::write(d.join("vectors/z.json"), r#"{"name":"z","post":{}}"#).unwrap();
    std::fs::write(d.join("vectors/sub/a.json"), r#"{"name":"a","post":{}}"#).unwrap();
    std::fs::write(d.join("vectors/index.json"), r#"{"vectors":2}"#).unwrap();
    d
}

const PLAN: &str = "\
name: nightly
shards: 3
timeout: 30
configs:
  - name: jit1
    engine: jit
    threads: 1
    launch: {grid: \"2\", block: \"64\", args: [\"sig=buf:256\"], max_steps: 5000}
    gen: {length: 100, traps: true, streams: [exec, memory]}
  - name: interp
    engine: interp
suites:
  - name: smoke
    kind: directed
    tests:
      - file: a.s
        outputs: {out: golden.bin}
      - file: b.s
        exit: 1
        stderr: trapped
    list: list.txt
  - name: random
    kind: gen
    seeds: {first: 10, count: 3}
    configs: [interp]
  - name: picked
    kind: gen
    seeds: [7, 3]
    dut: ./my-dut --fast
  - name: vectors
    kind: conformance
    dir: vectors
";

fn plan_in(d: &Path, text: &str) -> regress::Plan {
    parse(&d.join("plan.yaml"), text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_plan_parses_with_defaults_and_paths_resolved() {
    let d = fixture("parse");
    let p = plan_in(&d, PLAN);
    assert_eq!(p.name, "nightly");
    assert_eq!(p.shards, Some(3));
    assert_eq!(p.timeout.as_secs(), 30);
    assert_eq!(p.configs.len(), 2);
    let jit = &p.configs[0];
    assert_eq!(jit.engine, Some(Engine::Jit));
    assert_eq!(
        jit.run_args(),
        [
            "--threads",
            "1",
            "--grid",
            "2",
            "--block",
            "64",
            "--max-steps",
            "5000",
            "--arg",
            "sig=buf:256"
        ]
    );
    assert_eq!(
        jit.gen.to_args(),
        ["--length", "100", "--traps", "--streams", "exec,memory"]
    );
    let Source::Directed(tests) = &p.suites[0].source else {
        panic!("directed")
    };
    let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(tests[0].outputs["out"], d.join("golden.bin"));
    assert_eq!(tests[1].exit, 1);
    assert_eq!(tests[1].stderr.as_deref(), Some("trapped"));
    assert_eq!(tests[2].file, d.join("c.s"));
    assert_eq!(p.suites[0].against, Against::Expected);
    assert_eq!(p.suites[0].configs, [0, 1]);
    assert_eq!(p.suites[1].source, Source::Gen(vec![10, 11, 12]));
    assert_eq!(p.suites[1].against, Against::Engines);
    assert_eq!(p.suites[1].configs, [1]);
    assert_eq!(p.suites[1].outputs, ["sig"]);
    assert_eq!(p.suites[2].source, Source::Gen(vec![7, 3]));
    assert_eq!(p.suites[2].against, Against::Dut("./my-dut --fast".into()));
    assert_eq!(p.suites[3].source, Source::Conformance(d.join("vectors")));
    assert_eq!(p.suites[3].against, Against::Expected);
    // A plan without name or configs: the file's stem and one default configuration.
    let q = plan_in(
        &d,
        "suites:\n  - {name: s, kind: directed, tests: [{file: a.s}]}\n",
    );
    assert_eq!(q.name, "plan");
    assert_eq!(q.configs.len(), 1);
    assert_eq!(q.configs[0].name, "default");
    assert_eq!(q.timeout.as_secs(), regress::plan::DEFAULT_TIMEOUT_SECONDS);
}

#[test]
fn plan_errors_name_file_line_and_column() {
    let d = fixture("errors");
    let suite = "suites:\n  - name: s\n    kind: directed\n    tests: [{file: a.s}]\n";
    let cases: &[(&str, u64, u64, &str)] = &[
        (
            "suites:\n  - name: s\n    kind: gen\n    seeds: [1]\n    colour: red\n",
            5,
            5,
            "unknown field `colour`",
        ),
        (
            &format!("configs:\n  - name: a\n    engine: fast\n{suite}"),
            3,
            13,
            "unknown variant `fast`",
        ),
        (
            "suites:\n  - name: s\n    kind: directed\n    tests:\n      - file: nothere.s\n",
            5,
            15,
            "nothere.s does not exist",
        ),
        (
            "suites:\n  - name: s\n    kind: gen\n",
            3,
            11,
            "needs `seeds:`",
        ),
        (
            "suites:\n  - name: s\n    kind: gen\n    seeds: abc\n",
            4,
            12,
            "a list of seeds",
        ),
        (
            "suites:\n  - name: s\n    kind: gen\n    seeds: [1, 2, 1]\n",
            4,
            12,
            "seed 1 is listed twice",
        ),
        (
            "suites:\n  - name: s\n    kind: random\n",
            3,
            11,
            "unknown suite kind `random`",
        ),
        (
            "suites:\n  - name: s\n    kind: gen\n    seeds: [1]\n    configs: [nope]\n",
            5,
            15,
            "no config named `nope`",
        ),
        (
            "suites:\n  - name: s\n    kind: gen\n    seeds: [1]\n    against: expected\n",
            5,
            14,
            "no expected outcome",
        ),
        (
            "suites:\n  - name: s\n    kind: gen\n    seeds: [1]\n    against: dut\n",
            5,
            14,
            "needs a `dut:`",
        ),
        (
            "suites:\n  - name: s\n    kind: directed\n    seeds: [1]\n    tests: [{file: a.s}]\n",
            3,
            11,
            "takes no `seeds:`",
        ),
        (
            &format!("{suite}  - name: s\n    kind: gen\n    seeds: [1]\n"),
            5,
            11,
            "suite `s` is defined twice",
        ),
        (
            "suites:\n  - name: s t\n    kind: gen\n    seeds: [1]\n",
            2,
            11,
            "names use letters",
        ),
        (
            "suites:\n  - name: s\n    kind: directed\n    tests: [{file: a.s}, {file: a.s}]\n",
            2,
            11,
            "two tests named `a`",
        ),
        (
            "suites:\n  - name: s\n    kind: conformance\n    dir: nowhere\n",
            4,
            10,
            "is not a directory",
        ),
        (&format!("shards: 0\n{suite}"), 1, 9, "at least 1"),
        ("suites: [\n", 1, 9, "unclosed bracket"),
        ("name: x\n", 1, 1, "no `suites:`"),
    ];
    for (text, line, column, says) in cases {
        match parse(&d.join("plan.yaml"), text) {
            Err(PlanError::At {
                path,
                line: l,
                column: c,
                message,
            }) => {
                assert_eq!(path, d.join("plan.yaml"), "{text}");
                assert!(message.contains(says), "{text}: `{message}` lacks `{says}`");
                assert_eq!((l, c), (*line, *column), "{text}: {message}");
                let shown = PlanError::At {
                    path,
                    line: l,
                    column: c,
                    message,
                }
                .to_string();
                assert!(
                    shown.starts_with(&format!(
                        "{}:{line}:{column}: ",
                        d.join("plan.yaml").display()
                    )),
                    "{shown}"
                );
            }
            other => panic!("{text}: expected a located error, got {other:?}"),
        }
    }
    // An error in a test list is located in the list.
    std::fs::write(d.join("bad-list.txt"), "a.s\n  missing.s # gone\n").unwrap();
    let e = parse(
        &d.join("plan.yaml"),
        "suites:\n  - name: s\n    kind: directed\n    list: bad-list.txt\n",
    )
    .unwrap_err();
    match e {
        PlanError::At {
            path,
            line,
            column,
            message,
        } => {
            assert_eq!(path, d.join("bad-list.txt"));
            assert_eq!((line, column), (2, 3));
            assert!(message.contains("missing.s does not exist"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // An unreadable plan is an I/O error naming it.
    let e = regress::load(&d.join("absent.yaml")).unwrap_err();
    assert!(e.to_string().contains("absent.yaml"), "{e}");
}

#[test]
fn expansion_is_ordered_deterministic_and_ids_are_unique() {
    let d = fixture("expand");
    let p = plan_in(&d, PLAN);
    let cases = expand(&p).unwrap();
    let again = expand(&plan_in(&d, PLAN)).unwrap();
    assert_eq!(cases, again);
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "smoke/a@jit1",
            "smoke/a@interp",
            "smoke/b@jit1",
            "smoke/b@interp",
            "smoke/c@jit1",
            "smoke/c@interp",
            "random/seed-10@interp",
            "random/seed-11@interp",
            "random/seed-12@interp",
            "picked/seed-7@jit1",
            "picked/seed-7@interp",
            "picked/seed-3@jit1",
            "picked/seed-3@interp",
            // Vectors sorted by path; index.json has no `post` and is not a vector.
            "vectors/sub/a@jit1",
            "vectors/sub/a@interp",
            "vectors/z@jit1",
            "vectors/z@interp",
        ]
    );
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), ids.len());
    for (i, c) in cases.iter().enumerate() {
        assert_eq!(c.index, i);
        assert_eq!(c.config_hash, p.configs[c.config].hash());
    }
    assert_eq!(cases[6].seed, Some(10));
    assert_eq!(cases[0].seed, None);
    // The hash follows the settings, not the name.
    assert_ne!(p.configs[0].hash(), p.configs[1].hash());
    let mut renamed = p.configs[1].clone();
    renamed.name = "other".into();
    assert_eq!(renamed.hash(), p.configs[1].hash());
    renamed.threads = Some(2);
    assert_ne!(renamed.hash(), p.configs[1].hash());
    assert_eq!(p.configs[1].hash().len(), 16);
    // A fixed known value: the hash must not drift between versions.
    assert_eq!(
        format!("{:016x}", regress::plan::fnv1a(b"a")),
        "af63dc4c8601ec8c"
    );
}

#[test]
fn shards_partition_the_plan() {
    let d = fixture("shards");
    let cases = expand(&plan_in(&d, PLAN)).unwrap();
    for count in 1..=20u32 {
        let mut seen = Vec::new();
        for index in 0..count {
            let mine = Shard { index, count }.select(&cases);
            // Plan order within a shard, round robin over the plan.
            assert!(mine.windows(2).all(|w| w[0].index < w[1].index));
            assert!(mine
                .iter()
                .all(|c| c.index % count as usize == index as usize));
            seen.extend(mine.into_iter().map(|c| c.index));
        }
        seen.sort();
        assert_eq!(seen, (0..cases.len()).collect::<Vec<_>>(), "{count} shards");
    }
    assert_eq!(Shard::ALL.select(&cases), cases);
}

fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let m: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| m.get(k).cloned()
}

#[test]
fn the_shard_comes_from_the_flag_slurm_or_kubernetes() {
    let none = ShardCounts::default();
    let plan4 = ShardCounts {
        flag: None,
        plan: Some(4),
    };
    let flag8 = ShardCounts {
        flag: Some(8),
        plan: Some(4),
    };
    let ok = |explicit: Option<&str>, counts, vars: &[(&str, &str)]| {
        resolve(explicit, counts, &env(vars)).unwrap_or_else(|e| panic!("{e}"))
    };
    let err = |explicit: Option<&str>, counts, vars: &[(&str, &str)]| {
        resolve(explicit, counts, &env(vars))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(ok(None, none, &[]), Shard::ALL);
    assert_eq!(ok(Some("2/5"), none, &[]), Shard { index: 2, count: 5 });
    // The flag wins over the environment.
    assert_eq!(
        ok(
            Some("1/2"),
            none,
            &[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_COUNT", "4")
            ]
        ),
        Shard { index: 1, count: 2 }
    );
    assert_eq!(
        ok(
            None,
            none,
            &[
                ("SLURM_ARRAY_TASK_ID", "3"),
                ("SLURM_ARRAY_TASK_COUNT", "4")
            ]
        ),
        Shard { index: 3, count: 4 }
    );
    // An array 10-16:2 has tasks 10, 12, 14, 16: task 14 is shard 2 of 4.
    assert_eq!(
        ok(
            None,
            none,
            &[
                ("SLURM_ARRAY_TASK_ID", "14"),
                ("SLURM_ARRAY_TASK_MIN", "10"),
                ("SLURM_ARRAY_TASK_STEP", "2"),
                ("SLURM_ARRAY_TASK_COUNT", "4")
            ]
        ),
        Shard { index: 2, count: 4 }
    );
    assert_eq!(
        ok(None, plan4, &[("SLURM_ARRAY_TASK_ID", "1")]),
        Shard { index: 1, count: 4 }
    );
    assert_eq!(
        ok(None, plan4, &[("JOB_COMPLETION_INDEX", "3")]),
        Shard { index: 3, count: 4 }
    );
    assert_eq!(
        ok(None, flag8, &[("JOB_COMPLETION_INDEX", "7")]),
        Shard { index: 7, count: 8 }
    );
    // Slurm's variables win over Kubernetes'.
    assert_eq!(
        ok(
            None,
            flag8,
            &[("JOB_COMPLETION_INDEX", "7"), ("SLURM_ARRAY_TASK_ID", "0")]
        ),
        Shard { index: 0, count: 8 }
    );
    assert!(err(None, none, &[("JOB_COMPLETION_INDEX", "0")]).contains("--shards N"));
    assert!(
        err(None, plan4, &[("JOB_COMPLETION_INDEX", "4")]).contains("shard 4 of 4 does not exist")
    );
    assert!(err(None, plan4, &[("JOB_COMPLETION_INDEX", "x")]).contains("JOB_COMPLETION_INDEX=x"));
    assert!(err(
        None,
        none,
        &[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "2")
        ]
    )
    .contains("not in the array"));
    for bad in ["3", "1/0", "4/4", "a/2", "-1/2", "1/2/3"] {
        assert!(
            err(Some(bad), none, &[]).contains(&format!("--shard {bad}")),
            "{bad}"
        );
    }
}

fn result(id: &str, status: Status, message: &str, seed: Option<u64>) -> CaseResult {
    let (suite, name) = id.split_once('/').unwrap();
    CaseResult {
        id: id.into(),
        suite: suite.into(),
        name: name.into(),
        seed,
        config: name.split('@').nth(1).unwrap().into(),
        config_hash: "0123456789abcdef".into(),
        status,
        message: message.into(),
        reproduce: format!("warpkit regress plan.yaml --case {id}"),
        duration_ms: None,
    }
}

#[test]
fn xml_escaping_keeps_every_string_well_formed() {
    assert_eq!(
        report::text("a<b & c>d \"q\" 'x'"),
        "a&lt;b &amp; c&gt;d \"q\" 'x'"
    );
    assert_eq!(
        report::attr("a<b & \"q\" 'x'\n\tz\r"),
        "a&lt;b &amp; &quot;q&quot; &apos;x&apos;&#10;&#9;z&#13;"
    );
    // A terminal escape and NUL cannot appear in XML 1.0 at all.
    assert_eq!(report::text("\u{1b}[31mred\0"), "\u{FFFD}[31mred\u{FFFD}");
    assert_eq!(report::text("line\nnext\ttab"), "line\nnext\ttab");
    assert_eq!(report::text("ünï €"), "ünï €");
}

#[test]
fn junit_counts_and_escapes_failures() {
    let mut results = vec![
        result(
            "s2/b@x",
            Status::Error,
            "warpkit gen exited 2: <oops>",
            Some(5),
        ),
        result("s1/a@x", Status::Pass, "", None),
        result(
            "s1/c@x",
            Status::Fail,
            "buffer `sig` differs & \"so\"\nsecond line",
            None,
        ),
    ];
    report::sort(&mut results);
    let x = report::junit("night&day", &results);
    assert!(x.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"night&amp;day\" tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\">\n"), "{x}");
    assert!(
        x.contains("<testsuite name=\"s1\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\">"),
        "{x}"
    );
    assert!(
        x.contains("<testsuite name=\"s2\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">"),
        "{x}"
    );
    assert!(x.contains("<failure message=\"buffer `sig` differs &amp; &quot;so&quot;\" type=\"failure\">buffer `sig` differs &amp; \"so\"\nsecond line\nreproduce: warpkit regress plan.yaml --case s1/c@x</failure>"), "{x}");
    assert!(
        x.contains("<error message=\"warpkit gen exited 2: &lt;oops&gt;\" type=\"error\">"),
        "{x}"
    );
    assert!(x.contains("seed: 5\n"), "{x}");
    assert!(!x.contains("time="), "no durations, no time: {x}");
    assert_eq!(x.matches("<testcase ").count(), 3);
    assert_eq!(x.matches("</testcase>").count(), 3);
    // Durations appear as seconds with milliseconds, summed per suite.
    results[0].duration_ms = Some(1500);
    results[1].duration_ms = Some(25);
    let t = report::junit("p", &results);
    assert!(t.contains("<testsuite name=\"s1\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"1.525\">"), "{t}");
    assert!(t.contains("time=\"0.025\""), "{t}");
    // JSON Lines round-trip.
    let text = report::jsonl(&results);
    let back: Vec<CaseResult> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(back, results);
    assert!(
        text.lines().nth(2).unwrap().contains("\"duration_ms\"")
            == results[2].duration_ms.is_some()
    );
}

/// Write `results` as the files of shard `index` of `count` would be.
fn write_shard(d: &Path, plan: &str, index: u32, count: u32, results: &[CaseResult], total: usize) {
    std::fs::create_dir_all(d).unwrap();
    std::fs::write(
        d.join(format!("results-{index}.jsonl")),
        report::jsonl(results),
    )
    .unwrap();
    std::fs::write(
        d.join(format!("junit-{index}.xml")),
        report::junit(plan, results),
    )
    .unwrap();
    let m = ShardManifest {
        plan: plan.into(),
        shard: index,
        shards: count,
        cases: results.len(),
        total,
        plan_hash: format!("{plan}-hash"),
    };
    std::fs::write(
        d.join(format!("shard-{index}.json")),
        serde_json::to_string(&m).unwrap(),
    )
    .unwrap();
}

#[test]
fn merging_shards_gives_the_one_shard_files() {
    let d = dir("merge");
    let mut all: Vec<CaseResult> = (0..23)
        .map(|i| {
            let status = [Status::Pass, Status::Fail, Status::Pass, Status::Error][i % 4];
            let mut r = result(
                &format!("s{}/seed-{i}@cfg", i % 3),
                status,
                &format!("m{i} <&>"),
                Some(i as u64),
            );
            r.duration_ms = Some(i as u64 * 7);
            r
        })
        .collect();
    report::sort(&mut all);
    let no_timing = |v: &[CaseResult]| -> Vec<CaseResult> {
        v.iter()
            .cloned()
            .map(|mut r| {
                r.duration_ms = None;
                r
            })
            .collect()
    };
    let one = no_timing(&all);
    write_shard(&d.join("one"), "p", 0, 1, &one, one.len());
    let mut dirs = Vec::new();
    for i in 0..4u32 {
        let mine: Vec<CaseResult> = all
            .iter()
            .enumerate()
            .filter(|(k, _)| *k % 4 == i as usize)
            .map(|(_, r)| r.clone())
            .collect();
        // Two shards share a directory, as they do when every task writes to one --out.
        let sd = d.join(if i < 2 {
            "s01".to_string()
        } else {
            format!("s{i}")
        });
        write_shard(&sd, "p", i, 4, &mine, all.len());
        if !dirs.contains(&sd) {
            dirs.push(sd);
        }
    }
    let opts = MergeOptions {
        warpkit: PathBuf::from("warpkit"),
        timing: false,
    };
    let m = merge(&dirs, &d.join("merged"), &opts).unwrap();
    assert_eq!(m.shards, 4);
    assert_eq!(m.totals.tests, 23);
    assert!(!m.totals.all_passed());
    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap();
    assert_eq!(
        read(d.join("merged/junit.xml")),
        read(d.join("one/junit-0.xml"))
    );
    assert_eq!(
        read(d.join("merged/results.jsonl")),
        read(d.join("one/results-0.jsonl"))
    );
    // With timing kept, durations survive the merge.
    let timed = MergeOptions {
        timing: true,
        ..opts.clone()
    };
    merge(&dirs, &d.join("timed"), &timed).unwrap();
    assert_eq!(read(d.join("timed/results.jsonl")), report::jsonl(&all));

    // A lost shard, a shard given twice, a foreign shard and a truncated shard are refused.
    let lost = merge(&dirs[..2], &d.join("x"), &opts).unwrap_err();
    assert!(
        matches!(lost, RegressError::Input(_))
            && lost.to_string().contains("shard 3 of 4 is missing"),
        "{lost}"
    );
    let twice = merge(&[dirs[0].clone(), dirs[0].clone()], &d.join("x"), &opts).unwrap_err();
    assert!(twice.to_string().contains("is in both"), "{twice}");
    write_shard(&d.join("foreign"), "q", 3, 4, &[], 23);
    let foreign = merge(
        &[dirs[0].clone(), dirs[1].clone(), d.join("foreign")],
        &d.join("x"),
        &opts,
    )
    .unwrap_err();
    assert!(foreign.to_string().contains("does not belong"), "{foreign}");
    let edited = d.join("edited");
    std::fs::create_dir_all(&edited).unwrap();
    let mut m: ShardManifest = serde_json::from_str(&read(dirs[2].join("shard-3.json"))).unwrap();
    m.plan_hash = "0000000000000000".into();
    std::fs::write(
        edited.join("shard-3.json"),
        serde_json::to_string(&m).unwrap(),
    )
    .unwrap();
    std::fs::copy(
        dirs[2].join("results-3.jsonl"),
        edited.join("results-3.jsonl"),
    )
    .unwrap();
    let e = merge(
        &[dirs[0].clone(), dirs[1].clone(), edited],
        &d.join("x"),
        &opts,
    )
    .unwrap_err();
    assert!(e.to_string().contains("does not belong"), "{e}");
    let short = dirs[2].join("results-3.jsonl");
    let text = read(short.clone());
    std::fs::write(&short, text.lines().next().unwrap().to_string() + "\n").unwrap();
    let cut = merge(&dirs, &d.join("x"), &opts).unwrap_err();
    assert!(cut.to_string().contains("a shard cut short"), "{cut}");
    std::fs::write(&short, "{not json\n").unwrap();
    let bad = merge(&dirs, &d.join("x"), &opts).unwrap_err();
    assert!(bad.to_string().contains("results-3.jsonl:1:"), "{bad}");
    let empty = dir("merge-empty");
    assert!(merge(&[empty], &d.join("x"), &opts)
        .unwrap_err()
        .to_string()
        .contains("no shard-<I>.json"));
    assert!(!d.join("x").exists(), "a refused merge writes nothing");
}

/// A stand-in for the `warpkit` binary, so the library's use of the subcommands' contracts
/// (docs/regressions.md; `gen`, `run`, `conformance run`, `cover`, `cover merge`) is tested
/// here, before those parts and this one meet in one binary. It logs every call to
/// `calls.log`. `run` dumps a state naming the program's seed; the jit engine disagrees on
/// seed 13. `conformance run VECTOR.json` fails a vector whose file name starts with `bad`.
fn fake_warpkit(d: &Path) -> PathBuf {
    let log = d.join("calls.log");
    let script = format!(
        r#"#!/bin/sh
echo "$*" >> '{log}'
[ "$1" = --quiet ] && shift
verb=$1; shift
case $verb in
gen)
    while [ $# -gt 0 ]; do
        case $1 in --seed) seed=$2; shift;; -o) out=$2; shift;; --count|--length|--streams|--weights) shift;; esac
        shift
    done
    mkdir -p "$out" && printf 'seed %s\n' "$seed" > "$out/gen-$seed.s";;
run)
    prog=$1; shift; engine=jit; outs=
    while [ $# -gt 0 ]; do
        case $1 in
        --engine) engine=$2; shift;;
        --dump-state) dump=$2; shift;;
        --out) outs="$outs ${{2#*=}}"; shift;;
        --threads|--grid|--block|--arg|--max-steps|--shared|--scratch) shift;;
        esac
        shift
    done
    seed=$(sed -n 's/^seed //p' "$prog")
    if [ "$seed" = 13 ] && [ "$engine" = jit ]; then state="jit differs"; else state="state of $seed"; fi
    printf '%s\n' "$state" > "$dump"
    for f in $outs; do printf 'sig %s' "$seed" > "$f"; done;;
conformance)
    shift; dir=$1; shift
    while [ $# -gt 0 ]; do case $1 in --jsonl) jsonl=$2; shift;; --dut) shift;; esac; shift; done
    case $(basename "$dir") in
    bad*) echo '{{"name":"bad","pass":false,"mismatches":["warp 0 v3[1]: expected 0x1, got 0x2"]}}' > "$jsonl"; exit 1;;
    *) echo '{{"name":"good","pass":true,"mismatches":[]}}' > "$jsonl";;
    esac;;
cover)
    if [ "$1" = merge ]; then shift; fi
    while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift;; esac; shift; done
    echo '{{"bins":{{}}}}' > "$out";;
*) echo "fake warpkit: no $verb" >&2; exit 2;;
esac
"#,
        log = log.display()
    );
    let path = d.join("warpkit");
    std::fs::write(&path, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

fn run_options(warpkit: &Path, out: Option<PathBuf>) -> regress::RunOptions {
    regress::RunOptions {
        warpkit: warpkit.to_owned(),
        out,
        shard: Shard::ALL,
        timing: false,
        jobs: 2,
        only: Vec::new(),
    }
}

#[cfg(unix)]
#[test]
fn gen_conformance_dut_and_coverage_steps_follow_the_contracts() {
    let d = fixture("contracts");
    let warpkit = fake_warpkit(&d);
    std::fs::write(
        d.join("vectors/bad-add.json"),
        r#"{"name":"bad","post":{}}"#,
    )
    .unwrap();
    // The DUT of programs: agrees except on seed 11.
    std::fs::write(
        d.join("dut.sh"),
        "seed=$(sed -n 's/^seed //p' \"$1\")\nif [ \"$seed\" = 11 ]; then printf wrong; else printf \"sig $seed\"; fi > \"$2/sig.bin\"\n",
    )
    .unwrap();
    let plan = plan_in(
        &d,
        "coverage: true
configs:
  - {name: c, engine: interp, threads: 2, gen: {length: 50, streams: [exec]}}
suites:
  - {name: random, kind: gen, seeds: {first: 10, count: 5}}
  - {name: rtl, kind: gen, seeds: [11, 12], dut: sh dut.sh}
  - {name: vectors, kind: conformance, dir: vectors}
",
    );
    let out = d.join("out");
    let outcome = regress::run(&plan, &run_options(&warpkit, Some(out.clone())), &|_| {}).unwrap();
    let status: Vec<(&str, Status)> = outcome
        .results
        .iter()
        .map(|r| (r.id.as_str(), r.status))
        .collect();
    assert_eq!(
        status,
        [
            ("random/seed-10@c", Status::Pass),
            ("random/seed-11@c", Status::Pass),
            ("random/seed-12@c", Status::Pass),
            ("random/seed-13@c", Status::Fail),
            ("random/seed-14@c", Status::Pass),
            ("rtl/seed-11@c", Status::Fail),
            ("rtl/seed-12@c", Status::Pass),
            ("vectors/bad-add@c", Status::Fail),
            ("vectors/sub/a@c", Status::Pass),
            ("vectors/z@c", Status::Pass),
        ]
    );
    let message = |id: &str| {
        outcome
            .results
            .iter()
            .find(|r| r.id == id)
            .unwrap()
            .message
            .clone()
    };
    assert_eq!(
        message("random/seed-13@c"),
        "the engines' state dumps differ: line 1: jit `jit differs`, interp `state of 13`"
    );
    assert!(
        message("rtl/seed-11@c")
            .contains("the DUT's buffer `sig` differs from warpkit's: first difference at byte 0"),
        "{}",
        message("rtl/seed-11@c")
    );
    assert_eq!(
        message("vectors/bad-add@c"),
        "the vector does not match: warp 0 v3[1]: expected 0x1, got 0x2"
    );
    let seed13 = outcome
        .results
        .iter()
        .find(|r| r.id == "random/seed-13@c")
        .unwrap();
    assert_eq!(seed13.seed, Some(13));
    assert_eq!(
        seed13.reproduce,
        format!(
            "{} regress {} --case random/seed-13@c",
            warpkit.display(),
            d.join("plan.yaml").display()
        )
    );
    // The command lines of the contracts.
    let calls = std::fs::read_to_string(d.join("calls.log")).unwrap();
    assert!(
        calls.contains("--quiet gen --seed 10 --count 1 -o "),
        "{calls}"
    );
    assert!(calls.contains(" --length 50 --streams exec\n"), "{calls}");
    assert!(
        calls.contains("--engine jit --threads 2 --out sig="),
        "{calls}"
    );
    assert!(
        calls.contains("--engine interp --threads 2 --out sig="),
        "{calls}"
    );
    assert!(
        calls.contains(&format!(
            " --dut {} conformance dut --engine interp\n",
            warpkit.display()
        )),
        "{calls}"
    );
    assert!(calls.contains("--quiet conformance run "), "{calls}");
    // Coverage over the shard's generated programs (kept past their cases), then merged.
    let cover = calls
        .lines()
        .find(|l| l.starts_with("--quiet cover "))
        .unwrap();
    assert_eq!(cover.matches(".s ").count(), 7, "{cover}");
    assert!(cover.ends_with(&format!("-o {}", out.join("coverage-0.json").display())));
    assert!(out.join("coverage-0.json").is_file());
    assert!(
        !out.join(".work-0").exists(),
        "the scratch directory is removed"
    );
    let opts = MergeOptions {
        warpkit: warpkit.clone(),
        timing: false,
    };
    let m = merge(std::slice::from_ref(&out), &d.join("merged"), &opts).unwrap();
    assert_eq!(m.totals.failures, 3);
    assert!(d.join("merged/coverage.json").is_file());
    let calls = std::fs::read_to_string(d.join("calls.log")).unwrap();
    assert!(
        calls.contains(&format!(
            "--quiet cover merge {} -o {}",
            out.join("coverage-0.json").display(),
            d.join("merged/coverage.json").display()
        )),
        "{calls}"
    );
    // A subcommand missing from the build is an error of the case, not a crash.
    std::fs::write(
        &warpkit,
        "#!/bin/sh\necho \"error: unrecognized subcommand '$2'\" >&2\nexit 2\n",
    )
    .unwrap();
    let r = regress::run(&plan, &run_options(&warpkit, None), &|_| {}).unwrap();
    assert!(r.results.iter().all(|r| r.status == Status::Error));
    assert!(
        r.results[0]
            .message
            .contains("warpkit gen --seed 10 exited 2: error: unrecognized subcommand 'gen'"),
        "{}",
        r.results[0].message
    );
}

#[test]
fn the_documented_plan_parses() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/regressions.md"),
    )
    .unwrap();
    let at = doc.find("<!-- plan-example -->").expect("the marker");
    let block = &doc[at..];
    let block = &block[block.find("```yaml\n").unwrap() + 8..];
    let text = &block[..block.find("```").unwrap()];
    let d = dir("doc-plan");
    std::fs::create_dir_all(d.join("tests")).unwrap();
    std::fs::create_dir_all(d.join("suite")).unwrap();
    for f in [
        "tests/fill.s",
        "tests/fill.out",
        "tests/illegal-mode.s",
        "tests/extra.s",
    ] {
        std::fs::write(d.join(f), "endpgm\n").unwrap();
    }
    std::fs::write(d.join("tests/more.txt"), "extra.s\n").unwrap();
    std::fs::write(d.join("suite/add.json"), r#"{"post":{}}"#).unwrap();
    let p = plan_in(&d, text);
    assert_eq!(p.name, "nightly");
    let names: Vec<&str> = p.suites.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["smoke", "random", "rtl", "conformance"]);
    assert_eq!(p.suites[2].against, Against::Dut("./rtl-sim.sh".into()));
    let cases = expand(&p).unwrap();
    // 3 directed tests and 1 vector under 2 configurations, 10000 seeds under 1, 3 under 2.
    assert_eq!(cases.len(), 3 * 2 + 10_000 + 3 * 2 + 2);
}
