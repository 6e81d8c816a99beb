//! Round trips over every variant of the database: bytes → plain text → bytes, and
//! canonical text → bytes → canonical text.

use proptest::prelude::*;
use warpkit_asm::{assemble, disassemble, DisOptions};
use warpkit_isa::{Instr, Op, INSTRUCTIONS, OP_COUNT};

const PLAIN: DisOptions = DisOptions { plain: true };

fn raw_operands(op: Op) -> impl Strategy<Value = Vec<u32>> {
    let fields: Vec<_> = op
        .def()
        .operands
        .iter()
        .map(|o| {
            let w = o.field.width();
            let max = if w >= 32 { u32::MAX } else { (1u32 << w) - 1 };
            prop_oneof![
                Just(0u32),
                Just(max),
                Just(max / 2),
                Just(max / 2 + 1),
                0..=max
            ]
        })
        .collect();
    fields
}

fn any_instr() -> impl Strategy<Value = Instr> {
    (0..OP_COUNT)
        .prop_map(|i| Op::from_index(i).unwrap())
        .prop_flat_map(|op| (Just(op), raw_operands(op)))
        .prop_map(|(op, raw)| Instr::from_raw(op, &raw).unwrap())
}

fn asm_ok(text: &str) -> Vec<u8> {
    match assemble(text, "rt.s") {
        Ok(p) => p.text,
        Err(e) => panic!("{}\n--- source:\n{text}", e.render(text)),
    }
}

fn check(ins: Instr) {
    let bytes = ins.to_bytes();
    let text = disassemble(&bytes, 0, &PLAIN);
    assert_eq!(asm_ok(&text), bytes, "plain text `{}`", text.trim());
    if ins.reserved_operand().is_none() {
        // Legal operands: the plain text is the canonical text, and it assembles back.
        assert_eq!(text.trim_end(), ins.to_string());
        let again = asm_ok(&ins.to_string());
        assert_eq!(disassemble(&again, 0, &PLAIN).trim_end(), ins.to_string());
    } else {
        assert!(
            text.starts_with(".word") || text.starts_with(".dword"),
            "{text}"
        );
    }
}

#[test]
fn every_variant_at_its_extremes() {
    for def in INSTRUCTIONS.iter() {
        let widths: Vec<u32> = def.operands.iter().map(|o| o.field.width()).collect();
        let all = |f: &dyn Fn(u32) -> u32| -> Vec<u32> { widths.iter().map(|&w| f(w)).collect() };
        let max = |w: u32| if w >= 32 { u32::MAX } else { (1 << w) - 1 };
        for raw in [
            all(&|_| 0),
            all(&max),
            all(&|w| max(w) / 2),
            all(&|w| max(w) / 2 + 1),
            all(&|w| 1.min(max(w))),
        ] {
            check(Instr::from_raw(def.op, &raw).unwrap());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    #[test]
    fn random_instructions_round_trip(ins in any_instr()) {
        check(ins);
    }

    #[test]
    fn random_bytes_round_trip_through_plain_text(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let text = disassemble(&bytes, 0, &PLAIN);
        if bytes.is_empty() {
            prop_assert_eq!(text, "");
        } else {
            prop_assert_eq!(asm_ok(&text), bytes.clone());
        }
        // The objdump form never panics either.
        let _ = disassemble(&bytes, 0x40, &DisOptions::default());
    }
}
