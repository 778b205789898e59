//! Values in and out of a run: the input language of one buffer, and the
//! contents of a buffer shown by its binding's type tree.
//!
//! # The input language
//!
//! One buffer is one of:
//!
//! - `zeros`, or `zeros:N`: zero bytes;
//! - `seq:START,STEP[,N]`: the values START, START+STEP, START+2*STEP, ...
//!   as u32 words, packed from the buffer's first byte to its end;
//!   `seq:TYPE:START,STEP[,N]` for another scalar type (`seq:f32:0,0.5`);
//! - `random:SEED[,N]`: bytes from a SplitMix64 generator seeded with SEED
//!   (each output taken as 8 little-endian bytes); the same seed gives the
//!   same bytes everywhere;
//! - a typed list `TYPE: V V ...`, TYPE one of `u8 i8 u16 i16 u32 i32 u64
//!   i64 f16 f32 f64`, or a vector of them such as `u32x4` or `f32x2` (the
//!   values are then a flat list, a whole number of vectors); integers in
//!   decimal or `0x` hexadecimal, floats as Rust reads them (`0.5`, `1e3`,
//!   `inf`, `nan`); values are packed, little-endian;
//! - `hex: de ad be ef`: bytes, two hexadecimal digits each (a word may hold
//!   several: `hex: deadbeef`).
//!
//! The buffer's size is its binding's byte size. A buffer that ends in a
//! runtime array has a fixed part and an element stride: its size is the
//! fixed part plus N elements, N given as `zeros:N`, `seq:START,STEP,N` or
//! `random:SEED,N`, or as many whole elements as a typed list or hex bytes
//! need. A list shorter than the buffer is padded with zero bytes; a longer
//! one is an error. Errors name the column in the spec.
//!
//! # Output
//!
//! [`show`] reads a buffer's bytes by its type tree ([`TypeNode`], from
//! reflection) into a [`Shown`] tree; [`Shown::lines`] prints it one leaf a
//! line (`out.data[3] = 7`, vectors and matrix columns on one line as
//! `(1, 2, 3)`), and with the `serde` feature [`Shown`] serializes as the same
//! tree (structs as objects, arrays and vectors as arrays).

use super::num::{f64_to_half, half_to_f64};
use crate::ir::{Ir, Type};
use crate::reflect::walk::{self, Group, Step, Visit};
use crate::reflect::{RuntimeArrayShape, TypeNode, TypeShape};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

/// The most bytes a spec may make (256 MiB).
pub const MAX_BUFFER: u64 = 1 << 28;

/// An error in a buffer spec: its column (1-based, in characters) and what
/// is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub col: u32,
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.col, self.message)
    }
}

/// A scalar type of the language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scalar {
    /// `None`: a float.
    pub signed: Option<bool>,
    /// In bytes.
    pub bytes: u8,
}

impl Scalar {
    const U32: Scalar = Scalar { signed: Some(false), bytes: 4 };

    fn parse(s: &str) -> Option<Scalar> {
        let (kind, bits) = s.split_at_checked(1)?;
        let bytes = match bits {
            "8" => 1,
            "16" => 2,
            "32" => 4,
            "64" => 8,
            _ => return None,
        };
        let signed = match kind {
            "u" => Some(false),
            "i" => Some(true),
            "f" if bytes > 1 => None,
            _ => return None,
        };
        Some(Scalar { signed, bytes })
    }

    fn name(self) -> String {
        let k = match self.signed {
            Some(false) => 'u',
            Some(true) => 'i',
            None => 'f',
        };
        format!("{k}{}", self.bytes as u32 * 8)
    }

