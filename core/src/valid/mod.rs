//! The validator: tells whether a module is valid for a target environment, and
//! why not, with located, explained diagnostics.
//!
//! Layout: [`Context`] (in `context.rs`) holds what every check needs (parsed
//! operands, definitions, the CFG, friendly names); each family of rules lives in
//! its own file and is one or more passes in [`PASSES`]. Every diagnostic code has
//! an entry in a family's `RULES` table (see [`rules`]) with its explanation.
//!
//! Verdicts follow spirv-val (SPIRV-Tools v2025.5); unlike spirv-val, every error
//! of a module is reported, not only the first. Passes are grouped in stages: when
//! a stage finds errors, later stages (which assume its guarantees, e.g. that every
//! id is defined once) are skipped, so no cascade of follow-on noise is reported.

/// The compile-time dispatch table of a one-walk pass: `ROUTES[op]` is
/// `$of(op)` for every opcode below `ROUTED`, so that the walk pays one load
/// per instruction rather than a chain of `applies` tests; `route(op)` reads
/// it, and asks `$of` for the few opcodes above it.
macro_rules! opcode_routes {
    ($route:ident, $of:ident) => {
        const ROUTED: usize = 1 << 13;
        static ROUTES: [$route; ROUTED] = {
            let mut t = [$route::None; ROUTED];
            let mut o = 0;
            while o < ROUTED {
                t[o] = $of(o as u16);
                o += 1;
            }
            t
        };

        fn route(opcode: u16) -> $route {
            match ROUTES.get(opcode as usize) {
                Some(&r) => r,
                None => $of(opcode),
            }
        }
    };
}

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
mod decoration;
mod derivative;
mod ext;
mod explicit_layout;
mod extinst;
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

pub use context::Context;
/// The names of a text, by which messages name ids (they live with the assembler).
pub use crate::text::asm::TextNames;

use crate::ir::Ir;
use crate::{Diagnostic, TargetEnv, binary};
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

/// One validation pass.
pub type Pass = fn(&mut Context<'_>);

/// The passes, by stage. A stage runs whole; when it reports errors, the later
/// stages are skipped. Add a family's passes to the stage whose guarantees they
/// need (stage 0 establishes that operands parse and ids are defined once; stage 1
/// that the module's layout and function/block structure are sound).
pub static PASSES: &[&[Pass]] = &[
    // Stage 0: the binary itself.
    &[version::check_env, ids::check_ids],
    // Stage 1: layout, ids, function and block structure.
    &[layout::check_layout, adjacency::check_adjacency],
    // Stage 2: everything that needs a sound structure.
    &[
        caps::check,
        version::check,
        types::check,
        typedecl::check,
        modes::check,
        scope::check,
        uses::check,
        ext::vla::check,
        ext::constant_data::check,
        ext::untyped::check,
        ssa::check_ssa,
        function::check_functions,
        limits::check_limits,
        cfg::check,
        operand::check,
        memory::check,
        composite::check,
        constant::check,
        decoration::check,
        explicit_layout::check,
        interface::check,
        builtin::check,
    ],
];

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
        for stage in PASSES {
            for pass in *stage {
                pass(&mut cx);
            }
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
