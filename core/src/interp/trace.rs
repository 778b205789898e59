//! Path traces: which blocks each invocation visited, in order, and how often
//! each branch edge was taken over all invocations.
//!
//! A path is kept compressed as it is recorded: whenever its raw tail ends in
//! the same cycle of blocks twice over (a cycle of at most [`MAX_CYCLE`]
//! blocks), the cycle becomes one [`Segment`] with a count, and the blocks
//! that follow are matched against it, so a loop of a million iterations
//! whose body takes the same path each time is a single segment. The path
//! starts at the entry point's first block; a call puts the callee's blocks
//! into the path (from its first block) between the caller's block and the
//! caller's next one; a return records nothing (the caller goes on in the
//! block it called from). Edges are the branches taken (OpBranch,
//! OpBranchConditional, OpSwitch) inside a function.
//!
//! Recording is off by default ([`Trace::Off`]) and then costs nothing but a
//! test at each branch.

use super::program::Program;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// The longest cycle of blocks the compression looks for.
pub const MAX_CYCLE: usize = 256;

/// What to record in a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Trace {
    /// Nothing (the default).
    #[default]
    Off,
    /// The edge counts only.
    Edges,
    /// The edge counts and the paths of these invocations (global ids).
    Invocations(Vec<[u32; 3]>),
    /// The edge counts and every invocation's path.
    All,
}

/// A block: the result id of its function and its label's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Block {
    pub function: u32,
    pub label: u32,
}

/// A part of a path: `blocks` in order, `count` times over.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Segment {
    pub blocks: Vec<Block>,
    pub count: u64,
}

/// The path of one invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Path {
    /// The invocation's global id.
    pub invocation: [u32; 3],
    pub segments: Vec<Segment>,
}

impl Path {
    /// The blocks in the order visited (the segments expanded).
    pub fn blocks(&self) -> impl Iterator<Item = Block> + '_ {
        self.segments
            .iter()
            .flat_map(|s| (0..s.count).flat_map(move |_| s.blocks.iter().copied()))
    }

    /// The number of blocks visited.
    pub fn len(&self) -> u64 {
        self.segments
            .iter()
            .map(|s| (s.blocks.len() as u64).saturating_mul(s.count))
            .fold(0u64, u64::saturating_add)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A branch edge inside a function, and how often it was taken (all
/// invocations together).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Edge {
    pub function: u32,
    pub from: u32,
    pub to: u32,
    pub count: u64,
}

/// What a run recorded: the paths asked for (in the order the invocations
/// ran) and every edge taken (by function, then from, then to).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TraceReport {
    pub paths: Vec<Path>,
    pub edges: Vec<Edge>,
}

impl TraceReport {
    /// The path of invocation `gid`, if it was recorded.
    pub fn path(&self, gid: [u32; 3]) -> Option<&Path> {
        self.paths.iter().find(|p| p.invocation == gid)
    }
}

/// A block as the interpreter knows it: (function index, block index).
type BlockAt = (u32, u32);

/// A path as recorded: (blocks, count) segments.
type Segs = Vec<(Vec<BlockAt>, u64)>;

/// A path being recorded, compressed on the fly.
#[derive(Default)]
pub(super) struct PathRec {
    segs: Vec<(Vec<BlockAt>, u64)>,
    /// The blocks after the last segment, not yet part of a cycle.
    raw: Vec<BlockAt>,
    /// While the last segment is a cycle: how many of its blocks the blocks
    /// since its last full repetition matched.
    rep: Option<usize>,
}

impl PathRec {
    fn push(&mut self, b: BlockAt) {
        if let Some(pos) = self.rep {
            if let Some((blocks, count)) = self.segs.last_mut() {
                if blocks.get(pos) == Some(&b) {
                    if pos + 1 == blocks.len() {
                        *count += 1;
                        self.rep = Some(0);
                    } else {
                        self.rep = Some(pos + 1);
                    }
                    return;
                }
                // The repetition broke off: what it matched is plain path.
                self.raw.extend_from_slice(&blocks[..pos]);
            }
            self.rep = None;
        }
        self.raw.push(b);
        let n = self.raw.len();
        for l in 1..=(n / 2).min(MAX_CYCLE) {
            if self.raw[n - 1 - l] != b || self.raw[n - 2 * l..n - l] != self.raw[n - l..] {
                continue;
            }
            let cycle = self.raw[n - l..].to_vec();
            self.raw.truncate(n - 2 * l);
            if !self.raw.is_empty() {
                self.segs.push((core::mem::take(&mut self.raw), 1));
            }
            self.segs.push((cycle, 2));
            self.rep = Some(0);
            return;
        }
    }

    fn finish(mut self) -> Segs {
        if let Some(pos) = self.rep.filter(|p| *p > 0)
            && let Some((blocks, _)) = self.segs.last()
        {
            let part = blocks[..pos].to_vec();
            self.raw.splice(0..0, part);
        }
        if !self.raw.is_empty() {
            self.segs.push((self.raw, 1));
        }
        self.segs
    }
}

