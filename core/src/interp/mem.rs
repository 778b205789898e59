//! Values, pointers, and memory: per-invocation variables held as values,
//! buffers as bytes read and written by the module's explicit layout.

use super::error::{Indexed, RunErrorKind, Shapes, TypeProblem};
use crate::ir::{Ir, Type};
use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

/// A buffer a variable points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BufKey {
    Binding(u32, u32),
    PushConstant,
    /// The workgroup's memory that the Block-decorated Workgroup variables
    /// share (SPV_KHR_workgroup_memory_explicit_layout): they alias one
    /// another, laid out by Offset and ArrayStride. Zeroed for each workgroup.
    Workgroup,
}

/// A value: a scalar's bits (zero-extended from its width; booleans 0 or 1),
/// a composite (vector, matrix, array, struct), or a pointer.
#[derive(Debug, PartialEq)]
pub(super) enum Val {
    Scalar(u64),
    Composite(Vec<Val>),
    Pointer(Ptr),
    /// An undefined scalar (OpUndef, memory never written): arithmetic on
    /// it gives it again; a branch on it, or a store of it into a buffer
    /// (the run's output), is an error.
    Undef,
}

impl Clone for Val {
    fn clone(&self) -> Val {
        match self {
            Val::Scalar(x) => Val::Scalar(*x),
            Val::Composite(items) => Val::Composite(items.clone()),
            Val::Pointer(p) => Val::Pointer(p.clone()),
            Val::Undef => Val::Undef,
        }
    }

    /// Reuses a composite's allocation (an invocation's memory is set up
    /// again in place from the module's initial values).
    fn clone_from(&mut self, src: &Val) {
        match (self, src) {
            (Val::Scalar(a), Val::Scalar(b)) => *a = *b,
            // One as long (a vector, usually of scalars): in place, a
            // scalar over a scalar without the recursive call.
            (Val::Composite(a), Val::Composite(b)) if a.len() == b.len() => {
                for (x, y) in a.iter_mut().zip(b) {
                    match (x, y) {
                        (Val::Scalar(x), Val::Scalar(y)) => *x = *y,
                        (x, y) => x.clone_from(y),
                    }
                }
            }
            (Val::Composite(a), Val::Composite(b)) => a.clone_from(b),
            (a, b) => *a = b.clone(),
        }
    }
}

/// `v` with every scalar undefined.
pub(super) fn undefined(v: &Val) -> Val {
    match v {
        Val::Composite(items) => Val::Composite(items.iter().map(undefined).collect()),
        Val::Pointer(p) => Val::Pointer(p.clone()),
        _ => Val::Undef,
    }
}

/// Whether any scalar of `v` is undefined.
pub(super) fn has_undef(v: &Val) -> bool {
    match v {
        Val::Undef => true,
        Val::Composite(items) => items.iter().any(has_undef),
        _ => false,
    }
}

/// The undefined value of type `ty`.
pub(super) fn undef(ir: &Ir, ty: u32) -> Val {
    undefined(&zero(ir, ty))
}

/// A pointer: the type it points to and where.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ptr {
    pub ty: u32,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Loc {
    /// Per-invocation variable `var`, at the component path `path`.
    Var { var: u32, path: Vec<u32> },
    /// Workgroup variable `var` (shared by the invocations of a workgroup).
    Shared { var: u32, path: Vec<u32> },
    /// Byte `off` of buffer `buf`. `vstride`: the byte step between the
    /// components of a vector (a column of a row-major matrix), 0 when they
    /// are packed. `mat`: the MatrixStride and RowMajor that apply to the
    /// matrices below this point.
    Buf {
        buf: u32,
        off: u64,
        vstride: u32,
        mat: Option<(u32, bool)>,
    },
    /// Memory the interpreter does not hold (the reason).
    Unsupported(Box<RunErrorKind>),
    /// An image descriptor: its bytes are buffer `buf`, its description
    /// `Program::images[img]` (see `image.rs`).
    Image { buf: u32, img: u32 },
    /// A sampler descriptor: its state is `Program::samplers[smp]`.
    Sampler { smp: u32 },
    /// An array of descriptors, by element.
    Descs(Vec<Loc>),
}

