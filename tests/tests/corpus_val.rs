//! Validator verdicts against spirv-val v2025.5 on the corpus.
//!
//! Each case is assembled with our assembler (byte-identical to spirv-as, see
//! corpus_asm.rs) at its `asm_env`, validated at its `target_env` with its
//! `val_flags`, and our verdict (no errors = valid) is compared with the
//! reference verdict recorded in `manifest.json` (spirv-val v2025.5, at the same
//! env and flags). Every disagreement is listed with both messages.
//!
//! A disagreement may stand only where it is documented, case by case, with its
//! reason, in `tests/val_exceptions.txt` (`<case path> | <reason>`).
//!
//! `SPVLAB_VAL_FILTER=substring` restricts the run to matching case paths.

use serde_json::Value;
use spvlab_core::text::{AsmOptions, assemble};
use spvlab_core::valid::{Options, validate_words};
use spvlab_core::{Severity, TargetEnv};
use spvlab_tests::{cases, corpus_or_skip, root};
use std::collections::{BTreeMap, HashMap};

/// Required agreement, in hundredths of a percent, per source folder and overall.
/// The targets: 100% on spirv-tools and cfg-mutants, 99.5% over all.
/// These floors only go up, as the validator grows.
const FLOOR_ALL: u32 = 10000;
const FLOOR_SPIRV_TOOLS: u32 = 10000;
const FLOOR_CFG_MUTANTS: u32 = 10000;

fn exceptions() -> HashMap<String, String> {
    let text = std::fs::read_to_string(root().join("tests/val_exceptions.txt")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('|').map(|(a, b)| (a.trim().to_owned(), b.trim().to_owned())))
        .collect()
}

#[test]
fn verdicts_agree_with_spirv_val() {
    let Some(corpus) = corpus_or_skip("corpus_val") else { return };
    let manifest: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("manifest.json")).unwrap())
            .unwrap();
    let reference: HashMap<&str, (&Value, bool)> = manifest
        .iter()
        .filter_map(|e| Some((e["file"].as_str()?, (e, e["valid"].as_bool()?))))
        .collect();
    let filter = std::env::var("SPVLAB_VAL_FILTER").unwrap_or_default();
    let exceptions = exceptions();
    // source -> (agree, total)
    let mut tally: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let mut excused = 0;
    for case in cases(&corpus) {
        if !case.name.contains(&filter) {
            continue;
        }
        let Some(&(entry, ref_valid)) = reference.get(case.name.as_str()) else { continue };
        let asm = AsmOptions {
            env: TargetEnv::parse(case.asm_env()).unwrap_or_default(),
            preserve_numeric_ids: false,
        };
        let Ok(words) = assemble(&case.text, &asm) else {
            panic!("{}: our assembler rejects a corpus case", case.name)
        };
        let mut opts = Options { env: TargetEnv::parse(case.target_env()).unwrap(), ..Options::default() };
        let flags = case.meta_strings("val_flags");
        opts.apply_args(flags.iter().flat_map(|f| f.split_whitespace())).unwrap();
        let diags = validate_words(&words, &opts);
        let ours_valid = !diags.iter().any(|d| d.severity == Severity::Error);
        let source = case.name.split('/').nth(1).unwrap_or("").to_owned();
        let t = tally.entry(source).or_default();
        t.1 += 1;
        if ours_valid == ref_valid {
            t.0 += 1;
        } else if exceptions.contains_key(&case.name) {
            excused += 1;
            t.0 += 1;
        } else {
            let ours = diags.first().map_or(String::from("(valid)"), |d| format!("[{}] {}", d.code, d.message));
            let theirs = entry["error_first_line"].as_str().unwrap_or("(valid)");
            disagreements.push(format!("{}\n    spirv-val: {}\n    spvlab:    {}", case.name, if ref_valid { "(valid)" } else { theirs }, ours));
        }
    }
    let pct = |a: u32, t: u32| if t == 0 { 10000 } else { (a as u64 * 10000 / t as u64) as u32 };
    let (mut agree, mut total) = (0, 0);
    println!("validator verdicts vs spirv-val v2025.5 ({excused} documented exceptions counted as agreeing):");
    for (src, (a, t)) in &tally {
        println!("  {src:<28} {a:>5}/{t:<5} {:>6.2}%", pct(*a, *t) as f64 / 100.0);
        agree += a;
        total += t;
    }
    println!("  {:<28} {agree:>5}/{total:<5} {:>6.2}%", "all", pct(agree, total) as f64 / 100.0);
    println!("{} disagreements:", disagreements.len());
    for d in &disagreements {
        println!("  {d}");
    }
    if !filter.is_empty() {
        return;
    }
    let of = |s: &str| tally.get(s).copied().unwrap_or((0, 0));
    let (a, t) = of("spirv-tools");
    assert!(pct(a, t) >= FLOOR_SPIRV_TOOLS, "spirv-tools agreement fell below the floor");
    let (a, t) = of("cfg-mutants");
    assert!(pct(a, t) >= FLOOR_CFG_MUTANTS, "cfg-mutants agreement fell below the floor");
    assert!(pct(agree, total) >= FLOOR_ALL, "overall agreement fell below the floor");
}
