//! AmberScript, the compute subset and the graphics subset: a reader and a
//! runner on the reference interpreter (or any [`Executor`]).
//!
//! Read:
//! * `SHADER compute|vertex|fragment NAME SPIRV-ASM|SPIRV-HEX|GLSL
//!   [TARGET_ENV env] ... END` (a GLSL shader, or any shader, may be given
//!   precompiled by name: [`RunOptions::shaders`]) and `SHADER vertex NAME
//!   PASSTHROUGH` (Amber's passthrough vertex shader, [`PASSTHROUGH`]);
//! * `BUFFER NAME DATA_TYPE T|FORMAT F [STD140|STD430]` then `DATA v... END`,
//!   `SIZE n FILL v` or `SIZE n SERIES_FROM a INC_BY d`, or nothing after a
//!   FORMAT (a framebuffer attachment, sized by its pipeline). T: `int8`..`int64`,
//!   `uint8`..`uint64`, `float16`, `float`, `double`, `vecN<T>`, `matCxR<T>`
//!   (C columns of R rows), each also as an array `T[]`; F: a Vulkan format
//!   whose components all have one width and type (`R32G32B32A32_SFLOAT`,
//!   `R32_UINT`, ...), an image format (`B8G8R8A8_UNORM`, ...) or a depth
//!   format (`D16_UNORM`, `D24_UNORM_S8_UINT`, `D32_SFLOAT`);
//! * `PIPELINE compute NAME ... END` with `ATTACH NAME [ENTRY_POINT e]
//!   [SPECIALIZE id AS T v]...`, `ENTRY_POINT NAME e`, `BIND BUFFER NAME AS
//!   storage|uniform|storage_dynamic|uniform_dynamic DESCRIPTOR_SET s BINDING b
//!   [OFFSET o] [DESCRIPTOR_OFFSET d] [DESCRIPTOR_RANGE r]` (a buffer bound
//!   twice at one offset is one memory), images and samplers (`AS
//!   storage_image|sampled_image|combined_image_sampler [SAMPLER s]`, `BIND
//!   SAMPLER`) and `BIND BUFFER NAME AS push_constant`; `SUBGROUP NAME ...
//!   END` is read and ignored (one subgroup per workgroup);
//! * `PIPELINE graphics NAME ... END` and `DERIVE_PIPELINE NAME FROM OTHER
//!   ... END`: the same bindings, `ATTACH` of a vertex and a fragment shader
//!   (`TYPE`, `ENTRY_POINT`, `SPECIALIZE`), `FRAMEBUFFER_SIZE w h`,
//!   `VIEWPORT x y SIZE w h [MIN_DEPTH a] [MAX_DEPTH b]`, `BIND BUFFER b AS
//!   color LOCATION n`, `AS depth_stencil`, `VERTEX_DATA b LOCATION n
//!   [OFFSET o] [STRIDE s] [FORMAT f]`, `INDEX_DATA b`, `DEPTH ... END`
//!   (TEST, WRITE, CLAMP, COMPARE_OP, BOUNDS, BIAS), `BLEND ... END`,
//!   `CULL_MODE`, `FRONT_FACE`, `POLYGON_MODE`, `LINE_WIDTH` (see
//!   `graphics.rs` for how a draw is made of them);
//! * `RUN NAME x y z`; `RUN NAME DRAW_RECT POS x y SIZE w h`, `DRAW_GRID POS
//!   x y SIZE w h CELLS c r`, `DRAW_ARRAY AS topology [INDEXED] [START_IDX s]
//!   [COUNT c] [START_INSTANCE i] [INSTANCE_COUNT n]`; `CLEAR_COLOR p r g b
//!   a`, `CLEAR_DEPTH p d`, `CLEAR_STENCIL p s` (read, not modelled), `CLEAR
//!   p`; `EXPECT NAME IDX off [TOLERANCE t...] EQ|NE|LT|LE|GT|GE
//!   v...` (off is a byte offset; a tolerance with `%` is relative);
//!   `EXPECT image IDX x y SIZE w h EQ_RGBA r g b a | EQ_RGB r g b
//!   [TOLERANCE t...]`; `EXPECT A EQ_BUFFER B`; `EXPECT A RMSE_BUFFER B
//!   TOLERANCE t`; `EXPECT A EQ_HISTOGRAM_EMD_BUFFER B TOLERANCE t` (Amber's
//!   semantics, `probe.rs`); `REPEAT n ... END`; `COPY A TO B`;
//! * `DEVICE_FEATURE`, `DEVICE_EXTENSION`, `INSTANCE_EXTENSION`,
//!   `DEVICE_PROPERTY` and `SET ENGINE_DATA` lines are requirements of a
//!   device and are ignored.
//!
//! A line ending in `\` goes on on the next line. Geometry and tessellation
//! (their shaders, `PATCH_CONTROL_POINTS`, patch and adjacency topologies)
//! are the error "graphics: not run" ([`AmberError::is_graphics`]), and so
//! is a draw on an executor that does not draw ([`ExecError::NoDraw`]).
//! Anything else is an error located by its line and column.

pub mod export;
mod graphics;
mod image;
pub mod page;
mod probe;

pub use graphics::{Attach, ColorBind, DEFAULT_FRAMEBUFFER, Draw, Graphics, PASSTHROUGH, StateLines, VertexData};

use crate::TargetEnv;
use crate::diag::line_col;
use crate::interp::{self, Buffers, Options, f64_to_half, half_to_f64};
use crate::ir::Ir;
use crate::text::asm::{AsmOptions, assemble_with_map};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

/// An error in an Amber file or in its run, at a line and column (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AmberError {
    /// The script has a graphics pipeline: recognised, not run (neither a
    /// pass nor a failure).
    pub graphics: bool,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// The message of a graphics pipeline, which is recognised but not run.
pub const GRAPHICS: &str = "graphics: not run";

impl fmt::Display for AmberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl AmberError {
    /// The script has a graphics pipeline (not run, neither pass nor fail).
    pub fn is_graphics(&self) -> bool {
        self.graphics
    }
}

fn error(line: u32, message: impl Into<String>) -> AmberError {
    AmberError {
        graphics: false,
        line,
        col: 1,
        message: message.into(),
    }
}

fn error_at(t: &Tok, message: impl Into<String>) -> AmberError {
    AmberError {
        graphics: false,
        line: t.line,
        col: t.col,
        message: message.into(),
    }
}

/// A scalar's kind and width in bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

impl Scalar {
    fn parse(s: &str) -> Option<Scalar> {
        let int = |width, signed| Some(Scalar::Int { width, signed });
        match s {
            "int8" => int(8, true),
            "int16" => int(16, true),
            "int32" => int(32, true),
            "int64" => int(64, true),
            "uint8" => int(8, false),
            "uint16" => int(16, false),
            "uint32" => int(32, false),
            "uint64" => int(64, false),
            "float16" => Some(Scalar::Float { width: 16 }),
            "float" => Some(Scalar::Float { width: 32 }),
            "double" => Some(Scalar::Float { width: 64 }),
            _ => None,
        }
    }

    /// The size in bytes.
    pub fn size(self) -> usize {
        match self {
            Scalar::Int { width, .. } | Scalar::Float { width } => width as usize / 8,
        }
    }

    /// The bits of value `s`.
    fn value(self, s: &str) -> Option<u64> {
        match self {
            Scalar::Int { width, signed } => {
                let (neg, digits) = match s.strip_prefix('-') {
                    Some(d) => (true, d),
                    None => (false, s),
                };
                let v: u64 = match digits
                    .strip_prefix("0x")
                    .or_else(|| digits.strip_prefix("0X"))
                {
                    Some(h) => u64::from_str_radix(h, 16).ok()?,
                    // An integer may be written as a float with no fraction (`0.0`).
                    None => match digits.parse() {
                        Ok(v) => v,
                        Err(_) => {
                            let f: f64 = digits.parse().ok()?;
                            if !((0.0..18446744073709551616.0).contains(&f)
                                && f == (f as u64) as f64)
                            {
                                return None;
                            }
                            f as u64
                        }
                    },
                };
                if neg && !signed && v != 0 {
                    return None;
                }
                let bits = if neg { v.wrapping_neg() } else { v };
                let m = mask(width);
                // The value must fit the width (as signed or unsigned).
                let fits = if width >= 64 {
                    !neg || v <= 1u64 << 63
                } else if neg {
                    v <= 1u64 << (width - 1)
                } else {
                    v <= m
                };
                fits.then_some(bits & m)
            }
            Scalar::Float { width } => {
                // Hex bits are allowed for floats too (`0x7f800000`).
                let f: f64 = match s.strip_prefix("0x") {
                    Some(h) => {
                        return u64::from_str_radix(h, 16)
                            .ok()
                            .filter(|b| *b <= mask(width));
                    }
                    None => s.parse().ok()?,
                };
                Some(fput(f, width))
            }
        }
    }

    /// The value of bits as a number.
    fn num(self, bits: u64) -> Num {
        match self {
            Scalar::Int {
                width,
                signed: true,
            } => {
                let s = 64 - width.min(64);
                Num::Int(((bits << s) as i64 >> s) as i128)
            }
            Scalar::Int { width, .. } => Num::Int((bits & mask(width)) as i128),
            Scalar::Float { width } => Num::Float(fget(bits, width)),
        }
    }

