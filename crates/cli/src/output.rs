//! Writing results: to stdout for `-`, otherwise to a temporary file in the same directory
//! renamed into place on success, so a failed run never leaves a truncated file where a
//! good one was (a rename within one directory replaces the old file in one step).

use crate::Failure;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The temporary file `path` is written to first: hidden, in the same directory (a rename
/// across file systems is not atomic), named after the process so two runs do not collide.
fn temp_path(path: &Path) -> PathBuf {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    dir.join(format!(".{name}.tmp{}", std::process::id()))
}

/// Check, before any work is done, that `path` can be an output: its directory exists and
/// it is not itself a directory. `option` names the flag in the message.
pub fn check_output_path(option: &str, path: &Path) -> Result<(), Failure> {
    if is_stdout(path) {
        return Ok(());
    }
    let shown = path.display();
    if path.is_dir() {
        return Err(Failure::BadInput(format!(
            "{option} {shown}: is a directory, not a file"
        )));
    }
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !dir.is_dir() {
            return Err(Failure::BadInput(format!(
                "{option} {shown}: the directory {} does not exist",
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Whether `path` is a device or pipe, written in place rather than replaced.
pub fn is_device(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// Write `bytes` to `path` (`-` = stdout) atomically.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let mut out = OutputFile::create(path)?;
    out.write_all(bytes)
        .map_err(|e| Failure::BadInput(format!("cannot write {}: {e}", path.display())))?;
    out.commit()
}

/// A streamed output (a trace): written to the temporary file while the run goes on,
/// renamed into place by [`OutputFile::commit`]; dropped without a commit, the temporary
/// file is removed and whatever was at `path` stays as it was.
pub struct OutputFile {
    path: PathBuf,
    temp: Option<PathBuf>,
    out: Box<dyn Write + Send>,
}

impl OutputFile {
    pub fn create(path: &Path) -> Result<OutputFile, Failure> {
        if is_stdout(path) {
            return Ok(OutputFile {
                path: path.to_path_buf(),
                temp: None,
                out: Box::new(BufWriter::new(std::io::stdout())),
            });
        }
        // A device or pipe (`-o /dev/null`, `/dev/stdout`, a FIFO) is written in place: a
        // rename would replace the device node itself with a regular file.
        if is_device(path) {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| Failure::BadInput(format!("cannot write {}: {e}", path.display())))?;
            return Ok(OutputFile {
                path: path.to_path_buf(),
                temp: None,
                out: Box::new(BufWriter::new(file)),
            });
        }
        // Through a symbolic link, the file it names is replaced, not the link.
        let path = &match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
            }
            _ => path.to_path_buf(),
        };
        let temp = temp_path(path);
        let file = File::create(&temp)
            .map_err(|e| Failure::BadInput(format!("cannot write {}: {e}", path.display())))?;
        Ok(OutputFile {
            path: path.to_path_buf(),
            temp: Some(temp),
            out: Box::new(BufWriter::with_capacity(1 << 20, file)),
        })
    }

    /// Flush and move the file into place.
    pub fn commit(mut self) -> Result<(), Failure> {
        let shown = if is_stdout(&self.path) {
            "stdout".to_string()
        } else {
            self.path.display().to_string()
        };
        self.out
            .flush()
            .map_err(|e| Failure::BadInput(format!("cannot write {shown}: {e}")))?;
        if let Some(temp) = self.temp.take() {
            if let Err(e) = std::fs::rename(&temp, &self.path) {
                let _ = std::fs::remove_file(&temp);
                return Err(Failure::BadInput(format!("cannot write {shown}: {e}")));
            }
        }
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.out.write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = std::fs::remove_file(temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("warpkit-output-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn an_uncommitted_file_leaves_the_old_one() {
        let p = dir().join("kept.txt");
        std::fs::write(&p, "good").unwrap();
        {
            let mut f = OutputFile::create(&p).unwrap();
            f.write_all(b"half").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "good");
        assert!(!temp_path(&p).exists());
        let mut f = OutputFile::create(&p).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
    }

    #[test]
    fn devices_are_written_in_place() {
        let null = Path::new("/dev/null");
        if null.exists() {
            write_output(null, b"discarded").unwrap();
            let m = std::fs::metadata(null).unwrap();
            assert!(!m.is_file(), "/dev/null must stay a device");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_keeps_pointing_at_the_new_file() {
        let d = dir();
        let target = d.join("target.txt");
        let link = d.join("link.txt");
        std::fs::write(&target, "old").unwrap();
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_output(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    }

    #[test]
    fn output_paths_are_checked_first() {
        let d = dir();
        assert!(check_output_path("-o", &d.join("x.bin")).is_ok());
        assert!(check_output_path("-o", Path::new("-")).is_ok());
        assert!(check_output_path("-o", &d).is_err());
        assert!(check_output_path("-o", &d.join("missing/x.bin")).is_err());
        assert!(write_output(&d.join("missing/x.bin"), b"x").is_err());
    }
}
