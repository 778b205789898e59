//! `spvlab run`: run a compute entry point on the reference interpreter and
//! print each buffer it binds, read by the buffer's type.

use std::ffi::OsString;
use std::fmt::Write as _;

use serde_json::{Value, json};
use spvlab_core::diag::line_col;
use spvlab_core::interp::trace::{Block, TraceReport};
use spvlab_core::interp::{self, Buffers, RunError, Trace, values};
use spvlab_core::ir::Ir;
use spvlab_core::plan::{Binding, Inputs, Plan, PlanError, Slot};
use spvlab_core::reflect::{EntryReflection, ExecutionModel};
use spvlab_core::valid::Options;

use crate::args::{self, Common, Parser, no_value, set};
use crate::io::print_stdout;
use crate::error::CliError;
use crate::io::Output;

mod kernel;
pub mod backend;
pub mod draw;
#[cfg(feature = "gpu")]
pub mod child;

pub const HELP: &str = "\
spvlab run: run a compute shader, or draw a fragment shader, on the reference interpreter

Usage: spvlab run [options] [<file.spv | file.spvasm>]

The module is read from the file, or from standard input when it is `-` or
missing; a text is assembled first. A module that is not valid is refused
with its diagnostics. The entry point runs over the dispatch grid, then each
buffer it binds is printed, one value a line, by the buffer's type
(`out.data[3] = 7`, vectors as `(1, 2, 3)`).

Options:
  --entry <NAME>           The GLCompute or Kernel entry point (default: the
                           first).
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
  --robust-access          Clamp each access chain index into its array,
                           vector or matrix, as spirv-opt's
                           --graphics-robust-access pass does (an access out
                           of range then reaches the first or last element
                           instead of being an error).
  --trace <X,Y,Z>          Print the path of the invocation with global id
                           X,Y,Z (Y and Z may be left out; may be repeated):
                           the blocks it visited in order, a repeated cycle
                           once with its count (`%loop ×1000`), with each
                           block's line in a text; then the edges taken and
                           how often, all invocations together.
  --amber <FILE>           Also write the run as an AmberScript file: the
                           module, its buffers as given, the dispatch, and
                           EXPECT lines holding the buffers the run left;
                           for a draw, the vertex stage, the framebuffer and
                           EXPECT lines holding its image (UNORM formats).
  --seed <N>               Let the invocations of each workgroup take turns
                           in a pseudo-random order chosen by N (a few
                           instructions at a time) instead of one after
                           another; a race-free module prints the same
                           buffers under every seed.
  --backend <B>            What runs it: interp (the reference interpreter,
                           default), wgpu (our WGSL), wgpu-naga (naga's SPIR-V
                           front end), wgpu-passthrough (the raw SPIR-V), or
                           all: each in turn, then every buffer value with
                           the backends' values side by side where they
                           differ (`!=`); exit 1 on a difference or a GPU
                           run that failed (a refusal aside). The GPU
                           backends (wgpu on Vulkan) run a GLCompute entry
                           point's storage and uniform buffers and push
                           constants; the interpreter runs first, and a
                           module that does not terminate there is not sent
                           to the GPU. A Fragment entry point draws on each
                           backend named, its image compared with the
                           interpreter's pixel by pixel.
  --force                  Send the module to the GPU even if it does not
                           terminate in the interpreter.
  --gpu-timeout <S>        How many seconds one dispatch may take on the GPU
                           (default 10). Each GPU job runs in a child process
                           (`spvlab __gpu-job`): a driver crash or a job past
                           its deadline is an error naming the backend and
                           the module, and the run goes on.
  --in-process             Run the GPU jobs in this process instead (no
                           protection from a driver crash or a hang).
  --size <WxH>             A Fragment entry point draws over a framebuffer of
                           this size (default 256x256, B8G8R8A8_UNORM, cleared
                           to 0), with Amber's passthrough vertex shader or the
                           module's own Vertex entry point; the summary lists
                           the image's colours and their pixel counts.
  --draw <rect|grid:C,R>   What is drawn: a rectangle over the framebuffer
                           (default) or a grid of C x R cells.
  --vertex <FILE>          The vertex shader's module (its first Vertex entry
                           point).
  --trace-pixel <X,Y>      Print the path of the fragment at that pixel (may
                           be repeated).
                           With a draw, -o <file.png> writes the image (the
                           first backend's of --backend).
  --json                   Print JSON instead of text.
  --target-env <env>       Assemble a text for <env>. Default: spv1.6.
  -o <file>                Write to <file> (default: standard output).
  -h, --help               Print this help.

An OpenCL Kernel entry point's parameters are bound in order: parameter K is
`--buffer 0.K=SPEC`. A pointer parameter's buffer (an array of its pointee,
natural C layout) must be given and is printed after the run; a scalar
parameter's value is its buffer's first bytes (`--buffer 0.1=u32: 5`).
An untyped storage buffer variable without a data type
(SPV_KHR_untyped_pointers) is a buffer of u32 words (`zeros:N`: N words).

