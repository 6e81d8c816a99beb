//! The IR's text form (as [`super::Function`]'s `Display` prints it) read back, so that
//! tests of passes and of the back end can be written as text.

use super::*;
use std::collections::HashMap;

/// Why IR text did not parse.
#[derive(Debug, thiserror::Error)]
#[error("IR text line {line}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

struct Parser<'a> {
    lines: Vec<(usize, &'a str)>,
    pos: usize,
    names: HashMap<String, ValueId>,
    f: Function,
}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        line,
        message: message.into(),
    })
}

fn parse_ty(s: &str, line: usize) -> Result<Ty, ParseError> {
    Ok(match s.trim() {
        "i1" => Ty::I1,
        "i32" => Ty::I32,
        "i64" => Ty::I64,
        "f16" => Ty::F16,
        "f32" => Ty::F32,
        "f64" => Ty::F64,
        "ptr.global" => Ty::Ptr(Space::Global),
        "ptr.constant" => Ty::Ptr(Space::Constant),
        "ptr.local" => Ty::Ptr(Space::Local),
        "ptr.private" => Ty::Ptr(Space::Private),
        other => return err(line, format!("unknown type `{other}`")),
    })
}

fn kind_for(ty: Ty) -> ParamKind {
    match ty {
        Ty::Ptr(Space::Global) => ParamKind::PtrGlobal,
        Ty::Ptr(Space::Constant) => ParamKind::PtrConstant,
        Ty::Ptr(_) => ParamKind::PtrLocal,
        Ty::I64 => ParamKind::I64,
        Ty::F16 => ParamKind::F16,
        Ty::F32 => ParamKind::F32,
        Ty::F64 => ParamKind::F64,
        _ => ParamKind::I32,
    }
}

fn lower_names<T: std::fmt::Debug>(all: &[T], name: &str) -> Option<usize> {
    all.iter()
        .position(|x| format!("{x:?}").to_lowercase() == name)
}

