//! An Amber script as the page's Run tab holds it, and back.
//!
//! [`load`] reads a script whose one `RUN` the Run tab can express into what
//! the tab holds: the shader as SPIR-V assembly (a SPIRV-HEX shader
//! disassembled), each binding's bytes in the interpreter's input language
//! (up to its block's size: a shader sees no more of a bigger buffer), the
//! spec constants, and the EXPECT lines. A compute `RUN` (one pipeline,
//! descriptor buffers at distinct (set, binding) pairs, push constants) is
//! the tab's dispatch; a graphics `RUN ... DRAW_RECT | DRAW_GRID` is the
//! tab's draw of a Fragment entry point ([`LoadedDraw`]), which draws as
//! `plan::draw` does: Amber's passthrough vertex shader, a rectangle or a
//! grid over the whole framebuffer, one colour attachment at Location 0,
//! cleared first, and no other fixed function. Anything else (another
//! vertex shader, vertex data, a depth attachment, a viewport, culling,
//! blending, images and samplers, a second RUN...) is refused at the line
//! that needs it.
//!
//! [`check`] checks a script's EXPECT lines against the buffers (and a
//! draw's image) of a run made elsewhere (the page's interpreter, its
//! WebGPU): the script runs on [`super::run_on`] with an executor that hands
//! back that run, its draw writing the given image into the attachment, so
//! an EXPECT means here what it means to `spvlab amber`.
//!
//! [`export_run`] writes a run of an analysed module as an Amber file
//! ([`super::export`]) that `spvlab amber` runs and passes.

use super::export::{Binding, Export, ExportBuffer, export};
use super::{
    AmberError, BindKind, Command, DataType, Dispatch, Draw, DrawJob, ExecError, Executor, Failure, Pipeline,
    RunOptions, Scalar, Script, ShaderFormat, ShaderStage, error,
};
use crate::TargetEnv;
use crate::analysis::Analysis;
use crate::interp::{Buffers, half_to_f64};
use crate::ir::{Ir, Type};
use crate::plan::DrawShape;
use crate::raster::{self, ColorAttachment, ColorFormat};
use crate::reflect::{EntryReflection, ExecutionModel, ResourceKind};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// One binding's input, keyed as the Run tab keys it (`"SET.BINDING"`, or
/// `"push"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedInput {
    pub key: String,
    /// The Amber buffer's name.
    pub buffer: String,
    /// The bytes in the interpreter's input language (a typed list of the
    /// buffer's DATA_TYPE scalar, or `hex:` bytes).
    pub spec: String,
}

/// An EXPECT line of the script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedExpect {
    pub line: u32,
    /// The line as written.
    pub text: String,
}

/// A script as the Run tab holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    /// The shader as SPIR-V assembly.
    pub text: String,
    /// The shader was SPIRV-HEX, disassembled here.
    pub disassembled: bool,
    /// The shader's TARGET_ENV (`None`: Amber's default, SPIR-V 1.0).
    pub env: Option<TargetEnv>,
    pub entry: Option<String>,
    pub workgroups: [u32; 3],
    /// Spec constants set by the pipeline: SpecId and the value as the Run
    /// tab's field reads it (`7`, `-2`, `0.5`, `true`).
    pub spec: Vec<(u32, String)>,
    pub inputs: Vec<LoadedInput>,
    pub expects: Vec<LoadedExpect>,
    /// A graphics script: how its fragment shader is drawn (`None`: a
    /// compute dispatch).
    pub draw: Option<LoadedDraw>,
}

/// A graphics script's draw as the Run tab's draw fields hold it (the
/// page's `DrawRequest`, core's [`crate::plan::DrawInputs`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedDraw {
    /// FRAMEBUFFER_SIZE.
    pub size: (u32, u32),
    pub shape: DrawShape,
    /// The colour attachment's format.
    pub format: ColorFormat,
    /// The colour the attachment is cleared to before the draw (RGBA, 0 to 1).
    pub clear: [f32; 4],
}

/// Why a script cannot be loaded: `error`, at the line of what the Run tab
/// cannot express.
fn refuse(line: u32, what: &str) -> AmberError {
    error(line, format!("the Run tab cannot hold this script: {what}"))
}

