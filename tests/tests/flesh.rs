//! Fleshing (core's `flesh`, `spvlab gen-cfg`, `spvlab flesh`) against the
//! reference: every generated CFG skeleton and every program fleshed from it,
//! in each mode, is valid for spirv-val v2025.5 (when installed) and for
//! spvlab; each program run on the interpreter writes exactly the path that
//! the path chooser picked (the oracle comes from the CFG, not from a run);
//! and the AmberScript written for it passes `spvlab amber`.
//!
//! `SPVLAB_FLESH_N` CFGs (default 120), sizes 4 to 40 blocks, half of them
//! drawn under the paper's shape constraints.

use spvlab_core::analysis::Analysis;
use spvlab_core::flesh::{self, Config, FleshError, Knobs, Mode, Options, Skeleton};
use spvlab_core::interp::{self, Buffers};
use spvlab_tests::{assert_exit, assert_valid_module, root, run_spvlab, scratch};

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The output buffer of a fleshed program run on the interpreter.
fn run(f: &flesh::Fleshed) -> Vec<u32> {
    let a = Analysis::of_text(&f.text, &spvlab_core::valid::Options::default());
    let errors: Vec<&str> = a.diagnostics().iter().map(|d| d.message.as_str()).collect();
    assert!(a.is_valid(), "{}\n{errors:#?}", f.text);
    let mut bufs = Buffers::new();
    bufs.insert((0, 0), f.directions.iter().flat_map(|w| w.to_le_bytes()).collect());
    bufs.insert((0, 1), vec![0u8; f.expected.len() * 4]);
    let r = interp::run(a.ir().unwrap(), &interp::Options::default(), &mut bufs);
    assert!(r.is_ok(), "{:?}\n{}", r.err(), f.text);
    words(&bufs[&(0, 1)])
}

#[test]
fn generated_cfgs_and_their_fleshed_programs_are_valid_and_follow_their_paths() {
    let n: u64 = std::env::var("SPVLAB_FLESH_N").ok().and_then(|v| v.parse().ok()).unwrap_or(120);
    let (mut fleshed, mut no_exit) = (0, 0);
    for seed in 0..n {
        let knobs = if seed % 2 == 0 { Knobs::paper() } else { Knobs::default() };
        let cfg = Config { blocks: 4 + (seed as usize * 7) % 37, max_depth: 2 + seed as usize % 5, knobs, ..Config::default() };
        let (s, _) = flesh::generate(seed, cfg);
        let text = s.module_text();
        assert_valid_module("flesh_skeleton", &text, "spv1.6");
        for mode in [Mode::Basic, Mode::Phi, Mode::Multi] {
            let f = match flesh::flesh(&s, &Options { seed, mode, ..Options::default() }) {
                Ok(f) => f,
                Err(FleshError::NoExit { .. }) => {
                    no_exit += 1;
                    continue;
                }
                Err(e) => panic!("seed {seed}: {e}"),
            };
            assert_valid_module("flesh_program", &f.text, "spv1.4");
            assert_eq!(run(&f), f.expected, "seed {seed}, mode {}:\n{}", mode.name(), f.text);
            fleshed += 1;
        }
    }
    eprintln!("flesh: {n} CFGs, {fleshed} programs fleshed and run, {no_exit} without a path to a return");
    assert!(fleshed as u64 >= n * 3 * 9 / 10, "only {fleshed} programs");
}

#[test]
fn a_modules_function_fleshes_through_the_cli_and_its_amber_test_passes() {
    let dir = scratch("flesh_cli");
    let fig = root().join("www/src/gallery/examples/paper-fig2.spvasm");
    for mode in ["basic", "phi", "multi"] {
        let amber = dir.join(format!("fig2-{mode}.amber"));
        let o = run_spvlab(
            &dir,
            &["flesh", "--mode", mode, "--seed", "7", "--amber", amber.to_str().unwrap(), fig.to_str().unwrap()],
            b"",
        );
        assert_exit(&o, 0);
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(text.starts_with("; A structured CFG fleshed"), "{text}");
        assert_valid_module("flesh_cli_valid", &text, "spv1.4");
        let o = run_spvlab(&dir, &["amber", amber.to_str().unwrap()], b"");
        assert_exit(&o, 0);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("1 passed"), "{out}");
    }
}

