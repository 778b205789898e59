//! The module writer: WGSL text from a module and its [`ModulePlan`].
//!
//! [`ModuleWriter`] keeps the output and what writing discovers (names of
//! structs and members, wrapper structs and helper functions declared on
//! first use, whether `enable f16;` or `enable subgroups;` is needed) in
//! private fields; it reads the plan and never changes it. Its work is in
//! its child files: `type_text` (types as WGSL text, struct declarations),
//! `globals` (constants, overrides, resources and variables), `entry` (the
//! entry points' wrappers), `function` (one function, with its
//! [`function::FunctionContext`], walked statement by statement) and `expr`
//! (each instruction, by family).

mod entry;
mod expr;
mod function;
mod globals;
mod type_text;

use super::plan::ModulePlan;
use super::refuse::Refusal;
use super::{Structurer, Wgsl};
use crate::cfg::ModuleCfg;
use crate::ir::Ir;
use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;


/// The writer's state (see the module's documentation).
pub(super) struct ModuleWriter<'a> {
    ir: &'a Ir,
    cfg: &'a ModuleCfg,
    structure: Structurer<'a>,
    plan: &'a ModulePlan<'a>,
    /// Whether f16 is used (`enable f16;`).
    f16: bool,
    /// Whether subgroup operations are used (`enable subgroups;`).
    subgroups: bool,
    /// The private variable holding the subgroup invocation id, when
    /// OpGroupNonUniformElect needs it (set by the entry wrappers).
    lane: Option<String>,
    /// A private `bool` never written, that makes a constant a run-time
    /// value: `select(c, c, opaque)` (see `expr`).
    opaque: Option<String>,
    /// Module-scope identifiers: the plan's, and those taken while writing.
    globals_scope: super::names::Scope,
    type_names: IdMap<String>,
    /// Each type's text, made once (`type_text`).
    type_text: IdMap<Rc<str>>,
    /// The member names of each struct type, named all at once on first use.
    member_names: IdMap<Vec<String>>,
    /// Structs to declare, in first-use order.
    structs: Vec<u32>,
    /// Array types whose element is wrapped in a struct to get its
    /// ArrayStride: (array type, wrapper name).
    wrappers: IdMap<String>,
    /// Declarations written after the structs, before the body: wrapper
    /// structs, helper functions and private variables of our own, each
    /// with its source instruction.
    extra_decls: Vec<(u32, String)>,
    /// Helper functions emulating what WGSL lacks, by key (`expr::emulate`).
    helpers: BTreeMap<String, String>,
    /// Module-scope names of ids (globals, functions, overrides).
    global_names: IdMap<String>,
    /// Output: lines with their source instruction.
    out: Out,
    /// A spare expression buffer: `bind` keeps the String it was given
    /// here, and the next expression is built in it (no allocation per
    /// expression).
    spare: String,
    /// The sampler declared for each combined image sampler variable.
    split_samplers: BTreeMap<u32, String>,
}

/// Values by id: a Vec indexed by id for the ids of usual modules, a map
/// above (a module may declare any id bound).
pub(super) struct IdMap<V> {
    dense: Vec<Option<V>>,
    sparse: BTreeMap<u32, V>,
}

/// Ids below this are kept in [`IdMap`]'s Vec.
const DENSE_IDS: u32 = 1 << 16;

impl<V> IdMap<V> {
    /// For the ids below `bound` (the module's id bound): room for them all
    /// (up to 4096) at the first insert, not grown id by id.
    pub(super) fn with_bound(bound: u32) -> Self {
        IdMap { dense: Vec::with_capacity(bound.min(4096) as usize), sparse: BTreeMap::new() }
    }

    /// Empty, grown to the ids inserted.
    pub(super) fn new() -> Self {
        IdMap { dense: Vec::new(), sparse: BTreeMap::new() }
    }

    pub(super) fn contains_key(&self, id: &u32) -> bool {
        self.get(id).is_some()
    }

    pub(super) fn get(&self, id: &u32) -> Option<&V> {
        if *id < DENSE_IDS { self.dense.get(*id as usize).and_then(Option::as_ref) } else { self.sparse.get(id) }
    }

