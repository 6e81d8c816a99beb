//! Every variant written in every accepted spelling (decimal, hex, negative and unsigned
//! `k32`, fp32 literals, enum names and numbers, keyed and omitted operands, odd case),
//! checked against the encoder of warpkit-isa.

use warpkit_asm::assemble;
use warpkit_isa::{Instr, OperandClass, INSTRUCTIONS};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

fn spell_int(rng: &mut Rng, v: i64) -> String {
    match rng.below(3) {
        0 => format!("{v}"),
        1 if v < 0 => format!("-{:#x}", v.unsigned_abs()),
        1 => format!("{v:#x}"),
        _ => format!("#{v}"),
    }
}

/// One operand's text and raw value, or `None` to leave a defaulted operand out.
fn operand(rng: &mut Rng, o: &warpkit_isa::OperandDef) -> (Option<String>, u32) {
    let kind = o.kind;
    let ty = kind.ty;
    let regs = u32::from(kind.regs);
    let align = u32::from(ty.align.max(1));
    if let Some(d) = kind.default {
        if rng.below(3) == 0 {
            return (None, d);
        }
    }
    let text_raw = match ty.class {
        OperandClass::VReg | OperandClass::UReg => {
            let p = if ty.class == OperandClass::VReg {
                'v'
            } else {
                'u'
            };
            if ty.half {
                let n = rng.below(128) as u32;
                let h = rng.below(2) as u32;
                (
                    format!("{p}{n}.{}", if h == 1 { 'h' } else { 'l' }),
                    (n << 1) | h,
                )
            } else {
                let file = 1u32 << ty.bits;
                if regs == 1 {
                    let r = rng.below(u64::from(file)) as u32;
                    let n = rng.pick(&[0, file - 1, r]);
                    (
                        format!(
                            "{}{n}",
                            if rng.below(4) == 0 {
                                p.to_ascii_uppercase()
                            } else {
                                p
                            }
                        ),
                        n,
                    )
                } else {
                    let slots = (file - regs) / align + 1;
                    let a = rng.below(u64::from(slots)) as u32 * align;
                    (format!("{p}[{a}:{}]", a + regs - 1), a)
                }
            }
        }
        OperandClass::Enum => loop {
            let max = (1u64 << ty.bits) - 1;
            let v = rng.below(max + 1) as u32;
            if ty.is_reserved(v) {
                continue;
            }
            break match ty.value_name(v) {
                Some(name) if rng.below(2) == 0 => (name.to_string(), v),
                _ => (spell_int(rng, i64::from(v)), v),
            };
        },
        OperandClass::Imm => {
            let r = rng.next() as u32;
            let v = rng.pick(&[0u32, u32::MAX, 0x8000_0000, 0x7fff_ffff, r]);
            match rng.below(5) {
                0 => (format!("{}", v as i32), v),
                1 => (format!("{v}"), v),
                2 => (format!("{v:#x}"), v),
                3 => (format!("{:#X}", v).replace("0X", "0x"), v),
                _ => {
                    let f = f32::from_bits(v);
                    if f.is_finite() {
                        (format!("{f:?}"), v)
                    } else {
                        (format!("{v:#x}"), v)
                    }
                }
            }
        }
        OperandClass::SImm | OperandClass::UImm => loop {
            let (lo, hi) = ty.value_range();
            let scale = i64::from(ty.scale.max(1));
            let r = lo + (rng.below((hi - lo) as u64 + 1) as i64);
            let v = rng.pick(&[lo, hi, 0, r]);
            let v = v - v.rem_euclid(scale);
            if v < lo {
                continue;
            }
            let raw = ((v / scale) as u64 & ((1u64 << ty.bits) - 1)) as u32;
            if ty.is_reserved(raw) {
                continue;
            }
            break (spell_int(rng, v), raw);
        },
    };
    (Some(text_raw.0), text_raw.1)
}

