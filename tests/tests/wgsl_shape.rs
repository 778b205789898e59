//! `wgsl::shape::structure` checked against the interpreter:
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
//! * deep nesting (`wgsl::shape::flatten`): the same walks with every chain
//!   of `if`s flattened (`structure_within(.., 2)`), whose depth must be at
//!   most 3 braces plus 3 per nested loop or switch; the fleshed modules
//!   nested deeper than WGSL's 127 braces come out of `structure` within
//!   `DEPTH_TARGET`.

use serde_json::Value;
use spvlab_core::amber::{self, BindKind, Command};
use spvlab_core::analysis::Analysis;
use spvlab_core::interp::{self, Buffers, Trace};
use spvlab_core::wgsl::shape::flatten::{DEPTH_TARGET, depth};
use spvlab_core::wgsl::shape::{Cond, Shape, Stmt, structure, structure_within};
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

/// The path of each call of each function in one invocation's trace:
/// (function index, block indices). A call puts the callee's blocks between
/// two of the caller's, and an entry block is never branched to, so each of
/// a function's entry blocks starts one call.
fn call_paths(a: &Analysis, path: &interp::trace::Path) -> Vec<(usize, Vec<u32>)> {
    let fs = &a.cfg().functions;
    let mut out: Vec<(usize, Vec<u32>)> = Vec::new();
    let mut open: Vec<Option<usize>> = vec![None; fs.len()];
    for b in path.blocks() {
        let Some(fi) = fs.iter().position(|f| f.id == b.function) else { continue };
        let Some(k) = fs[fi].block_of(b.label) else { continue };
        if k == 0 || open[fi].is_none() {
            open[fi] = Some(out.len());
            out.push((fi, Vec::new()));
        }
        out[open[fi].unwrap()].1.push(k);
    }
    out
}

