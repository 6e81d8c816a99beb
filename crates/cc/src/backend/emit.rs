//! Assembly text: what `warpkit asm` reads (docs/assembly.md), with `.file`/`.loc` source
//! lines and the kernel metadata directives `.kernel`/`.param` (docs/opencl.md).

use super::finalize::{PFunc, PInst, POp};
use super::mir::{BlockId, RClass};
use super::regalloc::Phys;
use crate::ir::Function;
use crate::source::{FileId, SourceMap, Span};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// Source files by number for `.file`/`.loc`.
#[derive(Default)]
pub struct Files {
    numbers: HashMap<FileId, u32>,
    /// `.file` lines.
    pub directives: String,
}

impl Files {
    fn number(&mut self, file: FileId, sources: &SourceMap) -> Option<u32> {
        if file.0 as usize >= sources.files().len() || sources.file(file).builtin {
            return None;
        }
        if let Some(&n) = self.numbers.get(&file) {
            return Some(n);
        }
        let n = self.numbers.len() as u32 + 1;
        self.numbers.insert(file, n);
        let name = sources
            .file(file)
            .name
            .replace('\\', "\\\\")
            .replace('"', "\\\"");
        writeln!(self.directives, "    .file {n} \"{name}\"").unwrap();
        Some(n)
    }
}

fn reg(p: Phys, half: bool) -> String {
    match p.class {
        RClass::U => format!("u{}", p.num),
        RClass::V if half => format!("v{}.l", p.num),
        RClass::V => format!("v{}", p.num),
        RClass::UPair => format!("u[{}:{}]", p.num, p.num + 1),
        RClass::VPair => format!("v[{}:{}]", p.num, p.num + 1),
    }
}

/// The label of block `b` of kernel `kernel`.
fn label(kernel: &str, b: BlockId) -> String {
    format!(".L{kernel}_{}", b.0)
}

/// One instruction as text (without indentation or newline).
pub fn instruction(inst: &PInst, kernel: &str) -> String {
    let Some(op) = inst.op else {
        return format!("jmp {}", label(kernel, inst.target().expect("jump target")));
    };
    let def = op.def();
    let mut main = Vec::new();
    let mut trailing = Vec::new();
    for (o, d) in inst.ops.iter().zip(def.operands) {
        let text = match o {
            POp::Reg(p) => reg(*p, d.kind.kind.starts_with("vh")),
            POp::Imm(i) => i.to_string(),
            POp::Lit(l) => format!("{l:#x}"),
            POp::Label(b) => label(kernel, *b),
            POp::Sym(s) => s.clone(),
            POp::Csr(c) => (*c).to_string(),
            POp::Key(k, v) => format!("{k}={v}"),
            POp::Rm(r) => {
                trailing.push(format!("rm={r}"));
                continue;
            }
            POp::Omit => continue,
        };
        main.push(text);
    }
    let mut s = def.mnemonic.to_string();
    if !main.is_empty() {
        s.push(' ');
        s.push_str(&main.join(", "));
    }
    for t in trailing {
        s.push(' ');
        s.push_str(&t);
    }
    s
}

/// The kernel as assembly text.
pub fn kernel(
    out: &mut String,
    f: &Function,
    p: &PFunc,
    shared_bytes: u32,
    files: &mut Files,
    sources: &SourceMap,
) {
    let name = &f.name;
    writeln!(out, "    .text").unwrap();
    writeln!(out, "    .global {name}").unwrap();
    writeln!(out, "    .type {name}, @function").unwrap();
    let mut header = format!(
        "    .kernel {name}, shared={shared_bytes}, scratch={}",
        p.scratch_bytes
    );
    if let Some([x, y, z]) = f.reqd_block {
        write!(header, ", block={x}x{y}x{z}").unwrap();
    }
    writeln!(out, "{header}").unwrap();
    for param in &f.params {
        let c = param.c_type.replace('\\', "\\\\").replace('"', "\\\"");
        writeln!(
            out,
            "    .param {name}, {}, {}, \"{c}\"",
            param.name,
            param.kind.directive_name()
        )
        .unwrap();
    }
    writeln!(out, "{name}:").unwrap();
    let targets: HashSet<BlockId> = p
        .layout
        .iter()
        .flat_map(|b| p.blocks[b.0 as usize].iter().filter_map(PInst::target))
        .collect();
    let mut last: Option<(u32, u32, u32)> = None;
    for (i, &b) in p.layout.iter().enumerate() {
        if targets.contains(&b) {
            writeln!(out, "{}:", label(name, b)).unwrap();
        }
        let next = p.layout.get(i + 1).copied();
        for inst in &p.blocks[b.0 as usize] {
            if inst.op.is_none() && inst.target() == next {
                continue;
            }
            if let Some(loc) = loc(inst.span, files, sources) {
                if last != Some(loc) {
                    writeln!(out, "    .loc {} {} {}", loc.0, loc.1, loc.2).unwrap();
                    last = Some(loc);
                }
            }
            writeln!(out, "    {}", instruction(inst, name)).unwrap();
        }
    }
    writeln!(out, "    .size {name}, . - {name}").unwrap();
}

fn loc(span: Span, files: &mut Files, sources: &SourceMap) -> Option<(u32, u32, u32)> {
    if span.is_dummy() {
        return None;
    }
    let n = files.number(span.file, sources)?;
    let (line, col) = sources.file(span.file).line_col(span.lo);
    Some((n, line, col))
}