#[test]
fn every_variant_in_every_spelling() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for def in INSTRUCTIONS.iter() {
        // Modifier syntax (`-|v2|`, `sat rm=rtz`) has its own test below.
        if def.operands.iter().any(|o| o.kind.is_modifier()) {
            continue;
        }
        for _ in 0..40 {
            let mut raw = Vec::new();
            let mut positional = Vec::new();
            let mut keyed = Vec::new();
            for o in def.operands {
                let (text, v) = operand(&mut rng, o);
                raw.push(v);
                match (text, o.kind.keyed) {
                    (Some(t), true) => keyed.push(format!("{}={t}", o.name)),
                    (Some(t), false) => positional.push(t),
                    (None, _) => {}
                }
            }
            // Only trailing optional operands may be left out: put back the others.
            let mut texts = Vec::new();
            let mut pi = 0;
            let npos = def.operands.iter().filter(|o| !o.kind.keyed).count();
            let given_pos = positional.len();
            for o in def.operands.iter().filter(|o| !o.kind.keyed) {
                if o.kind.optional && given_pos < npos && pi >= given_pos {
                    break;
                }
                if pi < positional.len() {
                    texts.push(positional[pi].clone());
                    pi += 1;
                }
            }
            if given_pos < npos {
                // Recompute raw: the omitted optional ones take their default.
                let mut seen = 0;
                for (i, o) in def.operands.iter().enumerate() {
                    if !o.kind.keyed {
                        if seen >= texts.len() {
                            raw[i] = o.kind.default.unwrap_or(0);
                        }
                        seen += 1;
                    }
                }
            }
            // Keyed operands may come in any order.
            if rng.below(2) == 0 {
                keyed.reverse();
            }
            texts.extend(keyed);
            let mnemonic = if rng.below(5) == 0 {
                def.mnemonic.to_ascii_uppercase()
            } else {
                def.mnemonic.to_string()
            };
            let line = if texts.is_empty() {
                mnemonic
            } else {
                format!("{mnemonic} {}", texts.join(", "))
            };
            let expected = Instr::from_raw(def.op, &raw).unwrap().to_bytes();
            let got = match assemble(&line, "s.s") {
                Ok(p) => p.text,
                Err(e) => panic!("{}", e.render(&line)),
            };
            assert_eq!(got, expected, "{line}");
        }
    }
}

fn bytes(src: &str) -> Vec<u8> {
    match assemble(src, "t.s") {
        Ok(p) => p.text,
        Err(e) => panic!("{}", e.render(src)),
    }
}

#[test]
fn labels_expressions_and_directives() {
    // Forward and backward labels give byte offsets from the branch itself.
    let a = bytes("top: nop\n bz u1, top\n bz u1, bottom\n nop\nbottom: endpgm\n");
    let b = bytes("nop\n bz u1, -4\n bz u1, 8\n nop\n endpgm\n");
    assert_eq!(a, b);
    // Expressions, .equ/.set (forward too), label differences, `.`.
    let a = bytes(
        ".equ N, 3\n.set M, later - start\nstart: add.vi v1, v2, (N + 1) * 2 - ~0 << 1\n add.vi v1, v2, M\nlater: add.vi v1, v2, . - start\n add.vi v1, v2, 0x10 | 0b1 & 3 ^ 2\n",
    );
    let b = bytes("add.vi v1, v2, 18\n add.vi v1, v2, 8\n add.vi v1, v2, 8\n add.vi v1, v2, 19\n");
    assert_eq!(a, b);
    // k32: signed, unsigned, hex, fp32.
    let a = bytes("mov.vl v1, -1\nmov.vl v1, 4294967295\nmov.vl v1, 0xffffffff\nmov.vl v1, -2.0e-3\nmov.vl v1, 1.5\n");
    let words: Vec<u32> = a
        .chunks(8)
        .map(|c| u32::from_le_bytes([c[4], c[5], c[6], c[7]]))
        .collect();
    assert_eq!(
        words,
        vec![
            u32::MAX,
            u32::MAX,
            u32::MAX,
            (-2.0e-3f32).to_bits(),
            1.5f32.to_bits()
        ]
    );
    // Data directives and alignment; sections; globals.
    let p = assemble(
        ".data\n.byte 1, -1, 255\n.align 4\n.half 0x1234, -2\n.word 0xdeadbeef\n.dword -1, 0xffffffffffffffff\n.balign 8\n.p2align 4\n.space 3\n.zero 1\nd: .word 1.5\n.section .text\n.globl go\ngo: endpgm\n.global d\n",
        "t.s",
    )
    .unwrap();
    let mut want = vec![1u8, 0xff, 0xff, 0];
    want.extend_from_slice(&[0x34, 0x12, 0xfe, 0xff]);
    want.extend_from_slice(&0xdeadbeefu32.to_le_bytes());
    want.extend_from_slice(&[0xff; 16]);
    want.extend_from_slice(&[0; 4]);
    want.extend_from_slice(&[0; 4]);
    want.extend_from_slice(&1.5f32.to_bits().to_le_bytes());
    assert_eq!(p.data, want);
    assert_eq!(
        p.symbol("d").map(|s| (s.offset, s.global)),
        Some((36, true))
    );
    assert_eq!(p.symbol("go").map(|s| s.global), Some(true));
    assert!(!p.text.is_empty());
    // Comments of every kind; `#` as an immediate marker.
    assert_eq!(
        bytes("add.vi v1, v2, #5 // c\n; whole line\n# whole line\nadd.vi v1, v2, 5 # c\n"),
        bytes("add.vi v1, v2, 5\nadd.vi v1, v2, 5\n")
    );
}

