//! The corpus's graphics Amber tests (`amber/*/index.json`, `pipeline_kind`
//! graphics, with EXPECT lines), less those with a geometry or tessellation
//! stage (never run, never a pass), on the reference interpreter and on a
//! Vulkan GPU (lavapipe in CI) by the raw SPIR-V (`wgpu-passthrough`),
//! through our WGSL (`wgpu`) and through naga's SPIR-V front end
//! (`wgpu-naga`); their EXPECT lines the oracle.
//!
//! In `./x test` a fixed sample runs (every [`STRIDE`]th test: the whole
//! suite takes the interpreter minutes), each backend at least its floor;
//! `SPVLAB_AMBER_GRAPHICS_ALL=1` runs all of them against the floors of the
//! whole suite. Differential: each draw runs on the interpreter first (the
//! GPU executor's guard) and the colour attachments are compared pixel by
//! pixel within the format's precision; every test where they differ must
//! be listed in `tests/gpu-differences.md` on a line naming the backend.
//!
//! The failures of the whole suite on the interpreter are classified in
//! `tests/amber-failures.md`, whose graphics part is written (on request) by
//! `cargo test --release -p spvlab-tests --test gpu_amber_graphics -- --ignored write_report`;
//! the times of BENCHMARKS.md come from `... -- --ignored --nocapture timing`.

use spvlab_core::amber::{self, Dispatch, DrawJob, ExecError, Executor};
use spvlab_core::interp::Buffers;
use spvlab_core::raster::Framebuffer;
use spvlab_gpu::{Backend, GpuExecutor};
use spvlab_tests::amber::{AmberCase, Verdict, cause, explain, graphics_cases, run_case_on};
use spvlab_tests::{corpus_or_skip, gpu_or_skip, root};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The sample of `./x test`: every STRIDEth test of the sorted list.
const STRIDE: usize = 16;

/// Floors: (whole suite, sample) passes of the 843 and of the sample's 53,
/// as measured on lavapipe (Mesa 25.0.7); they may only go up.
const INTERP_FLOOR: (usize, usize) = (835, 53);
const PASSTHROUGH_FLOOR: (usize, usize) = (838, 53);
const WGSL_FLOOR: (usize, usize) = (814, 52);
const NAGA_FLOOR: (usize, usize) = (672, 40);

/// Tests that crash the driver in this process (a SIGSEGV ends the test
/// binary), by backend: not run here, counted as failures, and classified
/// in `tests/gpu-differences.md` (the CLI runs them in a child process,
/// where the crash is an error).
const CRASHES: &[(&str, &str)] = &[("amber/vk-gl-cts/spirv_assembly_instruction_terminate_invocation_no_null_pointer_load.amber", "wgpu-passthrough")];

fn all() -> bool {
    std::env::var("SPVLAB_AMBER_GRAPHICS_ALL").as_deref() == Ok("1")
}

/// A script with a geometry or tessellation stage.
fn staged(text: &str) -> bool {
    text.lines().any(|l| {
        let w: Vec<&str> = l.split_whitespace().collect();
        w.first() == Some(&"SHADER") && w.get(1).is_some_and(|s| matches!(*s, "geometry" | "tessellation_control" | "tessellation_evaluation"))
    })
}

/// The graphics tests that draw with a vertex and a fragment stage: all,
/// or the sample.
fn cases(corpus: &std::path::Path, whole: bool) -> Vec<AmberCase> {
    let cases: Vec<AmberCase> = graphics_cases(corpus)
        .into_iter()
        .filter(|c| !std::fs::read_to_string(corpus.join(&c.amber)).is_ok_and(|t| staged(&t)))
        .collect();
    assert!(cases.len() >= 840, "the corpus has {} graphics Amber tests without geometry or tessellation", cases.len());
    if whole { cases } else { cases.into_iter().step_by(STRIDE).collect() }
}

