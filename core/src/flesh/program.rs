//! Fleshing (the paper's section 6.1): a skeleton and a chosen path turned
//! into a compute shader that is forced along the path and records it.
//!
//! Binding 0.0 (`directions`) holds the directions, binding 0.1 (`output`)
//! receives the label of every block executed, in order. Each block appends
//! its label to `output` at the output index and increments it; each
//! conditional branch or switch reads its next direction at the direction
//! index and increments that: a conditional branch takes its true target for
//! a non-zero direction, a switch selects on the direction itself (its
//! literals are renumbered 0, 1, ... in operand order). Blocks keep their
//! labels (`%b<label>`), merges and branch targets, so the fleshed function
//! has the skeleton's CFG.
//!
//! Modes:
//! - [`Mode::Basic`]: the two indices are Function variables, loaded and
//!   stored in every block;
//! - [`Mode::Phi`]: the indices are SSA values, an `OpPhi` of each per block
//!   with predecessors;
//! - [`Mode::Multi`]: a workgroup of several invocations, each forced along
//!   its own path (invocation i reads its directions from i * D and writes
//!   its path from i * P, D and P the longest direction list and path), so
//!   control flow diverges inside a subgroup.

use super::path::{self, Path};
use super::rng::Rng;
use super::skeleton::{Label, Merge, Skeleton, Term, write_cases, write_merge};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

/// How the fleshed program keeps its indices and how many paths it follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "lowercase"))]
pub enum Mode {
    #[default]
    Basic,
    Phi,
    Multi,
}

impl Mode {
    /// `basic`, `phi` or `multi`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Basic => "basic",
            Mode::Phi => "phi",
            Mode::Multi => "multi",
        }
    }

    /// The mode named `s`.
    pub fn parse(s: &str) -> Option<Mode> {
        [Mode::Basic, Mode::Phi, Mode::Multi].into_iter().find(|m| m.name() == s)
    }
}

/// What to flesh.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "camelCase"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Seeds the choice of paths.
    pub seed: u64,
    pub mode: Mode,
    /// Blocks walked at random before the shortest route to an exit.
    pub max_len: usize,
    /// Invocations in [`Mode::Multi`] (one otherwise).
    pub invocations: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options { seed: 1, mode: Mode::Basic, max_len: 30, invocations: 4 }
    }
}

/// Why a skeleton cannot be fleshed.
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(tag = "error", rename_all = "camelCase"))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FleshError {
    /// The entry block cannot reach a block that leaves the function.
    NoExit { entry: Label },
    /// A branch, merge or continue target that is not a block of the function.
    NoSuchBlock { target: Label },
    /// No blocks.
    Empty,
}

impl FleshError {
    /// The block the error is about, where it is about one.
    pub fn block(&self) -> Option<Label> {
        match self {
            FleshError::NoExit { entry } => Some(*entry),
            FleshError::NoSuchBlock { .. } | FleshError::Empty => None,
        }
    }

    /// The error in words, naming blocks as `s` names them.
    pub fn describe(&self, s: &Skeleton) -> String {
        match self {
            FleshError::NoExit { entry } => alloc::format!(
                "no path from the entry block {} leaves the function, so none can be recorded",
                s.name(*entry)
            ),
            FleshError::NoSuchBlock { target } => alloc::format!("{} is named as a target but is not a block", s.name(*target)),
            FleshError::Empty => String::from("the function has no blocks"),
        }
    }
}

impl fmt::Display for FleshError {
    /// The error in words, blocks by their labels.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(&Skeleton::default()))
    }
}

/// A fleshed program with its inputs and its oracle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fleshed {
    /// The program, as SPIR-V assembly (assembles for SPIR-V 1.4 and later).
    pub text: String,
    pub mode: Mode,
    /// One path per invocation.
    pub paths: Vec<Path>,
    /// Words per invocation in `directions` and in `output`.
    pub direction_stride: u32,
    pub output_stride: u32,
    /// The directions buffer (binding 0.0), as u32 words.
    pub directions: Vec<u32>,
    /// What the output buffer (binding 0.1, zeros before the run) must hold
    /// after it.
    pub expected: Vec<u32>,
    /// Whether any block reads a direction (a CFG without a conditional
    /// branch or switch binds no `directions`).
    pub reads_directions: bool,
}

impl Fleshed {
    /// The workgroup size in x (the number of invocations).
    pub fn invocations(&self) -> u32 {
        self.paths.len() as u32
    }

