//! The module as WebGPU binds it: each combined image sampler variable (an
//! `OpTypeSampledImage` in UniformConstant) split into an image variable and
//! a sampler variable, the pair that the WGSL lowering declares
//! ([`super::Combined`]). WebGPU and wgpu have no combined image samplers, so
//! a runner that hands raw SPIR-V to wgpu (naga's front end, passthrough)
//! binds this form, and every backend gets one layout.
//!
//! The image keeps the variable's id, DescriptorSet and Binding; the sampler
//! is a new variable at [`combined_sampler_slot`]. Each `OpLoad` of the
//! combined variable becomes a load of each and an `OpSampledImage` with the
//! original result id, so that every other instruction stays as it was. A
//! combined variable used otherwise (passed to a function, an element of an
//! array of them) is not split: the reason comes back.

use super::plan::{Combined, combined_sampler_slot, is_combined};
use crate::grammar::{OperandKind, decoration, instruction, op, storage_class as sc};
use crate::ir::{Ir, Type};
use crate::binary::parse::encode_string;
use crate::module::{Header, Instruction, Module, Operands};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// A module with its combined image samplers split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    pub words: Vec<u32>,
    /// Each split variable: the image keeps its (set, binding), the
    /// sampler's is new.
    pub combined: Vec<Combined>,
}

/// One combined variable to split.
struct One {
    var: u32,
    /// Its OpTypeSampledImage and that type's image type.
    sampled: u32,
    image: u32,
    /// Its DescriptorSet and Binding, which the image keeps.
    set: u32,
    binding: u32,
    sampler_slot: (u32, u32),
    /// The new sampler variable.
    sampler_var: u32,
}

fn inst(opcode: u16, words: &[u32]) -> Instruction {
    Instruction { opcode, operands: Operands::from_slice(words) }
}

