//! `spvlab fuzz`: a differential campaign of fleshed programs (the paper's
//! section 6): random structured CFGs fleshed into programs whose output is
//! known, run on each backend; every wrong output, error or hang is a
//! finding, written with its program, inputs, AmberScript test and share
//! link.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;
use spvlab_core::analysis::Analysis;
use spvlab_core::flesh::{self, Config, FleshError, Fleshed, Knobs, Mode, Options};
use spvlab_core::interp::{self, Buffers};
use spvlab_core::plan::{Inputs, Plan};
use spvlab_core::{TargetEnv, valid};

use crate::args::{self, Parser};
use crate::cmd::run::backend::{self, Backend, Failure, GpuFlags};
use crate::error::CliError;

pub const HELP: &str = "\
spvlab fuzz: a differential campaign of fleshed random CFGs on each backend

Usage: spvlab fuzz [options]

Case i draws a random structured CFG (as `spvlab gen-cfg`), fleshes it into a
program that records its path (as `spvlab flesh`), and runs it on each
backend. The expected output comes from the CFG, so a backend that writes
another path, fails or hangs has a finding: its folder under --out holds the
program (program.spvasm), an AmberScript test (test.amber), the page's share
link (link.txt: append it to the playground's address) and finding.json
(case, seed, mode, backend, directions, expected and actual output, error);
each is also one line of findings.jsonl under --out, so that the findings of
shards merge by concatenating their files.
A backend that refuses a program (our WGSL lowering, naga) has no finding.

Options:
  --count <n>          Cases (default 100).
  --seed <s>           The campaign's seed (default 1): case i is the same
                       for the same seed, whatever the shard.
  --blocks <n>         About how many blocks per CFG (default 14).
  --depth <d>          The deepest nesting (default 4).
  --paper              The paper's shape constraints (see gen-cfg --help).
  --mode <m>           basic, phi, multi or all (default all: in turn).
  --max-len <n>        Path bound, as for flesh (default 30).
  --backends <list>    Comma-separated: interp, wgpu, wgpu-naga,
                       wgpu-passthrough, or all (default interp).
  --shard <i>/<n>      Run only the cases i, i+n, i+2n, ... (0 <= i < n).
  --out <dir>          Where findings go (default fuzz-findings).
  --gpu-timeout <s>    How long one GPU dispatch may take (default 2).
  --in-process         Run GPU dispatches in this process.
  -h, --help           Print this help.

Exit status: 0 no findings, 1 findings, 2 bad usage.
";

struct Campaign {
    count: u64,
    seed: u64,
    cfg: Config,
    mode: Option<Mode>,
    max_len: usize,
    backends: Vec<Backend>,
    shard: (u64, u64),
    out: PathBuf,
    gpu: GpuFlags,
}

/// What one backend did with the cases.
#[derive(Default)]
struct Tally {
    /// Seconds spent running the programs.
    secs: f64,
    passed: u64,
    wrong: u64,
    failed: u64,
    refused: u64,
    /// Why the backend did not run (no device), once.
    unavailable: Option<String>,
}

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut c = Campaign {
        count: 100,
        seed: 1,
        cfg: Config { blocks: 14, max_depth: 4, ..Config::default() },
        mode: None,
        max_len: 30,
        backends: vec![Backend::Interp],
        shard: (0, 1),
        out: PathBuf::from("fuzz-findings"),
        // A dispatch on lavapipe takes milliseconds; a miscompiled program
        // that loops for ever should not hold a campaign for long.
        gpu: GpuFlags { timeout: std::time::Duration::from_secs(2), ..GpuFlags::default() },
    };
    let flag = |p: &mut Parser, name: String, inline: Option<OsString>| {
        match name.as_str() {
            "--count" => c.count = p.number("--count", inline)?,
            "--seed" => c.seed = p.number("--seed", inline)?,
            "--blocks" => c.cfg.blocks = p.number("--blocks", inline)?,
            "--depth" => c.cfg.max_depth = p.number("--depth", inline)?,
            "--max-len" => c.max_len = p.number("--max-len", inline)?,
            "--paper" => {
                args::no_value("--paper", &inline)?;
                c.cfg.knobs = Knobs::paper();
            }
            "--mode" => {
                let v = p.text_value("--mode", inline)?;
                c.mode = match v.as_str() {
                    "all" => None,
                    m => Some(Mode::parse(m).ok_or_else(|| CliError::UnknownFlag(format!("--mode {v}")))?),
                };
            }
            "--backends" => {
                let v = p.text_value("--backends", inline)?;
                let mut list = Vec::new();
                for b in v.split(',') {
                    for b in Backend::parse_list(b.trim())? {
                        if !list.contains(&b) {
                            list.push(b);
                        }
                    }
                }
                c.backends = list;
            }
            "--shard" => {
                let v = p.text_value("--shard", inline)?;
                let bad = || CliError::Usage(format!("--shard takes I/N with 0 <= I < N, not `{v}`"));
                let (i, n) = v.split_once('/').ok_or_else(bad)?;
                let (i, n): (u64, u64) = (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
                if n == 0 || i >= n {
                    return Err(bad());
                }
                c.shard = (i, n);
            }
            "--out" => c.out = PathBuf::from(p.value("--out", inline)?),
            "--in-process" | "--gpu-timeout" => c.gpu.parse(p, &name, inline)?,
            _ => return Err(CliError::UnknownFlag(name)),
        }
        Ok(())
    };
    let Some(common) = args::parse(args, HELP, None, false, flag)? else {
        return Ok(());
    };
    if common.input.is_some() {
        return Err(CliError::Usage("fuzz reads no input: it generates its cases".into()));
    }
    campaign(&c)
}

/// The seed of case `i` of a campaign seeded `seed` (SplitMix64's mix).
fn case_seed(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i.wrapping_add(0x632b_e59b_d9b4_e019);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const MODES: [Mode; 3] = [Mode::Basic, Mode::Phi, Mode::Multi];

/// What one backend did with one fleshed program.
#[derive(Clone)]
pub(crate) enum Outcome {
    /// It wrote the expected path.
    Pass,
    /// It wrote this instead.
    Wrong(Vec<u32>),
    /// It failed: `class` names how (`interp`, or the GPU error's kind), for
    /// telling one failure from another.
    Failed { class: String, message: String },
    /// It refused the program (not a finding).
    Refused,
    /// It cannot run here (no device).
    Unavailable(String),
}

impl Outcome {
    /// A finding's kind: `wrong` or `failed:CLASS`; `None` when no finding.
    pub(crate) fn finding(&self) -> Option<String> {
        match self {
            Outcome::Wrong(_) => Some("wrong".into()),
            Outcome::Failed { class, .. } => Some(format!("failed:{class}")),
            _ => None,
        }
    }
}

/// Runs fleshed programs on the backends, keeping one GPU process.
pub(crate) struct Runner {
    pub gpu: GpuFlags,
    #[cfg(feature = "gpu")]
    process: crate::cmd::run::child::GpuProcess,
}

impl Runner {
    pub(crate) fn new(gpu: GpuFlags) -> Runner {
        Runner {
            gpu,
            #[cfg(feature = "gpu")]
            process: crate::cmd::run::child::GpuProcess::new(),
        }
    }

    /// `f` on backend `b`, against its expected output.
    pub(crate) fn outcome(&mut self, b: Backend, f: &Fleshed) -> Outcome {
        match ready(f) {
            Ok(r) => self.run(b, f, &r),
            Err(o) => o,
        }
    }

    /// `f`, made ready as `r`, on backend `b`, against its expected output.
    fn run(&mut self, b: Backend, f: &Fleshed, r: &Ready) -> Outcome {
        let (a, plan) = (&r.analysis, &r.plan);
        let result: Result<Buffers, Failure> = match b {
            Backend::Interp => {
                let mut bufs = plan.buffers.clone();
                interp::run(&plan.ir, &plan.options, &mut bufs).map(|_| bufs).map_err(|err| Failure::Interp {
                    unsupported: false,
                    text: a.run_error_message(&err),
                    error: serde_json::Value::Null,
                })
            }
            #[cfg(feature = "gpu")]
            Backend::Gpu(g) => backend::run_gpu(&self.gpu, g, plan, "fleshed", &mut self.process),
        };
        match result {
            Ok(bufs) => {
                let actual = words(bufs.get(&(0, 1)).map_or(&[][..], |v| v));
                if actual == f.expected { Outcome::Pass } else { Outcome::Wrong(actual) }
            }
            Err(Failure::NoDevice { message, .. }) => Outcome::Unavailable(message),
            Err(e) if e.is_refusal() => Outcome::Refused,
            Err(e) => Outcome::Failed { class: e.class().into(), message: e.to_string() },
        }
    }
}

/// A fleshed program's analysis and run plan, made once for every backend.
struct Ready {
    analysis: Analysis,
    plan: Plan,
}

/// `f` made ready to run; an `Outcome::Failed` when it cannot be (the
/// fleshed program is ours: that is a finding against spvlab).
fn ready(f: &Fleshed) -> Result<Ready, Outcome> {
    let analysis = Analysis::of_text(&f.text, &valid::Options { env: TargetEnv::Spv1_4, ..valid::Options::default() });
    let inputs = Inputs { buffers: f.buffer_inputs(), ..Inputs::default() };
    match Plan::new(&analysis, &inputs) {
        Ok(plan) => Ok(Ready { analysis, plan }),
        Err(e) => Err(Outcome::Failed { class: "plan".into(), message: format!("the fleshed program does not run: {e:?}") }),
    }
}

fn campaign(c: &Campaign) -> Result<(), CliError> {
    let start = Instant::now();
    let mut tallies: Vec<Tally> = c.backends.iter().map(|_| Tally::default()).collect();
    let mut runner = Runner::new(c.gpu.clone());
    let (mut cases, mut no_exit, mut findings) = (0u64, 0u64, 0u64);
    let mut making = 0f64;
    for i in (c.shard.0..c.count).step_by(c.shard.1 as usize) {
        let made = Instant::now();
        let seed = case_seed(c.seed, i);
        let mode = c.mode.unwrap_or(MODES[(i % 3) as usize]);
        let (skeleton, _) = flesh::generate(seed, c.cfg);
        let opts = Options { seed, mode, max_len: c.max_len, ..Options::default() };
        let f = match flesh::flesh(&skeleton, &opts) {
            Ok(f) => f,
            Err(FleshError::NoExit { .. }) => {
                no_exit += 1;
                continue;
            }
            Err(e) => return Err(CliError::Usage(format!("case {i}: {e}"))),
        };
        cases += 1;
        let prepared = ready(&f);
        making += made.elapsed().as_secs_f64();
        for (b, tally) in c.backends.iter().zip(&mut tallies) {
            if tally.unavailable.is_some() {
                continue;
            }
            let ran = Instant::now();
            let outcome = match &prepared {
                Ok(r) => runner.run(*b, &f, r),
                Err(o) => o.clone(),
            };
            tally.secs += ran.elapsed().as_secs_f64();
            match &outcome {
                Outcome::Pass => tally.passed += 1,
                Outcome::Wrong(_) => tally.wrong += 1,
                Outcome::Failed { .. } => tally.failed += 1,
                Outcome::Refused => tally.refused += 1,
                Outcome::Unavailable(m) => tally.unavailable = Some(m.clone()),
            }
            if outcome.finding().is_some() {
                findings += 1;
                let finding = Finding { case: Some(i), campaign_seed: Some(c.seed), skeleton: &skeleton, opts: &opts, backend: b.name() };
                let folder = format!("case-{i}-{}", b.name());
                let mut data = write_finding(&c.out.join(&folder), &finding, &f, &outcome)?;
                // One line per finding: shards' findings.jsonl merge by concatenation.
                data["folder"] = folder.into();
                append_line(&c.out.join("findings.jsonl"), &data.to_string())?;
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let rate = |n: u64, secs: f64| n as f64 / secs.max(1e-9);
    println!(
        "spvlab fuzz: {cases} programs fleshed ({no_exit} CFGs without a path to a return skipped) in {secs:.2} s; \
         generating, fleshing and planning {making:.2} s, {:.0} programs/s",
        rate(cases, making)
    );
    for (b, t) in c.backends.iter().zip(&tallies) {
        match &t.unavailable {
            Some(m) => println!("  {:<17} not run: {m}", b.name()),
            None => println!(
                "  {:<17} {} passed, {} wrong output, {} failed, {} refused; {:.2} s, {:.0} programs/s",
                b.name(),
                t.passed,
                t.wrong,
                t.failed,
                t.refused,
                t.secs,
                rate(t.passed + t.wrong + t.failed + t.refused, t.secs)
            ),
        }
    }
    if findings > 0 {
        println!("{findings} findings in {}", c.out.display());
        return Err(CliError::Failed { path: c.out.display().to_string(), count: findings as usize });
    }
    Ok(())
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
}

/// Where a finding came from: enough to reproduce and reduce it.
pub(crate) struct Finding<'a> {
    pub case: Option<u64>,
    pub campaign_seed: Option<u64>,
    pub skeleton: &'a flesh::Skeleton,
    pub opts: &'a Options,
    pub backend: &'a str,
}

/// Appends `line` and a newline to the file at `path`.
fn append_line(path: &std::path::Path, line: &str) -> Result<(), CliError> {
    use std::io::Write;
    let err = |err| CliError::Write { path: path.to_path_buf(), err };
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(err)?;
    writeln!(file, "{line}").map_err(err)
}

/// A finding's folder `dir`: the program, its Amber test, its share link,
/// and finding.json (what happened, and the skeleton and paths that
/// `spvlab reduce` starts from); gives finding.json's data.
pub(crate) fn write_finding(
    dir: &std::path::Path,
    finding: &Finding,
    f: &Fleshed,
    outcome: &Outcome,
) -> Result<serde_json::Value, CliError> {
    let write = |name: &str, bytes: &[u8]| -> Result<(), CliError> {
        let p: PathBuf = dir.join(name);
        std::fs::write(&p, bytes).map_err(|err| CliError::Write { path: p, err })
    };
    std::fs::create_dir_all(dir).map_err(|err| CliError::Write { path: dir.to_path_buf(), err })?;
    write("program.spvasm", f.text.as_bytes())?;
    write("test.amber", f.amber().as_bytes())?;
    let link = format!("#{}\n", spvlab_core::share::encode(&f.share_state()));
    write("link.txt", link.as_bytes())?;
    let (actual, error) = match outcome {
        Outcome::Wrong(a) => (Some(a.as_slice()), None),
        Outcome::Failed { message, .. } => (None, Some(message.as_str())),
        _ => (None, None),
    };
    let data = json!({
        "case": finding.case,
        "campaignSeed": finding.campaign_seed,
        "backend": finding.backend,
        "finding": outcome.finding(),
        "mode": f.mode.name(),
        "options": finding.opts,
        "directions": f.directions,
        "expected": f.expected,
        "actual": actual,
        "error": error,
        "skeleton": finding.skeleton,
        "paths": f.paths,
    });
    let mut text = serde_json::to_string_pretty(&data).unwrap_or_default();
    text.push('\n');
    write("finding.json", text.as_bytes())?;
    eprintln!("finding: {} ({}: {})", dir.display(), finding.backend, outcome.finding().unwrap_or_default());
    Ok(data)
}
