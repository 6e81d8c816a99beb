//! Arbitrary bytes: decode never panics, and whatever decodes re-encodes to its own word.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_isa::decode;

fuzz_target!(|bytes: &[u8]| {
    let mut at = 0;
    while at < bytes.len() {
        match decode(&bytes[at..]) {
            Ok((ins, len)) => {
                let mut word = [0u8; 8];
                word[..len].copy_from_slice(&bytes[at..at + len]);
                assert_eq!(ins.encode(), u64::from_le_bytes(word));
                let _ = ins.to_string();
                let _ = ins.reserved_operand();
                at += len;
            }
            Err(e) => {
                let _ = e.to_string();
                at += 4;
            }
        }
    }
});
