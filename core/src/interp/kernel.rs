//! OpenCL kernels and the extensions' module-level parts.
//!
//! * **Kernel entry points** (execution model Kernel) run like GLCompute
//!   ones, over a grid of workgroups of LocalSize (1,1,1 without it). Their
//!   parameters are bound in order: parameter k is binding (0, k) of
//!   [`Buffers`](super::Buffers). A pointer to CrossWorkgroup (or
//!   UniformConstant) memory points at the start of that buffer; a scalar
//!   parameter takes its value from the first bytes of that buffer
//!   (little-endian, the scalar's width; an error when the buffer is missing
//!   or shorter). Pointers to other storage classes are "not supported".
//!   The built-ins are Input variables as in shaders; GlobalSize,
//!   GlobalOffset (0), EnqueuedWorkgroupSize and GlobalLinearId are added.
//!   Each invocation of a kernel is its own subgroup (size 1) unless
//!   `Options::subgroup_size` says otherwise. Kernels have no merge
//!   instructions: the interpreter follows branches and needs none.
//! * **Memory without an explicit layout** in a module with a Kernel entry
//!   point takes the natural C layout ([`natural`](crate::ir::layout::natural)): a scalar's size and
//!   alignment are its width in bytes (a boolean 1), a vector of n components
//!   has the size and alignment of n (3 taken as 4) components, an array is
//!   its elements one after another, a struct's members are aligned to their
//!   alignment and its size rounded up to its largest alignment; a pointer is
//!   8 bytes under Physical64, otherwise 4. An explicit ArrayStride or Offset
//!   still wins.
//! * **SPV_KHR_constant_data**: the Data words of OpConstantDataKHR and
//!   OpSpecConstantDataKHR are the array's elements packed without padding,
//!   in the order SPIR-V packs literals: the first element in the
//!   lowest-order bits of the first word, a 64-bit element low word first.
//!   An OpSpecConstantDataKHR keeps its default Data ([`super::specialize`]
//!   sets scalars only). Too few words, or elements that are not 8- to
//!   64-bit integers, make it a constant the interpreter cannot evaluate.

use crate::interp::error::Feature;
use super::RunError;
use super::error::RunErrorKind;
use super::mem::BufKey;
use super::mem::{Loc, Ptr, Val};
use super::num::mask;
use crate::ir::layout::{natural, natural_part};
use crate::grammar;
use crate::ir::{Ir, Type};
use alloc::string::String;
use alloc::vec::Vec;

/// How a kernel parameter gets its value.
#[derive(Clone, Debug)]
pub(super) enum Param {
    /// A value known when decoding (a pointer into buffer (0, k)).
    Val(Val),
    /// A scalar read from the first bytes of buffer (0, k).
    Scalar { k: u32, ty: u32 },
}

/// The parameters of a kernel entry function: pointers to CrossWorkgroup
/// or UniformConstant memory become buffers (0, k) in `bufs`.
pub(super) fn params(
    ir: &Ir,
    function: u32,
    ep_inst: u32,
    bufs: &mut Vec<BufKey>,
) -> Result<Vec<Param>, RunError> {
    let Some(f) = ir.functions.iter().find(|f| f.id == function) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (k, &p) in f.params.iter().enumerate() {
        let k = k as u32;
        let ty = ir.type_of(p).unwrap_or(0);
        let bad = |pointer: bool| RunError::unsupported(Some(ep_inst), Feature::KernelParameter { index: k, pointer });
        match ir.ty(ty).map(|t| &t.ty) {
            Some(Type::Pointer { storage, pointee })
                if *storage == grammar::storage_class::CrossWorkgroup
                    || *storage == grammar::storage_class::UniformConstant =>
            {
                let key = BufKey::Binding(0, k);
                let buf = match bufs.iter().position(|b| *b == key) {
                    Some(b) => b,
                    None => {
                        bufs.push(key);
                        bufs.len() - 1
                    }
                } as u32;
                out.push(Param::Val(Val::Pointer(Ptr {
                    ty: pointee.unwrap_or(0),
                    loc: Loc::Buf {
                        buf,
                        off: 0,
                        vstride: 0,
                        mat: None,
                    },
                })));
            }
            Some(Type::Pointer { .. }) => {
                return Err(bad(true));
            }
            Some(Type::Int { .. } | Type::Float { .. } | Type::Bool) => {
                out.push(Param::Scalar { k, ty })
            }
            _ => return Err(bad(false)),
        }
    }
    Ok(out)
}

