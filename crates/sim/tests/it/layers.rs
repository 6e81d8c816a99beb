//! The module graph of every crate of the workspace has no circle, and `warpkit-sim`'s
//! top-level modules import only modules of lower layers (`docs/architecture.md`, "Layers").
//!
//! A file depends on another when it names an item the other defines: through `use`,
//! `crate::`, `super::` or a child module's path, with re-exports (`pub use`) followed to
//! the file that defines the item. A `mod` declaration is not a dependency, nor is a
//! re-export itself: `lib.rs` re-exporting everything does not make it depend on its
//! modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `warpkit-sim`'s layers, lowest first: a top-level module may use modules of its own
/// layer's predecessors only (and, inside itself, anything without a circle).
const SIM_LAYERS: &[&[&str]] = &[
    &["control", "tier"],
    &["state"],
    &["program"],
    &["memory"],
    &["env"],
    &["hooks"],
    &["exec"],
    &["engine"],
    &["workgroup"],
    &["observe"],
    &["launch"],
];

/// Source text with comments, strings and character literals blanked (newlines kept), so
/// that only code is scanned.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, c: u8| out.push(if c == b'\n' { b'\n' } else { b' ' });
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == b'r' && matches!(b.get(i + 1), Some(b'"') | Some(b'#')) && {
            let mut j = i + 1;
            while b.get(j) == Some(&b'#') {
                j += 1;
            }
            b.get(j) == Some(&b'"') && (i == 0 || !is_ident(b[i - 1]))
        } {
            let mut j = i + 1;
            let mut hashes = 0;
            while b[j] == b'#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            out.resize(out.len() + (j - i), b' ');
            i = j;
            loop {
                if i >= b.len() {
                    break;
                }
                if b[i] == b'"'
                    && b[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&h| h == b'#')
                        .count()
                        == hashes
                {
                    out.resize(out.len() + 1 + hashes, b' ');
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if c == b'"' {
            out.push(b' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    out.push(b' ');
                    i += 1;
                }
                if i < b.len() {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
            out.push(b' ');
            i += 1;
        } else if c == b'\'' {
            // A character literal ('x', '\n', '\u{..}'), not a lifetime ('a).
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&x| x == b'\'')
                    .map(|p| i + 2 + p)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    out.resize(out.len() + (e + 1 - i), b' ');
                    i = e + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The paths a `use` tree names, each as its segments (`use a::{b, c::d as e}` gives
/// `a::b` and `a::c::d`; `self` in a group names the group's prefix).
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    fn walk(t: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let t = t.trim();
        if t.is_empty() {
            return;
        }
        if let Some(open) = t.find('{') {
            let head: Vec<String> = t[..open]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            let mut p = prefix.to_vec();
            p.extend(head);
            let inner = &t[open + 1..t.rfind('}').unwrap_or(t.len())];
            let mut depth = 0;
            let mut start = 0;
            for (k, ch) in inner.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        walk(&inner[start..k], &p, out);
                        start = k + 1;
                    }
                    _ => {}
                }
            }
            walk(&inner[start..], &p, out);
            return;
        }
        let t = t.split(" as ").next().unwrap_or(t).trim();
        let mut p = prefix.to_vec();
        for seg in t.split("::").map(str::trim) {
            if seg == "self" {
                continue;
            }
            p.push(seg.to_string());
        }
        out.push(p);
    }
    let mut out = Vec::new();
    walk(tree, &[], &mut out);
    out
}

/// One source file of a crate.
#[derive(Debug)]
struct File {
    code: String,
    /// Child modules declared with `mod name;`.
    children: BTreeSet<String>,
    /// `pub use` re-exports: the name made visible here, and the path it comes from.
    reexports: Vec<(String, Vec<String>)>,
    /// The names it defines at top level (items and inline modules), roughly.
    defines: BTreeSet<String>,
}

/// The `use` declarations of a file: where each starts and ends, whether it is a `pub`
/// re-export, and its tree.
fn use_decls(code: &str) -> Vec<(usize, usize, bool, String)> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    let mut i = 0;
    while let Some(p) = code[i..].find("use ") {
        let at = i + p;
        i = at + 4;
        if at > 0 && is_ident(b[at - 1]) {
            continue;
        }
        let line_start = code[..at].rfind(['\n', ';', '{', '}']).map_or(0, |k| k + 1);
        let before = code[line_start..at].trim();
        let public = before.starts_with("pub");
        if !(before.is_empty() || public || before.starts_with('#')) {
            continue;
        }
        let end = code[at..].find(';').map_or(code.len(), |k| at + k);
        out.push((at, end, public, code[at + 4..end].to_string()));
        i = end;
    }
    out
}

