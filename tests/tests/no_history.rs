//! Code, comments and docs say what is and why, not how it came to be: no
//! source file or doc of the project cites an issue, a session, a stop or a
//! round of past work by number (commit messages carry the history).

use std::path::Path;

/// Folders and files read, relative to the checkout.
const ROOTS: &[&str] = &[
    "core", "gpu", "web", "cli", "xtask", "fuzz", "tests", "bench", "www/src", "www/index.html", "x",
    "README.md", "DEVELOPERS.md", "BENCHMARKS.md",
];

/// Folders never read: build outputs and installed packages.
const SKIP: &[&str] = &["target", "node_modules", "dist", "pkg", "artifacts", ".tools"];

const TEXT: &[&str] = &["rs", "ts", "mjs", "js", "sh", "md", "html", "css", "toml", "py", "json", "spvasm", "amber"];

fn files(p: &Path, out: &mut Vec<std::path::PathBuf>) {
    if p.is_dir() {
        if p.file_name().is_some_and(|n| SKIP.iter().any(|s| n == *s)) {
            return;
        }
        for e in std::fs::read_dir(p).unwrap().flatten() {
            files(&e.path(), out);
        }
    } else if p.extension().is_none_or(|x| TEXT.iter().any(|t| x == *t)) {
        out.push(p.to_path_buf());
    }
}

/// The history words followed by a number (`issue 12`, `Issue #9`,
/// `session 18`, `round 2`, `stop 23`, `issue8`), case-insensitive; the
/// first one found in `line`.
fn cites_history(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let b = lower.as_bytes();
    for word in ["issue", "session", "round", "stop"] {
        let mut from = 0;
        while let Some(at) = lower[from..].find(word) {
            let start = from + at;
            let mut i = start + word.len();
            from = i;
            if start > 0 && (b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'_') {
                continue;
            }
            // "round" as in "around", "stop" as in "nonstop" are excluded
            // above; "stops 3" is not a citation of one stop.
            while i < b.len() && (b[i] == b' ' || b[i] == b'#') {
                i += 1;
            }
            // Only "issue" is read when a number follows it at once
            // (`issue8-*.png`); `round140` is a name.
            let gap = i - (start + word.len());
            if i < b.len() && b[i].is_ascii_digit() && gap <= 2 && (gap > 0 || word == "issue") {
                let end = (i..b.len()).find(|&k| !b[k].is_ascii_digit()).unwrap_or(b.len());
                return Some(line[start..end].to_string());
            }
        }
    }
    None
}

#[test]
fn no_source_or_doc_cites_past_work() {
    let root = spvlab_tests::root();
    let mut all = Vec::new();
    for r in ROOTS {
        let p = root.join(r);
        if p.exists() {
            files(&p, &mut all);
        }
    }
    let me = root.join("tests/tests/no_history.rs");
    let mut problems = Vec::new();
    for f in all.iter().filter(|f| **f != me) {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        for (n, line) in text.lines().enumerate() {
            if let Some(hit) = cites_history(line) {
                problems.push(format!("{}:{}: `{hit}`", f.strip_prefix(&root).unwrap().display(), n + 1));
            }
        }
    }
    println!("{} files read, {} citations", all.len(), problems.len());
    assert!(all.len() > 300, "only {} files read", all.len());
    assert!(problems.is_empty(), "say what is and why, not which issue or session it came from:\n{}", problems.join("\n"));
}

#[test]
fn the_check_knows_a_citation() {
    for (line, hit) in [
        ("// The Run panel (issue 12, first slice)", Some("issue 12")),
        ("// see Issue #9", Some("Issue #9")),
        ("screenshots issue8-cfg.png", Some("issue8")),
        ("BENCHMARKS: session 23, round 7", Some("session 23")),
        ("the loop goes round 3 times", Some("round 3")),
        ("an issue with 3 blocks", None),
        ("around 3 ms; nonstop 4", None),
        ("tissue 5", None),
        ("let round140 = |n| n;", None),
    ] {
        assert_eq!(cites_history(line).as_deref(), hit, "{line}");
    }
}
