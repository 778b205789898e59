//! Fleshing (the paper's section 6): structured CFGs, generated at random or
//! taken from a module, turned into runnable compute shaders whose expected
//! output is known by construction: the path they take.
//!
//! - [`mod@generate`] draws random structured CFG skeletons (seeded, deterministic),
//!   with the paper's shape constraints as [`Knobs`], and near-miss mutants;
//! - [`Skeleton::of_function`] takes the skeleton of a function of a valid
//!   module;
//! - [`path`] chooses a path from the entry to an exit and the directions
//!   that force it;
//! - [`program`] writes the fleshed program and its oracle ([`flesh`]);
//! - [`quiz`] makes the page's quiz questions and reads their answer key
//!   from the validator;
//! - [`mod@batch`] puts many fleshed programs in one module and one dispatch;
//! - [`mod@reduce`] shrinks a finding while a backend still goes wrong on it;
//! - [`shape`] names the structural traits that sort reduced findings into
//!   classes.

pub mod batch;
pub mod generate;
pub mod path;
pub mod program;
pub mod quiz;
pub mod reduce;
pub mod rng;
pub mod shape;
pub mod skeleton;
#[cfg(test)]
mod tests;

pub use batch::{Batch, Member, batch};
pub use generate::{Config, Knobs, generate, meets, mutate};
pub use path::Path;
pub use program::{FleshError, Fleshed, Mode, Options, flesh, flesh_paths};
pub use reduce::{Case, Reduced, reduce};
pub use rng::Rng;
pub use skeleton::{Block, Label, Merge, Skeleton, SkeletonError, Term};
