//! AmberScript graphics: `PIPELINE graphics`, its attachments, vertex
//! input and fixed function, `CLEAR*` and `RUN ... DRAW_*`, read into data
//! and run as one [`DrawJob`] per draw through [`Executor::draw`].
//!
//! A draw is a `raster::Pipeline` (the viewport and rasterisation state,
//! the vertex buffers), a `raster::DrawCmd` and a `raster::Framebuffer`
//! made from the script's buffers: a colour attachment's bytes are its
//! texels in rows, tightly packed in its format (as Amber reads an image
//! back for EXPECT); a depth attachment's are Vulkan's buffer copy of the
//! depth aspect (D16 2 bytes a texel, D24 the low 24 bits of a 4-byte word,
//! D32 an `f32`), and for D24_UNORM_S8_UINT the stencil aspect's bytes over
//! the buffer's last `width * height` bytes, as Amber's Vulkan engine lays
//! them out (the stencil is not modelled: 0). Attachments are sized by
//! FRAMEBUFFER_SIZE (Amber's default 250 by 250). Draws accumulate in the
//! buffers, as they do in Amber between CLEARs.
//!
//! `DRAW_RECT` and `DRAW_GRID` draw positions (`R32G32_SFLOAT` at Location
//! 0, [`raster::draws`]) as Amber's Vulkan engine does; `DRAW_ARRAY` the
//! pipeline's `VERTEX_DATA` (and `INDEX_DATA` when INDEXED). Geometry and
//! tessellation (their shaders, patch lists, topologies with adjacency,
//! `PATCH_CONTROL_POINTS`) are "graphics: not run". `CULL_MODE`,
//! `FRONT_FACE` and `LINE_WIDTH` are read as well (VkScript's pipeline
//! state, which upstream AmberScript does not spell; the corpus uses none).

use super::{
    AmberError, Bound, Command, DataType, DrawJob, ExecError, Pipeline, Reader, Runner,
    Scalar, Script, ShaderStage, Stage, Words, error, graphics as not_run, located, parse_specialize,
};
use crate::raster::{
    self, BlendFactor, BlendOp, BlendState, ColorAttachment, ColorFormat, ColorTarget, CompareOp,
    CullMode, DepthBias, DepthBuffer, DepthFormat, DepthState, DepthTarget, DrawCmd, DrawIndices,
    FrontFace, PolygonMode, Topology, VertexBuffer, VertexFormat, Viewport,
};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Amber's passthrough vertex shader (`SHADER vertex NAME PASSTHROUGH`):
/// the `vec4` at Location 0 is the position.
pub const PASSTHROUGH: &str = crate::raster::draws::PASSTHROUGH_VERTEX;

/// Amber's framebuffer size when a pipeline gives none.
pub const DEFAULT_FRAMEBUFFER: (u32, u32) = (250, 250);
/// The largest FRAMEBUFFER_SIZE side read, and the most texels (a
/// `R32G32B32A32_SFLOAT` attachment of 4 Mi texels takes 64 MiB).
const MAX_SIDE: u32 = 1 << 14;
const MAX_TEXELS: u64 = 1 << 22;

/// A shader attached to a graphics pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attach {
    pub shader: String,
    pub stage: ShaderStage,
    pub entry: Option<String>,
    /// SPECIALIZE id AS T value: (id, bits).
    pub specialize: Vec<(u32, u64)>,
    pub line: u32,
}

/// `BIND BUFFER b AS color LOCATION n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColorBind {
    pub buffer: String,
    pub location: u32,
    pub format: ColorFormat,
    pub line: u32,
}

/// `VERTEX_DATA b LOCATION n [OFFSET o] [STRIDE s] [FORMAT f]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexData {
    pub buffer: String,
    pub location: u32,
    pub format: VertexFormat,
    pub offset: u32,
    pub stride: u32,
    pub line: u32,
}

/// What a `PIPELINE graphics` holds beside its descriptors.
#[derive(Clone, Debug, PartialEq)]
pub struct Graphics {
    pub attach: Vec<Attach>,
    pub framebuffer: (u32, u32),
    /// VIEWPORT; `None`: the whole framebuffer.
    pub viewport: Option<Viewport>,
    pub colors: Vec<ColorBind>,
    /// `BIND BUFFER b AS depth_stencil`: (buffer, format, line).
    pub depth: Option<(String, DepthFormat, u32)>,
    pub vertex_data: Vec<VertexData>,
    /// INDEX_DATA: (buffer, line).
    pub index_data: Option<(String, u32)>,
    pub depth_state: DepthState,
    pub depth_bias: Option<DepthBias>,
    pub depth_clamp: bool,
    /// BLEND, for every colour attachment.
    pub blend: BlendState,
    pub cull: CullMode,
    pub front_face: FrontFace,
    pub polygon_mode: PolygonMode,
    pub line_width: f32,
    /// The line of each fixed-function command read, for a reader that
    /// cannot hold that setting and names where it is set.
    pub lines: StateLines,
}

