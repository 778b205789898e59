//! The operations, by family. Each family's file gives the meaning of its
//! opcodes once; the run loop ([`super::exec`]) calls them.

pub(super) mod arith;
pub(super) mod atomic;
pub(super) mod glsl;
pub(super) mod group;
pub(super) mod image;