/// A memory error: an access past the end of a buffer (offset, size), or a
/// message.
pub(super) enum MemErr {
    Oob(u64, u64),
    /// An undefined value stored at this byte offset of a buffer.
    Undef(u64),
    /// Another fault.
    Fault(RunErrorKind),
}

impl From<RunErrorKind> for MemErr {
    fn from(k: RunErrorKind) -> MemErr {
        MemErr::Fault(k)
    }
}

/// The zero value of type `ty`.
pub(super) fn zero(ir: &Ir, ty: u32) -> Val {
    zero_at(ir, ty, 0)
}

/// The most scalar components one value the interpreter holds may have (a
/// Function, Private or Workgroup variable, a null constant, an undef): a
/// bigger one is "not supported", not an allocation that takes the machine down.
pub(super) const MAX_VALUES: u64 = 1 << 22;

/// The number of scalar components of a value of type `ty` (saturating).
pub(super) fn value_count(ir: &Ir, ty: u32) -> u64 {
    count_at(ir, ty, 0)
}

fn count_at(ir: &Ir, ty: u32, depth: u32) -> u64 {
    let Some(t) = ir.ty(ty) else { return 1 };
    if depth > MAX_NESTING {
        return 1;
    }
    let count = |t: u32| count_at(ir, t, depth + 1);
    match &t.ty {
        Type::Vector { count, .. } => (*count as u64).max(1),
        Type::Matrix { column, columns } => count(*column).saturating_mul(*columns as u64),
        Type::Array { element, len, .. } => count(*element).saturating_mul(len.unwrap_or(0)),
        Type::Struct { members } => members.iter().fold(0u64, |a, m| a.saturating_add(count(m.ty))),
        _ => 1,
    }
}

/// The most scalar components a workgroup's memory may hold at once, all its
/// invocations' Private and Function variables and its Workgroup memory
/// together (about 256 MB): beyond it a run stops with an error.
pub(super) const MAX_RUN_VALUES: u64 = 1 << 23;

/// The number of scalar components of a value.
pub(super) fn val_count(v: &Val) -> u64 {
    match v {
        Val::Composite(items) => items.iter().map(val_count).fold(0u64, u64::saturating_add),
        _ => 1,
    }
}

/// An error when a value of type `ty` is too big to hold.
pub(super) fn check_size(ir: &Ir, ty: u32) -> Result<(), RunErrorKind> {
    let n = value_count(ir, ty);
    if n > MAX_VALUES {
        Err(RunErrorKind::ValueTooBig { components: n, limit: MAX_VALUES })
    } else {
        Ok(())
    }
}

/// The types nest at most this deep (a deeper nesting is a cycle, in an
/// invalid module).
const MAX_NESTING: u32 = 64;

fn zero_at(ir: &Ir, ty: u32, depth: u32) -> Val {
    let Some(t) = ir.ty(ty) else { return Val::Scalar(0) };
    if depth > MAX_NESTING {
        return Val::Scalar(0);
    }
    let zero = |t: u32| zero_at(ir, t, depth + 1);
    match &t.ty {
        Type::Vector { count, .. } => Val::Composite(vec![Val::Scalar(0); *count as usize]),
        Type::Matrix { column, columns } => Val::Composite(vec![zero(*column); *columns as usize]),
        Type::Array { element, len, .. } => {
            let n = len.unwrap_or(0).min(1 << 20) as usize;
            Val::Composite(vec![zero(*element); n])
        }
        Type::Struct { members } => Val::Composite(members.iter().map(|m| zero(m.ty)).collect()),
        _ => Val::Scalar(0),
    }
}

/// The byte size of a scalar type (booleans: 4), or `None`.
pub(super) fn scalar_bytes(t: &Type) -> Option<u64> {
    match t {
        Type::Bool => Some(4),
        Type::Int { width, .. } | Type::Float { width, .. } => Some(*width as u64 / 8),
        _ => None,
    }
}

fn ty_of(ir: &Ir, ty: u32) -> Result<&Type, MemErr> {
    ir.ty(ty)
        .map(|t| &t.ty)
        .ok_or_else(|| MemErr::Fault(RunErrorKind::BadType { ty, problem: TypeProblem::NotAType }))
}

