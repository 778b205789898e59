//! The examples gallery of the page (www/src/gallery): every example's
//! `valid` flag is checked against the reference spirv-val at the example's
//! target environment (the examples are assembled by the reference spirv-as,
//! whose words must equal ours), and against our assembler and validator.
//!
//! The list of examples is read from www/src/gallery/index.ts (one `id:`,
//! `targetEnv:` and `valid:` line per entry); the texts are the files
//! www/src/gallery/examples/<id>.spvasm that it imports.

use spvlab_core::text::{AsmOptions, assemble};
use spvlab_core::valid::{Options, validate_words};
use spvlab_core::{Severity, TargetEnv};
use spvlab_tests::{reference_or_skip, root, run_tool, scratch, words_of};
use std::collections::BTreeSet;
use std::path::PathBuf;

struct Entry {
    id: String,
    category: String,
    target_env: String,
    valid: bool,
    /// The reference validator does not know the example's extension.
    reference_unknown: bool,
}

fn gallery_dir() -> PathBuf {
    root().join("www/src/gallery")
}

/// The value of `key: "value"` on a line, if the line is that.
fn quoted(line: &str, key: &str) -> Option<String> {
    let rest = line.trim().strip_prefix(key)?.strip_prefix(':')?.trim();
    let rest = rest.strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}

fn entries() -> Vec<Entry> {
    let src = std::fs::read_to_string(gallery_dir().join("index.ts")).expect("read gallery/index.ts");
    let body = &src[src.find("export const EXAMPLES").expect("EXAMPLES in index.ts")..];
    let mut out: Vec<Entry> = Vec::new();
    for line in body.lines() {
        let t = line.trim();
        if let Some(id) = quoted(t, "id") {
            out.push(Entry { id, category: String::new(), target_env: String::new(), valid: false, reference_unknown: false });
            continue;
        }
        let Some(e) = out.last_mut() else { continue };
        if let Some(c) = quoted(t, "category") {
            e.category = c;
        } else if let Some(env) = quoted(t, "targetEnv") {
            e.target_env = env;
        } else if t == "valid: true," {
            e.valid = true;
        } else if t == "valid: false," {
            e.valid = false;
        } else if t.starts_with("referenceNote:") {
            e.reference_unknown = true;
        }
    }
    out
}