/// What one invocation records.
pub(super) struct Rec {
    path: Option<PathRec>,
    /// (function, from block, to block) -> count.
    edges: BTreeMap<(u32, u32, u32), u64>,
}

impl Rec {
    /// The recorder of invocation `gid` under `trace` (`None`: off).
    pub(super) fn new(trace: &Trace, gid: [u32; 3]) -> Option<Box<Rec>> {
        let path = match trace {
            Trace::Off => return None,
            Trace::Edges => false,
            Trace::Invocations(list) => list.contains(&gid),
            Trace::All => true,
        };
        Some(Box::new(Rec {
            path: path.then(PathRec::default),
            edges: BTreeMap::new(),
        }))
    }

    /// Control entered block `b` of function `f` (an entry or a call).
    pub(super) fn enter(&mut self, f: u32, b: u32) {
        if let Some(p) = &mut self.path {
            p.push((f, b));
        }
    }

    /// A branch from block `from` to block `to` of function `f`.
    pub(super) fn jump(&mut self, f: u32, from: u32, to: u32) {
        *self.edges.entry((f, from, to)).or_insert(0) += 1;
        self.enter(f, to);
    }
}

/// The recordings of a run, gathered invocation by invocation.
#[derive(Default)]
pub(super) struct Gather {
    paths: Vec<([u32; 3], Segs)>,
    edges: BTreeMap<(u32, u32, u32), u64>,
}

impl Gather {
    /// Add the recording of invocation `gid`.
    pub(super) fn add(&mut self, gid: [u32; 3], rec: Rec) {
        let Rec { path, edges } = rec;
        for (k, n) in edges {
            let e = self.edges.entry(k).or_insert(0);
            *e = e.saturating_add(n);
        }
        if let Some(p) = path {
            self.paths.push((gid, p.finish()));
        }
    }

