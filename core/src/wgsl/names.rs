//! WGSL identifiers: OpName text made a valid identifier that is no reserved
//! word, unique in its scope.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

/// WGSL's keywords and reserved words (WGSL spec, "Keyword Summary" and
/// "Reserved Words"), and the predeclared names we must not shadow.
///
/// Sorted (byte order): `is_reserved` searches it by bisection.
const RESERVED: &[&str] = &[
    "NULL", "Self", "_", "abs", "abstract", "acos", "acosh", "active", "alias", "alignas", "alignof", "all",
    "any", "array", "arrayLength", "as", "asin", "asinh", "asm", "asm_fragment", "async", "atan", "atan2",
    "atanh", "atomic", "atomicAdd", "atomicAnd", "atomicCompareExchangeWeak", "atomicExchange", "atomicLoad",
    "atomicMax", "atomicMin", "atomicOr", "atomicStore", "atomicSub", "atomicXor", "attribute", "auto",
    "await", "become", "bitcast", "bool", "break", "case", "cast", "catch", "ceil", "clamp", "class",
    "co_await", "co_return", "co_yield", "coherent", "column_major", "common", "compile", "compile_fragment",
    "concept", "const", "const_assert", "const_cast", "consteval", "constexpr", "constinit", "continue",
    "continuing", "cos", "cosh", "countLeadingZeros", "countOneBits", "countTrailingZeros", "crate", "cross",
    "debugger", "decltype", "default", "degrees", "delete", "demote", "demote_to_helper", "determinant",
    "diagnostic", "discard", "distance", "do", "dot", "dpdx", "dpdxCoarse", "dpdxFine", "dpdy", "dpdyCoarse",
    "dpdyFine", "dynamic_cast", "else", "enable", "enum", "exp", "exp2", "explicit", "export", "extends",
    "extern", "external", "extractBits", "f16", "f32", "faceForward", "fallthrough", "false", "filter",
    "final", "finally", "firstLeadingBit", "firstTrailingBit", "floor", "fma", "fn", "for", "fract", "frexp",
    "friend", "from", "function", "fwidth", "fwidthCoarse", "fwidthFine", "fxgroup", "get", "goto",
    "groupshared", "highp", "i32", "if", "impl", "implements", "import", "inline", "insertBits", "instanceof",
    "interface", "inverseSqrt", "layout", "ldexp", "length", "let", "log", "log2", "loop", "lowp", "macro",
    "macro_rules", "mat2x2", "mat2x3", "mat2x4", "mat3x2", "mat3x3", "mat3x4", "mat4x2", "mat4x3", "mat4x4",
    "match", "max", "mediump", "meta", "min", "mix", "mod", "modf", "module", "move", "mut", "mutable",
    "namespace", "new", "nil", "noexcept", "noinline", "nointerpolation", "non_coherent", "noncoherent",
    "noperspective", "normalize", "null", "nullptr", "of", "operator", "override", "pack2x16float",
    "pack2x16snorm", "pack2x16unorm", "pack4x8snorm", "pack4x8unorm", "package", "packoffset", "partition",
    "pass", "patch", "pixelfragment", "pow", "precise", "precision", "premerge", "priv", "private",
    "protected", "ptr", "pub", "public", "quantizeToF16", "radians", "read", "read_write", "readonly", "ref",
    "reflect", "refract", "regardless", "register", "reinterpret_cast", "require", "requires", "resource",
    "restrict", "return", "reverseBits", "round", "sampler", "saturate", "select", "self", "set", "shared",
    "sign", "sin", "sinh", "sizeof", "smooth", "smoothstep", "snorm", "sqrt", "static", "static_assert",
    "static_cast", "std", "step", "storage", "storageBarrier", "struct", "subroutine", "super", "switch",
    "tan", "tanh", "target", "template", "this", "thread_local", "throw", "trait", "transpose", "true",
    "trunc", "try", "type", "typedef", "typeid", "typename", "typeof", "u32", "uniform", "union", "unless",
    "unorm", "unpack2x16float", "unpack2x16snorm", "unpack2x16unorm", "unpack4x8snorm", "unpack4x8unorm",
    "unsafe", "unsized", "use", "using", "var", "varying", "vec2", "vec3", "vec4", "virtual", "volatile",
    "wgsl", "where", "while", "with", "workgroup", "workgroupBarrier", "write", "writeonly", "yield",
];

