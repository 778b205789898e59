//! Control flow that the other SPIR-V-to-WGSL translators cannot lower:
//! the modules of tests/wgsl-cf/ (switch
//! fallthrough, multi-level breaks, continues from switches, OpPhi across
//! back edges, early returns in loops, ...), each a compute shader of one
//! workgroup of 8 invocations writing one `u32` per invocation.
//!
//! For each module: spirv-val (the oracle) accepts it; our lowering gives
//! WGSL that naga's WGSL front end and validator accept; run on a Vulkan
//! device (lavapipe) through the runner with that WGSL text, its buffer
//! equals the interpreter's. naga's own SPIR-V front end runs on the same
//! module beside it (translation and validation, then on the device as
//! `wgpu-naga`), and the table marks where it fails; that column is a report,
//! not a check.
//!
//! The modules deep_*.spvasm (written by tests/wgsl-cf/deep.py) nest
//! selections deeper than WGSL's 127 braces (checked), inside loops and
//! switches, with breaks, continues, returns and a barrier: the writer
//! flattens them (`wgsl::shape::flatten`). Every module also runs with its
//! `if`s flattened down to 2 braces, against the same interpreter buffer.
//!
//! The device part is skipped, with a message, when no Vulkan adapter
//! exists (`SPVLAB_REQUIRE_GPU=1`: a missing adapter fails).

use naga::valid::{Capabilities, ValidationFlags, Validator};
use spvlab_core::interp::{self, Buffers};
use spvlab_core::ir::Ir;
use spvlab_core::text::{AsmOptions, assemble};
use spvlab_core::{TargetEnv, binary, cfg, wgsl};
use spvlab_tests::{reference_or_skip, root, run_tool, scratch};
use spvlab_gpu::{Backend, Gpu, Job};
use std::collections::BTreeMap;
use std::time::Duration;

const ENV: &str = "vulkan1.1";
/// Invocations (one workgroup), one u32 each.
const N: usize = 8;
/// The nesting every module is also lowered at: so small that every `if`
/// with an `if` inside is flattened (`wgsl::shape::structure_within`).
const FLAT_DEPTH: usize = 2;

fn naga_wgsl_ok(src: &str) -> Result<(), String> {
    let m = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
    Validator::new(ValidationFlags::all(), Capabilities::default()).validate(&m).map_err(|e| e.emit_to_string(src))?;
    Ok(())
}

/// Our WGSL with each function's shape from `structure`, accepted by naga.
fn lower_checked(ir: &Ir, graph: &cfg::ModuleCfg, structure: wgsl::Structurer<'_>) -> Result<wgsl::Wgsl, String> {
    let w = wgsl::lower_with(ir, graph, &wgsl::Options::default(), structure)
        .map_err(|r| format!("refused: {} {}", r[0].code, r[0].message))?;
    naga_wgsl_ok(&w.text).map_err(|e| format!("naga rejects our WGSL:\n{e}\n{}", w.text))?;
    Ok(w)
}

/// naga's SPIR-V front end + validator; `Err` says which failed.
fn naga_spv(words: &[u32]) -> Result<(), String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let r = std::panic::catch_unwind(|| {
        let m = naga::front::spv::parse_u8_slice(&bytes, &naga::front::spv::Options::default())
            .map_err(|e| format!("translate: {e}"))?;
        Validator::new(ValidationFlags::all(), Capabilities::default())
            .validate(&m)
            .map_err(|e| format!("validate: {}", e.as_inner()))?;
        Ok(())
    });
    r.unwrap_or_else(|_| Err(String::from("translate: panic")))
}

fn gpu_or_skip() -> Option<Gpu> {
    match Gpu::new_blocking() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("SPVLAB_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("wgsl_cf: SPVLAB_REQUIRE_GPU=1 and no Vulkan adapter: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED wgsl_cf's device runs: no Vulkan adapter ({e}); ./x test installs lavapipe");
            None
        }
    }
}

#[test]
fn wgsl_cf_suite() {
    let t = std::thread::Builder::new().stack_size(256 << 20).spawn(run).unwrap();
    if let Err(e) = t.join() {
        std::panic::resume_unwind(e);
    }
}