    fn show(self, bits: u64) -> String {
        match self.num(bits) {
            Num::Int(i) => i.to_string(),
            Num::Float(f) => format!("{f}"),
        }
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

fn fget(bits: u64, width: u32) -> f64 {
    match width {
        16 => half_to_f64(bits as u16),
        32 => f32::from_bits(bits as u32) as f64,
        _ => f64::from_bits(bits),
    }
}

fn fput(f: f64, width: u32) -> u64 {
    match width {
        16 => f64_to_half(f) as u64,
        32 => (f as f32).to_bits() as u64,
        _ => f.to_bits(),
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    fn f(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

/// The memory layout of a buffer's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Std140,
    Std430,
}

/// A buffer's element type: a scalar, a vector (`rows` components) or a
/// matrix (`cols` columns of `rows` components).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataType {
    pub scalar: Scalar,
    pub rows: u32,
    pub cols: u32,
}

impl DataType {
    fn parse(s: &str) -> Option<DataType> {
        if let Some(scalar) = Scalar::parse(s) {
            return Some(DataType {
                scalar,
                rows: 1,
                cols: 1,
            });
        }
        let (head, inner) = s.strip_suffix('>')?.split_once('<')?;
        let scalar = Scalar::parse(inner)?;
        let (rows, cols) = if let Some(n) = head.strip_prefix("vec") {
            (n.parse().ok()?, 1)
        } else {
            let (c, r) = head.strip_prefix("mat")?.split_once('x')?;
            (r.parse().ok()?, c.parse().ok()?)
        };
        ((2..=4).contains(&rows) && (1..=4).contains(&cols)).then_some(DataType {
            scalar,
            rows,
            cols,
        })
    }

    /// A Vulkan format whose components share one width and type
    /// (`R32G32B32A32_SFLOAT`, `R8_UINT`, ...).
    fn format(s: &str) -> Option<DataType> {
        let (comps, kind) = s.rsplit_once('_')?;
        let mut widths = Vec::new();
        let mut rest = comps;
        while let Some(c) = rest.chars().next() {
            if !"RGBA".contains(c) {
                return None;
            }
            rest = &rest[1..];
            let n = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            widths.push(rest[..n].parse::<u32>().ok()?);
            rest = &rest[n..];
        }
        let width = *widths.first()?;
        if widths.iter().any(|w| *w != width) || !matches!(width, 8 | 16 | 32 | 64) {
            return None;
        }
        let scalar = match kind {
            "SFLOAT" if width >= 16 => Scalar::Float { width },
            "UINT" => Scalar::Int {
                width,
                signed: false,
            },
            "SINT" => Scalar::Int {
                width,
                signed: true,
            },
            _ => return None,
        };
        Some(DataType {
            scalar,
            rows: widths.len() as u32,
            cols: 1,
        })
    }

    fn comps(self) -> usize {
        (self.rows * self.cols) as usize
    }

    /// The byte stride between two columns (of a matrix) or the size of a
    /// vector, by the layout's rules.
    fn col_stride(self, layout: Layout) -> usize {
        let s = self.scalar.size();
        let v = match self.rows {
            1 => s,
            2 => 2 * s,
            _ => 4 * s,
        };
        if layout == Layout::Std140 && self.cols > 1 {
            v.next_multiple_of(16)
        } else {
            v
        }
    }

    /// The byte stride between two elements of the buffer.
    pub fn stride(self, layout: Layout) -> usize {
        let n = self.col_stride(layout) * self.cols as usize;
        if layout == Layout::Std140 {
            n.next_multiple_of(16)
        } else {
            n
        }
    }

    /// The byte offset of component `k` (counting through the elements).
    fn at(self, layout: Layout, k: usize) -> usize {
        let n = self.comps();
        let (e, c) = (k / n, k % n);
        let rows = self.rows as usize;
        e * self.stride(layout)
            + (c / rows) * self.col_stride(layout)
            + (c % rows) * self.scalar.size()
    }
}

/// A word of a script with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Tok {
    text: String,
    line: u32,
    col: u32,
}

/// What a shader's text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderFormat {
    SpirvAsm,
    SpirvHex,
    Glsl,
}

/// The stage a `SHADER` is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderStage {
    Compute,
    Vertex,
    Fragment,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shader {
    pub name: String,
    pub line: u32,
    pub stage: ShaderStage,
    /// Amber's passthrough vertex shader (`PASSTHROUGH`): `text` is
    /// [`PASSTHROUGH`], which is no text of the script.
    pub passthrough: bool,
    pub format: ShaderFormat,
    pub env: Option<TargetEnv>,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub name: String,
    pub line: u32,
    pub ty: DataType,
    pub layout: Layout,
    pub data: Vec<u8>,
    /// The Vulkan format it was made with (`FORMAT`, or a format as its
    /// DATA_TYPE), for a texel buffer or an image.
    pub format: Option<String>,
    /// An IMAGE's width, height and depth, and its sample count.
    pub image: Option<([u32; 3], u32)>,
}

/// How a buffer is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindKind {
    /// storage, uniform, storage_dynamic, uniform_dynamic: the bytes from
    /// `offset` (OFFSET + DESCRIPTOR_OFFSET), `range` of them if given
    /// (DESCRIPTOR_RANGE), at (set, binding).
    Descriptor {
        set: u32,
        binding: u32,
        offset: usize,
        range: Option<usize>,
    },
    PushConstant,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bind {
    pub buffer: String,
    pub kind: BindKind,
    pub line: u32,
    /// The element of an array of descriptors (`BIND BUFFER_ARRAY`), and
    /// whether the binding is one (0 and false for `BIND BUFFER`).
    pub index: u32,
    pub array: bool,
    /// Bound as an image or texel buffer.
    pub image: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    pub name: String,
    pub line: u32,
    pub shader: Option<String>,
    pub entry: Option<String>,
    /// SPECIALIZE id AS T value: (id, bits).
    pub specialize: Vec<(u32, u64)>,
    pub binds: Vec<Bind>,
    /// `BIND SAMPLER name DESCRIPTOR_SET s BINDING b`: (name, s, b, line).
    pub sampler_binds: Vec<(String, u32, u32, u32)>,
    /// `SHADER_OPTIMIZATION` asked for `--graphics-robust-access`, the one
    /// spirv-opt pass the runner emulates (see
    /// [`crate::interp::Options::robust_access`]).
    pub robust_access: bool,
    /// A `PIPELINE graphics`: its stages, attachments and fixed function
    /// (`None` for a compute pipeline).
    pub graphics: Option<alloc::boxed::Box<Graphics>>,
}

/// An EXPECT comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    fn parse(s: &str) -> Option<Cmp> {
        Some(match s {
            "EQ" => Cmp::Eq,
            "NE" => Cmp::Ne,
            "LT" => Cmp::Lt,
            "LE" => Cmp::Le,
            "GT" => Cmp::Gt,
            "GE" => Cmp::Ge,
            _ => return None,
        })
    }
}

/// A TOLERANCE value: absolute, or a percentage of the expected value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub value: f64,
    pub percent: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Run {
        pipeline: String,
        groups: [u32; 3],
        line: u32,
    },
    /// `EXPECT buffer IDX offset [TOLERANCE ...] cmp values` (values as bits
    /// of the buffer's scalar type).
    Expect {
        buffer: String,
        offset: usize,
        cmp: Cmp,
        tolerance: Vec<Tolerance>,
        values: Vec<u64>,
        line: u32,
    },
    /// `EXPECT a EQ_BUFFER b`, `RMSE_BUFFER b TOLERANCE t` or
    /// `EQ_HISTOGRAM_EMD_BUFFER b TOLERANCE t`.
    ExpectBuffer {
        a: String,
        b: String,
        cmp: BufferCmp,
        line: u32,
    },
    Repeat {
        count: u32,
        body: Vec<Command>,
    },
    Copy {
        from: String,
        to: String,
        line: u32,
    },
    /// `EXPECT image IDX x y SIZE w h EQ_RGBA r g b a [TOLERANCE t...]`, or
    /// `EQ_RGB r g b` (`alpha` false: the alpha is not compared).
    ExpectRgba {
        buffer: String,
        rect: [u32; 4],
        rgba: [u32; 4],
        alpha: bool,
        tolerance: Vec<Tolerance>,
        line: u32,
    },
    /// `CLEAR_COLOR p r g b a` (0 to 255 each, kept divided by 255).
    ClearColor {
        pipeline: String,
        rgba: [f32; 4],
        line: u32,
    },
    /// `CLEAR_DEPTH p d`.
    ClearDepth {
        pipeline: String,
        depth: f32,
        line: u32,
    },
    /// `CLEAR p`: the pipeline's colour attachments to its clear colour,
    /// its depth attachment to its clear depth.
    Clear {
        pipeline: String,
        line: u32,
    },
    /// `RUN p DRAW_RECT | DRAW_GRID | DRAW_ARRAY ...` on a graphics pipeline.
    Draw {
        pipeline: String,
        draw: Draw,
        line: u32,
    },
}