/// Each case on the interpreter, on every core; with the time of each.
fn on_interp(corpus: &std::path::Path, cases: &[AmberCase]) -> Vec<(Verdict, f64)> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = AtomicUsize::new(0);
    let mut out: Vec<Option<(Verdict, f64)>> = (0..cases.len()).map(|_| None).collect();
    let done: Vec<(usize, Verdict, f64)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(c) = cases.get(i) else { return mine };
                        let t = Instant::now();
                        let v = run_case_on(corpus, c, &mut amber::Interpreter);
                        mine.push((i, v, t.elapsed().as_secs_f64()));
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a worker")).collect()
    });
    for (i, v, t) in done {
        out[i] = Some((v, t));
    }
    out.into_iter().map(|v| v.expect("every case ran")).collect()
}

/// The failure class of a verdict (its cause, at most 140 characters).
fn class(v: &Verdict) -> String {
    cause(v).chars().take(140).collect()
}

fn print_classes(name: &str, cases: &[AmberCase], verdicts: &[&Verdict]) -> usize {
    let passed = verdicts.iter().filter(|v| ***v == Verdict::Pass).count();
    eprintln!("{name}: {passed}/{} pass ({:.1}%)", cases.len(), passed as f64 * 100.0 / cases.len().max(1) as f64);
    let mut by: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (c, v) in cases.iter().zip(verdicts) {
        if **v != Verdict::Pass {
            by.entry(class(v)).or_default().push(&c.amber);
        }
    }
    let mut list: Vec<_> = by.into_iter().collect();
    list.sort_by(|a, b| b.1.len().cmp(&a.1.len()));
    for (c, names) in list {
        eprintln!("  {:4}  {c}  (e.g. {})", names.len(), names[0]);
    }
    passed
}

/// The floor that holds for this run.
fn floor(f: (usize, usize), whole: bool) -> usize {
    if whole { f.0 } else { f.1 }
}

#[test]
fn amber_suite_by_interp_graphics() {
    let Some(corpus) = corpus_or_skip("gpu_amber_graphics") else { return };
    let whole = all();
    let cases = cases(&corpus, whole);
    let t0 = Instant::now();
    let results = on_interp(&corpus, &cases);
    let verdicts: Vec<&Verdict> = results.iter().map(|(v, _)| v).collect();
    let passed = print_classes("interp", &cases, &verdicts);
    eprintln!("interp: {:.1} s", t0.elapsed().as_secs_f64());
    let f = floor(INTERP_FLOOR, whole);
    assert!(passed >= f, "{passed} pass on the interpreter, the floor is {f}");
}

struct Suite {
    verdicts: Vec<Verdict>,
    /// Tests where the interpreter and the GPU differ: path -> the first
    /// difference.
    differing: BTreeMap<String, String>,
    compared: usize,
    refusals: Vec<&'static str>,
    secs: f64,
}

fn on_gpu(corpus: &std::path::Path, cases: &[AmberCase], backend: Backend, guard: bool) -> Suite {
    let mut exec = GpuExecutor::new(backend);
    exec.no_guard = !guard;
    // Beside the rest of `./x test` on 2 cores a draw may take longer than
    // the runner's 10 s hang deadline without hanging.
    exec.timeout = Duration::from_secs(60);
    let t0 = Instant::now();
    let mut verdicts = Vec::new();
    let mut differing = BTreeMap::new();
    // SPVLAB_GPU_TRACE=1: each test's name before it runs (a driver crash
    // ends the process; the last name is the test that crashed it).
    let trace = std::env::var("SPVLAB_GPU_TRACE").as_deref() == Ok("1");
    for c in cases {
        if trace {
            eprintln!("{}: {}", backend.name(), c.amber);
        }
        let seen = exec.differences.len();
        if CRASHES.contains(&(c.amber.as_str(), backend.name())) {
            verdicts.push(Verdict::Error(format!("{}: the driver crashes on this test (not run in this process; see tests/gpu-differences.md)", backend.name())));
            continue;
        }
        verdicts.push(run_case_on(corpus, c, &mut exec));
        if let Some(d) = exec.differences.get(seen) {
            differing.insert(c.amber.clone(), d.to_string());
        }
    }
    Suite { verdicts, differing, compared: exec.compared, refusals: exec.refusals, secs: t0.elapsed().as_secs_f64() }
}

