use super::*;
use crate::analysis::Analysis;
use crate::analysis::report::tests::LOOP;
use alloc::string::ToString;

/// A minimal DOT reader: tokens outside quoted strings; counts node
/// statements (`bN [` not after `->`), edges (`->`), clusters, and returns
/// the unescaped quoted strings.
struct Parsed {
    nodes: usize,
    edges: usize,
    clusters: usize,
    strings: Vec<String>,
    balanced: bool,
}

fn parse(dot: &str) -> Parsed {
    let mut toks: Vec<String> = Vec::new();
    let mut strings = Vec::new();
    let b = dot.as_bytes();
    let mut i = 0;
    let mut depth = 0i32;
    let mut balanced = true;
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            let mut s = String::new();
            i += 1;
            let mut closed = false;
            while i < b.len() {
                match b[i] {
                    b'\\' if i + 1 < b.len() => {
                        s.push('\\');
                        s.push(b[i + 1] as char);
                        i += 2;
                    }
                    b'"' => {
                        closed = true;
                        i += 1;
                        break;
                    }
                    _ => {
                        let ch = dot[i..].chars().next().unwrap();
                        s.push(ch);
                        i += ch.len_utf8();
                    }
                }
            }
            assert!(closed, "unterminated string");
            strings.push(s);
            toks.push("\"".into());
        } else if c == b'-' && b.get(i + 1) == Some(&b'>') {
            toks.push("->".into());
            i += 2;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
            toks.push(dot[st..i].to_string());
        } else {
            if c == b'{' {
                depth += 1;
            }
            if c == b'}' {
                depth -= 1;
                balanced &= depth >= 0;
            }
            if !c.is_ascii_whitespace() {
                toks.push((c as char).to_string());
            }
            i += 1;
        }
    }
    balanced &= depth == 0;
    let mut nodes = 0;
    let mut edges = 0;
    let mut clusters = 0;
    for k in 0..toks.len() {
        let t = &toks[k];
        if t == "->" {
            edges += 1;
        } else if t.starts_with('b')
            && t[1..].chars().all(|c| c.is_ascii_digit())
            && t.len() > 1
            && toks.get(k + 1).is_some_and(|n| n == "[")
            && (k == 0 || toks[k - 1] != "->")
        {
            nodes += 1;
        } else if t.starts_with("cluster_") {
            clusters += 1;
        }
    }
    Parsed { nodes, edges, clusters, strings, balanced }
}

const HOSTILE: &[&str] = &["<script>alert(1)</script>", "</text>", "a\"b", "back\\slash\\N", "\"]; a -> b [", "line\nbreak", "&lt;b&gt;"];

/// Labels that name every block with a hostile string (and its listing too).
struct Hostile;

impl Labels for Hostile {
    fn name(&self, id: u32) -> String {
        HOSTILE[id as usize % HOSTILE.len()].to_string()
    }
    fn inst(&self, i: usize) -> &str {
        HOSTILE[i % HOSTILE.len()]
    }
}

/// A chain of blocks, the middle three inside a loop.
fn chain() -> crate::cfg::FunctionCfg {
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
        OpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n%bool = OpTypeBool\n%t = OpConstantTrue %bool\n\
        %fn = OpTypeFunction %void\n%main = OpFunction %void None %fn\n%a = OpLabel\nOpBranch %h\n\
        %h = OpLabel\nOpLoopMerge %m %c None\nOpBranch %b\n%b = OpLabel\nOpBranch %c\n\
        %c = OpLabel\nOpBranchConditional %t %h %m\n%m = OpLabel\nOpBranch %x\n%x = OpLabel\nOpBranch %y\n\
        %y = OpLabel\nOpReturn\nOpFunctionEnd\n";
    let a = crate::analysis::Analysis::of_text(text, &Default::default());
    assert!(a.is_valid(), "{:?}", a.diagnostics());
    a.cfg().functions[0].clone()
}

