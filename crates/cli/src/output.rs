//! Writing results: to stdout for `-`, otherwise to a temporary file renamed into place on
//! success, so a failed run never leaves a truncated file where a good one was.

use crate::Failure;
use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` (`-` = stdout) atomically.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(bytes)
            .and_then(|_| out.flush())
            .map_err(|e| Failure::Runtime(format!("writing to stdout: {e}")));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Failure::BadInput(format!(
            "cannot write {}: {e}",
            path.display()
        )));
    }
    Ok(())
}

/// Read a whole input file, naming it in the error.
pub fn read_input(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path)
        .map_err(|e| Failure::BadInput(format!("cannot read {}: {e}", path.display())))
}
