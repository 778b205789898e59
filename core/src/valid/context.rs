//! What every validation pass shares.

use super::Options;
use crate::binary::parse::ParsedOperand;
use crate::cfg::{self, ModuleCfg};
use crate::diag::Severity;
use crate::grammar::{self, InstructionDesc};
use crate::ir::{Ir, Problem};
use crate::text::dis::names::Names;
use crate::{Diagnostic, Instruction, Module, Span};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The state of one validation: the module's IR (operands parsed once,
/// definitions, types), the CFG (built on first use), and the diagnostics so far.
pub struct Context<'m> {
    pub module: &'m Module,
    pub opts: &'m Options,
    /// The module's SPIR-V version `(major, minor)`.
    pub version: (u8, u8),
    /// The typed IR: operands, definitions, types, decorations.
    ir: &'m Ir,
    cfg: Option<ModuleCfg>,
    names: Option<Names>,
    /// The names the text gave its ids, when validating assembled text.
    text_names: Option<&'m super::TextNames>,
    pub diags: Vec<Diagnostic>,
    /// Operands that name a function or a function type, found by the id
    /// pass for `uses.rs`: (instruction, operand, id).
    pub(super) function_uses: Vec<(usize, usize, u32)>,
    /// The declared capabilities and extensions, collected on first use (a
    /// scan of the whole module that several passes need).
    declared: core::cell::OnceCell<alloc::rc::Rc<super::declared::Declared>>,
}

impl<'m> Context<'m> {
    /// A context over the module's IR. Operand problems (the binary's own
    /// errors, found while building it) are reported here.
    pub fn new(ir: &'m Ir, opts: &'m Options) -> Context<'m> {
        let module = &ir.module;
        let mut cx = Context {
            module,
            opts,
            version: module.header.version(),
            ir,
            cfg: None,
            names: None,
            text_names: None,
            diags: Vec::new(),
            function_uses: Vec::new(),
            declared: core::cell::OnceCell::new(),
        };
        for p in &cx.ir.problems {
            let d = match p {
                Problem::Operands(e) => e.to_diagnostic(),
                &Problem::IdOutOfBound { inst, id, bound } => {
                    let i = inst as usize;
                    Diagnostic::error(
                        "val.id-bound",
                        cx.span(i),
                        format!("Result <id> {id} must be less than the id bound {bound}"),
                    )
                    .in_binary()
                }
            };
            cx.diags.push(d);
        }
        cx
    }

    /// The declared capabilities (with the ones they imply) and extensions,
    /// collected once per validation.
    pub(super) fn declared(&self) -> alloc::rc::Rc<super::declared::Declared> {
        self.declared.get_or_init(|| alloc::rc::Rc::new(super::declared::Declared::collect(self.insts()))).clone()
    }

    /// The module's IR.
    pub fn ir(&self) -> &'m Ir {
        self.ir
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
        self.ir.parsed(i)
    }

    /// The words of operand `k` of instruction `i`.
    pub fn operand_words(&self, i: usize, k: usize) -> &'m [u32] {
        self.ir.operand_words(i, k)
    }

    /// The grammar entry of instruction `i`.
    pub fn desc(&self, i: usize) -> Option<&'static InstructionDesc> {
        grammar::instruction(self.module.instructions[i].opcode)
    }

    /// The index of the instruction that defines `id`.
    pub fn def(&self, id: u32) -> Option<usize> {
        self.ir.def(id)
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
        self.ir.type_of(id)
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
        let off = self.ir.offset(i) as usize;
        let count = self
            .module
            .instructions
            .get(i)
            .map_or(1, |x| x.word_count());
        self.word_span(off, count)
    }

    /// The word offset of instruction `i`.
    pub fn offset(&self, i: usize) -> u32 {
        self.ir.offset(i)
    }

    /// Report an error at instruction `i`; returns it so that labels, related
    /// spans and help can be added.
    pub fn error(&mut self, code: &'static str, i: usize, message: String) -> &mut Diagnostic {
        let d = Diagnostic::error(code, self.span(i), message).in_binary();
        self.diags.push(d);
        self.diags.last_mut().unwrap_or_else(|| unreachable!())
    }

    /// The word span of operand `k` of instruction `i` (its parsed operands
    /// count the result type and result id); the instruction's span if it has
    /// no such operand. A front end with a source map shows it at the
    /// operand's token.
    pub fn operand_span(&self, i: usize, k: usize) -> Span {
        match self.operands(i).get(k) {
            Some(o) if o.len > 0 => {
                let at = self.offset(i) as usize + 1 + o.start as usize;
                self.word_span(at, o.len as usize)
            }
            _ => self.span(i),
        }
    }

    /// Report an error at operand `k` of instruction `i` (see
    /// [`Context::operand_span`]); returns it like [`Context::error`].
    pub fn error_at(&mut self, code: &'static str, i: usize, k: usize, message: String) -> &mut Diagnostic {
        let d = Diagnostic::error(code, self.operand_span(i, k), message).in_binary();
        self.diags.push(d);
        self.diags.last_mut().unwrap_or_else(|| unreachable!())
    }

    /// Whether an error was already reported inside instruction `i` (so a
    /// later rule that would say the same thing another way can keep quiet).
    pub fn has_error_in(&self, i: usize) -> bool {
        let s = self.span(i);
        self.diags
            .iter()
            .any(|d| d.unit == crate::diag::SpanUnit::BinaryWords && d.span.start >= s.start && d.span.start < s.end)
    }

    /// Report an error at instruction `i` with related instructions, each with
    /// its label; returns it like [`Context::error`].
    pub fn error_related(
        &mut self,
        code: &'static str,
        i: usize,
        message: String,
        related: impl IntoIterator<Item = (usize, String)>,
    ) -> &mut Diagnostic {
        let related: Vec<(Span, String)> = related.into_iter().map(|(j, label)| (self.span(j), label)).collect();
        let d = self.error(code, i, message);
        for (span, label) in related {
            d.relate(span, label);
        }
        d
    }

    /// The id bound to size per-id tables with: the header's, but no more than
    /// the module could define.
    pub fn id_bound(&self) -> u32 {
        self.module.header.bound.min(self.module.word_count() as u32 + 1)
    }

    /// Whether any error has been reported.
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(|d| d.severity == Severity::Error)
    }

    /// The diagnostics, sorted by position, and the CFG if a pass built it.
    pub fn finish_with_cfg(mut self) -> (Vec<Diagnostic>, Option<ModuleCfg>) {
        self.diags.sort_by_key(|d| (d.span.start, d.span.end));
        (self.diags, self.cfg)
    }
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
