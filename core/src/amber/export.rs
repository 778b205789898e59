//! A run written back as an AmberScript file (for bug reports): the module's
//! text, its buffers as they went in, the dispatch, and EXPECT lines holding
//! the buffers as the run left them, so that the file passes on the
//! interpreter that wrote it and shows where a driver differs.
//!
//! The syntax is Amber's (`docs/amber_script.md` of google/amber): `SHADER
//! compute NAME SPIRV-ASM ... END`, `BUFFER NAME DATA_TYPE T STD430 DATA v...
//! END`, `PIPELINE compute NAME` with `ATTACH NAME ENTRY_POINT e` and `BIND
//! BUFFER NAME AS storage|uniform DESCRIPTOR_SET s BINDING b` (or `AS
//! push_constant`), `RUN NAME x y z` and `EXPECT NAME IDX 0 EQ v...`.
//!
//! A buffer's DATA_TYPE is its type's scalar when every scalar of the type
//! (from reflection) is the same and the bytes are a whole number of them
//! (floats only when every value is finite, so that they print and read back
//! exactly); otherwise `uint32` words, or `uint8` bytes for a size that is not
//! a multiple of 4. The layout is always STD430: the bytes are packed values
//! of the DATA_TYPE, so Amber adds no padding (STD140 would, for a uniform
//! buffer).

use crate::TargetEnv;
use crate::raster::ColorAttachment;
use crate::reflect::{TypeNode, TypeShape};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// How a buffer is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    Storage { set: u32, binding: u32 },
    Uniform { set: u32, binding: u32 },
    PushConstant,
}

/// One buffer of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportBuffer<'a> {
    pub binding: Binding,
    /// The variable's name, if it has one (the buffer is named after it when
    /// it is a plain identifier).
    pub name: Option<&'a str>,
    /// The binding's type (reflection's type tree), for the DATA_TYPE.
    pub ty: Option<&'a TypeNode>,
    /// The bytes before the run.
    pub input: &'a [u8],
    /// The bytes after the run.
    pub output: &'a [u8],
}

/// A run to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export<'a> {
    /// The module as SPIR-V assembly.
    pub text: &'a str,
    /// The target environment the text is assembled for (`None`: Amber's
    /// default).
    pub env: Option<TargetEnv>,
    pub entry: &'a str,
    pub workgroups: [u32; 3],
    /// Spec constants set: (SpecId, width in bits, value bits).
    pub specialize: Vec<(u32, u32, u64)>,
    pub buffers: Vec<ExportBuffer<'a>>,
    /// What the file is, as comment lines after `#!amber` (`None`: a run on
    /// the reference interpreter, whose EXPECT lines hold the buffers as it
    /// left them).
    pub header: Option<&'a str>,
}

/// A DATA_TYPE scalar: Amber's name, its size in bytes, float or not,
/// signed or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DataType {
    name: &'static str,
    size: usize,
    float: bool,
    signed: bool,
}

const U8: DataType = DataType {
    name: "uint8",
    size: 1,
    float: false,
    signed: false,
};
const U32: DataType = DataType {
    name: "uint32",
    size: 4,
    float: false,
    signed: false,
};

fn scalar_of(shape: &TypeShape) -> Option<DataType> {
    Some(match *shape {
        TypeShape::Int { width, signed } => {
            let name = match (width, signed) {
                (8, true) => "int8",
                (16, true) => "int16",
                (32, true) => "int32",
                (64, true) => "int64",
                (8, false) => "uint8",
                (16, false) => "uint16",
                (32, false) => "uint32",
                (64, false) => "uint64",
                _ => return None,
            };
            DataType {
                name,
                size: width as usize / 8,
                float: false,
                signed,
            }
        }
        TypeShape::Float { width: 32 } => DataType {
            name: "float",
            size: 4,
            float: true,
            signed: true,
        },
        TypeShape::Float { width: 64 } => DataType {
            name: "double",
            size: 8,
            float: true,
            signed: true,
        },
        _ => return None,
    })
}

