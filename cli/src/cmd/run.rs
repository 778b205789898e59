//! `spvlab run`: run a compute entry point on the reference interpreter and
//! print each buffer it binds, read by the buffer's type.

use std::ffi::OsString;
use std::fmt::Write as _;

use serde_json::{Value, json};
use spvlab_core::diag::line_col;
use spvlab_core::interp::{self, Buffers, RunError, values};
use spvlab_core::ir::Ir;
use spvlab_core::reflect::{self, EntryReflection, Resource, ResourceKind};
use spvlab_core::valid::Options;

use crate::args::{self, Common, Parser, set};
use crate::error::CliError;
use crate::io::Output;

pub const HELP: &str = "\
spvlab run: run a compute shader on the reference interpreter

Usage: spvlab run [options] [<file.spv | file.spvasm>]

The module is read from the file, or from standard input when it is `-` or
missing; a text is assembled first. A module that is not valid is refused
with its diagnostics. The entry point runs over the dispatch grid, then each
buffer it binds is printed, one value a line, by the buffer's type
(`out.data[3] = 7`, vectors as `(1, 2, 3)`).

Options:
  --entry <NAME>           The GLCompute entry point (default: the first).
  --dispatch <X,Y,Z>       The number of workgroups (default 1,1,1; Y and Z
                           may be left out).
  --buffer <SET.BINDING=SPEC>
                           The contents of a buffer (may be repeated);
                           `push=SPEC` gives the push constants. A buffer not
                           given starts as zeros. SPEC is one of:
                             zeros | zeros:N
                             seq:START,STEP[,N]     u32 values START, START+STEP, ...
                             seq:TYPE:START,STEP[,N]   the same in another type
                             random:SEED[,N]        deterministic bytes (SplitMix64)
                             TYPE: V V ...          e.g. `u32: 1 2 3`, `f32: 0.5 1e3`,
                                                    `i32x4: ...` (a flat list)
                             hex: BYTES             e.g. `hex: de ad be ef`
                           TYPE: u8 i8 u16 i16 u32 i32 u64 i64 f16 f32 f64. The
                           size is the binding's; for a buffer ending in a
                           runtime array, N elements (or as many as a list
                           needs).
  --spec <ID=VALUE>        Set the spec constant with SpecId ID (an integer,
                           a float, or true/false; may be repeated).
  --max-steps <N>          The most instructions one invocation may execute
                           (default 1000000).
  --seed <N>               Let the invocations of each workgroup take turns
                           in a pseudo-random order chosen by N (a few
                           instructions at a time) instead of one after
                           another; a race-free module prints the same
                           buffers under every seed.
  --json                   Print JSON instead of text.
  --target-env <env>       Assemble a text for <env>. Default: spv1.6.
  -o <file>                Write to <file> (default: standard output).
  -h, --help               Print this help.

Exit status: 0 the run finished, 1 bad input or a run error (located), 2 bad
usage (a bad SPEC among them).
";

/// Where a `--buffer` goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Binding(u32, u32),
    Push,
}

impl std::fmt::Display for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Slot::Binding(s, b) => write!(f, "{s}.{b}"),
            Slot::Push => f.write_str("push"),
        }
    }
}

fn usage(m: String) -> CliError {
    CliError::Usage(m)
}

fn positive(flag: &str, v: &str) -> Result<u64, CliError> {
    v.parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| usage(format!("{flag}: `{v}` is not a positive number")))
}

fn dispatch(v: &str) -> Result<[u32; 3], CliError> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 3 {
        return Err(usage(format!("--dispatch wants X,Y,Z, not `{v}`")));
    }
    let mut g = [1u32; 3];
    for (k, p) in parts.iter().enumerate() {
        g[k] = u32::try_from(positive("--dispatch", p.trim())?)
            .map_err(|_| usage(format!("--dispatch: `{p}` is too large")))?;
    }
    Ok(g)
}

fn slot(v: &str) -> Result<(Slot, String), CliError> {
    let bad = || usage(format!("--buffer wants SET.BINDING=SPEC or push=SPEC, not `{v}`"));
    let (k, spec) = v.split_once('=').ok_or_else(bad)?;
    let s = if k.trim() == "push" {
        Slot::Push
    } else {
        let (s, b) = k.trim().split_once('.').ok_or_else(bad)?;
        Slot::Binding(s.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?)
    };
    Ok((s, spec.into()))
}

/// An input error already explained on stderr.
fn fail(path: &str, message: &str) -> CliError {
    eprintln!("error: {message}");
    CliError::Failed { path: path.into(), count: 1 }
}

