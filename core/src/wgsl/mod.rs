//! The WGSL writer: a SPIR-V module lowered to WGSL for WebGPU, with the
//! structured control flow rebuilt from the construct tree ([`shape`]).
//!
//! [`lower`] reads the typed IR ([`crate::ir`]) and the control-flow analysis
//! ([`crate::cfg`]); it writes every module-scope declaration (structs with
//! their explicit layout, overrides, resources, private and workgroup
//! variables), each function in the call tree of the chosen entry points
//! (walking its [`shape::Shape`]), and one wrapper per entry point that turns
//! WGSL's stage inputs and outputs into the module-scope variables SPIR-V
//! reads and writes. What WGSL cannot express is a [`Refusal`], never wrong
//! WGSL. [`Wgsl::lines`] maps each WGSL line to the SPIR-V instruction it came
//! from.

mod emulate;
mod expr;
mod func;
mod globals;
mod image;
pub mod names;
pub mod refuse;
pub mod shape;
#[cfg(test)]
mod tests;
mod types;

use crate::Module;
use crate::cfg::{FunctionCfg, ModuleCfg};
use crate::ir::Ir;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

pub use refuse::{CODES, Refusal};

/// What to lower.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Only this entry point (by name); all of them when `None`.
    pub entry: Option<String>,
}

/// A module lowered to WGSL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wgsl {
    pub text: String,
    /// Per WGSL line (0-based): the index of the SPIR-V instruction it came
    /// from, if any (declarations of our own, such as entry wrappers' glue,
    /// map to the entry point's `OpEntryPoint`).
    pub lines: Vec<Option<u32>>,
    /// The bindings the lowering introduced, that the module does not
    /// declare (a push-constant block as a buffer): a runner fills them.
    pub introduced: Vec<Introduced>,
}

pub use globals::{Introduced, IntroducedKind};

/// How a function's control flow is structured: [`shape::structure`], or
/// a hand-built [`shape::Shape`] in tests.
pub type Structurer<'a> = &'a dyn Fn(&Module, &FunctionCfg) -> Result<shape::Shape, shape::ShapeError>;

/// The writer's state.
pub(crate) struct W<'a> {
    pub ir: &'a Ir,
    pub cfg: &'a ModuleCfg,
    pub structure: Structurer<'a>,
    /// Whether f16 is used (`enable f16;`).
    pub f16: bool,
    /// Whether subgroup operations are used (`enable subgroups;`).
    pub subgroups: bool,
    /// The private variable holding the subgroup invocation id, when
    /// OpGroupNonUniformElect needs it (set by the entry wrappers).
    pub lane: Option<String>,
    /// A private `bool` never written, that makes a constant a run-time
    /// value: `select(c, c, opaque)` (see `W::inst`).
    pub opaque: Option<String>,
    /// Module-scope identifiers.
    pub globals_scope: names::Scope,
    pub type_names: BTreeMap<u32, String>,
    pub member_names: BTreeMap<(u32, u32), String>,
    /// Structs to declare, in first-use order.
    pub structs: Vec<u32>,
    /// Structs and arrays reachable from uniform buffers (uniform layout rules).
    pub uniform_structs: BTreeSet<u32>,
    /// Array types whose element is wrapped in a struct to get its
    /// ArrayStride: (array type, wrapper name).
    pub wrappers: BTreeMap<u32, String>,
    /// The wrapper structs' declarations.
    pub wrapper_decls: Vec<(u32, String)>,
    /// Helper functions emulating what WGSL lacks, by key (`emulate.rs`).
    pub helpers: BTreeMap<String, String>,
    /// (struct, member) whose memory atomics touch.
    pub atomic_members: BTreeSet<(u32, u32)>,
    /// Array types whose elements atomics touch.
    pub atomic_elems: BTreeSet<u32>,
    /// Variables (scalars) that atomics touch.
    pub atomic_vars: BTreeSet<u32>,
    /// Module-scope names of ids (globals, functions, overrides).
    pub global_names: BTreeMap<u32, String>,
    /// Function ids to emit.
    pub functions: Vec<u32>,
    /// The WGSL names of the chosen entry points, by index into the IR's.
    pub entry_names: BTreeMap<usize, String>,
    /// The address space the push-constant block lives in ("uniform", or
    /// "storage, read" where uniform layout rules cannot give its offsets).
    pub push_space: &'static str,
    /// Per storage image type: 1 read, 2 written, 3 both (`image.rs`).
    pub image_access: BTreeMap<u32, u8>,
    /// Bindings the lowering introduced ([`Wgsl::introduced`]).
    pub introduced: Vec<Introduced>,
    /// Output: lines with their source instruction.
    pub out: Out,
    /// A spare expression buffer: [`W::bind`] keeps the String it was given
    /// here, and the next expression is built in it (no allocation per
    /// expression).
    pub spare: String,
}

