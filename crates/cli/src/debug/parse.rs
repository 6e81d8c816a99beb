//! The debugger's small languages: register references (`v5`, `v5[3]`, `u[4:5]`, `exec`,
//! CSR names), addresses (`0x100`, `shared:0x40`, a buffer name, `u[16:17]`, each with an
//! optional `+OFFSET`), `x/NFU` formats and breakpoint conditions (`v5[3] == 7`).

use warpkit_host::number::parse_u64;
use warpkit_sim::{NUM_UREGS, NUM_VREGS};

/// A register, a lane of one, or a CSR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reg {
    /// Every lane of a vector register.
    V(u32),
    VLane(u32, u32),
    U(u32),
    /// Uniform registers `first..=last` (`u[4:5]`).
    URange(u32, u32),
    Pc,
    Exec,
    /// A CSR by name (`mode`, `trapcause`, ...) and its number.
    Csr(String, u32),
}

/// An error in a command, shown as `error: ...`.
pub type Error = String;

fn number(text: &str) -> Result<u64, Error> {
    parse_u64(text.trim()).map_err(|_| format!("`{}` is not a number", text.trim()))
}

fn index(text: &str, what: &str, limit: u32) -> Result<u32, Error> {
    let n = number(text)?;
    u32::try_from(n)
        .ok()
        .filter(|&n| n < limit)
        .ok_or_else(|| format!("{what} {n} is out of range (0 to {})", limit - 1))
}

/// Parse a register reference.
pub fn reg(text: &str) -> Result<Reg, Error> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    match lower.as_str() {
        "pc" => return Ok(Reg::Pc),
        "exec" => return Ok(Reg::Exec),
        _ => {}
    }
    if let Some(rest) = lower.strip_prefix("u[") {
        let inner = rest
            .strip_suffix(']')
            .ok_or_else(|| format!("`{t}`: expected u[FIRST:LAST]"))?;
        let (a, b) = inner
            .split_once(':')
            .ok_or_else(|| format!("`{t}`: expected u[FIRST:LAST]"))?;
        let (a, b) = (
            index(a, "uniform register", NUM_UREGS as u32)?,
            index(b, "uniform register", NUM_UREGS as u32)?,
        );
        if b < a {
            return Err(format!("`{t}`: the last register is before the first"));
        }
        return Ok(Reg::URange(a, b));
    }
    if let Some(rest) = lower.strip_prefix('v') {
        if let Some((r, lane)) = rest.split_once('[') {
            let lane = lane
                .strip_suffix(']')
                .ok_or_else(|| format!("`{t}`: expected vN[LANE]"))?;
            let r = index(r, "vector register", NUM_VREGS as u32)?;
            let lane = index(lane, "lane", 32)?;
            return Ok(Reg::VLane(r, lane));
        }
        if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(Reg::V(index(rest, "vector register", NUM_VREGS as u32)?));
        }
    }
    if let Some(rest) = lower.strip_prefix('u') {
        if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(Reg::U(index(rest, "uniform register", NUM_UREGS as u32)?));
        }
    }
    if let Some(c) = warpkit_isa::csr_by_name(&lower) {
        return Ok(Reg::Csr(c.name.to_string(), u32::from(c.number)));
    }
    Err(format!(
        "`{t}` is not a register: expected vN, vN[LANE], uN, u[A:B], pc, exec or a CSR name"
    ))
}

/// Where an address points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    Global,
    Shared,
}

/// An address before it is resolved: a base (number, buffer name or register pair) plus
/// an offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddrExpr {
    pub space: Space,
    pub base: AddrBase,
    pub offset: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddrBase {
    Number(u64),
    /// A buffer argument or a label.
    Name(String),
    /// A uniform register pair `u[N:N+1]`.
    UPair(u32),
}

pub fn addr(text: &str) -> Result<AddrExpr, Error> {
    let t = text.trim();
    if t.is_empty() {
        return Err("expected an address".into());
    }
    let (space, rest) = match t.strip_prefix("shared:") {
        Some(r) => (Space::Shared, r.trim()),
        None => (Space::Global, t),
    };
    let (base, offset) = match rest.split_once('+') {
        Some((b, o)) => (b.trim(), number(o)?),
        None => (rest, 0),
    };
    let base = if base.starts_with(|c: char| c.is_ascii_digit()) {
        AddrBase::Number(number(base)?)
    } else if base.starts_with("u[") {
        match reg(base)? {
            Reg::URange(a, b) if b == a + 1 => AddrBase::UPair(a),
            _ => return Err(format!("`{base}`: an address register is a pair u[N:N+1]")),
        }
    } else if !base.is_empty()
        && base
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
    {
        AddrBase::Name(base.to_string())
    } else {
        return Err(format!("`{t}` is not an address"));
    };
    Ok(AddrExpr {
        space,
        base,
        offset,
    })
}

