//! Explicit layout of buffer blocks: the structs of Uniform, StorageBuffer and
//! PushConstant variables must give every member an Offset, every array an
//! ArrayStride, and every matrix a MatrixStride and RowMajor or ColMajor
//! (SPIR-V spec 2.16.2 "Validation Rules for Shader Capabilities", 2.18.2
//! "Offset and Stride Assignment"; spirv-val's validate_decorations,
//! v2025.5). Not the module's section order, which is `layout.rs`.

use super::Context;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::grammar::{decoration as dec, op, storage_class as sc};
use crate::ir::Type;
use crate::ir::layout::{Explicit, MatrixLayout, Rules};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.explicit-layout.missing",
        summary: "A buffer block's members, arrays and matrices must be explicitly laid out.",
        explanation: "SPIR-V spec 2.16.2: a struct decorated Block or BufferBlock that is the type \
                  of a Uniform, StorageBuffer or PushConstant variable (and every struct nested \
                  in it) must give each member an Offset; each array type in it an ArrayStride; \
                  each matrix member (or array of matrices) a MatrixStride and RowMajor or \
                  ColMajor. These decorations are the memory layout the host shares with the \
                  shader. Fix: add `OpMemberDecorate %struct N Offset B`, `OpDecorate %array \
                  ArrayStride S`, `OpMemberDecorate %struct N MatrixStride 16` and `ColMajor`.",
    },
    Rule {
        code: "inst.explicit-layout.rules",
        summary: "In Vulkan, a buffer block's offsets and strides must follow its layout rules.",
        explanation: "Vulkan 15.6.4 \"Offset and Stride Assignment\": each member's Offset is a \
                  multiple of its alignment (standard layout: scalars their size, two-component \
                  vectors twice, three- and four-component vectors four times their component's \
                  size; uniform buffers (extended layout) round arrays and structs up to 16 \
                  bytes; relaxed layout (Vulkan 1.1, --relax-block-layout) lets a vector sit at \
                  its component's alignment if it does not straddle 16 bytes; scalar layout \
                  (--scalar-block-layout) needs only the scalar alignment), members do not \
                  overlap, a runtime array comes last, and ArrayStride and MatrixStride are \
                  multiples of the alignment and at least the element's size. \
                  --uniform-buffer-standard-layout gives Uniform blocks the standard rules; \
                  --skip-block-layout skips these checks. Fix: choose offsets and strides as the \
                  rules say (a GLSL compiler's std140/std430 output does).",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

const MISSING: &str = "inst.explicit-layout.missing";
const LAYOUT: &str = "inst.explicit-layout.rules";

/// The pass.
pub(super) fn check(cx: &mut Context<'_>) {
    let ir = cx.ir();
    // (struct, member, what) already reported.
    let mut reported: Vec<(u32, u32, u8)> = Vec::new();
    for v in &ir.globals {
        if !matches!(
            v.storage,
            sc::Uniform | sc::StorageBuffer | sc::PushConstant
        ) {
            continue;
        }
        let Some(mut data) = v.pointee else { continue };
        if let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) =
            ir.ty(data).map(|t| &t.ty)
        {
            data = *element;
        }
        if !matches!(ir.ty(data).map(|t| &t.ty), Some(Type::Struct { .. })) {
            continue;
        }
        let block = ir.has_decoration(data, dec::Block);
        let buffer_block = ir.has_decoration(data, dec::BufferBlock);
        let deco = match v.storage {
            sc::Uniform if block => "Block",
            sc::Uniform if buffer_block => "BufferBlock",
            sc::StorageBuffer | sc::PushConstant if block => "Block",
            _ => continue,
        };
        let var = Var {
            id: v.id,
            storage: v.storage,
            deco,
        };
        let before = cx.diags.len();
        offsets(cx, data, &var, &mut reported);
        strides(cx, data, &var, &mut reported);
        if cx.diags.len() == before && cx.opts.env.is_vulkan() && !cx.opts.skip_block_layout {
            let mode = Mode {
                extended: v.storage == sc::Uniform
                    && deco == "Block"
                    && !cx.opts.uniform_buffer_standard_layout,
                scalar: cx.opts.scalar_block_layout,
                relaxed: cx.opts.relax_block_layout || cx.opts.env != crate::TargetEnv::Vulkan1_0,
            };
            let lay = Explicit::new(ir, mode.rules());
            if let Some(Err(e)) = struct_layout(cx, &mode, &lay, data, 0, 0) {
                report_layout(cx, e, &var, &mode);
            }
        }
    }
}

