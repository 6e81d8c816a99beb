//! Translation phases 1 to 3 of C99 §5.1.1.2 on one file's text: line splicing (a backslash
//! before a newline disappears, also inside tokens), comments become whitespace, and the
//! text becomes preprocessing tokens. The lexer works on demand, one token at a time, so the
//! preprocessor can ask for a header name right after `#include` and find where a directive
//! line ends.

use super::token::{PpKind, PpToken};
use crate::diag::{Diagnostic, Diagnostics};
use crate::source::{FileId, Span};
use crate::token::Punct;
use std::rc::Rc;

/// A lexer over one text.
#[derive(Debug)]
pub(crate) struct Lexer {
    text: Rc<str>,
    file: FileId,
    pos: usize,
    /// A newline (or the start of the text) came since the last token.
    line_start: bool,
    /// Whitespace or a comment came since the last token.
    space: bool,
    /// A comment was skipped since the lexer was made (pasting must not form one).
    saw_comment: bool,
    /// Tokens get their spelling (not while skipping, where only kinds matter).
    spell: bool,
    empty: Rc<str>,
}

impl Lexer {
    /// A lexer at the start of `text`, which is the text of `file`.
    pub(crate) fn new(text: Rc<str>, file: FileId) -> Lexer {
        Lexer {
            text,
            file,
            pos: 0,
            line_start: true,
            space: false,
            saw_comment: false,
            spell: true,
            empty: Rc::from(""),
        }
    }

    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    fn span(&self, lo: usize, hi: usize) -> Span {
        Span::new(self.file, lo as u32, hi as u32)
    }

    /// `p` moved past any line splices that start there.
    fn splice(&self, mut p: usize) -> usize {
        let b = self.bytes();
        while b.get(p) == Some(&b'\\') {
            match (b.get(p + 1), b.get(p + 2)) {
                (Some(b'\n'), _) => p += 2,
                (Some(b'\r'), Some(b'\n')) => p += 3,
                _ => break,
            }
        }
        p
    }

    /// The byte at `p` once splices are removed, and the position after it.
    fn at(&self, p: usize) -> Option<(u8, usize)> {
        let q = self.splice(p);
        self.bytes().get(q).map(|&c| (c, q + 1))
    }

    /// Whether the end of the text has been reached (only whitespace and comments may have
    /// been left, and they are skipped by the next call anyway).
    fn at_end(&self) -> bool {
        self.splice(self.pos) >= self.bytes().len()
    }

    /// Skip whitespace and comments, noting newlines and spaces.
    fn skip_ws(&mut self, diags: &mut Diagnostics) {
        loop {
            let Some((c, next)) = self.at(self.pos) else {
                self.pos = self.bytes().len();
                return;
            };
            match c {
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.pos = next,
                b'\n' => {
                    self.pos = next;
                    self.line_start = true;
                }
                b'/' => match self.comment_end(self.pos, diags) {
                    Some(end) => self.pos = end,
                    None => return,
                },
                _ => return,
            }
            self.space = true;
        }
    }

    /// If a comment starts at `p`, the position after it (for `//`, the position of the
    /// newline that ends it). A comment is one space (phase 3): a newline inside `/* */`
    /// does not end a directive. An unterminated block comment is always an error (also in
    /// skipped groups, as in every C compiler).
    fn comment_end(&mut self, p: usize, diags: &mut Diagnostics) -> Option<usize> {
        let start = self.splice(p);
        let (b'/', next) = self.at(p)? else {
            return None;
        };
        let (kind, mut p) = self.at(next)?;
        match kind {
            b'/' => loop {
                match self.at(p) {
                    None => {
                        self.saw_comment = true;
                        return Some(self.bytes().len());
                    }
                    Some((b'\n', _)) => {
                        self.saw_comment = true;
                        return Some(self.splice(p));
                    }
                    Some((_, n)) => p = n,
                }
            },
            b'*' => {
                let mut star = false;
                self.saw_comment = true;
                loop {
                    match self.at(p) {
                        None => {
                            diags.push(Diagnostic::error(
                                self.span(start, start + 2),
                                "unterminated /* comment",
                            ));
                            return Some(self.bytes().len());
                        }
                        Some((b'/', n)) if star => return Some(n),
                        Some((c, n)) => {
                            star = c == b'*';
                            p = n;
                        }
                    }
                }
            }
            _ => None,
        }
    }

