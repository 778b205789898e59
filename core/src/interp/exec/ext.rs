//! The extensions' instructions, hooked into [`super::exec`]:
//!
//! * SPV_INTEL_variable_length_array: OpVariableLengthArrayINTEL allocates a
//!   Function array of a run-time length (an error past the run's memory
//!   budget, never an abort) and points at its first element;
//!   OpSaveMemoryINTEL saves the invocation's Function memory state (its
//!   number of variables) and OpRestoreMemoryINTEL frees everything
//!   allocated since.
//! * SPV_KHR_untyped_pointers: OpUntypedVariableKHR, the untyped access
//!   chains (Base Type walks the indexes), and loads and stores whose type
//!   differs from the memory's: in a buffer the bytes are read by the
//!   access's type and the explicit layout; in Function, Private and
//!   Workgroup memory (held as values) the value is turned into bytes by the
//!   natural layout ([`super::super::kernel::natural`]) and read back as the
//!   access's type (a store of a float loaded as a uint gives its bits).
//! * OpPtrAccessChain and OpInBoundsPtrAccessChain (typed and untyped): the
//!   Element steps a buffer pointer by the ArrayStride of the base's pointer
//!   type (in a kernel module, else the pointee's natural size), and a
//!   pointer to an array element in Function memory by elements.

use crate::interp::error::Feature;
use super::{Frame, Loaded, State, get, load, pointer, store};
use crate::interp::mem::scalar;
use crate::grammar::{self, op};
use crate::interp::{RunError, RunErrorKind};
use crate::interp::error::Malformed;
use crate::interp::program::{Inst, NO_VALUE, Program};
use crate::interp::race::Kind;
use crate::interp::kernel;
use crate::interp::mem::{Loc, MAX_VALUES, Ptr, Val, at, step, val_count, value_count, zero};
use crate::interp::num::{mask, sext};
use crate::ir::{Ir, Type};
use alloc::vec;
use alloc::vec::Vec;

/// Decoding: the type an extension instruction works on goes in `inst.ty`
/// (the Data Type of an untyped variable, the Base Type of an untyped
/// access chain, the element type of a variable-length array), and for
/// OpStore the type of the object stored (an untyped pointer's access type).
pub(in crate::interp) fn decode_hook(ir: &Ir, i: usize, inst: &mut Inst) {
    let word = |k: usize| ir.operand_words(i, k).first().copied().unwrap_or(0);
    match inst.op {
        op::OpUntypedVariableKHR => inst.ty = word(3),
        op::OpUntypedAccessChainKHR
        | op::OpUntypedInBoundsAccessChainKHR
        | op::OpUntypedPtrAccessChainKHR
        | op::OpUntypedInBoundsPtrAccessChainKHR => inst.ty = word(2),
        op::OpVariableLengthArrayINTEL => {
            inst.ty = match ir.ty(inst.ty).map(|t| &t.ty) {
                Some(Type::Pointer {
                    pointee: Some(p), ..
                }) => *p,
                _ => 0,
            }
        }
        op::OpStore => inst.ty = ir.type_of(word(1)).unwrap_or(0),
        _ => {}
    }
}

fn err(inst: &Inst, kind: RunErrorKind) -> RunError {
    RunError::of(Some(inst.idx), kind)
}

/// The extension instructions that produce a value.
pub(super) fn exec(
    prog: &Program,
    st: &mut State,
    fr: &Frame,
    inst: &Inst,
    args: &[u32],
) -> Result<Val, RunError> {
    let slot = |k: usize| -> Result<&Val, RunError> {
        let s = *args
            .get(k)
            .ok_or_else(|| err(inst, RunErrorKind::MissingOperand))?;
        Ok(get(prog, &fr.regs, s))
    };
    match inst.op {
        op::OpVariableLengthArrayINTEL => {
            let n = scalar(slot(0)?).map_err(|kind| err(inst, kind))?;
            let n = mask(n, width_of(prog.ir, inst.idx, 2));
            let each = value_count(prog.ir, inst.ty).max(1);
            let total = n.saturating_mul(each);
            if inst.ty == 0 || total > MAX_VALUES {
                return Err(RunError::unsupported(Some(inst.idx), Feature::LongArray { elements: n, limit: MAX_VALUES }));
            }
            st.hold(total, Some(inst.idx))?;
            let var = st.mem.len() as u32;
            st.mem
                .push(Val::Composite(vec![zero(prog.ir, inst.ty); n as usize]));
            Ok(Val::Pointer(Ptr {
                ty: inst.ty,
                loc: Loc::Var { var, path: vec![0] },
            }))
        }
        // The state: the number of Function variables (with Private and Input).
        op::OpSaveMemoryINTEL => Ok(Val::Scalar(st.mem.len() as u64)),
        op::OpUntypedVariableKHR => {
            let sc = args.first().copied().unwrap_or(0);
            if sc != grammar::storage_class::Function {
                return Err(RunError::unsupported(Some(inst.idx), Feature::UntypedVariableOutsideFunction));
            }
            if inst.ty == 0 {
                return Err(err(inst, RunErrorKind::Malformed { problem: Malformed::UntypedFunctionVariable }));
            }
            crate::interp::mem::check_size(prog.ir, inst.ty).map_err(|kind| err(inst, kind))?;
            st.hold(value_count(prog.ir, inst.ty), Some(inst.idx))?;
            let init = match args.get(2) {
                Some(&s) if s != NO_VALUE => get(prog, &fr.regs, s).clone(),
                _ => zero(prog.ir, inst.ty),
            };
            let var = st.mem.len() as u32;
            st.mem.push(init);
            Ok(Val::Pointer(Ptr {
                ty: inst.ty,
                loc: Loc::Var {
                    var,
                    path: Vec::new(),
                },
            }))
        }
        op::OpPtrAccessChain | op::OpInBoundsPtrAccessChain => {
            chain(prog, st, fr, inst, args, 0, None, true)
        }
        op::OpUntypedAccessChainKHR | op::OpUntypedInBoundsAccessChainKHR => {
            chain(prog, st, fr, inst, args, 1, Some(inst.ty), false)
        }
        op::OpUntypedPtrAccessChainKHR | op::OpUntypedInBoundsPtrAccessChainKHR => {
            chain(prog, st, fr, inst, args, 1, Some(inst.ty), true)
        }
        o => Err(RunError::of(Some(inst.idx), RunErrorKind::NotSupported { opcode: o })),
    }
}

