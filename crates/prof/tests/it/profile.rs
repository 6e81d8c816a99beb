//! Profiles of known kernels: exact counts, SIMD efficiency, branch divergence, counters,
//! barriers, independence from the thread count, the timeline's tracks and spans, and a
//! structurally valid, self-contained HTML page.

use warpkit_prof::{profile_launch, Profile, SourceMap};
use warpkit_sim::launch::{Arg, ArgValue, LaunchConfig};
use warpkit_sim::Program;

/// An if on `flat id < 8` in a workgroup of 48 threads: warp 0 (32 lanes) runs the then
/// side with 8 lanes, warp 1 (16 lanes) skips it.
const IF_KERNEL: &str = "\
    cmp.lt.u32.vi u4, v3, 8
    saveexec.and u6, u4
    bexecz .Lskip
    add.vi v5, v3, 1
.Lskip:
    exec.set u6
    add.vi v6, v3, 2
    endpgm
";

type Run = (
    Profile,
    Option<warpkit_prof::Timeline>,
    warpkit_sim::launch::LaunchResult,
);

fn run(src: &str, cfg: &LaunchConfig, timeline: bool) -> Run {
    run_with(src, cfg, timeline, Vec::new())
}

fn run_with(src: &str, cfg: &LaunchConfig, timeline: bool, args: Vec<Arg>) -> Run {
    let object = warpkit_asm::assemble(src, "k.s").unwrap();
    let program = Program::new(object.text.clone());
    let (r, mut p, t) = profile_launch(&program, cfg, args, timeline).unwrap();
    let texts = warpkit_asm::SourceTexts::load(&object.lines, &[("k.s", src)]);
    let map = SourceMap::new(&object.lines, &texts);
    assert_eq!(map.texts.len(), 1);
    p.attach_sources(&map);
    (p, t, r)
}

fn block(n: u32) -> LaunchConfig {
    LaunchConfig {
        block: [n, 1, 1],
        ..LaunchConfig::default()
    }
}

#[test]
fn counts_and_simd_efficiency_of_a_known_kernel() {
    let (p, _, r) = run(IF_KERNEL, &block(48), false);
    assert!(r.ok());
    let at = |asm: &str| {
        p.instructions
            .iter()
            .find(|i| i.asm.starts_with(asm))
            .unwrap()
    };
    let then = at("add.vi v5");
    assert_eq!((then.executed, then.lane_ops), (1, 8));
    assert_eq!(then.simd_efficiency, Some(0.25));
    assert_eq!(then.line, Some(4));
    let after = at("add.vi v6");
    assert_eq!((after.executed, after.lane_ops), (2, 48));
    assert_eq!(after.simd_efficiency, Some(0.75));
    let sx = at("saveexec");
    assert!(!sx.vector && sx.simd_efficiency.is_none());
    // The profile agrees with the launch's own statistics.
    assert_eq!(p.totals.retired, r.stats.instructions);
    assert_eq!(p.totals.lane_ops, r.stats.lane_ops);
    assert_eq!(p.totals.instructions, 7 + 6);
    let b = &p.branches[0];
    assert!(b.asm.starts_with("bexecz") && b.conditional);
    // Warp 0 reaches it with 8 of its 32 lanes (diverged, not taken); warp 1 with none
    // (taken, not diverged).
    assert_eq!((b.executed, b.taken, b.diverged), (2, 1, 1));
    assert_eq!(p.workgroups.len(), 1);
    assert_eq!(p.workgroups[0].instructions, 13);
    assert_eq!(p.workgroups[0].warps, 2);
    // Active-lane histogram: the then-side add (8), cmp and the last add per warp (32, 16).
    assert_eq!(p.active_lanes[8], 1);
    assert_eq!(
        p.active_lanes.iter().sum::<u64>(),
        p.totals.vector_instructions
    );
    let text = p.to_text();
    let first_row = text.lines().nth(3).unwrap();
    assert!(
        first_row.contains("add.vi v6") || first_row.contains("cmp.lt"),
        "{text}"
    );
    assert!(text.contains("k.s:4"), "{text}");
}

/// Two loads in flight on `vm`, then two barriers.
const BARRIER_KERNEL: &str = "\
    uload.b64 u[16:17], u[0:1], 0
    waitcnt sm=0
    sll.vi v9, v3, 2
    gload.b32 v6, v9, u[16:17], 0
    gload.b32 v7, v9, u[16:17], 0
    waitcnt vm=0
    barrier
    add.vi v5, v3, 1
    barrier
    endpgm
";

