//! Kernel arguments checked against a kernel's metadata (docs/abi.md, "Kernel arguments with
//! metadata"; provisional): which kernel of a program a launch runs ([`select_kernel`]),
//! and each argument's name, position and value by its parameter's kind. [`Launch`] applies
//! them once given a kernel ([`Launch::kernel`]), for every front end: the CLI's `--kernel`
//! and `--arg`, Python's `load(kernel=)` and `launch(args=)`, the C API.
//!
//! [`Launch`]: crate::Launch
//! [`Launch::kernel`]: crate::Launch::kernel

use warpkit_asm::{KernelInfo, ParamInfo, ParamKind, Program};
use warpkit_float::{parse_literal, LiteralError, Round, F16, F32, F64};
use warpkit_sim::launch::ArgValue;

/// A kernel argument's value before it is checked against its parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    /// An integer: for an integer parameter, range-checked against its kind; for a float
    /// parameter, rounded once to its format.
    Int(i128),
    /// A binary64 number, for a float parameter: rounded once to its format.
    Float(f64),
    /// A buffer ([`ArgValue::Buffer`] or [`ArgValue::Words`]) for a `ptr.global` or
    /// `ptr.constant` parameter.
    Buffer(ArgValue),
    /// A zero-filled buffer of this many bytes, given to the model as words
    /// ([`crate::Launch::zeroed_words`]), for a `ptr.global` or `ptr.constant` parameter.
    Zeroed(u64),
    /// This many bytes of workgroup shared memory, for a `ptr.local` parameter.
    Local(u64),
}

impl ParamValue {
    /// What the value is, for messages.
    fn describe(&self) -> &'static str {
        match self {
            ParamValue::Int(_) => "an integer",
            ParamValue::Float(_) => "a float",
            ParamValue::Buffer(ArgValue::Int(_)) => "an integer",
            ParamValue::Buffer(_) | ParamValue::Zeroed(_) => "a buffer",
            ParamValue::Local(_) => "local memory",
        }
    }
}

