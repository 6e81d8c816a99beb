//! `warpkit run`.

use crate::{Failure, Outcome};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Outcome {
    Err(Failure::BadInput("`run` is not available yet".into()))
}