fn gpu_suite(backend: Backend, f: (usize, usize)) {
    if !gpu_or_skip("gpu_amber_graphics") {
        return;
    }
    let Some(corpus) = corpus_or_skip("gpu_amber_graphics") else { return };
    let whole = all();
    let cases = cases(&corpus, whole);
    let s = on_gpu(&corpus, &cases, backend, true);
    let verdicts: Vec<&Verdict> = s.verdicts.iter().collect();
    let passed = print_classes(backend.name(), &cases, &verdicts);
    eprintln!(
        "{}: {:.1} s with the interpreter's guard; {} draws and dispatches compared, {} tests differ",
        backend.name(),
        s.secs,
        s.compared,
        s.differing.len()
    );
    if !s.refusals.is_empty() {
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &s.refusals {
            *by.entry(r).or_default() += 1;
        }
        eprintln!("{}: refused by our lowering: {by:?}", backend.name());
    }
    let doc = std::fs::read_to_string(root().join("tests/gpu-differences.md")).unwrap_or_default();
    let missing: Vec<String> = s
        .differing
        .iter()
        .filter(|(p, _)| !doc.lines().any(|l| l.contains(&format!("`{p}`")) && l.contains(backend.name())))
        .map(|(p, d)| format!("{p}: {d}"))
        .collect();
    assert!(
        missing.is_empty(),
        "{}: the interpreter and the GPU differ on tests not classified in tests/gpu-differences.md: {missing:#?}",
        backend.name()
    );
    let f = floor(f, whole);
    assert!(passed >= f, "{passed} pass on {}, the floor is {f}", backend.name());
}

#[test]
fn amber_suite_by_passthrough_graphics() {
    gpu_suite(Backend::Passthrough, PASSTHROUGH_FLOOR);
}

#[test]
fn amber_suite_by_wgsl_graphics() {
    gpu_suite(Backend::Wgsl, WGSL_FLOOR);
}

#[test]
fn amber_suite_by_naga_graphics() {
    gpu_suite(Backend::Naga, NAGA_FLOOR);
}

/// Times each draw of the interpreter.
struct Timed {
    draws: Vec<f64>,
}

impl Executor for Timed {
    fn dispatch(&mut self, d: &Dispatch, buffers: &mut Buffers) -> Result<(), ExecError> {
        amber::Interpreter.dispatch(d, buffers)
    }

