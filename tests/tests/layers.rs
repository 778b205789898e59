//! The layers of spvlab-core are plain: a top-level module only uses modules of
//! layers below its own, and no two top-level modules use each other.
//!
//! Bottom up (core/src/lib.rs says the same): 1 grammar; 2 binary, module,
//! diag, env; 3 ir, text; 4 cfg; 5 valid, reflect, raster; 6 interp, wgsl; 7 analysis;
//! 8 share, amber, flesh, plan.
//!
//! Every `crate::NAME` path outside comments and strings counts, in `use`
//! lines and inline alike. Tests (`tests.rs` files, `#[cfg(test)]` modules) are
//! left out: a test may assemble its module with the text layer.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: &[&[&str]] = &[
    &["grammar"],
    &["binary", "module", "diag", "env"],
    &["ir", "text"],
    &["cfg"],
    &["valid", "reflect", "raster"],
    &["interp", "wgsl"],
    &["analysis"],
    &["share", "amber", "flesh", "plan"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a Rust file with comments, string and char literals blanked,
/// and `#[cfg(test)]` items removed.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == b'\'' && b.get(i + 2) == Some(&b'\'') {
            i += 3;
            out.push_str("' '");
        } else if c == b'\'' && b.get(i + 1) == Some(&b'\\') {
            i += 2;
            while i < b.len() && b[i] != b'\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            let ch = src[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    // Drop `#[cfg(test)]` items: from the attribute to the end of the item
    // (its block, or its `;`).
    let mut kept = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        kept.push_str(&rest[..at]);
        let item = &rest[at..];
        let (semi, brace) = (item.find(';'), item.find('{'));
        let end = match (semi, brace) {
            (Some(s), Some(b)) if s < b => s + 1,
            (_, Some(b)) => {
                let mut depth = 0;
                let mut end = item.len();
                for (k, ch) in item[b..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (Some(s), None) => s + 1,
            (None, None) => item.len(),
        };
        rest = &item[end..];
    }
    kept.push_str(rest);
    kept
}

/// The top-level modules named by `crate::NAME` paths in `code`, with the
/// line of the first use.
fn uses(code: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().last();
            rest = &rest[at + 7..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            // `use crate::{a, b::c}` names several modules.
            let names: Vec<String> = if let Some(group) = rest.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                inner.split(',').map(|s| s.trim().split("::").next().unwrap_or("").to_string()).collect()
            } else {
                vec![rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()]
            };
            for name in names.into_iter().filter(|s| !s.is_empty()) {
                out.entry(name).or_insert(n + 1);
            }
        }
    }
    out
}

#[test]
fn core_layers_only_use_layers_below() {
    let src = spvlab_tests::root().join("core/src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    files.sort();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut checked = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        if top == "lib" || rel.file_name().is_some_and(|n| n == "tests.rs") || rel.components().any(|c| c.as_os_str() == "tests") {
            continue;
        }
        let Some(mine) = layer(&top) else {
            problems.push(format!("core/src/{}: module `{top}` has no layer (add it to LAYERS and lib.rs)", rel.display()));
            continue;
        };
        checked += 1;
        let text = std::fs::read_to_string(f).unwrap();
        for (used, line) in uses(&code_only(&text)) {
            // The root re-exports a few types: count them as their own module.
            let used = match used.as_str() {
                "Diagnostic" | "Severity" | "Span" => "diag".to_string(),
                "TargetEnv" => "env".to_string(),
                "Header" | "Instruction" | "Module" => "module".to_string(),
                _ => used,
            };
            if used == top {
                continue;
            }
            let Some(theirs) = layer(&used) else {
                problems.push(format!("core/src/{}:{line}: crate::{used} is not a known module", rel.display()));
                continue;
            };
            if theirs > mine {
                problems.push(format!(
                    "core/src/{}:{line}: `{top}` (layer {}) uses crate::{used} (layer {})",
                    rel.display(),
                    mine + 1,
                    theirs + 1
                ));
            }
            graph.entry(top.clone()).or_default().insert(used);
        }
    }
    for (a, bs) in &graph {
        for b in bs {
            if a < b && graph.get(b).is_some_and(|s| s.contains(a)) {
                problems.push(format!("`{a}` and `{b}` use each other"));
            }
        }
    }
    println!("layers: {checked} files of core checked, {} problems", problems.len());
    assert!(checked > 30, "only {checked} files read");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_sees_through_comments_strings_and_tests() {
    let src = "use crate::grammar::op; // crate::analysis\nlet s = \"crate::share\";\nfn f() { crate::cfg::analyze(m); }\nuse crate::{text::asm, diag};\n#[cfg(test)]\nmod tests { use crate::analysis; }\n/* crate::valid */";
    let u = uses(&code_only(src));
    let names: Vec<&str> = u.keys().map(String::as_str).collect();
    assert_eq!(names, ["cfg", "diag", "grammar", "text"]);
    assert_eq!(u["cfg"], 3);
}

