//! Value classes: what kind of value an operand held (zero, one, a sign boundary, a
//! subnormal, a signalling NaN, ...), the EXEC classes of a vector instruction and the
//! outcome classes of a branch. Each class has one name, the name bins use in the model.

/// The class of an integer value (register contents or an immediate), or of a
/// floating-point value. Integer classes are tested in the order listed; the first that
/// matches is the value's class, so the classes are disjoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValueClass {
    /// 0.
    Zero,
    /// 1.
    One,
    /// Every bit set (-1 as a signed value).
    AllOnes,
    /// The most negative signed value: only the sign bit set (`0x8000_0000`).
    SignMin,
    /// The largest signed value: every bit but the sign bit set (`0x7fff_ffff`).
    SignMax,
    /// The smallest value of a signed immediate's field.
    Min,
    /// The largest value of an immediate's field.
    Max,
    /// Any other value.
    Other,
    /// A floating-point value of this kind and sign.
    Float(FloatKind, bool),
}

/// The IEEE 754 class of a floating-point value, without its sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatKind {
    /// ±0.
    Zero,
    /// A subnormal (denormal) value.
    Subnormal,
    /// A normal finite value.
    Normal,
    /// ±infinity.
    Inf,
    /// A quiet NaN (the top bit of the significand set).
    QNan,
    /// A signalling NaN.
    SNan,
}

/// The floating-point formats whose values are classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatFormat {
    /// IEEE binary16.
    F16,
    /// bfloat16 (binary32's exponent, 7 significand bits).
    Bf16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
}

impl FloatFormat {
    /// Exponent and significand widths.
    const fn layout(self) -> (u32, u32) {
        match self {
            FloatFormat::F16 => (5, 10),
            FloatFormat::Bf16 => (8, 7),
            FloatFormat::F32 => (8, 23),
            FloatFormat::F64 => (11, 52),
        }
    }

    /// Width in bits.
    pub const fn bits(self) -> u32 {
        let (e, m) = self.layout();
        1 + e + m
    }
}

const INT_CLASSES: [(ValueClass, &str); 8] = [
    (ValueClass::Zero, "zero"),
    (ValueClass::One, "one"),
    (ValueClass::AllOnes, "all_ones"),
    (ValueClass::SignMin, "sign_min"),
    (ValueClass::SignMax, "sign_max"),
    (ValueClass::Min, "min"),
    (ValueClass::Max, "max"),
    (ValueClass::Other, "other"),
];

const FLOAT_KINDS: [(FloatKind, &str); 6] = [
    (FloatKind::Zero, "zero"),
    (FloatKind::Subnormal, "subnormal"),
    (FloatKind::Normal, "normal"),
    (FloatKind::Inf, "inf"),
    (FloatKind::QNan, "qnan"),
    (FloatKind::SNan, "snan"),
];

impl ValueClass {
    /// The class's name in the model: `zero`, `sign_min`, `pos_subnormal`, `neg_snan`, ...
    pub fn name(self) -> String {
        match self {
            ValueClass::Float(kind, negative) => {
                let k = FLOAT_KINDS
                    .iter()
                    .find(|(x, _)| *x == kind)
                    .map_or("?", |(_, n)| n);
                format!("{}_{k}", if negative { "neg" } else { "pos" })
            }
            c => INT_CLASSES
                .iter()
                .find(|(x, _)| *x == c)
                .map_or("?", |(_, n)| n)
                .to_string(),
        }
    }

    /// The class called `name`.
    pub fn from_name(name: &str) -> Option<ValueClass> {
        if let Some((c, _)) = INT_CLASSES.iter().find(|(_, n)| *n == name) {
            return Some(*c);
        }
        let (sign, kind) = name.split_once('_')?;
        let negative = match sign {
            "pos" => false,
            "neg" => true,
            _ => return None,
        };
        FLOAT_KINDS
            .iter()
            .find(|(_, n)| *n == kind)
            .map(|(k, _)| ValueClass::Float(*k, negative))
    }

    /// Every floating-point class, positive before negative of each kind.
    pub fn all_float() -> impl Iterator<Item = ValueClass> {
        FLOAT_KINDS
            .iter()
            .flat_map(|(k, _)| [ValueClass::Float(*k, false), ValueClass::Float(*k, true)])
    }

    /// A small distinct number per class (below 32), for sets of classes as bit masks.
    pub fn index(self) -> u32 {
        match self {
            ValueClass::Zero => 0,
            ValueClass::One => 1,
            ValueClass::AllOnes => 2,
            ValueClass::SignMin => 3,
            ValueClass::SignMax => 4,
            ValueClass::Min => 5,
            ValueClass::Max => 6,
            ValueClass::Other => 7,
            ValueClass::Float(k, negative) => 8 + 2 * k as u32 + u32::from(negative),
        }
    }