Exit status: 0 the run finished, 1 bad input or a run error (located), 2 bad
usage (a bad SPEC among them).
";

fn usage(m: String) -> CliError {
    CliError::Usage(m)
}

fn positive(flag: &str, v: &str) -> Result<u64, CliError> {
    v.parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| usage(format!("{flag}: `{v}` is not a positive number")))
}

/// A global invocation id `X[,Y[,Z]]`.
fn invocation(v: &str) -> Result<[u32; 3], CliError> {
    let parts: Vec<&str> = v.split(',').collect();
    let bad = || usage(format!("--trace wants X,Y,Z (a global invocation id), not `{v}`"));
    if parts.len() > 3 {
        return Err(bad());
    }
    let mut g = [0u32; 3];
    for (k, p) in parts.iter().enumerate() {
        g[k] = p.trim().parse().map_err(|_| bad())?;
    }
    Ok(g)
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
    let msg = a.run_error_message(e);
    match (a.text(), e.inst.and_then(|i| a.inst_line_col(i)), e.inst) {
        (Some(text), Some((line, col)), _) => {
            let src = text.lines().nth(line as usize - 1).unwrap_or("").trim_end();
            format!("{path}:{line}:{col}: error: {msg}\n{line:>5} | {src}\n")
        }
        (_, _, Some(i)) => format!("{path}: error: {msg} (instruction {i})\n"),
        _ => format!("{path}: error: {msg}\n"),
    }
}

