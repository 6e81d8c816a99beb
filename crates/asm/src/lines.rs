//! Source lines of code: which file and line every instruction came from.
//!
//! [`LineTable`] is the one in-memory form, whatever the program came from: the assembler
//! fills it while assembling (docs/assembly.md, "Source lines"), [`crate::load_object`]
//! reads it back from an ELF file's DWARF `.debug_line`, and every client (`warpkit dis
//! -l`, the run reports, the debugger, the profiler) looks addresses up in it.
//! [`SourceTexts`] holds the text of the files it names, for showing the lines themselves.

use std::fmt;

/// One row of the table: the code from `address` up to the next row's address (or the
/// table's end) came from `line` of file `file`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRow {
    /// Offset in `.text` (the PC).
    pub address: u64,
    /// Index into [`LineTable::files`].
    pub file: u32,
    /// 1-based line; 0 means "no source line" (DWARF's convention).
    pub line: u32,
    /// 1-based column; 0 means unknown (DWARF's "left edge"). Only `.loc` gives one.
    pub column: u32,
}

/// Where an instruction came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location<'a> {
    /// The file's name, as [`LineTable::files`] holds it.
    pub file: &'a str,
    /// Index into [`LineTable::files`].
    pub file_index: u32,
    /// 1-based.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
}

impl fmt::Display for Location<'_> {
    /// `file:line`, or `file:line:column` when the column is known, as compilers and
    /// debuggers print it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if self.column != 0 {
            write!(f, ":{}", self.column)?;
        }
        Ok(())
    }
}

/// The source lines of a program's `.text`: rows sorted by address, each covering the code
/// up to the next row. Empty when the program has no line information (raw or hex input,
/// an ELF file without `.debug_line`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineTable {
    files: Vec<String>,
    rows: Vec<LineRow>,
    /// First address past the code the table covers.
    end: u64,
    /// Why the line information of a loaded object was (partly) unreadable.
    damaged: Option<String>,
}

impl LineTable {
    /// A table over `files` from `rows` (any order) covering code up to `end`. Rows that
    /// name no file or lie at or past `end` are dropped; of several rows at one address
    /// the last one stays (as in a DWARF line program).
    pub fn new(files: Vec<String>, mut rows: Vec<LineRow>, end: u64) -> LineTable {
        let n = files.len();
        rows.retain(|r| (r.file as usize) < n && r.address < end);
        rows.sort_by_key(|r| r.address);
        let mut kept: Vec<LineRow> = Vec::with_capacity(rows.len());
        for r in rows {
            match kept.last_mut() {
                // A real line wins over "no line" (the end of another sequence).
                Some(last) if last.address == r.address => {
                    if r.line != 0 || last.line == 0 {
                        *last = r;
                    }
                }
                // A row that says the same as the one before it adds nothing.
                Some(last)
                    if last.file == r.file && last.line == r.line && last.column == r.column => {}
                _ => kept.push(r),
            }
        }
        if kept.is_empty() {
            return LineTable::default();
        }
        LineTable {
            files,
            rows: kept,
            end,
            damaged: None,
        }
    }

    /// An empty table for line information that could not be read, saying why.
    pub(crate) fn unreadable(why: String) -> LineTable {
        LineTable {
            damaged: Some(why),
            ..LineTable::default()
        }
    }

    /// Why an object's line information was ignored (malformed DWARF), if it was: a
    /// loader reports it as a warning; the code itself loads.
    pub fn damaged(&self) -> Option<&str> {
        self.damaged.as_deref()
    }

    /// Whether the table has no rows: the program has no line information.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The file names, as the assembler was given them (an included file: its path as
    /// resolved from the including file's directory).
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// The rows, sorted by address, one per address; a row differs in file, line or
    /// column from the one before it.
    pub fn rows(&self) -> &[LineRow] {
        &self.rows
    }

    /// First address past the code the table covers.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// The row covering `address`, if any (line 0 included).
    pub fn row_at(&self, address: u64) -> Option<&LineRow> {
        if address >= self.end {
            return None;
        }
        let i = self.rows.partition_point(|r| r.address <= address);
        self.rows.get(i.checked_sub(1)?)
    }

    /// The file and line the code at `address` came from.
    pub fn lookup(&self, address: u64) -> Option<Location<'_>> {
        let r = self.row_at(address).filter(|r| r.line != 0)?;
        Some(Location {
            file: self.files.get(r.file as usize)?,
            file_index: r.file,
            line: r.line,
            column: r.column,
        })
    }

    /// The first address of the code of line `line` of `file` (any file when `None`; a
    /// file is matched by its name or, failing that, by its last path component), or of
    /// the next line after it that has code. `None` when no code comes from there.
    pub fn address_of_line(&self, file: Option<&str>, line: u32) -> Option<u64> {
        let wanted = self.wanted_files(file);
        self.rows
            .iter()
            .filter(|r| wanted.get(r.file as usize) == Some(&true) && r.line >= line)
            .min_by_key(|r| (r.line, r.address))
            .map(|r| r.address)
    }

    /// The first address of the code of line `line`, column `column` of `file` (matched
    /// as by [`LineTable::address_of_line`]), or of the nearest column after it on that
    /// line, or else of the first later line with code.
    pub fn address_of_column(&self, file: Option<&str>, line: u32, column: u32) -> Option<u64> {
        let wanted = self.wanted_files(file);
        self.rows
            .iter()
            .filter(|r| {
                wanted.get(r.file as usize) == Some(&true)
                    && (r.line > line || (r.line == line && r.column >= column))
            })
            .min_by_key(|r| (r.line, r.column, r.address))
            .map(|r| r.address)
    }

    /// Which files `file` names: by their name or, failing that, their last path
    /// component; every file for `None`.
    fn wanted_files(&self, file: Option<&str>) -> Vec<bool> {
        match file {
            None => vec![true; self.files.len()],
            Some(name) => {
                let exact: Vec<bool> = self.files.iter().map(|f| f == name).collect();
                if exact.contains(&true) {
                    exact
                } else {
                    let base = |p: &str| p.rsplit(['/', '\\']).next().unwrap_or(p).to_string();
                    let b = base(name);
                    self.files.iter().map(|f| base(f) == b).collect()
                }
            }
        }
    }
}