/// The values of a kernel's parameters, the scalars read from `buffers`.
pub(super) fn bind(
    ir: &Ir,
    params: &[Param],
    buffers: &super::Buffers,
) -> Result<Vec<Val>, RunError> {
    let mut out = Vec::new();
    for p in params {
        out.push(match p {
            Param::Val(v) => v.clone(),
            Param::Scalar { k, ty } => {
                let n = natural(ir, *ty).map_or(4, |(s, _)| s) as usize;
                let bytes = buffers.get(&(0, *k)).ok_or_else(|| RunError::of(
                    None,
                    RunErrorKind::KernelScalar { param: *k, needs: n as u64, has: None },
                ))?;
                if bytes.len() < n {
                    let has = Some(bytes.len() as u64);
                    return Err(RunError::of(None, RunErrorKind::KernelScalar { param: *k, needs: n as u64, has }));
                }
                let mut v = 0u64;
                for (j, b) in bytes[..n].iter().enumerate() {
                    v |= (*b as u64) << (8 * j);
                }
                if matches!(ir.ty(*ty).map(|t| &t.ty), Some(Type::Bool)) {
                    v = (v != 0) as u64;
                }
                Val::Scalar(v)
            }
        });
    }
    Ok(out)
}

/// The value of an OpConstantDataKHR or OpSpecConstantDataKHR at
/// instruction `inst` of type `ty`; `None` unless `ty` is an array of known
/// length of 8- to 64-bit integers and the Data words hold all of it (an
/// instruction that reads it is then not supported, see `OP_BAD_CONST`).
pub(super) fn constant_data(ir: &Ir, inst: usize, ty: u32) -> Option<Val> {
    let (element, len) = match ir.ty(ty).map(|t| &t.ty) {
        Some(Type::Array {
            element,
            len: Some(len),
            ..
        }) => (*element, *len),
        _ => return None,
    };
    let w = match ir.ty(element).map(|t| &t.ty) {
        Some(Type::Int { width, .. }) if matches!(width, 8 | 16 | 32 | 64) => *width as u64,
        _ => return None,
    };
    // The Data words: the instruction's operands after the type and result.
    let words: &[u32] = ir.words(inst).get(2..).unwrap_or(&[]);
    if len
        .checked_mul(w)
        .is_none_or(|b| b.div_ceil(32) > words.len() as u64)
    {
        return None;
    }
    let bit = |at: u64| (words[(at / 32) as usize] >> (at % 32)) & 1;
    let mut items = Vec::with_capacity(len as usize);
    for e in 0..len {
        let mut v = 0u64;
        if w >= 32 {
            for j in 0..w / 32 {
                v |= (words[((e * w) / 32 + j) as usize] as u64) << (32 * j);
            }
        } else {
            for j in 0..w {
                v |= (bit(e * w + j) as u64) << j;
            }
        }
        items.push(Val::Scalar(mask(v, w as u32)));
    }
    Some(Val::Composite(items))
}

/// Value `v` of type `ty` as bytes in the natural layout (padding zero).
pub(super) fn to_bytes(ir: &Ir, ty: u32, v: &Val, out: &mut Vec<u8>) -> Option<()> {
    let base = out.len();
    let (size, _) = natural(ir, ty)?;
    out.resize(base + size as usize, 0);
    put(ir, ty, v, &mut out[base..], 0)
}

fn put(ir: &Ir, ty: u32, v: &Val, out: &mut [u8], depth: u32) -> Option<()> {
    if depth > 64 {
        return None;
    }
    let t = ir.ty(ty)?;
    match (&t.ty, v) {
        (Type::Bool | Type::Int { .. } | Type::Float { .. }, Val::Scalar(bits)) => {
            let (n, _) = natural(ir, ty)?;
            for j in 0..n as usize {
                *out.get_mut(j)? = (bits >> (8 * j)) as u8;
            }
            Some(())
        }
        (_, Val::Composite(items)) => {
            for (k, item) in items.iter().enumerate() {
                let (et, at) = natural_part(ir, ty, k)?;
                put(ir, et, item, out.get_mut(at as usize..)?, depth + 1)?;
            }
            Some(())
        }
        _ => None,
    }
}

/// A value of type `ty` read from `bytes` in the natural layout.
pub(super) fn from_bytes(ir: &Ir, ty: u32, bytes: &[u8]) -> Option<Val> {
    from_at(ir, ty, bytes, 0)
}

