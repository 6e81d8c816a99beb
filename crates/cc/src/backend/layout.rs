//! Where a kernel's memory objects are placed, and the labels of program constants.

use crate::ir::Function;

/// Where a kernel's memory objects are.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// Shared-memory offset of each `__local` object.
    pub locals: Vec<u32>,
    /// Offset of each private object within a lane's frame.
    pub privates: Vec<u32>,
    /// Static shared memory bytes.
    pub shared_bytes: u32,
    /// Bytes of one lane's private frame.
    pub private_frame: u32,
}

/// Where `f`'s `__local` and private objects go, each at its alignment.
pub fn place(f: &Function) -> Layout {
    let place = |objects: &[crate::ir::MemObject]| {
        let mut offsets = Vec::new();
        let mut end = 0u32;
        for o in objects {
            let align = o.align.max(1);
            let at = end.next_multiple_of(align);
            offsets.push(at);
            end = at + o.size;
        }
        (offsets, end)
    };
    let (locals, shared) = place(&f.locals);
    let (privates, frame) = place(&f.privates);
    Layout {
        locals,
        privates,
        shared_bytes: shared.next_multiple_of(16),
        private_frame: frame.next_multiple_of(8),
    }
}

/// The `.data` label of program constant `i`.
pub fn constant_label(i: usize) -> String {
    format!(".Lconst{i}")
}