/// Text written line by line, each line with its source instruction.
#[derive(Default)]
pub(crate) struct Out {
    pub text: String,
    pub lines: Vec<Option<u32>>,
}

/// `parts` one after another, in a String of exactly their length (no
/// formatter, one allocation).
pub(crate) fn cat(parts: &[&str]) -> String {
    let mut s = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        s.push_str(p);
    }
    s
}

impl Out {
    /// Append `s` (one or more whole lines, or text ending in a newline), all
    /// mapped to `at`.
    pub fn push(&mut self, s: &str, at: Option<u32>) {
        self.text.push_str(s);
        for _ in s.matches('\n') {
            self.lines.push(at);
        }
    }

    /// [`Out::line`] with the text formatted in place (no temporary String).
    pub fn line_fmt(&mut self, indent: usize, args: core::fmt::Arguments, at: Option<u32>) {
        for _ in 0..indent {
            self.text.push_str("  ");
        }
        // Writing into a String cannot fail.
        let _ = core::fmt::Write::write_fmt(&mut self.text, args);
        self.text.push('\n');
        self.lines.push(at);
    }

    /// A line of `parts`, one after another (no formatter).
    pub fn line_parts(&mut self, indent: usize, parts: &[&str], at: Option<u32>) {
        for _ in 0..indent {
            self.text.push_str("  ");
        }
        for p in parts {
            self.text.push_str(p);
        }
        self.text.push('\n');
        self.lines.push(at);
    }

    pub fn line(&mut self, indent: usize, s: &str, at: Option<u32>) {
        for _ in 0..indent {
            self.text.push_str("  ");
        }
        self.text.push_str(s);
        self.text.push('\n');
        self.lines.push(at);
    }
}

/// Lower `ir` (a valid module) to WGSL, with `cfg` its control-flow analysis.
pub fn lower(ir: &Ir, cfg: &ModuleCfg, opts: &Options) -> Result<Wgsl, Vec<Refusal>> {
    lower_with(ir, cfg, opts, &shape::structure)
}

/// [`lower`], with each function's shape from `structure` (tests give
/// hand-built shapes).
pub fn lower_with(ir: &Ir, cfg: &ModuleCfg, opts: &Options, structure: Structurer<'_>) -> Result<Wgsl, Vec<Refusal>> {
    let mut w = W {
        ir,
        cfg,
        structure,
        f16: false,
        subgroups: false,
        lane: None,
        opaque: None,
        globals_scope: names::Scope::default(),
        type_names: BTreeMap::new(),
        member_names: BTreeMap::new(),
        structs: Vec::new(),
        uniform_structs: BTreeSet::new(),
        wrappers: BTreeMap::new(),
        wrapper_decls: Vec::new(),
        helpers: BTreeMap::new(),
        atomic_members: BTreeSet::new(),
        atomic_elems: BTreeSet::new(),
        atomic_vars: BTreeSet::new(),
        global_names: BTreeMap::new(),
        functions: Vec::new(),
        entry_names: BTreeMap::new(),
        push_space: "uniform",
        image_access: BTreeMap::new(),
        introduced: Vec::new(),
        out: Out::default(),
        spare: String::new(),
    };
    w.run(opts).map_err(|r| alloc::vec![r])
}

