//! The validator: tells whether a module is valid for a target environment, and
//! why not, with located, explained diagnostics.
//!
//! Layout: [`Context`] (in `context.rs`) holds what every check needs (parsed
//! operands, definitions, the CFG, friendly names); each family of rules lives in
//! its own file and declares itself there once (`FAMILY`, a `family::Family`:
//! its `RULES`, its passes and their stages, the instructions it checks).
//! [`FAMILIES`] lists them; this file derives from it the rule table (see
//! [`rules`]), the passes of each stage and the two walks over the
//! instructions, which hand each instruction to the family that takes it.
//! Shared helpers (`context.rs`, `declared.rs`, `operand.rs`, `scope.rs`,
//! `walk.rs`, `family.rs`, `rules.rs`) import no family.
//!
//! Verdicts follow spirv-val (SPIRV-Tools v2025.5); unlike spirv-val, every error
//! of a module is reported, not only the first. Passes are grouped in stages: when
//! a stage finds errors, later stages (which assume its guarantees, e.g. that every
//! id is defined once) are skipped, so no cascade of follow-on noise is reported.

mod adjacency;
mod arith;
mod atomics;
mod barrier;
mod bitwise;
mod builtin;
mod caps;
mod cfg;
mod context;
mod conversion;
mod debug;
mod declared;
mod decoration;
mod derivative;
mod ext;
mod explicit_layout;
mod extinst;
mod family;
mod function;
mod group;
mod ids;
mod image;
mod interface;
mod layout;
mod limits;
mod location;
mod logical;
mod modes;
mod operand;
mod memory;
mod misc;
mod composite;
mod constant;
pub mod rules;
mod scope;
mod ssa;
mod typedecl;
mod types;
mod uses;
mod version;
mod walk;

pub use context::Context;
/// The names of a text, by which messages name ids (they live with the assembler).
pub use crate::text::asm::TextNames;

use crate::ir::Ir;
use crate::{Diagnostic, TargetEnv, binary};
use family::{Check, Family, Instructions, Stage};
use alloc::string::String;
use alloc::vec::Vec;

/// Validator options, named after spirv-val's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Default)]
pub struct Options {
    /// `--target-env`.
    pub env: TargetEnv,
    /// `--before-hlsl-legalization`.
    pub before_hlsl_legalization: bool,
    /// `--relax-logical-pointer`.
    pub relax_logical_pointer: bool,
    /// `--relax-block-layout`.
    pub relax_block_layout: bool,
    /// `--uniform-buffer-standard-layout`.
    pub uniform_buffer_standard_layout: bool,
    /// `--scalar-block-layout`.
    pub scalar_block_layout: bool,
    /// `--workgroup-scalar-block-layout`.
    pub workgroup_scalar_block_layout: bool,
    /// `--skip-block-layout`.
    pub skip_block_layout: bool,
    /// `--relax-struct-store`.
    pub relax_struct_store: bool,
    /// `--allow-localsizeid`.
    pub allow_localsizeid: bool,
    /// The `--max-*` limits.
    pub limits: Limits,
}


/// The universal limits, with spirv-val's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Limits {
    pub max_struct_members: u32,
    pub max_struct_depth: u32,
    pub max_local_variables: u32,
    pub max_global_variables: u32,
    pub max_switch_branches: u32,
    pub max_function_args: u32,
    pub max_control_flow_nesting_depth: u32,
    pub max_access_chain_indexes: u32,
    pub max_id_bound: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_struct_members: 16383,
            max_struct_depth: 255,
            max_local_variables: 524287,
            max_global_variables: 65535,
            max_switch_branches: 16383,
            max_function_args: 255,
            max_control_flow_nesting_depth: 1023,
            max_access_chain_indexes: 255,
            max_id_bound: 0x3FFFFF,
        }
    }
}

