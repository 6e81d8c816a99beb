//! Assemble a generated 1,000,000-line file of mixed instructions (every variant, random
//! legal operands, labels, comments, some data) and report lines per second.

use divan::counter::ItemsCount;
use divan::Bencher;
use std::fmt::Write;
use warpkit_isa::{Instr, Op, OP_COUNT};

const LINES: usize = 1_000_000;

fn generate(lines: usize) -> String {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut src = String::with_capacity(lines * 28);
    let mut n = 0;
    while n < lines {
        if n % 64 == 0 {
            let _ = writeln!(src, "L{n}:");
            n += 1;
            continue;
        }
        if n % 97 == 0 {
            let _ = writeln!(
                src,
                "    bz u1, L{}    // back to the last label",
                n - n % 64
            );
            n += 1;
            continue;
        }
        let op = Op::from_index(next() as usize % OP_COUNT).unwrap();
        let raw: Vec<u32> = op
            .def()
            .operands
            .iter()
            .map(|o| {
                let w = o.field.width();
                let r = next() as u32;
                if w >= 32 {
                    r
                } else {
                    r & ((1 << w) - 1)
                }
            })
            .collect();
        let ins = Instr::from_raw(op, &raw).unwrap();
        if ins.reserved_operand().is_some() {
            continue;
        }
        let _ = writeln!(src, "    {ins}");
        n += 1;
    }
    src
}

/// CPU time of this thread (utime + stime from /proc, in clock ticks of 10 ms), so the
/// figure means "one core" even on a loaded machine.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after.split(' ').collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

fn main() {
    let src = generate(LINES);
    // Timed runs outside divan, so the figure is printed plainly as lines/s.
    let runs = 5;
    let cpu0 = thread_cpu_seconds();
    let start = std::time::Instant::now();
    let mut text = 0;
    for _ in 0..runs {
        let p = warpkit_asm::assemble(&src, "bench.s").expect("generated source assembles");
        text = p.text.len();
    }
    let wall = start.elapsed().as_secs_f64() / f64::from(runs);
    println!(
        "assembled {LINES} lines ({text} bytes of text): {wall:.3} s wall per run, {:.2} M lines/s",
        LINES as f64 / wall / 1e6
    );
    if let (Some(a), Some(b)) = (cpu0, thread_cpu_seconds()) {
        let cpu = (b - a) / f64::from(runs);
        println!(
            "CPU time {cpu:.3} s per run: {:.2} M lines/s on one core",
            LINES as f64 / cpu / 1e6
        );
    }
    compare_with_expansion(&src, runs);
    compare_line_table(&src, runs);
    compare_with_gnu_as(wall);
    divan::main();
}

/// The same source with an (unused) `.macro` in front, which sends it through the
/// expansion step (`.include`/`.macro`/`.rept`), against the direct path, timed
/// alternately in the same run: the ratio is the cost of expansion and of mapping the
/// listing back.
fn compare_with_expansion(src: &str, runs: u32) {
    let expanded = format!(".macro unused\n.endm\n{src}");
    let (mut direct, mut through) = (0.0, 0.0);
    for _ in 0..runs {
        let t = std::time::Instant::now();
        let a = warpkit_asm::assemble(src, "bench.s").expect("assembles");
        direct += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let b = warpkit_asm::assemble(&expanded, "bench.s").expect("assembles");
        through += t.elapsed().as_secs_f64();
        assert_eq!(a.text, b.text);
    }
    println!(
        "through the expansion step: {:.3} s per run, {:.2}x the direct path ({:.3} s)",
        through / f64::from(runs),
        through / direct,
        direct / f64::from(runs)
    );
}