/// Where run error `e` happened: `file:line:col` in a text (with the line),
/// else the instruction's index.
fn located(a: &spvlab_core::analysis::Analysis, path: &str, e: &RunError) -> String {
    // The instructions a message names (a data race's two accesses) by their line:col.
    let mut msg = e.message_with(|i| {
        let span = a.source_map().get(i as usize)?.span;
        let (line, col) = line_col(a.text()?, span.start);
        Some(format!("{line}:{col}"))
    });
    // The step budget names the block by OpName: name it as the input does.
    const IN_BLOCK: &str = "was in block ";
    if let (Some(label), Some(k)) = (e.block, msg.rfind(IN_BLOCK)) {
        msg.truncate(k + IN_BLOCK.len());
        let _ = write!(msg, "%{}", a.display_name(label));
    }
    if let Some([x, y, z]) = e.invocation.filter(|_| !e.message.contains("invocation")) {
        let _ = write!(msg, " [invocation ({x},{y},{z})]");
    }
    let span = e.inst.and_then(|i| a.source_map().get(i as usize)).map(|m| m.span);
    match (a.text(), span, e.inst) {
        (Some(text), Some(span), _) => {
            let (line, col) = line_col(text, span.start);
            let src = text.lines().nth(line as usize - 1).unwrap_or("").trim_end();
            format!("{path}:{line}:{col}: error: {msg}\n{line:>5} | {src}\n")
        }
        (_, _, Some(i)) => format!("{path}: error: {msg} (instruction {i})\n"),
        _ => format!("{path}: error: {msg}\n"),
    }
}

/// The buffers an entry point binds (not arrays of descriptors).
fn bound(e: &EntryReflection) -> impl Iterator<Item = (u32, u32, &Resource)> {
    e.resources.iter().filter_map(|r| match (r.kind, r.set, r.binding) {
        (ResourceKind::StorageBuffer | ResourceKind::UniformBuffer, Some(s), Some(b)) if !r.descriptor_array => {
            Some((s, b, r))
        }
        _ => None,
    })
}