    /// Whether this is a floating-point class.
    pub fn is_float(self) -> bool {
        matches!(self, ValueClass::Float(..))
    }
}

/// The class of a `bits`-wide register value (`value`'s other bits are zero).
pub fn register_class(value: u64, bits: u32) -> ValueClass {
    let ones = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let sign = 1u64 << (bits - 1);
    match value {
        0 => ValueClass::Zero,
        1 => ValueClass::One,
        v if v == ones => ValueClass::AllOnes,
        v if v == sign => ValueClass::SignMin,
        v if v == sign - 1 => ValueClass::SignMax,
        _ => ValueClass::Other,
    }
}

/// The integer classes a `bits`-wide register can hold.
pub fn register_classes(bits: u32) -> Vec<ValueClass> {
    let mut out = vec![ValueClass::Zero, ValueClass::One];
    if bits >= 2 {
        out.push(ValueClass::AllOnes);
    }
    if bits >= 3 {
        out.extend([ValueClass::SignMin, ValueClass::SignMax, ValueClass::Other]);
    }
    out
}

/// The class of immediate `value`, whose field accepts `lo..=hi` (already scaled). A
/// 32-bit literal (`signed_literal`) is a register-like bit pattern.
pub fn immediate_class(value: i64, lo: i64, hi: i64, literal: bool) -> ValueClass {
    if literal {
        return register_class(value as u64 & 0xffff_ffff, 32);
    }
    match value {
        0 => ValueClass::Zero,
        1 => ValueClass::One,
        -1 => ValueClass::AllOnes,
        v if v == lo => ValueClass::Min,
        v if v == hi => ValueClass::Max,
        _ => ValueClass::Other,
    }
}

/// The classes an immediate field of range `lo..=hi` can hold (those no value reaches,
/// or that an earlier class always takes, are left out).
pub fn immediate_classes(lo: i64, hi: i64, literal: bool, scale: i64) -> Vec<ValueClass> {
    if literal {
        return register_classes(32);
    }
    let mut seen = Vec::new();
    let reachable = |v: i64| v >= lo && v <= hi && v % scale == 0;
    // Probe every value that decides a class, plus one ordinary value if there is room.
    let mut probes = vec![0, 1, -1, lo, hi];
    let mut v = lo;
    for _ in 0..6 {
        if reachable(v) && ![0, 1, -1, lo, hi].contains(&v) {
            probes.push(v);
            break;
        }
        v += scale;
    }
    if hi - lo > 6 * scale {
        probes.push(lo + scale * ((hi - lo) / scale / 2 + 1));
    }
    for p in probes {
        if reachable(p) {
            let c = immediate_class(p, lo, hi, false);
            if !seen.contains(&c) {
                seen.push(c);
            }
        }
    }
    seen.sort();
    seen
}

/// The class of a floating-point value's bits in `format`.
pub fn float_class(bits: u64, format: FloatFormat) -> ValueClass {
    let (e, m) = format.layout();
    let negative = (bits >> (e + m)) & 1 != 0;
    let exp = (bits >> m) & ((1 << e) - 1);
    let frac = bits & ((1u64 << m) - 1);
    let kind = if exp == 0 {
        if frac == 0 {
            FloatKind::Zero
        } else {
            FloatKind::Subnormal
        }
    } else if exp == (1 << e) - 1 {
        if frac == 0 {
            FloatKind::Inf
        } else if frac >> (m - 1) != 0 {
            FloatKind::QNan
        } else {
            FloatKind::SNan
        }
    } else {
        FloatKind::Normal
    };
    ValueClass::Float(kind, negative)
}

/// The EXEC class of a vector instruction: how many of the 32 lanes it ran on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ExecClass {
    /// All 32 lanes active.
    Full,
    /// No lane active.
    Empty,
    /// Exactly one lane active.
    Single,
    /// Some lanes, more than one, fewer than 32.
    Partial,
}

impl ExecClass {
    /// Every class, in report order.
    pub const ALL: [ExecClass; 4] = [
        ExecClass::Full,
        ExecClass::Empty,
        ExecClass::Single,
        ExecClass::Partial,
    ];

    /// The class of `exec`.
    pub fn of(exec: u32) -> ExecClass {
        match exec.count_ones() {
            32 => ExecClass::Full,
            0 => ExecClass::Empty,
            1 => ExecClass::Single,
            _ => ExecClass::Partial,
        }
    }

    /// Its name in the model.
    pub fn name(self) -> &'static str {
        match self {
            ExecClass::Full => "full",
            ExecClass::Empty => "empty",
            ExecClass::Single => "single",
            ExecClass::Partial => "partial",
        }
    }
}

/// What a conditional branch did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BranchClass {
    /// It went to its target.
    Taken,
    /// It fell through to the next instruction.
    NotTaken,
    /// Its lane condition agreed on every lane that decides it.
    Uniform,
    /// Its lane condition differed between lanes: some would branch, others not.
    Divergent,
}

