//! The mutation oracle: near-miss modules labelled by spirv-val v2025.5.
//!
//! Each valid corpus module may be given one random edit (tests/src/mutate.rs:
//! a result type or id operand swapped, a line deleted, two lines swapped, a
//! constant's type changed, an opcode swapped for a sibling...). Mutants that
//! the reference spirv-as assembles at the case's `asm_env` are validated by
//! spirv-val at the case's `target_env` and `val_flags`, and by spvlab on the
//! same binary; the verdicts must agree at or above [`FLOOR`].
//!
//! `SPVLAB_VAL_MUTANTS_N` mutants (default 1000), seeded by
//! `SPVLAB_VAL_MUTANTS_SEED` (default 1). Prints the agreement, by kind of edit
//! and by spirv-val's message (ids left out), and every disagreement (module,
//! edit, both messages); the disagreeing texts go to target/val-mutants/.
//!
//! `./x val-mutants [N] [--seed S]` runs it in release.

use spvlab_core::valid::{Options, validate_words};
use spvlab_core::{Severity, TargetEnv};
use spvlab_tests::cfggen::Rng;
use spvlab_tests::mutate::{self, Mutant};
use spvlab_tests::{Case, cases, corpus_or_skip, reference_or_skip, root, run_tool, words_of};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Required agreement with spirv-val, in hundredths of a percent (seed 1, 1000
/// mutants): 99.90%. Measured: 100.00% here, and 100.00% on 10,000 mutants
/// with seeds 1 and 2 each (BENCHMARKS.md).
const FLOOR: u32 = 9990;

struct Outcome {
    attempt: u64,
    case: usize,
    m: Mutant,
    ours: Option<String>,
    theirs: Option<String>,
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Attempt `a`: a case and an edit drawn from (seed, a); `None` when the edit
/// does not apply or spirv-as rejects the result.
fn attempt(tools: &Path, dir: &Path, cases: &[&Case], seed: u64, a: u64) -> Option<Outcome> {
    let mut rng = Rng::new(seed.wrapping_mul(0x1000_0001).wrapping_add(a));
    let ci = rng.below(cases.len());
    let case = cases[ci];
    let m = mutate::mutate(&case.text, &mut rng)?;
    let text = dir.join(format!("a{a}.spvasm"));
    let spv = dir.join(format!("a{a}.spv"));
    std::fs::write(&text, &m.text).unwrap();
    let (ok, _, _) = run_tool(
        tools,
        "spirv-as",
        &["--target-env", case.asm_env(), "-o", spv.to_str()?, text.to_str()?],
    );
    let _ = std::fs::remove_file(&text);
    if !ok {
        let _ = std::fs::remove_file(&spv);
        return None;
    }
    let words = words_of(&std::fs::read(&spv).ok()?);
    let flags: Vec<String> = case
        .meta_strings("val_flags")
        .iter()
        .flat_map(|f| f.split_whitespace().map(str::to_owned))
        .collect();
    // spirv-val spells this one option with an underscore (as the corpus's oracle.py passes it).
    let ref_flags: Vec<String> = flags
        .iter()
        .map(|f| f.replace("--max-struct-depth", "--max-struct_depth"))
        .collect();
    let mut args = vec!["--target-env", case.target_env()];
    args.extend(ref_flags.iter().map(String::as_str));
    args.push(spv.to_str()?);
    let (valid, _, err) = run_tool(tools, "spirv-val", &args);
    let _ = std::fs::remove_file(&spv);
    let theirs = (!valid).then(|| err.lines().next().unwrap_or("").to_owned());
    let mut opts = Options {
        env: TargetEnv::parse(case.target_env()).unwrap_or_default(),
        ..Options::default()
    };
    opts.apply_args(flags.iter().map(String::as_str)).unwrap();
    let diags = validate_words(&words, &opts);
    let ours = diags
        .iter()
        .find(|d| d.severity == Severity::Error)
        .map(|d| format!("[{}] {}", d.code, d.message));
    Some(Outcome {
        attempt: a,
        case: ci,
        m,
        ours,
        theirs,
    })
}

/// spirv-val's message without ids and numbers, to group disagreements by cause.
fn cause(msg: &str) -> String {
    let msg = msg
        .strip_prefix("error: line ")
        .map_or(msg, |r| r.split_once(": ").map_or(r, |x| x.1));
    let mut out = String::new();
    let mut depth = 0;
    for c in msg.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth > 0 => {}
            c if c.is_ascii_digit() => {
                if !out.ends_with('#') {
                    out.push('#');
                }
            }
            c => out.push(c),
        }
    }
    out.chars().take(90).collect()
}

