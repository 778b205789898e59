//! Images, samplers and sampled images: the image type declarations, the
//! sampling, fetch, gather, read, write, texel-pointer and query instructions,
//! their coordinates and image operands (SPIR-V spec 3.52.10 "Image
//! Instructions", 3.32.6 "Type-Declaration Instructions", 2.16 "Validation
//! Rules"; spirv-val's validate_image). As spirv-val, an instruction reports
//! its first problem only. The execution models the ImplicitLod instructions,
//! OpImageQueryLod, SubpassData reads and derivatives need are checked after
//! the walk, for the entry points that reach them ([`execution_models`]).

use super::Context;
use super::operand::{bad_operand, bad_result, describe, opname, operand_id, operand_type, shape};
use super::rules::Rule;
use super::walk::{Lookups, ModelLimit};
use super::family::{Check, Family, Instructions};
use crate::grammar::{capability, dim, image_format as fmt, image_operands as io, op, storage_class};
use crate::ir::Type;
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.image.type",
        summary: "An OpTypeImage's operands must be in range and fit each other and the environment.",
        explanation: "SPIR-V spec 3.32.6 (OpTypeImage): Sampled Type is OpTypeVoid or a numerical \
                      scalar type (Vulkan: a 32-bit int or float or a 64-bit int, VUID-StandaloneSpirv-OpTypeImage-04656; \
                      OpenCL: void); Depth is 0, 1 or 2, Arrayed and MS 0 or 1, Sampled 0, 1 or 2 \
                      (Vulkan: 1 or 2, VUID-04657). Dim SubpassData needs Sampled 2 and format \
                      Unknown; a multisampled storage image (MS 1, Sampled 2) needs the \
                      StorageImageMultisample capability; a 64-bit int Sampled Type needs \
                      Int64ImageEXT; in Vulkan Dim is not Rect. Fix: correct the operand the \
                      message names.",
    },
    Rule {
        code: "inst.image.sampled-image-type",
        summary: "OpTypeSampledImage's Image Type must be an OpTypeImage with Sampled 0 or 1.",
        explanation: "SPIR-V spec 3.32.6 (OpTypeSampledImage): Image Type must be an OpTypeImage; \
                      its Sampled operand is 0 or 1 (a storage image, Sampled 2, cannot be \
                      combined with a sampler), and from SPIR-V 1.6 its Dim is not Buffer. Fix: \
                      name the image type, not another type, and declare it with Sampled 1.",
    },
    Rule {
        code: "inst.image.sampled-image",
        summary: "OpSampledImage combines an image and a sampler into its Result Type.",
        explanation: "SPIR-V spec 3.52.10 (OpSampledImage): Result Type is an OpTypeSampledImage \
                      whose image type matches Image's type (Depth may differ); Image is an image \
                      with Sampled 0 or 1 (Vulkan: 1, VUID-StandaloneSpirv-OpSampledImage-06671) and not \
                      SubpassData; Sampler is an OpTypeSampler value. Fix: load the image and the \
                      sampler from their variables and pass those.",
    },
    Rule {
        code: "inst.image.sampled-image-use",
        summary: "An OpSampledImage result is used only in its own block, by image instructions.",
        explanation: "SPIR-V spec 2.16.1 (universal validation rules): all OpSampledImage \
                      instructions must be in the same block in which their Result <id> are \
                      consumed, and the result must not be an operand of OpPhi, OpSelect or any \
                      instruction other than the image lookups and queries that take a sampled \
                      image. Fix: repeat the OpSampledImage in each block that samples.",
    },
    Rule {
        code: "inst.image.result-type",
        summary: "An image instruction's Result Type must be the texel or query type it returns.",
        explanation: "SPIR-V spec 3.52.10: sampling, fetch and gather return a vector of 4 ints or \
                      floats (the Dref forms a scalar) whose component type is the image's Sampled \
                      Type (unless that is void); OpImageRead an int or float scalar or vector (Vulkan: \
                      4 components); the sparse forms a struct of an int and that texel; \
                      OpImageQuerySize and OpImageQuerySizeLod an int scalar or vector with one component \
                      per dimension (plus one when arrayed); OpImageQueryLod a vector of 2 floats; \
                      OpImageQueryLevels, OpImageQuerySamples, OpImageQueryFormat and \
                      OpImageQueryOrder an int scalar; OpImage the sampled image's image type. \
                      Fix: declare the result with the type the instruction returns.",
    },
    Rule {
        code: "inst.image.operand-type",
        summary: "An image instruction's Image, Sampled Image, Sampler, Dref, Component, Texel and Sample operands must have their types.",
        explanation: "SPIR-V spec 3.52.10: the sampling and gather instructions and OpImageQueryLod \
                      take a Sampled Image (an OpTypeSampledImage value); fetch, read, write and \
                      the size, level and sample queries an Image (an OpTypeImage value); Dref is \
                      a 32-bit float scalar; Component a 32-bit int scalar (Vulkan: a constant); \
                      Texel an int or float scalar or vector of the Sampled Type; \
                      OpImageTexelPointer's Image a pointer to an image and Sample an int scalar. \
                      Fix: pass a value of the named type (OpLoad the image from its variable).",
    },
    Rule {
        code: "inst.image.image-params",
        summary: "The image an instruction uses must have the Dim, Arrayed, MS and Sampled it allows.",
        explanation: "SPIR-V spec 3.52.10: sampling and gather cannot read a multisampled image; \
                      the Proj forms need Dim 1D, 2D, 3D or Rect, not arrayed nor multisampled; \
                      OpImageFetch needs Sampled 1 and not Cube; gather needs 2D, Cube or Rect; \
                      read and write need Sampled 0 or 2 and not SubpassData for write; \
                      the queries need the Dims they measure (OpImageQuerySamples a 2D \
                      multisampled image). Fix: use the instruction made for the image (OpImageRead \
                      for storage images, OpImageFetch for sampled ones) or change the image type.",
    },
    Rule {
        code: "inst.image.coordinate",
        summary: "Coordinate must be a scalar or vector of the kind and size the image needs.",
        explanation: "SPIR-V spec 3.52.10: the sampling, gather and LOD-query instructions take float \
                      coordinates, fetch, read, write and OpImageTexelPointer integer ones (with \
                      the Kernel capability, OpImageSampleExplicitLod and OpImageQueryLod either); they have at least as many components as the Dim needs (1 for 1D \
                      and Buffer, 2 for 2D and Rect, 3 for 3D and Cube), plus one when arrayed and \
                      one for the Proj forms. Fix: build a vector of the right size.",
    },
    Rule {
        code: "inst.image.operands",
        summary: "Image Operands must suit the instruction and the image, with operands of their types.",
        explanation: "SPIR-V spec 3.14 (Image Operands): Bias only with ImplicitLod (a float scalar), \
                      Lod with ExplicitLod (a float scalar) or OpImageFetch (an int scalar), and \
                      not with Grad; Grad only with ExplicitLod, two float vectors of the \
                      Dim's size; ConstOffset a constant and Offset an int vector of the Dim's \
                      size, never with Cube; ConstOffsets a constant array of 4 2-component int \
                      vectors, only for gathers; at most one of the offsets; Sample (an int scalar) \
                      exactly when the image is multisampled, only for fetch, read and write; MinLod \
                      (a float scalar) with ImplicitLod or Grad; MakeTexelAvailable only with \
                      OpImageWrite and MakeTexelVisible with reads, each with NonPrivateTexel; \
                      in Vulkan Offset is for gathers only (VUID-10213). Fix: drop or correct the operand.",
    },
    Rule {
        code: "inst.image.texel-pointer",
        summary: "OpImageTexelPointer makes a pointer in the Image storage class to a texel of its image.",
        explanation: "SPIR-V spec 3.52.10 (OpImageTexelPointer): Result Type is a pointer in the Image \
                      storage class to a scalar (or void) that is the image's Sampled Type; Image \
                      is a pointer to an OpTypeImage that is not SubpassData; Sample is an int \
                      scalar, the constant 0 unless the image is multisampled. In Vulkan the \
                      image's format is R32f, R32i, R32ui, R64i or R64ui (VUID-04658). Fix: take \
                      the pointer to the image variable and use a scalar texel type.",
    },
    Rule {
        code: "inst.image.capability",
        summary: "Reading or writing a storage image of some kinds needs their capability.",
        explanation: "SPIR-V spec 3.31 (Capability): a storage image (Sampled 2) of Dim 1D needs Image1D, \
                      Rect ImageRect, Buffer ImageBuffer, an arrayed Cube ImageCubeArray, an \
                      arrayed multisampled one ImageMSArray; in Vulkan, reading or writing an image \
                      of format Unknown needs StorageImageReadWithoutFormat or \
                      StorageImageWriteWithoutFormat. Fix: declare the capability or give the \
                      image a format.",
    },
    Rule {
        code: "inst.image.execution-model",
        summary: "Implicit-LOD sampling, OpImageQueryLod and SubpassData reads are for the execution models that have them.",
        explanation: "SPIR-V spec 3.52.10 and the client APIs: the ImplicitLod instructions and \
                      OpImageQueryLod compute derivatives, so they are for Fragment shaders, or \
                      GLCompute, MeshEXT and TaskEXT ones with the DerivativeGroupQuadsKHR or \
                      DerivativeGroupLinearKHR execution mode; reading a SubpassData image is \
                      for Fragment shaders. The rule applies to every function an entry point \
                      calls. Fix: use an ExplicitLod instruction (Lod 0) in other stages, or \
                      declare the derivative group mode.",
    },
    Rule {
        code: "inst.image.reserved",
        summary: "The sparse Proj sampling instructions are reserved.",
        explanation: "SPIR-V spec 3.52.10: OpImageSparseSampleProjImplicitLod, \
                      OpImageSparseSampleProjExplicitLod and their Dref forms are reserved for \
                      future use; a module must not use them. Fix: divide the coordinate by its \
                      last component and use the non-Proj sparse instruction.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Walk { takes: applies, check: Check::Any(run), finish: Some(finish) },
};