#[test]
fn the_cli_is_deterministic_and_says_what_is_wrong() {
    let dir = scratch("flesh_cli_errors");
    let a = run_spvlab(&dir, &["gen-cfg", "--paper", "--seed", "11", "--blocks", "20"], b"");
    let b = run_spvlab(&dir, &["gen-cfg", "--paper", "--seed", "11", "--blocks", "20"], b"");
    assert_exit(&a, 0);
    assert_eq!(a.stdout, b.stdout);
    let c = run_spvlab(&dir, &["gen-cfg", "--paper", "--seed", "12", "--blocks", "20"], b"");
    assert_ne!(a.stdout, c.stdout);
    let f1 = run_spvlab(&dir, &["flesh", "--seed", "3", "-"], &a.stdout);
    let f2 = run_spvlab(&dir, &["flesh", "--seed", "3", "-"], &a.stdout);
    assert_exit(&f1, 0);
    assert_eq!(f1.stdout, f2.stdout);

    // A near miss: the skeleton with a merge block retargeted is invalid.
    let text = String::from_utf8(a.stdout).unwrap();
    // (the rest of the line becomes a comment).
    let bad = text.replacen("OpSelectionMerge %b", "OpSelectionMerge %b1 None\n; ", 1);
    let o = run_spvlab(&dir, &["flesh", "-"], bad.as_bytes());
    assert_exit(&o, 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is not valid"), "{err}");
    // ... with the validator's own diagnostics, located in the text.
    assert!(err.contains("error[cfg.merge-") && err.contains("<stdin>:"), "{err}");

    // A loop nothing leaves: no path to record.
    let spin = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
        OpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\nOpBranch %head\n\
        %head = OpLabel\nOpLoopMerge %out %head None\nOpBranch %head\n%out = OpLabel\nOpUnreachable\nOpFunctionEnd\n";
    let o = run_spvlab(&dir, &["flesh", "-"], spin.as_bytes());
    assert_exit(&o, 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("<stdin>:8:1: no path from the entry block %entry"), "{err}");

    let o = run_spvlab(&dir, &["flesh", "--mode", "sideways", "-"], spin.as_bytes());
    assert_exit(&o, 2);
}

#[test]
fn a_skeleton_of_a_module_keeps_its_blocks_and_names() {
    let src = std::fs::read_to_string(root().join("www/src/gallery/examples/paper-fig2.spvasm")).unwrap();
    let a = Analysis::of_text(&src, &spvlab_core::valid::Options::default());
    let s = Skeleton::of_function(&a, 0).unwrap();
    let f = &a.cfg().functions[0];
    assert_eq!(s.blocks.len(), f.blocks.len());
    for (b, fb) in s.blocks.iter().zip(&f.blocks) {
        assert_eq!(b.label, fb.label);
        assert_eq!(s.name(b.label), format!("%{}", a.display_name(fb.label)));
    }
}

#[test]
fn a_campaign_on_the_interpreter_has_no_findings_and_is_sharded() {
    let dir = scratch("flesh_fuzz");
    let out = dir.join("findings");
    let o = run_spvlab(&dir, &["fuzz", "--count", "90", "--seed", "5", "--paper", "--out", out.to_str().unwrap()], b"");
    assert_exit(&o, 0);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let line = text.lines().find(|l| l.trim_start().starts_with("interp")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("0 wrong output, 0 failed"), "{text}");
    assert!(!out.exists(), "findings written for a clean campaign");
    // Two shards run the same cases as one campaign, split.
    let fleshed = |t: &str| -> u64 { t.split_whitespace().nth(2).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{t}")) };
    let mut sum = 0;
    for shard in ["0/2", "1/2"] {
        let o = run_spvlab(&dir, &["fuzz", "--count", "90", "--seed", "5", "--paper", "--shard", shard], b"");
        assert_exit(&o, 0);
        sum += fleshed(&String::from_utf8_lossy(&o.stdout));
    }
    assert_eq!(sum, fleshed(&text));
    let o = run_spvlab(&dir, &["fuzz", "--shard", "2/2"], b"");
    assert_exit(&o, 2);
}

#[test]
fn reduce_says_when_a_finding_does_not_reproduce() {
    let dir = scratch("flesh_reduce");
    let (s, _) = flesh::generate(4, Config { blocks: 12, ..Config::default() });
    let opts = Options { seed: 4, ..Options::default() };
    let f = flesh::flesh(&s, &opts).unwrap();
    // The interpreter follows every path: a finding that says it did not is stale.
    let finding = serde_json::json!({
        "backend": "interp", "finding": "wrong", "options": opts, "skeleton": s, "paths": f.paths,
    });
    let case = dir.join("case");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::write(case.join("finding.json"), finding.to_string()).unwrap();
    let o = run_spvlab(&dir, &["reduce", case.to_str().unwrap()], b"");
    assert_exit(&o, 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("interp no longer goes wrong the same way on it (wrong recorded, a pass now)"), "{err}");
    std::fs::write(case.join("finding.json"), "{ not json").unwrap();
    let o = run_spvlab(&dir, &["reduce", case.to_str().unwrap()], b"");
    assert_exit(&o, 1);
    assert!(String::from_utf8_lossy(&o.stderr).contains("finding.json is not JSON"));
    let o = run_spvlab(&dir, &["reduce"], b"");
    assert_exit(&o, 2);
}

#[test]
fn every_structured_function_of_the_corpus_fleshes_and_follows_its_path() {
    // The CFGs of real modules (tests, CTS shaders, compiler output), not our
    // generator's: each function of three blocks or more of each valid
    // shader module.
    let Some(corpus) = spvlab_tests::corpus_or_skip("flesh_corpus") else { return };
    let (mut functions, mut modules, mut no_exit) = (0, 0, 0);
    for case in spvlab_tests::cases(&corpus) {
        if case.meta_str("expected") != "valid"
            || !case.text.contains("OpCapability Shader")
            || case.text.matches("OpLabel").count() < 3
        {
            continue;
        }
        let Some(env) = spvlab_core::TargetEnv::parse(case.target_env()) else { continue };
        let a = Analysis::of_text(&case.text, &spvlab_core::valid::Options { env, ..Default::default() });
        if !a.is_valid() {
            continue;
        }
        modules += 1;
        for (k, f) in a.cfg().functions.iter().enumerate() {
            // Functions with control flow to speak of.
            if f.blocks.len() < 3 {
                continue;
            }
            let s = Skeleton::of_function(&a, k).unwrap_or_else(|e| panic!("{}: {e}", case.name));
            let fleshed = match flesh::flesh(&s, &Options { seed: k as u64, max_len: 40, ..Options::default() }) {
                Ok(f) => f,
                Err(FleshError::NoExit { .. }) => {
                    no_exit += 1;
                    continue;
                }
                Err(e) => panic!("{}: {e}", case.name),
            };
            assert_eq!(run(&fleshed), fleshed.expected, "{} function {k}:\n{}", case.name, fleshed.text);
            functions += 1;
        }
    }
    eprintln!("flesh_corpus: {functions} functions of {modules} valid shader modules fleshed and run ({no_exit} without a path to a return)");
    assert!(functions > 500, "only {functions} functions");
}
