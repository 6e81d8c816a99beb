//! `warpkit run --profile FILE|-` and `--timeline FILE` (docs/profiling.md): the launch runs
//! under `warpkit_prof::profile_launch`, and the profile is written as JSON, HTML or text
//! by the output file's extension.

use crate::output::write_output;
use crate::Failure;
use std::path::Path;
use warpkit_host::launch::Prepared;
use warpkit_host::LaunchResult;
use warpkit_prof::{profile_launch, SourceLine, SourceMap};

/// The form of `--profile FILE`, from its extension.
fn is_ext(path: &Path, ext: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// The source lines of `object` (assembled from `file`), if it has any.
pub fn source_map(object: &warpkit_asm::Program, file: &Path) -> SourceMap {
    let name = file.display().to_string();
    let lines: Vec<SourceLine> = object
        .listing
        .iter()
        .filter(|l| l.section == warpkit_asm::Section::Text)
        .map(|l| SourceLine {
            pc: l.address as u32,
            file: name.clone(),
            line: l.line as u32,
        })
        .collect();
    let texts = if lines.is_empty() {
        Vec::new()
    } else {
        std::fs::read_to_string(file)
            .map(|t| vec![(name.clone(), t)])
            .unwrap_or_default()
    };
    SourceMap { lines, texts }
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
        let text = if is_ext(path, "json") {
            prof.to_json()
        } else if is_ext(path, "html") || is_ext(path, "htm") {
            warpkit_prof::html::render(&prof, Some(sources), title)
        } else {
            prof.to_text()
        };
        write_output(path, text.as_bytes())?;
    }
    if let (Some(path), Some(tl)) = (timeline, tl) {
        write_output(path, tl.to_json().as_bytes())?;
    }
    Ok(result)
}
