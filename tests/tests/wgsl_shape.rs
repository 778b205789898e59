//! `wgsl::shape::structure` checked against the interpreter (issue 11):
//!
//! * trace walk: each of the 334 fleshed control-flow Amber files runs on
//!   the interpreter with traces; the Shape of the entry function, walked
//!   along the recorded path (tests/src/shapewalk.rs), must visit exactly
//!   the path's blocks and end at a `return`. (Each file runs one invocation,
//!   so the invocation order, which the Amber runner's seeds change, cannot
//!   change its path.)
//! * coverage: `structure` succeeds on every function of every valid corpus
//!   module, and of `SPVLAB_CFG_RANDOM_N` (default 2000) random valid
//!   structured CFGs (tests/src/cfggen.rs), whose one function also runs on
//!   the interpreter and is walked along its path when the run ends.

use serde_json::Value;
use spvlab_core::amber::{self, BindKind, Command};
use spvlab_core::analysis::Analysis;
use spvlab_core::interp::{self, Buffers, Trace};
use spvlab_core::wgsl::shape::{Cond, Shape, Stmt, structure};
use spvlab_tests::shapewalk::walk;
use spvlab_tests::{cases, cfggen, corpus_or_skip};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The entry function's block path of a run, as block indices.
fn entry_path(a: &Analysis, trace: &interp::TraceReport, fi: usize) -> Vec<u32> {
    let f = &a.cfg().functions[fi];
    trace.paths[0]
        .blocks()
        .filter(|b| b.function == f.id)
        .map(|b| f.block_of(b.label).expect("a block of the function"))
        .collect()
}