/// How `EXPECT a ... b` compares two buffers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferCmp {
    /// `EQ_BUFFER`: every value equal.
    Eq,
    /// `RMSE_BUFFER b TOLERANCE t`: the root mean square of the values'
    /// differences at most t.
    Rmse(f64),
    /// `EQ_HISTOGRAM_EMD_BUFFER b TOLERANCE t`: the earth mover's distance
    /// of the channels' histograms at most t (8-bit four-channel images).
    HistogramEmd(f64),
}

/// A parsed Amber script.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script {
    pub shaders: Vec<Shader>,
    pub buffers: Vec<Buffer>,
    pub pipelines: Vec<Pipeline>,
    pub commands: Vec<Command>,
    /// `SAMPLER name ...`: its state.
    pub samplers: Vec<(String, interp::image::Sampler)>,
}

/// Reads a script line by line, joining `\` continuations.
struct Reader<'s> {
    lines: Vec<&'s str>,
    next: usize,
}

impl<'s> Reader<'s> {
    /// The words of the next line that has any, with their line number (of
    /// the first line).
    fn line(&mut self) -> Option<(u32, Vec<Tok>)> {
        let mut toks = Vec::new();
        let mut first = 0;
        while let Some(l) = self.lines.get(self.next) {
            self.next += 1;
            let line = self.next as u32;
            if toks.is_empty() {
                first = line;
            }
            let code = l.split('#').next().unwrap_or("");
            let mut col = 0usize;
            for w in code.split_whitespace() {
                let at = code[col..].find(w).map_or(col, |i| col + i);
                col = at + w.len();
                toks.push(Tok {
                    text: w.into(),
                    line,
                    col: code[..at].chars().count() as u32 + 1,
                });
            }
            if toks.last().is_some_and(|t| t.text == "\\") {
                toks.pop();
                continue;
            }
            if !toks.is_empty() {
                return Some((first, toks));
            }
        }
        None
    }

    /// The raw lines up to a line that is `END`, joined.
    fn block(&mut self, line: u32, what: &str) -> Result<String, AmberError> {
        let mut text = String::new();
        loop {
            let Some(l) = self.lines.get(self.next) else {
                return Err(error(line, format!("{what} without END")));
            };
            self.next += 1;
            if l.trim() == "END" {
                return Ok(text);
            }
            text.push_str(l);
            text.push('\n');
        }
    }
}

/// The words of one line, taken in turn.
struct Words<'t> {
    toks: &'t [Tok],
    at: usize,
    line: u32,
}

impl<'t> Words<'t> {
    fn new(toks: &'t [Tok], line: u32) -> Words<'t> {
        Words { toks, at: 0, line }
    }

    fn peek(&self) -> Option<&'t str> {
        self.toks.get(self.at).map(|t| t.text.as_str())
    }

    fn next(&mut self) -> Option<&'t str> {
        let t = self.peek();
        self.at += 1;
        t
    }

    /// An error at the last word taken (or at the end of the line).
    fn err(&self, message: impl Into<String>) -> AmberError {
        match (self.toks.get(self.at.saturating_sub(1)), self.toks.last()) {
            (Some(t), _) => error_at(t, message),
            // Past the end: just after the last word.
            (None, Some(t)) => AmberError {
                graphics: false,
                line: t.line,
                col: t.col + t.text.chars().count() as u32,
                message: message.into(),
            },
            (None, None) => error(self.line, message),
        }
    }

    fn word(&mut self, what: &str) -> Result<&'t str, AmberError> {
        match self.next() {
            Some(w) => Ok(w),
            None => Err(self.err(format!("{what} is missing"))),
        }
    }

    fn num<T: core::str::FromStr>(&mut self, what: &str) -> Result<T, AmberError> {
        let t = self.word(what)?;
        t.parse()
            .map_err(|_| self.err(format!("{what}: `{t}` is not a number")))
    }

    fn expect(&mut self, want: &str) -> Result<(), AmberError> {
        match self.next() {
            Some(t) if t == want => Ok(()),
            Some(t) => Err(self.err(format!("expected `{want}`, found `{t}`"))),
            None => Err(self.err(format!("expected `{want}`"))),
        }
    }

    fn end(&mut self) -> Result<(), AmberError> {
        match self.next() {
            None => Ok(()),
            Some(t) => Err(self.err(format!("not supported: `{t}` here"))),
        }
    }

    fn rest(&mut self) -> &'t [Tok] {
        let r = &self.toks[self.at.min(self.toks.len())..];
        self.at = self.toks.len();
        r
    }
}

fn graphics(line: u32, what: &str) -> AmberError {
    AmberError { graphics: true, ..error(line, format!("{GRAPHICS} ({what})")) }
}

/// Reads a file that a script names (`BUFFER ... FILE`), by its name as
/// written: the bytes, or why it cannot be read.
pub type FileLoader<'a> = &'a mut dyn FnMut(&str) -> Result<Vec<u8>, String>;

/// Parse an Amber script that names no file (one that does is an error).
pub fn parse(src: &str) -> Result<Script, AmberError> {
    parse_with(src, &mut |_| Err(String::from("no files here: the script must stand alone")))
}

/// Parse an Amber script, reading the files it names with `load` (Amber reads
/// them relative to the script's folder).
pub fn parse_with(src: &str, load: FileLoader) -> Result<Script, AmberError> {
    let mut r = Reader {
        lines: src.lines().collect(),
        next: 0,
    };
    let mut script = Script::default();
    let mut stack: Vec<(u32, Vec<Command>, u32)> = Vec::new();
    while let Some((line, toks)) = r.line() {
        let mut w = Words::new(&toks, line);
        let cmd = w.word("a command")?;
        let command = match cmd {
            "SHADER" => {
                let kind = w.word("the shader's stage")?;
                let stage = match kind {
                    "compute" => ShaderStage::Compute,
                    "vertex" => ShaderStage::Vertex,
                    "fragment" => ShaderStage::Fragment,
                    _ => {
                        let _ = r.block(line, "SHADER");
                        return Err(graphics(line, &format!("SHADER {kind}")));
                    }
                };
                let name = w.word("the shader's name")?;
                let format = match w.word("the shader's format")? {
                    "SPIRV-ASM" => ShaderFormat::SpirvAsm,
                    "SPIRV-HEX" => ShaderFormat::SpirvHex,
                    "GLSL" => ShaderFormat::Glsl,
                    "PASSTHROUGH" if stage == ShaderStage::Vertex => {
                        w.end()?;
                        script.shaders.push(Shader {
                            name: name.into(),
                            line,
                            stage,
                            passthrough: true,
                            format: ShaderFormat::SpirvAsm,
                            env: None,
                            text: graphics::PASSTHROUGH.into(),
                        });
                        continue;
                    }
                    "PASSTHROUGH" => return Err(w.err("PASSTHROUGH is a vertex shader only")),
                    f => return Err(w.err(format!("not supported: shader format {f}"))),
                };
                let mut env = None;
                if w.peek() == Some("TARGET_ENV") {
                    w.next();
                    let e = w.word("TARGET_ENV")?;
                    env = Some(
                        TargetEnv::parse(e)
                            .ok_or_else(|| w.err(format!("unknown TARGET_ENV `{e}`")))?,
                    );
                }
                w.end()?;
                let text = r.block(line, "SHADER")?;
                script.shaders.push(Shader {
                    name: name.into(),
                    line,
                    stage,
                    passthrough: false,
                    format,
                    env,
                    text,
                });
                None
            }
            "BUFFER" => {
                let b = parse_buffer(&mut w, &mut r, line, load)?;
                script.buffers.push(b);
                None
            }
            "IMAGE" => {
                let b = image::parse_image(&mut w, &mut r, line, load)?;
                script.buffers.push(b);
                None
            }
            "SAMPLER" => {
                let s = image::parse_sampler(&mut w)?;
                script.samplers.push(s);
                None
            }
            "PIPELINE" => {
                let kind = w.word("the pipeline's kind")?;
                let gfx = match kind {
                    "compute" => None,
                    "graphics" => Some(alloc::boxed::Box::new(Graphics::default())),
                    _ => return Err(graphics(line, &format!("PIPELINE {kind}"))),
                };
                let name = w.word("the pipeline's name")?;
                w.end()?;
                if script.pipelines.iter().any(|p| p.name == name) {
                    return Err(w.err(format!("a second pipeline named `{name}`")));
                }
                let p = Pipeline {
                    name: name.into(),
                    line,
                    shader: None,
                    entry: None,
                    specialize: Vec::new(),
                    binds: Vec::new(),
                    sampler_binds: Vec::new(),
                    robust_access: false,
                    graphics: gfx,
                };
                let p = parse_pipeline(&mut r, p, &script)?;
                graphics::size_attachments(&mut script, &p);
                script.pipelines.push(p);
                None
            }
            "DERIVE_PIPELINE" => {
                // DERIVE_PIPELINE new FROM old: a copy of old, then the
                // block's commands on it.
                let name = w.word("the pipeline's name")?;
                w.expect("FROM")?;
                let from = w.word("the pipeline it derives from")?;
                w.end()?;
                let Some(old) = script.pipelines.iter().find(|p| p.name == from) else {
                    return Err(w.err(format!("no pipeline named `{from}`")));
                };
                if script.pipelines.iter().any(|p| p.name == name) {
                    return Err(w.err(format!("a second pipeline named `{name}`")));
                }
                let p = Pipeline { name: name.into(), line, ..old.clone() };
                let p = parse_pipeline(&mut r, p, &script)?;
                graphics::size_attachments(&mut script, &p);
                script.pipelines.push(p);
                None
            }
            "RUN" => {
                // TIMED_EXECUTION asks for a timing; the run is the same.
                if w.peek() == Some("TIMED_EXECUTION") {
                    w.next();
                }
                let pipeline = w.word("the pipeline")?;
                let p = script.pipelines.iter().find(|p| p.name == pipeline);
                if p.is_some_and(|p| p.graphics.is_some()) || matches!(w.peek(), Some("DRAW_RECT" | "DRAW_GRID" | "DRAW_ARRAY")) {
                    let draw = graphics::parse_draw(&mut w, &script, pipeline)?;
                    Some(Command::Draw { pipeline: pipeline.into(), draw, line })
                } else {
                let groups = [w.num("RUN x")?, w.num("RUN y")?, w.num("RUN z")?];
                w.end()?;
                Some(Command::Run {
                    pipeline: pipeline.into(),
                    groups,
                    line,
                })
                }
            }
            "EXPECT" => Some(parse_expect(&mut w, &script, line)?),
            "REPEAT" => {
                let count = w.num("REPEAT's count")?;
                w.end()?;
                stack.push((count, Vec::new(), line));
                None
            }
            "END" if !stack.is_empty() => {
                w.end()?;
                let (count, body, _) = stack.pop().unwrap_or_default();
                Some(Command::Repeat { count, body })
            }
            "COPY" => {
                let from = w.word("COPY's source")?;
                w.expect("TO")?;
                let to = w.word("COPY's destination")?;
                w.end()?;
                for n in [from, to] {
                    if !script.buffers.iter().any(|b| b.name == n) {
                        return Err(w.err(format!("no buffer named `{n}`")));
                    }
                }
                Some(Command::Copy {
                    from: from.into(),
                    to: to.into(),
                    line,
                })
            }
            "CLEAR" | "CLEAR_COLOR" | "CLEAR_DEPTH" | "CLEAR_STENCIL" => {
                graphics::parse_clear(&mut w, &script, cmd, line)?
            }
            "DEVICE_FEATURE" | "DEVICE_EXTENSION" | "INSTANCE_EXTENSION" | "DEVICE_PROPERTY"
            | "SET" => None,
            "#!amber" => None,
            x => return Err(w.err(format!("not supported: {x}"))),
        };
        if let Some(c) = command {
            match stack.last_mut() {
                Some((_, body, _)) => body.push(c),
                None => script.commands.push(c),
            }
        }
    }
    if let Some((_, _, line)) = stack.last() {
        return Err(error(*line, "REPEAT without END"));
    }
    Ok(script)
}