/// The one scalar type of every leaf of `t`, if there is one.
fn leaf_scalar(t: &TypeNode) -> Option<DataType> {
    let mut found: Option<DataType> = None;
    let mut stack = alloc::vec![t];
    while let Some(n) = stack.pop() {
        match n.shape {
            TypeShape::Struct => stack.extend(n.members.iter().map(|m| &m.ty)),
            TypeShape::Vector { .. }
            | TypeShape::Matrix { .. }
            | TypeShape::Array { .. }
            | TypeShape::RuntimeArray => stack.push(n.element.as_deref()?),
            ref s => {
                let k = scalar_of(s)?;
                if found.is_some_and(|f| f != k) {
                    return None;
                }
                found = Some(k);
            }
        }
    }
    found
}

fn value(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0u64, |acc, b| acc << 8 | *b as u64)
}

/// Value `bits` of `ty` as Amber reads it back exactly.
fn show(bits: u64, ty: DataType) -> String {
    match (ty.float, ty.size) {
        (true, 4) => format!("{}", f32::from_bits(bits as u32)),
        (true, _) => format!("{}", f64::from_bits(bits)),
        (false, n) if ty.signed => {
            let shift = 64 - 8 * n as u32;
            format!("{}", ((bits << shift) as i64) >> shift)
        }
        _ => format!("{bits}"),
    }
}

fn finite(bytes: &[u8], ty: DataType) -> bool {
    bytes.chunks(ty.size).all(|c| match ty.size {
        4 => f32::from_bits(value(c) as u32).is_finite(),
        _ => f64::from_bits(value(c)).is_finite(),
    })
}

/// The DATA_TYPE buffer `b` is written in.
fn data_type(b: &ExportBuffer) -> DataType {
    let fits =
        |t: DataType| b.input.len().is_multiple_of(t.size) && b.output.len().is_multiple_of(t.size);
    if let Some(t) = b.ty.and_then(leaf_scalar)
        && fits(t)
        && (!t.float || (finite(b.input, t) && finite(b.output, t)))
    {
        return t;
    }
    if fits(U32) { U32 } else { U8 }
}

fn values(bytes: &[u8], ty: DataType) -> Vec<String> {
    bytes.chunks(ty.size).map(|c| show(value(c), ty)).collect()
}

