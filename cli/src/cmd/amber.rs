//! `spvlab amber`: run AmberScript files (the compute subset) on the
//! reference interpreter and print pass, fail or error for each, then a
//! summary.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Write as _;

use serde_json::{Value, json};
use spvlab_core::TargetEnv;
use spvlab_core::diag::render;
use spvlab_core::amber::{self, AmberError, RunOptions};
use spvlab_core::text::{AsmOptions, assemble};

use crate::args::{Arg, Parser, no_value};
use crate::error::CliError;
use crate::io::{Input, print_stdout};

pub const HELP: &str = "\
spvlab amber: run AmberScript compute tests on the reference interpreter

Usage: spvlab amber [options] <file.amber>...

Each file is read, its compute pipelines run, and its EXPECT lines checked.
For each file it prints `pass`, `fail` (with each expectation that failed) or
`error` (with the error, at file:line:col), then a summary. A file with a
graphics pipeline is `graphics: not run`, never a pass.

A shader written in GLSL needs its module, given by the shader's name:
--shader NAME=FILE, FILE a binary module or SPIR-V assembly text; it also
takes the place of a SPIR-V shader of that name.

Options:
  --shader <NAME=FILE>     The module of shader NAME (may be repeated).
  --target-env <env>       Assemble --shader texts for <env>. Default: spv1.0.
  --data <DIR>             Where to look for a data file a script names
                           (BUFFER ... FILE) that is not beside it (may be
                           repeated: searched in order).
  --max-steps <N>          The most instructions one invocation may execute
                           (default 1000000).
  --backend <B>            What runs the dispatches: interp (the reference
                           interpreter, default), wgpu (our WGSL), wgpu-naga
                           (naga's SPIR-V front end), wgpu-passthrough (the
                           raw SPIR-V), or all (each in turn: a table of the
                           verdicts, a mismatch highlighted). A GPU backend
                           runs each dispatch on the interpreter first: one
                           that does not terminate there is not sent to the
                           GPU, and the two runs' buffers are compared (each
                           difference is printed).
  --force                  Send every dispatch to the GPU without the
                           interpreter's run first (no guard, no comparison).
  --gpu-timeout <S>        How many seconds one dispatch may take on the GPU
                           (default 10). Each GPU job runs in a child process
                           (`spvlab __gpu-job`): a driver crash or a job past
                           its deadline is an error naming the backend and
                           the module, and the run goes on.
  --in-process             Run the GPU jobs in this process instead (no
                           protection from a driver crash or a hang).
  --jobs <N>               How many files the interpreter runs at once, on
                           as many threads (default: the number of CPUs;
                           1: one after another). The results are printed
                           in the files' order all the same. GPU backends
                           run one file at a time.
  --json                   Print JSON instead of text.
  -h, --help               Print this help.

With more than one file and a terminal on stderr, a progress bar shows on
stderr (SPVLAB_PROGRESS=1 shows it anyway, =0 never); the results go to
stdout as each file finishes.

Exit status: 0 every file passed, 1 a file failed, had an error or was not
run, 2 bad usage.
";

/// The module of one --shader FILE: binary (by its magic number) or text.
fn shader_module(path: &str, env: TargetEnv) -> Result<Vec<u32>, CliError> {
    let input = Input::File(path.into());
    let bytes = input.read()?;
    if bytes.len() >= 4 && bytes.len() % 4 == 0 {
        let magic = 0x0723_0203u32;
        let le = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let be = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        if le == magic || be == magic {
            let words = bytes.chunks_exact(4).map(|c| {
                let a = [c[0], c[1], c[2], c[3]];
                if le == magic { u32::from_le_bytes(a) } else { u32::from_be_bytes(a) }
            });
            return Ok(words.collect());
        }
    }
    let text = crate::io::utf8_text(bytes, path)?;
    assemble(&text, &AsmOptions { env, ..AsmOptions::default() }).map_err(|d| {
        for x in &d {
            eprint!("{}", render(x, &text, path));
        }
        CliError::Failed { path: path.into(), count: d.len() }
    })
}

/// How one file went.
enum Verdict {
    Pass,
    Fail(Vec<AmberError>),
    Error(AmberError),
    Graphics(AmberError),
    Unreadable(String),
}