/// The byte ranges of the inline modules (`mod name { ... }`) of a file.
fn inline_modules(code: &str) -> Vec<(usize, usize)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = code[i..].find("mod ") {
        let at = i + p;
        i = at + 4;
        if at > 0 && is_ident(b[at - 1]) {
            continue;
        }
        let mut j = at + 4;
        while j < b.len() && (is_ident(b[j]) || b[j] == b' ') {
            j += 1;
        }
        if b.get(j) != Some(&b'{') {
            continue;
        }
        let mut depth = 0;
        let mut k = j;
        while k < b.len() {
            match b[k] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        out.push((j, k));
    }
    out
}

fn load_crate(src: &Path) -> BTreeMap<Vec<String>, File> {
    let mut files = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("under src");
            let mut module: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            if module.is_empty() && !["lib.rs", "main.rs"].contains(&rel.to_str().unwrap_or("")) {
                continue;
            }
            // Binaries under src/bin are crates of their own.
            if module.first().is_some_and(|m| m == "bin") {
                continue;
            }
            let mut code = code_only(&std::fs::read_to_string(&path).expect("a source file"));
            // A visibility's path (`pub(in crate::a)`) names a module, not a dependency.
            while let Some(at) = code.find("pub(in ") {
                let end = code[at..].find(')').map_or(code.len(), |k| at + k + 1);
                code.replace_range(at..end, &" ".repeat(end - at));
            }
            let mut children = BTreeSet::new();
            let mut defines = BTreeSet::new();
            for line in code.lines() {
                let t = line.trim_start();
                let t = t
                    .strip_prefix("pub(crate) ")
                    .or_else(|| t.strip_prefix("pub(super) "))
                    .or_else(|| t.strip_prefix("pub "))
                    .unwrap_or(t);
                let mut words = t.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'));
                let kw = words.next().unwrap_or("");
                if let Some(name) = words.find(|w| !w.is_empty()) {
                    match kw {
                        "mod" if t.trim_end().ends_with(';') => {
                            children.insert(name.to_string());
                        }
                        "mod" | "fn" | "struct" | "enum" | "trait" | "type" | "const"
                        | "static" | "union" => {
                            defines.insert(name.to_string());
                        }
                        "macro_rules!" => {
                            defines.insert(name.to_string());
                        }
                        _ => {}
                    }
                }
            }
            let reexports = use_decls(&code)
                .into_iter()
                .filter(|(_, _, public, _)| *public)
                .flat_map(|(_, _, _, tree)| use_paths(&tree))
                .filter_map(|p| {
                    let name = p.last()?.clone();
                    Some((name, p))
                })
                .collect();
            files.insert(
                module,
                File {
                    code,
                    children,
                    reexports,
                    defines,
                },
            );
        }
    }
    files
}

/// Make `path`, as written in the module `at`, absolute from the crate root; `None` for an
/// external crate's path.
fn absolute(
    path: &[String],
    at: &[String],
    files: &BTreeMap<Vec<String>, File>,
) -> Option<Vec<String>> {
    let first = path.first()?;
    let mut base: Vec<String> = match first.as_str() {
        "crate" => Vec::new(),
        "super" => {
            let mut b = at.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                b.pop();
                rest = &rest[1..];
            }
            b.extend(rest.iter().cloned());
            return Some(b);
        }
        "self" => at.to_vec(),
        name => {
            // A child module of the one it is written in, or an item of an inline module
            // of its own; anything else is another crate.
            let here = &files[at];
            if here.children.contains(name) {
                let mut b = at.to_vec();
                b.extend(path.iter().cloned());
                return Some(b);
            }
            return None;
        }
    };
    base.extend(path[1..].iter().cloned());
    Some(base)
}

