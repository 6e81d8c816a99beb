//! Profiles and timelines of a launch (`warpkit run --profile`, `--timeline`;
//! docs/profiling.md). The [`Profiler`] is a client of the simulator's observation hook
//! (`warpkit_sim::Hooks`): it sees every executed instruction and the warp after it, and
//! counts; it never interprets anything itself. One profiler runs per group of workgroups on
//! each host thread and they are merged afterwards, so every count is the same whatever the
//! thread count.
//!
//! - [`Profile`]: per instruction, branch, counter and workgroup;
//!   [`Profile::to_json`], [`Profile::to_text`] (annotated disassembly, hottest first) and
//!   [`html::render`] (a self-contained page);
//! - [`Timeline`]: the Trace Event Format file Perfetto and `chrome://tracing` open.

pub mod html;
mod profile;
mod profiler;
mod records;
mod report;
mod timeline;

pub use profile::{
    BranchProfile, CounterProfile, InstructionProfile, Profile, ProfileTiming, SourceMap, Totals,
    WorkgroupProfile, PROFILE_SCHEMA_VERSION,
};
pub use profiler::{profile_launch, Profiler};
pub use timeline::Timeline;
