//! Bounds that both the static tables and the decoded form of an instruction are sized by;
//! kept apart from either so that the tables do not depend on the instruction type built on
//! them.

/// The most syntax operands any instruction has (`ffma.f32`: four registers, `neg`, `abs`,
/// `sat`, `rm`).
pub const MAX_OPERANDS: usize = 8;
