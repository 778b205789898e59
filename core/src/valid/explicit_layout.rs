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
                ptr: pointer_size(cx),
            };
            if let Some(Err(e)) = struct_layout(cx, &mode, data, 0, 0) {
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
    /// The size and alignment of a pointer (by the addressing model).
    ptr: u32,
}

fn pointer_size(cx: &Context<'_>) -> u32 {
    let mm = cx
        .insts()
        .iter()
        .take(64)
        .find(|i| i.opcode == crate::grammar::op::OpMemoryModel);
    match mm.and_then(|i| i.operands.first()) {
        Some(&crate::grammar::addressing_model::Physical32) => 4,
        _ => 8,
    }
}

/// A member's matrix layout: row-major, and its MatrixStride (0 if none).
#[derive(Clone, Copy, Default)]
struct Matrix {
    row_major: bool,
    stride: u32,
}

fn matrix_of(cx: &Context<'_>, st: u32, m: u32) -> Matrix {
    let ir = cx.ir();
    let mut out = Matrix::default();
    for d in ir.decorations_of(st).iter().filter(|d| d.member == Some(m)) {
        match d.decoration {
            dec::RowMajor => out.row_major = true,
            dec::ColMajor => out.row_major = false,
            dec::MatrixStride => out.stride = d.arg(ir).unwrap_or(0),
            _ => {}
        }
    }
    out
}

fn member_offset(cx: &Context<'_>, st: u32, m: u32) -> Option<u32> {
    let ir = cx.ir();
    ir.decorations_of(st)
        .iter().rfind(|d| d.member == Some(m) && d.decoration == dec::Offset)
        .and_then(|d| d.arg(ir))
}

fn aligned(x: u32, a: u32) -> bool {
    if a == 0 { x == 0 } else { x.is_multiple_of(a) }
}

fn round_up(x: u32, a: u32) -> u32 {
    x.wrapping_add(a.wrapping_sub(1)) & !a.wrapping_sub(1)
}

fn vec_factor(n: u32) -> u32 {
    if n == 3 { 4 } else { n }
}

/// The scalar alignment of `t` (None for a type the rules do not size).
fn scalar_align(cx: &Context<'_>, mode: &Mode, t: u32, depth: u32) -> Option<u32> {
    if depth > 64 {
        return None;
    }
    Some(match &cx.ir().ty(t)?.ty {
        Type::Int { width, .. } | Type::Float { width, .. } => width / 8,
        Type::Vector { component: e, .. }
        | Type::Matrix { column: e, .. }
        | Type::Array { element: e, .. }
        | Type::RuntimeArray { element: e } => scalar_align(cx, mode, *e, depth + 1)?,
        Type::Struct { members } => {
            let mut a = 1;
            for m in members {
                a = a.max(scalar_align(cx, mode, m.ty, depth + 1)?);
            }
            a
        }
        Type::Pointer { .. } => mode.ptr,
        _ => return None,
    })
}

/// The base alignment of `t` (extended: rounded up to 16 for arrays, matrices
/// and structs), with the member's matrix layout `mx`.
fn base_align(cx: &Context<'_>, mode: &Mode, t: u32, mx: Matrix, depth: u32) -> Option<u32> {
    if depth > 64 {
        return None;
    }
    let ir = cx.ir();
    let up = |a: u32| if mode.extended { round_up(a, 16) } else { a };
    Some(match &ir.ty(t)?.ty {
        Type::Int { width, .. } | Type::Float { width, .. } => width / 8,
        Type::Vector { component, count } => {
            base_align(cx, mode, *component, mx, depth + 1)? * vec_factor(*count)
        }
        Type::Matrix { column, columns } => up(if mx.row_major {
            let Type::Vector { component, .. } = ir.ty(*column)?.ty else {
                return None;
            };
            base_align(cx, mode, component, mx, depth + 1)? * vec_factor(*columns)
        } else {
            base_align(cx, mode, *column, mx, depth + 1)?
        }),
        Type::Array { element, .. } | Type::RuntimeArray { element } => {
            up(base_align(cx, mode, *element, mx, depth + 1)?)
        }
        Type::Struct { members } => {
            let mut a = 1;
            for (k, m) in members.iter().enumerate() {
                a = a.max(base_align(
                    cx,
                    mode,
                    m.ty,
                    matrix_of(cx, t, k as u32),
                    depth + 1,
                )?);
            }
            up(a)
        }
        Type::Pointer { .. } => mode.ptr,
        _ => return None,
    })
}

