//! `spvlab reduce`: a finding of `spvlab fuzz` made small (core's
//! `flesh::reduce`), re-running its backend on every candidate; given a
//! campaign's folder, every finding in it, then sorted into classes
//! ([`campaign`]).

mod campaign;

use std::ffi::OsString;
use std::path::{Path as FsPath, PathBuf};

use serde_json::Value;
use spvlab_core::flesh::{self, Case, Options, Path, Skeleton};

use crate::args::{self, Parser};
use crate::cmd::fuzz::{Finding, Runner, signature, write_finding};
use crate::cmd::run::backend::{Backend, GpuFlags};
use crate::error::CliError;

pub const HELP: &str = "\
spvlab reduce: shrink a finding of `spvlab fuzz` into a small repro

Usage: spvlab reduce [options] <finding folder>
       spvlab reduce [options] <campaign folder>

Reads the folder's finding.json (written by `spvlab fuzz`), checks that its
backend still goes wrong on the program in the same way (the same wrong
output class, or the same kind of failure with the same message up to
numbers), then tries smaller programs: fewer invocations, shorter paths,
decisions made fixed, loops undone, switch cases dropped, dead blocks
removed, straight-line blocks merged. Each candidate is valid by
construction and checked by the validator, and is kept only if the backend
still goes wrong on it in the same way. The smallest is written like a
finding (program.spvasm, test.amber, link.txt, finding.json) to
<folder>/reduced, or --out.

Given a campaign's folder (one with findings.jsonl), it reduces every
finding listed there that has no reduce.json yet (so a stopped run goes on
where it stopped), writing each one's reduced folder and reduce.json (what
happened), then sorts the reduced findings into classes: the backend, the
kind, the failure's message up to numbers, and the reduced CFG's structural
traits (a merge block that heads a loop, a switch case sharing the
default's target, a fallthrough, a premerge block, unreachable merge
blocks and blocks, a wrong output running a block nothing branches to).
The classes go to classes.json and classes.md in the campaign's folder and
to standard output, largest first, each with its smallest repro.

Options:
  --max-tries <n>      At most <n> candidate runs per finding (default 2000).
  --out <dir>          Where the reduced finding goes (one finding only).
  --jobs <n>           Findings reduced at once (a campaign; default 2).
  --again              Reduce a campaign's findings again, reduced or not.
  --gpu-timeout <s>    How long one GPU dispatch may take (default 10).
  --in-process         Run GPU dispatches in this process.
  -h, --help           Print this help.

Exit status: 0 reduced (a campaign: every finding it read reduced or found
not to reproduce), 1 the finding does not reproduce or cannot be read, 2
bad usage.
";

/// How to reduce.
#[derive(Clone)]
pub(crate) struct Settings {
    pub max_tries: u32,
    pub gpu: GpuFlags,
}

/// What reducing one finding did.
pub(crate) struct Summary {
    /// Blocks and path blocks, before and after.
    pub before: (usize, usize),
    pub after: (usize, usize),
    pub tried: u32,
    pub kept: u32,
    pub kind: String,
    pub backend: String,
}

/// Why a finding was not reduced.
pub(crate) enum NotReduced {
    /// Its backend no longer goes wrong the same way: what it does now (a
    /// finding's kind and message signature, or `a pass`), and the message.
    Gone { now: String, message: String },
    /// It cannot be read or its reduction cannot be written.
    Broken(String),
}

impl NotReduced {
    pub fn message(&self) -> &str {
        match self {
            NotReduced::Gone { message: m, .. } | NotReduced::Broken(m) => m,
        }
    }
}

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut settings = Settings { max_tries: 2000, gpu: GpuFlags::default() };
    let mut out: Option<PathBuf> = None;
    let mut jobs = 2usize;
    let mut again = false;
    let flag = |p: &mut Parser, name: String, inline: Option<OsString>| {
        match name.as_str() {
            "--max-tries" => settings.max_tries = p.number("--max-tries", inline)?,
            "--out" => out = Some(PathBuf::from(p.value("--out", inline)?)),
            "--jobs" => jobs = p.number::<usize>("--jobs", inline)?.max(1),
            "--again" => again = true,
            "--in-process" | "--gpu-timeout" => settings.gpu.parse(p, &name, inline)?,
            _ => return Err(CliError::UnknownFlag(name)),
        }
        Ok(())
    };
    let Some(common) = args::parse(args, HELP, None, false, flag)? else {
        return Ok(());
    };
    let Some(input) = common.input else {
        return Err(CliError::Usage("reduce needs the folder of a finding or of a campaign".into()));
    };
    let dir = PathBuf::from(input.display_name());
    if dir.join("findings.jsonl").is_file() {
        if out.is_some() {
            return Err(CliError::Usage("--out is for one finding; a campaign's reductions go in each finding's folder".into()));
        }
        return campaign::run(&dir, &settings, jobs, again);
    }
    let name = dir.display().to_string();
    let to = out.unwrap_or_else(|| dir.join("reduced"));
    match reduce_one(&dir, &to, &settings) {
        Ok(s) => {
            println!("spvlab reduce: {name}: {}; written to {}", s.describe(), to.display());
            Ok(())
        }
        Err(e) => {
            eprintln!("spvlab reduce: {name}: {}", e.message());
            Err(CliError::Failed { path: name, count: 1 })
        }
    }
}

