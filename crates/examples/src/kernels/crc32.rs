use super::common::*;
use crate::{Case, Size, StageArg};

pub(super) fn case(size: Size) -> Case {
    let (records, payload_words, hdr): (u32, u32, u32) = match size {
        Size::Small => (300, 5, 3),
        Size::Full => (65536, 16, 3),
    };
    let mut r = rng("crc32", size);
    let stride = 4 * (payload_words as usize + 1);
    let data = r.bytes(records as usize * stride);
    let crcs: Vec<u32> = data
        .chunks_exact(stride)
        .map(|rec| {
            let start = hdr as usize;
            crc32(&rec[start..start + 4 * payload_words as usize]).swap_bytes()
        })
        .collect();
    one_case(
        format!("{records}x{} bytes", 4 * payload_words),
        vec![stage(
            [blocks(records, 256), 1, 1],
            [256, 1, 1],
            0,
            vec![
                ("recs", StageArg::Bytes(data)),
                ("crcs", zeroed_words(records as usize)),
                ("R", int(u64::from(records))),
                ("W", int(u64::from(payload_words))),
                ("hdr", int(u64::from(hdr))),
            ],
        )],
        vec![expect(0, "crcs", crcs)],
    )
}

/// CRC-32/ISO-HDLC (zlib's `crc32`), bytewise and reflected: an independent formulation
/// from the kernel's MSB-first one.
pub(crate) fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for b in data {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xedb8_8320 & 0u32.wrapping_sub(crc & 1));
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    #[test]
    fn check_value() {
        assert_eq!(super::crc32(b"123456789"), 0xcbf4_3926);
    }
}