    /// Whether the current line has no more tokens (the next token starts a new line, or
    /// the text is over). Skips the whitespace and comments in between.
    pub(crate) fn at_line_end(&mut self, diags: &mut Diagnostics) -> bool {
        self.skip_ws(diags);
        self.line_start || self.at_end()
    }

    /// The text of `lo..hi` with line splices removed.
    fn spelling(&self, lo: usize, hi: usize) -> Rc<str> {
        let raw = &self.text[lo..hi];
        if !raw.contains('\\') {
            return Rc::from(raw);
        }
        let mut out = Vec::with_capacity(raw.len());
        let mut p = lo;
        while p < hi {
            let q = self.splice(p);
            if q >= hi {
                break;
            }
            out.push(self.bytes()[q]);
            p = q + 1;
        }
        // Splices are ASCII and never split a UTF-8 sequence, so the bytes stay valid.
        Rc::from(String::from_utf8_lossy(&out).as_ref())
    }

    fn token(&mut self, kind: PpKind, lo: usize, hi: usize) -> PpToken {
        PpToken {
            kind,
            text: if self.spell {
                self.spelling(lo, hi)
            } else {
                self.empty.clone()
            },
            span: self.span(lo, hi),
            expansion: None,
            space: std::mem::take(&mut self.space),
            line_start: std::mem::take(&mut self.line_start),
            no_expand: false,
        }
    }

