//! Functions: parameters, local and hoisted variables, and the walk of the
//! function's [`Shape`] into WGSL statements. A [`FunctionContext`] holds
//! what the writer knows of the function being written (naga's back ends
//! call it the function context): its names, the reference expressions of
//! its pointers, the values hoisted to `var`s, and the current indentation.

use super::{IdMap, ModuleWriter};
use crate::wgsl::names::{Name, Scope};
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::shape::{CaseValues, Cond, Selector, Shape, Stmt};
use crate::wgsl::types::Kind;
use crate::cfg::FunctionCfg;
use crate::grammar::{OperandKind, op, storage_class as sc};
use crate::ir::Type;
use alloc::collections::BTreeSet;
use alloc::rc::Rc;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// WGSL's limit on nested brace-enclosed statements in a function
/// (WGSL section 2.4, "Limits"), which naga enforces. `shape::structure`
/// flattens nested `if`s to stay well within it (`shape::flatten`); only
/// loops and switches nested this deep reach it.
const MAX_NESTING: usize = 127;

/// One function being written.
pub(super) struct FunctionContext<'c> {
    pub cfg: &'c FunctionCfg,
    /// The function's own names (checked with the module's).
    pub scope: Scope,
    /// Names of local values and variables: in `scope`'s text, or in `other`.
    pub names: IdMap<Name>,
    /// The text of the names that are no names of `scope` (a value named by
    /// an expression: an image's variable).
    pub other: String,
    /// Reference expressions of pointer values (variables, access chains,
    /// parameters): ranges of `ref_text` ([`FunctionContext::ref_of`]).
    pub refs: IdMap<(u32, u32)>,
    /// The text of `refs`, one after another (no String each).
    pub ref_text: String,
    /// Values declared as `var` at the top (used outside their block).
    pub hoisted: BTreeSet<u32>,
    pub indent: usize,
    pub flags: Vec<String>,
    pub vars: Vec<String>,
    /// The function's WGSL return type, if not void.
    pub ret: Option<Rc<str>>,
    /// While set, constants read as run-time values (see `expr`).
    pub opaque: bool,
    /// The block written last: control-flow lines map to its terminator.
    pub last: Option<u32>,
}

impl FunctionContext<'_> {
    /// The text of a name in `names`.
    pub(super) fn text_of(&self, n: Name) -> &str {
        if n.other { self.other.get(n.start as usize..n.end as usize).unwrap_or("") } else { self.scope.text_of(n) }
    }

    /// The name of value `id`, if it has one.
    pub(super) fn name(&self, id: u32) -> Option<&str> {
        self.names.get(&id).map(|&n| self.text_of(n))
    }

    /// The reference expression of pointer `id`, if it has one here.
    pub(super) fn ref_of(&self, id: u32) -> Option<&str> {
        self.refs.get(&id).map(|&(a, b)| self.ref_text.get(a as usize..b as usize).unwrap_or(""))
    }

    /// Set the reference expression of pointer `id` to `s`.
    pub(super) fn set_ref(&mut self, id: u32, s: &str) {
        let start = self.ref_text.len() as u32;
        self.ref_text.push_str(s);
        self.refs.insert(id, (start, self.ref_text.len() as u32));
    }

    /// Name value `id` by the expression `s` (no name of the scope).
    pub(super) fn name_by(&mut self, id: u32, s: &str) {
        let start = self.other.len() as u32;
        self.other.push_str(s);
        self.names.insert(id, Name { start, end: self.other.len() as u32, other: true });
    }
}

/// The first block of a statement list (depth first, not inside nested
/// loops) that heads a loop: the header of the loop whose body it is.
fn loop_header(cfg: &FunctionCfg, body: &[Stmt]) -> Option<u32> {
    body.iter().find_map(|s| match s {
        Stmt::Block(b) => cfg
            .blocks
            .get(*b as usize)
            .and_then(|blk| blk.merge.as_ref())
            .filter(|m| m.kind == crate::cfg::MergeKind::Loop)
            .map(|m| m.instruction),
        Stmt::If { then, els, .. } => loop_header(cfg, then).or_else(|| loop_header(cfg, els)),
        Stmt::Switch { cases, .. } => cases.iter().find_map(|c| loop_header(cfg, &c.body)),
        _ => None,
    })
}