/// Why a kernel could not be chosen, or an argument does not fit its parameter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// A kernel was asked for by name, but the program has no kernel metadata.
    #[error(
        "there is no kernel `{name}`: the program has no kernel metadata (no .kernel \
         directive; raw and hex images never have any)"
    )]
    NoMetadata {
        /// The kernel asked for.
        name: String,
    },
    /// A kernel was asked for by name that the metadata does not declare.
    #[error("there is no kernel `{name}`; the program's kernels are {}", .kernels.join(", "))]
    NoSuchKernel {
        /// The kernel asked for.
        name: String,
        /// The kernels the program declares.
        kernels: Vec<String>,
    },
    /// The program declares several kernels and neither a kernel nor an entry was named.
    #[error(
        "the program declares {} kernels ({}): say which one to launch",
        .kernels.len(),
        .kernels.join(", ")
    )]
    SeveralKernels {
        /// The kernels the program declares.
        kernels: Vec<String>,
    },
    /// A kernel and a different entry symbol were both named.
    #[error("kernel `{kernel}` starts at its own label: an entry `{entry}` cannot be given too")]
    KernelAndEntry {
        /// The kernel named.
        kernel: String,
        /// The entry named.
        entry: String,
    },
    /// [`crate::Launch::kernel`] was called after arguments were added.
    #[error("the kernel must be chosen before its arguments are given")]
    KernelAfterArgs,
    /// [`crate::Launch::param`] without a kernel ([`crate::Launch::kernel`]).
    #[error("arguments are checked against parameters only once a kernel is chosen")]
    NoKernel,
    /// An argument given in order whose name is not that of the parameter at its position.
    #[error("{what}: kernel `{kernel}` expects {expected} here, {detail}")]
    WrongName {
        /// The argument as given (`--arg x=1`, `argument `x``).
        what: String,
        /// The kernel.
        kernel: String,
        /// The expected parameter as [`ParamInfo`] displays it (`` `b` (float *) ``).
        expected: String,
        /// Where it stands among the parameters, the name given instead and where that
        /// belongs: "its parameter 2 of 4 (a, b, out, n), not `n`; `n` is parameter 4: ...".
        detail: String,
    },
    /// More arguments than the kernel has parameters.
    #[error(
        "{what}: kernel `{kernel}` takes {count} argument{} ({list}); this one is too many",
        if *.count == 1 { "" } else { "s" }
    )]
    Extra {
        /// The argument as given.
        what: String,
        /// The kernel.
        kernel: String,
        /// How many parameters it has.
        count: usize,
        /// The parameter names in order.
        list: String,
    },
    /// Fewer arguments than parameters.
    #[error(
        "kernel `{kernel}` takes {count} argument{} ({list}), {given} given: {missing} is missing",
        if *.count == 1 { "" } else { "s" }
    )]
    Missing {
        /// The kernel.
        kernel: String,
        /// How many parameters it has.
        count: usize,
        /// The parameter names in order.
        list: String,
        /// How many arguments were given.
        given: usize,
        /// The first parameter without an argument, as [`ParamInfo`] displays it.
        missing: String,
    },
    /// An argument given by name that is none of the kernel's parameters.
    #[error("{what}: kernel `{kernel}` has no parameter `{name}`; its parameters are {list}")]
    Unknown {
        /// The argument as given.
        what: String,
        /// The kernel.
        kernel: String,
        /// The name given.
        name: String,
        /// The parameter names in order.
        list: String,
    },
    /// A value that does not fit its parameter's kind.
    #[error("{what}: parameter {param} of kernel `{kernel}` is {kind}: {why}")]
    Value {
        /// The argument as given.
        what: String,
        /// The parameter, as [`ParamInfo`] displays it.
        param: String,
        /// The kernel.
        kernel: String,
        /// The parameter's kind.
        kind: ParamKind,
        /// What is wrong with the value.
        why: String,
    },
    /// The launch gives less shared memory than the kernel's static bytes and its local
    /// arguments need.
    #[error(
        "{given} bytes of shared memory per workgroup are fewer than kernel `{kernel}` needs: \
         {needed} ({static_bytes} static, the rest for its local arguments)"
    )]
    SharedTooSmall {
        /// The kernel.
        kernel: String,
        /// Bytes the launch gives.
        given: u32,
        /// Bytes the kernel needs.
        needed: u64,
        /// The kernel's static shared memory (`shared=`).
        static_bytes: u32,
    },
    /// The launch gives less scratch memory per lane than the kernel uses (`scratch=`).
    #[error(
        "{given} bytes of scratch memory per lane are fewer than kernel `{kernel}` uses: {needed}"
    )]
    ScratchTooSmall {
        /// The kernel.
        kernel: String,
        /// Bytes per lane the launch gives.
        given: u32,
        /// Bytes per lane the kernel uses.
        needed: u32,
    },
    /// The kernel's static shared memory and local arguments exceed the model's limit.
    #[error(
        "kernel `{kernel}` needs {needed} bytes of shared memory per workgroup ({static_bytes} \
         static, the rest for its local arguments): more than the model's limit of {limit}"
    )]
    SharedTooLarge {
        /// The kernel.
        kernel: String,
        /// Bytes it needs.
        needed: u64,
        /// The kernel's static shared memory (`shared=`).
        static_bytes: u32,
        /// The model's limit.
        limit: u32,
    },
    /// The launch's workgroup size is not the one the kernel requires.
    #[error(
        "kernel `{kernel}` requires a workgroup of {} threads (block={}), but the launch asks \
         for {}",
        dims(.required), dims(.required), dims(.given)
    )]
    BlockMismatch {
        /// The kernel.
        kernel: String,
        /// Its required block.
        required: [u32; 3],
        /// The launch's block.
        given: [u32; 3],
    },
}

/// `16x16x1`.
pub fn dims(d: &[u32; 3]) -> String {
    format!("{}x{}x{}", d[0], d[1], d[2])
}