const TYPE: &str = "inst.image.type";
const SI_TYPE: &str = "inst.image.sampled-image-type";
const SI: &str = "inst.image.sampled-image";
const SI_USE: &str = "inst.image.sampled-image-use";
const RT: &str = "inst.image.result-type";
const OT: &str = "inst.image.operand-type";
const PARAMS: &str = "inst.image.image-params";
const COORD: &str = "inst.image.coordinate";
const OPS: &str = "inst.image.operands";
const TP: &str = "inst.image.texel-pointer";
const CAP: &str = "inst.image.capability";

/// An image type's operands.
#[derive(Clone, Copy)]
struct Info {
    /// The OpTypeImage's id.
    id: u32,
    sampled_type: u32,
    dim: u32,
    arrayed: u32,
    ms: u32,
    sampled: u32,
    format: u32,
    access: Option<u32>,
}

/// The image type `ty` (an OpTypeImage, or the image of an OpTypeSampledImage).
fn info(cx: &Context<'_>, ty: u32) -> Option<Info> {
    let mut t = cx.ir().ty(ty)?;
    if let Type::SampledImage { image } = t.ty {
        t = cx.ir().ty(image)?;
    }
    match t.ty {
        Type::Image { sampled_type, dim, arrayed, ms, sampled, format, access, .. } => {
            Some(Info { id: t.id, sampled_type, dim, arrayed, ms, sampled, format, access })
        }
        _ => None,
    }
}

fn is_image(cx: &Context<'_>, ty: Option<u32>) -> bool {
    matches!(ty.and_then(|t| cx.ir().ty(t)).map(|t| &t.ty), Some(Type::Image { .. }))
}

fn is_sampled_image(cx: &Context<'_>, ty: Option<u32>) -> bool {
    matches!(ty.and_then(|t| cx.ir().ty(t)).map(|t| &t.ty), Some(Type::SampledImage { .. }))
}

fn is_void(cx: &Context<'_>, ty: u32) -> bool {
    matches!(cx.ir().ty(ty).map(|t| &t.ty), Some(Type::Void))
}

/// Whether `ty` is an int (`int`) or float scalar, of `width` bits if given.
fn scalar_of(cx: &Context<'_>, ty: Option<u32>, int: bool, width: Option<u32>) -> bool {
    ty.and_then(|t| shape(cx, t)).is_some_and(|s| {
        !s.vector && (if int { s.is_int() } else { s.is_float() }) && width.is_none_or(|w| s.width() == w)
    })
}

/// Whether `ty` is an int (`int`) or float scalar or vector (`vector`: vector only).
fn numeric(cx: &Context<'_>, ty: Option<u32>, int: bool, vector_only: bool) -> bool {
    ty.and_then(|t| shape(cx, t))
        .is_some_and(|s| (if int { s.is_int() } else { s.is_float() }) && (s.vector || !vector_only))
}

/// spirv-val's GetDimension: 1 for a scalar, the component count of a vector,
/// the column count of a matrix, else 0.
fn dimension(cx: &Context<'_>, ty: Option<u32>) -> u32 {
    let Some(t) = ty else { return 0 };
    if let Some(s) = shape(cx, t) {
        return s.count;
    }
    match cx.ir().ty(t).map(|t| &t.ty) {
        Some(Type::Matrix { columns, .. }) => *columns,
        _ => 0,
    }
}

/// spirv-val's GetComponentType: a scalar itself, a vector's component type,
/// a matrix's column component type, else 0.
fn component(cx: &Context<'_>, ty: u32) -> u32 {
    if let Some(s) = shape(cx, ty) {
        return s.component;
    }
    match cx.ir().ty(ty).map(|t| &t.ty) {
        Some(Type::Matrix { column, .. }) => shape(cx, *column).map_or(0, |s| s.component),
        _ => 0,
    }
}

/// The value of `id` when it is a non-spec int scalar constant (OpConstant or
/// OpConstantNull), as spirv-val's EvalConstantValUint64.
fn const_uint(cx: &Context<'_>, id: u32) -> Option<u64> {
    let i = cx.def(id)?;
    if !scalar_of(cx, cx.ir().result_type(i), true, None) {
        return None;
    }
    let w = cx.ir().words(i);
    match cx.insts()[i].opcode {
        op::OpConstantNull => Some(0),
        op::OpConstant => {
            let lo = *w.get(2)? as u64;
            Some(lo | (w.get(3).copied().unwrap_or(0) as u64) << 32)
        }
        _ => None,
    }
}

/// Whether `o` makes a constant (spirv-val's spvOpcodeIsConstant).
fn is_const_opcode(o: Option<u16>) -> bool {
    o.is_some_and(super::memory::is_constant_opcode)
}

fn is_implicit_lod(o: u16) -> bool {
    matches!(
        o,
        op::OpImageSampleImplicitLod
            | op::OpImageSampleDrefImplicitLod
            | op::OpImageSampleProjImplicitLod
            | op::OpImageSampleProjDrefImplicitLod
            | op::OpImageSparseSampleImplicitLod
            | op::OpImageSparseSampleDrefImplicitLod
            | op::OpImageSparseSampleProjImplicitLod
            | op::OpImageSparseSampleProjDrefImplicitLod
    )
}

fn is_explicit_lod(o: u16) -> bool {
    matches!(
        o,
        op::OpImageSampleExplicitLod
            | op::OpImageSampleDrefExplicitLod
            | op::OpImageSampleProjExplicitLod
            | op::OpImageSampleProjDrefExplicitLod
            | op::OpImageSparseSampleExplicitLod
            | op::OpImageSparseSampleDrefExplicitLod
            | op::OpImageSparseSampleProjExplicitLod
            | op::OpImageSparseSampleProjDrefExplicitLod
    )
}

fn is_proj(o: u16) -> bool {
    matches!(
        o,
        op::OpImageSampleProjImplicitLod
            | op::OpImageSampleProjDrefImplicitLod
            | op::OpImageSampleProjExplicitLod
            | op::OpImageSampleProjDrefExplicitLod
    )
}

fn is_sparse(o: u16) -> bool {
    matches!(
        o,
        op::OpImageSparseSampleImplicitLod
            | op::OpImageSparseSampleExplicitLod
            | op::OpImageSparseSampleDrefImplicitLod
            | op::OpImageSparseSampleDrefExplicitLod
            | op::OpImageSparseFetch
            | op::OpImageSparseGather
            | op::OpImageSparseDrefGather
            | op::OpImageSparseRead
    )
}

fn is_gather(o: u16) -> bool {
    matches!(o, op::OpImageGather | op::OpImageDrefGather | op::OpImageSparseGather | op::OpImageSparseDrefGather)
}

/// Whether the instructions of this family apply to `opcode`.
pub(super) const fn applies(o: u16) -> bool {
    matches!(
        o,
        op::OpTypeImage
            | op::OpTypeSampledImage
            | op::OpSampledImage
            | op::OpImageTexelPointer
            | op::OpImageSampleImplicitLod
            | op::OpImageSampleExplicitLod
            | op::OpImageSampleProjImplicitLod
            | op::OpImageSampleProjExplicitLod
            | op::OpImageSparseSampleImplicitLod
            | op::OpImageSparseSampleExplicitLod
            | op::OpImageSampleDrefImplicitLod
            | op::OpImageSampleDrefExplicitLod
            | op::OpImageSampleProjDrefImplicitLod
            | op::OpImageSampleProjDrefExplicitLod
            | op::OpImageSparseSampleDrefImplicitLod
            | op::OpImageSparseSampleDrefExplicitLod
            | op::OpImageFetch
            | op::OpImageSparseFetch
            | op::OpImageGather
            | op::OpImageDrefGather
            | op::OpImageSparseGather
            | op::OpImageSparseDrefGather
            | op::OpImageRead
            | op::OpImageSparseRead
            | op::OpImageWrite
            | op::OpImage
            | op::OpImageQueryFormat
            | op::OpImageQueryOrder
            | op::OpImageQuerySizeLod
            | op::OpImageQuerySize
            | op::OpImageQueryLod
            | op::OpImageQueryLevels
            | op::OpImageQuerySamples
            | op::OpImageSparseSampleProjImplicitLod
            | op::OpImageSparseSampleProjExplicitLod
            | op::OpImageSparseSampleProjDrefImplicitLod
            | op::OpImageSparseSampleProjDrefExplicitLod
            | op::OpImageSparseTexelsResident
    )
}

/// Report an error at operand `k` with a message of our own; true.
fn fail(cx: &mut Context<'_>, code: &'static str, i: usize, k: usize, m: String, label: &str) -> bool {
    cx.error_at(code, i, k, m).label = label.into();
    true
}

fn fail_operand(cx: &mut Context<'_>, code: &'static str, i: usize, k: usize, expected: &str) -> bool {
    bad_operand(cx, code, i, k, expected);
    true
}

fn fail_result(cx: &mut Context<'_>, code: &'static str, i: usize, expected: &str) -> bool {
    bad_result(cx, code, i, expected);
    true
}