fn align_of(cx: &Context<'_>, mode: &Mode, t: u32, mx: Matrix) -> Option<u32> {
    if mode.scalar {
        scalar_align(cx, mode, t, 0)
    } else {
        base_align(cx, mode, t, mx, 0)
    }
}

fn array_stride(cx: &Context<'_>, t: u32) -> Option<u32> {
    let ir = cx.ir();
    ir.decorations_of(t)
        .iter()
        .find(|d| d.member.is_none() && d.decoration == dec::ArrayStride)
        .and_then(|d| d.arg(ir))
}

/// The size of `t` without trailing padding (0 for a runtime array or an
/// array sized by a specialization constant).
fn size_of(cx: &Context<'_>, mode: &Mode, t: u32, mx: Matrix, depth: u32) -> Option<u32> {
    if depth > 64 {
        return None;
    }
    let ir = cx.ir();
    Some(match &ir.ty(t)?.ty {
        Type::Int { width, .. } | Type::Float { width, .. } => width / 8,
        Type::Vector { component, count } => {
            size_of(cx, mode, *component, mx, depth + 1)?.wrapping_mul(*count)
        }
        Type::Array {
            element, length, ..
        } => {
            let def = cx.def(*length)?;
            let inst = &cx.insts()[def];
            if matches!(
                inst.opcode,
                op::OpSpecConstant
                    | op::OpSpecConstantOp
                    | op::OpSpecConstantTrue
                    | op::OpSpecConstantFalse
                    | op::OpSpecConstantComposite
            ) {
                0
            } else {
                let n = *inst.operands.get(2)?;
                let stride = array_stride(cx, t).unwrap_or(0);
                n.wrapping_sub(1).wrapping_mul(stride).wrapping_add(size_of(
                    cx,
                    mode,
                    *element,
                    mx,
                    depth + 1,
                )?)
            }
        }
        Type::RuntimeArray { .. } => 0,
        Type::Matrix { column, columns } => {
            if mx.row_major {
                let Type::Vector { component, count } = ir.ty(*column)?.ty else {
                    return None;
                };
                count.wrapping_sub(1).wrapping_mul(mx.stride).wrapping_add(
                    columns.wrapping_mul(size_of(cx, mode, component, mx, depth + 1)?),
                )
            } else {
                columns.wrapping_mul(mx.stride)
            }
        }
        Type::Struct { members } => {
            let Some(last) = members.len().checked_sub(1) else {
                return Some(0);
            };
            let off = member_offset(cx, t, last as u32)?;
            off.wrapping_add(size_of(
                cx,
                mode,
                members[last].ty,
                matrix_of(cx, t, last as u32),
                depth + 1,
            )?)
        }
        Type::Pointer { .. } => mode.ptr,
        _ => return None,
    })
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
    st: u32,
    incoming: u32,
    depth: u32,
) -> Option<Result<(), Broken>> {
    if depth > 32 {
        return None;
    }
    let members = members(cx, st);
    let mut order: Vec<(u32, u32)> = Vec::with_capacity(members.len());
    for k in 0..members.len() as u32 {
        order.push((k, incoming.wrapping_add(member_offset(cx, st, k)?)));
    }
    order.sort_by_key(|&(_, off)| off);
    let fail = |member: u32, what: String| Some(Err(Broken { st, member, what }));
    let mut next = 0u32;
    for (pos, &(m, off)) in order.iter().enumerate() {
        let t = members[m as usize];
        let mx = matrix_of(cx, st, m);
        let align = align_of(cx, mode, t, mx)?;
        let size = size_of(cx, mode, t, mx, 0)?;
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
            let sa = scalar_align(cx, mode, component, 0)?;
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
            && let Err(e) = struct_layout(cx, mode, t, off, depth + 1)? {
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
                        if let Err(e) = struct_layout(cx, mode, element, at, depth + 1)? {
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
            a_align = align_of(cx, mode, a, mx)?;
            let esize = size_of(cx, mode, a, mx, 0)?;
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