/// The blocks reachable from the entry that no `Stmt::Block` of the shape names.
fn missing_blocks(f: &spvlab_core::cfg::FunctionCfg, s: &Shape) -> Vec<u32> {
    fn mark(v: &[Stmt], seen: &mut [bool]) {
        for s in v {
            match s {
                Stmt::Block(b) => seen[*b as usize] = true,
                Stmt::If { then, els, .. } => {
                    mark(then, seen);
                    mark(els, seen);
                }
                Stmt::Loop { body, continuing, .. } => {
                    mark(body, seen);
                    mark(continuing, seen);
                }
                Stmt::Switch { cases, .. } => cases.iter().for_each(|c| mark(&c.body, seen)),
                _ => {}
            }
        }
    }
    let mut seen = vec![false; f.blocks.len()];
    mark(&s.body, &mut seen);
    (0..f.blocks.len() as u32).filter(|&b| f.is_reachable(b) && !seen[b as usize]).collect()
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

/// How many loops and switches nest at most in `v`.
fn loop_nesting(v: &[Stmt]) -> usize {
    v.iter()
        .map(|s| match s {
            Stmt::If { then, els, .. } => loop_nesting(then).max(loop_nesting(els)),
            Stmt::Loop { body, continuing, .. } => 1 + loop_nesting(body).max(loop_nesting(continuing)),
            Stmt::Switch { cases, .. } => 1 + cases.iter().map(|c| loop_nesting(&c.body)).max().unwrap_or(0),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

/// The shape of `f` flattened to depth 2, checked against its depth bound
/// (3 braces plus 3 per nested loop or switch: see `wgsl::shape::flatten`)
/// and walked along `path`.
fn flat_walks(m: &spvlab_core::Module, f: &spvlab_core::cfg::FunctionCfg, path: &[u32]) -> Result<u32, String> {
    let deep = structure_within(m, f, usize::MAX).map_err(|e| e.message)?;
    let flat = structure_within(m, f, 2).map_err(|e| e.message)?;
    let bound = 3 + 3 * loop_nesting(&deep.body);
    if depth(&flat.body) > bound {
        return Err(format!("flattened to depth {}, more than {bound}:\n{flat}", depth(&flat.body)));
    }
    walk(m, f, &flat, path).map_err(|e| format!("flattened: {e}\n{flat}"))?;
    Ok(flat.flags)
}

#[test]
fn shapes_walk_the_fleshed_traces() {
    with_big_stack(fleshed_traces);
}

fn fleshed_traces() {
    let Some(corpus) = corpus_or_skip("wgsl_shape traces") else { return };
    let dir = corpus.join("amber/spirv-control-flow-fleshed");
    let index: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let list = index.as_array().unwrap();
    assert_eq!(list.len(), 334);
    let (mut walked, mut vars) = (0, 0);
    let (mut flat_walked, mut flagged, mut deep) = (0, 0, 0);
    let mut failures = Vec::new();
    for c in list {
        let rel = c["amber"].as_str().unwrap();
        let text = std::fs::read_to_string(corpus.join(rel)).unwrap();
        let (a, fi, path) = fleshed_run(&text);
        let f = &a.cfg().functions[fi];
        match flat_walks(a.module().unwrap(), f, &path) {
            Ok(flags) => {
                flat_walked += 1;
                flagged += (flags > 0) as u32;
            }
            Err(e) => failures.push(format!("{rel}: {e}\npath {path:?}")),
        }
        if let (Ok(d), Ok(s)) = (structure_within(a.module().unwrap(), f, usize::MAX), structure(a.module().unwrap(), f))
            && depth(&d.body) > 127
        {
            deep += 1;
            if depth(&s.body) > DEPTH_TARGET {
                failures.push(format!("{rel}: {} braces deep, more than {DEPTH_TARGET}", depth(&s.body)));
            }
        }
        match structure(a.module().unwrap(), f) {
            Err(e) => failures.push(format!("{rel}: no shape: block {}: {}", e.block, e.message)),
            Ok(s) => match walk(a.module().unwrap(), f, &s, &path) {
                Ok(()) => {
                    walked += 1;
                    vars += (s.vars > 0) as u32;
                    if s.vars > 0 && std::env::var("SPVLAB_SHAPE_SHOW").is_ok() && !s.to_string().contains("switch var") {
                        println!("{rel}:\n{}\n{s}", a.disassemble(&Default::default()).unwrap_or_default());
                    }
                }
                Err(e) => failures.push(format!("{rel}: {e}\npath {path:?}\n{s}")),
            },
        }
    }
    println!("wgsl_shape traces: {walked} of {} walked ({vars} with a dispatch variable), {} failures", list.len(), failures.len());
    println!("wgsl_shape traces flattened to depth 2: {flat_walked} walked ({flagged} with guard flags); {deep} nested deeper than 127 braces");
    assert!(deep >= 2, "the two fleshed modules of 256 nested selections are not deeper than 127 braces");
    assert!(failures.is_empty(), "{}", failures.iter().take(5).cloned().collect::<Vec<_>>().join("\n\n"));
}

/// `structure` recurses once or twice per nesting level (up to its limit of
/// 600 calls): the corpus's most deeply nested modules (256 and 1024 nested
/// constructs) need more than a test thread's 2 MiB of stack in debug builds.
fn with_big_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new().stack_size(64 << 20).spawn(f).unwrap().join().unwrap();
}

#[test]
fn every_valid_corpus_function_has_a_shape() {
    with_big_stack(coverage);
}

fn coverage() {
    let Some(corpus) = corpus_or_skip("wgsl_shape coverage") else { return };
    let (mut modules, mut functions, mut ran, mut calls) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    let mut invalid = (0, 0);
    for case in cases(&corpus) {
        let opts = spvlab_core::valid::Options {
            env: spvlab_core::TargetEnv::parse(case.asm_env()).unwrap_or(spvlab_core::TargetEnv::Spv1_6),
            ..Default::default()
        };
        if case.meta_str("expected") != "valid" {
            // Invalid modules: no panic, whatever the answer.
            if std::env::var("SPVLAB_SHAPE_SHOW").is_ok() {
                eprintln!("{}", case.name);
            }
            let a = Analysis::of_text(&case.text, &opts);
            if let Some(m) = a.module() {
                for f in &a.cfg().functions {
                    invalid.0 += 1;
                    invalid.1 += structure(m, f).is_err() as u32;
                }
            }
            continue;
        }
        let a = Analysis::of_text(&case.text, &opts);
        let Some(m) = a.module() else {
            failures.push(format!("{}: does not read", case.name));
            continue;
        };
        modules += 1;
        let mut shapes = Vec::new();
        for f in &a.cfg().functions {
            functions += 1;
            match structure(m, f) {
                Ok(s) => {
                    let miss = missing_blocks(f, &s);
                    if !miss.is_empty() {
                        failures.push(format!("{} (function %{}): reachable blocks {miss:?} are not in the shape\n{s}", case.name, f.id));
                    }
                    shapes.push(Some(s));
                }
                Err(e) => {
                    failures.push(format!("{} (function %{}): block {}: {}", case.name, f.id, e.block, e.message));
                    shapes.push(None);
                }
            }
        }
        // Walk the paths of the compute shaders the interpreter runs as they
        // are (no buffers bound: many stop early, and are skipped).
        if !case.text.contains("GLCompute") {
            continue;
        }
        let Some(ir) = a.ir() else { continue };
        let mut bufs = Buffers::new();
        let Ok(stats) = interp::run(
            ir,
            &interp::Options { trace: Trace::All, max_steps: 200_000, ..Default::default() },
            &mut bufs,
        ) else {
            continue;
        };
        let Some(trace) = stats.trace else { continue };
        ran += 1;
        for p in trace.paths.iter().take(64) {
            for (fi, path) in call_paths(&a, p) {
                let Some(s) = &shapes[fi] else { continue };
                calls += 1;
                if let Err(e) = walk(m, &a.cfg().functions[fi], s, &path) {
                    failures.push(format!("{} (function %{}): {e}\npath {path:?}\n{s}", case.name, a.cfg().functions[fi].id));
                    break;
                }
            }
        }
    }
    println!(
        "wgsl_shape coverage: {modules} valid modules, {functions} functions, {} failures; {ran} compute modules ran, {calls} function calls walked; invalid modules: {} functions, {} without a shape",
        failures.len(),
        invalid.0,
        invalid.1
    );
    assert!(failures.is_empty(), "{}", failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n"));
}

#[test]
fn every_random_valid_cfg_has_a_shape_that_walks() {
    let n = env_u64("SPVLAB_CFG_RANDOM_N", 2000);
    let seed = env_u64("SPVLAB_CFG_RANDOM_SEED", 1);
    let opts = spvlab_core::valid::Options { env: spvlab_core::TargetEnv::Spv1_6, ..Default::default() };
    let (mut valid, mut shaped, mut walked, mut ran) = (0, 0, 0, 0);
    let (mut mutants, mut mutants_refused) = (0, 0);
    let mut flat_flags = 0;
    let mut failures = Vec::new();
    let mut i = 0u64;
    while valid < n {
        let (text, kind) = cfggen::case(seed, i);
        i += 1;
        if kind != "valid" {
            // A near-miss mutant: no panic, whatever the answer.
            let a = Analysis::of_text(&text, &opts);
            if let Some(m) = a.module() {
                for f in &a.cfg().functions {
                    mutants += 1;
                    mutants_refused += structure(m, f).is_err() as u32;
                }
            }
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
                    let miss = missing_blocks(f, &s);
                    if !miss.is_empty() {
                        failures.push(format!("module {}: reachable blocks {miss:?} are not in the shape\n{s}\n{text}", i - 1));
                    }
                    shapes.push(Some(s));
                }
                Err(e) => {
                    failures.push(format!("module {}: block {}: {}\n{text}", i - 1, e.block, e.message));
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
        for (fi, path) in call_paths(&a, &trace.paths[0]) {
            let Some(s) = &shapes[fi] else { continue };
            match walk(m, &a.cfg().functions[fi], s, &path) {
                Ok(()) => walked += 1,
                Err(e) => failures.push(format!("module {}: {e}\npath {path:?}\n{s}\n{text}", i - 1)),
            }
            match flat_walks(m, &a.cfg().functions[fi], &path) {
                Ok(flags) => flat_flags += (flags > 0) as u32,
                Err(e) => failures.push(format!("module {}: {e}\npath {path:?}\n{text}", i - 1)),
            }
        }
    }
    println!(
        "wgsl_shape random: {valid} valid modules, {shaped} functions shaped, {ran} ran, {walked} walked ({flat_flags} flattened with guard flags), {} failures; {mutants} mutant functions, {mutants_refused} without a shape",
        failures.len()
    );
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

/// The hand-written modules: a compute shader of 16 invocations whose control
/// flow depends on `%x`, the local invocation index (also `%x4` = x % 4 and
/// `%x2` = x % 2, and the booleans `%lt8` = x < 8, `%lt4` = x < 4, `%odd` =
/// x is odd), so each invocation takes its own path.
const HEAD: &str = "
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %lid
OpExecutionMode %main LocalSize 16 1 1
OpDecorate %lid BuiltIn LocalInvocationId
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%v3 = OpTypeVector %uint 3
%pv3 = OpTypePointer Input %v3
%lid = OpVariable %pv3 Input
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u2 = OpConstant %uint 2
%u3 = OpConstant %uint 3
%u4 = OpConstant %uint 4
%u8 = OpConstant %uint 8
%true = OpConstantTrue %bool
%main = OpFunction %void None %fn
%entry = OpLabel
%l = OpLoad %v3 %lid
%x = OpCompositeExtract %uint %l 0
%x4 = OpUMod %uint %x %u4
%x2 = OpUMod %uint %x %u2
%lt8 = OpULessThan %bool %x %u8
%lt4 = OpULessThan %bool %x %u4
%odd = OpIEqual %bool %x2 %u1
";

/// (name, body after the entry block's first instructions).
const MODULES: &[(&str, &str)] = &[
    ("fallthrough", "
OpSelectionMerge %m None
OpSwitch %x4 %m 0 %a 1 %b 2 %c
%a = OpLabel
OpBranch %b
%b = OpLabel
%p = OpPhi %uint %u0 %entry %u1 %a
OpBranch %m
%c = OpLabel
OpBranch %m
%m = OpLabel
OpReturn
OpFunctionEnd"),
    ("fallthrough_from_a_selection", "
OpSelectionMerge %m None
OpSwitch %x4 %d 0 %a 2 %a 1 %b
%a = OpLabel
OpSelectionMerge %am None
OpBranchConditional %lt8 %at %am
%at = OpLabel
OpBranch %am
%am = OpLabel
OpBranch %b
%b = OpLabel
OpBranch %m
%d = OpLabel
OpBranch %m
%m = OpLabel
OpReturn
OpFunctionEnd"),
    ("two_level_break", "
OpBranch %h
%h = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %c
OpLoopMerge %lm %c None
OpBranch %s
%s = OpLabel
OpSelectionMerge %sm None
OpSwitch %x4 %sm 0 %k0 1 %k1
%k0 = OpLabel
%big = OpUGreaterThan %bool %i %u2
OpSelectionMerge %k0m None
OpBranchConditional %big %lm %k0m
%k0m = OpLabel
OpBranch %sm
%k1 = OpLabel
OpBranch %lm
%sm = OpLabel
OpBranch %c
%c = OpLabel
%i1 = OpIAdd %uint %i %u1
%more = OpULessThan %bool %i1 %u4
OpBranchConditional %more %h %lm
%lm = OpLabel
OpReturn
OpFunctionEnd"),
    ("continue_from_a_switch", "
OpBranch %h
%h = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %c
OpLoopMerge %lm %c None
OpBranch %s
%s = OpLabel
OpSelectionMerge %sm None
OpSwitch %x4 %sm 0 %k0 1 %k1
%k0 = OpLabel
OpBranch %c
%k1 = OpLabel
OpSelectionMerge %k1m None
OpBranchConditional %odd %c %k1m
%k1m = OpLabel
OpBranch %sm
%sm = OpLabel
OpBranch %c
%c = OpLabel
%i1 = OpIAdd %uint %i %u1
%more = OpULessThan %bool %i1 %u3
OpBranchConditional %more %h %lm
%lm = OpLabel
OpReturn
OpFunctionEnd"),
    ("continue_and_break_from_a_fallthrough_switch", "
OpBranch %h
%h = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %c
OpLoopMerge %lm %c None
OpBranch %s
%s = OpLabel
OpSelectionMerge %sm None
OpSwitch %x4 %sm 0 %k0 1 %k1 3 %k3
%k0 = OpLabel
OpSelectionMerge %k0m None
OpBranchConditional %odd %c %k0m
%k0m = OpLabel
OpBranch %k1
%k1 = OpLabel
%big = OpUGreaterThan %bool %i %u1
OpSelectionMerge %k1m None
OpBranchConditional %big %lm %k1m
%k1m = OpLabel
OpBranch %sm
%k3 = OpLabel
OpBranch %c
%sm = OpLabel
OpBranch %c
%c = OpLabel
%i1 = OpIAdd %uint %i %u1
%more = OpULessThan %bool %i1 %u4
OpBranchConditional %more %h %lm
%lm = OpLabel
OpReturn
OpFunctionEnd"),
    ("phi_across_a_back_edge", "
OpBranch %h
%h = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %h
%j = OpPhi %uint %x %entry %i %h
%i1 = OpIAdd %uint %i %u1
%more = OpULessThan %bool %i1 %x4
OpLoopMerge %lm %h None
OpBranchConditional %more %h %lm
%lm = OpLabel
%r = OpPhi %uint %j %h
OpReturn
OpFunctionEnd"),
    ("multi_block_continue_with_a_break", "
OpBranch %h
%h = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %c2
OpLoopMerge %lm %c None
OpBranch %b
%b = OpLabel
%stop = OpUGreaterThan %bool %i %x4
OpBranchConditional %stop %lm %c
%c = OpLabel
%i1 = OpIAdd %uint %i %u1
OpSelectionMerge %c2 None
OpBranchConditional %odd %c1 %c2
%c1 = OpLabel
OpBranch %c2
%c2 = OpLabel
%more = OpULessThan %bool %i1 %u8
OpBranchConditional %more %h %lm
%lm = OpLabel
%r = OpPhi %uint %u0 %b %u1 %c2
OpReturn
OpFunctionEnd"),
    ("early_return_in_a_loop", "
OpBranch %h
%h = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %c
OpLoopMerge %lm %c None
OpBranch %b
%b = OpLabel
%hit = OpIEqual %bool %i %x4
OpSelectionMerge %bm None
OpBranchConditional %hit %ret %bm
%ret = OpLabel
OpReturn
%bm = OpLabel
OpBranch %c
%c = OpLabel
%i1 = OpIAdd %uint %i %u1
%more = OpULessThan %bool %i1 %u3
OpBranchConditional %more %h %lm
%lm = OpLabel
OpReturn
OpFunctionEnd"),
    ("same_targets_and_default_only", "
OpSelectionMerge %m None
OpBranchConditional %odd %a %a
%a = OpLabel
OpBranch %m
%m = OpLabel
OpSelectionMerge %m2 None
OpSwitch %x %d
%d = OpLabel
OpBranch %m2
%m2 = OpLabel
OpReturn
OpFunctionEnd"),
    ("unreachable_merges", "
OpSelectionMerge %m None
OpBranchConditional %odd %a %b
%a = OpLabel
OpBranch %h
%h = OpLabel
%i = OpPhi %uint %u0 %a %i1 %c
OpLoopMerge %lm %c None
OpBranch %hb
%hb = OpLabel
%done = OpUGreaterThan %bool %i %x4
OpSelectionMerge %hbm None
OpBranchConditional %done %r %hbm
%r = OpLabel
OpReturn
%hbm = OpLabel
OpBranch %c
%c = OpLabel
%i1 = OpIAdd %uint %i %u1
OpBranch %h
%lm = OpLabel
OpUnreachable
%b = OpLabel
OpReturn
%m = OpLabel
OpUnreachable
OpFunctionEnd"),
    ("headers_at_merges_and_a_header_branching", "
OpSelectionMerge %m1 None
OpBranchConditional %odd %a %m1
%a = OpLabel
OpBranch %m1
%m1 = OpLabel
OpSelectionMerge %m2 None
OpBranchConditional %lt8 %m2 %b
%b = OpLabel
OpBranch %m2
%m2 = OpLabel
OpBranch %h
%h = OpLabel
%i = OpPhi %uint %u0 %m2 %i1 %c
%go = OpULessThan %bool %i %x4
OpLoopMerge %lm %c None
OpBranchConditional %go %body %lm
%body = OpLabel
OpBranch %c
%c = OpLabel
%i1 = OpIAdd %uint %i %u1
OpBranch %h
%lm = OpLabel
OpReturn
OpFunctionEnd"),
    ("a_loop_in_a_continue_construct", "
OpBranch %h
%h = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %lm2
OpLoopMerge %lm %h2 None
OpBranch %h2
%h2 = OpLabel
%j = OpPhi %uint %u0 %h %j1 %c2
OpLoopMerge %lm2 %c2 None
OpBranch %b2
%b2 = OpLabel
%jb = OpUGreaterThan %bool %j %x2
OpBranchConditional %jb %lm2 %c2
%c2 = OpLabel
%j1 = OpIAdd %uint %j %u1
%jm = OpULessThan %bool %j1 %u3
OpBranchConditional %jm %h2 %lm2
%lm2 = OpLabel
%i1 = OpIAdd %uint %i %u1
%more = OpULessThan %bool %i1 %x4
OpBranchConditional %more %h %lm
%lm = OpLabel
OpReturn
OpFunctionEnd"),
    ("a_join_inside_a_selection", "
OpSelectionMerge %m None
OpBranchConditional %odd %a %b
%a = OpLabel
OpBranch %b
%b = OpLabel
%p = OpPhi %uint %u0 %entry %u1 %a
OpBranch %m
%m = OpLabel
OpReturn
OpFunctionEnd"),
];

/// Each hand-written module is valid (spvlab's validator, which agrees with
/// spirv-val on the corpus), has a shape, and the shape walks the path of
/// each of its 16 invocations.
#[test]
fn hand_written_modules_walk_every_invocation() {
    let opts = spvlab_core::valid::Options { env: spvlab_core::TargetEnv::Spv1_0, ..Default::default() };
    let mut failures = Vec::new();
    for (name, body) in MODULES {
        let text = format!("{HEAD}{body}");
        let a = Analysis::of_text(&text, &opts);
        let errors: Vec<_> = a.diagnostics().iter().filter(|d| d.severity == spvlab_core::Severity::Error).collect();
        assert!(errors.is_empty(), "{name} is not valid: {errors:?}");
        let (m, f) = (a.module().unwrap(), &a.cfg().functions[0]);
        let s = match structure(m, f) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: block {}: {}", e.block, e.message));
                continue;
            }
        };
        let mut bufs = Buffers::new();
        let stats = interp::run(a.ir().unwrap(), &interp::Options { trace: Trace::All, ..Default::default() }, &mut bufs)
            .expect("the module runs");
        let trace = stats.trace.expect("a trace");
        assert_eq!(trace.paths.len(), 16);
        let mut paths = std::collections::BTreeSet::new();
        for p in &trace.paths {
            let path: Vec<u32> = p.blocks().map(|b| f.block_of(b.label).unwrap()).collect();
            if let Err(e) = walk(m, f, &s, &path) {
                failures.push(format!("{name}: invocation {:?}: {e}\npath {path:?}\n{s}", p.invocation));
                break;
            }
            paths.insert(path);
        }
        println!("{name}: {} distinct paths walked\n{s}", paths.len());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Timing on the 100k-block CFG (BENCHMARKS.md: `gen-cfg --blocks 100000`):
/// `SPVLAB_SHAPE_BENCH=path/to/cfg100k.spvasm cargo test --release -p
/// spvlab-tests --test wgsl_shape bench -- --ignored --nocapture`. Prints the
/// time of `structure` (best of 5) and the shape's size; checks nothing else.
#[test]
#[ignore]
fn bench_structure_on_a_big_cfg() {
    let Ok(path) = std::env::var("SPVLAB_SHAPE_BENCH") else { return };
    let text = std::fs::read_to_string(&path).expect("read the module");
    let opts = spvlab_core::valid::Options { env: spvlab_core::TargetEnv::Spv1_6, ..Default::default() };
    let a = Analysis::of_text(&text, &opts);
    let m = a.module().expect("the module reads");
    let f = a.cfg().functions.iter().max_by_key(|f| f.blocks.len()).unwrap();
    let mut best = f64::MAX;
    let mut shape = None;
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let s = structure(m, f).expect("a shape");
        best = best.min(t.elapsed().as_secs_f64());
        shape = Some(s);
    }
    let s = shape.unwrap();
    fn count(v: &[Stmt]) -> usize {
        v.iter()
            .map(|s| {
                1 + match s {
                    Stmt::If { then, els, .. } => count(then) + count(els),
                    Stmt::Loop { body, continuing, .. } => count(body) + count(continuing),
                    Stmt::Switch { cases, .. } => cases.iter().map(|c| count(&c.body)).sum(),
                    _ => 0,
                }
            })
            .sum()
    }
    println!("structure: {} blocks in {:.1} ms (best of 5), {} statements, {} dispatch variables", f.blocks.len(), best * 1e3, count(&s.body), s.vars);
}
