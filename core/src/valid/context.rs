//! What every validation pass shares.

use super::Options;
use crate::binary::parse::{IdMap, OperandParser, ParsedOperand};
use crate::cfg::{self, ModuleCfg};
use crate::diag::Severity;
use crate::grammar::{self, InstructionDesc, OperandKind};
use crate::text::dis::names::Names;
use crate::{Diagnostic, Instruction, Module, Span};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The state of one validation: the module with its operands parsed, the
/// definitions, the CFG (built on first use), and the diagnostics so far.
pub struct Context<'m> {
    pub module: &'m Module,
    pub opts: &'m Options,
    /// The module's SPIR-V version `(major, minor)`.
    pub version: (u8, u8),
    /// The word offset of each instruction.
    offsets: Vec<u32>,
    /// Parsed operands of all instructions, flat; `op_ranges[i]` indexes it.
    ops: Vec<ParsedOperand>,
    op_ranges: Vec<(u32, u32)>,
    /// Instruction index + 1 of each id's definition (0: not defined).
    defs: IdMap<u32>,
    cfg: Option<ModuleCfg>,
    names: Option<Names>,
    /// The names the text gave its ids, when validating assembled text.
    text_names: Option<&'m super::TextNames>,
    pub diags: Vec<Diagnostic>,
}

