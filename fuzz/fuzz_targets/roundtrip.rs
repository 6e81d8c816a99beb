//! For any decodable instruction without a reserved operand, its canonical text assembles
//! back to the very same bytes: asm(dis(x)) == x.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpkit_asm::assemble;
use warpkit_isa::decode;

fuzz_target!(|bytes: &[u8]| {
    if let Ok((ins, len)) = decode(bytes) {
        if ins.reserved_operand().is_none() {
            let text = ins.to_string();
            let p = assemble(&text, "roundtrip.s")
                .unwrap_or_else(|e| panic!("`{text}` does not reassemble: {}", e.render(&text)));
            assert_eq!(p.text, bytes[..len], "`{text}`");
        }
    }
});
