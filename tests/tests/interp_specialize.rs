//! The interpreter's specialised handlers (`Options::specialize`, on by
//! default) give what the general ones give: every dispatch of the 667
//! compute Amber tests of the corpus, every corpus case with a GLCompute
//! entry point, and the fuzzer's generated valid modules, run with them on
//! and off, leave the same bytes in every buffer and end with the same
//! error (kind, instruction, invocation), or none.

use spvlab_core::amber::{Dispatch, ExecError, Executor};
use spvlab_core::interp::{self, Buffers, Options, RunError};
use spvlab_core::ir::Ir;
use spvlab_core::text::asm::{AsmOptions, assemble};
use spvlab_core::{TargetEnv, binary};
use spvlab_tests::amber::{compute_cases, run_case_on};
use spvlab_tests::{cases, corpus_or_skip};

/// What a run left: the buffers and the error (its data, not its text).
type Outcome = (Buffers, Option<(interp::RunErrorKind, Option<u32>, Option<[u32; 3]>)>);

fn run(ir: &Ir, opts: &Options, inputs: &Buffers, specialize: bool) -> (Outcome, Result<(), RunError>) {
    let mut bufs = inputs.clone();
    let opts = Options { specialize, ..opts.clone() };
    let r = interp::run(ir, &opts, &mut bufs).map(|_| ());
    let err = r.as_ref().err().map(|e| (e.kind.clone(), e.inst, e.invocation));
    ((bufs, err), r)
}

/// Runs each dispatch both ways; a difference is recorded with `name`.
struct Both {
    name: String,
    dispatches: usize,
    differ: Vec<String>,
}

impl Executor for Both {
    fn dispatch(&mut self, d: &Dispatch, buffers: &mut Buffers) -> Result<(), ExecError> {
        self.dispatches += 1;
        let (on, r) = run(d.ir, d.opts, buffers, true);
        let (off, _) = run(d.ir, d.opts, buffers, false);
        if on != off {
            self.differ.push(format!("{} (`{}`): {:?} vs {:?}", self.name, d.shader, on.1, off.1));
        }
        *buffers = on.0;
        r.map_err(ExecError::Interp)
    }
}

fn compare_module(name: &str, ir: &Ir, differ: &mut Vec<String>) {
    let mut bufs = Buffers::new();
    for g in &ir.globals {
        if let (Some(s), Some(b)) = (g.set, g.binding) {
            bufs.insert((s, b), (0..4096u32).map(|k| (k * 7 % 251) as u8).collect());
        }
    }
    let opts = Options {
        max_steps: 20_000,
        push_constants: Some(vec![0u8; 256]),
        ..Options::default()
    };
    let (on, _) = run(ir, &opts, &bufs, true);
    let (off, _) = run(ir, &opts, &bufs, false);
    if on != off {
        differ.push(format!("{name}: {:?} vs {:?}", on.1, off.1));
    }
}

#[test]
fn amber_dispatches_are_the_same_with_and_without_specialised_handlers() {
    let Some(corpus) = corpus_or_skip("interp_specialize") else { return };
    let cases = compute_cases(&corpus);
    assert_eq!(cases.len(), 667, "the corpus has 667 compute Amber tests");
    let mut both = Both { name: String::new(), dispatches: 0, differ: Vec::new() };
    for case in &cases {
        both.name = case.amber.clone();
        run_case_on(&corpus, case, &mut both);
    }
    println!("interp_specialize: {} dispatches of {} Amber tests", both.dispatches, cases.len());
    assert!(both.dispatches >= 667, "{} dispatches", both.dispatches);
    assert!(both.differ.is_empty(), "{} differ:\n{}", both.differ.len(), both.differ.join("\n"));
}

#[test]
fn corpus_and_generated_modules_are_the_same_with_and_without_specialised_handlers() {
    let mut differ = Vec::new();
    let mut ran = 0;
    for seed in 0..4u64 {
        let text = spvlab_fuzz::r#gen::big_module(seed, 20_000);
        let words = assemble(&text, &AsmOptions::default()).expect("the generated module assembles");
        let ir = Ir::build(binary::read_words(&words).expect("reads"));
        compare_module(&format!("big_module({seed})"), &ir, &mut differ);
        ran += 1;
    }
    if let Some(corpus) = corpus_or_skip("interp_specialize") {
        for case in cases(&corpus) {
            let env = TargetEnv::parse(case.asm_env()).unwrap_or_default();
            let Ok(words) = assemble(&case.text, &AsmOptions { env, ..AsmOptions::default() }) else { continue };
            let Ok(module) = binary::read_words(&words) else { continue };
            let ir = Ir::build(module);
            if !ir.entry_points.iter().any(|e| e.model == spvlab_core::grammar::execution_model::GLCompute) {
                continue;
            }
            compare_module(&case.name, &ir, &mut differ);
            ran += 1;
        }
    }
    println!("interp_specialize: {ran} modules");
    assert!(differ.is_empty(), "{} differ:\n{}", differ.len(), differ.join("\n"));
}
