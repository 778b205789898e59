//! The disassembler: a binary module to spirv-dis text (v2025.5 syntax).
//!
//! Fails only when the header or the instruction framing is unreadable; an
//! instruction whose operands do not fit the grammar is printed in raw form
//! (`!0x...` words) with a comment saying what is wrong.

pub(crate) mod names;
pub mod num;

use crate::Diagnostic;
use crate::binary::parse::{ExtSet, OperandParser, ParsedOperand};
use crate::binary::{self, BinaryError};
use crate::grammar::{self, Category, OperandKind};
use crate::module::Module;
use alloc::string::String;
use alloc::vec::Vec;

pub use names::Names;

/// Disassembler options, named after spirv-dis's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DisOptions {
    /// `--raw-id`: print `%12` rather than friendly names.
    pub raw_id: bool,
    /// The header comments (off with `--no-header`).
    pub header: bool,
    /// Align result ids (off with `--no-indent`).
    pub indent: bool,
}

impl Default for DisOptions {
    fn default() -> Self {
        DisOptions {
            raw_id: false,
            header: true,
            indent: true,
        }
    }
}

#[allow(clippy::result_large_err)]
/// Disassemble a binary given as words (host order; a byte-swapped module is
/// accepted too).
pub fn disassemble(words: &[u32], opts: &DisOptions) -> Result<String, Diagnostic> {
    let m = binary::read_words_framing(words).map_err(|e| e.to_diagnostic())?;
    Ok(disassemble_module(&m, opts))
}

#[allow(clippy::result_large_err)]
/// Disassemble a binary given as bytes, in either byte order.
pub fn disassemble_bytes(bytes: &[u8], opts: &DisOptions) -> Result<String, Diagnostic> {
    let words = binary::words_from_bytes(bytes).map_err(|e| e.to_diagnostic())?;
    disassemble(&words, opts)
}

/// The generator tool names of the SPIR-V registry, by tool id.
const GENERATORS: &[&str] = &[
    "Khronos",
    "LunarG",
    "Valve",
    "Codeplay",
    "NVIDIA",
    "ARM",
    "Khronos LLVM/SPIR-V Translator",
    "Khronos SPIR-V Tools Assembler",
    "Khronos Glslang Reference Front End",
    "Qualcomm",
    "AMD",
    "Intel",
    "Imagination",
    "Google Shaderc over Glslang",
    "Google spiregg",
    "Google rspirv",
    "X-LEGEND Mesa-IR/SPIR-V Translator",
    "Khronos SPIR-V Tools Linker",
    "Wine VKD3D Shader Compiler",
    "Tellusim Clay Shader Compiler",
    "W3C WebGPU Group WHLSL Shader Translator",
    "Google Clspv",
    "LLVM MLIR SPIR-V Serializer",
    "Google Tint Compiler",
    "Google ANGLE Shader Compiler",
    "Netease Games Messiah Shader Compiler",
    "Xenia Xenia Emulator Microcode Translator",
    "Embark Studios Rust GPU Compiler Backend",
    "gfx-rs community Naga",
    "Mikkosoft Productions MSP Shader Compiler",
    "SpvGenTwo community SpvGenTwo SPIR-V IR Tools",
    "Google Skia SkSL",
    "TornadoVM Beehive SPIRV Toolkit",
    "DragonJoker ShaderWriter",
    "Rayan Hatout SPIRVSmith",
    "Saarland University Shady",
    "Taichi Graphics Taichi",
    "heroseh Hero C Compiler",
    "Meta SparkSL",
    "SirLynix Nazara ShaderLang Compiler",
    "Khronos Slang Compiler",
    "Zig Software Foundation Zig Compiler",
    "Rendong Liang spq",
    "LLVM LLVM SPIR-V Backend",
    "Robert Konrad Kongruent",
    "Kitsunebi Games Nuvk SPIR-V Emitter and DLSL compiler",
    "Nintendo",
    "ARM",
    "Goopax",
    "Icyllis Milica Arc3D Shader Compiler",
];

/// The name of a generator tool id, as spirv-dis prints it.
pub fn generator_name(tool: u32) -> Option<&'static str> {
    GENERATORS.get(tool as usize).copied()
}