/// The width in bits of the integer operand `k` of instruction `i`.
fn width_of(ir: &Ir, i: u32, k: usize) -> u32 {
    let id = ir
        .operand_words(i as usize, k)
        .first()
        .copied()
        .unwrap_or(0);
    match ir.type_of(id).and_then(|t| ir.ty(t)).map(|t| &t.ty) {
        Some(Type::Int { width, .. }) => *width,
        _ => 64,
    }
}

/// An access chain: the base pointer is operand `b` of `args`, then (for
/// the Ptr forms) the Element, then the indexes; `base_ty`: the Base Type of
/// an untyped chain.
#[allow(clippy::too_many_arguments)]
fn chain(
    prog: &Program,
    st: &State,
    fr: &Frame,
    inst: &Inst,
    args: &[u32],
    b: usize,
    base_ty: Option<u32>,
    element: bool,
) -> Result<Val, RunError> {
    let ir = prog.ir;
    let s = |k: usize| -> Result<&Val, RunError> {
        let s = *args
            .get(k)
            .ok_or_else(|| err(inst, RunErrorKind::MissingOperand))?;
        Ok(get(prog, &fr.regs, s))
    };
    let mut p: Ptr = pointer(s(b)?, inst)?.clone();
    let ty0 = base_ty.unwrap_or(p.ty);
    if let (Loc::Var { .. } | Loc::Shared { .. }, Some(t)) = (&p.loc, base_ty)
        && t != p.ty
    {
        return Err(RunError::unsupported(Some(inst.idx), Feature::UntypedChainBase));
    }
    let mut next = b + 1;
    if element {
        // Operand positions: type, result, [Base Type,] Base, Element.
        let epos = if base_ty.is_some() { 4 } else { 3 };
        let e = sext(
            scalar(s(next)?).map_err(|kind| err(inst, kind))?,
            width_of(ir, inst.idx, epos),
        );
        next += 1;
        let shared = matches!(p.loc, Loc::Shared { .. });
        match &mut p.loc {
            Loc::Var { var, path } | Loc::Shared { var, path } => {
                if e != 0 {
                    let mem = if shared { &st.shared } else { &st.mem };
                    // The length of the array the pointer is an element of
                    // (a pointer to a whole variable: an array of one).
                    let len = match path.split_last() {
                        Some((_, up)) => match mem.get(*var as usize).and_then(|v| at(v, up)) {
                            Some(Val::Composite(items)) => items.len() as i64,
                            _ => 0,
                        },
                        None => 1,
                    };
                    let cur = path.last().copied().unwrap_or(0) as i64;
                    let to = cur.checked_add(e).filter(|t| (0..len).contains(t)).ok_or_else(|| {
                        err(inst, RunErrorKind::ElementOutOfBounds { element: e, from: cur, len })
                    })?;
                    if let Some(l) = path.last_mut() {
                        *l = to as u32;
                    }
                }
            }
            Loc::Buf { off, .. } => {
                if e != 0 {
                    let base_id = ir
                        .operand_words(inst.idx as usize, epos - 1)
                        .first()
                        .copied()
                        .unwrap_or(0);
                    let stride = ir
                        .type_of(base_id)
                        .and_then(|t| ir.ty(t))
                        .and_then(|t| t.array_stride)
                        .map(|s| s as u64)
                        .or_else(|| {
                            crate::ir::layout::is_kernel_module(ir)
                                .then(|| crate::ir::layout::natural(ir, ty0).map(|n| n.0))
                                .flatten()
                        })
                        .ok_or_else(|| {
                            RunError::unsupported(Some(inst.idx), Feature::PointerChainWithoutStride)
                        })?;
                    *off = off.wrapping_add((e as u64).wrapping_mul(stride));
                }
            }
            Loc::Image { .. } | Loc::Sampler { .. } | Loc::Descs(_) => {
                if e != 0 {
                    return Err(RunError::unsupported(Some(inst.idx), Feature::PointerChainOnDescriptor));
                }
            }
            Loc::Unsupported(_) => {}
        }
    }
    let mut ty = ty0;
    for k in next..args.len() {
        let i = scalar(s(k)?).map_err(|kind| err(inst, kind))?;
        ty = step(ir, ty, &mut p.loc, i).map_err(|kind| err(inst, kind))?;
    }
    p.ty = ty;
    Ok(Val::Pointer(p))
}

