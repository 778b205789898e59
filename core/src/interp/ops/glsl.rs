//! The GLSL.std.450 extended instructions (all but the interpolation ones,
//! which no compute shader has): computed in f64 and rounded to the result's
//! width, component by component.

use crate::interp::error::Feature;
use crate::interp::num::{ScalarClass, ScalarType};
use crate::interp::program::Inst;
use crate::interp::num::{fget, fput};
use crate::interp::mem::{Val};
use crate::interp::num::{mask, sext};
use crate::grammar::ext_inst::glsl_std_450 as g;
use crate::interp::error::{RunErrorKind, Shapes};
use alloc::vec;
use alloc::vec::Vec;

fn num(v: &Val) -> Result<u64, RunErrorKind> {
    match v {
        Val::Scalar(x) => Ok(*x),
        // Where undefinedness is not followed (the vector functions: dot,
        // length...), an undefined scalar reads as 0, as in memory's
        // `scalar`; [`zip`] follows it.
        Val::Undef => Ok(0),
        _ => Err(RunErrorKind::ScalarExpected),
    }
}

fn parts(v: &Val) -> Vec<Val> {
    match v {
        Val::Composite(xs) => xs.clone(),
        x => vec![x.clone()],
    }
}

/// Apply `f` component by component over the operands (a scalar operand
/// goes with every component of a vector one).
fn zip(vals: &[&Val], f: &mut dyn FnMut(&[u64]) -> Result<u64, RunErrorKind>) -> Result<Val, RunErrorKind> {
    let n = vals
        .iter()
        .filter_map(|v| match v {
            Val::Composite(c) => Some(c.len()),
            _ => None,
        })
        .max();
    // A component with an undefined operand is undefined.
    let mut xs = vec![0u64; vals.len()];
    let Some(n) = n else {
        if vals.iter().any(|v| matches!(v, Val::Undef)) {
            return Ok(Val::Undef);
        }
        for (k, v) in vals.iter().enumerate() {
            xs[k] = num(v)?;
        }
        return Ok(Val::Scalar(f(&xs)?));
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let mut undef = false;
        for (k, v) in vals.iter().enumerate() {
            let x = match v {
                Val::Composite(c) => c.get(i).ok_or_else(|| RunErrorKind::ShapeMismatch { of: Shapes::Sizes })?,
                s => s,
            };
            undef |= matches!(x, Val::Undef);
            xs[k] = num(x)?;
        }
        out.push(if undef { Val::Undef } else { Val::Scalar(f(&xs)?) });
    }
    Ok(Val::Composite(out))
}

fn floats(v: &Val, w: u32) -> Result<Vec<f64>, RunErrorKind> {
    parts(v)
        .iter()
        .map(|x| num(x).map(|b| fget(b, w)))
        .collect()
}