/// A run error as data for `--json`: its kind with the kind's fields (core's
/// `RunErrorKind`, tagged by `kind`: `{"kind": "noTermination", "steps": ..}`),
/// the instruction, the invocation, the instruction's line and column in the
/// text, and the rendered message.
fn error_json(a: &spvlab_core::analysis::Analysis, e: &RunError) -> Value {
    let mut v = serde_json::to_value(&e.kind).unwrap_or_else(|_| json!({}));
    let (line, column) = match e.inst.and_then(|i| a.inst_line_col(i)) {
        Some((l, c)) => (json!(l), json!(c)),
        None => (Value::Null, Value::Null),
    };
    v["message"] = json!(a.run_error_message(e));
    v["instruction"] = json!(e.inst);
    v["invocation"] = json!(e.invocation);
    v["line"] = line;
    v["column"] = column;
    v
}

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut json_out = false;
    let mut entry: Option<String> = None;
    let mut groups = [1u32; 3];
    let mut given: Vec<(Slot, String)> = Vec::new();
    let mut specs: Vec<(u32, String)> = Vec::new();
    let mut max_steps = 1_000_000u64;
    let mut robust = false;
    let mut traces: Vec<[u32; 3]> = Vec::new();
    let mut amber_out: Option<String> = None;
    let mut seed: Option<u64> = None;
    let mut backends = vec![backend::Backend::Interp];
    let mut force = false;
    let mut gpu_flags = backend::GpuFlags::default();
    let mut draw_in = spvlab_core::plan::DrawInputs::default();
    let mut vertex_file: Option<String> = None;
    let mut pixels: Vec<(u32, u32)> = Vec::new();
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
        "--trace" => {
            let g = invocation(&p.text_value("--trace", inline)?)?;
            if !traces.contains(&g) {
                traces.push(g);
            }
            Ok(())
        }
        "--amber" => {
            amber_out = Some(p.text_value("--amber", inline)?);
            Ok(())
        }
        "--max-steps" => {
            max_steps = positive("--max-steps", &p.text_value("--max-steps", inline)?)?;
            Ok(())
        }
        "--robust-access" => {
            no_value("--robust-access", &inline)?;
            robust = true;
            Ok(())
        }
        "--backend" => {
            backends = backend::Backend::parse_list(&p.text_value("--backend", inline)?)?;
            Ok(())
        }
        "--force" => set("--force", &inline, &mut force, true),
        "--in-process" | "--gpu-timeout" => gpu_flags.parse(p, &name, inline),
        "--size" => {
            draw_in.size = draw::size(&p.text_value("--size", inline)?)?;
            Ok(())
        }
        "--draw" => {
            draw_in.shape = draw::shape(&p.text_value("--draw", inline)?)?;
            Ok(())
        }
        "--vertex" => {
            vertex_file = Some(p.text_value("--vertex", inline)?);
            Ok(())
        }
        "--trace-pixel" => {
            let px = draw::pixel(&p.text_value("--trace-pixel", inline)?)?;
            if !pixels.contains(&px) {
                pixels.push(px);
            }
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
    if let Some(f) = &vertex_file {
        let vin = crate::io::Input::from_arg(std::ffi::OsStr::new(f));
        let (vpath, va) = crate::io::analyze_input(Some(vin), &Options { env, ..Options::default() })?;
        if !va.is_valid() {
            return Err(crate::io::no_module(&va, vpath));
        }
        draw_in.vertex = Some(va.words().to_vec());
    }
    let inputs = Inputs {
        entry,
        spec: specs,
        buffers: given,
        workgroups: groups,
        kernels: true,
        max_steps,
        robust_access: robust,
        seed,
        trace: if traces.is_empty() { Trace::Off } else { Trace::Invocations(traces.clone()) },
        draw: Some(draw_in),
    };
    let mut plan = Plan::new(&a, &inputs).map_err(|e| plan_error(&path, e))?;
    if plan.draw.is_some() {
        let image = matches!(output, crate::io::Output::File(_)).then_some(&output);
        return draw::run(&a, &plan, path, &pixels, json_out, image, amber_out.as_deref().map(|f| (f, env)), &backends, (force, &gpu_flags));
    }
    if plan.model() == ExecutionModel::Kernel {
        // A Kernel's run prints its pointer parameters' buffers only.
        plan.options.trace = Trace::Off;
        return kernel::run(&a, &plan, path, json_out, output);
    }
    let (ir, e) = (&plan.ir, &plan.entry);
    let mut bufs = plan.buffers.clone();
    if backends != [backend::Backend::Interp] {
        return gpu_backends(&a, &plan, &path, &backends, (force, &gpu_flags), json_out, output);
    }
    let opts = &plan.options;
    let stats = match interp::run(ir, opts, &mut bufs) {
        Ok(s) => s,
        Err(err) => {
            // The paths up to the error (an endless loop's turns, say).
            if json_out {
                let mut v = json!({ "error": error_json(&a, &err) });
                if let Some(t) = &err.trace {
                    v["trace"] = trace_json(&a, ir, e, t);
                }
                let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
                s.push('\n');
                output.write(s.as_bytes())?;
            } else if let Some(t) = &err.trace {
                let mut s = String::new();
                trace_text(&mut s, &a, ir, e, t);
                print_stdout(&s)?;
            }
            eprint!("{}", located(&a, &path, &err));
            return Err(CliError::Failed { path, count: 1 });
        }
    };
    let report = stats.trace.clone().unwrap_or_default();
    for g in &traces {
        if report.path(*g).is_none() {
            let [x, y, z] = *g;
            return Err(usage(format!("--trace {x},{y},{z}: no such invocation in the grid")));
        }
    }
    if let Some(file) = &amber_out {
        let text = spvlab_core::amber::page::export_run(&a, ir0, env, e, &plan.spec, groups, &plan.buffers, &bufs, opts.push_constants.as_deref());
        std::fs::write(file, text).map_err(|err| fail(file, &format!("cannot write `{file}`: {err}")))?;
    }
    let shown = shown(&plan, &bufs);
    if json_out {
        let list = shown_json(&shown, &bufs);
        let mut v = json!({
            "entryPoint": e.name, "workgroups": groups,
            "invocations": stats.invocations, "steps": stats.steps, "buffers": list,
        });
        if !traces.is_empty() {
            v["trace"] = trace_json(&a, ir, e, &report);
        }
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        return output.write(s.as_bytes());
    }
    let mut s = shown_text(&shown, &bufs);
    if !traces.is_empty() {
        trace_text(&mut s, &a, ir, e, &report);
    }
    output.write(s.as_bytes())
}