/// The variable whose type requires the layout.
struct Var {
    id: u32,
    storage: u32,
    deco: &'static str,
}

fn members(cx: &Context<'_>, st: u32) -> Vec<u32> {
    match cx.ir().ty(st).map(|t| &t.ty) {
        Some(Type::Struct { members }) => members.iter().map(|m| m.ty).collect(),
        _ => Vec::new(),
    }
}

fn report(
    cx: &mut Context<'_>,
    st: u32,
    m: u32,
    what: &str,
    var: &Var,
    reported: &mut Vec<(u32, u32, u8)>,
    kind: u8,
) {
    if reported.contains(&(st, m, kind)) {
        return;
    }
    reported.push((st, m, kind));
    let Some(i) = cx.def(st) else { return };
    let sname = cx.name(st);
    let vname = cx.name(var.id);
    let class = crate::grammar::OperandKind::StorageClass
        .enumerant(var.storage)
        .map_or("?", |e| e.name);
    let msg = format!(
        "member {m} of {sname} needs {what}: the struct is laid out explicitly because {class} variable {vname} uses it (decorated {})",
        var.deco
    );
    cx.error_at(MISSING, i, m as usize + 1, msg).label = format!("needs {what}");
}

/// Every member of `st` and of the structs nested in it (through arrays) has an Offset.
fn offsets(cx: &mut Context<'_>, st: u32, var: &Var, reported: &mut Vec<(u32, u32, u8)>) {
    let ir = cx.ir();
    let mut stack = alloc::vec![st];
    let mut seen: Vec<u32> = Vec::new();
    while let Some(t) = stack.pop() {
        if seen.contains(&t) || seen.len() > 4096 {
            continue;
        }
        seen.push(t);
        let ms = members(cx, t);
        for (k, &m) in ms.iter().enumerate() {
            let k = k as u32;
            let has = ir
                .member_decoration(t, k, dec::Offset)
                .is_some_and(|d| d.arg(ir) != Some(u32::MAX));
            if !has {
                report(cx, t, k, "an Offset decoration", var, reported, 0);
            }
            // Nested structs, also as array elements.
            let mut e = m;
            while let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) =
                ir.ty(e).map(|t| &t.ty)
            {
                e = *element;
            }
            if matches!(ir.ty(e).map(|t| &t.ty), Some(Type::Struct { .. })) {
                stack.push(e);
            }
        }
    }
}

/// Array members need an ArrayStride; matrix members (or arrays of matrices)
/// a MatrixStride and RowMajor or ColMajor; in `st` and its struct members
/// (spirv-val does not look into arrays of structs for these).
fn strides(cx: &mut Context<'_>, st: u32, var: &Var, reported: &mut Vec<(u32, u32, u8)>) {
    let ir = cx.ir();
    let mut stack = alloc::vec![st];
    let mut seen: Vec<u32> = Vec::new();
    while let Some(t) = stack.pop() {
        if seen.contains(&t) || seen.len() > 4096 {
            continue;
        }
        seen.push(t);
        for (k, &m) in members(cx, t).iter().enumerate() {
            let k = k as u32;
            let on = |d: u32, ty: u32| {
                ir.has_decoration(ty, d) || ir.member_decoration(t, k, d).is_some()
            };
            match ir.ty(m).map(|t| &t.ty) {
                Some(Type::Array { .. }) if !on(dec::ArrayStride, m) => {
                    let what =
                        format!("an ArrayStride decoration on its array type {}", cx.name(m));
                    report(cx, t, k, &what, var, reported, 1);
                }
                Some(Type::Struct { .. }) => stack.push(m),
                _ => {}
            }
            let mut e = m;
            while let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) =
                ir.ty(e).map(|t| &t.ty)
            {
                e = *element;
            }
            if matches!(ir.ty(e).map(|t| &t.ty), Some(Type::Matrix { .. })) {
                if !on(dec::MatrixStride, e) {
                    report(
                        cx,
                        t,
                        k,
                        "a MatrixStride decoration (it holds a matrix)",
                        var,
                        reported,
                        2,
                    );
                }
                if !on(dec::RowMajor, e) && !on(dec::ColMajor, e) {
                    report(
                        cx,
                        t,
                        k,
                        "a RowMajor or ColMajor decoration (it holds a matrix)",
                        var,
                        reported,
                        3,
                    );
                }
            }
        }
    }
}