impl BranchClass {
    /// Every class, in report order.
    pub const ALL: [BranchClass; 4] = [
        BranchClass::Taken,
        BranchClass::NotTaken,
        BranchClass::Uniform,
        BranchClass::Divergent,
    ];

    /// Its name in the model.
    pub fn name(self) -> &'static str {
        match self {
            BranchClass::Taken => "taken",
            BranchClass::NotTaken => "not_taken",
            BranchClass::Uniform => "uniform",
            BranchClass::Divergent => "divergent",
        }
    }
}

/// The floating-point exception flags, by their bit in `fflags` (NV DZ OF UF NX from bit
/// 4 down; provisional, docs/provisional.md).
pub const FLAG_NAMES: [(u32, &str); 5] = [(4, "nv"), (3, "dz"), (2, "of"), (1, "uf"), (0, "nx")];

/// The trap causes the model raises (`warpkit_sim::trap`), with their names in the model.
pub const TRAP_CAUSES: [(u32, &str); 8] = [
    (warpkit_sim::trap::CAUSE_ILLEGAL_INSN, "illegal_insn"),
    (warpkit_sim::trap::CAUSE_FETCH_FAULT, "fetch_fault"),
    (warpkit_sim::trap::CAUSE_UNSUPPORTED, "unsupported"),
    (warpkit_sim::trap::CAUSE_MISALIGNED, "misaligned"),
    (warpkit_sim::trap::CAUSE_ACCESS_FAULT, "access_fault"),
    (warpkit_sim::trap::CAUSE_FP_EXCEPTION, "fp_exception"),
    (warpkit_sim::trap::CAUSE_ILLEGAL_MODE, "illegal_mode"),
    (warpkit_sim::trap::CAUSE_ILLEGAL_CSR, "illegal_csr"),
];

/// The cause called `name` in the model (`illegal_csr`), or written `cause.N`.
pub fn trap_cause(name: &str) -> Option<u32> {
    if let Some(n) = name.strip_prefix("cause.") {
        return n.parse().ok();
    }
    TRAP_CAUSES
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(c, _)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_classes_are_disjoint_and_named() {
        assert_eq!(register_class(0, 32), ValueClass::Zero);
        assert_eq!(register_class(0xffff_ffff, 32), ValueClass::AllOnes);
        assert_eq!(register_class(0x8000_0000, 32), ValueClass::SignMin);
        assert_eq!(register_class(0x7fff_ffff, 32), ValueClass::SignMax);
        assert_eq!(register_class(u64::MAX, 64), ValueClass::AllOnes);
        assert_eq!(register_class(0x8000, 16), ValueClass::SignMin);
        assert_eq!(register_class(5, 32), ValueClass::Other);
        for c in register_classes(32)
            .into_iter()
            .chain(ValueClass::all_float())
        {
            assert_eq!(ValueClass::from_name(&c.name()), Some(c));
        }
    }

    #[test]
    fn float_classes() {
        let f = |x: f32| float_class(u64::from(x.to_bits()), FloatFormat::F32);
        assert_eq!(f(0.0), ValueClass::Float(FloatKind::Zero, false));
        assert_eq!(f(-0.0), ValueClass::Float(FloatKind::Zero, true));
        assert_eq!(f(1e-40), ValueClass::Float(FloatKind::Subnormal, false));
        assert_eq!(f(-2.5), ValueClass::Float(FloatKind::Normal, true));
        assert_eq!(f(f32::INFINITY), ValueClass::Float(FloatKind::Inf, false));
        assert_eq!(f(f32::NAN), ValueClass::Float(FloatKind::QNan, false));
        assert_eq!(
            float_class(0x7f80_0001, FloatFormat::F32),
            ValueClass::Float(FloatKind::SNan, false)
        );
        assert_eq!(
            float_class(0xfc01, FloatFormat::F16),
            ValueClass::Float(FloatKind::SNan, true)
        );
        assert_eq!(
            float_class(f64::MIN_POSITIVE.to_bits() >> 1, FloatFormat::F64),
            ValueClass::Float(FloatKind::Subnormal, false)
        );
    }

    #[test]
    fn immediate_classes_are_the_reachable_ones() {
        // uimm1: 0 and 1 only.
        assert_eq!(
            immediate_classes(0, 1, false, 1),
            vec![ValueClass::Zero, ValueClass::One]
        );
        // simm8: every class.
        assert_eq!(immediate_classes(-128, 127, false, 1).len(), 6);
        // A scaled field: multiples of 4 only, so 1 and -1 never occur.
        let scaled = immediate_classes(-512, 508, false, 4);
        assert!(!scaled.contains(&ValueClass::One));
        assert!(scaled.contains(&ValueClass::Min) && scaled.contains(&ValueClass::Other));
    }
}