/// Each buffer a run prints, read by its type from `bufs`.
fn shown<'p>(plan: &'p Plan, bufs: &Buffers) -> Vec<(&'p Binding, values::Shown)> {
    plan.outputs()
        .filter_map(|b| match b.slot {
            Slot::Binding(s, k) => Some((b, values::show(&b.ty, bufs.get(&(s, k)).map_or(&[][..], |v| v)))),
            Slot::Push => None,
        })
        .collect()
}

fn len_of(b: &Binding, bufs: &Buffers) -> usize {
    match b.slot {
        Slot::Binding(s, k) => bufs.get(&(s, k)).map_or(0, |v| v.len()),
        Slot::Push => 0,
    }
}

/// `set S binding B: NAME (KIND, N bytes)` and a line per value.
fn shown_text(shown: &[(&Binding, values::Shown)], bufs: &Buffers) -> String {
    let mut s = String::new();
    for (b, v) in shown {
        let Slot::Binding(set, k) = b.slot else { continue };
        let _ = writeln!(s, "set {set} binding {k}: {} ({}, {} bytes)", b.label, b.kind.name(), len_of(b, bufs));
        for l in v.lines(&b.label).lines() {
            let _ = writeln!(s, "  {l}");
        }
    }
    if shown.is_empty() {
        s.push_str("no buffers bound\n");
    }
    s
}

fn shown_json(shown: &[(&Binding, values::Shown)], bufs: &Buffers) -> Vec<Value> {
    shown
        .iter()
        .filter_map(|(b, v)| {
            let Slot::Binding(set, k) = b.slot else { return None };
            Some(json!({
                "set": set, "binding": k, "name": b.label, "kind": b.kind.name(),
                "bytes": len_of(b, bufs),
                "value": serde_json::to_value(v).unwrap_or(Value::Null),
            }))
        })
        .collect()
}

/// A plan's error in the command line's words: a usage error (exit 2) for
/// a bad flag value, else an input error (exit 1).
fn plan_error(path: &str, e: PlanError) -> CliError {
    // Core's words name the input as it is written; the option is that
    // word with `--`.
    match e {
        PlanError::NoModule | PlanError::Unreadable { .. } | PlanError::NoEntry { .. } => fail(path, &e.to_string()),
        PlanError::BadSpec { .. } | PlanError::NoSuchEntry { .. } | PlanError::UnknownBuffer { .. } | PlanError::UnknownParameter { .. } | PlanError::BadInput { .. } => {
            usage(format!("--{e}"))
        }
        PlanError::BadVertexModule { .. } => usage(format!("--vertex: {e}")),
        PlanError::MissingPointer { .. } | PlanError::TooLarge { .. } => usage(e.to_string()),
    }
}

