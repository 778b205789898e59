//! Each binding of an entry point and its bytes from the user's inputs.

use super::{Binding, BindingKind, PlanError, Slot};
use crate::analysis::Analysis;
use crate::interp::{self, Buffers, values};
use crate::ir::Ir;
use crate::reflect::{EntryReflection, Resource, ResourceKind, RuntimeArrayShape, TypeNode, TypeShape};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The input given for `slot`, if any.
fn given(inputs: &[(Slot, String)], slot: Slot) -> Option<&str> {
    inputs.iter().find(|g| g.0 == slot).map(|g| g.1.as_str())
}

/// The bytes of input `spec` for `slot`, sized by the binding.
fn fill(slot: Slot, spec: &str, size: Option<u64>, runtime: Option<RuntimeArrayShape>) -> Result<Vec<u8>, PlanError> {
    values::buffer_bytes(spec, size, runtime).map_err(|e| PlanError::BadInput {
        slot,
        input: String::from(spec),
        column: e.col,
        reason: e.message,
    })
}

fn binding(a: &Analysis, slot: Slot, kind: BindingKind, r: &Resource) -> Binding {
    Binding {
        slot,
        kind,
        id: r.variable,
        name: format!("%{}", a.display_name(r.variable)),
        label: r.display_name(),
        ty: r.ty.clone(),
        size: r.size,
        runtime_array: r.runtime_array,
    }
}

/// A GLCompute entry point's buffers (given, else zeros of the binding's
/// size) and push constants.
pub(super) fn shader(
    a: &Analysis,
    e: &EntryReflection,
    inputs: &[(Slot, String)],
) -> Result<(Vec<Binding>, Buffers, Option<Vec<u8>>), PlanError> {
    let mut list = Vec::new();
    let mut bufs = Buffers::new();
    for (s, b, r) in e.bound_buffers() {
        let slot = Slot::Binding(s, b);
        let bytes = fill(slot, given(inputs, slot).unwrap_or("zeros"), r.size, r.runtime_array)?;
        bufs.insert((s, b), bytes);
        let kind = if r.kind == ResourceKind::UniformBuffer { BindingKind::UniformBuffer } else { BindingKind::StorageBuffer };
        list.push(binding(a, slot, kind, r));
    }
    let push_res = e.resources.iter().find(|r| r.kind == ResourceKind::PushConstant);
    let mut push = None;
    if let Some(r) = push_res {
        push = Some(fill(Slot::Push, given(inputs, Slot::Push).unwrap_or("zeros"), r.size, r.runtime_array)?);
        list.push(binding(a, Slot::Push, BindingKind::PushConstant, r));
    }
    for (slot, _) in inputs {
        if !list.iter().any(|b| b.slot == *slot) {
            let available = list.iter().map(|b| b.slot).filter(|s| *s != Slot::Push).collect();
            return Err(PlanError::UnknownBuffer { slot: *slot, entry: e.name.clone(), available });
        }
    }
    Ok((list, bufs, push))
}

fn param_label(p: &interp::KernelParam) -> String {
    p.name.clone().unwrap_or_else(|| format!("param{}", p.index))
}

/// An OpenCL Kernel's parameters, parameter k at (0, k): a pointer's buffer
/// must be given, a scalar is zeros when not.
pub(super) fn kernel(a: &Analysis, ir: &Ir, entry: &str, inputs: &[(Slot, String)]) -> Result<(Vec<Binding>, Buffers), PlanError> {
    let params = interp::kernel_params(ir, entry).unwrap_or_default();
    for (slot, _) in inputs {
        if !matches!(slot, Slot::Binding(0, k) if params.iter().any(|p| p.index == *k)) {
            let parameters = params.iter().map(|p| (p.index, param_label(p))).collect();
            return Err(PlanError::UnknownParameter { slot: *slot, entry: String::from(entry), parameters });
        }
    }
    let fid = ir.entry_points.iter().find(|x| x.name == entry).map(|x| x.function);
    let ids: Vec<u32> = ir.functions.iter().find(|f| Some(f.id) == fid).map(|f| f.params.clone()).unwrap_or_default();
    let mut list = Vec::new();
    let mut bufs = Buffers::new();
    for p in &params {
        let slot = Slot::Binding(0, p.index);
        let spec = given(inputs, slot);
        let stride = p.size.and_then(|s| u32::try_from(s).ok());
        let bytes = if p.pointer {
            let Some(spec) = spec else {
                return Err(PlanError::MissingPointer { index: p.index, name: param_label(p) });
            };
            fill(slot, spec, None, Some(RuntimeArrayShape { fixed_size: 0, stride }))?
        } else {
            fill(slot, spec.unwrap_or("zeros"), p.size, None)?
        };
        bufs.insert((0, p.index), bytes);
        let id = ids.get(p.index as usize).copied().unwrap_or(0);
        let (kind, ty) = if p.pointer {
            let array = TypeNode {
                id: 0,
                shape: TypeShape::RuntimeArray,
                name: None,
                size: None,
                array_stride: stride,
                element: Some(Box::new(p.ty.clone())),
                members: Vec::new(),
            };
            (BindingKind::KernelPointer, array)
        } else {
            (BindingKind::KernelValue, p.ty.clone())
        };
        list.push(Binding {
            slot,
            kind,
            id,
            name: format!("%{}", a.display_name(id)),
            label: param_label(p),
            ty,
            size: if p.pointer { None } else { p.size },
            runtime_array: p.pointer.then_some(RuntimeArrayShape { fixed_size: 0, stride }),
        });
    }
    Ok((list, bufs))
}

/// The untyped buffer variables (SPV_KHR_untyped_pointers) of entry point
/// `e` that have no data type, which reflection does not list: storage
/// buffers of u32 words (`zeros:N` is N words; a list gives its own bytes).
pub(super) fn untyped_buffers(ir: &Ir, e: &EntryReflection) -> Vec<Resource> {
    use crate::grammar::{op, storage_class};
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
            let word = node(TypeShape::Int { width: 32, signed: false }, Some(4), None, None);
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
                runtime_array: Some(RuntimeArrayShape { fixed_size: 0, stride: Some(4) }),
                ty: node(TypeShape::RuntimeArray, None, Some(Box::new(word)), Some(4)),
            })
        })
        .collect()
}
