use super::Context;
use super::rules::Rule;

pub(super) static RULES: &[Rule] = &[];

pub(super) fn check(_cx: &mut Context<'_>) {}
