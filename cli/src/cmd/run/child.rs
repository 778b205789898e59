//! GPU jobs in a child process (a driver crash or a GPU hang is an
//! error that names the backend and the module, never a dead or stuck
//! `spvlab`).
//!
//! [`GpuProcess`] starts `spvlab __gpu-job` (this same binary, a hidden
//! subcommand: [`serve`]) once and hands it one dispatch after another on its
//! stdin; the child keeps one wgpu device for all of them and answers each
//! on its stdout. The parent waits for each answer with a deadline (the
//! dispatch's timeout plus [`MARGIN`]): a child that dies (a segfault inside
//! the driver, an abort) or does not answer in time (a hang) is killed, the
//! dispatch becomes an error naming the backend and the module, and the next
//! dispatch starts a fresh child. The interpreter keeps running in-process.
//!
//! The wire: frames of a little-endian u32 length and that many bytes. The
//! child's first frame says hello (the subgroup size, or why there is no
//! device); then one answer frame per job frame.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use spvlab_core::interp::image::{Address, Format, Image, NumKind, Sampler};
use spvlab_core::interp::{Buffers, Options};
use spvlab_core::wgsl::{Binding, BindingResource, Combined, Introduced, IntroducedKind, StorageAccess, Wgsl};
use spvlab_core::raster::{
    self, AttrKind, BlendFactor, BlendOp, BlendState, ColorAttachment, ColorFormat, ColorTarget, CompareOp, CullMode, DepthBias,
    DepthBuffer, DepthFormat, DepthState, DepthTarget, DrawCmd, DrawIndices, Framebuffer, FrontFace, PixelRect, PolygonMode,
    Topology, VertexBuffer, VertexFormat, Viewport,
};
use spvlab_gpu::{Backend, DrawJob, DrawStage, Gpu, GpuError, GpuErrorKind, Job, Runner};

/// How much longer than a dispatch's own timeout the parent waits for its
/// answer (the child's own deadline comes first, for a hang that wgpu's poll
/// notices).
pub const MARGIN: Duration = Duration::from_secs(5);
/// How long the child may take to make its device.
const HELLO_DEADLINE: Duration = Duration::from_secs(60);
/// The hidden subcommand.
pub const SUBCOMMAND: &str = "__gpu-job";
/// A test hook: `abort` makes the child abort on its next job (as a driver
/// crash would), `hang` makes it stop answering.
const TEST_HOOK: &str = "SPVLAB_GPU_CHILD_TEST";

// ---- the wire ----

struct Out(Vec<u8>);

impl Out {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
    }
    fn opt(&mut self, b: Option<&[u8]>) {
        match b {
            Some(b) => {
                self.u32(1);
                self.bytes(b);
            }
            None => self.u32(0),
        }
    }
    fn buffers(&mut self, b: &Buffers) {
        self.u32(b.len() as u32);
        for ((s, k), v) in b {
            self.u32(*s);
            self.u32(*k);
            self.bytes(v);
        }
    }
}

impl Out {
    /// The images, arrays of descriptors and samplers of the dispatch (the
    /// parts of the interpreter's options the runner binds), if any.
    fn resources(&mut self, r: Option<&Options>) {
        let Some(r) = r else {
            self.u32(0);
            return;
        };
        self.u32(1);
        self.u32(r.images.len() as u32);
        for ((s, b), im) in &r.images {
            self.u32(*s);
            self.u32(*b);
            self.u32(num_kind_index(im.format.kind));
            self.u32(im.format.comps.len() as u32);
            for (c, w) in &im.format.comps {
                self.u32(u32::from(*c));
                self.u32(u32::from(*w));
            }
            for x in im.size {
                self.u32(x);
            }
            self.u32(im.samples);
        }
        self.u32(r.descriptor_arrays.len() as u32);
        for ((s, b), keys) in &r.descriptor_arrays {
            self.u32(*s);
            self.u32(*b);
            self.u32(keys.len() as u32);
            for (x, y) in keys {
                self.u32(*x);
                self.u32(*y);
            }
        }
        self.u32(r.samplers.len() as u32);
        for ((s, b), sm) in &r.samplers {
            self.u32(*s);
            self.u32(*b);
            self.u32(u32::from(sm.linear));
            for a in sm.address {
                self.u32(address_index(a));
            }
            self.u32(u32::from(sm.normalized));
        }
    }
}

