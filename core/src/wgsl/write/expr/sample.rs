//! Sampling and gathers: OpImageSample* as `textureSample`,
//! `textureSampleBias`, `textureSampleLevel`, `textureSampleGrad`, the depth
//! comparisons as `textureSampleCompare` and `textureSampleCompareLevel`,
//! OpImageGather and OpImageDrefGather as `textureGather` and
//! `textureGatherCompare`. A projective sampling divides the coordinate,
//! and a depth reference, by the coordinate's q component (Vulkan's
//! projection operation). An array layer, a float in SPIR-V, is rounded to
//! the nearest integer, as Vulkan selects the layer.
//!
//! What WGSL's built-ins lack is refused (`wgsl.image`, `Limit::Wgsl`):
//! implicit level of detail outside a fragment shader (SPIR-V allows it
//! there only with the compute derivative groups WGSL lacks), a depth
//! comparison at a level other than 0 or by gradients, bias or an explicit
//! level on 1D textures, gradients and bias on depth textures, an explicit
//! non-integral level on a depth texture, offsets that are not constant or
//! lie outside WGSL's [-8, 7], offsets on 1D and cube textures, a minimum
//! level of detail, gathers of four offsets, sampling an integer texture.

use crate::grammar::{dim, image_operands as io, op};
use crate::ir::{ConstValue, Type};
use crate::wgsl::refuse::Refusal;
use crate::wgsl::types::{Kind, Num, cast};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;
use alloc::string::String;

use super::image::image;

/// The image operands of a sampling or gather, as WGSL's built-ins take them.
#[derive(Default)]
struct Operands {
    bias: Option<u32>,
    lod: Option<u32>,
    grad: Option<(u32, u32)>,
    offset: Option<u32>,
}

/// The operands from mask word `k` on of `words`, or what WGSL lacks of them.
fn operands(ir: &crate::ir::Ir, words: &[u32], k: usize) -> Result<Operands, &'static str> {
    let mut o = Operands::default();
    let Some(&mask) = words.get(k) else { return Ok(o) };
    let mut next = k + 1;
    let mut take = || {
        let w = words.get(next).copied().unwrap_or(0);
        next += 1;
        w
    };
    // The operands follow the mask in the order of their bits.
    for bit in 0..32 {
        let b = mask & (1 << bit);
        match b {
            0 => {}
            io::Bias => o.bias = Some(take()),
            io::Lod => o.lod = Some(take()),
            io::Grad => {
                let dx = take();
                o.grad = Some((dx, take()));
            }
            io::ConstOffset => o.offset = Some(take()),
            io::Offset => {
                let id = take();
                if ir.constant(id).is_none() {
                    return Err("a texel offset that is not constant (WGSL's offsets are constant expressions)");
                }
                o.offset = Some(id);
            }
            io::ConstOffsets => return Err("a gather of four texel offsets (WGSL's gathers take one offset)"),
            io::MinLod => return Err("a minimum level of detail (WGSL's sampling built-ins have no clamp of it)"),
            io::Sample => return Err("a sample index in a sampling"),
            io::MakeTexelAvailable | io::MakeTexelVisible => {
                take();
            }
            io::NonPrivateTexel | io::VolatileTexel | io::Nontemporal => {}
            _ => return Err("image operands WGSL's sampling built-ins lack"),
        }
    }
    Ok(o)
}

/// The first `n` components of vector `c` (of `have` components).
fn first(c: &str, n: u32, have: u32) -> String {
    if n == have {
        return String::from(c);
    }
    let sw = ["x", "xy", "xyz", "xyzw"][n.clamp(1, 4) as usize - 1];
    format!("{c}.{sw}")
}

/// Component `k` of vector `c`.
fn comp(c: &str, k: u32) -> String {
    format!("{c}.{}", ["x", "y", "z", "w"][k.min(3) as usize])
}