/// The script `src` as the Run tab holds it: a compute script's one
/// dispatch, or a graphics script's one draw ([`Loaded::draw`]). A GLSL
/// shader says that the page needs the compiled module; what the Run tab
/// cannot express is an error at the line that needs it.
pub fn load(src: &str) -> Result<Loaded, AmberError> {
    let script = super::parse(src)?;
    let run = one_run(&script)?;
    let p = script
        .pipelines
        .iter()
        .find(|p| p.name == run.pipeline)
        .ok_or_else(|| error(run.line, format!("no pipeline named `{}`", run.pipeline)))?;
    let (shader, entry, specialize, model, groups, draw) = match (&run.what, p.graphics.as_deref()) {
        (RunWhat::Dispatch(groups), _) => {
            let sname = p.shader.as_deref().ok_or_else(|| error(p.line, "the pipeline has no ATTACH"))?;
            (shader_named(&script, sname, p.line)?, p.entry.clone(), &p.specialize[..], ExecutionModel::GLCompute, *groups, None)
        }
        (RunWhat::Draw(d), Some(g)) => {
            let (fs, ld) = draw_of(&script, p, g, d, run.line, run.clear)?;
            (shader_named(&script, &fs.shader, fs.line)?, fs.entry.clone(), &fs.specialize[..], ExecutionModel::Fragment, [1, 1, 1], Some(ld))
        }
        (RunWhat::Draw(_), None) => return Err(error(run.line, format!("`{}` is not a graphics pipeline", run.pipeline))),
    };
    if shader.format == ShaderFormat::Glsl {
        return Err(error(
            shader.line,
            format!(
                "shader `{}` is GLSL: the page runs SPIR-V only; compile it (glslangValidator -V) and open the module, or give the script a SPIRV-ASM shader",
                shader.name
            ),
        ));
    }
    if !p.sampler_binds.is_empty() {
        return Err(refuse(p.sampler_binds[0].3, "samplers"));
    }
    let (words, _) = super::shader_words(shader, &RunOptions::default())?;
    let (text, disassembled) = match shader.format {
        ShaderFormat::SpirvAsm => (shader.text.clone(), false),
        _ => {
            let a = Analysis::read_bytes(&words_bytes(&words));
            let d = a
                .disassembly()
                .map(|d| d.text.clone())
                .ok_or_else(|| error(shader.line, "SPIRV-HEX: the module does not read"))?;
            (d, true)
        }
    };
    let module = crate::binary::read_words(&words)
        .map_err(|e| error(shader.line, format!("the shader does not read back: {}", e.message())))?;
    let ir = Ir::build(module);
    if draw.is_some() && ir.entry_points.iter().any(|e| ExecutionModel::of(e.model) == ExecutionModel::Vertex) {
        // The page draws a module's own Vertex entry point in place of the
        // passthrough shader.
        return Err(refuse(
            shader.line,
            &format!("shader `{}` has a Vertex entry point, which the page's draw would run in place of the PASSTHROUGH vertex shader", shader.name),
        ));
    }
    let spec = specialize.iter().map(|&(id, bits)| (id, spec_text(&ir, id, bits))).collect();
    let refl = crate::reflect::reflect(&ir);
    let e = refl
        .entry_points
        .iter()
        .filter(|e| e.execution_model == model)
        .find(|e| entry.as_deref().is_none_or(|n| e.name == n));
    let inputs = inputs_of(&script, p, e)?;
    let lines: Vec<&str> = src.lines().collect();
    let mut expects = Vec::new();
    expect_lines(&script.commands, &mut |line| {
        if !expects.iter().any(|e: &LoadedExpect| e.line == line) {
            let text = lines.get(line as usize - 1).map_or("", |l| l.trim()).to_string();
            expects.push(LoadedExpect { line, text });
        }
    });
    expects.sort_by_key(|e| e.line);
    Ok(Loaded { text, disassembled, env: shader.env, entry, workgroups: groups, spec, inputs, expects, draw })
}

fn shader_named<'s>(script: &'s Script, name: &str, line: u32) -> Result<&'s super::Shader, AmberError> {
    script
        .shaders
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| error(line, format!("no shader named `{name}`")))
}

