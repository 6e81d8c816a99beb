//! `wk_launch_timed` called as C calls it: the report is the timing library's JSON for the
//! same launch and machine, its stall categories add up, a machine is given as TOML text, a
//! kernel that traps still gets its report, and every error is a status and a message.

use std::ffi::{c_char, CStr};
use warpkit_capi::*;

const VADD: &str = include_str!("../../../../examples/vadd.s");
const N: u32 = 300;

fn last_error() -> String {
    // SAFETY: wk_last_error returns a NUL-terminated string.
    unsafe { CStr::from_ptr(wk_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// `wk_launch_timed` on `code` with vadd's arguments over `N` elements: its status and
/// report (None when it returned none).
fn timed(code: &[u8], machine: Option<&CStr>) -> (wk_status, Option<String>) {
    let a: Vec<u8> = (0..N).flat_map(|i| i.to_le_bytes()).collect();
    let arg = |name: &'static CStr, kind, value, data: *const u8, len| wk_arg {
        name: name.as_ptr(),
        kind,
        value,
        data,
        len,
    };
    let args = [
        arg(c"a", WK_ARG_BUFFER, 0, a.as_ptr(), a.len() as u64),
        arg(c"b", WK_ARG_BUFFER, 0, a.as_ptr(), a.len() as u64),
        arg(c"out", WK_ARG_ZEROED, 0, std::ptr::null(), 4 * u64::from(N)),
        arg(c"n", WK_ARG_INT, u64::from(N), std::ptr::null(), 0),
    ];
    let desc = wk_launch_desc {
        grid: [N.div_ceil(64), 0, 0],
        block: [64, 0, 0],
        shared_bytes: 0,
        scratch_bytes: 0,
        max_steps: 0,
        args: args.as_ptr(),
        n_args: args.len(),
    };
    let mut json: *mut c_char = std::ptr::null_mut();
    let mut len = 0usize;
    let machine = machine.map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: valid code, description, machine text and out-pointers.
    let status = unsafe {
        wk_launch_timed(
            code.as_ptr(),
            code.len(),
            &desc,
            machine,
            &mut json,
            &mut len,
        )
    };
    if json.is_null() {
        return (status, None);
    }
    // SAFETY: a NUL-terminated string from the library, freed once below.
    let text = unsafe { CStr::from_ptr(json) }
        .to_string_lossy()
        .into_owned();
    assert_eq!(text.len(), len);
    // SAFETY: the library's string, not used afterwards.
    unsafe { wk_string_free(json) };
    (status, Some(text))
}

fn vadd() -> Vec<u8> {
    warpkit_asm::assemble(VADD, "vadd.s").unwrap().text
}

#[test]
fn the_report_is_the_timing_librarys_and_adds_up() {
    let (status, json) = timed(&vadd(), None);
    assert_eq!(status, WK_OK, "{}", last_error());
    let json = json.unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    for key in [
        "machine",
        "machine_hash",
        "cycles",
        "ipc",
        "stalls",
        "kernels",
        "units",
    ] {
        assert!(v.get(key).is_some(), "no `{key}` in {json}");
    }
    let default = warpkit_timing::Machine::default();
    assert_eq!(v["machine_hash"], default.hash());
    let slots = u64::from(default.compute_units) * u64::from(default.cu.warp_slots);
    let stalls: u64 = v["stalls"]
        .as_object()
        .unwrap()
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(stalls, v["cycles"].as_u64().unwrap() * slots);
    // The same launch through the library gives the same document.
    let mut l = warpkit_host::Launch::new(warpkit_host::Limits::default());
    let a: Vec<u8> = (0..N).flat_map(|i| i.to_le_bytes()).collect();
    l.grid([N.div_ceil(64), 1, 1])
        .unwrap()
        .block([64, 1, 1])
        .unwrap();
    l.arg("a", warpkit_host::ArgValue::Buffer(a.clone()))
        .unwrap();
    l.arg("b", warpkit_host::ArgValue::Buffer(a)).unwrap();
    l.zeroed_buffer("out", 4 * u64::from(N)).unwrap();
    l.arg("n", warpkit_host::ArgValue::Int(u64::from(N)))
        .unwrap();
    let kernel = warpkit_asm::assemble(VADD, "vadd.s").unwrap();
    let (program, config, args) = l.prepare(&kernel).unwrap().into_parts();
    let opts = warpkit_timing::TimingOptions {
        kernel: "kernel".into(),
        ..Default::default()
    };
    let (_, report) = warpkit_timing::launch_timed(&program, &config, args, &opts).unwrap();
    assert_eq!(json, report.to_json());
}

#[test]
fn a_machine_is_toml_text() {
    let text = c"name = \"two\"\ncompute_units = 2\n[cu]\nwarp_slots = 8\n";
    let (status, json) = timed(&vadd(), Some(text));
    assert_eq!(status, WK_OK, "{}", last_error());
    let v: serde_json::Value = serde_json::from_str(&json.unwrap()).unwrap();
    let machine = warpkit_timing::Machine::from_toml(text.to_str().unwrap()).unwrap();
    assert_eq!(v["machine_hash"], machine.hash());
    assert_eq!(v["machine"]["compute_units"], 2);
    // An empty text is the default machine.
    let (_, json) = timed(&vadd(), Some(c""));
    let v: serde_json::Value = serde_json::from_str(&json.unwrap()).unwrap();
    assert_eq!(v["machine_hash"], warpkit_timing::Machine::default().hash());
}

#[test]
fn a_kernel_that_traps_gets_its_report() {
    // A store through a null pointer: every warp faults.
    let code = warpkit_asm::assemble(
        "movi v1, 0\ngstore.b32 v1, v1, u[30:31], 0\nendpgm\n",
        "t.s",
    )
    .unwrap()
    .text;
    let (status, json) = timed(&code, None);
    assert_eq!(status, WK_RUN_FAILED);
    assert!(last_error().contains("trapped"), "{}", last_error());
    let v: serde_json::Value = serde_json::from_str(&json.unwrap()).unwrap();
    assert!(v["stalls"].is_object());
}

#[test]
fn errors_are_statuses_with_messages() {
    let (status, json) = timed(&vadd(), Some(c"name = \"x\"\n[cu]\nwarp_slotz = 3\n"));
    assert_eq!((status, json), (WK_ERR_LAUNCH, None));
    assert!(last_error().starts_with("machine:3:1:"), "{}", last_error());
    let (status, _) = timed(&vadd(), Some(c"[l1]\nline_bytes = 96\n"));
    assert_eq!(status, WK_ERR_LAUNCH);
    assert!(last_error().contains("l1.line_bytes"), "{}", last_error());
    let (status, _) = timed(&[], None);
    assert_eq!(status, WK_ERR_ARGUMENT);
    let code = vadd();
    // SAFETY: a null json_out is refused before anything is read through it.
    let status = unsafe {
        wk_launch_timed(
            code.as_ptr(),
            code.len(),
            std::ptr::null(),
            std::ptr::null(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(status, WK_ERR_ARGUMENT);
    assert_eq!(last_error(), "json_out is null");
    // SAFETY: null is ignored.
    unsafe { wk_string_free(std::ptr::null_mut()) };
}
