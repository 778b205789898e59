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

mod adjacency;
mod caps;
mod cfg;
mod context;
mod ext;
mod function;
mod ids;
mod layout;
mod limits;
pub mod rules;
mod ssa;
mod types;
mod version;

pub use context::Context;

use crate::text::asm::{AsmOutput, InstSpan};
use crate::{Diagnostic, Module, Span, TargetEnv, binary};
use alloc::string::String;
use alloc::vec::Vec;

/// Validator options, named after spirv-val's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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

impl Default for Options {
    fn default() -> Self {
        Options {
            env: TargetEnv::default(),
            before_hlsl_legalization: false,
            relax_logical_pointer: false,
            relax_block_layout: false,
            uniform_buffer_standard_layout: false,
            scalar_block_layout: false,
            workgroup_scalar_block_layout: false,
            skip_block_layout: false,
            relax_struct_store: false,
            allow_localsizeid: false,
            limits: Limits::default(),
        }
    }
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
        let slot = match option {
            "max-struct-members" => &mut self.max_struct_members,
            "max-struct-depth" | "max-struct_depth" => &mut self.max_struct_depth,
            "max-local-variables" => &mut self.max_local_variables,
            "max-global-variables" => &mut self.max_global_variables,
            "max-switch-branches" => &mut self.max_switch_branches,
            "max-function-args" => &mut self.max_function_args,
            "max-control-flow-nesting-depth" => &mut self.max_control_flow_nesting_depth,
            "max-access-chain-indexes" => &mut self.max_access_chain_indexes,
            "max-id-bound" => &mut self.max_id_bound,
            _ => return false,
        };
        *slot = value;
        true
    }
}

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
            let flag = match name {
                "--before-hlsl-legalization" => &mut self.before_hlsl_legalization,
                "--relax-logical-pointer" => &mut self.relax_logical_pointer,
                "--relax-block-layout" => &mut self.relax_block_layout,
                "--uniform-buffer-standard-layout" => &mut self.uniform_buffer_standard_layout,
                "--scalar-block-layout" => &mut self.scalar_block_layout,
                "--workgroup-scalar-block-layout" => &mut self.workgroup_scalar_block_layout,
                "--skip-block-layout" => &mut self.skip_block_layout,
                "--relax-struct-store" => &mut self.relax_struct_store,
                "--allow-localsizeid" => &mut self.allow_localsizeid,
                _ => {
                    let Some(limit) = name.strip_prefix("--").filter(|n| n.starts_with("max-"))
                    else {
                        return Err(OptionError::Unknown(name.into()));
                    };
                    let value = match inline {
                        Some(v) => v,
                        None => args.next().ok_or_else(|| OptionError::MissingValue(name.into()))?,
                    };
                    let n: u32 = value.parse().map_err(|_| OptionError::BadValue {
                        option: name.into(),
                        value: value.into(),
                    })?;
                    if !self.limits.set(limit, n) {
                        return Err(OptionError::Unknown(name.into()));
                    }
                    continue;
                }
            };
            *flag = true;
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
        ext::vla::check,
        ext::constant_data::check,
        ext::untyped::check,
        ssa::check_ssa,
        function::check_functions,
        limits::check_limits,
        cfg::check,
    ],
];

/// Validate a binary given as words (either byte order is accepted by the reader).
pub fn validate_words(words: &[u32], opts: &Options) -> Vec<Diagnostic> {
    match binary::read_words_framing(words) {
        Ok(m) => validate(&m, opts),
        Err(e) => alloc::vec![e.to_diagnostic()],
    }
}

/// The names a text gives its ids (`%fn`), from the assembler's id tokens: in
/// messages about a text, ids go by the names the person typed.
#[derive(Clone, Debug, Default)]
pub struct TextNames(Vec<(u32, String)>);

