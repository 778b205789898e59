//! The fuzz loop: mutate, run the target under `catch_unwind`, save crashes.

use crate::input::{Input, fnv64};
use crate::mutate::mutate;
use crate::rng::{Rng, splitmix64};
use std::cell::Cell;
use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A fuzz target: runs one input, may push inputs it derived (a disassembly, an
/// assembled binary) and returns a signature of what happened (for example a hash
/// of the diagnostic codes). Inputs with a signature not seen before join the pool.
pub trait Target: Sync {
    fn run(&self, input: &Input, derived: &mut Vec<Input>) -> u64;
}

impl<F: Fn(&Input, &mut Vec<Input>) -> u64 + Sync> Target for F {
    fn run(&self, input: &Input, derived: &mut Vec<Input>) -> u64 {
        self(input, derived)
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    /// Total inputs over all threads (mutants; the seeds are run once more on top).
    pub iterations: u64,
    pub seed: u64,
    pub time_limit: Option<Duration>,
    pub threads: usize,
    /// Where crashing inputs are written; `None` keeps them in memory only.
    pub crash_dir: Option<PathBuf>,
    /// The most interesting mutants each thread keeps.
    pub max_pool: usize,
    /// Print a progress line every this often (to stderr).
    pub progress: Option<Duration>,
    /// Stop at the first crash.
    pub stop_on_crash: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            iterations: 100_000,
            seed: 1,
            time_limit: None,
            threads: 2,
            crash_dir: Some(crate::seeds::root().join("target/fuzz-crashes")),
            max_pool: 4096,
            progress: None,
            stop_on_crash: false,
        }
    }
}

/// One input that panicked (the smallest found for its panic location).
#[derive(Clone, Debug)]
pub struct Crash {
    pub message: String,
    /// Where it panicked (`file:line:col`); crashes are told apart by this.
    pub location: String,
    pub input: Input,
    /// Where it was saved, if it was.
    pub path: Option<PathBuf>,
}

#[derive(Debug, Default)]
pub struct Report {
    pub inputs: u64,
    pub text_inputs: u64,
    pub binary_inputs: u64,
    pub bytes: u64,
    pub elapsed: Duration,
    pub crashes: Vec<Crash>,
    /// Distinct signatures seen (summed over threads).
    pub signatures: usize,
}

impl Report {
    pub fn inputs_per_sec(&self) -> f64 {
        self.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// Where the last panic on this thread happened (`file:line:col`).
    static LAST_LOCATION: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Install (once) a panic hook that stays silent on fuzzing threads and defers to
/// the previous hook everywhere else.
fn install_quiet_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let loc = info.location().map_or(String::new(), |l| {
                    format!("{}:{}:{}", l.file(), l.line(), l.column())
                });
                LAST_LOCATION.with(|l| *l.borrow_mut() = loc);
            } else {
                prev(info);
            }
        }));
    });
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

/// Write a crashing input to `dir/crash-<hash>.<ext>`.
pub fn save_crash(dir: &std::path::Path, input: &Input, message: &str) -> Option<PathBuf> {
    std::fs::create_dir_all(dir).ok()?;
    let bytes = input.file_bytes();
    let path = dir.join(format!(
        "crash-{:016x}.{}",
        fnv64(&bytes),
        input.extension()
    ));
    std::fs::write(&path, &bytes).ok()?;
    let _ = std::fs::write(
        path.with_extension(format!("{}.txt", input.extension())),
        message,
    );
    Some(path)
}

struct Shared<'a> {
    cfg: &'a Config,
    crashes: Mutex<Vec<Crash>>,
    done: AtomicU64,
    stop: AtomicBool,
    start: Instant,
}

