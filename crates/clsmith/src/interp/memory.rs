//! Byte storage of buffers, `__local` objects and private aggregates, with the shadow state
//! that finds uninitialized reads, races and order-dependent atomics.

use crate::ast::Scalar;
use crate::interp::trap::Ub;
use crate::interp::value::{bits_of, Value};

/// Several work-items (in a shadow's lane field).
pub const MANY: u32 = u32::MAX;

/// Atomics of several families by one work-item (in a shadow's family field).
const MIXED: u8 = u8::MAX;

/// Who touched one byte in the current epoch (the time between two barriers for `__local`
/// memory; the whole launch for `__global` memory).
#[derive(Clone, Copy, Debug, Default)]
pub struct Shadow {
    write_epoch: u32,
    write_lane: u32,
    read_epoch: u32,
    read_lane: u32,
    atomic_epoch: u32,
    atomic_lane: u32,
    family: u8,
    value_used: bool,
}

/// Bytes with initialization and sharing state.
#[derive(Clone, Debug)]
pub struct Storage {
    /// The bytes.
    pub data: Vec<u8>,
    /// Which bytes hold a written value.
    pub init: Vec<bool>,
    /// Per-byte access history (empty for private storage, which one work-item owns).
    pub shadow: Vec<Shadow>,
    /// Writes are undefined (`__constant`).
    pub read_only: bool,
}

impl Storage {
    /// Storage holding `data`, initialized, shared between work-items when `shared`.
    pub fn from_bytes(data: Vec<u8>, shared: bool, read_only: bool) -> Storage {
        let n = data.len();
        Storage {
            data,
            init: vec![true; n],
            shadow: if shared {
                vec![Shadow::default(); n]
            } else {
                Vec::new()
            },
            read_only,
        }
    }

    /// `n` uninitialized bytes.
    pub fn uninit(n: usize, shared: bool) -> Storage {
        Storage {
            data: vec![0; n],
            init: vec![false; n],
            shadow: if shared {
                vec![Shadow::default(); n]
            } else {
                Vec::new()
            },
            read_only: false,
        }
    }
}

/// Who is accessing: the work-item (its global linear id) and the current epoch.
#[derive(Clone, Copy, Debug)]
pub struct Who {
    /// The work-item.
    pub lane: u32,
    /// The epoch.
    pub epoch: u32,
}

fn check_range(st: &Storage, off: i64, size: u32, what: &str) -> Result<usize, Ub> {
    if off < 0 || off as u64 + size as u64 > st.data.len() as u64 {
        return Err(Ub::OutOfBounds(format!(
            "{what}: {size} bytes at offset {off} of an object of {} bytes",
            st.data.len()
        )));
    }
    Ok(off as usize)
}

/// A plain (non-atomic) read of an arithmetic value of type `s`.
pub fn read_scalar(
    st: &mut Storage,
    off: i64,
    s: Scalar,
    who: Option<Who>,
    what: &str,
) -> Result<Value, Ub> {
    let size = s.size();
    check_access(st, off, size, who, what)?;
    let o = off as usize;
    Ok(decode(s, &st.data[o..o + size as usize]))
}

/// A plain (non-atomic) write of an arithmetic value.
pub fn write_scalar(
    st: &mut Storage,
    off: i64,
    v: &Value,
    who: Option<Who>,
    what: &str,
) -> Result<(), Ub> {
    let (bytes, n) = encode_fixed(v);
    write_bytes(st, off, &bytes[..n], None, who, what)
}

/// Checks a plain read of `size` bytes and records it in the shadow.
fn check_access(
    st: &mut Storage,
    off: i64,
    size: u32,
    who: Option<Who>,
    what: &str,
) -> Result<(), Ub> {
    let o = check_range(st, off, size, what)?;
    if let Some(i) = (o..o + size as usize).find(|&i| !st.init[i]) {
        return Err(Ub::Uninit(format!("{what}: byte {i} was never written")));
    }
    if let Some(w) = who {
        if !st.shadow.is_empty() {
            for s in &mut st.shadow[o..o + size as usize] {
                if s.write_epoch == w.epoch && s.write_lane != w.lane {
                    return Err(Ub::Race(format!(
                        "{what}: work-item {} reads a byte work-item {} wrote",
                        w.lane, s.write_lane
                    )));
                }
                if s.atomic_epoch == w.epoch && s.atomic_lane != w.lane {
                    return Err(Ub::Race(format!(
                        "{what}: work-item {} reads a word others update atomically",
                        w.lane
                    )));
                }
                if s.read_epoch == w.epoch {
                    if s.read_lane != w.lane {
                        s.read_lane = MANY;
                    }
                } else {
                    s.read_epoch = w.epoch;
                    s.read_lane = w.lane;
                }
            }
        }
    }
    Ok(())
}

