//! Kernel metadata: `.kernel`/`.param` in any order and section, `Program::kernels`, the
//! ELF section `.warpkit.kernels` written and read back (malformed metadata is a typed
//! error), and a disassembly that reassembles to the same metadata.

use warpkit_asm::{
    assemble, disassemble_program, load_object, write_elf, DisOptions, KernelInfo, LoadError,
    ParamInfo, ParamKind, Program,
};

/// Two kernels; the directives stand before and after their labels, in `.data` too.
const SRC: &str = "\
.param scale, out, ptr.global, \"float *\"
.data
.kernel scale, shared=64, block=16x4
.param scale, x, f32, \"float \\\"x\\\"\"
table: .word 1
.text
scale:
    laneid v1
    endpgm
.param scale, tmp, ptr.local, \"local float *\"
.equ SCRATCH, 32
.kernel sum, scratch=SCRATCH
sum:
    .param sum, n, u64
    endpgm
";

fn program() -> Program {
    match assemble(SRC, "k.s") {
        Ok(p) => p,
        Err(e) => panic!("{}", e.render(SRC)),
    }
}

fn param(name: &str, kind: ParamKind, c_type: &str) -> ParamInfo {
    ParamInfo {
        name: name.into(),
        kind,
        c_type: c_type.into(),
    }
}

#[test]
fn directives_give_the_kernels() {
    let p = program();
    assert_eq!(
        p.kernels,
        [
            KernelInfo {
                name: "scale".into(),
                shared_bytes: 64,
                scratch_bytes: 0,
                block: Some([16, 4, 1]),
                params: vec![
                    param("out", ParamKind::GlobalPtr, "float *"),
                    param("x", ParamKind::F32, "float \"x\""),
                    param("tmp", ParamKind::LocalPtr, "local float *"),
                ],
            },
            KernelInfo {
                name: "sum".into(),
                shared_bytes: 0,
                scratch_bytes: 32,
                block: None,
                params: vec![param("n", ParamKind::U64, "")],
            },
        ]
    );
    assert_eq!(p.kernel("sum").unwrap().param("n").unwrap().0, 0);
    assert_eq!(
        p.kernel("scale").unwrap().params[1].to_string(),
        "`x` (float \"x\")"
    );
    assert_eq!(p.kernel("sum").unwrap().params[0].to_string(), "`n` (u64)");
    // The directives emit nothing.
    let plain = assemble(
        "scale:\n    laneid v1\n    endpgm\nsum:\n    endpgm\n.data\ntable: .word 1\n",
        "k.s",
    )
    .unwrap();
    assert_eq!((&p.text, &p.data), (&plain.text, &plain.data));
    assert!(plain.kernels.is_empty());
}

