//! The page's quiz: generated CFGs, about half of them one [`mutate`] edit
//! away from valid. The answer key is the validator's verdict on the
//! question's module, never what the mutation meant to break: a mutant that
//! is still valid is a valid question, and the block at fault is the one the
//! first error points at ([`Analysis::diagnostic_block`]).

use super::generate::{Config, generate_with, mutate};
use super::rng::Rng;
use super::skeleton::Skeleton;
use crate::Severity;
use crate::analysis::Analysis;

/// The most blocks a question asks for (bigger graphs make poor questions
/// and slow answers).
pub const MAX_BLOCKS: usize = 40;

/// One question: a skeleton, and the edit made to it, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub skeleton: Skeleton,
    /// The mutation applied (`retarget-branch`, `drop-merge`...), or `None`
    /// for an untouched generated CFG.
    pub mutation: Option<&'static str>,
}

impl Question {
    /// The question for `seed`, of about `blocks` blocks (at least 2, at
    /// most [`MAX_BLOCKS`]): the same seed and size give the same question.
    pub fn new(seed: u64, blocks: usize) -> Question {
        let mut rng = Rng::new(seed);
        // The top level goes on until the size is reached: a question is
        // never a trivial two-block function.
        let cfg = Config { blocks: blocks.clamp(2, MAX_BLOCKS), max_depth: 3, dead_blocks: 1, fill: true, ..Config::default() };
        let skeleton = generate_with(&mut rng, cfg);
        if rng.chance(50) {
            let (mutant, what) = mutate(&skeleton, &mut rng);
            Question { skeleton: mutant, mutation: Some(what) }
        } else {
            Question { skeleton, mutation: None }
        }
    }

    /// The question's module, as assembly text.
    pub fn text(&self) -> alloc::string::String {
        self.skeleton.module_text()
    }
}

/// The answer to a question, read from the validator's analysis of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "camelCase"))]
pub struct Key {
    /// The validator found no error.
    pub valid: bool,
    /// The first error: its index in the analysis's diagnostics.
    pub diagnostic: Option<usize>,
    /// The block that error points at (its label's result id in the
    /// module, as the CFG views name blocks), if it points at one.
    pub block: Option<u32>,
}

impl Key {
    /// The key of the analysed module `a`.
    pub fn of(a: &Analysis) -> Key {
        let first = a.diagnostics().iter().position(|d| d.severity == Severity::Error);
        let valid = a.is_valid();
        let diagnostic = if valid { None } else { first };
        let block = diagnostic.and_then(|i| a.diagnostic_block(i)).map(|(_, label)| label);
        Key { valid, diagnostic, block }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::valid::Options;

    /// Over many seeds both answers occur, each about half the time, and an
    /// invalid question's first error names a block of the question's
    /// function in most cases (the CFG rules point at blocks).
    #[test]
    fn questions_are_balanced_and_keyed_by_the_validator() {
        let (mut valid, mut invalid, mut located) = (0, 0, 0);
        for seed in 0..200 {
            let q = Question::new(seed, 10);
            assert_eq!(Question::new(seed, 10), q, "deterministic");
            let a = Analysis::of_text(&q.text(), &Options::default());
            assert!(a.assembled());
            let k = Key::of(&a);
            assert_eq!(k.valid, a.is_valid());
            if q.mutation.is_none() {
                assert!(k.valid, "an untouched generated CFG is valid (seed {seed})");
            }
            if k.valid {
                valid += 1;
                assert_eq!((k.diagnostic, k.block), (None, None));
            } else {
                invalid += 1;
                let d = &a.diagnostics()[k.diagnostic.unwrap()];
                assert_eq!(d.severity, Severity::Error);
                if let Some(b) = k.block {
                    // The module names the skeleton's block `l` `%b<l>`.
                    let name = a.display_name(b);
                    let l = name.strip_prefix('b').and_then(|l| l.parse().ok());
                    assert!(l.is_some_and(|l| q.skeleton.position(l).is_some()), "seed {seed}: %{name} is not a block");
                    located += 1;
                }
            }
        }
        assert!((60..=140).contains(&valid), "valid {valid}, invalid {invalid}");
        assert!(located * 10 >= invalid * 8, "{located} of {invalid} located");
    }

    /// The block at fault is the block holding the instruction the error
    /// points at: a header whose merge instruction was dropped while a
    /// conditional branch remains is reported at that header.
    #[test]
    fn the_block_at_fault_holds_the_reported_instruction() {
        let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
                    OpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n%bool = OpTypeBool\n\
                    %true = OpConstantTrue %bool\n%fn = OpTypeFunction %void\n%main = OpFunction %void None %fn\n\
                    %b1 = OpLabel\nOpBranch %b2\n%b2 = OpLabel\nOpBranchConditional %true %b3 %b4\n\
                    %b3 = OpLabel\nOpBranch %b4\n%b4 = OpLabel\nOpReturn\nOpFunctionEnd\n";
        let a = Analysis::of_text(text, &Options::default());
        let k = Key::of(&a);
        assert!(!k.valid);
        let d = &a.diagnostics()[k.diagnostic.unwrap()];
        let span = &text[d.span.start as usize..d.span.end as usize];
        assert!(span.contains("OpBranchConditional"), "{} at `{span}`", d.code);
        let b2 = (0..20).find(|&id| a.display_name(id) == "b2").unwrap();
        assert_eq!(k.block, Some(b2), "{}", d.code);
    }
}
