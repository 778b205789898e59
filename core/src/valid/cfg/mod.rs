//! Structured control flow (SPIR-V 1.6r2 sections 2.2.5, 2.11 and 2.16.1;
//! Klimis et al., POPL 2023): branch targets, block order, merge instructions,
//! back edges, constructs defined with structural dominance, their exits, and
//! switch cases. Verdicts follow spirv-val v2025.5 (source/val/validate_cfg.cpp,
//! construct.cpp); unlike spirv-val, every independent error is reported.
//!
//! The per-construct rules are checked edge by edge, not block by block: an
//! edge `x -> y` can only leave (or enter) constructs rooted at (or excluded at)
//! structural dominators of `x` that do not dominate `y`, so each edge visits
//! only the constructs it crosses. With O(1) dominance queries the family runs
//! in time linear in the function plus the nesting crossed by its edges.

mod basic;
mod rules;
mod structured;
mod switch;

pub(super) use rules::RULES;

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

use super::Context;
use super::family::{Family, Instructions, Stage};
use crate::cfg::{FunctionCfg, ModuleCfg};
use crate::diag::Related;
use crate::grammar::capability;
use alloc::string::String;

/// The family's single pass (stage 2).
pub(super) fn check(cx: &mut Context<'_>) {
    cx.with_cfg(|cx, m: &ModuleCfg| {
        let shader = basic::has_capability(cx, capability::Shader);
        for f in &m.functions {
            if f.blocks.is_empty() {
                continue;
            }
            let sound = basic::check_function(cx, f);
            if !sound {
                continue;
            }
            basic::block_order(cx, f);
            if shader {
                basic::nesting_depth(cx, f);
                structured::check(cx, f);
            }
        }
        basic::maximal_reconvergence(cx, m);
        basic::loop_control_intel(cx, m);
    });
}

/// Report an error at instruction `at` with related spans at other instructions.
pub(super) fn report(
    cx: &mut Context<'_>,
    code: &'static str,
    at: usize,
    message: String,
    label: &str,
    related: &[(usize, String)],
) {
    let spans: alloc::vec::Vec<Related> = related
        .iter()
        .map(|(i, l)| Related { span: cx.span(*i), label: l.clone() })
        .collect();
    let d = cx.error(code, at, message);
    d.label = label.into();
    d.related = spans;
}

/// The instruction index of a block's label.
pub(super) fn label_at(f: &FunctionCfg, b: u32) -> usize {
    f.blocks.get(b as usize).map_or(f.instruction as usize, |x| x.start as usize)
}

/// The instruction index of a block's terminator (its label if none).
pub(super) fn term_at(f: &FunctionCfg, b: u32) -> usize {
    f.blocks
        .get(b as usize)
        .map_or(f.instruction as usize, |x| x.terminator.unwrap_or(x.start) as usize)
}

/// The friendly name of a block.
pub(super) fn bname(cx: &mut Context<'_>, f: &FunctionCfg, b: u32) -> String {
    let id = f.blocks.get(b as usize).map_or(0, |x| x.label);
    cx.name(id)
}

#[cfg(test)]
mod tests {
    use super::RULES;

    #[test]
    fn every_emitted_code_is_in_the_table() {
        let sources = [
            include_str!("mod.rs"),
            include_str!("basic.rs"),
            include_str!("structured.rs"),
            include_str!("switch.rs"),
        ];
        let mut n = 0;
        for src in sources {
            for part in src.split("\"cfg.").skip(1) {
                let code: alloc::string::String =
                    part.chars().take_while(|c| c.is_ascii_lowercase() || *c == '-').collect();
                if code.is_empty() {
                    continue;
                }
                let full = alloc::format!("cfg.{code}");
                assert!(RULES.iter().any(|r| r.code == full), "{full} has no RULES entry");
                n += 1;
            }
        }
        assert!(n > 20);
        for r in RULES {
            assert!(r.code.starts_with("cfg."));
        }
    }
}