#[test]
fn mutants_agree_with_spirv_val() {
    let Some(corpus) = corpus_or_skip("val_mutants") else {
        return;
    };
    let Some(tools) = reference_or_skip("val_mutants") else {
        return;
    };
    let n = env_u64("SPVLAB_VAL_MUTANTS_N", 1000);
    let seed = env_u64("SPVLAB_VAL_MUTANTS_SEED", 1);
    let manifest: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("manifest.json")).unwrap()).unwrap();
    let valid: HashMap<&str, bool> = manifest
        .iter()
        .filter_map(|e| Some((e["file"].as_str()?, e["valid"].as_bool()?)))
        .collect();
    let all = cases(&corpus);
    let pool: Vec<&Case> = all
        .iter()
        .filter(|c| valid.get(c.name.as_str()) == Some(&true))
        .collect();
    assert!(!pool.is_empty(), "no valid corpus case");
    let out_dir = root().join("target/val-mutants");
    let _ = std::fs::remove_dir_all(&out_dir);
    std::fs::create_dir_all(&out_dir).unwrap();

    // Workers take attempts in order until n are kept; every attempt below the
    // last one taken is done, so the first n kept are the same whatever the timing.
    let next = AtomicU64::new(0);
    let kept = AtomicU64::new(0);
    let results = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |p| p.get()).min(8);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while kept.load(Ordering::SeqCst) < n {
                    let a = next.fetch_add(1, Ordering::SeqCst);
                    if let Some(o) = attempt(&tools, &out_dir, &pool, seed, a) {
                        kept.fetch_add(1, Ordering::SeqCst);
                        results.lock().unwrap().push(o);
                    }
                }
            });
        }
    });
    let mut outcomes = results.into_inner().unwrap();
    outcomes.sort_by_key(|o| o.attempt);
    outcomes.truncate(n as usize);

    let agrees = |o: &Outcome| o.ours.is_none() == o.theirs.is_none();
    let agree = outcomes.iter().filter(|o| agrees(o)).count() as u64;
    let total = outcomes.len() as u64;
    let pct = |a: u64, t: u64| (a * 10000).checked_div(t).map_or(10000, |p| p as u32);
    let invalid = outcomes.iter().filter(|o| o.theirs.is_some()).count();
    println!(
        "val_mutants: seed {seed}, {total} mutants ({invalid} invalid for spirv-val), agreement {agree}/{total} = {:.2}% (floor {:.2}%)",
        pct(agree, total) as f64 / 100.0,
        FLOOR as f64 / 100.0
    );
    let mut by_kind: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    let mut by_cause: BTreeMap<String, u64> = BTreeMap::new();
    for o in &outcomes {
        let e = by_kind.entry(o.m.kind).or_default();
        e.1 += 1;
        if agrees(o) {
            e.0 += 1;
        } else {
            let c = match &o.theirs {
                Some(t) => format!("spvlab valid, spirv-val: {}", cause(t)),
                None => format!("spirv-val valid, spvlab: {}", cause(o.ours.as_deref().unwrap_or(""))),
            };
            *by_cause.entry(c).or_default() += 1;
        }
    }
    println!("by edit:");
    for (k, (a, t)) in &by_kind {
        println!("  {k:<16} {a:>6}/{t:<6}");
    }
    let mut causes: Vec<_> = by_cause.into_iter().collect();
    causes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    println!("disagreements by cause:");
    for (c, k) in &causes {
        println!("  {k:>5}  {c}");
    }
    println!("disagreements:");
    for o in outcomes.iter().filter(|o| !agrees(o)) {
        let file = out_dir.join(format!("m{}.spvasm", o.attempt));
        std::fs::write(&file, &o.m.text).unwrap();
        println!(
            "  {} [{}] {}\n    {}\n    spirv-val: {}\n    spvlab:    {}",
            pool[o.case].name,
            o.m.kind,
            file.display(),
            o.m.what,
            o.theirs.as_deref().unwrap_or("(valid)"),
            o.ours.as_deref().unwrap_or("(valid)")
        );
    }
    assert!(
        pct(agree, total) >= FLOOR,
        "agreement with spirv-val fell below the floor"
    );
}