fn identifier(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The AmberScript file of run `e`.
pub fn export(e: &Export) -> String {
    let mut s = String::new();
    let [x, y, z] = e.workgroups;
    s.push_str("#!amber\n");
    match e.header {
        Some(h) => {
            for line in h.lines() {
                let _ = writeln!(s, "# {line}");
            }
            s.push('\n');
        }
        None => {
            let _ = writeln!(
                s,
                "# Written by spvlab: entry point `{}` over {x} {y} {z} workgroups on the reference\n\
                 # interpreter. The EXPECT lines hold the buffers as that run left them.\n",
                e.entry
            );
        }
    }
    let env = e
        .env
        .map(|v| format!(" TARGET_ENV {}", v.name()))
        .unwrap_or_default();
    let _ = writeln!(s, "SHADER compute shader SPIRV-ASM{env}");
    s.push_str(e.text.trim_end_matches(['\n', '\r']));
    s.push_str("\nEND\n\n");
    let names = buffer_names(&e.buffers, &["shader", "pipeline"]);
    let types: Vec<DataType> = e.buffers.iter().map(data_type).collect();
    write_buffers(&mut s, &e.buffers, &names, &types);
    s.push_str("\nPIPELINE compute pipeline\n");
    let _ = write!(s, "  ATTACH shader ENTRY_POINT {}", e.entry);
    for (id, width, bits) in &e.specialize {
        let (t, v) = if *width > 32 {
            ("uint64", *bits)
        } else {
            ("uint32", bits & 0xffff_ffff)
        };
        let _ = write!(s, " SPECIALIZE {id} AS {t} {v}");
    }
    s.push('\n');
    write_binds(&mut s, &e.buffers, &names);
    s.push_str("END\n\n");
    let _ = writeln!(s, "RUN pipeline {x} {y} {z}\n");
    write_expects(&mut s, &e.buffers, &names, &types);
    s
}

/// Each buffer's name in the file: the variable's when it is an identifier
/// used once and not one of `taken`, else by its slot.
fn buffer_names(buffers: &[ExportBuffer], taken: &[&str]) -> Vec<String> {
    buffers
        .iter()
        .map(|b| {
            let slot = match b.binding {
                Binding::Storage { set, binding } | Binding::Uniform { set, binding } => {
                    format!("buf_{set}_{binding}")
                }
                Binding::PushConstant => String::from("push_constants"),
            };
            match b.name {
                Some(n)
                    if identifier(n)
                        && !taken.contains(&n)
                        && buffers.iter().filter(|o| o.name == Some(n)).count() == 1 =>
                {
                    String::from(n)
                }
                _ => slot,
            }
        })
        .collect()
}

/// The BUFFER lines of the buffers as they went in.
fn write_buffers(s: &mut String, buffers: &[ExportBuffer], names: &[String], types: &[DataType]) {
    for ((b, n), t) in buffers.iter().zip(names).zip(types) {
        let vs = values(b.input, *t);
        if vs.is_empty() {
            let _ = writeln!(s, "BUFFER {n} DATA_TYPE {} STD430 SIZE 0 FILL 0", t.name);
            continue;
        }
        let _ = writeln!(s, "BUFFER {n} DATA_TYPE {} STD430 DATA", t.name);
        for line in vs.chunks(16) {
            let _ = writeln!(s, "  {}", line.join(" "));
        }
        s.push_str("END\n");
    }
}

/// The pipeline's BIND lines of the buffers.
fn write_binds(s: &mut String, buffers: &[ExportBuffer], names: &[String]) {
    for (b, n) in buffers.iter().zip(names) {
        let _ = match b.binding {
            Binding::Storage { set, binding } => writeln!(
                s,
                "  BIND BUFFER {n} AS storage DESCRIPTOR_SET {set} BINDING {binding}"
            ),
            Binding::Uniform { set, binding } => writeln!(
                s,
                "  BIND BUFFER {n} AS uniform DESCRIPTOR_SET {set} BINDING {binding}"
            ),
            Binding::PushConstant => writeln!(s, "  BIND BUFFER {n} AS push_constant"),
        };
    }
}

/// An EXPECT line for each buffer as the run left it (push constants are
/// only read).
fn write_expects(s: &mut String, buffers: &[ExportBuffer], names: &[String], types: &[DataType]) {
    for ((b, n), t) in buffers.iter().zip(names).zip(types) {
        let vs = values(b.output, *t);
        if !vs.is_empty() && b.binding != Binding::PushConstant {
            let _ = writeln!(s, "EXPECT {n} IDX 0 EQ {}", vs.join(" "));
        }
    }
}

/// A draw to write: a fragment shader over the framebuffer (Amber's
/// `DRAW_RECT` or `DRAW_GRID` over all of it), with its vertex shader or
/// Amber's passthrough one, its buffers, and the image the draw left.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawExport<'a> {
    /// The fragment shader's module as SPIR-V assembly.
    pub text: &'a str,
    pub env: Option<TargetEnv>,
    pub entry: &'a str,
    /// The vertex shader's module as SPIR-V assembly, its target environment
    /// and its entry point; `None`: Amber's `PASSTHROUGH`.
    pub vertex: Option<(&'a str, Option<TargetEnv>, &'a str)>,
    pub shape: crate::plan::DrawShape,
    /// The colour the attachment was cleared to.
    pub clear: [f32; 4],
    pub buffers: Vec<ExportBuffer<'a>>,
    /// The colour attachment at Location 0 after the draw.
    pub image: &'a ColorAttachment,
}