struct Printer<'a> {
    out: String,
    opts: DisOptions,
    names: Option<Names>,
    parser: OperandParser,
    ops: Vec<ParsedOperand>,
    /// The header's id bound.
    bound: u32,
    _m: core::marker::PhantomData<&'a ()>,
}

/// The first id operand that is not below `bound`, as an error.
fn out_of_bound(
    opcode: u16,
    words: &[u32],
    ops: &[ParsedOperand],
    offset: usize,
    bound: u32,
) -> Option<BinaryError> {
    use OperandKind as K;
    // The parser splits pairs into their parts, so ids are single operands.
    ops.iter().find_map(|o| {
        let is_id = matches!(
            o.kind,
            K::IdResult | K::IdResultType | K::IdRef | K::IdScope | K::IdMemorySemantics
        );
        let at = o.start as usize;
        let id = *words.get(at)?;
        (is_id && id >= bound).then_some(BinaryError::IdOutOfBound {
            offset,
            opcode,
            operand: offset + 1 + at,
            id,
            bound,
        })
    })
}

fn push_hex8(out: &mut String, w: u32) {
    out.push_str("0x");
    for k in (0..8).rev() {
        let d = ((w >> (4 * k)) & 0xf) as u8;
        out.push(char::from(if d < 10 { b'0' + d } else { b'a' + d - 10 }));
    }
}

