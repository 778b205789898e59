//! Vulkan: the Location (and Component, Index) of the user-defined Input and
//! Output variables of an entry point: each needs a location (on the variable,
//! or on every member of its Block struct), and no two may claim the same
//! location and component (Vulkan spec 15.1.3 "Location Assignment", 15.1.4
//! "Component Assignment"; VUID-StandaloneSpirv-Location-04916, 04917, 04918,
//! 04919, VUID-StandaloneSpirv-OpEntryPoint-08721, 08722; spirv-val's
//! validate_interfaces, v2025.5).

use super::Context;
use super::rules::Rule;
use super::family::{Family, Instructions};
use crate::grammar::{
    addressing_model, decoration as dec, execution_model as em, storage_class as sc,
};
use crate::ir::{ConstValue, Type};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.location.conflict",
        summary: "In Vulkan, two inputs (or two outputs) of an entry point cannot share a location and component.",
        explanation: "Vulkan 15.1.3, 15.1.4 (VUID-StandaloneSpirv-OpEntryPoint-08721 for inputs, 08722 \
                      for outputs): each Input or Output variable of an entry point occupies the \
                      locations its type consumes from its Location (a scalar or a vector of up to 4 \
                      32-bit components one location, a 3- or 4-component 64-bit vector two, a matrix \
                      one per column, an array one per element, a struct the sum of its members), and \
                      from its Component the components its type has. No two variables of the same \
                      direction may overlap; patch variables and fragment outputs of Index 1 have \
                      their own space. Fix: give one of them a free \
                      Location.",
    },
    Rule {
        code: "inst.location.member",
        summary: "In Vulkan, every member of a Block struct interface without a variable Location needs a Location.",
        explanation: "Vulkan 15.1.3 (VUID-StandaloneSpirv-Location-04919): when an Input or Output \
                      variable of Block struct type has no Location itself, each member of the \
                      struct must be decorated with Location (`OpMemberDecorate %Block 0 Location 0`), \
                      and a member may be given only one location and one component.",
    },
    Rule {
        code: "inst.location.type",
        summary: "In Vulkan, a variable given a Location must have a type that consumes locations.",
        explanation: "Vulkan 15.1.3 (VUID-StandaloneSpirv-Location-04918): when the variable carries the \
                      Location, the members of its struct type cannot have locations of their own; \
                      and only numeric scalars, vectors, matrices, arrays and structs of them (and \
                      PhysicalStorageBuffer pointers) can be given a location: a bool or an opaque \
                      type cannot. Fix: decorate either the variable or the members, and pass bools \
                      as 32-bit ints.",
    },
    Rule {
        code: "inst.location.per-vertex",
        summary: "In Vulkan, PerVertexKHR applies only to arrayed fragment shader inputs.",
        explanation: "Vulkan 15.1 (VUID-StandaloneSpirv-PerVertexKHR-06777, 06778): an interface \
                      variable decorated PerVertexKHR must belong to a Fragment entry point and be an \
                      array (one element per vertex of the primitive).",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::None,
};

const LOCATION: &str = "inst.interface.location";
const CONFLICT: &str = "inst.location.conflict";
const MEMBER: &str = "inst.location.member";
const TYPE: &str = "inst.location.type";
const PER_VERTEX: &str = "inst.location.per-vertex";

/// spirv-val's bound on the location * 4 + component values it tracks.
const MAX_LOCATIONS: u64 = 4096 * 4;

/// The location spaces of one entry point.
#[derive(Default)]
struct Spaces {
    input: BTreeSet<u32>,
    output0: BTreeSet<u32>,
    output1: BTreeSet<u32>,
    patch0: BTreeSet<u32>,
    patch1: BTreeSet<u32>,
}

/// Vulkan: the locations of the Input/Output variables `io` ((variable, its
/// operand in OpEntryPoint `i`, storage class), each listed once) of an entry
/// point of execution model `model`.
pub(super) fn check_entry(cx: &mut Context<'_>, i: usize, model: u32, io: &[(u32, usize, u32)]) {
    if !matches!(
        model,
        em::Vertex
            | em::TessellationControl
            | em::TessellationEvaluation
            | em::Geometry
            | em::Fragment
    ) {
        return;
    }
    let mut sp = Spaces::default();
    let ir = cx.ir();
    for &(var, k, class) in io {
        let decs = ir.decorations_of(var);
        let own = |d: u32| decs.iter().find(|x| x.member.is_none() && x.decoration == d);
        let output = class == sc::Output;
        let (set0, set1) = if own(dec::Patch).is_some() {
            (&mut sp.patch0, &mut sp.patch1)
        } else if output {
            (&mut sp.output0, &mut sp.output1)
        } else {
            (&mut sp.input, &mut sp.output1)
        };
        variable(cx, i, k, model, var, output, set0, set1);
    }
}

