//! Source files and positions: every token, AST node and IR operation carries a [`Span`]
//! (a byte range in one file); the [`SourceMap`] turns it into `file:line:col` and keeps
//! the macro expansions a token went through, for diagnostics and line tables.

/// Index of a file in the [`SourceMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// Index of a macro expansion in the [`SourceMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExpnId(pub u32);

/// A byte range `lo..hi` of one file's text: where something is spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    /// The file the bytes are in.
    pub file: FileId,
    /// First byte.
    pub lo: u32,
    /// One past the last byte (`lo` for an empty span).
    pub hi: u32,
}

impl Span {
    /// The span `lo..hi` of `file`.
    pub const fn new(file: FileId, lo: u32, hi: u32) -> Span {
        Span { file, lo, hi }
    }

    /// A span that names no real text (compiler-made code); renders as the file alone.
    pub const DUMMY: Span = Span {
        file: FileId(u32::MAX),
        lo: 0,
        hi: 0,
    };

    /// Whether this is [`Span::DUMMY`].
    pub fn is_dummy(self) -> bool {
        self.file.0 == u32::MAX
    }

    /// The smallest span covering both, when they are in one file; otherwise `self`.
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file || self.is_dummy() {
            return self;
        }
        Span {
            file: self.file,
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
}

/// One file of the compilation: the main file, an included one, or compiler-provided text
/// (the built-in prelude).
#[derive(Debug)]
pub struct SourceFile {
    /// The name as it is shown in diagnostics and line tables (the path as given, or the
    /// include path joined to the including file's directory).
    pub name: String,
    /// The text.
    pub text: String,
    /// Whether the text is the compiler's own (the OpenCL built-in library): its lines are
    /// never put in line tables and diagnostics inside it point at the user's call.
    pub builtin: bool,
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// 1-based line and 1-based column (in characters) of byte offset `pos`.
    pub fn line_col(&self, pos: u32) -> (u32, u32) {
        let line = self.line_starts.partition_point(|&s| s <= pos) - 1;
        let start = self.line_starts[line] as usize;
        let end = (pos as usize).min(self.text.len());
        let col = self
            .text
            .get(start..end)
            .map_or(end - start, |s| s.chars().count());
        (line as u32 + 1, col as u32 + 1)
    }

    /// The text of 1-based line `line`, without its line break.
    pub fn line_text(&self, line: u32) -> &str {
        let i = line.saturating_sub(1) as usize;
        let Some(&start) = self.line_starts.get(i) else {
            return "";
        };
        let end = self
            .line_starts
            .get(i + 1)
            .map_or(self.text.len(), |&e| e as usize);
        self.text
            .get(start as usize..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }
}

/// A macro expansion: which macro, where it was invoked, and the expansion that invocation
/// itself came from (for macros used inside other macros' bodies).
#[derive(Debug, Clone)]
pub struct Expansion {
    /// The macro's name.
    pub name: String,
    /// The invocation (the macro name, through the closing parenthesis of its arguments).
    pub call_site: Span,
    /// The expansion the invocation's tokens came from, if any.
    pub parent: Option<ExpnId>,
    /// Where the macro was defined (its name in the `#define`), if not predefined.
    pub definition: Option<Span>,
}

/// Every file of a compilation and every macro expansion.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
    expansions: Vec<Expansion>,
}

/// A resolved position, for messages and line tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loc {
    /// The file's name.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column in characters.
    pub col: u32,
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Add a file and return its id.
    pub fn add_file(
        &mut self,
        name: impl Into<String>,
        text: impl Into<String>,
        builtin: bool,
    ) -> FileId {
        let text = text.into();
        let mut line_starts = vec![0u32];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        self.files.push(SourceFile {
            name: name.into(),
            text,
            builtin,
            line_starts,
        });
        FileId(self.files.len() as u32 - 1)
    }

    /// The file with id `id`.
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// Every file, in id order.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// Record an expansion and return its id.
    pub fn add_expansion(&mut self, expansion: Expansion) -> ExpnId {
        self.expansions.push(expansion);
        ExpnId(self.expansions.len() as u32 - 1)
    }

    /// The expansion with id `id`.
    pub fn expansion(&self, id: ExpnId) -> &Expansion {
        &self.expansions[id.0 as usize]
    }

    /// The position of the start of `span`, or `None` for [`Span::DUMMY`].
    pub fn loc(&self, span: Span) -> Option<Loc> {
        if span.is_dummy() {
            return None;
        }
        let file = self.files.get(span.file.0 as usize)?;
        let (line, col) = file.line_col(span.lo);
        Some(Loc {
            file: file.name.clone(),
            line,
            col,
        })
    }

    /// The text `span` covers.
    pub fn snippet(&self, span: Span) -> &str {
        if span.is_dummy() {
            return "";
        }
        self.files
            .get(span.file.0 as usize)
            .and_then(|f| f.text.get(span.lo as usize..span.hi as usize))
            .unwrap_or("")
    }
}