fn parse_buffer(w: &mut Words, r: &mut Reader, line: u32, load: FileLoader) -> Result<Buffer, AmberError> {
    let name = w.word("the buffer's name")?;
    let mut format = None;
    let ty = match w.word("DATA_TYPE or FORMAT")? {
        "DATA_TYPE" => {
            let t = w.word("DATA_TYPE")?;
            // `T[]`, an array of T: its elements laid out as T's are (in
            // STD140 each takes a multiple of 16 bytes, as every element
            // does here).
            let t = t.strip_suffix("[]").unwrap_or(t);
            // A format name is a data type too (`R32G32B32A32_SFLOAT`).
            match DataType::parse(t) {
                Some(d) => d,
                None => {
                    format = Some(String::from(t));
                    DataType::format(t)
                        .or_else(|| image::raw_type(t))
                        .ok_or_else(|| w.err(format!("not supported: DATA_TYPE `{t}`")))?
                }
            }
        }
        "FORMAT" => {
            let t = w.word("FORMAT")?;
            format = Some(String::from(t));
            DataType::format(t)
                .or_else(|| image::raw_type(t))
                .or_else(|| graphics::depth_type(t))
                .ok_or_else(|| w.err(format!("not supported: FORMAT `{t}`")))?
        }
        x => return Err(w.err(format!("expected `DATA_TYPE` or `FORMAT`, found `{x}`"))),
    };
    let mut layout = Layout::Std430;
    if w.peek().is_none() && format.is_some() {
        // A buffer with a format and no contents: a framebuffer attachment,
        // sized by its pipeline's FRAMEBUFFER_SIZE.
        return Ok(Buffer { name: name.into(), line, ty, layout, data: Vec::new(), format, image: None });
    }
    let mut next = w.word("DATA or SIZE")?;
    if next == "STD140" || next == "STD430" {
        layout = if next == "STD140" {
            Layout::Std140
        } else {
            Layout::Std430
        };
        next = w.word("DATA or SIZE")?;
    }
    let mut values: Vec<u64> = Vec::new();
    let put = |t: &Tok, values: &mut Vec<u64>| -> Result<(), AmberError> {
        let bits = ty.scalar.value(&t.text).ok_or_else(|| {
            error_at(
                t,
                format!("`{}` is not a value of the buffer's type", t.text),
            )
        })?;
        values.push(bits);
        Ok(())
    };
    let mut elements;
    let mut raw: Option<Vec<u8>> = None;
    match next {
        "SIZE" => {
            let n: usize = w.num("SIZE")?;
            if n > 1 << 24 {
                return Err(w.err("SIZE is too large"));
            }
            elements = n;
            let comps = n * ty.comps();
            match w.word("FILL or SERIES_FROM")? {
                "FILL" => {
                    let t = w.toks.get(w.at).cloned();
                    w.word("FILL's value")?;
                    let t = t.unwrap_or(Tok {
                        text: String::new(),
                        line,
                        col: 1,
                    });
                    put(&t, &mut values)?;
                    let v = values[0];
                    values.resize(comps, v);
                }
                "SERIES_FROM" => {
                    let from = w.word("SERIES_FROM's value")?;
                    w.expect("INC_BY")?;
                    let inc = w.word("INC_BY's value")?;
                    match ty.scalar {
                        Scalar::Int { width, .. } => {
                            let parse = |s: &str| -> Option<i128> { s.parse::<i128>().ok() };
                            let (Some(a), Some(d)) = (parse(from), parse(inc)) else {
                                return Err(w.err("SERIES_FROM and INC_BY need integers"));
                            };
                            for k in 0..comps as i128 {
                                values.push((a + k * d) as u64 & mask(width));
                            }
                        }
                        Scalar::Float { width } => {
                            let (Ok(a), Ok(d)) = (from.parse::<f64>(), inc.parse::<f64>()) else {
                                return Err(w.err("SERIES_FROM and INC_BY need numbers"));
                            };
                            for k in 0..comps {
                                values.push(fput(a + k as f64 * d, width));
                            }
                        }
                    }
                }
                "FILE" => {
                    // FILE [TEXT | BINARY | PNG] name: TEXT holds values as
                    // DATA does, BINARY the buffer's bytes (its size, not
                    // SIZE, gives the element count, as in Amber).
                    let mut kind = w.word("FILE's kind or name")?;
                    let name = match kind {
                        "TEXT" | "BINARY" | "PNG" => w.word("the file's name")?,
                        n => {
                            kind = "PNG";
                            n
                        }
                    };
                    if kind == "PNG" {
                        return Err(w.err("not supported: BUFFER ... FILE PNG (image data)"));
                    }
                    let bytes = load(name).map_err(|m| w.err(format!("cannot read `{name}`: {m}")))?;
                    if kind == "BINARY" {
                        raw = Some(bytes);
                    } else {
                        let text = core::str::from_utf8(&bytes)
                            .map_err(|_| w.err(format!("`{name}` is not UTF-8 text")))?;
                        values.clear();
                        let mut file = Reader {
                            lines: text.lines().collect(),
                            next: 0,
                        };
                        while let Some((_, toks)) = file.line() {
                            for t in &toks {
                                put(t, &mut values).map_err(|e| {
                                    w.err(format!("{name}:{}:{}: {}", e.line, e.col, e.message))
                                })?;
                            }
                        }
                        elements = values.len().div_ceil(ty.comps());
                    }
                }
                x => return Err(w.err(format!("not supported: BUFFER ... SIZE n {x}"))),
            }
            w.end()?;
        }
        "DATA" => {
            let mut rest: Vec<Tok> = w.rest().to_vec();
            'data: loop {
                for t in &rest {
                    if t.text == "END" {
                        break 'data;
                    }
                    put(t, &mut values)?;
                }
                let Some((_, toks)) = r.line() else {
                    return Err(error(line, "BUFFER DATA without END"));
                };
                rest = toks;
            }
            elements = values.len().div_ceil(ty.comps());
        }
        "WIDTH" | "HEIGHT" | "MIP_LEVELS" | "SAMPLES" => {
            return Err(w.err("not supported: image buffers"));
        }
        x => return Err(w.err(format!("not supported: BUFFER ... {x}"))),
    }
    let size = ty.scalar.size();
    let data = match raw {
        Some(bytes) => bytes,
        None => {
            let mut data = vec![0u8; elements * ty.stride(layout)];
            // As `DataType::at` places value k, element by element (the
            // bytes start zeroed: a zero needs no write).
            let (n, rows) = (ty.comps().max(1), ty.rows.max(1) as usize);
            let (stride, col) = (ty.stride(layout), ty.col_stride(layout));
            for (e, chunk) in values.chunks(n).enumerate() {
                for (c, bits) in chunk.iter().enumerate() {
                    if *bits == 0 {
                        continue;
                    }
                    let at = e * stride + (c / rows) * col + (c % rows) * size;
                    if let Some(d) = data.get_mut(at..at + size) {
                        d.copy_from_slice(&bits.to_le_bytes()[..size]);
                    }
                }
            }
            data
        }
    };
    Ok(Buffer {
        name: name.into(),
        line,
        ty,
        layout,
        data,
        format,
        image: None,
    })
}