impl Out {
    /// Our lowering of the module (for the `wgpu` backend): its text, the
    /// bindings it introduced and those it declares.
    fn wgsl(&mut self, w: Option<&Wgsl>) {
        let Some(w) = w else {
            self.u32(0);
            return;
        };
        self.u32(1);
        self.bytes(w.text.as_bytes());
        self.u32(w.introduced.len() as u32);
        for i in &w.introduced {
            for x in [i.group, i.binding, INTRODUCED.iter().position(|k| *k == i.kind).unwrap_or(0) as u32, i.variable] {
                self.u32(x);
            }
        }
        self.u32(w.bindings.len() as u32);
        for b in &w.bindings {
            // (tag, flag or access, least size)
            let (tag, flag, size) = match b.resource {
                BindingResource::Uniform { min_size } => (0, 0, min_size),
                BindingResource::Storage { read_only, min_size } => (1, u32::from(read_only), min_size),
                BindingResource::StorageTexture { access } => (2, ACCESSES.iter().position(|a| *a == access).unwrap_or(0) as u32, 0),
                BindingResource::Texture => (3, 0, 0),
                BindingResource::Sampler => (4, 0, 0),
                BindingResource::DepthTexture => (5, 0, 0),
                BindingResource::ComparisonSampler => (6, 0, 0),
            };
            for x in [b.group, b.binding, b.variable, tag, flag, size as u32, (size >> 32) as u32] {
                self.u32(x);
            }
        }
        self.u32(w.combined.len() as u32);
        for c in &w.combined {
            for x in [c.variable, c.texture.0, c.texture.1, c.sampler.0, c.sampler.1] {
                self.u32(x);
            }
        }
    }
}

const INTRODUCED: [IntroducedKind; 2] = [IntroducedKind::PushConstantUniform, IntroducedKind::PushConstantStorage];
const ACCESSES: [StorageAccess; 3] = [StorageAccess::Read, StorageAccess::Write, StorageAccess::ReadWrite];

const NUM_KINDS: [NumKind; 6] = [NumKind::Unorm, NumKind::Snorm, NumKind::Uint, NumKind::Sint, NumKind::Sfloat, NumKind::Ufloat];
const ADDRESSES: [Address; 4] = [Address::ClampToEdge, Address::Repeat, Address::MirroredRepeat, Address::Other];

fn num_kind_index(k: NumKind) -> u32 {
    NUM_KINDS.iter().position(|x| *x == k).unwrap_or(0) as u32
}

fn address_index(a: Address) -> u32 {
    ADDRESSES.iter().position(|x| *x == a).unwrap_or(3) as u32
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn u32(&mut self) -> Result<u32, String> {
        let (h, t) = self.0.split_at_checked(4).ok_or("a frame ends early")?;
        self.0 = t;
        Ok(u32::from_le_bytes([h[0], h[1], h[2], h[3]]))
    }
    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = self.u32()? as usize;
        let (h, t) = self.0.split_at_checked(n).ok_or("a frame ends early")?;
        self.0 = t;
        Ok(h)
    }
    fn text(&mut self) -> Result<String, String> {
        Ok(String::from_utf8_lossy(self.bytes()?).into_owned())
    }
    fn opt(&mut self) -> Result<Option<&'a [u8]>, String> {
        Ok(if self.u32()? == 1 { Some(self.bytes()?) } else { None })
    }
    fn key(&mut self) -> Result<(u32, u32), String> {
        Ok((self.u32()?, self.u32()?))
    }
    /// What [`Out::wgsl`] wrote (the text's line map is not sent).
    fn wgsl(&mut self) -> Result<Option<Wgsl>, String> {
        if self.u32()? == 0 {
            return Ok(None);
        }
        let text = self.text()?;
        let mut introduced = Vec::new();
        for _ in 0..self.u32()? {
            let (group, binding) = self.key()?;
            let kind = *INTRODUCED.get(self.u32()? as usize).ok_or("a bad introduced binding")?;
            introduced.push(Introduced { group, binding, kind, variable: self.u32()? });
        }
        let mut bindings = Vec::new();
        for _ in 0..self.u32()? {
            let (group, binding) = self.key()?;
            let variable = self.u32()?;
            let (tag, flag) = (self.u32()?, self.u32()?);
            let min_size = u64::from(self.u32()?) | (u64::from(self.u32()?) << 32);
            let resource = match tag {
                0 => BindingResource::Uniform { min_size },
                1 => BindingResource::Storage { read_only: flag == 1, min_size },
                2 => BindingResource::StorageTexture { access: *ACCESSES.get(flag as usize).ok_or("a bad access")? },
                3 => BindingResource::Texture,
                4 => BindingResource::Sampler,
                5 => BindingResource::DepthTexture,
                6 => BindingResource::ComparisonSampler,
                _ => return Err("a bad binding".into()),
            };
            bindings.push(Binding { group, binding, variable, resource });
        }
        let mut combined = Vec::new();
        for _ in 0..self.u32()? {
            let variable = self.u32()?;
            let (texture, sampler) = (self.key()?, self.key()?);
            combined.push(Combined { variable, texture, sampler });
        }
        Ok(Some(Wgsl { text, lines: Vec::new(), introduced, bindings, combined }))
    }
    /// What [`Out::resources`] wrote: `None`, or options holding only the
    /// images, arrays of descriptors and samplers.
    fn resources(&mut self) -> Result<Option<Options>, String> {
        if self.u32()? == 0 {
            return Ok(None);
        }
        let mut o = Options::default();
        for _ in 0..self.u32()? {
            let k = self.key()?;
            let kind = *NUM_KINDS.get(self.u32()? as usize).ok_or("a bad number kind")?;
            let mut comps = Vec::new();
            for _ in 0..self.u32()?.min(4) {
                comps.push((self.u32()? as u8, self.u32()? as u8));
            }
            let size = [self.u32()?, self.u32()?, self.u32()?];
            let samples = self.u32()?;
            o.images.insert(k, Image { format: Format { kind, comps }, size, samples });
        }
        for _ in 0..self.u32()? {
            let k = self.key()?;
            let mut keys = Vec::new();
            for _ in 0..self.u32()? {
                keys.push(self.key()?);
            }
            o.descriptor_arrays.insert(k, keys);
        }
        for _ in 0..self.u32()? {
            let k = self.key()?;
            let linear = self.u32()? != 0;
            let mut address = [Address::Other; 3];
            for a in &mut address {
                *a = *ADDRESSES.get(self.u32()? as usize).ok_or("a bad address mode")?;
            }
            let normalized = self.u32()? != 0;
            o.samplers.insert(k, Sampler { linear, address, normalized });
        }
        Ok(Some(o))
    }
    fn buffers(&mut self) -> Result<Buffers, String> {
        let mut b = Buffers::new();
        for _ in 0..self.u32()? {
            let k = self.key()?;
            b.insert(k, self.bytes()?.to_vec());
        }
        Ok(b)
    }
}

