//! With stderr closed (`2>&-`), failures still exit 1 or 2: diagnostics are dropped, the
//! process does not panic (exit 101).

use std::process::Command;

fn exit_code_with_stderr_closed(name: &str, args: &str, source: &str) -> Option<i32> {
    let dir = std::env::temp_dir().join(format!(
        "warpkit-closed-stderr-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("k.s");
    std::fs::write(&file, source).unwrap();
    let script = format!(
        "exec \"$0\" {args} 2>&-",
        args = args.replace("FILE", &file.display().to_string())
    );
    let status = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_warpkit"))
        .status()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    status.code()
}

#[test]
fn assembly_errors_exit_2() {
    let code = exit_code_with_stderr_closed("asm", "asm FILE -o FILE.bin", "jmp 3\n");
    assert_eq!(code, Some(2));
}

#[test]
fn traps_exit_1() {
    let code =
        exit_code_with_stderr_closed("run", "run FILE", "umovi u1, -1\ncsrw mode, u1\nendpgm\n");
    assert_eq!(code, Some(1));
}