    /// The next token. `report` says whether lexical errors (unterminated literals) are
    /// diagnosed: not in groups that `#if` skips. At the end of the text the token is
    /// [`PpKind::FileEnd`], every time it is asked for.
    pub(crate) fn next_token(&mut self, report: bool, diags: &mut Diagnostics) -> PpToken {
        self.skip_ws(diags);
        let lo = self.splice(self.pos);
        let Some((c, next)) = self.at(lo) else {
            let end = self.bytes().len();
            self.pos = end;
            return self.token(PpKind::FileEnd, end, end);
        };
        match c {
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let mut p = next;
                while let Some((c, n)) = self.at(p) {
                    if !(c.is_ascii_alphanumeric() || c == b'_') {
                        break;
                    }
                    p = n;
                }
                if let Some((q @ (b'"' | b'\''), n)) = self.at(p) {
                    let word = self.spelling(lo, p);
                    let prefix = matches!(&*word, "L" | "u" | "U") || (&*word == "u8" && q == b'"');
                    if prefix {
                        return self.quoted(q, lo, n, report, diags);
                    }
                }
                self.pos = p;
                self.token(PpKind::Ident, lo, p)
            }
            b'0'..=b'9' => self.number(lo, next),
            b'.' if matches!(self.at(next), Some((b'0'..=b'9', _))) => self.number(lo, next),
            b'"' | b'\'' => self.quoted(c, lo, next, report, diags),
            _ => {
                if let Some((punct, hi)) = self.punct(c, next) {
                    self.pos = hi;
                    return self.token(PpKind::Punct(punct), lo, hi);
                }
                // Anything else is a token of its own (C99 §6.4p1, last item); it is an error
                // only if it survives preprocessing. A non-ASCII character is taken whole.
                let len = self.text[lo..].chars().next().map_or(1, char::len_utf8);
                self.pos = lo + len;
                self.token(PpKind::Stray, lo, lo + len)
            }
        }
    }

    /// The next token's kind and span, without its spelling and without errors (for
    /// lines that a `#if` skips).
    pub(crate) fn skip_token(&mut self, diags: &mut Diagnostics) -> PpToken {
        self.spell = false;
        let tok = self.next_token(false, diags);
        self.spell = true;
        tok
    }

    /// A pp-number from `lo` (C99 §6.4.8): digits, letters, `_`, `.`, and a sign after
    /// `e`, `E`, `p` or `P`.
    fn number(&mut self, lo: usize, mut p: usize) -> PpToken {
        while let Some((c, n)) = self.at(p) {
            if matches!(c, b'e' | b'E' | b'p' | b'P') {
                if let Some((b'+' | b'-', n2)) = self.at(n) {
                    p = n2;
                    continue;
                }
            }
            if !(c.is_ascii_alphanumeric() || c == b'_' || c == b'.') {
                break;
            }
            p = n;
        }
        self.pos = p;
        self.token(PpKind::Number, lo, p)
    }

    /// A character constant or string literal whose opening quote `q` ends before `p`
    /// (after any prefix starting at `lo`).
    fn quoted(
        &mut self,
        q: u8,
        lo: usize,
        mut p: usize,
        report: bool,
        diags: &mut Diagnostics,
    ) -> PpToken {
        let kind = if q == b'"' { PpKind::Str } else { PpKind::Char };
        loop {
            match self.at(p) {
                Some((c, n)) if c == q => {
                    self.pos = n;
                    return self.token(kind, lo, n);
                }
                // An escape takes the next character, unless the line or text ends there.
                Some((b'\\', n)) => match self.at(n) {
                    Some((b'\n', _)) | None => p = n,
                    Some((_, n2)) => p = n2,
                },
                Some((b'\n', _)) | None => break,
                Some((_, n)) => p = n,
            }
        }
        // Unterminated: the token runs to the end of the line.
        let hi = self.splice(p).min(self.bytes().len());
        self.pos = hi;
        if report {
            let what = if q == b'"' { '"' } else { '\'' };
            diags.push(Diagnostic::error(
                self.span(lo, hi),
                format!("missing terminating {what} character"),
            ));
        }
        self.token(PpKind::Invalid, lo, hi)
    }

    /// The punctuator starting with `c` (`next` is the position after `c`), digraphs included,
    /// longest spelling first, and the position after it.
    fn punct(&self, c: u8, next: usize) -> Option<(Punct, usize)> {
        let c1 = self.at(next);
        let b1 = c1.map(|x| x.0);
        let after1 = c1.map_or(next, |x| x.1);
        let c2 = c1.and_then(|(_, n)| self.at(n));
        let b2 = c2.map(|x| x.0);
        let after2 = c2.map_or(after1, |x| x.1);
        let one = |p: Punct| Some((p, next));
        let two = |p: Punct| Some((p, after1));
        let three = |p: Punct| Some((p, after2));
        use Punct::*;
        match (c, b1) {
            (b'[', _) => one(LBracket),
            (b']', _) => one(RBracket),
            (b'(', _) => one(LParen),
            (b')', _) => one(RParen),
            (b'{', _) => one(LBrace),
            (b'}', _) => one(RBrace),
            (b'.', Some(b'.')) if b2 == Some(b'.') => three(Ellipsis),
            (b'.', _) => one(Dot),
            (b'-', Some(b'>')) => two(Arrow),
            (b'-', Some(b'-')) => two(MinusMinus),
            (b'-', Some(b'=')) => two(MinusAssign),
            (b'-', _) => one(Minus),
            (b'+', Some(b'+')) => two(PlusPlus),
            (b'+', Some(b'=')) => two(PlusAssign),
            (b'+', _) => one(Plus),
            (b'&', Some(b'&')) => two(AmpAmp),
            (b'&', Some(b'=')) => two(AmpAssign),
            (b'&', _) => one(Amp),
            (b'*', Some(b'=')) => two(StarAssign),
            (b'*', _) => one(Star),
            (b'~', _) => one(Tilde),
            (b'!', Some(b'=')) => two(Ne),
            (b'!', _) => one(Bang),
            (b'/', Some(b'=')) => two(SlashAssign),
            (b'/', _) => one(Slash),
            (b'%', Some(b'=')) => two(PercentAssign),
            (b'%', Some(b'>')) => two(RBrace),
            (b'%', Some(b':')) => {
                // `%:%:` is `##`; `%:%` followed by anything else is `#` then `%`.
                let c3 = c2.and_then(|(_, n)| self.at(n));
                if b2 == Some(b'%') && c3.map(|x| x.0) == Some(b':') {
                    Some((HashHash, c3.map_or(after2, |x| x.1)))
                } else {
                    two(Hash)
                }
            }
            (b'%', _) => one(Percent),
            (b'<', Some(b'<')) if b2 == Some(b'=') => three(ShlAssign),
            (b'<', Some(b'<')) => two(Shl),
            (b'<', Some(b'=')) => two(Le),
            (b'<', Some(b':')) => two(LBracket),
            (b'<', Some(b'%')) => two(LBrace),
            (b'<', _) => one(Lt),
            (b'>', Some(b'>')) if b2 == Some(b'=') => three(ShrAssign),
            (b'>', Some(b'>')) => two(Shr),
            (b'>', Some(b'=')) => two(Ge),
            (b'>', _) => one(Gt),
            (b'=', Some(b'=')) => two(EqEq),
            (b'=', _) => one(Assign),
            (b'^', Some(b'=')) => two(CaretAssign),
            (b'^', _) => one(Caret),
            (b'|', Some(b'|')) => two(PipePipe),
            (b'|', Some(b'=')) => two(PipeAssign),
            (b'|', _) => one(Pipe),
            (b'?', _) => one(Question),
            (b':', Some(b'>')) => two(RBracket),
            (b':', _) => one(Colon),
            (b';', _) => one(Semi),
            (b',', _) => one(Comma),
            (b'#', Some(b'#')) => two(HashHash),
            (b'#', _) => one(Hash),
            _ => None,
        }
    }

    /// After `#include`: a header name `<...>` or `"..."` on this line, as its text between
    /// the delimiters, whether it used angle brackets, and its span. `None` (nothing
    /// consumed but whitespace) when the line has something else, which is then
    /// macro-expanded.
    pub(crate) fn header_name(&mut self, diags: &mut Diagnostics) -> Option<(String, bool, Span)> {
        if self.at_line_end(diags) {
            return None;
        }
        let lo = self.splice(self.pos);
        let (open, mut p) = self.at(lo)?;
        let close = match open {
            b'<' => b'>',
            b'"' => b'"',
            _ => return None,
        };
        let mut name = Vec::new();
        loop {
            match self.at(p) {
                Some((c, n)) if c == close => {
                    self.pos = n;
                    self.space = false;
                    let name = String::from_utf8_lossy(&name).into_owned();
                    return Some((name, open == b'<', self.span(lo, n)));
                }
                Some((b'\n', _)) | None => return None,
                Some((c, n)) => {
                    name.push(c);
                    p = n;
                }
            }
        }
    }

    /// The rest of the line as written (splices removed, each comment replaced by a
    /// space, trimmed), for `#error` and `#warning`, whose text need not be tokens.
    pub(crate) fn rest_of_line(&mut self, diags: &mut Diagnostics) -> String {
        let mut out = Vec::new();
        loop {
            let Some((c, n)) = self.at(self.pos) else {
                self.pos = self.bytes().len();
                break;
            };
            if c == b'\n' {
                break;
            }
            match self.comment_end(self.pos, diags) {
                Some(end) => {
                    out.push(b' ');
                    self.pos = end;
                }
                None => {
                    out.push(c);
                    self.pos = n;
                }
            }
        }
        String::from_utf8_lossy(&out).trim().to_string()
    }

    /// Lex `text` as a whole: the kind of the single token it spells, or `None` when it is
    /// not exactly one token (the test `##` applies to what it pastes).
    pub(crate) fn single_token(text: &str) -> Option<PpKind> {
        let mut quiet = Diagnostics::new();
        let mut lexer = Lexer::new(Rc::from(text), FileId(0));
        let tok = lexer.next_token(false, &mut quiet);
        let ok = !lexer.saw_comment
            && !tok.space
            && lexer.at_end()
            && !matches!(tok.kind, PpKind::Invalid | PpKind::FileEnd);
        ok.then_some(tok.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(text: &str) -> (Vec<PpToken>, Diagnostics) {
        let mut diags = Diagnostics::new();
        let mut lexer = Lexer::new(Rc::from(text), FileId(0));
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token(true, &mut diags);
            if t.kind == PpKind::FileEnd {
                break;
            }
            out.push(t);
        }
        (out, diags)
    }

    fn texts(text: &str) -> Vec<String> {
        lex(text).0.iter().map(|t| t.text.to_string()).collect()
    }

    #[test]
    fn splices_join_tokens_and_comments() {
        assert_eq!(texts("in\\\nt x\\\r\n1"), ["int", "x1"]);
        assert_eq!(texts("a // c\\\n b\nc"), ["a", "c"]);
        assert_eq!(texts("a /* x\n */ b"), ["a", "b"]);
        let (toks, _) = lex("a /* x\n */ b\nc");
        assert!(!toks[0].space && toks[0].line_start);
        assert!(
            toks[1].space && !toks[1].line_start,
            "a comment is one space"
        );
        assert!(toks[2].line_start);
        // A splice inside a punctuator and a pp-number.
        let (toks, _) = lex("<\\\n<= 1e\\\n+5");
        assert_eq!(toks[0].kind, PpKind::Punct(Punct::ShlAssign));
        assert_eq!(&*toks[1].text, "1e+5");
        assert_eq!(toks[0].span, Span::new(FileId(0), 0, 5));
    }

    #[test]
    fn numbers_literals_and_digraphs() {
        assert_eq!(
            texts("0x1.8p-3f 1.2.3 .5 1e+5 0xe+1 12ul"),
            ["0x1.8p-3f", "1.2.3", ".5", "1e+5", "0xe+1", "12ul"]
        );
        let (toks, _) = lex("<: :> <% %> %: %:%: %:% L'x' u8\"s\" u8'c'");
        let kinds: Vec<_> = toks.iter().map(|t| t.kind).collect();
        use Punct::*;
        assert_eq!(
            kinds,
            [
                PpKind::Punct(LBracket),
                PpKind::Punct(RBracket),
                PpKind::Punct(LBrace),
                PpKind::Punct(RBrace),
                PpKind::Punct(Hash),
                PpKind::Punct(HashHash),
                PpKind::Punct(Hash),
                PpKind::Punct(Percent),
                PpKind::Char,
                PpKind::Str,
                PpKind::Ident,
                PpKind::Char,
            ]
        );
        assert_eq!(&*toks[8].text, "L'x'");
        assert_eq!(
            texts(r#""a\"b" '\'' "\\""#),
            [r#""a\"b""#, r"'\''", r#""\\""#]
        );
    }

    #[test]
    fn every_punctuator_lexes_to_itself() {
        for p in Punct::ALL {
            let (toks, diags) = lex(p.text());
            assert!(diags.is_empty());
            assert_eq!(toks.len(), 1, "{}", p.text());
            assert_eq!(toks[0].kind, PpKind::Punct(p));
        }
    }

    #[test]
    fn unterminated_things_are_located_errors() {
        let (toks, diags) = lex("x = \"abc\ny 'q\n/* open");
        assert_eq!(diags.list.len(), 3);
        assert_eq!(diags.list[0].message, "missing terminating \" character");
        assert_eq!(diags.list[0].span, Some(Span::new(FileId(0), 4, 8)));
        assert_eq!(diags.list[1].message, "missing terminating ' character");
        assert_eq!(diags.list[2].message, "unterminated /* comment");
        assert_eq!(toks[2].kind, PpKind::Invalid);
        assert_eq!(&*toks[3].text, "y");
    }

    #[test]
    fn stray_characters_are_tokens() {
        let (toks, diags) = lex("a @ \u{e9}\0`\\");
        assert!(diags.is_empty());
        let strays: Vec<_> = toks[1..].iter().map(|t| (t.kind, &*t.text)).collect();
        assert_eq!(
            strays,
            [
                (PpKind::Stray, "@"),
                (PpKind::Stray, "\u{e9}"),
                (PpKind::Stray, "\0"),
                (PpKind::Stray, "`"),
                (PpKind::Stray, "\\"),
            ]
        );
    }

    #[test]
    fn single_token_test_for_pasting() {
        assert_eq!(Lexer::single_token("ab"), Some(PpKind::Ident));
        assert_eq!(
            Lexer::single_token("+="),
            Some(PpKind::Punct(Punct::PlusAssign))
        );
        assert_eq!(Lexer::single_token("+-"), None);
        assert_eq!(Lexer::single_token("//"), None);
        assert_eq!(Lexer::single_token("/*"), None);
        assert_eq!(Lexer::single_token("\"a"), None);
        assert_eq!(Lexer::single_token("L\"a\""), Some(PpKind::Str));
    }

    #[test]
    fn header_names_and_raw_lines() {
        let mut diags = Diagnostics::new();
        let mut l = Lexer::new(
            Rc::from("#include <a\\b.h> x\n#include\"q.h\"\n"),
            FileId(0),
        );
        l.next_token(true, &mut diags);
        l.next_token(true, &mut diags);
        let (name, angled, span) = l.header_name(&mut diags).unwrap();
        assert_eq!((name.as_str(), angled), ("a\\b.h", true));
        assert_eq!(span, Span::new(FileId(0), 9, 16));
        assert_eq!(l.rest_of_line(&mut diags), "x");
        l.next_token(true, &mut diags);
        l.next_token(true, &mut diags);
        let (name, angled, _) = l.header_name(&mut diags).unwrap();
        assert_eq!((name.as_str(), angled), ("q.h", false));
        let mut l = Lexer::new(
            Rc::from("#error  don't /* c\n c */ stop\\\n here\nnext"),
            FileId(0),
        );
        l.next_token(true, &mut diags);
        l.next_token(true, &mut diags);
        assert_eq!(l.rest_of_line(&mut diags), "don't   stop here");
        assert!(diags.is_empty());
        assert_eq!(&*l.next_token(true, &mut diags).text, "next");
    }
}