    fn draw(&mut self, job: &DrawJob, fb: &mut Framebuffer, buffers: &mut Buffers) -> Result<(), ExecError> {
        let t = Instant::now();
        let r = amber::Interpreter.draw(job, fb, buffers);
        self.draws.push(t.elapsed().as_secs_f64() * 1e3);
        r
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() { f64::NAN } else { v[v.len() / 2] }
}

/// The interpreter's speed on graphics, printed (no wall-clock limit in a
/// test): the median GraphicsFuzz frame (each `RUN ... DRAW_RECT` of the
/// 752 GraphicsFuzz tests, on one thread), then the whole suite on the
/// interpreter on every core, and by passthrough on lavapipe (which spreads
/// a draw over every core) in the same run, without the guard:
/// `cargo test --release -p spvlab-tests --test gpu_amber_graphics -- --ignored --nocapture timing`.
#[test]
#[ignore = "prints timings; run on request"]
fn timing() {
    let Some(corpus) = corpus_or_skip("gpu_amber_graphics") else { return };
    let cases = cases(&corpus, true);
    let fuzz: Vec<&AmberCase> = cases.iter().filter(|c| c.amber.contains("/graphicsfuzz_")).collect();
    let mut frames = Vec::new();
    let t0 = Instant::now();
    for c in &fuzz {
        let mut e = Timed { draws: Vec::new() };
        let _ = run_case_on(&corpus, c, &mut e);
        frames.extend(e.draws);
    }
    let total = t0.elapsed().as_secs_f64();
    let n = frames.len();
    let mut sorted = frames.clone();
    let med = median(&mut sorted);
    eprintln!(
        "GraphicsFuzz frames on the interpreter, one thread: {n} draws of {} tests, median {med:.1} ms, p90 {:.1} ms, max {:.1} ms; {total:.1} s in all",
        fuzz.len(),
        sorted.get(n * 9 / 10).copied().unwrap_or(f64::NAN),
        sorted.last().copied().unwrap_or(f64::NAN)
    );
    let t0 = Instant::now();
    let results = on_interp(&corpus, &cases);
    let passed = results.iter().filter(|(v, _)| *v == Verdict::Pass).count();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let interp = t0.elapsed().as_secs_f64();
    eprintln!("interp, {threads} threads: {passed}/{} pass, {interp:.1} s", cases.len());
    if !gpu_or_skip("gpu_amber_graphics") {
        return;
    }
    let s = on_gpu(&corpus, &cases, Backend::Passthrough, false);
    let passed = s.verdicts.iter().filter(|v| **v == Verdict::Pass).count();
    eprintln!(
        "wgpu-passthrough: {passed}/{} pass, {:.1} s (no guard); the interpreter {:.2}x its time",
        cases.len(),
        s.secs,
        interp / s.secs
    );
}

/// Writes the graphics part of `tests/amber-failures.md` (from its heading
/// to the end; the compute part before it stays): every test of the whole
/// suite that does not pass on the interpreter, grouped by cause.
#[test]
#[ignore = "writes tests/amber-failures.md; run on request"]
fn write_report() {
    let Some(corpus) = corpus_or_skip("gpu_amber_graphics") else { return };
    let cases = cases(&corpus, true);
    let results = on_interp(&corpus, &cases);
    let passed = results.iter().filter(|(v, _)| *v == Verdict::Pass).count();
    let mut by: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, (v, _)) in results.iter().enumerate() {
        if *v != Verdict::Pass {
            by.entry(class(v)).or_default().push(i);
        }
    }
    let mut md = String::from(GRAPHICS_HEADING);
    md.push_str(&format!(
        "\n\nGenerated by `cargo test --release -p spvlab-tests --test gpu_amber_graphics -- --ignored write_report`:\n\
         the reference interpreter on the corpus's {} graphics Amber tests with EXPECT lines and without a geometry or\n\
         tessellation stage, grouped by cause.\n\n{passed} of {} pass ({:.1}%).\n\n",
        cases.len(),
        cases.len(),
        passed as f64 * 100.0 / cases.len() as f64
    ));
    let mut order: Vec<_> = by.iter().collect();
    order.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    md.push_str("| tests | cause |\n|---:|---|\n");
    for (c, list) in &order {
        md.push_str(&format!("| {} | {} |\n", list.len(), c.replace('|', "\\|")));
    }
    for (c, list) in &order {
        md.push_str(&format!("\n### {} ({})\n\n", c, list.len()));
        let first = &cases[list[0]].amber;
        if !c.starts_with("wrong result")
            && let Some(why) = explain(c, first)
        {
            md.push_str(&format!("{why}.\n\n"));
        }
        for &i in list.iter() {
            let detail = match &results[i].0 {
                Verdict::Fail(f) => f.first().cloned().unwrap_or_default(),
                Verdict::Error(e) => e.clone(),
                Verdict::Pass => String::new(),
            };
            md.push_str(&format!("* `{}`: {detail}\n", cases[i].amber));
            if c.starts_with("wrong result")
                && let Some(why) = explain(c, &cases[i].amber)
            {
                md.push_str(&format!("  (why: {why})\n"));
            }
        }
    }
    let path = root().join("tests/amber-failures.md");
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    let keep = old.find(GRAPHICS_HEADING).map_or(old.as_str(), |i| &old[..i]).trim_end();
    std::fs::write(&path, format!("{keep}\n\n{md}")).expect("write the report");
    eprintln!("wrote {}", path.display());
}

/// The heading of the graphics part of `tests/amber-failures.md`.
const GRAPHICS_HEADING: &str = "# The graphics Amber tests that do not pass";