#[test]
fn bom_crlf_tabs_and_tight_spacing() {
    let a = bytes("\u{feff}start:\r\n\tadd v1,v2,v3\r\n  lbl:  lbl2:add.vi v1 , v2 , -0x80 ; x\r\n\tbz u1,start\r\n");
    let b = bytes("add v1, v2, v3\nadd.vi v1, v2, -128\nbz u1, -8\n");
    assert_eq!(a, b);
}

#[test]
fn directive_aliases_and_section_switches() {
    let a = assemble(
        ".data\n.hword 1\n.short 2\n.long 3\n.int 4\n.quad 5\n.skip 2\n.text\nnop\n.section data\n.byte 9\n.section .text, \"ax\"\nendpgm\n",
        "a.s",
    )
    .unwrap();
    let b = assemble(
        ".data\n.half 1, 2\n.word 3, 4\n.dword 5\n.space 2\n.byte 9\n.text\nnop\nendpgm\n",
        "b.s",
    )
    .unwrap();
    assert_eq!((a.text, a.data), (b.text, b.data));
}

/// Source and result modifiers: accepted spellings and the canonical text they give.
#[test]
fn floating_point_modifiers() {
    let cases = [
        (
            "ffma.f32 v1, -|v2|, v3, v4 sat rm=rtz",
            "ffma.f32 v1, -|v2|, v3, v4 sat rm=rtz",
        ),
        (
            "ffma.f32 v1,-|v2|,v3,v4  rm=rtz   sat",
            "ffma.f32 v1, -|v2|, v3, v4 sat rm=rtz",
        ),
        ("fadd.f32 v1, v2, v3 rm=dyn", "fadd.f32 v1, v2, v3"),
        ("fadd.f32 v1, v2, v3, rm=rup", "fadd.f32 v1, v2, v3 rm=rup"),
        (
            "FADD.F32 v1, -v2, -v3 RM=RNE",
            "fadd.f32 v1, -v2, -v3 rm=rne",
        ),
        (
            "fsub.f64 v[2:3], |v[4:5]|, -v[6:7] rm=rmm",
            "fsub.f64 v[2:3], |v[4:5]|, -v[6:7] rm=rmm",
        ),
        (
            "fmul.f16 v1.h, -v2.l, |v3.h| sat",
            "fmul.f16 v1.h, -v2.l, |v3.h| sat",
        ),
        (
            "cvt.f16.f32 v1.h, -v2 rm=rtz",
            "cvt.f16.f32 v1.h, -v2 rm=rtz",
        ),
        ("fadd.f32 v1, v2, v3 neg=4", "fadd.f32 v1, v2, v3 neg=4"),
        ("fadd.f32 v1, -v2, v3 neg=4", "fadd.f32 v1, -v2, v3 neg=5"),
        ("fcmp.lt.f16 u1, v2.l, v3.h", "fcmp.lt.f16 u1, v2.l, v3.h"),
        ("fsin.f32 v1, -v2 sat", "fsin.f32 v1, -v2 sat"),
    ];
    for (text, canonical) in cases {
        let bytes = match assemble(text, "fp.s") {
            Ok(p) => p.text,
            Err(e) => panic!("{}", e.render(text)),
        };
        let (ins, _) = warpkit_isa::decode(&bytes).unwrap();
        assert_eq!(ins.to_string(), canonical, "from `{text}`");
        let again = assemble(canonical, "fp.s").unwrap().text;
        assert_eq!(again, bytes, "`{canonical}` round trip");
    }
}