/// The file defining what `path` (absolute) names, following re-exports.
fn definer(
    path: &[String],
    files: &BTreeMap<Vec<String>, File>,
    depth: usize,
) -> Option<Vec<String>> {
    if depth > 16 {
        return None;
    }
    // The longest prefix that is a file.
    let mut k = path.len();
    while k > 0 && !files.contains_key(&path[..k]) {
        k -= 1;
    }
    let module = path[..k].to_vec();
    let file = files.get(&module)?;
    let Some(item) = path.get(k) else {
        return Some(module);
    };
    if file.defines.contains(item) {
        return Some(module);
    }
    for (name, from) in &file.reexports {
        if name == item || name == "*" {
            if let Some(src) = absolute(from, &module, files) {
                let mut target = src.clone();
                if name == "*" {
                    target.push(item.clone());
                } else {
                    target.extend(path[k + 1..].iter().cloned());
                }
                if target != path {
                    if let Some(d) = definer(&target, files, depth + 1) {
                        return Some(d);
                    }
                }
            }
        }
    }
    Some(module)
}

/// The files each file depends on.
fn graph(files: &BTreeMap<Vec<String>, File>) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, file) in files {
        let inline = inline_modules(&file.code);
        // Inside an inline module (`mod tests { use super::*; }`), `super` first leaves it.
        let depth = |at: usize| inline.iter().filter(|&&(a, b)| a < at && at < b).count();
        let mut paths: Vec<(usize, Vec<String>)> = Vec::new();
        let decls = use_decls(&file.code);
        for (at, _, public, tree) in &decls {
            if !public {
                paths.extend(use_paths(tree).into_iter().map(|p| (*at, p)));
            }
        }
        // Paths written inline, outside `use` declarations: `crate::a::b`, `super::x`,
        // `child::y`.
        let b = file.code.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if let Some(&(_, end, _, _)) = decls.iter().find(|&&(a, e, _, _)| a <= i && i < e) {
                i = end;
                continue;
            }
            if is_ident(b[i]) && (i == 0 || !is_ident(b[i - 1]) && b[i - 1] != b':') {
                let start = i;
                while i < b.len()
                    && (is_ident(b[i]) || (b[i] == b':' && b.get(i + 1) == Some(&b':')))
                {
                    i += if b[i] == b':' { 2 } else { 1 };
                }
                let text = &file.code[start..i];
                if text.contains("::") {
                    let segs: Vec<String> = text
                        .split("::")
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect();
                    let head = segs[0].as_str();
                    if head == "crate" || head == "super" || file.children.contains(head) {
                        paths.push((start, segs));
                    }
                }
            } else {
                i += 1;
            }
        }
        let mut deps = BTreeSet::new();
        for (at, mut p) in paths {
            let mut inner = depth(at);
            if inner > 0 && p.first().is_some_and(|s| s == "self") {
                continue; // the inline module itself
            }
            while inner > 0 && p.first().is_some_and(|s| s == "super") {
                p.remove(0);
                inner -= 1;
                if p.first().is_none_or(|s| s != "super") {
                    p.insert(0, "self".into());
                    break;
                }
            }
            if let Some(abs) = absolute(&p, module, files) {
                if let Some(d) = definer(&abs, files, 0) {
                    if &d != module {
                        deps.insert(d);
                    }
                }
            }
        }
        edges.insert(module.clone(), deps);
    }
    edges
}

/// The groups of files that import each other in a circle (the strongly connected
/// components of more than one file), each sorted. The crate root is left out: it is the
/// crate's facade, declaring the modules and re-exporting them, and may both define items
/// its modules share and call into them (a library's `lib.rs`, a binary's `main`).
fn circles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    // Tarjan's algorithm, iteratively small enough to recurse: crates have few files.
    struct Walk<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on_stack: BTreeSet<&'a Vec<String>>,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, n: &'a Vec<String>) {
        let i = w.index.len();
        w.index.insert(n, i);
        w.low.insert(n, i);
        w.stack.push(n);
        w.on_stack.insert(n);
        let edges = w.edges;
        for m in edges.get(n).into_iter().flatten().filter(|m| !m.is_empty()) {
            let Some((m, _)) = edges.get_key_value(m) else {
                continue;
            };
            if !w.index.contains_key(m) {
                visit(w, m);
                let l = w.low[m].min(w.low[n]);
                w.low.insert(n, l);
            } else if w.on_stack.contains(m) {
                let l = w.index[m].min(w.low[n]);
                w.low.insert(n, l);
            }
        }
        if w.low[n] == w.index[n] {
            let mut group = Vec::new();
            while let Some(m) = w.stack.pop() {
                w.on_stack.remove(m);
                group.push(m.clone());
                if m == n {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                w.out.push(group);
            }
        }
    }
    let mut w = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for n in edges.keys().filter(|n| !n.is_empty()) {
        if !w.index.contains_key(n) {
            visit(&mut w, n);
        }
    }
    w.out
}

