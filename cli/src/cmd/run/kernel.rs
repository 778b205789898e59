//! `spvlab run` on an OpenCL Kernel entry point: its parameters are bound
//! in order, parameter k at binding 0.k (`--buffer 0.k=SPEC`). A pointer
//! parameter's buffer is an array of its pointee in the natural C layout and
//! must be given (its size comes from the SPEC: `u32: 1 2 3`, `zeros:N`,
//! `seq:0,1,N`); a scalar parameter's value is the first bytes of its
//! buffer (`--buffer 0.1=u32: 5`; zeros when not given). After the run each
//! pointer parameter's buffer is printed by its pointee type.

use std::fmt::Write as _;

use serde_json::{Value, json};
use spvlab_core::interp::{self, Buffers, values};
use spvlab_core::ir::Ir;
use spvlab_core::reflect::RuntimeArrayShape;

use super::{Slot, located, usage};
use crate::error::CliError;
use crate::io::Output;

/// What `run` hands over for a kernel.
pub(super) struct Run<'a> {
    pub a: &'a spvlab_core::analysis::Analysis,
    pub ir: &'a Ir,
    pub path: String,
    pub entry: String,
    pub given: Vec<(Slot, String)>,
    pub groups: [u32; 3],
    pub max_steps: u64,
    pub json: bool,
    pub output: Output,
}

fn name(p: &interp::KernelParam) -> String {
    p.name
        .clone()
        .unwrap_or_else(|| format!("param{}", p.index))
}

pub(super) fn run(r: Run<'_>) -> Result<(), CliError> {
    let params = interp::kernel_params(r.ir, &r.entry).unwrap_or_default();
    let list = || {
        let l: Vec<String> = params
            .iter()
            .map(|p| format!("0.{} {}", p.index, name(p)))
            .collect();
        if l.is_empty() {
            String::from("none")
        } else {
            l.join(", ")
        }
    };
    for (s, _) in &r.given {
        let known = match s {
            Slot::Binding(0, k) => params.iter().any(|p| p.index == *k),
            _ => false,
        };
        if !known {
            return Err(usage(format!(
                "--buffer {s}: kernel `{}` has no parameter there (its parameters: {})",
                r.entry,
                list()
            )));
        }
    }
    let mut bufs = Buffers::new();
    for p in &params {
        let spec = r
            .given
            .iter()
            .find(|g| g.0 == Slot::Binding(0, p.index))
            .map(|g| g.1.as_str());
        let bytes = if p.pointer {
            let Some(spec) = spec else {
                return Err(usage(format!(
                    "kernel parameter {} (`{}`) is a pointer: give its buffer with --buffer 0.{}=SPEC",
                    p.index,
                    name(p),
                    p.index
                )));
            };
            let stride = p.size.and_then(|s| u32::try_from(s).ok());
            values::buffer_bytes(spec, None, Some(RuntimeArrayShape { fixed_size: 0, stride }))
        } else {
            values::buffer_bytes(spec.unwrap_or("zeros"), p.size, None)
        }
        .map_err(|m| usage(format!("--buffer 0.{}=`{}`: {m}", p.index, spec.unwrap_or("zeros"))))?;
        bufs.insert((0, p.index), bytes);
    }
    let opts = interp::Options {
        entry: Some(r.entry.clone()),
        workgroups: r.groups,
        max_steps: r.max_steps,
        ..interp::Options::default()
    };
    let stats = match interp::run(r.ir, &opts, &mut bufs) {
        Ok(s) => s,
        Err(err) => {
            eprint!("{}", located(r.a, &r.path, &err));
            return Err(CliError::Failed {
                path: r.path,
                count: 1,
            });
        }
    };
    let shown: Vec<(&interp::KernelParam, values::Shown)> = params
        .iter()
        .filter(|p| p.pointer)
        .map(|p| {
            let array = spvlab_core::reflect::TypeNode {
                id: 0,
                shape: spvlab_core::reflect::TypeShape::RuntimeArray,
                name: None,
                size: None,
                array_stride: p.size.and_then(|s| u32::try_from(s).ok()),
                element: Some(Box::new(p.ty.clone())),
                members: Vec::new(),
            };
            (
                p,
                values::show(&array, bufs.get(&(0, p.index)).map_or(&[][..], |v| v)),
            )
        })
        .collect();
    let size = |p: &interp::KernelParam| bufs.get(&(0, p.index)).map_or(0, |v| v.len());
    if r.json {
        let list: Vec<Value> = shown
            .iter()
            .map(|(p, v)| {
                json!({
                    "set": 0, "binding": p.index, "name": name(p), "kind": "kernel parameter",
                    "bytes": size(p),
                    "value": serde_json::to_value(v).unwrap_or(Value::Null),
                })
            })
            .collect();
        let v = json!({
            "entryPoint": r.entry, "workgroups": r.groups,
            "invocations": stats.invocations, "steps": stats.steps, "buffers": list,
        });
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        return r.output.write(s.as_bytes());
    }
    let mut s = String::new();
    for (p, v) in &shown {
        let _ = writeln!(
            s,
            "set 0 binding {}: {} (kernel parameter, {} bytes)",
            p.index,
            name(p),
            size(p)
        );
        for l in v.lines(&name(p)).lines() {
            let _ = writeln!(s, "  {l}");
        }
    }
    if shown.is_empty() {
        s.push_str("no buffers bound\n");
    }
    r.output.write(s.as_bytes())
}

/// The untyped buffer variables (SPV_KHR_untyped_pointers) of entry point
/// `e` that have no data type, which reflection does not list: as storage
/// buffers of u32 words (`zeros:N` is N words; a list gives its own bytes),
/// printed as words.
pub(super) fn untyped_buffers(
    ir: &Ir,
    e: &spvlab_core::reflect::EntryReflection,
) -> Vec<spvlab_core::reflect::Resource> {
    use spvlab_core::grammar::{op, storage_class};
    use spvlab_core::reflect::{Resource, ResourceKind, TypeNode, TypeShape};
    let node = |shape, size, element: Option<Box<TypeNode>>, stride| TypeNode {
        id: 0,
        shape,
        name: None,
        size,
        array_stride: stride,
        element,
        members: Vec::new(),
    };
    let Some(ep) = ir.entry_points.iter().find(|x| x.name == e.name) else {
        return Vec::new();
    };
    ir.globals
        .iter()
        .filter(|v| {
            v.pointee.is_none()
                && ir.opcode(v.inst as usize) == op::OpUntypedVariableKHR
                && v.storage == storage_class::StorageBuffer
                && ep.interface.contains(&v.id)
        })
        .filter_map(|v| {
            let word = node(
                TypeShape::Int {
                    width: 32,
                    signed: false,
                },
                Some(4),
                None,
                None,
            );
            Some(Resource {
                variable: v.id,
                name: ir.name(v.id).filter(|n| !n.is_empty()).map(String::from),
                kind: ResourceKind::StorageBuffer,
                storage_class: String::from("StorageBuffer"),
                set: Some(v.set?),
                binding: Some(v.binding?),
                block: None,
                descriptor_count: None,
                descriptor_array: false,
                size: None,
                runtime_array: Some(RuntimeArrayShape {
                    fixed_size: 0,
                    stride: Some(4),
                }),
                ty: node(TypeShape::RuntimeArray, None, Some(Box::new(word)), Some(4)),
            })
        })
        .collect()
}