/// `--backend` other than `interp`: the interpreter first (the guard, and
/// a backend of `all`), then each GPU backend; one backend prints as the
/// interpreter does, several print each value once where all agree and side
/// by side (`!=`) where not.
fn gpu_backends(
    a: &spvlab_core::analysis::Analysis,
    plan: &Plan,
    path: &str,
    backends: &[backend::Backend],
    (force, gpu_flags): (bool, &backend::GpuFlags),
    json_out: bool,
    output: Output,
) -> Result<(), CliError> {
    use backend::Backend;
    let (e, opts, inputs) = (&plan.entry, &plan.options, &plan.buffers);
    let mut reference = inputs.clone();
    let interp_result = interp::run(&plan.ir, opts, &mut reference);
    let mut results: Vec<(Backend, Result<Buffers, backend::Failure>)> = Vec::new();
    for b in backends {
        let r = match b {
            Backend::Interp => match &interp_result {
                Ok(_) => Ok(reference.clone()),
                Err(err) => Err(backend::Failure::Interp {
                    unsupported: matches!(err.kind, interp::RunErrorKind::NotSupported { .. } | interp::RunErrorKind::NotSupportedFeature { .. }),
                    text: located(a, path, err).trim_end().to_string(),
                    error: error_json(a, err),
                }),
            },
            #[cfg(feature = "gpu")]
            Backend::Gpu(g) => match &interp_result {
                Err(err) if matches!(err.kind, interp::RunErrorKind::NoTermination { .. }) && !force => {
                    Err(backend::Failure::NotSent { backend: g.name(), message: err.message() })
                }
                _ => backend::run_gpu(gpu_flags, *g, plan, path, &mut child::GpuProcess::new()),
            },
        };
        results.push((*b, r));
    }
    let _ = (force, gpu_flags);
    let ok: Vec<(Backend, &Buffers)> = results.iter().filter_map(|(b, r)| r.as_ref().ok().map(|x| (*b, x))).collect();
    let mut s = String::new();
    let mut differ = false;
    let mut list = Vec::new();
    for (b, r) in &results {
        if let Err(m) = r {
            let _ = writeln!(s, "{}: error: {m}", b.name());
        }
    }
    for r in plan.outputs() {
        let Slot::Binding(set, bi) = r.slot else { continue };
        let n = inputs.get(&(set, bi)).map_or(0, |v| v.len());
        let _ = writeln!(s, "set {set} binding {bi}: {} ({}, {n} bytes)", r.label, r.kind.name());
        let shown: Vec<Vec<String>> = ok
            .iter()
            .map(|(_, bufs)| values::show(&r.ty, bufs.get(&(set, bi)).map_or(&[][..], |v| v)).lines(&r.label).lines().map(String::from).collect())
            .collect();
        let mut values_json = serde_json::Map::new();
        for ((b, bufs), lines) in ok.iter().zip(&shown) {
            values_json.insert(b.name().into(), json!({
                "bytes": bufs.get(&(set, bi)).map_or(0, |v| v.len()),
                "lines": lines,
            }));
        }
        let rows = shown.iter().map(Vec::len).max().unwrap_or(0);
        let mut same_buf = true;
        for k in 0..rows {
            let cells: Vec<&str> = shown.iter().map(|l| l.get(k).map_or("", String::as_str)).collect();
            if cells.windows(2).all(|w| w[0] == w[1]) {
                let _ = writeln!(s, "  {}", cells.first().copied().unwrap_or(""));
            } else {
                same_buf = false;
                let name = cells.iter().find_map(|c| c.split_once(" = ").map(|x| x.0)).unwrap_or("");
                let parts: Vec<String> = ok
                    .iter()
                    .zip(&cells)
                    .map(|((b, _), c)| format!("{} {}", b.name(), c.split_once(" = ").map_or(*c, |x| x.1)))
                    .collect();
                let _ = writeln!(s, "!= {name}: {}", parts.join(" | "));
            }
        }
        differ |= !same_buf;
        list.push(json!({ "set": set, "binding": bi, "name": r.label, "kind": r.kind.name(), "same": same_buf, "backends": values_json }));
    }
    let errors: serde_json::Map<String, Value> =
        results.iter().filter_map(|(b, r)| r.as_ref().err().map(|m| (b.name().to_string(), json!(m.to_string())))).collect();
    let failures: serde_json::Map<String, Value> =
        results.iter().filter_map(|(b, r)| r.as_ref().err().map(|m| (b.name().to_string(), m.data()))).collect();
    if json_out {
        let v = json!({ "entryPoint": e.name, "workgroups": opts.workgroups, "backends": results.iter().map(|(b, _)| b.name()).collect::<Vec<_>>(), "errors": errors, "failures": failures, "buffers": list, "same": !differ });
        let mut t = serde_json::to_string_pretty(&v).unwrap_or_default();
        t.push('\n');
        output.write(t.as_bytes())?;
    } else {
        if ok.len() > 1 {
            let names: Vec<&str> = ok.iter().map(|(b, _)| b.name()).collect();
            let _ = writeln!(s, "{}", if differ { format!("the backends differ ({})", names.join(", ")) } else { format!("the backends agree ({})", names.join(", ")) });
        }
        output.write(s.as_bytes())?;
    }
    // With several backends a refusal ("not supported") is no failure; a
    // crash, a timeout or a rejected module is.
    let failed = results.iter().any(|(_, r)| r.as_ref().is_err_and(|f| !f.is_refusal()));
    if ok.is_empty() || (backends.len() == 1 && !errors.is_empty()) || failed {
        return Err(CliError::Failed { path: path.into(), count: 1 });
    }
    if differ {
        return Err(CliError::Failed { path: path.into(), count: 1 });
    }
    Ok(())
}

