use super::*;
use crate::report::{self, CfgBlock, CfgConstruct, CfgConstructKind, CfgEdge};
use crate::TargetEnv;
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

fn hostile_function() -> FunctionCfg {
    let mut blocks = Vec::new();
    for (k, name) in HOSTILE.iter().enumerate() {
        blocks.push(CfgBlock {
            id: 10 + k as u32,
            name: name.to_string(),
            listing: alloc::vec![alloc::format!("OpName %x \"{name}\""), name.to_string()],
            entry: k == 0,
            exit: k + 1 == HOSTILE.len(),
            reachable: true,
            structurally_reachable: true,
            innermost: if k > 0 && k < 4 { Some(0) } else { None },
            ..Default::default()
        });
    }
    let edges = (0..HOSTILE.len() as u32 - 1)
        .map(|k| CfgEdge { from: 10 + k, to: 11 + k, kind: if k == 1 { CfgEdgeKind::Merge } else { CfgEdgeKind::Branch }, back: false })
        .collect();
    FunctionCfg {
        id: 1,
        name: "\"]; x -> y [".into(),
        blocks,
        edges,
        constructs: alloc::vec![CfgConstruct { kind: CfgConstructKind::Loop, header: 11, blocks: alloc::vec![11, 12, 13], parent: None }],
    }
}

#[test]
fn hostile_names_stay_inside_strings() {
    let f = hostile_function();
    for listing in [false, true] {
        let opts = DotOptions { listing, dominators: Dominators::None, ..Default::default() };
        let dot = to_dot(&f, &opts);
        let p = parse(&dot);
        assert!(p.balanced, "{dot}");
        assert_eq!(p.nodes, HOSTILE.len(), "{dot}");
        assert_eq!(p.edges, HOSTILE.len() - 1, "{dot}");
        assert_eq!(p.clusters, 1, "{dot}");
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

#[test]
fn loop_drawing_from_the_report() {
    let r = report::analyze(crate::report::tests::LOOP, TargetEnv::default());
    let f = &r.functions[0];
    let dot = to_dot(f, &DotOptions::default());
    let p = parse(&dot);
    assert!(p.balanced);
    assert_eq!(p.nodes, 5);
    assert_eq!(p.edges, f.edges.len());
    assert_eq!(dot.matches("style=dashed").count(), 1, "{dot}");
    assert_eq!(dot.matches("style=dotted").count(), 1, "{dot}");
    assert_eq!(dot.matches("label=\"back\"").count(), 1, "{dot}");
    assert_eq!(p.clusters, f.constructs.len());
    assert!(dot.contains("label=\"loop %header\""), "{dot}");
    let e = f.blocks[0].id;
    assert!(dot.contains(&alloc::format!("b{e} [id=\"block-{e}\" class=\"block entry\"")), "{dot}");
    // Dominator overlay: one edge per block but the root.
    let d = to_dot(f, &DotOptions { dominators: Dominators::Structural, ..Default::default() });
    assert_eq!(d.matches("constraint=false").count(), 4);
    // Selection highlights the block and its constructs.
    let cont = f.blocks[3].id;
    let s = to_dot(f, &DotOptions { selected: Some(cont), ..Default::default() });
    assert!(s.contains("class=\"block selected\""), "{s}");
    assert!(s.contains("class=\"construct continue selected\""), "{s}");
    assert!(s.contains("class=\"construct loop\""), "{s}");
    // Without constructs: no clusters.
    let n = to_dot(f, &DotOptions { constructs: false, ..Default::default() });
    assert_eq!(parse(&n).clusters, 0);
}

#[test]
fn hide_unreachable() {
    let text = crate::report::tests::LOOP.replace("%merge = OpLabel\nOpReturn\n", "%merge = OpLabel\nOpReturn\n%dead = OpLabel\nOpBranch %merge\n");
    let r = report::analyze(&text, TargetEnv::default());
    let f = &r.functions[0];
    assert_eq!(f.blocks.len(), 6);
    assert_eq!(parse(&to_dot(f, &DotOptions::default())).nodes, 6);
    let h = to_dot(f, &DotOptions { hide_unreachable: true, ..Default::default() });
    assert_eq!(parse(&h).nodes, 5);
    assert_eq!(parse(&h).edges, f.edges.len() - 1);
}