/// Report that the image operand `k` of instruction `i` (its image type `info`)
/// has an image parameter the instruction does not allow.
fn fail_params(cx: &mut Context<'_>, i: usize, k: usize, info: &Info, what: &str) -> bool {
    let op = opname(cx, i);
    let img = cx.name(info.id);
    let m = format!("{op}: the image type {img} {what}");
    fail(cx, PARAMS, i, k, m, what)
}

/// After the walk: the uses of the OpSampledImage results found, and the
/// execution models of the instructions whose families recorded a
/// [`ModelLimit`] (images, derivatives, extended and miscellaneous
/// instructions).
fn finish(cx: &mut Context<'_>, lookups: &mut Lookups) {
    if !lookups.sampled_images.is_empty() {
        let defs = core::mem::take(&mut lookups.sampled_images);
        sampled_image_uses(cx, &defs);
    }
    if !lookups.limited.is_empty() {
        let limited = core::mem::take(&mut lookups.limited);
        execution_models(cx, &limited);
    }
}

/// Check instruction `i` (see [`applies`]); OpSampledImage results are
/// collected in `lookups` for the check of their uses.
fn run(cx: &mut Context<'_>, i: usize, opcode: u16, lookups: &mut Lookups) {
    if !cx.ir().parsed_ok(i) {
        return;
    }
    if is_implicit_lod(opcode) || opcode == op::OpImageQueryLod {
        lookups.limited.push((i, ModelLimit::ImplicitLod));
    }
    if opcode == op::OpImageRead
        && operand_type(cx, i, 2).and_then(|t| info_of_image(cx, t)).is_some_and(|info| info.dim == dim::SubpassData)
    {
        lookups.limited.push((i, ModelLimit::Fragment));
    }
    match opcode {
        op::OpTypeImage => {
            type_image(cx, i);
        }
        op::OpTypeSampledImage => {
            type_sampled_image(cx, i);
        }
        op::OpSampledImage => {
            lookups.sampled_images.push(i);
            sampled_image(cx, i);
        }
        op::OpImageTexelPointer => {
            texel_pointer(cx, i);
        }
        op::OpImageSampleImplicitLod
        | op::OpImageSampleExplicitLod
        | op::OpImageSampleProjImplicitLod
        | op::OpImageSampleProjExplicitLod
        | op::OpImageSparseSampleImplicitLod
        | op::OpImageSparseSampleExplicitLod => {
            sample(cx, i, opcode, false);
        }
        op::OpImageSampleDrefImplicitLod
        | op::OpImageSampleDrefExplicitLod
        | op::OpImageSampleProjDrefImplicitLod
        | op::OpImageSampleProjDrefExplicitLod
        | op::OpImageSparseSampleDrefImplicitLod
        | op::OpImageSparseSampleDrefExplicitLod => {
            sample(cx, i, opcode, true);
        }
        op::OpImageFetch | op::OpImageSparseFetch => {
            fetch(cx, i, opcode);
        }
        op::OpImageGather | op::OpImageDrefGather | op::OpImageSparseGather | op::OpImageSparseDrefGather => {
            gather(cx, i, opcode);
        }
        op::OpImageRead | op::OpImageSparseRead => {
            read(cx, i, opcode);
        }
        op::OpImageWrite => {
            write(cx, i);
        }
        op::OpImage => {
            image(cx, i);
        }
        op::OpImageQueryFormat
        | op::OpImageQueryOrder
        | op::OpImageQuerySizeLod
        | op::OpImageQuerySize
        | op::OpImageQueryLod
        | op::OpImageQueryLevels
        | op::OpImageQuerySamples => {
            query(cx, i, opcode);
        }
        op::OpImageSparseSampleProjImplicitLod
        | op::OpImageSparseSampleProjExplicitLod
        | op::OpImageSparseSampleProjDrefImplicitLod
        | op::OpImageSparseSampleProjDrefExplicitLod => {
            let m = format!("{} is reserved for future use and must not be used", opname(cx, i));
            cx.error("inst.image.reserved", i, m).label = "reserved".into();
        }
        op::OpImageSparseTexelsResident => {
            if !scalar_bool(cx, cx.ir().result_type(i)) {
                fail_result(cx, RT, i, "a bool scalar");
            } else if !scalar_of(cx, operand_type(cx, i, 2), true, None) {
                fail_operand(cx, OT, i, 2, "an int scalar");
            }
        }
        _ => {}
    }
}

fn scalar_bool(cx: &Context<'_>, ty: Option<u32>) -> bool {
    matches!(ty.and_then(|t| cx.ir().ty(t)).map(|t| &t.ty), Some(Type::Bool))
}

fn type_image(cx: &mut Context<'_>, i: usize) -> bool {
    let Some(id) = cx.ir().result_id(i) else { return false };
    let Some(info) = info(cx, id) else { return false };
    let depth = cx.ir().words(i).get(3).copied().unwrap_or(0);
    let env = cx.opts.env;
    let st = info.sampled_type;
    if scalar_of(cx, Some(st), true, Some(64)) && !cx.declared().caps.contains(&capability::Int64ImageEXT) {
        let m = "OpTypeImage: a 64-bit int Sampled Type needs the Int64ImageEXT capability".into();
        return fail(cx, TYPE, i, 1, m, "needs Int64ImageEXT");
    }
    if env.is_vulkan() {
        let t = Some(st);
        if !scalar_of(cx, t, false, Some(32)) && !scalar_of(cx, t, true, Some(32)) && !scalar_of(cx, t, true, Some(64)) {
            return fail_st(cx, i, "a 32-bit int, 64-bit int or 32-bit float scalar type in the Vulkan environment (VUID-StandaloneSpirv-OpTypeImage-04656)");
        }
    } else if env.is_opencl() {
        if !is_void(cx, st) {
            return fail_st(cx, i, "OpTypeVoid in the OpenCL environment");
        }
    } else if !is_void(cx, st) && !matches!(cx.ir().ty(st).map(|t| &t.ty), Some(Type::Int { .. } | Type::Float { .. })) {
        return fail_st(cx, i, "OpTypeVoid or a numerical scalar type");
    }
    let range = |cx: &mut Context<'_>, k: usize, name: &str, v: u32, allowed: &str| {
        let m = format!("OpTypeImage {name} {v} is out of range: it must be {allowed}");
        let l = format!("must be {allowed}");
        fail(cx, TYPE, i, k, m, &l)
    };
    if depth > 2 {
        return range(cx, 3, "Depth", depth, "0, 1 or 2");
    }
    if info.arrayed > 1 {
        return range(cx, 4, "Arrayed", info.arrayed, "0 or 1");
    }
    if info.ms > 1 {
        return range(cx, 5, "MS", info.ms, "0 or 1");
    }
    if info.sampled > 2 {
        return range(cx, 6, "Sampled", info.sampled, "0, 1 or 2");
    }
    let tw = |cx: &mut Context<'_>, k: usize, m: &str| {
        let m = format!("OpTypeImage: {m}");
        fail(cx, TYPE, i, k, m, "not allowed here")
    };
    match info.dim {
        dim::SubpassData => {
            if info.sampled != 2 {
                return tw(cx, 6, "Dim SubpassData requires Sampled to be 2");
            }
            if info.format != fmt::Unknown {
                return tw(cx, 7, "Dim SubpassData requires the Image Format Unknown");
            }
        }
        dim::TileImageDataEXT => {
            if is_void(cx, st) {
                return tw(cx, 1, "Dim TileImageDataEXT requires a Sampled Type other than OpTypeVoid");
            }
            if info.sampled != 2 {
                return tw(cx, 6, "Dim TileImageDataEXT requires Sampled to be 2");
            }
            if info.format != fmt::Unknown {
                return tw(cx, 7, "Dim TileImageDataEXT requires the Image Format Unknown");
            }
            if depth != 0 {
                return tw(cx, 3, "Dim TileImageDataEXT requires Depth to be 0");
            }
            if info.arrayed != 0 {
                return tw(cx, 4, "Dim TileImageDataEXT requires Arrayed to be 0");
            }
        }
        _ => {
            if info.ms == 1 && info.sampled == 2 && !cx.declared().caps.contains(&capability::StorageImageMultisample) {
                let m = "OpTypeImage: a multisampled storage image (MS 1, Sampled 2) needs the StorageImageMultisample capability".into();
                return fail(cx, TYPE, i, 5, m, "needs StorageImageMultisample");
            }
        }
    }
    if env.is_opencl() {
        if info.arrayed == 1 && info.dim != dim::Dim1D && info.dim != dim::Dim2D {
            return tw(cx, 4, "in the OpenCL environment, Arrayed may be 1 only when Dim is 1D or 2D");
        }
        if info.ms != 0 {
            return tw(cx, 5, "MS must be 0 in the OpenCL environment");
        }
        if info.sampled != 0 {
            return tw(cx, 6, "Sampled must be 0 in the OpenCL environment");
        }
        if info.access.is_none() {
            return tw(cx, 0, "in the OpenCL environment the Access Qualifier must be present");
        }
    }
    if env.is_vulkan() {
        if info.sampled == 0 {
            return tw(cx, 6, "Sampled must be 1 or 2 in the Vulkan environment (VUID-StandaloneSpirv-OpTypeImage-04657)");
        }
        if info.dim == dim::SubpassData && info.arrayed != 0 {
            return tw(cx, 4, "Dim SubpassData requires Arrayed to be 0 in the Vulkan environment (VUID-StandaloneSpirv-OpTypeImage-06214)");
        }
        if info.dim == dim::Rect {
            return tw(cx, 2, "Dim must not be Rect in the Vulkan environment (VUID-StandaloneSpirv-OpTypeImage-09638)");
        }
    }
    false
}