/// How the trace names a block: `%name`, with `in %f` when it is not in the
/// entry point's function, and its line in a text.
struct Namer<'a> {
    a: &'a spvlab_core::analysis::Analysis,
    ir: &'a Ir,
    entry_fn: u32,
}

impl Namer<'_> {
    fn name(&self, id: u32) -> String {
        format!("%{}", self.a.display_name(id))
    }

    /// The line of the block's OpLabel in the text input.
    fn line(&self, label: u32) -> Option<u32> {
        let text = self.a.text()?;
        let i = self.ir.def(label)?;
        let span = self.a.source_map().get(i)?.span;
        Some(line_col(text, span.start).0)
    }

    /// `%name[ in %f][ ×count] (line L)`.
    fn block(&self, b: Block, count: u64) -> String {
        let mut s = self.name(b.label);
        if b.function != self.entry_fn {
            let _ = write!(s, " in {}", self.name(b.function));
        }
        if count != 1 {
            let _ = write!(s, " ×{count}");
        }
        if let Some(l) = self.line(b.label) {
            let _ = write!(s, " (line {l})");
        }
        s
    }
}

fn namer<'a>(a: &'a spvlab_core::analysis::Analysis, ir: &'a Ir, e: &EntryReflection) -> Namer<'a> {
    let entry_fn = ir.entry_points.iter().find(|p| p.name == e.name).map_or(0, |p| p.function);
    Namer { a, ir, entry_fn }
}

fn trace_text(s: &mut String, a: &spvlab_core::analysis::Analysis, ir: &Ir, e: &EntryReflection, t: &TraceReport) {
    let n = namer(a, ir, e);
    for p in &t.paths {
        let [x, y, z] = p.invocation;
        let _ = writeln!(s, "path of invocation ({x},{y},{z}): {} blocks", p.len());
        for seg in &p.segments {
            match (seg.blocks.as_slice(), seg.count) {
                (bs, 1) => {
                    for b in bs {
                        let _ = writeln!(s, "  {}", n.block(*b, 1));
                    }
                }
                ([b], c) => {
                    let _ = writeln!(s, "  {}", n.block(*b, c));
                }
                (bs, c) => {
                    let _ = writeln!(s, "  ×{c}:");
                    for b in bs {
                        let _ = writeln!(s, "    {}", n.block(*b, 1));
                    }
                }
            }
        }
    }
    let _ = writeln!(s, "edges taken (all invocations):");
    for ed in &t.edges {
        let f = if ed.function != n.entry_fn { format!(" in {}", n.name(ed.function)) } else { String::new() };
        let _ = writeln!(s, "  {} -> {}{f}: {}", n.name(ed.from), n.name(ed.to), ed.count);
    }
}

fn trace_json(a: &spvlab_core::analysis::Analysis, ir: &Ir, e: &EntryReflection, t: &TraceReport) -> Value {
    let n = namer(a, ir, e);
    let block = |b: &Block| {
        json!({
            "function": n.a.display_name(b.function), "label": n.a.display_name(b.label),
            "id": b.label, "line": n.line(b.label),
        })
    };
    let paths: Vec<Value> = t
        .paths
        .iter()
        .map(|p| {
            let segs: Vec<Value> = p
                .segments
                .iter()
                .map(|sg| json!({"blocks": sg.blocks.iter().map(block).collect::<Vec<_>>(), "count": sg.count}))
                .collect();
            json!({"invocation": p.invocation, "blocks": p.len(), "segments": segs})
        })
        .collect();
    let edges: Vec<Value> = t
        .edges
        .iter()
        .map(|ed| {
            json!({
                "function": n.a.display_name(ed.function), "from": n.a.display_name(ed.from),
                "to": n.a.display_name(ed.to), "count": ed.count,
            })
        })
        .collect();
    json!({"paths": paths, "edges": edges})
}