    /// The bytes of number `s` in this type (little-endian).
    fn encode(self, s: &str) -> Result<Vec<u8>, String> {
        let n = self.bytes as usize;
        let bad = || format!("`{s}` is not a {}", self.name());
        match self.signed {
            None => {
                let bits: u64 = match n {
                    2 => f64_to_half(s.parse::<f64>().map_err(|_| bad())?) as u64,
                    4 => s.parse::<f32>().map_err(|_| bad())?.to_bits() as u64,
                    _ => s.parse::<f64>().map_err(|_| bad())?.to_bits(),
                };
                Ok(bits.to_le_bytes()[..n].to_vec())
            }
            Some(signed) => {
                let v = parse_int(s).ok_or_else(bad)?;
                let bits = n as u32 * 8;
                let (lo, hi) = if signed {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                if v < lo || v > hi {
                    return Err(format!("`{s}` does not fit in {}", self.name()));
                }
                Ok(v.to_le_bytes()[..n].to_vec())
            }
        }
    }
}

/// An integer: decimal or `0x` hexadecimal, with an optional sign.
fn parse_int(s: &str) -> Option<i128> {
    let (neg, d) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = match d.strip_prefix("0x").or_else(|| d.strip_prefix("0X")) {
        Some(h) if !h.is_empty() && h.len() <= 16 => i128::from_str_radix(h, 16).ok()?,
        Some(_) => return None,
        None if !d.is_empty() && d.len() <= 20 && d.bytes().all(|b| b.is_ascii_digit()) => {
            d.parse::<i128>().ok()?
        }
        None => return None,
    };
    Some(if neg { -v } else { v })
}

/// What fills a buffer.
#[derive(Clone, Debug, PartialEq)]
enum Fill {
    Zeros,
    Seq { ty: Scalar, start: f64, step: f64, istart: i128, istep: i128 },
    Random(u64),
    Bytes(Vec<u8>),
}

/// A parsed spec.
struct Spec {
    fill: Fill,
    /// The element count N, with its column.
    count: Option<(u64, u32)>,
    /// For a list: the column of each value and where its bytes end.
    ends: Vec<(u32, usize)>,
}

/// The column (1-based, in characters) of byte offset `at` of `s`.
fn col(s: &str, at: usize) -> u32 {
    s.get(..at).map_or(at, |p| p.chars().count()) as u32 + 1
}

fn err(s: &str, at: usize, message: impl Into<String>) -> SpecError {
    SpecError { col: col(s, at), message: message.into() }
}

/// The whitespace-separated words of `s[from..]`, each with its byte offset.
fn words(s: &str, from: usize) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let rest = &s[from..];
    let mut start = None;
    for (i, c) in rest.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(b)) => {
                out.push((from + b, &rest[b..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(b) = start {
        out.push((from + b, &rest[b..]));
    }
    out
}

/// The comma-separated parts of `s[from..]`, each with its byte offset.
fn parts(s: &str, from: usize) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut at = from;
    for p in s[from..].split(',') {
        out.push((at + (p.len() - p.trim_start().len()), p.trim()));
        at += p.len() + 1;
    }
    out
}

fn count(s: &str, at: usize, p: &str) -> Result<(u64, u32), SpecError> {
    match parse_int(p) {
        Some(n) if (0..=MAX_BUFFER as i128).contains(&n) => Ok((n as u64, col(s, at))),
        _ => Err(err(s, at, format!("`{p}` is not an element count"))),
    }
}

fn parse(s: &str) -> Result<Spec, SpecError> {
    if s.trim().is_empty() {
        return Err(err(s, 0, "an empty spec (`zeros`, `seq:0,1`, `u32: 1 2 3`, ...)"));
    }
    let lead = s.len() - s.trim_start().len();
    let body = s.trim_end();
    let mut spec = Spec { fill: Fill::Zeros, count: None, ends: Vec::new() };
    let head_end = body.find(':').unwrap_or(body.len());
    let head = body[lead..head_end].trim_end();
    let after = (head_end + 1).min(body.len());
    match head {
        "zeros" => {
            if head_end < body.len() {
                let p = parts(body, after);
                if p.len() > 1 {
                    return Err(err(s, p[1].0 - 1, "`zeros:` takes one element count"));
                }
                spec.count = Some(count(s, p[0].0, p[0].1)?);
            }
        }
        "seq" => {
            let mut from = after;
            let mut ty = Scalar::U32;
            // `seq:TYPE:...`
            if let Some(k) = body[after..].find(':') {
                let t = body[after..after + k].trim();
                ty = Scalar::parse(t).ok_or_else(|| {
                    err(s, after + (body[after..].len() - body[after..].trim_start().len()), format!("`{t}` is not a scalar type (u8 .. u64, i8 .. i64, f16, f32, f64)"))
                })?;
                from = after + k + 1;
            }
            let p = parts(body, from);
            if head_end == body.len() || p.len() < 2 || p.len() > 3 {
                return Err(err(s, lead, "`seq` wants START,STEP or START,STEP,N (`seq:0,1`)"));
            }
            let (start, istart) = seq_value(s, ty, p[0])?;
            let (step, istep) = seq_value(s, ty, p[1])?;
            spec.fill = Fill::Seq { ty, start, step, istart, istep };
            if let Some(&(at, n)) = p.get(2) {
                spec.count = Some(count(s, at, n)?);
            }
        }
        "random" => {
            let p = parts(body, after);
            if head_end == body.len() || p.len() > 2 {
                return Err(err(s, lead, "`random` wants SEED or SEED,N (`random:7`)"));
            }
            let seed = parse_int(p[0].1)
                .filter(|v| (0..=u64::MAX as i128).contains(v))
                .ok_or_else(|| err(s, p[0].0, format!("`{}` is not a seed (a number 0 .. 2^64-1)", p[0].1)))?;
            spec.fill = Fill::Random(seed as u64);
            if let Some(&(at, n)) = p.get(1) {
                spec.count = Some(count(s, at, n)?);
            }
        }
        "hex" if head_end < body.len() => {
            let mut bytes = Vec::new();
            for (at, w) in words(body, after) {
                if !w.len().is_multiple_of(2) || !w.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(err(s, at, format!("`{w}` is not hex bytes (two hex digits each)")));
                }
                for k in (0..w.len()).step_by(2) {
                    bytes.push(u8::from_str_radix(&w[k..k + 2], 16).unwrap_or(0));
                    spec.ends.push((col(s, at + k), bytes.len()));
                }
            }
            spec.fill = Fill::Bytes(bytes);
        }
        t if head_end < body.len() => {
            let (name, lanes) = match t.split_once('x') {
                Some((n, l)) => (n, l.parse::<usize>().ok().filter(|l| (2..=16).contains(l))),
                None => (t, Some(1)),
            };
            let (Some(ty), Some(lanes)) = (Scalar::parse(name), lanes) else {
                return Err(err(s, lead, format!("`{t}` is not a type (u8 .. u64, i8 .. i64, f16, f32, f64, or a vector such as u32x4)")));
            };
            let mut bytes = Vec::new();
            let ws = words(body, after);
            for &(at, w) in &ws {
                bytes.extend(ty.encode(w).map_err(|m| err(s, at, m))?);
                spec.ends.push((col(s, at), bytes.len()));
            }
            if !ws.len().is_multiple_of(lanes) {
                return Err(err(s, body.len(), format!("{} values are not a whole number of {t} vectors", ws.len())));
            }
            spec.fill = Fill::Bytes(bytes);
        }
        _ => {
            return Err(err(
                s,
                lead,
                "expected `zeros`, `seq:START,STEP`, `random:SEED`, `hex: BYTES` or a typed list such as `u32: 1 2 3`",
            ));
        }
    }
    Ok(spec)
}

/// A seq START or STEP: as a float, and as an integer for integer types.
fn seq_value(s: &str, ty: Scalar, (at, p): (usize, &str)) -> Result<(f64, i128), SpecError> {
    if ty.signed.is_none() {
        let v = p.parse::<f64>().map_err(|_| err(s, at, format!("`{p}` is not a number")))?;
        Ok((v, 0))
    } else {
        let v = parse_int(p).ok_or_else(|| err(s, at, format!("`{p}` is not an integer")))?;
        Ok((0.0, v))
    }
}

/// SplitMix64: the generator of `random:SEED`.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The bytes of buffer spec `spec`, for a binding of `size` bytes, or one
/// that ends in a runtime array (`runtime`); both `None`: the size is the
/// spec's own (a list's length).
pub fn buffer_bytes(
    spec: &str,
    size: Option<u64>,
    runtime: Option<RuntimeArrayShape>,
) -> Result<Vec<u8>, SpecError> {
    let p = parse(spec)?;
    let too_big = |at: u32| SpecError { col: at, message: format!("the buffer would be over {MAX_BUFFER} bytes") };
    let runtime = runtime.map(|r| (r.fixed_size, r.stride.filter(|&s| s > 0)));
    let data_len = match &p.fill {
        Fill::Bytes(b) => Some(b.len() as u64),
        _ => None,
    };
    let len = match (p.count, runtime) {
        (Some((n, at)), Some((fixed, Some(stride)))) => n
            .checked_mul(stride as u64)
            .and_then(|b| b.checked_add(fixed))
            .filter(|&l| l <= MAX_BUFFER)
            .ok_or_else(|| too_big(at))?,
        (Some((_, at)), Some((_, None))) => {
            return Err(SpecError { col: at, message: "the runtime array has no ArrayStride: give a typed list or hex bytes".into() });
        }
        (Some((_, at)), None) => {
            let what = size.map_or(String::from("its size is unknown"), |n| format!("it has {n} bytes"));
            return Err(SpecError { col: at, message: format!("an element count is for a buffer that ends in a runtime array; {what}") });
        }
        (None, Some((fixed, stride))) => match (data_len, stride) {
            (Some(d), Some(st)) if d > fixed => fixed + (d - fixed).div_ceil(st as u64) * st as u64,
            (Some(d), _) => d.max(fixed),
            (None, _) if p.fill == Fill::Zeros => fixed,
            (None, _) => {
                return Err(err(spec, 0, "the buffer ends in a runtime array: give its element count N (`seq:0,1,N`, `random:SEED,N`)"));
            }
        },
        (None, None) => match (size, data_len) {
            (Some(n), _) => n,
            (None, Some(d)) => d,
            (None, None) => return Err(err(spec, 0, "the buffer's size is unknown: give a typed list or hex bytes")),
        },
    };
    if len > MAX_BUFFER {
        return Err(too_big(1));
    }
    let len = len as usize;
    let mut out = vec![0u8; len];
    match p.fill {
        Fill::Zeros => {}
        Fill::Bytes(b) => {
            if b.len() > len {
                // The first value that does not fit.
                let c = p.ends.iter().find(|e| e.1 > len).map_or(1, |e| e.0);
                return Err(SpecError { col: c, message: format!("the buffer holds {len} bytes; the values from here on do not fit") });
            }
            out[..b.len()].copy_from_slice(&b);
        }
        Fill::Random(seed) => {
            let mut st = seed;
            for chunk in out.chunks_mut(8) {
                let v = splitmix64(&mut st).to_le_bytes();
                chunk.copy_from_slice(&v[..chunk.len()]);
            }
        }
        Fill::Seq { ty, start, step, istart, istep } => {
            let n = ty.bytes as usize;
            for (k, chunk) in out.chunks_exact_mut(n).enumerate() {
                let bits: u64 = match (ty.signed, n) {
                    (None, 2) => f64_to_half(start + k as f64 * step) as u64,
                    (None, 4) => ((start + k as f64 * step) as f32).to_bits() as u64,
                    (None, _) => (start + k as f64 * step).to_bits(),
                    (Some(_), _) => istart.wrapping_add(istep.wrapping_mul(k as i128)) as u64,
                };
                chunk.copy_from_slice(&bits.to_le_bytes()[..n]);
            }
        }
    }
    Ok(out)
}

/// The value of spec constant `spec_id` given as `text`, as
/// [`super::specialize`] takes it: an integer (decimal or `0x`, in range for
/// the constant's type), a float for a float constant, `true`/`false` (or
/// 1/0) for a boolean.
pub fn spec_value(ir: &Ir, spec_id: u32, text: &str) -> Result<u64, String> {
    let c = ir
        .constants
        .iter()
        .find(|c| c.spec && ir.spec_id(c.id) == Some(spec_id))
        .ok_or_else(|| format!("the module has no spec constant with SpecId {spec_id}"))?;
    let bad = |what: &str| format!("SpecId {spec_id}: `{text}` is not {what}");
    match ir.ty(c.ty).map(|t| &t.ty) {
        Some(Type::Bool) => match text {
            "true" | "1" => Ok(1),
            "false" | "0" => Ok(0),
            _ => Err(bad("a boolean (true or false)")),
        },
        Some(&Type::Int { width, signed }) if matches!(width, 8 | 16 | 32 | 64) => {
            let ty = Scalar { signed: Some(signed), bytes: (width / 8) as u8 };
            let b = ty.encode(text).map_err(|_| bad(&format!("a {}", ty.name())))?;
            let mut w = [0u8; 8];
            w[..b.len()].copy_from_slice(&b);
            // A signed value is sign-extended to the constant's words.
            let v = u64::from_le_bytes(w);
            Ok(if signed && width < 64 && b[b.len() - 1] & 0x80 != 0 { v | (u64::MAX << width) } else { v })
        }
        Some(&Type::Float { width, .. }) if matches!(width, 16 | 32 | 64) => {
            let ty = Scalar { signed: None, bytes: (width / 8) as u8 };
            let b = ty.encode(text).map_err(|_| bad(&format!("a {}", ty.name())))?;
            let mut w = [0u8; 8];
            w[..b.len()].copy_from_slice(&b);
            Ok(u64::from_le_bytes(w))
        }
        _ => Err(format!("SpecId {spec_id}: its type cannot be given on the command line")),
    }
}

/// A buffer's contents read by its type tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Shown {
    Int(i64),
    UInt(u64),
    F16(f32),
    F32(f32),
    F64(f64),
    /// Bits of a type shown as such (a pointer, a float of another width), in hex.
    Bits(u64),
    /// A vector or a matrix column: shown on one line.
    Vector(Vec<Shown>),
    /// An array or a matrix (its columns): one line per element.
    Array(Vec<Shown>),
    /// A struct: its members with their names (`None`: shown by index).
    Struct(Vec<(Option<String>, Shown)>),
    /// A type that has no bytes to show.
    Opaque(String),
}

