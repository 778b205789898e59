//! Every valid corpus module with a vertex or fragment entry point lowers to
//! WGSL, or is refused for something WGSL cannot express: the refusals are
//! listed by reason, and a refusal whose `limit` is `Limit::NotLowered` (WGSL
//! could say it; the lowering does not yet) fails the test unless its kind is
//! in `PENDING` with exactly the number of modules it stops.
//!
//! That the WGSL of the modules that lower is valid is `wgsl_corpus`'s check
//! (naga's validator); this test reads only the refusals' fields.
//! `SPVLAB_WGSL_VERBOSE=1` lists each refused module with its first refusal.

use spvlab_core::grammar::execution_model as em;
use spvlab_core::ir::Ir;
use spvlab_core::text::{AsmOptions, assemble};
use spvlab_core::wgsl::{self, Limit, NotLowered};
use spvlab_core::{TargetEnv, binary, cfg};
use spvlab_tests::{cases, corpus_or_skip, reference_validity};
use std::collections::{BTreeMap, BTreeSet};

/// What the lowering does not write yet, with the number of corpus modules
/// each stops: the count must be exactly this, so that each one lowered
/// shows here (lower the count) and none comes back. Empty when every
/// graphics module lowers or is refused for a limit of WGSL.
const PENDING: &[(NotLowered, usize)] = &[];

#[test]
fn graphics_modules_lower_or_are_refused_for_what_wgsl_lacks() {
    // The lowering recurses over nested constructs; debug builds need room.
    let t = std::thread::Builder::new().stack_size(256 << 20).spawn(run).unwrap();
    if let Err(e) = t.join() {
        std::panic::resume_unwind(e);
    }
}

fn run() {
    let Some(corpus) = corpus_or_skip("wgsl_graphics_refusals") else { return };
    let valid = reference_validity(&corpus);
    let (mut modules, mut lowered) = (0usize, 0usize);
    // (limit, code) -> modules refused for it (each module counted once per reason).
    let mut by_reason: BTreeMap<(Limit, &str), Vec<String>> = BTreeMap::new();
    let verbose = std::env::var("SPVLAB_WGSL_VERBOSE").is_ok();
    for case in cases(&corpus) {
        if valid.get(&case.name) != Some(&true) {
            continue;
        }
        let asm = AsmOptions { env: TargetEnv::parse(case.asm_env()).unwrap_or_default(), preserve_numeric_ids: false };
        let words = assemble(&case.text, &asm).unwrap_or_else(|e| panic!("{}: a valid case does not assemble: {e:?}", case.name));
        let ir = Ir::build(binary::read_words(&words).unwrap());
        if !ir.entry_points.iter().any(|e| e.model == em::Vertex || e.model == em::Fragment) {
            continue;
        }
        modules += 1;
        let graph = cfg::analyze(&ir.module);
        match wgsl::lower(&ir, &graph, &wgsl::Options::default()) {
            Ok(_) => lowered += 1,
            Err(rs) => {
                assert!(!rs.is_empty(), "{}: refused with no reason", case.name);
                if verbose {
                    println!("refused {}: {} {:?}: {}", case.name, rs[0].code, rs[0].limit, rs[0].message);
                }
                let reasons: BTreeSet<(Limit, &str)> = rs.iter().map(|r| (r.limit, r.code.as_str())).collect();
                for reason in reasons {
                    by_reason.entry(reason).or_default().push(case.name.clone());
                }
            }
        }
    }
    println!("{modules} valid modules with a vertex or fragment entry point: {lowered} lower, {} refused", modules - lowered);
    println!("refusals by reason (modules; a module refused for two reasons counts under both):");
    for ((limit, code), names) in &by_reason {
        let why = match limit {
            Limit::Wgsl => "WGSL lacks it",
            Limit::NotLowered(_) => "not lowered yet",
        };
        println!("  {:>5}  {code:<22} {limit:?}: {why} (e.g. {})", names.len(), names[0]);
    }
    let mut pending: BTreeMap<NotLowered, usize> = BTreeMap::new();
    for ((limit, _), names) in &by_reason {
        if let Limit::NotLowered(what) = limit {
            *pending.entry(*what).or_default() += names.len();
        }
    }
    let want: BTreeMap<NotLowered, usize> = PENDING.iter().copied().collect();
    let mut wrong = Vec::new();
    for (what, n) in &pending {
        match want.get(what) {
            None => wrong.push(format!("{what:?}: {n} modules refused for what WGSL can express (lower it)")),
            Some(w) if w != n => wrong.push(format!("{what:?}: {n} modules, PENDING says {w} (set it to {n})")),
            Some(_) => {}
        }
    }
    for (what, w) in &want {
        if !pending.contains_key(what) {
            wrong.push(format!("{what:?}: no module is refused for it any more, PENDING says {w} (remove it)"));
        }
    }
    assert!(wrong.is_empty(), "refusals only for not being lowered yet:\n{}", wrong.join("\n"));
}
