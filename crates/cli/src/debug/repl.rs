//! The terminal shell over [`Debugger`]: line editing, history and completion on a
//! terminal (`rustyline`), or commands read line by line from a script or a pipe, each
//! echoed after the prompt with its output, so a session's transcript is deterministic.

use super::Debugger;
use std::io::BufRead;

/// The prompt.
pub const PROMPT: &str = "(warpkit) ";

/// Completes the word under the cursor from the debugger's commands, registers, labels
/// and buffers.
#[derive(rustyline::Helper, rustyline::Hinter, rustyline::Highlighter, rustyline::Validator)]
struct Complete {
    /// Operands: registers, labels, buffers.
    words: Vec<String>,
}

impl rustyline::completion::Completer for Complete {
    type Candidate = String;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let head = &line[..pos];
        let start = head
            .rfind(|c: char| c.is_whitespace() || c == '/' || c == ':')
            .map_or(0, |i| i + 1);
        let word = &head[start..];
        let first = head.split_whitespace().next().unwrap_or("");
        let pool: Vec<&str> = if head[..start].trim().is_empty() {
            super::COMMANDS.iter().map(|(c, _)| *c).collect()
        } else if first == "info" || first == "i" {
            super::INFO_SUBJECTS.to_vec()
        } else {
            self.words.iter().map(String::as_str).collect()
        };
        Ok((
            start,
            pool.into_iter()
                .filter(|w| w.starts_with(word))
                .map(String::from)
                .collect(),
        ))
    }
}

/// How a shell session ended.
pub struct Ended {
    /// Some command failed (bad syntax, nothing to inspect).
    pub errors: bool,
}

/// Run commands from `input`, echoing each after the prompt, writing the replies to
/// `out`, until `quit` or the end of the input.
pub fn run_script(
    d: &mut Debugger,
    input: impl BufRead,
    out: &mut dyn FnMut(&str),
) -> std::io::Result<Ended> {
    let mut errors = false;
    for line in input.lines() {
        let line = line?;
        out(&format!("{PROMPT}{line}\n"));
        let r = d.execute(&line);
        out(&r.text);
        errors |= r.error;
        if r.quit {
            break;
        }
    }
    Ok(Ended { errors })
}

/// An interactive session on the terminal; history is kept in `history` if given.
pub fn run_terminal(
    d: &mut Debugger,
    history: Option<&std::path::Path>,
    out: &mut dyn FnMut(&str),
) -> Result<Ended, String> {
    let mut ed: rustyline::Editor<Complete, rustyline::history::FileHistory> =
        rustyline::Editor::new().map_err(|e| format!("cannot use the terminal: {e}"))?;
    ed.set_helper(Some(Complete {
        words: d.completions(),
    }));
    if let Some(h) = history {
        let _ = ed.load_history(h);
    }
    let mut errors = false;
    loop {
        match ed.readline(PROMPT) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = ed.add_history_entry(line.as_str());
                }
                let r = d.execute(&line);
                out(&r.text);
                errors |= r.error;
                if r.quit {
                    break;
                }
            }
            // Ctrl-C at the prompt clears the line, as in a shell.
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(rustyline::error::ReadlineError::Eof) => break,
            Err(e) => return Err(format!("cannot read the terminal: {e}")),
        }
    }
    if let Some(h) = history {
        let _ = ed.save_history(h);
    }
    Ok(Ended { errors })
}