/// A 32-bit int constant's value, as spirv-val evaluates array lengths here
/// (not spec constants).
fn const_i32(cx: &Context<'_>, id: u32) -> Option<u32> {
    let ir = cx.ir();
    let c = ir.constant(id)?;
    if c.spec || !matches!(ir.ty(c.ty).map(|t| &t.ty), Some(Type::Int { width: 32, .. })) {
        return None;
    }
    match c.value {
        ConstValue::Scalar(v) => Some(v as u32),
        ConstValue::Null => Some(0),
        _ => None,
    }
}

/// Why a type cannot be given a location.
enum NoLocation {
    /// A struct with Location decorations of its own (members).
    MemberLocations(u32),
    /// Not a type that consumes locations.
    Invalid(u32),
}

/// The locations type `ty` consumes (spirv-val's NumConsumedLocations).
fn num_locations(cx: &Context<'_>, ty: u32, depth: u32) -> Result<u32, NoLocation> {
    let ir = cx.ir();
    if depth > 64 {
        return Ok(0);
    }
    let wide = |c: u32| {
        matches!(ir.ty(c).map(|t| &t.ty), Some(Type::Int { width: 64, .. } | Type::Float { width: 64, .. }))
    };
    match ir.ty(ty).map(|t| &t.ty) {
        Some(Type::Int { .. } | Type::Float { .. }) => Ok(1),
        Some(Type::Vector { component, count }) => Ok(if wide(*component) && *count > 2 { 2 } else { 1 }),
        // spirv-val ignores an error inside a matrix or an array.
        Some(Type::Matrix { column, columns }) => {
            Ok(num_locations(cx, *column, depth + 1).unwrap_or(0).wrapping_mul(*columns))
        }
        Some(Type::Array { element, length, .. }) => {
            let n = num_locations(cx, *element, depth + 1).unwrap_or(0);
            Ok(match const_i32(cx, *length) {
                Some(len) => n.wrapping_mul(len),
                None => n,
            })
        }
        Some(Type::Struct { members }) => {
            if ir.decorations_of(ty).iter().any(|d| d.decoration == dec::Location) {
                return Err(NoLocation::MemberLocations(ty));
            }
            let mut n = 0u32;
            for m in members {
                n = n.wrapping_add(num_locations(cx, m.ty, depth + 1)?);
            }
            Ok(n)
        }
        Some(Type::Pointer { storage, .. })
            if *storage == sc::PhysicalStorageBuffer && psb64(cx) =>
        {
            Ok(1)
        }
        _ => Err(NoLocation::Invalid(ty)),
    }
}

fn psb64(cx: &Context<'_>) -> bool {
    cx.ir().module.instructions.iter().any(|inst| {
        inst.opcode == crate::grammar::op::OpMemoryModel
            && inst.operands.first() == Some(&addressing_model::PhysicalStorageBuffer64)
    })
}

/// The components type `ty` consumes (spirv-val's NumConsumedComponents; 0
/// for the types a Component cannot apply to).
fn num_components(cx: &Context<'_>, ty: u32, depth: u32) -> u32 {
    let ir = cx.ir();
    if depth > 64 {
        return 0;
    }
    match ir.ty(ty).map(|t| &t.ty) {
        Some(Type::Int { width, .. } | Type::Float { width, .. }) => {
            if *width == 64 {
                2
            } else {
                1
            }
        }
        Some(Type::Vector { component, count }) => {
            num_components(cx, *component, depth + 1).wrapping_mul(*count)
        }
        Some(Type::Array { element, .. }) => num_components(cx, *element, depth + 1),
        Some(Type::Pointer { storage, .. })
            if *storage == sc::PhysicalStorageBuffer && psb64(cx) =>
        {
            2
        }
        _ => 0,
    }
}