/// OpRestoreMemoryINTEL: free the Function memory allocated since the save.
pub(super) fn restore(
    prog: &Program,
    st: &mut State,
    fr: &Frame,
    inst: &Inst,
    args: &[u32],
) -> Result<(), RunError> {
    let s = args
        .first()
        .map(|&s| get(prog, &fr.regs, s))
        .ok_or_else(|| err(inst, RunErrorKind::MissingOperand))?;
    let to = scalar(s).map_err(|kind| err(inst, kind))?;
    if to < fr.mem_base as u64 || to > st.mem.len() as u64 {
        return Err(err(inst, RunErrorKind::BadRestore));
    }
    let freed = st.mem[to as usize..]
        .iter()
        .map(val_count)
        .fold(0u64, u64::saturating_add);
    st.used = st.used.saturating_sub(freed);
    st.mem.truncate(to as usize);
    Ok(())
}

/// The natural bytes of a value of type `ty`, or an error.
fn bytes_of(prog: &Program, inst: &Inst, ty: u32, v: &Val) -> Result<Vec<u8>, RunError> {
    let mut b = Vec::new();
    kernel::to_bytes(prog.ir, ty, v, &mut b).ok_or_else(|| {
        RunError::unsupported(Some(inst.idx), Feature::ValueAsBytes { ty })
    })?;
    Ok(b)
}

/// A load whose type `inst.ty` is not the type of the memory (an untyped
/// pointer): see the module doc.
pub(super) fn load_as(prog: &Program, st: &mut State, inst: &Inst, p: &Ptr) -> Result<Val, RunError> {
    match &p.loc {
        Loc::Var { .. } | Loc::Shared { .. } => {
            let v = load(prog, st, inst, p, Kind::Read)?.into_val();
            let b = bytes_of(prog, inst, p.ty, &v)?;
            kernel::from_bytes(prog.ir, inst.ty, &b).ok_or_else(|| {
                RunError::unsupported(Some(inst.idx), Feature::LoadPastMemory { ty: inst.ty, bytes: b.len() as u64, of: p.ty },
                )
            })
        }
        _ => load(
            prog,
            st,
            inst,
            &Ptr {
                ty: inst.ty,
                loc: p.loc.clone(),
            },
            Kind::Read,
        )
        .map(Loaded::into_val),
    }
}

/// A store of a value of type `inst.ty` to memory of another type (an
/// untyped pointer): see the module doc.
pub(super) fn store_as(
    prog: &Program,
    st: &mut State,
    inst: &Inst,
    p: &Ptr,
    v: Val,
) -> Result<(), RunError> {
    match &p.loc {
        Loc::Var { .. } | Loc::Shared { .. } => {
            let cur = load(prog, st, inst, p, Kind::Read)?.into_val();
            let mut b = bytes_of(prog, inst, p.ty, &cur)?;
            let nb = bytes_of(prog, inst, inst.ty, &v)?;
            if nb.len() > b.len() {
                return Err(RunError::unsupported(Some(inst.idx), Feature::StorePastMemory { bytes: nb.len() as u64, to: b.len() as u64, of: p.ty },
                ));
            }
            b[..nb.len()].copy_from_slice(&nb);
            let new = kernel::from_bytes(prog.ir, p.ty, &b).ok_or_else(|| {
                RunError::unsupported(Some(inst.idx), Feature::BytesAsValue { ty: p.ty })
            })?;
            store(prog, st, inst, p, &new, Kind::Write)
        }
        _ => store(
            prog,
            st,
            inst,
            &Ptr {
                ty: inst.ty,
                loc: p.loc.clone(),
            },
            &v,
            Kind::Write,
        ),
    }
}

/// The OpenCL built-ins beyond the GLCompute ones: [x, y, z].
pub(super) fn kernel_builtin(
    b: u32,
    workgroups: [u32; 3],
    local_size: [u32; 3],
    gid: [u32; 3],
) -> Option<[u32; 3]> {
    use grammar::built_in as bi;
    let size = [
        workgroups[0].saturating_mul(local_size[0]),
        workgroups[1].saturating_mul(local_size[1]),
        workgroups[2].saturating_mul(local_size[2]),
    ];
    Some(match b {
        bi::GlobalSize => size,
        bi::GlobalOffset => [0, 0, 0],
        bi::EnqueuedWorkgroupSize => local_size,
        bi::GlobalLinearId => {
            let i = (gid[2] * size[1] + gid[1]) * size[0] + gid[0];
            [i, i, i]
        }
        _ => return None,
    })
}
