//! One draw on wgpu: a vertex and a fragment stage, core's pipeline
//! description ([`raster::Pipeline`]), its draw command and framebuffer, by
//! the same async path natively and in the browser ([`Gpu::draw`];
//! natively [`Gpu::draw_blocking`] with a deadline).
//!
//! **Y.** wgpu's Vulkan backend flips every viewport (a negative height) so
//! that clip space has WebGPU's y up; a Vulkan shader's clip space has y
//! down. The vertex stage is therefore handed to wgpu with its `Position.y`
//! negated before each return of its entry point ([`flip_position_y`]; for
//! `wgpu` our lowering is of that module: [`stage_wgsl`]). Negation is exact,
//! and wgpu's flipped viewport then maps every vertex to the framebuffer
//! coordinates Vulkan's does: coverage, `FragCoord` and facing are Vulkan's.
//!
//! **Attachments.** Each colour attachment's bytes are uploaded and loaded
//! (draws accumulate: Amber's clears are done into the bytes), then copied
//! back. Depth: D16_UNORM is a `Depth16Unorm` texture written and copied
//! directly. D32_SFLOAT (`Depth32Float`) may be copied out but not into,
//! and D24_UNORM_S8_UINT (`Depth24PlusStencil8`) neither: their values go in
//! by a pass that writes `frag_depth` from an `R32Float` texture of the
//! decoded depths (exact for D32; for D24 `k / (2^24 - 1)` converted back by
//! the device's rounding). D24's depth comes back by a compute pass that
//! loads the depth aspect as `f32` into a buffer, converted with
//! [`DepthFormat::encode`]'s UNORM rounding; the depth test itself runs on
//! the real 24-bit depth, so its comparisons are D24's.
//!
//! **Vertex input.** Each [`VertexBuffer`] is repacked for the vertices the
//! draw reads (its offset and stride applied, an attribute past its end
//! zeros, as core's contract says), at a stride of its attribute rounded up
//! to 4 bytes; a 3-component 8- or 16-bit attribute, which wgpu lacks, is
//! widened to 4 with its fourth component 1 (Vulkan's default). A
//! triangle fan (wgpu has none) is drawn as the list of its triangles in
//! raster's order (provoking vertex first, same winding).

use crate::{Backend, Gpu, GpuError, GpuErrorKind, Job, Mapped, Pending, Refused, bind, round_up};
use spvlab_core::interp::{Buffers, Options};
use spvlab_core::ir::Ir;
use spvlab_core::raster::{
    self, AttrKind, BlendFactor, BlendOp, ColorFormat, CompareOp, CullMode, DepthFormat, DrawCmd, DrawIndices, Framebuffer,
    FrontFace, PolygonMode, Topology, VertexBuffer, VertexFormat,
};
use spvlab_core::reflect::{self, ExecutionModel};
use spvlab_core::wgsl::Wgsl;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The most vertices one draw may read (its count, or its index list's
/// length, times its instances).
pub const MAX_DRAW_VERTICES: u64 = 1 << 24;
/// The most instances of one draw.
pub const MAX_INSTANCES: u32 = 1 << 16;
/// The most bytes of one repacked vertex buffer.
const MAX_VERTEX_BYTES: u64 = 1 << 28;

/// One shader stage of a draw.
#[derive(Clone, Copy)]
pub struct DrawStage<'a> {
    /// The module's words (specialized).
    pub words: &'a [u32],
    pub ir: &'a Ir,
    /// For [`Backend::Wgsl`]: our lowering of the stage ([`stage_wgsl`]).
    pub wgsl: Option<&'a Wgsl>,
    pub entry: &'a str,
}

/// One draw.
#[derive(Clone, Copy)]
pub struct DrawJob<'a> {
    pub backend: Backend,
    pub vertex: DrawStage<'a>,
    pub fragment: DrawStage<'a>,
    pub pipeline: &'a raster::Pipeline,
    pub draw: &'a DrawCmd,
    /// Each descriptor's bytes, by (set, binding), for both stages.
    pub buffers: &'a Buffers,
    pub aliases: &'a BTreeMap<(u32, u32), (u32, u32)>,
    pub push_constants: Option<&'a [u8]>,
    /// Images, samplers and arrays of descriptors ([`bind`]).
    pub resources: Option<&'a Options>,
    /// What to call the draw in errors (its shaders' names).
    pub module_name: &'a str,
}

