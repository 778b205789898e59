//! The image instructions: reads, writes, queries, sampling and texel
//! pointers, on the images and samplers described in [`crate::interp::image`].

use crate::interp::error::Feature;
use crate::grammar::{self, op};
use crate::interp::error::ImageProblem;
use crate::interp::image::{Address, Comp, Desc, Image};
use crate::interp::mem::{BufKey, Loc, Ptr, Val};
use crate::interp::num::{ScalarClass, fget, fput, mask, scalar_kind, sext};
use crate::interp::program::{Inst, Program};
use crate::interp::{RunError, RunErrorKind};
use crate::ir::Type;
use alloc::vec;
use alloc::vec::Vec;

fn err(inst: &Inst, problem: ImageProblem) -> RunError {
    RunError::of(Some(inst.idx), RunErrorKind::Image { problem })
}

/// Up to four integers (a coordinate, a texel) held without a heap
/// allocation; more (never in a valid module) in a Vec.
enum Ints {
    Small([u64; 4], usize),
    Big(Vec<u64>),
}

impl core::ops::Deref for Ints {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        match self {
            Ints::Small(a, n) => &a[..*n],
            Ints::Big(v) => v,
        }
    }
}

fn ints(v: &Val) -> Ints {
    let int = |x: &Val| match x {
        Val::Scalar(s) => *s,
        _ => 0,
    };
    match v {
        Val::Scalar(x) => Ints::Small([*x, 0, 0, 0], 1),
        Val::Composite(xs) if xs.len() <= 4 => {
            let mut a = [0u64; 4];
            for (d, x) in a.iter_mut().zip(xs) {
                *d = int(x);
            }
            Ints::Small(a, xs.len())
        }
        Val::Composite(xs) => Ints::Big(xs.iter().map(int).collect()),
        Val::Pointer(_) => Ints::Small([0; 4], 0),
        // An undefined value, as an index or texel, reads as 0 (see `Val::Undef`).
        Val::Undef => Ints::Small([0; 4], 1),
    }
}

/// The image a handle names: (buffer index, description).
#[inline]
fn image_of<'p>(prog: &'p Program, inst: &Inst, v: &Val) -> Result<(u32, &'p Desc), RunError> {
    let Val::Pointer(p) = v else {
        return Err(err(inst, ImageProblem::NotAnImage));
    };
    match &p.loc {
        Loc::Image { buf, img } => match prog.images.get(*img as usize) {
            Some(Some(i)) => Ok((*buf, i)),
            _ => {
                let binding = match prog.bufs.get(*buf as usize) {
                    Some(BufKey::Binding(s, b)) => Some((*s, *b)),
                    _ => None,
                };
                Err(RunError::unsupported(Some(inst.idx), Feature::ImageWithoutFormat { binding }))
            }
        },
        _ => Err(err(inst, ImageProblem::NotAnImage)),
    }
}

/// The image's size, a texel buffer's width from its bytes.
fn dims(img: &Image, len: usize) -> [u32; 3] {
    let mut s = img.size;
    if s[0] == 0 {
        s[0] = (len / img.format.texel_bytes().max(1)) as u32;
    }
    s
}

/// The first three integers of `v` as [`ints`] reads them (the others do
/// not address a texel) and how many of them there are.
#[inline]
fn coord3(v: &Val) -> ([u64; 3], usize) {
    let int = |x: &Val| match x {
        Val::Scalar(s) => *s,
        _ => 0,
    };
    match v {
        Val::Scalar(x) => ([*x, 0, 0], 1),
        Val::Composite(xs) => {
            let mut a = [0u64; 3];
            for (d, x) in a.iter_mut().zip(xs) {
                *d = int(x);
            }
            (a, xs.len().min(3))
        }
        Val::Pointer(_) => ([0; 3], 0),
        Val::Undef => ([0; 3], 1),
    }
}