#[test]
fn hostile_names_stay_inside_strings() {
    let f = chain();
    let n = f.blocks.len();
    for listing in [false, true] {
        let opts = DotOptions { listing, dominators: Dominators::Structural, ..Default::default() };
        let dot = to_dot(&f, &Hostile, &opts);
        let p = parse(&dot);
        assert!(p.balanced, "{dot}");
        assert_eq!(p.nodes, n, "{dot}");
        // Branch, merge and continue edges, and the dominator overlay.
        assert_eq!(p.edges, f.edges.len() + n - 1, "{dot}");
        assert_eq!(p.clusters, f.constructs().len(), "{dot}");
        // Every name is in some label, escaped.
        for name in HOSTILE {
            let esc = escape(name);
            assert!(p.strings.iter().any(|s| s.contains(&esc)), "{name:?} missing in {dot}");
        }
        // Names never reach ids or classes.
        for line in dot.lines() {
            for key in ["id=\"", "class=\""] {
                if let Some(at) = line.find(key) {
                    let rest = &line[at + key.len()..];
                    let v = &rest[..rest.find('"').unwrap()];
                    assert!(v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ' '), "{v}");
                }
            }
        }
        assert!(!dot.contains('<') || !dot.contains("label=<"), "no HTML-like labels");
    }
}

#[test]
fn escaping() {
    assert_eq!(escape("a\"b\\c\nd&e"), "a\\\"b\\\\c\\nd&amp;e");
}

/// The drawing of function 0 of `a`.
fn draw(a: &Analysis, opts: &DotOptions) -> String {
    a.dot(None, opts).unwrap()
}

#[test]
fn loop_drawing() {
    let a = Analysis::of_text(LOOP, &Default::default());
    let f = &a.cfg().functions[0];
    let dot = draw(&a, &DotOptions::default());
    let p = parse(&dot);
    assert!(p.balanced);
    assert_eq!(p.nodes, 5);
    assert_eq!(p.edges, f.edges.len());
    assert_eq!(dot.matches("style=dashed").count(), 1, "{dot}");
    assert_eq!(dot.matches("style=dotted").count(), 1, "{dot}");
    assert_eq!(dot.matches("label=\"back\"").count(), 1, "{dot}");
    assert_eq!(p.clusters, f.constructs().len());
    assert!(dot.contains("label=\"loop %header\""), "{dot}");
    let e = f.blocks[0].label;
    assert!(dot.contains(&alloc::format!("b{e} [id=\"block-{e}\" class=\"block entry\"")), "{dot}");
    // Dominator overlay: one edge per block but the root.
    let d = draw(&a, &DotOptions { dominators: Dominators::Structural, ..Default::default() });
    assert_eq!(d.matches("constraint=false").count(), 4);
    // Selection highlights the block and its constructs.
    let cont = f.blocks[3].label;
    let s = draw(&a, &DotOptions { selected: Some(cont), ..Default::default() });
    assert!(s.contains("class=\"block selected\""), "{s}");
    assert!(s.contains("class=\"construct continue selected\""), "{s}");
    assert!(s.contains("class=\"construct loop\""), "{s}");
    // Without constructs: no clusters.
    let n = draw(&a, &DotOptions { constructs: false, ..Default::default() });
    assert_eq!(parse(&n).clusters, 0);
    // The listing: each block's instructions as the disassembly prints them,
    // with the text's names.
    let l = draw(&a, &DotOptions { listing: true, ..Default::default() });
    assert!(l.contains("label=\"%header = OpLabel\\lOpLoopMerge %merge %cont None\\lOpBranchConditional %true %body %merge\\l\""), "{l}");
    assert_eq!(a.dot(Some(999), &DotOptions::default()), None);
}

#[test]
fn hide_unreachable() {
    let text = LOOP.replace("%merge = OpLabel\nOpReturn\n", "%merge = OpLabel\nOpReturn\n%dead = OpLabel\nOpBranch %merge\n");
    let a = Analysis::of_text(&text, &Default::default());
    let f = &a.cfg().functions[0];
    assert_eq!(f.blocks.len(), 6);
    assert_eq!(parse(&draw(&a, &DotOptions::default())).nodes, 6);
    let h = draw(&a, &DotOptions { hide_unreachable: true, ..Default::default() });
    assert_eq!(parse(&h).nodes, 5);
    assert_eq!(parse(&h).edges, f.edges.len() - 1);
}