impl<'a> DrawJob<'a> {
    /// The stage as a [`Job`] (for the binder and the errors).
    fn stage(&self, s: &DrawStage<'a>) -> Job<'a> {
        Job {
            backend: self.backend,
            words: s.words,
            ir: s.ir,
            wgsl: s.wgsl,
            entry: Some(s.entry),
            workgroups: [0; 3],
            buffers: self.buffers,
            aliases: self.aliases,
            push_constants: self.push_constants,
            resources: self.resources,
            module_name: self.module_name,
        }
    }
}

/// Our WGSL of one stage for [`Backend::Wgsl`]: a vertex stage is lowered
/// with its `Position.y` negated ([`flip_position_y`]), a fragment stage as
/// it is.
pub fn stage_wgsl(words: &[u32], ir: &Ir, entry: &str, model: ExecutionModel) -> Result<Wgsl, Refused> {
    if model != ExecutionModel::Vertex {
        return crate::wgsl_of(ir, entry);
    }
    let flipped = flip_position_y(words, entry);
    match spvlab_core::binary::read_words(&flipped) {
        Ok(m) => crate::wgsl_of(&Ir::build(m), entry),
        Err(_) => crate::wgsl_of(ir, entry),
    }
}

/// The instructions of a module: (start, word count), from word 5 on.
fn instructions(w: &[u32]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut at = 5;
    while at < w.len() {
        let n = (w[at] >> 16) as usize;
        if n == 0 || at + n > w.len() {
            break;
        }
        v.push((at, n));
        at += n;
    }
    v
}

/// A literal string's text (its words from `w`'s start).
fn literal(w: &[u32]) -> (String, usize) {
    let mut bytes = Vec::new();
    for (i, x) in w.iter().enumerate() {
        for b in x.to_le_bytes() {
            if b == 0 {
                return (String::from_utf8_lossy(&bytes).into_owned(), i + 1);
            }
            bytes.push(b);
        }
    }
    (String::from_utf8_lossy(&bytes).into_owned(), w.len())
}

/// The vertex module with `Position.y` negated before each `OpReturn` of
/// entry point `entry` (see the module's notes on Y). The position is the
/// Output variable of the entry's interface decorated `BuiltIn Position`, or
/// the member so decorated of its Output block; types and constants the
/// negation needs are reused or added. A module without such a variable, or
/// one this cannot read, comes back unchanged.
pub fn flip_position_y(words: &[u32], entry: &str) -> Vec<u32> {
    use spvlab_core::grammar::{built_in, decoration, execution_model, op, storage_class};
    if words.len() < 5 {
        return words.to_vec();
    }
    let list = instructions(words);
    let opc = |at: usize| words[at] & 0xffff;
    let mut function = None;
    let mut interface: &[u32] = &[];
    for &(at, n) in &list {
        if opc(at) == op::OpEntryPoint as u32 && n >= 4 && words[at + 1] == execution_model::Vertex {
            let (name, used) = literal(&words[at + 3..at + n]);
            if name == entry {
                function = Some(words[at + 2]);
                interface = &words[at + 3 + used..at + n];
            }
        }
    }
    let Some(function) = function else { return words.to_vec() };
    let mut var_decorated = Vec::new();
    let mut member_decorated = Vec::new();
    let mut pointers = BTreeMap::new();
    let mut variables = BTreeMap::new();
    let mut float32 = None;
    let mut int32 = None;
    let mut constants = BTreeMap::new();
    let mut first_function = None;
    for &(at, n) in &list {
        let o = opc(at);
        let w = &words[at..at + n];
        if o == op::OpDecorate as u32 && n == 4 && w[2] == decoration::BuiltIn && w[3] == built_in::Position {
            var_decorated.push(w[1]);
        } else if o == op::OpMemberDecorate as u32 && n == 5 && w[3] == decoration::BuiltIn && w[4] == built_in::Position {
            member_decorated.push((w[1], w[2]));
        } else if o == op::OpTypePointer as u32 && n == 4 {
            pointers.insert(w[1], (w[2], w[3]));
        } else if o == op::OpVariable as u32 && n >= 4 && w[3] == storage_class::Output {
            variables.insert(w[2], w[1]);
        } else if o == op::OpTypeFloat as u32 && n == 3 && w[2] == 32 {
            float32.get_or_insert(w[1]);
        } else if o == op::OpTypeInt as u32 && n == 4 && w[2] == 32 && int32.is_none() {
            int32 = Some(w[1]);
        } else if o == op::OpConstant as u32 && n == 4 {
            constants.entry((w[1], w[3])).or_insert(w[2]);
        } else if o == op::OpFunction as u32 && first_function.is_none() {
            first_function = Some(at);
        }
    }
    let (Some(float32), Some(first_function)) = (float32, first_function) else { return words.to_vec() };
    // The position: (variable, member index) with the member None for a
    // variable decorated itself.
    let mut target = None;
    for &v in interface {
        let Some(ptr) = variables.get(&v) else { continue };
        let Some(&(_, pointee)) = pointers.get(ptr) else { continue };
        if var_decorated.contains(&v) {
            target = Some((v, None));
        } else if let Some(&(_, m)) = member_decorated.iter().find(|(s, _)| *s == pointee) {
            target = Some((v, Some(m)));
        }
    }
    let Some((var, member)) = target else { return words.to_vec() };
    let mut bound = words[3];
    let mut fresh = || {
        let id = bound;
        bound += 1;
        id
    };
    let inst = |o: u16, operands: &[u32]| {
        let mut v = vec![((operands.len() as u32 + 1) << 16) | o as u32];
        v.extend_from_slice(operands);
        v
    };
    let mut decls = Vec::new();
    let int = match int32 {
        Some(t) => t,
        None => {
            let t = fresh();
            decls.extend(inst(op::OpTypeInt, &[t, 32, 0]));
            t
        }
    };
    let mut constant = |value: u32, decls: &mut Vec<u32>, fresh: &mut dyn FnMut() -> u32| match constants.get(&(int, value)) {
        Some(c) => *c,
        None => {
            let c = fresh();
            decls.extend(inst(op::OpConstant, &[int, c, value]));
            constants.insert((int, value), c);
            c
        }
    };
    let mut indices = Vec::new();
    if let Some(m) = member {
        indices.push(constant(m, &mut decls, &mut fresh));
    }
    indices.push(constant(1, &mut decls, &mut fresh));
    let ptr = match pointers.iter().find(|(_, (sc, t))| *sc == storage_class::Output && *t == float32) {
        Some((id, _)) => *id,
        None => {
            let p = fresh();
            decls.extend(inst(op::OpTypePointer, &[p, storage_class::Output, float32]));
            p
        }
    };
    let mut out = Vec::with_capacity(words.len() + 64);
    out.extend_from_slice(&words[..5]);
    let mut in_entry = false;
    for &(at, n) in &list {
        if at == first_function {
            out.extend_from_slice(&decls);
        }
        let o = opc(at);
        if o == op::OpFunction as u32 && n == 5 {
            in_entry = words[at + 2] == function;
        } else if o == op::OpFunctionEnd as u32 {
            in_entry = false;
        } else if o == op::OpReturn as u32 && in_entry {
            let (p, y, neg) = (fresh(), fresh(), fresh());
            let mut chain = vec![ptr, p, var];
            chain.extend_from_slice(&indices);
            out.extend(inst(op::OpAccessChain, &chain));
            out.extend(inst(op::OpLoad, &[float32, y, p]));
            out.extend(inst(op::OpFNegate, &[float32, neg, y]));
            out.extend(inst(op::OpStore, &[p, neg]));
        }
        out.extend_from_slice(&words[at..at + n]);
    }
    out[3] = bound;
    out
}

/// wgpu's vertex format for `f`, and whether it was widened to 4
/// components (a 3-component 8- or 16-bit one); `None`: wgpu has none.
fn vertex_format(f: VertexFormat) -> Option<(wgpu::VertexFormat, bool)> {
    use wgpu::VertexFormat as V;
    let widen = f.components == 3 && f.width < 32;
    let n = if widen { 4 } else { f.components };
    let v = match (f.kind, f.width, n) {
        (AttrKind::Float, 32, 1) => V::Float32,
        (AttrKind::Float, 32, 2) => V::Float32x2,
        (AttrKind::Float, 32, 3) => V::Float32x3,
        (AttrKind::Float, 32, 4) => V::Float32x4,
        (AttrKind::Float, 64, 1) => V::Float64,
        (AttrKind::Float, 64, 2) => V::Float64x2,
        (AttrKind::Float, 64, 3) => V::Float64x3,
        (AttrKind::Float, 64, 4) => V::Float64x4,
        (AttrKind::Uint, 32, 1) => V::Uint32,
        (AttrKind::Uint, 32, 2) => V::Uint32x2,
        (AttrKind::Uint, 32, 3) => V::Uint32x3,
        (AttrKind::Uint, 32, 4) => V::Uint32x4,
        (AttrKind::Sint, 32, 1) => V::Sint32,
        (AttrKind::Sint, 32, 2) => V::Sint32x2,
        (AttrKind::Sint, 32, 3) => V::Sint32x3,
        (AttrKind::Sint, 32, 4) => V::Sint32x4,
        (AttrKind::Uint, 16, 1) => V::Uint16,
        (AttrKind::Uint, 16, 2) => V::Uint16x2,
        (AttrKind::Uint, 16, 4) => V::Uint16x4,
        (AttrKind::Sint, 16, 1) => V::Sint16,
        (AttrKind::Sint, 16, 2) => V::Sint16x2,
        (AttrKind::Sint, 16, 4) => V::Sint16x4,
        (AttrKind::Unorm, 16, 1) => V::Unorm16,
        (AttrKind::Unorm, 16, 2) => V::Unorm16x2,
        (AttrKind::Unorm, 16, 4) => V::Unorm16x4,
        (AttrKind::Snorm, 16, 1) => V::Snorm16,
        (AttrKind::Snorm, 16, 2) => V::Snorm16x2,
        (AttrKind::Snorm, 16, 4) => V::Snorm16x4,
        (AttrKind::Uint, 8, 1) => V::Uint8,
        (AttrKind::Uint, 8, 2) => V::Uint8x2,
        (AttrKind::Uint, 8, 4) => V::Uint8x4,
        (AttrKind::Sint, 8, 1) => V::Sint8,
        (AttrKind::Sint, 8, 2) => V::Sint8x2,
        (AttrKind::Sint, 8, 4) => V::Sint8x4,
        (AttrKind::Unorm, 8, 1) => V::Unorm8,
        (AttrKind::Unorm, 8, 2) => V::Unorm8x2,
        (AttrKind::Unorm, 8, 4) => V::Unorm8x4,
        (AttrKind::Snorm, 8, 1) => V::Snorm8,
        (AttrKind::Snorm, 8, 2) => V::Snorm8x2,
        (AttrKind::Snorm, 8, 4) => V::Snorm8x4,
        _ => return None,
    };
    Some((v, widen))
}

/// The bytes of "one" in a component of `f` (the default fourth one).
fn one(f: VertexFormat) -> Vec<u8> {
    let n = f.width as usize / 8;
    let v: u64 = match f.kind {
        AttrKind::Unorm => (1u64 << f.width) - 1,
        AttrKind::Snorm => (1u64 << (f.width - 1)) - 1,
        _ => 1,
    };
    v.to_le_bytes()[..n].to_vec()
}

pub(crate) fn color_format(f: ColorFormat) -> Option<wgpu::TextureFormat> {
    Some(match f {
        ColorFormat::B8G8R8A8Unorm => wgpu::TextureFormat::Bgra8Unorm,
        ColorFormat::R8G8B8A8Unorm => wgpu::TextureFormat::Rgba8Unorm,
        ColorFormat::R32G32B32A32Sfloat => wgpu::TextureFormat::Rgba32Float,
        ColorFormat::R32Sfloat => wgpu::TextureFormat::R32Float,
        ColorFormat::R32G32B32A32Sint => wgpu::TextureFormat::Rgba32Sint,
        ColorFormat::R32G32B32A32Uint => wgpu::TextureFormat::Rgba32Uint,
        ColorFormat::R32Sint => wgpu::TextureFormat::R32Sint,
        ColorFormat::R32Uint => wgpu::TextureFormat::R32Uint,
    })
}

fn depth_format(f: DepthFormat) -> wgpu::TextureFormat {
    match f {
        DepthFormat::D16Unorm => wgpu::TextureFormat::Depth16Unorm,
        DepthFormat::D32Sfloat => wgpu::TextureFormat::Depth32Float,
        DepthFormat::D24UnormS8Uint => wgpu::TextureFormat::Depth24PlusStencil8,
    }
}

fn compare(op: CompareOp) -> wgpu::CompareFunction {
    use wgpu::CompareFunction as C;
    match op {
        CompareOp::Never => C::Never,
        CompareOp::Less => C::Less,
        CompareOp::Equal => C::Equal,
        CompareOp::LessOrEqual => C::LessEqual,
        CompareOp::Greater => C::Greater,
        CompareOp::NotEqual => C::NotEqual,
        CompareOp::GreaterOrEqual => C::GreaterEqual,
        CompareOp::Always => C::Always,
    }
}

/// wgpu's blend factor (`ConstantAlpha` as `Constant`, its constant made
/// `(a, a, a, a)` by the caller).
fn factor(f: BlendFactor) -> wgpu::BlendFactor {
    use wgpu::BlendFactor as W;
    match f {
        BlendFactor::Zero => W::Zero,
        BlendFactor::One => W::One,
        BlendFactor::SrcColor => W::Src,
        BlendFactor::OneMinusSrcColor => W::OneMinusSrc,
        BlendFactor::DstColor => W::Dst,
        BlendFactor::OneMinusDstColor => W::OneMinusDst,
        BlendFactor::SrcAlpha => W::SrcAlpha,
        BlendFactor::OneMinusSrcAlpha => W::OneMinusSrcAlpha,
        BlendFactor::DstAlpha => W::DstAlpha,
        BlendFactor::OneMinusDstAlpha => W::OneMinusDstAlpha,
        BlendFactor::ConstantColor | BlendFactor::ConstantAlpha => W::Constant,
        BlendFactor::OneMinusConstantColor | BlendFactor::OneMinusConstantAlpha => W::OneMinusConstant,
        BlendFactor::SrcAlphaSaturate => W::SrcAlphaSaturated,
        BlendFactor::Src1Color => W::Src1,
        BlendFactor::OneMinusSrc1Color => W::OneMinusSrc1,
        BlendFactor::Src1Alpha => W::Src1Alpha,
        BlendFactor::OneMinusSrc1Alpha => W::OneMinusSrc1Alpha,
    }
}

fn blend_op(o: BlendOp) -> wgpu::BlendOperation {
    match o {
        BlendOp::Add => wgpu::BlendOperation::Add,
        BlendOp::Subtract => wgpu::BlendOperation::Subtract,
        BlendOp::ReverseSubtract => wgpu::BlendOperation::ReverseSubtract,
        BlendOp::Min => wgpu::BlendOperation::Min,
        BlendOp::Max => wgpu::BlendOperation::Max,
    }
}

/// How the draw's vertices reach wgpu.
struct Vertices {
    topology: wgpu::PrimitiveTopology,
    /// Indexed: the index bytes and format.
    indices: Option<(Vec<u8>, wgpu::IndexFormat, u32)>,
    /// Sequential: the range.
    range: std::ops::Range<u32>,
    /// The highest vertex number read, if any.
    last: Option<u32>,
}

/// The draw's vertices as wgpu takes them, or why not.
fn vertices(cmd: &DrawCmd) -> Result<Vertices, String> {
    use wgpu::PrimitiveTopology as P;
    let topology = match cmd.topology {
        Topology::PointList => P::PointList,
        Topology::LineList => P::LineList,
        Topology::LineStrip => P::LineStrip,
        Topology::TriangleList | Topology::TriangleFan => P::TriangleList,
        Topology::TriangleStrip => P::TriangleStrip,
    };
    let strip = matches!(cmd.topology, Topology::LineStrip | Topology::TriangleStrip);
    if cmd.topology == Topology::TriangleFan {
        // The fan's triangles, raster's order: i + 1, i + 2, 0 of each run.
        let runs: Vec<Vec<u32>> = match &cmd.indices {
            DrawIndices::Sequential { first, count } => vec![(0..*count).map(|i| first.saturating_add(i)).collect()],
            DrawIndices::Indexed { indices, restart } => match restart {
                Some(r) => indices.split(|i| i == r).map(<[u32]>::to_vec).collect(),
                None => vec![indices.clone()],
            },
        };
        let mut list = Vec::new();
        for run in runs {
            for i in 0..run.len().saturating_sub(2) {
                list.extend_from_slice(&[run[i + 1], run[i + 2], run[0]]);
            }
        }
        let last = list.iter().max().copied();
        let n = list.len() as u32;
        let bytes = list.iter().flat_map(|i| i.to_le_bytes()).collect();
        return Ok(Vertices { topology, indices: Some((bytes, wgpu::IndexFormat::Uint32, n)), range: 0..0, last });
    }
    match &cmd.indices {
        DrawIndices::Sequential { first, count } => {
            let end = first.checked_add(*count).ok_or("first vertex plus count overflows 32 bits")?;
            Ok(Vertices { topology, indices: None, range: *first..end, last: (*count > 0).then(|| end - 1) })
        }
        DrawIndices::Indexed { indices, restart } => {
            // wgpu restarts strips on the all-ones index of the index
            // format, always, and lists never.
            let format = match (restart, strip) {
                (Some(0xffff), true) => wgpu::IndexFormat::Uint16,
                (Some(u32::MAX), true) | (None, _) | (Some(_), false) => wgpu::IndexFormat::Uint32,
                (Some(r), true) => return Err(format!("primitive restart on index {r:#x} (wgpu restarts on 0xffff for 16-bit and 0xffffffff for 32-bit indices only)")),
            };
            if restart.is_none() && strip && indices.contains(&u32::MAX) {
                return Err("index 0xffffffff in a strip without primitive restart (wgpu always restarts strips on it)".into());
            }
            if let (Some(r), false) = (restart, strip)
                && indices.contains(r)
            {
                return Err("primitive restart in a list topology (wgpu restarts strips only)".into());
            }
            let live = |i: &&u32| Some(**i) != *restart;
            if format == wgpu::IndexFormat::Uint16 && indices.iter().filter(live).any(|i| *i > 0xffff) {
                return Err("an index above 0xffff with 16-bit primitive restart".into());
            }
            let bytes = match format {
                wgpu::IndexFormat::Uint16 => indices.iter().flat_map(|i| (*i as u16).to_le_bytes()).collect(),
                wgpu::IndexFormat::Uint32 => indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
            };
            let last = indices.iter().filter(live).max().copied();
            Ok(Vertices { topology, indices: Some((bytes, format, indices.len() as u32)), range: 0..0, last })
        }
    }
}

/// A colour or depth attachment to read back after the draw.
enum Back {
    Color(usize, bind::TexBack),
    /// D16 and D32: copied.
    Depth(bind::TexBack),
    /// D24: loaded into a buffer of `f32` by a compute pass.
    Depth24(wgpu::Buffer),
}

const DEPTH_IN: &str = "
@group(0) @binding(0) var src: texture_2d<f32>;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let p = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(p * 4.0 - 1.0, 0.0, 1.0);
}
@fragment fn fs(@builtin(position) pos: vec4<f32>) -> @builtin(frag_depth) f32 {
    return textureLoad(src, vec2<i32>(pos.xy), 0).x;
}
";