impl ModuleWriter<'_> {
    /// The texture and sampler expressions of sampled image `si`: those of
    /// its OpSampledImage, or the two halves of the combined image sampler
    /// variable it is loaded from.
    pub(in crate::wgsl::write) fn sampled_texts(&mut self, f: &mut FunctionContext, si: u32, at: Option<u32>) -> Result<(String, String), Refusal> {
        let ir = self.ir;
        let mut id = si;
        for _ in 0..ir.len() {
            let Some(d) = ir.def(id) else { break };
            let words = ir.words(d);
            match ir.opcode(d) {
                op::OpSampledImage => {
                    let (t, s) = (words.get(2).copied().unwrap_or(0), words.get(3).copied().unwrap_or(0));
                    return Ok((self.val(f, t)?, self.val(f, s)?));
                }
                op::OpLoad => {
                    let v = words.get(2).copied().unwrap_or(0);
                    let Some(s) = self.split_samplers.get(&v).cloned() else { break };
                    return Ok((self.val(f, si)?, s));
                }
                op::OpCopyObject => id = words.get(2).copied().unwrap_or(0),
                op::OpFunctionParameter => {
                    let Some(s) = self.split_samplers.get(&id).cloned() else { break };
                    return Ok((self.val(f, id)?, s));
                }
                _ => break,
            }
        }
        Err(image("a sampled image that is neither made by OpSampledImage nor loaded from a combined image sampler variable".into(), at))
    }

    /// The bits of scalar constant `id` (0 for a null one).
    fn const_bits(&self, id: u32) -> Option<u64> {
        match self.ir.constant(id)?.value {
            ConstValue::Scalar(b) => Some(b),
            ConstValue::Null => Some(0),
            _ => None,
        }
    }

    /// Offset constant `id` as a WGSL `i32` constant expression of `n`
    /// components, each in WGSL's [-8, 7].
    fn offset_text(&mut self, id: u32, n: u32, at: Option<u32>) -> Result<String, Refusal> {
        let ir = self.ir;
        let bad = || image("a texel offset outside WGSL's [-8, 7], or not an integer constant".into(), at);
        let c = ir.constant(id).ok_or_else(bad)?;
        let in_range = |x: u32| ir.const_u64(x).is_some_and(|v| (-8..=7).contains(&(v as u32 as i32)));
        let ok = match &c.value {
            ConstValue::Scalar(_) => in_range(id),
            ConstValue::Composite(parts) => parts.len() == n as usize && parts.iter().all(|&p| in_range(p)),
            ConstValue::Null => true,
            _ => false,
        };
        let num = self.num_of(id).filter(|k| k.kind.is_int() && k.n == n).ok_or_else(bad)?;
        if !ok {
            return Err(bad());
        }
        let e = self.const_expr(id)?;
        Ok(if num.kind == Kind::I32 {
            e
        } else if n == 1 {
            format!("i32({e})")
        } else {
            format!("vec{n}<i32>({e})")
        })
    }

    /// A sampling or gather (`OpImageSample*`, `OpImageGather`,
    /// `OpImageDrefGather`) as WGSL's built-in.
    pub(in crate::wgsl::write) fn sample(&mut self, f: &mut FunctionContext, i: usize, words: &[u32]) -> Result<Option<String>, Refusal> {
        let ir = self.ir;
        let at = Some(i as u32);
        let o = ir.opcode(i);
        let arg = |k: usize| words.get(k).copied().unwrap_or(0);
        let name = ir.desc(i).map_or("an image instruction", |d| d.name);
        let (dref, proj, explicit, gather) = match o {
            op::OpImageSampleImplicitLod => (false, false, false, false),
            op::OpImageSampleExplicitLod => (false, false, true, false),
            op::OpImageSampleDrefImplicitLod => (true, false, false, false),
            op::OpImageSampleDrefExplicitLod => (true, false, true, false),
            op::OpImageSampleProjImplicitLod => (false, true, false, false),
            op::OpImageSampleProjExplicitLod => (false, true, true, false),
            op::OpImageSampleProjDrefImplicitLod => (true, true, false, false),
            op::OpImageSampleProjDrefExplicitLod => (true, true, true, false),
            op::OpImageGather => (false, false, false, true),
            op::OpImageDrefGather => (true, false, false, true),
            _ => return Err(image(format!("{name} (WGSL has no counterpart)"), at)),
        };
        let (rt, si, coord) = (arg(0), arg(2), arg(3));
        // Dref or the gathered component come before the image operands.
        let extra = usize::from(dref || gather);
        let ops = operands(ir, words, 4 + extra).map_err(|why| image(format!("{name} with {why}"), at))?;
        if !explicit && !gather && self.plan.outside_fragment(f.cfg.id) {
            return Err(image(
                format!("{name} outside a fragment shader (implicit level of detail needs derivatives: WGSL's textureSample and textureSampleCompare are fragment-only)"),
                at,
            ));
        }
        let img_ty = match ir.type_of(si).and_then(|t| ir.ty(t)).map(|t| &t.ty) {
            Some(&Type::SampledImage { image }) => image,
            _ => return Err(image(format!("{name} of a value that is not a sampled image"), at)),
        };
        let m = self.image_type(img_ty).ok_or_else(|| image(format!("{name} of a non-image"), at))?;
        let depth = self.is_depth(si);
        if dref && !depth {
            return Err(image(format!("{name} on an image that is not declared a depth texture"), at));
        }
        let float = self.num(m.sampled_type).is_some_and(|n| n.kind == Kind::F32);
        if !float && !gather {
            return Err(image(format!("{name} of an integer image (WGSL samples only f32 textures; textureLoad and textureGather read the others)"), at));
        }
        if m.multisampled {
            return Err(image(format!("{name} of a multisampled image"), at));
        }
        let dims = match m.dim {
            dim::Dim1D => 1,
            dim::Dim2D => 2,
            dim::Dim3D | dim::Cube => 3,
            _ => return Err(image(format!("{name} of an image of a dimension WGSL's textures lack"), at)),
        };
        if proj && (m.arrayed || m.dim == dim::Cube) {
            return Err(image(format!("{name} of an arrayed or cube image"), at));
        }
        let (t, s) = self.sampled_texts(f, si, at)?;
        // A constant coordinate divided by its q is a constant expression
        // WGSL would evaluate (and reject, a division by zero): run-time.
        f.opaque = proj;
        let c = self.val(f, coord);
        f.opaque = false;
        let c = c?;
        let cn = self.num_of(coord).filter(|n| n.kind == Kind::F32).map(|n| n.n).ok_or_else(|| image(format!("{name} with a coordinate other than f32"), at))?;
        let need = dims + u32::from(proj || m.arrayed);
        if cn < need {
            return Err(image(format!("{name} with a coordinate of too few components"), at));
        }
        let q = proj.then(|| comp(&c, dims));
        let coords = match &q {
            Some(q) => format!("{} / {q}", first(&c, dims, cn)),
            None => first(&c, dims, cn),
        };
        let mut args = alloc::vec![t, s, coords];
        if m.arrayed {
            args.push(format!("i32(round({}))", comp(&c, dims)));
        }
        let d = if dref {
            let d = self.val(f, arg(4))?;
            Some(match &q {
                Some(q) => format!("{d} / {q}"),
                None => d,
            })
        } else {
            None
        };
        let refuse = |why: &str| Err(image(format!("{name} with {why}"), at));
        let fname = if gather {
            if ops.bias.is_some() || ops.lod.is_some() || ops.grad.is_some() {
                return refuse("a level of detail (WGSL's gathers take none)");
            }
            if m.dim != dim::Dim2D && m.dim != dim::Cube {
                return refuse("an image other than 2D or cube");
            }
            match &d {
                Some(d) => {
                    args.push(d.clone());
                    "textureGatherCompare"
                }
                None => {
                    let k = self.const_bits(arg(4)).filter(|&k| k < 4);
                    let Some(k) = k else { return refuse("a component that is not a constant 0 to 3") };
                    if depth {
                        if k != 0 {
                            return refuse("a component other than 0 of a depth texture");
                        }
                    } else {
                        args.insert(0, format!("{k}"));
                    }
                    "textureGather"
                }
            }
        } else if let Some(d) = &d {
            if ops.bias.is_some() || ops.grad.is_some() {
                return refuse("a bias or gradients (WGSL's depth comparisons take neither)");
            }
            args.push(d.clone());
            match ops.lod {
                Some(l) if self.const_bits(l).is_some_and(|b| f32::from_bits(b as u32) == 0.0) => "textureSampleCompareLevel",
                Some(_) => return refuse("a level other than a constant 0 (WGSL's textureSampleCompareLevel samples level 0)"),
                None => "textureSampleCompare",
            }
        } else if let Some((dx, dy)) = ops.grad {
            if depth || dims == 1 {
                return refuse("gradients on a depth or 1D texture (WGSL's textureSampleGrad lacks them)");
            }
            let (dx, dy) = (self.val(f, dx)?, self.val(f, dy)?);
            args.push(dx);
            args.push(dy);
            "textureSampleGrad"
        } else if let Some(l) = ops.lod {
            if dims == 1 {
                return refuse("an explicit level on a 1D texture (WGSL's textureSampleLevel has no 1D form)");
            }
            if depth {
                // A depth texture's level is an integer.
                let v = self.const_bits(l).map(|b| f32::from_bits(b as u32));
                match v {
                    Some(x) if x.is_finite() && x >= 0.0 && x < 65536.0 && (x as u32) as f32 == x => args.push(format!("{}i", x as u32)),
                    _ => return refuse("a level that is not a constant integer on a depth texture (WGSL's depth textures take integer levels)"),
                }
            } else {
                args.push(self.val(f, l)?);
            }
            "textureSampleLevel"
        } else if let Some(b) = ops.bias {
            if depth || dims == 1 {
                return refuse("a bias on a depth or 1D texture (WGSL's textureSampleBias lacks them)");
            }
            args.push(self.val(f, b)?);
            "textureSampleBias"
        } else {
            "textureSample"
        };
        if let Some(off) = ops.offset {
            if dims == 1 || m.dim == dim::Cube {
                return refuse("a texel offset on a 1D or cube texture (WGSL's offsets are for 2D and 3D)");
            }
            args.push(self.offset_text(off, dims, at)?);
        }
        let e = format!("{fname}({})", args.join(", "));
        let want = self.num(rt).ok_or_else(|| image(format!("{name} of an odd result type"), at))?;
        Ok(Some(if dref && !gather {
            e
        } else if depth && !gather {
            // (D, 0, 0, 1), as Vulkan's conversion to RGBA gives a depth format.
            format!("vec4<f32>({e}, 0.0, 0.0, 1.0)")
        } else {
            let have = Num { kind: self.num(m.sampled_type).map_or(Kind::F32, |n| n.kind), n: 4 };
            cast(e, have, have.with(want.kind))
        }))
    }
}