impl Printer<'_> {
    fn id(&mut self, id: u32) {
        self.out.push('%');
        self.id_name(id);
    }

    fn id_name(&mut self, id: u32) {
        match self.names.as_ref().and_then(|n| n.get(id)) {
            Some(s) => self.out.push_str(s),
            None => num::push_u64(&mut self.out, id as u64),
        }
    }

    fn id_len(&self, id: u32) -> usize {
        match self.names.as_ref().and_then(|n| n.get(id)) {
            Some(s) => s.len(),
            None => {
                let mut n = 1;
                let mut v = id;
                while v >= 10 {
                    v /= 10;
                    n += 1;
                }
                n
            }
        }
    }

    fn header(&mut self, m: &Module) {
        let h = &m.header;
        let o = &mut self.out;
        o.push_str("; SPIR-V\n; Version: ");
        num::push_u64(o, ((h.version >> 16) & 0xff) as u64);
        o.push('.');
        num::push_u64(o, ((h.version >> 8) & 0xff) as u64);
        o.push_str("\n; Generator: ");
        let tool = h.generator >> 16;
        match generator_name(tool) {
            Some(n) => o.push_str(n),
            None => {
                o.push_str("Unknown(");
                num::push_u64(o, tool as u64);
                o.push(')');
            }
        }
        o.push_str("; ");
        num::push_u64(o, (h.generator & 0xffff) as u64);
        o.push_str("\n; Bound: ");
        num::push_u64(o, h.bound as u64);
        o.push_str("\n; Schema: ");
        num::push_u64(o, h.schema as u64);
        o.push('\n');
    }

    fn instruction(&mut self, opcode: u16, words: &[u32], offset: usize) {
        let mut ops = core::mem::take(&mut self.ops);
        match self.parser.parse(opcode, words, offset, &mut ops) {
            // An id at or past the bound cannot be written as `%id` text: assembling that
            // text would raise the bound. Keep the words exact in the raw form.
            Ok(()) => match out_of_bound(opcode, words, &ops, offset, self.bound) {
                Some(e) => self.raw(opcode, words, &e),
                None => self.parsed(opcode, words, &ops),
            },
            Err(e @ (BinaryError::IdRedefined { .. } | BinaryError::ZeroResultId { .. })) => {
                // The operands parsed: print them, then say what is wrong.
                self.parsed(opcode, words, &ops);
                self.out.pop();
                self.out.push_str(" ; error: ");
                self.out.push_str(&e.message());
                self.out.push('\n');
            }
            Err(e) => self.raw(opcode, words, &e),
        }
        self.ops = ops;
    }

    fn parsed(&mut self, opcode: u16, words: &[u32], ops: &[ParsedOperand]) {
        let name = grammar::instruction(opcode).map_or("OpUnknown", |d| d.name);
        let result = ops
            .iter()
            .find(|o| o.kind == OperandKind::IdResult)
            .map(|o| words[o.start as usize]);
        match result {
            Some(id) => {
                if self.opts.indent {
                    let len = self.id_len(id);
                    for _ in 0..11usize.saturating_sub(len) {
                        self.out.push(' ');
                    }
                }
                self.id(id);
                self.out.push_str(" = ");
            }
            None => {
                if self.opts.indent {
                    self.out.push_str("               ");
                }
            }
        }
        self.out.push_str(name);
        for (i, o) in ops.iter().enumerate() {
            if o.kind == OperandKind::IdResult {
                continue;
            }
            self.out.push(' ');
            self.operand(words, ops, i);
        }
        self.out.push('\n');
    }

    fn operand(&mut self, words: &[u32], ops: &[ParsedOperand], i: usize) {
        use OperandKind as K;
        let o = ops[i];
        let s = o.start as usize;
        let e = (s + o.len as usize).min(words.len());
        let ws = &words[s.min(e)..e];
        let w = ws.first().copied().unwrap_or(0);
        match o.kind {
            K::IdResultType | K::IdResult | K::IdRef | K::IdScope | K::IdMemorySemantics => {
                self.id(w)
            }
            K::LiteralInteger | K::LiteralFloat | K::LiteralContextDependentNumber => {
                num::push_number(&mut self.out, ws, o.num);
            }
            K::LiteralString => {
                let text = binary::parse::decode_string(ws);
                self.out.push('"');
                for c in text.chars() {
                    if c == '"' || c == '\\' {
                        self.out.push('\\');
                    }
                    self.out.push(c);
                }
                self.out.push('"');
            }
            K::LiteralExtInstInteger => {
                let set_id = if s > 0 { words[s - 1] } else { 0 };
                match self.parser.ext_set(set_id) {
                    ExtSet::Known(set) => match set.by_opcode(w) {
                        Some(d) => self.out.push_str(d.name),
                        None => num::push_u64(&mut self.out, w as u64),
                    },
                    _ => num::push_u64(&mut self.out, w as u64),
                }
            }
            K::LiteralSpecConstantOpInteger => {
                match u16::try_from(w).ok().and_then(grammar::instruction) {
                    Some(d) => self
                        .out
                        .push_str(d.name.strip_prefix("Op").unwrap_or(d.name)),
                    None => num::push_u64(&mut self.out, w as u64),
                }
            }
            k => match k.category() {
                Category::ValueEnum => match k.enumerant(w) {
                    Some(en) => self.out.push_str(en.name),
                    None => num::push_u64(&mut self.out, w as u64),
                },
                Category::BitEnum => self.mask(k, w),
                _ => num::push_u64(&mut self.out, w as u64),
            },
        }
    }

    fn mask(&mut self, k: OperandKind, w: u32) {
        let mut first = true;
        let mut bits = w;
        while bits != 0 {
            let bit = bits & bits.wrapping_neg();
            bits &= !bit;
            if !first {
                self.out.push('|');
            }
            first = false;
            match k.enumerant(bit) {
                Some(e) => self.out.push_str(e.name),
                None => push_hex8(&mut self.out, bit),
            }
        }
        if first && let Some(e) = k.enumerant(0) {
            self.out.push_str(e.name);
        }
    }

    fn raw(&mut self, opcode: u16, words: &[u32], e: &BinaryError) {
        if self.opts.indent {
            self.out.push_str("               ");
        }
        // The opcode by name where that text assembles: `OpX !w...` cannot carry a
        // `%result =`, so instructions with a result get the all-raw form.
        match grammar::instruction(opcode).filter(|d| !d.has_result()) {
            Some(d) => self.out.push_str(d.name),
            None => {
                self.out.push('!');
                push_hex8(
                    &mut self.out,
                    ((words.len() as u32 + 1) << 16) | opcode as u32,
                )
            }
        }
        for &w in words {
            self.out.push_str(" !");
            push_hex8(&mut self.out, w);
        }
        self.out.push_str(" ; error: ");
        self.out.push_str(&e.message());
        self.out.push('\n');
    }
}

/// Disassemble a module read by [`binary::read_words_framing`] (or built in memory).
pub fn disassemble_module(m: &Module, opts: &DisOptions) -> String {
    disassemble_module_indexed(m, opts).0
}