/// Whether `s` is a WGSL reserved word or a name we keep for ourselves.
pub fn is_reserved(s: &str) -> bool {
    RESERVED.binary_search(&s).is_ok()
}

/// `raw` as a WGSL identifier: characters outside `[A-Za-z0-9_]` become `_`,
/// a leading digit gets a prefix, a `__` prefix is cut, a reserved word gets
/// a `_1` suffix. `None` when nothing usable is left.
pub fn sanitize(raw: &str) -> Option<String> {
    // glslang names members and types with a `(` suffix at times (`foo(vf4;`): cut there.
    let raw = raw.split('(').next().unwrap_or("");
    let mut s: String = raw.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    while s.starts_with("__") {
        s.remove(0);
    }
    if s.is_empty() || s == "_" {
        return None;
    }
    if s.as_bytes()[0].is_ascii_digit() {
        s.insert(0, 'n');
    }
    if is_reserved(&s) {
        s.push_str("_1");
    }
    Some(s)
}

/// A scope of unique identifiers. A function's scope holds only its own
/// names and is checked together with the module's ([`Scope::fresh_under`]),
/// so that no function copies the module's names.
#[derive(Default, Debug, Clone)]
pub struct Scope {
    used: BTreeSet<String>,
    /// Families of names taken without storing them: `prefix` followed by a
    /// decimal number below the bound, written without leading zeros
    /// (`p0`..`p63`).
    numbered: Vec<(&'static str, u32)>,
}

impl Scope {
    /// A unique identifier from `raw` (an OpName, maybe) or else `fallback`.
    pub fn fresh(&mut self, raw: Option<&str>, fallback: &str) -> String {
        self.fresh_under(None, raw, format_args!("{fallback}"))
    }

    /// A unique identifier from `raw` or else `fallback` (formatted only when
    /// needed), unique in this scope and in `parent`.
    pub fn fresh_under(&mut self, parent: Option<&Scope>, raw: Option<&str>, fallback: fmt::Arguments) -> String {
        let base = raw.and_then(sanitize).unwrap_or_else(|| fallback.to_string());
        let taken = |s: &str| self.contains(s) || parent.is_some_and(|p| p.contains(s)) || is_reserved(s);
        let s = if taken(&base) {
            let mut k = 1;
            loop {
                let s = format!("{base}_{k}");
                if !taken(&s) {
                    break s;
                }
                k += 1;
            }
        } else {
            base
        };
        self.used.insert(s.clone());
        s
    }

    /// Whether `s` is taken.
    pub fn contains(&self, s: &str) -> bool {
        self.used.contains(s)
            || self.numbered.iter().any(|&(p, n)| {
                s.strip_prefix(p).is_some_and(|d| {
                    !d.is_empty()
                        && d.len() <= 10
                        && d.bytes().all(|b| b.is_ascii_digit())
                        && (d == "0" || !d.starts_with('0'))
                        && d.parse::<u64>().is_ok_and(|v| v < u64::from(n))
                })
            })
    }

    /// Take `s` as is (our own generated names).
    pub fn take(&mut self, s: &str) {
        self.used.insert(String::from(s));
    }

    /// Take `prefix0` .. `prefix{n-1}` (our own generated names).
    pub fn take_numbered(&mut self, prefix: &'static str, n: u32) {
        self.numbered.push((prefix, n));
    }
}

#[cfg(test)]
#[test]
fn reserved_words_are_sorted_for_the_bisection() {
    assert!(RESERVED.windows(2).all(|w| w[0] < w[1]));
    assert!(is_reserved("loop") && is_reserved("fwidthFine") && is_reserved("alias") && !is_reserved("loops"));
}

#[cfg(test)]
#[test]
fn numbered_names_are_taken_and_scopes_nest() {
    let mut g = Scope::default();
    g.take_numbered("p", 64);
    assert!(g.contains("p0") && g.contains("p63") && !g.contains("p64") && !g.contains("p01") && !g.contains("p"));
    assert_eq!(g.fresh(Some("p3"), "x"), "p3_1");
    let mut f = Scope::default();
    assert_eq!(f.fresh_under(Some(&g), Some("p3_1"), format_args!("y")), "p3_1_1");
    assert_eq!(f.fresh_under(Some(&g), None, format_args!("x{}", 7)), "x7");
    assert_eq!(f.fresh_under(Some(&g), None, format_args!("x{}", 7)), "x7_1");
    assert!(!g.contains("x7"));
}
