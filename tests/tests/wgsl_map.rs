//! The WGSL source map (`Wgsl::lines`) on the control-flow suite
//! (tests/wgsl-cf): every non-blank WGSL line maps to a SPIR-V instruction,
//! and the control-flow lines to the instructions that made them, checked
//! against the module itself (the opcode of the mapped instruction, and for
//! an `if`, the condition that its OpBranchConditional tests, by the WGSL
//! name bound to that condition's defining instruction).

use spvlab_core::grammar::op;
use spvlab_core::ir::Ir;
use spvlab_core::text::{AsmOptions, assemble};
use spvlab_core::{TargetEnv, binary, cfg, wgsl};
use spvlab_tests::root;

fn modules() -> Vec<(String, Vec<u32>)> {
    let dir = root().join("tests/wgsl-cf");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "spvasm"));
    files.sort();
    assert!(files.len() >= 30, "{} modules", files.len());
    files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let asm = AsmOptions { env: TargetEnv::parse("vulkan1.1").unwrap(), preserve_numeric_ids: false };
            (p.file_stem().unwrap().to_string_lossy().into_owned(), assemble(&text, &asm).unwrap())
        })
        .collect()
}

/// The name a line binds: `let NAME...`, or `var NAME...` and `NAME = ...`
/// (a hoisted value).
fn bound_name(line: &str) -> Option<&str> {
    let l = line.trim_start();
    let l = l.strip_prefix("let ").or_else(|| l.strip_prefix("var ")).unwrap_or(l);
    let end = l.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    (end > 0).then_some(&l[..end])
}

#[test]
fn control_flow_lines_map_to_their_branches() {
    let (mut ifs_checked, mut loops, mut switches) = (0, 0, 0);
    for (name, words) in modules() {
        let ir = Ir::build(binary::read_words(&words).unwrap());
        let graph = cfg::analyze(&ir.module);
        let w =
            wgsl::lower(&ir, &graph, &wgsl::Options::default()).unwrap_or_else(|r| panic!("{name}: {}", r[0].message));
        let lines: Vec<&str> = w.text.lines().collect();
        assert_eq!(lines.len(), w.lines.len(), "{name}: one map entry per line");
        for (k, l) in lines.iter().enumerate() {
            let t = l.trim();
            if t.is_empty() {
                continue;
            }
            let Some(i) = w.lines[k] else { panic!("{name}: line {} `{t}` maps to no instruction", k + 1) };
            let i = i as usize;
            assert!(i < ir.len(), "{name}: line {} maps past the module", k + 1);
            let o = ir.opcode(i);
            let guard = |c: &str| {
                let c = c.trim_start_matches(['!', '(']);
                c.starts_with("guard") || c.starts_with("dispatch")
            };
            if let Some(c) = t.strip_prefix("if ").and_then(|c| c.strip_suffix(" {")).filter(|c| guard(c)) {
                // A guard variable's test: the branch that led to it.
                let _ = c;
                assert!(
                    matches!(o, op::OpBranch | op::OpBranchConditional | op::OpSwitch),
                    "{name}: line {} `{t}`",
                    k + 1
                );
            } else if let Some(c) = t.strip_prefix("if ").and_then(|c| c.strip_suffix(" {")) {
                assert_eq!(o, op::OpBranchConditional, "{name}: line {} `{t}`", k + 1);
                // The condition tested: the name bound at its definition.
                let cond = ir.words(i)[0];
                let Some(def) = ir.def(cond) else { continue };
                let bound = w
                    .lines
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| **m == Some(def as u32))
                    .find_map(|(j, _)| bound_name(lines[j]));
                if let Some(n) = bound {
                    let c = c.strip_prefix("!(").and_then(|c| c.strip_suffix(')')).unwrap_or(c);
                    assert_eq!(c, n, "{name}: line {} `{t}` tests {n}", k + 1);
                    ifs_checked += 1;
                }
            } else if t == "loop {" || t == "continuing {" {
                // A re-dispatch loop of our own (around `switch dispatchN`)
                // maps to the branch that leads to it.
                let dispatch = lines.get(k + 1).is_some_and(|n| n.trim_start().starts_with("switch dispatch"));
                if dispatch {
                    assert!(
                        matches!(o, op::OpBranch | op::OpBranchConditional | op::OpSwitch),
                        "{name}: line {} `{t}`",
                        k + 1
                    );
                } else {
                    assert_eq!(o, op::OpLoopMerge, "{name}: line {} `{t}`", k + 1);
                    loops += 1;
                }
            } else if t.starts_with("break if ") {
                assert_eq!(o, op::OpBranchConditional, "{name}: line {} `{t}`", k + 1);
            } else if t.starts_with("switch ") {
                assert!(
                    o == op::OpSwitch || o == op::OpBranchConditional || o == op::OpBranch,
                    "{name}: line {} `{t}`",
                    k + 1
                );
                switches += usize::from(o == op::OpSwitch);
            } else if t.starts_with("case ") {
                assert!(
                    o == op::OpSwitch || o == op::OpBranchConditional || o == op::OpBranch,
                    "{name}: line {} `{t}`",
                    k + 1
                );
            } else if t == "break;" || t == "continue;" || t.starts_with("return") {
                assert!(
                    matches!(
                        o,
                        op::OpBranch
                            | op::OpBranchConditional
                            | op::OpSwitch
                            | op::OpReturn
                            | op::OpReturnValue
                            | op::OpUnreachable
                            | op::OpKill
                            | op::OpFunctionEnd
                    ),
                    "{name}: line {} `{t}` maps to opcode {o}",
                    k + 1
                );
            }
        }
    }
    assert!(
        ifs_checked >= 20 && loops >= 20 && switches >= 10,
        "ifs {ifs_checked}, loops {loops}, switches {switches}"
    );
}