/// `SPECIALIZE id AS T value` after its first word: (id, the value's bits).
fn parse_specialize(w: &mut Words) -> Result<(u32, u64), AmberError> {
    let id = w.num("SPECIALIZE's id")?;
    w.expect("AS")?;
    let t = w.word("SPECIALIZE's type")?;
    let s = Scalar::parse(t).ok_or_else(|| w.err(format!("not supported: SPECIALIZE ... AS {t}")))?;
    let v = w.word("SPECIALIZE's value")?;
    let bits = s.value(v).ok_or_else(|| w.err(format!("`{v}` is not a {t}")))?;
    Ok((id, bits))
}

/// The body of `PIPELINE` (or `DERIVE_PIPELINE`) up to its END, read onto
/// `p`.
fn parse_pipeline(r: &mut Reader, mut p: Pipeline, script: &Script) -> Result<Pipeline, AmberError> {
    loop {
        let Some((line, toks)) = r.line() else {
            return Err(error(p.line, "PIPELINE without END"));
        };
        let mut w = Words::new(&toks, line);
        match w.word("a pipeline command")? {
            "END" => {
                if p.graphics.is_some() {
                    graphics::validate(&p, line)?;
                }
                break;
            }
            "ATTACH" if p.graphics.is_some() => {
                let a = graphics::parse_attach(&mut w, script, line)?;
                if let Some(g) = p.graphics.as_mut() {
                    g.attach.retain(|x| x.stage != a.stage);
                    g.attach.push(a);
                }
            }
            "ENTRY_POINT" if p.graphics.is_some() => {
                let shader = w.word("the shader")?;
                let entry = w.word("the entry point")?;
                w.end()?;
                let a = p.graphics.as_mut().and_then(|g| g.attach.iter_mut().find(|a| a.shader == shader));
                match a {
                    Some(a) => a.entry = Some(entry.into()),
                    None => return Err(w.err(format!("`{shader}` is not attached"))),
                }
            }
            "ATTACH" => {
                p.shader = Some(w.word("the shader")?.into());
                while let Some(x) = w.next() {
                    match x {
                        "ENTRY_POINT" => p.entry = Some(w.word("ENTRY_POINT")?.into()),
                        "SPECIALIZE" => p.specialize.push(parse_specialize(&mut w)?),
                        "TYPE" => {
                            let t = w.word("TYPE")?;
                            if t != "compute" {
                                return Err(graphics(line, &format!("ATTACH ... TYPE {t}")));
                            }
                        }
                        x => return Err(w.err(format!("not supported: ATTACH ... {x}"))),
                    }
                }
            }
            "ENTRY_POINT" => {
                w.word("the shader")?;
                p.entry = Some(w.word("the entry point")?.into());
                w.end()?;
            }
            "SUBGROUP" => {
                r.block(line, "SUBGROUP")?;
            }
            "SHADER_OPTIMIZATION" => {
                // spirv-opt passes, one per line up to END: the runner has no
                // optimizer, but it runs the module as --graphics-robust-access
                // leaves it (indices clamped); any other pass is an error.
                w.word("the shader")?;
                w.end()?;
                let first = r.next;
                let text = r.block(line, "SHADER_OPTIMIZATION")?;
                for (k, l) in text.lines().enumerate() {
                    let pass = l.split('#').next().unwrap_or("").trim();
                    match pass {
                        "" => {}
                        "--graphics-robust-access" => p.robust_access = true,
                        x => {
                            let col = l.find(x).map_or(1, |c| c as u32 + 1);
                            return Err(AmberError {
                                graphics: false,
                                line: (first + k + 1) as u32,
                                col,
                                message: format!(
                                    "not supported: the spirv-opt pass `{x}` (the runner emulates only --graphics-robust-access)"
                                ),
                            });
                        }
                    }
                }
            }
            "FRAMEBUFFER_SIZE" if p.graphics.is_none() => {
                // Read and ignored in a compute pipeline, as Amber does.
                let (_, _): (u32, u32) = (w.num("the width")?, w.num("the height")?);
                w.end()?;
            }
            "COMPILE_OPTIONS" => {
                return Err(w.err("not supported: COMPILE_OPTIONS (shader compiler options)"));
            }
            "BIND" => {
                let what = w.word("BUFFER")?;
                if what == "SAMPLER" {
                    let name = w.word("the sampler's name")?;
                    w.expect("DESCRIPTOR_SET")?;
                    let set = w.num("DESCRIPTOR_SET")?;
                    w.expect("BINDING")?;
                    let binding = w.num("BINDING")?;
                    w.end()?;
                    p.sampler_binds.push((name.into(), set, binding, line));
                    continue;
                }
                if what != "BUFFER" && what != "BUFFER_ARRAY" {
                    return Err(w.err(format!("not supported: BIND {what}")));
                }
                let array = what == "BUFFER_ARRAY";
                let mut buffers = vec![w.word("the buffer's name")?];
                while array && w.peek().is_some_and(|x| x != "AS") {
                    buffers.push(w.word("a buffer's name")?);
                }
                w.expect("AS")?;
                let kind_word = w.word("the binding's kind")?;
                let image = matches!(
                    kind_word,
                    "storage_image"
                        | "sampled_image"
                        | "combined_image_sampler"
                        | "uniform_texel_buffer"
                        | "storage_texel_buffer"
                );
                let n = buffers.len();
                let kinds: Vec<BindKind> = match kind_word {
                    _ if image
                        || matches!(
                            kind_word,
                            "storage" | "uniform" | "storage_dynamic" | "uniform_dynamic"
                        ) =>
                    {
                        // `AS combined_image_sampler SAMPLER s DESCRIPTOR_SET ...`
                        // (the sampler may come first).
                        let mut sampler = None;
                        if kind_word == "combined_image_sampler" && w.peek() == Some("SAMPLER") {
                            w.next();
                            sampler = Some(w.word("the sampler's name")?);
                        }
                        w.expect("DESCRIPTOR_SET")?;
                        let set = w.num("DESCRIPTOR_SET")?;
                        w.expect("BINDING")?;
                        let binding = w.num("BINDING")?;
                        if let Some(s) = sampler {
                            p.sampler_binds.push((s.into(), set, binding, line));
                        }
                        // Per element: OFFSET, DESCRIPTOR_OFFSET and
                        // DESCRIPTOR_RANGE (one value each per buffer).
                        let (mut offset, mut extra, mut range) =
                            (vec![0usize; n], vec![0usize; n], vec![None; n]);
                        while let Some(x) = w.next() {
                            match x {
                                "OFFSET" | "DESCRIPTOR_OFFSET" | "DESCRIPTOR_RANGE" => {
                                    for k in 0..n {
                                        let v: usize = w.num(x)?;
                                        match x {
                                            "OFFSET" => offset[k] = v,
                                            "DESCRIPTOR_OFFSET" => extra[k] = v,
                                            _ => range[k] = Some(v),
                                        }
                                    }
                                }
                                "BASE_MIP_LEVEL" if image => {
                                    let m: u32 = w.num("BASE_MIP_LEVEL")?;
                                    if m != 0 {
                                        return Err(
                                            w.err("not supported: BASE_MIP_LEVEL other than 0")
                                        );
                                    }
                                }
                                "SAMPLER" if kind_word == "combined_image_sampler" => {
                                    let s = w.word("the sampler's name")?;
                                    p.sampler_binds.push((s.into(), set, binding, line));
                                }
                                x => return Err(w.err(format!("not supported: BIND ... {x}"))),
                            }
                        }
                        (0..n)
                            .map(|k| BindKind::Descriptor {
                                set,
                                binding,
                                offset: offset[k].saturating_add(extra[k]),
                                range: range[k],
                            })
                            .collect()
                    }
                    "push_constant" if !array => {
                        w.end()?;
                        vec![BindKind::PushConstant]
                    }
                    "color" | "depth_stencil" if !array => {
                        match p.graphics.as_mut() {
                            Some(g) => graphics::bind_attachment(g, &mut w, script, buffers[0], kind_word, line)?,
                            None => return Err(w.err(format!("BIND ... AS {kind_word} in a compute pipeline"))),
                        }
                        continue;
                    }
                    k => return Err(w.err(format!("not supported: BIND {what} ... AS {k}"))),
                };
                for (k, (buffer, kind)) in buffers.into_iter().zip(kinds).enumerate() {
                    p.binds.push(Bind {
                        buffer: buffer.into(),
                        kind,
                        line,
                        index: k as u32,
                        array,
                        image,
                    });
                }
            }
            x => match p.graphics.as_mut() {
                Some(g) => graphics::pipeline_command(g, &mut w, r, script, x, line)?,
                None => return Err(w.err(format!("not supported: {x} in a PIPELINE"))),
            },
        }
    }
    Ok(p)
}