/// The contents of `bytes` read as type `ty` (from byte 0), by the
/// reflection's walk of the type tree ([`crate::reflect::walk`]); the parts
/// past the end of `bytes` are left out.
pub fn show(ty: &TypeNode, bytes: &[u8]) -> Shown {
    let mut build = Build { bytes, open: Vec::new(), root: None };
    walk::walk(ty, bytes.len() as u64, &mut build);
    build.root.unwrap_or(Shown::Array(Vec::new()))
}

/// The value of the scalar of type `ty` at byte `at` of `bytes`.
fn scalar(ty: &TypeNode, bytes: &[u8], at: usize) -> Option<Shown> {
    let n = match ty.shape {
        TypeShape::Int { width, .. } | TypeShape::Float { width } => (width / 8) as usize,
        TypeShape::Pointer { .. } => 8,
        _ => return None,
    };
    let b = bytes.get(at..at.checked_add(n)?)?;
    let mut w = [0u8; 8];
    w[..n.min(8)].copy_from_slice(&b[..n.min(8)]);
    let v = u64::from_le_bytes(w);
    Some(match ty.shape {
        TypeShape::Int { width, signed: true } if (1..=64).contains(&width) => {
            Shown::Int(((v << (64 - width)) as i64) >> (64 - width))
        }
        TypeShape::Int { .. } => Shown::UInt(v),
        TypeShape::Float { width: 16 } => Shown::F16(half_to_f64(v as u16) as f32),
        TypeShape::Float { width: 32 } => Shown::F32(f32::from_bits(v as u32)),
        TypeShape::Float { width: 64 } => Shown::F64(f64::from_bits(v)),
        _ => Shown::Bits(v),
    })
}

