//! Planted bugs: an implementation that executes one instruction variant as another, to
//! show that the suite catches a wrong instruction and blames no other (the broken DUT of
//! `examples/broken_dut.rs` and the self-checking programs' tests).

use warpkit_isa::{decode, Instr, Op};

/// `code` with every instruction of variant `from` replaced by variant `to` with the same
/// operand fields; bytes that do not decode are kept. `None` when the two variants do not
/// share an operand layout (or a length).
pub fn replace_op(code: &[u8], from: Op, to: Op) -> Option<Vec<u8>> {
    let (f, t) = (from.def(), to.def());
    let same_fields = f.len() == t.len()
        && f.operands.len() == t.operands.len()
        && f.operands
            .iter()
            .zip(t.operands)
            .all(|(a, b)| a.field.width() == b.field.width() && a.kind.ty.class == b.kind.ty.class);
    if !same_fields {
        return None;
    }
    let mut out = Vec::with_capacity(code.len());
    let mut at = 0;
    while at < code.len() {
        match decode(&code[at..]) {
            Ok((ins, len)) => {
                if ins.op() == from {
                    let raw: Vec<u32> = (0..f.operands.len()).map(|k| ins.raw(k)).collect();
                    out.extend(Instr::from_raw(to, &raw).ok()?.to_bytes());
                } else {
                    out.extend(&code[at..at + len]);
                }
                at += len;
            }
            Err(_) => {
                let end = (at + 4).min(code.len());
                out.extend(&code[at..end]);
                at = end;
            }
        }
    }
    Some(out)
}