/// The layout rules in force for one variable.
struct Mode {
    /// Uniform Block: the extended alignment (arrays and structs round up to 16).
    extended: bool,
    scalar: bool,
    relaxed: bool,
}

impl Mode {
    /// The rule set that gives the alignments (the scalar layout's, where
    /// it is in force, for uniform blocks too).
    fn rules(&self) -> Rules {
        if self.scalar {
            Rules::Scalar
        } else if self.extended {
            Rules::Extended
        } else {
            Rules::Standard
        }
    }
}

fn aligned(x: u32, a: u32) -> bool {
    if a == 0 { x == 0 } else { x.is_multiple_of(a) }
}

/// The end of a member rounded up to the next one's alignment (a power of
/// two, as the rules' alignments are).
fn round_up(x: u32, a: u32) -> u32 {
    x.wrapping_add(a.wrapping_sub(1)) & !a.wrapping_sub(1)
}

/// The first broken rule: the struct, the member, and what is wrong.
struct Broken {
    st: u32,
    member: u32,
    what: String,
}

fn opcode_of<'a>(cx: &Context<'a>, t: u32) -> Option<&'a Type> {
    cx.ir().ty(t).map(|t| &t.ty)
}

/// Check struct `st` placed at `incoming`; `None` when a type cannot be
/// sized (then nothing is said), `Some(Err)` at the first broken rule.
fn struct_layout(
    cx: &Context<'_>,
    mode: &Mode,
    lay: &Explicit<'_>,
    st: u32,
    incoming: u32,
    depth: u32,
) -> Option<Result<(), Broken>> {
    if depth > 32 {
        return None;
    }
    let members = cx.ir().ty(st).map_or(&[][..], |t| t.members());
    let mut order: Vec<(u32, u32)> = Vec::with_capacity(members.len());
    for (k, m) in members.iter().enumerate() {
        order.push((k as u32, incoming.wrapping_add(m.offset?)));
    }
    order.sort_by_key(|&(_, off)| off);
    let fail = |member: u32, what: String| Some(Err(Broken { st, member, what }));
    let mut next = 0u32;
    for (pos, &(m, off)) in order.iter().enumerate() {
        let t = members[m as usize].ty;
        let mx = MatrixLayout::of(&members[m as usize]);
        let align = lay.align(t, mx)?;
        let size = lay.size(t, mx)? as u32;
        let ty = opcode_of(cx, t)?;
        if matches!(ty, Type::RuntimeArray { .. }) && pos + 1 != order.len() {
            return fail(
                m,
                format!(
                    "is a runtime array at offset {off}, but other members are at larger offsets"
                ),
            );
        }
        let relaxed_vector = !mode.scalar && mode.relaxed && matches!(ty, Type::Vector { .. });
        if relaxed_vector {
            let &Type::Vector { component, .. } = ty else {
                return None;
            };
            let sa = lay.scalar_align(component)?;
            if !aligned(off, sa) {
                return fail(
                    m,
                    format!("at offset {off} is not aligned to its scalar element size {sa}"),
                );
            }
        } else if !aligned(off, align) {
            return fail(m, format!("at offset {off} is not aligned to {align}"));
        }
        if off < next {
            return fail(
                m,
                format!(
                    "at offset {off} overlaps the previous member, which ends at offset {}",
                    next - 1
                ),
            );
        }
        if relaxed_vector {
            let last = off.wrapping_add(size).wrapping_sub(1);
            let straddles = if size <= 16 {
                off >> 4 != last >> 4
            } else {
                off % 16 != 0
            };
            if straddles {
                return fail(
                    m,
                    format!("is a vector at offset {off} that straddles a 16-byte boundary"),
                );
            }
        }
        if matches!(ty, Type::Struct { .. })
            && let Err(e) = struct_layout(cx, mode, lay, t, off, depth + 1)? {
                return Some(Err(e));
            }
        if matches!(ty, Type::Matrix { .. }) && !aligned(mx.stride, align) {
            return fail(
                m,
                format!(
                    "is a matrix with MatrixStride {} not a multiple of its alignment {align}",
                    mx.stride
                ),
            );
        }
        let mut a = t;
        let mut a_align = align;
        while let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) =
            opcode_of(cx, a)
        {
            let element = *element;
            let mut stride = 0;
            for d in cx
                .ir()
                .decorations_of(a)
                .iter()
                .filter(|d| d.member.is_none() && d.decoration == dec::ArrayStride)
            {
                stride = d.arg(cx.ir())?;
                if stride == 0 {
                    return fail(m, String::from("holds an array with ArrayStride 0"));
                }
                if !aligned(stride, a_align) {
                    return fail(
                        m,
                        format!(
                            "holds an array with ArrayStride {stride}, not a multiple of its alignment {align}"
                        ),
                    );
                }
            }
            let mut count = 0;
            if let Some(Type::Array { length, .. }) = opcode_of(cx, a)
                && let Some(def) = cx.def(*length)
                && cx.insts()[def].opcode == op::OpConstant
                && let Some(Type::Int { width: 32, .. }) =
                    cx.ir().result_type(def).and_then(|rt| opcode_of(cx, rt))
            {
                count = cx.insts()[def].operands.get(2).copied().unwrap_or(0);
            }
            match opcode_of(cx, element)? {
                Type::Struct { .. } => {
                    let mut seen = [false; 16];
                    for i in 0..count.max(1) {
                        let at = i.wrapping_mul(stride).wrapping_add(off);
                        if seen[(at % 16) as usize] {
                            break;
                        }
                        if let Err(e) = struct_layout(cx, mode, lay, element, at, depth + 1)? {
                            return Some(Err(e));
                        }
                        seen[(at % 16) as usize] = true;
                    }
                }
                Type::Matrix { .. } if !aligned(mx.stride, align) => {
                    return fail(
                        m,
                        format!(
                            "holds matrices with MatrixStride {} not a multiple of their alignment {align}",
                            mx.stride
                        ),
                    );
                }
                _ => {}
            }
            a = element;
            a_align = lay.align(a, mx)?;
            let esize = lay.size(a, mx)? as u32;
            if esize > stride {
                return fail(
                    m,
                    format!(
                        "holds an array with ArrayStride {stride}, smaller than its element size {esize}"
                    ),
                );
            }
        }
        next = off.wrapping_add(size);
        if !mode.scalar && matches!(ty, Type::Array { .. } | Type::Struct { .. }) {
            next = round_up(next, align);
        }
    }
    Some(Ok(()))
}

fn report_layout(cx: &mut Context<'_>, e: Broken, var: &Var, mode: &Mode) {
    let Some(i) = cx.def(e.st) else { return };
    let sname = cx.name(e.st);
    let vname = cx.name(var.id);
    let class = crate::grammar::OperandKind::StorageClass
        .enumerant(var.storage)
        .map_or("?", |e| e.name);
    let rules = if mode.scalar {
        "scalar"
    } else if mode.relaxed {
        "relaxed"
    } else {
        "standard"
    };
    let kind = if mode.extended {
        "uniform buffer"
    } else {
        "storage buffer"
    };
    let msg = format!(
        "member {} of {sname} {}: {class} variable {vname} (decorated {}) follows the {rules} {kind} layout rules",
        e.member, e.what, var.deco
    );
    let d = cx.error_at(LAYOUT, i, e.member as usize + 1, msg);
    d.label = String::from("breaks the layout rules");
    if !mode.scalar {
        d.help = Some(String::from(
            "spirv-val's --relax-block-layout, --uniform-buffer-standard-layout and --scalar-block-layout select laxer rules",
        ));
    }
}