impl Limits {
    /// Set a limit by its spirv-val option name without the leading `--`
    /// (`max-struct-members`, and spirv-val's own spelling `max-struct_depth`).
    /// Returns false for an unknown name.
    pub fn set(&mut self, option: &str, value: u32) -> bool {
        let Some((_, slot)) = LIMITS.iter().find(|(n, _)| n.strip_prefix("--") == Some(option)) else {
            return false;
        };
        *slot(self) = value;
        true
    }
}

/// spirv-val's flags that take no value, each with the option it sets: the one
/// list the validator, the CLI and the page read.
pub const FLAGS: &[(&str, fn(&mut Options) -> &mut bool)] = &[
    ("--before-hlsl-legalization", |o| &mut o.before_hlsl_legalization),
    ("--relax-logical-pointer", |o| &mut o.relax_logical_pointer),
    ("--relax-block-layout", |o| &mut o.relax_block_layout),
    ("--uniform-buffer-standard-layout", |o| &mut o.uniform_buffer_standard_layout),
    ("--scalar-block-layout", |o| &mut o.scalar_block_layout),
    ("--workgroup-scalar-block-layout", |o| &mut o.workgroup_scalar_block_layout),
    ("--skip-block-layout", |o| &mut o.skip_block_layout),
    ("--relax-struct-store", |o| &mut o.relax_struct_store),
    ("--allow-localsizeid", |o| &mut o.allow_localsizeid),
];

/// spirv-val's limits, which take a number, each with the limit it sets
/// (`--max-struct-depth` under both of spirv-val's spellings).
pub const LIMITS: &[(&str, fn(&mut Limits) -> &mut u32)] = &[
    ("--max-struct-members", |l| &mut l.max_struct_members),
    ("--max-struct-depth", |l| &mut l.max_struct_depth),
    ("--max-struct_depth", |l| &mut l.max_struct_depth),
    ("--max-local-variables", |l| &mut l.max_local_variables),
    ("--max-global-variables", |l| &mut l.max_global_variables),
    ("--max-switch-branches", |l| &mut l.max_switch_branches),
    ("--max-function-args", |l| &mut l.max_function_args),
    ("--max-control-flow-nesting-depth", |l| &mut l.max_control_flow_nesting_depth),
    ("--max-access-chain-indexes", |l| &mut l.max_access_chain_indexes),
    ("--max-id-bound", |l| &mut l.max_id_bound),
];

/// A spirv-val command-line option that could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// Not a spirv-val option.
    Unknown(String),
    /// A `--max-*` option without its number.
    MissingValue(String),
    /// A `--max-*` value that is not a number.
    BadValue { option: String, value: String },
}

impl core::fmt::Display for OptionError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            OptionError::Unknown(o) => write!(f, "unknown option `{o}`"),
            OptionError::MissingValue(o) => write!(f, "option `{o}` needs a number"),
            OptionError::BadValue { option, value } => {
                write!(f, "option `{option}`: `{value}` is not a number")
            }
        }
    }
}

impl Options {
    /// Apply spirv-val's options, given as separate arguments (`--max-struct-depth 10`
    /// or `--max-struct-depth=10`; flags alone otherwise). `--target-env` is not one
    /// of them: set `env` directly.
    pub fn apply_args<'a>(
        &mut self,
        args: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), OptionError> {
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (arg, None),
            };
            if let Some((_, flag)) = FLAGS.iter().find(|(n, _)| *n == name) {
                *flag(self) = true;
                continue;
            }
            if !LIMITS.iter().any(|(n, _)| *n == name) {
                return Err(OptionError::Unknown(name.into()));
            }
            let value = match inline {
                Some(v) => v,
                None => args.next().ok_or_else(|| OptionError::MissingValue(name.into()))?,
            };
            let n: u32 = value
                .parse()
                .map_err(|_| OptionError::BadValue { option: name.into(), value: value.into() })?;
            self.limits.set(&name[2..], n);
        }
        Ok(())
    }
}