/// What source lines cost, in the same run: building the line table (the rows assembling
/// produced, sorted and merged again) against assembling; writing and loading the ELF
/// object with its `.debug_line` against the same program without lines.
fn compare_line_table(src: &str, runs: u32) {
    let p = warpkit_asm::assemble(src, "bench.s").expect("assembles");
    let bare = warpkit_asm::Program {
        lines: warpkit_asm::LineTable::default(),
        ..p.clone()
    };
    let time = |f: &mut dyn FnMut()| {
        let t = std::time::Instant::now();
        for _ in 0..runs {
            f();
        }
        t.elapsed().as_secs_f64() / f64::from(runs)
    };
    let assemble = time(&mut || {
        divan::black_box(warpkit_asm::assemble(src, "bench.s").is_ok());
    });
    let table = time(&mut || {
        let t = warpkit_asm::LineTable::new(
            p.lines.files().to_vec(),
            p.lines.rows().to_vec(),
            p.lines.end(),
        );
        divan::black_box(t.rows().len());
    });
    println!(
        "line table ({} rows): {:.4} s, {:.1}% of assembling ({assemble:.3} s)",
        p.lines.rows().len(),
        table,
        table / assemble * 100.0
    );
    let (with, without) = (warpkit_asm::write_elf(&p), warpkit_asm::write_elf(&bare));
    let write_with = time(&mut || {
        divan::black_box(warpkit_asm::write_elf(&p).len());
    });
    let write_without = time(&mut || {
        divan::black_box(warpkit_asm::write_elf(&bare).len());
    });
    let load_with = time(&mut || {
        divan::black_box(warpkit_asm::load_object(&with).is_ok());
    });
    let load_without = time(&mut || {
        divan::black_box(warpkit_asm::load_object(&without).is_ok());
    });
    println!(
        "ELF with .debug_line: {} bytes vs {} without ({:.2}x); writing {:.2}x, loading {:.2}x \
         the time without ({write_without:.4} s, {load_without:.4} s)",
        with.len(),
        without.len(),
        with.len() as f64 / without.len() as f64,
        write_with / write_without,
        load_with / load_without
    );
}

/// The same number of lines of RISC-V through `riscv64-linux-gnu-as` (Debian package
/// binutils-riscv64-linux-gnu), when it is installed: whole-process wall time.
fn compare_with_gnu_as(our_wall: f64) {
    let mut src = String::with_capacity(LINES * 24);
    let ops = [
        "add x5, x6, x7",
        "addi x10, x11, -12",
        "lw x7, 8(x2)",
        "sw x7, 16(x2)",
        "xor x8, x9, x10",
        "slli x11, x12, 3",
        "lui x13, 0x12345",
        "sub x14, x15, x16",
    ];
    for n in 0..LINES {
        if n % 64 == 0 {
            let _ = writeln!(src, "L{n}:");
        } else if n % 97 == 0 {
            let _ = writeln!(
                src,
                "    beq x1, x2, L{}    # back to the last label",
                n - n % 64
            );
        } else {
            let _ = writeln!(src, "    {}", ops[n % ops.len()]);
        }
    }
    let dir = std::env::temp_dir();
    let input = dir.join(format!("warpkit-bench-{}.S", std::process::id()));
    let output = dir.join(format!("warpkit-bench-{}.o", std::process::id()));
    if std::fs::write(&input, &src).is_err() {
        return;
    }
    let start = std::time::Instant::now();
    let status = std::process::Command::new("riscv64-linux-gnu-as")
        .arg("-o")
        .arg(&output)
        .arg(&input)
        .status();
    let wall = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    match status {
        Ok(s) if s.success() => println!(
            "riscv64-linux-gnu-as, {LINES} RISC-V lines: {wall:.3} s, {:.2} M lines/s (warpkit is {:.1}x faster)",
            LINES as f64 / wall / 1e6,
            wall / our_wall
        ),
        _ => println!("riscv64-linux-gnu-as not available: no comparison"),
    }
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn assemble_1m_lines(bencher: Bencher) {
    let src = generate(LINES);
    bencher
        .counter(ItemsCount::new(LINES))
        .bench(|| warpkit_asm::assemble(divan::black_box(&src), "bench.s").is_ok());
}
