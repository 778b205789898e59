//! The rules the validator checks, by diagnostic code: a one-line summary and an
//! explanation of what the spec requires and why, for people (the page shows it
//! beside the selected problem).

/// One rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The stable diagnostic code, e.g. `cfg.merge-not-structurally-dominated`.
    pub code: &'static str,
    /// What the rule says, in one line.
    pub summary: &'static str,
    /// What the spec requires, why, and where it says so.
    pub explanation: &'static str,
}

/// Rules that belong to no family.
pub(super) static GENERAL: &[Rule] = &[Rule {
    code: "val.binary",
    summary: "The binary must be well formed.",
    explanation: "Every instruction's operands must fit the grammar of its opcode: the right \
                  number of words, known enumerants, terminated strings, and result ids \
                  below the id bound of the header, each defined once.",
}];

/// The rule with this code.
pub fn rule(code: &str) -> Option<&'static Rule> {
    all().find(|r| r.code == code)
}

/// Every rule, for listings and for checking the tables.
pub fn all() -> impl Iterator<Item = &'static Rule> {
    super::FAMILIES.iter().flat_map(|f| f.rules.iter())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeSet;

    #[test]
    fn codes_are_unique_and_explained() {
        let mut seen = BTreeSet::new();
        for r in all() {
            assert!(seen.insert(r.code), "duplicate rule code {}", r.code);
            assert!(r.code.contains('.'), "{}: codes are family.name", r.code);
            assert!(!r.summary.is_empty() && !r.explanation.is_empty(), "{}", r.code);
        }
        assert!(rule("val.binary").is_some());
    }
}