/// The draw of graphics pipeline `p` (`g`) by `RUN ... d` at `line`, as the
/// Run tab's draw of a Fragment entry point holds it: Amber's passthrough
/// vertex shader, one colour attachment at Location 0 in a format the page
/// shows, the fixed function as the page's draw has it (the viewport over
/// the whole framebuffer, no culling, filled polygons, no blending, no depth
/// attachment), a rectangle or a grid over the whole framebuffer, cleared
/// first to `clear` (the colour of the CLEAR before the RUN; `None`: no
/// CLEAR, so the attachment's bytes must be zeros). The fragment shader's
/// ATTACH, and the draw.
fn draw_of<'s>(
    script: &'s Script,
    p: &'s Pipeline,
    g: &'s super::Graphics,
    d: &Draw,
    line: u32,
    clear: Option<[f32; 4]>,
) -> Result<(&'s super::Attach, LoadedDraw), AmberError> {
    let stage = |s: ShaderStage| g.attach.iter().find(|a| a.stage == s).ok_or_else(|| error(p.line, format!("`{}` has no {s:?} shader", p.name)));
    let (vs, fs) = (stage(ShaderStage::Vertex)?, stage(ShaderStage::Fragment)?);
    if !shader_named(script, &vs.shader, vs.line)?.passthrough {
        return Err(refuse(
            vs.line,
            &format!("vertex shader `{}` (the page's draw runs Amber's PASSTHROUGH vertex shader only)", vs.shader),
        ));
    }
    let (w, h) = g.framebuffer;
    let at = |l: Option<u32>| l.unwrap_or(p.line);
    if w > crate::plan::draw::MAX_SIDE || h > crate::plan::draw::MAX_SIDE {
        return Err(refuse(
            at(g.lines.framebuffer),
            &format!("FRAMEBUFFER_SIZE {w} {h} (the page draws at most {0} by {0})", crate::plan::draw::MAX_SIDE),
        ));
    }
    let whole = raster::Viewport { x: 0.0, y: 0.0, width: w as f32, height: h as f32, min_depth: 0.0, max_depth: 1.0 };
    if g.viewport.is_some_and(|v| v != whole) {
        return Err(refuse(at(g.lines.viewport), "a VIEWPORT other than the whole framebuffer"));
    }
    if g.cull != raster::CullMode::None {
        return Err(refuse(at(g.lines.cull), "CULL_MODE (the page's draw culls nothing)"));
    }
    if g.polygon_mode != raster::PolygonMode::Fill {
        return Err(refuse(at(g.lines.polygon_mode), "POLYGON_MODE (the page's draw fills its triangles)"));
    }
    if g.blend.enable {
        return Err(refuse(at(g.lines.blend), "BLEND (the page's draw does not blend)"));
    }
    if let Some((_, _, l)) = &g.depth {
        return Err(refuse(*l, "a depth attachment"));
    }
    let c = g.colors.first().ok_or_else(|| error(p.line, format!("`{}` has no colour attachment", p.name)))?;
    if let Some(second) = g.colors.get(1) {
        return Err(refuse(second.line, "a second colour attachment (the page draws one)"));
    }
    if c.location != 0 {
        return Err(refuse(c.line, &format!("a colour attachment at LOCATION {} (the page draws to LOCATION 0)", c.location)));
    }
    if c.format.is_integer() {
        return Err(refuse(c.line, &format!("a colour attachment of format {} (the page draws B8G8R8A8_UNORM, R8G8B8A8_UNORM, R32G32B32A32_SFLOAT and R32_SFLOAT)", c.format.name())));
    }
    let full = raster::draws::Rect { x: 0.0, y: 0.0, width: w as f32, height: h as f32 };
    let shape = match d {
        Draw::Rect { rect } if *rect == full => DrawShape::Rect,
        Draw::Grid { rect, columns, rows } if *rect == full => DrawShape::Grid { columns: *columns, rows: *rows },
        Draw::Rect { .. } | Draw::Grid { .. } => {
            return Err(refuse(line, &format!("a draw that does not cover the whole framebuffer (the page draws POS 0 0 SIZE {w} {h})")));
        }
        Draw::Array { .. } => return Err(refuse(line, "DRAW_ARRAY (the page draws a rectangle or a grid over the framebuffer, from no vertex data)")),
    };
    let clear = match clear {
        Some(c) => c,
        None => {
            // No CLEAR: the draw starts from the attachment's bytes, which the
            // page's draw holds only as a clear colour of 0.
            let b = script.buffers.iter().find(|b| b.name == c.buffer).ok_or_else(|| error(c.line, format!("no buffer named `{}`", c.buffer)))?;
            if b.data.iter().any(|&x| x != 0) {
                return Err(refuse(b.line, &format!("attachment `{}` starts with data and no CLEAR (the page's draw starts from a clear colour)", c.buffer)));
            }
            [0.0; 4]
        }
    };
    Ok((fs, LoadedDraw { size: (w, h), shape, format: c.format, clear }))
}