#[test]
fn counters_barriers_and_timeline() {
    let buf = Arg {
        name: "x".into(),
        value: ArgValue::Buffer(vec![0; 256]),
    };
    let (p, t, r) = run_with(
        BARRIER_KERNEL,
        &LaunchConfig {
            block: [64, 1, 1],
            grid: [3, 1, 1],
            ..LaunchConfig::default()
        },
        true,
        vec![buf],
    );
    assert!(r.ok());
    let peak = |name: &str| {
        p.counters
            .iter()
            .find(|c| c.name == name)
            .unwrap()
            .peak_in_flight
    };
    assert_eq!((peak("vm"), peak("sm"), peak("vst")), (2, 1, 0));
    for w in &p.workgroups {
        assert_eq!((w.barriers, w.barrier_instructions), (2, 4));
    }
    assert_eq!(p.workgroups.len(), 3);
    let t = t.unwrap();
    let events = t.events();
    let names: Vec<&str> = events.iter().filter_map(|e| e["name"].as_str()).collect();
    assert!(names.contains(&"process_name"));
    assert!(events
        .iter()
        .any(|e| e["name"] == "thread_name" && e["args"]["name"] == "warp 1"));
    let wg_spans = events
        .iter()
        .filter(|e| e["cat"] == "workgroup" && e["pid"] == 1)
        .count();
    assert_eq!(wg_spans, 3);
    let json: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
    assert!(json["traceEvents"].is_array());
}

#[test]
fn barrier_intervals_on_the_timeline() {
    let src = "add.vi v5, v3, 1\nbarrier\nadd.vi v5, v5, 1\nadd.vi v5, v5, 1\nbarrier\nendpgm\n";
    let (p, t, r) = run(src, &block(64), true);
    assert!(r.ok());
    assert_eq!(
        (
            p.workgroups[0].barriers,
            p.workgroups[0].barrier_instructions
        ),
        (2, 4)
    );
    let t = t.unwrap();
    let spans: Vec<(u64, u64, u64, String)> = t
        .events()
        .iter()
        .filter(|e| e["cat"] == "interval")
        .map(|e| {
            (
                e["tid"].as_u64().unwrap(),
                e["ts"].as_u64().unwrap(),
                e["dur"].as_u64().unwrap(),
                e["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Warp 0 runs 2 instructions to the first barrier, then warp 1; then 3 each; then 1.
    assert_eq!(
        spans,
        [
            (0, 0, 2, "barrier interval 0".to_string()),
            (0, 4, 3, "barrier interval 1".to_string()),
            (0, 10, 1, "barrier interval 2".to_string()),
            (1, 2, 2, "barrier interval 0".to_string()),
            (1, 7, 3, "barrier interval 1".to_string()),
            (1, 11, 1, "barrier interval 2".to_string()),
        ]
    );
}

#[test]
fn profiles_do_not_depend_on_threads() {
    let src = "cmp.lt.u32.vi u4, v3, 40\nsaveexec.and u6, u4\nbexecz .L\nadd.vi v5, v3, 1\n.L:\nexec.set u6\nbarrier\nendpgm\n";
    let cfg = |threads| LaunchConfig {
        grid: [37, 2, 1],
        block: [96, 1, 1],
        threads,
        ..LaunchConfig::default()
    };
    let (one, t1, _) = run(src, &cfg(1), true);
    for threads in [2, 3, 8] {
        let (many, tn, _) = run(src, &cfg(threads), true);
        assert_eq!(one.to_json(), many.to_json(), "--threads {threads}");
        // The warp tracks do not depend on threads either.
        let warps = |t: &warpkit_prof::Timeline| -> Vec<String> {
            t.events()
                .iter()
                .filter(|e| e["pid"] == 2)
                .map(|e| e.to_string())
                .collect()
        };
        assert_eq!(warps(t1.as_ref().unwrap()), warps(tn.as_ref().unwrap()));
    }
}

/// Every element opened is closed, in order (void elements aside).
fn check_well_formed(html: &str) {
    const VOID: &[&str] = &["meta", "br", "!DOCTYPE", "img"];
    let mut stack: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').expect("unterminated tag");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        let self_closing = tag.ends_with('/');
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().unwrap_or_else(|| panic!("stray </{name}>"));
            assert_eq!(open, name, "</{name}> closes <{open}>");
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '/')
            .collect();
        if self_closing || VOID.contains(&name.as_str()) {
            continue;
        }
        stack.push(name);
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
}

#[test]
fn html_is_self_contained_and_well_formed() {
    let (p, _, _) = run(IF_KERNEL, &block(48), false);
    let lines = warpkit_asm::LineTable::new(
        vec!["k<&>.s".into()],
        vec![warpkit_asm::LineRow {
            address: 0,
            file: 0,
            line: 1,
            column: 0,
        }],
        4,
    );
    let map = SourceMap {
        lines,
        texts: vec![("k<&>.s".into(), IF_KERNEL.into())],
    };
    let html = warpkit_prof::html::render(&p, Some(&map), "k<&>.s");
    check_well_formed(&html);
    assert!(html.contains("k&lt;&amp;&gt;.s"));
    assert!(!html.contains("<script") && !html.contains("src=") && !html.contains("href="));
    assert!(!html.contains("https://"));
    assert!(html.contains("id=\"annotated\"") && html.contains("id=\"mix\""));
    assert!(html.contains("id=\"simd-efficiency\""));
    assert!(html.contains("add.vi v6, v3, 2"));
    let plain = warpkit_prof::html::render(&p, None, "k.s");
    check_well_formed(&plain);
    assert!(plain.contains("Annotated disassembly"));
}
