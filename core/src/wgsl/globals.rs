//! Module-scope declarations: overrides, resources and variables; atomics;
//! constants; the entry-point wrappers (built-ins and `@location` IO).

use super::W;
use super::refuse::Refusal;
use super::types::{Kind, Num};
use crate::grammar::{built_in as bi, decoration, execution_mode, execution_model, op, storage_class as sc};
use crate::ir::{ConstValue, Type};
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Where an atomic lives.
enum Pos {
    Var(u32),
    Member(u32, u32),
    Elem(u32),
}

/// A binding the lowering introduced (see [`super::Wgsl::introduced`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Introduced {
    pub group: u32,
    pub binding: u32,
    pub kind: IntroducedKind,
    /// The SPIR-V variable it stands for.
    pub variable: u32,
}

/// What an introduced binding holds, and how it is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntroducedKind {
    /// The push-constant block as `var<uniform>`: the runner fills it with
    /// the push-constant bytes.
    PushConstantUniform,
    /// The push-constant block as `var<storage, read>` (its offsets or
    /// strides break the uniform address space's layout rules, not the
    /// storage address space's).
    PushConstantStorage,
}

/// The (group, binding) a push-constant block becomes: in the highest
/// descriptor set the module declares (0 when none), one past its highest
/// binding, so that no resource of the module has it and no bind group is
/// added beyond WebGPU's four.
pub fn push_constant_slot(ir: &crate::ir::Ir) -> (u32, u32) {
    let group = ir.globals.iter().filter_map(|v| v.set).max().unwrap_or(0);
    let binding = ir
        .globals
        .iter()
        .filter(|v| v.set.unwrap_or(0) == group && (v.set.is_some() || v.binding.is_some()))
        .filter_map(|v| v.binding)
        .max()
        .map_or(0, |b| b + 1);
    (group, binding)
}

/// Whether `opcode` is one of the atomics WGSL has.
pub fn is_atomic(opcode: u16) -> bool {
    (op::OpAtomicLoad..=op::OpAtomicXor).contains(&opcode)
}

