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

/// The corpus folder and the fleshed files' entries of index.json (334).
fn fleshed(test: &str) -> Option<(std::path::PathBuf, Vec<Value>)> {
    let corpus = corpus_or_skip(test)?;
    let dir = corpus.join("amber/spirv-control-flow-fleshed");
    let index: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("index.json")).expect("read index.json"),
    )
    .expect("index.json parses");
    let cases = index.as_array().expect("index.json is a list").clone();
    assert_eq!(cases.len(), 334, "the index lists 334 files");
    Some((corpus, cases))
}

#[test]
fn fleshed_amber_files_pass() {
    let Some((corpus, cases)) = fleshed("amber_fleshed") else {
        return;
    };
    let mut passed = 0;
    let mut failures = Vec::new();
    for c in &cases {
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

/// The fleshing fuzzer's check, done on the interpreter's trace: each fleshed
/// program records the blocks it visits (each block writes its own id, the
/// number of its `%N` label, to the `output` buffer from the invocation's
/// `output_index` on), and its header comment gives the path the fleshing
/// tool chose (`; unique path #0: 8 -> <9> -> <9> -> 10`, with `edge_N` marks
/// for the case an OpSwitch takes). For every file
/// the traced path of the invocation (its labels named as the text spells
/// them) must be both.
#[test]
fn fleshed_traces_match_the_recorded_paths() {
    use spvlab_core::amber::{BindKind, Command};
    use spvlab_core::analysis::Analysis;
    use spvlab_core::interp::{self, Buffers, Trace};
    let Some((corpus, cases)) = fleshed("amber_fleshed traces") else {
        return;
    };
    let mut checked = 0;
    let mut failures = Vec::new();
    for c in &cases {
        let rel = c["amber"].as_str().expect("amber path");
        let text = std::fs::read_to_string(corpus.join(rel)).expect("read the Amber file");
        // The chosen path, from the header comment.
        let chosen: Vec<u32> = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("; unique path #0:"))
            .expect("a chosen path")
            .split("->")
            .map(|b| b.trim().trim_matches(['<', '>']))
            // `edge_N` names which edge of an OpSwitch the path takes, not a block.
            .filter(|b| !b.starts_with("edge_"))
            .map(|b| b.parse().expect("a block number"))
            .collect();
        let script = amber::parse(&text).expect("the file parses");
        let shader = &script.shaders[0];
        let opts = spvlab_core::valid::Options {
            env: shader.env.unwrap_or(spvlab_core::TargetEnv::Spv1_0),
            ..Default::default()
        };
        let a = Analysis::of_text(&shader.text, &opts);
        let ir = a.ir().expect("the shader reads");
        let pipeline = &script.pipelines[0];
        let data = |name: &str| -> Vec<u8> {
            script.buffers.iter().find(|b| b.name == name).expect("the buffer").data.clone()
        };
        let mut bufs = Buffers::new();
        let mut at = std::collections::BTreeMap::new();
        for b in &pipeline.binds {
            if let BindKind::Descriptor { set, binding, .. } = b.kind {
                bufs.insert((set, binding), data(&b.buffer));
                at.insert(b.buffer.clone(), (set, binding));
            }
        }
        let groups = script
            .commands
            .iter()
            .find_map(|c| match c {
                Command::Run { groups, .. } => Some(*groups),
                _ => None,
            })
            .expect("a RUN");
        let stats = interp::run(
            ir,
            &interp::Options { workgroups: groups, trace: Trace::All, ..Default::default() },
            &mut bufs,
        )
        .expect("the file runs");
        let trace = stats.trace.expect("a trace");
        assert_eq!(trace.paths.len(), 1, "{rel}: one invocation");
        let traced: Vec<u32> = trace.paths[0]
            .blocks()
            .map(|b| a.display_name(b.label).parse().expect("labels are numbers in the fleshed files"))
            .collect();
        let word = |b: &[u8], k: usize| u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]]);
        let start = word(&data("output_index"), 0) as usize;
        let out = &bufs[&at["output"]];
        let recorded: Vec<u32> =
            (start..out.len() / 4).map(|k| word(out, k)).take_while(|&v| v != 0).collect();
        if traced != recorded || traced != chosen {
            failures.push(format!("{rel}:\n  traced   {traced:?}\n  recorded {recorded:?}\n  chosen   {chosen:?}"));
        }
        checked += 1;
    }
    println!("amber_fleshed traces: {checked} files, {} differ", failures.len());
    assert_eq!(checked, 334);
    assert!(failures.is_empty(), "{} traces differ:\n{}", failures.len(), failures.join("\n"));
}
