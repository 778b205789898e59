//! What the instruction rules share: the shape of a numeric type (scalar or
//! vector of bool, int or float), an operand's type, and types described by the
//! module's names for messages ("%v4float, a vector of 4 32-bit floats").

use super::Context;
use crate::ir::Type;
use alloc::format;
use alloc::string::String;

/// The component kind of a scalar or vector type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Num {
    Bool,
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

/// A scalar (`count` 1, `vector` false) or vector of bool, int or float.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    pub num: Num,
    /// The component type's id (the type itself for a scalar).
    pub component: u32,
    pub count: u32,
    pub vector: bool,
}

impl Shape {
    pub fn is_int(&self) -> bool {
        matches!(self.num, Num::Int { .. })
    }
    pub fn is_uint(&self) -> bool {
        matches!(self.num, Num::Int { signed: false, .. })
    }
    pub fn is_float(&self) -> bool {
        matches!(self.num, Num::Float { .. })
    }
    pub fn is_bool(&self) -> bool {
        self.num == Num::Bool
    }
    /// The component width in bits (bool: 0).
    pub fn width(&self) -> u32 {
        match self.num {
            Num::Bool => 0,
            Num::Int { width, .. } | Num::Float { width } => width,
        }
    }
}

fn scalar(cx: &Context<'_>, ty: u32) -> Option<Num> {
    match cx.ir().ty(ty)?.ty {
        Type::Bool => Some(Num::Bool),
        Type::Int { width, signed } => Some(Num::Int { width, signed }),
        Type::Float { width, .. } => Some(Num::Float { width }),
        _ => None,
    }
}

/// The shape of type `ty`, when it is a scalar or vector of bool, int or float.
pub(super) fn shape(cx: &Context<'_>, ty: u32) -> Option<Shape> {
    if let Some(num) = scalar(cx, ty) {
        return Some(Shape {
            num,
            component: ty,
            count: 1,
            vector: false,
        });
    }
    match cx.ir().ty(ty)?.ty {
        Type::Vector { component, count } => Some(Shape {
            num: scalar(cx, component)?,
            component,
            count,
            vector: true,
        }),
        _ => None,
    }
}

/// Whether `ty` is a type the instruction rules know (void, scalars, vectors,
/// matrices, composites, pointers...), not one of the extensions' (cooperative
/// matrices and vectors) whose rules are not written here: the rules skip an
/// instruction whose result type is not known.
pub(super) fn known(cx: &Context<'_>, ty: u32) -> bool {
    cx.ir()
        .ty(ty)
        .is_some_and(|t| !matches!(t.ty, Type::Other { .. } | Type::Opaque { .. }))
}

/// The Result Type of instruction `i` when it has one that the rules know
/// (see [`known`]).
pub(super) fn known_result(cx: &Context<'_>, i: usize) -> Option<u32> {
    let rt = cx.ir().result_type(i)?;
    known(cx, rt).then_some(rt)
}

/// The type of operand `k` of instruction `i` (a value's result type; `None`
/// for a type, a label or anything else without one).
pub(super) fn operand_type(cx: &Context<'_>, i: usize, k: usize) -> Option<u32> {
    value_type(cx, *cx.operand_words(i, k).first()?)
}

/// The result type of value `id` (as [`Context::type_of`], from the defining
/// instruction's parsed operands rather than its grammar entry: this runs for
/// every operand of every arithmetic instruction).
fn value_type(cx: &Context<'_>, id: u32) -> Option<u32> {
    cx.ir().result_type(cx.def(id)?)
}

/// The id of operand `k` of instruction `i`.
pub(super) fn operand_id(cx: &Context<'_>, i: usize, k: usize) -> Option<u32> {
    cx.operand_words(i, k).first().copied()
}

/// The number of operands of instruction `i` (result type and id included).
pub(super) fn count(cx: &Context<'_>, i: usize) -> usize {
    cx.operands(i).len()
}

