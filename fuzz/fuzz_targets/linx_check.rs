//! `warpkit linx check` on arbitrary text and on programs built from the grammar (the first
//! byte chooses): every input is accepted or rejected with located diagnostics, never a
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Some((&kind, rest)) = bytes.split_first() else {
        return;
    };
    let src = if kind & 1 == 0 {
        warpkit_linx::gen::program_from_bytes(rest)
    } else {
        String::from_utf8_lossy(rest).into_owned()
    };
    match warpkit_linx::check("fuzz.s", &src) {
        Ok(p) => assert!(!p.body.is_empty()),
        Err(d) => {
            assert!(d.has_errors());
            let _ = d.render(&src);
        }
    }
});