fn op_kind(word: &str, rest: &[&str], line: usize) -> Result<OpKind, ParseError> {
    use OpKind::*;
    let num = |i: usize| -> Result<u32, ParseError> {
        rest.get(i)
            .and_then(|s| s.trim().parse().ok())
            .map_or_else(|| err(line, format!("`{word}` needs a number")), Ok)
    };
    Ok(match word {
        "const" => {
            let t = rest.first().copied().unwrap_or("");
            let v = if let Some(h) = t.strip_prefix("0x") {
                u64::from_str_radix(h, 16).ok()
            } else {
                t.parse().ok()
            };
            Const(v.map_or_else(|| err(line, "bad constant"), Ok)?)
        }
        "undef" => Undef,
        "param" => Param(num(0)?),
        "local_addr" => LocalAddr(num(0)?),
        "private_addr" => PrivateAddr(num(0)?),
        "constant_addr" => ConstantAddr(num(0)?),
        "fma" => Fma,
        "select" => Select,
        "ptradd" => PtrAdd,
        "if" => If,
        "loop" => Loop,
        "yield" => Yield,
        "loop_end" => LoopEnd,
        "workdim" => WorkItem(super::WorkItem::WorkDim),
        w if w.starts_with("localid(")
            || w.starts_with("groupid(")
            || w.starts_with("localsize(")
            || w.starts_with("numgroups(") =>
        {
            let d: u8 = w[w.find('(').unwrap() + 1..w.len() - 1]
                .parse()
                .map_or_else(|_| err(line, "bad dimension"), Ok)?;
            WorkItem(match &w[..w.find('(').unwrap()] {
                "localid" => super::WorkItem::LocalId(d),
                "groupid" => super::WorkItem::GroupId(d),
                "localsize" => super::WorkItem::LocalSize(d),
                _ => super::WorkItem::NumGroups(d),
            })
        }
        w if w.starts_with("cmp.") => {
            const ALL: [CmpPred; 18] = [
                CmpPred::Eq,
                CmpPred::Ne,
                CmpPred::Slt,
                CmpPred::Sle,
                CmpPred::Sgt,
                CmpPred::Sge,
                CmpPred::Ult,
                CmpPred::Ule,
                CmpPred::Ugt,
                CmpPred::Uge,
                CmpPred::FOeq,
                CmpPred::FOlt,
                CmpPred::FOle,
                CmpPred::FOgt,
                CmpPred::FOge,
                CmpPred::FUne,
                CmpPred::FOrd,
                CmpPred::FUno,
            ];
            Cmp(ALL[lower_names(&ALL, &w[4..]).map_or_else(|| err(line, "bad predicate"), Ok)?])
        }
        w if w.starts_with("math.") => {
            const ALL: [MathOp; 7] = [
                MathOp::Sqrt,
                MathOp::Rcp,
                MathOp::Rsqrt,
                MathOp::Exp2,
                MathOp::Log2,
                MathOp::SinPi,
                MathOp::CosPi,
            ];
            Math(ALL[lower_names(&ALL, &w[5..]).map_or_else(|| err(line, "bad math op"), Ok)?])
        }
        w if w.starts_with("atomic.") => {
            const ALL: [AtomicOp; 11] = [
                AtomicOp::Add,
                AtomicOp::Sub,
                AtomicOp::SMin,
                AtomicOp::UMin,
                AtomicOp::SMax,
                AtomicOp::UMax,
                AtomicOp::And,
                AtomicOp::Or,
                AtomicOp::Xor,
                AtomicOp::Xchg,
                AtomicOp::CmpXchg,
            ];
            Atomic(ALL[lower_names(&ALL, &w[7..]).map_or_else(|| err(line, "bad atomic"), Ok)?])
        }
        w if w.starts_with("load.") || w.starts_with("store.") => {
            let tail = &w[w.find('.').unwrap() + 1..];
            let (signed, digits) = match tail.strip_prefix('s') {
                Some(d) => (true, d),
                None => (false, tail),
            };
            let size = digits.parse().map_or_else(|_| err(line, "bad size"), Ok)?;
            let m = MemTy { size, signed };
            if w.starts_with("load.") {
                Load(m)
            } else {
                Store(m)
            }
        }
        "barrier" | "fence" => {
            let local = rest.iter().any(|s| s.trim() == "local");
            let global = rest.iter().any(|s| s.trim() == "global");
            if word == "barrier" {
                Barrier { local, global }
            } else {
                Fence { local, global }
            }
        }
        w => {
            const UN: [UnOp; 9] = [
                UnOp::Neg,
                UnOp::Not,
                UnOp::Clz,
                UnOp::Ctz,
                UnOp::Popcount,
                UnOp::Brev,
                UnOp::Abs,
                UnOp::FNeg,
                UnOp::FAbs,
            ];
            const BIN: [BinOp; 26] = [
                BinOp::Add,
                BinOp::Sub,
                BinOp::Mul,
                BinOp::MulHiS,
                BinOp::MulHiU,
                BinOp::SDiv,
                BinOp::UDiv,
                BinOp::SRem,
                BinOp::URem,
                BinOp::And,
                BinOp::Or,
                BinOp::Xor,
                BinOp::Shl,
                BinOp::LShr,
                BinOp::AShr,
                BinOp::Rotl,
                BinOp::SMin,
                BinOp::SMax,
                BinOp::UMin,
                BinOp::UMax,
                BinOp::FAdd,
                BinOp::FSub,
                BinOp::FMul,
                BinOp::FDiv,
                BinOp::FMin,
                BinOp::FMax,
            ];
            const CASTS: [CastOp; 14] = [
                CastOp::ZExt,
                CastOp::SExt,
                CastOp::Trunc,
                CastOp::SExt8,
                CastOp::SExt16,
                CastOp::ZExt8,
                CastOp::ZExt16,
                CastOp::FToSI,
                CastOp::FToUI,
                CastOp::SIToF,
                CastOp::UIToF,
                CastOp::FExt,
                CastOp::FTrunc,
                CastOp::Bitcast,
            ];
            if let Some(i) = lower_names(&UN, w) {
                Unary(UN[i])
            } else if let Some(i) = lower_names(&BIN, w) {
                Binary(BIN[i])
            } else if let Some(i) = lower_names(&CASTS, w) {
                Cast(CASTS[i])
            } else {
                return err(line, format!("unknown operation `{w}`"));
            }
        }
    })
}

impl<'a> Parser<'a> {
    fn value(&mut self, name: &str, line: usize) -> Result<ValueId, ParseError> {
        self.names
            .get(name.trim())
            .copied()
            .map_or_else(|| err(line, format!("unknown value `{}`", name.trim())), Ok)
    }