/// The kernel a launch of `program` runs: the one named `kernel`; else the kernel whose
/// label `entry` names, if any (an entry that is no kernel launches without metadata);
/// else the program's only kernel. `None` for a program without metadata and no kernel
/// named, or an entry that is not a kernel.
pub fn select_kernel<'p>(
    program: &'p Program,
    kernel: Option<&str>,
    entry: Option<&str>,
) -> Result<Option<&'p KernelInfo>, ParamError> {
    let names = || program.kernels.iter().map(|k| k.name.clone()).collect();
    match (kernel, entry) {
        (Some(k), Some(e)) if k != e => Err(ParamError::KernelAndEntry {
            kernel: k.to_string(),
            entry: e.to_string(),
        }),
        (Some(name), _) => match program.kernel(name) {
            Some(k) => Ok(Some(k)),
            None if program.kernels.is_empty() => Err(ParamError::NoMetadata {
                name: name.to_string(),
            }),
            None => Err(ParamError::NoSuchKernel {
                name: name.to_string(),
                kernels: names(),
            }),
        },
        (None, Some(entry)) => Ok(program.kernel(entry)),
        (None, None) => match program.kernels.as_slice() {
            [] => Ok(None),
            [only] => Ok(Some(only)),
            _ => Err(ParamError::SeveralKernels { kernels: names() }),
        },
    }
}

/// For each parameter of `kernel` in order, the index in `names` of the argument given for
/// it: arguments given by name, in any order, each parameter once.
pub fn order_by_name(kernel: &KernelInfo, names: &[&str]) -> Result<Vec<usize>, ParamError> {
    if let Some(unknown) = names.iter().find(|n| kernel.param(n).is_none()) {
        return Err(ParamError::Unknown {
            what: format!("argument `{unknown}`"),
            kernel: kernel.name.clone(),
            name: unknown.to_string(),
            list: kernel.param_list(),
        });
    }
    kernel
        .params
        .iter()
        .map(|p| {
            names
                .iter()
                .position(|n| *n == p.name)
                .ok_or_else(|| ParamError::Missing {
                    kernel: kernel.name.clone(),
                    count: kernel.params.len(),
                    list: kernel.param_list(),
                    given: names.len(),
                    missing: p.to_string(),
                })
        })
        .collect()
}

/// The parameter that argument number `index` (0-based) named `name` must be, or why not.
pub(crate) fn expect_param<'k>(
    kernel: &'k KernelInfo,
    index: usize,
    name: &str,
    what: &str,
) -> Result<&'k ParamInfo, ParamError> {
    let Some(expected) = kernel.params.get(index) else {
        return Err(ParamError::Extra {
            what: what.to_string(),
            kernel: kernel.name.clone(),
            count: kernel.params.len(),
            list: kernel.param_list(),
        });
    };
    if expected.name == name {
        return Ok(expected);
    }
    let place = format!(
        "its parameter {} of {} ({}), not `{name}`",
        index + 1,
        kernel.params.len(),
        kernel.param_list()
    );
    let hint = match kernel.param(name) {
        Some((i, _)) if i < index => {
            format!("; `{name}` is parameter {} and was given already", i + 1)
        }
        Some((i, _)) => format!(
            "; `{name}` is parameter {}: give the arguments in the order of the parameters",
            i + 1
        ),
        None => format!("; `{name}` is not one of its parameters"),
    };
    Err(ParamError::WrongName {
        what: what.to_string(),
        kernel: kernel.name.clone(),
        expected: expected.to_string(),
        detail: place + &hint,
    })
}

/// What an argument's slot gets: a value, or local memory the launch places.
pub(crate) enum Slot {
    /// The value as the model takes it.
    Value(ArgValue),
    /// A zero-filled buffer of this many bytes, as words.
    Zeroed(u64),
    /// This many bytes of shared memory; the slot gets their offset.
    Local(u64),
}