/// The script line of each fixed-function command of a graphics pipeline
/// (`None`: not given; the last one when given twice).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StateLines {
    pub framebuffer: Option<u32>,
    pub viewport: Option<u32>,
    /// The `DEPTH` block.
    pub depth: Option<u32>,
    /// The `BLEND` block.
    pub blend: Option<u32>,
    pub cull: Option<u32>,
    pub front_face: Option<u32>,
    pub polygon_mode: Option<u32>,
    pub line_width: Option<u32>,
}

impl Default for Graphics {
    /// Amber's defaults: 250 by 250, depth test and write off (compare op
    /// ALWAYS), no bias, blending off, no culling, counter-clockwise front
    /// faces, filled polygons, lines 1 wide.
    fn default() -> Graphics {
        Graphics {
            attach: Vec::new(),
            framebuffer: DEFAULT_FRAMEBUFFER,
            viewport: None,
            colors: Vec::new(),
            depth: None,
            vertex_data: Vec::new(),
            index_data: None,
            depth_state: DepthState { test: false, write: false, op: CompareOp::Always },
            depth_bias: None,
            depth_clamp: false,
            blend: BlendState::default(),
            cull: CullMode::None,
            front_face: FrontFace::CounterClockwise,
            polygon_mode: PolygonMode::Fill,
            line_width: 1.0,
            lines: StateLines::default(),
        }
    }
}

/// A graphics `RUN`'s draw.
#[derive(Clone, Debug, PartialEq)]
pub enum Draw {
    /// `DRAW_RECT POS x y SIZE w h` (framebuffer pixels).
    Rect { rect: raster::draws::Rect },
    /// `DRAW_GRID POS x y SIZE w h CELLS columns rows`.
    Grid { rect: raster::draws::Rect, columns: u32, rows: u32 },
    /// `DRAW_ARRAY AS topology [INDEXED] [START_IDX s] [COUNT c]
    /// [START_INSTANCE i] [INSTANCE_COUNT n]`; no COUNT: the vertices (or
    /// indices) from `start` to the end.
    Array {
        topology: Topology,
        indexed: bool,
        start: u32,
        count: Option<u32>,
        first_instance: u32,
        instances: u32,
    },
}

/// The element type of a depth format's buffer (D16: `uint16`, D24S8 a
/// 4-byte word, D32: `float`).
pub(super) fn depth_type(name: &str) -> Option<DataType> {
    let scalar = match DepthFormat::from_name(name)? {
        DepthFormat::D16Unorm => Scalar::Int { width: 16, signed: false },
        DepthFormat::D24UnormS8Uint => Scalar::Int { width: 32, signed: false },
        DepthFormat::D32Sfloat => Scalar::Float { width: 32 },
    };
    Some(DataType { scalar, rows: 1, cols: 1 })
}

fn buffer<'s>(script: &'s Script, w: &Words, name: &str) -> Result<&'s super::Buffer, AmberError> {
    script
        .buffers
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| w.err(format!("no buffer named `{name}`")))
}

fn graphics_pipeline<'s>(script: &'s Script, w: &Words, name: &str, what: &str) -> Result<&'s Graphics, AmberError> {
    let p = script
        .pipelines
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| w.err(format!("no pipeline named `{name}`")))?;
    p.graphics
        .as_deref()
        .ok_or_else(|| w.err(format!("{what} needs a graphics pipeline; `{name}` is a compute pipeline")))
}

/// `ATTACH name [TYPE stage] [ENTRY_POINT e] [SPECIALIZE id AS T v]...` in a
/// graphics pipeline, after ATTACH.
pub(super) fn parse_attach(w: &mut Words, script: &Script, line: u32) -> Result<Attach, AmberError> {
    let name = w.word("the shader")?;
    let shader = script
        .shaders
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| w.err(format!("no shader named `{name}`")))?;
    let mut a = Attach { shader: name.into(), stage: shader.stage, entry: None, specialize: Vec::new(), line };
    while let Some(x) = w.next() {
        match x {
            "TYPE" => {
                a.stage = match w.word("TYPE")? {
                    "vertex" => ShaderStage::Vertex,
                    "fragment" => ShaderStage::Fragment,
                    "compute" => ShaderStage::Compute,
                    t => return Err(not_run(line, &format!("ATTACH ... TYPE {t}"))),
                }
            }
            "ENTRY_POINT" => a.entry = Some(w.word("ENTRY_POINT")?.into()),
            "SPECIALIZE" => a.specialize.push(parse_specialize(w)?),
            x => return Err(w.err(format!("not supported: ATTACH ... {x}"))),
        }
    }
    if a.stage == ShaderStage::Compute {
        return Err(error(line, format!("`{name}` is a compute shader, attached to a graphics pipeline")));
    }
    Ok(a)
}