pub(super) fn bytes_at(bytes: &[u8], off: u64, n: u64) -> Result<u64, MemErr> {
    let end = off.checked_add(n).ok_or(MemErr::Oob(off, n))?;
    if end > bytes.len() as u64 {
        return Err(MemErr::Oob(off, n));
    }
    let s = &bytes[off as usize..end as usize];
    Ok(match *s {
        [a, b, c, d] => u32::from_le_bytes([a, b, c, d]) as u64,
        _ => s.iter().rev().fold(0u64, |v, &x| (v << 8) | x as u64),
    })
}

pub(super) fn put_bytes(bytes: &mut [u8], off: u64, n: u64, v: u64) -> Result<(), MemErr> {
    let end = off.checked_add(n).ok_or(MemErr::Oob(off, n))?;
    if end > bytes.len() as u64 {
        return Err(MemErr::Oob(off, n));
    }
    let s = &mut bytes[off as usize..end as usize];
    if let Ok(w) = <&mut [u8; 4]>::try_from(&mut *s) {
        *w = (v as u32).to_le_bytes();
    } else {
        for (k, x) in s.iter_mut().enumerate() {
            *x = (v >> (8 * k)) as u8;
        }
    }
    Ok(())
}

/// The scalar of type `t` at `off` (a boolean as 0 or 1), or `None` when
/// `t` is not a scalar type.
#[inline(always)]
pub(super) fn load_scalar(t: &Type, bytes: &[u8], off: u64) -> Option<Result<u64, MemErr>> {
    let n = scalar_bytes(t)?;
    Some(bytes_at(bytes, off, n).map(|v| if matches!(t, Type::Bool) { (v != 0) as u64 } else { v }))
}

/// One part of a value in a buffer: its type, offset, vstride and mat.
type Part = (u32, u64, u32, Option<(u32, bool)>);

/// Where the parts of a value of type `ty` at `off` lie: calls `f` with each
/// part's (type, offset, vstride, mat).
fn parts(
    ir: &Ir,
    depth: u32,
    ty: u32,
    off: u64,
    vstride: u32,
    mat: Option<(u32, bool)>,
) -> Result<Vec<Part>, MemErr> {
    let t = ty_of(ir, ty)?;
    if depth > MAX_NESTING {
        return Err(MemErr::Fault(RunErrorKind::BadType { ty, problem: TypeProblem::TooDeep }));
    }
    let mut out = Vec::new();
    match t {
        Type::Vector { component, count } => {
            let cb = scalar_bytes(ty_of(ir, *component)?).unwrap_or(4);
            let step = if vstride != 0 { vstride as u64 } else { cb };
            for k in 0..*count as u64 {
                out.push((*component, off + k * step, 0, None));
            }
        }
        Type::Matrix { column, columns } => {
            let (ms, row) = mat.ok_or_else(|| {
                MemErr::Fault(RunErrorKind::BadType { ty, problem: TypeProblem::NoMatrixStride })
            })?;
            let cb = match ty_of(ir, *column)? {
                Type::Vector { component, .. } => scalar_bytes(ty_of(ir, *component)?).unwrap_or(4),
                _ => 4,
            };
            for k in 0..*columns as u64 {
                if row {
                    out.push((*column, off + k * cb, ms, None));
                } else {
                    out.push((*column, off + k * ms as u64, 0, None));
                }
            }
        }
        Type::Array { element, len, .. } => {
            let stride = crate::ir::layout::array_stride(ir, ty).ok_or_else(|| {
                MemErr::Fault(RunErrorKind::BadType { ty, problem: TypeProblem::NoArrayStride })
            })?;
            let n = len.ok_or_else(|| MemErr::Fault(RunErrorKind::BadType { ty, problem: TypeProblem::NoLength }))?;
            for k in 0..n {
                out.push((*element, off + k * stride as u64, 0, mat));
            }
        }
        Type::Struct { members } => {
            for (k, m) in members.iter().enumerate() {
                let o = crate::ir::layout::member_offset(ir, ty, k).ok_or_else(|| {
                    MemErr::Fault(RunErrorKind::BadType { ty, problem: TypeProblem::NoOffset { member: k as u32 } })
                })?;
                let mm = m.matrix_stride.map(|s| (s, m.row_major.unwrap_or(false)));
                out.push((m.ty, off + o as u64, 0, mm));
            }
        }
        _ => {
            return Err(MemErr::Fault(RunErrorKind::BadType { ty, problem: TypeProblem::NotInBuffer }));
        }
    }
    Ok(out)
}