/// `spvlab wgsl --map`: one `wgsl-line: spirv-line:col` per mapped line; the
/// `if` line of a module points at the text's OpBranchConditional.
#[test]
fn cli_map_points_at_the_text() {
    let name = "loop_continue_from_if";
    let src = std::fs::read_to_string(root().join(format!("tests/wgsl-cf/{name}.spvasm"))).unwrap();
    let dir = spvlab_tests::scratch("wgsl_map_cli");
    std::fs::write(dir.join("m.spvasm"), &src).unwrap();
    let wgsl_out = spvlab_tests::run_spvlab(&dir, &["wgsl", "--target-env", "vulkan1.1", "m.spvasm"], b"");
    spvlab_tests::assert_exit(&wgsl_out, 0);
    let o = spvlab_tests::run_spvlab(&dir, &["wgsl", "--target-env", "vulkan1.1", "--map", "m.spvasm"], b"");
    spvlab_tests::assert_exit(&o, 0);
    let text = String::from_utf8(wgsl_out.stdout).unwrap();
    let wl: Vec<&str> = text.lines().collect();
    let sl: Vec<&str> = src.lines().collect();
    let map = String::from_utf8(o.stdout).unwrap();
    let mut ifs = 0;
    for l in map.lines() {
        let (w, s) = l.split_once(": ").unwrap_or_else(|| panic!("bad map line {l}"));
        let (line, col) = s.split_once(':').unwrap_or_else(|| panic!("bad position {s}"));
        let (w, line, col): (usize, usize, usize) = (w.parse().unwrap(), line.parse().unwrap(), col.parse().unwrap());
        assert!(w >= 1 && w <= wl.len() && line >= 1 && line <= sl.len() && col >= 1, "{l}");
        let spv = &sl[line - 1][col - 1..];
        if wl[w - 1].trim_start().starts_with("if ") && !wl[w - 1].contains("guard") && !wl[w - 1].contains("dispatch") {
            assert!(spv.starts_with("OpBranchConditional"), "{l}: `{}` maps to `{spv}`", wl[w - 1]);
            ifs += 1;
        }
    }
    assert!(ifs >= 1, "no `if` line in the map:\n{map}");
    assert_eq!(map.lines().count(), wl.iter().filter(|l| !l.trim().is_empty()).count(), "every non-blank line is mapped");
}