/// The image's pixels as rectangles of one colour (8-bit RGBA): each row's
/// runs, a run that continues one of the row above (the same columns and
/// colour) growing that rectangle. `(x, y, width, height, rgba)`, in order
/// of their top-left corners.
pub fn colour_rects(image: &ColorAttachment) -> Vec<(u32, u32, u32, u32, [u8; 4])> {
    let rgba = image.rgba8();
    let (w, h) = (image.width as usize, image.height as usize);
    let px = |x: usize, y: usize| -> [u8; 4] {
        let k = 4 * (y * w + x);
        [rgba[k], rgba[k + 1], rgba[k + 2], rgba[k + 3]]
    };
    let mut done = Vec::new();
    // Open rectangles, ending at the row above, in order of x: (x, y,
    // width, height, colour). A row's runs come in order of x too, so one
    // pass over both matches them.
    let mut open: Vec<(u32, u32, u32, u32, [u8; 4])> = Vec::new();
    for y in 0..h {
        let mut next = Vec::with_capacity(open.len());
        let mut above = open.drain(..).peekable();
        let mut x = 0;
        while x < w {
            let c = px(x, y);
            let mut end = x + 1;
            while end < w && px(end, y) == c {
                end += 1;
            }
            let run = (x as u32, (end - x) as u32, c);
            // Those above that start before this run end here.
            while let Some(r) = above.next_if(|r| r.0 < run.0) {
                done.push(r);
            }
            match above.next_if(|r| (r.0, r.2, r.4) == run) {
                Some(mut r) => {
                    r.3 += 1;
                    next.push(r);
                }
                None => next.push((run.0, y as u32, run.1, 1, c)),
            }
            x = end;
        }
        done.extend(above);
        open = next;
    }
    done.append(&mut open);
    done.sort_by_key(|r| (r.1, r.0));
    done
}