fn from_at(ir: &Ir, ty: u32, bytes: &[u8], depth: u32) -> Option<Val> {
    if depth > 64 {
        return None;
    }
    let t = ir.ty(ty)?;
    let count = match &t.ty {
        Type::Bool | Type::Int { .. } | Type::Float { .. } => {
            let (n, _) = natural(ir, ty)?;
            let mut v = 0u64;
            for j in 0..n as usize {
                v |= (*bytes.get(j)? as u64) << (8 * j);
            }
            if matches!(t.ty, Type::Bool) {
                v = (v != 0) as u64;
            }
            return Some(Val::Scalar(v));
        }
        Type::Vector { count, .. } => *count as u64,
        Type::Matrix { columns, .. } => *columns as u64,
        Type::Array { len, .. } => (*len)?,
        Type::Struct { members } => members.len() as u64,
        _ => return None,
    };
    if count > super::mem::MAX_VALUES {
        return None;
    }
    let mut items = Vec::with_capacity(count as usize);
    for k in 0..count as usize {
        let (et, at) = natural_part(ir, ty, k)?;
        items.push(from_at(ir, et, bytes.get(at as usize..)?, depth + 1)?);
    }
    Some(Val::Composite(items))
}

/// One parameter of a kernel entry point, as a front end binds it: binding
/// (0, `index`) holds a pointer parameter's buffer (an array of `ty`, one
/// element every `size` bytes) or a scalar parameter's value (`size` bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelParam {
    pub index: u32,
    /// Its OpName, if any.
    pub name: Option<String>,
    /// Whether it points to memory (a buffer), or is a scalar value.
    pub pointer: bool,
    /// The pointee of a pointer, else the scalar type; in the natural layout.
    pub ty: crate::reflect::TypeNode,
    /// The natural size of `ty` in bytes (for a pointer, its array stride).
    pub size: Option<u64>,
}

/// The parameters of the Kernel entry point named `entry`, or `None` when
/// there is no such Kernel entry point.
pub fn kernel_params(ir: &Ir, entry: &str) -> Option<Vec<KernelParam>> {
    let ep = ir
        .entry_points
        .iter()
        .find(|e| e.name == entry && e.model == grammar::execution_model::Kernel)?;
    let f = ir.functions.iter().find(|f| f.id == ep.function)?;
    Some(
        f.params
            .iter()
            .enumerate()
            .map(|(k, &p)| {
                let ty = ir.type_of(p).unwrap_or(0);
                let (pointer, t) = match ir.ty(ty).map(|t| &t.ty) {
                    Some(Type::Pointer { pointee, .. }) => (true, pointee.unwrap_or(0)),
                    _ => (false, ty),
                };
                KernelParam {
                    index: k as u32,
                    name: ir.name(p).filter(|n| !n.is_empty()).map(String::from),
                    pointer,
                    ty: natural_tree(ir, t),
                    size: natural(ir, t).map(|n| n.0),
                }
            })
            .collect(),
    )
}

/// The type tree of `ty` (see [`crate::reflect::type_tree`]) with the
/// natural layout filled in where the module gives none: sizes, array
/// strides and member offsets.
pub fn natural_tree(ir: &Ir, ty: u32) -> crate::reflect::TypeNode {
    let mut node = crate::reflect::type_tree(ir, ty, 0);
    fill(ir, &mut node, 0);
    node
}

fn fill(ir: &Ir, node: &mut crate::reflect::TypeNode, depth: u32) {
    if depth > 64 {
        return;
    }
    if node.size.is_none() {
        node.size = natural(ir, node.id).map(|n| n.0);
    }
    if node.array_stride.is_none()
        && let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) =
            ir.ty(node.id).map(|t| &t.ty)
    {
        node.array_stride = natural(ir, *element).and_then(|n| u32::try_from(n.0).ok());
    }
    if let Some(e) = node.element.as_deref_mut() {
        fill(ir, e, depth + 1);
    }
    for (k, m) in node.members.iter_mut().enumerate() {
        if m.offset.is_none() {
            m.offset = natural_part(ir, node.id, k).and_then(|(_, at)| u32::try_from(at).ok());
        }
        if m.size.is_none() {
            m.size = natural(ir, m.ty.id).map(|n| n.0);
        }
        fill(ir, &mut m.ty, depth + 1);
    }
}
