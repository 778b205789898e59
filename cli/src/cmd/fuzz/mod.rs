//! `spvlab fuzz`: a differential campaign of fleshed programs (the paper's
//! section 6): random structured CFGs fleshed into programs whose output is
//! known, run on each backend; every wrong output, error or hang is a
//! finding, written with its program, inputs, AmberScript test and share
//! link.

mod progress;
mod runner;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;
use spvlab_core::flesh::{self, Config, FleshError, Fleshed, Knobs, Mode, Options};

use crate::args::{self, Parser};
use crate::cmd::run::backend::{Backend, GpuFlags};
use crate::error::CliError;
use progress::{Meter, State, Tally};
pub(crate) use runner::{Outcome, Runner, signature};
use runner::{Planted, Prepared, Program};

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
shards merge by concatenating their files. Each finding is written as it is
found, and progress.json under --out records the cases done (after a batch,
at most once a second), so that a campaign stopped halfway (Ctrl+C, a
killed shard) goes on with --resume.
With --batch N, N programs run as one module and one dispatch (workgroup k
runs program k); a batch that writes a wrong path, fails or hangs is split
until each finding is one program, run as itself.
A program our WGSL lowering refuses has no finding; one that naga rejects
does (refused, in the closing table).
Progress goes to stderr: a bar with the throughput on a terminal, else a
line every 5 seconds. The run ends with a table of findings by backend and
kind (mismatch, crash, hang, device lost, refused, other).

Options:
  --count <n>          Cases (default 100).
  --seed <s>           The campaign's seed (default 1): case i is the same
                       for the same seed, whatever the shard.
  --blocks <n>         About how many blocks per CFG (default 14).
  --depth <d>          The deepest nesting (default 4).
  --paper              The paper's shape constraints (see gen-cfg --help).
  --mode <m>           basic, phi, multi or all (default all: in turn).
  --max-len <n>        Path bound, as for flesh (default 30).
  --invocations <n>    Invocations of a multi-mode program, 1 to 256, each
                       on its own path (default 4): one compile and one
                       dispatch check n paths.
  --backends <list>    Comma-separated: interp, wgpu, wgpu-naga,
                       wgpu-passthrough, or all (default interp).
  --shard <i>/<n>      Run only the cases i, i+n, i+2n, ... (0 <= i < n).
  --out <dir>          Where findings go (default fuzz-findings).
  --batch <n>          Programs per batch (default 1: each alone; on
                       lavapipe a batch compiles slower than its programs
                       one by one).
  --resume             Go on with the campaign recorded in --out (same
                       options): the cases not yet done.
  --gpu-timeout <s>    How long one GPU dispatch may take (default 2).
  --in-process         Run GPU dispatches in this process.
  -h, --help           Print this help.

Exit status: 0 no findings, 1 findings, 2 bad usage.
";