/// The job kinds, the first word of a job frame.
const JOB_DISPATCH: u32 = 0;
const JOB_DRAW: u32 = 1;

const TOPOLOGIES: [Topology; 6] =
    [Topology::PointList, Topology::LineList, Topology::LineStrip, Topology::TriangleList, Topology::TriangleStrip, Topology::TriangleFan];
const CULLS: [CullMode; 4] = [CullMode::None, CullMode::Front, CullMode::Back, CullMode::FrontAndBack];
const FRONTS: [FrontFace; 2] = [FrontFace::CounterClockwise, FrontFace::Clockwise];
const POLYGONS: [PolygonMode; 3] = [PolygonMode::Fill, PolygonMode::Line, PolygonMode::Point];
const ATTR_KINDS: [AttrKind; 5] = [AttrKind::Float, AttrKind::Unorm, AttrKind::Snorm, AttrKind::Uint, AttrKind::Sint];
const COLOR_FORMATS: [ColorFormat; 8] = [
    ColorFormat::B8G8R8A8Unorm,
    ColorFormat::R8G8B8A8Unorm,
    ColorFormat::R32G32B32A32Sfloat,
    ColorFormat::R32Sfloat,
    ColorFormat::R32G32B32A32Sint,
    ColorFormat::R32G32B32A32Uint,
    ColorFormat::R32Sint,
    ColorFormat::R32Uint,
];
const DEPTH_FORMATS: [DepthFormat; 3] = [DepthFormat::D16Unorm, DepthFormat::D24UnormS8Uint, DepthFormat::D32Sfloat];
const COMPARES: [CompareOp; 8] = [
    CompareOp::Never,
    CompareOp::Less,
    CompareOp::Equal,
    CompareOp::LessOrEqual,
    CompareOp::Greater,
    CompareOp::NotEqual,
    CompareOp::GreaterOrEqual,
    CompareOp::Always,
];
const BLEND_OPS: [BlendOp; 5] = [BlendOp::Add, BlendOp::Subtract, BlendOp::ReverseSubtract, BlendOp::Min, BlendOp::Max];
const FACTORS: [BlendFactor; 19] = {
    use BlendFactor::*;
    [
        Zero, One, SrcColor, OneMinusSrcColor, DstColor, OneMinusDstColor, SrcAlpha, OneMinusSrcAlpha, DstAlpha, OneMinusDstAlpha,
        ConstantColor, OneMinusConstantColor, ConstantAlpha, OneMinusConstantAlpha, SrcAlphaSaturate, Src1Color, OneMinusSrc1Color,
        Src1Alpha, OneMinusSrc1Alpha,
    ]
};

/// The index of `v` in `all`.
fn index_of<T: PartialEq>(all: &[T], v: &T) -> u32 {
    all.iter().position(|x| x == v).unwrap_or(0) as u32
}

