//! The layers of spvlab-core are plain: a top-level module only uses modules of
//! layers below its own, and no two top-level modules use each other.
//!
//! Bottom up (core/src/lib.rs says the same): 1 grammar; 2 binary, module,
//! diag, env; 3 ir, text; 4 cfg; 5 valid, reflect; 6 interp, wgsl; 7 analysis;
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
    &["valid", "reflect"],
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