#[allow(clippy::too_many_arguments)]
fn variable(
    cx: &mut Context<'_>,
    i: usize,
    k: usize,
    model: u32,
    var: u32,
    output: bool,
    set0: &mut BTreeSet<u32>,
    set1: &mut BTreeSet<u32>,
) {
    let ir = cx.ir();
    let fragment = model == em::Fragment;
    let Some(mut ty) = ir.global(var).and_then(|v| v.pointee) else {
        return;
    };
    let mut location = None;
    let mut component = 0u32;
    let mut index = None;
    let (mut patch, mut per_task, mut per_vertex) = (false, false, false);
    for d in ir.decorations_of(var) {
        if d.member.is_some() {
            continue;
        }
        match d.decoration {
            dec::Location => location = d.arg(ir),
            dec::Component => component = d.arg(ir).unwrap_or(0),
            dec::Index => {
                if !(output && fragment) {
                    let name = cx.name(var);
                    let m = format!(
                        "{name} is decorated with Index: Index only applies to fragment shader outputs"
                    );
                    cx.error_at(LOCATION, i, k, m).label =
                        String::from("Index on a variable that is not a fragment output");
                    return;
                }
                index = d.arg(ir);
            }
            dec::BuiltIn => return,
            dec::Patch => patch = true,
            dec::PerTaskNV => per_task = true,
            dec::PerVertexKHR => {
                if !fragment {
                    let name = cx.name(var);
                    let m = format!(
                        "[VUID-StandaloneSpirv-PerVertexKHR-06777] {name} is decorated PerVertexKHR, which applies only to Fragment entry points"
                    );
                    cx.error_at(PER_VERTEX, i, k, m).label = String::from("PerVertexKHR outside a fragment shader");
                    return;
                }
                if !matches!(ir.ty(ty).map(|t| &t.ty), Some(Type::Array { .. } | Type::RuntimeArray { .. })) {
                    let name = cx.name(var);
                    let m = format!(
                        "[VUID-StandaloneSpirv-PerVertexKHR-06778] {name} is decorated PerVertexKHR but is not an array"
                    );
                    cx.error_at(PER_VERTEX, i, k, m).label = String::from("PerVertexKHR must be an array");
                    return;
                }
                per_vertex = true;
            }
            _ => {}
        }
    }
    let arrayed = match model {
        em::TessellationControl => !patch,
        em::TessellationEvaluation => !output && !patch,
        em::Geometry => !output,
        em::Fragment => !output && per_vertex,
        em::MeshNV => output && !per_task,
        _ => false,
    };
    if arrayed
        && let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) = ir.ty(ty).map(|t| &t.ty)
    {
        ty = *element;
    }
    let Some(t) = ir.ty(ty) else { return };
    let is_struct = matches!(t.ty, Type::Struct { .. });
    let tdecs = ir.decorations_of(ty);
    if is_struct && tdecs.iter().any(|d| d.decoration == dec::BuiltIn) {
        return;
    }
    let block = tdecs.iter().any(|d| d.decoration == dec::Block);
    let dir = if output { "output" } else { "input" };
    let Some(location) = location else {
        if !block {
            let name = cx.name(var);
            let v = if is_struct { "04917" } else { "04916" };
            let m = format!(
                "[VUID-StandaloneSpirv-Location-{v}] the {dir} variable {name} has no Location decoration (nor a Block struct type)"
            );
            let d = cx.error_at(LOCATION, i, k, m);
            d.label = String::from("needs a Location");
            d.help = Some(format!("add `OpDecorate {name} Location 0`"));
            return;
        }
        members(cx, i, k, var, ty, output, set0);
        return;
    };
    // The variable carries the location.
    let (sub, count) = match &t.ty {
        Type::Array { element, length, .. } => (*element, const_i32(cx, *length).unwrap_or(1)),
        _ => (ty, 1),
    };
    let nloc = match num_locations(cx, sub, 0) {
        Ok(n) => n,
        Err(e) => {
            no_location(cx, i, k, var, e);
            return;
        }
    };
    let ncomp = num_components(cx, sub, 0);
    let set = if index == Some(1) { set1 } else { set0 };
    // spirv-val v2025.5 computes these in 32 bits, wrapping. (A type that
    // takes no location claims nothing; the bound keeps absurd lengths cheap.)
    let count = if nloc == 0 { 0 } else { count.min(1 << 16) };
    for a in 0..count {
        let loc = location.wrapping_add(nloc.wrapping_mul(a));
        let mut start = loc.wrapping_mul(4);
        if MAX_LOCATIONS <= u64::from(start) {
            break;
        }
        let mut end = loc.wrapping_add(nloc).wrapping_mul(4);
        if ncomp != 0 {
            start = start.wrapping_add(component);
            end = loc.wrapping_mul(4).wrapping_add(component).wrapping_add(ncomp);
        }
        let who = |cx: &mut Context<'_>| format!("the {dir} variable {}", cx.name(var));
        if claim(cx, (i, k), set, (start..end).take(1 << 16), output, who) {
            return;
        }
    }
}

