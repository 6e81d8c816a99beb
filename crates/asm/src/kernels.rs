//! Kernel metadata (PROVISIONAL, docs/assembly.md "Kernel metadata", docs/elf.md): which
//! `.text` labels are kernel entries, the shared and scratch memory they use, a required
//! workgroup size, and their parameters, one per argument slot. The assembler fills it
//! from `.kernel` and `.param`; ELF objects carry it as JSON in `.warpkit.kernels`.

use std::fmt;

/// One kernel entry point and what launching it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelInfo {
    /// The `.text` label where its warps start.
    pub name: String,
    /// Static workgroup shared memory the kernel uses, in bytes (`shared=`); a launch
    /// gives at least this much.
    pub shared_bytes: u32,
    /// Per-lane scratch memory the kernel needs, in bytes (`scratch=`).
    pub scratch_bytes: u32,
    /// The workgroup size the kernel requires (`block=XxYxZ`, OpenCL's
    /// `reqd_work_group_size`), if any.
    pub block: Option<[u32; 3]>,
    /// Its parameters in argument-slot order: parameter k is the 8-byte slot at offset
    /// `8*k` of the argument block (docs/abi.md).
    pub params: Vec<ParamInfo>,
}

impl KernelInfo {
    /// A kernel named `name` with no shared or scratch memory, no required block and no
    /// parameters.
    pub fn new(name: &str) -> KernelInfo {
        KernelInfo {
            name: name.to_string(),
            shared_bytes: 0,
            scratch_bytes: 0,
            block: None,
            params: Vec::new(),
        }
    }

    /// The parameter called `name`, with its slot index.
    pub fn param(&self, name: &str) -> Option<(usize, &ParamInfo)> {
        self.params.iter().enumerate().find(|(_, p)| p.name == name)
    }

    /// The parameter names, comma-separated: `a, b, n`.
    pub fn param_list(&self) -> String {
        let names: Vec<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
        names.join(", ")
    }
}

/// One kernel parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamInfo {
    /// The parameter's name, as `--arg NAME=VALUE` gives it.
    pub name: String,
    /// What its slot holds.
    pub kind: ParamKind,
    /// Its C type as the source wrote it (`const float *`), for messages and listings;
    /// empty when not given.
    pub c_type: String,
}

impl ParamInfo {
    /// The type to show in messages: the C type when known, else the kind.
    pub fn type_text(&self) -> &str {
        if self.c_type.is_empty() {
            self.kind.name()
        } else {
            &self.c_type
        }
    }
}

impl fmt::Display for ParamInfo {
    /// `` `a` (const float *) ``: the name and the type to show.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` ({})", self.name, self.type_text())
    }
}

/// What a parameter's 8-byte argument slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// `ptr.global`: the 64-bit address of a global-memory buffer.
    GlobalPtr,
    /// `ptr.constant`: the 64-bit address of a buffer the kernel only reads (OpenCL
    /// `constant`); mapped as global memory.
    ConstantPtr,
    /// `ptr.local`: the 32-bit workgroup shared-memory offset of memory the launcher
    /// allocates after the kernel's static shared memory.
    LocalPtr,
    /// `i8`: a signed 8-bit integer, sign-extended to 64 bits.
    I8,
    /// `u8`: an unsigned 8-bit integer, zero-extended.
    U8,
    /// `i16`: a signed 16-bit integer, sign-extended.
    I16,
    /// `u16`: an unsigned 16-bit integer, zero-extended.
    U16,
    /// `i32`: a signed 32-bit integer, sign-extended.
    I32,
    /// `u32`: an unsigned 32-bit integer, zero-extended.
    U32,
    /// `i64`: a signed 64-bit integer.
    I64,
    /// `u64`: an unsigned 64-bit integer.
    U64,
    /// `f16`: an IEEE binary16 value in the low 2 bytes, the rest 0.
    F16,
    /// `f32`: an IEEE binary32 value in the low 4 bytes, the rest 0.
    F32,
    /// `f64`: an IEEE binary64 value.
    F64,
}