/// How `x` prints: count, format (`x` hex, `d` signed, `u` unsigned) and unit size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    pub count: u64,
    pub radix: char,
    /// Bytes per unit: 1 (`b`), 2 (`h`), 4 (`w`).
    pub size: u32,
}

/// The most units one `x` prints.
pub const MAX_EXAMINE: u64 = 4096;

/// Parse the `/NFU` after `x` (without the slash); missing parts default to 1, `x`, `w`.
pub fn format(text: &str) -> Result<Format, Error> {
    let digits: String = text.chars().take_while(|c| c.is_ascii_digit()).collect();
    let count = if digits.is_empty() {
        1
    } else {
        digits
            .parse::<u64>()
            .map_err(|_| format!("x/{text}: bad count"))?
    };
    if count == 0 || count > MAX_EXAMINE {
        return Err(format!("x/{text}: the count must be 1 to {MAX_EXAMINE}"));
    }
    let mut f = Format {
        count,
        radix: 'x',
        size: 4,
    };
    for c in text[digits.len()..].chars() {
        match c {
            'x' | 'd' | 'u' => f.radix = c,
            'b' => f.size = 1,
            'h' => f.size = 2,
            'w' => f.size = 4,
            _ => {
                return Err(format!(
                    "x/{text}: unknown letter `{c}` (formats x, d, u; units b, h, w)"
                ))
            }
        }
    }
    Ok(f)
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    pub fn holds(self, a: u64, b: u64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

/// `REG CMP NUMBER`: a breakpoint's condition. For a whole vector register it holds when
/// it holds in any active lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cond {
    pub reg: Reg,
    pub cmp: Cmp,
    pub value: u64,
    /// As written, for listings.
    pub text: String,
}

pub fn cond(text: &str) -> Result<Cond, Error> {
    let t = text.trim();
    for (sym, cmp) in [
        ("==", Cmp::Eq),
        ("!=", Cmp::Ne),
        ("<=", Cmp::Le),
        (">=", Cmp::Ge),
        ("<", Cmp::Lt),
        (">", Cmp::Gt),
    ] {
        if let Some((l, r)) = t.split_once(sym) {
            let reg = reg(l)?;
            if matches!(reg, Reg::URange(a, b) if b != a + 1) {
                return Err("a condition compares one register, a lane or a pair".into());
            }
            return Ok(Cond {
                reg,
                cmp,
                value: number(r)?,
                text: t.to_string(),
            });
        }
    }
    Err(format!(
        "`{t}`: expected REGISTER OP NUMBER, OP one of == != < <= > >="
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers() {
        assert_eq!(reg("v5"), Ok(Reg::V(5)));
        assert_eq!(reg("v5[3]"), Ok(Reg::VLane(5, 3)));
        assert_eq!(reg("u[4:5]"), Ok(Reg::URange(4, 5)));
        assert_eq!(reg("U7"), Ok(Reg::U(7)));
        assert_eq!(reg("exec"), Ok(Reg::Exec));
        assert!(matches!(reg("mode"), Ok(Reg::Csr(..))));
        assert!(reg("v5[32]").unwrap_err().contains("out of range"));
        assert!(reg("v128").unwrap_err().contains("out of range"));
        assert!(reg("u[5:4]").is_err());
        assert!(reg("w3").unwrap_err().contains("not a register"));
    }

    #[test]
    fn addresses_formats_conditions() {
        assert_eq!(
            addr("shared:0x40+4"),
            Ok(AddrExpr {
                space: Space::Shared,
                base: AddrBase::Number(0x40),
                offset: 4
            })
        );
        assert_eq!(addr("out").unwrap().base, AddrBase::Name("out".into()));
        assert_eq!(addr("u[16:17]").unwrap().base, AddrBase::UPair(16));
        assert!(addr("u[16:18]").is_err());
        assert!(addr("a b").is_err());
        assert_eq!(
            format("16xw"),
            Ok(Format {
                count: 16,
                radix: 'x',
                size: 4
            })
        );
        assert_eq!(format("4db").unwrap().size, 1);
        assert!(format("0x").is_err());
        assert!(format("4q").is_err());
        let c = cond("v5[3] == 7").unwrap();
        assert_eq!((c.reg, c.cmp, c.value), (Reg::VLane(5, 3), Cmp::Eq, 7));
        assert_eq!(cond("u2>=0x10").unwrap().cmp, Cmp::Ge);
        assert!(cond("v5").is_err());
    }
}
