//! `spvlab gen-cfg`: a random structured control-flow skeleton (core's
//! `flesh::generate`), as SPIR-V assembly.

use std::ffi::OsString;

use spvlab_core::flesh::{self, Config, Knobs};

use crate::args::{self, Common, Parser};
use crate::error::CliError;
use crate::io::Output;

pub const HELP: &str = "\
spvlab gen-cfg: a random structured control-flow graph, as a SPIR-V skeleton

Usage: spvlab gen-cfg [options]

Writes one GLCompute function of nested selections, loops (with continue
constructs, single-block loops among them), switches (with fallthrough),
early breaks, continues and returns, and unreachable blocks: labels, merges
and branches on constant conditions. It is valid by construction; `spvlab
flesh` turns it into a program that records its path. The same seed and
options always give the same function.

Options:
  --blocks <n>        About how many blocks (default 14).
  --depth <d>         The deepest construct nesting (default 4).
  --seed <s>          The seed (default 1).
  --dead <n>          Extra blocks nothing branches to (default 1).
  --fill              Keep the top level going until --blocks is reached
                      (big functions).
  --paper             The paper's shape constraints: no chains of three
                      blocks each the only successor of the one before,
                      every branch touching a header, merge block or
                      continue target, no two constructs of a kind with the
                      same number of blocks, nesting at least 2 deep.
  --min-depth <d>     Constructs nest at least <d> deep.
  -o <file>           Write to <file> (default: standard output).
  -h, --help          Print this help.

With --paper or --min-depth, draws are repeated until one meets them; if none
of 4096 does, the last is written and a warning says so.

Exit status: 0 success, 2 bad usage.
";

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut cfg = Config { blocks: 14, max_depth: 4, ..Config::default() };
    let mut seed = 1u64;
    let flag = |p: &mut Parser, name: String, inline: Option<OsString>| {
        match name.as_str() {
            "--blocks" => cfg.blocks = p.number("--blocks", inline)?,
            "--depth" => cfg.max_depth = p.number("--depth", inline)?,
            "--seed" => seed = p.number("--seed", inline)?,
            "--dead" => cfg.dead_blocks = p.number("--dead", inline)?,
            "--min-depth" => cfg.knobs.min_depth = p.number("--min-depth", inline)?,
            "--fill" => args::set("--fill", &inline, &mut cfg.fill, true)?,
            "--paper" => {
                args::no_value("--paper", &inline)?;
                cfg.knobs = Knobs { min_depth: cfg.knobs.min_depth.max(2), ..Knobs::paper() };
            }
            _ => return Err(CliError::UnknownFlag(name)),
        }
        Ok(())
    };
    let Some(Common { input, output, .. }) = args::parse(args, HELP, Some(Output::Stdout), false, flag)? else {
        return Ok(());
    };
    if input.is_some() {
        return Err(CliError::Usage("gen-cfg reads no input".into()));
    }
    let (s, met) = flesh::generate(seed, cfg);
    if !met {
        eprintln!(
            "spvlab gen-cfg: warning: no draw of {} met the shape constraints; this is the last one",
            flesh::generate::ATTEMPTS
        );
    }
    output.write(s.module_text().as_bytes())
}