fn vector(xs: &[f64], w: u32) -> Val {
    Val::Composite(xs.iter().map(|x| Val::Scalar(fput(*x, w))).collect())
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A matrix (columns of components) as rows x cols numbers, m[col][row].
fn matrix(v: &Val, w: u32) -> Result<Vec<Vec<f64>>, RunErrorKind> {
    parts(v).iter().map(|c| floats(c, w)).collect()
}

fn det(m: &[Vec<f64>]) -> f64 {
    let n = m.len();
    match n {
        0 => 1.0,
        1 => m[0][0],
        2 => m[0][0] * m[1][1] - m[1][0] * m[0][1],
        _ => {
            // Expand along the first column.
            let mut s = 0.0;
            for r in 0..n {
                let minor: Vec<Vec<f64>> = m[1..]
                    .iter()
                    .map(|col| {
                        col.iter()
                            .enumerate()
                            .filter(|(k, _)| *k != r)
                            .map(|(_, x)| *x)
                            .collect()
                    })
                    .collect();
                let sign = if r % 2 == 0 { 1.0 } else { -1.0 };
                s += sign * m[0][r] * det(&minor);
            }
            s
        }
    }
}

/// The minor of m without column `c` and row `r`.
fn minor(m: &[Vec<f64>], c: usize, r: usize) -> Vec<Vec<f64>> {
    m.iter()
        .enumerate()
        .filter(|(k, _)| *k != c)
        .map(|(_, col)| {
            col.iter()
                .enumerate()
                .filter(|(k, _)| *k != r)
                .map(|(_, x)| *x)
                .collect()
        })
        .collect()
}

fn sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

fn float1(e: u32, x: f64) -> Option<f64> {
    use libm as m;
    Some(match e {
        g::Round => m::round(x),
        g::RoundEven => m::rint(x),
        g::Trunc => m::trunc(x),
        g::FAbs => m::fabs(x),
        g::FSign => sign(x),
        g::Floor => m::floor(x),
        g::Ceil => m::ceil(x),
        g::Fract => x - m::floor(x),
        g::Radians => x * (core::f64::consts::PI / 180.0),
        g::Degrees => x * (180.0 / core::f64::consts::PI),
        g::Sin => m::sin(x),
        g::Cos => m::cos(x),
        g::Tan => m::tan(x),
        g::Asin => m::asin(x),
        g::Acos => m::acos(x),
        g::Atan => m::atan(x),
        g::Sinh => m::sinh(x),
        g::Cosh => m::cosh(x),
        g::Tanh => m::tanh(x),
        g::Asinh => m::asinh(x),
        g::Acosh => m::acosh(x),
        g::Atanh => m::atanh(x),
        g::Exp => m::exp(x),
        g::Log => m::log(x),
        g::Exp2 => m::exp2(x),
        g::Log2 => m::log2(x),
        g::Sqrt => m::sqrt(x),
        g::InverseSqrt => 1.0 / m::sqrt(x),
        _ => return None,
    })
}

fn float2(e: u32, x: f64, y: f64) -> Option<f64> {
    use libm as m;
    Some(match e {
        g::Atan2 => m::atan2(x, y),
        g::Pow => m::pow(x, y),
        g::FMin | g::NMin => m::fmin(x, y),
        g::FMax | g::NMax => m::fmax(x, y),
        g::Step => {
            if y < x {
                0.0
            } else {
                1.0
            }
        }
        _ => return None,
    })
}

fn float3(e: u32, x: f64, y: f64, z: f64) -> Option<f64> {
    use libm as m;
    Some(match e {
        g::FClamp | g::NClamp => m::fmin(m::fmax(x, y), z),
        g::FMix => x * (1.0 - z) + y * z,
        g::Fma => m::fma(x, y, z),
        g::SmoothStep => {
            let t = m::fmin(m::fmax((z - x) / (y - x), 0.0), 1.0);
            t * t * (3.0 - 2.0 * t)
        }
        _ => return None,
    })
}


/// Run GLSL.std.450 instruction `e` on `vals`; `inst.sk` is the result's
/// scalar kind, `ak` the first operand's, `lw` the component width of the
/// last operand.
pub(crate) fn run(e: u32, inst: &Inst, lw: u32, vals: &[&Val]) -> Result<Val, RunErrorKind> {
    let (sk, ak): (ScalarType, ScalarType) = (inst.sk, inst.ak);
    let arity = |n: usize| -> Result<(), RunErrorKind> {
        if vals.len() == n {
            Ok(())
        } else {
            Err(RunErrorKind::ExtOperands { inst: e, takes: n as u32 })
        }
    };
    let fw = ak.w;
    let float_in = ak.k == ScalarClass::Float;
    if float_in && sk.k == ScalarClass::Float {
        let w = sk.w;
        if float1(e, 0.0).is_some() {
            arity(1)?;
            return zip(vals, &mut |x| {
                Ok(fput(float1(e, fget(x[0], fw)).unwrap_or(0.0), w))
            });
        }
        if float2(e, 0.0, 0.0).is_some() {
            arity(2)?;
            return zip(vals, &mut |x| {
                Ok(fput(
                    float2(e, fget(x[0], fw), fget(x[1], fw)).unwrap_or(0.0),
                    w,
                ))
            });
        }
        if float3(e, 0.0, 0.0, 0.0).is_some() {
            arity(3)?;
            return zip(vals, &mut |x| {
                Ok(fput(
                    float3(e, fget(x[0], fw), fget(x[1], fw), fget(x[2], fw)).unwrap_or(0.0),
                    w,
                ))
            });
        }
    }
    let iw = ak.w;
    match e {
        g::SAbs | g::SSign | g::FindILsb | g::FindSMsb | g::FindUMsb if ak.k != ScalarClass::Float => {
            arity(1)?;
            let w = sk.w;
            zip(vals, &mut |x| {
                let a = mask(x[0], iw);
                let s = sext(a, iw);
                let r: i64 = match e {
                    g::SAbs => s.wrapping_abs(),
                    g::SSign => s.signum(),
                    g::FindILsb => {
                        if a == 0 {
                            -1
                        } else {
                            a.trailing_zeros() as i64
                        }
                    }
                    g::FindUMsb => {
                        if a == 0 {
                            -1
                        } else {
                            63 - a.leading_zeros() as i64
                        }
                    }
                    _ => {
                        // The most significant bit that differs from the sign.
                        let v = if s < 0 { !s } else { s } as u64;
                        if v == 0 {
                            -1
                        } else {
                            63 - v.leading_zeros() as i64
                        }
                    }
                };
                Ok(mask(r as u64, w))
            })
        }
        g::UMin | g::SMin | g::UMax | g::SMax => {
            arity(2)?;
            zip(vals, &mut |x| {
                let (a, b) = (mask(x[0], iw), mask(x[1], iw));
                let less = if e == g::SMin || e == g::SMax {
                    sext(a, iw) < sext(b, iw)
                } else {
                    a < b
                };
                let min = e == g::UMin || e == g::SMin;
                Ok(if less == min { a } else { b })
            })
        }
        g::UClamp | g::SClamp => {
            arity(3)?;
            zip(vals, &mut |x| {
                let (a, lo, hi) = (mask(x[0], iw), mask(x[1], iw), mask(x[2], iw));
                Ok(if e == g::SClamp {
                    let v = sext(a, iw).max(sext(lo, iw)).min(sext(hi, iw));
                    mask(v as u64, iw)
                } else {
                    a.max(lo).min(hi)
                })
            })
        }
        g::Ldexp if float_in => {
            arity(2)?;
            let (w, ew) = (sk.w, lw);
            zip(vals, &mut |x| {
                let n = sext(mask(x[1], ew), ew).clamp(-10_000, 10_000) as i32;
                Ok(fput(libm::ldexp(fget(x[0], fw), n), w))
            })
        }
        g::Length | g::Distance if float_in => {
            let mut a = floats(vals[0], fw)?;
            if e == g::Distance {
                arity(2)?;
                let b = floats(vals[1], fw)?;
                a = a.iter().zip(&b).map(|(x, y)| x - y).collect();
            } else {
                arity(1)?;
            }
            Ok(Val::Scalar(fput(libm::sqrt(dot(&a, &a)), sk.w)))
        }
        g::Normalize if float_in => {
            arity(1)?;
            let a = floats(vals[0], fw)?;
            let l = libm::sqrt(dot(&a, &a));
            let r: Vec<f64> = a.iter().map(|x| x / l).collect();
            Ok(match vals[0] {
                Val::Composite(_) => vector(&r, sk.w),
                _ => Val::Scalar(fput(r[0], sk.w)),
            })
        }
        g::Cross if float_in => {
            arity(2)?;
            let (a, b) = (floats(vals[0], fw)?, floats(vals[1], fw)?);
            if a.len() != 3 || b.len() != 3 {
                return Err(RunErrorKind::CrossShape);
            }
            Ok(vector(
                &[
                    a[1] * b[2] - b[1] * a[2],
                    a[2] * b[0] - b[2] * a[0],
                    a[0] * b[1] - b[0] * a[1],
                ],
                sk.w,
            ))
        }
        g::FaceForward | g::Reflect | g::Refract if float_in => {
            let n_ops = if e == g::Reflect { 2 } else { 3 };
            arity(n_ops)?;
            let a = floats(vals[0], fw)?;
            let b = floats(vals[1], fw)?;
            let r: Vec<f64> = match e {
                g::FaceForward => {
                    let nref = floats(vals[2], fw)?;
                    let s = if dot(&nref, &b) < 0.0 { 1.0 } else { -1.0 };
                    a.iter().map(|x| s * x).collect()
                }
                g::Reflect => {
                    let d = dot(&b, &a);
                    a.iter().zip(&b).map(|(i, n)| i - 2.0 * d * n).collect()
                }
                _ => {
                    let eta = fget(num(vals[2])?, fw);
                    let d = dot(&b, &a);
                    let k = 1.0 - eta * eta * (1.0 - d * d);
                    if k < 0.0 {
                        vec![0.0; a.len()]
                    } else {
                        let s = eta * d + libm::sqrt(k);
                        a.iter().zip(&b).map(|(i, n)| eta * i - s * n).collect()
                    }
                }
            };
            Ok(match vals[0] {
                Val::Composite(_) => vector(&r, sk.w),
                _ => Val::Scalar(fput(r[0], sk.w)),
            })
        }
        g::Determinant => {
            arity(1)?;
            let m = matrix(vals[0], sk.w)?;
            if m.iter().any(|c| c.len() != m.len()) {
                return Err(RunErrorKind::NotSquare { inst: e });
            }
            Ok(Val::Scalar(fput(det(&m), sk.w)))
        }
        g::MatrixInverse => {
            arity(1)?;
            let w = lw;
            let m = matrix(vals[0], w)?;
            let n = m.len();
            if m.iter().any(|c| c.len() != n) {
                return Err(RunErrorKind::NotSquare { inst: e });
            }
            let d = det(&m);
            // inverse[c][r] = cofactor(r, c) / det (the adjugate is the transpose).
            let inv: Vec<Val> = (0..n)
                .map(|c| {
                    let col: Vec<f64> = (0..n)
                        .map(|r| {
                            let s = if (r + c) % 2 == 0 { 1.0 } else { -1.0 };
                            s * det(&minor(&m, r, c)) / d
                        })
                        .collect();
                    vector(&col, w)
                })
                .collect();
            Ok(Val::Composite(inv))
        }
        g::PackSnorm4x8
        | g::PackUnorm4x8
        | g::PackSnorm2x16
        | g::PackUnorm2x16
        | g::PackHalf2x16 => {
            arity(1)?;
            let a = floats(vals[0], fw)?;
            let (bits, scale, signed) = match e {
                g::PackSnorm4x8 => (8, 127.0, true),
                g::PackUnorm4x8 => (8, 255.0, false),
                g::PackSnorm2x16 => (16, 32767.0, true),
                g::PackUnorm2x16 => (16, 65535.0, false),
                _ => (16, 0.0, false),
            };
            let mut r = 0u64;
            for (k, x) in a.iter().enumerate() {
                let v = if e == g::PackHalf2x16 {
                    crate::interp::num::f64_to_half(*x) as u64
                } else {
                    let lo = if signed { -1.0 } else { 0.0 };
                    let c = libm::round(libm::fmin(libm::fmax(*x, lo), 1.0) * scale);
                    mask(c as i64 as u64, bits)
                };
                r |= v << (k as u32 * bits);
            }
            Ok(Val::Scalar(mask(r, 32)))
        }
        g::UnpackSnorm4x8
        | g::UnpackUnorm4x8
        | g::UnpackSnorm2x16
        | g::UnpackUnorm2x16
        | g::UnpackHalf2x16 => {
            arity(1)?;
            let p = num(vals[0])?;
            let (bits, n, scale, signed) = match e {
                g::UnpackSnorm4x8 => (8, 4, 127.0, true),
                g::UnpackUnorm4x8 => (8, 4, 255.0, false),
                g::UnpackSnorm2x16 => (16, 2, 32767.0, true),
                g::UnpackUnorm2x16 => (16, 2, 65535.0, false),
                _ => (16, 2, 0.0, false),
            };
            let r: Vec<f64> = (0..n)
                .map(|k| {
                    let f = mask(p >> (k * bits), bits);
                    if e == g::UnpackHalf2x16 {
                        crate::interp::num::half_to_f64(f as u16)
                    } else if signed {
                        libm::fmax(sext(f, bits) as f64 / scale, -1.0)
                    } else {
                        f as f64 / scale
                    }
                })
                .collect();
            Ok(vector(&r, sk.w))
        }
        g::PackDouble2x32 => {
            arity(1)?;
            let p = parts(vals[0]);
            let lo = num(p.first().ok_or_else(|| RunErrorKind::ShapeMismatch { of: Shapes::PackDouble })?)?;
            let hi = num(p.get(1).ok_or_else(|| RunErrorKind::ShapeMismatch { of: Shapes::PackDouble })?)?;
            Ok(Val::Scalar(mask(lo, 32) | mask(hi, 32) << 32))
        }
        g::UnpackDouble2x32 => {
            arity(1)?;
            let d = num(vals[0])?;
            Ok(Val::Composite(vec![Val::Scalar(mask(d, 32)), Val::Scalar(d >> 32)]))
        }
        g::ModfStruct | g::FrexpStruct if float_in => {
            arity(1)?;
            let w = fw;
            let (a, b) = split(e, vals[0], w)?;
            Ok(Val::Composite(vec![a, b]))
        }
        _ => Err(RunErrorKind::NotSupportedFeature { feature: Feature::GlslInstruction { instruction: e } }),
    }
}

/// Modf and Frexp: (fraction, whole) or (mantissa, exponent), component by
/// component.
pub(crate) fn split(e: u32, v: &Val, w: u32) -> Result<(Val, Val), RunErrorKind> {
    let one = |x: u64| -> (u64, u64) {
        let f = fget(x, w);
        if e == g::Modf || e == g::ModfStruct {
            let whole = libm::trunc(f);
            // The fraction has x's sign (GLSL.std.450 Modf), -0.0 for a
            // negative whole number or -inf.
            let frac = libm::copysign(if f.is_infinite() { 0.0 } else { f - whole }, f);
            (fput(frac, w), fput(whole, w))
        } else {
            let (m, ex) = libm::frexp(f);
            (fput(m, w), mask(ex as i64 as u64, 32))
        }
    };
    match v {
        Val::Scalar(x) => {
            let (a, b) = one(*x);
            Ok((Val::Scalar(a), Val::Scalar(b)))
        }
        Val::Composite(xs) => {
            let mut a = Vec::new();
            let mut b = Vec::new();
            for x in xs {
                let (p, q) = one(num(x)?);
                a.push(Val::Scalar(p));
                b.push(Val::Scalar(q));
            }
            Ok((Val::Composite(a), Val::Composite(b)))
        }
        Val::Pointer(_) => Err(RunErrorKind::PointerAsNumber),
        Val::Undef => Ok((Val::Undef, Val::Undef)),
    }
}

/// Whether `e` is Modf or Frexp (the forms with an out pointer).
pub(crate) fn has_out_pointer(e: u32) -> bool {
    e == g::Modf || e == g::Frexp
}