// No import cycles between files: inside every folder of the Rust crates,
// the files and sub-folders (a sub-folder counts as one node) form a directed
// acyclic graph by the paths they name of each other.
//
// A path counts when it is `crate::..`, `super::..`, `self::..`, or starts
// with the name of a module the file declares (`mod exec;` then `exec::run`);
// `use` trees are expanded (`use super::{mem::Slot, exec}` names two).
// Each path is resolved to the deepest module file it reaches.
//
// A folder's `mod.rs` (a crate's `lib.rs` or `main.rs`) is the folder's face:
// it declares its files and re-exports them, and may hold the vocabulary
// types they share, so edges between a module file and the files below it
// do not count. Edges between siblings do, however deep the two files are
// (interp/exec/ext.rs naming interp/glsl.rs is an edge from `exec` to
// `glsl` inside interp/). Tests (`tests.rs`, `tests/`, `#[cfg(test)]` items)
// are left out.

/// The crates whose files are checked (those that exist).
const CRATES: &[&str] = &["core/src", "gpu/src", "web/src", "cli/src"];

/// The module path of a file relative to its crate's src (`interp/exec.rs`
/// -> `["interp", "exec"]`, `interp/mod.rs` -> `["interp"]`, `lib.rs` -> `[]`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !(matches!(stem, "mod") || (parts.is_empty() && matches!(stem, "lib" | "main"))) {
        parts.push(stem.to_string());
    }
    parts
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Expands a `use` tree (the text after `use` up to `;`) into its paths.
fn expand_use(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    // Split the head path from a trailing `{...}` group.
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        let close = tree.rfind('}').unwrap_or(tree.len());
        let inner = &tree[open + 1..close];
        let mut base = prefix.to_vec();
        base.extend(head);
        // Split the group at top-level commas.
        let (mut depth, mut start) = (0, 0);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_use(&inner[start..i], &base, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand_use(&inner[start..], &base, out);
    } else {
        let path = tree.split(" as ").next().unwrap_or("");
        let mut full = prefix.to_vec();
        full.extend(path.split("::").map(|s| s.trim().to_string()).filter(|s| !s.is_empty() && s != "*"));
        if !full.is_empty() {
            out.push(full);
        }
    }
}

/// Every path a file's code names: `use` trees expanded, and inline paths
/// that start with `crate`, `super`, `self` or one of `kids` (the modules
/// the file declares), each with the line it is on.
fn paths(code: &str, kids: &BTreeSet<String>) -> Vec<(Vec<String>, usize)> {
    let mut out = Vec::new();
    let line_at = |at: usize| code[..at].matches('\n').count() + 1;
    // `use` items (also `pub use`, `pub(crate) use`).
    let mut search = 0;
    while let Some(rel) = code[search..].find("use ") {
        let at = search + rel;
        search = at + 4;
        let before = code[..at].chars().last();
        if before.is_some_and(is_ident_char) {
            continue;
        }
        let Some(end) = code[at..].find(';') else { break };
        let mut trees = Vec::new();
        expand_use(&code[at + 4..at + end], &[], &mut trees);
        for t in trees {
            out.push((t, line_at(at)));
        }
        search = at + end;
    }
    // Inline paths.
    let b: Vec<char> = code.chars().collect();
    let text: String = b.iter().collect();
    let mut i = 0;
    let mut byte = 0;
    while i < b.len() {
        let starts = (i == 0 || !(is_ident_char(b[i - 1]) || b[i - 1] == ':')) && is_ident_char(b[i]);
        if starts {
            let mut j = i;
            let mut segs = Vec::new();
            loop {
                let s = j;
                while j < b.len() && is_ident_char(b[j]) {
                    j += 1;
                }
                segs.push(b[s..j].iter().collect::<String>());
                if j + 2 < b.len() && b[j] == ':' && b[j + 1] == ':' && is_ident_char(b[j + 2]) {
                    j += 2;
                } else {
                    break;
                }
            }
            let first = segs[0].as_str();
            if segs.len() > 1 && (matches!(first, "crate" | "super" | "self") || kids.contains(first)) {
                out.push((segs, line_at(byte)));
            }
            for c in &b[i..j] {
                byte += c.len_utf8();
            }
            i = j;
        } else {
            byte += b[i].len_utf8();
            i += 1;
        }
    }
    let _ = text;
    out
}

