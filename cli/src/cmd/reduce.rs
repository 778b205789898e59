//! `spvlab reduce`: a finding of `spvlab fuzz` made small (core's
//! `flesh::reduce`), re-running its backend on every candidate.

use std::ffi::OsString;
use std::path::PathBuf;

use serde_json::Value;
use spvlab_core::flesh::{self, Case, Options, Path, Skeleton};

use crate::args::{self, Parser};
use crate::cmd::fuzz::{Finding, Runner, write_finding};
use crate::cmd::run::backend::{Backend, GpuFlags};
use crate::error::CliError;

pub const HELP: &str = "\
spvlab reduce: shrink a finding of `spvlab fuzz` into a small repro

Usage: spvlab reduce [options] <finding folder>

Reads the folder's finding.json (written by `spvlab fuzz`), checks that its
backend still goes wrong on the program in the same way (the same wrong
output class or the same kind of failure), then tries smaller programs:
fewer invocations, shorter paths, decisions made fixed, loops undone,
switch cases dropped, dead blocks removed, straight-line blocks merged. Each
candidate is valid by construction and checked by the validator, and is
kept only if the backend still goes wrong on it in the same way. The
smallest is written like a finding (program.spvasm, test.amber, link.txt,
finding.json) to <folder>/reduced, or --out.

Options:
  --max-tries <n>      At most <n> candidate runs (default 2000).
  --out <dir>          Where the reduced finding goes.
  --gpu-timeout <s>    How long one GPU dispatch may take (default 10).
  --in-process         Run GPU dispatches in this process.
  -h, --help           Print this help.

Exit status: 0 reduced, 1 the finding does not reproduce or cannot be read,
2 bad usage.
";

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut max_tries = 2000u32;
    let mut out: Option<PathBuf> = None;
    let mut gpu = GpuFlags::default();
    let flag = |p: &mut Parser, name: String, inline: Option<OsString>| {
        match name.as_str() {
            "--max-tries" => max_tries = p.number("--max-tries", inline)?,
            "--out" => out = Some(PathBuf::from(p.value("--out", inline)?)),
            "--in-process" | "--gpu-timeout" => gpu.parse(p, &name, inline)?,
            _ => return Err(CliError::UnknownFlag(name)),
        }
        Ok(())
    };
    let Some(common) = args::parse(args, HELP, None, false, flag)? else {
        return Ok(());
    };
    let Some(input) = common.input else {
        return Err(CliError::Usage("reduce needs the folder of a finding".into()));
    };
    let dir = PathBuf::from(input.display_name());
    let name = dir.display().to_string();
    let fail = |message: String| {
        eprintln!("spvlab reduce: {name}: {message}");
        CliError::Failed { path: name.clone(), count: 1 }
    };
    let file = dir.join("finding.json");
    let text = std::fs::read_to_string(&file).map_err(|e| fail(format!("cannot read {}: {e}", file.display())))?;
    let data: Value = serde_json::from_str(&text).map_err(|e| fail(format!("finding.json is not JSON: {e}")))?;
    let field = |k: &str| data.get(k).cloned().ok_or_else(|| fail(format!("finding.json has no `{k}`")));
    let parse = |k: &str, e: serde_json::Error| fail(format!("finding.json: `{k}`: {e}"));
    let skeleton: Skeleton = serde_json::from_value(field("skeleton")?).map_err(|e| parse("skeleton", e))?;
    let paths: Vec<Path> = serde_json::from_value(field("paths")?).map_err(|e| parse("paths", e))?;
    let opts: Options = serde_json::from_value(field("options")?).map_err(|e| parse("options", e))?;
    let kind = field("finding")?.as_str().map(String::from).ok_or_else(|| fail("`finding` is not a string".into()))?;
    let backend_name = field("backend")?.as_str().map(String::from).ok_or_else(|| fail("`backend` is not a string".into()))?;
    let backend = match Backend::parse_list(&backend_name)?.as_slice() {
        [b] => *b,
        _ => return Err(fail(format!("`{backend_name}` is not one backend"))),
    };
    if paths.is_empty() || skeleton.blocks.is_empty() {
        return Err(fail("the finding has no blocks or no path".into()));
    }
    let mut runner = Runner::new(gpu);
    let original = flesh::flesh_paths(&skeleton, &opts, paths.clone());
    let mut last = runner.outcome(backend, &original);
    match last.finding() {
        Some(k) if k == kind => {}
        other => {
            return Err(fail(format!(
                "{backend_name} no longer goes wrong the same way on it ({kind} recorded, {} now)",
                other.unwrap_or_else(|| "a pass".into())
            )));
        }
    }
    let case = Case { skeleton, paths };
    let before = (case.skeleton.blocks.len(), case.paths.iter().map(|p| p.blocks.len()).sum::<usize>());
    // The outcome of the last candidate kept is the reduced program's.
    let r = flesh::reduce(case, &opts, max_tries, |f| {
        let o = runner.outcome(backend, f);
        let same = o.finding().as_deref() == Some(kind.as_str());
        if same {
            last = o;
        }
        same
    });
    let outcome = last;
    let to = out.unwrap_or_else(|| dir.join("reduced"));
    let finding = Finding { case: None, campaign_seed: None, skeleton: &r.case.skeleton, opts: &opts, backend: &backend_name };
    write_finding(&to, &finding, &r.program, &outcome)?;
    println!(
        "spvlab reduce: {name}: {} blocks and {} path blocks -> {} and {} ({} candidates run, {} kept); {kind} on {backend_name} kept; written to {}",
        before.0,
        before.1,
        r.case.skeleton.blocks.len(),
        r.case.paths.iter().map(|p| p.blocks.len()).sum::<usize>(),
        r.tried,
        r.kept,
        to.display()
    );
    Ok(())
}