/// `BIND BUFFER b AS color LOCATION n [BASE_MIP_LEVEL 0]` or `AS
/// depth_stencil`, after the kind.
pub(super) fn bind_attachment(
    g: &mut Graphics,
    w: &mut Words,
    script: &Script,
    name: &str,
    kind: &str,
    line: u32,
) -> Result<(), AmberError> {
    let b = buffer(script, w, name)?;
    let fname = super::image::format_name(b).unwrap_or_default();
    let fname = fname.as_str();
    if kind == "depth_stencil" {
        w.end()?;
        let f = DepthFormat::from_name(fname)
            .ok_or_else(|| w.err(format!("not supported: a depth attachment of format `{fname}` (D16_UNORM, D24_UNORM_S8_UINT, D32_SFLOAT)")))?;
        if g.depth.is_some() {
            return Err(w.err("a second depth_stencil attachment"));
        }
        g.depth = Some((name.into(), f, line));
        return Ok(());
    }
    w.expect("LOCATION")?;
    let location: u32 = w.num("LOCATION")?;
    if location >= 8 {
        return Err(w.err(format!("LOCATION {location}: at most 8 colour attachments (0 to 7)")));
    }
    while let Some(x) = w.next() {
        match x {
            "BASE_MIP_LEVEL" => {
                let m: u32 = w.num("BASE_MIP_LEVEL")?;
                if m != 0 {
                    return Err(w.err("not supported: BASE_MIP_LEVEL other than 0"));
                }
            }
            x => return Err(w.err(format!("not supported: BIND ... AS color ... {x}"))),
        }
    }
    let format = ColorFormat::from_name(fname).ok_or_else(|| {
        w.err(format!(
            "not supported: a colour attachment of format `{fname}` (B8G8R8A8_UNORM, R8G8B8A8_UNORM, R32G32B32A32_SFLOAT, R32_SFLOAT)"
        ))
    })?;
    if g.colors.iter().any(|c| c.location == location) {
        return Err(w.err(format!("a second colour attachment at LOCATION {location}")));
    }
    g.colors.push(ColorBind { buffer: name.into(), location, format, line });
    Ok(())
}

fn on_off(w: &mut Words, what: &str) -> Result<bool, AmberError> {
    match w.word(what)? {
        "on" => Ok(true),
        "off" => Ok(false),
        x => Err(w.err(format!("{what}: expected `on` or `off`, found `{x}`"))),
    }
}

/// The vertex format of a buffer: its FORMAT, or its DATA_TYPE's (a scalar
/// or vector of one width).
fn vertex_format(b: &super::Buffer) -> Option<VertexFormat> {
    if let Some(f) = b.format.as_deref() {
        return VertexFormat::from_name(f);
    }
    if b.ty.cols != 1 {
        return None;
    }
    let (kind, width) = match b.ty.scalar {
        Scalar::Float { width } => (raster::AttrKind::Float, width),
        Scalar::Int { width, signed: true } => (raster::AttrKind::Sint, width),
        Scalar::Int { width, signed: false } => (raster::AttrKind::Uint, width),
    };
    if kind == raster::AttrKind::Float && width < 32 {
        return None;
    }
    Some(VertexFormat { kind, width: width as u8, components: b.ty.rows as u8 })
}

