//! The preprocessor against gcc's: random macro programs and random `#if` expressions
//! must preprocess to the same tokens as `cpp -P -undef -nostdinc -std=c99` gives (the
//! standard leaves some cases open; gcc's choices are the reference). Cases are batched into
//! one `cpp` run per test. Without a `cpp` on the path the tests say so and pass.

use std::io::Write;
use std::process::{Command, Stdio};
use warpkit_cc::diag::Diagnostics;
use warpkit_cc::pp::{preprocess, Options};
use warpkit_cc::source::SourceMap;
use warpkit_cc::token::TokenKind;

/// The user's tokens of `src` as text, and the number of errors.
fn ours(src: &str) -> (Vec<String>, usize) {
    let mut sources = SourceMap::new();
    let main = sources.add_file("k.cl", src, false);
    let mut diags = Diagnostics::new();
    let toks = preprocess(&mut sources, main, &Options::default(), &mut diags);
    let text = toks
        .iter()
        .filter(|t| t.kind != TokenKind::Eof)
        .filter(|t| {
            // Where the token came from: the outermost macro invocation, else its own
            // spelling (the prelude's code uses macros too).
            let mut span = t.span;
            let mut e = t.expansion;
            while let Some(id) = e {
                span = sources.expansion(id).call_site;
                e = sources.expansion(id).parent;
            }
            !sources.file(span.file).builtin
        })
        .map(|t| t.text.clone())
        .collect();
    (text, diags.error_count())
}

/// gcc's preprocessing of `src`, re-tokenized by ours; `None` without a `cpp`.
fn gcc(src: &str) -> Option<Vec<String>> {
    let mut child = match Command::new("cpp")
        .args(["-P", "-undef", "-nostdinc", "-std=c99", "-w", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!("no cpp ({e}): the comparison with gcc is skipped");
            return None;
        }
    };
    let mut stdin = child.stdin.take().unwrap();
    let input = src.to_string();
    // Written from a thread: cpp may fill its output pipe before reading all its input.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "cpp failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Our prelude's `true` and `false` must not touch gcc's output.
    let text = format!(
        "#undef true\n#undef false\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let (toks, errors) = ours(&text);
    assert_eq!(errors, 0);
    Some(toks)
}

/// xorshift, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

const NAMES: [&str; 6] = ["a", "b", "c", "f", "g", "h"];

/// Definitions of some of [`NAMES`] (object-like, function-like, variadic; bodies with
/// names, parameters, `#`, `##`, parentheses and commas), then a line using them.
fn macro_program(rng: &mut Rng) -> String {
    let mut src = String::new();
    for name in NAMES {
        if rng.below(4) == 0 {
            continue;
        }
        let params: &[&str] = match rng.below(3) {
            0 => &[],
            1 => &["x"],
            _ => &["x", "y"],
        };
        let function = !params.is_empty() || rng.below(3) == 0;
        let variadic = function && rng.below(4) == 0;
        src.push_str(&format!("#define {name}"));
        if function {
            let mut list: Vec<&str> = params.to_vec();
            if variadic {
                list.push("...");
            }
            src.push_str(&format!("({})", list.join(",")));
        }
        for _ in 0..rng.below(7) {
            let t = match rng.below(14) {
                0..=3 => rng.pick(&NAMES).to_string(),
                4 | 5 if !params.is_empty() => rng.pick(params).to_string(),
                6 if !params.is_empty() => format!("#{}", rng.pick(params)),
                7 => "##".into(),
                8 => "(".into(),
                9 => ")".into(),
                10 => ",".into(),
                11 if variadic => "__VA_ARGS__".into(),
                12 => "1".into(),
                _ => "+".into(),
            };
            src.push(' ');
            src.push_str(&t);
        }
        src.push('\n');
    }
    for _ in 0..1 + rng.below(12) {
        let t = match rng.below(8) {
            0..=3 => rng.pick(&NAMES),
            4 => "(",
            5 => ")",
            6 => ",",
            _ => "2",
        };
        src.push_str(t);
        src.push(' ');
    }
    src.push('\n');
    src
}

/// Compare the cases that preprocess without errors here, each after `#undef`s and a
/// separator line, in one gcc run.
fn compare(cases: &[String], reset: &str) {
    let separator = "zz_separator_zz";
    let mut batch = String::new();
    let mut expected = Vec::new();
    for case in cases {
        let (toks, errors) = ours(&format!("{reset}{case}"));
        if errors > 0 {
            continue;
        }
        batch.push_str(&format!("{reset}{case}\n{separator}\n"));
        expected.push((case, toks));
    }
    assert!(expected.len() * 3 > cases.len(), "most cases are valid");
    let Some(theirs) = gcc(&batch) else {
        return;
    };
    let theirs: Vec<&[String]> = theirs.split(|t| t == separator).collect();
    assert_eq!(theirs.len(), expected.len() + 1);
    let mut differ = 0;
    for ((case, ours), theirs) in expected.iter().zip(theirs) {
        if ours.as_slice() != theirs {
            differ += 1;
            eprintln!(
                "=== {case}\nours: {}\ngcc:  {}",
                ours.join(" "),
                theirs.join(" ")
            );
        }
    }
    assert_eq!(differ, 0, "of {} cases", expected.len());
}

#[test]
fn random_macro_programs_expand_as_gcc_expands_them() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let cases: Vec<String> = (0..1500).map(|_| macro_program(&mut rng)).collect();
    let reset: String = NAMES.iter().map(|n| format!("#undef {n}\n")).collect();
    compare(&cases, &reset);
}

fn expression(rng: &mut Rng, depth: u32) -> String {
    const ATOMS: [&str; 23] = [
        "0",
        "1",
        "2",
        "-1",
        "7",
        "0u",
        "1u",
        "3U",
        "0xffffffffffffffff",
        "9223372036854775807",
        "0x8000000000000000",
        "'a'",
        "'\\xff'",
        "'\\377'",
        "255",
        "63",
        "64",
        "010",
        "-9223372036854775807",
        "x",
        "defined(D)",
        "D",
        "4294967296",
    ];
    const BINARY: [&str; 18] = [
        "*", "/", "%", "+", "-", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "^", "|", "&&",
        "||",
    ];
    if depth == 0 || rng.below(3) == 0 {
        return rng.pick(&ATOMS).to_string();
    }
    match rng.below(10) {
        0 => format!("({})", expression(rng, depth - 1)),
        1 => format!(
            "{}{}",
            rng.pick(&["-", "+", "~", "!"]),
            expression(rng, depth - 1)
        ),
        2 => format!(
            "{} ? {} : {}",
            expression(rng, depth - 1),
            expression(rng, depth - 1),
            expression(rng, depth - 1)
        ),
        _ => format!(
            "({} {} {})",
            expression(rng, depth - 1),
            rng.pick(&BINARY),
            expression(rng, depth - 1)
        ),
    }
}

#[test]
fn random_if_expressions_evaluate_as_gcc_evaluates_them() {
    let mut rng = Rng(0x2545f4914f6cdd1d);
    let cases: Vec<String> = (0..1500)
        .map(|i| {
            let e = expression(&mut rng, 1 + i % 5);
            format!("#if {e}\nyes\n#else\nno\n#endif")
        })
        .collect();
    compare(&cases, "#undef D\n#define D 3\n");
}