impl<'m> Context<'m> {
    /// Parse every instruction's operands and record definitions. Operand
    /// problems (the binary's own errors) are reported here.
    pub fn new(module: &'m Module, opts: &'m Options) -> Context<'m> {
        let n = module.instructions.len();
        let bound = module.header.bound;
        let mut cx = Context {
            module,
            opts,
            version: module.header.version(),
            offsets: Vec::with_capacity(n),
            ops: Vec::with_capacity(n * 3),
            op_ranges: Vec::with_capacity(n),
            defs: IdMap::new(bound.min(module.word_count() as u32 + 1)),
            cfg: None,
            names: None,
            text_names: None,
            diags: Vec::new(),
        };
        let mut parser = OperandParser::new(bound.min(module.word_count() as u32 + 1));
        let mut scratch = Vec::new();
        let mut offset = 5usize;
        for (i, inst) in module.instructions.iter().enumerate() {
            cx.offsets.push(offset as u32);
            let start = cx.ops.len() as u32;
            match parser.parse(inst.opcode, &inst.operands, offset, &mut scratch) {
                Ok(()) => {
                    cx.ops.extend_from_slice(&scratch);
                    if let Some(id) = inst_result_id(inst, &scratch) {
                        if id >= bound {
                            let e = Diagnostic::error(
                                "val.id-bound",
                                cx.word_span(offset, inst.word_count()),
                                format!("Result <id> {id} must be less than the id bound {bound}"),
                            )
                            .in_binary();
                            cx.diags.push(e);
                        } else {
                            cx.defs.set(id, i as u32 + 1);
                        }
                    }
                }
                Err(e) => cx.diags.push(e.to_diagnostic()),
            }
            cx.op_ranges.push((start, cx.ops.len() as u32));
            offset += inst.word_count();
        }
        cx
    }

    fn word_span(&self, offset: usize, count: usize) -> Span {
        Span::new(offset as u32, (offset + count) as u32)
    }

    /// The instructions.
    pub fn insts(&self) -> &'m [Instruction] {
        &self.module.instructions
    }

    /// The parsed operands of instruction `i` (empty if it did not parse).
    pub fn operands(&self, i: usize) -> &[ParsedOperand] {
        let (a, b) = self.op_ranges.get(i).copied().unwrap_or((0, 0));
        &self.ops[a as usize..b as usize]
    }

    /// The words of operand `k` of instruction `i`.
    pub fn operand_words(&self, i: usize, k: usize) -> &'m [u32] {
        let inst = &self.module.instructions[i];
        match self.operands(i).get(k) {
            Some(o) => {
                let s = (o.start as usize).min(inst.operands.len());
                let e = (s + o.len as usize).min(inst.operands.len());
                &inst.operands[s..e]
            }
            None => &[],
        }
    }

    /// The grammar entry of instruction `i`.
    pub fn desc(&self, i: usize) -> Option<&'static InstructionDesc> {
        grammar::instruction(self.module.instructions[i].opcode)
    }

    /// The index of the instruction that defines `id`.
    pub fn def(&self, id: u32) -> Option<usize> {
        match self.defs.get(id) {
            0 => None,
            i => Some(i as usize - 1),
        }
    }

    /// The defining instruction of `id`.
    pub fn def_inst(&self, id: u32) -> Option<&'m Instruction> {
        self.def(id).map(|i| &self.module.instructions[i])
    }

    /// The opcode that defines `id`.
    pub fn def_opcode(&self, id: u32) -> Option<u16> {
        self.def_inst(id).map(|i| i.opcode)
    }

    /// The result type of value `id`.
    pub fn type_of(&self, id: u32) -> Option<u32> {
        let i = self.def(id)?;
        let d = self.desc(i)?;
        if d.has_result_type() { self.module.instructions[i].operands.first().copied() } else { None }
    }

    /// The CFG of the module (computed on first use).
    pub fn cfg(&mut self) -> &ModuleCfg {
        if self.cfg.is_none() {
            self.cfg = Some(cfg::analyze(self.module));
        }
        self.cfg.as_ref().unwrap_or_else(|| unreachable!())
    }

    /// Name ids as the text they were assembled from does.
    pub fn with_text_names(mut self, names: &'m super::TextNames) -> Context<'m> {
        self.text_names = Some(names);
        self
    }

    /// The name of `id` with `%`: the text's own name when validating assembled
    /// text, else the friendly name spirv-dis would print.
    pub fn name(&mut self, id: u32) -> String {
        if let Some(n) = self.text_names.and_then(|t| t.get(id)) {
            return format!("%{n}");
        }
        let module = self.module;
        let names = self.names.get_or_insert_with(|| Names::build(module));
        match names.get(id) {
            Some(n) => format!("%{n}"),
            None => format!("%{id}"),
        }
    }

    /// The word span of instruction `i`.
    pub fn span(&self, i: usize) -> Span {
        let off = self.offsets.get(i).copied().unwrap_or(5) as usize;
        let count = self.module.instructions.get(i).map_or(1, |x| x.word_count());
        self.word_span(off, count)
    }

    /// The word offset of instruction `i`.
    pub fn offset(&self, i: usize) -> u32 {
        self.offsets.get(i).copied().unwrap_or(5)
    }

    /// Report an error at instruction `i`; returns it so that labels, related
    /// spans and help can be added.
    pub fn error(&mut self, code: &'static str, i: usize, message: String) -> &mut Diagnostic {
        let d = Diagnostic::error(code, self.span(i), message).in_binary();
        self.diags.push(d);
        self.diags.last_mut().unwrap_or_else(|| unreachable!())
    }

    /// Whether any error has been reported.
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(|d| d.severity == Severity::Error)
    }

    /// The diagnostics, sorted by position.
    pub fn finish(self) -> Vec<Diagnostic> {
        self.finish_with_cfg().0
    }

    /// The diagnostics, sorted by position, and the CFG if a pass built it.
    pub fn finish_with_cfg(mut self) -> (Vec<Diagnostic>, Option<ModuleCfg>) {
        self.diags.sort_by_key(|d| (d.span.start, d.span.end));
        (self.diags, self.cfg)
    }
}

/// The result id of an instruction, from its parsed operands.
fn inst_result_id(inst: &Instruction, ops: &[ParsedOperand]) -> Option<u32> {
    ops.iter()
        .take(2)
        .find(|o| o.kind == OperandKind::IdResult)
        .and_then(|o| inst.operands.get(o.start as usize).copied())
}

// Control-flow family helpers.
impl Context<'_> {
    /// Run `f` with the module's CFG (computed on first use) and the context
    /// together, so that a pass can report while it reads the CFG.
    pub fn with_cfg<R>(&mut self, f: impl FnOnce(&mut Self, &ModuleCfg) -> R) -> R {
        let c = match self.cfg.take() {
            Some(c) => c,
            None => cfg::analyze(self.module),
        };
        let r = f(self, &c);
        self.cfg = Some(c);
        r
    }
}
