//! WGSL identifiers: OpName text made a valid identifier that is no reserved
//! word, unique in its scope.

#[cfg(test)]
use alloc::format;
use alloc::string::String;
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

/// For each ASCII first byte, the range of the [`RESERVED`] words that start
/// with it (sorted, so they are contiguous): the bisection looks only there.
const BY_FIRST_BYTE: [(u16, u16); 128] = {
    let mut t = [(0u16, 0u16); 128];
    let mut i = 0;
    while i < RESERVED.len() {
        let b = RESERVED[i].as_bytes()[0] as usize;
        if t[b].1 == 0 {
            t[b].0 = i as u16;
        }
        t[b].1 = i as u16 + 1;
        i += 1;
    }
    t
};

/// Whether `s` is a WGSL reserved word or a name we keep for ourselves.
pub fn is_reserved(s: &str) -> bool {
    // Most of our names end in a number (`x37`, `g8`): the only reserved
    // words that do start with one of these letters (`vec2`, `f32`, `log2`,
    // `quantizeToF16`).
    if let (Some(&a), Some(&z)) = (s.as_bytes().first(), s.as_bytes().last())
        && z.is_ascii_digit()
    {
        if !b"aefilmquv".contains(&a) {
            return false;
        }
        // The only ones of `v`: vec2, vec3, vec4 (our `v12` names).
        if a == b'v' {
            return matches!(s, "vec2" | "vec3" | "vec4");
        }
    }
    let Some(&(lo, hi)) = s.as_bytes().first().and_then(|&a| BY_FIRST_BYTE.get(a as usize)) else { return false };
    RESERVED[lo as usize..hi as usize].binary_search(&s).is_ok()
}

/// `raw` as a WGSL identifier: characters outside `[A-Za-z0-9_]` become `_`,
/// a leading digit gets a prefix, a `__` prefix is cut, a reserved word gets
/// a `_1` suffix. `None` when nothing usable is left.
pub fn sanitize(raw: &str) -> Option<String> {
    let mut s = String::new();
    sanitize_into(raw, &mut s).then_some(s)
}

/// [`sanitize`] appending the name to `out` (no String of its own); false,
/// with `out` unchanged, where there is none.
pub fn sanitize_into(raw: &str, out: &mut String) -> bool {
    sanitize_suffixed(raw, out).is_some()
}

/// [`sanitize_into`]: whether the name is a reserved word with `_1` added
/// (`Some(false)`: it is no reserved word), `None` where there is none.
fn sanitize_suffixed(raw: &str, out: &mut String) -> Option<bool> {
    // glslang names members and types with a `(` suffix at times (`foo(vf4;`): cut there.
    let raw = raw.split('(').next().unwrap_or("");
    let start = out.len();
    // Most names are identifiers already: copied whole, not char by char.
    if raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        out.push_str(raw);
    } else {
        out.extend(raw.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }));
    }
    // Leading underscores: one at most.
    let under = out.as_bytes()[start..].iter().take_while(|&&b| b == b'_').count();
    if under >= 2 {
        out.drain(start..start + under - 1);
    }
    let s = &out[start..];
    if s.is_empty() || s == "_" {
        out.truncate(start);
        return None;
    }
    if s.as_bytes()[0].is_ascii_digit() {
        out.insert(start, 'n');
    }
    let reserved = is_reserved(&out[start..]);
    if reserved {
        out.push_str("_1");
    }
    Some(reserved)
}

/// Append `n` in decimal (what `{n}` writes, without the formatter): the
/// disassembler's digit writer.
pub fn push_u32(s: &mut String, n: u32) {
    crate::text::dis::num::push_u64(s, u64::from(n));
}

/// Where a name lies in a text buffer: a function's value names, in its
/// [`Scope`]'s text (or in the function context's own, for expressions named by a value),
/// with no String each.
#[derive(Clone, Copy, Default, Debug)]
pub struct Name {
    pub start: u32,
    pub end: u32,
    /// In the function context's own text, not in the scope's.
    pub other: bool,
}

