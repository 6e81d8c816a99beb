//! Tokens: what the preprocessor hands to the parser. Keywords are identifiers here; the
//! parser tells them apart (the preprocessor must not: `#define int long` is legal).

use crate::source::{ExpnId, Span};

/// A punctuator of C99 §6.4.6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Punct {
    LBracket,
    RBracket,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Dot,
    Arrow,
    PlusPlus,
    MinusMinus,
    Amp,
    Star,
    Plus,
    Minus,
    Tilde,
    Bang,
    Slash,
    Percent,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    Ne,
    Caret,
    Pipe,
    AmpAmp,
    PipePipe,
    Question,
    Colon,
    Semi,
    Ellipsis,
    Assign,
    StarAssign,
    SlashAssign,
    PercentAssign,
    PlusAssign,
    MinusAssign,
    ShlAssign,
    ShrAssign,
    AmpAssign,
    CaretAssign,
    PipeAssign,
    Comma,
    Hash,
    HashHash,
}

impl Punct {
    /// Every punctuator, longest spellings first (the order a lexer tries them in).
    pub const ALL: [Punct; 48] = [
        Punct::Ellipsis,
        Punct::ShlAssign,
        Punct::ShrAssign,
        Punct::Arrow,
        Punct::PlusPlus,
        Punct::MinusMinus,
        Punct::Shl,
        Punct::Shr,
        Punct::Le,
        Punct::Ge,
        Punct::EqEq,
        Punct::Ne,
        Punct::AmpAmp,
        Punct::PipePipe,
        Punct::StarAssign,
        Punct::SlashAssign,
        Punct::PercentAssign,
        Punct::PlusAssign,
        Punct::MinusAssign,
        Punct::AmpAssign,
        Punct::CaretAssign,
        Punct::PipeAssign,
        Punct::HashHash,
        Punct::LBracket,
        Punct::RBracket,
        Punct::LParen,
        Punct::RParen,
        Punct::LBrace,
        Punct::RBrace,
        Punct::Dot,
        Punct::Amp,
        Punct::Star,
        Punct::Plus,
        Punct::Minus,
        Punct::Tilde,
        Punct::Bang,
        Punct::Slash,
        Punct::Percent,
        Punct::Lt,
        Punct::Gt,
        Punct::Caret,
        Punct::Pipe,
        Punct::Question,
        Punct::Colon,
        Punct::Semi,
        Punct::Assign,
        Punct::Comma,
        Punct::Hash,
    ];

    /// How it is spelled.
    pub const fn text(self) -> &'static str {
        match self {
            Punct::LBracket => "[",
            Punct::RBracket => "]",
            Punct::LParen => "(",
            Punct::RParen => ")",
            Punct::LBrace => "{",
            Punct::RBrace => "}",
            Punct::Dot => ".",
            Punct::Arrow => "->",
            Punct::PlusPlus => "++",
            Punct::MinusMinus => "--",
            Punct::Amp => "&",
            Punct::Star => "*",
            Punct::Plus => "+",
            Punct::Minus => "-",
            Punct::Tilde => "~",
            Punct::Bang => "!",
            Punct::Slash => "/",
            Punct::Percent => "%",
            Punct::Shl => "<<",
            Punct::Shr => ">>",
            Punct::Lt => "<",
            Punct::Gt => ">",
            Punct::Le => "<=",
            Punct::Ge => ">=",
            Punct::EqEq => "==",
            Punct::Ne => "!=",
            Punct::Caret => "^",
            Punct::Pipe => "|",
            Punct::AmpAmp => "&&",
            Punct::PipePipe => "||",
            Punct::Question => "?",
            Punct::Colon => ":",
            Punct::Semi => ";",
            Punct::Ellipsis => "...",
            Punct::Assign => "=",
            Punct::StarAssign => "*=",
            Punct::SlashAssign => "/=",
            Punct::PercentAssign => "%=",
            Punct::PlusAssign => "+=",
            Punct::MinusAssign => "-=",
            Punct::ShlAssign => "<<=",
            Punct::ShrAssign => ">>=",
            Punct::AmpAssign => "&=",
            Punct::CaretAssign => "^=",
            Punct::PipeAssign => "|=",
            Punct::Comma => ",",
            Punct::Hash => "#",
            Punct::HashHash => "##",
        }
    }
}

/// What a token is. Literals keep their spelling; the parser interprets it (value, suffix,
/// escapes), so `#`-stringizing and diagnostics see the text as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenKind {
    /// An identifier or keyword.
    Ident,
    /// A preprocessing number that is an integer constant (`42`, `0x1fu`, `10UL`).
    Int,
    /// A preprocessing number that is a floating constant (`1.5f`, `2e-3`, `0x1p4`, `1.0h`).
    Float,
    /// A character constant (`'a'`, `'\n'`).
    Char,
    /// A string literal (`"abc"`).
    Str,
    /// A punctuator.
    Punct(Punct),
    /// End of the token stream.
    Eof,
}

/// One token after preprocessing.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// Its kind.
    pub kind: TokenKind,
    /// Its spelling (for an identifier, the name; for a literal, the literal as written;
    /// for a punctuator, its text).
    pub text: String,
    /// Where the spelling is: in the file it was written in (for a token from a macro body,
    /// the macro definition; for a pasted or stringized token, the invocation).
    pub span: Span,
    /// The macro expansion it came out of, if any.
    pub expansion: Option<ExpnId>,
}

impl Token {
    /// Whether this is punctuator `p`.
    pub fn is(&self, p: Punct) -> bool {
        self.kind == TokenKind::Punct(p)
    }

    /// Whether this is the identifier (or keyword) `name`.
    pub fn is_ident(&self, name: &str) -> bool {
        self.kind == TokenKind::Ident && self.text == name
    }
}