/// Claim the location * 4 + component values `claims` in `set` for `who`;
/// report the first one already taken (at operand `at`) and return true.
fn claim(
    cx: &mut Context<'_>,
    at: (usize, usize),
    set: &mut BTreeSet<u32>,
    claims: impl IntoIterator<Item = u32>,
    output: bool,
    who: impl FnOnce(&mut Context<'_>) -> String,
) -> bool {
    let Some(c) = claims.into_iter().find(|&c| !set.insert(c)) else { return false };
    let (dir, vuid) = if output { ("output", "08722") } else { ("input", "08721") };
    let who = who(cx);
    let m = format!(
        "[VUID-StandaloneSpirv-OpEntryPoint-{vuid}] {who} takes {dir} location {}, component {}, which another {dir} of the entry point already takes",
        c / 4,
        c % 4
    );
    cx.error_at(CONFLICT, at.0, at.1, m).label = format!("conflicting {dir} location {}", c / 4);
    true
}

fn no_location(cx: &mut Context<'_>, i: usize, k: usize, var: u32, e: NoLocation) {
    let name = cx.name(var);
    let m = match e {
        NoLocation::MemberLocations(st) => format!(
            "[VUID-StandaloneSpirv-Location-04918] {name} is decorated with Location, so the members of its struct {} cannot be assigned locations",
            cx.name(st)
        ),
        NoLocation::Invalid(t) => format!(
            "{name} is given a Location, but its type contains {}, which cannot be assigned a location",
            super::operand::describe(cx, t)
        ),
    };
    cx.error_at(TYPE, i, k, m).label = String::from("cannot be assigned a location");
}

/// A Block struct variable without a Location: each member's.
fn members(cx: &mut Context<'_>, i: usize, k: usize, var: u32, st: u32, output: bool, set: &mut BTreeSet<u32>) {
    let ir = cx.ir();
    let Some(Type::Struct { members }) = ir.ty(st).map(|t| &t.ty) else { return };
    let mut locs: BTreeMap<u32, u32> = BTreeMap::new();
    let mut comps: BTreeMap<u32, u32> = BTreeMap::new();
    for d in ir.decorations_of(st) {
        let (map, what) = match d.decoration {
            dec::Location => (&mut locs, "location"),
            dec::Component => (&mut comps, "component"),
            _ => continue,
        };
        let m = d.member.unwrap_or(u32::MAX);
        let v = d.arg(ir).unwrap_or(0);
        match map.get(&m) {
            None => {
                map.insert(m, v);
            }
            Some(&old) if old != v => {
                let sname = cx.name(st);
                let msg = format!("member {m} of {sname} has conflicting {what} assignments ({old} and {v})");
                cx.error(MEMBER, d.inst as usize, msg).label = format!("a second {what}");
                return;
            }
            _ => {}
        }
    }
    let dir = if output { "output" } else { "input" };
    for (n, m) in members.iter().enumerate() {
        let Some(&location) = locs.get(&(n as u32)) else {
            let sname = cx.name(st);
            let name = cx.name(var);
            let msg = format!(
                "[VUID-StandaloneSpirv-Location-04919] member {n} of {sname} (the type of the {dir} {name}) has no Location, and {name} has none"
            );
            let d = cx.error_at(MEMBER, i, k, msg);
            d.label = format!("member {n} of {sname} needs a Location");
            d.help = Some(format!("add `OpMemberDecorate {sname} {n} Location N`, or decorate {name} with Location"));
            return;
        };
        let nloc = match num_locations(cx, m.ty, 0) {
            Ok(v) => v,
            Err(e) => {
                no_location(cx, i, k, var, e);
                return;
            }
        };
        let ncomp = num_components(cx, m.ty, 0);
        let component = comps.get(&(n as u32)).copied().unwrap_or(0);
        // In 32 bits, wrapping, as spirv-val v2025.5.
        let start = location.wrapping_mul(4);
        if MAX_LOCATIONS <= u64::from(start) {
            continue;
        }
        let is_array = matches!(ir.ty(m.ty).map(|t| &t.ty), Some(Type::Array { .. }));
        let mut claims: Vec<u32> = Vec::new();
        if is_array && (1..4).contains(&ncomp) {
            for l in (location..location.wrapping_add(nloc)).take(1 << 16) {
                for c in component..component.wrapping_add(ncomp) {
                    claims.push(l.wrapping_mul(4).wrapping_add(c));
                }
            }
        } else {
            let (s, e) = if ncomp != 0 {
                (start.wrapping_add(component), start.wrapping_add(component).wrapping_add(ncomp))
            } else {
                (start, location.wrapping_add(nloc).wrapping_mul(4))
            };
            claims.extend((s..e).take(1 << 18));
        }
        let who = |cx: &mut Context<'_>| format!("member {n} of {}", cx.name(st));
        if claim(cx, (i, k), set, claims, output, who) {
            return;
        }
    }
}