/// FNV-1a, for [`Scope`]'s table.
fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A scope of unique identifiers. A function's scope holds only its own
/// names and is checked together with the module's ([`Scope::fresh_under`]),
/// so that no function copies the module's names.
#[derive(Default, Debug, Clone)]
pub struct Scope {
    /// The names taken, one after another (one buffer, not a String each).
    text: String,
    /// Where each name taken ends in `text`, in order.
    ends: Vec<u32>,
    /// Open addressing over `ends` by [`hash`]: index + 1, 0 for a free
    /// slot; a power of two long, at most half full.
    table: Vec<u32>,
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
        self.fresh_with(parent, raw, |t| {
            // Writing into a String cannot fail.
            let _ = fmt::Write::write_fmt(t, fallback);
        })
    }

    /// [`Scope::fresh_under`] with the fallback `prefix` followed by `n` in decimal.
    pub fn fresh_numbered(&mut self, parent: Option<&Scope>, raw: Option<&str>, prefix: &str, n: u32) -> String {
        self.fresh_with(parent, raw, |t| {
            t.push_str(prefix);
            push_u32(t, n);
        })
    }

    /// [`Scope::fresh_numbered`] as a [`Name`] in this scope's text (no
    /// String): [`Scope::text_of`] reads it.
    pub fn fresh_name(&mut self, parent: Option<&Scope>, raw: Option<&str>, prefix: &str, n: u32) -> Name {
        let start = self.fresh_at(parent, raw, |t| {
            t.push_str(prefix);
            push_u32(t, n);
        });
        Name { start: start as u32, end: self.text.len() as u32, other: false }
    }

    /// The text of a [`Name`] this scope gave (names taken stay in place).
    pub fn text_of(&self, n: Name) -> &str {
        self.text.get(n.start as usize..n.end as usize).unwrap_or("")
    }

    fn fresh_with(&mut self, parent: Option<&Scope>, raw: Option<&str>, fallback: impl FnOnce(&mut String)) -> String {
        let start = self.fresh_at(parent, raw, fallback);
        String::from(&self.text[start..])
    }

    /// Take a fresh name, at the end of `text`; where it starts there.
    fn fresh_at(&mut self, parent: Option<&Scope>, raw: Option<&str>, fallback: impl FnOnce(&mut String)) -> usize {
        // The candidate is written at the end of `text`, past the names
        // taken (which `ends` delimits), and taken there when free: no
        // String per candidate.
        self.room();
        let start = self.text.len();
        // A sanitized name that was no reserved word is none (not tested again).
        let unreserved = match raw.and_then(|r| sanitize_suffixed(r, &mut self.text)) {
            Some(suffixed) => !suffixed,
            None => {
                fallback(&mut self.text);
                false
            }
        };
        // Each candidate hashed once, for both scopes' tables and its place.
        let in_scopes = |me: &Scope, s: &str, h: u64| me.contains_hashed(s, h) || parent.is_some_and(|p| p.contains_hashed(s, h));
        let taken = |me: &Scope, s: &str, h: u64| in_scopes(me, s, h) || is_reserved(s);
        let mut h = hash(&self.text[start..]);
        let first_taken = if unreserved { in_scopes(self, &self.text[start..], h) } else { taken(self, &self.text[start..], h) };
        if first_taken {
            let base = self.text.len();
            let mut k = 1u32;
            loop {
                self.text.truncate(base);
                self.text.push('_');
                push_u32(&mut self.text, k);
                h = hash(&self.text[start..]);
                if !taken(self, &self.text[start..], h) {
                    break;
                }
                k += 1;
            }
        }
        // Not taken, so not in this scope.
        self.grow_for_one();
        self.ends.push(self.text.len() as u32);
        self.place_hashed(self.ends.len() - 1, h);
        start
    }

    /// Name `e` (0-based) of those taken one by one.
    fn name(&self, e: usize) -> &str {
        let start = if e == 0 { 0 } else { self.ends[e - 1] as usize };
        &self.text[start..self.ends[e] as usize]
    }

    /// Whether `s` is one of the names taken one by one.
    fn has(&self, s: &str) -> bool {
        self.has_hashed(s, hash(s))
    }

    /// [`Scope::has`] of `s` whose [`hash`] is `h`.
    fn has_hashed(&self, s: &str, h: u64) -> bool {
        let mask = self.table.len().wrapping_sub(1);
        let mut k = h as usize;
        for _ in 0..self.table.len() {
            k &= mask;
            match self.table[k] {
                0 => return false,
                e if self.name(e as usize - 1) == s => return true,
                _ => k += 1,
            }
        }
        false
    }

    fn insert(&mut self, s: &str) {
        if !self.has(s) {
            self.insert_new(s);
        }
    }

    /// The buffers' first room, once (not grown name by name).
    fn room(&mut self) {
        if self.text.capacity() == 0 {
            self.text.reserve(256);
            self.ends.reserve(32);
        }
    }

    /// Take `s`, which is not taken yet.
    fn insert_new(&mut self, s: &str) {
        self.room();
        self.grow_for_one();
        self.text.push_str(s);
        self.ends.push(self.text.len() as u32);
        self.place(self.ends.len() - 1);
    }

    /// Room in the table for one more name (`text` past the names taken
    /// is not read).
    fn grow_for_one(&mut self) {
        if (self.ends.len() + 1) * 2 > self.table.len() {
            let len = (self.table.len() * 2).max(64);
            self.table = alloc::vec![0; len];
            for e in 0..self.ends.len() {
                self.place(e);
            }
        }
    }

    /// Put name `e` in the table (which has room).
    fn place(&mut self, e: usize) {
        self.place_hashed(e, hash(self.name(e)));
    }

    /// [`Scope::place`] of name `e`, whose [`hash`] is `h`.
    fn place_hashed(&mut self, e: usize, h: u64) {
        let mask = self.table.len() - 1;
        let mut k = h as usize & mask;
        while self.table[k] != 0 {
            k = (k + 1) & mask;
        }
        self.table[k] = e as u32 + 1;
    }

    /// Whether `s` is taken.
    pub fn contains(&self, s: &str) -> bool {
        self.contains_hashed(s, hash(s))
    }

    /// [`Scope::contains`] of `s` whose [`hash`] is `h`.
    fn contains_hashed(&self, s: &str, h: u64) -> bool {
        self.has_hashed(s, h)
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
        self.insert(s);
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
    // Each word is found in its first byte's range, and only there.
    for w in RESERVED {
        assert!(is_reserved(w), "{w}");
        let mut other = String::from(*w);
        other.push('x');
        assert_eq!(is_reserved(&other), RESERVED.contains(&other.as_str()), "{other}");
    }
    // `is_reserved`'s shortcut for names ending in a digit.
    for r in RESERVED.iter().filter(|r| r.as_bytes().last().is_some_and(u8::is_ascii_digit)) {
        assert!(b"aefilmquv".contains(&r.as_bytes()[0]) && is_reserved(r), "{r}");
    }
    assert!(is_reserved("vec4") && is_reserved("atan2") && !is_reserved("x37") && !is_reserved("vec5"));
    // Of `v`, only the vectors end in a digit (the `v12` shortcut).
    for r in RESERVED.iter().filter(|r| r.starts_with('v') && r.as_bytes().last().is_some_and(u8::is_ascii_digit)) {
        assert!(matches!(*r, "vec2" | "vec3" | "vec4"), "{r}");
    }
    assert!(!is_reserved("v12") && !is_reserved("vec12") && is_reserved("vec3"));
    // Decimal digits, as `{n}` writes them.
    for n in [0, 7, 10, 99, 100, 4096, 999_999_999, 1_000_000_000, u32::MAX] {
        let mut s = alloc::string::String::from("x");
        push_u32(&mut s, n);
        assert_eq!(s, alloc::format!("x{n}"));
    }
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
    // Many names: the table grows and still finds each, once.
    let mut h = Scope::default();
    for k in 0..200 {
        assert_eq!(h.fresh(None, &format!("n{}", k % 100)), if k < 100 { format!("n{k}") } else { format!("n{}_1", k % 100) });
    }
    assert!((0..100).all(|k| h.contains(&format!("n{k}")) && h.contains(&format!("n{k}_1"))) && !h.contains("n100"));
    for n in [0, 7, 10, 99, 4_294_967_295, 1_000_000] {
        let mut s = String::from("x");
        push_u32(&mut s, n);
        assert_eq!(s, format!("x{n}"));
    }
    assert_eq!(h.fresh_numbered(None, None, "n", 5), "n5_2");
}
