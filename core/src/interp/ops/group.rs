//! The GroupNonUniform instructions, run for the invocations of a subgroup
//! that are active at one instruction together (see `exec::run_grid`: an
//! invocation stops before such an instruction and the scheduler runs it for
//! every invocation of the subgroup waiting there).

use crate::interp::error::Feature;
use crate::interp::num::ScalarClass;
use crate::interp::program::{Func, G, Inst, Program};
use crate::interp::error::RunErrorKind;
use crate::interp::mem::map2;
use crate::interp::num::{fget, fput};
use crate::interp::mem::{Val};
use crate::interp::num::{mask, sext};
use crate::grammar::{group_operation as gop, op};
use alloc::vec::Vec;

/// Whether `o` is a GroupNonUniform instruction (run for a subgroup together).
pub(crate) fn is_group_op(o: u16) -> bool {
    (op::OpGroupNonUniformElect..=op::OpGroupNonUniformQuadSwap).contains(&o)
}

/// Whether an invocation waits before `o` for the others of its subgroup
/// (or a fragment quad's lanes): the GroupNonUniform instructions, the
/// derivatives, OpDemoteToHelperInvocation and OpIsHelperInvocationEXT
/// (a quad's lanes run them together, see `exec::stage`; elsewhere they
/// are not supported).
pub(crate) fn waits(o: u16) -> bool {
    is_group_op(o)
        || (op::OpDPdx..=op::OpFwidthCoarse).contains(&o)
        || o == op::OpDemoteToHelperInvocation
        || o == op::OpIsHelperInvocationEXT
}

/// One active invocation: its id in the subgroup and its registers.
pub(crate) struct Member<'a> {
    pub id: u32,
    pub regs: &'a [Val],
}

fn scalar(v: &Val) -> Result<u64, RunErrorKind> {
    match v {
        Val::Scalar(x) => Ok(*x),
        Val::Undef => Ok(0),
        _ => Err(RunErrorKind::ScalarExpected),
    }
}

fn map1(a: &Val, f: &mut impl FnMut(u64) -> u64) -> Val {
    match a {
        Val::Scalar(x) => Val::Scalar(f(*x)),
        Val::Composite(xs) => Val::Composite(xs.iter().map(|x| map1(x, f)).collect()),
        p => p.clone(),
    }
}

/// A ballot's bits (a uvec4) as one number.
fn bits_of(v: &Val) -> Result<u128, RunErrorKind> {
    let mut b = 0u128;
    if let Val::Composite(xs) = v {
        for (k, x) in xs.iter().enumerate().take(4) {
            b |= (mask(scalar(x)?, 32) as u128) << (32 * k);
        }
        Ok(b)
    } else {
        Err(RunErrorKind::BallotExpected)
    }
}

fn ballot_val(b: u128) -> Val {
    Val::Composite(
        (0..4)
            .map(|k| Val::Scalar((b >> (32 * k)) as u64 & 0xffff_ffff))
            .collect(),
    )
}

/// A reduction's operation on two values of width w.
type Combine = fn(u64, u64, u32) -> u64;

