//! Images: storage images (`Sampled` 2) as `texture_storage_*<format,
//! access>`, sampled images as `texture_*<T>`, depth images (Depth 1, or
//! sampled by a depth comparison) as `texture_depth_*`, samplers as
//! `sampler` or (used by a depth comparison) `sampler_comparison`, a
//! combined image sampler as a texture and a sampler ([`crate::wgsl::Combined`]),
//! and their instructions: OpImageRead/OpImageWrite/OpImageFetch as
//! `textureLoad`/`textureStore`, the queries as `textureDimensions` (with
//! `textureNumLayers` for arrays), `textureNumLevels` and
//! `textureNumSamples`; sampling and gathers are `sample.rs`. Texel
//! buffers, multisampled storage images and what else WGSL's textures lack
//! are refused (`wgsl.image`), each with its reason.

use crate::grammar::{dim, op};
use crate::ir::Type;
use crate::wgsl::image_types::{ImageType, texel_format};
use crate::wgsl::plan::{COMPARE, PLAIN, handle_variable, sampled_parts};
use crate::wgsl::refuse::{NotLowered, Refusal, RefusalCode};
use crate::wgsl::types::{Kind, Num, cast};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;
use alloc::string::String;

pub(super) fn image(what: String, at: Option<u32>) -> Refusal {
    Refusal::new(RefusalCode::Image, what, at)
}

/// An image refusal of something WGSL can express (`which`).
fn image_not_lowered(which: NotLowered, what: String, at: Option<u32>) -> Refusal {
    Refusal::not_lowered(RefusalCode::Image, which, what, at)
}