fn run() {
    let dir = root().join("tests/wgsl-cf");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "spvasm"));
    files.sort();
    assert!(files.len() >= 30, "the suite has {} modules, fewer than 30", files.len());
    let tools = reference_or_skip("wgsl_cf");
    let tmp = scratch("wgsl_cf");
    let mut gpu = gpu_or_skip();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let mut rows = Vec::new();
    for path in &files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.starts_with("; "), "{name}: no comment saying what it covers");
        let words = assemble(&text, &AsmOptions { env: TargetEnv::parse(ENV).unwrap(), preserve_numeric_ids: false })
            .unwrap_or_else(|e| panic!("{name}: does not assemble: {e:?}"));
        if let Some(bin) = &tools {
            let spv = tmp.join(format!("{name}.spv"));
            std::fs::write(&spv, words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
            let (ok, _, err) = run_tool(bin, "spirv-val", &["--target-env", ENV, spv.to_str().unwrap()]);
            assert!(ok, "{name}: spirv-val rejects it: {err}");
        }
        let ir = Ir::build(binary::read_words(&words).unwrap());
        let graph = cfg::analyze(&ir.module);
        let ours = match lower_checked(&ir, &graph, &wgsl::shape::structure) {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        // The deep modules nest deeper than WGSL allows unless flattened.
        if name.starts_with("deep_") {
            let deepest = graph
                .functions
                .iter()
                .filter_map(|f| wgsl::shape::structure_within(&ir.module, f, usize::MAX).ok())
                .map(|s| wgsl::shape::flatten::depth(&s.body))
                .max()
                .unwrap_or(0);
            if deepest <= 127 {
                failures.push(format!("{name}: nests only {deepest} braces deep, within WGSL's 127"));
            }
        }
        // Every module again with every chain of `if`s flattened (guard
        // flags; wgsl::shape::flatten), far below any limit.
        let flat = match lower_checked(&ir, &graph, &|m, f| wgsl::shape::structure_within(m, f, FLAT_DEPTH)) {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{name}: flattened to depth {FLAT_DEPTH}: {e}"));
                continue;
            }
        };
        let mut expect: Buffers = BTreeMap::from([((0, 0), vec![0u8; 4 * N])]);
        if let Err(e) = interp::run(&ir, &interp::Options::default(), &mut expect) {
            failures.push(format!("{name}: the interpreter fails: {}", e.message()));
            continue;
        }
        let naga = naga_spv(&words);
        let mut ours_dev = "-".to_string();
        let mut naga_dev = "-".to_string();
        let mut flat_dev = "-".to_string();
        if let Some(g) = gpu.as_mut() {
            for (backend, text) in [(Backend::Wgsl, &ours), (Backend::Wgsl, &flat), (Backend::Naga, &ours)] {
                if backend == Backend::Naga && naga.is_err() {
                    continue;
                }
                // naga's translation keeps the deep nesting, and lavapipe
                // (Mesa 25.0.7) crashed (SIGSEGV, in a recursion) compiling
                // it for deep_if_barrier_uniform: not sent.
                if backend == Backend::Naga && name.starts_with("deep_") {
                    naga_dev = String::from("not run (deep)");
                    continue;
                }
                let flattened = std::ptr::eq(text, &flat);
                let input: Buffers = BTreeMap::from([((0, 0), vec![0u8; 4 * N])]);
                let aliases = BTreeMap::new();
                let job = Job {
                    backend,
                    words: &words,
                    ir: &ir,
                    wgsl: Some(text),
                    entry: None,
                    workgroups: [1, 1, 1],
                    buffers: &input,
                    aliases: &aliases,
                    push_constants: None,
                    resources: None,
                    module_name: &name,
                };
                let verdict = match g.run_blocking(&job, Duration::from_secs(20)) {
                    Ok(b) if b.get(&(0, 0)) == expect.get(&(0, 0)) => "pass".to_string(),
                    Ok(b) => format!("WRONG {:?} (interpreter {:?})", words_u32(&b[&(0, 0)]), words_u32(&expect[&(0, 0)])),
                    Err(e) => format!("error: {e}"),
                };
                if g.is_lost() {
                    *g = Gpu::new_blocking().expect("a new device after a loss");
                }
                if backend == Backend::Wgsl && flattened {
                    if verdict != "pass" {
                        failures.push(format!("{name}: our flattened WGSL on the device: {verdict}\n{}", flat.text));
                    }
                    flat_dev = verdict;
                } else if backend == Backend::Wgsl {
                    if verdict != "pass" {
                        failures.push(format!("{name}: our WGSL on the device: {verdict}\n{}", ours.text));
                    }
                    ours_dev = verdict;
                } else {
                    naga_dev = verdict;
                }
            }
        }
        let naga_col = match &naga {
            Ok(()) => format!("ok, device: {naga_dev}"),
            Err(e) => format!("FAILS ({})", e.lines().next().unwrap_or("")),
        };
        rows.push(format!("{name:<40} ours: {ours_dev:<6} flattened: {flat_dev:<6} naga spv-in: {naga_col}"));
    }
    std::panic::set_hook(hook);
    println!("{} modules; interpreter = oracle on the device", files.len());
    for r in &rows {
        println!("{r}");
    }
    let naga_fails = rows.iter().filter(|r| r.contains("FAILS") || r.contains("WRONG") || r.contains("device: error")).count();
    println!("naga's SPIR-V front end fails (translate, validate or device result) on {naga_fails} of {}", rows.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
}

fn words_u32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}