/// Where a function's instructions are: the block of each, by index from
/// the first block's start.
struct Defs<'a> {
    base: usize,
    block_of: &'a [u32],
}

/// Instructions that carry no statement of their own.
pub fn is_skipped(opcode: u16) -> bool {
    matches!(
        opcode,
        op::OpPhi
            | op::OpSelectionMerge
            | op::OpLoopMerge
            | op::OpLine
            | op::OpNoLine
            | op::OpNop
            | op::OpLoopControlINTEL
            | op::OpVariable
            | op::OpLabel
    ) || crate::cfg::is_terminator_opcode(opcode)
}

impl ModuleWriter<'_> {
    /// Whether `ty` is a pointer type.
    pub(super) fn is_pointer(&self, ty: u32) -> bool {
        matches!(self.ir.ty(ty).map(|t| &t.ty), Some(Type::Pointer { .. }))
    }

    /// Write function `fid`.
    pub(super) fn function(&mut self, fid: u32) -> Result<(), Refusal> {
        let ir = self.ir;
        let Some(func) = ir.function(fid) else {
            return Err(Refusal::new(RefusalCode::Invalid, format!("%{fid} is not a function"), None));
        };
        let at = Some(func.inst);
        let Some(fcfg) = self.cfg.functions.iter().find(|c| c.id == fid) else {
            return Err(Refusal::new(RefusalCode::Invalid, "a function without blocks", at));
        };
        if fcfg.blocks.is_empty() {
            return Err(Refusal::new(RefusalCode::Invalid, "a function declaration without a body", at));
        }
        let shape = (self.structure)(&ir.module, fcfg).map_err(|e| {
            let inst = fcfg.blocks.get(e.block as usize).map_or(func.inst, |b| b.start);
            Refusal::new(RefusalCode::ControlFlow, e.message, Some(inst))
        })?;
        let fname = self.globals_scope.fresh_numbered(None, ir.name(fid), "f", fid);
        // The header line, built in one buffer: `fn name(params) -> ret {`.
        let mut head = String::with_capacity(64 + 32 * func.params.len());
        head.push_str("fn ");
        head.push_str(&fname);
        head.push('(');
        self.global_names.insert(fid, fname);
        let mut f = FunctionContext {
            cfg: fcfg,
            scope: Scope::default(),
            names: IdMap::with_bound(ir.module.header.bound),
            refs: IdMap::with_bound(ir.module.header.bound),
            ref_text: String::with_capacity(256),
            other: String::new(),
            hoisted: BTreeSet::new(),
            indent: 1,
            flags: Vec::new(),
            vars: Vec::new(),
            ret: None,
            opaque: false,
            last: None,
        };
        // Parameters.
        let mut first = true;
        for &p in &func.params {
            let pi = ir.def(p).map(|i| i as u32);
            let Some(pt) = ir.type_of(p) else { continue };
            let name = f.scope.fresh_name(Some(&self.globals_scope), ir.name(p), "x", p);
            if let Some(Type::Pointer { storage, .. }) = ir.ty(pt).map(|t| &t.ty) {
                if !matches!(*storage, sc::Function | sc::Private) {
                    return Err(Refusal::new(
                        RefusalCode::PointerParameter,
                        "a pointer parameter into memory other than function or private",
                        pi,
                    ));
                }
                // The parameter's reference: `(*name)` (disjoint fields).
                let start = f.ref_text.len() as u32;
                f.ref_text.push_str("(*");
                f.ref_text.push_str(f.scope.text_of(name));
                f.ref_text.push(')');
                f.refs.insert(p, (start, f.ref_text.len() as u32));
            }
            // A sampled image is two parameters, its texture and its sampler.
            let t = match ir.ty(pt).map(|t| &t.ty) {
                Some(&Type::SampledImage { image }) => {
                    let s = f.scope.fresh_name(Some(&self.globals_scope), Some(&format!("{}_sampler", f.scope.text_of(name))), "s", p);
                    let sn = String::from(f.scope.text_of(s));
                    let t = self.ty(image, pi.unwrap_or(func.inst))?;
                    let t = format!("{t}, {sn}: sampler");
                    self.split_samplers.insert(p, sn);
                    Rc::from(t)
                }
                _ => self.ty(pt, pi.unwrap_or(func.inst))?,
            };
            if !first {
                head.push_str(", ");
            }
            first = false;
            head.push_str(f.scope.text_of(name));
            head.push_str(": ");
            head.push_str(&t);
            f.names.insert(p, name);
        }
        head.push(')');
        if !matches!(ir.ty(func.result_type).map(|t| &t.ty), Some(Type::Void)) {
            let t = self.ty(func.result_type, func.inst)?;
            head.push_str(" -> ");
            head.push_str(&t);
            f.ret = Some(t);
        }
        head.push_str(" {");
        self.find_hoisted(&mut f)?;
        self.out.line(0, &head, at);
        // Function-scope variables (they open the entry block).
        let entry = &fcfg.blocks[0];
        for i in entry.start as usize..entry.end as usize {
            if ir.opcode(i) != op::OpVariable {
                continue;
            }
            let words = ir.words(i);
            let (Some(&pt), Some(&id)) = (words.first(), words.get(1)) else { continue };
            let Some(&Type::Pointer { pointee: Some(pointee), .. }) = ir.ty(pt).map(|t| &t.ty) else {
                return Err(Refusal::new(RefusalCode::PhysicalPointer, "an untyped variable", Some(i as u32)));
            };
            let t = self.ty(pointee, i as u32)?;
            let name = f.scope.fresh_name(Some(&self.globals_scope), ir.name(id), "v", id);
            let init = match words.get(3) {
                Some(&c) if ir.constant(c).is_some() => Some(self.const_expr(c)?),
                _ => None,
            };
            let n = f.scope.text_of(name);
            match &init {
                Some(c) => self.out.line_parts(1, &["var ", n, ": ", &t, " = ", c, ";"], Some(i as u32)),
                None => self.out.line_parts(1, &["var ", n, ": ", &t, ";"], Some(i as u32)),
            }
            // The variable's reference is its name (copied: disjoint fields).
            let start = f.ref_text.len() as u32;
            f.ref_text.push_str(f.scope.text_of(name));
            f.refs.insert(id, (start, f.ref_text.len() as u32));
            f.names.insert(id, name);
        }
        // Hoisted values, guard flags and dispatch variables.
        for id in f.hoisted.clone() {
            let Some(i) = ir.def(id) else { continue };
            let Some(t) = ir.type_of(id) else { continue };
            let t = self.ty(t, i as u32)?;
            let name = f.scope.fresh_name(Some(&self.globals_scope), ir.name(id), "x", id);
            self.out.line_fmt(1, format_args!("var {}: {t};", f.scope.text_of(name)), Some(i as u32));
            f.names.insert(id, name);
        }
        for k in 0..shape.flags {
            let n = f.scope.fresh_under(Some(&self.globals_scope), None, format_args!("guard{k}"));
            self.out.line_fmt(1, format_args!("var {n}: bool = false;"), at);
            f.flags.push(n);
        }
        for k in 0..shape.vars {
            let n = f.scope.fresh_under(Some(&self.globals_scope), None, format_args!("dispatch{k}"));
            self.out.line_fmt(1, format_args!("var {n}: u32 = 0u;"), at);
            f.vars.push(n);
        }
        let Shape { body, .. } = shape;
        self.stmts(&mut f, &body)?;
        // naga wants a function with a result to end in a return even when
        // control never gets there (a loop that only returns from inside).
        if let Some(t) = &f.ret
            && !matches!(body.last(), Some(Stmt::Return(_) | Stmt::Unreachable))
        {
            self.out.line_fmt(1, format_args!("return {t}();"), Some(func.end));
        }
        self.out.line(0, "}", Some(func.end));
        self.out.line(0, "", None);
        Ok(())
    }

    /// Decide which values are used outside the block that defines them
    /// (or by an OpPhi or a terminator, whose uses the shape may move): those
    /// become `var`s at the top of the function.
    fn find_hoisted(&self, f: &mut FunctionContext) -> Result<(), Refusal> {
        let ir = self.ir;
        // The block of each instruction of the function (by index from the
        // first block's label), `u32::MAX` outside blocks.
        let base = f.cfg.blocks.first().map_or(0, |b| b.start as usize);
        let end = f.cfg.blocks.iter().map(|b| b.end as usize).max().unwrap_or(base);
        let mut block_of = alloc::vec![u32::MAX; end.saturating_sub(base)];
        for (b, blk) in f.cfg.blocks.iter().enumerate() {
            for i in blk.start as usize..blk.end as usize {
                if let Some(x) = block_of.get_mut(i.wrapping_sub(base)) {
                    *x = b as u32;
                }
            }
        }
        let defs = Defs { base, block_of: &block_of };
        for (b, blk) in f.cfg.blocks.iter().enumerate() {
            for i in blk.start as usize..blk.end as usize {
                let o = ir.opcode(i);
                let far = o == op::OpPhi || Some(i as u32) == blk.terminator;
                if o == op::OpPhi {
                    let id = ir.result_id(i).unwrap_or(0);
                    if ir.type_of(id).is_some_and(|t| self.is_pointer(t)) {
                        return Err(Refusal::new(RefusalCode::VariablePointer, "an OpPhi of pointers", Some(i as u32)));
                    }
                    f.hoisted.insert(id);
                }
                for opd in ir.operands(i) {
                    if opd.kind != OperandKind::IdRef {
                        continue;
                    }
                    let Some(id) = opd.id() else { continue };
                    self.use_in(f, &defs, id, b as u32, far, 0);
                }
            }
        }
        Ok(())
    }

    fn use_in(&self, f: &mut FunctionContext, defs: &Defs, id: u32, b: u32, far: bool, depth: u32) {
        let ir = self.ir;
        let Some(i) = ir.def(id) else { return };
        // Only values defined in this function's blocks.
        let Some(&db) = defs.block_of.get(i.wrapping_sub(defs.base)).filter(|&&x| x != u32::MAX) else { return };
        // Used where it is defined (not by an OpPhi or a terminator): stays
        // a `let`. A pointer's operands were met, the same way, in this
        // block where it was defined.
        if !far && db == b {
            return;
        }
        let o = ir.opcode(i);
        // Handles are named by their module-scope variable, usable anywhere.
        if o == op::OpVariable || o == op::OpLabel || ir.type_of(id).is_some_and(|t| self.is_handle(t)) {
            return;
        }
        if ir.type_of(id).is_some_and(|t| self.is_pointer(t)) {
            // Pointers are inlined where used: their operands are used there.
            if depth < 64 {
                for opd in ir.operands(i).skip(2) {
                    if opd.kind == OperandKind::IdRef
                        && let Some(x) = opd.id()
                    {
                        self.use_in(f, defs, x, b, far, depth + 1);
                    }
                }
            }
            return;
        }
        f.hoisted.insert(id);
    }

    /// Write statements.
    pub(super) fn stmts(&mut self, f: &mut FunctionContext, body: &[Stmt]) -> Result<(), Refusal> {
        for s in body {
            self.stmt(f, s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, f: &mut FunctionContext, s: &Stmt) -> Result<(), Refusal> {
        let n = f.indent;
        // Braces open around this statement's own statements: `f.indent`
        // counts those already open (the function body's is 1).
        let opens = match s {
            Stmt::If { .. } => 1,
            Stmt::Loop { continuing, break_if, .. } if !continuing.is_empty() || break_if.is_some() => 2,
            Stmt::Loop { .. } => 1,
            Stmt::Switch { .. } => 2,
            _ => 0,
        };
        if n + opens > MAX_NESTING {
            let at = f.cfg.blocks.first().map(|b| b.start);
            return Err(Refusal::new(
                RefusalCode::Nesting,
                format!(
                    "loops and switches nested deeper than WGSL's {MAX_NESTING} brace-enclosed statements (nested selections are flattened)"
                ),
                at,
            ));
        }
        match s {
            Stmt::Block(b) => {
                let Some(blk) = f.cfg.blocks.get(*b as usize) else { return Ok(()) };
                let end = blk.terminator.unwrap_or(blk.end) as usize;
                for i in blk.start as usize + 1..end {
                    if is_skipped(self.ir.opcode(i)) {
                        continue;
                    }
                    self.inst(f, i)?;
                }
                f.last = Some(*b);
            }
            Stmt::Phis { from, to } => self.phis(f, *from, *to)?,
            Stmt::If { cond, then, els } => {
                let at = self.cond_at(f, cond);
                let c = self.cond(f, cond)?;
                self.out.line_fmt(n, format_args!("if {c} {{"), at);
                f.indent += 1;
                self.stmts(f, then)?;
                f.indent -= 1;
                if !els.is_empty() {
                    self.out.line(n, "} else {", at);
                    f.indent += 1;
                    self.stmts(f, els)?;
                    f.indent -= 1;
                }
                self.out.line(n, "}", at);
            }
            Stmt::Switch { selector, cases } => {
                let (sel, signed) = match selector {
                    Selector::Id(id) => {
                        let signed = self.num_of(*id).is_some_and(|x| x.kind == Kind::I32);
                        (self.val(f, *id)?, signed)
                    }
                    Selector::Var(v) => (f.vars.get(*v as usize).cloned().unwrap_or_default(), false),
                };
                let lit = |v: u32| if signed { format!("{}i", v as i32) } else { format!("{v}u") };
                let at = match selector {
                    Selector::Id(id) => self.branch_on(f, op::OpSwitch, *id),
                    Selector::Var(_) => self.term(f),
                };
                self.out.line_fmt(n, format_args!("switch {sel} {{"), at);
                let mut has_default = false;
                for c in cases {
                    let head = match &c.values {
                        CaseValues::Values(vs) => {
                            format!("case {}", vs.iter().map(|&v| lit(v)).collect::<Vec<_>>().join(", "))
                        }
                        CaseValues::Default(vs) => {
                            has_default = true;
                            let mut xs: Vec<String> = vs.iter().map(|&v| lit(v)).collect();
                            xs.push(String::from("default"));
                            format!("case {}", xs.join(", "))
                        }
                    };
                    self.out.line_fmt(n + 1, format_args!("{head}: {{"), at);
                    f.indent += 2;
                    self.stmts(f, &c.body)?;
                    f.indent -= 2;
                    self.out.line(n + 1, "}", at);
                }
                if !has_default {
                    self.out.line(n + 1, "default: {}", at);
                }
                self.out.line(n, "}", at);
            }
            Stmt::Loop { body, continuing, break_if } => {
                // The header's OpLoopMerge.
                let at = loop_header(f.cfg, body).or_else(|| self.term(f));
                self.out.line(n, "loop {", at);
                f.indent += 1;
                if break_if.is_none() && !leaves_loop(body, true) {
                    // A loop nothing leaves (its merge block unreachable) is
                    // "obviously infinite" to WGSL's behaviour analysis, an
                    // error even where control never gets (Tint refuses it);
                    // a break it never takes gives it a way out.
                    self.out.line(n + 1, "if false { break; }", at);
                }
                self.stmts(f, body)?;
                if !continuing.is_empty() || break_if.is_some() {
                    self.out.line(n + 1, "continuing {", at);
                    f.indent += 1;
                    self.stmts(f, continuing)?;
                    if let Some(c) = break_if {
                        let b_at = self.cond_at(f, c);
                        let c = self.cond(f, c)?;
                        self.out.line_fmt(n + 2, format_args!("break if {c};"), b_at);
                    }
                    f.indent -= 1;
                    self.out.line(n + 1, "}", at);
                }
                f.indent -= 1;
                self.out.line(n, "}", at);
            }
            Stmt::Break => self.out.line(n, "break;", self.term(f)),
            Stmt::Continue => self.out.line(n, "continue;", self.term(f)),
            Stmt::Return(None) => self.out.line(n, "return;", self.term(f)),
            Stmt::Return(Some(v)) => {
                let e = self.val(f, *v)?;
                self.out.line_fmt(n, format_args!("return {e};"), self.term(f));
            }
            Stmt::Discard => self.out.line(n, "discard;", self.term(f)),
            // Never reached; a function with a result still needs a return.
            Stmt::Unreachable => {
                if let Some(t) = &f.ret {
                    let at = self.term(f);
                    self.out.line_fmt(n, format_args!("return {t}();"), at);
                }
            }
            Stmt::SetFlag { flag, value } => {
                let name = f.flags.get(*flag as usize).cloned().unwrap_or_default();
                self.out.line_fmt(n, format_args!("{name} = {value};"), self.term(f));
            }
            Stmt::SetVar { var, value } => {
                let name = f.vars.get(*var as usize).cloned().unwrap_or_default();
                self.out.line_fmt(n, format_args!("{name} = {value}u;"), self.term(f));
            }
        }
        Ok(())
    }

    /// The source of a control-flow line: the terminator of the block
    /// written last (the branch that leads here), else the function's first
    /// block's label.
    fn term(&self, f: &FunctionContext) -> Option<u32> {
        f.last
            .and_then(|b| f.cfg.blocks.get(b as usize))
            .and_then(|b| b.terminator)
            .or_else(|| f.cfg.blocks.first().map(|b| b.start))
    }

    /// The branch (`opcode`: OpBranchConditional or OpSwitch) on `id`: the
    /// terminator of the block written last if it is one, else the
    /// function's first such branch, else [`ModuleWriter::term`].
    fn branch_on(&self, f: &FunctionContext, opcode: u16, id: u32) -> Option<u32> {
        let ir = self.ir;
        let on = |t: u32| ir.opcode(t as usize) == opcode && ir.words(t as usize).first() == Some(&id);
        let last = f.last.and_then(|b| f.cfg.blocks.get(b as usize)).and_then(|b| b.terminator);
        last.filter(|&t| on(t))
            .or_else(|| f.cfg.blocks.iter().filter_map(|b| b.terminator).find(|&t| on(t)))
            .or_else(|| self.term(f))
    }

    /// The source of a condition's test: the OpBranchConditional on its
    /// value, or for a guard or dispatch variable, the last branch.
    fn cond_at(&self, f: &FunctionContext, c: &Cond) -> Option<u32> {
        match c {
            Cond::Id(id) => self.branch_on(f, op::OpBranchConditional, *id),
            Cond::Not(c) => self.cond_at(f, c),
            _ => self.term(f),
        }
    }

    /// A condition's expression.
    pub(super) fn cond(&mut self, f: &mut FunctionContext, c: &Cond) -> Result<String, Refusal> {
        Ok(match c {
            Cond::Id(id) => self.val(f, *id)?,
            Cond::Not(c) => format!("!({})", self.cond(f, c)?),
            Cond::Flag(k) => f.flags.get(*k as usize).cloned().unwrap_or_default(),
            Cond::VarIs { var, value } => {
                format!("({} == {value}u)", f.vars.get(*var as usize).cloned().unwrap_or_default())
            }
            Cond::True => String::from("true"),
        })
    }

    /// The OpPhi copies of block `to` for the edge from `from`: all values
    /// read before any variable is written.
    fn phis(&mut self, f: &mut FunctionContext, from: u32, to: u32) -> Result<(), Refusal> {
        let (Some(src), Some(dst)) = (f.cfg.blocks.get(from as usize), f.cfg.blocks.get(to as usize)) else {
            return Ok(());
        };
        let label = src.label;
        let mut copies = Vec::new();
        for i in dst.start as usize + 1..dst.end as usize {
            if self.ir.opcode(i) != op::OpPhi {
                continue;
            }
            let words = self.ir.words(i);
            let id = words.get(1).copied().unwrap_or(0);
            let Some(v) = words.get(2..).unwrap_or(&[]).chunks(2).find(|p| p.len() == 2 && p[1] == label).map(|p| p[0])
            else { continue };
            let e = self.val(f, v)?;
            copies.push((i as u32, f.names.get(&id).cloned().unwrap_or_default(), e));
        }
        let n = f.indent;
        let first = copies.first().map(|c| c.0);
        if copies.len() == 1 {
            let (i, name, e) = &copies[0];
            self.out.line_fmt(n, format_args!("{} = {e};", f.text_of(*name)), Some(*i));
        } else if !copies.is_empty() {
            self.out.line(n, "{", first);
            for (k, (i, _, e)) in copies.iter().enumerate() {
                self.out.line_fmt(n + 1, format_args!("let phi{k} = {e};"), Some(*i));
            }
            for (k, (i, name, _)) in copies.iter().enumerate() {
                self.out.line_fmt(n + 1, format_args!("{} = phi{k};", f.text_of(*name)), Some(*i));
            }
            self.out.line(n, "}", first);
        }
        Ok(())
    }
}

/// Whether WGSL's behaviour analysis sees a way out of a loop whose body is
/// `stmts`: a `break` of that loop (`own`: `stmts` is at the loop's own
/// level, not in an inner loop or switch, whose breaks are theirs) or a
/// `return` anywhere in it.
fn leaves_loop(stmts: &[Stmt], own: bool) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Break => own,
        Stmt::Return(_) => true,
        Stmt::If { then, els, .. } => leaves_loop(then, own) || leaves_loop(els, own),
        Stmt::Switch { cases, .. } => cases.iter().any(|c| leaves_loop(&c.body, false)),
        Stmt::Loop { body, continuing, .. } => leaves_loop(body, false) || leaves_loop(continuing, false),
        _ => false,
    })
}