fn parse_expect(w: &mut Words, script: &Script, line: u32) -> Result<Command, AmberError> {
    let buffer = w.word("the buffer")?;
    let find = |w: &Words, n: &str| {
        script
            .buffers
            .iter()
            .find(|b| b.name == n)
            .ok_or_else(|| w.err(format!("no buffer named `{n}`")))
    };
    match w.word("IDX, EQ_BUFFER or RMSE_BUFFER")? {
        "IDX" => {}
        k @ ("EQ_BUFFER" | "RMSE_BUFFER" | "EQ_HISTOGRAM_EMD_BUFFER") => {
            let b = w.word("the other buffer")?;
            find(w, b)?;
            find(w, buffer)?;
            let cmp = if k == "EQ_BUFFER" {
                BufferCmp::Eq
            } else {
                w.expect("TOLERANCE")?;
                let t = w.num("TOLERANCE")?;
                if k == "RMSE_BUFFER" { BufferCmp::Rmse(t) } else { BufferCmp::HistogramEmd(t) }
            };
            w.end()?;
            return Ok(Command::ExpectBuffer {
                a: buffer.into(),
                b: b.into(),
                cmp,
                line,
            });
        }
        x => return Err(w.err(format!("not supported: EXPECT ... {x}"))),
    }
    let offset = w.num("IDX")?;
    let mut tolerance = Vec::new();
    let mut c = w.word("a comparison")?;
    if let Ok(y) = c.parse::<u32>() {
        // IDX x y SIZE w h EQ_RGBA r g b a
        let x = u32::try_from(offset).map_err(|_| w.err("IDX x is too large"))?;
        w.expect("SIZE")?;
        let (sw, sh) = (w.num("SIZE width")?, w.num("SIZE height")?);
        let alpha = match w.word("EQ_RGBA or EQ_RGB")? {
            "EQ_RGBA" => true,
            "EQ_RGB" => false,
            x => return Err(w.err(format!("not supported: EXPECT ... SIZE w h {x}"))),
        };
        let mut rgba = [0u32; 4];
        for (k, c) in rgba.iter_mut().enumerate().take(if alpha { 4 } else { 3 }) {
            *c = w.num(["r", "g", "b", "a"][k])?;
            if *c > 255 {
                return Err(w.err(format!("{c} is not in 0..=255")));
            }
        }
        let mut tolerance = Vec::new();
        if w.peek() == Some("TOLERANCE") {
            w.next();
            while w.peek().is_some() {
                tolerance.push(parse_tolerance(w)?);
            }
            if tolerance.is_empty() || tolerance.len() > if alpha { 4 } else { 3 } {
                return Err(w.err("TOLERANCE needs 1 to 4 values (3 for EQ_RGB)"));
            }
        }
        w.end()?;
        find(w, buffer)?;
        return Ok(Command::ExpectRgba {
            buffer: buffer.into(),
            rect: [x, y, sw, sh],
            rgba,
            alpha,
            tolerance,
            line,
        });
    }
    if c == "TOLERANCE" {
        loop {
            let t = w.word("a comparison")?;
            let (v, percent) = match t.strip_suffix('%') {
                Some(v) => (v, true),
                None => (t, false),
            };
            match v.parse::<f64>() {
                Ok(value) => tolerance.push(Tolerance { value, percent }),
                Err(_) => {
                    c = t;
                    break;
                }
            }
        }
    }
    let cmp = Cmp::parse(c).ok_or_else(|| w.err(format!("not supported: EXPECT ... {c}")))?;
    let ty = find(w, buffer)?.ty;
    let values = w
        .rest()
        .iter()
        .map(|t| {
            ty.scalar.value(&t.text).ok_or_else(|| {
                error_at(
                    t,
                    format!("`{}` is not a value of the buffer's type", t.text),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Command::Expect {
        buffer: buffer.into(),
        offset,
        cmp,
        tolerance,
        values,
        line,
    })
}

/// One TOLERANCE value: `v` or `v%`.
fn parse_tolerance(w: &mut Words) -> Result<Tolerance, AmberError> {
    let t = w.word("a tolerance")?;
    let (v, percent) = match t.strip_suffix('%') {
        Some(v) => (v, true),
        None => (t, false),
    };
    v.parse::<f64>()
        .map(|value| Tolerance { value, percent })
        .map_err(|_| w.err(format!("`{t}` is not a tolerance")))
}

/// The outcome of a script: the failed expectations (empty: it passed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub failures: Vec<AmberError>,
    /// The number of EXPECT lines checked (each pass of a REPEAT counts).
    pub checked: u32,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// How to run a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// The most instructions one invocation may execute.
    pub max_steps: u64,
    /// Precompiled modules (SPIR-V words) by shader name: they take the place
    /// of a GLSL or SPIRV-HEX shader of that name, or of a SPIRV-ASM one.
    pub shaders: BTreeMap<String, Vec<u32>>,
    /// The interpreter's order of invocations ([`interp::Options::seed`]).
    pub seed: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            max_steps: 1_000_000,
            shaders: BTreeMap::new(),
            seed: None,
        }
    }
}

/// Run a script on the reference interpreter (no precompiled shaders).
pub fn run(script: &Script, max_steps: u64) -> Result<Outcome, AmberError> {
    run_with(
        script,
        &RunOptions {
            max_steps,
            ..RunOptions::default()
        },
    )
}

/// A module's words, and the script line and column of each instruction
/// (empty when not assembled from the script).
type ShaderWords = (Vec<u32>, Vec<(u32, u32)>);

/// The words of a shader (precompiled, assembled, or read from hex) and,
/// for an assembled one, the line and column of each instruction in the
/// script.
fn shader_words(shader: &Shader, opts: &RunOptions) -> Result<ShaderWords, AmberError> {
    if let Some(w) = opts.shaders.get(&shader.name) {
        return Ok((w.clone(), Vec::new()));
    }
    match shader.format {
        ShaderFormat::SpirvAsm => {
            let o = AsmOptions {
                env: shader.env.unwrap_or(TargetEnv::Spv1_0),
                ..AsmOptions::default()
            };
            let out = assemble_with_map(&shader.text, &o).map_err(|d| {
                let (l, c, m) = d.first().map_or((0, 1, String::new()), |d| {
                    let (l, c) = line_col(&shader.text, d.span.start);
                    (l, c, d.message.clone())
                });
                AmberError {
                    graphics: false,
                    line: shader.line + l,
                    col: c,
                    message: format!("the shader does not assemble: {m}"),
                }
            })?;
            // The shader's text starts on the line after SHADER. Each
            // instruction's line and column as `line_col` gives them, from
            // the lines' starts found once (not a scan from the text's start
            // per instruction).
            let text = &shader.text;
            let starts: Vec<usize> = core::iter::once(0)
                .chain(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(p, _)| p + 1))
                .collect();
            let at = out
                .map
                .iter()
                .map(|m| {
                    let at = (m.span.start as usize).min(text.len());
                    let l = starts.partition_point(|&s| s <= at);
                    let start = starts[l - 1];
                    let c = text.get(start..at).map_or(at - start, |s| s.chars().count()) + 1;
                    (shader.line + l as u32, c as u32)
                })
                .collect();
            Ok((out.words, at))
        }
        ShaderFormat::SpirvHex => {
            let mut bytes = Vec::new();
            for t in shader.text.split_whitespace() {
                let h = t.strip_prefix("0x").unwrap_or(t);
                let b = u8::from_str_radix(h, 16).map_err(|_| {
                    error(shader.line, format!("SPIRV-HEX: `{t}` is not a hex byte"))
                })?;
                bytes.push(b);
            }
            if bytes.len() % 4 != 0 {
                return Err(error(shader.line, "SPIRV-HEX: not a whole number of words"));
            }
            Ok((
                bytes
                    .chunks(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
                Vec::new(),
            ))
        }
        ShaderFormat::Glsl => Err(error(
            shader.line,
            format!(
                "a GLSL shader needs a precompiled module: give one with --shader {}=FILE",
                shader.name
            ),
        )),
    }
}

/// What one `RUN` dispatches: the module (specialized: its spec constants
/// hold the pipeline's values), as IR and as words, and the interpreter's
/// options, which also describe the run for any other executor (entry point,
/// workgroups, push constants, aliases, images, arrays of descriptors).
pub struct Dispatch<'a> {
    pub ir: &'a Ir,
    pub words: &'a [u32],
    pub opts: &'a Options,
    /// The shader's name in the script.
    pub shader: &'a str,
}