/// Run the fuzzer: every seed once, then `cfg.iterations` mutants over `cfg.threads` threads.
pub fn run(cfg: &Config, seeds: &[Input], target: &dyn Target) -> Report {
    install_quiet_hook();
    let shared = Shared {
        cfg,
        crashes: Mutex::new(Vec::new()),
        done: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        start: Instant::now(),
    };
    let threads = cfg.threads.max(1);
    let mut per_thread = Vec::new();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let shared = &shared;
                // Static split: each thread's stream depends only on (seed, thread).
                let quota = cfg.iterations / threads as u64
                    + u64::from((t as u64) < cfg.iterations % threads as u64);
                // 8 MiB of stack, like a main thread: a stack overflow aborts the process
                // (it cannot be caught), so deep recursion on bad input shows up as a crash
                // of spvlab-fuzz itself.
                std::thread::Builder::new()
                    .name(format!("fuzz-{t}"))
                    .stack_size(8 << 20)
                    .spawn_scoped(s, move || worker(t, threads, quota, seeds, target, shared))
                    .expect("spawn a fuzz thread")
            })
            .collect();
        if let Some(every) = cfg.progress {
            let mut last = Instant::now();
            while !handles.iter().all(|h| h.is_finished()) {
                std::thread::sleep(Duration::from_millis(50));
                if last.elapsed() >= every {
                    last = Instant::now();
                    let n = shared.done.load(Ordering::Relaxed);
                    let el = shared.start.elapsed().as_secs_f64();
                    eprintln!(
                        "spvlab-fuzz: {n} inputs, {:.0}/s, {} crashes, {:.0}s",
                        n as f64 / el.max(1e-9),
                        shared.crashes.lock().map_or(0, |c| c.len()),
                        el
                    );
                }
            }
        }
        for h in handles {
            per_thread.push(h.join().unwrap_or_default());
        }
    });
    let mut report = Report {
        elapsed: shared.start.elapsed(),
        ..Report::default()
    };
    for r in per_thread {
        report.inputs += r.inputs;
        report.text_inputs += r.text_inputs;
        report.binary_inputs += r.binary_inputs;
        report.bytes += r.bytes;
        report.signatures += r.signatures;
    }
    report.crashes = shared.crashes.into_inner().unwrap_or_default();
    report
}

fn run_one(
    input: &Input,
    target: &dyn Target,
    derived: &mut Vec<Input>,
    shared: &Shared,
    report: &mut Report,
) -> Option<u64> {
    report.inputs += 1;
    report.bytes += input.len() as u64;
    if input.is_text() {
        report.text_inputs += 1;
    } else {
        report.binary_inputs += 1;
    }
    QUIET.with(|q| q.set(true));
    let r = catch_unwind(AssertUnwindSafe(|| target.run(input, derived)));
    QUIET.with(|q| q.set(false));
    shared.done.fetch_add(1, Ordering::Relaxed);
    match r {
        Ok(sig) => Some(sig),
        Err(p) => {
            let message = panic_message(&*p);
            let location = LAST_LOCATION.with(|l| std::mem::take(&mut *l.borrow_mut()));
            let mut crashes = shared.crashes.lock().unwrap_or_else(|e| e.into_inner());
            let save = |input: &Input| {
                shared
                    .cfg
                    .crash_dir
                    .as_ref()
                    .and_then(|d| save_crash(d, input, &format!("{location}: {message}")))
            };
            // One crash per panic location (at most 100): keep the smallest input.
            if let Some(c) = crashes.iter_mut().find(|c| c.location == location) {
                if input.len() < c.input.len() {
                    if let Some(old) = c.path.take() {
                        let _ = std::fs::remove_file(&old);
                        let _ = std::fs::remove_file(
                            old.with_extension(format!("{}.txt", c.input.extension())),
                        );
                    }
                    c.path = save(input);
                    c.input = input.clone();
                    c.message = message;
                }
            } else if crashes.len() < 100 {
                let path = save(input);
                eprintln!(
                    "spvlab-fuzz: CRASH at {location} ({} input{}): {message}",
                    if input.is_text() { "text" } else { "binary" },
                    path.as_ref()
                        .map_or(String::new(), |p| format!(", saved to {}", p.display()))
                );
                crashes.push(Crash {
                    message,
                    location,
                    input: input.clone(),
                    path,
                });
            }
            if shared.cfg.stop_on_crash {
                shared.stop.store(true, Ordering::Relaxed);
            }
            None
        }
    }
}

/// A random pool entry of the wanted kind (a few tries), if any.
fn pick_kind<'a>(rng: &mut Rng, pool: &'a [Input], text: bool) -> Option<&'a Input> {
    (0..4)
        .map(|_| pool.get(rng.below(pool.len())))
        .find_map(|p| p.filter(|p| p.is_text() == text))
}