/// A graphics pipeline's own commands (`cmd` read already).
pub(super) fn pipeline_command(
    g: &mut Graphics,
    w: &mut Words,
    r: &mut Reader,
    script: &Script,
    cmd: &str,
    line: u32,
) -> Result<(), AmberError> {
    let l = &mut g.lines;
    match cmd {
        "FRAMEBUFFER_SIZE" => l.framebuffer = Some(line),
        "VIEWPORT" => l.viewport = Some(line),
        "DEPTH" => l.depth = Some(line),
        "BLEND" => l.blend = Some(line),
        "CULL_MODE" => l.cull = Some(line),
        "FRONT_FACE" => l.front_face = Some(line),
        "POLYGON_MODE" => l.polygon_mode = Some(line),
        "LINE_WIDTH" => l.line_width = Some(line),
        _ => {}
    }
    match cmd {
        "FRAMEBUFFER_SIZE" => {
            let (fw, fh): (u32, u32) = (w.num("the width")?, w.num("the height")?);
            if fw == 0 || fh == 0 || fw > MAX_SIDE || fh > MAX_SIDE || fw as u64 * fh as u64 > MAX_TEXELS {
                return Err(w.err(format!(
                    "FRAMEBUFFER_SIZE {fw} {fh}: each side 1 to {MAX_SIDE}, at most {MAX_TEXELS} texels"
                )));
            }
            g.framebuffer = (fw, fh);
        }
        "VIEWPORT" => {
            let (x, y): (f32, f32) = (w.num("VIEWPORT x")?, w.num("VIEWPORT y")?);
            w.expect("SIZE")?;
            let (width, height): (f32, f32) = (w.num("VIEWPORT width")?, w.num("VIEWPORT height")?);
            let mut v = Viewport { x, y, width, height, min_depth: 0.0, max_depth: 1.0 };
            while let Some(k) = w.next() {
                match k {
                    "MIN_DEPTH" => v.min_depth = w.num("MIN_DEPTH")?,
                    "MAX_DEPTH" => v.max_depth = w.num("MAX_DEPTH")?,
                    k => return Err(w.err(format!("not supported: VIEWPORT ... {k}"))),
                }
            }
            if ![x, y, width, height, v.min_depth, v.max_depth].iter().all(|f| f.is_finite()) {
                return Err(w.err("VIEWPORT needs finite numbers"));
            }
            g.viewport = Some(v);
        }
        "VERTEX_DATA" => {
            let name = w.word("the buffer")?;
            let b = buffer(script, w, name)?;
            w.expect("LOCATION")?;
            let location: u32 = w.num("LOCATION")?;
            let mut format = vertex_format(b);
            let (mut offset, mut stride) = (0u32, None);
            while let Some(k) = w.next() {
                match k {
                    "RATE" => match w.word("RATE")? {
                        "vertex" => {}
                        "instance" => return Err(w.err("not supported: VERTEX_DATA ... RATE instance")),
                        x => return Err(w.err(format!("RATE: expected `vertex` or `instance`, found `{x}`"))),
                    },
                    "OFFSET" => offset = w.num("OFFSET")?,
                    "STRIDE" => {
                        let s: u32 = w.num("STRIDE")?;
                        if s == 0 {
                            return Err(w.err("STRIDE must be more than 0"));
                        }
                        stride = Some(s);
                    }
                    "FORMAT" => {
                        let f = w.word("FORMAT")?;
                        format = Some(VertexFormat::from_name(f).ok_or_else(|| w.err(format!("not supported: vertex FORMAT `{f}`")))?);
                    }
                    k => return Err(w.err(format!("not supported: VERTEX_DATA ... {k}"))),
                }
            }
            let format = format.ok_or_else(|| error(line, format!("`{name}` has no vertex format (a FORMAT, or a DATA_TYPE of one scalar or vector)")))?;
            if g.vertex_data.iter().any(|v| v.location == location) {
                return Err(error(line, format!("a second VERTEX_DATA at LOCATION {location}")));
            }
            // Amber's default stride is the element's size in the buffer.
            let stride = stride.unwrap_or(b.ty.stride(b.layout) as u32);
            g.vertex_data.push(VertexData { buffer: name.into(), location, format, offset, stride, line });
        }
        "INDEX_DATA" => {
            let name = w.word("the buffer")?;
            let b = buffer(script, w, name)?;
            w.end()?;
            if !matches!(b.ty.scalar, Scalar::Int { width: 8 | 16 | 32, .. }) || b.ty.comps() != 1 {
                return Err(error(line, format!("INDEX_DATA `{name}` must hold integers of 8, 16 or 32 bits")));
            }
            g.index_data = Some((name.into(), line));
        }
        "DEPTH" => {
            w.end()?;
            parse_depth(g, r, line)?;
        }
        "BLEND" => {
            w.end()?;
            parse_blend(g, r, line)?;
        }
        "CULL_MODE" => {
            g.cull = match w.word("CULL_MODE")? {
                "none" => CullMode::None,
                "front" => CullMode::Front,
                "back" => CullMode::Back,
                "front_and_back" => CullMode::FrontAndBack,
                x => return Err(w.err(format!("unknown CULL_MODE `{x}`"))),
            };
            w.end()?;
        }
        "FRONT_FACE" => {
            g.front_face = match w.word("FRONT_FACE")? {
                "counter_clockwise" => FrontFace::CounterClockwise,
                "clockwise" => FrontFace::Clockwise,
                x => return Err(w.err(format!("unknown FRONT_FACE `{x}`"))),
            };
            w.end()?;
        }
        "POLYGON_MODE" => {
            g.polygon_mode = match w.word("POLYGON_MODE")? {
                "fill" => PolygonMode::Fill,
                "line" => PolygonMode::Line,
                "point" => PolygonMode::Point,
                x => return Err(w.err(format!("unknown POLYGON_MODE `{x}`"))),
            };
            w.end()?;
        }
        "LINE_WIDTH" => {
            let lw: f32 = w.num("LINE_WIDTH")?;
            if !(lw.is_finite() && lw > 0.0) {
                return Err(w.err("LINE_WIDTH must be more than 0"));
            }
            g.line_width = lw;
            w.end()?;
        }
        "PATCH_CONTROL_POINTS" => return Err(not_run(line, "PATCH_CONTROL_POINTS (tessellation)")),
        "STENCIL" => return Err(w.err("not supported: STENCIL (the stencil test)")),
        x => return Err(w.err(format!("not supported: {x} in a PIPELINE"))),
    }
    Ok(())
}