fn root(r: &Resource) -> String {
    r.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| format!("%{}", r.variable))
}

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut json_out = false;
    let mut entry: Option<String> = None;
    let mut groups = [1u32; 3];
    let mut given: Vec<(Slot, String)> = Vec::new();
    let mut specs: Vec<(u32, String)> = Vec::new();
    let mut max_steps = 1_000_000u64;
    let mut seed: Option<u64> = None;
    let flag = |p: &mut Parser, name: String, inline: Option<OsString>| match name.as_str() {
        "--json" => set("--json", &inline, &mut json_out, true),
        "--entry" => {
            entry = Some(p.text_value("--entry", inline)?);
            Ok(())
        }
        "--dispatch" => {
            groups = dispatch(&p.text_value("--dispatch", inline)?)?;
            Ok(())
        }
        "--buffer" => {
            let (s, spec) = slot(&p.text_value("--buffer", inline)?)?;
            if given.iter().any(|g| g.0 == s) {
                return Err(usage(format!("--buffer {s} is given twice")));
            }
            given.push((s, spec));
            Ok(())
        }
        "--spec" => {
            let v = p.text_value("--spec", inline)?;
            let Some((id, value)) = v.split_once('=').and_then(|(i, x)| Some((i.trim().parse::<u32>().ok()?, x.trim()))) else {
                return Err(usage(format!("--spec wants ID=VALUE, not `{v}`")));
            };
            specs.push((id, value.into()));
            Ok(())
        }
        "--max-steps" => {
            max_steps = positive("--max-steps", &p.text_value("--max-steps", inline)?)?;
            Ok(())
        }
        "--seed" => {
            let v = p.text_value("--seed", inline)?;
            seed = Some(v.parse::<u64>().map_err(|_| usage(format!("--seed: `{v}` is not a number")))?);
            Ok(())
        }
        _ => Err(CliError::UnknownFlag(name)),
    };
    let Some(Common { input, output, env }) = args::parse(args, HELP, Some(Output::Stdout), true, flag)? else {
        return Ok(());
    };
    let (path, a) = crate::io::analyze_input(input, &Options { env, ..Options::default() })?;
    let Some(ir0) = a.ir().filter(|_| a.is_valid()) else {
        return Err(crate::io::no_module(&a, path));
    };
    // Specialize, then build the IR of the specialized words (the same
    // instructions, so the source map still holds).
    let mut values = Vec::new();
    for (id, v) in &specs {
        values.push((*id, values::spec_value(ir0, *id, v).map_err(|m| usage(format!("--spec {id}={v}: {m}")))?));
    }
    let mut words = a.words().to_vec();
    interp::specialize(&mut words, &values);
    let module = spvlab_core::binary::read_words(&words)
        .map_err(|e| fail(&path, &format!("the specialized module does not read back: {}", e.message())))?;
    let ir = Ir::build(module);
    let refl = reflect::reflect(&ir);
    let computes: Vec<&EntryReflection> = refl.entry_points.iter().filter(|e| e.execution_model == "GLCompute").collect();
    let e = match &entry {
        Some(n) => match computes.iter().find(|e| &e.name == n) {
            Some(e) => *e,
            None => {
                let names: Vec<String> = computes.iter().map(|e| format!("`{}`", e.name)).collect();
                let list = if names.is_empty() { "none".into() } else { names.join(", ") };
                return Err(usage(format!("--entry: no GLCompute entry point `{n}` (the module has: {list})")));
            }
        },
        None => match computes.first() {
            Some(e) => *e,
            None => return Err(fail(&path, &format!("`{path}` has no GLCompute entry point"))),
        },
    };
    // The buffers: given, else zeros of the binding's size.
    let mut bufs = Buffers::new();
    for (s, b, r) in bound(e) {
        let spec = given.iter().find(|g| g.0 == Slot::Binding(s, b)).map_or("zeros", |g| g.1.as_str());
        let bytes = values::buffer_bytes(spec, r.size, r.runtime_array)
            .map_err(|m| usage(format!("--buffer {s}.{b}=`{spec}`: {m}")))?;
        bufs.insert((s, b), bytes);
    }
    let push_res = e.resources.iter().find(|r| r.kind == ResourceKind::PushConstant);
    let mut push = None;
    if let Some(r) = push_res {
        let spec = given.iter().find(|g| g.0 == Slot::Push).map_or("zeros", |g| g.1.as_str());
        push = Some(
            values::buffer_bytes(spec, r.size, r.runtime_array).map_err(|m| usage(format!("--buffer push=`{spec}`: {m}")))?,
        );
    }
    for (s, _) in &given {
        let known = match s {
            Slot::Push => push_res.is_some(),
            Slot::Binding(x, y) => bufs.contains_key(&(*x, *y)),
        };
        if !known {
            let list: Vec<String> = bound(e).map(|(x, y, _)| format!("{x}.{y}")).collect();
            let list = if list.is_empty() { "none".into() } else { list.join(", ") };
            let what = match s {
                Slot::Push => "no push constants".to_string(),
                Slot::Binding(..) => format!("no buffer at {s}"),
            };
            return Err(usage(format!("--buffer {s}: entry point `{}` binds {what} (its buffers: {list})", e.name)));
        }
    }
    let opts = interp::Options {
        entry: Some(e.name.clone()),
        workgroups: groups,
        max_steps,
        push_constants: push,
        seed,
        ..interp::Options::default()
    };
    let stats = match interp::run(&ir, &opts, &mut bufs) {
        Ok(s) => s,
        Err(err) => {
            eprint!("{}", located(&a, &path, &err));
            return Err(CliError::Failed { path, count: 1 });
        }
    };
    let shown: Vec<(u32, u32, &Resource, values::Shown)> = bound(e)
        .map(|(s, b, r)| (s, b, r, values::show(&r.ty, bufs.get(&(s, b)).map_or(&[][..], |v| v))))
        .collect();
    if json_out {
        let list: Vec<Value> = shown
            .iter()
            .map(|(s, b, r, v)| {
                json!({
                    "set": s, "binding": b, "name": root(r), "kind": r.kind.name(),
                    "bytes": bufs.get(&(*s, *b)).map_or(0, |v| v.len()),
                    "value": serde_json::to_value(v).unwrap_or(Value::Null),
                })
            })
            .collect();
        let v = json!({
            "entryPoint": e.name, "workgroups": groups,
            "invocations": stats.invocations, "steps": stats.steps, "buffers": list,
        });
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        return output.write(s.as_bytes());
    }
    let mut s = String::new();
    for (set, b, r, v) in &shown {
        let n = bufs.get(&(*set, *b)).map_or(0, |v| v.len());
        let _ = writeln!(s, "set {set} binding {b}: {} ({}, {n} bytes)", root(r), r.kind.name());
        for l in v.lines(&root(r)).lines() {
            let _ = writeln!(s, "  {l}");
        }
    }
    if shown.is_empty() {
        s.push_str("no buffers bound\n");
    }
    output.write(s.as_bytes())
}