fn run_file(path: &str, opts: &RunOptions, data: &[std::path::PathBuf], exec: &mut dyn amber::Executor) -> (Verdict, u32) {
    let text = match std::fs::read(path) {
        Ok(b) => match String::from_utf8(b) {
            Ok(t) => t,
            Err(e) => return (Verdict::Unreadable(format!("not UTF-8 text (bad byte at offset {})", e.utf8_error().valid_up_to())), 0),
        },
        Err(e) => return (Verdict::Unreadable(format!("cannot read: {e}")), 0),
    };
    let dir = std::path::Path::new(path).parent().map(|d| d.to_path_buf()).unwrap_or_default();
    // Files a script names (BUFFER ... FILE) are read beside it, as Amber
    // does, else in the --data folders in order.
    let mut load = |name: &str| {
        std::fs::read(dir.join(name)).or_else(|e| data.iter().find_map(|d| std::fs::read(d.join(name)).ok()).ok_or(e)).map_err(|e| e.to_string())
    };
    match amber::parse_with(&text, &mut load).and_then(|s| amber::run_on(&s, opts, exec)) {
        Ok(o) if o.passed() => (Verdict::Pass, o.checked),
        Ok(o) => (Verdict::Fail(o.failures), o.checked),
        Err(e) if e.is_graphics() => (Verdict::Graphics(e), 0),
        Err(e) => (Verdict::Error(e), 0),
    }
}

fn located(e: &AmberError) -> Value {
    json!({ "line": e.line, "col": e.col, "message": e.message })
}

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut files: Vec<String> = Vec::new();
    let mut shaders: Vec<(String, String)> = Vec::new();
    let mut env = TargetEnv::Spv1_0;
    let mut json_out = false;
    let mut max_steps = 1_000_000u64;
    let mut backends: Vec<Backend> = vec![Backend::Interp];
    let mut force = false;
    let mut data: Vec<std::path::PathBuf> = Vec::new();
    let mut gpu_flags = GpuFlags::default();
    let mut jobs: Option<usize> = None;
    let mut p = Parser::new(args);
    while let Some(arg) = p.next_arg() {
        match arg {
            Arg::Flag { name, inline } => match name.as_str() {
                "-h" | "--help" => return print_stdout(HELP),
                "--json" => {
                    no_value("--json", &inline)?;
                    json_out = true;
                }
                "--target-env" => env = p.target_env(inline)?,
                "--data" => data.push(p.text_value("--data", inline)?.into()),
                "--backend" => backends = Backend::parse_list(&p.text_value("--backend", inline)?)?,
                "--force" => {
                    no_value("--force", &inline)?;
                    force = true;
                }
                "--jobs" => {
                    let v = p.text_value("--jobs", inline)?;
                    jobs = Some(v.parse().ok().filter(|n| *n > 0).ok_or_else(|| CliError::Usage(format!("--jobs: `{v}` is not a positive number")))?);
                }
                "--in-process" | "--gpu-timeout" => gpu_flags.parse(&mut p, &name, inline)?,
                "--max-steps" => {
                    let v = p.text_value("--max-steps", inline)?;
                    max_steps = v
                        .parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| CliError::Usage(format!("--max-steps: `{v}` is not a positive number")))?;
                }
                "--shader" => {
                    let v = p.text_value("--shader", inline)?;
                    let Some((n, f)) = v.split_once('=').filter(|(n, f)| !n.is_empty() && !f.is_empty()) else {
                        return Err(CliError::Usage(format!("--shader wants NAME=FILE, not `{v}`")));
                    };
                    shaders.push((n.into(), f.into()));
                }
                _ => return Err(CliError::UnknownFlag(name)),
            },
            Arg::Positional(a) => files.push(a.into_string().map_err(|_| CliError::NotUnicodeArg)?),
        }
    }
    if files.is_empty() {
        return Err(CliError::Usage("no Amber file given".into()));
    }
    let mut opts = RunOptions { max_steps, shaders: BTreeMap::new(), ..RunOptions::default() };
    for (n, f) in &shaders {
        opts.shaders.insert(n.clone(), shader_module(f, env)?);
    }
    if backends.len() > 1 {
        return run_all(&files, &opts, &data, &backends, (force, &gpu_flags), json_out);
    }
    let backend = backends[0];
    let mut exec = backend.executor(force, &gpu_flags);
    let (mut passed, mut failed, mut errors, mut graphics) = (0usize, 0usize, 0usize, 0usize);
    let mut differing = 0usize;
    let mut items = Vec::new();
    let mut bar = Progress::new(files.len());
    // File `k`'s result, once `get` gives it: counted, then printed.
    let mut report = |k: usize, get: &mut dyn FnMut() -> (Verdict, u32, Vec<String>)| -> Result<(), CliError> {
        let f = &files[k];
        bar.show(k, f);
        let (v, checked, diffs) = get();
        let mut text = String::new();
        let mut item = match &v {
            Verdict::Pass => {
                passed += 1;
                let _ = writeln!(text, "pass   {f} ({checked} EXPECT)");
                json!({ "file": f, "verdict": "pass", "checked": checked })
            }
            Verdict::Fail(fs) => {
                failed += 1;
                let _ = writeln!(text, "fail   {f}");
                for e in fs {
                    let _ = writeln!(text, "  {f}:{}:{}: {}", e.line, e.col, e.message);
                }
                let list: Vec<Value> = fs.iter().map(located).collect();
                json!({ "file": f, "verdict": "fail", "checked": checked, "failures": list })
            }
            Verdict::Error(e) => {
                errors += 1;
                let _ = writeln!(text, "error  {f}:{}:{}: {}", e.line, e.col, e.message);
                json!({ "file": f, "verdict": "error", "error": located(e) })
            }
            Verdict::Graphics(e) => {
                graphics += 1;
                let _ = writeln!(text, "skip   {f}:{}:{}: {}", e.line, e.col, e.message);
                json!({ "file": f, "verdict": "graphics", "error": located(e) })
            }
            Verdict::Unreadable(m) => {
                errors += 1;
                let _ = writeln!(text, "error  {f}: {m}");
                json!({ "file": f, "verdict": "error", "error": { "message": m } })
            }
        };
        if !diffs.is_empty() {
            differing += 1;
            for d in &diffs {
                let _ = writeln!(text, "  {f}: differs from the interpreter: {d}");
            }
            item["differences"] = json!(diffs);
        }
        items.push(item);
        if !json_out {
            bar.clear();
            print_stdout(&text)?;
        }
        Ok(())
    };
    // The interpreter runs files on `jobs` threads (each file on one), the
    // results taken in the files' order; a GPU backend one file at a time.
    let jobs = match backend {
        Backend::Interp => jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).min(files.len()),
        #[allow(unreachable_patterns)]
        _ => 1,
    };
    if jobs > 1 {
        parallel(&files, &opts, &data, jobs, &mut report)?;
    } else {
        for (k, f) in files.iter().enumerate() {
            report(k, &mut || {
                let seen = exec.differences().len();
                let (v, checked) = run_file(f, &opts, &data, exec.as_dyn());
                (v, checked, exec.differences()[seen..].to_vec())
            })?;
        }
    }
    bar.clear();
    let total = files.len();
    let compared = exec.compared();
    if json_out {
        let mut summary = json!({ "total": total, "passed": passed, "failed": failed, "errors": errors, "graphics_not_run": graphics });
        if backend != Backend::Interp {
            summary["backend"] = json!(backend.name());
            summary["compared_dispatches"] = json!(compared);
            summary["files_differing"] = json!(differing);
        }
        let v = json!({ "files": items, "summary": summary });
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        print_stdout(&s)?;
    } else {
        let mut line = format!("{total} files: {passed} passed, {failed} failed, {errors} errors, {graphics} graphics (not run)");
        if backend != Backend::Interp {
            let _ = write!(line, " on {}; {compared} dispatches compared with the interpreter, {differing} files differ", backend.name());
        }
        line.push('\n');
        print_stdout(&line)?;
    }
    if passed == total { Ok(()) } else { Err(CliError::NotPassed { count: total - passed, total }) }
}