/// `DEPTH` ... `END`: TEST, WRITE, CLAMP on|off, COMPARE_OP op, BOUNDS min
/// a max b (read; the depth bounds test is not enabled by it, as in Amber),
/// BIAS constant c clamp l slope s.
fn parse_depth(g: &mut Graphics, r: &mut Reader, line: u32) -> Result<(), AmberError> {
    loop {
        let Some((l, toks)) = r.line() else {
            return Err(error(line, "DEPTH without END"));
        };
        let mut w = Words::new(&toks, l);
        match w.word("a DEPTH command")? {
            "END" => return w.end(),
            "TEST" => g.depth_state.test = on_off(&mut w, "TEST")?,
            "WRITE" => g.depth_state.write = on_off(&mut w, "WRITE")?,
            "CLAMP" => g.depth_clamp = on_off(&mut w, "CLAMP")?,
            "COMPARE_OP" => {
                let op = w.word("COMPARE_OP")?;
                g.depth_state.op = CompareOp::from_name(&op.to_ascii_uppercase())
                    .ok_or_else(|| w.err(format!("unknown COMPARE_OP `{op}`")))?;
            }
            "BOUNDS" => {
                w.expect("min")?;
                let _: f32 = w.num("BOUNDS min")?;
                w.expect("max")?;
                let _: f32 = w.num("BOUNDS max")?;
            }
            "BIAS" => {
                w.expect("constant")?;
                let constant = w.num("BIAS constant")?;
                w.expect("clamp")?;
                let clamp = w.num("BIAS clamp")?;
                w.expect("slope")?;
                let slope = w.num("BIAS slope")?;
                g.depth_bias = Some(DepthBias { constant, clamp, slope });
            }
            x => return Err(w.err(format!("not supported: DEPTH ... {x}"))),
        }
        w.end()?;
    }
}

/// `BLEND` ... `END`: SRC_COLOR_FACTOR, DST_COLOR_FACTOR, SRC_ALPHA_FACTOR,
/// DST_ALPHA_FACTOR f, COLOR_OP, ALPHA_OP op; the block turns blending on.
fn parse_blend(g: &mut Graphics, r: &mut Reader, line: u32) -> Result<(), AmberError> {
    g.blend.enable = true;
    loop {
        let Some((l, toks)) = r.line() else {
            return Err(error(line, "BLEND without END"));
        };
        let mut w = Words::new(&toks, l);
        let k = w.word("a BLEND command")?;
        if k == "END" {
            return w.end();
        }
        let v = w.word(k)?;
        // Amber writes them in lower case (`one_minus_src_alpha`), and
        // its subtractions `substract` and `reverse_substract`.
        let name = v.to_ascii_uppercase().replace("SUBSTRACT", "SUBTRACT");
        let factor = || BlendFactor::from_name(&name);
        let op = || BlendOp::from_name(&name);
        let b = &mut g.blend;
        let ok = match k {
            "SRC_COLOR_FACTOR" => factor().map(|f| b.src_color = f),
            "DST_COLOR_FACTOR" => factor().map(|f| b.dst_color = f),
            "SRC_ALPHA_FACTOR" => factor().map(|f| b.src_alpha = f),
            "DST_ALPHA_FACTOR" => factor().map(|f| b.dst_alpha = f),
            "COLOR_OP" => op().map(|o| b.color_op = o),
            "ALPHA_OP" => op().map(|o| b.alpha_op = o),
            k => return Err(w.err(format!("not supported: BLEND ... {k}"))),
        };
        if ok.is_none() {
            return Err(w.err(format!("not supported: {k} {v}")));
        }
        w.end()?;
    }
}

/// At a graphics pipeline's END: a vertex and a fragment shader and a
/// colour attachment.
pub(super) fn validate(p: &Pipeline, line: u32) -> Result<(), AmberError> {
    let Some(g) = p.graphics.as_deref() else { return Ok(()) };
    for (stage, what) in [(ShaderStage::Vertex, "vertex"), (ShaderStage::Fragment, "fragment")] {
        if !g.attach.iter().any(|a| a.stage == stage) {
            return Err(error(line, format!("the graphics pipeline `{}` has no {what} shader", p.name)));
        }
    }
    if g.colors.is_empty() {
        return Err(error(
            line,
            format!("the graphics pipeline `{}` has no framebuffer (BIND BUFFER b AS color LOCATION 0)", p.name),
        ));
    }
    Ok(())
}

/// The attachments of `p` sized to its framebuffer (as Amber sizes a
/// pipeline's attachment buffers), their bytes kept where they fit.
pub(super) fn size_attachments(script: &mut Script, p: &Pipeline) {
    let Some(g) = p.graphics.as_deref() else { return };
    let (w, h) = g.framebuffer;
    let texels = w as usize * h as usize;
    let mut sized: Vec<(&str, usize)> = g.colors.iter().map(|c| (c.buffer.as_str(), c.format.texel_bytes())).collect();
    if let Some((d, f, _)) = &g.depth {
        sized.push((d.as_str(), f.texel_bytes()));
    }
    for (name, tb) in sized {
        if let Some(b) = script.buffers.iter_mut().find(|b| b.name == name) {
            b.data.resize(texels * tb, 0);
            b.image = Some(([w, h, 1], 1));
        }
    }
}

fn rect(w: &mut Words) -> Result<raster::draws::Rect, AmberError> {
    w.expect("POS")?;
    let (x, y): (f32, f32) = (w.num("POS x")?, w.num("POS y")?);
    w.expect("SIZE")?;
    let (width, height): (f32, f32) = (w.num("SIZE width")?, w.num("SIZE height")?);
    if ![x, y, width, height].iter().all(|f| f.is_finite()) {
        return Err(w.err("POS and SIZE need finite numbers"));
    }
    Ok(raster::draws::Rect { x, y, width, height })
}

