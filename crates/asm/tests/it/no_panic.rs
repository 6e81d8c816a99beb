//! Arbitrary input never panics the assembler, and every diagnostic renders.

use proptest::prelude::*;
use warpkit_asm::{assemble, assemble_bytes};

const CHARSET: &[u8] =
    b"abcdefghijklmnopqrstuvwxyzVU0123456789 \t,.:#;/[]()+-*<>&|^~=_$\n\r\"'@%\\";

const WORDS: &[&str] = &[
    "add",
    "add.vi",
    "mov64",
    "waitcnt",
    "bz",
    "jmp",
    "mov.vl",
    "gload.u8.a64",
    "csrr",
    "v1",
    "v[4:5]",
    "u[0:1]",
    "v5.h",
    "u63",
    "v128",
    "vm=",
    "0x",
    "-",
    "1.5",
    "label:",
    "label",
    ".word",
    ".dword",
    ".byte",
    ".align",
    ".equ",
    ".set",
    ".global",
    ".data",
    ".text",
    ".space",
    ".",
    ",",
    "(",
    ")",
    "<<",
    "#",
    "//",
    ";",
    "\n",
    " ",
    "0xffffffff",
    "-2147483648",
    "nt",
    "cpol",
    "fflags",
    "1e40",
    "99999999999999999999999",
    ".macro m a, b=1\n",
    ".macro",
    ".endm\n",
    "m v1, 2\n",
    "m",
    "\\a",
    "\\@",
    "\\()",
    ".rept 3\n",
    ".rept",
    ".endr\n",
    ".include \"nowhere.s\"\n",
    "1:",
    "1b",
    "2f",
    ".L1:",
    ".ascii \"a\\n\"",
    ".asciz",
    "\"",
    ".section .rodata,\"a\",@progbits\n",
    ".section .note.GNU-stack,\"\",@progbits\n",
    ".type",
    "@function",
    ".size",
    ".cfi_startproc",
    ".loc 1 2 3",
    ".p2align 4,,15",
    "/",
    "%",
    "/ 0",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_characters(bytes in proptest::collection::vec(proptest::sample::select(CHARSET), 0..300)) {
        let src = String::from_utf8(bytes).unwrap();
        if let Err(e) = assemble(&src, "f.s") {
            let _ = e.render(&src);
        }
    }

    #[test]
    fn random_tokens(words in proptest::collection::vec(proptest::sample::select(WORDS), 0..60)) {
        let src = words.join(" ");
        if let Err(e) = assemble(&src, "f.s") {
            let text = e.render(&src);
            prop_assert!(text.contains("f.s:"));
        }
    }

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        if let Err(e) = assemble_bytes(&bytes, "f.s") {
            let _ = e.render(&String::from_utf8_lossy(&bytes));
        }
    }

    #[test]
    fn random_unicode(chars in proptest::collection::vec(any::<char>(), 0..100)) {
        let src: String = chars.into_iter().collect();
        if let Err(e) = assemble(&src, "f.s") {
            let _ = e.render(&src);
        }
    }
}