fn name(module: &[String]) -> String {
    if module.is_empty() {
        "crate".into()
    } else {
        module.join("::")
    }
}

fn workspace_crates() -> Vec<PathBuf> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&crates)
        .expect("crates/")
        .filter_map(|e| e.ok().map(|e| e.path().join("src")))
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

#[test]
fn no_crate_has_an_import_circle() {
    let mut found = Vec::new();
    for src in workspace_crates() {
        let krate = src
            .parent()
            .and_then(Path::file_name)
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let files = load_crate(&src);
        let g = graph(&files);
        for group in circles(&g) {
            let names: Vec<String> = group.iter().map(|m| name(m)).collect();
            // Which file uses which, so that the circle can be cut where it is cheapest.
            let uses: Vec<String> = group
                .iter()
                .flat_map(|m| {
                    g[m].iter()
                        .filter(|d| group.contains(d))
                        .map(move |d| format!("{} -> {}", name(m), name(d)))
                })
                .collect();
            found.push(format!(
                "crates/{krate}: {} ({})",
                names.join(", "),
                uses.join("; ")
            ));
        }
    }
    assert!(
        found.is_empty(),
        "files that import each other in a circle:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_simulator_imports_downward_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = load_crate(&src);
    let layer = |m: &[String]| {
        let top = m.first()?;
        SIM_LAYERS.iter().position(|l| l.contains(&top.as_str()))
    };
    let mut wrong = Vec::new();
    for m in files.keys().filter(|m| !m.is_empty()) {
        if layer(m).is_none() {
            wrong.push(format!("{} is in no layer of SIM_LAYERS", name(m)));
        }
    }
    for (from, deps) in graph(&files) {
        for to in deps {
            if let (Some(a), Some(b)) = (layer(&from), layer(&to)) {
                if b > a || (b == a && from[0] != to[0]) {
                    wrong.push(format!(
                        "{} (layer {a}) uses {} (layer {b})",
                        name(&from),
                        name(&to)
                    ));
                }
            }
        }
    }
    if std::env::var_os("WARPKIT_LAYERS_EDGES").is_some() {
        for (from, deps) in graph(&files) {
            for to in deps {
                eprintln!("{} -> {}", name(&from), name(&to));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The checker finds a planted circle and a planted upward import (so the tests above are
/// not vacuous).
#[test]
fn a_planted_circle_is_found() {
    let dir = std::env::temp_dir().join(format!("warpkit-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\npub use a::Thing;\n").unwrap();
    std::fs::write(
        dir.join("a/mod.rs"),
        "mod inner;\npub struct Thing;\nfn f() { inner::g(); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("a/inner.rs"),
        "use super::Thing; // \"crate::b\"\npub fn g() {}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.rs"),
        "use crate::Thing;\nfn h() { let s = \"crate::a\"; }\n",
    )
    .unwrap();
    let files = load_crate(&dir);
    let edges = graph(&files);
    let found = circles(&edges);
    assert_eq!(found.len(), 1, "{found:?}");
    let names: BTreeSet<String> = found[0].iter().map(|m| name(m)).collect();
    assert_eq!(
        names,
        BTreeSet::from(["a".to_string(), "a::inner".to_string()])
    );
    // `b` reaches `a` through the root's re-export; strings and comments are not code.
    assert_eq!(
        edges[&vec!["b".to_string()]],
        BTreeSet::from([vec!["a".to_string()]])
    );
    assert!(edges[&vec!["a".to_string(), "inner".to_string()]].len() == 1);
    let _ = std::fs::remove_dir_all(&dir);
}