/// [`disassemble_module`], also giving the byte range of each instruction's text
/// in the output (one per instruction, its line without the newline) and the
/// friendly names (`None` with `raw_id`).
pub fn disassemble_module_indexed(
    m: &Module,
    opts: &DisOptions,
) -> (String, Vec<(u32, u32)>, Option<Names>) {
    let names = if opts.raw_id { None } else { Some(Names::build(m)) };
    disassemble_module_names(m, opts, names)
}

/// [`disassemble_module_indexed`] with the names given (`None`: numbers, as
/// with `raw_id`), e.g. the names of the text a module was assembled from
/// ([`Names::build_with`]).
pub fn disassemble_module_names(
    m: &Module,
    opts: &DisOptions,
    names: Option<Names>,
) -> (String, Vec<(u32, u32)>, Option<Names>) {
    let total: usize = m.instructions.iter().map(|i| i.word_count()).sum();
    let mut p = Printer {
        out: String::with_capacity(total * 9 + 256),
        opts: *opts,
        names,
        parser: OperandParser::new(m.header.bound.min(total as u32 + 1)),
        bound: m.header.bound,
        ops: Vec::new(),
        _m: core::marker::PhantomData,
    };
    if opts.header {
        p.header(m);
    }
    let mut offset = 5usize;
    let mut ranges = Vec::with_capacity(m.instructions.len());
    for inst in &m.instructions {
        let start = p.out.len();
        p.instruction(inst.opcode, &inst.operands, offset);
        let end = if p.out.ends_with('\n') { p.out.len() - 1 } else { p.out.len() };
        ranges.push((start as u32, end.max(start) as u32));
        offset += inst.word_count();
    }
    (p.out, ranges, p.names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn module(extra: &[u32]) -> Vec<u32> {
        let mut w = vec![0x0723_0203, 0x0001_0300, (8 << 16) | 11, 12, 0];
        w.extend_from_slice(&[(2 << 16) | 17, 1, (3 << 16) | 14, 0, 1]);
        w.extend_from_slice(&[(4 << 16) | 21, 2, 32, 0]);
        w.extend_from_slice(extra);
        w
    }

    #[test]
    fn header_and_alignment() {
        let t = disassemble(&module(&[]), &DisOptions::default()).unwrap();
        assert_eq!(
            t,
            "; SPIR-V\n; Version: 1.3\n; Generator: Khronos Glslang Reference Front End; 11\n; Bound: 12\n; Schema: 0\n               OpCapability Shader\n               OpMemoryModel Logical GLSL450\n       %uint = OpTypeInt 32 0\n"
        );
        let t = disassemble(
            &module(&[]),
            &DisOptions {
                raw_id: true,
                header: false,
                indent: false,
            },
        )
        .unwrap();
        assert_eq!(
            t,
            "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%2 = OpTypeInt 32 0\n"
        );
    }

    #[test]
    fn framing_errors_fail() {
        let mut w = module(&[]);
        w[0] = 1;
        assert_eq!(
            disassemble(&w, &DisOptions::default()).unwrap_err().code,
            "bin.bad-magic"
        );
        let w = module(&[(5 << 16) | 17, 1]);
        assert_eq!(
            disassemble(&w, &DisOptions::default()).unwrap_err().code,
            "bin.truncated-instruction"
        );
    }

    #[test]
    fn operand_problems_print_raw_with_a_comment() {
        // Unknown opcode, then OpCapability with a bad value, then a good one.
        let w = module(&[
            (3 << 16) | 0x7ff0,
            5,
            6,
            (2 << 16) | 17,
            99_999,
            (2 << 16) | 17,
            1,
        ]);
        let t = disassemble(
            &w,
            &DisOptions {
                header: false,
                ..DisOptions::default()
            },
        )
        .unwrap();
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[3],
            "               !0x00037ff0 !0x00000005 !0x00000006 ; error: unknown opcode 32752 at word 14"
        );
        assert!(
            lines[4].starts_with("               OpCapability !0x0001869f ; error: "),
            "{}",
            lines[4]
        );
        assert!(lines[4].contains("Capability"));
        assert_eq!(lines[5], "               OpCapability Shader");
    }
}