fn fail_st(cx: &mut Context<'_>, i: usize, expected: &str) -> bool {
    let Some(&st) = cx.operand_words(i, 1).first() else { return false };
    let got = describe(cx, st);
    let m = format!("OpTypeImage Sampled Type {got} must be {expected}");
    let l = format!("must be {expected}");
    fail(cx, TYPE, i, 1, m, &l)
}

fn type_sampled_image(cx: &mut Context<'_>, i: usize) -> bool {
    let Some(&image) = cx.operand_words(i, 1).first() else { return false };
    let Some(info) = info(cx, image).filter(|_| is_image(cx, Some(image))) else {
        let got = describe(cx, image);
        let m = format!("OpTypeSampledImage Image Type {got} must be an OpTypeImage");
        return fail(cx, SI_TYPE, i, 1, m, "must be an OpTypeImage");
    };
    if info.sampled > 1 {
        let name = cx.name(image);
        let m = format!(
            "OpTypeSampledImage Image Type {name} has Sampled {}: a sampled image type needs an image with Sampled 0 or 1",
            info.sampled
        );
        return fail(cx, SI_TYPE, i, 1, m, "must have Sampled 0 or 1");
    }
    if cx.version >= (1, 6) && info.dim == dim::Buffer {
        let name = cx.name(image);
        let m = format!("OpTypeSampledImage Image Type {name} has Dim Buffer: from SPIR-V 1.6 a sampled image cannot be a buffer");
        return fail(cx, SI_TYPE, i, 1, m, "must not be Buffer");
    }
    false
}

fn sampled_image(cx: &mut Context<'_>, i: usize) -> bool {
    let Some(rt) = cx.ir().result_type(i) else { return false };
    let Some(Type::SampledImage { image: rimage }) = cx.ir().ty(rt).map(|t| t.ty.clone()) else {
        return fail_result(cx, SI, i, "an OpTypeSampledImage");
    };
    let it = operand_type(cx, i, 2);
    let Some(info) = it.filter(|_| is_image(cx, it)).and_then(|t| info(cx, t)) else {
        return fail_operand(cx, SI, i, 2, "an image (a value of an OpTypeImage type)");
    };
    if rimage != info.id {
        let Some(r) = info_of_image(cx, rimage) else { return false };
        if (r.sampled_type, r.dim, r.arrayed, r.ms, r.sampled, r.format, r.access)
            != (info.sampled_type, info.dim, info.arrayed, info.ms, info.sampled, info.format, info.access)
        {
            let want = format!("an image whose type matches the Result Type's image type {} (but for Depth)", cx.name(rimage));
            return fail_operand(cx, SI, i, 2, &want);
        }
    }
    if cx.opts.env.is_vulkan() {
        if info.sampled != 1 {
            return fail_params(cx, i, 2, &info, "must have Sampled 1 in the Vulkan environment (VUID-StandaloneSpirv-OpSampledImage-06671)");
        }
    } else if info.sampled > 1 {
        return fail_params(cx, i, 2, &info, "must have Sampled 0 or 1");
    }
    if info.dim == dim::SubpassData {
        return fail_params(cx, i, 2, &info, "must not have Dim SubpassData");
    }
    let st = operand_type(cx, i, 3);
    if !matches!(st.and_then(|t| cx.ir().ty(t)).map(|t| &t.ty), Some(Type::Sampler)) {
        return fail_operand(cx, SI, i, 3, "a sampler (a value of an OpTypeSampler type)");
    }
    false
}

fn info_of_image(cx: &Context<'_>, ty: u32) -> Option<Info> {
    is_image(cx, Some(ty)).then(|| info(cx, ty)).flatten()
}

/// The uses of OpSampledImage results (instructions `defs`): in the same
/// block, and only by the instructions that take a sampled image.
fn sampled_image_uses(cx: &mut Context<'_>, defs: &[usize]) {
    use crate::grammar::OperandKind;
    let mut def_block: alloc::collections::BTreeMap<u32, (usize, usize)> = alloc::collections::BTreeMap::new();
    for &d in defs {
        let Some(id) = cx.ir().result_id(d) else { continue };
        let block = (0..d).rev().find(|&j| cx.insts()[j].opcode == op::OpLabel).unwrap_or(0);
        def_block.insert(id, (d, block));
    }
    let bindless = cx.declared().caps.contains(&capability::BindlessTextureNV);
    let mut reported = alloc::collections::BTreeSet::new();
    let first = defs.iter().copied().min().unwrap_or(0);
    let mut block = (0..first).rev().find(|&j| cx.insts()[j].opcode == op::OpLabel).unwrap_or(0);
    for i in first..cx.insts().len() {
        let opcode = cx.insts()[i].opcode;
        if opcode == op::OpLabel {
            block = i;
            continue;
        }
        let ir = cx.ir();
        for (k, o) in ir.parsed(i).iter().enumerate() {
            if o.kind != OperandKind::IdRef || o.len != 1 {
                continue;
            }
            let Some(&id) = cx.operand_words(i, k).first() else { continue };
            let Some(&(d, b)) = def_block.get(&id) else { continue };
            // As spirv-val, which records a use only once its definition
            // has been seen: a forward reference (an OpPhi's) is no use.
            if i <= d || reported.contains(&d) {
                continue;
            }
            let name = cx.name(id);
            let user = opname(cx, i);
            let m = if b != block {
                format!("{name}, an OpSampledImage result, is used by {user} in another block: it must be consumed in the block that defines it")
            } else if matches!(opcode, op::OpPhi | op::OpSelect) {
                format!("{name}, an OpSampledImage result, must not be an operand of {user}")
            } else if !allowed_consumer(opcode, bindless) {
                format!("{name}, an OpSampledImage result, must not be an operand of {user}, which does not take a sampled image")
            } else {
                continue;
            };
            reported.insert(d);
            cx.error_at(SI_USE, i, k, m).label = "OpSampledImage result used here".into();
        }
    }
}

fn allowed_consumer(o: u16, bindless: bool) -> bool {
    matches!(
        o,
        op::OpSampledImage
            | op::OpImageSampleImplicitLod
            | op::OpImageSampleExplicitLod
            | op::OpImageSampleDrefImplicitLod
            | op::OpImageSampleDrefExplicitLod
            | op::OpImageSampleProjImplicitLod
            | op::OpImageSampleProjExplicitLod
            | op::OpImageSampleProjDrefImplicitLod
            | op::OpImageSampleProjDrefExplicitLod
            | op::OpImageGather
            | op::OpImageDrefGather
            | op::OpImage
            | op::OpImageQueryLod
            | op::OpImageSparseSampleImplicitLod
            | op::OpImageSparseSampleExplicitLod
            | op::OpImageSparseSampleDrefImplicitLod
            | op::OpImageSparseSampleDrefExplicitLod
            | op::OpImageSparseGather
            | op::OpImageSparseDrefGather
            | op::OpCopyObject
            | op::OpImageSampleWeightedQCOM
            | op::OpImageBoxFilterQCOM
            | op::OpImageBlockMatchSSDQCOM
            | op::OpImageBlockMatchSADQCOM
            | op::OpImageBlockMatchWindowSADQCOM
            | op::OpImageBlockMatchWindowSSDQCOM
            | op::OpImageBlockMatchGatherSADQCOM
            | op::OpImageBlockMatchGatherSSDQCOM
            | op::OpImageGatherQCOM
            | op::OpImageSampleFootprintNV
    ) || (o == op::OpStore && bindless)
}

/// The texel type of a sampling, fetch, gather or read: the Result Type, or
/// the second member of a sparse instruction's struct. None: reported.
fn texel_type(cx: &mut Context<'_>, i: usize, opcode: u16) -> Option<(u32, &'static str)> {
    let rt = cx.ir().result_type(i)?;
    if !is_sparse(opcode) {
        return Some((rt, "Result Type"));
    }
    match cx.ir().ty(rt).map(|t| &t.ty) {
        Some(Type::Struct { members }) if members.len() == 2 && scalar_of(cx, Some(members[0].ty), true, None) => {
            Some((members[1].ty, "Result Type's second member"))
        }
        _ => {
            fail_result(cx, RT, i, "a struct of an int scalar and a texel");
            None
        }
    }
}

/// The texel `t` (named `what`) must be an int or float vector of 4.
fn vec4_texel(cx: &mut Context<'_>, i: usize, t: u32, what: &str) -> bool {
    let ok = numeric(cx, Some(t), true, true) || numeric(cx, Some(t), false, true);
    if !ok || dimension(cx, Some(t)) != 4 {
        let op = opname(cx, i);
        let got = describe(cx, t);
        let m = format!("{op} {what} {got} must be a vector of 4 ints or floats");
        return fail(cx, RT, i, 0, m, "must be a vector of 4 ints or floats");
    }
    false
}

/// The texel's component type must be the image's Sampled Type.
fn texel_matches(cx: &mut Context<'_>, i: usize, k: usize, t: u32, what: &str, info: &Info, dref: bool) -> bool {
    if (dref || !is_void(cx, info.sampled_type)) && component(cx, t) != info.sampled_type {
        let op = opname(cx, i);
        let got = describe(cx, t);
        let st = cx.name(info.sampled_type);
        let img = cx.name(info.id);
        let m = format!("{op} {what} {got} does not have the components of the image's Sampled Type {st} (image type {img})");
        let l = format!("must have {st} components");
        return fail(cx, RT, i, k, m, &l);
    }
    false
}