const DEPTH_OUT: &str = "
@group(0) @binding(0) var src: texture_depth_2d;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(8, 8) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let d = textureDimensions(src);
    if (g.x >= d.x || g.y >= d.y) { return; }
    dst[g.y * d.x + g.x] = textureLoad(src, vec2<i32>(g.xy), 0);
}
";

impl Gpu {
    fn draw_fail(&self, job: &DrawJob, kind: GpuErrorKind, m: impl Into<String>) -> GpuError {
        self.fail(&job.stage(&job.vertex), kind, m)
    }

    /// Draw `job` into `fb` (in place: the attachments' bytes go in and the
    /// draw's result comes back); the bound buffers come back with the
    /// stages' writes. `wait` as for [`Gpu::run`].
    pub async fn draw(&self, job: &DrawJob<'_>, fb: &mut Framebuffer, wait: &dyn Fn(&wgpu::Device) -> Result<(), String>) -> Result<Buffers, GpuError> {
        #[cfg(target_arch = "wasm32")]
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let r = self.draw_in_scope(job, fb, wait).await;
        #[cfg(target_arch = "wasm32")]
        if let Some(e) = scope.pop().await {
            let one = e.to_string().split_whitespace().collect::<Vec<_>>().join(" ");
            return Err(self.draw_fail(job, GpuErrorKind::Validation, one));
        }
        r
    }

