//! The entry points' wrappers: WGSL's stage inputs (built-ins and
//! `@location` IO) copied into the module-scope variables SPIR-V reads, the
//! entry function called, and the variables it wrote returned as outputs.

use super::ModuleWriter;
use crate::grammar::{built_in as bi, decoration, execution_model, op, storage_class as sc};
use crate::ir::{Ir, Type};
use crate::wgsl::names::push_u32;
use crate::wgsl::plan::{EntryPlan, SizeDim};
use crate::wgsl::refuse::{NotLowered, Refusal, RefusalCode};
use crate::wgsl::types::{Kind, Num, cast, cat};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl ModuleWriter<'_> {
    /// The wrapper of entry point `e`: WGSL stage inputs copied into the
    /// private variables SPIR-V reads, the function called, the private
    /// variables it wrote returned as stage outputs.
    pub(super) fn entry_wrapper(&mut self, entry: &EntryPlan) -> Result<(), Refusal> {
        let ep = &self.ir.entry_points[entry.index];
        let at = Some(ep.inst);
        if let Some(r) = early_tests_matter(self.ir, ep) {
            return Err(r);
        }
        let stage = entry.stage.clone()?.attribute();
        let name = &entry.name;
        let inner = self.global_names.get(&ep.function).cloned().unwrap_or_default();
        let mut text = WrapperText { params: String::with_capacity(128), count: 0, copies: String::with_capacity(128) };
        let mut outs: Vec<(String, String, String)> = Vec::new(); // (attr, type, value)
        // A workgroup that is not one-dimensional, with subgroup ids: run it
        // flattened (X*Y*Z, 1, 1), the local and global ids computed from
        // the flat index (the order LocalInvocationIndex defines), as naga
        // gives subgroup ids only in one-dimensional workgroups.
        let size = match entry.workgroup_size.clone()? {
            Some(dims) => Some(self.workgroup_size(dims)?),
            None => None,
        };
        let uses_sg_ids = ep.interface.iter().any(|&v| {
            self.global_names.contains_key(&v)
                && matches!(self.ir.decoration_arg(v, decoration::BuiltIn), Some(bi::SubgroupLocalInvocationId | bi::SubgroupId))
        });
        let flat = match &size {
            Some(WorkgroupSize { values: [Some(x), Some(y), Some(z)], .. }) if (*y != 1 || *z != 1) && uses_sg_ids => Some((*x, *y, *z)),
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
                if b == bi::SampleMask && ep.model == execution_model::Fragment {
                    self.sample_mask(&mut text, &mut outs, &gname, pointee, input, var.inst)?;
                    continue;
                }
                let Some((attr, want)) = builtin(b, ep.model, input) else {
                    if !input && matches!(b, bi::PointSize | bi::ClipDistance | bi::CullDistance) {
                        continue;
                    }
                    return Err(Refusal::new(RefusalCode::Builtin, "a built-in WGSL lacks in this stage", Some(var.inst)));
                };
                let have = self.num(pointee);
                let conv = |e: String| match have {
                    Some(h) if h != want && h.kind.is_int() && want.kind.is_int() => cast(e, want, h),
                    _ => e,
                };
                if have.is_some_and(|h| h.n != want.n || (h.kind != want.kind && !(h.kind.is_int() && want.kind.is_int())))
                    || have.is_none()
                {
                    return Err(Refusal::new(RefusalCode::Builtin, "a built-in variable of a type WGSL does not give it", Some(var.inst)));
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
                    text.copy(&[&gname, " = ", &conv(e), ";"]);
                } else if input {
                    // `@builtin(attr) p<k>: type` and `name = p<k>;` (through a
                    // bitcast where the signedness differs), without the formatter.
                    let k = text.next_param();
                    for part in ["@builtin(", attr, ") p"] {
                        text.params.push_str(part);
                    }
                    push_u32(&mut text.params, k);
                    text.params.push_str(": ");
                    want.push_text(&mut text.params);
                    let c = &mut text.copies;
                    for part in ["  ", &gname, " = "] {
                        c.push_str(part);
                    }
                    let bitcast = match have {
                        Some(h) if h != want && h.kind.is_int() && want.kind.is_int() => Some(h),
                        _ => None,
                    };
                    if let Some(h) = bitcast {
                        c.push_str("bitcast<");
                        h.push_text(c);
                        c.push_str(">(");
                    }
                    c.push('p');
                    push_u32(c, k);
                    if bitcast.is_some() {
                        c.push(')');
                    }
                    c.push_str(";\n");
                } else {
                    let h = have.unwrap_or(want);
                    outs.push((format!("@builtin({attr})"), want.text(), cast(gname.clone(), h, want)));
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
                                let p = format!("p{}", text.next_param());
                                text.copy(&[&format!("{gname}.{mname} = {p};")]);
                                text.params.push_str(&format!("@builtin({attr}) {p}: {want}"));
                            } else {
                                outs.push((format!("@builtin({attr})"), want.text(), format!("{gname}.{mname}")));
                            }
                        }
                        _ if matches!(b, bi::PointSize | bi::ClipDistance | bi::CullDistance) => {}
                        _ => {
                            return Err(Refusal::new(RefusalCode::Builtin, "a built-in WGSL lacks in this stage", Some(var.inst)));
                        }
                    }
                }
                continue;
            }
            let interpolated = (ep.model == execution_model::Fragment && input) || (ep.model == execution_model::Vertex && !input);
            // A Block of inputs or outputs, each member at its own Location:
            // one parameter or output per member.
            if let Some(Type::Struct { members }) = self.ir.ty(pointee).map(|t| t.ty.clone())
                && self.ir.decoration(v, decoration::Location).is_none()
            {
                for k in 0..members.len() as u32 {
                    let Some(loc) = self.ir.member_decoration(pointee, k, decoration::Location).and_then(|d| d.arg(self.ir)) else {
                        let at = Some(var.inst);
                        return Err(Refusal::not_lowered(RefusalCode::Builtin, NotLowered::IoBlock, "a stage input or output Block without a Location on each member", at));
                    };
                    let has = |d: u32| self.ir.member_decoration(pointee, k, d).is_some() || self.ir.has_decoration(v, d);
                    let (flat, linear) = (has(decoration::Flat), has(decoration::NoPerspective));
                    let mname = self.member(pointee, k);
                    self.location_io(&mut text, &mut outs, format!("{gname}.{mname}"), members[k as usize].ty, loc, interpolated, flat, linear, input, var.inst)?;
                }
                continue;
            }
            let Some(loc) = self.ir.decoration_arg(v, decoration::Location) else {
                return Err(Refusal::new(RefusalCode::Builtin, "a stage input or output without Location or BuiltIn", Some(var.inst)));
            };
            let (flat, linear) = (self.ir.has_decoration(v, decoration::Flat), self.ir.has_decoration(v, decoration::NoPerspective));
            self.location_io(&mut text, &mut outs, gname, pointee, loc, interpolated, flat, linear, input, var.inst)?;
        }
        // WGSL's vertex stage must return a position; a SPIR-V vertex shader
        // that writes none (its pipeline discards the primitives, or reads
        // only the other outputs) returns the origin, which nothing reads.
        if ep.model == execution_model::Vertex && !outs.iter().any(|o| o.0 == "@builtin(position)") {
            outs.push((String::from("@builtin(position)"), String::from("vec4<f32>"), String::from("vec4<f32>(0.0, 0.0, 0.0, 1.0)")));
        }
        // OpGroupNonUniformElect's lane: any id unique in the subgroup.
        if flat.is_some() {
            text.next_param();
            text.params.push_str("@builtin(local_invocation_index) flat_index: u32");
            text.next_param();
            text.params.push_str("@builtin(workgroup_id) flat_group: vec3<u32>");
        }
        // The lane's copy comes first.
        let mut lane_copy = String::new();
        if let Some(lane) = self.lane.clone() {
            if flat.is_some() {
                lane_copy = format!("  {lane} = flat_index;\n");
            } else {
                let p = format!("p{}", text.next_param());
                lane_copy = format!("  {lane} = {p};\n");
                let b = if ep.model == execution_model::GLCompute { "local_invocation_index" } else { "subgroup_invocation_id" };
                text.params.push_str(&format!("@builtin({b}) {p}: u32"));
            }
        }
        let mut head = cat(&["@", stage]);
        if let Some(size) = size {
            let (size_text, one_dim) = match flat {
                Some((x, y, z)) => (format!("{}, 1, 1", x * y * z), true),
                None => (size.text, size.values[1] == Some(1) && size.values[2] == Some(1)),
            };
            if !one_dim && (text.params.contains("subgroup_invocation_id") || text.params.contains("subgroup_id")) {
                return Err(Refusal::new(
                    RefusalCode::Builtin,
                    "a subgroup invocation id or subgroup id in a workgroup that is not one-dimensional (WebGPU implementations need not lay subgroups out then)",
                    at,
                ));
            }
            head.push_str(" @workgroup_size(");
            head.push_str(&size_text);
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
            text.copy(&[&inner, "();"]);
            text.copy(&[&format!("return {sname}({});", vals.join(", "))]);
        } else {
            text.copy(&[&inner, "();"]);
        }
        self.out.line(0, &head, at);
        // `fn name(params) ret {`, written in place.
        self.out.line_parts(0, &["fn ", name, "(", &text.params, ")", &ret, " {"], at);
        self.out.push(&lane_copy, at);
        self.out.push(&text.copies, at);
        self.out.line(0, "}", at);
        self.out.line(0, "", None);
        Ok(())
    }

    /// A stage input or output of type `ty` at Location `loc`, held in
    /// `place` (a variable or a member of one): a parameter copied into it,
    /// or an output read from it, with its interpolation where the stage
    /// interpolates it.
    #[allow(clippy::too_many_arguments)]
    fn location_io(
        &mut self,
        text: &mut WrapperText,
        outs: &mut Vec<(String, String, String)>,
        place: String,
        ty: u32,
        loc: u32,
        interpolated: bool,
        flat: bool,
        linear: bool,
        input: bool,
        at: u32,
    ) -> Result<(), Refusal> {
        let Some(num) = self.num(ty).filter(|n| n.kind != Kind::Bool) else {
            return Err(Refusal::new(RefusalCode::Type, "stage input or output of a type other than a scalar or vector", Some(at)));
        };
        let mut attr = format!("@location({loc})");
        if interpolated {
            if num.kind.is_int() || flat {
                attr.push_str(" @interpolate(flat)");
            } else if linear {
                attr.push_str(" @interpolate(linear)");
            }
        }
        if input {
            let p = format!("p{}", text.next_param());
            text.copy(&[&format!("{place} = {p};")]);
            text.params.push_str(&format!("{attr} {p}: {num}"));
        } else {
            outs.push((attr, num.text(), place));
        }
        Ok(())
    }

    /// A fragment shader's SampleMask: in SPIR-V an array of one 32-bit
    /// integer per 32 samples, in WGSL `sample_mask`, the one u32 (WebGPU
    /// has at most 4 samples).
    fn sample_mask(
        &mut self,
        text: &mut WrapperText,
        outs: &mut Vec<(String, String, String)>,
        gname: &str,
        pointee: u32,
        input: bool,
        at: u32,
    ) -> Result<(), Refusal> {
        let word = match self.ir.ty(pointee).map(|t| &t.ty) {
            Some(Type::Array { element, length, .. }) if self.ir.const_u64(*length) == Some(1) => {
                self.num(*element).filter(|n| n.kind.is_int() && n.n == 1)
            }
            _ => None,
        };
        let Some(have) = word else {
            return Err(Refusal::new(RefusalCode::Builtin, "a SampleMask of other than one 32-bit integer", Some(at)));
        };
        let u = Num { kind: Kind::U32, n: 1 };
        if input {
            let p = format!("p{}", text.next_param());
            text.copy(&[&format!("{gname}[0] = {};", cast(p.clone(), u, have))]);
            text.params.push_str(&format!("@builtin(sample_mask) {p}: u32"));
        } else {
            outs.push((String::from("@builtin(sample_mask)"), String::from("u32"), cast(format!("{gname}[0]"), have, u)));
        }
        Ok(())
    }

    /// One workgroup size dimension: its text, and its value where the text
    /// is one. An override is written by name where WGSL allows, else as its
    /// value (naga refuses subgroup built-ins with a workgroup size it cannot
    /// see is one-dimensional).
    /// Appended to `text`; a literal without the formatter.
    fn size_dim(&mut self, dim: SizeDim, text: &mut String) -> Result<Option<u32>, Refusal> {
        Ok(match dim {
            SizeDim::Literal(v) => {
                push_u32(text, v);
                Some(v)
            }
            SizeDim::Constant { value: Some(v), is_override: true, .. } if self.subgroups => {
                push_u32(text, v);
                Some(v)
            }
            SizeDim::Constant { id, value, is_override } => {
                text.push_str(&self.const_expr(id)?);
                value.filter(|_| !is_override)
            }
        })
    }

    /// The text of a workgroup size (`x, y, z`), with the values it fixes.
    fn workgroup_size(&mut self, dims: [SizeDim; 3]) -> Result<WorkgroupSize, Refusal> {
        let mut text = String::with_capacity(16);
        let mut values = [None; 3];
        for (k, d) in dims.into_iter().enumerate() {
            if k > 0 {
                text.push_str(", ");
            }
            values[k] = self.size_dim(d, &mut text)?;
        }
        Ok(WorkgroupSize { text, values })
    }
}