fn proj_params(cx: &mut Context<'_>, i: usize, info: &Info) -> bool {
    if !matches!(info.dim, dim::Dim1D | dim::Dim2D | dim::Dim3D | dim::Rect) {
        return fail_params(cx, i, 2, info, "must have Dim 1D, 2D, 3D or Rect for a Proj instruction");
    }
    if info.ms != 0 {
        return fail_params(cx, i, 2, info, "must have MS 0 for a Proj instruction");
    }
    if info.arrayed != 0 {
        return fail_params(cx, i, 2, info, "must have Arrayed 0 for a Proj instruction");
    }
    false
}

/// Operand 2 of instruction `i` must be a sampled image; its image type.
fn sampled_image_operand(cx: &mut Context<'_>, i: usize) -> Option<Info> {
    let t = operand_type(cx, i, 2);
    if !is_sampled_image(cx, t) {
        fail_operand(cx, OT, i, 2, "a sampled image (a value of an OpTypeSampledImage type)");
        return None;
    }
    info(cx, t?)
}

/// Operand `k` of instruction `i` must be an image; its type.
fn image_operand(cx: &mut Context<'_>, i: usize, k: usize) -> Option<Info> {
    let t = operand_type(cx, i, k);
    if !is_image(cx, t) {
        fail_operand(cx, OT, i, k, "an image (a value of an OpTypeImage type)");
        return None;
    }
    info(cx, t?)
}

fn sample(cx: &mut Context<'_>, i: usize, opcode: u16, dref: bool) -> bool {
    let Some((t, what)) = texel_type(cx, i, opcode) else { return true };
    if dref {
        if !scalar_of(cx, Some(t), true, None) && !scalar_of(cx, Some(t), false, None) {
            let op = opname(cx, i);
            let got = describe(cx, t);
            let m = format!("{op} {what} {got} must be an int or float scalar");
            return fail(cx, RT, i, 0, m, "must be an int or float scalar");
        }
    } else if vec4_texel(cx, i, t, what) {
        return true;
    }
    let Some(info) = sampled_image_operand(cx, i) else { return true };
    if is_proj(opcode) && proj_params(cx, i, &info) {
        return true;
    }
    if info.ms != 0 {
        return fail_params(cx, i, 2, &info, "is multisampled: sampling a multisampled image is not allowed");
    }
    if dref {
        if t != info.sampled_type {
            let op = opname(cx, i);
            let got = describe(cx, t);
            let st = cx.name(info.sampled_type);
            let m = format!("{op} {what} {got} must be the image's Sampled Type {st}");
            return fail(cx, RT, i, 0, m, "must be the Sampled Type");
        }
    } else if texel_matches(cx, i, 0, t, what, &info, false) {
        return true;
    }
    if coordinate(cx, i, opcode, &info, 3) {
        return true;
    }
    if opcode == op::OpImageSampleExplicitLod
        && cx.opts.env.is_opencl()
        && cx.ir().words(i).get(4).is_some_and(|m| m & io::ConstOffset != 0)
    {
        let m = "OpImageSampleExplicitLod: the ConstOffset image operand is not allowed in the OpenCL environment".into();
        return fail(cx, OPS, i, 4, m, "not allowed in OpenCL");
    }
    if dref {
        if dref_operand(cx, i, &info) {
            return true;
        }
        return operands(cx, i, opcode, &info, 5);
    }
    operands(cx, i, opcode, &info, 4)
}

fn dref_operand(cx: &mut Context<'_>, i: usize, info: &Info) -> bool {
    if !scalar_of(cx, operand_type(cx, i, 4), false, Some(32)) {
        return fail_operand(cx, OT, i, 4, "a 32-bit float scalar");
    }
    if cx.opts.env.is_vulkan() && info.dim == dim::Dim3D {
        return fail_params(cx, i, 2, info, "has Dim 3D: in Vulkan the Dref instructions must not use 3D images (VUID-StandaloneSpirv-OpImage-04777)");
    }
    false
}

fn fetch(cx: &mut Context<'_>, i: usize, opcode: u16) -> bool {
    let Some((t, what)) = texel_type(cx, i, opcode) else { return true };
    if vec4_texel(cx, i, t, what) {
        return true;
    }
    let Some(info) = image_operand(cx, i, 2) else { return true };
    if texel_matches(cx, i, 0, t, what, &info, false) {
        return true;
    }
    if info.dim == dim::Cube {
        return fail_params(cx, i, 2, &info, "has Dim Cube, which cannot be fetched");
    }
    if info.sampled != 1 {
        return fail_params(cx, i, 2, &info, "must have Sampled 1 to be fetched");
    }
    coordinate(cx, i, opcode, &info, 3) || operands(cx, i, opcode, &info, 4)
}

fn gather(cx: &mut Context<'_>, i: usize, opcode: u16) -> bool {
    let Some((t, what)) = texel_type(cx, i, opcode) else { return true };
    if vec4_texel(cx, i, t, what) {
        return true;
    }
    let Some(info) = sampled_image_operand(cx, i) else { return true };
    if info.ms != 0 {
        return fail_params(cx, i, 2, &info, "is multisampled: a gather from a multisampled image is not allowed");
    }
    let dref = matches!(opcode, op::OpImageDrefGather | op::OpImageSparseDrefGather);
    if texel_matches(cx, i, 0, t, what, &info, dref) {
        return true;
    }
    if !matches!(info.dim, dim::Dim2D | dim::Cube | dim::Rect) {
        return fail_params(cx, i, 2, &info, "must have Dim 2D, Cube or Rect for a gather");
    }
    if coordinate(cx, i, opcode, &info, 3) {
        return true;
    }
    if dref {
        if dref_operand(cx, i, &info) {
            return true;
        }
    } else {
        if !scalar_of(cx, operand_type(cx, i, 4), true, Some(32)) {
            return fail_operand(cx, OT, i, 4, "a 32-bit int scalar");
        }
        if cx.opts.env.is_vulkan() && !is_const_opcode(operand_id(cx, i, 4).and_then(|c| cx.def_opcode(c))) {
            return fail_operand(cx, OT, i, 4, "a constant in the Vulkan environment (VUID-StandaloneSpirv-OpImageGather-04664)");
        }
    }
    operands(cx, i, opcode, &info, 5)
}

/// Read and write: a storage image (Sampled 0 or 2) with its capability.
fn read_write_params(cx: &mut Context<'_>, i: usize, k: usize, info: &Info) -> bool {
    if info.sampled == 2 {
        let caps = cx.declared();
        let need = |c: u32| !caps.caps.contains(&c);
        let missing = if info.dim == dim::Dim1D && need(capability::Image1D) {
            Some("Image1D")
        } else if info.dim == dim::Rect && need(capability::ImageRect) {
            Some("ImageRect")
        } else if info.dim == dim::Buffer && need(capability::ImageBuffer) {
            Some("ImageBuffer")
        } else if info.dim == dim::Cube && info.arrayed == 1 && need(capability::ImageCubeArray) {
            Some("ImageCubeArray")
        } else if info.ms == 1 && info.arrayed == 1 && need(capability::ImageMSArray) {
            Some("ImageMSArray")
        } else {
            None
        };
        if let Some(c) = missing {
            let op = opname(cx, i);
            let img = cx.name(info.id);
            let m = format!("{op}: accessing the storage image of type {img} needs the {c} capability");
            let l = format!("needs {c}");
            return fail(cx, CAP, i, k, m, &l);
        }
    } else if info.sampled != 0 {
        return fail_params(cx, i, k, info, "must have Sampled 0 or 2 to be read or written");
    }
    false
}

fn read(cx: &mut Context<'_>, i: usize, opcode: u16) -> bool {
    let Some((t, what)) = texel_type(cx, i, opcode) else { return true };
    let env = cx.opts.env;
    if !numeric(cx, Some(t), true, false) && !numeric(cx, Some(t), false, false) {
        let op = opname(cx, i);
        let got = describe(cx, t);
        let m = format!("{op} {what} {got} must be an int or float scalar or vector");
        return fail(cx, RT, i, 0, m, "must be an int or float scalar or vector");
    }
    if env.is_vulkan() && dimension(cx, Some(t)) != 4 {
        let op = opname(cx, i);
        let got = describe(cx, t);
        let m = format!("{op} {what} {got} must have 4 components in the Vulkan environment (VUID-StandaloneSpirv-OpImageRead-04780)");
        return fail(cx, RT, i, 0, m, "must have 4 components");
    }
    let Some(info) = image_operand(cx, i, 2) else { return true };
    if env.is_opencl() {
        let depth = cx.ir().ty(info.id).and_then(|d| cx.ir().words(d.inst as usize).get(3).copied()).unwrap_or(0);
        if depth != 0 {
            if !scalar_of(cx, Some(t), false, None) {
                let op = opname(cx, i);
                let m = format!("{op}: a read from a depth image gives a float scalar in the OpenCL environment");
                return fail(cx, RT, i, 0, m, "must be a float scalar");
            }
        } else if dimension(cx, Some(t)) != 4 {
            let op = opname(cx, i);
            let m = format!("{op} {what} must have 4 components");
            return fail(cx, RT, i, 0, m, "must have 4 components");
        }
        let mask = cx.ir().words(i).get(4).copied().unwrap_or(0);
        if mask & io::ConstOffset != 0 {
            let m = "the ConstOffset image operand is not allowed in the OpenCL environment".into();
            return fail(cx, OPS, i, 4, m, "not allowed in OpenCL");
        }
    }
    if info.dim == dim::SubpassData && opcode == op::OpImageSparseRead {
        return fail_params(cx, i, 2, &info, "has Dim SubpassData, which OpImageSparseRead cannot read");
    }
    if info.dim == dim::TileImageDataEXT {
        return fail_params(cx, i, 2, &info, "has Dim TileImageDataEXT, which cannot be read with this instruction");
    }
    if texel_matches(cx, i, 0, t, what, &info, false) || read_write_params(cx, i, 2, &info) {
        return true;
    }
    if coordinate(cx, i, opcode, &info, 3) {
        return true;
    }
    if env.is_vulkan()
        && info.format == fmt::Unknown
        && info.dim != dim::SubpassData
        && !cx.declared().caps.contains(&capability::StorageImageReadWithoutFormat)
    {
        let img = cx.name(info.id);
        let m = format!("{}: reading the image of type {img}, of format Unknown, needs the StorageImageReadWithoutFormat capability", opname(cx, i));
        return fail(cx, CAP, i, 2, m, "needs StorageImageReadWithoutFormat");
    }
    operands(cx, i, opcode, &info, 4)
}