/// `value` checked against `param` (of `kernel`), as its slot will hold it; `Err` is the
/// reason, for [`ParamError::Value`].
pub(crate) fn slot_value(param: &ParamInfo, value: ParamValue) -> Result<Slot, String> {
    let kind = param.kind;
    let wrong = |value: &ParamValue| {
        let wants = if kind.is_buffer() {
            "a buffer"
        } else if kind == ParamKind::LocalPtr {
            "local memory (a byte count)"
        } else if kind.float_bits().is_some() {
            "a number"
        } else {
            "an integer"
        };
        format!("it takes {wants}, not {}", value.describe())
    };
    match value {
        ParamValue::Buffer(ArgValue::Int(_)) => Err(wrong(&value)),
        ParamValue::Buffer(b) if kind.is_buffer() => Ok(Slot::Value(b)),
        ParamValue::Zeroed(n) if kind.is_buffer() => Ok(Slot::Zeroed(n)),
        ParamValue::Local(n) if kind == ParamKind::LocalPtr => Ok(Slot::Local(n)),
        ParamValue::Int(v) => {
            if let Some((lo, hi)) = kind.int_range() {
                if v < lo || v > hi {
                    return Err(format!("{v} is not in {lo}..{hi}"));
                }
                // The low 64 bits of the two's complement: sign-extended for a negative
                // value, zero-extended for a non-negative one.
                return Ok(Slot::Value(ArgValue::Int(v as u64)));
            }
            if kind.float_bits().is_some() {
                let bits = int_to_float(kind, v)
                    .ok_or_else(|| format!("{v} is out of range for {kind}"))?;
                return Ok(Slot::Value(ArgValue::Int(bits)));
            }
            Err(wrong(&value))
        }
        ParamValue::Float(f) if kind.float_bits().is_some() => {
            let bits = float_to_format(kind, f).ok_or_else(|| {
                format!("{f:?} is out of range for {kind} (it would round to infinity)")
            })?;
            Ok(Slot::Value(ArgValue::Int(bits)))
        }
        other => Err(wrong(&other)),
    }
}

/// `v` rounded once to the float kind `kind`, as slot bits; `None` when it is out of
/// range.
fn int_to_float(kind: ParamKind, v: i128) -> Option<u64> {
    let negative = v < 0;
    let magnitude = v.unsigned_abs();
    let bits = match kind {
        ParamKind::F16 => warpkit_float::from_scaled::<F16>(negative, magnitude, 0, Round::Rne)
            .0
            .into(),
        ParamKind::F32 => warpkit_float::from_scaled::<F32>(negative, magnitude, 0, Round::Rne)
            .0
            .into(),
        _ => warpkit_float::from_scaled::<F64>(negative, magnitude, 0, Round::Rne).0,
    };
    finite(kind, bits)
}

/// The binary64 `f` rounded once to the float kind `kind`, as slot bits; `None` when a
/// finite `f` becomes infinite.
fn float_to_format(kind: ParamKind, f: f64) -> Option<u64> {
    let bits = match kind {
        ParamKind::F16 => warpkit_float::convert::<F64, F16>(f.to_bits(), Round::Rne)
            .0
            .into(),
        ParamKind::F32 => warpkit_float::convert::<F64, F32>(f.to_bits(), Round::Rne)
            .0
            .into(),
        _ => f.to_bits(),
    };
    if f.is_infinite() || f.is_nan() {
        return Some(bits);
    }
    finite(kind, bits)
}

/// `bits` unless they are an infinity of the float kind `kind`.
fn finite(kind: ParamKind, bits: u64) -> Option<u64> {
    let inf = match kind {
        ParamKind::F16 => 0x7c00,
        ParamKind::F32 => 0x7f80_0000,
        _ => 0x7ff0_0000_0000_0000,
    };
    let sign = match kind {
        ParamKind::F16 => 0x8000,
        ParamKind::F32 => 0x8000_0000,
        _ => 0x8000_0000_0000_0000,
    };
    (bits & !sign != inf).then_some(bits)
}

