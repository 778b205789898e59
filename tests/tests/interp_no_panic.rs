//! The interpreter never panics: every corpus case that assembles runs (its
//! first GLCompute entry point, one workgroup, a small step budget) with a
//! zeroed 4 KiB buffer at every (set, binding) it declares. The outcome (a
//! result or an error) is not checked here; a panic fails the test.

use spvlab_core::interp::{Buffers, Options, run};
use spvlab_core::ir::Ir;
use spvlab_core::text::asm::{AsmOptions, assemble};
use spvlab_core::{TargetEnv, binary};
use spvlab_tests::{cases, corpus_or_skip};

#[test]
fn corpus_cases_run_without_panics() {
    let Some(corpus) = corpus_or_skip("interp_no_panic") else {
        return;
    };
    let (mut ran, mut finished, mut panics) = (0, 0, Vec::new());
    // The errors, by message with digits blanked, for the summary.
    let mut errors: std::collections::BTreeMap<String, usize> = Default::default();
    for case in cases(&corpus) {
        let env = TargetEnv::parse(case.asm_env()).unwrap_or_default();
        let Ok(words) = assemble(
            &case.text,
            &AsmOptions {
                env,
                ..AsmOptions::default()
            },
        ) else {
            continue;
        };
        let Ok(module) = binary::read_words(&words) else {
            continue;
        };
        let ir = Ir::build(module);
        if !ir
            .entry_points
            .iter()
            .any(|e| e.model == spvlab_core::grammar::execution_model::GLCompute)
        {
            continue;
        }
        let mut bufs = Buffers::new();
        for g in &ir.globals {
            if let (Some(s), Some(b)) = (g.set, g.binding) {
                bufs.insert((s, b), vec![0u8; 4096]);
            }
        }
        let opts = Options {
            max_steps: 20_000,
            push_constants: Some(vec![0u8; 256]),
            ..Options::default()
        };
        ran += 1;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&ir, &opts, &mut bufs)))
        {
            Ok(Ok(_)) => finished += 1,
            Ok(Err(e)) => {
                let m: String = e
                    .message()
                    .chars()
                    .map(|c| if c.is_ascii_digit() { '#' } else { c })
                    .collect();
                *errors.entry(m).or_default() += 1;
            }
            Err(_) => panics.push(case.name.clone()),
        }
    }
    println!(
        "interp_no_panic: {ran} compute cases run, {finished} finished, {} panics",
        panics.len()
    );
    let mut top: Vec<_> = errors.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1));
    for (m, n) in top.iter().take(25) {
        println!("  {n:5}  {m}");
    }
    assert!(ran > 0, "no compute case ran");
    assert!(
        panics.is_empty(),
        "the interpreter panicked on:\n{}",
        panics.join("\n")
    );
}
