//! What a family of rules declares about itself, once, in its own file
//! (`pub(super) const FAMILY: Family`): its rule table, its passes over the
//! module with the stage each needs, and the instructions it checks in one of
//! the two shared walks. `valid/mod.rs` lists the families and derives the
//! rest from these declarations: the rule table (`rules::rule`), the passes
//! of each stage, and which family each instruction goes to.

use super::context::Context;
use super::rules::Rule;
use super::walk::{Lookups, Sync};

/// A family of rules.
pub(super) struct Family {
    /// Every rule the family reports (a test checks that each code it emits
    /// is here).
    pub rules: &'static [Rule],
    /// Its passes over the whole module, each with the stage whose guarantees
    /// it needs; within a stage, passes run in the order of the family list.
    pub passes: &'static [(Stage, Pass)],
    /// The instructions it checks in a shared walk, and how.
    pub instructions: Instructions,
}

/// A pass over the module.
pub(super) type Pass = fn(&mut Context<'_>);

/// When a pass runs. A stage runs whole; when it reports errors, the later
/// stages are skipped, so that one root error does not produce a cascade.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stage {
    /// The binary itself: operands parse, ids are defined once.
    Binary,
    /// Layout, ids, function and block structure.
    Structure,
    /// Everything that needs a sound structure (the two walks run here).
    Sound,
}

impl Stage {
    /// The stages, in the order they run.
    pub const ALL: [Stage; 3] = [Stage::Binary, Stage::Structure, Stage::Sound];
}

/// The instructions a family checks, in one of the two walks over the
/// instructions (each walk runs in [`Stage::Sound`], at the place of the
/// first family in the list that takes part in it). `takes` says which
/// opcodes the family checks; no two families of a walk take the same
/// opcode (a test checks).
#[derive(Clone, Copy)]
pub(super) enum Instructions {
    /// None: the family's passes read the module's tables.
    None,
    /// In the walk of the instruction rules, with what they look up once
    /// ([`Lookups`]); `finish` runs after the walk.
    Walk { takes: fn(u16) -> bool, check: Check, finish: Option<fn(&mut Context<'_>, &mut Lookups)> },
    /// In the walk of the synchronization rules, with the module's memory
    /// model and capabilities ([`Sync`]); `finish` runs after the walk, when
    /// an instruction was checked.
    Sync {
        takes: fn(u16) -> bool,
        check: fn(&mut Context<'_>, &mut Sync, usize, u16),
        finish: Option<fn(&mut Context<'_>, &Sync)>,
    },
}

/// How the instruction walk hands a family an instruction (index, opcode).
#[derive(Clone, Copy)]
pub(super) enum Check {
    /// Every instruction the family takes.
    Any(fn(&mut Context<'_>, usize, u16, &mut Lookups)),
    /// The instructions it takes whose Result Type is a type the instruction
    /// rules know (`operand::known_result`), with that type.
    Typed(fn(&mut Context<'_>, usize, u16, u32, &mut Lookups)),
}