/// The byte offset of texel `coord` of sample `sample`, or `None` when the
/// texel is outside the image.
#[inline]
fn texel_at(d: &Desc, len: usize, coord: &[u64], w: u32, sample: u64) -> Option<usize> {
    let tb = d.tb as u64;
    let mut s = d.img.size;
    if s[0] == 0 {
        s[0] = (len as u64 / tb.max(1)) as u32;
    }
    let mut c = [0u64; 3];
    for (k, x) in coord.iter().take(3).enumerate() {
        let v = sext(*x, w);
        if v < 0 || v as u64 >= s[k] as u64 {
            return None;
        }
        c[k] = v as u64;
    }
    let smp = sext(sample, 32);
    if smp < 0 || smp as u64 >= d.samples {
        return None;
    }
    let t = ((smp as u64 * s[2] as u64 + c[2]) * s[1] as u64 + c[1]) * s[0] as u64 + c[0];
    let off = t.checked_mul(tb)?;
    (off + tb <= len as u64).then_some(off as usize)
}

/// The Sample image operand, if any: `ops` is the operands after the mask.
fn image_operand(mask_bits: u32, ops: &[u32], want: u32) -> Option<u32> {
    use grammar::image_operands as io;
    let order = [
        (io::Bias, 1),
        (io::Lod, 1),
        (io::Grad, 2),
        (io::ConstOffset, 1),
        (io::Offset, 1),
        (io::ConstOffsets, 1),
        (io::Sample, 1),
        (io::MinLod, 1),
        (io::MakeTexelAvailable, 1),
        (io::MakeTexelVisible, 1),
        (io::Offsets, 1),
    ];
    let mut at = 0usize;
    for (bit, n) in order {
        if mask_bits & bit != 0 {
            if bit == want {
                return ops.get(at).copied();
            }
            at += n;
        }
    }
    None
}

/// What an image instruction gives.
pub(crate) enum Out {
    /// No result (OpImageWrite).
    None,
    Val(Val),
    /// The first `n` channels of a texel read, as scalars of the result's
    /// component type: for [`put_comps`] into the result's register.
    Comps([u64; 4], usize),
}

/// `*slot` = the scalars `c` (one: a scalar, more: a vector), written into
/// the vector already there when it has as many components.
#[inline]
pub(crate) fn put_comps(slot: &mut Val, c: &[u64]) {
    match slot {
        Val::Scalar(x) if c.len() == 1 => *x = c[0],
        Val::Composite(v) if c.len() > 1 && v.len() == c.len() => {
            for (d, x) in v.iter_mut().zip(c) {
                match d {
                    Val::Scalar(y) => *y = *x,
                    d => *d = Val::Scalar(*x),
                }
            }
        }
        _ => *slot = comps_val(c),
    }
}

fn comps_val(c: &[u64]) -> Val {
    if c.len() == 1 {
        Val::Scalar(c[0])
    } else {
        Val::Composite(c.iter().map(|x| Val::Scalar(*x)).collect())
    }
}

/// The Sample (or Lod) operand of OpImageRead, OpImageFetch or
/// OpImageWrite: `ops` is the operands after the mask; Sample alone, the
/// usual case, is the first.
#[inline]
fn sample_or_lod(m: u32, ops: &[u32], want: u32) -> Option<u32> {
    if m == want {
        ops.first().copied()
    } else {
        image_operand(m, ops, want)
    }
}