    /// Natively: [`Gpu::draw`], blocking, for at most `timeout` (as
    /// [`Gpu::run_blocking`]: a panic is caught, a timeout or a lost device
    /// leaves the [`Gpu`] lost).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn draw_blocking(&self, job: &DrawJob<'_>, fb: &mut Framebuffer, timeout: std::time::Duration) -> Result<Buffers, GpuError> {
        let vjob = job.stage(&job.vertex);
        self.blocking(&vjob, timeout, |wait| crate::block_on(self.draw(job, fb, wait)))
    }

    async fn draw_in_scope(&self, job: &DrawJob<'_>, fb: &mut Framebuffer, wait: &dyn Fn(&wgpu::Device) -> Result<(), String>) -> Result<Buffers, GpuError> {
        let unsupported = |m: String| self.draw_fail(job, GpuErrorKind::Unsupported, m);
        let p = job.pipeline;
        let cmd = job.draw;
        // The framebuffer: one size, within the device's limits.
        let Some((width, height)) = fb.size() else {
            return Err(unsupported("a framebuffer without attachments".into()));
        };
        let most = self.limits.max_texture_dimension_2d;
        if width == 0 || height == 0 || width > most || height > most {
            return Err(unsupported(format!("a {width}x{height} framebuffer (1 to {most} pixels a side)")));
        }
        let pixels = width as usize * height as usize;
        if fb.colors.iter().any(|c| (c.attachment.width, c.attachment.height) != (width, height))
            || fb.depth.as_ref().is_some_and(|d| (d.buffer.width, d.buffer.height) != (width, height))
        {
            return Err(unsupported("attachments of different sizes".into()));
        }
        let max_colors = self.limits.max_color_attachments;
        for (i, c) in fb.colors.iter().enumerate() {
            if c.location >= max_colors {
                return Err(unsupported(format!("a colour attachment at location {} (the adapter has {max_colors})", c.location)));
            }
            if fb.colors[..i].iter().any(|o| o.location == c.location) {
                return Err(unsupported(format!("two colour attachments at location {}", c.location)));
            }
            if c.attachment.data.len() != pixels * c.attachment.format.texel_bytes() {
                return Err(unsupported(format!("the colour attachment at location {} holds {} bytes, not {width}x{height} texels", c.location, c.attachment.data.len())));
            }
        }
        if let Some(d) = &fb.depth
            && d.buffer.values.len() != pixels
        {
            return Err(unsupported(format!("the depth attachment holds {} values, not {width}x{height}", d.buffer.values.len())));
        }
        // The draw's size.
        let drawn = match &cmd.indices {
            DrawIndices::Sequential { count, .. } => *count as u64,
            DrawIndices::Indexed { indices, .. } => indices.len() as u64,
        };
        if cmd.instances > MAX_INSTANCES || drawn.saturating_mul(cmd.instances.max(1) as u64) > MAX_DRAW_VERTICES {
            return Err(unsupported(format!(
                "a draw of {drawn} vertices and {} instances (at most {MAX_INSTANCES} instances and {MAX_DRAW_VERTICES} vertices in all)",
                cmd.instances
            )));
        }
        let verts = vertices(cmd).map_err(&unsupported)?;
        // The rasterisation state.
        let s = &p.state;
        let triangles = matches!(cmd.topology, Topology::TriangleList | Topology::TriangleStrip | Topology::TriangleFan);
        let lines = matches!(cmd.topology, Topology::LineList | Topology::LineStrip) || (triangles && s.polygon_mode == PolygonMode::Line);
        if lines && s.line_width != 1.0 {
            return Err(unsupported(format!("lines {} wide (wgpu draws lines 1 wide)", s.line_width)));
        }
        let polygon_mode = match s.polygon_mode {
            PolygonMode::Fill => wgpu::PolygonMode::Fill,
            PolygonMode::Line if self.features.contains(wgpu::Features::POLYGON_MODE_LINE) => wgpu::PolygonMode::Line,
            PolygonMode::Point if self.features.contains(wgpu::Features::POLYGON_MODE_POINT) => wgpu::PolygonMode::Point,
            m => return Err(unsupported(format!("polygon mode {m:?} (the adapter lacks wgpu's POLYGON_MODE_{})", if m == PolygonMode::Line { "LINE" } else { "POINT" }))),
        };
        let vp = s.viewport;
        if !(vp.width > 0.0 && vp.height > 0.0) {
            return Err(unsupported(format!("a viewport of {}x{} (wgpu takes positive sizes only)", vp.width, vp.height)));
        }
        if !(0.0..=1.0).contains(&vp.min_depth) || !(0.0..=1.0).contains(&vp.max_depth) || vp.min_depth > vp.max_depth {
            return Err(unsupported(format!("a viewport depth range {}..{} (wgpu takes 0 <= min <= max <= 1)", vp.min_depth, vp.max_depth)));
        }
        // Culling both faces: wgpu has no such mode; nothing of a triangle
        // is rasterised, its vertices still shaded (an empty scissor).
        let cull_all = triangles && s.cull == CullMode::FrontAndBack;
        let cull_mode = match s.cull {
            CullMode::Front => Some(wgpu::Face::Front),
            CullMode::Back => Some(wgpu::Face::Back),
            CullMode::None | CullMode::FrontAndBack => None,
        };
        let bounds = s.bounds();
        // The blend constant: ConstantAlpha is wgpu's Constant with (a, a, a, a).
        let uses = |f: &[BlendFactor]| fb.colors.iter().any(|c| c.blend.enable && [c.blend.src_color, c.blend.dst_color, c.blend.src_alpha, c.blend.dst_alpha].iter().any(|x| f.contains(x)));
        let mut constant = p.blend_constant;
        if uses(&[BlendFactor::ConstantAlpha, BlendFactor::OneMinusConstantAlpha]) {
            let a = constant[3];
            if uses(&[BlendFactor::ConstantColor, BlendFactor::OneMinusConstantColor]) && constant[..3].iter().any(|c| *c != a) {
                return Err(unsupported("blend factors CONSTANT_ALPHA and CONSTANT_COLOR together (wgpu has one constant factor)".into()));
            }
            // The colour factor CONSTANT_COLOR with r, g, b = a is CONSTANT_ALPHA.
            constant = [a; 4];
        }
        // The stages with their combined image samplers split (wgpu has
        // none), reflected and bound.
        let vsplit = bind::split(self, &job.stage(&job.vertex))?;
        let fsplit = bind::split(self, &job.stage(&job.fragment))?;
        let splits: Vec<&bind::SplitModule> = vsplit.iter().chain(&fsplit).collect();
        let opts = if splits.is_empty() { None } else { bind::split_options(job.resources, &splits) };
        let mut stages = [job.vertex, job.fragment];
        for (st, sp) in stages.iter_mut().zip([&vsplit, &fsplit]) {
            if let Some(sp) = sp {
                st.words = &sp.words;
                st.ir = &sp.ir;
            }
        }
        let [vertex, fragment] = stages;
        let split_job = DrawJob { vertex, fragment, resources: opts.as_ref().or(job.resources), ..*job };
        let job = &split_job;
        let refl_v = reflect::reflect(job.vertex.ir);
        let refl_f = reflect::reflect(job.fragment.ir);
        let find = |r: &'_ reflect::Reflection, st: &DrawStage, model: ExecutionModel| -> Result<reflect::EntryReflection, GpuError> {
            r.entry_points
                .iter()
                .find(|e| e.name == st.entry && e.execution_model == model)
                .cloned()
                .ok_or_else(|| unsupported(format!("no {model} entry point `{}`", st.entry)))
        };
        let ev = find(&refl_v, &job.vertex, ExecutionModel::Vertex)?;
        let ef = find(&refl_f, &job.fragment, ExecutionModel::Fragment)?;
        let flipped = match job.backend {
            Backend::Wgsl => None,
            _ => Some(flip_position_y(job.vertex.words, job.vertex.entry)),
        };
        let mut vjob = job.stage(&job.vertex);
        if let Some(w) = &flipped {
            vjob.words = w;
        }
        let fjob = job.stage(&job.fragment);
        let bound = self.bind(&[(&vjob, &ev, wgpu::ShaderStages::VERTEX), (&fjob, &ef, wgpu::ShaderStages::FRAGMENT)])?;
        let crate::Bound { layout, groups, buffers, push, textures, words } = bound;
        let mut stage_jobs = [vjob, fjob];
        for (j, w) in stage_jobs.iter_mut().zip(&words) {
            if let Some(w) = w {
                j.words = w;
            }
        }
        if job.backend == Backend::Passthrough {
            for j in &stage_jobs {
                self.check_capabilities(j)?;
            }
        }
        let vmodule = self.module(&stage_jobs[0], job.vertex.entry)?;
        let fmodule = self.module(&stage_jobs[1], job.fragment.entry)?;
        // Vertex buffers, repacked for the vertices read.
        let mut vb_layouts = Vec::new();
        let mut attrs = Vec::new();
        let mut vb_data = Vec::new();
        for vb in &p.vertex_buffers {
            let (format, widened) = vertex_format(vb.format).ok_or_else(|| unsupported(format!("vertex format {:?} at location {} (wgpu has none)", vb.format, vb.location)))?;
            if vb.format.width == 64 && vb.format.kind == AttrKind::Float && !self.features.contains(wgpu::Features::VERTEX_ATTRIBUTE_64BIT) {
                return Err(unsupported("64-bit vertex attributes (the adapter lacks wgpu's VERTEX_ATTRIBUTE_64BIT)".into()));
            }
            let stride = round_up(format.size(), 4);
            let count = verts.last.map_or(0, |l| l as u64 + 1);
            let size = count.saturating_mul(stride);
            if size > MAX_VERTEX_BYTES.min(self.limits.max_buffer_size) {
                return Err(unsupported(format!("a vertex buffer of {size} bytes for vertex {} (at most {} bytes)", count.saturating_sub(1), MAX_VERTEX_BYTES.min(self.limits.max_buffer_size))));
            }
            vb_data.push(repack(vb, count as u32, stride as usize, widened));
            attrs.push([wgpu::VertexAttribute { format, offset: 0, shader_location: vb.location }]);
            vb_layouts.push(stride);
        }
        if p.vertex_buffers.len() as u32 > self.limits.max_vertex_buffers {
            return Err(unsupported(format!("{} vertex buffers (the adapter has {})", p.vertex_buffers.len(), self.limits.max_vertex_buffers)));
        }
        let layouts: Vec<Option<wgpu::VertexBufferLayout>> = vb_layouts
            .iter()
            .zip(&attrs)
            .map(|(stride, a)| Some(wgpu::VertexBufferLayout { array_stride: *stride, step_mode: wgpu::VertexStepMode::Vertex, attributes: a }))
            .collect();
        // Colour targets at their locations.
        let mut targets: Vec<Option<wgpu::ColorTargetState>> = Vec::new();
        for c in &fb.colors {
            let format = color_format(c.attachment.format).ok_or_else(|| unsupported(format!("colour attachment format {:?}", c.attachment.format)))?;
            let b = &c.blend;
            // Blending does not apply to integer attachments (wgpu refuses it).
            let blend = (b.enable && !c.attachment.format.is_integer()).then(|| wgpu::BlendState {
                color: wgpu::BlendComponent { src_factor: factor(b.src_color), dst_factor: factor(b.dst_color), operation: blend_op(b.color_op) },
                alpha: wgpu::BlendComponent { src_factor: factor(b.src_alpha), dst_factor: factor(b.dst_alpha), operation: blend_op(b.alpha_op) },
            });
            let at = c.location as usize;
            if targets.len() <= at {
                targets.resize(at + 1, None);
            }
            targets[at] = Some(wgpu::ColorTargetState { format, blend, write_mask: wgpu::ColorWrites::from_bits_truncate(u32::from(b.write_mask & 0xf)) });
        }
        let depth_stencil = match &fb.depth {
            None => None,
            Some(d) => {
                let bias = match (d.bias, triangles) {
                    (Some(b), true) => {
                        if b.constant.fract() != 0.0 || b.constant.abs() > i32::MAX as f32 {
                            return Err(unsupported(format!("a depth bias constant of {} (wgpu takes integers)", b.constant)));
                        }
                        wgpu::DepthBiasState { constant: b.constant as i32, slope_scale: b.slope, clamp: b.clamp }
                    }
                    _ => wgpu::DepthBiasState::default(),
                };
                Some(wgpu::DepthStencilState {
                    format: depth_format(d.buffer.format),
                    depth_write_enabled: Some(d.state.test && d.state.write),
                    depth_compare: Some(if d.state.test { compare(d.state.op) } else { wgpu::CompareFunction::Always }),
                    stencil: Default::default(),
                    bias,
                })
            }
        };
        let unclipped_depth = fb.depth.as_ref().is_some_and(|d| d.clamp);
        if unclipped_depth && !self.features.contains(wgpu::Features::DEPTH_CLIP_CONTROL) {
            return Err(unsupported("depth clamping (the adapter lacks wgpu's DEPTH_CLIP_CONTROL)".into()));
        }
        let strip_index_format = match (&verts.indices, verts.topology) {
            (Some((_, f, _)), wgpu::PrimitiveTopology::LineStrip | wgpu::PrimitiveTopology::TriangleStrip) => Some(*f),
            _ => None,
        };
        let pipeline = self.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: None,
            layout: Some(&layout),
            vertex: wgpu::VertexState { module: &vmodule, entry_point: Some(job.vertex.entry), compilation_options: Default::default(), buffers: &layouts },
            primitive: wgpu::PrimitiveState {
                topology: verts.topology,
                strip_index_format,
                front_face: match s.front_face {
                    FrontFace::CounterClockwise => wgpu::FrontFace::Ccw,
                    FrontFace::Clockwise => wgpu::FrontFace::Cw,
                },
                cull_mode,
                unclipped_depth,
                polygon_mode,
                conservative: false,
            },
            depth_stencil,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState { module: &fmodule, entry_point: Some(job.fragment.entry), compilation_options: Default::default(), targets: &targets }),
            multiview_mask: None,
            cache: None,
        });
        self.take_errors(&stage_jobs[0])?;
        // The attachments, with their bytes.
        let size = wgpu::Extent3d { width, height, depth_or_array_layers: 1 };
        let usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_DST | wgpu::TextureUsages::COPY_SRC | wgpu::TextureUsages::TEXTURE_BINDING;
        let tex = |format| self.device.create_texture(&wgpu::TextureDescriptor { label: None, size, mip_level_count: 1, sample_count: 1, dimension: wgpu::TextureDimension::D2, format, usage, view_formats: &[] });
        let mut backs = Vec::new();
        let mut color_views = Vec::new();
        for (i, c) in fb.colors.iter().enumerate() {
            let Some(format) = color_format(c.attachment.format) else { continue };
            let t = tex(format);
            let row = width * c.attachment.format.texel_bytes() as u32;
            self.queue.write_texture(t.as_image_copy(), &c.attachment.data, wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(row), rows_per_image: Some(height) }, size);
            color_views.push((c.location, t.create_view(&Default::default())));
            backs.push(Back::Color(i, tex_back(t, size, row, c.attachment.data.len())));
        }
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        let depth_tex = match &fb.depth {
            None => None,
            Some(d) => {
                let format = depth_format(d.buffer.format);
                let t = tex(format);
                let bytes = d.buffer.to_bytes();
                match d.buffer.format {
                    DepthFormat::D16Unorm => {
                        self.queue.write_texture(t.as_image_copy(), &bytes, wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(width * 2), rows_per_image: Some(height) }, size);
                    }
                    _ => {
                        let z: Vec<f32> = d.buffer.values.iter().map(|v| d.buffer.format.decode(*v)).collect();
                        self.depth_in(&mut enc, &t, &z, size);
                    }
                }
                Some((t, d.buffer.format, bytes.len()))
            }
        };
        let depth_view = depth_tex.as_ref().map(|(t, _, _)| t.create_view(&Default::default()));
        let mut vbufs = Vec::new();
        for d in &vb_data {
            vbufs.push(upload(self, d, wgpu::BufferUsages::VERTEX));
        }
        let ibuf = verts.indices.as_ref().map(|(b, f, n)| (upload(self, b, wgpu::BufferUsages::INDEX), *f, *n));
        {
            let mut attachments: Vec<Option<wgpu::RenderPassColorAttachment>> = Vec::new();
            for (loc, v) in &color_views {
                let at = *loc as usize;
                if attachments.len() <= at {
                    attachments.resize(at + 1, None);
                }
                attachments[at] = Some(wgpu::RenderPassColorAttachment { view: v, depth_slice: None, resolve_target: None, ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store } });
            }
            let has_stencil = fb.depth.as_ref().is_some_and(|d| d.buffer.format == DepthFormat::D24UnormS8Uint);
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: None,
                color_attachments: &attachments,
                depth_stencil_attachment: depth_view.as_ref().map(|v| wgpu::RenderPassDepthStencilAttachment {
                    view: v,
                    depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store }),
                    stencil_ops: has_stencil.then_some(wgpu::Operations { load: wgpu::LoadOp::Clear(0), store: wgpu::StoreOp::Store }),
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&pipeline);
            for (i, g) in groups.iter().enumerate() {
                if let Some(g) = g {
                    pass.set_bind_group(i as u32, g, &[]);
                }
            }
            if let Some(p) = &push {
                pass.set_immediates(0, p);
            }
            pass.set_viewport(vp.x, vp.y, vp.width, vp.height, vp.min_depth, vp.max_depth);
            // wgpu's scissor must lie in the framebuffer: bounds() is the
            // framebuffer, the scissor and the viewport's pixels.
            let (x0, y0) = (bounds.x0.max(0) as u32, bounds.y0.max(0) as u32);
            let (x1, y1) = (bounds.x1.max(0) as u32, bounds.y1.max(0) as u32);
            if cull_all || bounds.is_empty() {
                pass.set_scissor_rect(0, 0, 0, 0);
            } else {
                pass.set_scissor_rect(x0, y0, x1.min(width) - x0, y1.min(height) - y0);
            }
            pass.set_blend_constant(wgpu::Color { r: constant[0] as f64, g: constant[1] as f64, b: constant[2] as f64, a: constant[3] as f64 });
            for (i, b) in vbufs.iter().enumerate() {
                pass.set_vertex_buffer(i as u32, b.slice(..));
            }
            let instances = cmd.first_instance..cmd.first_instance.saturating_add(cmd.instances);
            match &ibuf {
                Some((b, f, n)) => {
                    pass.set_index_buffer(b.slice(..), *f);
                    pass.draw_indexed(0..*n, 0, instances);
                }
                None => pass.draw(verts.range.clone(), instances),
            }
        }
        if let Some((t, format, len)) = &depth_tex {
            match format {
                DepthFormat::D24UnormS8Uint => backs.push(Back::Depth24(self.depth_out(&mut enc, t, size))),
                _ => {
                    let row = width * format.texel_bytes() as u32;
                    backs.push(Back::Depth(tex_back(t.clone(), size, row, *len)));
                }
            }
        }
        // Read back: the buffers, then each attachment.
        let mut staging = Vec::new();
        for (key, (buf, len)) in &buffers {
            let size = round_up((*len as u64).max(4), 4);
            let s = self.device.create_buffer(&wgpu::BufferDescriptor { label: None, size, usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST, mapped_at_creation: false });
            enc.copy_buffer_to_buffer(buf, 0, &s, 0, size);
            staging.push((*key, s, *len));
        }
        let mut tex_backs = Vec::new();
        for b in &backs {
            match b {
                Back::Color(_, t) | Back::Depth(t) => tex_backs.push(t.clone()),
                Back::Depth24(..) => {}
            }
        }
        let textures_all: Vec<bind::TexBack> = textures.into_iter().chain(tex_backs).collect();
        let tex_staging = bind::copy_textures(&self.device, &mut enc, &textures_all);
        let mut d24 = Vec::new();
        for b in &backs {
            if let Back::Depth24(buf) = b {
                let size = buf.size();
                let s = self.device.create_buffer(&wgpu::BufferDescriptor { label: None, size, usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST, mapped_at_creation: false });
                enc.copy_buffer_to_buffer(buf, 0, &s, 0, size);
                d24.push(s);
            }
        }
        self.queue.submit([enc.finish()]);
        let vjob = &stage_jobs[0];
        self.take_errors(vjob)?;
        let all: Vec<&wgpu::Buffer> = staging.iter().map(|(_, s, _)| s).chain(&tex_staging).chain(&d24).collect();
        let pending = Arc::new(Mutex::new(Pending { left: all.len(), error: None, waker: None }));
        for s in &all {
            let p = pending.clone();
            s.map_async(wgpu::MapMode::Read, .., move |r| {
                if let Ok(mut p) = p.lock() {
                    p.left -= 1;
                    if let Err(e) = r {
                        p.error = Some(e.to_string());
                    }
                    if p.left == 0
                        && let Some(w) = p.waker.take()
                    {
                        w.wake();
                    }
                }
            });
        }
        Mapped { pending: pending.clone(), gpu: self, wait, job: vjob }.await?;
        if let Some(e) = pending.lock().ok().and_then(|p| p.error.clone()) {
            return Err(self.fail(vjob, GpuErrorKind::DeviceLost, format!("reading back: {e}")));
        }
        let read = |s: &wgpu::Buffer| -> Result<Vec<u8>, GpuError> {
            s.get_mapped_range(..).map(|b| b.to_vec()).map_err(|e| self.fail(vjob, GpuErrorKind::Validation, format!("reading back: {e}")))
        };
        let mut out = Buffers::new();
        for (key, s, len) in &staging {
            let b = read(s)?;
            out.insert(*key, b[..*len].to_vec());
        }
        let mut unpadded: Vec<Vec<u8>> = Vec::new();
        for (t, s) in textures_all.iter().zip(&tex_staging) {
            unpadded.push(bind::unpad(t, &read(s)?));
        }
        let n_images = unpadded.len() - backs.iter().filter(|b| !matches!(b, Back::Depth24(..))).count();
        for (t, bytes) in textures_all.iter().zip(&unpadded).take(n_images) {
            out.insert(t.key, bytes.clone());
        }
        let mut next = n_images;
        let mut d24_next = 0;
        for b in &backs {
            match b {
                Back::Color(i, _) => {
                    fb.colors[*i].attachment.data = unpadded[next].clone();
                    next += 1;
                }
                Back::Depth(_) => {
                    if let Some(d) = &mut fb.depth {
                        let n = d.buffer.format.texel_bytes();
                        d.buffer.values = unpadded[next]
                            .chunks(n)
                            .map(|c| {
                                let mut w = [0u8; 4];
                                w[..c.len()].copy_from_slice(c);
                                u32::from_le_bytes(w)
                            })
                            .collect();
                    }
                    next += 1;
                }
                Back::Depth24(..) => {
                    let bytes = read(&d24[d24_next])?;
                    d24_next += 1;
                    if let Some(d) = &mut fb.depth {
                        d.buffer.values = bytes.chunks_exact(4).take(pixels).map(|c| DepthFormat::D24UnormS8Uint.encode(f32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect();
                    }
                }
            }
        }
        self.take_errors(vjob)?;
        Ok(out)
    }

    /// Write depths `z` (row by row) into depth texture `t` by a pass that
    /// writes `frag_depth` (a depth format that cannot be copied into).
    fn depth_in(&self, enc: &mut wgpu::CommandEncoder, t: &wgpu::Texture, z: &[f32], size: wgpu::Extent3d) {
        let src = self.device.create_texture(&wgpu::TextureDescriptor {
            label: None,
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let bytes: Vec<u8> = z.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.queue.write_texture(src.as_image_copy(), &bytes, wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(size.width * 4), rows_per_image: Some(size.height) }, size);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor { label: None, source: wgpu::ShaderSource::Wgsl(DEPTH_IN.into()) });
        let bgl = self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture { sample_type: wgpu::TextureSampleType::Float { filterable: false }, view_dimension: wgpu::TextureViewDimension::D2, multisampled: false },
                count: None,
            }],
        });
        let view = src.create_view(&Default::default());
        let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout: &bgl, entries: &[wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(&view) }] });
        let layout = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor { label: None, bind_group_layouts: &[Some(&bgl)], immediate_size: 0 });
        let format = t.format();
        let pipeline = self.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: None,
            layout: Some(&layout),
            vertex: wgpu::VertexState { module: &module, entry_point: Some("vs"), compilation_options: Default::default(), buffers: &[] },
            primitive: Default::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Always),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState { module: &module, entry_point: Some("fs"), compilation_options: Default::default(), targets: &[] }),
            multiview_mask: None,
            cache: None,
        });
        let tv = t.create_view(&Default::default());
        let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: None,
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &tv,
                depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(0.0), store: wgpu::StoreOp::Store }),
                stencil_ops: format.has_stencil_aspect().then_some(wgpu::Operations { load: wgpu::LoadOp::Clear(0), store: wgpu::StoreOp::Store }),
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.draw(0..3, 0..1);
    }

    /// The depth aspect of `t` as `f32`s, row by row, in a buffer (a depth
    /// format that cannot be copied out).
    fn depth_out(&self, enc: &mut wgpu::CommandEncoder, t: &wgpu::Texture, size: wgpu::Extent3d) -> wgpu::Buffer {
        let out = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: (size.width as u64 * size.height as u64 * 4).max(4),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor { label: None, source: wgpu::ShaderSource::Wgsl(DEPTH_OUT.into()) });
        let bgl = self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Texture { sample_type: wgpu::TextureSampleType::Depth, view_dimension: wgpu::TextureViewDimension::D2, multisampled: false },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Storage { read_only: false }, has_dynamic_offset: false, min_binding_size: None },
                    count: None,
                },
            ],
        });
        let view = t.create_view(&wgpu::TextureViewDescriptor { aspect: wgpu::TextureAspect::DepthOnly, ..Default::default() });
        let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &bgl,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(&view) }, wgpu::BindGroupEntry { binding: 1, resource: out.as_entire_binding() }],
        });
        let layout = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor { label: None, bind_group_layouts: &[Some(&bgl)], immediate_size: 0 });
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(&layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(size.width.div_ceil(8), size.height.div_ceil(8), 1);
        drop(pass);
        out
    }
}

