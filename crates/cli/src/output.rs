//! Writing results: to stdout for `-`, otherwise to a temporary file in the same directory
//! renamed into place on success, so a failed run never leaves a truncated file where a
//! good one was (a rename within one directory replaces the old file in one step).

use crate::failure::Failure;
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

/// What makes two paths one file: device and inode (`./k.s`, `$(pwd)/k.s`, `../d/k.s` and
/// a symbolic link to it are all the same file), or where those are not available, the
/// canonical path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileId {
    #[cfg(unix)]
    id: (u64, u64),
    #[cfg(not(unix))]
    id: PathBuf,
}

impl FileId {
    /// The identity of the existing file `path` names (through symbolic links), if any.
    fn of(path: &Path) -> Option<FileId> {
        if is_stdout(path) {
            return None;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            Some(FileId {
                id: (m.dev(), m.ino()),
            })
        }
        #[cfg(not(unix))]
        {
            Some(FileId {
                id: std::fs::canonicalize(path).ok()?,
            })
        }
    }
}

/// Check every output against every input and every other output, by file identity:
/// refuse (exit 2) an output that is an input, whatever the spelling, and two outputs on
/// one file. A device or pipe (`/dev/null`, `/dev/stdout`) may be named more than once.
/// `outputs` and `inputs` are `(option, path)` pairs, `option` naming the flag in the
/// message.
pub fn check_distinct(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<(), Failure> {
    let input_ids: Vec<(&str, &Path, FileId)> = inputs
        .iter()
        .filter_map(|&(o, p)| FileId::of(p).map(|id| (o, p, id)))
        .collect();
    let mut seen: Vec<(&str, &Path, Option<FileId>)> = Vec::new();
    for &(option, path) in outputs {
        if is_stdout(path) || is_device(path) {
            continue;
        }
        let shown = path.display();
        let id = FileId::of(path);
        if let Some(id) = &id {
            if let Some((what, input, _)) = input_ids.iter().find(|(_, _, i)| i == id) {
                return Err(Failure::BadInput(format!(
                    "{option} {shown}: the output would overwrite the {what} {}; refusing \
                     to overwrite it (name another output file)",
                    input.display()
                )));
            }
        }
        let same = |(_, p, other): &&(&str, &Path, Option<FileId>)| match (&id, other) {
            (Some(a), Some(b)) => a == b,
            (None, None) => same_new_path(p, path),
            _ => false,
        };
        if let Some((other, _, _)) = seen.iter().find(same) {
            return Err(Failure::BadInput(format!(
                "{option} {shown}: the same file is given for two outputs ({other} and {option})"
            )));
        }
        seen.push((option, path, id));
    }
    Ok(())
}

/// Whether two paths of files that do not exist yet name the same file: same canonical
/// directory and same name.
fn same_new_path(a: &Path, b: &Path) -> bool {
    let split = |p: &Path| {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        (
            std::fs::canonicalize(dir).ok(),
            p.file_name().map(|n| n.to_owned()),
        )
    };
    let (da, na) = split(a);
    let (db, nb) = split(b);
    da.is_some() && da == db && na.is_some() && na == nb
}

/// Whether `path` is a device or pipe, written in place rather than replaced.
pub fn is_device(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// The failure for an error writing `path`: exit 1 with a message, or for a closed pipe on
/// stdout, quietly (`stdout.rs`).
pub fn write_error(path: &Path, e: &std::io::Error) -> Failure {
    if is_stdout(path) {
        crate::stdout::write_failure(e)
    } else {
        Failure::Runtime(format!("cannot write {}: {e}", path.display()))
    }
}

/// Write `bytes` to `path` (`-` = stdout) atomically.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let mut out = OutputFile::create(path)?;
    out.write_all(bytes).map_err(|e| write_error(path, &e))?;
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
                .map_err(|e| write_error(path, &e))?;
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
        let file = File::create(&temp).map_err(|e| write_error(path, &e))?;
        Ok(OutputFile {
            path: path.to_path_buf(),
            temp: Some(temp),
            out: Box::new(BufWriter::with_capacity(1 << 20, file)),
        })
    }

    /// A log written straight to `path` (`-` = stdout) as it is produced, so a reader
    /// (`tail -f`) follows it; there is no temporary file, and what was written stays
    /// whatever happens next. For diagnostics, not results.
    pub fn create_streamed(path: &Path) -> Result<OutputFile, Failure> {
        if is_stdout(path) || is_device(path) {
            return OutputFile::create(path);
        }
        let file = File::create(path).map_err(|e| write_error(path, &e))?;
        Ok(OutputFile {
            path: path.to_path_buf(),
            temp: None,
            out: Box::new(BufWriter::with_capacity(64 << 10, file)),
        })
    }

    /// Flush and move the file into place.
    pub fn commit(mut self) -> Result<(), Failure> {
        self.out.flush().map_err(|e| write_error(&self.path, &e))?;
        if let Some(temp) = self.temp.take() {
            if let Err(e) = std::fs::rename(&temp, &self.path) {
                let _ = std::fs::remove_file(&temp);
                return Err(write_error(&self.path, &e));
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