/// One shader stage of a draw: its module (specialized), as IR and as
/// words, its entry point's name, and the shader's name in the script.
pub struct Stage<'a> {
    pub ir: &'a Ir,
    pub words: &'a [u32],
    pub entry: &'a str,
    pub shader: &'a str,
}

/// What one graphics `RUN` draws: the vertex and fragment stages, the
/// pipeline's fixed function and vertex buffers, the draw command, and the
/// interpreter's options for everything bound (push constants, images,
/// samplers, arrays of descriptors, aliases, the step budget); its `entry`
/// and `workgroups` are not read. The attachments are the executor's
/// `Framebuffer`, the descriptors' bytes its `Buffers`, as for a dispatch.
pub struct DrawJob<'a> {
    pub vertex: Stage<'a>,
    pub fragment: Stage<'a>,
    pub pipeline: &'a crate::raster::Pipeline,
    pub draw: &'a crate::raster::DrawCmd,
    pub opts: &'a Options,
}

/// Why an executor did not finish a dispatch.
#[derive(Debug)]
pub enum ExecError {
    /// The executor does not draw (it runs compute dispatches only).
    NoDraw,
    /// The interpreter's error (located at an instruction of the module).
    Interp(interp::RunError),
    /// The run the executor stands for has no buffer at (set, binding) (a
    /// run made elsewhere, replayed: see `page::check`).
    NoOutput { set: u32, binding: u32 },
    /// Another executor's failure (a GPU's: a refused module, a validation
    /// error, a lost device, a timeout), as that executor's own data.
    Backend(alloc::boxed::Box<dyn Failure>),
}

/// A failure of an executor other than the interpreter, as its own typed
/// data: rendered into text by `Display`; a caller that knows the
/// executor reads its fields through [`Failure::as_any`].
pub trait Failure: fmt::Debug + fmt::Display {
    fn as_any(&self) -> &dyn core::any::Any;
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecError::Interp(e) => write!(f, "{e}"),
            ExecError::NoOutput { set, binding } => write!(f, "the run has no buffer at {set}.{binding}"),
            ExecError::NoDraw => f.write_str("this backend does not draw (compute only)"),
            ExecError::Backend(e) => write!(f, "{e}"),
        }
    }
}

/// What runs a script's dispatches: the reference interpreter
/// ([`Interpreter`]) or another (a GPU). The buffers come in and go back as
/// the interpreter's [`Buffers`] (each binding's bytes, aliases left out).
pub trait Executor {
    fn dispatch(&mut self, d: &Dispatch, buffers: &mut Buffers) -> Result<(), ExecError>;

    /// Draw into `framebuffer`'s attachments (in place: draws accumulate),
    /// the bound descriptors' bytes in and out through `buffers`.
    fn draw(
        &mut self,
        job: &DrawJob,
        framebuffer: &mut crate::raster::Framebuffer,
        buffers: &mut Buffers,
    ) -> Result<(), ExecError> {
        let _ = (job, framebuffer, buffers);
        Err(ExecError::NoDraw)
    }
}

/// The reference interpreter as an [`Executor`].
pub struct Interpreter;

impl Executor for Interpreter {
    fn dispatch(&mut self, d: &Dispatch, buffers: &mut Buffers) -> Result<(), ExecError> {
        interp::run(d.ir, d.opts, buffers)
            .map(|_| ())
            .map_err(ExecError::Interp)
    }

    fn draw(&mut self, job: &DrawJob, framebuffer: &mut crate::raster::Framebuffer, buffers: &mut Buffers) -> Result<(), ExecError> {
        let stages = interp::Stages {
            vertex: job.vertex.ir,
            vertex_entry: Some(job.vertex.entry),
            fragment: job.fragment.ir,
            fragment_entry: Some(job.fragment.entry),
        };
        interp::draw(&stages, job.pipeline, job.draw, job.opts, framebuffer, buffers)
            .map(|_| ())
            .map_err(ExecError::Interp)
    }
}

struct Runner<'a> {
    script: &'a Script,
    opts: &'a RunOptions,
    exec: &'a mut dyn Executor,
    bufs: Vec<Vec<u8>>,
    /// Each buffer's type and layout (COPY gives the destination the
    /// source's).
    types: Vec<(DataType, Layout)>,
    /// Per shader and specialization: the IR, where each instruction is, and
    /// the words.
    modules: BTreeMap<String, (Ir, Vec<(u32, u32)>, Vec<u32>)>,
    /// Per graphics pipeline: its clear colour and clear depth (Amber's
    /// defaults 0, 0, 0, 0 and 1.0 until CLEAR_COLOR or CLEAR_DEPTH).
    clear: BTreeMap<String, ([f32; 4], f32)>,
    out: Outcome,
}