impl Summary {
    pub fn describe(&self) -> String {
        format!(
            "{} blocks and {} path blocks -> {} and {} ({} candidates run, {} kept); {} on {} kept",
            self.before.0, self.before.1, self.after.0, self.after.1, self.tried, self.kept, self.kind, self.backend
        )
    }
}

/// The finding in `dir` reduced, written to `to`.
pub(crate) fn reduce_one(dir: &FsPath, to: &FsPath, settings: &Settings) -> Result<Summary, NotReduced> {
    let broken = NotReduced::Broken;
    let file = dir.join("finding.json");
    let text = std::fs::read_to_string(&file).map_err(|e| broken(format!("cannot read {}: {e}", file.display())))?;
    let data: Value = serde_json::from_str(&text).map_err(|e| broken(format!("finding.json is not JSON: {e}")))?;
    let field = |k: &str| data.get(k).cloned().ok_or_else(|| broken(format!("finding.json has no `{k}`")));
    let parse = |k: &str, e: serde_json::Error| broken(format!("finding.json: `{k}`: {e}"));
    let skeleton: Skeleton = serde_json::from_value(field("skeleton")?).map_err(|e| parse("skeleton", e))?;
    let paths: Vec<Path> = serde_json::from_value(field("paths")?).map_err(|e| parse("paths", e))?;
    let opts: Options = serde_json::from_value(field("options")?).map_err(|e| parse("options", e))?;
    let text_of = |k: &str| -> Result<String, NotReduced> {
        field(k)?.as_str().map(String::from).ok_or_else(|| broken(format!("`{k}` is not a string")))
    };
    let kind = text_of("finding")?;
    let backend_name = text_of("backend")?;
    let recorded = data.get("error").and_then(Value::as_str).map(signature).unwrap_or_default();
    let backend = match Backend::parse_list(&backend_name).map_err(|e| broken(e.to_string()))?.as_slice() {
        [b] => *b,
        _ => return Err(broken(format!("`{backend_name}` is not one backend"))),
    };
    if paths.is_empty() || skeleton.blocks.is_empty() {
        return Err(broken("the finding has no blocks or no path".into()));
    }
    let mut runner = Runner::new(settings.gpu.clone());
    let original = flesh::flesh_paths(&skeleton, &opts, paths.clone());
    let mut last = runner.outcome(backend, &original);
    if !last.same_way(&kind, &recorded) {
        let now = match (last.finding(), &last) {
            (Some(k), crate::cmd::fuzz::Outcome::Failed { message, .. }) => format!("{k} ({})", signature(message)),
            (Some(k), _) => k,
            (None, _) => "a pass".into(),
        };
        let message = format!("{backend_name} no longer goes wrong the same way on it ({kind} recorded, {now} now)");
        return Err(NotReduced::Gone { now, message });
    }
    let case = Case { skeleton, paths };
    let size = |c: &Case| (c.skeleton.blocks.len(), c.paths.iter().map(|p| p.blocks.len()).sum::<usize>());
    let before = size(&case);
    // The outcome of the last candidate kept is the reduced program's.
    let r = flesh::reduce(case, &opts, settings.max_tries, |f| {
        let o = runner.outcome(backend, f);
        let same = o.same_way(&kind, &recorded);
        if same {
            last = o;
        }
        same
    });
    let finding = Finding { case: None, campaign_seed: None, skeleton: &r.case.skeleton, opts: &opts, backend: &backend_name };
    write_finding(to, &finding, &r.program, &last).map_err(|e| broken(e.to_string()))?;
    Ok(Summary { before, after: size(&r.case), tried: r.tried, kept: r.kept, kind, backend: backend_name })
}