/// A wrapper's stage parameters and its statements, each in one buffer.
struct WrapperText {
    /// The parameters, `, `-separated.
    params: String,
    /// How many parameters `params` holds (the next is `p<count>`).
    count: u32,
    /// The statements, one per line, indented one level.
    copies: String,
}

impl WrapperText {
    /// Start the next parameter (its separator); gives its number.
    fn next_param(&mut self) -> u32 {
        if self.count > 0 {
            self.params.push_str(", ");
        }
        self.count += 1;
        self.count - 1
    }

    /// A statement of `parts`.
    fn copy(&mut self, parts: &[&str]) {
        self.copies.push_str("  ");
        for p in parts {
            self.copies.push_str(p);
        }
        self.copies.push('\n');
    }
}

/// A workgroup size as written: its text, and each dimension's value where
/// the WGSL fixes it (`None`: an override, written by name).
struct WorkgroupSize {
    text: String,
    values: [Option<u32>; 3],
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

/// A fragment entry point with EarlyFragmentTests whose results would
/// change with the test after the shader (WGSL's only order): it writes
/// FragDepth (which early tests ignore), may discard (early tests write the
/// depth of a discarded fragment), or writes memory other than its
/// outputs and its own variables (a fragment that fails an early test never
/// runs). Any function of the module counts, called or not.
fn early_tests_matter(ir: &Ir, ep: &crate::ir::EntryPoint) -> Option<Refusal> {
    let mode = ep.modes.iter().find(|m| m.mode == crate::grammar::execution_mode::EarlyFragmentTests)?;
    let refuse = |what: &str, i: u32| Some(Refusal::new(RefusalCode::EarlyTests, format!("EarlyFragmentTests with {what}"), Some(i)));
    if ep.interface.iter().any(|&v| ir.global(v).is_some_and(|g| g.storage == sc::Output) && ir.decoration_arg(v, decoration::BuiltIn) == Some(bi::FragDepth)) {
        return refuse("a FragDepth output, which the early test ignores", mode.inst);
    }
    let storage = |ptr: u32| match ir.type_of(ptr).and_then(|t| ir.ty(t)).map(|t| &t.ty) {
        Some(Type::Pointer { storage, .. }) => Some(*storage),
        _ => None,
    };
    for i in 0..ir.len() {
        let w = ir.words(i);
        let target = match ir.opcode(i) {
            op::OpKill | op::OpTerminateInvocation | op::OpDemoteToHelperInvocation => return refuse("a discard", i as u32),
            op::OpStore | op::OpCopyMemory | op::OpCopyMemorySized => w.first().copied(),
            op::OpImageWrite => return refuse("an image write", i as u32),
            o if crate::grammar::instruction(o).is_some_and(|d| d.name.starts_with("OpAtomic")) => w.get(2).copied(),
            _ => None,
        };
        if let Some(p) = target
            && !matches!(storage(p), Some(sc::Output | sc::Function | sc::Private))
        {
            return refuse("a write to memory other than its outputs and variables", i as u32);
        }
    }
    None
}