impl ParamKind {
    /// Every kind, in the order the documentation lists them.
    pub const ALL: [ParamKind; 14] = [
        ParamKind::GlobalPtr,
        ParamKind::ConstantPtr,
        ParamKind::LocalPtr,
        ParamKind::I8,
        ParamKind::U8,
        ParamKind::I16,
        ParamKind::U16,
        ParamKind::I32,
        ParamKind::U32,
        ParamKind::I64,
        ParamKind::U64,
        ParamKind::F16,
        ParamKind::F32,
        ParamKind::F64,
    ];

    /// The kind's name in `.param` and in the ELF metadata: `ptr.global`, `i32`, `f32`, ...
    pub fn name(self) -> &'static str {
        match self {
            ParamKind::GlobalPtr => "ptr.global",
            ParamKind::ConstantPtr => "ptr.constant",
            ParamKind::LocalPtr => "ptr.local",
            ParamKind::I8 => "i8",
            ParamKind::U8 => "u8",
            ParamKind::I16 => "i16",
            ParamKind::U16 => "u16",
            ParamKind::I32 => "i32",
            ParamKind::U32 => "u32",
            ParamKind::I64 => "i64",
            ParamKind::U64 => "u64",
            ParamKind::F16 => "f16",
            ParamKind::F32 => "f32",
            ParamKind::F64 => "f64",
        }
    }

    /// The kind called `name` (as [`ParamKind::name`] writes it).
    pub fn from_name(name: &str) -> Option<ParamKind> {
        ParamKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Every kind's name, comma-separated, for messages.
    pub fn names() -> String {
        let names: Vec<&str> = ParamKind::ALL.iter().map(|k| k.name()).collect();
        names.join(", ")
    }

    /// Whether the slot holds a buffer's global address (`ptr.global`, `ptr.constant`).
    pub fn is_buffer(self) -> bool {
        matches!(self, ParamKind::GlobalPtr | ParamKind::ConstantPtr)
    }

    /// The smallest and largest value of an integer kind.
    pub fn int_range(self) -> Option<(i128, i128)> {
        let signed = |bits: u32| (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
        let unsigned = |bits: u32| (0, (1i128 << bits) - 1);
        Some(match self {
            ParamKind::I8 => signed(8),
            ParamKind::U8 => unsigned(8),
            ParamKind::I16 => signed(16),
            ParamKind::U16 => unsigned(16),
            ParamKind::I32 => signed(32),
            ParamKind::U32 => unsigned(32),
            ParamKind::I64 => signed(64),
            ParamKind::U64 => unsigned(64),
            _ => return None,
        })
    }

    /// The width in bits of a floating-point kind.
    pub fn float_bits(self) -> Option<u32> {
        match self {
            ParamKind::F16 => Some(16),
            ParamKind::F32 => Some(32),
            ParamKind::F64 => Some(64),
            _ => None,
        }
    }
}

impl fmt::Display for ParamKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The version of the `.warpkit.kernels` JSON schema (docs/elf.md).
pub const KERNELS_SCHEMA_VERSION: u64 = 1;

/// `kernels` as the JSON text of the `.warpkit.kernels` section.
pub(crate) fn to_json(kernels: &[KernelInfo]) -> String {
    let list: Vec<serde_json::Value> = kernels
        .iter()
        .map(|k| {
            serde_json::json!({
                "name": k.name,
                "shared_bytes": k.shared_bytes,
                "scratch_bytes": k.scratch_bytes,
                "block": k.block,
                "params": k.params.iter().map(|p| serde_json::json!({
                    "name": p.name,
                    "kind": p.kind.name(),
                    "c_type": p.c_type,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({"version": KERNELS_SCHEMA_VERSION, "kernels": list}).to_string()
}

/// The kernels of a `.warpkit.kernels` section, checked; `Err` says what is malformed.
pub(crate) fn from_json(bytes: &[u8]) -> Result<Vec<KernelInfo>, String> {
    use serde_json::Value;
    let root: Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    let version = root.get("version").and_then(Value::as_u64);
    if version != Some(KERNELS_SCHEMA_VERSION) {
        return Err(format!(
            "schema version {}, but this warpkit reads only version {KERNELS_SCHEMA_VERSION}",
            root.get("version")
                .map_or("(none)".into(), Value::to_string)
        ));
    }
    let list = root
        .get("kernels")
        .and_then(Value::as_array)
        .ok_or("no `kernels` array")?;
    let mut kernels: Vec<KernelInfo> = Vec::with_capacity(list.len());
    for (i, k) in list.iter().enumerate() {
        let at = |what: &str| format!("kernel {i}: {what}");
        let name = text(k, "name").filter(|n| !n.is_empty());
        let name = name.ok_or_else(|| at("`name` is not a non-empty string"))?;
        if kernels.iter().any(|other| other.name == name) {
            return Err(at(&format!("kernel `{name}` is described twice")));
        }
        let bytes = |key: &str| -> Result<u32, String> {
            k.get(key)
                .and_then(Value::as_u64)
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| at(&format!("`{key}` is not a byte count (0 to 4294967295)")))
        };
        let block = match k.get("block") {
            None | Some(Value::Null) => None,
            Some(v) => {
                let dims: Option<Vec<u32>> = v.as_array().and_then(|a| {
                    a.iter()
                        .map(|d| d.as_u64().and_then(|d| u32::try_from(d).ok()))
                        .collect()
                });
                match dims.as_deref() {
                    Some(&[x, y, z]) if x > 0 && y > 0 && z > 0 => Some([x, y, z]),
                    _ => return Err(at("`block` is not null or [x, y, z] of positive sizes")),
                }
            }
        };
        let params_json = k
            .get("params")
            .and_then(Value::as_array)
            .ok_or_else(|| at("no `params` array"))?;
        let mut params: Vec<ParamInfo> = Vec::with_capacity(params_json.len());
        for (j, p) in params_json.iter().enumerate() {
            let at = |what: &str| format!("kernel `{name}`: parameter {j}: {what}");
            let pname = text(p, "name").filter(|n| !n.is_empty());
            let pname = pname.ok_or_else(|| at("`name` is not a non-empty string"))?;
            if params.iter().any(|q| q.name == pname) {
                return Err(at(&format!("the name `{pname}` is used twice")));
            }
            let kind = text(p, "kind").ok_or_else(|| at("`kind` is not a string"))?;
            let kind =
                ParamKind::from_name(kind).ok_or_else(|| at(&format!("unknown kind `{kind}`")))?;
            let c_type = match p.get("c_type") {
                None | Some(Value::Null) => "",
                Some(v) => v.as_str().ok_or_else(|| at("`c_type` is not a string"))?,
            };
            params.push(ParamInfo {
                name: pname.to_string(),
                kind,
                c_type: c_type.to_string(),
            });
        }
        kernels.push(KernelInfo {
            name: name.to_string(),
            shared_bytes: bytes("shared_bytes")?,
            scratch_bytes: bytes("scratch_bytes")?,
            block,
            params,
        });
    }
    Ok(kernels)
}

fn text<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(serde_json::Value::as_str)
}

/// `kernels` as the `.kernel` and `.param` directives that declare them, one a line; a
/// name the assembler would not read back makes its line a comment.
pub(crate) fn directives(kernels: &[KernelInfo]) -> String {
    use fmt::Write;
    let mut out = String::new();
    let name_ok = |n: &str| {
        let b = n.as_bytes();
        !b.is_empty()
            && crate::lex::is_ident_start(b[0])
            && crate::lex::ident_end(b, 0) == b.len()
            && n != "."
            && !n.starts_with(".L")
    };
    for k in kernels {
        let comment = if name_ok(&k.name) { "" } else { "// " };
        let _ = write!(out, "{comment}.kernel {}", k.name);
        if k.shared_bytes != 0 {
            let _ = write!(out, ", shared={}", k.shared_bytes);
        }
        if k.scratch_bytes != 0 {
            let _ = write!(out, ", scratch={}", k.scratch_bytes);
        }
        if let Some([x, y, z]) = k.block {
            let _ = write!(out, ", block={x}x{y}x{z}");
        }
        out.push('\n');
        for p in &k.params {
            let comment = if comment.is_empty() && name_ok(&p.name) {
                ""
            } else {
                "// "
            };
            let _ = write!(out, "{comment}.param {}, {}, {}", k.name, p.name, p.kind);
            if !p.c_type.is_empty() {
                let _ = write!(out, ", {}", string_literal(&p.c_type));
            }
            out.push('\n');
        }
    }
    out
}

/// `text` as an assembler string literal that reads back as the same bytes.
fn string_literal(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                s.push_str(&format!("\\{:03o}", c as u32));
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<KernelInfo> {
        vec![
            KernelInfo {
                name: "vadd".into(),
                shared_bytes: 256,
                scratch_bytes: 16,
                block: Some([64, 1, 1]),
                params: vec![
                    ParamInfo {
                        name: "a".into(),
                        kind: ParamKind::ConstantPtr,
                        c_type: "const float *\"q\"\\\n".into(),
                    },
                    ParamInfo {
                        name: "n".into(),
                        kind: ParamKind::I32,
                        c_type: String::new(),
                    },
                ],
            },
            KernelInfo::new("other"),
        ]
    }

    #[test]
    fn json_round_trip() {
        let k = sample();
        assert_eq!(from_json(to_json(&k).as_bytes()), Ok(k));
        assert_eq!(from_json(to_json(&[]).as_bytes()), Ok(Vec::new()));
    }

    #[test]
    fn malformed_json_is_an_error_saying_what() {
        for (text, says) in [
            ("[", "not JSON"),
            ("{\"version\": 2, \"kernels\": []}", "schema version 2"),
            ("{\"version\": 1}", "no `kernels` array"),
            ("{\"version\": 1, \"kernels\": [{}]}", "`name`"),
            (
                "{\"version\": 1, \"kernels\": [{\"name\": \"k\", \"shared_bytes\": -1, \"scratch_bytes\": 0, \"params\": []}]}",
                "`shared_bytes`",
            ),
            (
                "{\"version\": 1, \"kernels\": [{\"name\": \"k\", \"shared_bytes\": 0, \"scratch_bytes\": 0, \"block\": [1, 0, 1], \"params\": []}]}",
                "`block`",
            ),
            (
                "{\"version\": 1, \"kernels\": [{\"name\": \"k\", \"shared_bytes\": 0, \"scratch_bytes\": 0, \"params\": [{\"name\": \"a\", \"kind\": \"ptr.far\"}]}]}",
                "unknown kind `ptr.far`",
            ),
            (
                "{\"version\": 1, \"kernels\": [{\"name\": \"k\", \"shared_bytes\": 0, \"scratch_bytes\": 0, \"params\": [{\"name\": \"a\", \"kind\": \"i8\"}, {\"name\": \"a\", \"kind\": \"i8\"}]}]}",
                "used twice",
            ),
            (
                "{\"version\": 1, \"kernels\": [{\"name\": \"k\", \"shared_bytes\": 0, \"scratch_bytes\": 0, \"params\": []}, {\"name\": \"k\", \"shared_bytes\": 0, \"scratch_bytes\": 0, \"params\": []}]}",
                "described twice",
            ),
        ] {
            let e = from_json(text.as_bytes()).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn kinds_and_ranges() {
        for k in ParamKind::ALL {
            assert_eq!(ParamKind::from_name(k.name()), Some(k));
        }
        assert_eq!(ParamKind::I8.int_range(), Some((-128, 127)));
        assert_eq!(ParamKind::U32.int_range(), Some((0, 4294967295)));
        assert_eq!(
            ParamKind::I64.int_range(),
            Some((i128::from(i64::MIN), i128::from(i64::MAX)))
        );
        assert_eq!(ParamKind::F16.float_bits(), Some(16));
        assert!(ParamKind::ConstantPtr.is_buffer() && !ParamKind::LocalPtr.is_buffer());
        assert_eq!(string_literal("a\"\\\n\u{1}é"), "\"a\\\"\\\\\\n\\001é\"");
    }
}
