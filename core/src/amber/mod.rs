//! AmberScript, the compute subset (first slice): a reader and a runner on the
//! reference interpreter.
//!
//! Read: `SHADER compute NAME SPIRV-ASM ... END`; `BUFFER NAME DATA_TYPE T
//! [STD430] DATA v... END` and `BUFFER NAME DATA_TYPE T [STD430] SIZE n FILL v`
//! (T: `int8`..`int64`, `uint8`..`uint64`, `float`, `double`); `PIPELINE
//! compute NAME` with `ATTACH NAME` and `BIND BUFFER NAME AS storage
//! DESCRIPTOR_SET s BINDING b`, up to `END`; `RUN NAME x y z`; `EXPECT NAME
//! IDX off EQ v...` (off is a byte offset). Anything else is an error located
//! by its line.

use crate::interp::{self, Buffers, Options};
use crate::ir::Ir;
use crate::text::asm::{AsmOptions, assemble};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

/// An error in an Amber file or in its run, at a line (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AmberError {
    pub line: u32,
    pub message: String,
}

impl fmt::Display for AmberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

fn error(line: u32, message: impl Into<String>) -> AmberError {
    AmberError {
        line,
        message: message.into(),
    }
}

/// A buffer's element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

impl DataType {
    fn parse(s: &str) -> Option<DataType> {
        Some(match s {
            "int8" => DataType::Int {
                width: 8,
                signed: true,
            },
            "int16" => DataType::Int {
                width: 16,
                signed: true,
            },
            "int32" => DataType::Int {
                width: 32,
                signed: true,
            },
            "int64" => DataType::Int {
                width: 64,
                signed: true,
            },
            "uint8" => DataType::Int {
                width: 8,
                signed: false,
            },
            "uint16" => DataType::Int {
                width: 16,
                signed: false,
            },
            "uint32" => DataType::Int {
                width: 32,
                signed: false,
            },
            "uint64" => DataType::Int {
                width: 64,
                signed: false,
            },
            "float" => DataType::Float { width: 32 },
            "double" => DataType::Float { width: 64 },
            _ => return None,
        })
    }

    /// The element size in bytes.
    pub fn size(self) -> usize {
        match self {
            DataType::Int { width, .. } | DataType::Float { width } => width as usize / 8,
        }
    }