impl W<'_> {
    /// The atomic position `ptr` points at.
    fn position(&self, ptr: u32) -> Option<Pos> {
        let i = self.ir.def(ptr)?;
        match self.ir.opcode(i) {
            op::OpVariable => Some(Pos::Var(ptr)),
            op::OpAccessChain | op::OpInBoundsAccessChain => {
                let w = self.ir.words(i);
                let base = *w.get(2)?;
                let mut ty = match self.ir.ty(self.ir.type_of(base)?)?.ty {
                    Type::Pointer { pointee, .. } => pointee?,
                    _ => return None,
                };
                let idx = w.get(3..)?;
                let mut pos = None;
                for &x in idx {
                    let t = self.ir.ty(ty)?;
                    match &t.ty {
                        Type::Struct { members } => {
                            let k = self.ir.const_u64(x)? as u32;
                            pos = Some(Pos::Member(ty, k));
                            ty = members.get(k as usize)?.ty;
                        }
                        Type::Array { element, .. } | Type::RuntimeArray { element } => {
                            pos = Some(Pos::Elem(ty));
                            ty = *element;
                        }
                        Type::Vector { component, .. } => {
                            pos = None;
                            ty = *component;
                        }
                        Type::Matrix { column, .. } => {
                            pos = None;
                            ty = *column;
                        }
                        _ => return None,
                    }
                }
                match pos {
                    None if idx.is_empty() => self.position(base),
                    p => p,
                }
            }
            op::OpCopyObject => self.position(*self.ir.words(i).get(2)?),
            _ => None,
        }
    }

    /// Mark the memory every atomic instruction touches.
    pub fn find_atomics(&mut self) -> Result<(), Refusal> {
        for &f in &self.functions.clone() {
            let Some(func) = self.ir.function(f) else { continue };
            for i in func.inst as usize..func.end as usize {
                let o = self.ir.opcode(i);
                if !is_atomic(o) {
                    continue;
                }
                let w = self.ir.words(i);
                let ptr = if o == op::OpAtomicStore { w.first() } else { w.get(2) };
                let Some(&ptr) = ptr else { continue };
                match self.position(ptr) {
                    Some(Pos::Var(v)) => {
                        self.atomic_vars.insert(v);
                    }
                    Some(Pos::Member(s, k)) => {
                        self.atomic_members.insert((s, k));
                    }
                    Some(Pos::Elem(a)) => {
                        self.atomic_elems.insert(a);
                    }
                    None => {
                        return Err(Refusal::new(
                            "wgsl.atomic",
                            "an atomic through a pointer whose memory cannot be traced to a variable",
                            Some(i as u32),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether a load or store through `ptr` touches atomic memory.
    pub fn is_atomic_ptr(&self, ptr: u32) -> bool {
        // Most modules have no atomics: nothing to look up.
        if self.atomic_vars.is_empty() && self.atomic_members.is_empty() && self.atomic_elems.is_empty() {
            return false;
        }
        match self.position(ptr) {
            Some(Pos::Var(v)) => self.atomic_vars.contains(&v),
            Some(Pos::Member(s, k)) => self.atomic_members.contains(&(s, k)),
            Some(Pos::Elem(a)) => self.atomic_elems.contains(&a),
            None => false,
        }
    }

    /// A literal of scalar `num` with `bits`.
    pub fn literal(&self, num: Num, bits: u64, at: u32) -> Result<String, Refusal> {
        Ok(match num.kind {
            Kind::Bool => String::from(if bits != 0 { "true" } else { "false" }),
            Kind::U32 | Kind::I32 => {
                let mut s = String::with_capacity(12);
                if push_int32_literal(num.kind, bits, &mut s) {
                    s
                } else {
                    String::from("i32(-2147483647 - 1)")
                }
            }
            Kind::F32 => {
                let f = f32::from_bits(bits as u32);
                if !f.is_finite() {
                    return Err(Refusal::new("wgsl.constant", "a non-finite float constant", Some(at)));
                }
                format!("{f:?}f")
            }
            Kind::F16 => {
                let f = f16_to_f32(bits as u16);
                if !f.is_finite() {
                    return Err(Refusal::new("wgsl.constant", "a non-finite half constant", Some(at)));
                }
                format!("{f:?}h")
            }
        })
    }

    /// Constant `id` as a WGSL expression (an override by its name).
    pub fn const_expr(&mut self, id: u32) -> Result<String, Refusal> {
        if let Some(n) = self.global_names.get(&id) {
            return Ok(n.clone());
        }
        let ir = self.ir;
        let Some(c) = ir.constant(id) else {
            return Err(Refusal::new("wgsl.invalid", format!("%{id} is not a constant"), None));
        };
        let at = c.inst;
        if matches!(self.ir.opcode(at as usize), op::OpConstantDataKHR | op::OpSpecConstantDataKHR) {
            return self.constant_data(id, c.ty, at);
        }
        match &c.value {
            &ConstValue::Bool(b) => Ok(String::from(if b { "true" } else { "false" })),
            &ConstValue::Scalar(bits) => {
                let Some(num) = self.num(c.ty) else {
                    return self.ty(c.ty, at).and(Err(Refusal::new("wgsl.type", "a constant of an odd type", Some(at))));
                };
                self.literal(num, bits, at)
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
                        Some(w) => format!("{w}({e})"),
                        None => e,
                    });
                }
                Ok(format!("{t}({})", args.join(", ")))
            }
            ConstValue::NotEvaluated => {
                Err(Refusal::new("wgsl.constant", "a spec constant operation that is not evaluated", Some(at)))
            }
        }
    }

    /// OpConstantDataKHR: a vector or array of scalars packed in words.
    fn constant_data(&mut self, _id: u32, ty: u32, at: u32) -> Result<String, Refusal> {
        let t = self.ty(ty, at)?;
        let words: Vec<u32> = self.ir.words(at as usize).get(2..).unwrap_or(&[]).to_vec();
        let elem = match self.ir.ty(ty).map(|t| &t.ty) {
            Some(Type::Vector { component, .. }) | Some(Type::Array { element: component, .. }) => *component,
            _ => return Err(Refusal::new("wgsl.constant", "constant data of a type other than a vector or array", Some(at))),
        };
        let Some(num) = self.num(elem).filter(|n| n.n == 1 && n.kind != Kind::Bool && n.kind != Kind::F16) else {
            return Err(Refusal::new("wgsl.constant", "constant data of other than 32-bit scalars", Some(at)));
        };
        let mut args = Vec::new();
        for w in words {
            args.push(self.literal(num, w as u64, at)?);
        }
        Ok(format!("{t}({})", args.join(", ")))
    }

    /// Overrides, resources and module-scope variables.
    pub fn globals(&mut self, entries: &[usize]) -> Result<(), Refusal> {
        // Entry names first: the runner finds them by their SPIR-V names.
        for &e in entries {
            let ep = &self.ir.entry_points[e];
            let n = self.globals_scope.fresh(Some(&ep.name), "main");
            self.entry_names.insert(e, n);
        }
        // Uniform layout rules first: they decide how arrays are declared.
        let used = self.used_globals();
        self.push_block(&used)?;
        let ir = self.ir;
        for &v in &ir.globals {
            let block = v.pointee.and_then(|p| self.ir.ty(p)).and_then(|t| t.block);
            if used.contains(&v.id) && v.storage == sc::Uniform && block == Some(crate::ir::BlockKind::Block)
                && let Some(p) = v.pointee
            {
                self.mark_uniform(p);
            }
        }
        // Overrides: scalar spec constants with a SpecId.
        for c in &ir.constants {
            let o = self.ir.opcode(c.inst as usize);
            if !matches!(o, op::OpSpecConstant | op::OpSpecConstantTrue | op::OpSpecConstantFalse) {
                continue;
            }
            let Some(sid) = self.ir.spec_id(c.id) else { continue };
            let Some(num) = self.num(c.ty).filter(|n| n.n == 1) else { continue };
            let v = match c.value {
                ConstValue::Bool(b) => String::from(if b { "true" } else { "false" }),
                ConstValue::Scalar(bits) => self.literal(num, bits, c.inst)?,
                _ => continue,
            };
            if sid >= 65536 {
                continue;
            }
            let name = self.globals_scope.fresh_numbered(None, self.ir.name(c.id), "c", c.id);
            self.out.line(0, &format!("@id({sid}) override {name}: {} = {v};", num.text()), Some(c.inst));
            self.global_names.insert(c.id, name);
        }
        // Block-decorated Workgroup variables share one memory
        // (SPV_KHR_workgroup_memory_explicit_layout); WGSL's never alias.
        let wg_blocks = self
            .ir
            .globals
            .iter()
            .filter(|g| used.contains(&g.id) && g.storage == sc::Workgroup)
            .filter(|g| g.pointee.and_then(|p| self.ir.ty(p)).is_some_and(|t| t.block.is_some()))
            .count();
        // Variables used by the emitted functions.
        for &v in &ir.globals {
            if !used.contains(&v.id) {
                continue;
            }
            let at = v.inst;
            let Some(pointee) = v.pointee else {
                return Err(Refusal::new("wgsl.physical-pointer", "an untyped variable", Some(at)));
            };
            let name = self.globals_scope.fresh_numbered(None, self.ir.name(v.id), "g", v.id);
            self.global_names.insert(v.id, name.clone());
            let block = self.ir.ty(pointee).and_then(|t| t.block);
            let atomic = self.atomic_vars.contains(&v.id);
            let line = Some(at);
            match v.storage {
                sc::StorageBuffer | sc::Uniform => {
                    if !matches!(self.ir.ty(pointee).map(|t| &t.ty), Some(Type::Struct { .. })) {
                        return Err(Refusal::new(
                            "wgsl.type",
                            "an array of buffers (WGSL has no arrays of bindings)",
                            Some(at),
                        ));
                    }
                    let storage = v.storage == sc::StorageBuffer || block == Some(crate::ir::BlockKind::BufferBlock);
                    if !storage {
                        self.mark_uniform(pointee);
                    }
                    self.check_layout(pointee, !storage)?;
                    let t = self.ty(pointee, at)?;
                    let (s, b) = (v.set.unwrap_or(0), v.binding.unwrap_or(0));
                    let space = if storage {
                        if self.read_only(v.id, pointee) { "storage, read" } else { "storage, read_write" }
                    } else {
                        "uniform"
                    };
                    self.out.line_fmt(0, format_args!("@group({s}) @binding({b}) var<{space}> {name}: {t};"), line);
                }
                sc::Workgroup => {
                    if block.is_some() && wg_blocks > 1 {
                        return Err(Refusal::new(
                            "wgsl.capability",
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
                        return Err(Refusal::new("wgsl.atomic", "an atomic in private memory", Some(at)));
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
                    let (g, b) = push_constant_slot(self.ir);
                    let t = self.ty(pointee, at)?;
                    let kind = if self.push_space == "uniform" {
                        IntroducedKind::PushConstantUniform
                    } else {
                        IntroducedKind::PushConstantStorage
                    };
                    self.introduced.push(Introduced { group: g, binding: b, kind, variable: v.id });
                    self.out.line_fmt(0, format_args!("@group({g}) @binding({b}) var<{}> {name}: {t};", self.push_space), line);
                }
                sc::UniformConstant => {
                    let (g, b) = (v.set.unwrap_or(0), v.binding.unwrap_or(0));
                    let d = self.handle_decl(v.id, &name, pointee, g, b, at)?;
                    self.out.line(0, &d, line);
                }
                sc::PhysicalStorageBuffer => {
                    return Err(Refusal::new("wgsl.physical-pointer", "a PhysicalStorageBuffer variable", Some(at)));
                }
                _ => return Err(Refusal::new("wgsl.storage-class", "a variable in a storage class WGSL lacks", Some(at))),
            }
        }
        if !self.out.text.is_empty() {
            self.out.line(0, "", None);
        }
        Ok(())
    }

    /// The push-constant block (at most one is used by an entry point's
    /// call tree): a uniform buffer where WGSL's uniform layout rules give
    /// its Offsets and ArrayStrides, else a read-only storage buffer; the
    /// layout refusal when neither does.
    fn push_block(&mut self, used: &BTreeSet<u32>) -> Result<(), Refusal> {
        let blocks: Vec<(u32, u32)> = self
            .ir
            .globals
            .iter()
            .filter(|v| used.contains(&v.id) && v.storage == sc::PushConstant)
            .filter_map(|v| v.pointee.map(|p| (v.inst, p)))
            .collect();
        if blocks.len() > 1 {
            return Err(Refusal::new("wgsl.push-constant", "two push constant blocks in one call tree", Some(blocks[1].0)));
        }
        let Some(&(at, p)) = blocks.first() else { return Ok(()) };
        if !matches!(self.ir.ty(p).map(|t| &t.ty), Some(Type::Struct { .. })) {
            return Err(Refusal::new("wgsl.push-constant", "a push constant that is not a block", Some(at)));
        }
        match self.check_layout(p, true) {
            Ok(()) => {
                self.push_space = "uniform";
                self.mark_uniform(p);
            }
            Err(uniform) => {
                if self.check_layout(p, false).is_err() {
                    return Err(uniform);
                }
                self.push_space = "storage, read";
            }
        }
        Ok(())
    }

    /// Whether a storage buffer is never written: NonWritable on the variable or on every member.
    fn read_only(&self, var: u32, ty: u32) -> bool {
        if self.ir.has_decoration(var, decoration::NonWritable) {
            return true;
        }
        let n = self.ir.ty(ty).map_or(0, |t| t.members().len());
        n > 0 && (0..n as u32).all(|k| self.ir.member_decoration(ty, k, decoration::NonWritable).is_some())
    }

    /// Mark the structs reachable from `ty` as laid out by uniform rules.
    fn mark_uniform(&mut self, ty: u32) {
        let Some(t) = self.ir.ty(ty) else { return };
        match &t.ty {
            Type::Struct { members } => {
                let ms: Vec<u32> = members.iter().map(|m| m.ty).collect();
                if self.uniform_structs.insert(ty) {
                    for m in ms {
                        self.mark_uniform(m);
                    }
                }
            }
            Type::Array { element, .. } => {
                let e = *element;
                if self.uniform_structs.insert(ty) {
                    self.mark_uniform(e);
                }
            }
            _ => {}
        }
    }

    /// The global variables the emitted functions refer to.
    fn used_globals(&self) -> BTreeSet<u32> {
        let mut used = BTreeSet::new();
        for &f in &self.functions {
            let Some(func) = self.ir.function(f) else { continue };
            for i in func.inst as usize..func.end as usize {
                for o in self.ir.operands(i) {
                    if o.kind == crate::grammar::OperandKind::IdRef
                        && let Some(id) = o.id()
                        && self.ir.global(id).is_some()
                    {
                        used.insert(id);
                    }
                }
            }
        }
        used
    }

    /// The wrapper of entry point `e`: WGSL stage inputs copied into the
    /// private variables SPIR-V reads, the function called, the private
    /// variables it wrote returned as stage outputs.
    pub fn entry_wrapper(&mut self, e: usize) -> Result<(), Refusal> {
        let ep = &self.ir.entry_points[e];
        let at = Some(ep.inst);
        let stage = match ep.model {
            execution_model::GLCompute => "compute",
            execution_model::Vertex => "vertex",
            execution_model::Fragment => "fragment",
            _ => return Err(Refusal::new("wgsl.stage", "an entry point of a stage WebGPU lacks", at)),
        };
        let name = self.entry_names.get(&e).cloned().unwrap_or_default();
        let inner = self.global_names.get(&ep.function).cloned().unwrap_or_default();
        let mut params = Vec::new();
        let mut copies_in = Vec::new();
        let mut outs: Vec<(String, String, String)> = Vec::new(); // (attr, type, value)
        // A workgroup that is not one-dimensional, with subgroup ids: run it
        // flattened (X*Y*Z, 1, 1), the local and global ids computed from
        // the flat index (the order LocalInvocationIndex defines), as naga
        // gives subgroup ids only in one-dimensional workgroups.
        let size = if ep.model == execution_model::GLCompute { Some(self.workgroup_size(&ep)?) } else { None };
        let dims: Option<Vec<u32>> =
            size.as_ref().and_then(|s| s.split(", ").map(|x| x.trim_end_matches('u').parse::<u32>().ok()).collect());
        let uses_sg_ids = ep.interface.iter().any(|&v| {
            self.global_names.contains_key(&v)
                && matches!(self.ir.decoration_arg(v, decoration::BuiltIn), Some(bi::SubgroupLocalInvocationId | bi::SubgroupId))
        });
        let flat = match &dims {
            Some(d) if d.len() == 3 && (d[1] != 1 || d[2] != 1) && uses_sg_ids => Some((d[0], d[1], d[2])),
            _ => None,
        };
        for &v in &ep.interface {
            let Some(var) = self.ir.global(v).copied() else { continue };
            let Some(gname) = self.global_names.get(&v).cloned() else { continue };
            let Some(pointee) = var.pointee else { continue };
            let input = match var.storage {
                sc::Input => true,
                sc::Output => false,
                _ => continue,
            };
            if let Some(b) = self.ir.decoration_arg(v, decoration::BuiltIn) {
                if matches!(b, bi::SubgroupSize | bi::SubgroupLocalInvocationId | bi::SubgroupId | bi::NumSubgroups) {
                    self.subgroups = true;
                }
                let Some((attr, want)) = builtin(b, ep.model, input) else {
                    if !input && matches!(b, bi::PointSize | bi::ClipDistance | bi::CullDistance) {
                        continue;
                    }
                    return Err(Refusal::new("wgsl.builtin", "a built-in WGSL lacks in this stage", Some(var.inst)));
                };
                let have = self.num(pointee);
                let conv = |e: String| match have {
                    Some(h) if h != want && h.kind.is_int() && want.kind.is_int() => super::types::cast(e, want, h),
                    _ => e,
                };
                if have.is_some_and(|h| h.n != want.n || (h.kind != want.kind && !(h.kind.is_int() && want.kind.is_int())))
                    || have.is_none()
                {
                    return Err(Refusal::new("wgsl.builtin", "a built-in variable of a type WGSL does not give it", Some(var.inst)));
                }
                let flat_expr = flat.and_then(|(x, y, z)| match b {
                    bi::LocalInvocationIndex => Some(String::from("flat_index")),
                    bi::WorkgroupId => Some(String::from("flat_group")),
                    bi::LocalInvocationId => {
                        Some(format!("vec3<u32>(flat_index % {x}u, (flat_index / {x}u) % {y}u, flat_index / {}u)", x * y))
                    }
                    bi::GlobalInvocationId => Some(format!(
                        "flat_group * vec3<u32>({x}u, {y}u, {z}u) + vec3<u32>(flat_index % {x}u, (flat_index / {x}u) % {y}u, flat_index / {}u)",
                        x * y
                    )),
                    _ => None,
                });
                if let (true, Some(e)) = (input, flat_expr) {
                    copies_in.push(format!("{gname} = {};", conv(e)));
                } else if input {
                    // `p<k>`, its copy and its parameter, without the formatter.
                    let mut p = String::with_capacity(4);
                    p.push('p');
                    super::names::push_u32(&mut p, params.len() as u32);
                    // Room for the type too (`vec3<u32>`): grown once.
                    let mut param = String::with_capacity(attr.len() + p.len() + 24);
                    for part in ["@builtin(", attr, ") ", &p, ": "] {
                        param.push_str(part);
                    }
                    want.push_text(&mut param);
                    params.push(param);
                    let e = conv(p);
                    copies_in.push(super::cat(&[&gname, " = ", &e, ";"]));
                } else {
                    let h = have.unwrap_or(want);
                    outs.push((format!("@builtin({attr})"), want.text(), super::types::cast(gname.clone(), h, want)));
                }
                continue;
            }
            // A struct of built-ins (gl_PerVertex).
            if let Some(Type::Struct { members }) = self.ir.ty(pointee).map(|t| t.ty.clone())
                && members.iter().any(|m| m.builtin.is_some())
            {
                for (k, m) in members.iter().enumerate() {
                    let b = m.builtin.unwrap_or(u32::MAX);
                    let mname = self.member(pointee, k as u32);
                    match builtin(b, ep.model, input) {
                        Some((attr, want)) if self.num(m.ty) == Some(want) => {
                            if input {
                                let p = format!("p{}", params.len());
                                copies_in.push(format!("{gname}.{mname} = {p};"));
                                params.push(format!("@builtin({attr}) {p}: {want}"));
                            } else {
                                outs.push((format!("@builtin({attr})"), want.text(), format!("{gname}.{mname}")));
                            }
                        }
                        _ if matches!(b, bi::PointSize | bi::ClipDistance | bi::CullDistance) => {}
                        _ => {
                            return Err(Refusal::new("wgsl.builtin", "a built-in WGSL lacks in this stage", Some(var.inst)));
                        }
                    }
                }
                continue;
            }
            let Some(loc) = self.ir.decoration_arg(v, decoration::Location) else {
                return Err(Refusal::new("wgsl.builtin", "a stage input or output without Location or BuiltIn", Some(var.inst)));
            };
            let Some(num) = self.num(pointee).filter(|n| n.kind != Kind::Bool) else {
                return Err(Refusal::new("wgsl.type", "stage input or output of a type other than a scalar or vector", Some(var.inst)));
            };
            let mut attr = format!("@location({loc})");
            let interpolated = (ep.model == execution_model::Fragment && input) || (ep.model == execution_model::Vertex && !input);
            if interpolated {
                if num.kind.is_int() || self.ir.has_decoration(v, decoration::Flat) {
                    attr.push_str(" @interpolate(flat)");
                } else if self.ir.has_decoration(v, decoration::NoPerspective) {
                    attr.push_str(" @interpolate(linear)");
                }
            }
            if input {
                let p = format!("p{}", params.len());
                copies_in.push(format!("{gname} = {p};"));
                params.push(format!("{attr} {p}: {num}"));
            } else {
                outs.push((attr, num.text(), gname));
            }
        }
        if ep.model == execution_model::Vertex && !outs.iter().any(|o| o.0 == "@builtin(position)") {
            return Err(Refusal::new(
                "wgsl.builtin",
                "a vertex entry point that writes no Position (WGSL requires one)",
                at,
            ));
        }
        // OpGroupNonUniformElect's lane: any id unique in the subgroup.
        if flat.is_some() {
            params.push(String::from("@builtin(local_invocation_index) flat_index: u32"));
            params.push(String::from("@builtin(workgroup_id) flat_group: vec3<u32>"));
        }
        if let Some(lane) = self.lane.clone() {
            if flat.is_some() {
                copies_in.insert(0, format!("{lane} = flat_index;"));
            } else {
                let p = format!("p{}", params.len());
                copies_in.insert(0, format!("{lane} = {p};"));
                let b = if ep.model == execution_model::GLCompute { "local_invocation_index" } else { "subgroup_invocation_id" };
                params.push(format!("@builtin({b}) {p}: u32"));
            }
        }
        let mut head = super::cat(&["@", stage]);
        if let Some(size) = size {
            let size = match flat {
                Some((x, y, z)) => format!("{}, 1, 1", x * y * z),
                None => size,
            };
            let one_dim = size.ends_with(", 1, 1") || size.replace('u', "").ends_with(", 1, 1");
            if !one_dim && params.iter().any(|p| p.contains("subgroup_invocation_id") || p.contains("subgroup_id")) {
                return Err(Refusal::new(
                    "wgsl.builtin",
                    "a subgroup invocation id or subgroup id in a workgroup that is not one-dimensional (WebGPU implementations need not lay subgroups out then)",
                    at,
                ));
            }
            head.push_str(" @workgroup_size(");
            head.push_str(&size);
            head.push(')');
        }
        let mut ret = String::new();
        if !outs.is_empty() {
            let sname = self.globals_scope.fresh(Some(&format!("{name}_out")), "out");
            self.out.line_fmt(0, format_args!("struct {sname} {{"), at);
            for (k, (attr, t, _)) in outs.iter().enumerate() {
                self.out.line_fmt(1, format_args!("{attr} m{k}: {t},"), at);
            }
            self.out.line(0, "}", at);
            self.out.line(0, "", None);
            ret = format!(" -> {sname}");
            let vals: Vec<String> = outs.iter().map(|o| o.2.clone()).collect();
            copies_in.push(format!("{inner}();"));
            copies_in.push(format!("return {sname}({});", vals.join(", ")));
        } else {
            copies_in.push(super::cat(&[&inner, "();"]));
        }
        self.out.line(0, &head, at);
        // `fn name(params) ret {`, written in place.
        let mut parts: Vec<&str> = Vec::with_capacity(2 * params.len() + 4);
        parts.extend(["fn ", &name, "("]);
        for (k, p) in params.iter().enumerate() {
            if k > 0 {
                parts.push(", ");
            }
            parts.push(p);
        }
        parts.extend([")", &ret, " {"]);
        self.out.line_parts(0, &parts, at);
        for c in copies_in {
            self.out.line(1, &c, at);
        }
        self.out.line(0, "}", at);
        self.out.line(0, "", None);
        Ok(())
    }

    /// One workgroup size component: an override where WGSL allows, else
    /// its value (naga refuses subgroup built-ins with a workgroup size it
    /// cannot see is one-dimensional).
    fn size_expr(&mut self, id: u32) -> Result<String, Refusal> {
        if self.subgroups
            && self.global_names.contains_key(&id)
            && let Some(v) = self.ir.const_u64(id)
        {
            return Ok(format!("{}", v as u32));
        }
        self.const_expr(id)
    }

    /// `x, y, z` of a compute entry point.
    fn workgroup_size(&mut self, ep: &crate::ir::EntryPoint) -> Result<String, Refusal> {
        // A constant decorated BuiltIn WorkgroupSize wins over the modes.
        let ir = self.ir;
        for &d in &ir.decorations {
            if d.decoration == decoration::BuiltIn && d.member.is_none() && d.arg(self.ir) == Some(bi::WorkgroupSize)
                && let Some(c) = self.ir.constant(d.target).cloned()
                && let ConstValue::Composite(parts) = c.value
            {
                let mut xs = Vec::new();
                for p in parts {
                    xs.push(self.size_expr(p)?);
                }
                return Ok(xs.join(", "));
            }
        }
        for m in &ep.modes {
            if m.mode == execution_mode::LocalSize && m.operands.len() == 3 {
                let o = &m.operands;
                return Ok(format!("{}, {}, {}", o[0], o[1], o[2]));
            }
            if m.mode == execution_mode::LocalSizeId && m.operands.len() == 3 {
                let mut xs = Vec::new();
                for &p in &m.operands {
                    xs.push(self.size_expr(p)?);
                }
                return Ok(xs.join(", "));
            }
        }
        Err(Refusal::new("wgsl.entry-point", "a compute entry point without a workgroup size", Some(ep.inst)))
    }
}

/// WGSL's name and type of SPIR-V built-in `b`, in stage `model`, as an input
/// (`input`) or an output.
fn builtin(b: u32, model: u32, input: bool) -> Option<(&'static str, Num)> {
    let u = Num { kind: Kind::U32, n: 1 };
    let u3 = Num { kind: Kind::U32, n: 3 };
    let f4 = Num { kind: Kind::F32, n: 4 };
    let compute = model == execution_model::GLCompute;
    let vertex = model == execution_model::Vertex;
    let fragment = model == execution_model::Fragment;
    Some(match (b, input) {
        (bi::LocalInvocationId, true) if compute => ("local_invocation_id", u3),
        (bi::LocalInvocationIndex, true) if compute => ("local_invocation_index", u),
        (bi::GlobalInvocationId, true) if compute => ("global_invocation_id", u3),
        (bi::WorkgroupId, true) if compute => ("workgroup_id", u3),
        (bi::NumWorkgroups, true) if compute => ("num_workgroups", u3),
        (bi::VertexIndex, true) if vertex => ("vertex_index", u),
        (bi::InstanceIndex, true) if vertex => ("instance_index", u),
        (bi::Position, false) if vertex => ("position", f4),
        (bi::FragCoord, true) if fragment => ("position", f4),
        (bi::FrontFacing, true) if fragment => ("front_facing", Num { kind: Kind::Bool, n: 1 }),
        (bi::SampleId, true) if fragment => ("sample_index", u),
        (bi::FragDepth, false) if fragment => ("frag_depth", Num { kind: Kind::F32, n: 1 }),
        (bi::SubgroupSize, true) if compute || fragment => ("subgroup_size", u),
        (bi::SubgroupLocalInvocationId, true) if compute || fragment => ("subgroup_invocation_id", u),
        (bi::SubgroupId, true) if compute => ("subgroup_id", u),
        (bi::NumSubgroups, true) if compute => ("num_subgroups", u),
        _ => return None,
    })
}

/// An IEEE half's value.
pub fn f16_to_f32(h: u16) -> f32 {
    let s = (h >> 15) as u32;
    let e = ((h >> 10) & 0x1f) as u32;
    let m = (h & 0x3ff) as u32;
    let bits = match (e, m) {
        (0, 0) => s << 31,
        (0, _) => {
            // Subnormal: m * 2^-24.
            let v = m as f32 / 16_777_216.0;
            return if s == 1 { -v } else { v };
        }
        (31, 0) => (s << 31) | 0x7f80_0000,
        (31, _) => (s << 31) | 0x7fc0_0000,
        _ => (s << 31) | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// A 32-bit integer literal of kind `kind` with `bits`, as [`W::literal`]
/// writes it (`{n}u`, `{v}i`, `-{-v}i`), appended to `out` without the
/// formatter; false, with `out` unchanged, for any other kind and for
/// i32::MIN (which `literal` writes as an expression).
pub fn push_int32_literal(kind: Kind, bits: u64, out: &mut String) -> bool {
    match kind {
        Kind::U32 => {
            super::names::push_u32(out, bits as u32);
            out.push('u');
        }
        Kind::I32 if bits as u32 as i32 != i32::MIN => {
            let v = bits as u32 as i32;
            if v < 0 {
                out.push('-');
            }
            super::names::push_u32(out, v.unsigned_abs());
            out.push('i');
        }
        _ => return false,
    }
    true
}