impl Out {
    fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }
    fn words(&mut self, w: &[u32]) {
        self.u32(w.len() as u32);
        for x in w {
            self.u32(*x);
        }
    }
    fn pipeline(&mut self, p: &raster::Pipeline) {
        let s = &p.state;
        let v = s.viewport;
        for x in [v.x, v.y, v.width, v.height, v.min_depth, v.max_depth] {
            self.f32(x);
        }
        match s.scissor {
            Some(r) => {
                self.u32(1);
                for x in [r.x0, r.y0, r.x1, r.y1] {
                    self.u32(x as u32);
                }
            }
            None => self.u32(0),
        }
        self.u32(s.framebuffer.0);
        self.u32(s.framebuffer.1);
        self.u32(index_of(&CULLS, &s.cull));
        self.u32(index_of(&FRONTS, &s.front_face));
        self.u32(index_of(&POLYGONS, &s.polygon_mode));
        self.f32(s.line_width);
        self.u32(p.vertex_buffers.len() as u32);
        for b in &p.vertex_buffers {
            for x in [b.location, index_of(&ATTR_KINDS, &b.format.kind), u32::from(b.format.width), u32::from(b.format.components), b.stride, b.offset] {
                self.u32(x);
            }
            self.bytes(&b.data);
        }
        for c in p.blend_constant {
            self.f32(c);
        }
    }
    fn draw_cmd(&mut self, d: &DrawCmd) {
        self.u32(index_of(&TOPOLOGIES, &d.topology));
        match &d.indices {
            DrawIndices::Sequential { first, count } => {
                self.u32(0);
                self.u32(*first);
                self.u32(*count);
            }
            DrawIndices::Indexed { indices, restart } => {
                self.u32(1);
                self.words(indices);
                self.u32(u32::from(restart.is_some()));
                self.u32(restart.unwrap_or(0));
            }
        }
        self.u32(d.first_instance);
        self.u32(d.instances);
    }
    fn framebuffer(&mut self, fb: &Framebuffer) {
        self.u32(fb.colors.len() as u32);
        for c in &fb.colors {
            let a = &c.attachment;
            for x in [c.location, index_of(&COLOR_FORMATS, &a.format), a.width, a.height] {
                self.u32(x);
            }
            self.bytes(&a.data);
            let b = &c.blend;
            for x in [
                u32::from(b.enable),
                index_of(&FACTORS, &b.src_color),
                index_of(&FACTORS, &b.dst_color),
                index_of(&BLEND_OPS, &b.color_op),
                index_of(&FACTORS, &b.src_alpha),
                index_of(&FACTORS, &b.dst_alpha),
                index_of(&BLEND_OPS, &b.alpha_op),
                u32::from(b.write_mask),
            ] {
                self.u32(x);
            }
        }
        match &fb.depth {
            None => self.u32(0),
            Some(d) => {
                self.u32(1);
                for x in [index_of(&DEPTH_FORMATS, &d.buffer.format), d.buffer.width, d.buffer.height] {
                    self.u32(x);
                }
                self.words(&d.buffer.values);
                for x in [u32::from(d.state.test), u32::from(d.state.write), index_of(&COMPARES, &d.state.op), u32::from(d.clamp)] {
                    self.u32(x);
                }
                match d.bias {
                    Some(b) => {
                        self.u32(1);
                        for x in [b.constant, b.clamp, b.slope] {
                            self.f32(x);
                        }
                    }
                    None => self.u32(0),
                }
            }
        }
    }
}

impl Reader<'_> {
    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_bits(self.u32()?))
    }
    fn pick<T: Copy>(&mut self, all: &[T], what: &str) -> Result<T, String> {
        let i = self.u32()? as usize;
        all.get(i).copied().ok_or_else(|| format!("a bad {what}"))
    }
    fn words(&mut self) -> Result<Vec<u32>, String> {
        let n = self.u32()? as usize;
        if n > self.0.len() / 4 {
            return Err("a frame ends early".into());
        }
        (0..n).map(|_| self.u32()).collect()
    }
    fn pipeline(&mut self) -> Result<raster::Pipeline, String> {
        let v = [self.f32()?, self.f32()?, self.f32()?, self.f32()?, self.f32()?, self.f32()?];
        let viewport = Viewport { x: v[0], y: v[1], width: v[2], height: v[3], min_depth: v[4], max_depth: v[5] };
        let scissor = match self.u32()? {
            0 => None,
            _ => Some(PixelRect { x0: self.u32()? as i32, y0: self.u32()? as i32, x1: self.u32()? as i32, y1: self.u32()? as i32 }),
        };
        let framebuffer = (self.u32()?, self.u32()?);
        let cull = self.pick(&CULLS, "cull mode")?;
        let front_face = self.pick(&FRONTS, "front face")?;
        let polygon_mode = self.pick(&POLYGONS, "polygon mode")?;
        let line_width = self.f32()?;
        let mut vertex_buffers = Vec::new();
        for _ in 0..self.u32()? {
            let location = self.u32()?;
            let kind = self.pick(&ATTR_KINDS, "attribute kind")?;
            let (width, components) = (self.u32()? as u8, self.u32()? as u8);
            let (stride, offset) = (self.u32()?, self.u32()?);
            let data = self.bytes()?.to_vec();
            vertex_buffers.push(VertexBuffer { location, format: VertexFormat { kind, width, components }, stride, offset, data });
        }
        let blend_constant = [self.f32()?, self.f32()?, self.f32()?, self.f32()?];
        Ok(raster::Pipeline {
            state: raster::State { viewport, scissor, framebuffer, cull, front_face, polygon_mode, line_width },
            vertex_buffers,
            blend_constant,
        })
    }
    fn draw_cmd(&mut self) -> Result<DrawCmd, String> {
        let topology = self.pick(&TOPOLOGIES, "topology")?;
        let indices = match self.u32()? {
            0 => DrawIndices::Sequential { first: self.u32()?, count: self.u32()? },
            _ => {
                let indices = self.words()?;
                let some = self.u32()? != 0;
                let r = self.u32()?;
                DrawIndices::Indexed { indices, restart: some.then_some(r) }
            }
        };
        Ok(DrawCmd { topology, indices, first_instance: self.u32()?, instances: self.u32()? })
    }
    fn framebuffer(&mut self) -> Result<Framebuffer, String> {
        let mut colors = Vec::new();
        for _ in 0..self.u32()? {
            let location = self.u32()?;
            let format = self.pick(&COLOR_FORMATS, "colour format")?;
            let (width, height) = (self.u32()?, self.u32()?);
            let data = self.bytes()?.to_vec();
            let enable = self.u32()? != 0;
            let blend = BlendState {
                enable,
                src_color: self.pick(&FACTORS, "blend factor")?,
                dst_color: self.pick(&FACTORS, "blend factor")?,
                color_op: self.pick(&BLEND_OPS, "blend op")?,
                src_alpha: self.pick(&FACTORS, "blend factor")?,
                dst_alpha: self.pick(&FACTORS, "blend factor")?,
                alpha_op: self.pick(&BLEND_OPS, "blend op")?,
                write_mask: self.u32()? as u8,
            };
            colors.push(ColorTarget { location, attachment: ColorAttachment { format, width, height, data }, blend });
        }
        let depth = match self.u32()? {
            0 => None,
            _ => {
                let format = self.pick(&DEPTH_FORMATS, "depth format")?;
                let (width, height) = (self.u32()?, self.u32()?);
                let values = self.words()?;
                let state = DepthState { test: self.u32()? != 0, write: self.u32()? != 0, op: self.pick(&COMPARES, "compare op")? };
                let clamp = self.u32()? != 0;
                let bias = match self.u32()? {
                    0 => None,
                    _ => Some(DepthBias { constant: self.f32()?, clamp: self.f32()?, slope: self.f32()? }),
                };
                Some(DepthTarget { buffer: DepthBuffer { format, width, height, values }, state, bias, clamp })
            }
        };
        Ok(Framebuffer { colors, depth })
    }
}