/// Every family of rules, in the order their passes run within a stage; the
/// walk of the synchronization rules runs at the place of its first family
/// (`scope`), the walk of the instruction rules at the place of its first
/// (`logical`). Add a new family here.
static FAMILIES: &[Family] = &[
    GENERAL,
    caps::FAMILY,
    version::FAMILY,
    ids::FAMILY,
    layout::FAMILY,
    adjacency::FAMILY,
    types::FAMILY,
    typedecl::FAMILY,
    modes::FAMILY,
    scope::FAMILY,
    atomics::FAMILY,
    barrier::FAMILY,
    group::FAMILY,
    uses::FAMILY,
    ext::vla::FAMILY,
    ext::constant_data::FAMILY,
    ext::untyped::FAMILY,
    ssa::FAMILY,
    function::FAMILY,
    limits::FAMILY,
    cfg::FAMILY,
    logical::FAMILY,
    image::FAMILY,
    derivative::FAMILY,
    extinst::FAMILY,
    debug::FAMILY,
    misc::FAMILY,
    arith::FAMILY,
    conversion::FAMILY,
    bitwise::FAMILY,
    memory::FAMILY,
    composite::FAMILY,
    constant::FAMILY,
    decoration::FAMILY,
    explicit_layout::FAMILY,
    interface::FAMILY,
    builtin::FAMILY,
    location::FAMILY,
];

/// The rules that belong to no family (`val.binary`, reported by the reader).
const GENERAL: Family = Family { rules: rules::GENERAL, passes: &[], instructions: Instructions::None };

/// The opcodes whose family a walk looks up once and remembers (every core
/// opcode is below it; the few above are looked up at each instruction).
const ROUTED: usize = 1 << 13;

/// Which family of a walk takes each opcode, looked up in [`FAMILIES`] on the
/// first instruction with that opcode.
struct Routes<F: Fn(&Family, u16) -> bool> {
    /// 0: not looked up yet; `NONE`: no family; else the family's index + 1.
    seen: [u8; ROUTED],
    takes: F,
}

impl<F: Fn(&Family, u16) -> bool> Routes<F> {
    const NONE: u8 = u8::MAX;

    fn new(takes: F) -> Self {
        Routes { seen: [0; ROUTED], takes }
    }

    /// The family that takes `opcode`.
    #[inline]
    fn of(&mut self, opcode: u16) -> Option<&'static Family> {
        let look = |takes: &F| FAMILIES.iter().position(|f| takes(f, opcode));
        let k = match self.seen.get_mut(opcode as usize) {
            Some(0) => {
                let k = look(&self.takes);
                self.seen[opcode as usize] = k.map_or(Self::NONE, |k| k as u8 + 1);
                k
            }
            Some(&mut Self::NONE) => None,
            Some(k) => Some(*k as usize - 1),
            None => look(&self.takes),
        };
        k.map(|k| &FAMILIES[k])
    }
}

/// The walk of the instruction rules: each instruction goes to the family
/// whose [`Instructions::Walk`] takes it; then each such family's `finish`.
fn instruction_walk(cx: &mut Context<'_>) {
    let mut routes = Routes::new(|f, o| matches!(f.instructions, Instructions::Walk { takes, .. } if takes(o)));
    let mut lookups = walk::Lookups::default();
    for i in 0..cx.insts().len() {
        let opcode = cx.insts()[i].opcode;
        let Some(Instructions::Walk { check, .. }) = routes.of(opcode).map(|f| f.instructions) else { continue };
        match check {
            Check::Any(check) => check(cx, i, opcode, &mut lookups),
            Check::Typed(check) => {
                if let Some(rt) = operand::known_result(cx, i) {
                    check(cx, i, opcode, rt, &mut lookups);
                }
            }
        }
    }
    for f in FAMILIES {
        if let Instructions::Walk { finish: Some(finish), .. } = f.instructions {
            finish(cx, &mut lookups);
        }
    }
}