/// Run `files` on the interpreter on `jobs` threads, each taking the next
/// file not yet taken; `report` gets each result in the files' order, as
/// soon as it and those before it are done.
fn parallel(
    files: &[String],
    opts: &RunOptions,
    data: &[std::path::PathBuf],
    jobs: usize,
    report: &mut dyn FnMut(usize, &mut dyn FnMut() -> (Verdict, u32, Vec<String>)) -> Result<(), CliError>,
) -> Result<(), CliError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..jobs {
            let (tx, next) = (tx.clone(), &next);
            s.spawn(move || {
                let mut exec = Backend::Interp.executor(false, &GpuFlags::default());
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(f) = files.get(k) else { break };
                    let (v, checked) = run_file(f, opts, data, exec.as_dyn());
                    // The receiver is gone when printing failed: stop.
                    if tx.send((k, v, checked)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut done: BTreeMap<usize, (Verdict, u32)> = BTreeMap::new();
        for k in 0..files.len() {
            report(k, &mut || {
                while !done.contains_key(&k) {
                    match rx.recv() {
                        Ok((j, v, c)) => {
                            done.insert(j, (v, c));
                        }
                        // Every worker ended without it (one panicked: the
                        // scope passes the panic on).
                        Err(_) => break,
                    }
                }
                let (v, c) = done.remove(&k).unwrap_or_else(|| (Verdict::Unreadable(String::from("not run: a worker thread stopped")), 0));
                (v, c, Vec::new())
            })?;
        }
        Ok(())
    })
}

/// The verdict's word.
fn word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Pass => "pass",
        Verdict::Fail(_) => "fail",
        Verdict::Error(_) | Verdict::Unreadable(_) => "error",
        Verdict::Graphics(_) => "graphics",
    }
}