fn tex_back(texture: wgpu::Texture, size: wgpu::Extent3d, row: u32, len: usize) -> bind::TexBack {
    bind::TexBack { key: (u32::MAX, u32::MAX), texture, size, row, padded_row: round_up(row as u64, wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64) as u32, len }
}

/// A buffer of `usage` holding `data` (padded to 4 bytes).
fn upload(gpu: &Gpu, data: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let size = round_up((data.len() as u64).max(4), 4);
    let buf = gpu.device.create_buffer(&wgpu::BufferDescriptor { label: None, size, usage: usage | wgpu::BufferUsages::COPY_DST, mapped_at_creation: false });
    let mut padded = data.to_vec();
    padded.resize(size as usize, 0);
    gpu.queue.write_buffer(&buf, 0, &padded);
    buf
}

/// Vertices `0..count` of `vb`'s attribute at `stride` bytes each (zeros
/// past its data), widened to 4 components with a fourth of one.
fn repack(vb: &VertexBuffer, count: u32, stride: usize, widened: bool) -> Vec<u8> {
    let mut out = vec![0u8; count as usize * stride];
    let fourth = one(vb.format);
    let n = vb.format.bytes();
    for v in 0..count {
        let at = v as usize * stride;
        let src = vb.vertex(v);
        out[at..at + src.len()].copy_from_slice(src);
        if widened {
            out[at + n..at + n + fourth.len()].copy_from_slice(&fourth);
        }
    }
    out
}