/// Read a value of type `ty` at `off`.
pub(super) fn read_buf(
    ir: &Ir,
    bytes: &[u8],
    ty: u32,
    off: u64,
    vstride: u32,
    mat: Option<(u32, bool)>,
) -> Result<Val, MemErr> {
    // A scalar, the common case: no size check, no walk.
    if let Some(t) = ir.ty(ty)
        && let Some(v) = load_scalar(&t.ty, bytes, off)
    {
        return Ok(Val::Scalar(v?));
    }
    // A load makes a value: one too big to hold is an error, not an allocation.
    check_size(ir, ty)?;
    read_at(ir, 0, bytes, ty, off, vstride, mat)
}

fn read_at(
    ir: &Ir,
    depth: u32,
    bytes: &[u8],
    ty: u32,
    off: u64,
    vstride: u32,
    mat: Option<(u32, bool)>,
) -> Result<Val, MemErr> {
    let t = ty_of(ir, ty)?;
    if let Some(v) = load_scalar(t, bytes, off) {
        return Ok(Val::Scalar(v?));
    }
    let mut out = Vec::new();
    for (pt, po, pv, pm) in parts(ir, depth, ty, off, vstride, mat)? {
        out.push(read_at(ir, depth + 1, bytes, pt, po, pv, pm)?);
    }
    Ok(Val::Composite(out))
}

/// Write value `v` of type `ty` at `off`.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_buf(
    ir: &Ir,
    bytes: &mut [u8],
    ty: u32,
    off: u64,
    vstride: u32,
    mat: Option<(u32, bool)>,
    v: &Val,
    undef_ok: bool,
) -> Result<(), MemErr> {
    // A scalar type needs no size check (the common case).
    if ir.ty(ty).is_none_or(|t| scalar_bytes(&t.ty).is_none()) {
        check_size(ir, ty)?;
    }
    write_at(ir, 0, bytes, ty, off, vstride, mat, v, undef_ok)
}

#[allow(clippy::too_many_arguments)]
fn write_at(
    ir: &Ir,
    depth: u32,
    bytes: &mut [u8],
    ty: u32,
    off: u64,
    vstride: u32,
    mat: Option<(u32, bool)>,
    v: &Val,
    undef_ok: bool,
) -> Result<(), MemErr> {
    let t = ty_of(ir, ty)?;
    if let Some(n) = scalar_bytes(t) {
        let bits = match v {
            Val::Scalar(bits) => *bits,
            // Kept as zero bytes where that is allowed (Workgroup memory).
            Val::Undef if undef_ok => 0,
            Val::Undef => return Err(MemErr::Undef(off)),
            _ => return Err(MemErr::Fault(RunErrorKind::ShapeMismatch { of: Shapes::CompositeAsScalar })),
        };
        return put_bytes(bytes, off, n, bits);
    }
    let Val::Composite(items) = v else {
        return Err(MemErr::Fault(RunErrorKind::ShapeMismatch { of: Shapes::ScalarAsComposite }));
    };
    let ps = parts(ir, depth, ty, off, vstride, mat)?;
    if ps.len() != items.len() {
        return Err(MemErr::Fault(RunErrorKind::ShapeMismatch { of: Shapes::CompositeSize }));
    }
    for ((pt, po, pv, pm), item) in ps.into_iter().zip(items) {
        write_at(ir, depth + 1, bytes, pt, po, pv, pm, item, undef_ok)?;
    }
    Ok(())
}

/// How many parts an access chain index picks from in a composite of type
/// `t` (`Some(None)`: a runtime array, any number), or `None` when `t` is not
/// a composite. An index at or past the bound is out of bounds for [`step`].
pub(super) fn index_bound(t: &Type) -> Option<Option<u64>> {
    match t {
        Type::Vector { count, .. } => Some(Some(*count as u64)),
        Type::Matrix { columns, .. } => Some(Some(*columns as u64)),
        Type::Array { len, .. } => Some(Some(len.unwrap_or(0))),
        Type::RuntimeArray { .. } => Some(None),
        Type::Struct { members } => Some(Some(members.len() as u64)),
        _ => None,
    }
}