/// The identity and the operation of a reduction.
fn reduction(o: u16, k: ScalarClass, w: u32) -> Option<(u64, Combine)> {
    // The largest and the smallest signed values of width w.
    let smax = mask(u64::MAX, w) >> 1;
    let smin = mask(1u64 << w.saturating_sub(1).min(63), w);
    let fl = |x: f64, w: u32| fput(x, w);
    Some(match o {
        op::OpGroupNonUniformIAdd => (0, |a, b, w| mask(a.wrapping_add(b), w)),
        op::OpGroupNonUniformIMul => (1, |a, b, w| mask(a.wrapping_mul(b), w)),
        op::OpGroupNonUniformFAdd if k == ScalarClass::Float => {
            (fl(0.0, w), |a, b, w| fput(fget(a, w) + fget(b, w), w))
        }
        op::OpGroupNonUniformFMul if k == ScalarClass::Float => {
            (fl(1.0, w), |a, b, w| fput(fget(a, w) * fget(b, w), w))
        }
        op::OpGroupNonUniformFMin if k == ScalarClass::Float => (fl(f64::INFINITY, w), |a, b, w| {
            fput(libm::fmin(fget(a, w), fget(b, w)), w)
        }),
        op::OpGroupNonUniformFMax if k == ScalarClass::Float => (fl(f64::NEG_INFINITY, w), |a, b, w| {
            fput(libm::fmax(fget(a, w), fget(b, w)), w)
        }),
        op::OpGroupNonUniformSMin => (smax, |a, b, w| if sext(a, w) <= sext(b, w) { a } else { b }),
        op::OpGroupNonUniformSMax => (smin, |a, b, w| if sext(a, w) >= sext(b, w) { a } else { b }),
        op::OpGroupNonUniformUMin => (mask(u64::MAX, w), |a, b, w| mask(a, w).min(mask(b, w))),
        op::OpGroupNonUniformUMax => (0, |a, b, w| mask(a, w).max(mask(b, w))),
        op::OpGroupNonUniformBitwiseAnd | op::OpGroupNonUniformLogicalAnd => {
            (mask(u64::MAX, w), |a, b, _| a & b)
        }
        op::OpGroupNonUniformBitwiseOr | op::OpGroupNonUniformLogicalOr => (0, |a, b, _| a | b),
        op::OpGroupNonUniformBitwiseXor | op::OpGroupNonUniformLogicalXor => (0, |a, b, _| a ^ b),
        _ => return None,
    })
}