/// The AmberScript file of draw `e`, whose EXPECT lines hold the image
/// exactly (`EQ_RGBA` over rectangles of one colour) and the written
/// buffers; an attachment whose values 8-bit RGBA does not hold exactly (a
/// float or integer format) is refused.
pub fn export_draw(e: &DrawExport) -> Result<String, String> {
    let img = e.image;
    if !img.format.is_unorm() {
        return Err(format!("a {} attachment (EQ_RGBA checks 8-bit values exactly; the export writes UNORM attachments only)", img.format.name()));
    }
    let mut s = String::from("#!amber\n");
    let _ = writeln!(
        s,
        "# Written by spvlab: entry point `{}` drawn over a {}x{} {} framebuffer on the\n\
         # reference interpreter. The EXPECT lines hold the image (and the buffers) as that\n\
         # draw left them.\n",
        e.entry,
        img.width,
        img.height,
        img.format.name()
    );
    let env = |v: Option<TargetEnv>| v.map(|v| format!(" TARGET_ENV {}", v.name())).unwrap_or_default();
    match e.vertex {
        Some((text, venv, _)) => {
            let _ = writeln!(s, "SHADER vertex vertex_shader SPIRV-ASM{}", env(venv));
            s.push_str(text.trim_end_matches(['\n', '\r']));
            s.push_str("\nEND\n\n");
        }
        None => s.push_str("SHADER vertex vertex_shader PASSTHROUGH\n\n"),
    }
    let _ = writeln!(s, "SHADER fragment fragment_shader SPIRV-ASM{}", env(e.env));
    s.push_str(e.text.trim_end_matches(['\n', '\r']));
    s.push_str("\nEND\n\n");
    let names = buffer_names(&e.buffers, &["vertex_shader", "fragment_shader", "pipeline", "framebuffer"]);
    let types: Vec<DataType> = e.buffers.iter().map(data_type).collect();
    write_buffers(&mut s, &e.buffers, &names, &types);
    let _ = writeln!(s, "BUFFER framebuffer FORMAT {}\n", img.format.name());
    s.push_str("PIPELINE graphics pipeline\n");
    match e.vertex {
        Some((_, _, entry)) => {
            let _ = writeln!(s, "  ATTACH vertex_shader ENTRY_POINT {entry}");
        }
        None => s.push_str("  ATTACH vertex_shader\n"),
    }
    let _ = writeln!(s, "  ATTACH fragment_shader ENTRY_POINT {}", e.entry);
    let _ = writeln!(s, "  FRAMEBUFFER_SIZE {} {}", img.width, img.height);
    s.push_str("  BIND BUFFER framebuffer AS color LOCATION 0\n");
    write_binds(&mut s, &e.buffers, &names);
    s.push_str("END\n\n");
    let c = e.clear.map(|v| crate::raster::format::unorm_of(v as f64, 8));
    let _ = writeln!(s, "CLEAR_COLOR pipeline {} {} {} {}", c[0], c[1], c[2], c[3]);
    s.push_str("CLEAR pipeline\n");
    let (w, h) = (img.width, img.height);
    let _ = match e.shape {
        crate::plan::DrawShape::Rect => writeln!(s, "RUN pipeline DRAW_RECT POS 0 0 SIZE {w} {h}\n"),
        crate::plan::DrawShape::Grid { columns, rows } => writeln!(s, "RUN pipeline DRAW_GRID POS 0 0 SIZE {w} {h} CELLS {columns} {rows}\n"),
    };
    for (x, y, rw, rh, c) in colour_rects(img) {
        let _ = writeln!(s, "EXPECT framebuffer IDX {x} {y} SIZE {rw} {rh} EQ_RGBA {} {} {} {}", c[0], c[1], c[2], c[3]);
    }
    write_expects(&mut s, &e.buffers, &names, &types);
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{self, Buffers};
    use crate::ir::Ir;
    use crate::reflect;
    use crate::text::asm::{AsmOptions, assemble};
    use alloc::vec;

    /// `out.data[i] = in[i] * 3 + K` (K: spec constant 7, default 1) and
    /// `out.f[i] = in[i]` converted to float, for i = GlobalInvocationId.x; a
    /// uniform `u` whose one value goes to `out.u`.
    const KERNEL: &str = r#"               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 2 1 1
               OpName %out "out"
               OpName %in "in"
               OpName %u "u"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %k SpecId 7
               OpDecorate %arr ArrayStride 4
               OpDecorate %farr ArrayStride 4
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %Out 0 Offset 0
               OpMemberDecorate %Out 1 Offset 8
               OpMemberDecorate %Out 2 Offset 16
               OpMemberDecorate %In 0 Offset 0
               OpMemberDecorate %U 0 Offset 0
               OpDecorate %Out Block
               OpDecorate %In Block
               OpDecorate %U Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
               OpDecorate %in DescriptorSet 0
               OpDecorate %in Binding 1
               OpDecorate %u DescriptorSet 1
               OpDecorate %u Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u2 = OpConstant %uint 2
         %u3 = OpConstant %uint 3
          %k = OpSpecConstant %uint 1
     %v3uint = OpTypeVector %uint 3
       %p_in = OpTypePointer Input %v3uint
        %gid = OpVariable %p_in Input
        %arr = OpTypeArray %uint %u2
       %farr = OpTypeArray %float %u2
        %rta = OpTypeRuntimeArray %int
        %Out = OpTypeStruct %arr %farr %uint
         %In = OpTypeStruct %rta
          %U = OpTypeStruct %uint
      %p_out = OpTypePointer StorageBuffer %Out
       %p_In = OpTypePointer StorageBuffer %In
        %p_U = OpTypePointer Uniform %U
     %p_uint = OpTypePointer StorageBuffer %uint
      %p_int = OpTypePointer StorageBuffer %int
    %p_float = OpTypePointer StorageBuffer %float
    %pu_uint = OpTypePointer Uniform %uint
        %out = OpVariable %p_out StorageBuffer
         %in = OpVariable %p_In StorageBuffer
          %u = OpVariable %p_U Uniform
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %g 0
        %src = OpAccessChain %p_int %in %u0 %i
          %x = OpLoad %int %src
         %xu = OpBitcast %uint %x
         %x3 = OpIMul %uint %xu %u3
          %y = OpIAdd %uint %x3 %k
        %dst = OpAccessChain %p_uint %out %u0 %i
               OpStore %dst %y
         %xf = OpConvertSToF %float %x
       %fdst = OpAccessChain %p_float %out %u1 %i
               OpStore %fdst %xf
         %up = OpAccessChain %pu_uint %u %u0
         %uv = OpLoad %uint %up
         %ud = OpAccessChain %p_uint %out %u2
               OpStore %ud %uv
               OpReturn
               OpFunctionEnd
"#;

    fn words(xs: &[u32]) -> Vec<u8> {
        xs.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// The kernel run with `in` = -1, 5 and `u` = 9, K = 7, and its export.
    fn exported(tamper: bool) -> String {
        let mut w = assemble(KERNEL, &AsmOptions::default()).expect("the kernel assembles");
        interp::specialize(&mut w, &[(7, 7)]);
        let ir = Ir::build(crate::binary::read_words(&w).expect("it reads back"));
        let refl = reflect::reflect(&ir);
        let e = &refl.entry_points[0];
        let res = |set, binding| {
            e.resources
                .iter()
                .find(|r| r.set == Some(set) && r.binding == Some(binding))
                .expect("the resource")
        };
        let inputs: Vec<((u32, u32), Vec<u8>)> = vec![
            ((0, 0), vec![0u8; 20]),
            ((0, 1), words(&[(-1i32) as u32, 5])),
            ((1, 0), words(&[9])),
        ];
        let mut bufs: Buffers = inputs.iter().cloned().collect();
        interp::run(&ir, &interp::Options::default(), &mut bufs).expect("it runs");
        if tamper {
            bufs.get_mut(&(0, 0)).expect("out")[0] ^= 1;
        }
        let buffers = inputs
            .iter()
            .map(|((s, b), input)| ExportBuffer {
                binding: if *s == 1 {
                    Binding::Uniform {
                        set: *s,
                        binding: *b,
                    }
                } else {
                    Binding::Storage {
                        set: *s,
                        binding: *b,
                    }
                },
                name: res(*s, *b).name.as_deref(),
                ty: Some(&res(*s, *b).ty),
                input,
                output: &bufs[&(*s, *b)],
            })
            .collect();
        export(&Export {
            text: KERNEL,
            env: None,
            entry: "main",
            workgroups: [1, 1, 1],
            specialize: vec![(7, 32, 7)],
            buffers,
            header: None,
        })
    }

    #[test]
    fn the_export_runs_and_passes_on_our_runner() {
        let text = exported(false);
        let script = crate::amber::parse(&text).expect("the export parses");
        let o = crate::amber::run(&script, 10_000).expect("it runs");
        assert!(o.passed(), "{:?}", o.failures);
        assert_eq!(o.checked, 3);
        // A result that differs from the run's fails.
        let text = exported(true);
        let script = crate::amber::parse(&text).expect("the export parses");
        let o = crate::amber::run(&script, 10_000).expect("it runs");
        assert_eq!(o.failures.len(), 1);
    }

    /// The file written by hand from Amber's docs/amber_script.md (the
    /// compute example and the BUFFER, PIPELINE, BIND, RUN and EXPECT
    /// syntax), with the values worked out from the kernel: out.data =
    /// (-1*3+7, 5*3+7) = (4, 22) as uint; out.f = (-1.0, 5.0), which are
    /// 0xbf800000 = 3212836864 and 0x40a00000 = 1084227584; out.u = 9. `out`
    /// mixes uint and float, so it is written as uint32 words; `in` is int32
    /// throughout, `u` uint32.
    #[test]
    fn the_export_follows_amber_syntax() {
        let want = alloc::format!(
            "#!amber\n\
             # Written by spvlab: entry point `main` over 1 1 1 workgroups on the reference\n\
             # interpreter. The EXPECT lines hold the buffers as that run left them.\n\
             \n\
             SHADER compute shader SPIRV-ASM\n\
             {}\n\
             END\n\
             \n\
             BUFFER out DATA_TYPE uint32 STD430 DATA\n\
             \x20 0 0 0 0 0\n\
             END\n\
             BUFFER in DATA_TYPE int32 STD430 DATA\n\
             \x20 -1 5\n\
             END\n\
             BUFFER u DATA_TYPE uint32 STD430 DATA\n\
             \x20 9\n\
             END\n\
             \n\
             PIPELINE compute pipeline\n\
             \x20 ATTACH shader ENTRY_POINT main SPECIALIZE 7 AS uint32 7\n\
             \x20 BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0\n\
             \x20 BIND BUFFER in AS storage DESCRIPTOR_SET 0 BINDING 1\n\
             \x20 BIND BUFFER u AS uniform DESCRIPTOR_SET 1 BINDING 0\n\
             END\n\
             \n\
             RUN pipeline 1 1 1\n\
             \n\
             EXPECT out IDX 0 EQ 4 22 3212836864 1084227584 9\n\
             EXPECT in IDX 0 EQ -1 5\n\
             EXPECT u IDX 0 EQ 9\n",
            KERNEL.trim_end()
        );
        assert_eq!(exported(false), want);
    }

    #[test]
    fn data_types_by_the_leaves() {
        let leaf = |shape| TypeNode {
            id: 0,
            shape,
            name: None,
            size: None,
            array_stride: None,
            element: None,
            members: Vec::new(),
        };
        let f32s = TypeNode {
            shape: TypeShape::RuntimeArray,
            element: Some(alloc::boxed::Box::new(leaf(TypeShape::Float { width: 32 }))),
            ..leaf(TypeShape::RuntimeArray)
        };
        let b = |ty, input: &'static [u8], output: &'static [u8]| ExportBuffer {
            binding: Binding::PushConstant,
            name: None,
            ty,
            input,
            output,
        };
        let one = 1.5f32.to_le_bytes();
        let one: &'static [u8] = alloc::boxed::Box::leak(alloc::boxed::Box::new(one));
        assert_eq!(data_type(&b(Some(&f32s), one, one)).name, "float");
        assert_eq!(
            values(one, data_type(&b(Some(&f32s), one, one))),
            vec!["1.5"]
        );
        // A NaN is not written as a float.
        let nan: &'static [u8] = &[0, 0, 0xc0, 0x7f];
        assert_eq!(data_type(&b(Some(&f32s), one, nan)).name, "uint32");
        // Three bytes are bytes.
        assert_eq!(
            data_type(&b(Some(&f32s), &[1, 2, 3], &[1, 2, 3])).name,
            "uint8"
        );
    }

    /// A 4x3 image: left half red, right half green, and the bottom row's
    /// last pixel blue.
    fn quarters() -> ColorAttachment {
        use crate::raster::ColorFormat;
        let mut a = ColorAttachment::new(ColorFormat::B8G8R8A8Unorm, 4, 3, [0.0; 4]).unwrap();
        for y in 0..3 {
            for x in 0..4 {
                a.write(x, y, if x < 2 { [1.0, 0.0, 0.0, 1.0] } else { [0.0, 1.0, 0.0, 1.0] });
            }
        }
        a.write(3, 2, [0.0, 0.0, 1.0, 1.0]);
        a
    }

    #[test]
    fn an_image_is_covered_by_rectangles_of_one_colour() {
        let r = colour_rects(&quarters());
        let (red, green, blue) = ([255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]);
        assert_eq!(r, vec![(0, 0, 2, 3, red), (2, 0, 2, 2, green), (2, 2, 1, 1, green), (3, 2, 1, 1, blue)]);
        // Every pixel once.
        assert_eq!(r.iter().map(|x| x.2 * x.3).sum::<u32>(), 12);
    }

    #[test]
    fn a_draw_export_expects_each_rectangle_and_refuses_float_attachments() {
        let img = quarters();
        let e = DrawExport {
            text: "; a module\n",
            env: None,
            entry: "main",
            vertex: None,
            shape: crate::plan::DrawShape::Rect,
            clear: [0.0, 0.0, 0.0, 1.0],
            buffers: Vec::new(),
            image: &img,
        };
        let s = export_draw(&e).unwrap();
        assert!(s.contains("CLEAR_COLOR pipeline 0 0 0 255\n") && s.contains("RUN pipeline DRAW_RECT POS 0 0 SIZE 4 3\n"), "{s}");
        assert!(s.contains("EXPECT framebuffer IDX 3 2 SIZE 1 1 EQ_RGBA 0 0 255 255\n"), "{s}");
        assert_eq!(s.lines().filter(|l| l.starts_with("EXPECT framebuffer")).count(), 4);
        assert!(crate::amber::parse(&s).is_ok(), "{s}");
        let f = ColorAttachment::new(crate::raster::ColorFormat::R32Sfloat, 2, 2, [0.0; 4]).unwrap();
        let err = export_draw(&DrawExport { image: &f, ..e }).unwrap_err();
        assert!(err.contains("R32_SFLOAT"), "{err}");
    }
}