impl TextNames {
    /// The first spelling of each id in `src`, as the assembler resolved it.
    pub fn from_asm(src: &str, out: &AsmOutput) -> TextNames {
        let mut v: Vec<(u32, String)> = Vec::with_capacity(out.id_refs.len() / 2);
        let mut refs: Vec<&(Span, u32)> = out.id_refs.iter().collect();
        refs.sort_by_key(|&&(s, id)| (id, s.start));
        for &&(s, id) in &refs {
            if v.last().is_some_and(|(last, _)| *last == id) {
                continue;
            }
            let token = src.get(s.start as usize..s.end as usize).unwrap_or("");
            let name = token.strip_prefix('%').unwrap_or(token);
            if !name.is_empty() {
                v.push((id, String::from(name)));
            }
        }
        TextNames(v)
    }

    /// The text's name of `id`, without `%`.
    pub fn get(&self, id: u32) -> Option<&str> {
        let i = self.0.binary_search_by_key(&id, |(x, _)| *x).ok()?;
        Some(self.0[i].1.as_str())
    }
}

/// Validate a binary assembled from a text, naming ids as the text does.
pub fn validate_words_named(words: &[u32], opts: &Options, names: &TextNames) -> Vec<Diagnostic> {
    match binary::read_words_framing(words) {
        Ok(m) => validate_named(&m, opts, names).0,
        Err(e) => alloc::vec![e.to_diagnostic()],
    }
}

/// Validate a module assembled from a text, naming ids as the text does; also
/// hands back the module's CFG when a check built it, so that a caller that
/// needs it too (the page's report) does not build it again.
pub fn validate_named(
    module: &Module,
    opts: &Options,
    names: &TextNames,
) -> (Vec<Diagnostic>, Option<crate::cfg::ModuleCfg>) {
    run(Context::new(module, opts).with_text_names(names))
}

/// Validate a module.
pub fn validate(module: &Module, opts: &Options) -> Vec<Diagnostic> {
    run(Context::new(module, opts)).0
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
    fn locate_maps_words_to_text_and_drops_unmapped_related_spans() {
        use crate::diag::SpanUnit;
        let map = [
            InstSpan { word_offset: 5, word_count: 2, span: Span::new(0, 19) },
            InstSpan { word_offset: 7, word_count: 3, span: Span::new(20, 49) },
        ];
        let mut d = Diagnostic::error("x.y", Span::new(7, 10), "m").in_binary();
        d.relate(Span::new(5, 7), "first");
        d.relate(Span::new(0, 5), "header");
        let mut ds = [d];
        locate(&mut ds, &map);
        assert_eq!((ds[0].span, ds[0].unit), (Span::new(20, 49), SpanUnit::TextBytes));
        assert_eq!(ds[0].related.len(), 1);
        assert_eq!((ds[0].related[0].span, ds[0].related[0].label.as_str()), (Span::new(0, 19), "first"));
    }

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
        let named = validate_words_named(&out.words, &opts, &names);
        assert!(named.iter().any(|d| d.message.contains("%my_fn_type")), "{named:?}");
        // Without the text, the friendly names of spirv-dis (no OpName: the number).
        let plain = validate_words(&out.words, &opts);
        assert!(plain.iter().all(|d| !d.message.contains("my_fn_type")), "{plain:?}");
        assert_eq!(named.len(), plain.len());
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

/// The text span of the instruction holding word span `s`, by the source map.
pub fn locate_span(map: &[InstSpan], s: Span) -> Option<Span> {
    let i = map.partition_point(|m| m.word_offset + m.word_count <= s.start);
    map.get(i).filter(|m| m.word_offset <= s.start).map(|m| m.span)
}

/// Turn the word spans of diagnostics into text spans, with the assembler's
/// source map (diagnostics that are already in text are left alone).
pub fn locate(diags: &mut [Diagnostic], map: &[InstSpan]) {
    use crate::diag::SpanUnit;
    let find = |s: Span| locate_span(map, s);
    for d in diags.iter_mut() {
        if d.unit != SpanUnit::BinaryWords {
            continue;
        }
        let Some(span) = find(d.span) else { continue };
        d.span = span;
        d.unit = SpanUnit::TextBytes;
        // A related span outside the map (the header, say) cannot be shown in the
        // text: drop it rather than read its word numbers as byte offsets.
        d.related.retain_mut(|r| match find(r.span) {
            Some(s) => {
                r.span = s;
                true
            }
            None => false,
        });
    }
}
