//! Variables and lvalues: where an assignable expression is (a variable, memory, or some
//! elements of a vector).

use super::types::QualType;
use crate::ir::ValueId;
use std::rc::Rc;

/// Index of a variable in [`Lowerer::vars`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct VarId(pub u32);

/// Where an lvalue is.
#[derive(Debug, Clone)]
pub(crate) enum Place {
    Var(VarId),
    Mem(ValueId),
    /// Some elements of a vector (`v.xy`, `p->pos.s3`): indices into the vector at
    /// `LaneBase`.
    Lanes(LaneBase, Swizzle),
    /// The element at a run-time index (`v[i]`) of the elements a swizzle selects.
    DynLane(LaneBase, Swizzle, ValueId),
    Error,
}

/// A typed lvalue.
#[derive(Debug, Clone)]
pub(crate) struct LV {
    pub place: Place,
    pub ty: QualType,
}

/// The vector that the lanes of a [`Place::Lanes`] belong to.
#[derive(Debug, Clone)]
pub(crate) enum LaneBase {
    /// A vector variable held in SSA variables (`Storage::Lanes`).
    Var(VarId),
    /// A vector of `n` elements in memory at this address.
    Mem(ValueId, u8),
    /// The elements of an rvalue (not assignable).
    Value(Rc<[ValueId]>),
}

/// The element indices a component access selects, in order (at most 16).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Swizzle {
    idx: [u8; 16],
    len: u8,
}

impl Swizzle {
    pub(crate) fn new(indices: &[u8]) -> Swizzle {
        let mut idx = [0u8; 16];
        idx[..indices.len()].copy_from_slice(indices);
        Swizzle {
            idx,
            len: indices.len() as u8,
        }
    }

    /// Every element of an `n`-element vector, in order.
    pub(crate) fn identity(n: usize) -> Swizzle {
        let all: Vec<u8> = (0..n as u8).collect();
        Swizzle::new(&all)
    }

    pub(crate) fn indices(&self) -> &[u8] {
        &self.idx[..self.len as usize]
    }

    /// This selection applied to the vector that `inner` selects.
    pub(crate) fn of(self, inner: Swizzle) -> Swizzle {
        let picked: Vec<u8> = self
            .indices()
            .iter()
            .map(|&i| inner.idx[i as usize])
            .collect();
        Swizzle::new(&picked)
    }

    pub(crate) fn has_duplicates(&self) -> bool {
        let ix = self.indices();
        ix.iter().enumerate().any(|(k, a)| ix[k + 1..].contains(a))
    }
}
