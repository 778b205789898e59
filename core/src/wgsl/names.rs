//! WGSL identifiers: OpName text made a valid identifier that is no reserved
//! word, unique in its scope.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;

/// WGSL's keywords and reserved words (WGSL spec, "Keyword Summary" and
/// "Reserved Words"), and the predeclared names we must not shadow.
const RESERVED: &[&str] = &[
    "alias", "break", "case", "const", "const_assert", "continue", "continuing", "default", "diagnostic",
    "discard", "else", "enable", "false", "fn", "for", "if", "let", "loop", "override", "requires", "return",
    "struct", "switch", "true", "var", "while", "NULL", "Self", "abstract", "active", "alignas", "alignof",
    "as", "asm", "asm_fragment", "async", "attribute", "auto", "await", "become", "cast", "catch", "class",
    "co_await", "co_return", "co_yield", "coherent", "column_major", "common", "compile",
    "compile_fragment", "concept", "const_cast", "consteval", "constexpr", "constinit", "crate", "debugger",
    "decltype", "delete", "demote", "demote_to_helper", "do", "dynamic_cast", "enum", "explicit", "export",
    "extends", "extern", "external", "fallthrough", "filter", "final", "finally", "friend", "from", "fxgroup",
    "get", "goto", "groupshared", "highp", "impl", "implements", "import", "inline", "instanceof",
    "interface", "layout", "lowp", "macro", "macro_rules", "match", "mediump", "meta", "mod", "module",
    "move", "mut", "mutable", "namespace", "new", "nil", "noexcept", "noinline", "nointerpolation",
    "non_coherent", "noncoherent", "noperspective", "null", "nullptr", "of", "operator", "package",
    "packoffset", "partition", "pass", "patch", "pixelfragment", "precise", "precision", "premerge", "priv",
    "protected", "pub", "public", "readonly", "ref", "regardless", "register", "reinterpret_cast", "require",
    "resource", "restrict", "self", "set", "shared", "sizeof", "smooth", "snorm", "static", "static_assert",
    "static_cast", "std", "subroutine", "super", "target", "template", "this", "thread_local", "throw",
    "trait", "try", "type", "typedef", "typeid", "typename", "typeof", "union", "unless", "unorm", "unsafe",
    "unsized", "use", "using", "varying", "virtual", "volatile", "wgsl", "where", "with", "writeonly",
    "yield", "_",
    // Predeclared types, type generators and built-in functions that our
    // output calls or names (shadowing them is legal WGSL but breaks our own uses).
    "bool", "i32", "u32", "f32", "f16", "vec2", "vec3", "vec4", "mat2x2", "mat2x3", "mat2x4", "mat3x2",
    "mat3x3", "mat3x4", "mat4x2", "mat4x3", "mat4x4", "array", "atomic", "ptr", "sampler", "function",
    "private", "workgroup", "uniform", "storage", "read", "write", "read_write", "bitcast", "select", "abs",
    "acos", "acosh", "all", "any", "arrayLength", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "clamp",
    "cos", "cosh", "countLeadingZeros", "countOneBits", "countTrailingZeros", "cross", "degrees",
    "determinant", "distance", "dot", "exp", "exp2", "extractBits", "faceForward", "firstLeadingBit",
    "firstTrailingBit", "floor", "fma", "fract", "frexp", "insertBits", "inverseSqrt", "ldexp", "length",
    "log", "log2", "max", "min", "mix", "modf", "normalize", "pow", "quantizeToF16", "radians", "reflect",
    "refract", "reverseBits", "round", "saturate", "sign", "sin", "sinh", "smoothstep", "sqrt", "step",
    "tan", "tanh", "transpose", "trunc", "atomicLoad", "atomicStore", "atomicAdd", "atomicSub",
    "atomicMax", "atomicMin", "atomicAnd", "atomicOr", "atomicXor", "atomicExchange",
    "atomicCompareExchangeWeak", "workgroupBarrier", "storageBarrier", "pack4x8snorm", "pack4x8unorm",
    "pack2x16snorm", "pack2x16unorm", "pack2x16float", "unpack4x8snorm", "unpack4x8unorm",
    "unpack2x16snorm", "unpack2x16unorm", "unpack2x16float", "dpdx", "dpdy", "fwidth", "dpdxCoarse",
    "dpdyCoarse", "dpdxFine", "dpdyFine", "fwidthCoarse", "fwidthFine",
];

/// Whether `s` is a WGSL reserved word or a name we keep for ourselves.
pub fn is_reserved(s: &str) -> bool {
    RESERVED.contains(&s)
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

/// A scope of unique identifiers.
#[derive(Default, Debug, Clone)]
pub struct Scope {
    used: BTreeSet<String>,
}

impl Scope {
    /// A unique identifier from `raw` (an OpName, maybe) or else `fallback`.
    pub fn fresh(&mut self, raw: Option<&str>, fallback: &str) -> String {
        let base = raw.and_then(sanitize).unwrap_or_else(|| String::from(fallback));
        let mut s = base.clone();
        let mut k = 1;
        while self.used.contains(&s) || is_reserved(&s) {
            s = format!("{base}_{k}");
            k += 1;
        }
        self.used.insert(s.clone());
        s
    }

    /// Whether `s` is taken.
    pub fn contains(&self, s: &str) -> bool {
        self.used.contains(s)
    }

    /// Take `s` as is (our own generated names).
    pub fn take(&mut self, s: &str) {
        self.used.insert(String::from(s));
    }
}
