//! `warpkit asm`.

use crate::{Failure, Outcome};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Outcome {
    Err(Failure::BadInput("`asm` is not available yet".into()))
}
