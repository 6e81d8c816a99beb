//! A small black-box fuzz campaign against the built `warpkit` binary, like the long one
//! docs/testing.md describes but bounded to a few seconds: random bytes to `dis` and `run`,
//! mutated example assembly to `asm` and `run`, truncated and corrupted ELF files to `dis`
//! and `run`, runaway and deadlocking kernels. Every run must exit 0, 1 or 2 (never 101,
//! never killed, never past the time limit), and a failure must say why on stderr.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// Whole campaign budget (`WARPKIT_CAMPAIGN_SECONDS` for a longer one by hand); each case
/// also has its own timeout.
fn budget() -> Duration {
    let s = std::env::var("WARPKIT_CAMPAIGN_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    Duration::from_secs(s)
}
const CASE_TIMEOUT: Duration = Duration::from_secs(20);

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpkit-campaign-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run warpkit with `args`, killing it past the timeout; check the exit contract.
fn check(args: &[&str], what: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("warpkit starts");
    // stderr is read on a thread so a chatty child cannot block on a full pipe.
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err, &mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > CASE_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: `warpkit {}` hung", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stderr = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    let code = status.code().unwrap_or_else(|| {
        panic!(
            "{what}: `warpkit {}` killed by a signal: {stderr}",
            args.join(" ")
        )
    });
    assert!(
        matches!(code, 0..=2),
        "{what}: `warpkit {}` exited {code}: {stderr}",
        args.join(" ")
    );
    if code != 0 {
        assert!(
            stderr.contains("error"),
            "{what}: `warpkit {}` exited {code} without an error message: {stderr:?}",
            args.join(" ")
        );
    }
}

fn examples() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut v: Vec<(String, String)> = std::fs::read_dir(root)
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "s").then(|| {
                (
                    p.file_stem().unwrap().to_string_lossy().into_owned(),
                    std::fs::read_to_string(&p).unwrap(),
                )
            })
        })
        .collect();
    v.sort();
    v
}

/// One of a few textual mutations: drop, duplicate or swap lines, flip a character, splice
/// random tokens, or cut the text.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    const TOKENS: &[&str] = &[
        "v300",
        "u[0:1]",
        "0x7fffffff",
        "-1",
        "((((1))))",
        "barrier",
        "endpgm",
        ".word",
        ",",
        "label:",
        "vm=0",
        "1<<63",
        "\u{0}",
        "é",
        ".Lx",
        "(",
        "waitcnt",
        "jmp .",
        "u99",
    ];
    for _ in 0..1 + rng.below(4) {
        if lines.is_empty() {
            break;
        }
        let i = rng.below(lines.len());
        match rng.below(6) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(rng.below(lines.len()), l);
            }
            2 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            3 => {
                let mut b = lines[i].clone().into_bytes();
                if !b.is_empty() {
                    let k = rng.below(b.len());
                    b[k] = b" ,x0v9u[]:=.-()\t"[rng.below(16)];
                }
                lines[i] = String::from_utf8_lossy(&b).into_owned();
            }
            4 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                lines[i].push(' ');
                lines[i].push_str(t);
            }
            _ => lines.truncate(i),
        }
    }
    lines.join("\n")
}

#[test]
fn the_binary_never_panics_or_hangs_on_hostile_input() {
    let d = dir();
    let examples = examples();
    assert!(!examples.is_empty());

    // Valid ELF files to corrupt, written by the binary itself.
    let mut elves = Vec::new();
    for (name, text) in examples.iter().take(4) {
        let src = d.join(format!("{name}.s"));
        std::fs::write(&src, text).unwrap();
        let elf = d.join(format!("{name}.o"));
        check(
            &["asm", s(&src), "-o", s(&elf), "--format", "elf"],
            "assemble",
        );
        elves.push(std::fs::read(&elf).unwrap());
    }

    // Fixed kernels first: a runaway loop, a deadlock, a trap behind a barrier.
    let fixed = [
        ("runaway.s", "top:\n jmp top\n"),
        (
            "deadlock.s",
            "bnz u29, .Lspin\nbarrier\nendpgm\n.Lspin:\njmp .Lspin\n",
        ),
        (
            "trapped.s",
            "bnz u29, .Lx\nbarrier\nendpgm\n.Lx:\ncsrw warpid, u1\n",
        ),
    ];
    for (name, text) in fixed {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        check(
            &["run", s(&p), "--block", "96", "--max-steps", "100000"],
            name,
        );
        check(
            &[
                "run",
                s(&p),
                "--max-steps",
                "5000",
                "--trace",
                s(&d.join("t.jsonl")),
            ],
            name,
        );
    }

    let start = Instant::now();
    let budget = budget();
    let seed = std::env::var("WARPKIT_CAMPAIGN_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x2545_f491_4f6c_dd1d);
    let mut rng = Rng(seed | 1);
    let mut cases = 0u32;
    while start.elapsed() < budget || cases < 12 {
        let bin = d.join(format!("case{}.bin", cases % 4));
        let src = d.join(format!("case{}.s", cases % 4));
        let obj = d.join(format!("case{}.o", cases % 4));
        match cases % 4 {
            0 => {
                let n = rng.below(512);
                std::fs::write(&bin, rng.bytes(n)).unwrap();
                check(&["dis", s(&bin)], "random bytes");
                let shape = ["1", "2", "3"][rng.below(3)];
                check(
                    &[
                        "run",
                        s(&bin),
                        "--grid",
                        shape,
                        "--block",
                        "40",
                        "--arg",
                        "a=buf:256",
                        "--max-steps",
                        "20000",
                    ],
                    "random bytes",
                );
            }
            1 => {
                let (_, text) = &examples[rng.below(examples.len())];
                std::fs::write(&src, mutate(&mut rng, text)).unwrap();
                check(&["asm", s(&src), "-o", s(&obj)], "mutated assembly");
                check(
                    &[
                        "run",
                        s(&src),
                        "--grid",
                        "2",
                        "--block",
                        "64",
                        "--arg",
                        "a=buf:1024",
                        "--arg",
                        "b=buf:1024",
                        "--arg",
                        "n=100",
                        "--max-steps",
                        "20000",
                    ],
                    "mutated assembly",
                );
            }
            2 => {
                let mut elf = elves[rng.below(elves.len())].clone();
                let cut = rng.below(elf.len() + 1);
                elf.truncate(cut);
                std::fs::write(&obj, &elf).unwrap();
                check(&["dis", s(&obj)], "truncated ELF");
                check(&["run", s(&obj), "--max-steps", "20000"], "truncated ELF");
            }
            _ => {
                let mut elf = elves[rng.below(elves.len())].clone();
                for _ in 0..1 + rng.below(8) {
                    let k = rng.below(elf.len());
                    elf[k] = rng.next() as u8;
                }
                std::fs::write(&obj, &elf).unwrap();
                check(&["dis", s(&obj), "--plain"], "corrupted ELF");
                check(
                    &["run", s(&obj), "--grid", "1", "--max-steps", "20000"],
                    "corrupted ELF",
                );
            }
        }
        cases += 1;
    }
    eprintln!("campaign: {cases} cases in {:?}", start.elapsed());
}
