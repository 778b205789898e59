//! Helpers for the cross-crate tests.
