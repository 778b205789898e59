//! Random structured control flow (tests/src/cfggen.rs) validated by spvlab and by
//! the reference spirv-val v2025.5: the verdicts must agree.
//!
//! `SPVLAB_CFG_RANDOM_N` modules (default 600), seeded by `SPVLAB_CFG_RANDOM_SEED`
//! (default 1): about half are valid structured functions, the rest near-miss
//! mutants of one. Each is assembled by spvlab (byte-identical to spirv-as),
//! validated by ours in-process and by spirv-val on the same binary (2 threads).
//! The agreement rate is printed with the first disagreements, whose texts are
//! saved under target/cfg-random/; agreement must stay at or above [`FLOOR`].
//! The generator's own claim is checked too: every unmutated module is valid for
//! the reference.
//!
//! 10,000 modules: `SPVLAB_CFG_RANDOM_N=10000 cargo test --release -p spvlab-tests --test cfg_random -- --nocapture`
//! (or `./x cfg-random [N]`).

use spvlab_core::text::{AsmOptions, assemble};
use spvlab_core::valid::{Options, validate_words};
use spvlab_core::{Severity, TargetEnv};
use spvlab_tests::cfggen;
use spvlab_tests::{reference_or_skip, root, run_tool};
use std::path::Path;

/// Required agreement with spirv-val, in hundredths of a percent. It only goes
/// up as the validator's rules land (target: 99.90%).
const FLOOR: u32 = 9990;

struct Outcome {
    i: u64,
    kind: &'static str,
    text: String,
    ours: Option<String>,
    theirs: Option<String>,
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn check(tools: &Path, dir: &Path, seed: u64, i: u64) -> Outcome {
    let (text, kind) = cfggen::case(seed, i);
    let env = TargetEnv::parse("spv1.6").unwrap();
    let words = match assemble(&text, &AsmOptions { env, preserve_numeric_ids: false }) {
        Ok(w) => w,
        Err(d) => panic!("module {i} ({kind}) does not assemble: {:?}\n{text}", d.first()),
    };
    let diags = validate_words(&words, &Options { env, ..Options::default() });
    let ours = diags
        .iter()
        .find(|d| d.severity == Severity::Error)
        .map(|d| format!("[{}] {}", d.code, d.message));
    let path = dir.join(format!("t{i}.spv"));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let (ok, _, err) = run_tool(tools, "spirv-val", &["--target-env", "spv1.6", path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    let theirs = (!ok).then(|| err.lines().next().unwrap_or("").to_owned());
    Outcome { i, kind, text, ours, theirs }
}

#[test]
fn random_structured_cfgs_agree_with_spirv_val() {
    let Some(tools) = reference_or_skip("cfg_random") else { return };
    let n = env_u64("SPVLAB_CFG_RANDOM_N", 600);
    let seed = env_u64("SPVLAB_CFG_RANDOM_SEED", 1);
    let out_dir = root().join("target/cfg-random");
    let _ = std::fs::remove_dir_all(&out_dir);
    std::fs::create_dir_all(&out_dir).unwrap();
    let threads = 2u64;
    let mut outcomes: Vec<Outcome> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (tools, dir) = (&tools, &out_dir);
                s.spawn(move || {
                    (0..n).filter(|i| i % threads == t).map(|i| check(tools, dir, seed, i)).collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("worker panicked")).collect()
    });
    outcomes.sort_by_key(|o| o.i);

    let mut agree = 0u64;
    let mut valid_gen = (0u64, 0u64); // (accepted by the reference, unmutated total)
    let mut ref_valid = 0u64;
    let mut disagreements = Vec::new();
    let mut generator_bugs = Vec::new();
    for o in &outcomes {
        if o.theirs.is_none() {
            ref_valid += 1;
        }
        if o.kind == "valid" {
            valid_gen.1 += 1;
            if o.theirs.is_none() {
                valid_gen.0 += 1;
            } else {
                generator_bugs.push(o);
            }
        }
        if o.ours.is_none() == o.theirs.is_none() {
            agree += 1;
        } else {
            disagreements.push(o);
        }
    }
    let pct = |a: u64, t: u64| (a * 10000).checked_div(t).map_or(10000, |p| p as u32);
    println!(
        "cfg_random: seed {seed}, {n} modules ({} valid for spirv-val), agreement {agree}/{n} = {:.2}% (floor {:.2}%)",
        ref_valid,
        pct(agree, n) as f64 / 100.0,
        FLOOR as f64 / 100.0
    );
    println!("generator: {}/{} unmutated modules accepted by spirv-val", valid_gen.0, valid_gen.1);
    let mut by_kind: std::collections::BTreeMap<&str, (u32, u32)> = Default::default();
    for o in &outcomes {
        let e = by_kind.entry(o.kind).or_default();
        e.1 += 1;
        if o.ours.is_none() == o.theirs.is_none() {
            e.0 += 1;
        }
    }
    for (k, (a, t)) in &by_kind {
        println!("  {k:<20} {a:>5}/{t:<5}");
    }
    for o in disagreements.iter().chain(&generator_bugs).take(12) {
        let file = out_dir.join(format!("{}-{}.spvasm", o.i, o.kind));
        std::fs::write(&file, &o.text).unwrap();
        println!(
            "  {} ({}):\n    spirv-val: {}\n    spvlab:    {}",
            file.display(),
            o.kind,
            o.theirs.as_deref().unwrap_or("(valid)"),
            o.ours.as_deref().unwrap_or("(valid)")
        );
    }
    assert!(
        generator_bugs.is_empty(),
        "{} unmutated modules are rejected by spirv-val (generator bug; see target/cfg-random/)",
        generator_bugs.len()
    );
    assert!(pct(agree, n) >= FLOOR, "agreement with spirv-val fell below the floor");
}
