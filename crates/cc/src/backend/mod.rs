//! The back end: IR kernels to warpkit assembly.
//!
//! Per kernel: address lowering ([`addr`]), uniformity ([`uniform`]), register banks and
//! instruction selection ([`isel`]), register allocation ([`regalloc`]), the allocator's
//! moves and spills ([`finalize`]), `waitcnt` insertion ([`waitcnt`]), branch relaxation
//! ([`relax`]) and text ([`emit`]).

pub mod addr;
pub mod emit;
pub mod finalize;
pub mod isel;
pub mod layout;
pub mod legalize;
pub mod mir;
pub mod regalloc;
pub mod relax;
pub mod uniform;
pub mod waitcnt;

pub use layout::{constant_label, Layout};

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Function, Module};
use crate::source::SourceMap;
use std::fmt::Write;

/// Assemble-ready text for every kernel of `module`.
pub fn generate(module: &Module, sources: &SourceMap) -> Result<String, Diagnostics> {
    let mut out = String::new();
    let mut files = emit::Files::default();
    let mut body = String::new();
    let mut diags = Diagnostics::new();
    for kernel in &module.kernels {
        match compile_kernel(kernel, sources, &mut files, &mut body) {
            Ok(()) => {}
            Err(errors) => {
                for e in errors {
                    diags.push(e);
                }
            }
        }
    }
    if diags.has_errors() {
        return Err(diags);
    }
    out.push_str(&files.directives);
    out.push_str(&body);
    if !module.constants.is_empty() {
        writeln!(out, "    .data").unwrap();
        for (i, c) in module.constants.iter().enumerate() {
            writeln!(out, "    .balign {}", c.align.max(1)).unwrap();
            writeln!(out, "{}:", constant_label(i)).unwrap();
            for chunk in c.bytes.chunks(16) {
                let bytes: Vec<String> = chunk.iter().map(|b| b.to_string()).collect();
                writeln!(out, "    .byte {}", bytes.join(", ")).unwrap();
            }
        }
    }
    Ok(out)
}

fn compile_kernel(
    kernel: &Function,
    sources: &SourceMap,
    files: &mut emit::Files,
    out: &mut String,
) -> Result<(), Vec<Diagnostic>> {
    let mut f = kernel.clone();
    legalize::legalize(&mut f);
    addr::rewrite(&mut f);
    let uni = uniform::analyze(&f);
    let layout = layout::place(&f);
    let mut prefer_vector = false;
    loop {
        let banks = isel::bank::assign(&f, &uni, prefer_vector);
        let (m, errors) = isel::Isel::new(&f, &uni, banks, &layout).run();
        if !errors.is_empty() {
            return Err(errors);
        }
        let internal = |e: regalloc::AllocError| {
            vec![Diagnostic::error(
                f.span,
                format!("internal compiler error in kernel '{}': {e}", f.name),
            )]
        };
        let mut a = regalloc::allocate(&m, regalloc::Reserved::default()).map_err(internal)?;
        if a.uniform_slots > 0 && !prefer_vector {
            // Fewer uniform values first: keep in vector registers what can live there.
            prefer_vector = true;
            continue;
        }
        if a.uniform_slots > 0 || a.vector_slots > 0 {
            let reserved = regalloc::Reserved {
                spill: true,
                uniform_spill: a.uniform_slots > 0,
            };
            a = regalloc::allocate(&m, reserved).map_err(internal)?;
            if a.uniform_slots > 0 && !reserved.uniform_spill {
                a = regalloc::allocate(
                    &m,
                    regalloc::Reserved {
                        spill: true,
                        uniform_spill: true,
                    },
                )
                .map_err(internal)?;
            }
        }
        let mut p = finalize::finalize(&m, &a, layout.private_frame);
        waitcnt::insert(&mut p);
        if let Err(far) = relax::relax(&mut p) {
            return Err(vec![Diagnostic::error(
                f.span,
                format!(
                    "kernel '{}' is too large: a `{}` would branch {} bytes, beyond its reach of {}..{}",
                    f.name, far.mnemonic, far.offset, far.range.0, far.range.1
                ),
            )]);
        }
        emit::kernel(out, &f, &p, layout.shared_bytes, files, sources);
        return Ok(());
    }
}