/// The module file a path names, from the file at module path `here`: the
/// deepest prefix of the resolved path that is a module of the crate.
fn resolve(here: &[String], is_mod_file: bool, path: &[String], kids: &BTreeSet<String>, modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    // `self` and `super` are relative to the module the file is; a plain
    // `mod.rs` or `foo.rs` file *is* its module.
    let _ = is_mod_file;
    let (mut base, rest): (Vec<String>, &[String]) = match path[0].as_str() {
        "crate" => (Vec::new(), &path[1..]),
        "self" => (here.to_vec(), &path[1..]),
        "super" => {
            let mut base = here.to_vec();
            let mut k = 0;
            while k < path.len() && path[k] == "super" {
                base.pop();
                k += 1;
            }
            (base, &path[k..])
        }
        kid if kids.contains(kid) => (here.to_vec(), path),
        _ => return None,
    };
    let mut best = if modules.contains(&base) { Some(base.clone()) } else { None };
    for seg in rest {
        base.push(seg.clone());
        if modules.contains(&base) {
            best = Some(base.clone());
        } else {
            break;
        }
    }
    best
}

/// The strongly connected components with more than one node.
fn cycles(nodes: &BTreeSet<String>, edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Reachability by depth-first search from each node (folders are small).
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for m in edges.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    stack.push(m.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> = nodes.iter().map(|n| (n, reach(n))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for n in nodes {
        if done.contains(n) || !reaches[n].contains(n) {
            continue;
        }
        let comp: Vec<String> = nodes.iter().filter(|m| reaches[n].contains(*m) && reaches[*m].contains(n)).cloned().collect();
        done.extend(comp.iter().cloned());
        out.push(comp);
    }
    out
}

/// The cycles between the files of one crate, one line per cycle (the folder,
/// its nodes, and each edge inside the cycle with the file:line that makes it).
fn crate_cycles(src: &Path, label: &str) -> (usize, Vec<String>) {
    let mut files = Vec::new();
    rs_files(src, &mut files);
    files.retain(|f| !f.iter().any(|c| c == "tests" || c == "tests.rs"));
    files.sort();
    let mut module_file: BTreeMap<Vec<String>, String> = BTreeMap::new();
    for f in &files {
        let rel = f.strip_prefix(src).unwrap();
        module_file.insert(module_of(rel), rel.to_string_lossy().into_owned());
    }
    let modules: BTreeSet<Vec<String>> = module_file.keys().cloned().collect();
    // Sibling edges per folder: folder -> (from, to) -> first witness.
    let mut folders: BTreeMap<Vec<String>, BTreeMap<(String, String), String>> = BTreeMap::new();
    let mut nodes: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for m in &modules {
        if let Some((last, parent)) = m.split_last() {
            nodes.entry(parent.to_vec()).or_default().insert(last.clone());
        }
    }
    for f in &files {
        let rel = f.strip_prefix(src).unwrap();
        let here = module_of(rel);
        let text = std::fs::read_to_string(f).unwrap();
        let code = code_only(&text);
        let kids: BTreeSet<String> = code
            .split(';')
            .filter_map(|s| {
                let s = s.trim();
                let s = s.rsplit(['}', ']', '\n']).next().unwrap_or(s).trim();
                let s = s.strip_prefix("pub ").or_else(|| s.strip_prefix("pub(crate) ")).or_else(|| s.strip_prefix("pub(super) ")).unwrap_or(s);
                s.strip_prefix("mod ").map(|n| n.trim().to_string())
            })
            .filter(|n| n.chars().all(is_ident_char))
            .collect();
        let is_mod_file = rel.file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs" || n == "main.rs");
        for (path, line) in paths(&code, &kids) {
            let Some(target) = resolve(&here, is_mod_file, &path, &kids, &modules) else { continue };
            // Ancestor or descendant: the face and its files.
            let common = here.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common == here.len() || common == target.len() {
                continue;
            }
            let folder = here[..common].to_vec();
            let (from, to) = (here[common].clone(), target[common].clone());
            folders
                .entry(folder)
                .or_default()
                .entry((from, to))
                .or_insert_with(|| format!("{label}/{}:{line} names {}", rel.display(), path.join("::")));
        }
    }
    let mut problems = Vec::new();
    for (folder, edges) in &folders {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges.keys() {
            graph.entry(a.clone()).or_default().insert(b.clone());
        }
        let empty = BTreeSet::new();
        for comp in cycles(nodes.get(folder).unwrap_or(&empty), &graph) {
            let witnesses: Vec<&String> = edges
                .iter()
                .filter(|((a, b), _)| comp.contains(a) && comp.contains(b))
                .map(|(_, w)| w)
                .collect();
            let place = if folder.is_empty() { label.to_string() } else { format!("{label}/{}", folder.join("/")) };
            problems.push(format!(
                "{place}: {} import each other in a circle:\n    {}",
                comp.join(", "),
                witnesses.iter().map(|w| w.as_str()).collect::<Vec<_>>().join("\n    ")
            ));
        }
    }
    (files.len(), problems)
}

#[test]
fn no_import_cycles_between_files() {
    let root = spvlab_tests::root();
    let mut problems = Vec::new();
    let mut checked = 0;
    for krate in CRATES {
        let src = root.join(krate);
        if !src.is_dir() {
            continue;
        }
        let (n, p) = crate_cycles(&src, krate);
        checked += n;
        problems.extend(p);
    }
    println!("{checked} files checked, {} cycles", problems.len());
    assert!(checked > 100, "only {checked} files read");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_finds_a_cycle_and_forgives_the_face() {
    let dir = std::env::temp_dir().join(format!("spvlab-cycles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a/deep")).unwrap();
    let put = |p: &str, s: &str| std::fs::write(dir.join(p), s).unwrap();
    put("lib.rs", "mod a;\nmod b;\npub use a::Thing;\n");
    // a/mod.rs is the face of a/: it and its files may name each other.
    put("a/mod.rs", "mod x;\nmod y;\nmod deep;\npub struct Thing;\nfn f() { x::go(); }\n");
    put("a/x.rs", "use super::Thing;\n// super::y::nothing (a comment)\npub fn go() { let _ = \"super::y\"; }\n");
    put("a/y.rs", "use super::{x::go, Thing};\n");
    put("a/deep/mod.rs", "use crate::a::{self, y};\n");
    put("b.rs", "use crate::a::Thing;\n");
    let (_, p) = crate_cycles(&dir, "t");
    assert!(p.is_empty(), "{p:?}");
    // x names deep/ and deep/ names y, which names x: a circle of three.
    put("a/x.rs", "use super::Thing;\npub fn go() { super::deep::f(); }\n");
    let (_, p) = crate_cycles(&dir, "t");
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].starts_with("t/a: deep, x, y import each other"), "{}", p[0]);
    assert!(p[0].contains("t/a/x.rs:2 names super::deep::f"), "{}", p[0]);
    // The crate root's files: b names a's files, a's file names b.
    put("a/x.rs", "pub fn go() { crate::b::h(); }\n");
    put("a/deep/mod.rs", "\n");
    put("b.rs", "use crate::a::x::go;\npub fn h() {}\n");
    let (_, p) = crate_cycles(&dir, "t");
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].starts_with("t: a, b import each other"), "{}", p[0]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The types of core, gpu, web and cli are named for what they are: no
/// struct, enum, union, trait or type alias is named with one or two
/// letters (`Ir` and `Id`, well-known, aside). Tests are left out.
#[test]
fn no_type_is_named_with_one_or_two_letters() {
    let root = spvlab_tests::root();
    let mut problems = Vec::new();
    for krate in CRATES {
        let src = root.join(krate);
        if !src.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        rs_files(&src, &mut files);
        files.retain(|f| !f.iter().any(|c| c == "tests" || c == "tests.rs"));
        for f in files {
            let code = code_only(&std::fs::read_to_string(&f).unwrap());
            for (n, line) in code.lines().enumerate() {
                let words: Vec<&str> = line.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
                for pair in words.windows(2) {
                    let [kw, name] = [pair[0], pair[1]];
                    if matches!(kw, "struct" | "enum" | "union" | "trait" | "type")
                        && name.len() <= 2
                        && name.starts_with(|c: char| c.is_ascii_uppercase())
                        && !matches!(name, "Ir" | "Id")
                    {
                        problems.push(format!("{}:{}: {kw} {name}", f.strip_prefix(&root).unwrap().display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "name these types for what they are:\n{}", problems.join("\n"));
}