/// The slot of a value in text (`--arg NAME=VALUE`'s VALUE) for a parameter that is not a
/// buffer: an integer for an integer kind (the options' number syntax, a sign allowed), a
/// float literal for a float kind, `local:BYTES` for `ptr.local` (or `buf:BYTES`, the
/// spelling of every other pointer: a `__local` buffer's size, as OpenCL's
/// `clSetKernelArg(k, i, BYTES, NULL)`).
pub(crate) fn parse_text(param: &ParamInfo, text: &str) -> Result<Slot, String> {
    let kind = param.kind;
    if kind == ParamKind::LocalPtr {
        let Some((form, bytes)) = text
            .strip_prefix("local:")
            .map(|b| ("local", b))
            .or_else(|| text.strip_prefix("buf:").map(|b| ("buf", b)))
        else {
            return Err(format!(
                "give local:BYTES (bytes of workgroup shared memory), not `{text}`"
            ));
        };
        let n = crate::number::parse_u64(bytes).map_err(|e| format!("{form}:BYTES: {e}"))?;
        return Ok(Slot::Local(n));
    }
    if kind.int_range().is_some() {
        let v = crate::number::parse_i128(text).map_err(|e| format!("expected an integer: {e}"))?;
        return slot_value(param, ParamValue::Int(v));
    }
    let bits = match kind {
        ParamKind::F16 => parse_literal::<F16>(text).map(u64::from),
        ParamKind::F32 => parse_literal::<F32>(text).map(u64::from),
        _ => parse_literal::<F64>(text),
    };
    match bits {
        Ok(b) => Ok(Slot::Value(ArgValue::Int(b))),
        Err(LiteralError::Syntax) if text.to_ascii_lowercase().starts_with("0x") => Err(format!(
            "`{text}` is not a float literal: a hexadecimal float needs a binary exponent \
             (0x1.8p1); give the value, not its bits"
        )),
        Err(LiteralError::Syntax) => Err(format!(
            "`{text}` is not a float literal (1.5, -2e-3, 0x1.8p1, inf, nan)"
        )),
        Err(LiteralError::Overflow) => Err(format!(
            "`{text}` is out of range for {kind}: it would round to infinity (write inf for \
             infinity)"
        )),
    }
}