impl W<'_> {
    fn run(&mut self, opts: &Options) -> Result<Wgsl, Refusal> {
        self.check_module()?;
        let entries: Vec<usize> = (0..self.ir.entry_points.len())
            .filter(|&k| opts.entry.as_ref().is_none_or(|n| *n == self.ir.entry_points[k].name))
            .collect();
        if entries.is_empty() {
            let msg = match &opts.entry {
                Some(n) => alloc::format!("no entry point named \"{n}\""),
                None => String::from("the module has no entry point"),
            };
            return Err(Refusal::new("wgsl.entry-point", msg, None));
        }
        // The entry wrappers' parameter names: no global may shadow them.
        self.globals_scope.take_numbered("p", 64);
        self.globals_scope.take("flat_index");
        self.globals_scope.take("flat_group");
        self.call_tree(&entries);
        self.find_atomics()?;
        self.find_image_access();
        // Body first (it collects the structs it uses), then the head.
        let mut body = Out::default();
        core::mem::swap(&mut self.out, &mut body);
        // Grown once, not line by line (about 16 bytes of WGSL per instruction).
        self.out.text.reserve(self.ir.len() * 16);
        self.out.lines.reserve(self.ir.len());
        self.globals(&entries)?;
        for k in 0..self.functions.len() {
            let f = self.functions[k];
            self.function(f)?;
        }
        for &e in &entries {
            self.entry_wrapper(e)?;
        }
        core::mem::swap(&mut self.out, &mut body);
        // The head, then the body: one buffer, grown once.
        self.out.text.reserve(body.text.len() + 1024);
        self.out.lines.reserve(body.lines.len() + 64);
        // Structs, in declaration order (members before the structs that hold them).
        let mut decls = Vec::new();
        let mut k = 0;
        while k < self.structs.len() {
            let s = self.structs[k];
            decls.push((self.ir.ty(s).map_or(0, |t| t.inst), s, self.struct_decl(s)?));
            k += 1;
        }
        decls.sort();
        if self.f16 {
            self.out.line(0, "enable f16;", None);
        }
        if self.subgroups {
            self.out.line(0, "enable subgroups;", None);
        }
        if self.f16 || self.subgroups {
            self.out.line(0, "", None);
        }
        for (inst, _, d) in decls {
            self.out.push(&d, Some(inst));
            self.out.line(0, "", None);
        }
        for (inst, d) in core::mem::take(&mut self.wrapper_decls) {
            self.out.push(&d, Some(inst));
            self.out.line(0, "", None);
        }
        let Out { text, lines } = body;
        self.out.text.push_str(&text);
        self.out.lines.extend(lines);
        Ok(Wgsl {
            text: core::mem::take(&mut self.out.text),
            lines: core::mem::take(&mut self.out.lines),
            introduced: core::mem::take(&mut self.introduced),
        })
    }

    /// Refuse what the module declares that WGSL lacks.
    fn check_module(&self) -> Result<(), Refusal> {
        use crate::grammar::{capability as cap, op};
        // What reading the operands found (`Ir::build` parses them once; a
        // caller that read the module with `binary::read_words_framing`
        // gets here the checks `binary::read_words` would have made).
        match self.ir.problems.first() {
            Some(crate::ir::Problem::Operands(e)) => {
                return Err(Refusal::new("wgsl.invalid", alloc::format!("{e}"), None));
            }
            Some(&crate::ir::Problem::IdOutOfBound { inst, id, bound }) => {
                let msg = alloc::format!("%{id} is not below the id bound {bound}");
                return Err(Refusal::new("wgsl.invalid", msg, Some(inst)));
            }
            None => {}
        }
        // Variable-length arrays first: they come with the physical model.
        for i in 0..self.ir.len() {
            if matches!(
                self.ir.opcode(i),
                op::OpVariableLengthArrayINTEL | op::OpSaveMemoryINTEL | op::OpRestoreMemoryINTEL
            ) {
                return Err(Refusal::new("wgsl.vla", "a variable-length array (SPV_INTEL_variable_length_array)", Some(i as u32)));
            }
        }
        for i in 0..self.ir.len() {
            match self.ir.opcode(i) {
                op::OpCapability => {
                    let c = self.ir.words(i).first().copied().unwrap_or(0);
                    let bad = match c {
                        cap::Addresses => Some("Addresses"),
                        cap::Linkage => Some("Linkage"),
                        cap::Kernel => Some("Kernel"),
                        cap::Float64 => Some("Float64"),
                        cap::Int64 => Some("Int64"),
                        _ => None,
                    };
                    if let Some(b) = bad {
                        let code = match c {
                            cap::Float64 => "wgsl.float64",
                            cap::Int64 => "wgsl.int64",
                            cap::Addresses => "wgsl.physical-pointer",
                            _ => "wgsl.capability",
                        };
                        return Err(Refusal::new(code, alloc::format!("capability {b}"), Some(i as u32)));
                    }
                }
                op::OpMemoryModel
                    if self.ir.words(i).first().copied() != Some(crate::grammar::addressing_model::Logical) =>
                {
                    return Err(Refusal::new("wgsl.physical-pointer", "a physical addressing model", Some(i as u32)));
                }
                _ => {}
            }
        }
        for t in &self.ir.types {
            match t.ty {
                crate::ir::Type::Int { width: 64, .. } => {
                    return Err(Refusal::new("wgsl.int64", "a 64-bit integer type", Some(t.inst)));
                }
                crate::ir::Type::Float { width: 64, .. } => {
                    return Err(Refusal::new("wgsl.float64", "a 64-bit float type", Some(t.inst)));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The functions called from the entry points, callees first.
    fn call_tree(&mut self, entries: &[usize]) {
        use crate::grammar::op;
        let mut stack: Vec<(u32, bool)> = entries.iter().map(|&e| (self.ir.entry_points[e].function, false)).collect();
        let mut seen = BTreeSet::new();
        while let Some((f, done)) = stack.pop() {
            if done {
                self.functions.push(f);
                continue;
            }
            if !seen.insert(f) {
                continue;
            }
            stack.push((f, true));
            let Some(func) = self.ir.function(f) else { continue };
            for i in func.inst as usize..func.end as usize {
                if self.ir.opcode(i) == op::OpFunctionCall
                    && let Some(&callee) = self.ir.words(i).get(2)
                    && !seen.contains(&callee)
                {
                    stack.push((callee, false));
                }
            }
        }
    }
}