fn write_frame(w: &mut impl Write, payload: &[u8]) -> std::io::Result<()> {
    w.write_all(&(payload.len() as u32).to_le_bytes())?;
    w.write_all(payload)?;
    w.flush()
}

/// The next frame, `None` at the end of the stream.
fn read_frame(r: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut n = [0u8; 4];
    match r.read_exact(&mut n) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let mut v = vec![0u8; u32::from_le_bytes(n) as usize];
    r.read_exact(&mut v)?;
    Ok(Some(v))
}

/// The kinds an answer may carry, by index (a refusal by our lowering
/// happens in the parent, before any job).
const KINDS: [GpuErrorKind; 6] = [
    GpuErrorKind::NoDevice,
    GpuErrorKind::Unsupported,
    GpuErrorKind::Validation,
    GpuErrorKind::DeviceLost,
    GpuErrorKind::Timeout,
    GpuErrorKind::Panic,
];

fn backend_index(b: Backend) -> u32 {
    Backend::ALL.iter().position(|x| *x == b).unwrap_or(0) as u32
}

// ---- the parent ----

/// A running child and the thread that reads its answers.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<Vec<u8>>,
    subgroup_size: Option<u32>,
}

impl Worker {
    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Why the child ended, once it has (it is reaped here).
    fn death(mut self) -> String {
        let _ = self.child.kill();
        match self.child.wait() {
            Ok(s) => {
                #[cfg(unix)]
                {
                    use std::os::unix::process::ExitStatusExt;
                    if let Some(sig) = s.signal() {
                        return format!("killed by signal {sig}{}", signal_name(sig));
                    }
                }
                format!("{s}")
            }
            Err(e) => format!("its status is unknown ({e})"),
        }
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => " (SIGILL)",
        6 => " (SIGABRT)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        _ => "",
    }
}

/// The dispatches of one executor, in a child process ([`Runner`]).
#[derive(Default)]
pub struct GpuProcess {
    worker: Option<Worker>,
    /// Why the last start failed (no device): not retried.
    no_device: Option<String>,
}

impl GpuProcess {
    pub fn new() -> GpuProcess {
        GpuProcess::default()
    }

    fn start(&mut self) -> Result<&mut Worker, String> {
        if let Some(m) = &self.no_device {
            return Err(m.clone());
        }
        if self.worker.is_none() {
            let w = spawn().inspect_err(|m| self.no_device = Some(m.clone()))?;
            self.worker = Some(w);
        }
        Ok(self.worker.as_mut().expect("started above"))
    }
}

fn spawn() -> Result<Worker, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot start the GPU process: no path to spvlab ({e})"))?;
    let mut child = Command::new(exe)
        .arg(SUBCOMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start the GPU process ({e})"))?;
    let stdin = child.stdin.take().ok_or("the GPU process has no stdin")?;
    let mut stdout = child.stdout.take().ok_or("the GPU process has no stdout")?;
    let (tx, answers) = channel();
    std::thread::Builder::new()
        .name("spvlab-gpu-answers".into())
        .spawn(move || {
            while let Ok(Some(f)) = read_frame(&mut stdout) {
                if tx.send(f).is_err() {
                    break;
                }
            }
        })
        .map_err(|e| format!("cannot start the GPU process's reader ({e})"))?;
    let mut w = Worker { child, stdin, answers, subgroup_size: None };
    let hello = match w.answers.recv_timeout(HELLO_DEADLINE) {
        Ok(h) => h,
        Err(RecvTimeoutError::Timeout) => {
            w.kill();
            return Err(format!("the GPU process made no device in {HELLO_DEADLINE:?}; it was killed"));
        }
        Err(RecvTimeoutError::Disconnected) => return Err(format!("the GPU process died making its device: {}", w.death())),
    };
    let mut r = Reader(&hello);
    match r.u32() {
        Ok(0) => {
            w.subgroup_size = r.u32().ok().filter(|n| *n > 0);
            Ok(w)
        }
        _ => {
            let m = r.text().unwrap_or_default();
            w.kill();
            Err(m)
        }
    }
}