fn write(cx: &mut Context<'_>, i: usize) -> bool {
    let Some(info) = image_operand(cx, i, 0) else { return true };
    if info.dim == dim::SubpassData {
        return fail_params(cx, i, 0, &info, "has Dim SubpassData, which cannot be written");
    }
    if info.dim == dim::TileImageDataEXT {
        return fail_params(cx, i, 0, &info, "has Dim TileImageDataEXT, which cannot be written");
    }
    if read_write_params(cx, i, 0, &info) || coordinate(cx, i, op::OpImageWrite, &info, 1) {
        return true;
    }
    let tt = operand_type(cx, i, 2);
    if !numeric(cx, tt, true, false) && !numeric(cx, tt, false, false) {
        return fail_operand(cx, OT, i, 2, "an int or float scalar or vector");
    }
    if !is_void(cx, info.sampled_type) && tt.map(|t| component(cx, t)) != Some(info.sampled_type) {
        let want = format!("of the image's Sampled Type {} (or a vector of it)", cx.name(info.sampled_type));
        return fail_operand(cx, OT, i, 2, &want);
    }
    if cx.opts.env.is_vulkan()
        && info.format == fmt::Unknown
        && info.dim != dim::SubpassData
        && !cx.declared().caps.contains(&capability::StorageImageWriteWithoutFormat)
    {
        let img = cx.name(info.id);
        let m = format!("OpImageWrite: writing the image of type {img}, of format Unknown, needs the StorageImageWriteWithoutFormat capability");
        return fail(cx, CAP, i, 0, m, "needs StorageImageWriteWithoutFormat");
    }
    if cx.ir().words(i).len() > 3 && cx.opts.env.is_opencl() {
        let m = "OpImageWrite: Image Operands are not allowed in the OpenCL environment".into();
        return fail(cx, OPS, i, 3, m, "not allowed in OpenCL");
    }
    operands(cx, i, op::OpImageWrite, &info, 3)
}

fn image(cx: &mut Context<'_>, i: usize) -> bool {
    let Some(rt) = cx.ir().result_type(i) else { return false };
    if !is_image(cx, Some(rt)) {
        return fail_result(cx, RT, i, "an OpTypeImage");
    }
    let st = operand_type(cx, i, 2);
    match st.and_then(|t| cx.ir().ty(t)).map(|t| &t.ty) {
        Some(Type::SampledImage { image }) if *image == rt => false,
        Some(Type::SampledImage { .. }) => {
            let want = format!("a sampled image whose image type is the Result Type {}", cx.name(rt));
            fail_operand(cx, OT, i, 2, &want)
        }
        _ => fail_operand(cx, OT, i, 2, "a sampled image (a value of an OpTypeSampledImage type)"),
    }
}

fn query(cx: &mut Context<'_>, i: usize, opcode: u16) -> bool {
    let rt = cx.ir().result_type(i);
    let vulkan = cx.opts.env.is_vulkan();
    match opcode {
        op::OpImageQuerySizeLod | op::OpImageQuerySize => {
            if !numeric(cx, rt, true, false) {
                return fail_result(cx, RT, i, "an int scalar or vector");
            }
            let Some(info) = image_operand(cx, i, 2) else { return true };
            let lod = opcode == op::OpImageQuerySizeLod;
            let base = match info.dim {
                dim::Dim1D => 1,
                dim::Buffer if !lod => 1,
                dim::Dim2D | dim::Cube => 2,
                dim::Rect if !lod => 2,
                dim::Dim3D => 3,
                _ => {
                    let dims = if lod { "1D, 2D, 3D or Cube" } else { "1D, Buffer, 2D, Cube, 3D or Rect" };
                    return fail_params(cx, i, 2, &info, &format!("must have Dim {dims} for this query"));
                }
            };
            let expected = base + info.arrayed;
            if lod {
                if info.ms != 0 {
                    return fail_params(cx, i, 2, &info, "must have MS 0 for this query");
                }
                if vulkan && info.sampled != 1 {
                    return fail_params(cx, i, 2, &info, "must have Sampled 1 for OpImageQuerySizeLod in Vulkan (VUID-StandaloneSpirv-OpImageQuerySizeLod-04659)");
                }
            } else if matches!(info.dim, dim::Dim1D | dim::Dim2D | dim::Dim3D | dim::Cube)
                && info.ms != 1
                && info.sampled != 0
                && info.sampled != 2
            {
                return fail_params(cx, i, 2, &info, "must have MS 1 or Sampled 0 or 2 for OpImageQuerySize (use OpImageQuerySizeLod)");
            }
            let got = dimension(cx, rt);
            if got != expected {
                let want = format!("an int scalar or vector of {expected} components (the image's dimensions{})", if info.arrayed != 0 { " and layers" } else { "" });
                return fail_result(cx, RT, i, &want);
            }
            if lod && !scalar_of(cx, operand_type(cx, i, 3), true, None) {
                return fail_operand(cx, OT, i, 3, "an int scalar");
            }
            false
        }
        op::OpImageQueryFormat | op::OpImageQueryOrder => {
            if !scalar_of(cx, rt, true, None) {
                return fail_result(cx, RT, i, "an int scalar");
            }
            let Some(info) = image_operand(cx, i, 2) else { return true };
            if info.dim == dim::TileImageDataEXT {
                return fail_params(cx, i, 2, &info, "must not have Dim TileImageDataEXT");
            }
            false
        }
        op::OpImageQueryLod => {
            if !numeric(cx, rt, false, true) || dimension(cx, rt) != 2 {
                return fail_result(cx, RT, i, "a vector of 2 floats");
            }
            let Some(info) = sampled_image_operand(cx, i) else { return true };
            if !matches!(info.dim, dim::Dim1D | dim::Dim2D | dim::Dim3D | dim::Cube) {
                return fail_params(cx, i, 2, &info, "must have Dim 1D, 2D, 3D or Cube for OpImageQueryLod");
            }
            coordinate(cx, i, opcode, &info, 3)
        }
        _ => {
            // OpImageQueryLevels, OpImageQuerySamples.
            if !scalar_of(cx, rt, true, None) {
                return fail_result(cx, RT, i, "an int scalar");
            }
            let Some(info) = image_operand(cx, i, 2) else { return true };
            if opcode == op::OpImageQueryLevels {
                if !matches!(info.dim, dim::Dim1D | dim::Dim2D | dim::Dim3D | dim::Cube) {
                    return fail_params(cx, i, 2, &info, "must have Dim 1D, 2D, 3D or Cube for OpImageQueryLevels");
                }
                if vulkan && info.sampled != 1 {
                    return fail_params(cx, i, 2, &info, "must have Sampled 1 for OpImageQueryLevels in Vulkan (VUID-StandaloneSpirv-OpImageQuerySizeLod-04659)");
                }
            } else {
                if info.dim != dim::Dim2D {
                    return fail_params(cx, i, 2, &info, "must have Dim 2D for OpImageQuerySamples");
                }
                if info.ms != 1 {
                    return fail_params(cx, i, 2, &info, "must have MS 1 for OpImageQuerySamples");
                }
            }
            false
        }
    }
}

/// The number of coordinates of one plane of the image.
fn plane_size(info: &Info) -> u32 {
    match info.dim {
        dim::Dim1D | dim::Buffer => 1,
        dim::Dim2D | dim::Rect | dim::SubpassData | dim::TileImageDataEXT => 2,
        dim::Dim3D | dim::Cube => 3,
        _ => 0,
    }
}

fn min_coord_size(opcode: u16, info: &Info) -> u32 {
    if info.dim == dim::Cube && matches!(opcode, op::OpImageRead | op::OpImageWrite | op::OpImageSparseRead) {
        return 3;
    }
    if opcode == op::OpImageQueryLod {
        return plane_size(info);
    }
    if opcode == op::OpImageTexelPointer {
        return match (info.arrayed, info.dim) {
            (0, _) => plane_size(info),
            (_, dim::Dim1D) => 2,
            (_, dim::Cube | dim::Dim2D) => 3,
            _ => 0,
        };
    }
    plane_size(info) + info.arrayed + u32::from(is_proj(opcode))
}