fn text_of(id: &str) -> String {
    let p = gallery_dir().join("examples").join(format!("{id}.spvasm"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn gallery_lists_every_example_file() {
    let list = entries();
    let ids: BTreeSet<String> = list.iter().map(|e| e.id.clone()).collect();
    assert_eq!(ids.len(), list.len(), "duplicate ids");
    let files: BTreeSet<String> = std::fs::read_dir(gallery_dir().join("examples"))
        .expect("examples folder")
        .flatten()
        .filter_map(|f| f.file_name().to_str()?.strip_suffix(".spvasm").map(String::from))
        .collect();
    assert_eq!(ids, files, "index.ts entries and examples/*.spvasm files");
    for e in &list {
        assert!(TargetEnv::parse(&e.target_env).is_some(), "{}: target env {:?}", e.id, e.target_env);
        assert!(["paper", "extension", "compute", "graphics"].contains(&e.category.as_str()), "{}: category {:?}", e.id, e.category);
    }
    let count = |c: &str| list.iter().filter(|e| e.category == c).count();
    // The figures, and runnable fleshings of some (`paper-figN-run`: the
    // path view's examples), each beside its figure.
    let fleshed = |e: &&Entry| e.id.ends_with("-run");
    assert_eq!(list.iter().filter(|e| e.category == "paper" && !fleshed(e)).count(), 9, "figures 2 to 8 and both halves of figure 9");
    for e in list.iter().filter(|e| e.category == "paper" && fleshed(e)) {
        assert!(ids.contains(e.id.trim_end_matches("-run")), "{}: fleshes a figure of the gallery", e.id);
    }
    assert_eq!(count("extension"), 4, "one per mission extension");
    assert!(count("compute") >= 3);
    assert_eq!(count("graphics"), 2, "a GraphicsFuzz fragment shader and the gradient");
    // The verdicts the paper states: Fig. 7 and Fig. 9 (left) invalid.
    for e in list.iter().filter(|e| e.category == "paper") {
        let invalid = e.id == "paper-fig7" || e.id == "paper-fig9-left";
        assert_eq!(e.valid, !invalid, "{}: the paper's verdict", e.id);
    }
}

#[test]
fn gallery_examples_match_our_validator() {
    for e in entries() {
        let env = TargetEnv::parse(&e.target_env).expect("target env");
        let text = text_of(&e.id);
        let words = assemble(&text, &AsmOptions { env, preserve_numeric_ids: false })
            .unwrap_or_else(|d| panic!("{}: our assembler: {:?}", e.id, d.first().map(|d| &d.message)));
        let opts = Options { env, ..Options::default() };
        let errors: Vec<_> = validate_words(&words, &opts)
            .into_iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect();
        assert_eq!(errors.is_empty(), e.valid, "{} at {}: our validator says {errors:?}", e.id, e.target_env);
    }
}

#[test]
fn gallery_examples_match_spirv_val() {
    let Some(bin) = reference_or_skip("gallery_examples_match_spirv_val") else { return };
    let dir = scratch("gallery");
    let mut checked = 0;
    for e in entries() {
        let env = TargetEnv::parse(&e.target_env).expect("target env");
        let text = text_of(&e.id);
        let asm = dir.join(format!("{}.spvasm", e.id));
        let spv = dir.join(format!("{}.spv", e.id));
        std::fs::write(&asm, &text).unwrap();
        let (ok, _, err) =
            run_tool(&bin, "spirv-as", &["--target-env", &e.target_env, asm.to_str().unwrap(), "-o", spv.to_str().unwrap()]);
        if e.reference_unknown {
            // The note must stay true: the reference tools do not know it.
            assert!(!ok, "{}: spirv-as now assembles it: drop referenceNote and check it", e.id);
            continue;
        }
        assert!(ok, "{}: spirv-as: {err}", e.id);
        let reference = words_of(&std::fs::read(&spv).unwrap());
        let ours = assemble(&text, &AsmOptions { env, preserve_numeric_ids: false }).expect("our assembler");
        assert_eq!(ours, reference, "{}: our words differ from spirv-as's", e.id);
        let (ok, _, err) = run_tool(&bin, "spirv-val", &["--target-env", &e.target_env, spv.to_str().unwrap()]);
        assert_eq!(ok, e.valid, "{} at {}: spirv-val says {err}", e.id, e.target_env);
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} examples checked");
}

/// The fleshed figures (`paper-figN-run`): with the directions their text
/// states, the interpreter's trace of the one invocation and the path the
/// module records in `out` (binding 0.1) are both the block sequence worked
/// out by hand, stated beside the directions (the browser's path view is
/// checked against the same in tests/e2e/path.test.mjs).
#[test]
fn fleshed_figures_follow_their_stated_path() {
    use spvlab_core::interp::{self, Buffers, Trace};
    let fleshed: Vec<Entry> = entries().into_iter().filter(|e| e.id.ends_with("-run")).collect();
    assert_eq!(fleshed.len(), 3, "figures 2, 3 and 4 fleshed");
    for e in fleshed {
        let text = text_of(&e.id);
        let dirs: Vec<u32> = text
            .lines()
            .find_map(|l| l.strip_prefix("; Directions ")?.strip_suffix(" give the path, worked out by hand from the figure:"))
            .unwrap_or_else(|| panic!("{}: states its directions", e.id))
            .split(' ')
            .map(|d| d.parse().expect("a direction"))
            .collect();
        let want: Vec<String> = text
            .lines()
            .skip_while(|l| !l.starts_with("; Directions "))
            .nth(1)
            .and_then(|l| l.strip_prefix(";   "))
            .unwrap_or_else(|| panic!("{}: states its path", e.id))
            .split("   (")
            .next()
            .unwrap()
            .split(' ')
            .map(String::from)
            .collect();
        let env = TargetEnv::parse(&e.target_env).expect("target env");
        let words = assemble(&text, &AsmOptions { env, preserve_numeric_ids: false }).expect("it assembles");
        let ir = spvlab_core::ir::Ir::build(spvlab_core::binary::read_words(&words).expect("it reads back"));
        let mut bytes: Vec<u8> = dirs.iter().flat_map(|d| d.to_le_bytes()).collect();
        bytes.resize(64, 0);
        let mut buffers = Buffers::new();
        buffers.insert((0, 0), bytes);
        buffers.insert((0, 1), vec![0; 64]);
        let opts = interp::Options { trace: Trace::Invocations(vec![[0, 0, 0]]), ..interp::Options::default() };
        let stats = interp::run(&ir, &opts, &mut buffers).unwrap_or_else(|err| panic!("{}: {}", e.id, err.message()));
        let trace = stats.trace.expect("a trace");
        let path = trace.path([0, 0, 0]).expect("the invocation's path");
        let traced: Vec<String> = path.blocks().map(|b| ir.name(b.label).unwrap_or("?").to_string()).collect();
        assert_eq!(traced, want, "{}: the interpreter's trace", e.id);
        let recorded: Vec<String> = buffers[&(0, 1)]
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .take_while(|&n| n != 0)
            .map(|n| format!("b{n}"))
            .collect();
        assert_eq!(recorded, want, "{}: the path recorded in out", e.id);
    }
}
