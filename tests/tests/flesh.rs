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

    // Multi-mode programs of 32 invocations: each program checks 32 paths.
    let o = run_spvlab(&dir, &["fuzz", "--count", "12", "--mode", "multi", "--invocations", "32"], b"");
    assert_exit(&o, 0);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let programs = fleshed(&text);
    assert!(programs >= 6, "{text}");
    assert!(text.contains(&format!("{programs} programs fleshed, {} paths", programs * 32)), "{text}");
    let o = run_spvlab(&dir, &["fuzz", "--invocations", "257"], b"");
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

/// The output buffer of a batch run on the interpreter, one workgroup per
/// program.
fn run_batch(b: &flesh::Batch) -> Vec<u32> {
    let a = Analysis::of_text(&b.text, &spvlab_core::valid::Options { env: spvlab_core::TargetEnv::Spv1_4, ..Default::default() });
    let errors: Vec<&str> = a.diagnostics().iter().map(|d| d.message.as_str()).collect();
    assert!(a.is_valid(), "{}\n{errors:#?}", b.text);
    let mut bufs = Buffers::new();
    bufs.insert((0, 0), b.directions.iter().flat_map(|w| w.to_le_bytes()).collect());
    bufs.insert((0, 1), vec![0u8; b.expected.len() * 4]);
    let opts = interp::Options { workgroups: [b.workgroups, 1, 1], ..interp::Options::default() };
    let r = interp::run(a.ir().unwrap(), &opts, &mut bufs);
    assert!(r.is_ok(), "{:?}\n{}", r.err(), b.text);
    words(&bufs[&(0, 1)])
}

#[test]
fn a_batch_holds_its_programs_side_by_side_and_each_follows_its_path() {
    // Every mode in each batch (the programs' workgroup sizes differ), CFGs
    // of several sizes, batches of 1 to 40 programs.
    let mut programs = Vec::new();
    for seed in 0..120u64 {
        let knobs = if seed % 2 == 0 { Knobs::paper() } else { Knobs::default() };
        let cfg = Config { blocks: 4 + (seed as usize * 5) % 24, max_depth: 2 + seed as usize % 4, knobs, ..Config::default() };
        let (s, _) = flesh::generate(seed, cfg);
        let opts = Options { seed, mode: [Mode::Basic, Mode::Phi, Mode::Multi][seed as usize % 3], ..Options::default() };
        if let Ok(f) = flesh::flesh(&s, &opts) {
            programs.push((s, opts, f));
        }
    }
    assert!(programs.len() > 100, "only {} programs", programs.len());
    let mut at = 0;
    for size in [1, 2, 3, 7, 40, 20, 40] {
        let part = &programs[at..(at + size).min(programs.len())];
        at += size;
        let members: Vec<flesh::Member> = part.iter().map(|(s, o, f)| flesh::Member { skeleton: s, opts: o, program: f }).collect();
        let b = flesh::batch(&members);
        // The oracle: the programs' own expected outputs, side by side.
        let side_by_side: Vec<u32> = part.iter().flat_map(|p| p.2.expected.iter().copied()).collect();
        assert_eq!(b.expected, side_by_side);
        assert_eq!(b.outputs.len(), part.len());
        for (r, p) in b.outputs.iter().zip(part) {
            assert_eq!(&b.expected[r.clone()], &p.2.expected[..]);
        }
        assert_valid_module("flesh_batch", &b.text, "spv1.4");
        let out = run_batch(&b);
        assert_eq!(out, b.expected, "batch of {size}:\n{}", b.text);
        assert!(b.wrong(&out).is_empty());
        // One program's path disturbed: exactly it is wrong.
        let mut bad = out.clone();
        let k = part.len() / 2;
        bad[b.outputs[k].start] ^= 1;
        assert_eq!(b.wrong(&bad), vec![k]);
    }
}