    /// The report, with blocks named by their ids.
    pub(super) fn report(self, prog: &Program) -> TraceReport {
        let fid = |f: u32| prog.ir.functions.get(f as usize).map_or(0, |x| x.id);
        let label = |f: u32, b: u32| {
            prog.funcs
                .get(f as usize)
                .and_then(|x| x.blocks.get(b as usize))
                .map_or(0, |x| x.label)
        };
        let block = |(f, b): BlockAt| Block {
            function: fid(f),
            label: label(f, b),
        };
        TraceReport {
            paths: self
                .paths
                .into_iter()
                .map(|(gid, segs)| Path {
                    invocation: gid,
                    segments: segs
                        .into_iter()
                        .map(|(bs, count)| Segment {
                            blocks: bs.into_iter().map(block).collect(),
                            count,
                        })
                        .collect(),
                })
                .collect(),
            edges: self
                .edges
                .into_iter()
                .map(|((f, a, b), count)| Edge {
                    function: fid(f),
                    from: label(f, a),
                    to: label(f, b),
                    count,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{Buffers, Options, run};
    use crate::ir::Ir;
    use crate::text::asm::{AsmOptions, assemble};
    use alloc::string::String;
    use alloc::vec;

    /// A loop of three iterations whose body calls `%f` and then switches on
    /// the invocation's x: 0 goes to `%c0`, anything else to `%c1`. Every
    /// block and function has an OpName, so the test names them.
    const LOOP: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 2 1 1
               OpName %main "main"
               OpName %f "f"
               OpName %entry "entry"
               OpName %header "header"
               OpName %body "body"
               OpName %c0 "c0"
               OpName %c1 "c1"
               OpName %sm "sm"
               OpName %cont "cont"
               OpName %exit "exit"
               OpName %fentry "fentry"
               OpName %fend "fend"
               OpDecorate %gid BuiltIn GlobalInvocationId
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
       %p_in = OpTypePointer Input %v3uint
        %gid = OpVariable %p_in Input
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u3 = OpConstant %uint 3
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
               OpBranch %header
     %header = OpLabel
          %i = OpPhi %uint %u0 %entry %inext %cont
         %lt = OpULessThan %bool %i %u3
               OpLoopMerge %exit %cont None
               OpBranchConditional %lt %body %exit
       %body = OpLabel
          %r = OpFunctionCall %void %f
               OpSelectionMerge %sm None
               OpSwitch %x %c1 0 %c0
         %c0 = OpLabel
               OpBranch %sm
         %c1 = OpLabel
               OpBranch %sm
         %sm = OpLabel
               OpBranch %cont
       %cont = OpLabel
      %inext = OpIAdd %uint %i %u1
               OpBranch %header
       %exit = OpLabel
               OpReturn
               OpFunctionEnd
          %f = OpFunction %void None %fn
     %fentry = OpLabel
               OpBranch %fend
       %fend = OpLabel
               OpReturn
               OpFunctionEnd
"#;

    fn traced(trace: Trace) -> (Ir, Option<TraceReport>) {
        let words = assemble(LOOP, &AsmOptions::default()).expect("the module assembles");
        let ir = Ir::build(crate::binary::read_words(&words).expect("it reads back"));
        let opts = Options {
            trace,
            ..Options::default()
        };
        let stats = run(&ir, &opts, &mut Buffers::new()).expect("it runs");
        (ir, stats.trace)
    }

    fn name(ir: &Ir, id: u32) -> String {
        String::from(ir.name(id).unwrap_or("?"))
    }

    /// A path as `function:block` names, segments as `[...]xN`.
    fn show(ir: &Ir, p: &Path) -> String {
        let mut out = String::new();
        for s in &p.segments {
            let bs: Vec<String> = s
                .blocks
                .iter()
                .map(|b| alloc::format!("{}:{}", name(ir, b.function), name(ir, b.label)))
                .collect();
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&alloc::format!("[{}]x{}", bs.join(" "), s.count));
        }
        out
    }

    #[test]
    fn paths_of_a_loop_with_a_call_and_a_switch() {
        let (ir, t) = traced(Trace::All);
        let t = t.expect("a trace");
        assert_eq!(t.paths.len(), 2);
        // Invocation 0: three iterations through %c0, then the exit test.
        let body = |c: &str| {
            alloc::format!("[main:header main:body f:fentry f:fend main:{c} main:sm main:cont]x3")
        };
        let want0 = alloc::format!("[main:entry]x1 {} [main:header main:exit]x1", body("c0"));
        let want1 = alloc::format!("[main:entry]x1 {} [main:header main:exit]x1", body("c1"));
        assert_eq!(show(&ir, t.path([0, 0, 0]).expect("path 0")), want0);
        assert_eq!(show(&ir, t.path([1, 0, 0]).expect("path 1")), want1);
        assert_eq!(t.path([0, 0, 0]).map(|p| p.len()), Some(1 + 7 * 3 + 2));
        // The edges over both invocations (by function, from, to).
        let mut edges: Vec<String> = t
            .edges
            .iter()
            .map(|e| {
                alloc::format!(
                    "{}:{}->{} {}",
                    name(&ir, e.function),
                    name(&ir, e.from),
                    name(&ir, e.to),
                    e.count
                )
            })
            .collect();
        edges.sort();
        let mut want = vec![
            "main:entry->header 2",
            "main:header->body 6",
            "main:header->exit 2",
            "main:body->c0 3",
            "main:body->c1 3",
            "main:c0->sm 3",
            "main:c1->sm 3",
            "main:sm->cont 6",
            "main:cont->header 6",
            "f:fentry->fend 6",
        ];
        want.sort();
        assert_eq!(edges, want);
    }

    #[test]
    fn what_is_recorded_follows_the_option() {
        let (_, t) = traced(Trace::Off);
        assert_eq!(t, None);
        let (_, t) = traced(Trace::Edges);
        let t = t.expect("a trace");
        assert!(t.paths.is_empty());
        assert_eq!(t.edges.len(), 10);
        let (_, t) = traced(Trace::Invocations(vec![[1, 0, 0], [5, 0, 0]]));
        let t = t.expect("a trace");
        assert_eq!(t.paths.len(), 1);
        assert_eq!(t.paths[0].invocation, [1, 0, 0]);
    }

    fn expand(segs: &[(Vec<BlockAt>, u64)]) -> Vec<BlockAt> {
        let mut out = Vec::new();
        for (bs, n) in segs {
            for _ in 0..*n {
                out.extend_from_slice(bs);
            }
        }
        out
    }

    fn record(seq: &[u32]) -> Vec<(Vec<BlockAt>, u64)> {
        let mut p = PathRec::default();
        for &b in seq {
            p.push((0, b));
        }
        p.finish()
    }

    fn blocks(xs: &[u32]) -> Vec<BlockAt> {
        xs.iter().map(|&b| (0, b)).collect()
    }

    #[test]
    fn a_long_loop_is_one_segment() {
        let mut seq = vec![0];
        for _ in 0..1_000_000 {
            seq.extend_from_slice(&[1, 2, 3]);
        }
        seq.push(4);
        let segs = record(&seq);
        assert_eq!(
            segs,
            vec![
                (blocks(&[0]), 1),
                (blocks(&[1, 2, 3]), 1_000_000),
                (blocks(&[4]), 1)
            ]
        );
    }

    #[test]
    fn a_broken_repetition_keeps_its_blocks() {
        // 1 2 1 2 1 3: the third repetition stops after 1.
        let seq = [0, 1, 2, 1, 2, 1, 3, 5];
        let segs = record(&seq);
        assert_eq!(expand(&segs), blocks(&seq));
        assert_eq!(segs[1], (blocks(&[1, 2]), 2));
        // Ending in the middle of a repetition.
        let seq = [7, 7, 7, 8, 9, 8, 9, 8];
        assert_eq!(expand(&record(&seq)), blocks(&seq));
    }

    #[test]
    fn expansion_gives_back_the_path() {
        // A deterministic pseudo-random walk over few blocks.
        let mut x = 0x9e37_79b9_u32;
        let mut seq = Vec::new();
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            seq.push(x % 4);
            if x.is_multiple_of(7) {
                for _ in 0..(x % 50) {
                    seq.extend_from_slice(&[5, 6]);
                }
            }
        }
        let segs = record(&seq);
        assert_eq!(expand(&segs), blocks(&seq));
        assert!(segs.len() < seq.len());
    }
}