/// A plain (non-atomic) write.
pub fn write_bytes(
    st: &mut Storage,
    off: i64,
    bytes: &[u8],
    init: Option<&[bool]>,
    who: Option<Who>,
    what: &str,
) -> Result<(), Ub> {
    let o = check_range(st, off, bytes.len() as u32, what)?;
    if st.read_only {
        return Err(Ub::ReadOnly(what.to_string()));
    }
    if let Some(w) = who {
        if !st.shadow.is_empty() {
            for s in &mut st.shadow[o..o + bytes.len()] {
                let other = |epoch: u32, lane: u32| epoch == w.epoch && lane != w.lane;
                if other(s.write_epoch, s.write_lane) || other(s.read_epoch, s.read_lane) {
                    return Err(Ub::Race(format!(
                        "{what}: work-item {} writes a byte another work-item accessed",
                        w.lane
                    )));
                }
                if other(s.atomic_epoch, s.atomic_lane) {
                    return Err(Ub::Race(format!(
                        "{what}: work-item {} writes a word others update atomically",
                        w.lane
                    )));
                }
                s.write_epoch = w.epoch;
                s.write_lane = w.lane;
            }
        }
    }
    st.data[o..o + bytes.len()].copy_from_slice(bytes);
    match init {
        Some(flags) => st.init[o..o + bytes.len()].copy_from_slice(flags),
        None => st.init[o..o + bytes.len()].fill(true),
    }
    Ok(())
}

/// Records an atomic access of a 4-byte word and checks it against the epoch's history.
pub fn atomic_access(
    st: &mut Storage,
    off: i64,
    family: u8,
    value_used: bool,
    who: Who,
    what: &str,
) -> Result<(), Ub> {
    let o = check_range(st, off, 4, what)?;
    if off % 4 != 0 {
        return Err(Ub::OutOfBounds(format!(
            "{what}: atomic on a misaligned word at {off}"
        )));
    }
    if st.read_only {
        return Err(Ub::ReadOnly(what.to_string()));
    }
    if let Some(i) = (o..o + 4).find(|&i| !st.init[i]) {
        return Err(Ub::Uninit(format!(
            "{what}: atomic on byte {i}, never written"
        )));
    }
    for s in &mut st.shadow[o..o + 4] {
        let other = |epoch: u32, lane: u32| epoch == who.epoch && lane != who.lane;
        if other(s.write_epoch, s.write_lane) || other(s.read_epoch, s.read_lane) {
            return Err(Ub::Race(format!(
                "{what}: atomic by work-item {} on a word another accessed plainly",
                who.lane
            )));
        }
        if s.atomic_epoch == who.epoch {
            if s.atomic_lane == who.lane {
                // One work-item may mix operations: its own order is fixed.
                if s.family != family {
                    s.family = MIXED;
                }
            } else {
                if s.family != family {
                    return Err(Ub::AtomicOrder(format!(
                        "{what}: atomics of different kinds on one word"
                    )));
                }
                s.atomic_lane = MANY;
            }
            s.value_used |= value_used;
        } else {
            s.atomic_epoch = who.epoch;
            s.atomic_lane = who.lane;
            s.family = family;
            s.value_used = value_used;
        }
        if s.value_used && s.atomic_lane == MANY {
            return Err(Ub::AtomicOrder(format!(
                "{what}: an atomic's result is used on a word several work-items update"
            )));
        }
    }
    Ok(())
}

/// The little-endian bytes of an arithmetic value.
pub fn encode(v: &Value) -> Vec<u8> {
    let (b, n) = encode_fixed(v);
    b[..n].to_vec()
}

fn encode_fixed(v: &Value) -> ([u8; 8], usize) {
    let (bits, n) = match v {
        Value::Int(s, x) => (bits_of(*s, *x) as u64, s.size() as usize),
        Value::F32(x) => (x.to_bits() as u64, 4),
        Value::F64(x) => (x.to_bits(), 8),
        other => panic!("encode of {other:?}"),
    };
    (bits.to_le_bytes(), n)
}

/// The arithmetic value of type `s` in little-endian `bytes`.
pub fn decode(s: Scalar, bytes: &[u8]) -> Value {
    let mut b = [0u8; 16];
    b[..bytes.len()].copy_from_slice(bytes);
    let raw = u128::from_le_bytes(b);
    match s {
        Scalar::Float => Value::F32(f32::from_bits(raw as u32)),
        Scalar::Double => Value::F64(f64::from_bits(raw as u64)),
        Scalar::Bool => Value::Int(s, (raw != 0) as i128),
        s => {
            let bits = s.bits();
            let v = if s.is_signed() && raw >> (bits - 1) & 1 == 1 {
                raw as i128 - (1i128 << bits)
            } else {
                raw as i128
            };
            Value::Int(s, v)
        }
    }
}