/// `spvlab fuzz` with the test hooks of `SPVLAB_FUZZ_TEST` (findings planted
/// in the interpreter's runs, a stop in a batch).
fn fuzz_with(dir: &std::path::Path, hooks: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(spvlab_tests::spvlab_bin())
        .arg("fuzz")
        .args(args)
        .env("SPVLAB_FUZZ_TEST", hooks)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// A campaign's findings: (folder, kind) of each line of findings.jsonl,
/// sorted, and that each line has its folder.
fn findings_of(out: &std::path::Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(out.join("findings.jsonl")).unwrap_or_default();
    let mut v: Vec<(String, String)> = text
        .lines()
        .map(|l| {
            let d: serde_json::Value = serde_json::from_str(l).unwrap();
            let folder = d["folder"].as_str().unwrap().to_string();
            assert!(out.join(&folder).join("finding.json").is_file(), "{folder}");
            (folder, d["finding"].as_str().unwrap().to_string())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_batch_that_goes_wrong_is_attributed_to_its_bad_programs_alone() {
    let dir = scratch("flesh_fuzz_planted");
    // Case 7's output disturbed, case 20's run failing, case 21 wrong: in
    // batches of 8, of 1, and of all 40.
    let hooks = "wrong:7,fail:20,wrong:21";
    let want: Vec<(String, String)> = [("case-20-interp", "failed:planted"), ("case-21-interp", "wrong"), ("case-7-interp", "wrong")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    for batch in ["8", "1", "40"] {
        let out = dir.join(format!("batch-{batch}"));
        let o = fuzz_with(&dir, hooks, &["--count", "40", "--seed", "9", "--batch", batch, "--out", out.to_str().unwrap()]);
        assert_exit(&o, 1);
        assert_eq!(findings_of(&out), want, "--batch {batch}");
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains(" passed, 2 wrong output, 1 failed, 0 refused"), "{text}");
        // The table: mismatch 2, other 1.
        let row = text.lines().filter(|l| l.trim_start().starts_with("interp")).nth(1).unwrap_or_else(|| panic!("{text}"));
        let cells: Vec<&str> = row.split_whitespace().skip(1).collect();
        assert_eq!(cells, ["2", "0", "0", "0", "0", "1"], "{text}");
        // Each finding is its own program: its Amber test is the program's,
        // which passes on the (unplanted) interpreter.
        let case = out.join("case-7-interp");
        let o = run_spvlab(&dir, &["amber", case.join("test.amber").to_str().unwrap()], b"");
        assert_exit(&o, 0);
        let data: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(case.join("finding.json")).unwrap()).unwrap();
        assert_eq!(data["case"], 7);
        assert_ne!(data["actual"], data["expected"]);
    }
    // Every program of a batch wrong: each is a finding of its own.
    let out = dir.join("all-wrong");
    let hooks: Vec<String> = (0..8).map(|c| format!("wrong:{c}")).collect();
    let o = fuzz_with(&dir, &hooks.join(","), &["--count", "8", "--seed", "9", "--batch", "8", "--out", out.to_str().unwrap()]);
    assert_exit(&o, 1);
    let text = String::from_utf8_lossy(&o.stdout);
    let programs: usize = text.split_whitespace().nth(2).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{text}"));
    let found = findings_of(&out);
    assert_eq!(found.len(), programs, "{text}");
    assert!(found.iter().all(|(_, kind)| kind == "wrong"), "{found:?}");
}

#[test]
fn a_stopped_campaign_resumes_without_losing_or_repeating_a_finding() {
    let dir = scratch("flesh_fuzz_resume");
    let hooks = "wrong:3,wrong:17,fail:18,wrong:30,wrong:44";
    let args = |out: &std::path::Path| -> Vec<String> {
        ["--count", "50", "--seed", "2", "--batch", "6", "--out", out.to_str().unwrap()].iter().map(|s| s.to_string()).collect()
    };
    let whole = dir.join("whole");
    let a: Vec<String> = args(&whole);
    let o = fuzz_with(&dir, hooks, &a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_exit(&o, 1);
    let want = findings_of(&whole);
    assert_eq!(want.len(), 5);
    let whole_text = String::from_utf8_lossy(&o.stdout).into_owned();
    let interp_line = |t: &str| t.lines().find(|l| l.trim_start().starts_with("interp")).map(|l| l.split(';').next().unwrap().to_string());
    // Stopped in the third batch (the programs of cases 12 to 17 or a few
    // more: some cases have no program), after writing its findings and
    // before recording it done, then resumed.
    let part = dir.join("part");
    let a: Vec<String> = args(&part);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let o = fuzz_with(&dir, &format!("{hooks},stop:3"), &a);
    assert_eq!(o.status.code(), Some(130), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(findings_of(&part).contains(&("case-17-interp".into(), "wrong".into())));
    let progress: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(part.join("progress.json")).unwrap()).unwrap();
    // Recorded after the first batch, then at most once a second: before
    // the third batch's cases (12 to 17 or a few more).
    assert!(progress["next"].as_u64().is_some_and(|n| (6..=17).contains(&n)), "{progress}");
    let mut resumed = a.clone();
    resumed.push("--resume");
    let o = fuzz_with(&dir, hooks, &resumed);
    assert_exit(&o, 1);
    assert_eq!(findings_of(&part), want);
    let text = String::from_utf8_lossy(&o.stdout);
    let programs = |t: &str| t.split_whitespace().nth(2).map(String::from);
    assert_eq!(programs(&text), programs(&whole_text), "{text}");
    assert_eq!(interp_line(&text), interp_line(&whole_text), "{text}");
    assert!(text.contains("4 wrong output, 1 failed"), "{text}");
    // Stopped in its first batch (nothing recorded yet): resumed, it starts
    // over, keeping no line twice.
    let early = dir.join("early");
    let e: Vec<String> = args(&early);
    let mut e: Vec<&str> = e.iter().map(String::as_str).collect();
    let o = fuzz_with(&dir, &format!("{hooks},stop:1"), &e);
    assert_eq!(o.status.code(), Some(130));
    assert!(!early.join("progress.json").exists());
    e.push("--resume");
    let o = fuzz_with(&dir, hooks, &e);
    assert_exit(&o, 1);
    assert_eq!(findings_of(&early), want);
    // Resuming a finished campaign runs nothing more; another campaign's
    // options are refused.
    let o = fuzz_with(&dir, hooks, &resumed);
    assert_exit(&o, 1);
    assert_eq!(findings_of(&part), want);
    let mut other = resumed.clone();
    other[3] = "3";
    let o = fuzz_with(&dir, hooks, &other);
    assert_exit(&o, 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("is of another campaign"));
}