    /// Parse region contents until a line `}` or `} else {`.
    fn region(&mut self, region: RegionId) -> Result<&'a str, ParseError> {
        while self.pos < self.lines.len() {
            let (line, text) = self.lines[self.pos];
            self.pos += 1;
            let t = text.trim();
            if t.starts_with('}') {
                return Ok(t);
            }
            if let Some(args) = t.strip_prefix("^(").and_then(|s| s.strip_suffix("):")) {
                let mut vals = Vec::new();
                for a in args.split(',') {
                    let (name, ty) = a
                        .split_once(':')
                        .map_or_else(|| err(line, "bad region argument"), Ok)?;
                    vals.push((name.trim().to_string(), parse_ty(ty, line)?));
                }
                let tys: Vec<Ty> = vals.iter().map(|(_, t)| *t).collect();
                let fresh = self.f.new_region(&tys);
                let ids = self.f.region(fresh).args.clone();
                // Move the arguments to `region` (created before its arguments were known).
                self.f.region_mut(region).args = ids.clone();
                for (i, &id) in ids.iter().enumerate() {
                    self.f.values[id.0 as usize].def = ValueDef::Arg(region, i as u32);
                    self.names.insert(vals[i].0.clone(), id);
                }
                continue;
            }
            self.statement(region, line, t)?;
        }
        err(self.lines.len(), "missing `}`")
    }

    fn statement(&mut self, region: RegionId, line: usize, t: &str) -> Result<(), ParseError> {
        let (lhs, rhs) = match t.split_once(" = ") {
            Some((l, r)) => (Some(l), r),
            None => (None, t),
        };
        let opens = rhs.ends_with('{');
        let rhs = rhs.trim_end_matches('{').trim();
        let (body, tys) = match rhs.rsplit_once(" : ") {
            Some((b, t)) => (b, Some(t)),
            None => (rhs, None),
        };
        let (word, args) = body.split_once(' ').unwrap_or((body, ""));
        let args: Vec<&str> = if args.is_empty() {
            vec![]
        } else {
            args.split(',').collect()
        };
        let kind = op_kind(word, &args, line)?;
        let takes_operands = !matches!(
            kind,
            OpKind::Const(_)
                | OpKind::Param(_)
                | OpKind::LocalAddr(_)
                | OpKind::PrivateAddr(_)
                | OpKind::ConstantAddr(_)
                | OpKind::Barrier { .. }
                | OpKind::Fence { .. }
        );
        let mut operands = Vec::new();
        if takes_operands {
            for a in &args {
                let a = a.trim();
                if a == "()" || a.is_empty() {
                    continue;
                }
                operands.push(self.value(a, line)?);
            }
        }
        let result_tys: Vec<Ty> = match tys {
            Some(t) => t
                .split(',')
                .map(|s| parse_ty(s, line))
                .collect::<Result<_, _>>()?,
            None => vec![],
        };
        let mut regions = Vec::new();
        if opens {
            let first = self.f.new_region(&[]);
            regions.push(first);
            let end = self.region(first)?;
            if matches!(kind, OpKind::If) {
                if !end.contains("else") {
                    return err(line, "`if` needs `} else {`");
                }
                let second = self.f.new_region(&[]);
                regions.push(second);
                self.region(second)?;
            }
        }
        let op = self.f.push_op(
            region,
            kind,
            operands,
            &result_tys,
            regions,
            crate::source::Span::DUMMY,
        );
        if let Some(l) = lhs {
            let results = self.f.op(op).results.clone();
            let names: Vec<&str> = l.split(',').map(str::trim).collect();
            if names.len() != results.len() {
                return err(line, "result count does not match the types");
            }
            for (n, r) in names.iter().zip(results) {
                self.names.insert(n.to_string(), r);
            }
        }
        Ok(())
    }
}

/// Parse one kernel in the printer's format.
pub fn parse_function(text: &str) -> Result<Function, ParseError> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim().starts_with("//"))
        .collect();
    let Some(&(line, head)) = lines.first() else {
        return err(1, "empty text");
    };
    let head = head.trim();
    let rest = head
        .strip_prefix("kernel @")
        .map_or_else(|| err(line, "expected `kernel @name(`"), Ok)?;
    let (name, rest) = rest
        .split_once('(')
        .map_or_else(|| err(line, "expected `(`"), Ok)?;
    let (params, _) = rest
        .split_once(')')
        .map_or_else(|| err(line, "expected `)`"), Ok)?;
    let mut f = Function::new(name, crate::source::Span::DUMMY);
    for p in params.split(',').filter(|p| !p.trim().is_empty()) {
        let (n, t) = p
            .split_once(':')
            .map_or_else(|| err(line, "bad parameter"), Ok)?;
        let ty = parse_ty(t, line)?;
        f.params.push(Param {
            name: n.trim().to_string(),
            kind: kind_for(ty),
            ty,
            c_type: String::new(),
            span: crate::source::Span::DUMMY,
        });
    }
    let mut p = Parser {
        lines,
        pos: 1,
        names: HashMap::new(),
        f,
    };
    // Object declarations.
    while p.pos < p.lines.len() {
        let (line, t) = p.lines[p.pos];
        let t = t.trim();
        let (is_local, rest) = if let Some(r) = t.strip_prefix("local ") {
            (true, r)
        } else if let Some(r) = t.strip_prefix("private ") {
            (false, r)
        } else {
            break;
        };
        // `0 name: 64 bytes, align 4`
        let parts: Vec<&str> = rest.split_whitespace().collect();
        let size = parts.get(2).and_then(|s| s.parse().ok());
        let align = parts.get(5).and_then(|s| s.parse().ok());
        let (Some(size), Some(align)) = (size, align) else {
            return err(line, "expected `local N name: SIZE bytes, align A`");
        };
        let obj = MemObject {
            name: parts
                .get(1)
                .unwrap_or(&"")
                .trim_end_matches(':')
                .to_string(),
            size,
            align,
            span: crate::source::Span::DUMMY,
        };
        if is_local {
            p.f.locals.push(obj);
        } else {
            p.f.privates.push(obj);
        }
        p.pos += 1;
    }
    let body = p.f.body;
    p.region(body)?;
    Ok(p.f)
}
