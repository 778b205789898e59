use crate::valid::Context;
use crate::valid::rules::Rule;

pub(in crate::valid) static RULES: &[Rule] = &[];

pub(in crate::valid) fn check(_cx: &mut Context<'_>) {}