/// The walk of the synchronization rules (atomics, barriers, group
/// operations, scopes): each instruction goes to the family whose
/// [`Instructions::Sync`] takes it, with the module's [`walk::Sync`] (read on
/// the first); then, if any was checked, each such family's `finish`.
fn sync_walk(cx: &mut Context<'_>) {
    let mut routes = Routes::new(|f, o| matches!(f.instructions, Instructions::Sync { takes, .. } if takes(o)));
    let mut sync: Option<walk::Sync> = None;
    for i in 0..cx.insts().len() {
        let opcode = cx.insts()[i].opcode;
        let Some(Instructions::Sync { check, .. }) = routes.of(opcode).map(|f| f.instructions) else { continue };
        let s = sync.get_or_insert_with(|| walk::Sync::new(cx));
        check(cx, s, i, opcode);
    }
    let Some(s) = sync else { return };
    for f in FAMILIES {
        if let Instructions::Sync { finish: Some(finish), .. } = f.instructions {
            finish(cx, &s);
        }
    }
}

/// Run every family's passes at `stage`, in the order of [`FAMILIES`], and
/// in [`Stage::Sound`] each walk at the place of its first family.
fn run_stage(cx: &mut Context<'_>, stage: Stage) {
    let (mut walked, mut synced) = (false, false);
    for f in FAMILIES {
        for &(s, pass) in f.passes {
            if s == stage {
                pass(cx);
            }
        }
        if stage != Stage::Sound {
            continue;
        }
        match f.instructions {
            Instructions::Walk { .. } if !walked => {
                walked = true;
                instruction_walk(cx);
            }
            Instructions::Sync { .. } if !synced => {
                synced = true;
                sync_walk(cx);
            }
            _ => {}
        }
    }
}

/// Validate a binary given as words (either byte order is accepted by the reader).
pub fn validate_words(words: &[u32], opts: &Options) -> Vec<Diagnostic> {
    match binary::read_words_framing(words) {
        Ok(m) => validate(&Ir::build(m), opts),
        Err(e) => alloc::vec![e.to_diagnostic()],
    }
}

/// Validate a module given as its IR, naming ids as the text it was assembled
/// from does (when given); also hands back the module's CFG when a check built
/// it, so that a caller that needs it too (the analysis) does not build it again.
pub fn validate_named(
    ir: &Ir,
    opts: &Options,
    names: Option<&TextNames>,
) -> (Vec<Diagnostic>, Option<crate::cfg::ModuleCfg>) {
    let cx = Context::new(ir, opts);
    run(match names {
        Some(n) => cx.with_text_names(n),
        None => cx,
    })
}

/// Validate a module given as its IR.
pub fn validate(ir: &Ir, opts: &Options) -> Vec<Diagnostic> {
    run(Context::new(ir, opts)).0
}