/// One access-chain step from a pointer to `ty` with index `i`: the new
/// pointee type, and the location moved.
pub(super) fn step(ir: &Ir, ty: u32, loc: &mut Loc, i: u64) -> Result<u32, RunErrorKind> {
    let t = ir.ty(ty).ok_or_else(|| RunErrorKind::BadType { ty, problem: TypeProblem::NotAType })?;
    let oob = |n: u64| RunErrorKind::IndexOutOfBounds { into: Indexed::Composite, index: Some(i), len: Some(n) };
    if let Loc::Descs(items) = loc {
        let next = match &t.ty {
            Type::Array { element, .. } | Type::RuntimeArray { element } => *element,
            _ => {
                return Err(RunErrorKind::BadType { ty, problem: TypeProblem::NotComposite { array: true } });
            }
        };
        let l = items.get(i as usize).cloned().ok_or_else(|| RunErrorKind::IndexOutOfBounds {
            into: Indexed::Descriptors,
            index: Some(i),
            len: Some(items.len() as u64),
        })?;
        *loc = l;
        return Ok(next);
    }
    let Some(len) = index_bound(&t.ty) else {
        return Err(RunErrorKind::BadType { ty, problem: TypeProblem::NotComposite { array: false } });
    };
    if let Some(n) = len
        && i >= n
    {
        return Err(oob(n));
    }
    let next = match &t.ty {
        Type::Vector { component, .. } => *component,
        Type::Matrix { column, .. } => *column,
        Type::Array { element, .. } | Type::RuntimeArray { element } => *element,
        Type::Struct { members } => members.get(i as usize).map_or(0, |m| m.ty),
        _ => 0,
    };
    match loc {
        Loc::Var { path, .. } | Loc::Shared { path, .. } => {
            if len.is_none() {
                return Err(RunErrorKind::BadType { ty, problem: TypeProblem::RuntimeArrayOutsideBuffer });
            }
            path.push(i as u32);
        }
        Loc::Buf {
            off, vstride, mat, ..
        } => match &t.ty {
            Type::Vector { component, .. } => {
                let cb = ir
                    .ty(*component)
                    .and_then(|c| scalar_bytes(&c.ty))
                    .unwrap_or(4);
                let s = if *vstride != 0 { *vstride as u64 } else { cb };
                *off = off.wrapping_add(i.wrapping_mul(s));
                *vstride = 0;
                *mat = None;
            }
            Type::Matrix { column, .. } => {
                let (ms, row) =
                    mat.ok_or_else(|| RunErrorKind::BadType { ty, problem: TypeProblem::NoMatrixStride })?;
                let cb = match ir.ty(*column).map(|c| &c.ty) {
                    Some(Type::Vector { component, .. }) => ir
                        .ty(*component)
                        .and_then(|c| scalar_bytes(&c.ty))
                        .unwrap_or(4),
                    _ => 4,
                };
                if row {
                    *off = off.wrapping_add(i * cb);
                    *vstride = ms;
                } else {
                    *off = off.wrapping_add(i.wrapping_mul(ms as u64));
                    *vstride = 0;
                }
                *mat = None;
            }
            Type::Array { .. } | Type::RuntimeArray { .. } => {
                let stride = crate::ir::layout::array_stride(ir, ty)
                    .ok_or_else(|| RunErrorKind::BadType { ty, problem: TypeProblem::NoArrayStride })?;
                *off = off.wrapping_add(i.wrapping_mul(stride as u64));
                *vstride = 0;
            }
            Type::Struct { members } => {
                let Some(m) = members.get(i as usize) else {
                    return Err(oob(members.len() as u64));
                };
                let o = crate::ir::layout::member_offset(ir, ty, i as usize)
                    .ok_or_else(|| RunErrorKind::BadType { ty, problem: TypeProblem::NoOffset { member: i as u32 } })?;
                *off = off.wrapping_add(o as u64);
                *vstride = 0;
                *mat = m.matrix_stride.map(|s| (s, m.row_major.unwrap_or(false)));
            }
            _ => {}
        },
        Loc::Unsupported(_) => {}
        Loc::Image { .. } | Loc::Sampler { .. } | Loc::Descs(_) => {
            return Err(RunErrorKind::IndexIntoHandle);
        }
    }
    Ok(next)
}