/// Operand `k` of instruction `i`, its Coordinate (as spirv-val v2025.5: its
/// kind and, but for OpImageTexelPointer, its least size).
fn coordinate(cx: &mut Context<'_>, i: usize, opcode: u16, info: &Info, k: usize) -> bool {
    let ct = operand_type(cx, i, k);
    let float = numeric(cx, ct, false, false);
    let int = numeric(cx, ct, true, false);
    let kernel = || cx.declared().caps.contains(&capability::Kernel);
    let (ok, kind) = match opcode {
        op::OpImageFetch | op::OpImageSparseFetch | op::OpImageTexelPointer | op::OpImageRead | op::OpImageSparseRead
        | op::OpImageWrite => (int, "an int"),
        op::OpImageSampleExplicitLod | op::OpImageSparseSampleExplicitLod | op::OpImageQueryLod if kernel() => {
            (int || float, "an int or float")
        }
        _ => (float, "a float"),
    };
    if !ok {
        return fail_operand(cx, COORD, i, k, &format!("{kind} scalar or vector"));
    }
    let min = min_coord_size(opcode, info);
    let got = dimension(cx, ct);
    if opcode == op::OpImageTexelPointer {
        if min != got {
            return fail_operand(cx, COORD, i, k, &format!("a scalar or vector of exactly {min} components for this image"));
        }
    } else if min > got {
        return fail_operand(cx, COORD, i, k, &format!("a scalar or vector of at least {min} components for this image"));
    }
    false
}

fn texel_pointer(cx: &mut Context<'_>, i: usize) -> bool {
    let Some(rt) = cx.ir().result_type(i) else { return false };
    let (storage, pointee) = match cx.ir().ty(rt).map(|t| &t.ty) {
        Some(Type::Pointer { storage, pointee }) => (*storage, *pointee),
        _ => return fail_result(cx, TP, i, "a pointer"),
    };
    if storage != storage_class::Image {
        return fail_result(cx, TP, i, "a pointer in the Image storage class");
    }
    let f16v = cx.declared().caps.contains(&capability::AtomicFloat16VectorNV);
    let f16vec = |cx: &Context<'_>, t: u32| {
        shape(cx, t).is_some_and(|s| s.vector && s.is_float() && s.width() == 16 && (s.count == 2 || s.count == 4))
    };
    if let Some(p) = pointee {
        let scalar_ok = matches!(cx.ir().ty(p).map(|t| &t.ty), Some(Type::Int { .. } | Type::Float { .. } | Type::Void));
        if !(scalar_ok || (f16v && f16vec(cx, p))) {
            return fail_result(cx, TP, i, "a pointer to a numerical scalar or OpTypeVoid");
        }
    }
    let image_ty = match operand_type(cx, i, 2).and_then(|t| cx.ir().ty(t)).map(|t| &t.ty) {
        Some(Type::Pointer { pointee: Some(p), .. }) => *p,
        _ => return fail_operand(cx, TP, i, 2, "a pointer to an image"),
    };
    let Some(info) = info_of_image(cx, image_ty) else {
        return fail_operand(cx, TP, i, 2, "a pointer to an image (an OpTypeImage)");
    };
    if let Some(p) = pointee {
        let f16_ok = f16v
            && f16vec(cx, p)
            && matches!(cx.ir().ty(info.sampled_type).map(|t| &t.ty), Some(Type::Float { .. }))
            && ((dimension(cx, Some(p)) == 2 && info.format == fmt::Rg16f)
                || (dimension(cx, Some(p)) == 4 && info.format == fmt::Rgba16f));
        if info.sampled_type != p && !f16_ok {
            let st = cx.name(info.sampled_type);
            let want = format!("a pointer to the image's Sampled Type {st}");
            return fail_result(cx, TP, i, &want);
        }
    }
    if info.dim == dim::SubpassData {
        return fail_params(cx, i, 2, &info, "has Dim SubpassData, which OpImageTexelPointer cannot use");
    }
    if info.dim == dim::TileImageDataEXT {
        return fail_params(cx, i, 2, &info, "has Dim TileImageDataEXT, which OpImageTexelPointer cannot use");
    }
    if coordinate(cx, i, op::OpImageTexelPointer, &info, 3) {
        return true;
    }
    if !scalar_of(cx, operand_type(cx, i, 4), true, None) {
        return fail_operand(cx, TP, i, 4, "an int scalar");
    }
    if info.ms == 0 && operand_id(cx, i, 4).and_then(|s| const_uint(cx, s)) != Some(0) {
        return fail_operand(cx, TP, i, 4, "the constant 0, as the image is not multisampled");
    }
    if cx.opts.env.is_vulkan() {
        let mut ok = matches!(info.format, fmt::R64i | fmt::R64ui | fmt::R32f | fmt::R32i | fmt::R32ui);
        if !ok && f16v {
            ok = matches!(info.format, fmt::Rg16f | fmt::Rgba16f);
        }
        if !ok {
            return fail_params(cx, i, 2, &info, "must have Image Format R64i, R64ui, R32f, R32i or R32ui for OpImageTexelPointer in Vulkan (VUID-StandaloneSpirv-OpImageTexelPointer-04658)");
        }
    }
    false
}