/// Largest source file read for showing its lines.
const MAX_TEXT_BYTES: u64 = crate::MAX_SOURCE_BYTES as u64;

/// The texts of the files of a [`LineTable`], where they could be read, for showing source
/// lines next to code.
#[derive(Debug, Clone, Default)]
pub struct SourceTexts {
    /// Per file of the table: its text and the start offset of each line.
    texts: Vec<Option<(String, Vec<usize>)>>,
}

impl SourceTexts {
    /// The texts of `table`'s files: those given in `known` (name, text) as they are, the
    /// others read from the file system (relative names from the current directory). A
    /// file that cannot be read, is not a regular file or is not UTF-8 has no text.
    pub fn load(table: &LineTable, known: &[(&str, &str)]) -> SourceTexts {
        let texts = table
            .files()
            .iter()
            .map(|name| {
                let text = match known.iter().find(|(n, _)| n == name) {
                    Some((_, t)) => Some((*t).to_string()),
                    None => read_text(name),
                }?;
                let starts = std::iter::once(0)
                    .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
                    .collect();
                Some((text, starts))
            })
            .collect();
        SourceTexts { texts }
    }

    /// Line `line` (1-based) of file `file` (an index into the table's files), without its
    /// line ending.
    pub fn line(&self, file: u32, line: u32) -> Option<&str> {
        let (text, starts) = self.texts.get(file as usize)?.as_ref()?;
        let i = (line as usize).checked_sub(1)?;
        let start = *starts.get(i)?;
        if start >= text.len() && i > 0 {
            return None;
        }
        let end = starts.get(i + 1).map_or(text.len(), |&e| e - 1);
        Some(text[start..end].trim_end_matches('\r'))
    }

    /// The whole text of file `file`, if it was read.
    pub fn text(&self, file: u32) -> Option<&str> {
        self.texts
            .get(file as usize)?
            .as_ref()
            .map(|(t, _)| t.as_str())
    }
}

fn read_text(name: &str) -> Option<String> {
    use std::io::Read;
    let meta = std::fs::metadata(name).ok()?;
    if !meta.is_file() || meta.len() > MAX_TEXT_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(name)
        .ok()?
        .take(MAX_TEXT_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(address: u64, file: u32, line: u32) -> LineRow {
        LineRow {
            address,
            file,
            line,
            column: 0,
        }
    }

    #[test]
    fn lookup_covers_up_to_the_next_row_and_the_end() {
        let t = LineTable::new(
            vec!["a.s".into(), "b.s".into()],
            vec![
                row(8, 1, 3),
                row(0, 0, 1),
                row(4, 0, 2),
                row(12, 0, 0),
                row(99, 0, 5),
            ],
            16,
        );
        assert_eq!(t.rows().len(), 4);
        assert_eq!(t.lookup(0).unwrap().to_string(), "a.s:1");
        assert_eq!(t.lookup(7).unwrap().to_string(), "a.s:2");
        assert_eq!(t.lookup(11).unwrap().to_string(), "b.s:3");
        assert_eq!(t.lookup(12), None, "line 0 is no line");
        assert_eq!(t.lookup(16), None);
        assert_eq!(t.address_of_line(None, 2), Some(4));
        assert_eq!(t.address_of_line(Some("dir/b.s"), 1), Some(8));
        assert_eq!(t.address_of_line(Some("a.s"), 3), None);
    }

    #[test]
    fn bad_rows_are_dropped() {
        let t = LineTable::new(vec!["a.s".into()], vec![row(0, 7, 1), row(4, 0, 2)], 4);
        assert!(t.is_empty());
        assert_eq!(t.lookup(0), None);
    }

    #[test]
    fn texts_by_line() {
        let t = LineTable::new(
            vec!["k.s".into(), "/nonexistent/x.s".into()],
            vec![row(0, 0, 1)],
            4,
        );
        let s = SourceTexts::load(&t, &[("k.s", "one\r\ntwo\nthree")]);
        assert_eq!(s.line(0, 1), Some("one"));
        assert_eq!(s.line(0, 3), Some("three"));
        assert_eq!(s.line(0, 4), None);
        assert_eq!(s.line(0, 0), None);
        assert_eq!(s.line(1, 1), None);
    }
}