/// The inputs of pipeline `p`'s buffers that entry point `entry` (when
/// reflected) uses, keyed as the Run tab keys them.
fn inputs_of(script: &Script, p: &Pipeline, entry: Option<&EntryReflection>) -> Result<Vec<LoadedInput>, AmberError> {
    // The bytes a binding's block holds (none for one that ends in a
    // runtime array): the shader sees no more of a bigger buffer, and the
    // Run tab's input is sized by the block.
    let block_size = |key: Option<(u32, u32)>| -> Option<usize> {
        let r = entry?.resources.iter().find(|r| match key {
            Some((s, b)) => r.set == Some(s) && r.binding == Some(b) && r.kind != ResourceKind::PushConstant,
            None => r.kind == ResourceKind::PushConstant,
        })?;
        if r.runtime_array.is_some() {
            return None;
        }
        usize::try_from(r.size?).ok()
    };
    let mut inputs: Vec<LoadedInput> = Vec::new();
    for b in &p.binds {
        if b.image || b.array {
            return Err(refuse(b.line, "images and arrays of descriptors"));
        }
        let buf = script
            .buffers
            .iter()
            .find(|x| x.name == b.buffer)
            .ok_or_else(|| error(b.line, format!("no buffer named `{}`", b.buffer)))?;
        // A buffer the entry point does not use: the shader cannot see it,
        // and the Run tab has no field for it (its EXPECT lines see the
        // file's bytes).
        let used = match b.kind {
            BindKind::Descriptor { set, binding, .. } => uses(entry, Some((set, binding))),
            BindKind::PushConstant => uses(entry, None),
        };
        if !used {
            continue;
        }
        let (key, bytes) = match b.kind {
            BindKind::Descriptor { set, binding, offset, range } => {
                let end = range.map_or(buf.data.len(), |r| offset.saturating_add(r));
                let d = buf.data.get(offset..end).ok_or_else(|| {
                    error(b.line, format!("OFFSET {offset} (and RANGE) is past the end of `{}`", b.buffer))
                })?;
                (format!("{set}.{binding}"), &d[..d.len().min(block_size(Some((set, binding))).unwrap_or(usize::MAX))])
            }
            BindKind::PushConstant => {
                let d = &buf.data[..];
                (String::from("push"), &d[..d.len().min(block_size(None).unwrap_or(usize::MAX))])
            }
        };
        if inputs.iter().any(|i| i.key == key) {
            return Err(refuse(b.line, &format!("two buffers at {key}")));
        }
        if b.kind != BindKind::PushConstant && p.binds.iter().filter(|x| x.buffer == b.buffer).count() > 1 {
            return Err(refuse(b.line, &format!("buffer `{}` bound twice", b.buffer)));
        }
        inputs.push(LoadedInput { key, buffer: b.buffer.clone(), spec: input_spec(bytes, buf.ty) });
    }
    Ok(inputs)
}

/// Whether entry point `e` (when reflected) uses the buffer at (set,
/// binding), or the push constants (`None`).
fn uses(e: Option<&EntryReflection>, key: Option<(u32, u32)>) -> bool {
    let Some(e) = e else { return true };
    match key {
        Some(k) => e.bound_buffers().any(|(s, b, _)| (s, b) == k),
        None => e.resources.iter().any(|r| r.kind == ResourceKind::PushConstant),
    }
}