/// The Image Operands of instruction `i`: the mask is operand `mk` (absent:
/// none), its operands follow.
fn operands(cx: &mut Context<'_>, i: usize, opcode: u16, info: &Info, mk: usize) -> bool {
    let words = cx.ir().words(i);
    let mask = words.get(mk).copied().unwrap_or(0);
    let o = |m: u32| mask & m != 0;
    if info.ms != 0 && !o(io::Sample) {
        let k = if words.len() > mk { mk } else { 2 };
        let m = format!("{}: the image is multisampled, so the Sample image operand is required", opname(cx, i));
        return fail(cx, OPS, i, k, m, "Sample is required");
    }
    if mask == 0 {
        return false;
    }
    let opn = opname(cx, i);
    let offsets = (mask & (io::Offset | io::ConstOffset | io::ConstOffsets | io::Offsets)).count_ones();
    if offsets > 1 {
        let m = format!("{opn}: the image operands Offset, ConstOffset, ConstOffsets and Offsets cannot be used together");
        return fail(cx, OPS, i, mk, m, "more than one offset");
    }
    let implicit = is_implicit_lod(opcode);
    let explicit = is_explicit_lod(opcode);
    let caps = cx.declared();
    let read_write = matches!(opcode, op::OpImageRead | op::OpImageWrite | op::OpImageSparseRead);
    let valid_lod = if read_write { caps.caps.contains(&capability::ImageReadWriteLodAMD) } else { explicit };
    let gather_bias = matches!(opcode, op::OpImageGather | op::OpImageSparseGather)
        && caps.caps.contains(&capability::ImageGatherBiasLodAMD);
    let dims_1234 = matches!(info.dim, dim::Dim1D | dim::Dim2D | dim::Dim3D | dim::Cube);
    let mut k = mk + 1;
    // Report image operand `k` (or the mask when absent).
    let at = |cx: &Context<'_>, k: usize| if k < cx.operands(i).len() { k } else { mk };
    let bad = |cx: &mut Context<'_>, k: usize, m: String, label: &str| {
        let k = at(cx, k);
        fail(cx, OPS, i, k, m, label)
    };
    if o(io::Bias) {
        if !implicit && !gather_bias {
            return bad(cx, mk, format!("{opn}: the Bias image operand can only be used with the ImplicitLod instructions"), "Bias not allowed");
        }
        if !scalar_of(cx, operand_type(cx, i, k), false, None) {
            return fail_operand(cx, OPS, i, at(cx, k), "a float scalar (Bias)");
        }
        if !dims_1234 {
            return bad(cx, mk, format!("{opn}: the Bias image operand needs an image of Dim 1D, 2D, 3D or Cube"), "Bias not allowed");
        }
        k += 1;
    }
    if o(io::Lod) {
        let fetch = matches!(opcode, op::OpImageFetch | op::OpImageSparseFetch);
        if !valid_lod && !fetch && !gather_bias {
            return bad(cx, mk, format!("{opn}: the Lod image operand can only be used with the ExplicitLod instructions and OpImageFetch"), "Lod not allowed");
        }
        if o(io::Grad) {
            return bad(cx, mk, format!("{opn}: the Lod and Grad image operands cannot be used together"), "Lod with Grad");
        }
        if explicit || gather_bias {
            if !scalar_of(cx, operand_type(cx, i, k), false, None) {
                return fail_operand(cx, OPS, i, at(cx, k), "a float scalar (Lod with an ExplicitLod instruction)");
            }
        } else if !scalar_of(cx, operand_type(cx, i, k), true, None) {
            return fail_operand(cx, OPS, i, at(cx, k), "an int scalar (Lod with OpImageFetch)");
        }
        if !dims_1234 {
            return bad(cx, mk, format!("{opn}: the Lod image operand needs an image of Dim 1D, 2D, 3D or Cube"), "Lod not allowed");
        }
        k += 1;
    }
    if o(io::Grad) {
        if !explicit {
            return bad(cx, mk, format!("{opn}: the Grad image operand can only be used with the ExplicitLod instructions"), "Grad not allowed");
        }
        let plane = plane_size(info);
        for (n, which) in [(k, "dx"), (k + 1, "dy")] {
            let t = operand_type(cx, i, n);
            if !numeric(cx, t, false, false) {
                return fail_operand(cx, OPS, i, at(cx, n), &format!("a float scalar or vector (Grad {which})"));
            }
            if dimension(cx, t) != plane {
                return fail_operand(cx, OPS, i, at(cx, n), &format!("of {plane} components (Grad {which}, one per coordinate of the image)"));
            }
        }
        k += 2;
    }
    let offset_type = |cx: &mut Context<'_>, k: usize, name: &str| -> bool {
        let t = operand_type(cx, i, k);
        if !numeric(cx, t, true, false) {
            return fail_operand(cx, OPS, i, at(cx, k), &format!("an int scalar or vector ({name})"));
        }
        let plane = plane_size(info);
        if dimension(cx, t) != plane {
            return fail_operand(cx, OPS, i, at(cx, k), &format!("of {plane} components ({name}, one per coordinate of the image)"));
        }
        false
    };
    if o(io::ConstOffset) {
        if info.dim == dim::Cube {
            return bad(cx, mk, format!("{opn}: the ConstOffset image operand cannot be used with a Cube image"), "not with Cube");
        }
        let t = operand_type(cx, i, k);
        if !numeric(cx, t, true, false) {
            return fail_operand(cx, OPS, i, at(cx, k), "an int scalar or vector (ConstOffset)");
        }
        if !is_const_opcode(operand_id(cx, i, k).and_then(|c| cx.def_opcode(c))) {
            return fail_operand(cx, OPS, i, at(cx, k), "a constant (ConstOffset)");
        }
        if offset_type(cx, k, "ConstOffset") {
            return true;
        }
        k += 1;
    }
    if o(io::Offset) {
        if info.dim == dim::Cube {
            return bad(cx, mk, format!("{opn}: the Offset image operand cannot be used with a Cube image"), "not with Cube");
        }
        if offset_type(cx, k, "Offset") {
            return true;
        }
        if !cx.opts.before_hlsl_legalization && cx.opts.env.is_vulkan() && !is_gather(opcode) {
            return bad(cx, mk, format!("{opn}: in Vulkan the Offset image operand can only be used with the gather instructions (VUID-StandaloneSpirv-Offset-10213; spirv-val's --allow-offset-texture-operand lifts it)"), "Offset only for gathers");
        }
        k += 1;
    }
    if o(io::ConstOffsets) {
        if !is_gather(opcode) {
            return bad(cx, mk, format!("{opn}: the ConstOffsets image operand can only be used with OpImageGather and OpImageDrefGather"), "ConstOffsets not allowed");
        }
        if info.dim == dim::Cube {
            return bad(cx, mk, format!("{opn}: the ConstOffsets image operand cannot be used with a Cube image"), "not with Cube");
        }
        let t = operand_type(cx, i, k);
        let arr = match t.and_then(|t| cx.ir().ty(t)).map(|t| &t.ty) {
            Some(Type::Array { element, length, .. }) => Some((*element, *length)),
            _ => None,
        };
        let Some((element, _)) = arr.filter(|&(_, l)| const_uint(cx, l) == Some(4)) else {
            return fail_operand(cx, OPS, i, at(cx, k), "an array of 4 (ConstOffsets)");
        };
        if !shape(cx, element).is_some_and(|s| s.vector && s.is_int() && s.count == 2) {
            return fail_operand(cx, OPS, i, at(cx, k), "an array of 2-component int vectors (ConstOffsets)");
        }
        if !is_const_opcode(operand_id(cx, i, k).and_then(|c| cx.def_opcode(c))) {
            return fail_operand(cx, OPS, i, at(cx, k), "a constant (ConstOffsets)");
        }
        k += 1;
    }
    if o(io::Sample) {
        if !matches!(opcode, op::OpImageFetch | op::OpImageRead | op::OpImageWrite | op::OpImageSparseFetch | op::OpImageSparseRead) {
            return bad(cx, mk, format!("{opn}: the Sample image operand can only be used with OpImageFetch, OpImageRead, OpImageWrite and their sparse forms"), "Sample not allowed");
        }
        if info.ms == 0 {
            return bad(cx, mk, format!("{opn}: the Sample image operand needs a multisampled image (MS 1)"), "Sample not allowed");
        }
        if !scalar_of(cx, operand_type(cx, i, k), true, None) {
            return fail_operand(cx, OPS, i, at(cx, k), "an int scalar (Sample)");
        }
        k += 1;
    }
    if o(io::MinLod) {
        if !implicit && !o(io::Grad) {
            return bad(cx, mk, format!("{opn}: the MinLod image operand can only be used with the ImplicitLod instructions or with Grad"), "MinLod not allowed");
        }
        if !scalar_of(cx, operand_type(cx, i, k), false, None) {
            return fail_operand(cx, OPS, i, at(cx, k), "a float scalar (MinLod)");
        }
        if !dims_1234 {
            return bad(cx, mk, format!("{opn}: the MinLod image operand needs an image of Dim 1D, 2D, 3D or Cube"), "MinLod not allowed");
        }
        if info.ms != 0 {
            return bad(cx, mk, format!("{opn}: the MinLod image operand needs an image with MS 0"), "MinLod not allowed");
        }
    }
    if o(io::MakeTexelAvailable) {
        if opcode != op::OpImageWrite {
            return bad(cx, mk, format!("{opn}: the MakeTexelAvailable image operand can only be used with OpImageWrite"), "not allowed");
        }
        if !o(io::NonPrivateTexel) {
            return bad(cx, mk, format!("{opn}: the MakeTexelAvailable image operand needs NonPrivateTexel too"), "needs NonPrivateTexel");
        }
    }
    if o(io::MakeTexelVisible) {
        if !matches!(opcode, op::OpImageRead | op::OpImageSparseRead) {
            return bad(cx, mk, format!("{opn}: the MakeTexelVisible image operand can only be used with OpImageRead and OpImageSparseRead"), "not allowed");
        }
        if !o(io::NonPrivateTexel) {
            return bad(cx, mk, format!("{opn}: the MakeTexelVisible image operand needs NonPrivateTexel too"), "needs NonPrivateTexel");
        }
    }
    false
}

/// Check the instructions `limited` against the execution models and modes
/// of the entry points whose call graphs reach them (as spirv-val's
/// execution limitations).
fn execution_models(cx: &mut Context<'_>, limited: &[(usize, ModelLimit)]) {
    use crate::grammar::{execution_mode as em, execution_model as model};
    use alloc::collections::BTreeSet;
    use alloc::vec::Vec;
    let ir = cx.ir();
    // The functions each function calls.
    let by_id: alloc::collections::BTreeMap<u32, usize> = ir.functions.iter().enumerate().map(|(n, f)| (f.id, n)).collect();
    let index = |id: u32| by_id.get(&id).copied();
    let mut callees: Vec<Vec<usize>> = alloc::vec![Vec::new(); ir.functions.len()];
    for (n, f) in ir.functions.iter().enumerate() {
        for j in f.inst as usize..(f.end as usize).min(cx.insts().len()) {
            if cx.insts()[j].opcode != op::OpFunctionCall {
                continue;
            }
            if let Some(c) = ir.words(j).get(2).and_then(|&id| index(id)) {
                callees[n].push(c);
            }
        }
    }
    let owner: Vec<Option<usize>> = limited.iter().map(|&(i, _)| ir.function_at(i).and_then(|f| index(f.id))).collect();
    let mut reported = BTreeSet::new();
    for e in &ir.entry_points {
        let Some(start) = index(e.function) else { continue };
        let mut seen = BTreeSet::new();
        let mut stack = alloc::vec![start];
        while let Some(n) = stack.pop() {
            if seen.insert(n) {
                stack.extend(callees[n].iter().copied());
            }
        }
        // All the models the entry function is declared with, and its modes.
        let models: Vec<u32> = ir.entry_points.iter().filter(|x| x.function == e.function).map(|x| x.model).collect();
        let group_mode = ir
            .entry_points
            .iter()
            .filter(|x| x.function == e.function)
            .flat_map(|x| x.modes.iter())
            .any(|m| m.mode == em::DerivativeGroupQuadsKHR || m.mode == em::DerivativeGroupLinearKHR);
        let compute_like = models.iter().any(|&m| matches!(m, model::GLCompute | model::MeshEXT | model::TaskEXT));
        for (&(i, limit), f) in limited.iter().zip(&owner) {
            if reported.contains(&i) || !f.is_some_and(|n| seen.contains(&n)) {
                continue;
            }
            let derivative_models = |m: u32| matches!(m, model::Fragment | model::GLCompute | model::MeshEXT | model::TaskEXT);
            let why = match limit {
                ModelLimit::Fragment if models.iter().any(|&m| m != model::Fragment) => {
                    Some("reading a SubpassData image needs the Fragment execution model")
                }
                ModelLimit::FragmentOnly(_) if models.iter().any(|&m| m != model::Fragment) => {
                    Some("it needs the Fragment execution model")
                }
                ModelLimit::ImplicitLod | ModelLimit::Derivative if !models.iter().all(|&m| derivative_models(m)) => {
                    Some("it needs the Fragment, GLCompute, MeshEXT or TaskEXT execution model")
                }
                ModelLimit::ImplicitLod | ModelLimit::Derivative if compute_like && !group_mode => {
                    Some("with GLCompute, MeshEXT or TaskEXT it needs the DerivativeGroupQuadsKHR or DerivativeGroupLinearKHR execution mode")
                }
                _ => None,
            };
            let Some(why) = why else { continue };
            reported.insert(i);
            let code = match limit {
                ModelLimit::Derivative => "inst.derivative.execution-model",
                ModelLimit::FragmentOnly(code) => code,
                _ => "inst.image.execution-model",
            };
            let opn = opname(cx, i);
            let entry = alloc::string::String::from(e.name.as_str());
            let m = format!("{opn} is reached from the entry point \"{entry}\": {why}");
            cx.error_related(code, i, m, [(e.inst as usize, alloc::string::String::from("the entry point"))]).label =
                "not for this execution model".into();
        }
    }
}