impl ModuleWriter<'_> {
    /// The fields of image type `ty`.
    pub(in crate::wgsl::write) fn image_type(&self, ty: u32) -> Option<ImageType> {
        ImageType::of(self.ir, ty)
    }

    /// Whether values of type `ty` are handles (images, samplers), which
    /// WGSL names only through their module-scope variable.
    pub(in crate::wgsl::write) fn is_handle(&self, ty: u32) -> bool {
        crate::wgsl::image_types::is_handle(self.ir, ty)
    }

    /// The WGSL type of image type `ty`.
    pub(in crate::wgsl::write) fn image_ty(&mut self, ty: u32, at: u32) -> Result<String, Refusal> {
        self.image_ty_of(ty, at, ty)
    }

    /// [`ModuleWriter::image_ty`], with the access of `user` (a variable or the type).
    pub(in crate::wgsl::write) fn image_ty_of(&mut self, ty: u32, at: u32, user: u32) -> Result<String, Refusal> {
        let inst = self.ir.ty(ty).map(|t| t.inst).or(Some(at));
        let Some(m) = self.image_type(ty) else { return Err(image("an image type".into(), inst)) };
        if m.dim == dim::Buffer {
            return Err(image("a texel buffer (WGSL has no texel buffers: a storage buffer of the texels is the nearest thing)".into(), inst));
        }
        if m.sampled != 2 && (m.depth == 1 || self.plan.compared(user)) {
            if self.num(m.sampled_type).map(|n| n.kind) != Some(Kind::F32) {
                return Err(image("a depth image of other than f32 texels (WGSL's depth textures are f32)".into(), inst));
            }
            return Ok(String::from(match (m.dim, m.arrayed, m.multisampled) {
                (dim::Dim2D, false, false) => "texture_depth_2d",
                (dim::Dim2D, true, false) => "texture_depth_2d_array",
                (dim::Cube, false, false) => "texture_depth_cube",
                (dim::Cube, true, false) => "texture_depth_cube_array",
                (dim::Dim2D, false, true) => "texture_depth_multisampled_2d",
                _ => return Err(image("a depth image of a dimension WGSL's depth textures lack (1D, 3D, multisampled arrays)".into(), inst)),
            }));
        }
        if m.depth == 1 {
            return Err(image("a depth storage image (WGSL's storage textures have no depth formats)".into(), inst));
        }
        let shape = match (m.dim, m.arrayed) {
            (dim::Dim1D, false) => "1d",
            (dim::Dim2D, false) => "2d",
            (dim::Dim2D, true) => "2d_array",
            (dim::Dim3D, false) => "3d",
            (dim::Cube, false) if m.sampled != 2 => "cube",
            (dim::Cube, true) if m.sampled != 2 => "cube_array",
            _ => return Err(image("an image of a dimension WGSL's textures lack (1D arrays, storage cubes, subpass data)".into(), inst)),
        };
        if m.sampled == 2 {
            if m.multisampled {
                return Err(image("a multisampled storage image (WGSL has no multisampled storage textures)".into(), inst));
            }
            let Some(fmt) = texel_format(m.format) else {
                let name = crate::grammar::OperandKind::ImageFormat.enumerant(m.format).map_or("unknown", |e| e.name);
                return Err(image(format!("a storage image of format {name}, which WGSL's storage textures lack"), inst));
            };
            let access = self.plan.image_access(user).as_str();
            return Ok(format!("texture_storage_{shape}<{fmt}, {access}>"));
        }
        let t = match self.num(m.sampled_type).map(|n| n.kind) {
            Some(Kind::F32) => "f32",
            Some(Kind::I32) => "i32",
            Some(Kind::U32) => "u32",
            _ => return Err(image("a sampled image of a type other than f32, i32 or u32".into(), inst)),
        };
        Ok(if m.multisampled {
            if shape != "2d" {
                return Err(image("a multisampled image other than 2D".into(), inst));
            }
            format!("texture_multisampled_2d<{t}>")
        } else {
            format!("texture_{shape}<{t}>")
        })
    }

    /// Whether image value `img` is declared a depth texture: of an image
    /// type of Depth 1, or loaded from a variable a depth comparison samples.
    pub(in crate::wgsl::write) fn is_depth(&self, img: u32) -> bool {
        let m = self.ir.type_of(img).and_then(|t| self.ir.ty(t)).map(|t| &t.ty);
        let (ty, var) = match m {
            Some(&Type::SampledImage { image }) => (Some(image), sampled_parts(self.ir, img).map(|(v, _)| v)),
            Some(Type::Image { .. }) => (self.ir.type_of(img), handle_variable(self.ir, img)),
            _ => (None, None),
        };
        let Some(m) = ty.and_then(|t| self.image_type(t)) else { return false };
        m.sampled != 2 && (m.depth == 1 || var.is_some_and(|v| self.plan.compared(v)))
    }

    /// The channel type of image `img`'s texels (vec4 of it).
    pub(in crate::wgsl::write) fn texel_num(&self, img: u32) -> Option<Num> {
        let m = self.image_type(self.ir.type_of(img)?)?;
        let kind = if m.sampled == 2 {
            let f = texel_format(m.format)?;
            if f.ends_with("uint") {
                Kind::U32
            } else if f.ends_with("sint") {
                Kind::I32
            } else {
                Kind::F32
            }
        } else {
            self.num(m.sampled_type)?.kind
        };
        Some(Num { kind, n: 4 })
    }

    /// `coord` split for an arrayed image: (`coords`, `layer`).
    pub(in crate::wgsl::write) fn coords(&mut self, f: &mut FunctionContext, img: u32, coord: u32) -> Result<(String, Option<String>), Refusal> {
        let c = self.val(f, coord)?;
        let arrayed = self.ir.type_of(img).and_then(|t| self.image_type(t)).is_some_and(|m| m.arrayed);
        if !arrayed {
            return Ok((c, None));
        }
        let n = self.num_of(coord).map_or(3, |n| n.n);
        let sw = if n == 4 { "xyz" } else { "xy" };
        let last = if n == 4 { "w" } else { "z" };
        Ok((format!("{c}.{sw}"), Some(format!("{c}.{last}"))))
    }

    /// An image instruction as WGSL: `Some(expression)` for a value, `None`
    /// when it wrote its own statement.
    pub(in crate::wgsl::write) fn image_inst(&mut self, f: &mut FunctionContext, i: usize, words: &[u32]) -> Result<Option<String>, Refusal> {
        let at = Some(i as u32);
        let o = self.ir.opcode(i);
        let arg = |k: usize| words.get(k).copied().unwrap_or(0);
        match o {
            op::OpImageRead | op::OpImageFetch => {
                let (rt, img, coord) = (arg(0), arg(2), arg(3));
                // Image operands: only Lod (fetch) and Sample go through.
                let mask = words.get(4).copied().unwrap_or(0);
                use crate::grammar::image_operands as io;
                if mask & !(io::Lod | io::Sample) != 0 {
                    return Err(image("an image read with operands WGSL's textureLoad lacks (offsets, gradients)".into(), at));
                }
                let (c, layer) = self.coords(f, img, coord)?;
                let t = self.val(f, img)?;
                let mut args = alloc::vec![t, c];
                if let Some(l) = layer {
                    args.push(l);
                }
                let is_storage = self.ir.type_of(img).and_then(|t| self.image_type(t)).is_some_and(|m| m.sampled == 2);
                if mask & (io::Lod | io::Sample) != 0 {
                    args.push(self.val(f, arg(5))?);
                } else if !is_storage {
                    args.push(String::from("0"));
                }
                let have = self.texel_num(img).ok_or_else(|| image("an image of an odd texel type".into(), at))?;
                let e = format!("textureLoad({})", args.join(", "));
                // A depth texel is one f32: (D, 0, 0, 1) as Vulkan's
                // conversion to RGBA gives a depth format.
                let e = if self.is_depth(img) { format!("vec4<f32>({e}, 0.0, 0.0, 1.0)") } else { e };
                let want = self.num(rt).ok_or_else(|| image("an image read of a type other than a scalar or vector".into(), at))?;
                let e = cast(e, have, have.with(want.kind));
                Ok(Some(match want.n {
                    4 => e,
                    1 => format!("{e}.x"),
                    2 => format!("{e}.xy"),
                    _ => format!("{e}.xyz"),
                }))
            }
            op::OpImageWrite => {
                let (img, coord, texel) = (arg(0), arg(1), arg(2));
                if words.len() > 3 {
                    return Err(image("an image write with image operands".into(), at));
                }
                let want = self.texel_num(img).ok_or_else(|| image("an image of an odd texel type".into(), at))?;
                let have = self.num_of(texel).ok_or_else(|| image("an image write of a type other than a vector".into(), at))?;
                let v = self.val(f, texel)?;
                // A texel of fewer than 4 components fills the format's
                // channels; the rest, which the format drops, are zero.
                let k = have.kind.name();
                let v = match have.n {
                    4 => v,
                    1 if self.single_channel(img) => format!("vec4<{k}>({v})"),
                    n if n >= self.channels(img) => match n {
                        1 => format!("vec4<{k}>({v}, {k}(), {k}(), {k}())"),
                        2 => format!("vec4<{k}>({v}, vec2<{k}>())"),
                        _ => format!("vec4<{k}>({v}, {k}())"),
                    },
                    _ => return Err(image_not_lowered(NotLowered::NarrowTexelWrite, "an image write of a texel of fewer components than its format".into(), at)),
                };
                let v = cast(v, Num { kind: have.kind, n: 4 }, want);
                let (c, layer) = self.coords(f, img, coord)?;
                let t = self.val(f, img)?;
                let s = match layer {
                    Some(l) => format!("textureStore({t}, {c}, {l}, {v});"),
                    None => format!("textureStore({t}, {c}, {v});"),
                };
                self.out.line(f.indent, &s, at);
                Ok(None)
            }
            op::OpImageQuerySize | op::OpImageQuerySizeLod => {
                let (rt, img) = (arg(0), arg(2));
                let t = self.val(f, img)?;
                let lod = if o == op::OpImageQuerySizeLod { format!(", {}", self.val(f, arg(3))?) } else { String::new() };
                let want = self.num(rt).ok_or_else(|| image("a size query of an odd type".into(), at))?;
                let m = self.ir.type_of(img).and_then(|t| self.image_type(t)).ok_or_else(|| image("a size query of a non-image".into(), at))?;
                let dims = format!("textureDimensions({t}{lod})");
                let u = if m.arrayed { format!("vec{}<u32>({dims}, textureNumLayers({t}))", want.n) } else { dims };
                Ok(Some(if want.kind == Kind::U32 { u } else { format!("{}({u})", want.text()) }))
            }
            op::OpImageQueryLevels => {
                let t = self.val(f, arg(2))?;
                Ok(Some(self.u32_as(arg(0), format!("textureNumLevels({t})"))))
            }
            op::OpImageQuerySamples => {
                let t = self.val(f, arg(2))?;
                Ok(Some(self.u32_as(arg(0), format!("textureNumSamples({t})"))))
            }
            // A sampled image is named by its texture, the image of a
            // sampled image is the texture itself; the sampler is found
            // from the sampled image's definition (`sampled_texts`).
            op::OpSampledImage | op::OpImage => {
                let t = self.val(f, arg(2))?;
                f.name_by(arg(1), &t);
                Ok(None)
            }
            op::OpImageQueryLod => Err(image(
                "OpImageQueryLod (WGSL has no query of the level of detail a sampling would use)".into(),
                at,
            )),
            _ => self.sample(f, i, words),
        }
    }

    /// Whether image `img`'s storage format has one channel.
    pub(in crate::wgsl::write) fn single_channel(&self, img: u32) -> bool {
        self.ir.type_of(img).and_then(|t| self.image_type(t)).and_then(|m| texel_format(m.format)).is_some_and(|f| f.starts_with("r32"))
    }

    /// The number of channels of image `img`'s storage format (4 where it
    /// has none WGSL names).
    fn channels(&self, img: u32) -> u32 {
        let f = self.ir.type_of(img).and_then(|t| self.image_type(t)).and_then(|m| texel_format(m.format)).unwrap_or("rgba");
        if f.starts_with("rg11b10") {
            3
        } else if f.starts_with("rgb") || f.starts_with("bgra") {
            4
        } else if f.starts_with("rg") {
            2
        } else if f.starts_with('r') {
            1
        } else {
            4
        }
    }

    /// A u32 expression as result type `rt` (u32 or i32).
    pub(in crate::wgsl::write) fn u32_as(&self, rt: u32, e: String) -> String {
        match self.num(rt) {
            Some(n) if n.kind == Kind::I32 => format!("i32({e})"),
            _ => e,
        }
    }

    /// The sampler type of sampler (or combined image sampler) variable `var`.
    fn sampler_ty(&self, var: u32, at: u32) -> Result<&'static str, Refusal> {
        match self.plan.sampler_use(var) {
            u if u == COMPARE | PLAIN => Err(image(
                "a sampler used both with and without a depth comparison (WGSL's sampler and sampler_comparison are distinct types)".into(),
                Some(at),
            )),
            COMPARE => Ok("sampler_comparison"),
            _ => Ok("sampler"),
        }
    }

    /// Declare image or sampler variable `var` at (group, binding); a
    /// combined image sampler as its texture there and its sampler at the
    /// plan's binding ([`crate::wgsl::Combined`]).
    pub(in crate::wgsl::write) fn handle_decl(&mut self, var: u32, name: &str, pointee: u32, group: u32, binding: u32, at: u32) -> Result<(), Refusal> {
        let t = match self.ir.ty(pointee).map(|t| t.ty.clone()) {
            Some(Type::Image { .. }) => self.image_ty_of(pointee, at, var)?,
            Some(Type::Sampler) => String::from(self.sampler_ty(var, at)?),
            Some(Type::SampledImage { image: img }) => {
                let t = self.image_ty_of(img, at, var)?;
                let s = self.sampler_ty(var, at)?;
                let Some(&crate::wgsl::Combined { sampler: (sg, sb), .. }) = self.plan.combined_of(var) else {
                    return Err(image("a combined image sampler the plan did not split".into(), Some(at)));
                };
                let sn = self.globals_scope.fresh(Some(&format!("{name}_sampler")), "sampler");
                self.out.line(0, &format!("@group({group}) @binding({binding}) var {name}: {t};"), Some(at));
                self.out.line(0, &format!("@group({sg}) @binding({sb}) var {sn}: {s};"), Some(at));
                self.split_samplers.insert(var, sn);
                return Ok(());
            }
            Some(Type::Array { .. } | Type::RuntimeArray { .. }) => {
                return Err(image("an array of images or samplers (WGSL's binding arrays are not core WebGPU)".into(), Some(at)));
            }
            _ => return Err(image("an opaque resource WGSL lacks".into(), Some(at))),
        };
        self.out.line(0, &format!("@group({group}) @binding({binding}) var {name}: {t};"), Some(at));
        Ok(())
    }
}