fn worker(
    t: usize,
    threads: usize,
    quota: u64,
    seeds: &[Input],
    target: &dyn Target,
    shared: &Shared,
) -> Report {
    let cfg = shared.cfg;
    let mut s = cfg.seed ^ (t as u64).wrapping_mul(0x9E37_79B9);
    let mut rng = Rng::new(splitmix64(&mut s));
    let mut report = Report::default();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut pool: Vec<Input> = Vec::new();
    let mut derived = Vec::new();
    // Run this thread's share of the seeds unmutated first.
    for input in seeds.iter().skip(t).step_by(threads) {
        derived.clear();
        if let Some(sig) = run_one(input, target, &mut derived, shared, &mut report)
            && seen.insert(sig)
        {
            pool.append(&mut derived);
        }
    }
    pool.truncate(cfg.max_pool);
    let texts: Vec<usize> = (0..seeds.len()).filter(|&i| seeds[i].is_text()).collect();
    let binaries: Vec<usize> = (0..seeds.len()).filter(|&i| !seeds[i].is_text()).collect();
    if seeds.is_empty() {
        return report;
    }
    for i in 0..quota {
        if shared.stop.load(Ordering::Relaxed) {
            break;
        }
        if i % 256 == 0
            && let Some(limit) = cfg.time_limit
            && shared.start.elapsed() >= limit
        {
            break;
        }
        // Texts and binaries half and half, whatever the seed and pool counts; a third
        // of the time a mutant of that kind from the pool.
        let want_text =
            texts.is_empty() == binaries.is_empty() && rng.one_in(2) || binaries.is_empty();
        let parent = if rng.one_in(3)
            && let Some(p) = pick_kind(&mut rng, &pool, want_text)
        {
            p
        } else {
            let kind = if want_text { &texts } else { &binaries };
            &seeds[kind[rng.below(kind.len())]]
        };
        let input = mutate(&mut rng, parent, seeds);
        derived.clear();
        if let Some(sig) = run_one(&input, target, &mut derived, shared, &mut report)
            && seen.insert(sig)
        {
            // A new behaviour: keep the mutant and what it produced.
            for x in std::iter::once(input).chain(derived.drain(..)) {
                if pool.len() < cfg.max_pool {
                    pool.push(x);
                } else {
                    let at = rng.below(pool.len());
                    pool[at] = x;
                }
            }
        }
    }
    report.signatures = seen.len();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A target with a planted bug: it panics on texts holding `%%` and on
    /// binaries whose second word has its top bit set.
    fn buggy(input: &Input, _d: &mut Vec<Input>) -> u64 {
        match input {
            Input::Text { src, .. } => {
                if src.contains("%%") {
                    panic!("planted bug: %%");
                }
                src.len() as u64 % 7
            }
            Input::Binary { bytes, .. } => {
                let w = crate::input::words_of(bytes);
                if w.get(1).is_some_and(|v| v & 0x8000_0000 != 0) {
                    let v: Vec<u32> = Vec::new();
                    return v[w.len()] as u64; // an out-of-bounds index: a real panic
                }
                100 + w.len() as u64 % 5
            }
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let d = crate::seeds::root().join("target/test-scratch").join(name);
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn detects_and_saves_a_planted_crash() {
        let dir = scratch("fuzz-planted");
        let cfg = Config {
            iterations: 20_000,
            seed: 42,
            crash_dir: Some(dir.clone()),
            ..Config::default()
        };
        let seeds = crate::seeds::builtin();
        let report = run(&cfg, &seeds, &buggy);
        assert_eq!(report.inputs, 20_000 + seeds.len() as u64);
        assert!(
            !report.crashes.is_empty(),
            "the planted bugs were not found"
        );
        let msgs: Vec<&str> = report.crashes.iter().map(|c| c.message.as_str()).collect();
        assert!(
            msgs.iter().any(|m| m.contains("planted bug: %%")),
            "{msgs:?}"
        );
        assert!(
            msgs.iter().any(|m| m.contains("index out of bounds")),
            "{msgs:?}"
        );
        for c in &report.crashes {
            let path = c.path.as_ref().expect("crash saved");
            let saved = std::fs::read(path).unwrap();
            assert_eq!(saved, c.input.file_bytes());
            // The saved input reproduces the crash.
            let replay = catch_unwind(AssertUnwindSafe(|| buggy(&c.input, &mut Vec::new())));
            assert!(
                replay.is_err(),
                "saved input {} does not crash again",
                path.display()
            );
        }
    }

    #[test]
    fn clean_target_reports_no_crash_and_is_deterministic() {
        let seeds = crate::seeds::builtin();
        let cfg = Config {
            iterations: 5_000,
            seed: 9,
            crash_dir: None,
            ..Config::default()
        };
        let sum = |i: &Input, _d: &mut Vec<Input>| crate::input::fnv64(&i.file_bytes());
        let a = run(&cfg, &seeds, &sum);
        let b = run(&cfg, &seeds, &sum);
        assert!(a.crashes.is_empty());
        assert_eq!(a.inputs, 5_000 + seeds.len() as u64);
        assert_eq!(
            (a.bytes, a.text_inputs, a.signatures),
            (b.bytes, b.text_inputs, b.signatures)
        );
    }
}