fn plural(n: u32, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

fn num_words(n: Num) -> String {
    match n {
        Num::Bool => "bool".into(),
        Num::Int { width, signed: true } => format!("{width}-bit signed int"),
        Num::Int { width, signed: false } => format!("{width}-bit unsigned int"),
        Num::Float { width } => format!("{width}-bit float"),
    }
}

/// What type `ty` is, in words: "a 32-bit float", "a vector of 4 32-bit
/// floats", "a pointer", "a struct"...
pub(super) fn kind_words(cx: &Context<'_>, ty: u32) -> String {
    if let Some(s) = shape(cx, ty) {
        return if s.vector {
            format!("a vector of {}", plural(s.count, &num_words(s.num)))
        } else {
            let w = num_words(s.num);
            format!("{} {w}", if w.starts_with('8') { "an" } else { "a" })
        };
    }
    match cx.ir().ty(ty).map(|t| &t.ty) {
        Some(Type::Void) => "void".into(),
        Some(Type::Matrix { columns, .. }) => format!("a matrix of {}", plural(*columns, "column")),
        Some(Type::Array { .. }) => "an array".into(),
        Some(Type::RuntimeArray { .. }) => "a runtime array".into(),
        Some(Type::Struct { .. }) => "a struct".into(),
        Some(Type::Pointer { .. }) => "a pointer".into(),
        Some(Type::Function { .. }) => "a function type".into(),
        Some(Type::Image { .. }) => "an image".into(),
        Some(Type::Sampler) => "a sampler".into(),
        Some(Type::SampledImage { .. }) => "a sampled image".into(),
        Some(_) => "an opaque type".into(),
        None => "not a type".into(),
    }
}

/// Type `ty` by its name and what it is: "%v4float (a vector of 4 32-bit floats)".
pub(super) fn describe(cx: &mut Context<'_>, ty: u32) -> String {
    let words = kind_words(cx, ty);
    format!("{} ({words})", cx.name(ty))
}

/// Operand `k` of instruction `i` by its name and type: "%a, of type %float (a
/// 32-bit float)", or "%T, which is not a value" for an id without a type.
pub(super) fn describe_operand(cx: &mut Context<'_>, i: usize, k: usize) -> String {
    let Some(id) = operand_id(cx, i, k) else {
        return "the operand".into();
    };
    let name = cx.name(id);
    match value_type(cx, id) {
        Some(t) => format!("{name}, of type {}", describe(cx, t)),
        None => format!("{name}, which is not a value with a type"),
    }
}

/// The opcode name of instruction `i` ("OpIAdd").
pub(super) fn opname(cx: &Context<'_>, i: usize) -> &'static str {
    cx.desc(i).map_or("the instruction", |d| d.name)
}

/// The grammar's name of operand `k` of instruction `i` ("Operand 1", "Base").
fn operand_name(cx: &Context<'_>, i: usize, k: usize) -> &'static str {
    let ops = cx.desc(i).map_or(&[][..], |d| d.operands);
    match ops.get(k).or(ops.last()) {
        Some(o) if !o.name.is_empty() => o.name,
        _ => "operand",
    }
}

/// Report that instruction `i`'s Result Type is not `expected` ("an int
/// scalar or vector"), at the result type's token.
pub(super) fn bad_result(cx: &mut Context<'_>, code: &'static str, i: usize, expected: &str) {
    let Some(rt) = cx.ir().result_type(i) else { return };
    let op = opname(cx, i);
    let got = describe(cx, rt);
    let m = format!("{op} Result Type {got} must be {expected}");
    cx.error_at(code, i, 0, m).label = format!("must be {expected}");
}

/// Report that operand `k` of instruction `i` is not `expected`, at its token.
pub(super) fn bad_operand(cx: &mut Context<'_>, code: &'static str, i: usize, k: usize, expected: &str) {
    let op = opname(cx, i);
    let what = operand_name(cx, i, k);
    let got = describe_operand(cx, i, k);
    let m = format!("{op} {what} {got}, must be {expected}");
    cx.error_at(code, i, k, m).label = format!("must be {expected}");
}