/// The part of `v` at `path`.
pub(super) fn at<'v>(v: &'v Val, path: &[u32]) -> Option<&'v Val> {
    let mut v = v;
    for &k in path {
        match v {
            Val::Composite(items) => v = items.get(k as usize)?,
            _ => return None,
        }
    }
    Some(v)
}

/// The part of `v` at `path`, mutably.
pub(super) fn at_mut<'v>(v: &'v mut Val, path: &[u32]) -> Option<&'v mut Val> {
    let mut v = v;
    for &k in path {
        match v {
            Val::Composite(items) => v = items.get_mut(k as usize)?,
            _ => return None,
        }
    }
    Some(v)
}

/// The bytes a value of type `ty` at `off` occupies in a buffer: calls `f`
/// with each scalar's (offset, size), padding left out.
pub(super) fn spans(
    ir: &Ir,
    ty: u32,
    off: u64,
    vstride: u32,
    mat: Option<(u32, bool)>,
    f: &mut impl FnMut(u64, u64) -> Result<(), MemErr>,
) -> Result<(), MemErr> {
    spans_at(ir, 0, ty, off, vstride, mat, f)
}

fn spans_at(
    ir: &Ir,
    depth: u32,
    ty: u32,
    off: u64,
    vstride: u32,
    mat: Option<(u32, bool)>,
    f: &mut impl FnMut(u64, u64) -> Result<(), MemErr>,
) -> Result<(), MemErr> {
    let t = ty_of(ir, ty)?;
    if let Some(n) = scalar_bytes(t) {
        return f(off, n);
    }
    for (pt, po, pv, pm) in parts(ir, depth, ty, off, vstride, mat)? {
        spans_at(ir, depth + 1, pt, po, pv, pm, f)?;
    }
    Ok(())
}

pub(super) fn scalar(v: &Val) -> Result<u64, RunErrorKind> {
    match v {
        Val::Scalar(x) => Ok(*x),
        // Where undefinedness is not followed (an index, a matrix operand),
        // an undefined scalar reads as 0.
        Val::Undef => Ok(0),
        _ => Err(RunErrorKind::ScalarExpected),
    }
}

/// A scalar result, or 0 where the spec says the result is undefined (a
/// shift by the width or more, a bit field past the width): an undefined
/// value there is some value, as a GPU gives one, and shaders rely on that
/// (`if (a != 1u) a = 1u;` after such a shift makes `a` 1), which the
/// interpreter's [`Val::Undef`] (no value at all, an error at an output)
/// could not follow.
pub(in crate::interp) fn or_zero(r: Result<u64, RunErrorKind>) -> Result<Val, RunErrorKind> {
    match r {
        Ok(x) => Ok(Val::Scalar(x)),
        Err(RunErrorKind::ShiftTooFar { .. } | RunErrorKind::BitFieldTooWide { .. }) => Ok(Val::Scalar(0)),
        Err(e) => Err(e),
    }
}

pub(super) fn map1(a: &Val, f: &mut impl FnMut(u64) -> Result<u64, RunErrorKind>) -> Result<Val, RunErrorKind> {
    match a {
        Val::Scalar(x) => or_zero(f(*x)),
        Val::Composite(xs) => Ok(Val::Composite(
            xs.iter().map(|x| map1(x, f)).collect::<Result<_, _>>()?,
        )),
        Val::Pointer(_) => Err(RunErrorKind::PointerAsNumber),
        Val::Undef => Ok(Val::Undef),
    }
}

/// `f` on each pair of scalars of two values of the same shape.
pub(super) fn map2(
    a: &Val,
    b: &Val,
    f: &mut impl FnMut(u64, u64) -> Result<u64, RunErrorKind>,
) -> Result<Val, RunErrorKind> {
    match (a, b) {
        (Val::Scalar(x), Val::Scalar(y)) => or_zero(f(*x, *y)),
        (Val::Composite(xs), Val::Composite(ys)) if xs.len() == ys.len() => Ok(Val::Composite(
            xs.iter()
                .zip(ys)
                .map(|(x, y)| map2(x, y, f))
                .collect::<Result<_, _>>()?,
        )),
        // Undefined scalars (checked last: the common case stays first).
        (Val::Undef, Val::Scalar(_) | Val::Undef) | (Val::Scalar(_), Val::Undef) => Ok(Val::Undef),
        _ => Err(RunErrorKind::ShapeMismatch { of: Shapes::Operands }),
    }
}