/// `RUN p DRAW_RECT | DRAW_GRID | DRAW_ARRAY ...` after the pipeline's name.
pub(super) fn parse_draw(w: &mut Words, script: &Script, pipeline: &str) -> Result<Draw, AmberError> {
    let kind = w.word("DRAW_RECT, DRAW_GRID or DRAW_ARRAY")?;
    let g = graphics_pipeline(script, w, pipeline, &format!("RUN ... {kind}"))?;
    let draw = match kind {
        "DRAW_RECT" => Draw::Rect { rect: rect(w)? },
        "DRAW_GRID" => {
            let r = rect(w)?;
            w.expect("CELLS")?;
            let (columns, rows): (u32, u32) = (w.num("CELLS columns")?, w.num("CELLS rows")?);
            if columns == 0 || rows == 0 || columns as u64 * rows as u64 > 1 << 16 {
                return Err(w.err("CELLS: 1 or more each, at most 65536 cells"));
            }
            Draw::Grid { rect: r, columns, rows }
        }
        "DRAW_ARRAY" => {
            w.expect("AS")?;
            let t = w.word("the topology")?;
            let topology = match Topology::from_name(t) {
                Some(t) => t,
                None if t == "PATCH_LIST" || t.ends_with("_WITH_ADJACENCY") => {
                    return Err(not_run(w.line, &format!("DRAW_ARRAY AS {t}")));
                }
                None => return Err(w.err(format!("unknown topology `{t}`"))),
            };
            if g.vertex_data.is_empty() {
                return Err(w.err("RUN ... DRAW_ARRAY needs VERTEX_DATA in the pipeline"));
            }
            let (mut indexed, mut start, mut count, mut first_instance, mut instances) = (false, 0, None, 0, 1);
            while let Some(k) = w.next() {
                match k {
                    "INDEXED" => {
                        if g.index_data.is_none() {
                            return Err(w.err("RUN ... INDEXED needs INDEX_DATA in the pipeline"));
                        }
                        indexed = true;
                    }
                    "START_IDX" => start = w.num("START_IDX")?,
                    "COUNT" => {
                        let c: u32 = w.num("COUNT")?;
                        if c == 0 {
                            return Err(w.err("COUNT must be more than 0"));
                        }
                        count = Some(c);
                    }
                    "START_INSTANCE" => first_instance = w.num("START_INSTANCE")?,
                    "INSTANCE_COUNT" => {
                        instances = w.num("INSTANCE_COUNT")?;
                        if instances == 0 {
                            return Err(w.err("INSTANCE_COUNT must be more than 0"));
                        }
                    }
                    k => return Err(w.err(format!("not supported: RUN ... DRAW_ARRAY ... {k}"))),
                }
            }
            Draw::Array { topology, indexed, start, count, first_instance, instances }
        }
        x => return Err(w.err(format!("RUN `{pipeline}` is a graphics pipeline: expected DRAW_RECT, DRAW_GRID or DRAW_ARRAY, found `{x}`"))),
    };
    w.end()?;
    Ok(draw)
}

/// `CLEAR_COLOR p r g b a`, `CLEAR_DEPTH p d`, `CLEAR_STENCIL p s` (read;
/// the stencil is not modelled) and `CLEAR p`, after the command.
pub(super) fn parse_clear(w: &mut Words, script: &Script, cmd: &str, line: u32) -> Result<Option<Command>, AmberError> {
    let name = w.word("the pipeline")?;
    graphics_pipeline(script, w, name, cmd)?;
    let pipeline = String::from(name);
    let c = match cmd {
        "CLEAR_COLOR" => {
            let mut rgba = [0.0f32; 4];
            for (k, c) in rgba.iter_mut().enumerate() {
                let v: u32 = w.num(["r", "g", "b", "a"][k])?;
                if v > 255 {
                    return Err(w.err(format!("{v} is not in 0..=255")));
                }
                *c = v as f32 / 255.0;
            }
            Some(Command::ClearColor { pipeline, rgba, line })
        }
        "CLEAR_DEPTH" => {
            let depth: f32 = w.num("the depth")?;
            Some(Command::ClearDepth { pipeline, depth, line })
        }
        "CLEAR_STENCIL" => {
            let s: u32 = w.num("the stencil value")?;
            if s > 255 {
                return Err(w.err(format!("{s} is not in 0..=255")));
            }
            None
        }
        _ => Some(Command::Clear { pipeline, line }),
    };
    w.end()?;
    Ok(c)
}

/// The values of an index buffer, widened to u32.
fn index_values(ty: DataType, layout: super::Layout, data: &[u8]) -> Vec<u32> {
    let stride = ty.stride(layout).max(1);
    let size = ty.scalar.size();
    (0..data.len() / stride)
        .map(|e| {
            let at = ty.at(layout, e);
            data.get(at..at + size)
                .unwrap_or(&[])
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, x)| acc | (*x as u32) << (8 * i))
        })
        .collect()
}

/// The depth attachment as Amber's buffer holds it.
fn depth_bytes(d: &DepthBuffer) -> Vec<u8> {
    let mut out = d.to_bytes();
    if d.format == DepthFormat::D24UnormS8Uint {
        // The stencil aspect is copied after the depth, at the buffer's
        // last width * height bytes.
        let n = d.width as usize * d.height as usize;
        let len = out.len();
        out[len.saturating_sub(n)..].fill(0);
    }
    out
}