    /// The run's buffer inputs, in its input language (`u32: 1 0 ...`): the
    /// directions at 0.0 when the program reads them; the output is zeros.
    pub fn buffer_inputs(&self) -> Vec<(crate::plan::Slot, String)> {
        if self.reads_directions {
            alloc::vec![(crate::plan::Slot::Binding(0, 0), self.directions_input())]
        } else {
            Vec::new()
        }
    }

    /// The binding the program writes its path to (`output`, zeros before
    /// the run).
    pub fn output_slot(&self) -> crate::plan::Slot {
        crate::plan::Slot::Binding(0, 1)
    }

    /// The directions in the run's input language (`u32: 1 0 ...`).
    pub fn directions_input(&self) -> String {
        u32_list(&self.directions)
    }

    /// The expected output in the run's input language.
    pub fn expected_input(&self) -> String {
        u32_list(&self.expected)
    }
}

/// `xs` in the run's input language (`u32: 1 0 ...`).
pub(super) fn u32_list(xs: &[u32]) -> String {
    let mut s = String::from("u32:");
    for x in xs {
        let _ = write!(s, " {x}");
    }
    s
}

/// Flesh `s`: choose the paths (seeded by `opts.seed`) and write the program.
pub fn flesh(s: &Skeleton, opts: &Options) -> Result<Fleshed, FleshError> {
    let entry = s.blocks.first().ok_or(FleshError::Empty)?.label;
    for b in &s.blocks {
        let named = b.term.targets().into_iter().chain(b.merge.map(|m| m.block()));
        let named = named.chain(match b.merge {
            Some(Merge::Loop(_, c)) => Some(c),
            _ => None,
        });
        for t in named {
            if s.position(t).is_none() {
                return Err(FleshError::NoSuchBlock { target: t });
            }
        }
    }
    let mut rng = Rng::new(opts.seed);
    let count = if opts.mode == Mode::Multi { opts.invocations.max(1) } else { 1 };
    let mut paths = Vec::new();
    for _ in 0..count {
        paths.push(path::choose(s, &mut rng, opts.max_len.max(1)).ok_or(FleshError::NoExit { entry })?);
    }
    Ok(flesh_paths(s, opts, paths))
}

/// The program of `s` forced along `paths` (one per invocation; each a path
/// of `s` from its entry to a return, as [`path::choose`] or
/// [`path::follow`] give).
pub fn flesh_paths(s: &Skeleton, opts: &Options, paths: Vec<Path>) -> Fleshed {
    let count = paths.len().max(1) as u32;
    let dstride = paths.iter().map(|p| p.directions.len()).max().unwrap_or(0).max(1) as u32;
    let ostride = paths.iter().map(|p| p.blocks.len()).max().unwrap_or(0).max(1) as u32;
    let mut directions = alloc::vec![0u32; (dstride * count) as usize];
    let mut expected = alloc::vec![0u32; (ostride * count) as usize];
    for (i, p) in paths.iter().enumerate() {
        let d = i * dstride as usize;
        directions[d..d + p.directions.len()].copy_from_slice(&p.directions);
        let o = i * ostride as usize;
        expected[o..o + p.blocks.len()].copy_from_slice(&p.blocks);
    }
    let mut f = Fleshed {
        text: String::new(),
        mode: opts.mode,
        paths,
        direction_stride: dstride,
        output_stride: ostride,
        directions,
        expected,
        reads_directions: s.blocks.iter().any(|b| matches!(b.term, Term::Cond(..) | Term::Switch(..))),
    };
    f.text = Writer { s, f: &f, opts, prefix: "", dir_base: 0, out_base: 0 }.module();
    f
}

/// Writes one fleshed program's text: the whole module ([`Writer::module`]),
/// or, for a batch, its function alone ([`Writer::function`]).
pub(super) struct Writer<'a> {
    pub s: &'a Skeleton,
    pub f: &'a Fleshed,
    pub opts: &'a Options,
    /// Put before every id the function defines (empty for a whole module).
    pub prefix: &'a str,
    /// Where the program's directions and output start in the buffers.
    pub dir_base: u32,
    pub out_base: u32,
}

/// What the declarations of a module of fleshed programs hold.
pub(super) struct Preamble<'a> {
    pub invocations: u32,
    /// Words in `directions` and in `output`.
    pub dir_len: u32,
    pub out_len: u32,
    /// Every `%uint_N` the functions use.
    pub consts: BTreeSet<u32>,
    /// Whether a function keeps its indices in Function variables.
    pub variables: bool,
    /// Whether the local invocation index is read (`%invocation`).
    pub invocation: bool,
    /// Whether the workgroup id is read (`%workgroup`: a batch).
    pub workgroup: bool,
    /// Block names, `OpName`d as `%b<label>`.
    pub names: Option<&'a BTreeMap<Label, String>>,
}