/// Run one fleshed Amber file; returns the analysis, the entry function's
/// index and its path.
fn fleshed_run(text: &str) -> (Analysis, usize, Vec<u32>) {
    let script = amber::parse(text).expect("the file parses");
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
    for b in &pipeline.binds {
        if let BindKind::Descriptor { set, binding, .. } = b.kind {
            bufs.insert((set, binding), data(&b.buffer));
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
    // The entry function: the one whose blocks start the path.
    let first = trace.paths[0].blocks().next().expect("a block");
    let fi = a.cfg().functions.iter().position(|f| f.id == first.function).expect("the entry function");
    let path = entry_path(&a, &trace, fi);
    (a, fi, path)
}

#[test]
fn shapes_walk_the_fleshed_traces() {
    let Some(corpus) = corpus_or_skip("wgsl_shape traces") else { return };
    let dir = corpus.join("amber/spirv-control-flow-fleshed");
    let index: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let list = index.as_array().unwrap();
    assert_eq!(list.len(), 334);
    let (mut walked, mut vars) = (0, 0);
    let mut failures = Vec::new();
    for c in list {
        let rel = c["amber"].as_str().unwrap();
        let text = std::fs::read_to_string(corpus.join(rel)).unwrap();
        let (a, fi, path) = fleshed_run(&text);
        let f = &a.cfg().functions[fi];
        match structure(a.module().unwrap(), f) {
            Err(e) => failures.push(format!("{rel}: no shape: block {}: {}", e.block, e.message)),
            Ok(s) => match walk(a.module().unwrap(), f, &s, &path) {
                Ok(()) => {
                    walked += 1;
                    vars += (s.vars > 0) as u32;
                }
                Err(e) => failures.push(format!("{rel}: {e}\npath {path:?}\n{s}")),
            },
        }
    }
    println!("wgsl_shape traces: {walked} of {} walked ({vars} with a dispatch variable), {} failures", list.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.iter().take(5).cloned().collect::<Vec<_>>().join("\n\n"));
}

#[test]
fn every_valid_corpus_function_has_a_shape() {
    let Some(corpus) = corpus_or_skip("wgsl_shape coverage") else { return };
    let (mut modules, mut functions) = (0, 0);
    let mut failures = Vec::new();
    for case in cases(&corpus) {
        if case.meta_str("expected") != "valid" {
            continue;
        }
        let opts = spvlab_core::valid::Options {
            env: spvlab_core::TargetEnv::parse(case.asm_env()).unwrap_or(spvlab_core::TargetEnv::Spv1_6),
            ..Default::default()
        };
        let a = Analysis::of_text(&case.text, &opts);
        let Some(m) = a.module() else {
            failures.push(format!("{}: does not read", case.name));
            continue;
        };
        modules += 1;
        for f in &a.cfg().functions {
            functions += 1;
            if let Err(e) = structure(m, f) {
                failures.push(format!("{} (function %{}): block {}: {}", case.name, f.id, e.block, e.message));
            }
        }
    }
    println!("wgsl_shape coverage: {modules} valid modules, {functions} functions, {} without a shape", failures.len());
    assert!(failures.is_empty(), "{}", failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n"));
}

#[test]
fn every_random_valid_cfg_has_a_shape_that_walks() {
    let n = env_u64("SPVLAB_CFG_RANDOM_N", 2000);
    let seed = env_u64("SPVLAB_CFG_RANDOM_SEED", 1);
    let opts = spvlab_core::valid::Options { env: spvlab_core::TargetEnv::Spv1_6, ..Default::default() };
    let (mut valid, mut shaped, mut walked, mut ran) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    let mut i = 0u64;
    while valid < n {
        let (text, kind) = cfggen::case(seed, i);
        i += 1;
        if kind != "valid" {
            continue;
        }
        valid += 1;
        let a = Analysis::of_text(&text, &opts);
        let m = a.module().expect("the generated module reads");
        let mut shapes = Vec::new();
        for f in &a.cfg().functions {
            match structure(m, f) {
                Ok(s) => {
                    shaped += 1;
                    shapes.push(Some(s));
                }
                Err(e) => {
                    failures.push(format!("module {i}: block {}: {}\n{text}", e.block, e.message));
                    shapes.push(None);
                }
            }
        }
        // Run it when it is a compute shader the interpreter takes.
        let Some(ir) = a.ir() else { continue };
        let mut bufs = Buffers::new();
        let Ok(stats) = interp::run(
            ir,
            &interp::Options { trace: Trace::All, max_steps: 100_000, ..Default::default() },
            &mut bufs,
        ) else {
            continue;
        };
        let Some(trace) = stats.trace else { continue };
        if trace.paths.is_empty() {
            continue;
        }
        ran += 1;
        let first = trace.paths[0].blocks().next().expect("a block");
        let fi = a.cfg().functions.iter().position(|f| f.id == first.function).unwrap();
        let path = entry_path(&a, &trace, fi);
        if let Some(s) = &shapes[fi] {
            match walk(m, &a.cfg().functions[fi], s, &path) {
                Ok(()) => walked += 1,
                Err(e) => failures.push(format!("module {}: {e}\npath {path:?}\n{s}\n{text}", i - 1)),
            }
        }
    }
    println!("wgsl_shape random: {valid} valid modules, {shaped} functions shaped, {ran} ran, {walked} walked, {} failures", failures.len());
    assert!(failures.is_empty(), "{}", failures.iter().take(3).cloned().collect::<Vec<_>>().join("\n\n"));
}

/// Swap the branches of every `if` on a SPIR-V condition.
fn swap_ifs(stmts: &mut [Stmt]) -> usize {
    let mut n = 0;
    for s in stmts {
        match s {
            Stmt::If { cond, then, els } => {
                if matches!(cond, Cond::Id(_)) {
                    std::mem::swap(then, els);
                    n += 1;
                }
                n += swap_ifs(then) + swap_ifs(els);
            }
            Stmt::Loop { body, continuing, .. } => n += swap_ifs(body) + swap_ifs(continuing),
            Stmt::Switch { cases, .. } => {
                for c in cases {
                    n += swap_ifs(&mut c.body);
                }
            }
            _ => {}
        }
    }
    n
}

/// The oracle fails on wrong shapes: swapped `if` branches, a dropped block.
#[test]
fn the_walk_rejects_broken_shapes() {
    let Some(corpus) = corpus_or_skip("wgsl_shape broken") else { return };
    let dir = corpus.join("amber/spirv-control-flow-fleshed");
    let index: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let (mut swapped, mut dropped) = (0, 0);
    for c in index.as_array().unwrap().iter().take(60) {
        let text = std::fs::read_to_string(corpus.join(c["amber"].as_str().unwrap())).unwrap();
        let (a, fi, path) = fleshed_run(&text);
        let (m, f) = (a.module().unwrap(), &a.cfg().functions[fi]);
        let Ok(s) = structure(m, f) else { continue };
        let mut bad: Shape = s.clone();
        if swap_ifs(&mut bad.body) > 0 && path.len() > 1 {
            // Every fleshed path takes at least one conditional branch whose
            // `if` is on its way.
            if walk(m, f, &bad, &path).is_err() {
                swapped += 1;
            }
        }
        let mut bad = s.clone();
        if let Some(i) = bad.body.iter().position(|x| matches!(x, Stmt::Block(_))) {
            bad.body.remove(i);
            assert!(walk(m, f, &bad, &path).is_err(), "a shape without its first block walks:\n{bad}");
            dropped += 1;
        }
    }
    println!("wgsl_shape broken: {swapped} swapped shapes and {dropped} shapes with a dropped block rejected");
    assert!(swapped >= 40, "only {swapped} shapes with swapped ifs were rejected");
    assert!(dropped >= 50);
}