/// A composite being read: what it is shown as, its name as a struct
/// member, and its parts so far (each with its member name).
struct Open {
    group: Group,
    name: Option<String>,
    parts: Vec<(Option<String>, Shown)>,
}

/// The walk's visitor that builds a [`Shown`].
struct Build<'b> {
    bytes: &'b [u8],
    open: Vec<Open>,
    root: Option<Shown>,
}

fn member_name(step: Step<'_>) -> Option<String> {
    match step {
        Step::Member { member, .. } => member.name.clone(),
        _ => None,
    }
}

impl Build<'_> {
    fn put(&mut self, name: Option<String>, v: Shown) {
        match self.open.last_mut() {
            Some(o) => o.parts.push((name, v)),
            None => self.root = Some(v),
        }
    }
}

impl<'t> Visit<'t> for Build<'_> {
    fn scalar(&mut self, step: Step<'t>, node: &'t TypeNode, at: u64, _: u32) {
        if let Some(v) = usize::try_from(at).ok().and_then(|at| scalar(node, self.bytes, at)) {
            self.put(member_name(step), v);
        }
    }

    fn opaque(&mut self, step: Step<'t>, node: &'t TypeNode) {
        self.put(member_name(step), Shown::Opaque(node.describe()));
    }

    fn begin(&mut self, step: Step<'t>, group: Group) {
        self.open.push(Open { group, name: member_name(step), parts: Vec::new() });
    }

    fn end(&mut self, shown: bool) {
        let Some(o) = self.open.pop() else { return };
        if !shown {
            return;
        }
        let v = match o.group {
            Group::Vector => Shown::Vector(o.parts.into_iter().map(|p| p.1).collect()),
            Group::Array => Shown::Array(o.parts.into_iter().map(|p| p.1).collect()),
            Group::Struct => Shown::Struct(o.parts),
        };
        self.put(o.name, v);
    }
}