impl Preamble<'_> {
    /// The module's text from its capabilities to its global variables.
    pub(super) fn write(&self, t: &mut String) {
        t.push_str("OpCapability Shader\nOpMemoryModel Logical GLSL450\n");
        let _ = writeln!(
            t,
            "OpEntryPoint GLCompute %main \"main\" %directions %output{}{}",
            if self.invocation { " %invocation" } else { "" },
            if self.workgroup { " %workgroup" } else { "" }
        );
        let _ = writeln!(t, "OpExecutionMode %main LocalSize {} 1 1", self.invocations);
        for (l, n) in self.names.into_iter().flatten() {
            let _ = writeln!(t, "OpName %b{l} \"{}\"", n.replace('\\', "\\\\").replace('"', "\\\""));
        }
        t.push_str(
            "OpName %main \"main\"\nOpName %directions \"directions\"\nOpName %output \"output\"\n\
             OpDecorate %dir_array ArrayStride 4\nOpDecorate %out_array ArrayStride 4\n\
             OpDecorate %Directions Block\nOpMemberDecorate %Directions 0 Offset 0\n\
             OpDecorate %Output Block\nOpMemberDecorate %Output 0 Offset 0\n\
             OpDecorate %directions DescriptorSet 0\nOpDecorate %directions Binding 0\n\
             OpDecorate %output DescriptorSet 0\nOpDecorate %output Binding 1\n",
        );
        if self.invocation {
            t.push_str("OpDecorate %invocation BuiltIn LocalInvocationIndex\n");
        }
        if self.workgroup {
            t.push_str("OpDecorate %workgroup BuiltIn WorkgroupId\n");
        }
        t.push_str("%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%bool = OpTypeBool\n%uint = OpTypeInt 32 0\n");
        if self.workgroup {
            t.push_str("%v3uint = OpTypeVector %uint 3\n");
        }
        let mut consts = self.consts.clone();
        consts.extend([0, 1, self.dir_len, self.out_len]);
        for c in &consts {
            let _ = writeln!(t, "%uint_{c} = OpConstant %uint {c}");
        }
        let _ = writeln!(t, "%dir_array = OpTypeArray %uint %uint_{}", self.dir_len);
        let _ = writeln!(t, "%out_array = OpTypeArray %uint %uint_{}", self.out_len);
        t.push_str(
            "%Directions = OpTypeStruct %dir_array\n%Output = OpTypeStruct %out_array\n\
             %ptr_Directions = OpTypePointer StorageBuffer %Directions\n\
             %ptr_Output = OpTypePointer StorageBuffer %Output\n\
             %ptr_uint = OpTypePointer StorageBuffer %uint\n",
        );
        if self.variables {
            t.push_str("%ptr_fn_uint = OpTypePointer Function %uint\n");
        }
        if self.invocation {
            t.push_str("%ptr_in_uint = OpTypePointer Input %uint\n%invocation = OpVariable %ptr_in_uint Input\n");
        }
        if self.workgroup {
            t.push_str("%ptr_in_v3uint = OpTypePointer Input %v3uint\n%workgroup = OpVariable %ptr_in_v3uint Input\n");
        }
        t.push_str("%directions = OpVariable %ptr_Directions StorageBuffer\n%output = OpVariable %ptr_Output StorageBuffer\n");
    }
}