#[test]
fn elf_carries_the_metadata() {
    let p = program();
    let elf = write_elf(&p);
    let back = load_object(&elf).unwrap();
    assert_eq!(back.kernels, p.kernels);
    // Without metadata there is no section.
    let bare = assemble("nop\n", "k.s").unwrap();
    let elf_bare = write_elf(&bare);
    assert!(!elf_bare.windows(16).any(|w| w == b".warpkit.kernels"));
    assert!(load_object(&elf_bare).unwrap().kernels.is_empty());
    // readelf (binutils), when installed, lists the section as non-allocated.
    let path = std::env::temp_dir().join(format!("warpkit-kernels-{}.o", std::process::id()));
    std::fs::write(&path, &elf).unwrap();
    let out = std::process::Command::new("readelf")
        .args(["-SW"])
        .arg(&path)
        .output();
    let dump = std::process::Command::new("readelf")
        .args(["-p", ".warpkit.kernels"])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    if let (Ok(out), Ok(dump)) = (out, dump) {
        let text = String::from_utf8_lossy(&out.stdout);
        let row = text
            .lines()
            .find(|l| l.contains(".warpkit.kernels"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(row.contains("PROGBITS"), "{row}");
        assert!(!row.contains(" A "), "not allocated: {row}");
        let dump = String::from_utf8_lossy(&dump.stdout);
        assert!(dump.contains("\"kind\":\"ptr.local\""), "{dump}");
    }
}

/// `elf` with the contents of `.warpkit.kernels` replaced by `json` (padded with spaces to
/// the section's size, so the file's layout stays valid).
fn with_metadata(elf: &[u8], json: &str) -> Vec<u8> {
    use object::{Object, ObjectSection};
    let file = object::read::elf::ElfFile64::<object::Endianness>::parse(elf).unwrap();
    let (start, len) = file
        .section_by_name(".warpkit.kernels")
        .and_then(|s| s.file_range())
        .expect("the metadata is in the file");
    let (start, len) = (start as usize, len as usize);
    assert!(
        json.len() <= len,
        "{json} is longer than the section's {len} bytes"
    );
    let mut out = elf.to_vec();
    out[start..start + len].copy_from_slice(format!("{json:len$}").as_bytes());
    out
}

#[test]
fn malformed_metadata_is_a_typed_error() {
    let elf = write_elf(&program());
    for (json, says) in [
        ("{", "not JSON"),
        ("{\"version\":7,\"kernels\":[]}", "schema version 7"),
        ("{\"version\":1,\"kernels\":{}}", "no `kernels` array"),
        (
            "{\"version\":1,\"kernels\":[{\"name\":\"nowhere\",\"shared_bytes\":0,\"scratch_bytes\":0,\"params\":[]}]}",
            "kernel `nowhere` is not a .text symbol",
        ),
        (
            "{\"version\":1,\"kernels\":[{\"name\":\"table\",\"shared_bytes\":0,\"scratch_bytes\":0,\"params\":[]}]}",
            "kernel `table` is not a .text symbol",
        ),
    ] {
        let bad = with_metadata(&elf, json);
        match load_object(&bad) {
            Err(e @ LoadError::BadKernels { .. }) => {
                let text = e.to_string();
                assert!(text.starts_with("section .warpkit.kernels: "), "{text}");
                assert!(text.contains(says), "{json}: {text}");
            }
            other => panic!("{json}: {other:?}"),
        }
    }
    // Any byte of the file corrupted: a program or an error, never a panic.
    for i in 0..elf.len() {
        for v in [0u8, b'"', b'}', 0xff] {
            let mut c = elf.clone();
            c[i] = v;
            let _ = load_object(&c);
        }
    }
}

#[test]
fn a_disassembly_reassembles_to_the_same_metadata() {
    let p = program();
    let back = load_object(&write_elf(&p)).unwrap();
    let plain = disassemble_program(&back, &DisOptions { plain: true });
    assert!(
        plain.contains(".kernel scale, shared=64, block=16x4x1\n"),
        "{plain}"
    );
    assert!(
        plain.contains(".param scale, x, f32, \"float \\\"x\\\"\"\n"),
        "{plain}"
    );
    assert!(
        plain.contains(".kernel sum, scratch=32\n.param sum, n, u64\n"),
        "{plain}"
    );
    // Only the kernel entries get labels in plain text, as before for other labels.
    assert!(plain.starts_with("scale:\nlaneid v1\n"), "{plain}");
    let again = assemble(&plain, "dis.s").unwrap_or_else(|e| panic!("{}", e.render(&plain)));
    assert_eq!(again.kernels, p.kernels);
    assert_eq!((again.text, again.data), (p.text.clone(), p.data.clone()));
    // Objdump style shows it under a heading after the code and data.
    let listing = disassemble_program(&back, &DisOptions::default());
    assert!(
        listing.contains("\nKernel metadata (section .warpkit.kernels):\n.kernel scale,"),
        "{listing}"
    );
    // A program without metadata disassembles as before.
    let bare = assemble("start:\n  laneid v1\n  endpgm\n", "k.s").unwrap();
    assert_eq!(
        disassemble_program(&bare, &DisOptions { plain: true }),
        "laneid v1\nendpgm\n"
    );
}
