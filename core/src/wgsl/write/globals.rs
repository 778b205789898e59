//! Module-scope declarations: overrides (named and valued by the plan),
//! resources and variables; constants as WGSL expressions.

use super::ModuleWriter;
use crate::grammar::{op, storage_class as sc};
use crate::ir::{ConstValue, Type};
use crate::wgsl::literal::literal;
use crate::wgsl::names::push_u32;
use crate::wgsl::plan::{Binding, BindingResource};
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::types::{Kind, check_layout};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl ModuleWriter<'_> {
    /// Constant `id` as a WGSL expression (an override by its name).
    pub(super) fn const_expr(&mut self, id: u32) -> Result<String, Refusal> {
        if let Some(n) = self.global_names.get(&id) {
            return Ok(n.clone());
        }
        let ir = self.ir;
        let Some(c) = ir.constant(id) else {
            return Err(Refusal::new(RefusalCode::Invalid, format!("%{id} is not a constant"), None));
        };
        let at = c.inst;
        if matches!(self.ir.opcode(at as usize), op::OpConstantDataKHR | op::OpSpecConstantDataKHR) {
            return self.constant_data(id, c.ty, at);
        }
        match &c.value {
            &ConstValue::Bool(b) => Ok(String::from(if b { "true" } else { "false" })),
            &ConstValue::Scalar(bits) => {
                let Some(num) = self.num(c.ty) else {
                    return self.ty(c.ty, at).and(Err(Refusal::new(RefusalCode::Type, "a constant of an odd type", Some(at))));
                };
                literal(num, bits, at)
            }
            ConstValue::Null => Ok(format!("{}()", self.ty(c.ty, at)?)),
            ConstValue::Composite(parts) => {
                let t = self.ty(c.ty, at)?;
                let wrap = self.wrappers.get(&c.ty).cloned();
                let mut args = Vec::new();
                for &p in parts {
                    // An OpUndef part (valid in a constant composite): any
                    // value will do, WGSL's zero.
                    let e = if self.ir.def_opcode(p) == Some(op::OpUndef) {
                        let pt = self.ir.type_of(p).unwrap_or(0);
                        format!("{}()", self.ty(pt, at)?)
                    } else {
                        self.const_expr(p)?
                    };
                    args.push(match &wrap {
                        Some(wrapper) => format!("{wrapper}({e})"),
                        None => e,
                    });
                }
                Ok(format!("{t}({})", args.join(", ")))
            }
            ConstValue::NotEvaluated => {
                Err(Refusal::new(RefusalCode::Constant, "a spec constant operation that is not evaluated", Some(at)))
            }
        }
    }

    /// OpConstantDataKHR: a vector or array of scalars packed in words.
    fn constant_data(&mut self, _id: u32, ty: u32, at: u32) -> Result<String, Refusal> {
        let t = self.ty(ty, at)?;
        let words: Vec<u32> = self.ir.words(at as usize).get(2..).unwrap_or(&[]).to_vec();
        let elem = match self.ir.ty(ty).map(|t| &t.ty) {
            Some(Type::Vector { component, .. }) | Some(Type::Array { element: component, .. }) => *component,
            _ => return Err(Refusal::new(RefusalCode::Constant, "constant data of a type other than a vector or array", Some(at))),
        };
        let Some(num) = self.num(elem).filter(|n| n.n == 1 && n.kind != Kind::Bool && n.kind != Kind::F16) else {
            return Err(Refusal::new(RefusalCode::Constant, "constant data of other than 32-bit scalars", Some(at)));
        };
        let mut args = Vec::new();
        for word in words {
            args.push(literal(num, word as u64, at)?);
        }
        Ok(format!("{t}({})", args.join(", ")))
    }

    /// Overrides, resources and module-scope variables.
    pub(super) fn globals(&mut self) -> Result<(), Refusal> {
        let plan = self.plan;
        let ir = self.ir;
        for o in &plan.overrides {
            self.out.line(0, &format!("@id({}) override {}: {} = {};", o.spec_id, o.name, o.ty.text(), o.value), Some(o.inst));
            self.global_names.insert(o.id, o.name.clone());
        }
        // Variables used by the emitted functions.
        for &v in &ir.globals {
            if !plan.uses_global(v.id) {
                continue;
            }
            let at = v.inst;
            let Some(pointee) = v.pointee else {
                return Err(Refusal::new(RefusalCode::PhysicalPointer, "an untyped variable", Some(at)));
            };
            let name = self.globals_scope.fresh_numbered(None, self.ir.name(v.id), "g", v.id);
            self.global_names.insert(v.id, name.clone());
            let block = self.ir.ty(pointee).and_then(|t| t.block);
            let atomic = plan.atomic_variable(v.id);
            let line = Some(at);
            match v.storage {
                sc::StorageBuffer | sc::Uniform => {
                    if !matches!(self.ir.ty(pointee).map(|t| &t.ty), Some(Type::Struct { .. })) {
                        return Err(Refusal::new(
                            RefusalCode::Type,
                            "an array of buffers (WGSL has no arrays of bindings)",
                            Some(at),
                        ));
                    }
                    let Some(&Binding { group, binding, resource, .. }) = plan.binding_of(v.id) else {
                        return Err(Refusal::new(RefusalCode::Invalid, "a resource the plan did not bind", Some(at)));
                    };
                    let space = match resource {
                        BindingResource::Storage { read_only: true, .. } => "storage, read",
                        BindingResource::Storage { read_only: false, .. } => "storage, read_write",
                        _ => "uniform",
                    };
                    check_layout(ir, pointee, space == "uniform")?;
                    let t = self.ty(pointee, at)?;
                    // `@group(g) @binding(b) var<space> name: T;`, without the formatter.
                    let mut decl = String::with_capacity(40 + name.len() + t.len());
                    decl.push_str("@group(");
                    push_u32(&mut decl, group);
                    decl.push_str(") @binding(");
                    push_u32(&mut decl, binding);
                    for part in [") var<", space, "> ", &name, ": ", &t, ";"] {
                        decl.push_str(part);
                    }
                    self.out.line(0, &decl, line);
                }
                sc::Workgroup => {
                    if block.is_some() && plan.aliased_workgroup_blocks {
                        return Err(Refusal::new(
                            RefusalCode::Capability,
                            "Workgroup blocks that share one memory (WorkgroupMemoryExplicitLayoutKHR): WGSL's workgroup variables never alias",
                            Some(at),
                        ));
                    }
                    let t = self.ty_atomic(pointee, at, atomic)?;
                    self.out.line_parts(0, &["var<workgroup> ", &name, ": ", &t, ";"], line);
                }
                sc::Private | sc::Input | sc::Output => {
                    let t = self.ty_atomic(pointee, at, atomic)?;
                    if atomic {
                        return Err(Refusal::new(RefusalCode::Atomic, "an atomic in private memory", Some(at)));
                    }
                    match v.initializer {
                        Some(c) if self.ir.constant(c).is_some() => {
                            let e = self.const_expr(c)?;
                            self.out.line_parts(0, &["var<private> ", &name, ": ", &t, " = ", &e, ";"], line);
                        }
                        _ => self.out.line_parts(0, &["var<private> ", &name, ": ", &t, ";"], line),
                    }
                }
                sc::PushConstant => {
                    let Some(&Binding { group: g, binding: b, .. }) = plan.binding_of(v.id) else {
                        return Err(Refusal::new(RefusalCode::Invalid, "a resource the plan did not bind", Some(at)));
                    };
                    let t = self.ty(pointee, at)?;
                    let space = plan.push_space().as_str();
                    self.out.line_fmt(0, format_args!("@group({g}) @binding({b}) var<{space}> {name}: {t};"), line);
                }
                sc::UniformConstant => {
                    let (g, b) = (v.set.unwrap_or(0), v.binding.unwrap_or(0));
                    self.handle_decl(v.id, &name, pointee, g, b, at)?;
                }
                sc::PhysicalStorageBuffer => {
                    return Err(Refusal::new(RefusalCode::PhysicalPointer, "a PhysicalStorageBuffer variable", Some(at)));
                }
                _ => return Err(Refusal::new(RefusalCode::StorageClass, "a variable in a storage class WGSL lacks", Some(at))),
            }
        }
        if !self.out.text.is_empty() {
            self.out.line(0, "", None);
        }
        Ok(())
    }
}