struct Campaign {
    count: u64,
    batch: u64,
    resume: bool,
    seed: u64,
    cfg: Config,
    mode: Option<Mode>,
    /// Invocations of a multi-mode program, each on its own path.
    invocations: u32,
    max_len: usize,
    backends: Vec<Backend>,
    shard: (u64, u64),
    out: PathBuf,
    gpu: GpuFlags,
}

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut c = Campaign {
        count: 100,
        // lavapipe compiles a batch of k programs in more than k times one
        // program's time: one at a time is fastest there.
        batch: 1,
        resume: false,
        seed: 1,
        cfg: Config { blocks: 14, max_depth: 4, ..Config::default() },
        mode: None,
        invocations: Options::default().invocations,
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
            "--batch" => {
                c.batch = p.number("--batch", inline)?;
                if c.batch == 0 {
                    return Err(CliError::Usage("--batch takes a number of programs, at least 1".into()));
                }
            }
            "--resume" => {
                args::no_value("--resume", &inline)?;
                c.resume = true;
            }
            "--seed" => c.seed = p.number("--seed", inline)?,
            "--blocks" => c.cfg.blocks = p.number("--blocks", inline)?,
            "--depth" => c.cfg.max_depth = p.number("--depth", inline)?,
            "--max-len" => c.max_len = p.number("--max-len", inline)?,
            "--invocations" => {
                c.invocations = p.number("--invocations", inline)?;
                if !(1..=256).contains(&c.invocations) {
                    return Err(CliError::Usage("--invocations takes 1 to 256 (one workgroup)".into()));
                }
            }
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

/// Test hooks (`SPVLAB_FUZZ_TEST`, comma-separated): `wrong:CASE` and
/// `fail:CASE` plant a finding of the interpreter in a case, `stop:B` ends
/// the process (as a kill would) in batch B, after its findings are written
/// and before its progress is.
const TEST_HOOK: &str = "SPVLAB_FUZZ_TEST";

fn test_hooks() -> (Planted, Option<u64>) {
    let (mut planted, mut stop) = (Planted::default(), None);
    for item in std::env::var(TEST_HOOK).unwrap_or_default().split(',') {
        match item.split_once(':').map(|(k, v)| (k, v.parse::<u64>())) {
            Some(("wrong", Ok(n))) => planted.wrong.push(n),
            Some(("fail", Ok(n))) => planted.fail.push(n),
            Some(("stop", Ok(n))) => stop = Some(n),
            _ => {}
        }
    }
    (planted, stop)
}

/// The options that decide which programs a campaign runs, and where.
fn params(c: &Campaign) -> serde_json::Value {
    json!({
        "count": c.count, "seed": c.seed, "blocks": c.cfg.blocks, "depth": c.cfg.max_depth,
        "paper": c.cfg.knobs == Knobs::paper(), "mode": c.mode.map(Mode::name), "maxLen": c.max_len,
        "invocations": c.invocations,
        "backends": c.backends.iter().map(|b| b.name()).collect::<Vec<_>>(),
        "shard": [c.shard.0, c.shard.1],
    })
}

/// Keeps the lines of findings.jsonl under `out` of cases before `next`
/// (a campaign stopped in a batch may have written some of its findings;
/// that batch runs again): what a resumed campaign starts from.
fn keep_findings_before(out: &std::path::Path, next: u64) -> Result<(), CliError> {
    let path = out.join("findings.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(()) };
    let kept: String = text
        .lines()
        .filter(|l| {
            serde_json::from_str::<serde_json::Value>(l).ok().and_then(|v| v["case"].as_u64()).is_some_and(|c| c < next)
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let tmp = out.join("findings.jsonl.tmp");
    let err = |err| CliError::Write { path: path.clone(), err };
    std::fs::write(&tmp, kept).map_err(err)?;
    std::fs::rename(&tmp, &path).map_err(err)
}

/// Program `i` of the campaign, or `None` when its CFG has no path to a
/// return.
fn program(c: &Campaign, i: u64) -> Result<Option<Program>, CliError> {
    let seed = case_seed(c.seed, i);
    let mode = c.mode.unwrap_or(MODES[(i % 3) as usize]);
    let (skeleton, _) = flesh::generate(seed, c.cfg);
    let opts = Options { seed, mode, max_len: c.max_len, invocations: c.invocations };
    match flesh::flesh(&skeleton, &opts) {
        Ok(fleshed) => Ok(Some(Program { case: i, skeleton, opts, fleshed })),
        Err(FleshError::NoExit { .. }) => Ok(None),
        Err(e) => Err(CliError::Usage(format!("case {i}: {e}"))),
    }
}

fn campaign(c: &Campaign) -> Result<(), CliError> {
    let start = Instant::now();
    let (planted, stop) = test_hooks();
    let params = params(c);
    let fresh = State { params: params.clone(), next: c.shard.0, tallies: vec![Tally::default(); c.backends.len()], ..State::default() };
    let mut state = if c.resume {
        // A campaign stopped in its first batch recorded nothing: it starts over.
        let s = if State::file(&c.out).exists() {
            State::load(&c.out, &params).map_err(|m| CliError::Usage(format!("--resume: {m}")))?
        } else {
            fresh
        };
        keep_findings_before(&c.out, s.next)?;
        s
    } else {
        fresh
    };
    let mut runner = Runner::new(c.gpu.clone());
    runner.planted = planted;
    let names: Vec<&str> = c.backends.iter().map(|b| b.name()).collect();
    let step = c.shard.1;
    let in_shard = |from: u64| c.count.saturating_sub(from).div_ceil(step);
    let total = in_shard(c.shard.0);
    let before = total - in_shard(state.next);
    let mut meter = Meter::new(total);
    let mut batches = 0u64;
    let mut saved: Option<Instant> = None;
    while state.next < c.count {
        let made = Instant::now();
        let mut programs = Vec::new();
        let mut i = state.next;
        while i < c.count && (programs.len() as u64) < c.batch {
            match program(c, i)? {
                Some(p) => programs.push(p),
                None => state.no_exit += 1,
            }
            i += step;
        }
        state.making += made.elapsed().as_secs_f64();
        state.cases += programs.len() as u64;
        state.paths += programs.iter().map(|p| p.fleshed.paths.len() as u64).sum::<u64>();
        if programs.is_empty() {
            state.next = i;
            continue;
        }
        let refs: Vec<&Program> = programs.iter().collect();
        let planned = Instant::now();
        let prepared = Prepared::of(&refs);
        state.planning += planned.elapsed().as_secs_f64();
        for (b, tally) in c.backends.iter().zip(&mut state.tallies) {
            if tally.unavailable.is_some() {
                continue;
            }
            let ran = Instant::now();
            let outcomes = runner.judge(*b, &refs, &prepared);
            tally.secs += ran.elapsed().as_secs_f64();
            for (p, outcome) in programs.iter().zip(&outcomes) {
                if !tally.count(outcome) {
                    continue;
                }
                state.findings += 1;
                let finding =
                    Finding { case: Some(p.case), campaign_seed: Some(c.seed), skeleton: &p.skeleton, opts: &p.opts, backend: b.name() };
                let folder = format!("case-{}-{}", p.case, b.name());
                let mut data = write_finding(&c.out.join(&folder), &finding, &p.fleshed, outcome)?;
                // One line per finding: shards' findings.jsonl merge by concatenation.
                data["folder"] = folder.into();
                append_line(&c.out.join("findings.jsonl"), &data.to_string())?;
            }
        }
        batches += 1;
        if stop == Some(batches) {
            std::process::exit(130);
        }
        state.next = i;
        state.batch_only = runner.batch_only;
        // After the first batch, then at most once a second (a kill loses
        // less than a second's work, which --resume runs again).
        if saved.is_none_or(|t| t.elapsed() >= std::time::Duration::from_secs(1)) {
            state.save(&c.out, start.elapsed().as_secs_f64())?;
            saved = Some(Instant::now());
        }
        meter.show(total - in_shard(state.next), before, state.findings, false);
    }
    state.save(&c.out, start.elapsed().as_secs_f64())?;
    meter.show(total, before, state.findings, true);
    let secs = state.wall + start.elapsed().as_secs_f64();
    let rate = |n: u64, secs: f64| n as f64 / secs.max(1e-9);
    let State { cases, paths, no_exit, findings, making, planning, .. } = state;
    if findings == 0 {
        // A clean campaign leaves nothing behind (its folder too, if empty).
        let _ = std::fs::remove_file(State::file(&c.out));
        let _ = std::fs::remove_dir(&c.out);
    }
    println!(
        "spvlab fuzz: {cases} programs fleshed, {paths} paths ({no_exit} CFGs without a path to a return skipped) in {secs:.2} s; \
         generating and fleshing {making:.2} s, {:.0} programs/s; batching, validating and planning {planning:.2} s",
        rate(cases, making)
    );
    for (name, t) in names.iter().zip(&state.tallies) {
        match &t.unavailable {
            Some(m) => println!("  {name:<17} not run: {m}"),
            None => println!(
                "  {name:<17} {} passed, {} wrong output, {} failed, {} refused; {:.2} s, {:.0} programs/s",
                t.passed,
                t.wrong,
                t.failed,
                t.refused,
                t.secs,
                rate(t.passed + t.wrong + t.failed + t.refused, t.secs)
            ),
        }
    }
    print!("{}", progress::table(&names, &state.tallies));
    if state.batch_only > 0 {
        println!("{} batches went wrong where none of their programs does alone", state.batch_only);
    }
    if findings > 0 {
        println!("{findings} findings in {}", c.out.display());
        return Err(CliError::Failed { path: c.out.display().to_string(), count: findings as usize });
    }
    Ok(())
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