/// The module of `ir` with its combined image samplers split; `Ok(None)`
/// when it has none, `Err` with the reason when one cannot be.
pub fn split_combined_samplers(ir: &Ir) -> Result<Option<Split>, String> {
    let mut ones = Vec::new();
    let mut bound = ir.module.header.bound;
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    for v in ir.globals.iter().filter(|v| is_combined(ir, v)) {
        let (Some(set), Some(binding)) = (v.set, v.binding) else {
            return Err(format!("combined image sampler %{} has no DescriptorSet and Binding", v.id));
        };
        let sampled = v.pointee.unwrap_or(0);
        let Some(Type::SampledImage { image }) = ir.ty(sampled).map(|t| &t.ty) else { continue };
        ones.push(One { var: v.id, sampled, image: *image, set, binding, sampler_slot: combined_sampler_slot(ir, v), sampler_var: 0 });
    }
    if ones.is_empty() {
        return Ok(None);
    }
    for o in &mut ones {
        o.sampler_var = fresh();
    }
    let by_var: BTreeMap<u32, usize> = ones.iter().enumerate().map(|(k, o)| (o.var, k)).collect();
    // Every use of a combined variable is a load, a name, a decoration or
    // an entry point's interface.
    for i in 0..ir.len() {
        let opcode = ir.opcode(i);
        for (k, o) in ir.operands(i).enumerate() {
            let Some(id) = o.id().filter(|id| by_var.contains_key(id)) else { continue };
            let fine = o.kind == OperandKind::IdResult
                || matches!(opcode, op::OpName | op::OpDecorate | op::OpDecorateId | op::OpEntryPoint)
                || (opcode == op::OpLoad && k == 2);
            if !fine {
                let name = instruction(opcode).map_or("an instruction", |d| d.name);
                return Err(format!("combined image sampler %{id} is used by {name}, not only loaded"));
            }
        }
    }
    // The types the split variables need, existing ones reused.
    let find = |want: &dyn Fn(u16, &[u32]) -> bool| (0..ir.len()).find(|&i| want(ir.opcode(i), ir.words(i))).and_then(|i| ir.result_id(i));
    let sampler_ty = find(&|opc, _| opc == op::OpTypeSampler);
    let pointer_to = |t: u32| find(&|opc, w| opc == op::OpTypePointer && w.get(1) == Some(&sc::UniformConstant) && w.get(2) == Some(&t));
    let mut new_types: Vec<Instruction> = Vec::new();
    let sampler_ty = sampler_ty.unwrap_or_else(|| {
        let id = fresh();
        new_types.push(inst(op::OpTypeSampler, &[id]));
        id
    });
    let sampler_ptr = uniform_pointer(pointer_to(sampler_ty), sampler_ty, &mut new_types, &mut fresh);
    let mut image_ptr: BTreeMap<u32, u32> = BTreeMap::new();
    for o in &ones {
        if !image_ptr.contains_key(&o.image) {
            let p = uniform_pointer(pointer_to(o.image), o.image, &mut new_types, &mut fresh);
            image_ptr.insert(o.image, p);
        }
    }
    // The split variables (their ids kept) and the new types go at the end
    // of the global section, after every type they name: nothing else in it
    // refers to a combined variable (checked above).
    let first_fn = (0..ir.len()).find(|&i| ir.opcode(i) == op::OpFunction).unwrap_or(ir.len());
    let mut out = Vec::with_capacity(ir.len() + 4 * ones.len() + new_types.len());
    // The loads of combined variables: result -> (block, sampled image type,
    // image, sampler, variable).
    let mut loaded: BTreeMap<u32, (u32, u32, u32, u32, u32)> = BTreeMap::new();
    let mut block = 0;
    for i in 0..=ir.len() {
        if i == first_fn {
            out.append(&mut new_types);
            for o in &ones {
                out.push(inst(op::OpVariable, &[image_ptr[&o.image], o.var, sc::UniformConstant]));
                out.push(inst(op::OpVariable, &[sampler_ptr, o.sampler_var, sc::UniformConstant]));
            }
        }
        if i == ir.len() {
            break;
        }
        let opcode = ir.opcode(i);
        let w = ir.words(i);
        let one = |id: Option<&u32>| id.and_then(|id| by_var.get(id)).map(|&k| &ones[k]);
        match opcode {
            op::OpVariable if one(w.get(1)).is_some() => {}
            op::OpLoad if one(w.get(2)).is_some() => {
                let o = one(w.get(2)).expect("matched");
                let (img, smp) = (fresh(), fresh());
                let mut load = Vec::from(w);
                load[0] = o.image;
                load[1] = img;
                out.push(inst(op::OpLoad, &load));
                out.push(inst(op::OpLoad, &[sampler_ty, smp, o.sampler_var]));
                out.push(inst(op::OpSampledImage, &[o.sampled, w[1], img, smp]));
                loaded.insert(w[1], (block, o.sampled, img, smp, o.var));
            }
            op::OpEntryPoint => {
                // The interface lists the sampler beside its image.
                let mut e = Vec::from(w);
                let listed: Vec<u32> = ir.operands(i).skip(3).filter_map(|o| o.id()).filter_map(|id| one(Some(&id)).map(|o| o.sampler_var)).collect();
                e.extend(listed);
                out.push(inst(op::OpEntryPoint, &e));
            }
            op::OpName if one(w.first()).is_some() => {
                let o = one(w.first()).expect("matched");
                out.push(ir.inst(i).clone());
                let mut words = Vec::from([o.sampler_var]);
                words.extend(encode_string(&format!("{}_sampler", ir.name(o.var).unwrap_or("combined"))));
                out.push(inst(op::OpName, &words));
            }
            op::OpDecorate if one(w.first()).is_some() && w.get(1) == Some(&decoration::Binding) => {
                let o = one(w.first()).expect("matched");
                out.push(ir.inst(i).clone());
                out.push(inst(op::OpDecorate, &[o.sampler_var, decoration::DescriptorSet, o.set]));
                out.push(inst(op::OpDecorate, &[o.sampler_var, decoration::Binding, o.sampler_slot.1]));
            }
            op::OpLabel => {
                block = w.first().copied().unwrap_or(0);
                out.push(ir.inst(i).clone());
            }
            _ => {
                // An OpSampledImage must be in the block of each of its
                // consumers (an OpLoad of a combined image sampler need not
                // be): a consumer in another block gets its own, from the
                // image and sampler loaded where the combined one was.
                let mut words: Option<Vec<u32>> = None;
                let mut at = 0;
                for o in ir.operands(i) {
                    let n = o.words.len();
                    let Some(&(b, sampled, img, smp, var)) = o.id().filter(|_| o.kind != OperandKind::IdResult).and_then(|id| loaded.get(&id)) else {
                        at += n;
                        continue;
                    };
                    // Only the image instructions take an OpSampledImage's result.
                    let name = instruction(opcode).map_or("", |d| d.name);
                    if !name.starts_with("OpImage") {
                        return Err(format!("combined image sampler %{var}, loaded as %{}, is an operand of {}", o.words[0], if name.is_empty() { "an instruction" } else { name }));
                    }
                    if b != block {
                        let id = fresh();
                        out.push(inst(op::OpSampledImage, &[sampled, id, img, smp]));
                        words.get_or_insert_with(|| Vec::from(w))[at] = id;
                    }
                    at += n;
                }
                out.push(match words {
                    Some(ws) => inst(opcode, &ws),
                    None => ir.inst(i).clone(),
                });
            }
        }
    }
    let module = Module { header: Header { bound, ..ir.module.header.clone() }, instructions: out };
    let combined = ones.iter().map(|o| Combined { variable: o.var, texture: (o.set, o.binding), sampler: o.sampler_slot }).collect();
    Ok(Some(Split { words: crate::binary::write_words(&module), combined }))
}

/// The UniformConstant pointer to `ty`: `existing`, else a new one pushed
/// onto `types`.
fn uniform_pointer(existing: Option<u32>, ty: u32, types: &mut Vec<Instruction>, fresh: &mut dyn FnMut() -> u32) -> u32 {
    existing.unwrap_or_else(|| {
        let id = fresh();
        types.push(inst(op::OpTypePointer, &[id, sc::UniformConstant, ty]));
        id
    })
}