/// The offset of `bytes` of local memory placed after `end` (the end of what is placed so
/// far), each 16-byte aligned, and the new end.
pub(crate) fn place_local(end: u64, bytes: u64) -> (u64, u64) {
    let offset = end.saturating_add(15) & !15;
    (offset, offset.saturating_add(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(kind: ParamKind) -> ParamInfo {
        ParamInfo {
            name: "p".into(),
            kind,
            c_type: String::new(),
        }
    }

    fn int(kind: ParamKind, v: i128) -> Result<u64, String> {
        match slot_value(&param(kind), ParamValue::Int(v))? {
            Slot::Value(ArgValue::Int(bits)) => Ok(bits),
            _ => unreachable!(),
        }
    }

    fn text(kind: ParamKind, t: &str) -> Result<u64, String> {
        match parse_text(&param(kind), t)? {
            Slot::Value(ArgValue::Int(bits)) => Ok(bits),
            Slot::Local(n) => Ok(n),
            _ => unreachable!(),
        }
    }

    #[test]
    fn integers_are_range_checked_and_extended() {
        assert_eq!(int(ParamKind::I8, -1), Ok(u64::MAX));
        assert_eq!(int(ParamKind::I8, 127), Ok(127));
        assert!(int(ParamKind::I8, 128)
            .unwrap_err()
            .contains("128 is not in -128..127"));
        assert!(int(ParamKind::U8, -1).is_err());
        assert_eq!(int(ParamKind::U32, 4294967295), Ok(0xffff_ffff));
        assert!(int(ParamKind::U32, 4294967296).is_err());
        assert_eq!(int(ParamKind::I32, -2), Ok(0xffff_ffff_ffff_fffe));
        assert_eq!(int(ParamKind::I64, i128::from(i64::MIN)), Ok(1 << 63));
        assert_eq!(int(ParamKind::U64, i128::from(u64::MAX)), Ok(u64::MAX));
        assert!(int(ParamKind::U64, i128::from(u64::MAX) + 1).is_err());
        assert_eq!(text(ParamKind::I16, "-0x10"), Ok((-16i64) as u64));
        assert_eq!(text(ParamKind::U16, "65535"), Ok(65535));
        assert!(text(ParamKind::U16, "65536").is_err());
        assert!(text(ParamKind::I32, "1.5").is_err());
    }

    #[test]
    fn floats_are_rounded_once_into_their_format() {
        assert_eq!(text(ParamKind::F32, "1.5"), Ok(0x3fc0_0000));
        assert_eq!(
            text(ParamKind::F32, "-2e-3"),
            Ok(u64::from((-2e-3f32).to_bits()))
        );
        assert_eq!(text(ParamKind::F64, "0x1.8p1"), Ok(3.0f64.to_bits()));
        assert_eq!(text(ParamKind::F16, "1.5"), Ok(0x3e00));
        assert_eq!(
            text(ParamKind::F16, "1.000488281250000000000001"),
            Ok(0x3c01)
        );
        assert_eq!(text(ParamKind::F32, "inf"), Ok(0x7f80_0000));
        assert_eq!(text(ParamKind::F32, "nan"), Ok(0x7fc0_0000));
        assert!(text(ParamKind::F32, "1e39")
            .unwrap_err()
            .contains("round to infinity"));
        assert!(text(ParamKind::F16, "70000").is_err());
        assert!(text(ParamKind::F32, "0x3f800000")
            .unwrap_err()
            .contains("binary exponent"));
        assert!(text(ParamKind::F32, "one").is_err());
        // Numbers from a binding: a binary64 and an integer, rounded once.
        let p = param(ParamKind::F16);
        assert!(matches!(
            slot_value(&p, ParamValue::Float(1.5)),
            Ok(Slot::Value(ArgValue::Int(0x3e00)))
        ));
        assert!(matches!(
            slot_value(&p, ParamValue::Int(2049)),
            Ok(Slot::Value(ArgValue::Int(0x6800)))
        ));
        assert!(slot_value(&p, ParamValue::Float(1e6)).is_err());
        assert!(matches!(
            slot_value(&p, ParamValue::Float(f64::NEG_INFINITY)),
            Ok(Slot::Value(ArgValue::Int(0xfc00)))
        ));
        assert!(slot_value(&param(ParamKind::I32), ParamValue::Float(1.0)).is_err());
    }

    #[test]
    fn kinds_take_their_values_only() {
        let buf = ParamValue::Buffer(ArgValue::Buffer(vec![1]));
        assert!(slot_value(&param(ParamKind::GlobalPtr), buf.clone()).is_ok());
        assert!(slot_value(&param(ParamKind::I32), buf).is_err());
        assert!(slot_value(&param(ParamKind::GlobalPtr), ParamValue::Int(5)).is_err());
        assert!(slot_value(&param(ParamKind::LocalPtr), ParamValue::Int(5)).is_err());
        assert_eq!(text(ParamKind::LocalPtr, "local:64"), Ok(64));
        // A pointer's other spelling, as the size of the `__local` buffer.
        assert_eq!(text(ParamKind::LocalPtr, "buf:0x40"), Ok(64));
        assert!(text(ParamKind::LocalPtr, "buf:x")
            .unwrap_err()
            .contains("buf:BYTES"));
        assert!(text(ParamKind::LocalPtr, "@in.bin")
            .unwrap_err()
            .contains("local:BYTES"));
        assert!(text(ParamKind::LocalPtr, "64")
            .unwrap_err()
            .contains("local:BYTES"));
        assert_eq!(place_local(20, 8), (32, 40));
        assert_eq!(place_local(32, 8), (32, 40));
        assert_eq!(place_local(0, 0), (0, 0));
    }

    #[test]
    fn choosing_a_kernel() {
        let p = warpkit_asm::assemble(
            ".kernel a\n.kernel b\na: endpgm\nb: endpgm\nc: endpgm\n",
            "k.s",
        )
        .unwrap();
        assert_eq!(
            select_kernel(&p, Some("b"), None).unwrap().unwrap().name,
            "b"
        );
        assert_eq!(
            select_kernel(&p, None, Some("a")).unwrap().unwrap().name,
            "a"
        );
        assert_eq!(select_kernel(&p, None, Some("c")).unwrap(), None);
        let e = select_kernel(&p, None, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the program declares 2 kernels (a, b): say which one to launch"
        );
        assert!(matches!(
            select_kernel(&p, Some("z"), None),
            Err(ParamError::NoSuchKernel { .. })
        ));
        assert!(matches!(
            select_kernel(&p, Some("a"), Some("c")),
            Err(ParamError::KernelAndEntry { .. })
        ));
        let one = warpkit_asm::assemble(".kernel a\na: endpgm\n", "k.s").unwrap();
        assert_eq!(select_kernel(&one, None, None).unwrap().unwrap().name, "a");
        let none = warpkit_asm::assemble("a: endpgm\n", "k.s").unwrap();
        assert_eq!(select_kernel(&none, None, None).unwrap(), None);
        assert!(matches!(
            select_kernel(&none, Some("a"), None),
            Err(ParamError::NoMetadata { .. })
        ));
    }
}