fn words_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// What the script's one RUN does.
enum RunWhat<'s> {
    Dispatch([u32; 3]),
    Draw(&'s Draw),
}

/// The script's one RUN: its pipeline, what it does, its line, and for a
/// draw the colour of the pipeline's last CLEAR before it (`None`: no CLEAR).
struct OneRun<'s> {
    pipeline: &'s str,
    what: RunWhat<'s>,
    line: u32,
    clear: Option<[f32; 4]>,
}

/// The script's one RUN: a RUN in a REPEAT, a second RUN, a COPY before
/// the RUN, or a CLEAR that the Run tab's one cleared draw does not hold (in
/// a REPEAT, after the RUN, of another pipeline) is more than the Run tab
/// holds.
fn one_run(script: &Script) -> Result<OneRun<'_>, AmberError> {
    let mut found: Option<OneRun> = None;
    // Each pipeline's clear colour so far (Amber's default 0, 0, 0, 0), and
    // the CLEARs before the RUN: (pipeline, colour, line).
    let mut colour: Vec<(&str, [f32; 4])> = Vec::new();
    let mut clears: Vec<(&str, [f32; 4], u32)> = Vec::new();
    let mut late_clear = None;
    for c in &script.commands {
        let (pipeline, what, line) = match c {
            Command::Run { pipeline, groups, line } => (pipeline, RunWhat::Dispatch(*groups), *line),
            Command::Draw { pipeline, draw, line } => (pipeline, RunWhat::Draw(draw), *line),
            Command::Repeat { body, .. } => {
                if let Some(line) = body.iter().find_map(|c| match c {
                    Command::Run { line, .. } | Command::Draw { line, .. } => Some(*line),
                    _ => None,
                }) {
                    return Err(refuse(line, "a RUN in a REPEAT"));
                }
                if let Some(line) = body.iter().find_map(|c| match c {
                    Command::Clear { line, .. } => Some(*line),
                    _ => None,
                }) {
                    return Err(refuse(line, "a CLEAR in a REPEAT"));
                }
                continue;
            }
            Command::Copy { line, .. } if found.is_none() => {
                return Err(refuse(*line, "a COPY before the RUN"));
            }
            Command::ClearColor { pipeline, rgba, .. } => {
                colour.retain(|(p, _)| p != pipeline);
                colour.push((pipeline, *rgba));
                continue;
            }
            Command::Clear { pipeline, line } => {
                if found.is_some() {
                    // Refused at the end, after a second RUN (the first thing
                    // the Run tab cannot hold).
                    late_clear = late_clear.or(Some(*line));
                    continue;
                }
                let rgba = colour.iter().find(|(p, _)| p == pipeline).map_or([0.0; 4], |c| c.1);
                clears.push((pipeline, rgba, *line));
                continue;
            }
            _ => continue,
        };
        if found.is_some() {
            return Err(refuse(line, "a second RUN (the Run tab makes one dispatch or draw)"));
        }
        if let Some((_, _, l)) = clears.iter().find(|(p, _, _)| p != pipeline) {
            return Err(refuse(*l, "a CLEAR of another pipeline than the RUN's"));
        }
        let clear = clears.last().map(|c| c.1);
        found = Some(OneRun { pipeline, what, line, clear });
    }
    if let Some(line) = late_clear {
        return Err(refuse(line, "a CLEAR after the RUN (the Run tab makes one draw)"));
    }
    found.ok_or_else(|| error(1, "the script has no RUN"))
}

/// Calls `f` with the line of every EXPECT (in REPEATs too).
fn expect_lines(cs: &[Command], f: &mut dyn FnMut(u32)) {
    for c in cs {
        match c {
            Command::Expect { line, .. } | Command::ExpectBuffer { line, .. } | Command::ExpectRgba { line, .. } => f(*line),
            Command::Repeat { body, .. } => expect_lines(body, f),
            _ => {}
        }
    }
}