impl Runner for GpuProcess {
    fn subgroup_size(&mut self) -> Option<u32> {
        self.start().ok().and_then(|w| w.subgroup_size)
    }

    fn run(&mut self, job: &Job<'_>, timeout: Duration) -> Result<Buffers, GpuError> {
        let fail = |kind, message: String| GpuError {
            backend: job.backend,
            module: job.module_name.to_string(),
            kind,
            message,
            refused: None,
            crashed: false,
        };
        let mut o = Out(Vec::new());
        o.u32(JOB_DISPATCH);
        o.u32(backend_index(job.backend));
        o.u32(timeout.as_millis().min(u32::MAX as u128) as u32);
        o.bytes(job.module_name.as_bytes());
        o.opt(job.entry.map(str::as_bytes));
        o.wgsl(job.wgsl);
        for g in job.workgroups {
            o.u32(g);
        }
        o.u32(job.words.len() as u32);
        for x in job.words {
            o.u32(*x);
        }
        o.buffers(job.buffers);
        o.u32(job.aliases.len() as u32);
        for ((a, b), (c, d)) in job.aliases {
            for x in [a, b, c, d] {
                o.u32(*x);
            }
        }
        o.opt(job.push_constants);
        o.resources(job.resources);
        let answer = self.exchange(&o.0, timeout, &fail)?;
        let mut r = Reader(&answer);
        let bad = |m: String| fail(GpuErrorKind::DeviceLost, format!("the GPU process answered nonsense ({m})"));
        r.buffers().map_err(bad)
    }

    fn draw(&mut self, job: &DrawJob<'_>, fb: &mut Framebuffer, timeout: Duration) -> Result<Buffers, GpuError> {
        let fail = |kind, message: String| GpuError {
            backend: job.backend,
            module: job.module_name.to_string(),
            kind,
            message,
            refused: None,
            crashed: false,
        };
        let mut o = Out(Vec::new());
        o.u32(JOB_DRAW);
        o.u32(backend_index(job.backend));
        o.u32(timeout.as_millis().min(u32::MAX as u128) as u32);
        o.bytes(job.module_name.as_bytes());
        for st in [&job.vertex, &job.fragment] {
            o.bytes(st.entry.as_bytes());
            o.wgsl(st.wgsl);
            o.words(st.words);
        }
        o.pipeline(job.pipeline);
        o.draw_cmd(job.draw);
        o.framebuffer(fb);
        o.buffers(job.buffers);
        o.u32(job.aliases.len() as u32);
        for ((a, b), (c, d)) in job.aliases {
            for x in [a, b, c, d] {
                o.u32(*x);
            }
        }
        o.opt(job.push_constants);
        o.resources(job.resources);
        let answer = self.exchange(&o.0, timeout, &fail)?;
        let mut r = Reader(&answer);
        let bad = |m: String| fail(GpuErrorKind::DeviceLost, format!("the GPU process answered nonsense ({m})"));
        let out = r.buffers().map_err(bad)?;
        *fb = r.framebuffer().map_err(bad)?;
        Ok(out)
    }
}

impl GpuProcess {
    /// Send one job frame and wait for its answer; an error answer, a
    /// crash or a hang is an error (`fail` names the backend and module).
    /// The answer comes back past its status word.
    fn exchange(&mut self, frame: &[u8], timeout: Duration, fail: &dyn Fn(GpuErrorKind, String) -> GpuError) -> Result<Vec<u8>, GpuError> {
        let w = self.start().map_err(|m| fail(GpuErrorKind::NoDevice, m))?;
        let sent = write_frame(&mut w.stdin, frame);
        let answer = match sent {
            Ok(()) => w.answers.recv_timeout(timeout + MARGIN),
            Err(_) => Err(RecvTimeoutError::Disconnected),
        };
        let answer = match answer {
            Ok(a) => a,
            Err(RecvTimeoutError::Timeout) => {
                if let Some(a) = self.worker.take() { Worker::kill(a) }
                return Err(fail(
                    GpuErrorKind::Timeout,
                    format!("the GPU process did not answer in {:?} (a GPU hang?); it was killed", timeout + MARGIN),
                ));
            }
            Err(RecvTimeoutError::Disconnected) => {
                let why = self.worker.take().map(Worker::death).unwrap_or_default();
                let e = fail(GpuErrorKind::DeviceLost, format!("the GPU process crashed ({why}): a driver crash?"));
                return Err(GpuError { crashed: true, ..e });
            }
        };
        let mut r = Reader(&answer);
        let bad = |m: String| fail(GpuErrorKind::DeviceLost, format!("the GPU process answered nonsense ({m})"));
        match r.u32().map_err(bad)? {
            0 => Ok(r.0.to_vec()),
            _ => {
                let kind = KINDS.get(r.u32().map_err(bad)? as usize).copied().unwrap_or(GpuErrorKind::DeviceLost);
                let message = r.text().map_err(bad)?;
                if matches!(kind, GpuErrorKind::Timeout | GpuErrorKind::DeviceLost | GpuErrorKind::Panic) {
                    // The child's device is abandoned: a fresh child next.
                    if let Some(a) = self.worker.take() { Worker::kill(a) }
                }
                Err(fail(kind, message))
            }
        }
    }
}

