//! `spvlab cfg --rules 1.6r1|1.6r2`, run as a process on the gallery's copies
//! of the figures of Klimis et al., "Taking Back Control in an Intermediate
//! Representation for GPU Computing" (POPL 2023). The expected sets and
//! verdicts are the paper's (quoted per check), not our own output; without
//! `--rules` the command still prints the DOT it printed before.

use spvlab_tests::{assert_exit, root, run_spvlab};

fn fig(name: &str) -> String {
    root().join("www/src/gallery/examples").join(name).to_str().unwrap().to_owned()
}

fn cfg(args: &[&str]) -> (i32, String, String) {
    let o = run_spvlab(&root(), args, b"");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The line of a construct ("selection %b4 (...): blocks").
fn line<'a>(out: &'a str, start: &str) -> &'a str {
    out.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no `{start}` line in\n{out}"))
}

#[test]
fn rules_print_each_revisions_constructs() {
    let f6 = fig("paper-fig6.spvasm");
    let (code, r1, err) = cfg(&["cfg", "--rules", "1.6r1", &f6]);
    assert_eq!(code, 0, "{err}");
    assert!(r1.contains("SPIR-V 1.6r1"), "{r1}");
    // §3.4: "according to the definition of selection construct given in
    // Section 2.2 this selection construct contains *no* blocks."
    assert!(line(&r1, "selection %b4 ").ends_with(": (no blocks)"), "{r1}");
    // §3.4: "The SPIR-V specification allows this example".
    assert!(r1.contains("verdict: valid"), "{r1}");
    let (code, r2, err) = cfg(&["cfg", "--rules=1.6r2", &f6]);
    assert_eq!(code, 0, "{err}");
    // §4.3: "... yielding the set {4, 5, 6}".
    assert!(line(&r2, "selection %b4 ").ends_with(": %b4 %b5 %b6"), "{r2}");

    let f7 = fig("paper-fig7.spvasm");
    // §3.4: "SPIR-V 1.6r1 appears to allow this CFG."
    let (_, r1, _) = cfg(&["cfg", "--rules", "1.6r1", &f7]);
    assert!(r1.contains("back edges: none") && r1.contains("verdict: valid"), "{r1}");
    // §4.3: "this example is now deemed invalid, because header block 10
    // does not structurally dominate its merge block 5."
    let (code, r2, _) = cfg(&["cfg", "--rules", "1.6r2", &f7]);
    assert_eq!(code, 0);
    assert!(r2.contains("verdict: invalid"), "{r2}");
    assert!(r2.contains("the header %b10 does not strictly structurally dominate its merge block %b5"), "{r2}");

    let f5 = fig("paper-fig5.spvasm");
    // §3.3: "Hence the loop header block 2 has no back edges branching to
    // it" and "The CFG of Fig. 5 is invalid according to this rule" under
    // 1.6r1; §4.3: "branch edge 3 -> 2 ... is indeed a back edge".
    let (_, r1, _) = cfg(&["cfg", "--rules", "1.6r1", &f5]);
    assert!(r1.contains("back edges: none") && r1.contains("verdict: invalid"), "{r1}");
    let (_, r2, _) = cfg(&["cfg", "--rules", "1.6r2", &f5]);
    assert!(r2.contains("back edges: %b3 -> %b2") && r2.contains("verdict: valid"), "{r2}");
}

#[test]
fn without_rules_the_output_is_the_dot_as_before() {
    let f6 = fig("paper-fig6.spvasm");
    let (code, dot, err) = cfg(&["cfg", &f6]);
    assert_eq!(code, 0, "{err}");
    assert!(dot.starts_with("digraph"), "{dot}");
    assert!(!dot.contains("SPIR-V 1.6r"), "{dot}");
}

#[test]
fn bad_rules_are_usage_errors() {
    let f6 = fig("paper-fig6.spvasm");
    for args in [
        vec!["cfg", "--rules", "1.7", f6.as_str()],
        vec!["cfg", "--rules", "1.6r1", "--format", "json", f6.as_str()],
        vec!["cfg", f6.as_str(), "--rules"],
    ] {
        let o = run_spvlab(&root(), &args, b"");
        assert_exit(&o, 2);
    }
}
