//! Encode/decode laws over every variant of the database.

use proptest::prelude::*;
use warpkit_isa::*;

/// A random legal raw value for each operand of `op`.
fn raw_operands(op: Op) -> impl Strategy<Value = Vec<u32>> {
    let fields: Vec<_> = op
        .def()
        .operands
        .iter()
        .map(|o| {
            let w = o.field.width();
            let max = if w >= 32 { u32::MAX } else { (1u32 << w) - 1 };
            prop_oneof![Just(0u32), Just(max), 0..=max]
        })
        .collect();
    fields
}

fn any_op() -> impl Strategy<Value = Op> {
    (0..OP_COUNT).prop_map(|i| Op::from_index(i).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn encode_then_decode_is_identity((op, raw) in any_op().prop_flat_map(|op| (Just(op), raw_operands(op)))) {
        let ins = Instr::from_raw(op, &raw).unwrap();
        let bytes = ins.to_bytes();
        prop_assert_eq!(bytes.len(), usize::from(op.def().width / 8));
        let (back, len) = decode(&bytes).unwrap();
        prop_assert_eq!(len, bytes.len());
        prop_assert_eq!(back, ins);
    }

    #[test]
    fn random_words_decode_to_at_most_one_instruction(w in any::<u64>()) {
        let bytes = w.to_le_bytes();
        if let Ok((ins, len)) = decode(&bytes) {
            let word = if len == 4 { w & 0xffff_ffff } else { w };
            let matching: Vec<_> = INSTRUCTIONS
                .iter()
                .filter(|d| usize::from(d.width / 8) == len && (word & (d.mask | d.zero)) == d.match_bits)
                .collect();
            prop_assert_eq!(matching.len(), 1);
            prop_assert_eq!(matching[0].op, ins.op());
            prop_assert_eq!(ins.encode(), word);
        }
    }

    #[test]
    fn typed_operands_round_trip((op, raw) in any_op().prop_flat_map(|op| (Just(op), raw_operands(op)))) {
        let ins = Instr::from_raw(op, &raw).unwrap();
        let typed: Vec<Operand> = ins.operands().collect();
        let again = Instr::new(op, &typed);
        // Register groups whose raw value runs past the file still encode; only the value
        // range of immediates can reject here, and every raw value is in range.
        prop_assert_eq!(again.unwrap(), ins);
    }
}

#[test]
fn every_must_be_zero_bit_is_checked() {
    for def in INSTRUCTIONS.iter() {
        let base = def.match_bits;
        assert!(decode_word(base, def.width).is_ok(), "{}", def.mnemonic);
        for bit in 0..def.width {
            let m = 1u64 << bit;
            if def.zero & m != 0 {
                let err = decode_word(base | m, def.width).unwrap_err();
                assert!(
                    matches!(err, DecodeError::ReservedBits { op, .. } if op == def.op),
                    "{}: bit {bit}: {err}",
                    def.mnemonic
                );
            }
        }
    }
}

#[test]
fn length_bits_follow_section_2_1() {
    assert_eq!(instruction_len(0b00), Ok(4));
    assert_eq!(instruction_len(0b10), Ok(4));
    assert_eq!(instruction_len(0b01), Ok(8));
    assert!(matches!(
        instruction_len(0b11),
        Err(DecodeError::ReservedLength { .. })
    ));
    assert!(matches!(
        decode(&[0x01, 0, 0, 0]),
        Err(DecodeError::Truncated {
            needed: 8,
            available: 4
        })
    ));
    assert!(matches!(
        decode(&[0x02, 0]),
        Err(DecodeError::Truncated {
            needed: 4,
            available: 2
        })
    ));
}

#[test]
fn group_one_has_241_variants_in_ten_subgroups() {
    let g1: Vec<_> = INSTRUCTIONS.iter().filter(|d| d.group == 1).collect();
    assert_eq!(g1.len(), 241);
    assert!(g1.iter().all(|d| !d.provisional));
    assert_eq!(
        SUBGROUPS
            .iter()
            .filter(|s| GROUPS[s.group as usize].group == 1)
            .count(),
        10
    );
    assert_eq!(FORMATS.len(), 28);
    assert!(INSTRUCTIONS
        .iter()
        .filter(|d| d.group != 1)
        .all(|d| d.provisional));
}

#[test]
fn known_encodings() {
    // add v1, v2, v3: R, opcode=0x2, f4=0: rs2[27:21]=3 rs1[20:14]=2 rd[13:7]=1
    let add = Instr::new(
        Op::Add,
        &[
            Operand::V(VReg(1)),
            Operand::V(VReg(2)),
            Operand::V(VReg(3)),
        ],
    )
    .unwrap();
    assert_eq!(add.encode(), (3 << 21) | (2 << 14) | (1 << 7) | 0x2);
    assert_eq!(add.to_string(), "add v1, v2, v3");
    // jmp -8: J, imm[31:10] = -2 (scale 4)
    let jmp = Instr::new(Op::Jmp, &[Operand::Imm(-8)]).unwrap();
    assert_eq!(jmp.encode(), ((-2i64 as u64 & 0x3f_ffff) << 10) | 0x46);
    assert_eq!(jmp.to_string(), "jmp -8");
    // mov.vl v0, 0x3fc00000: XL, 64-bit, imm[63:32]
    let mov = Instr::new(Op::MovVl, &[Operand::V(VReg(0)), Operand::Imm(0x3fc0_0000)]).unwrap();
    assert_eq!(mov.encode(), (0x3fc0_0000u64 << 32) | 0x5);
    assert_eq!(mov.to_bytes(), vec![0x05, 0, 0, 0, 0, 0, 0xc0, 0x3f]);
    assert_eq!(mov.to_string(), "mov.vl v0, 0x3fc00000");
    // add64 v[4:5], v[6:7], v[8:9]
    let a64 = Instr::new(
        Op::Add64,
        &[
            Operand::VGroup {
                first: VReg(4),
                count: 2,
            },
            Operand::VGroup {
                first: VReg(6),
                count: 2,
            },
            Operand::VGroup {
                first: VReg(8),
                count: 2,
            },
        ],
    )
    .unwrap();
    assert_eq!(a64.to_string(), "add64 v[4:5], v[6:7], v[8:9]");
    assert_eq!(a64.reserved_operand(), None);
    // An odd pair decodes faithfully and is reported as reserved.
    let odd = decode_word(a64.encode() + (1 << 7), 32).unwrap();
    assert_eq!(odd.to_string(), "add64 v[5:6], v[6:7], v[8:9]");
    assert!(matches!(
        odd.reserved_operand(),
        Some(Reserved::Misaligned {
            operand: "rd",
            first: 5,
            align: 2
        })
    ));
    // laneid's unused rs1 slot must be zero.
    let laneid = Instr::new(Op::Laneid, &[Operand::V(VReg(9))]).unwrap();
    assert!(matches!(
        decode_word(laneid.encode() | (1 << 14), 32),
        Err(DecodeError::ReservedBits { .. })
    ));
    // waitcnt prints only the fields that wait.
    let w = Instr::from_raw(Op::Waitcnt, &[0, 31, 31, 15, 0, 7]).unwrap();
    assert_eq!(w.to_string(), "waitcnt vm=0, sm=0");
}

#[test]
fn mixed_stream_holds_every_variant_and_decodes_whole() {
    let bytes = mixed_stream(OP_COUNT);
    let mut at = 0;
    let mut seen = Vec::new();
    while at < bytes.len() {
        let (ins, len) = decode(&bytes[at..]).unwrap();
        seen.push(ins.op());
        at += len;
    }
    assert_eq!(seen, ALL_OPS.to_vec());
}