    pub(super) fn insert(&mut self, id: u32, v: V) -> Option<V> {
        if id >= DENSE_IDS {
            return self.sparse.insert(id, v);
        }
        let k = id as usize;
        if k >= self.dense.len() {
            // Up to the room reserved (no reallocation), or to `k`.
            self.dense.resize_with((k + 1).max(self.dense.capacity()), || None);
        }
        self.dense[k].replace(v)
    }
}

/// Text written line by line, each line with its source instruction.
#[derive(Default)]
struct Out {
    text: String,
    lines: Vec<Option<u32>>,
}

impl Out {
    /// Append `s` (one or more whole lines, or text ending in a newline), all
    /// mapped to `at`.
    fn push(&mut self, s: &str, at: Option<u32>) {
        self.text.push_str(s);
        for _ in s.matches('\n') {
            self.lines.push(at);
        }
    }

    /// [`Out::line`] with the text formatted in place (no temporary String).
    fn line_fmt(&mut self, indent: usize, args: core::fmt::Arguments, at: Option<u32>) {
        for _ in 0..indent {
            self.text.push_str("  ");
        }
        // Writing into a String cannot fail.
        let _ = core::fmt::Write::write_fmt(&mut self.text, args);
        self.text.push('\n');
        self.lines.push(at);
    }

    /// A line of `parts`, one after another (no formatter).
    fn line_parts(&mut self, indent: usize, parts: &[&str], at: Option<u32>) {
        for _ in 0..indent {
            self.text.push_str("  ");
        }
        for p in parts {
            self.text.push_str(p);
        }
        self.text.push('\n');
        self.lines.push(at);
    }

    fn line(&mut self, indent: usize, s: &str, at: Option<u32>) {
        for _ in 0..indent {
            self.text.push_str("  ");
        }
        self.text.push_str(s);
        self.text.push('\n');
        self.lines.push(at);
    }
}

/// Write the WGSL of `ir` as `plan` says, each function's shape from
/// `structure`; the first refusal met in the output's order.
/// `names` are the module-scope names the plan took, which the writer goes on from.
pub(super) fn write(
    ir: &Ir,
    cfg: &ModuleCfg,
    structure: Structurer<'_>,
    plan: &ModulePlan<'_>,
    names: super::names::Scope,
) -> Result<Wgsl, Refusal> {
    let mut writer = ModuleWriter {
        ir,
        cfg,
        structure,
        plan,
        f16: false,
        subgroups: false,
        lane: None,
        opaque: None,
        globals_scope: names,
        type_names: IdMap::new(),
        type_text: IdMap::new(),
        member_names: IdMap::new(),
        structs: Vec::new(),
        wrappers: IdMap::new(),
        extra_decls: Vec::new(),
        helpers: BTreeMap::new(),
        global_names: IdMap::with_bound(ir.module.header.bound),
        out: Out::default(),
        spare: String::new(),
        split_samplers: BTreeMap::new(),
    };
    writer.module()
}

impl ModuleWriter<'_> {
    fn module(&mut self) -> Result<Wgsl, Refusal> {
        let plan = self.plan;
        // Body first (it collects the structs it uses), then the head.
        let mut body = Out::default();
        core::mem::swap(&mut self.out, &mut body);
        // Grown once, not line by line (about 16 bytes of WGSL per instruction).
        self.out.text.reserve(self.ir.len() * 16);
        self.out.lines.reserve(self.ir.len());
        self.globals()?;
        for &f in &plan.functions {
            self.function(f)?;
        }
        for e in &plan.entries {
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
        for (inst, d) in core::mem::take(&mut self.extra_decls) {
            self.out.push(&d, Some(inst));
            self.out.line(0, "", None);
        }
        let Out { text, lines } = body;
        self.out.text.push_str(&text);
        self.out.lines.extend(lines);
        Ok(Wgsl {
            text: core::mem::take(&mut self.out.text),
            lines: core::mem::take(&mut self.out.lines),
            introduced: plan.introduced.clone(),
            bindings: plan.bindings.clone(),
            combined: plan.combined.clone(),
        })
    }
}