/// A spec constant's value as text of its type.
fn spec_text(ir: &Ir, id: u32, bits: u64) -> String {
    let ty = ir
        .constants
        .iter()
        .find(|c| c.spec && ir.spec_id(c.id) == Some(id))
        .and_then(|c| ir.ty(c.ty))
        .map(|t| t.ty.clone());
    match ty {
        Some(Type::Bool) => String::from(if bits != 0 { "true" } else { "false" }),
        Some(Type::Int { width, signed: true }) if (1..64).contains(&width) => {
            let s = 64 - width;
            format!("{}", ((bits << s) as i64) >> s)
        }
        Some(Type::Float { width: 32, .. }) => f32_text(bits).unwrap_or_else(|| format!("{bits}")),
        Some(Type::Float { width: 64, .. }) => f64_text(bits).unwrap_or_else(|| format!("{bits}")),
        _ => format!("{bits}"),
    }
}

/// A finite float's shortest text `t`, if it reads back (`ok`).
fn float_text(finite: bool, t: String, ok: impl Fn(&str) -> bool) -> Option<String> {
    (finite && ok(&t)).then_some(t)
}

fn f32_text(bits: u64) -> Option<String> {
    let f = f32::from_bits(bits as u32);
    float_text(f.is_finite(), format!("{f}"), |t| t.parse::<f32>().ok().map(|f| f.to_bits() as u64) == Some(bits & 0xffff_ffff))
}

fn f64_text(bits: u64) -> Option<String> {
    let f = f64::from_bits(bits);
    float_text(f.is_finite(), format!("{f}"), |t| t.parse::<f64>().ok().map(f64::to_bits) == Some(bits))
}

/// Bytes in the interpreter's input language: a typed list of `ty`'s scalar
/// when every value reads back to the same bits, else `hex:` bytes.
pub fn input_spec(bytes: &[u8], ty: DataType) -> String {
    let size = ty.scalar.size();
    if bytes.is_empty() {
        return String::from("zeros");
    }
    let typed = || -> Option<String> {
        if !bytes.len().is_multiple_of(size) {
            return None;
        }
        let (name, signed) = match ty.scalar {
            Scalar::Int { width, signed } => (format!("{}{width}", if signed { "i" } else { "u" }), signed),
            Scalar::Float { width } => (format!("f{width}"), true),
        };
        let mut out = format!("{name}:");
        for c in bytes.chunks(size) {
            let bits = c.iter().rev().fold(0u64, |a, b| a << 8 | *b as u64);
            let v = match ty.scalar {
                Scalar::Int { width, .. } if signed && width < 64 => {
                    let s = 64 - width;
                    format!("{}", ((bits << s) as i64) >> s)
                }
                Scalar::Int { signed: true, .. } => format!("{}", bits as i64),
                Scalar::Int { .. } => format!("{bits}"),
                Scalar::Float { width: 16 } => {
                    let f = half_to_f64(bits as u16);
                    float_text(f.is_finite(), format!("{f}"), |t| {
                        t.parse::<f64>().ok().map(|x| crate::interp::f64_to_half(x) as u64) == Some(bits)
                    })?
                }
                Scalar::Float { width: 32 } => f32_text(bits)?,
                Scalar::Float { .. } => f64_text(bits)?,
            };
            out.push(' ');
            out.push_str(&v);
        }
        Some(out)
    };
    typed().unwrap_or_else(|| {
        let mut s = String::from("hex:");
        for b in bytes {
            s.push_str(&format!(" {b:02x}"));
        }
        s
    })
}

/// The outcome of one EXPECT line against a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectResult {
    pub line: u32,
    pub text: String,
    pub pass: bool,
    /// Why it failed (values expected and got), one per failing value.
    pub failures: Vec<String>,
}

/// What [`check`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub expects: Vec<ExpectResult>,
    /// The script stopped (a bad size, a missing buffer): no verdict per line.
    pub error: Option<AmberError>,
}

/// Hands back the buffers of a run made elsewhere, and for a draw its
/// image.
struct Replay<'a> {
    outputs: &'a Buffers,
    image: Option<&'a ColorAttachment>,
}