/// A depth attachment from a buffer's bytes (missing bytes read as 0).
fn depth_from_bytes(f: DepthFormat, w: u32, h: u32, bytes: &[u8]) -> DepthBuffer {
    let tb = f.texel_bytes();
    let mask = match f {
        DepthFormat::D16Unorm => 0xffff,
        DepthFormat::D24UnormS8Uint => 0xff_ffff,
        DepthFormat::D32Sfloat => u32::MAX,
    };
    let n = w as usize * h as usize;
    let values = (0..n)
        .map(|i| {
            let mut word = [0u8; 4];
            if let Some(src) = bytes.get(i * tb..i * tb + tb) {
                word[..tb].copy_from_slice(src);
            }
            u32::from_le_bytes(word) & mask
        })
        .collect();
    DepthBuffer { format: f, width: w, height: h, values }
}

/// A vertex buffer of positions at Location 0 (`R32G32_SFLOAT`).
fn positions(v: &[[f32; 2]]) -> VertexBuffer {
    let data = v.iter().flat_map(|p| p.iter().flat_map(|c| c.to_le_bytes())).collect();
    VertexBuffer {
        location: 0,
        format: VertexFormat { kind: raster::AttrKind::Float, width: 32, components: 2 },
        stride: 8,
        offset: 0,
        data,
    }
}

