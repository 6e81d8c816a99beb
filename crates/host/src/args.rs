//! Kernel arguments in their text form, `NAME=VALUE` (the CLI's `--arg`): `NAME=INT` (in
//! [`crate::number`]'s syntax, from -2^63 to 2^64 - 1, negative values in two's complement:
//! an 8-byte slot holding the value; anything outside is refused, never wrapped), `NAME=buf:BYTES` (a
//! zero-filled buffer), `NAME=@FILE` (a buffer holding the file). Every byte a launch maps is
//! charged to a [`MemoryBudget`] before it is allocated or read, so `buf:1000000000000`
//! fails at once instead of exhausting the host.

use std::io::Read;
use std::path::Path;
use warpkit_sim::launch::{Arg, ArgValue};

/// The memory a launch may still map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryBudget {
    limit: u64,
    used: u64,
}

/// A launch would map more memory than its limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    /// A charge of known size (a slot, a `buf:BYTES` buffer, a regular file) would pass the
    /// limit; nothing was charged.
    #[error(
        "{what} needs {bytes} bytes, which with the {used} bytes already mapped exceeds the \
         memory limit of {limit} bytes"
    )]
    Exceeded {
        /// What the bytes were for, e.g. `--arg out=buf:64`.
        what: String,
        /// The bytes asked for.
        bytes: u64,
        /// Bytes charged before this request.
        used: u64,
        /// The budget's limit in bytes.
        limit: u64,
    },
    /// A stream (pipe, device) held more than what was left.
    #[error(
        "{what}: {file} holds more than the {left} bytes left under the memory limit of \
         {limit} bytes"
    )]
    StreamTooLong {
        /// What the bytes were for, e.g. `--arg data=@/dev/stdin`.
        what: String,
        /// The stream's path as given.
        file: String,
        /// Bytes that were still free when reading began.
        left: u64,
        /// The budget's limit in bytes.
        limit: u64,
    },
}

impl MemoryBudget {
    /// A budget of `limit` bytes with nothing charged yet.
    pub fn new(limit: u64) -> MemoryBudget {
        MemoryBudget { limit, used: 0 }
    }

    /// The total bytes the budget allows.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes charged so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Bytes that may still be charged.
    pub fn left(&self) -> u64 {
        self.limit - self.used
    }

    /// Charge `bytes` for `what` (named in the error), or refuse without charging.
    pub fn charge(&mut self, what: &str, bytes: u64) -> Result<(), MemoryError> {
        match self.used.checked_add(bytes) {
            Some(total) if total <= self.limit => {
                self.used = total;
                Ok(())
            }
            _ => Err(MemoryError::Exceeded {
                what: what.to_string(),
                bytes,
                used: self.used,
                limit: self.limit,
            }),
        }
    }
}

/// Why an argument's text is not an argument. Messages start with `--arg TEXT: `.
#[derive(Debug, thiserror::Error)]
pub enum ArgError {
    /// The text is not `NAME=VALUE` with a non-empty name, or a buffer does not fit the
    /// host's address space.
    #[error("--arg {text}: {why}")]
    Syntax {
        /// The argument as given.
        text: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A number that is malformed or out of range.
    #[error("--arg {text}: {why}")]
    Number {
        /// The argument as given.
        text: String,
        /// Which number was expected and why it was refused.
        why: String,
    },
    /// The file of `NAME=@FILE` could not be opened or read.
    #[error("--arg {text}: cannot read {file}: {error}")]
    Read {
        /// The argument as given.
        text: String,
        /// The file's path as given.
        file: String,
        /// The operating system's error.
        #[source]
        error: std::io::Error,
    },
    /// The file of `NAME=@FILE` is a directory.
    #[error("--arg {text}: {file} is a directory")]
    Directory {
        /// The argument as given.
        text: String,
        /// The directory's path as given.
        file: String,
    },
    /// A FIFO nobody has open for writing: it is refused rather than waited on.
    #[error(
        "--arg {text}: no process is writing to the FIFO {file}; start the writer first \
         (a FIFO is read only when a writer has it open)"
    )]
    NoWriter {
        /// The argument as given.
        text: String,
        /// The FIFO's path as given.
        file: String,
    },
    /// The slot or buffer does not fit the launch's [`MemoryBudget`].
    #[error(transparent)]
    Memory(#[from] MemoryError),
}

/// An integer argument (see [`crate::number::parse_i64_or_u64`]).
pub fn parse_int(text: &str) -> Option<u64> {
    crate::number::parse_i64_or_u64(text).ok()
}