impl Drop for GpuProcess {
    fn drop(&mut self) {
        // Closing its stdin ends the child; it is reaped here.
        if let Some(w) = self.worker.take() {
            let Worker { mut child, stdin, .. } = w;
            drop(stdin);
            let _ = child.wait();
        }
    }
}

// ---- the child ----

/// `spvlab __gpu-job`: make a device, say hello, then run each job read from
/// stdin and answer on stdout, until stdin ends.
pub fn serve() -> Result<(), crate::error::CliError> {
    // A parent killed outright (a stopped campaign) cannot kill its child,
    // and a job stuck in a driver never reads stdin's end: the child goes
    // when it finds itself given to another parent.
    #[cfg(unix)]
    {
        let parent = std::os::unix::process::parent_id();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(200));
                if std::os::unix::process::parent_id() != parent {
                    std::process::exit(0);
                }
            }
        });
    }
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut gpu = match Gpu::new_blocking() {
        Ok(g) => g,
        Err(m) => {
            let mut o = Out(Vec::new());
            o.u32(1);
            o.bytes(m.as_bytes());
            let _ = write_frame(&mut stdout, &o.0);
            return Ok(());
        }
    };
    let mut o = Out(Vec::new());
    o.u32(0);
    o.u32(gpu.subgroup_size().unwrap_or(0));
    if write_frame(&mut stdout, &o.0).is_err() {
        return Ok(());
    }
    let hook = std::env::var(TEST_HOOK).unwrap_or_default();
    while let Ok(Some(frame)) = read_frame(&mut stdin) {
        match hook.as_str() {
            "abort" => std::process::abort(),
            "hang" => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            _ => {}
        }
        let answer = match one_job(&frame, &mut gpu) {
            Ok(b) => {
                let mut o = Out(Vec::new());
                o.u32(0);
                o.0.extend_from_slice(&b);
                o
            }
            Err((kind, m)) => {
                let mut o = Out(Vec::new());
                o.u32(1);
                o.u32(KINDS.iter().position(|k| *k == kind).unwrap_or(3) as u32);
                o.bytes(m.as_bytes());
                o
            }
        };
        if write_frame(&mut stdout, &answer.0).is_err() {
            break;
        }
    }
    Ok(())
}

/// One job's answer past its status word: the buffers (a dispatch), or the
/// buffers and the framebuffer (a draw).
fn one_job(frame: &[u8], gpu: &mut Gpu) -> Result<Vec<u8>, (GpuErrorKind, String)> {
    let bad = |m: String| (GpuErrorKind::Unsupported, format!("a bad job from the parent ({m})"));
    let mut r = Reader(frame);
    match r.u32().map_err(bad)? {
        JOB_DISPATCH => {}
        JOB_DRAW => return one_draw(r, gpu),
        k => return Err(bad(format!("no job kind {k}"))),
    }
    let backend = *Backend::ALL.get(r.u32().map_err(bad)? as usize).ok_or_else(|| bad("no such backend".into()))?;
    let timeout = Duration::from_millis(r.u32().map_err(bad)? as u64);
    let module_name = r.text().map_err(bad)?;
    let entry = r.opt().map_err(bad)?.map(|b| String::from_utf8_lossy(b).into_owned());
    let wgsl = r.wgsl().map_err(bad)?;
    let workgroups = [r.u32().map_err(bad)?, r.u32().map_err(bad)?, r.u32().map_err(bad)?];
    let n = r.u32().map_err(bad)?;
    let mut words = Vec::with_capacity(n.min(1 << 24) as usize);
    for _ in 0..n {
        words.push(r.u32().map_err(bad)?);
    }
    let buffers = r.buffers().map_err(bad)?;
    let mut aliases = std::collections::BTreeMap::new();
    for _ in 0..r.u32().map_err(bad)? {
        aliases.insert(r.key().map_err(bad)?, r.key().map_err(bad)?);
    }
    let push_constants = r.opt().map_err(bad)?.map(<[u8]>::to_vec);
    let resources = r.resources().map_err(bad)?;
    let module = spvlab_core::binary::read_words(&words).map_err(|e| bad(e.message().to_string()))?;
    let ir = spvlab_core::ir::Ir::build(module);
    if gpu.is_lost() {
        *gpu = Gpu::new_blocking().map_err(|m| (GpuErrorKind::NoDevice, m))?;
    }
    let job = Job {
        backend,
        words: &words,
        ir: &ir,
        wgsl: wgsl.as_ref(),
        entry: entry.as_deref(),
        workgroups,
        buffers: &buffers,
        aliases: &aliases,
        push_constants: push_constants.as_deref(),
        module_name: &module_name,
        resources: resources.as_ref(),
    };
    let b = gpu.run_blocking(&job, timeout).map_err(|e| (e.kind, e.message))?;
    let mut o = Out(Vec::new());
    o.buffers(&b);
    Ok(o.0)
}