    /// The bits of value `s` (little-endian in `size` bytes).
    fn value(self, s: &str) -> Option<u64> {
        match self {
            DataType::Int { width, signed } => {
                let (neg, digits) = match s.strip_prefix('-') {
                    Some(d) => (true, d),
                    None => (false, s),
                };
                let v: u64 = match digits
                    .strip_prefix("0x")
                    .or_else(|| digits.strip_prefix("0X"))
                {
                    Some(h) => u64::from_str_radix(h, 16).ok()?,
                    None => digits.parse().ok()?,
                };
                if neg && !signed && v != 0 {
                    return None;
                }
                let bits = if neg { v.wrapping_neg() } else { v };
                let m = if width >= 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                };
                // The value must fit the width (as signed or unsigned).
                let fits = if width >= 64 {
                    true
                } else if neg {
                    v <= 1u64 << (width - 1)
                } else {
                    v <= m
                };
                fits.then_some(bits & m)
            }
            DataType::Float { width } => {
                let f: f64 = s.parse().ok()?;
                Some(if width == 32 {
                    (f as f32).to_bits() as u64
                } else {
                    f.to_bits()
                })
            }
        }
    }

    fn show(self, bits: u64) -> String {
        match self {
            DataType::Int {
                width,
                signed: true,
            } => {
                let s = 64 - width.min(64);
                (((bits << s) as i64) >> s).to_string()
            }
            DataType::Int { .. } => bits.to_string(),
            DataType::Float { width: 32 } => format!("{}", f32::from_bits(bits as u32)),
            DataType::Float { .. } => format!("{}", f64::from_bits(bits)),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shader {
    pub name: String,
    pub line: u32,
    /// The SPIR-V assembly text.
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub name: String,
    pub line: u32,
    pub ty: DataType,
    pub data: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bind {
    pub buffer: String,
    pub set: u32,
    pub binding: u32,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    pub name: String,
    pub line: u32,
    pub shader: Option<String>,
    pub binds: Vec<Bind>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Run {
        pipeline: String,
        groups: [u32; 3],
        line: u32,
    },
    /// `EXPECT buffer IDX offset EQ values`.
    Expect {
        buffer: String,
        offset: usize,
        values: Vec<u64>,
        line: u32,
    },
}

/// A parsed Amber script.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Script {
    pub shaders: Vec<Shader>,
    pub buffers: Vec<Buffer>,
    pub pipelines: Vec<Pipeline>,
    pub commands: Vec<Command>,
}

fn num<T: core::str::FromStr>(tok: Option<&str>, line: u32, what: &str) -> Result<T, AmberError> {
    let t = tok.ok_or_else(|| error(line, format!("{what} is missing")))?;
    t.parse()
        .map_err(|_| error(line, format!("{what}: `{t}` is not a number")))
}

fn expect_word(tok: Option<&str>, want: &str, line: u32) -> Result<(), AmberError> {
    match tok {
        Some(t) if t == want => Ok(()),
        Some(t) => Err(error(line, format!("expected `{want}`, found `{t}`"))),
        None => Err(error(line, format!("expected `{want}`"))),
    }
}

/// Parse an Amber script.
pub fn parse(src: &str) -> Result<Script, AmberError> {
    let lines: Vec<&str> = src.lines().collect();
    let mut script = Script::default();
    let mut li = 0usize;
    let toks_of = |l: &str| -> Vec<String> {
        l.split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    while li < lines.len() {
        let line = li as u32 + 1;
        let toks = toks_of(lines[li]);
        li += 1;
        let mut it = toks.iter().map(String::as_str);
        let Some(cmd) = it.next() else { continue };
        match cmd {
            "SHADER" => {
                let kind = it.next();
                if kind != Some("compute") {
                    return Err(error(
                        line,
                        format!("not supported: SHADER {}", kind.unwrap_or("")),
                    ));
                }
                let name = it
                    .next()
                    .ok_or_else(|| error(line, "SHADER without a name"))?;
                match it.next() {
                    Some("SPIRV-ASM") => {}
                    Some(f) => {
                        return Err(error(line, format!("not supported: shader format {f}")));
                    }
                    None => return Err(error(line, "SHADER without a format")),
                }
                let mut text = String::new();
                loop {
                    let Some(l) = lines.get(li) else {
                        return Err(error(line, "SHADER without END"));
                    };
                    li += 1;
                    if l.trim() == "END" {
                        break;
                    }
                    text.push_str(l);
                    text.push('\n');
                }
                script.shaders.push(Shader {
                    name: name.into(),
                    line,
                    text,
                });
            }
            "BUFFER" => {
                let name = it
                    .next()
                    .ok_or_else(|| error(line, "BUFFER without a name"))?;
                expect_word(it.next(), "DATA_TYPE", line)?;
                let t = it.next().unwrap_or("");
                let ty = DataType::parse(t)
                    .ok_or_else(|| error(line, format!("not supported: DATA_TYPE `{t}`")))?;
                let mut next = it.next();
                if next == Some("STD430") {
                    next = it.next();
                } else if next == Some("STD140") {
                    return Err(error(line, "not supported: STD140"));
                }
                let mut data = Vec::new();
                let put = |data: &mut Vec<u8>, v: &str, line: u32| -> Result<(), AmberError> {
                    let bits = ty
                        .value(v)
                        .ok_or_else(|| error(line, format!("`{v}` is not a {t}")))?;
                    data.extend_from_slice(&bits.to_le_bytes()[..ty.size()]);
                    Ok(())
                };
                match next {
                    Some("SIZE") => {
                        let n: usize = num(it.next(), line, "SIZE")?;
                        expect_word(it.next(), "FILL", line)?;
                        let v = it
                            .next()
                            .ok_or_else(|| error(line, "FILL without a value"))?;
                        if n > 1 << 26 {
                            return Err(error(line, "SIZE is too large"));
                        }
                        for _ in 0..n {
                            put(&mut data, v, line)?;
                        }
                    }
                    Some("DATA") => {
                        let mut rest: Vec<String> = it.map(String::from).collect();
                        let mut at_line = line;
                        'data: loop {
                            for v in &rest {
                                if v == "END" {
                                    break 'data;
                                }
                                put(&mut data, v, at_line)?;
                            }
                            let Some(l) = lines.get(li) else {
                                return Err(error(line, "BUFFER DATA without END"));
                            };
                            li += 1;
                            at_line = li as u32;
                            rest = toks_of(l);
                        }
                    }
                    Some(x) => return Err(error(line, format!("not supported: BUFFER ... {x}"))),
                    None => return Err(error(line, "BUFFER without DATA or SIZE")),
                }
                script.buffers.push(Buffer {
                    name: name.into(),
                    line,
                    ty,
                    data,
                });
            }
            "PIPELINE" => {
                expect_word(it.next(), "compute", line)
                    .map_err(|_| error(line, "not supported: a PIPELINE that is not compute"))?;
                let name = it
                    .next()
                    .ok_or_else(|| error(line, "PIPELINE without a name"))?;
                let mut p = Pipeline {
                    name: name.into(),
                    line,
                    shader: None,
                    binds: Vec::new(),
                };
                loop {
                    let Some(l) = lines.get(li) else {
                        return Err(error(line, "PIPELINE without END"));
                    };
                    li += 1;
                    let line = li as u32;
                    let toks = toks_of(l);
                    let mut it = toks.iter().map(String::as_str);
                    match it.next() {
                        None => continue,
                        Some("END") => break,
                        Some("ATTACH") => {
                            p.shader = Some(
                                it.next()
                                    .ok_or_else(|| error(line, "ATTACH without a shader"))?
                                    .into(),
                            );
                            if let Some(x) = it.next() {
                                return Err(error(line, format!("not supported: ATTACH ... {x}")));
                            }
                        }
                        Some("BIND") => {
                            expect_word(it.next(), "BUFFER", line)?;
                            let buffer = it
                                .next()
                                .ok_or_else(|| error(line, "BIND BUFFER without a name"))?;
                            expect_word(it.next(), "AS", line)?;
                            let kind = it.next().unwrap_or("");
                            if kind != "storage" {
                                return Err(error(
                                    line,
                                    format!("not supported: BIND BUFFER ... AS {kind}"),
                                ));
                            }
                            expect_word(it.next(), "DESCRIPTOR_SET", line)?;
                            let set = num(it.next(), line, "DESCRIPTOR_SET")?;
                            expect_word(it.next(), "BINDING", line)?;
                            let binding = num(it.next(), line, "BINDING")?;
                            p.binds.push(Bind {
                                buffer: buffer.into(),
                                set,
                                binding,
                                line,
                            });
                        }
                        Some(x) => {
                            return Err(error(line, format!("not supported: {x} in a PIPELINE")));
                        }
                    }
                }
                script.pipelines.push(p);
            }
            "RUN" => {
                let pipeline = it
                    .next()
                    .ok_or_else(|| error(line, "RUN without a pipeline"))?;
                let groups = [
                    num(it.next(), line, "RUN x")?,
                    num(it.next(), line, "RUN y")?,
                    num(it.next(), line, "RUN z")?,
                ];
                script.commands.push(Command::Run {
                    pipeline: pipeline.into(),
                    groups,
                    line,
                });
            }
            "EXPECT" => {
                let buffer = it
                    .next()
                    .ok_or_else(|| error(line, "EXPECT without a buffer"))?;
                expect_word(it.next(), "IDX", line)?;
                let offset = num(it.next(), line, "IDX")?;
                let cmp = it.next().unwrap_or("");
                if cmp != "EQ" {
                    return Err(error(line, format!("not supported: EXPECT ... {cmp}")));
                }
                let ty = script
                    .buffers
                    .iter()
                    .find(|b| b.name == buffer)
                    .map(|b| b.ty)
                    .ok_or_else(|| error(line, format!("no buffer named `{buffer}`")))?;
                let values = it
                    .map(|v| {
                        ty.value(v).ok_or_else(|| {
                            error(line, format!("`{v}` is not a value of the buffer's type"))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                script.commands.push(Command::Expect {
                    buffer: buffer.into(),
                    offset,
                    values,
                    line,
                });
            }
            "#!amber" => {}
            x => return Err(error(line, format!("not supported: {x}"))),
        }
    }
    Ok(script)
}

/// The outcome of a script: the failed expectations (empty: it passed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub failures: Vec<AmberError>,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Run a script on the reference interpreter. An error stops the script (a
/// shader that does not assemble, a run error); failed expectations are
/// collected.
pub fn run(script: &Script, max_steps: u64) -> Result<Outcome, AmberError> {
    let mut bufs: Vec<Vec<u8>> = script.buffers.iter().map(|b| b.data.clone()).collect();
    let find_buf = |name: &str, line: u32| {
        script
            .buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| error(line, format!("no buffer named `{name}`")))
    };
    let mut out = Outcome::default();
    for c in &script.commands {
        match c {
            Command::Run {
                pipeline,
                groups,
                line,
            } => {
                let line = *line;
                let p = script
                    .pipelines
                    .iter()
                    .find(|p| &p.name == pipeline)
                    .ok_or_else(|| error(line, format!("no pipeline named `{pipeline}`")))?;
                let sname = p
                    .shader
                    .as_deref()
                    .ok_or_else(|| error(p.line, "the pipeline has no ATTACH"))?;
                let shader = script
                    .shaders
                    .iter()
                    .find(|s| s.name == sname)
                    .ok_or_else(|| error(p.line, format!("no shader named `{sname}`")))?;
                let words = assemble(&shader.text, &AsmOptions::default()).map_err(|d| {
                    let first = d.first().map_or(String::new(), |d| d.message.clone());
                    error(
                        shader.line,
                        format!("the shader does not assemble: {first}"),
                    )
                })?;
                let module = crate::binary::read_words(&words).map_err(|e| {
                    error(
                        shader.line,
                        format!("the shader does not read back: {}", e.message()),
                    )
                })?;
                let ir = Ir::build(module);
                let mut map = Buffers::new();
                for b in &p.binds {
                    let k = find_buf(&b.buffer, b.line)?;
                    map.insert((b.set, b.binding), core::mem::take(&mut bufs[k]));
                }
                let opts = Options {
                    entry: None,
                    workgroups: *groups,
                    max_steps,
                    push_constants: None,
                };
                let r = interp::run(&ir, &opts, &mut map);
                for b in &p.binds {
                    if let (Ok(k), Some(data)) =
                        (find_buf(&b.buffer, b.line), map.remove(&(b.set, b.binding)))
                    {
                        bufs[k] = data;
                    }
                }
                r.map_err(|e| {
                    let inv = e.invocation.map_or(String::new(), |[x, y, z]| {
                        format!(" [invocation ({x},{y},{z})]")
                    });
                    error(line, format!("{e}{inv}"))
                })?;
            }
            Command::Expect {
                buffer,
                offset,
                values,
                line,
            } => {
                let k = find_buf(buffer, *line)?;
                let ty = script.buffers[k].ty;
                let data = &bufs[k];
                let size = ty.size();
                for (j, want) in values.iter().enumerate() {
                    let at = offset.saturating_add(j * size);
                    let got = data.get(at..at.saturating_add(size)).map(|b| {
                        b.iter()
                            .enumerate()
                            .fold(0u64, |acc, (i, x)| acc | (*x as u64) << (8 * i))
                    });
                    let equal = match (got, ty) {
                        (Some(g), DataType::Float { width: 32 }) => {
                            f32::from_bits(g as u32) == f32::from_bits(*want as u32)
                        }
                        (Some(g), DataType::Float { .. }) => {
                            f64::from_bits(g) == f64::from_bits(*want)
                        }
                        (Some(g), _) => g == *want,
                        (None, _) => false,
                    };
                    if !equal {
                        let g = got.map_or(String::from("nothing (past the end)"), |g| ty.show(g));
                        out.failures.push(error(
                            *line,
                            format!(
                                "{buffer} at byte {at}: expected {}, got {g}",
                                ty.show(*want)
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