impl Writer<'_> {
    fn phi(&self) -> bool {
        self.f.mode == Mode::Phi
    }

    fn multi(&self) -> bool {
        self.f.mode == Mode::Multi
    }

    /// The `%uint_N` constants the function uses.
    pub(super) fn constants(&self) -> BTreeSet<u32> {
        let f = self.f;
        let mut consts: BTreeSet<u32> = [0, 1, self.dir_base, self.out_base].into();
        if self.multi() {
            consts.extend([f.direction_stride, f.output_stride]);
        }
        consts.extend(self.s.blocks.iter().map(|b| b.label));
        consts
    }

    fn module(&self) -> String {
        let f = self.f;
        let mut t = String::new();
        let _ = writeln!(
            t,
            "; A structured CFG fleshed into a program that records its path (mode {}, seed {}, paths of up to {} blocks walked at random).",
            f.mode.name(),
            self.opts.seed,
            self.opts.max_len
        );
        let _ = writeln!(t, "; Binding 0.0 `directions` forces the path; binding 0.1 `output` records the labels of the blocks executed.");
        for (i, p) in f.paths.iter().enumerate() {
            let who = if self.multi() { alloc::format!("invocation {i}") } else { String::from("the path") };
            let _ = write!(t, "; {who}:");
            for (k, &l) in p.blocks.iter().enumerate() {
                let _ = write!(t, "{}{l}", if k == 0 { " " } else { " -> " });
                if let Some(n) = self.s.names.get(&l) {
                    let _ = write!(t, " (%{n})");
                }
            }
            t.push('\n');
        }
        let _ = writeln!(t, "; directions: {}", f.directions_input());
        let _ = writeln!(t, "; expected output: {}", f.expected_input());
        let count = f.invocations();
        Preamble {
            invocations: count,
            dir_len: f.direction_stride * count,
            out_len: f.output_stride * count,
            consts: self.constants(),
            variables: !self.phi(),
            invocation: self.multi(),
            workgroup: false,
            names: Some(&self.s.names),
        }
        .write(&mut t);
        self.function(&mut t, "main");
        t
    }

    /// The program as the function `%<name>` (`OpFunction` to
    /// `OpFunctionEnd`), its ids prefixed with `self.prefix`.
    pub(super) fn function(&self, t: &mut String, name: &str) {
        let f = self.f;
        let p = self.prefix;
        let _ = writeln!(t, "%{name} = OpFunction %void None %fn");
        let preds = self.predecessors();
        for (i, b) in self.s.blocks.iter().enumerate() {
            let l = b.label;
            let _ = writeln!(t, "%{p}b{l} = OpLabel");
            // The output and direction indices coming in, as ids.
            let (o_in, d_in) = if self.phi() {
                match preds.get(&l) {
                    Some(ps) => {
                        for (v, what) in [("o", "o1"), ("d", "d1")] {
                            let _ = write!(t, "%{p}b{l}_{v} = OpPhi %uint");
                            for q in ps {
                                let _ = write!(t, " %{p}b{q}_{what} %{p}b{q}");
                            }
                            t.push('\n');
                        }
                        (alloc::format!("{p}b{l}_o"), alloc::format!("{p}b{l}_d"))
                    }
                    None => (alloc::format!("uint_{}", self.out_base), alloc::format!("uint_{}", self.dir_base)),
                }
            } else {
                if i == 0 {
                    let (ob, db) = (self.out_base, self.dir_base);
                    let _ = writeln!(
                        t,
                        "%{p}outi = OpVariable %ptr_fn_uint Function %uint_{ob}\n%{p}diri = OpVariable %ptr_fn_uint Function %uint_{db}"
                    );
                    if self.multi() {
                        let _ = writeln!(
                            t,
                            "%{p}inv = OpLoad %uint %invocation\n%{p}out_start = OpIMul %uint %{p}inv %uint_{}\n\
                             %{p}dir_start = OpIMul %uint %{p}inv %uint_{}",
                            f.output_stride, f.direction_stride
                        );
                        if ob == 0 && db == 0 {
                            let _ = writeln!(t, "OpStore %{p}outi %{p}out_start\nOpStore %{p}diri %{p}dir_start");
                        } else {
                            let _ = writeln!(
                                t,
                                "%{p}out_at = OpIAdd %uint %{p}out_start %uint_{ob}\n%{p}dir_at = OpIAdd %uint %{p}dir_start %uint_{db}\n\
                                 OpStore %{p}outi %{p}out_at\nOpStore %{p}diri %{p}dir_at"
                            );
                        }
                    }
                }
                let _ = writeln!(t, "%{p}b{l}_o = OpLoad %uint %{p}outi");
                (alloc::format!("{p}b{l}_o"), alloc::format!("{p}diri"))
            };
            let _ = writeln!(
                t,
                "%{p}b{l}_p = OpAccessChain %ptr_uint %output %uint_0 %{o_in}\nOpStore %{p}b{l}_p %uint_{l}\n\
                 %{p}b{l}_o1 = OpIAdd %uint %{o_in} %uint_1"
            );
            if !self.phi() {
                let _ = writeln!(t, "OpStore %{p}outi %{p}b{l}_o1");
            }
            let decides = matches!(b.term, Term::Cond(..) | Term::Switch(..));
            if decides {
                let index = if self.phi() {
                    d_in.clone()
                } else {
                    let _ = writeln!(t, "%{p}b{l}_i = OpLoad %uint %{p}diri");
                    alloc::format!("{p}b{l}_i")
                };
                let _ = writeln!(
                    t,
                    "%{p}b{l}_q = OpAccessChain %ptr_uint %directions %uint_0 %{index}\n%{p}b{l}_dir = OpLoad %uint %{p}b{l}_q\n\
                     %{p}b{l}_d1 = OpIAdd %uint %{index} %uint_1"
                );
                if !self.phi() {
                    let _ = writeln!(t, "OpStore %{p}diri %{p}b{l}_d1");
                }
            } else if self.phi() {
                // The direction index passes through unchanged: a copy gives
                // it this block's name for the successors' phis.
                let _ = writeln!(t, "%{p}b{l}_d1 = OpCopyObject %uint %{d_in}");
            }
            if let Term::Cond(_, x, y) = b.term
                && x != y
            {
                let _ = writeln!(t, "%{p}b{l}_c = OpINotEqual %bool %{p}b{l}_dir %uint_0");
            }
            write_merge(&mut *t, p, b.merge);
            let _ = match &b.term {
                Term::Branch(x) => writeln!(t, "OpBranch %{p}b{x}"),
                // One target twice (before SPIR-V 1.6): the direction is read
                // all the same; a branch, or under a selection merge a switch
                // of only a default, takes it.
                Term::Cond(_, x, y) if x == y && matches!(b.merge, Some(Merge::Selection(_))) => {
                    writeln!(t, "OpSwitch %{p}b{l}_dir %{p}b{x}")
                }
                Term::Cond(_, x, y) if x == y => writeln!(t, "OpBranch %{p}b{x}"),
                Term::Cond(_, x, y) => writeln!(t, "OpBranchConditional %{p}b{l}_c %{p}b{x} %{p}b{y}"),
                Term::Switch(_, d, cases) => {
                    let _ = write!(t, "OpSwitch %{p}b{l}_dir %{p}b{d}");
                    write_cases(&mut *t, p, cases.iter().enumerate().map(|(k, c)| (k as u32, c.1)));
                    writeln!(t)
                }
                Term::Return => writeln!(t, "OpReturn"),
                Term::Unreachable => writeln!(t, "OpUnreachable"),
            };
        }
        t.push_str("OpFunctionEnd\n");
    }

    /// Per block label: its predecessors over branch edges, each once, in
    /// layout order.
    fn predecessors(&self) -> BTreeMap<Label, Vec<Label>> {
        let mut preds: BTreeMap<Label, Vec<Label>> = BTreeMap::new();
        for b in &self.s.blocks {
            for t in b.term.targets() {
                let v = preds.entry(t).or_default();
                if !v.contains(&b.label) {
                    v.push(b.label);
                }
            }
        }
        preds
    }
}