impl Runner<'_> {
    fn find(&self, name: &str, line: u32) -> Result<usize, AmberError> {
        self.script
            .buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| error(line, format!("no buffer named `{name}`")))
    }

    fn commands(&mut self, cs: &[Command]) -> Result<(), AmberError> {
        for c in cs {
            self.command(c)?;
        }
        Ok(())
    }

    fn command(&mut self, c: &Command) -> Result<(), AmberError> {
        match c {
            Command::Run {
                pipeline,
                groups,
                line,
            } => self.run(pipeline, *groups, *line),
            Command::Repeat { count, body } => {
                for _ in 0..*count {
                    self.commands(body)?;
                }
                Ok(())
            }
            Command::Copy { from, to, line } => {
                let (f, t) = (self.find(from, *line)?, self.find(to, *line)?);
                self.bufs[t] = self.bufs[f].clone();
                self.types[t] = self.types[f];
                Ok(())
            }
            Command::Expect {
                buffer,
                offset,
                cmp,
                tolerance,
                values,
                line,
            } => {
                self.out.checked += 1;
                let k = self.find(buffer, *line)?;
                let (ty, layout) = self.types[k];
                let data = &self.bufs[k];
                let size = ty.scalar.size();
                for (j, want) in values.iter().enumerate() {
                    let at = offset.saturating_add(ty.at(layout, j));
                    let got = data.get(at..at.saturating_add(size)).map(|b| {
                        b.iter()
                            .enumerate()
                            .fold(0u64, |acc, (i, x)| acc | (*x as u64) << (8 * i))
                    });
                    let tol = match tolerance.len() {
                        0 => None,
                        n => Some(tolerance[(j % ty.comps()) % n]),
                    };
                    let ok = got
                        .is_some_and(|g| holds(ty.scalar.num(g), *cmp, ty.scalar.num(*want), tol));
                    if !ok {
                        let g = got.map_or(String::from("nothing (past the end)"), |g| {
                            ty.scalar.show(g)
                        });
                        let c = match cmp {
                            Cmp::Eq => "",
                            Cmp::Ne => "not ",
                            Cmp::Lt => "less than ",
                            Cmp::Le => "at most ",
                            Cmp::Gt => "more than ",
                            Cmp::Ge => "at least ",
                        };
                        self.out.failures.push(error(
                            *line,
                            format!(
                                "{buffer} at byte {at}: expected {c}{}, got {g}",
                                ty.scalar.show(*want)
                            ),
                        ));
                    }
                }
                Ok(())
            }
            Command::ExpectRgba {
                buffer,
                rect,
                rgba,
                alpha,
                tolerance,
                line,
            } => {
                self.out.checked += 1;
                let k = self.find(buffer, *line)?;
                let want = probe::Rgba { rgba: *rgba, alpha: *alpha, tolerance };
                if let Some(e) = probe::expect_rgba(&self.script.buffers[k], &self.bufs[k], *rect, &want, *line) {
                    self.out.failures.push(e);
                }
                Ok(())
            }
            Command::ExpectBuffer { a, b, cmp, line } => {
                self.out.checked += 1;
                let (ka, kb) = (self.find(a, *line)?, self.find(b, *line)?);
                let side = |k: usize| probe::Side {
                    buffer: &self.script.buffers[k],
                    ty: self.types[k].0,
                    layout: self.types[k].1,
                    data: &self.bufs[k],
                };
                if let Some(e) = probe::compare_buffers(side(ka), side(kb), *cmp, *line) {
                    self.out.failures.push(e);
                }
                Ok(())
            }
            Command::ClearColor { pipeline, rgba, line } => self.note_clear(pipeline, *line, Some(*rgba), None),
            Command::ClearDepth { pipeline, depth, line } => self.note_clear(pipeline, *line, None, Some(*depth)),
            Command::Clear { pipeline, line } => self.clear_attachments(pipeline, *line),
            Command::Draw { pipeline, draw, line } => self.draw(pipeline, draw, *line),
        }
    }

    /// The key in `modules` of shader `sname` specialized so, built on
    /// first use.
    fn module(&mut self, sname: &str, specialize: &[(u32, u64)], line: u32) -> Result<String, AmberError> {
        let script = self.script;
        let key = format!("{sname}{specialize:?}");
        if !self.modules.contains_key(&key) {
            let shader = script
                .shaders
                .iter()
                .find(|s| s.name == sname)
                .ok_or_else(|| error(line, format!("no shader named `{sname}`")))?;
            let (mut words, mut at) = shader_words(shader, self.opts)?;
            if shader.passthrough {
                // Its text is not the script's: nothing to locate in it.
                at.clear();
            }
            interp::specialize(&mut words, specialize);
            let module = crate::binary::read_words(&words).map_err(|e| {
                error(
                    shader.line,
                    format!("the shader does not read back: {}", e.message()),
                )
            })?;
            self.modules
                .insert(key.clone(), (Ir::build(module), at, words));
        }
        Ok(key)
    }

    /// The pipeline's descriptors and push constants: each binding's bytes
    /// by key, which of them go back to their buffer, and the interpreter's
    /// options that describe them (the compute dispatch and the draw bind
    /// alike).
    fn bind(&self, p: &Pipeline) -> Result<Bound, AmberError> {
        let script = self.script;
        let mut map = Buffers::new();
        let mut aliases = BTreeMap::new();
        let mut images = BTreeMap::new();
        let mut arrays: BTreeMap<(u32, u32), Vec<(u32, u32)>> = BTreeMap::new();
        let mut samplers = BTreeMap::new();
        for (name, set, binding, l) in &p.sampler_binds {
            let s = script
                .samplers
                .iter()
                .find(|s| &s.0 == name)
                .ok_or_else(|| error(*l, format!("no sampler named `{name}`")))?;
            samplers.insert((*set, *binding), s.1);
        }
        let mut push = None;
        // The key of each binding's bytes in the map: (set, binding), or for
        // a later element of an array of descriptors one no binding has.
        let key_of = |i: usize| -> (u32, u32) {
            match p.binds[i].kind {
                BindKind::Descriptor { set, binding, .. } if p.binds[i].index == 0 => {
                    (set, binding)
                }
                _ => (u32::MAX, i as u32),
            }
        };
        // The bindings whose bytes go back to their buffer: (bind, key).
        let mut owned = Vec::new();
        for (i, b) in p.binds.iter().enumerate() {
            let k = self.find(&b.buffer, b.line)?;
            match b.kind {
                BindKind::Descriptor {
                    set,
                    binding,
                    offset,
                    range,
                } => {
                    // The same bytes bound again: an alias of the first binding.
                    let first = p
                        .binds
                        .iter()
                        .position(|x| {
                            x.buffer == b.buffer
                                && matches!(x.kind, BindKind::Descriptor { offset: o, range: r, .. } if o == offset && r == range)
                        })
                        .unwrap_or(i);
                    let (key, target) = (key_of(i), key_of(first));
                    if b.array {
                        arrays.entry((set, binding)).or_default().push(target);
                    } else if target != key {
                        aliases.insert(key, target);
                    }
                    let end = range.map_or(self.bufs[k].len(), |r| offset.saturating_add(r));
                    let d = self.bufs[k].get(offset..end).ok_or_else(|| {
                        error(
                            b.line,
                            format!(
                                "OFFSET {offset} (and RANGE) is past the end of `{}`",
                                b.buffer
                            ),
                        )
                    })?;
                    if b.image {
                        images.insert(
                            target,
                            image::describe(&script.buffers[k], d.len(), b.line)?,
                        );
                    }
                    if target == key {
                        map.insert(key, d.to_vec());
                        owned.push((i, key, offset));
                    }
                }
                BindKind::PushConstant => push = Some(self.bufs[k].clone()),
            }
        }
        let opts = Options {
            max_steps: self.opts.max_steps,
            push_constants: push,
            subgroup_size: None,
            robust_access: p.robust_access,
            aliases,
            seed: self.opts.seed,
            images,
            descriptor_arrays: arrays,
            samplers,
            ..Options::default()
        };
        Ok(Bound { map, owned, opts })
    }

    /// The bytes of the bindings a run wrote, back into their buffers.
    fn unbind(&mut self, p: &Pipeline, owned: Vec<(usize, (u32, u32), usize)>, map: &mut Buffers) {
        for (i, key, offset) in owned {
            let b = &p.binds[i];
            if let (Ok(k), Some(data)) = (self.find(&b.buffer, b.line), map.remove(&key))
                && let Some(dst) = self.bufs[k].get_mut(offset..offset.saturating_add(data.len()))
                && dst.len() == data.len()
                // A buffer bound twice: only a copy the run changed goes back.
                && dst != &data[..]
            {
                dst.copy_from_slice(&data);
            }
        }
    }

    fn run(&mut self, pipeline: &str, groups: [u32; 3], line: u32) -> Result<(), AmberError> {
        let script = self.script;
        let p = script
            .pipelines
            .iter()
            .find(|p| p.name == pipeline)
            .ok_or_else(|| error(line, format!("no pipeline named `{pipeline}`")))?;
        let sname = p
            .shader
            .as_deref()
            .ok_or_else(|| error(p.line, "the pipeline has no ATTACH"))?;
        // A module per shader and specialization.
        let key = self.module(sname, &p.specialize, p.line)?;
        let Bound { mut map, owned, opts } = self.bind(p)?;
        let opts = Options {
            entry: p.entry.clone(),
            workgroups: groups,
            ..opts
        };
        let (ir, at, words) = &self.modules[&key];
        let d = Dispatch {
            ir,
            words,
            opts: &opts,
            shader: sname,
        };
        let r = self.exec.dispatch(&d, &mut map);
        let at = at.clone();
        self.unbind(p, owned, &mut map);
        match r {
            Ok(()) => Ok(()),
            Err(ExecError::Interp(e)) => Err(located(e, &at, line)),
            Err(e) => Err(error(line, e.to_string())),
        }
    }
}

/// What [`Runner::bind`] gives a run.
struct Bound {
    map: Buffers,
    /// (bind, key, offset) of each binding whose bytes go back.
    owned: Vec<(usize, (u32, u32), usize)>,
    opts: Options,
}

/// The interpreter's error at the instruction in the script's shader text
/// (`at`: each instruction's line and column), where there is one, else at
/// the RUN's line.
fn located(e: interp::RunError, at: &[(u32, u32)], line: u32) -> AmberError {
    let inv = e.invocation.map_or(String::new(), |[x, y, z]| {
        format!(" [invocation ({x},{y},{z})]")
    });
    match e.inst.and_then(|i| at.get(i as usize)) {
        Some(&(l, c)) => AmberError {
            graphics: false,
            line: l,
            col: c,
            message: format!(
                "{}{inv} (in the RUN at line {line})",
                e.message_with(|i| at.get(i as usize).map(|(l, c)| format!("{l}:{c}")))
            ),
        },
        None => error(line, format!("{e}{inv}")),
    }
}

/// Whether `got cmp want` holds (with a tolerance for EQ and NE).
fn holds(got: Num, cmp: Cmp, want: Num, tol: Option<Tolerance>) -> bool {
    let eq = match (got, want, tol) {
        (_, _, Some(t)) => {
            let (g, w) = (got.f(), want.f());
            let bound = if t.percent {
                t.value / 100.0 * abs(w)
            } else {
                t.value
            };
            abs(g - w) <= bound || (g.is_nan() && w.is_nan())
        }
        (Num::Float(g), Num::Float(w), None) => g == w || (g.is_nan() && w.is_nan()),
        _ => got == want,
    };
    let ord = |f: fn(f64, f64) -> bool, i: fn(i128, i128) -> bool| match (got, want) {
        (Num::Int(a), Num::Int(b)) => i(a, b),
        _ => f(got.f(), want.f()),
    };
    match cmp {
        Cmp::Eq => eq,
        Cmp::Ne => !eq,
        Cmp::Lt => ord(|a, b| a < b, |a, b| a < b),
        Cmp::Le => ord(|a, b| a <= b, |a, b| a <= b),
        Cmp::Gt => ord(|a, b| a > b, |a, b| a > b),
        Cmp::Ge => ord(|a, b| a >= b, |a, b| a >= b),
    }
}

fn abs(x: f64) -> f64 {
    f64::from_bits(x.to_bits() & !(1u64 << 63))
}

/// Run a script on the reference interpreter. An error stops the script (a
/// shader that does not assemble, a run error); failed expectations are
/// collected.
pub fn run_with(script: &Script, opts: &RunOptions) -> Result<Outcome, AmberError> {
    run_on(script, opts, &mut Interpreter)
}

/// Run a script's dispatches on `exec` (the interpreter, a GPU), the rest
/// (buffers, COPY, EXPECT) as [`run_with`] does.
pub fn run_on(
    script: &Script,
    opts: &RunOptions,
    exec: &mut dyn Executor,
) -> Result<Outcome, AmberError> {
    let mut r = Runner {
        script,
        opts,
        exec,
        bufs: script.buffers.iter().map(|b| b.data.clone()).collect(),
        types: script.buffers.iter().map(|b| (b.ty, b.layout)).collect(),
        modules: BTreeMap::new(),
        clear: BTreeMap::new(),
        out: Outcome::default(),
    };
    r.commands(&script.commands)?;
    Ok(r.out)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_graphics;