/// The argument `text` (`NAME=VALUE`), charging its slot and buffer to `budget`.
pub fn parse_arg(text: &str, budget: &mut MemoryBudget) -> Result<Arg, ArgError> {
    let bad = |why: &'static str| ArgError::Syntax {
        text: text.to_string(),
        why,
    };
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| bad("expected NAME=VALUE"))?;
    if name.is_empty() {
        return Err(bad("the name is empty"));
    }
    let what = format!("--arg {text}");
    // The argument block's slot.
    budget.charge(&what, 8)?;
    let value = if let Some(n) = value.strip_prefix("buf:") {
        let n = crate::number::parse_u64(n).map_err(|e| ArgError::Number {
            text: text.to_string(),
            why: format!("buf:BYTES needs a byte count: {e}"),
        })?;
        budget.charge(&what, n)?;
        let n = usize::try_from(n).map_err(|_| bad("the buffer does not fit this host"))?;
        ArgValue::Buffer(vec![0; n])
    } else if let Some(file) = value.strip_prefix('@') {
        ArgValue::Buffer(read_arg_file(text, Path::new(file), budget)?)
    } else {
        ArgValue::Int(
            crate::number::parse_i64_or_u64(value).map_err(|e| ArgError::Number {
                text: text.to_string(),
                why: format!("expected an integer, buf:BYTES or @FILE: {e}"),
            })?,
        )
    };
    Ok(Arg {
        name: name.to_string(),
        value,
    })
}

/// The bytes of `NAME=@FILE`, charged to `budget` before they are read: a regular file by
/// its size, anything else (a pipe, a device) by reading at most what is left.
fn read_arg_file(text: &str, file: &Path, budget: &mut MemoryBudget) -> Result<Vec<u8>, ArgError> {
    let what = format!("--arg {text}");
    let cannot = |error: std::io::Error| ArgError::Read {
        text: text.to_string(),
        file: file.display().to_string(),
        error,
    };
    let (f, head) = open_arg_file(file).map_err(|e| match e {
        OpenError::Io(e) => cannot(e),
        OpenError::NoWriter => ArgError::NoWriter {
            text: text.to_string(),
            file: file.display().to_string(),
        },
    })?;
    let meta = f.metadata().map_err(cannot)?;
    if meta.is_dir() {
        return Err(ArgError::Directory {
            text: text.to_string(),
            file: file.display().to_string(),
        });
    }
    if meta.is_file() {
        budget.charge(&what, meta.len())?;
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        f.take(meta.len()).read_to_end(&mut bytes).map_err(cannot)?;
        return Ok(bytes);
    }
    let left = budget.left();
    let mut bytes = head;
    f.take(left.saturating_add(1).saturating_sub(bytes.len() as u64))
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > left {
        return Err(MemoryError::StreamTooLong {
            what,
            file: file.display().to_string(),
            left,
            limit: budget.limit,
        }
        .into());
    }
    budget.charge(&what, bytes.len() as u64)?;
    Ok(bytes)
}

enum OpenError {
    Io(std::io::Error),
    NoWriter,
}

/// Open `file` for reading without ever blocking on a FIFO that has no writer: a FIFO is
/// opened non-blocking, refused if nobody holds it open for writing (its first read says
/// end of file at once), and otherwise switched back to blocking reads. Process
/// substitution (`@<(cmd)`) has its writer already, so it reads as any pipe. Returns the
/// file and the bytes already read from it (a FIFO cannot be rewound).
fn open_arg_file(file: &Path) -> Result<(std::fs::File, Vec<u8>), OpenError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        use std::os::unix::io::AsRawFd;
        let is_fifo = std::fs::metadata(file).is_ok_and(|m| m.file_type().is_fifo());
        if is_fifo {
            let mut f = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(file)
                .map_err(OpenError::Io)?;
            let mut first = [0u8; 1];
            let head = match f.read(&mut first) {
                Ok(0) => return Err(OpenError::NoWriter),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => 0,
                Err(e) => return Err(OpenError::Io(e)),
            };
            // SAFETY: F_GETFL/F_SETFL on a descriptor this function owns (`f` is alive);
            // they only read and change its status flags.
            let ok = unsafe {
                let fd = f.as_raw_fd();
                let flags = libc::fcntl(fd, libc::F_GETFL);
                flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) >= 0
            };
            if !ok {
                return Err(OpenError::Io(std::io::Error::last_os_error()));
            }
            return Ok((f, first[..head].to_vec()));
        }
    }
    Ok((
        std::fs::File::open(file).map_err(OpenError::Io)?,
        Vec::new(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let mut b = MemoryBudget::new(1 << 20);
        let a = parse_arg("n=-1", &mut b).unwrap();
        assert_eq!(a.value, ArgValue::Int(u64::MAX));
        let a = parse_arg("n=0x10", &mut b).unwrap();
        assert_eq!(a.value, ArgValue::Int(16));
        let a = parse_arg("out=buf:12", &mut b).unwrap();
        assert_eq!(a.value, ArgValue::Buffer(vec![0; 12]));
        assert_eq!(b.used(), 8 + 8 + 8 + 12);
        assert!(parse_arg("n=-9223372036854775809", &mut b).is_err());
        assert_eq!(
            parse_arg("n=-9223372036854775808", &mut b).unwrap().value,
            ArgValue::Int(1 << 63)
        );
        for bad in ["x", "=1", "x=buf:-1", "x=12ab"] {
            assert!(
                matches!(
                    parse_arg(bad, &mut b),
                    Err(ArgError::Syntax { .. } | ArgError::Number { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_budget_refuses_before_allocating() {
        let mut b = MemoryBudget::new(100);
        let e = parse_arg("x=buf:1000000000000", &mut b).unwrap_err();
        assert!(
            matches!(e, ArgError::Memory(MemoryError::Exceeded { used: 8, .. })),
            "{e}"
        );
        assert_eq!(b.used(), 8);
    }
}
