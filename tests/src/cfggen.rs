//! The random structured control flow of the validator tests: core's seeded
//! generator (`spvlab_core::flesh`), one valid function or near-miss mutant
//! per case. See `spvlab_core::flesh::generate` for what it makes and
//! `spvlab_core::flesh::mutate` for the mutations; the reference decides
//! whether a mutant is valid.

pub use spvlab_core::flesh::{Block, Config, Label, Merge, Rng, Skeleton, Term};
use spvlab_core::flesh;

/// The `i`-th module of a run seeded with `seed`: a valid function, or (about
/// half the time) a near-miss mutant of one. Returns the text and its kind
/// (`valid` or the mutation).
pub fn case(seed: u64, i: u64) -> (String, &'static str) {
    let mut rng = Rng::new(seed.wrapping_mul(0x1000_0000_01b3) ^ i);
    let cfg = Config {
        blocks: 4 + rng.below(40),
        max_depth: 2 + rng.below(6),
        dead_blocks: rng.below(3),
        fill: false,
        knobs: Default::default(),
    };
    let f = flesh::generate::generate_with(&mut rng, cfg);
    if rng.chance(50) {
        (f.module_text(), "valid")
    } else {
        let (m, kind) = flesh::mutate(&f, &mut rng);
        (m.module_text(), kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic() {
        assert_eq!(case(1, 7), case(1, 7));
        assert_ne!(case(1, 7), case(1, 8));
    }

    #[test]
    fn fill_reaches_the_budget() {
        let mut rng = Rng::new(5);
        let cfg = Config { blocks: 5000, max_depth: 40, dead_blocks: 0, fill: true, ..Config::default() };
        let f = flesh::generate::generate_with(&mut rng, cfg);
        assert!(f.blocks.len() >= 5000, "{} blocks", f.blocks.len());
    }
}
