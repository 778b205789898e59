//! The reference interpreter on the corpus's `spirv-control-flow-fleshed`
//! Amber files (the fleshed control-flow tests of mc-imperial/spirv-control-flow).
//! Each file's EXPECT lines are the oracle: every file must parse, run, and
//! meet every expectation. The list of files is the folder's index.json.
//! They are race-free, so every order of the invocations (the unseeded one
//! and a few seeds) gives the same buffers: each file runs under each.

use serde_json::Value;
use spvlab_core::amber::{self, RunOptions};
use spvlab_tests::corpus_or_skip;

/// The number of files that must pass (all of them).
const MUST_PASS: usize = 334;

/// The orders each file runs in: unseeded, then three seeds.
const SEEDS: [Option<u64>; 4] = [None, Some(1), Some(2), Some(0x5eed)];

#[test]
fn fleshed_amber_files_pass() {
    let Some(corpus) = corpus_or_skip("amber_fleshed") else {
        return;
    };
    let dir = corpus.join("amber/spirv-control-flow-fleshed");
    let index: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("index.json")).expect("read index.json"),
    )
    .expect("index.json parses");
    let cases = index.as_array().expect("index.json is a list");
    assert_eq!(cases.len(), 334, "the index lists 334 files");
    let mut passed = 0;
    let mut failures = Vec::new();
    for c in cases {
        let rel = c["amber"].as_str().expect("amber path");
        let text = std::fs::read_to_string(corpus.join(rel)).expect("read the Amber file");
        let mut outcome = None;
        for seed in SEEDS {
            let opts = RunOptions { max_steps: 1_000_000, seed, ..RunOptions::default() };
            let o = amber::parse(&text).and_then(|s| amber::run_with(&s, &opts));
            let failed = !matches!(&o, Ok(o) if o.passed());
            outcome = Some((seed, o));
            if failed {
                break;
            }
        }
        let Some((seed, outcome)) = outcome else { continue };
        let rel = format!("{rel} (seed {seed:?})");
        match outcome {
            Ok(o) if o.passed() => passed += 1,
            Ok(o) => failures.push(format!(
                "{rel}: {}",
                o.failures
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            Err(e) => failures.push(format!("{rel}: error: {e}")),
        }
    }
    for f in failures.iter().take(40) {
        println!("FAIL {f}");
    }
    println!("amber_fleshed: {passed} of {} pass", cases.len());
    assert!(
        passed >= MUST_PASS,
        "{} files fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