impl<'a> Runner<'a> {
    fn graphics_of(&self, name: &str, line: u32) -> Result<(&'a Pipeline, &'a Graphics), AmberError> {
        let script: &'a Script = self.script;
        let p = script
            .pipelines
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| error(line, format!("no pipeline named `{name}`")))?;
        let g = p.graphics.as_deref().ok_or_else(|| error(line, format!("`{name}` is not a graphics pipeline")))?;
        Ok((p, g))
    }

    fn clear_of(&self, name: &str) -> ([f32; 4], f32) {
        self.clear.get(name).copied().unwrap_or(([0.0; 4], 1.0))
    }

    pub(super) fn note_clear(&mut self, name: &str, line: u32, rgba: Option<[f32; 4]>, depth: Option<f32>) -> Result<(), AmberError> {
        self.graphics_of(name, line)?;
        let e = self.clear.entry(name.into()).or_insert(([0.0; 4], 1.0));
        if let Some(c) = rgba {
            e.0 = c;
        }
        if let Some(d) = depth {
            e.1 = d;
        }
        Ok(())
    }

    /// `CLEAR p`.
    pub(super) fn clear_attachments(&mut self, name: &str, line: u32) -> Result<(), AmberError> {
        let (_, g) = self.graphics_of(name, line)?;
        let (rgba, depth) = self.clear_of(name);
        let (w, h) = g.framebuffer;
        for c in &g.colors {
            let k = self.find(&c.buffer, c.line)?;
            let a = ColorAttachment::new(c.format, w, h, rgba).ok_or_else(|| error(line, "the framebuffer is too large"))?;
            self.bufs[k] = a.data;
        }
        if let Some((d, f, l)) = &g.depth {
            let k = self.find(d, *l)?;
            let b = DepthBuffer::new(*f, w, h, depth).ok_or_else(|| error(line, "the framebuffer is too large"))?;
            self.bufs[k] = depth_bytes(&b);
        }
        Ok(())
    }

    /// The framebuffer of a graphics pipeline from its buffers' bytes now.
    fn framebuffer(&self, g: &Graphics) -> Result<raster::Framebuffer, AmberError> {
        let (w, h) = g.framebuffer;
        let texels = w as usize * h as usize;
        let mut fb = raster::Framebuffer::default();
        for c in &g.colors {
            let k = self.find(&c.buffer, c.line)?;
            let mut data = self.bufs[k].clone();
            data.resize(texels * c.format.texel_bytes(), 0);
            fb.colors.push(ColorTarget {
                location: c.location,
                attachment: ColorAttachment { format: c.format, width: w, height: h, data },
                blend: g.blend,
            });
        }
        if let Some((d, f, l)) = &g.depth {
            let k = self.find(d, *l)?;
            fb.depth = Some(DepthTarget {
                buffer: depth_from_bytes(*f, w, h, &self.bufs[k]),
                state: g.depth_state,
                bias: g.depth_bias,
                clamp: g.depth_clamp,
            });
        }
        Ok(fb)
    }

    /// The raster pipeline and draw command of one draw.
    fn draw_data(&self, g: &Graphics, draw: &Draw, line: u32) -> Result<(raster::Pipeline, DrawCmd), AmberError> {
        let (w, h) = g.framebuffer;
        let mut rp = raster::Pipeline::for_framebuffer(w, h);
        if let Some(v) = g.viewport {
            rp.state.viewport = v;
        }
        rp.state.cull = g.cull;
        rp.state.front_face = g.front_face;
        rp.state.polygon_mode = g.polygon_mode;
        rp.state.line_width = g.line_width;
        let once = |topology, count| DrawCmd {
            topology,
            indices: DrawIndices::Sequential { first: 0, count },
            first_instance: 0,
            instances: 1,
        };
        let cmd = match draw {
            Draw::Rect { rect } => {
                let (topology, v) = raster::draws::draw_rect(*rect, (w, h));
                rp.vertex_buffers.push(positions(&v));
                once(topology, v.len() as u32)
            }
            Draw::Grid { rect, columns, rows } => {
                let (topology, v) = raster::draws::draw_grid(*rect, *columns, *rows, (w, h));
                rp.vertex_buffers.push(positions(&v));
                once(topology, v.len() as u32)
            }
            Draw::Array { topology, indexed, start, count, first_instance, instances } => {
                for v in &g.vertex_data {
                    let k = self.find(&v.buffer, v.line)?;
                    rp.vertex_buffers.push(VertexBuffer {
                        location: v.location,
                        format: v.format,
                        stride: v.stride,
                        offset: v.offset,
                        data: self.bufs[k].clone(),
                    });
                }
                let indices = match (&g.index_data, indexed) {
                    (Some((name, l)), true) => {
                        let k = self.find(name, *l)?;
                        let (ty, layout) = self.types[k];
                        Some(index_values(ty, layout, &self.bufs[k]))
                    }
                    _ => None,
                };
                // Amber's vertex count: the first vertex buffer's elements,
                // or the index buffer's.
                let total = match &indices {
                    Some(i) => i.len() as u64,
                    None => {
                        let v = g.vertex_data.first().ok_or_else(|| error(line, "DRAW_ARRAY needs VERTEX_DATA in the pipeline"))?;
                        let k = self.find(&v.buffer, v.line)?;
                        let (ty, layout) = self.types[k];
                        (self.bufs[k].len() / ty.stride(layout).max(1)) as u64
                    }
                };
                let start64 = *start as u64;
                let n = match count {
                    Some(c) => *c as u64,
                    None => total.saturating_sub(start64),
                };
                if start64 + n > total {
                    return Err(error(
                        line,
                        format!("START_IDX {start} and COUNT {n} are past the {total} {}", if indices.is_some() { "indices" } else { "vertices" }),
                    ));
                }
                let indices = match indices {
                    Some(i) => DrawIndices::Indexed { indices: i[start64 as usize..(start64 + n) as usize].to_vec(), restart: None },
                    None => DrawIndices::Sequential { first: *start, count: n as u32 },
                };
                DrawCmd { topology: *topology, indices, first_instance: *first_instance, instances: *instances }
            }
        };
        Ok((rp, cmd))
    }

    /// `RUN p DRAW_...`: one draw through the executor, the attachments and
    /// the written descriptors back into their buffers.
    pub(super) fn draw(&mut self, name: &str, draw: &Draw, line: u32) -> Result<(), AmberError> {
        let (p, g) = self.graphics_of(name, line)?;
        let stage = |s: ShaderStage| {
            g.attach.iter().find(|a| a.stage == s).ok_or_else(|| error(p.line, format!("`{name}` has no {s:?} shader")))
        };
        let (vs, fs) = (stage(ShaderStage::Vertex)?, stage(ShaderStage::Fragment)?);
        let vkey = self.module(&vs.shader, &vs.specialize, vs.line)?;
        let fkey = self.module(&fs.shader, &fs.specialize, fs.line)?;
        let (rp, cmd) = self.draw_data(g, draw, line)?;
        let mut fb = self.framebuffer(g)?;
        let Bound { mut map, owned, opts } = self.bind(p)?;
        let (vir, vat, vwords) = &self.modules[&vkey];
        let (fir, fat, fwords) = &self.modules[&fkey];
        let job = DrawJob {
            vertex: Stage { ir: vir, words: vwords, entry: vs.entry.as_deref().unwrap_or("main"), shader: &vs.shader },
            fragment: Stage { ir: fir, words: fwords, entry: fs.entry.as_deref().unwrap_or("main"), shader: &fs.shader },
            pipeline: &rp,
            draw: &cmd,
            opts: &opts,
        };
        let r = self.exec.draw(&job, &mut fb, &mut map);
        // An error is located in the one stage assembled from the script's
        // text (the other precompiled or the passthrough), else at the RUN.
        let at = match (vat.is_empty(), fat.is_empty()) {
            (true, false) => fat.clone(),
            (false, true) => vat.clone(),
            _ => Vec::new(),
        };
        for (c, t) in g.colors.iter().zip(&mut fb.colors) {
            let k = self.find(&c.buffer, c.line)?;
            self.bufs[k] = core::mem::take(&mut t.attachment.data);
        }
        if let (Some((d, _, l)), Some(t)) = (&g.depth, &fb.depth) {
            let k = self.find(d, *l)?;
            self.bufs[k] = depth_bytes(&t.buffer);
        }
        self.unbind(p, owned, &mut map);
        match r {
            Ok(()) => Ok(()),
            Err(ExecError::NoDraw) => Err(not_run(line, "this backend does not draw")),
            Err(ExecError::Interp(e)) => Err(located(e, &at, line)),
            Err(e) => Err(error(line, e.to_string())),
        }
    }
}
