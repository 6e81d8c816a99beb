//! Measuring coverage in-process: a [`Hooks`] implementation that turns every committed
//! instruction into a [`Step`] (exactly what the commit trace would write for it) and
//! counts it, and launches run under it.

use super::measure::{Step, Tracker};
use super::model::Model;
use super::Coverage;
use warpkit_sim::hooks::{Control, Hooks};
use warpkit_sim::launch::{launch_observed, Arg, LaunchConfig, LaunchError, LaunchResult};
use warpkit_sim::{Program, Warp};

/// Counts coverage of every instruction it sees.
pub struct CoverHooks<'m> {
    /// The tracker counting the bins.
    pub tracker: Tracker<'m>,
}

impl<'m> CoverHooks<'m> {
    /// Hooks counting the bins of `model`.
    pub fn new(model: &'m Model) -> CoverHooks<'m> {
        CoverHooks {
            tracker: Tracker::new(model),
        }
    }
}

impl Hooks for CoverHooks<'_> {
    const ENABLED: bool = true;

    fn after(&mut self, warp: &Warp, prog: &Program, pc: u32, exec_before: u32) -> Control {
        self.tracker
            .step(&Step::capture(warp, prog, pc, exec_before));
        Control::Continue
    }

    fn end_workgroup(&mut self, id: [u32; 3], _warps: &[Warp]) {
        self.tracker.end_workgroup(id);
    }
}

/// Run one launch under `hooks` on the configured host threads (each thread's workgroups
/// counted apart, then added: every workgroup runs on one thread, so the counts do not
/// depend on the thread count) and add its counts to `hooks`.
pub fn launch_covered(
    hooks: &mut CoverHooks<'_>,
    model: &Model,
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
) -> Result<LaunchResult, LaunchError> {
    let (result, counted) = launch_observed(
        program,
        config,
        args,
        |_| CoverHooks::new(model),
        |mut a, b| {
            a.tracker.absorb(&b.tracker);
            a
        },
    )?;
    if let Some(c) = counted {
        hooks.tracker.absorb(&c.tracker);
    }
    hooks.tracker.end_launch();
    Ok(result)
}

/// The coverage of one launch of `program`, named `name`, with its result.
pub fn measure_launch(
    model: &Model,
    name: &str,
    program: &Program,
    config: &LaunchConfig,
    args: Vec<Arg>,
) -> Result<(LaunchResult, Coverage), LaunchError> {
    let mut hooks = CoverHooks::new(model);
    let result = launch_covered(&mut hooks, model, program, config, args)?;
    Ok((result, hooks.tracker.coverage(model, name)))
}