impl fmt::Display for Shown {
    /// A leaf (a scalar or a vector); an array or struct as its element count.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shown::Int(v) => write!(f, "{v}"),
            Shown::UInt(v) => write!(f, "{v}"),
            Shown::F16(v) | Shown::F32(v) => write!(f, "{v:?}"),
            Shown::F64(v) => write!(f, "{v:?}"),
            Shown::Bits(v) => write!(f, "{v:#x}"),
            Shown::Vector(v) => {
                f.write_str("(")?;
                for (k, x) in v.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str(")")
            }
            Shown::Array(v) => write!(f, "[{} elements]", v.len()),
            Shown::Struct(m) => write!(f, "{{{} members}}", m.len()),
            Shown::Opaque(t) => write!(f, "<{t}>"),
        }
    }
}

impl Shown {
    /// One line per leaf, `PATH = VALUE`, the paths starting at `root`
    /// (`out.data[3] = 7`; a member without a name by its index, `out.1`).
    pub fn lines(&self, root: &str) -> String {
        let mut s = String::new();
        self.lines_into(&mut String::from(root), &mut s);
        s
    }

    fn lines_into(&self, path: &mut String, out: &mut String) {
        let keep = path.len();
        match self {
            Shown::Array(v) => {
                for (k, x) in v.iter().enumerate() {
                    path.push_str(&format!("[{k}]"));
                    x.lines_into(path, out);
                    path.truncate(keep);
                }
            }
            Shown::Struct(m) => {
                for (k, (name, x)) in m.iter().enumerate() {
                    path.push('.');
                    path.push_str(&name.clone().unwrap_or_else(|| k.to_string()));
                    x.lines_into(path, out);
                    path.truncate(keep);
                }
            }
            leaf => out.push_str(&format!("{path} = {leaf}\n")),
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Shown {
    /// Numbers as numbers (a float that is not finite as the string `NaN`,
    /// `inf` or `-inf`), vectors and arrays as arrays, structs as objects
    /// (a member without a name by its index).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        let float = |s: S, v: f64| if v.is_finite() { s.serialize_f64(v) } else { s.serialize_str(&format!("{v:?}")) };
        match self {
            Shown::Int(v) => s.serialize_i64(*v),
            Shown::UInt(v) => s.serialize_u64(*v),
            // Through the shortest text of the f32, so 0.1f32 gives 0.1.
            Shown::F16(v) | Shown::F32(v) => float(s, format!("{v:?}").parse::<f64>().unwrap_or(*v as f64)),
            Shown::F64(v) => float(s, *v),
            Shown::Bits(v) => s.serialize_str(&format!("{v:#x}")),
            Shown::Vector(v) | Shown::Array(v) => {
                let mut seq = s.serialize_seq(Some(v.len()))?;
                for x in v {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
            Shown::Struct(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, (name, x)) in m.iter().enumerate() {
                    map.serialize_entry(&name.clone().unwrap_or_else(|| k.to_string()), x)?;
                }
                map.end()
            }
            Shown::Opaque(t) => s.serialize_str(&format!("<{t}>")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::MemberNode;
    use alloc::boxed::Box;

    fn fixed(spec: &str, size: u64) -> Result<Vec<u8>, SpecError> {
        buffer_bytes(spec, Some(size), None)
    }

    fn rt(spec: &str, fixed_size: u64, stride: u32) -> Result<Vec<u8>, SpecError> {
        buffer_bytes(spec, None, Some(RuntimeArrayShape { fixed_size, stride: Some(stride) }))
    }

    fn col_of(r: Result<Vec<u8>, SpecError>) -> u32 {
        r.expect_err("an error").col
    }

    #[test]
    fn zeros_seq_and_random() {
        assert_eq!(fixed("zeros", 8).unwrap(), [0; 8]);
        assert_eq!(fixed("seq:1,2", 12).unwrap(), [1, 0, 0, 0, 3, 0, 0, 0, 5, 0, 0, 0]);
        // Trailing bytes that hold no whole value stay zero.
        assert_eq!(fixed("seq:7,1", 6).unwrap(), [7, 0, 0, 0, 0, 0]);
        assert_eq!(fixed("seq:i16:-1,1", 6).unwrap(), [0xff, 0xff, 0, 0, 1, 0]);
        // 0.0 and 0.5 (0x3f000000).
        assert_eq!(fixed("seq:f32:0,0.5", 8).unwrap(), [0, 0, 0, 0, 0, 0, 0, 0x3f]);
        // SplitMix64 from state 0: first output 0xe220a8397b1dcdaf.
        assert_eq!(fixed("random:0", 8).unwrap(), [0xaf, 0xcd, 0x1d, 0x7b, 0x39, 0xa8, 0x20, 0xe2]);
        assert_eq!(fixed("random:0", 3).unwrap(), [0xaf, 0xcd, 0x1d]);
        assert_eq!(fixed("random:5", 64).unwrap(), fixed("random:5", 64).unwrap());
        assert_ne!(fixed("random:5", 64).unwrap(), fixed("random:6", 64).unwrap());
    }

    #[test]
    fn typed_lists_and_hex() {
        assert_eq!(fixed("u32: 1 2", 12).unwrap(), [1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(fixed("i32: -1", 4).unwrap(), [0xff; 4]);
        assert_eq!(fixed("u16: 0x1234", 2).unwrap(), [0x34, 0x12]);
        // 1000.0f32 = 0x447a0000.
        assert_eq!(fixed("f32: 1e3", 4).unwrap(), [0, 0, 0x7a, 0x44]);
        // 0.5f64 = 0x3fe0000000000000.
        assert_eq!(fixed("f64: 0.5", 8).unwrap(), [0, 0, 0, 0, 0, 0, 0xe0, 0x3f]);
        // 1.0 in binary16 = 0x3c00.
        assert_eq!(fixed("f16: 1", 2).unwrap(), [0, 0x3c]);
        assert_eq!(fixed("i8: -128 127", 2).unwrap(), [0x80, 0x7f]);
        assert_eq!(fixed("u32x2: 1 2 3 4", 16).unwrap()[12], 4);
        assert_eq!(fixed("hex: de ad beef", 4).unwrap(), [0xde, 0xad, 0xbe, 0xef]);
    }

    #[test]
    fn runtime_array_sizes() {
        // Fixed part 4 bytes, elements of 8: N given.
        assert_eq!(rt("seq:0,1,2", 4, 8).unwrap(), [0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]);
        assert_eq!(rt("zeros:3", 4, 8).unwrap().len(), 28);
        assert_eq!(rt("zeros", 4, 8).unwrap().len(), 4);
        assert_eq!(rt("random:1,1", 0, 4).unwrap().len(), 4);
        // A list: as many whole elements as it needs.
        assert_eq!(rt("u32: 1 2 3", 4, 8).unwrap().len(), 12);
        assert_eq!(rt("u32: 1 2 3 4", 4, 8).unwrap().len(), 20);
        // Only the size given: the list's own.
        assert_eq!(buffer_bytes("hex: 01 02 03", None, None).unwrap(), [1, 2, 3]);
    }

    #[test]
    fn errors_are_located() {
        let e = fixed("u8: 255 256", 2).unwrap_err();
        assert_eq!(e, SpecError { col: 9, message: "`256` does not fit in u8".into() });
        assert_eq!(col_of(fixed("u32: 1 x", 8)), 8);
        assert_eq!(col_of(fixed("u32: 1 -1", 8)), 8);
        assert_eq!(col_of(fixed("hex: abc", 2)), 6);
        assert_eq!(col_of(fixed("foo", 4)), 1);
        assert_eq!(col_of(fixed("  seq:1", 4)), 3);
        assert_eq!(col_of(fixed("seq:q32:1,1", 4)), 5);
        assert_eq!(col_of(fixed("seq:1,z", 4)), 7);
        assert_eq!(col_of(fixed("random:x", 4)), 8);
        assert_eq!(col_of(fixed("   ", 4)), 1);
        // Too many values: the first that does not fit.
        assert_eq!(col_of(fixed("u32: 1 2 3", 8)), 10);
        // An element count on a buffer without a runtime array.
        assert_eq!(col_of(fixed("zeros:3", 16)), 7);
        // Not a whole number of vectors.
        assert_eq!(col_of(fixed("u32x4: 1 2 3", 16)), 13);
        // A runtime array needs N for seq and random.
        assert_eq!(col_of(rt("seq:0,1", 0, 4)), 1);
        assert!(rt("zeros:99999999999", 0, 4).is_err());
    }

    fn scalar_node(shape: TypeShape) -> TypeNode {
        let size = match shape {
            TypeShape::Int { width, .. } | TypeShape::Float { width } => Some(width as u64 / 8),
            _ => None,
        };
        TypeNode { id: 1, shape, name: None, size, array_stride: None, element: None, members: Vec::new() }
    }

    fn node(shape: TypeShape, element: TypeNode, array_stride: Option<u32>) -> TypeNode {
        TypeNode { id: 2, shape, name: None, size: None, array_stride, element: Some(Box::new(element)), members: Vec::new() }
    }

    fn member(name: &str, offset: u32, ty: TypeNode, matrix_stride: Option<u32>, row_major: bool) -> MemberNode {
        MemberNode {
            name: (!name.is_empty()).then(|| name.into()),
            offset: Some(offset),
            size: None,
            matrix_stride,
            row_major: Some(row_major),
            builtin: None,
            ty,
        }
    }

    #[test]
    fn shown_by_the_type_tree() {
        let uint = || scalar_node(TypeShape::Int { width: 32, signed: false });
        let int = || scalar_node(TypeShape::Int { width: 32, signed: true });
        let float = || scalar_node(TypeShape::Float { width: 32 });
        let vec2 = || node(TypeShape::Vector { count: 2 }, float(), None);
        let mat = || node(TypeShape::Matrix { columns: 2 }, vec2(), None);
        let mut root = scalar_node(TypeShape::Struct);
        root.members = vec![
            member("a", 0, uint(), None, false),
            member("", 4, int(), None, false),
            member("b", 8, vec2(), None, false),
            member("m", 16, mat(), Some(8), false),
            member("r", 32, mat(), Some(8), true),
            member("data", 48, node(TypeShape::RuntimeArray, uint(), Some(4)), None, false),
        ];
        let mut bytes = Vec::new();
        let f = |v: f32| v.to_le_bytes();
        bytes.extend(7u32.to_le_bytes());
        bytes.extend((-3i32).to_le_bytes());
        bytes.extend(f(0.5));
        bytes.extend(f(2.0));
        for v in [1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0] {
            bytes.extend(f(v));
        }
        bytes.extend(1u32.to_le_bytes());
        bytes.extend(2u32.to_le_bytes());
        bytes.extend([9, 9]); // not a whole element
        let s = show(&root, &bytes);
        assert_eq!(
            s.lines("out"),
            "out.a = 7\nout.1 = -3\nout.b = (0.5, 2.0)\n\
             out.m[0] = (1.0, 2.0)\nout.m[1] = (3.0, 4.0)\n\
             out.r[0] = (1.0, 3.0)\nout.r[1] = (2.0, 4.0)\n\
             out.data[0] = 1\nout.data[1] = 2\n"
        );
        // Bytes that end early: the parts past the end are left out.
        assert_eq!(show(&root, &bytes[..6]).lines("x"), "x.a = 7\n");
    }
}

#[cfg(test)]
mod spec_tests {
    use super::*;
    use crate::text::{AsmOptions, assemble};

    #[test]
    fn spec_values_by_the_constant_type() {
        let text = "OpCapability Shader\nOpCapability Float64\nOpMemoryModel Logical GLSL450\n\
                    OpDecorate %a SpecId 1\nOpDecorate %b SpecId 2\nOpDecorate %c SpecId 3\nOpDecorate %d SpecId 4\n\
                    %u = OpTypeInt 32 0\n%i = OpTypeInt 32 1\n%f = OpTypeFloat 32\n%bool = OpTypeBool\n\
                    %a = OpSpecConstant %i 0\n%b = OpSpecConstant %f 0\n%c = OpSpecConstantTrue %bool\n%d = OpSpecConstant %u 0\n";
        let w = assemble(text, &AsmOptions::default()).expect("assembles");
        let ir = Ir::build(crate::binary::read_words(&w).expect("reads"));
        // -2 as i32 (0xfffffffe), sign-extended.
        assert_eq!(spec_value(&ir, 1, "-2"), Ok(0xffff_ffff_ffff_fffe));
        // 0.5f32 = 0x3f000000.
        assert_eq!(spec_value(&ir, 2, "0.5"), Ok(0x3f00_0000));
        assert_eq!(spec_value(&ir, 3, "false"), Ok(0));
        assert_eq!(spec_value(&ir, 4, "0x10"), Ok(16));
        assert!(spec_value(&ir, 4, "-1").is_err());
        assert!(spec_value(&ir, 3, "maybe").is_err());
        assert!(spec_value(&ir, 9, "1").is_err());
    }
}