impl Fleshed {
    /// The program as an AmberScript test: the directions and a zeroed
    /// output buffer in, one workgroup, and the expected output as its
    /// EXPECT line.
    pub fn amber(&self) -> String {
        use crate::amber::export::{Binding, Export, ExportBuffer, export};
        let words = |xs: &[u32]| xs.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
        let (dirs, expected) = (words(&self.directions), words(&self.expected));
        let zeros = alloc::vec![0u8; expected.len()];
        let mut header = String::from(
            "A structured CFG fleshed by spvlab (the paper's section 6): `directions` forces\n\
             a path, `output` records the labels of the blocks it executes; the EXPECT line\n\
             is that path.\n",
        );
        for (i, p) in self.paths.iter().enumerate() {
            let _ = write!(header, "path {i}:");
            for l in &p.blocks {
                let _ = write!(header, " {l}");
            }
            header.push('\n');
        }
        export(&Export {
            text: &self.text,
            env: Some(crate::TargetEnv::Spv1_4),
            entry: "main",
            workgroups: [1, 1, 1],
            specialize: Vec::new(),
            buffers: alloc::vec![
                ExportBuffer { binding: Binding::Storage { set: 0, binding: 0 }, name: Some("directions"), ty: None, input: &dirs, output: &dirs },
                ExportBuffer { binding: Binding::Storage { set: 0, binding: 1 }, name: Some("output"), ty: None, input: &zeros, output: &expected },
            ],
            header: Some(&header),
        })
    }
}

#[cfg(feature = "serde")]
impl Fleshed {
    /// The page's state for this program: its text for SPIR-V 1.4, the Run
    /// tab open with the directions filled in (a share link's contents).
    pub fn share_state(&self) -> crate::share::ShareState {
        use crate::share::{RunView, ShareState};
        let mut run = RunView { workgroups: Some([1, 1, 1]), ..RunView::default() };
        for (slot, input) in self.buffer_inputs() {
            run.buffers.insert(alloc::format!("{slot}"), input);
        }
        ShareState {
            text: self.text.clone(),
            target_env: String::from(crate::TargetEnv::Spv1_4.name()),
            panel: Some(String::from("run")),
            run: Some(run),
            ..ShareState::default()
        }
    }
}