/// The image instructions: the result ([`Out::None`] for none, OpImageWrite;
/// a texel read as [`Out::Comps`]).
pub(crate) fn exec<'v>(
    prog: &Program,
    bufs: &mut [Option<Vec<u8>>],
    inst: &Inst,
    args: &[u32],
    get: &dyn Fn(u32) -> &'v Val,
) -> Result<Out, RunError> {
    let arg = |k: usize| -> Result<&'v Val, RunError> {
        args.get(k)
            .map(|a| get(*a))
            .ok_or_else(|| RunError::of(Some(inst.idx), RunErrorKind::MissingOperand))
    };
    let o = inst.op;
    let bytes_of = |bufs: &[Option<Vec<u8>>], buf: u32| -> Result<usize, RunError> {
        bufs.get(buf as usize)
            .and_then(|b| b.as_ref())
            .map(|b| b.len())
            .ok_or_else(|| err(inst, ImageProblem::NotBound { descriptor: true }))
    };
    match o {
        // A sampled image: (image, sampler).
        op::OpSampledImage => Ok(Out::Val(Val::Composite(vec![arg(0)?.clone(), arg(1)?.clone()]))),
        op::OpImage => match arg(0)?.clone() {
            Val::Composite(mut v) if v.len() == 2 => Ok(Out::Val(v.swap_remove(0))),
            v => Ok(Out::Val(v)),
        },
        op::OpImageSampleExplicitLod | op::OpImageSampleImplicitLod => sample(prog, bufs, inst, args, get).map(Out::Val),
        op::OpImageRead | op::OpImageFetch | op::OpImageWrite => {
            let (buf, d) = image_of(prog, inst, arg(0)?)?;
            let coord_v = arg(1)?;
            let (c3, nc) = coord3(coord_v);
            let cw = inst.ak.w;
            let first_op = if o == op::OpImageWrite { 3 } else { 2 };
            let mut sample = 0;
            if let Some(&m) = args.get(first_op) {
                let ops = &args[first_op + 1..];
                if let Some(s) = sample_or_lod(m, ops, grammar::image_operands::Sample) {
                    sample = ints(get(s)).first().copied().unwrap_or(0);
                }
                if m & grammar::image_operands::Lod != 0
                    && let Some(l) = sample_or_lod(m, ops, grammar::image_operands::Lod)
                    && ints(get(l)).first().copied().unwrap_or(0) != 0
                {
                    return Err(RunError::unsupported(Some(inst.idx), Feature::LevelOfDetail));
                }
            }
            let len = bytes_of(bufs, buf)?;
            let at = texel_at(d, len, &c3[..nc], cw, sample);
            let tb = d.tb;
            if o == op::OpImageWrite {
                // A write to an invalid texel has no effect (Texel Output
                // Validation).
                let Some(at) = at else { return Ok(Out::None) };
                let texel = arg(2)?;
                let tk = inst.sk;
                let vals = ints(texel);
                kinds_match(inst, true, tk.k == ScalarClass::Float, d)?;
                let mut c = [Comp::I(0); 4];
                for (k, slot) in c.iter_mut().enumerate() {
                    let v = vals.get(k).copied().unwrap_or(0);
                    *slot = if tk.k == ScalarClass::Float {
                        Comp::F(fget(v, tk.w))
                    } else if tk.k == ScalarClass::Sint {
                        Comp::I(sext(v, tk.w) as u64)
                    } else {
                        Comp::I(v)
                    };
                }
                let b = bufs[buf as usize]
                    .as_mut()
                    .ok_or_else(|| err(inst, ImageProblem::NotBound { descriptor: false }))?;
                d.write(&mut b[at..at + tb], &c);
                return Ok(Out::None);
            }
            let Some(at) = at else {
                return Err(err(
                    inst,
                    ImageProblem::AccessOutside {
                        opcode: o,
                        coordinate: ints(coord_v).iter().map(|x| sext(*x, cw)).collect(),
                        sample: sext(sample, 32),
                    },
                ));
            };
            let b = bufs[buf as usize]
                .as_ref()
                .ok_or_else(|| err(inst, ImageProblem::NotBound { descriptor: false }))?;
            let c = d.read(&b[at..at + tb]);
            let (c, n) = to_comps(prog, inst, &c, d)?;
            Ok(Out::Comps(c, n))
        }
        op::OpImageQuerySize | op::OpImageQuerySizeLod => {
            let (buf, img) = image_of(prog, inst, arg(0)?)?;
            if o == op::OpImageQuerySizeLod && ints(arg(1)?).first().copied().unwrap_or(0) != 0 {
                return Err(err(inst, ImageProblem::MissingLevel));
            }
            let s = dims(&img.img, bytes_of(bufs, buf)?);
            let n = match prog.ir.ty(inst.ty).map(|t| &t.ty) {
                Some(Type::Vector { count, .. }) => *count as usize,
                _ => 1,
            };
            let v: Vec<Val> = s
                .iter()
                .take(n)
                .map(|x| Val::Scalar(mask(*x as u64, inst.sk.w)))
                .collect();
            Ok(Out::Val(if n == 1 { v[0].clone() } else { Val::Composite(v) }))
        }
        op::OpImageQueryLevels => {
            image_of(prog, inst, arg(0)?)?;
            Ok(Out::Val(Val::Scalar(1)))
        }
        op::OpImageQuerySamples => {
            let (_, img) = image_of(prog, inst, arg(0)?)?;
            Ok(Out::Val(Val::Scalar(img.samples)))
        }
        op::OpImageTexelPointer => {
            let handle = arg(0)?;
            if !matches!(handle, Val::Pointer(_)) {
                return Err(err(inst, ImageProblem::TexelPointerBase));
            }
            let (buf, img) = image_of(prog, inst, handle)?;
            let coord_v = arg(1)?;
            let (c3, nc) = coord3(coord_v);
            let cw = inst.ak.w;
            let sample = ints(arg(2)?).first().copied().unwrap_or(0);
            let pointee = match prog.ir.ty(inst.ty).map(|t| &t.ty) {
                Some(Type::Pointer {
                    pointee: Some(p), ..
                }) => *p,
                _ => {
                    return Err(err(inst, ImageProblem::TexelPointerResult));
                }
            };
            let sb = scalar_kind(prog.ir, pointee).w as usize / 8;
            if !img.int || img.img.format.comps.len() != 1 || img.tb != sb {
                return Err(RunError::unsupported(Some(inst.idx), Feature::TexelPointerFormat));
            }
            let len = bytes_of(bufs, buf)?;
            let at = texel_at(img, len, &c3[..nc], cw, sample).ok_or_else(|| {
                err(inst, ImageProblem::TexelPointerOutside {
                    coordinate: ints(coord_v).iter().map(|x| sext(*x, cw)).collect(),
                    sample: sext(sample, 32),
                })
            })?;
            Ok(Out::Val(Val::Pointer(Ptr {
                ty: pointee,
                loc: Loc::Buf {
                    buf,
                    off: at as u64,
                    vstride: 0,
                    mat: None,
                },
            })))
        }
        _ => Err(RunError::of(Some(inst.idx), RunErrorKind::NotSupported { opcode: o })),
    }
}