fn run(mut cx: Context<'_>) -> (Vec<Diagnostic>, Option<crate::cfg::ModuleCfg>) {
    if cx.diags.is_empty() {
        for stage in Stage::ALL {
            run_stage(&mut cx, stage);
            if cx.has_errors() {
                break;
            }
        }
    }
    cx.finish_with_cfg()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_about_text_use_the_names_typed() {
        use crate::text::asm::{AsmOptions, assemble_with_map};
        let src = "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n\
                   %void = OpTypeVoid\n%my_fn_type = OpTypeFunction %void\n\
                   %f = OpFunction %void None %my_fn_type\n%entry = OpLabel\n\
                   %x = OpIAdd %my_fn_type %my_fn_type %my_fn_type\nOpReturn\nOpFunctionEnd\n";
        let out = assemble_with_map(src, &AsmOptions::default()).unwrap();
        let names = TextNames::from_asm(src, &out);
        let opts = Options::default();
        let m = binary::read_words_framing(&out.words).unwrap();
        let named = validate_named(&Ir::build(m), &opts, Some(&names)).0;
        assert!(named.iter().any(|d| d.message.contains("%my_fn_type")), "{named:?}");
        // Without the text, the friendly names of spirv-dis (no OpName: the number).
        let plain = validate_words(&out.words, &opts);
        assert!(plain.iter().all(|d| !d.message.contains("my_fn_type")), "{plain:?}");
        assert_eq!(named.len(), plain.len());
    }

    #[test]
    fn an_operand_span_covers_the_operand_words() {
        // %x = OpIAdd %int %a %b: the words are [count|op, %int, %x, %a, %b].
        let src = "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n\
                   %int = OpTypeInt 32 1\n%a = OpConstant %int 1\n%b = OpConstant %int 2\n\
                   %x = OpIAdd %int %a %b\n";
        let words = crate::text::asm::assemble(src, &crate::text::asm::AsmOptions::default()).unwrap();
        let ir = Ir::build(binary::read_words_framing(&words).unwrap());
        let opts = Options::default();
        let cx = context::Context::new(&ir, &opts);
        let i = cx.insts().len() - 1;
        let at = cx.offset(i);
        assert_eq!(words[at as usize] & 0xffff, crate::grammar::op::OpIAdd as u32);
        assert_eq!(cx.operand_span(i, 2), crate::diag::Span::new(at + 3, at + 4));
        assert_eq!(cx.operand_span(i, 3), crate::diag::Span::new(at + 4, at + 5));
        assert_eq!(cx.operand_span(i, 9), cx.span(i));
    }

    /// The family a walk hands `opcode` to, by its rule table.
    fn walked_by(opcode: u16, sync: bool) -> Option<&'static [rules::Rule]> {
        let mut routes = Routes::new(move |f, o| match f.instructions {
            Instructions::Walk { takes, .. } => !sync && takes(o),
            Instructions::Sync { takes, .. } => sync && takes(o),
            Instructions::None => false,
        });
        routes.of(opcode).map(|f| f.rules)
    }

    #[test]
    fn each_instruction_goes_to_its_family() {
        use crate::grammar::op;
        // Rule codes are unique: a family is known by its first rule.
        let same = |a: Option<&[rules::Rule]>, b: &[rules::Rule]| a.and_then(|a| a.first()) == b.first();
        assert!(same(walked_by(op::OpIAdd, false), arith::RULES));
        assert!(same(walked_by(op::OpBranchConditional, false), logical::RULES));
        assert!(same(walked_by(op::OpFUnordLessThan, false), logical::RULES));
        assert!(same(walked_by(op::OpImageFetch, false), image::RULES));
        assert!(same(walked_by(op::OpAtomicIAdd, true), atomics::RULES));
        assert!(same(walked_by(op::OpControlBarrier, true), barrier::RULES));
        assert!(same(walked_by(op::OpGroupNonUniformIAdd, true), group::RULES));
        assert!(same(walked_by(op::OpLoad, true), scope::RULES));
        assert!(walked_by(op::OpLoad, false).is_none() && walked_by(op::OpIAdd, true).is_none());
        // No opcode is taken by two families of one walk, so the order of the
        // list does not decide where an instruction goes.
        for o in 0..=u16::MAX {
            let walk = FAMILIES.iter().filter(|f| matches!(f.instructions, Instructions::Walk { takes, .. } if takes(o)));
            let sync = FAMILIES.iter().filter(|f| matches!(f.instructions, Instructions::Sync { takes, .. } if takes(o)));
            assert!(walk.count() <= 1 && sync.count() <= 1, "opcode {o}");
        }
    }

    #[test]
    fn spirv_val_options() {
        let mut o = Options::default();
        o.apply_args(["--before-hlsl-legalization", "--max-struct_depth", "7", "--max-id-bound=9"])
            .unwrap();
        assert!(o.before_hlsl_legalization);
        assert_eq!((o.limits.max_struct_depth, o.limits.max_id_bound), (7, 9));
        o.apply_args(["--max-struct-depth", "8"]).unwrap();
        assert_eq!(o.limits.max_struct_depth, 8);
        assert_eq!(o.apply_args(["--frobnicate"]), Err(OptionError::Unknown("--frobnicate".into())));
        assert_eq!(
            o.apply_args(["--max-function-args"]),
            Err(OptionError::MissingValue("--max-function-args".into()))
        );
        assert!(matches!(o.apply_args(["--max-function-args", "x"]), Err(OptionError::BadValue { .. })));
    }
}
