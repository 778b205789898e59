//! `spvlab reflect`: what each entry point binds (buffers, images, push
//! constants, with set, binding, layout and byte size), its workgroup size and
//! the built-ins it uses.

use std::ffi::OsString;
use std::fmt::Write as _;

use spvlab_core::reflect::{MemberNode, Reflection, Resource, TypeNode};
use spvlab_core::valid::Options;

use crate::args::{self, Common, Parser, set};
use crate::error::CliError;
use crate::io::Output;

pub const HELP: &str = "\
spvlab reflect: the resources each entry point binds

Usage: spvlab reflect [options] [<file.spv | file.spvasm>]

The module is read from the file, or from standard input when it is `-` or
missing; a text is assembled first. For each entry point: every buffer, image,
sampler and push constant block its call tree uses (set, binding, storage
class, Block/BufferBlock, the member layout and the byte size; a block that
ends in a runtime array has a fixed part and an element stride instead), the
Workgroup variables, the workgroup size and the built-ins.

Options:
  --json                   Print JSON instead of text.
  --target-env <env>       Assemble a text for <env>. Default: spv1.6.
  -o <file>                Write to <file> (default: standard output).
  -h, --help               Print this help.

Exit status: 0 success, 1 bad input, 2 bad usage.
";

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut json = false;
    let flag = |_: &mut Parser, name: String, inline: Option<OsString>| match name.as_str() {
        "--json" => set("--json", &inline, &mut json, true),
        _ => Err(CliError::UnknownFlag(name)),
    };
    let Some(Common { input, output, env }) = args::parse(args, HELP, Some(Output::Stdout), true, flag)? else {
        return Ok(());
    };
    let (name, a) = crate::io::analyze_input(input, &Options { env, ..Options::default() })?;
    let Some(r) = a.reflect() else {
        return Err(crate::io::no_module(&a, name));
    };
    if json {
        let mut s = serde_json::to_string_pretty(&r).unwrap_or_default();
        s.push('\n');
        return output.write(s.as_bytes());
    }
    output.write(human(&r).as_bytes())
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "?".to_string(), |v| v.to_string())
}

/// The text form.
fn human(r: &Reflection) -> String {
    let mut s = String::new();
    if r.entry_points.is_empty() {
        s.push_str("no entry points\n");
    }
    for e in &r.entry_points {
        let _ = writeln!(s, "entry point \"{}\" ({}, %{})", e.name, e.execution_model, e.function);
        if let Some(w) = &e.workgroup_size {
            let _ = writeln!(
                s,
                "  workgroup size: {} x {} x {} ({:?})",
                opt(w.x),
                opt(w.y),
                opt(w.z),
                w.source
            );
        }
        if e.resources.is_empty() {
            s.push_str("  resources: none\n");
        } else {
            s.push_str("  resources:\n");
        }
        for res in &e.resources {
            resource(&mut s, res);
        }
        if !e.builtins.is_empty() {
            let b: Vec<String> = e
                .builtins
                .iter()
                .map(|b| format!("{} ({})", b.builtin, b.storage_class))
                .collect();
            let _ = writeln!(s, "  built-ins: {}", b.join(", "));
        }
    }
    s
}

fn resource(s: &mut String, r: &Resource) {
    let name = r.name.as_deref().map_or_else(|| format!("%{}", r.variable), |n| format!("{n} (%{})", r.variable));
    let place = match (r.set, r.binding) {
        (None, None) => String::new(),
        (set, binding) => format!("set {} binding {}, ", opt(set), opt(binding)),
    };
    let block = r.block.as_deref().map_or(String::new(), |b| format!(", {b}"));
    let array = match (r.descriptor_array, r.descriptor_count) {
        (false, _) => String::new(),
        (true, Some(n)) => format!(", array of {n}"),
        (true, None) => ", runtime array of descriptors".to_string(),
    };
    let size = match (r.size, r.runtime_array) {
        (_, Some(rt)) => format!(", {} bytes + {} per element", rt.fixed_size, opt(rt.stride)),
        (Some(n), None) => format!(", {n} bytes"),
        (None, None) => String::new(),
    };
    let _ = writeln!(
        s,
        "    {place}{} {name}: {}{block}{array}{size}",
        r.storage_class,
        r.kind.name()
    );
    let _ = writeln!(s, "      type {}", r.ty.describe());
    members(s, &r.ty, 8);
}

fn members(s: &mut String, t: &TypeNode, indent: usize) {
    for (k, m) in t.members.iter().enumerate() {
        member(s, k, m, indent);
    }
}

fn member(s: &mut String, k: usize, m: &MemberNode, indent: usize) {
    let name = m.name.clone().unwrap_or_else(|| format!("member {k}"));
    let mut extra = String::new();
    if let Some(n) = m.size {
        let _ = write!(extra, ", size {n}");
    }
    if let Some(st) = m.ty.array_stride {
        let _ = write!(extra, ", array stride {st}");
    }
    if let Some(st) = m.matrix_stride {
        let _ = write!(extra, ", matrix stride {st}");
    }
    if m.row_major == Some(true) {
        extra.push_str(", row major");
    }
    if let Some(b) = &m.builtin {
        let _ = write!(extra, ", BuiltIn {b}");
    }
    let _ = writeln!(
        s,
        "{:indent$}offset {:>4}: {name}: {}{extra}",
        "",
        opt(m.offset),
        m.ty.describe()
    );
    // Nested structs (directly, or as array elements).
    let mut t = &m.ty;
    while t.members.is_empty() {
        match &t.element {
            Some(e) => t = e,
            None => return,
        }
    }
    members(s, t, indent + 2);
}
