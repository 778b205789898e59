//! Unit tests of the writer's small parts (the constructs are tested with
//! naga in tests/tests/wgsl_emit.rs).

use super::literal::f16_to_f32;
use super::names::{Scope, is_reserved, sanitize};
use super::refuse::RefusalCode;

#[test]
fn names_are_sanitized() {
    assert_eq!(sanitize("main").as_deref(), Some("main"));
    assert_eq!(sanitize("var").as_deref(), Some("var_1"));
    assert_eq!(sanitize("__x").as_deref(), Some("_x"));
    assert_eq!(sanitize("1abc").as_deref(), Some("n1abc"));
    assert_eq!(sanitize("a b.c").as_deref(), Some("a_b_c"));
    // glslang's mangled function names: the parameter list is cut.
    assert_eq!(sanitize("f(vf4;i1;").as_deref(), Some("f"));
    assert_eq!(sanitize(""), None);
    assert_eq!(sanitize("_"), None);
    assert!(is_reserved("loop") && is_reserved("bitcast") && !is_reserved("data"));
}

#[test]
fn scopes_make_names_unique() {
    let mut s = Scope::default();
    assert_eq!(s.fresh(Some("x"), "v1"), "x");
    assert_eq!(s.fresh(Some("x"), "v2"), "x_1");
    assert_eq!(s.fresh(None, "v3"), "v3");
    assert_eq!(s.fresh(Some("%%"), "v4"), "v4");
    assert_eq!(s.fresh(Some("x_1"), "v5"), "x_1_1");
}

#[test]
fn halves_decode() {
    assert_eq!(f16_to_f32(0x3c00), 1.0);
    assert_eq!(f16_to_f32(0xc000), -2.0);
    assert_eq!(f16_to_f32(0x7bff), 65504.0);
    assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
    assert!(f16_to_f32(0x7c00).is_infinite());
    assert!(f16_to_f32(0x7e00).is_nan());
}

#[test]
fn every_refusal_code_has_a_reason() {
    let all = RefusalCode::ALL;
    for (k, code) in all.iter().enumerate() {
        assert!(code.as_str().starts_with("wgsl.") && !code.why().is_empty(), "{code:?}");
        assert!(all[..k].iter().all(|c| c.as_str() != code.as_str()), "{code} twice");
    }
}