fn one_draw(mut r: Reader, gpu: &mut Gpu) -> Result<Vec<u8>, (GpuErrorKind, String)> {
    let bad = |m: String| (GpuErrorKind::Unsupported, format!("a bad job from the parent ({m})"));
    let backend = *Backend::ALL.get(r.u32().map_err(bad)? as usize).ok_or_else(|| bad("no such backend".into()))?;
    let timeout = Duration::from_millis(r.u32().map_err(bad)? as u64);
    let module_name = r.text().map_err(bad)?;
    let mut stages = Vec::new();
    for _ in 0..2 {
        let entry = r.text().map_err(bad)?;
        let wgsl = r.wgsl().map_err(bad)?;
        let words = r.words().map_err(bad)?;
        let module = spvlab_core::binary::read_words(&words).map_err(|e| bad(e.message().to_string()))?;
        stages.push((entry, wgsl, words, spvlab_core::ir::Ir::build(module)));
    }
    let pipeline = r.pipeline().map_err(bad)?;
    let cmd = r.draw_cmd().map_err(bad)?;
    let mut fb = r.framebuffer().map_err(bad)?;
    let buffers = r.buffers().map_err(bad)?;
    let mut aliases = std::collections::BTreeMap::new();
    for _ in 0..r.u32().map_err(bad)? {
        aliases.insert(r.key().map_err(bad)?, r.key().map_err(bad)?);
    }
    let push_constants = r.opt().map_err(bad)?.map(<[u8]>::to_vec);
    let resources = r.resources().map_err(bad)?;
    if gpu.is_lost() {
        *gpu = Gpu::new_blocking().map_err(|m| (GpuErrorKind::NoDevice, m))?;
    }
    let stage = |i: usize| {
        let (entry, wgsl, words, ir) = &stages[i];
        DrawStage { words, ir, wgsl: wgsl.as_ref(), entry }
    };
    let job = DrawJob {
        backend,
        vertex: stage(0),
        fragment: stage(1),
        pipeline: &pipeline,
        draw: &cmd,
        buffers: &buffers,
        aliases: &aliases,
        push_constants: push_constants.as_deref(),
        resources: resources.as_ref(),
        module_name: &module_name,
    };
    let b = gpu.draw_blocking(&job, &mut fb, timeout).map_err(|e| (e.kind, e.message))?;
    let mut o = Out(Vec::new());
    o.buffers(&b);
    o.framebuffer(&fb);
    Ok(o.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A draw's pipeline, command and framebuffer cross the wire unchanged.
    #[test]
    fn a_draw_round_trips_over_the_wire() {
        let mut p = raster::Pipeline::for_framebuffer(5, 3);
        p.state.scissor = Some(PixelRect { x0: 1, y0: 0, x1: 4, y1: 3 });
        p.state.cull = CullMode::Back;
        p.state.polygon_mode = PolygonMode::Line;
        p.blend_constant = [0.25, 0.5, 0.75, 1.0];
        p.vertex_buffers.push(VertexBuffer {
            location: 2,
            format: VertexFormat::from_name("R8G8B8A8_SNORM").unwrap(),
            stride: 4,
            offset: 1,
            data: vec![1, 2, 3, 4, 5],
        });
        let cmd = DrawCmd { topology: Topology::TriangleFan, indices: DrawIndices::Indexed { indices: vec![0, 1, 9, 2], restart: Some(9) }, first_instance: 1, instances: 2 };
        let fb = Framebuffer {
            colors: vec![ColorTarget {
                location: 1,
                attachment: ColorAttachment::new(ColorFormat::R32Sfloat, 5, 3, [0.5, 0.0, 0.0, 1.0]).unwrap(),
                blend: BlendState { enable: true, src_color: BlendFactor::Src1Alpha, alpha_op: BlendOp::Max, write_mask: 0b101, ..BlendState::default() },
            }],
            depth: Some(DepthTarget {
                buffer: DepthBuffer::new(DepthFormat::D24UnormS8Uint, 5, 3, 0.25).unwrap(),
                state: DepthState { test: true, write: false, op: CompareOp::GreaterOrEqual },
                bias: Some(DepthBias { constant: 2.0, clamp: 0.5, slope: -1.0 }),
                clamp: true,
            }),
        };
        let mut o = Out(Vec::new());
        o.pipeline(&p);
        o.draw_cmd(&cmd);
        o.framebuffer(&fb);
        let mut r = Reader(&o.0);
        assert_eq!(r.pipeline().unwrap(), p);
        assert_eq!(r.draw_cmd().unwrap(), cmd);
        assert_eq!(r.framebuffer().unwrap(), fb);
        assert!(r.0.is_empty());
        // A frame cut short is an error, never a panic.
        for n in 0..o.0.len() {
            let mut r = Reader(&o.0[..n]);
            assert!(r.pipeline().and_then(|_| r.draw_cmd()).and_then(|_| r.framebuffer()).is_err());
        }
    }
}