/// OpImageSampleExplicitLod and OpImageSampleImplicitLod with nearest
/// filtering, at level 0 (the only one): the texel
/// whose cell holds the coordinate (normalized coordinates times the size,
/// rounded down), wrapped by the sampler's address mode.
fn sample<'v>(
    prog: &Program,
    bufs: &[Option<Vec<u8>>],
    inst: &Inst,
    args: &[u32],
    get: &dyn Fn(u32) -> &'v Val,
) -> Result<Val, RunError> {
    // An OpSampledImage's (image, sampler), or a combined image sampler
    // descriptor (its sampler state the binding's).
    let si = args.first().map(|a| get(*a)).unwrap_or(&Val::Scalar(0));
    let (buf, img, smp) = match si {
        Val::Composite(parts) if !parts.is_empty() => {
            let (buf, img) = image_of(prog, inst, &parts[0])?;
            let smp = match &parts.get(1) {
                Some(Val::Pointer(p)) => match p.loc {
                    Loc::Sampler { smp } => prog.samplers.get(smp as usize).copied().flatten(),
                    _ => None,
                },
                _ => None,
            };
            (buf, img, smp)
        }
        Val::Pointer(_) => {
            let (buf, img) = image_of(prog, inst, si)?;
            (buf, img, img.sampler)
        }
        _ => return Err(RunError::unsupported(Some(inst.idx), Feature::SampledImageValue)),
    };
    let smp = smp.ok_or_else(|| RunError::unsupported(Some(inst.idx), Feature::SamplerWithoutState))?;
    if smp.linear {
        return Err(RunError::unsupported(Some(inst.idx), Feature::LinearFiltering));
    }
    // Images have one mip level and samplers filter nearest: whatever the
    // level of detail (implicit, with a Bias or a MinLod, an explicit Lod or
    // Grad), it selects level 0, and minification and magnification filter
    // alike, so the texel is level 0's (no derivatives needed).
    let m = args.get(2).copied().unwrap_or(0);
    let ops = grammar::image_operands::Lod | grammar::image_operands::Grad | grammar::image_operands::Bias | grammar::image_operands::MinLod;
    if m & !ops != 0 {
        return Err(RunError::unsupported(Some(inst.idx), Feature::SampleOffset));
    }
    let ck = inst.ak;
    if ck.k != ScalarClass::Float {
        return Err(err(inst, ImageProblem::CoordinatesNotFloat));
    }
    let coord = ints(&args.get(1).map(|a| get(*a)).unwrap_or(&Val::Scalar(0)));
    let len = bufs
        .get(buf as usize)
        .and_then(|b| b.as_ref())
        .map_or(0, |b| b.len());
    let size = dims(&img.img, len);
    let mut texel = Vec::new();
    for (k, c) in coord.iter().take(3).enumerate() {
        let n = size[k] as i64;
        let u = fget(*c, ck.w);
        let u = if smp.normalized { u * n as f64 } else { u };
        if !u.is_finite() {
            return Err(err(inst, ImageProblem::CoordinateNotFinite));
        }
        let i = libm::floor(u) as i64;
        let i = match smp.address[k] {
            Address::ClampToEdge => i.clamp(0, n - 1),
            Address::Repeat => i.rem_euclid(n),
            Address::MirroredRepeat => {
                let t = i.rem_euclid(2 * n);
                if t < n { t } else { 2 * n - 1 - t }
            }
            Address::Other => {
                return Err(RunError::unsupported(Some(inst.idx), Feature::SamplerAddressMode));
            }
        };
        texel.push(i as u64);
    }
    let at = texel_at(img, len, &texel, 64, 0)
        .ok_or_else(|| err(inst, ImageProblem::TexelOutside))?;
    let b = bufs[buf as usize]
        .as_ref()
        .ok_or_else(|| err(inst, ImageProblem::NotBound { descriptor: false }))?;
    let c = img.read(&b[at..at + img.tb]);
    let (c, n) = to_comps(prog, inst, &c, img)?;
    Ok(comps_val(&c[..n]))
}

/// An error when `what` (floats or integers) does not suit the image's format.
#[inline]
fn kinds_match(inst: &Inst, written: bool, float: bool, img: &Desc) -> Result<(), RunError> {
    if float != img.int {
        return Ok(());
    }
    Err(err(inst, ImageProblem::FormatMismatch { written, float }))
}

/// The channels as the instruction's result type: its first `n`, each as
/// a scalar of the result's component type.
#[inline]
fn to_comps(
    prog: &Program,
    inst: &Inst,
    c: &[Comp; 4],
    img: &Desc,
) -> Result<([u64; 4], usize), RunError> {
    let sk = inst.sk;
    kinds_match(inst, false, sk.k == ScalarClass::Float, img)?;
    let n = match prog.ir.ty(inst.ty).map(|t| &t.ty) {
        Some(Type::Vector { count, .. }) => (*count as usize).min(4),
        _ => 1,
    };
    let mut out = [0u64; 4];
    for (d, x) in out.iter_mut().zip(c).take(n) {
        *d = match *x {
            Comp::F(f) if sk.w == 32 => (f as f32).to_bits() as u64,
            Comp::F(f) => fput(f, sk.w),
            Comp::I(i) => mask(i, sk.w),
        };
    }
    Ok((out, n))
}