/// `--backend all`: each file on each backend, a table of the verdicts (a
/// row whose verdicts differ, or whose GPU buffers differ from the
/// interpreter's, is marked `<>`); exit 1 unless every cell passed.
fn run_all(files: &[String], opts: &RunOptions, data: &[std::path::PathBuf], backends: &[Backend], (force, gpu_flags): (bool, &GpuFlags), json_out: bool) -> Result<(), CliError> {
    let mut execs: Vec<(Backend, Exec)> = backends.iter().map(|b| (*b, b.executor(force, gpu_flags))).collect();
    let mut rows = Vec::new();
    let (mut all_pass, mut mismatches) = (0usize, 0usize);
    let mut bar = Progress::new(files.len());
    let mut text = String::new();
    let _ = write!(text, "{:<7}", "");
    for b in backends {
        let _ = write!(text, " {:<17}", b.name());
    }
    let _ = writeln!(text, " file");
    if !json_out {
        print_stdout(&text)?;
    }
    for (k, f) in files.iter().enumerate() {
        bar.show(k, f);
        let mut cells = Vec::new();
        let mut notes = Vec::new();
        let mut differs = false;
        for (b, exec) in execs.iter_mut() {
            let seen = exec.differences().len();
            let (v, _) = run_file(f, opts, data, exec.as_dyn());
            let diffs: Vec<String> = exec.differences()[seen..].to_vec();
            differs |= !diffs.is_empty();
            for d in &diffs {
                notes.push(format!("{}: differs from the interpreter: {d}", b.name()));
            }
            match &v {
                Verdict::Error(e) => notes.push(format!("{}: {}:{}: {}", b.name(), e.line, e.col, e.message)),
                Verdict::Fail(fs) => {
                    for e in fs {
                        notes.push(format!("{}: {}:{}: {}", b.name(), e.line, e.col, e.message));
                    }
                }
                _ => {}
            }
            cells.push(word(&v));
        }
        let same = cells.windows(2).all(|w| w[0] == w[1]) && !differs;
        if cells.iter().all(|c| *c == "pass") && !differs {
            all_pass += 1;
        }
        if !same {
            mismatches += 1;
        }
        let mut line = format!("{:<7}", if same { "" } else { "<>" });
        for c in &cells {
            let _ = write!(line, " {c:<17}");
        }
        let _ = writeln!(line, " {f}");
        for n in &notes {
            let _ = writeln!(line, "    {n}");
        }
        rows.push(json!({
            "file": f,
            "verdicts": backends.iter().zip(&cells).map(|(b, c)| (b.name().to_string(), json!(c))).collect::<serde_json::Map<_, _>>(),
            "same": same, "notes": notes,
        }));
        if !json_out {
            bar.clear();
            print_stdout(&line)?;
        }
    }
    bar.clear();
    let total = files.len();
    if json_out {
        let v = json!({ "files": rows, "summary": { "total": total, "all_passed": all_pass, "mismatched": mismatches } });
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        print_stdout(&s)?;
    } else {
        print_stdout(&format!("{total} files: {all_pass} passed on every backend, {mismatches} with backends that disagree (<>)\n"))?;
    }
    if all_pass == total { Ok(()) } else { Err(CliError::NotPassed { count: total - all_pass, total }) }
}

pub use crate::cmd::run::backend::{Backend, Exec, GpuFlags};

/// A one-line progress bar on stderr, for more than one file when stderr is a
/// terminal (or SPVLAB_PROGRESS=1; SPVLAB_PROGRESS=0 turns it off).
struct Progress {
    total: usize,
    on: bool,
    shown: bool,
}

impl Progress {
    fn new(total: usize) -> Progress {
        use std::io::IsTerminal;
        let on = match std::env::var("SPVLAB_PROGRESS").as_deref() {
            Ok("1") => true,
            Ok("0") => false,
            _ => total > 1 && std::io::stderr().is_terminal(),
        };
        Progress { total, on, shown: false }
    }

    /// `[#####     ] 12/667 name`, over the last bar.
    fn show(&mut self, done: usize, file: &str) {
        if !self.on {
            return;
        }
        const WIDTH: usize = 30;
        let filled = done * WIDTH / self.total.max(1);
        let name = file.rsplit('/').next().unwrap_or(file);
        let name: String = name.chars().take(40).collect();
        let line = format!("\r[{}{}] {done}/{} {name}\x1b[K", "#".repeat(filled), " ".repeat(WIDTH - filled), self.total);
        let _ = std::io::stderr().write_all(line.as_bytes());
        let _ = std::io::stderr().flush();
        self.shown = true;
    }

    /// Wipe the bar so that a result line can take its place.
    fn clear(&mut self) {
        if self.shown {
            let _ = std::io::stderr().write_all(b"\r\x1b[K");
            let _ = std::io::stderr().flush();
            self.shown = false;
        }
    }
}