impl Replay<'_> {
    /// The run's bytes into `buffers`, for those the entry point of `model`
    /// named `entry` (the first when `None`) of `ir` uses; `Err`: the
    /// (set, binding) the run has no bytes for.
    fn buffers(&self, ir: &Ir, model: ExecutionModel, entry: Option<&str>, buffers: &mut Buffers) -> Result<(), (u32, u32)> {
        let refl = crate::reflect::reflect(ir);
        let entry = refl.entry_points.iter().filter(|e| e.execution_model == model).find(|e| entry.is_none_or(|n| e.name == n));
        for (key, bytes) in buffers.iter_mut() {
            if !uses(entry, Some(*key)) {
                // Not the shader's: it stays as it was.
                continue;
            }
            let Some(got) = self.outputs.get(key) else {
                return Err(*key);
            };
            // The run's bytes may be fewer (a buffer bigger than its
            // binding's block: the shader saw only the block) or more (a
            // short buffer padded to the block).
            let n = got.len().min(bytes.len());
            bytes[..n].copy_from_slice(&got[..n]);
        }
        Ok(())
    }
}

/// The image a replayed draw was given does not fit the draw's attachment:
/// the attachment's size and format, and the image's (`None`: no image).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageMismatch {
    pub want: (u32, u32, ColorFormat),
    pub got: Option<(u32, u32, ColorFormat)>,
}

impl core::fmt::Display for ImageMismatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (w, h, fmt) = self.want;
        match self.got {
            None => write!(f, "the run has no image of the {w}x{h} {} attachment", fmt.name()),
            Some((gw, gh, gf)) => write!(f, "the run's image is {gw}x{gh} {}, the attachment {w}x{h} {}", gf.name(), fmt.name()),
        }
    }
}

impl Failure for ImageMismatch {
    fn as_any(&self) -> &dyn core::any::Any {
        self
    }
}

fn no_output((set, binding): (u32, u32)) -> ExecError {
    ExecError::NoOutput { set, binding }
}

impl Executor for Replay<'_> {
    fn dispatch(&mut self, d: &Dispatch, buffers: &mut Buffers) -> Result<(), ExecError> {
        self.buffers(d.ir, ExecutionModel::GLCompute, d.opts.entry.as_deref(), buffers).map_err(no_output)
    }

    /// The image as the colour attachment at Location 0 (the one a loaded
    /// draw has), the buffers as a dispatch's.
    fn draw(&mut self, job: &DrawJob, framebuffer: &mut raster::Framebuffer, buffers: &mut Buffers) -> Result<(), ExecError> {
        self.buffers(job.fragment.ir, ExecutionModel::Fragment, Some(job.fragment.entry), buffers).map_err(no_output)?;
        let Some(t) = framebuffer.colors.iter_mut().find(|c| c.location == 0) else {
            return Ok(());
        };
        let a = &mut t.attachment;
        let want = (a.width, a.height, a.format);
        match self.image {
            Some(img) if (img.width, img.height, img.format) == want && img.data.len() == a.data.len() => {
                a.data.copy_from_slice(&img.data);
                Ok(())
            }
            img => Err(ExecError::Backend(alloc::boxed::Box::new(ImageMismatch { want, got: img.map(|i| (i.width, i.height, i.format)) }))),
        }
    }
}

