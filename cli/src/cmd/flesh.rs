//! `spvlab flesh`: a function's control flow turned into a program that
//! records its path (core's `flesh`), with an AmberScript test.

use std::ffi::OsString;

use spvlab_core::flesh::{self, Mode, Options, Skeleton};
use spvlab_core::valid;

use crate::args::{self, Common, Parser};
use crate::error::CliError;
use crate::io::Output;

pub const HELP: &str = "\
spvlab flesh: flesh a structured CFG into a program that records its path

Usage: spvlab flesh [options] [<file.spv | file.spvasm>]

Takes the control flow of one function of a valid module (a skeleton from
`spvlab gen-cfg`, or any module's function), chooses a random path from its
entry to a return, and writes a compute shader with that CFG that is forced
along the path and records it: binding 0.0 `directions` holds one direction
per conditional branch or switch on the path, binding 0.1 `output` receives
the label of each block executed. The comments at the top give the path, the
directions and the expected output; `spvlab run` with those directions must
print that output. The module is read from the file, or from standard input
when it is `-` or missing.

Options:
  --function <id|name>  The function to flesh (default: the first with blocks).
  --seed <s>            Seeds the path (default 1).
  --mode <m>            basic (default): the indices are Function variables;
                        phi: they are OpPhi values; multi: --invocations
                        invocations each follow their own path.
  --max-len <n>         Blocks walked at random before the shortest route to
                        a return (default 30).
  --invocations <n>     Invocations for --mode multi (default 4).
  --amber <file>        Also write an AmberScript test of it (its EXPECT line
                        is the path), for `spvlab amber` or Amber itself.
  --target-env <env>    Assemble and validate the input for <env>.
                        Default: spv1.6. The program needs SPIR-V 1.4 or later.
  -o <file>             Write the program to <file> (default: standard output).
  -h, --help            Print this help.

Exit status: 0 success, 1 bad input (an invalid module, no path to a return),
2 bad usage.
";

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut opts = Options::default();
    let mut function: Option<String> = None;
    let mut amber: Option<OsString> = None;
    let flag = |p: &mut Parser, name: String, inline: Option<OsString>| {
        match name.as_str() {
            "--function" => function = Some(p.text_value("--function", inline)?),
            "--seed" => opts.seed = p.number("--seed", inline)?,
            "--max-len" => opts.max_len = p.number("--max-len", inline)?,
            "--invocations" => opts.invocations = p.number::<u64>("--invocations", inline)?.clamp(1, 1024) as u32,
            "--amber" => amber = Some(p.value("--amber", inline)?),
            "--mode" => {
                let v = p.text_value("--mode", inline)?;
                opts.mode = Mode::parse(&v).ok_or_else(|| CliError::UnknownFlag(format!("--mode {v}")))?;
            }
            _ => return Err(CliError::UnknownFlag(name)),
        }
        Ok(())
    };
    let Some(Common { input, output, env }) = args::parse(args, HELP, Some(Output::Stdout), true, flag)? else {
        return Ok(());
    };
    let (name, a) = crate::io::analyze_input(input, &valid::Options { env, ..valid::Options::default() })?;
    if a.module().is_none() {
        return Err(crate::io::no_module(&a, name));
    }
    // `loc`: ":line:col" where the reason is about one place, or empty.
    let fail = |loc: String, message: String| {
        eprintln!("spvlab flesh: {name}{loc}: {message}");
        CliError::Failed { path: name.clone(), count: 1 }
    };
    if !a.is_valid() {
        for d in a.diagnostics() {
            eprint!("{}", a.render(d, &name));
        }
        return Err(fail(String::new(), "the module is not valid (the diagnostics above say why); only valid control flow is fleshed".into()));
    }
    let index = match &function {
        Some(f) => a.function_by_name(f).ok_or_else(|| fail(String::new(), format!("no function `{f}`")))?,
        None => a.function_index(None).ok_or_else(|| fail(String::new(), "the module has no function with blocks".into()))?,
    };
    // A reason about a block is located at its OpLabel.
    let at = |block: Option<flesh::Label>| {
        let f = &a.cfg().functions[index];
        block
            .and_then(|l| f.block_of(l))
            .and_then(|b| a.inst_line_col(f.blocks[b as usize].start))
            .map_or(String::new(), |(line, col)| format!(":{line}:{col}"))
    };
    let skeleton = Skeleton::of_function(&a, index).map_err(|e| fail(at(e.block()), e.to_string()))?;
    let fleshed = flesh::flesh(&skeleton, &opts).map_err(|e| fail(at(e.block()), e.describe(&skeleton)))?;
    if let Some(path) = amber {
        Output::from_arg(&path).write(fleshed.amber().as_bytes())?;
    }
    output.write(fleshed.text.as_bytes())
}
