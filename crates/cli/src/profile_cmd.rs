//! `warpkit run --profile FILE|-` and `--timeline FILE` (docs/profiling.md): the launch runs
//! under `warpkit_prof::profile_launch`, and the profile is written as JSON, HTML or text
//! by the output file's extension. With `--timing`, `timing_run.rs` runs the launch and
//! writes both from the timing report.

use crate::failure::Failure;
use crate::output::write_output;
use std::path::Path;
use warpkit_host::launch::Prepared;
use warpkit_host::LaunchResult;
use warpkit_prof::{profile_launch, Profile, SourceMap};

/// The form of `--profile FILE`, from its extension.
fn is_ext(path: &Path, ext: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// The source lines of `object` (loaded from `file`: source, or ELF with `.debug_line`)
/// and the texts of their files that can be read.
pub fn source_map(object: &warpkit_asm::Program, file: &Path) -> SourceMap {
    let name = crate::asm_cmd::shown(file);
    // The kernel's own text, when it is one of the sources (not an ELF file).
    let main = if crate::asm_cmd::is_stdin(file) || !object.lines.files().contains(&name) {
        None
    } else {
        std::fs::read_to_string(file).ok()
    };
    let known: Vec<(&str, &str)> = main.iter().map(|t| (name.as_str(), t.as_str())).collect();
    let texts = warpkit_asm::SourceTexts::load(&object.lines, &known);
    SourceMap::new(&object.lines, &texts)
}

/// The profile in the form `--profile PATH` asks for: JSON, HTML or text.
pub fn render(prof: &Profile, path: &Path, sources: &SourceMap, title: &str) -> String {
    if is_ext(path, "json") {
        prof.to_json()
    } else if is_ext(path, "html") || is_ext(path, "htm") {
        warpkit_prof::html::render(prof, Some(sources), title)
    } else {
        prof.to_text()
    }
}

/// Run `prepared` under the profiler and write `--profile` / `--timeline`.
pub fn run_profiled(
    prepared: Prepared,
    sources: &SourceMap,
    profile: Option<&Path>,
    timeline: Option<&Path>,
    title: &str,
) -> Result<LaunchResult, Failure> {
    let (program, config, args) = prepared.into_parts();
    let (result, mut prof, tl) = profile_launch(&program, &config, args, timeline.is_some())
        .map_err(|e| Failure::BadInput(e.to_string()))?;
    prof.attach_sources(sources);
    if let Some(path) = profile {
        write_output(path, render(&prof, path, sources, title).as_bytes())?;
    }
    if let (Some(path), Some(tl)) = (timeline, tl) {
        write_output(path, tl.to_json().as_bytes())?;
    }
    Ok(result)
}