/// Run group instruction `inst` for the active `members` (in order of id):
/// each one's result.
pub(crate) fn run(
    prog: &Program,
    func: &Func,
    inst: &Inst,
    members: &[Member],
) -> Result<Vec<Val>, RunErrorKind> {
    let args = &func.args[inst.a as usize..(inst.a + inst.n) as usize];
    let val = |m: &Member, k: usize| -> Result<Val, RunErrorKind> {
        let s = *args.get(k).ok_or_else(|| RunErrorKind::MissingOperand)?;
        let v = if s & G != 0 {
            prog.globals.get((s & !G) as usize)
        } else {
            m.regs.get(s as usize)
        };
        Ok(v.cloned().unwrap_or(Val::Scalar(0)))
    };
    let lit = |k: usize| -> Result<u32, RunErrorKind> {
        args.get(k)
            .copied()
            .ok_or_else(|| RunErrorKind::MissingOperand)
    };
    let first = members.first().ok_or_else(|| RunErrorKind::NoActiveInvocation)?;
    // The value operand of `id`, if that invocation is active.
    let of = |id: u32, k: usize| -> Result<Option<Val>, RunErrorKind> {
        match members.iter().find(|m| m.id == id) {
            Some(m) => val(m, k).map(Some),
            None => Ok(None),
        }
    };
    let o = inst.op;
    let mut out = Vec::with_capacity(members.len());
    match o {
        op::OpGroupNonUniformElect => {
            for m in members {
                out.push(Val::Scalar((m.id == first.id) as u64));
            }
        }
        op::OpGroupNonUniformAll | op::OpGroupNonUniformAny | op::OpGroupNonUniformAllEqual => {
            let vs: Vec<Val> = members
                .iter()
                .map(|m| val(m, 1))
                .collect::<Result<_, _>>()?;
            let r = match o {
                op::OpGroupNonUniformAll => vs.iter().all(|v| *v != Val::Scalar(0)),
                op::OpGroupNonUniformAny => vs.iter().any(|v| *v != Val::Scalar(0)),
                _ => vs.iter().all(|v| *v == vs[0]),
            };
            out.resize(members.len(), Val::Scalar(r as u64));
        }
        op::OpGroupNonUniformBroadcast | op::OpGroupNonUniformBroadcastFirst => {
            let id = if o == op::OpGroupNonUniformBroadcast {
                scalar(&val(first, 2)?)? as u32
            } else {
                first.id
            };
            let v = of(id, 1)?.ok_or_else(|| RunErrorKind::InactiveBroadcast { id })?;
            out.resize(members.len(), v);
        }
        op::OpGroupNonUniformBallot => {
            let mut b = 0u128;
            for m in members {
                if scalar(&val(m, 1)?)? != 0 && m.id < 128 {
                    b |= 1u128 << m.id;
                }
            }
            out.resize(members.len(), ballot_val(b));
        }
        op::OpGroupNonUniformInverseBallot => {
            for m in members {
                let b = bits_of(&val(m, 1)?)?;
                out.push(Val::Scalar((m.id < 128 && b >> m.id & 1 == 1) as u64));
            }
        }
        op::OpGroupNonUniformBallotBitExtract => {
            for m in members {
                let b = bits_of(&val(m, 1)?)?;
                let i = scalar(&val(m, 2)?)?;
                out.push(Val::Scalar((i < 128 && b >> i & 1 == 1) as u64));
            }
        }
        op::OpGroupNonUniformBallotBitCount => {
            let g = lit(1)?;
            for m in members {
                let b = bits_of(&val(m, 2)?)?;
                let below = |n: u32| {
                    if n >= 128 {
                        u128::MAX
                    } else {
                        (1u128 << n) - 1
                    }
                };
                let sel = match g {
                    gop::Reduce => u128::MAX,
                    gop::InclusiveScan => below(m.id + 1),
                    gop::ExclusiveScan => below(m.id),
                    _ => return Err(RunErrorKind::NotSupportedFeature { feature: Feature::GroupOperation { operation: g } }),
                };
                out.push(Val::Scalar((b & sel).count_ones() as u64));
            }
        }
        op::OpGroupNonUniformBallotFindLSB | op::OpGroupNonUniformBallotFindMSB => {
            for m in members {
                let b = bits_of(&val(m, 1)?)?;
                let r = if b == 0 {
                    u32::MAX
                } else if o == op::OpGroupNonUniformBallotFindLSB {
                    b.trailing_zeros()
                } else {
                    127 - b.leading_zeros()
                };
                out.push(Val::Scalar(r as u64));
            }
        }
        op::OpGroupNonUniformShuffle
        | op::OpGroupNonUniformShuffleXor
        | op::OpGroupNonUniformShuffleUp
        | op::OpGroupNonUniformShuffleDown
        | op::OpGroupNonUniformQuadBroadcast
        | op::OpGroupNonUniformQuadSwap => {
            for m in members {
                let x = scalar(&val(m, 2)?)? as u32;
                let id = match o {
                    op::OpGroupNonUniformShuffle => Some(x),
                    op::OpGroupNonUniformShuffleXor => Some(m.id ^ x),
                    op::OpGroupNonUniformShuffleUp => m.id.checked_sub(x),
                    op::OpGroupNonUniformShuffleDown => m.id.checked_add(x),
                    op::OpGroupNonUniformQuadBroadcast => Some((m.id & !3) + x),
                    _ => Some(m.id ^ (x + 1)),
                };
                // From an invocation that is not active the value is
                // undefined: the invocation's own value stands for it.
                let v = match id {
                    Some(id) => of(id, 1)?,
                    None => None,
                };
                out.push(match v {
                    Some(v) => v,
                    None => val(m, 1)?,
                });
            }
        }
        _ => {
            let sk = inst.sk;
            let Some((identity, f)) = reduction(o, sk.k, sk.w) else {
                return Err(RunErrorKind::NotSupported { opcode: o });
            };
            let g = lit(1)?;
            let w = sk.w;
            let vs: Vec<Val> = members
                .iter()
                .map(|m| val(m, 2))
                .collect::<Result<_, _>>()?;
            let cluster = if g == gop::ClusteredReduce {
                let c = scalar(&val(first, 3)?)? as u32;
                if c == 0 || !c.is_power_of_two() {
                    return Err(RunErrorKind::ClusterSize { size: c as u64 });
                }
                c
            } else {
                u32::MAX
            };
            for m in members {
                let zero = map1(&vs[0], &mut |_| identity);
                let mut acc = zero;
                for (n, v) in members.iter().zip(&vs) {
                    let take = match g {
                        gop::Reduce => true,
                        gop::InclusiveScan => n.id <= m.id,
                        gop::ExclusiveScan => n.id < m.id,
                        gop::ClusteredReduce => n.id / cluster == m.id / cluster,
                        _ => return Err(RunErrorKind::NotSupportedFeature { feature: Feature::GroupOperation { operation: g } }),
                    };
                    if take {
                        acc = map2(&acc, v, &mut |a, b| Ok(f(a, b, w)))?;
                    }
                }
                out.push(acc);
            }
        }
    }
    Ok(out)
}
