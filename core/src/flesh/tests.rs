use super::*;
use crate::analysis::Analysis;
use crate::interp::{self, Buffers};
use alloc::vec::Vec;

fn valid(text: &str) -> Analysis {
    let a = Analysis::of_text(text, &crate::valid::Options::default());
    let errors: Vec<_> = a.diagnostics().iter().map(|d| alloc::format!("{d:?}")).collect();
    assert!(a.is_valid(), "{text}\n{errors:#?}");
    a
}

/// Runs a fleshed program on the interpreter and returns the output buffer.
fn run(f: &Fleshed) -> Vec<u32> {
    let out = try_run(f);
    assert!(out.is_ok(), "{:?}\n{}", out.as_ref().err(), f.text);
    out.unwrap()
}

fn try_run(f: &Fleshed) -> Result<Vec<u32>, interp::RunError> {
    let a = valid(&f.text);
    let mut bufs = Buffers::new();
    bufs.insert((0, 0), f.directions.iter().flat_map(|w| w.to_le_bytes()).collect());
    bufs.insert((0, 1), alloc::vec![0u8; f.expected.len() * 4]);
    let opts = interp::Options { max_steps: 100_000, ..interp::Options::default() };
    interp::run(a.ir().unwrap(), &opts, &mut bufs)?;
    Ok(bufs[&(0, 1)].chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

#[test]
fn generated_skeletons_are_valid_and_deterministic() {
    for seed in 0..200 {
        let cfg = Config { blocks: 4 + (seed as usize % 30), ..Config::default() };
        let (s, ok) = generate(seed, cfg);
        assert!(ok);
        assert_eq!(generate(seed, cfg).0, s);
        valid(&s.module_text());
    }
}

#[test]
fn knobs_are_met() {
    let mut met = 0;
    for seed in 0..40 {
        let cfg = Config { blocks: 14, max_depth: 4, knobs: Knobs::paper(), ..Config::default() };
        let (s, ok) = generate(seed, cfg);
        if ok {
            met += 1;
            assert!(meets(&s, &Knobs::paper()));
            valid(&s.module_text());
        }
    }
    assert!(met >= 38, "only {met} of 40 met the paper's knobs");
}

#[test]
fn a_chain_breaks_the_no_chains_knob() {
    let s = Skeleton {
        blocks: alloc::vec![
            Block { label: 1, merge: None, term: Term::Branch(2) },
            Block { label: 2, merge: None, term: Term::Branch(3) },
            Block { label: 3, merge: None, term: Term::Return },
        ],
        ..Skeleton::default()
    };
    assert!(!meets(&s, &Knobs { no_chains: true, ..Knobs::default() }));
    assert!(meets(&s, &Knobs::default()));
}

#[test]
fn paths_end_at_an_exit_and_follow_edges() {
    for seed in 0..100 {
        let (s, _) = generate(seed, Config { blocks: 30, ..Config::default() });
        let mut rng = Rng::new(seed);
        // A generated loop may have no way out (its merge unreachable).
        let Some(p) = path::choose(&s, &mut rng, 12) else { continue };
        let last = s.position(*p.blocks.last().unwrap()).unwrap();
        assert_eq!(s.blocks[last].term, Term::Return);
        for w in p.blocks.windows(2) {
            let from = &s.blocks[s.position(w[0]).unwrap()];
            assert!(from.term.targets().contains(&w[1]), "{} -> {} is not an edge", w[0], w[1]);
        }
    }
}

#[test]
fn a_loop_without_exit_cannot_be_fleshed() {
    let s = Skeleton {
        blocks: alloc::vec![
            Block { label: 1, merge: None, term: Term::Branch(2) },
            Block { label: 2, merge: Some(Merge::Loop(3, 2)), term: Term::Branch(2) },
            Block { label: 3, merge: None, term: Term::Unreachable },
        ],
        ..Skeleton::default()
    };
    assert_eq!(flesh(&s, &Options::default()), Err(FleshError::NoExit { entry: 1 }));
}

#[test]
fn fleshed_programs_follow_their_paths_in_every_mode() {
    for seed in 0..60u64 {
        let (s, _) = generate(seed, Config { blocks: 6 + seed as usize % 20, ..Config::default() });
        for mode in [Mode::Basic, Mode::Phi, Mode::Multi] {
            let f = match flesh(&s, &Options { seed, mode, ..Options::default() }) {
                Err(FleshError::NoExit { .. }) => continue,
                f => f.unwrap(),
            };
            assert_eq!(run(&f), f.expected, "seed {seed} mode {}\n{}", mode.name(), f.text);
        }
    }
}

#[test]
fn a_wrong_direction_changes_the_output() {
    // The oracle can fail: flipping the first direction of a path through a
    // conditional branch gives another output.
    let (s, _) = (0..50)
        .map(|seed| generate(seed, Config { blocks: 20, ..Config::default() }))
        .find(|(s, _)| s.blocks[0].merge.is_some())
        .unwrap();
    let mut f = flesh(&s, &Options::default()).unwrap();
    if f.directions.is_empty() || f.paths[0].directions.is_empty() {
        return;
    }
    f.directions[0] ^= 1;
    // Another path: another output, or a write past the output's end.
    assert_ne!(try_run(&f).ok(), Some(f.expected.clone()));
}

#[test]
fn a_modules_own_function_is_fleshed() {
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
        OpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
        %bool = OpTypeBool\n%int = OpTypeInt 32 1\n%c = OpConstant %int 5\n%t = OpConstantTrue %bool\n\
        %main = OpFunction %void None %fn\n%10 = OpLabel\nOpBranch %11\n\
        %11 = OpLabel\nOpLoopMerge %14 %13 None\nOpBranchConditional %t %12 %14\n\
        %12 = OpLabel\nOpSelectionMerge %16 None\nOpSwitch %c %16 5 %15 7 %16\n\
        %15 = OpLabel\nOpBranch %16\n%16 = OpLabel\nOpBranch %13\n\
        %13 = OpLabel\nOpBranch %11\n%14 = OpLabel\nOpReturn\nOpFunctionEnd\n";
    let a = valid(text);
    let s = Skeleton::of_function(&a, 0).unwrap();
    let names: Vec<_> = s.blocks.iter().map(|b| s.name(b.label)).collect();
    assert_eq!(names, ["%10", "%11", "%12", "%15", "%16", "%13", "%14"]);
    let l: Vec<Label> = s.blocks.iter().map(|b| b.label).collect();
    assert_eq!(s.blocks[2].term, Term::Switch(0, l[4], alloc::vec![(0, l[3]), (1, l[4])]));
    for seed in 0..20 {
        let f = flesh(&s, &Options { seed, max_len: 20, ..Options::default() }).unwrap();
        assert_eq!(run(&f), f.expected);
        assert_eq!(f.paths[0].blocks[..2], l[..2]);
        assert!(f.text.contains(&alloc::format!("OpName %b{} \"11\"", l[1])));
    }
}


#[test]
fn reduction_keeps_the_failure_and_shrinks_the_case() {
    // A stand-in for a backend that goes wrong whenever a path goes through
    // a switch: reduction must keep one switch on a path and drop the rest.
    let through_switch = |f: &Fleshed| {
        f.paths.iter().any(|p| p.blocks.iter().any(|l| f.text.contains(&alloc::format!("OpSwitch %b{l}_dir "))))
    };
    let mut done = 0;
    for seed in 0..40u64 {
        let (s, _) = generate(seed, Config { blocks: 40, max_depth: 5, ..Config::default() });
        let opts = Options { seed, mode: Mode::Multi, ..Options::default() };
        let Ok(f) = flesh(&s, &opts) else { continue };
        // Only cases whose paths go through a switch.
        let on_switch = |s: &Skeleton, f: &Fleshed| {
            f.paths.iter().any(|p| p.blocks.iter().any(|l| matches!(s.blocks[s.position(*l).unwrap()].term, Term::Switch(..))))
        };
        if !on_switch(&s, &f) {
            continue;
        }
        let case = Case { skeleton: s.clone(), paths: f.paths.clone() };
        let before = case.size();
        let r = reduce(case, &opts, 2000, through_switch);
        assert!(on_switch(&r.case.skeleton, &r.program), "seed {seed}: the failure was lost\n{}", r.program.text);
        assert!(r.case.size() < before, "seed {seed}: nothing removed");
        assert!(r.case.skeleton.blocks.len() <= 8, "seed {seed}: {} blocks left, tried {} kept {}\n{}", r.case.skeleton.blocks.len(), r.tried, r.kept, r.case.skeleton.module_text());
        assert_eq!(r.case.paths.len(), 1, "seed {seed}");
        valid(&r.case.skeleton.module_text());
        assert_eq!(run(&r.program), r.program.expected);
        done += 1;
    }
    assert!(done >= 5, "only {done} cases went through a switch");
}

/// The `OpBranch` instructions a backend with one planted bug gets wrong:
/// in a switch nested in a loop, a case that falls through to another case.
/// Each as (the branch instruction, the switch's merge block id).
fn fallthroughs_in_loops(a: &Analysis) -> Vec<(u32, u32)> {
    use crate::cfg::{ConstructKind, EdgeKind};
    use crate::grammar::op;
    let Some(fc) = a.cfg().functions.iter().find(|c| !c.blocks.is_empty()) else { return Vec::new() };
    let loops: Vec<u32> =
        (0..fc.constructs().len() as u32).filter(|&c| fc.constructs()[c as usize].kind == ConstructKind::Loop).collect();
    let mut found = Vec::new();
    for (h, b) in fc.blocks.iter().enumerate() {
        let h = h as u32;
        let Some(m) = b.merge.filter(|_| b.terminator_opcode == Some(op::OpSwitch)) else { continue };
        if !loops.iter().any(|&c| fc.construct_contains(c, h)) {
            continue;
        }
        let cases: Vec<u32> = fc.successors(h).filter(|&t| Some(t) != m.merge_block).collect();
        for &t in &cases {
            if fc.blocks[t as usize].terminator_opcode != Some(op::OpBranch) {
                continue;
            }
            for e in fc.out_edges(t) {
                if e.kind == EdgeKind::Branch && e.to != t && cases.contains(&e.to) {
                    found.push((e.instruction, m.merge_id));
                }
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// A stand-in for a backend with a planted bug: it "compiles" a fleshed
/// program by sending every fallthrough of a switch nested in a loop to the
/// switch's merge block instead, and runs the result on the interpreter with
/// the program's own directions.
fn drops_fallthrough_in_loops(f: &Fleshed) -> Result<Vec<u32>, interp::RunError> {
    let a = valid(&f.text);
    let fc = a.cfg().functions.iter().find(|c| !c.blocks.is_empty()).unwrap();
    let mut edits: Vec<(crate::diag::Span, alloc::string::String)> = Vec::new();
    for (inst, merge) in fallthroughs_in_loops(&a) {
        // The merge block's name as its `%name = OpLabel` line spells it.
        let label = fc.blocks[fc.block_of(merge).unwrap() as usize].start;
        let at = &f.text[a.source_map()[label as usize].span.start as usize..];
        let name = &at[..at.find(' ').unwrap()];
        edits.push((a.source_map()[inst as usize].span, alloc::format!("OpBranch {name}")));
    }
    edits.sort_by_key(|(s, _)| core::cmp::Reverse(s.start));
    let mut text = f.text.clone();
    for (span, with) in edits {
        text.replace_range(span.start as usize..span.end as usize, &with);
    }
    try_run(&Fleshed { text, ..f.clone() })
}

#[test]
fn reduction_takes_a_planted_backend_bug_to_a_small_repro() {
    let mut done = 0;
    for seed in 0..200u64 {
        let (s, _) = generate(seed, Config { blocks: 30, max_depth: 5, ..Config::default() });
        let opts = Options { seed, ..Options::default() };
        let Ok(f) = flesh(&s, &opts) else { continue };
        let wrong = |f: &Fleshed| drops_fallthrough_in_loops(f).ok().as_ref() != Some(&f.expected);
        if !wrong(&f) {
            continue;
        }
        // The stand-in goes wrong only where its pattern is.
        assert!(!fallthroughs_in_loops(&valid(&f.text)).is_empty(), "seed {seed}");
        let case = Case { skeleton: s.clone(), paths: f.paths.clone() };
        let r = reduce(case, &opts, 4000, wrong);
        let blocks = r.case.skeleton.blocks.len();
        assert!(wrong(&r.program), "seed {seed}: the failure was lost\n{}", r.program.text);
        assert!(!fallthroughs_in_loops(&valid(&r.program.text)).is_empty(), "seed {seed}: the pattern was lost");
        assert!(
            blocks <= 8,
            "seed {seed}: {blocks} blocks left (from {}), tried {} kept {}\n{}",
            s.blocks.len(),
            r.tried,
            r.kept,
            r.case.skeleton.module_text()
        );
        assert_eq!(run(&r.program), r.program.expected, "seed {seed}: the reduced program itself is right");
        done += 1;
        if done == 3 {
            break;
        }
    }
    assert!(done >= 3, "only {done} generated programs met the planted bug");
}

/// Without its pattern the stand-in backend is right: it is a fair stand-in.
#[test]
fn the_stand_in_backend_is_right_without_its_pattern() {
    let mut clean = 0;
    for seed in 0..60u64 {
        let (s, _) = generate(seed, Config { blocks: 20, max_depth: 4, ..Config::default() });
        let Ok(f) = flesh(&s, &Options { seed, ..Options::default() }) else { continue };
        if fallthroughs_in_loops(&valid(&f.text)).is_empty() {
            assert_eq!(drops_fallthrough_in_loops(&f).unwrap(), f.expected, "seed {seed}");
            clean += 1;
        }
    }
    assert!(clean >= 10, "{clean}");
}

fn block(label: Label, merge: Option<Merge>, term: Term) -> Block {
    Block { label, merge, term }
}

#[test]
fn shape_traits_name_what_backends_get_wrong() {
    use shape::{Header, Trait, traits};
    // 1: loop header (continue 4, merge 5) -> 2: selection header merging
    // into 6, which heads a loop of its own (its own continue target).
    let merge_heads_loop = Skeleton {
        blocks: alloc::vec![
            block(1, None, Term::Branch(2)),
            block(2, Some(Merge::Loop(5, 4)), Term::Cond(true, 3, 5)),
            block(3, Some(Merge::Selection(6)), Term::Cond(true, 7, 6)),
            block(7, None, Term::Branch(6)),
            block(6, Some(Merge::Loop(8, 6)), Term::Cond(true, 8, 6)),
            block(8, None, Term::Branch(4)),
            block(4, None, Term::Branch(2)),
            block(5, None, Term::Return),
        ],
        ..Skeleton::default()
    };
    valid(&merge_heads_loop.module_text());
    let t = traits(&merge_heads_loop, &[]);
    assert!(t.contains(&Trait::MergeHeadsLoop(Header::Selection)), "{t:?}");
    assert!(t.contains(&Trait::SelfContinue), "{t:?}");
    assert!(!t.contains(&Trait::MergeHeadsLoop(Header::Loop)), "{t:?}");
    assert_eq!(shape::describe(&t), "selection-merge-heads-loop, self-continue");

    // A switch: case 1 shares the default's target 3, case 2 is the merge
    // block, 3 falls through to 4.
    let switch = Skeleton {
        blocks: alloc::vec![
            block(1, Some(Merge::Selection(5)), Term::Switch(0, 3, alloc::vec![(1, 3), (3, 4), (2, 5)])),
            block(3, None, Term::Branch(4)),
            block(4, None, Term::Branch(5)),
            block(5, None, Term::Return),
        ],
        ..Skeleton::default()
    };
    valid(&switch.module_text());
    let t = traits(&switch, &[]);
    let want = [Trait::CaseSharesDefault, Trait::CaseIsMerge, Trait::Fallthrough];
    assert_eq!(t.iter().copied().collect::<Vec<_>>(), want, "{}", shape::describe(&t));

    // A premerge block: the true target 2 branches to the false target 3;
    // the merge block 4 is unreachable, and so is 6, which the wrong
    // output [1, 6] runs.
    let premerge = Skeleton {
        blocks: alloc::vec![
            block(1, Some(Merge::Selection(4)), Term::Cond(true, 2, 3)),
            block(2, None, Term::Branch(3)),
            block(3, None, Term::Return),
            block(4, None, Term::Unreachable),
            block(6, None, Term::Return),
        ],
        ..Skeleton::default()
    };
    valid(&premerge.module_text());
    let t = traits(&premerge, &[]);
    let want = [Trait::MergeUnreachable(Header::Selection), Trait::Premerge, Trait::UnreachableBlock];
    assert_eq!(t.iter().copied().collect::<Vec<_>>(), want, "{}", shape::describe(&t));
    assert!(traits(&premerge, &[1, 6]).contains(&Trait::RunsUnreachable));
    assert!(!traits(&premerge, &[1, 2, 3]).contains(&Trait::RunsUnreachable));

    // A loop around a switch whose case 0 (block 4) leaves the loop.
    let case_breaks_loop = Skeleton {
        blocks: alloc::vec![
            block(1, None, Term::Branch(2)),
            block(2, Some(Merge::Loop(6, 7)), Term::Branch(3)),
            block(3, Some(Merge::Selection(5)), Term::Switch(0, 5, alloc::vec![(0, 4)])),
            block(4, None, Term::Branch(6)),
            block(5, None, Term::Branch(7)),
            block(7, None, Term::Branch(2)),
            block(6, None, Term::Return),
        ],
        ..Skeleton::default()
    };
    valid(&case_breaks_loop.module_text());
    let t = traits(&case_breaks_loop, &[]);
    assert_eq!(t.iter().copied().collect::<Vec<_>>(), [Trait::CaseIsMerge, Trait::CaseBreaksLoop], "{}", shape::describe(&t));

    // A plain if/else has none.
    let plain = Skeleton {
        blocks: alloc::vec![
            block(1, Some(Merge::Selection(4)), Term::Cond(true, 2, 3)),
            block(2, None, Term::Branch(4)),
            block(3, None, Term::Branch(4)),
            block(4, None, Term::Return),
        ],
        ..Skeleton::default()
    };
    assert_eq!(shape::describe(&traits(&plain, &[1, 2, 4])), "none");
}