/// The EXPECT lines of script `src` checked against a run of its
/// [`load`]ed form made elsewhere: `outputs`, the bytes the run left at
/// each (set, binding), and for a draw `image`, its colour attachment.
pub fn check(src: &str, outputs: &Buffers, image: Option<&ColorAttachment>) -> Result<Checked, AmberError> {
    let loaded = load(src)?;
    let script = super::parse(src)?;
    let (out, error) = match super::run_on(&script, &RunOptions::default(), &mut Replay { outputs, image }) {
        Ok(o) => (o.failures, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    let expects = loaded
        .expects
        .into_iter()
        .map(|e| {
            let failures: Vec<String> = out.iter().filter(|f| f.line == e.line).map(|f| f.message.clone()).collect();
            ExpectResult { line: e.line, text: e.text, pass: failures.is_empty() && error.is_none(), failures }
        })
        .collect();
    Ok(Checked { expects, error })
}

/// A run of the analysed module `a` (assembled for `env`) as an Amber file:
/// entry point `e`, spec constants `specs` (SpecId, bits) set, the buffers
/// as they went in (`inputs`, `push`) and as the run left them (`outputs`).
#[allow(clippy::too_many_arguments)]
pub fn export_run(
    a: &Analysis,
    ir0: &Ir,
    env: TargetEnv,
    e: &EntryReflection,
    specs: &[(u32, u64)],
    groups: [u32; 3],
    inputs: &Buffers,
    outputs: &Buffers,
    push: Option<&[u8]>,
) -> String {
    let text = module_text(a);
    let text = text.as_str();
    let width = |id: u32| {
        ir0.constants
            .iter()
            .find(|c| c.spec && ir0.spec_id(c.id) == Some(id))
            .and_then(|c| ir0.ty(c.ty))
            .map_or(32, |t| match t.ty {
                Type::Int { width, .. } | Type::Float { width, .. } => width,
                _ => 32,
            })
    };
    let buffers = export_buffers(e, inputs, outputs, push);
    export(&Export {
        text,
        env: Some(env),
        entry: &e.name,
        workgroups: groups,
        specialize: specs.iter().map(|(id, v)| (*id, width(*id), *v)).collect(),
        buffers,
        header: None,
    })
}

/// The bound buffers of `e` (and its push constants) as they went in and
/// came out.
fn export_buffers<'a>(e: &'a EntryReflection, inputs: &'a Buffers, outputs: &'a Buffers, push: Option<&'a [u8]>) -> Vec<ExportBuffer<'a>> {
    let mut buffers: Vec<ExportBuffer> = e
        .bound_buffers()
        .map(|(s, b, r)| ExportBuffer {
            binding: if r.kind == ResourceKind::UniformBuffer {
                Binding::Uniform { set: s, binding: b }
            } else {
                Binding::Storage { set: s, binding: b }
            },
            name: r.name.as_deref(),
            ty: Some(&r.ty),
            input: inputs.get(&(s, b)).map_or(&[][..], |v| v),
            output: outputs.get(&(s, b)).map_or(&[][..], |v| v),
        })
        .collect();
    if let (Some(p), Some(r)) = (push, e.resources.iter().find(|r| r.kind == ResourceKind::PushConstant)) {
        buffers.push(ExportBuffer { binding: Binding::PushConstant, name: r.name.as_deref(), ty: Some(&r.ty), input: p, output: p });
    }
    buffers
}

/// The module's text: as typed, else its disassembly.
fn module_text(a: &Analysis) -> String {
    match a.text() {
        Some(t) => String::from(t),
        None => a.disassembly().map(|d| d.text.clone()).unwrap_or_default(),
    }
}

/// A draw of plan `p` (a Fragment entry point) on `a`'s module, as the
/// interpreter left it (`drawn`), written as an Amber file
/// ([`super::export::export_draw`]): the module's text, its vertex stage
/// (its own Vertex entry point, the given module disassembled, or Amber's
/// passthrough), the buffers as they went in, and EXPECT lines holding the
/// image and the buffers. `Err`: why there is no file (not a draw, an
/// attachment EQ_RGBA cannot hold exactly).
pub fn export_draw_run(a: &Analysis, env: TargetEnv, p: &crate::plan::Plan, drawn: &crate::plan::Drawn) -> Result<String, String> {
    use crate::plan::VertexSource;
    let d = p.draw.as_ref().ok_or_else(|| String::from("the entry point does not draw"))?;
    let image = drawn.image().ok_or_else(|| String::from("the draw has no colour attachment"))?;
    let text = module_text(a);
    let given;
    let vertex = match d.vertex_source {
        VertexSource::Passthrough => None,
        VertexSource::Module => Some((text.as_str(), Some(env), d.vertex_entry.as_str())),
        VertexSource::Given => {
            given = crate::text::disassemble(&d.vertex_words, &crate::text::DisOptions::default())
                .map_err(|e| format!("the vertex module does not disassemble: {}", e.message))?;
            // The vertex module's own version is in its header: Amber's
            // default environment assembles any version's text.
            Some((given.as_str(), None, d.vertex_entry.as_str()))
        }
    };
    let buffers = export_buffers(&p.entry, &p.buffers, &drawn.buffers, p.options.push_constants.as_deref());
    super::export::export_draw(&super::export::DrawExport {
        text: &text,
        env: Some(env),
        entry: &p.entry.name,
        vertex,
        shape: d.shape,
        clear: d.clear,
        buffers,
        image,
    })
}

#[cfg(test)]
mod tests;
