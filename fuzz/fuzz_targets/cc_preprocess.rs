//! The OpenCL C preprocessor on arbitrary bytes (as lossy UTF-8): it answers with tokens
//! ending in one `Eof` and diagnostics that are all located and render, never a panic, a
//! hang or unbounded memory (expansion and inclusion are capped).
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_cc::diag::Diagnostics;
use warpkit_cc::pp::{preprocess, Options};
use warpkit_cc::source::SourceMap;
use warpkit_cc::token::TokenKind;

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    let mut sources = SourceMap::new();
    // A name in no directory: `#include "..."` finds nothing next to it.
    let main = sources.add_file("/nonexistent-warpkit-fuzz/fuzz.cl", text, false);
    let mut diags = Diagnostics::new();
    let opts = Options {
        defines: vec![("FUZZ".into(), Some("1".into()))],
        ..Options::default()
    };
    let tokens = preprocess(&mut sources, main, &opts, &mut diags);
    assert_eq!(tokens.last().map(|t| &t.kind), Some(&TokenKind::Eof));
    assert_eq!(
        tokens.iter().filter(|t| t.kind == TokenKind::Eof).count(),
        1
    );
    for t in &tokens {
        let file = sources.file(t.span.file);
        assert!(t.span.lo <= t.span.hi && t.span.hi as usize <= file.text.len());
        if let Some(e) = t.expansion {
            let _ = sources.expansion(e);
        }
    }
    for d in &diags.list {
        assert!(d.span.is_some_and(|s| !s.is_dummy()), "{}", d.message);
    }
    let _ = diags.render(&sources);
});
