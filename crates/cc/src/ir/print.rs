//! The IR as text, for tests and `--emit-ir`:
//!
//! ```text
//! kernel @vadd(a: ptr.global, n: i32) {
//!   %0 = param 0 : ptr.global
//!   %4 = cmp.ult %2, %1 : i1
//!   if %4 {
//!     store.4 %7, %6
//!     yield
//!   } else {
//!     yield
//!   }
//!   %9, %10 = loop (%1, %3) : i32, i32 {
//!   ^(%11: i32, %12: i32):
//!     loop_end %13, %14, %15
//!   }
//! }
//! ```

use super::{Function, OpId, OpKind, RegionId};
use std::fmt;

pub(super) fn function(func: &Function, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "kernel @{}(", func.name)?;
    for (i, p) in func.params.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{}: {}", p.name, p.ty)?;
    }
    f.write_str(")")?;
    if let Some([x, y, z]) = func.reqd_block {
        write!(f, " reqd_block({x}, {y}, {z})")?;
    }
    f.write_str(" {\n")?;
    for (i, l) in func.locals.iter().enumerate() {
        writeln!(
            f,
            "  local {i} {}: {} bytes, align {}",
            l.name, l.size, l.align
        )?;
    }
    for (i, p) in func.privates.iter().enumerate() {
        writeln!(
            f,
            "  private {i} {}: {} bytes, align {}",
            p.name, p.size, p.align
        )?;
    }
    region(func, func.body, 1, f)?;
    f.write_str("}\n")
}

fn region(func: &Function, id: RegionId, depth: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let indent = "  ".repeat(depth);
    let r = func.region(id);
    if !r.args.is_empty() {
        write!(f, "{}^(", "  ".repeat(depth - 1))?;
        for (i, a) in r.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "%{}: {}", a.0, func.ty(*a))?;
        }
        f.write_str("):\n")?;
    }
    for &op_id in &r.ops {
        let op = func.op(op_id);
        let line = format!("{indent}{}", op_line(func, op_id));
        match op.kind {
            OpKind::If => {
                writeln!(f, "{line} {{")?;
                region(func, op.regions[0], depth + 1, f)?;
                writeln!(f, "{indent}}} else {{")?;
                region(func, op.regions[1], depth + 1, f)?;
                writeln!(f, "{indent}}}")?;
            }
            OpKind::Loop => {
                writeln!(f, "{line} {{")?;
                region(func, op.regions[0], depth + 1, f)?;
                writeln!(f, "{indent}}}")?;
            }
            _ => writeln!(f, "{line}")?,
        }
    }
    Ok(())
}

/// One operation as its first line of IR text (results, name, operands, result types),
/// without its regions: how messages quote an operation.
pub(crate) fn op_line(func: &Function, op_id: OpId) -> String {
    let op = func.op(op_id);
    let mut line = String::new();
    if !op.results.is_empty() {
        let names: Vec<String> = op.results.iter().map(|v| format!("%{}", v.0)).collect();
        line.push_str(&names.join(", "));
        line.push_str(" = ");
    }
    line.push_str(&op_name(&op.kind));
    for (i, v) in op.operands.iter().enumerate() {
        line.push_str(if i == 0 { " " } else { ", " });
        line.push_str(&format!("%{}", v.0));
    }
    if matches!(op.kind, OpKind::Loop) && op.operands.is_empty() {
        line.push_str(" ()");
    }
    if !op.results.is_empty() {
        let tys: Vec<String> = op.results.iter().map(|v| func.ty(*v).to_string()).collect();
        line.push_str(" : ");
        line.push_str(&tys.join(", "));
    }
    line
}

fn op_name(kind: &OpKind) -> String {
    match kind {
        OpKind::Const(bits) => format!("const {bits:#x}"),
        OpKind::Undef => "undef".into(),
        OpKind::Param(i) => format!("param {i}"),
        OpKind::LocalAddr(i) => format!("local_addr {i}"),
        OpKind::PrivateAddr(i) => format!("private_addr {i}"),
        OpKind::ConstantAddr(i) => format!("constant_addr {i}"),
        OpKind::WorkItem(w) => format!("{w:?}").to_lowercase(),
        OpKind::Unary(u) => format!("{u:?}").to_lowercase(),
        OpKind::Binary(b) => format!("{b:?}").to_lowercase(),
        OpKind::Fma => "fma".into(),
        OpKind::Cmp(p) => format!("cmp.{}", format!("{p:?}").to_lowercase()),
        OpKind::Select => "select".into(),
        OpKind::Cast(c) => format!("{c:?}").to_lowercase(),
        OpKind::Math(m) => format!("math.{}", format!("{m:?}").to_lowercase()),
        OpKind::PtrAdd => "ptradd".into(),
        OpKind::Load(m) => format!("load.{}{}", if m.signed { "s" } else { "" }, m.size),
        OpKind::Store(m) => format!("store.{}", m.size),
        OpKind::Atomic(a) => format!("atomic.{}", format!("{a:?}").to_lowercase()),
        OpKind::Barrier { local, global } => format!(
            "barrier{}{}",
            flag(*local, " local"),
            flag(*global, " global")
        ),
        OpKind::Fence { local, global } => format!(
            "fence{}{}",
            flag(*local, " local"),
            flag(*global, " global")
        ),
        OpKind::If => "if".into(),
        OpKind::Loop => "loop".into(),
        OpKind::Yield => "yield".into(),
        OpKind::LoopEnd => "loop_end".into(),
    }
}

fn flag(on: bool, text: &str) -> &str {
    if on {
        text
    } else {
        ""
    }
}

impl Function {
    /// Operation `id` as the first line of its IR text (results, name, operands, result
    /// types; no regions), for messages.
    pub fn op_text(&self, id: OpId) -> String {
        op_line(self, id)
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        function(self, f)
    }
}
