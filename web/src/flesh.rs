//! Fleshing across the boundary (the page's Flesh panel and quiz); the
//! logic is core's (`spvlab_core::flesh`), the same calls as `spvlab gen-cfg`
//! and `spvlab flesh`:
//!
//! * `generateCfg({ seed?, blocks?, depth? })` → `GeneratedCfg`: a random
//!   structured CFG skeleton, as a module;
//! * `session.flesh({ function?, seed?, mode?, maxLen?, invocations? })` →
//!   `FleshOutcome`: a function of the last analysis fleshed, with its
//!   inputs, expected output, paths, share state and Amber test, or why not
//!   (core's `SkeletonError` / `FleshError` as data, an invalid module's
//!   diagnostics);
//! * `quizQuestion(seed, blocks)` → `QuizQuestion`: a generated CFG, about
//!   half of them one mutation away from valid, with the validator's key.

use crate::{Session, WebError, from_js_or_default, to_js_json};
use serde::{Deserialize, Serialize};
use spvlab_core::analysis::Analysis;
use spvlab_core::analysis::dot::DotOptions;
use spvlab_core::analysis::report::LocatedDiagnostic;
use spvlab_core::flesh::quiz::{Key, Question};
use spvlab_core::flesh::{self, Config, FleshError, Fleshed, Mode, Options, Skeleton, SkeletonError};
use spvlab_core::share::ShareState;
use spvlab_core::valid;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

/// The most blocks `generateCfg` makes (the page's control stops there too).
pub const MAX_BLOCKS: usize = 200;
/// The deepest nesting `generateCfg` opens.
pub const MAX_DEPTH: usize = 10;
/// The longest random walk `flesh` takes before the shortest route out.
pub const MAX_LEN: usize = 1000;
/// The most invocations of `multi` mode.
pub const MAX_INVOCATIONS: u32 = 64;

/// What `generateCfg` is given (every field optional).
#[derive(Deserialize, Debug, Clone, Copy, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct GenerateRequest {
    pub seed: Option<u64>,
    /// About how many blocks.
    pub blocks: Option<usize>,
    /// The deepest construct nesting.
    pub depth: Option<usize>,
}

/// A generated CFG.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct GeneratedCfg {
    /// The skeleton as a module (valid by construction).
    pub text: String,
    /// How many blocks it has.
    pub blocks: usize,
    pub seed: u64,
}

/// A random structured CFG (core's `flesh::generate`, as `spvlab gen-cfg
/// --fill`: the top level goes on until the size is reached, without the
/// shape knobs, so that any size draws at once); sizes past the limits are
/// clamped.
pub fn generate_cfg(req: GenerateRequest) -> GeneratedCfg {
    let d = Config::default();
    let cfg = Config {
        blocks: req.blocks.unwrap_or(d.blocks).clamp(1, MAX_BLOCKS),
        max_depth: req.depth.unwrap_or(d.max_depth).min(MAX_DEPTH),
        fill: true,
        ..d
    };
    let seed = req.seed.unwrap_or(1);
    let (s, _) = flesh::generate(seed, cfg);
    GeneratedCfg { text: s.module_text(), blocks: s.blocks.len(), seed }
}

/// What `session.flesh` is given (every field optional).
#[derive(Deserialize, Debug, Clone, Copy, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct FleshRequest {
    /// The function's result id (absent: the first with blocks).
    pub function: Option<u32>,
    pub seed: Option<u64>,
    pub mode: Option<Mode>,
    pub max_len: Option<usize>,
    pub invocations: Option<u32>,
}

impl FleshRequest {
    fn options(&self) -> Options {
        let d = Options::default();
        Options {
            seed: self.seed.unwrap_or(d.seed),
            mode: self.mode.unwrap_or(d.mode),
            max_len: self.max_len.unwrap_or(d.max_len).clamp(1, MAX_LEN),
            invocations: self.invocations.unwrap_or(d.invocations).clamp(1, MAX_INVOCATIONS),
        }
    }
}

/// A block of the source function: its label id and its name as the page
/// shows it (`%name`, or `%id`).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct NamedBlock {
    pub id: u32,
    pub name: String,
}

/// One invocation's path: the source function's blocks in order.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct FleshPath {
    pub blocks: Vec<NamedBlock>,
    /// The directions that force it.
    pub directions: Vec<u32>,
}

/// A fleshed program, ready for the Run calls.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FleshProgram {
    /// The source function (its result id).
    pub function: u32,
    pub mode: Mode,
    /// The program, as SPIR-V assembly, and the environment it needs.
    pub text: String,
    pub target_env: String,
    pub workgroups: [u32; 3],
    /// The run's inputs, by slot (`"0.0"`: the directions).
    pub buffers: BTreeMap<String, String>,
    /// The slot the program writes its path to (`"0.1"`), and what it must
    /// hold after the run (u32 words: `outputStride` per invocation, the
    /// blocks' labels in order, zeros after).
    pub output: String,
    pub expected: Vec<u32>,
    pub output_stride: u32,
    /// One per invocation.
    pub paths: Vec<FleshPath>,
    /// Every block of the source function, for naming the words of an output.
    pub names: Vec<NamedBlock>,
    /// The program in a share link (the Run tab, its inputs filled in).
    pub share: ShareState,
    /// The program as an AmberScript test.
    pub amber: String,
}

/// Why a function was not fleshed: core's reason, with the block it names
/// and the module's diagnostics when it is not valid.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", tag = "stage")]
pub enum FleshFailure {
    /// Nothing analysed yet.
    NoModule { message: String },
    /// No skeleton (`error`: core's `SkeletonError`, tagged `error`).
    Skeleton {
        error: SkeletonError,
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        block: Option<NamedBlock>,
        /// The validator's diagnostics (`notValid`), located in the text.
        diagnostics: Vec<LocatedDiagnostic>,
    },
    /// A skeleton that cannot be fleshed (core's `FleshError`).
    Flesh {
        error: FleshError,
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        block: Option<NamedBlock>,
    },
}

/// What `session.flesh` answers: the program, or why there is none.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FleshOutcome {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<FleshProgram>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<FleshFailure>,
}

fn named(s: &Skeleton, id: u32) -> NamedBlock {
    NamedBlock { id, name: s.name(id) }
}

/// Flesh function `req.function` of `a`.
pub fn flesh_function(a: &Analysis, req: &FleshRequest) -> Result<FleshProgram, FleshFailure> {
    let index = match (a.is_valid(), a.function_index(req.function)) {
        (true, Some(i)) => Ok(i),
        (true, None) => Err(SkeletonError::NoFunction),
        (false, _) => Err(SkeletonError::NotValid),
    };
    let skeleton = index.and_then(|i| Skeleton::of_function(a, i).map(|s| (i, s)));
    let (index, s) = skeleton.map_err(|error| {
        let block = error.block().map(|id| NamedBlock { id, name: format!("%{}", a.display_name(id)) });
        let diagnostics = if error == SkeletonError::NotValid { LocatedDiagnostic::all(a) } else { Vec::new() };
        FleshFailure::Skeleton { message: error.to_string(), error, block, diagnostics }
    })?;
    let fleshed = flesh::flesh(&s, &req.options()).map_err(|error| {
        let block = error.block().map(|id| named(&s, id));
        FleshFailure::Flesh { message: error.describe(&s), error, block }
    })?;
    Ok(program(&s, a.cfg().functions[index].id, &fleshed))
}

fn program(s: &Skeleton, function: u32, f: &Fleshed) -> FleshProgram {
    let share = f.share_state();
    FleshProgram {
        function,
        mode: f.mode,
        text: f.text.clone(),
        target_env: share.target_env.clone(),
        workgroups: [1, 1, 1],
        buffers: f.buffer_inputs().into_iter().map(|(slot, input)| (slot.to_string(), input)).collect(),
        output: f.output_slot().to_string(),
        expected: f.expected.clone(),
        output_stride: f.output_stride,
        paths: f
            .paths
            .iter()
            .map(|p| FleshPath { blocks: p.blocks.iter().map(|&l| named(s, l)).collect(), directions: p.directions.clone() })
            .collect(),
        names: s.blocks.iter().map(|b| named(s, b.label)).collect(),
        share,
        amber: f.amber(),
    }
}

impl Session {
    /// A function of the last analysis fleshed (see [`flesh_function`]).
    pub fn flesh(&self, req: &FleshRequest) -> FleshOutcome {
        let r = match &self.analysis {
            Some(a) => flesh_function(a, req),
            None => Err(FleshFailure::NoModule { message: "nothing analysed yet".into() }),
        };
        match r {
            Ok(p) => FleshOutcome { program: Some(p), failure: None },
            Err(f) => FleshOutcome { program: None, failure: Some(f) },
        }
    }
}

/// A quiz question, with its answer key (the page shows the key only after
/// the learner answers).
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct QuizQuestion {
    pub seed: u64,
    /// The question's module, its CFG's DOT (as the CFG panel draws it) and
    /// its blocks.
    pub text: String,
    pub dot: String,
    pub blocks: Vec<NamedBlock>,
    /// The validator's verdict.
    pub valid: bool,
    /// The block the first error points at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<NamedBlock>,
    /// The first error, located in `text`, with its rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostic: Option<LocatedDiagnostic>,
    /// The edit made to a generated CFG (`retarget-branch`...), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mutation: Option<&'static str>,
}

/// The question for `seed` of about `blocks` blocks (core's
/// `flesh::quiz`), keyed by the validator.
pub fn quiz_question(seed: u64, blocks: usize) -> QuizQuestion {
    let q = Question::new(seed, blocks);
    let text = q.text();
    let a = Analysis::of_text(&text, &valid::Options::default());
    let key = Key::of(&a);
    let name = |id: u32| NamedBlock { id, name: format!("%{}", a.display_name(id)) };
    let blocks = a.cfg().functions.first().map(|f| f.blocks.iter().map(|b| name(b.label)).collect()).unwrap_or_default();
    let diagnostic = key.diagnostic.and_then(|i| LocatedDiagnostic::of(&a, i));
    QuizQuestion {
        seed,
        dot: a.dot(None, &DotOptions::default()).unwrap_or_default(),
        text,
        blocks,
        valid: key.valid,
        fault: key.block.map(name),
        diagnostic,
        mutation: q.mutation,
    }
}

/// `generateCfg(request?)` → `GeneratedCfg`.
#[wasm_bindgen(js_name = generateCfg)]
pub fn js_generate_cfg(request: JsValue) -> Result<JsValue, JsValue> {
    to_js_json(&generate_cfg(from_js_or_default(request)?))
}

/// `quizQuestion(seed, blocks)` → `QuizQuestion`.
#[wasm_bindgen(js_name = quizQuestion)]
pub fn js_quiz_question(seed: f64, blocks: u32) -> Result<JsValue, JsValue> {
    if !(seed.is_finite() && seed >= 0.0 && seed <= 9_007_199_254_740_991.0 && seed.fract() == 0.0) {
        return Err(WebError::BadOptions(format!("the seed {seed} is not a whole number from 0 to 2^53 - 1")).into());
    }
    to_js_json(&quiz_question(seed as u64, blocks as usize))
}

#[wasm_bindgen]
impl Session {
    /// `session.flesh(request?)` → `FleshOutcome` (refusals are data, never
    /// thrown; only a request of the wrong shape throws).
    #[wasm_bindgen(js_name = flesh)]
    pub fn js_flesh(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let req: FleshRequest = from_js_or_default(request)?;
        to_js_json(&self.flesh(&req))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spvlab_core::interp::{self, Buffers};

    /// The interpreter's output words of a fleshed program with its own inputs.
    fn run(p: &FleshProgram) -> Vec<u32> {
        let a = Analysis::of_text(&p.text, &valid::Options { env: crate::parse_env(&p.target_env).unwrap(), ..Default::default() });
        assert!(a.is_valid(), "{}", p.text);
        let mut bufs = Buffers::new();
        for (slot, input) in &p.buffers {
            assert_eq!(slot, "0.0");
            let words: Vec<u32> = input.strip_prefix("u32:").unwrap().split_whitespace().map(|w| w.parse().unwrap()).collect();
            bufs.insert((0, 0), words.iter().flat_map(|w| w.to_le_bytes()).collect());
        }
        assert_eq!(p.output, "0.1");
        bufs.insert((0, 1), vec![0u8; p.expected.len() * 4]);
        interp::run(a.ir().unwrap(), &interp::Options::default(), &mut bufs).unwrap();
        bufs[&(0, 1)].chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    #[test]
    fn generate_is_seeded_and_clamped() {
        let g = generate_cfg(GenerateRequest { seed: Some(7), blocks: Some(12), depth: Some(3) });
        assert_eq!(generate_cfg(GenerateRequest { seed: Some(7), blocks: Some(12), depth: Some(3) }), g);
        assert_ne!(generate_cfg(GenerateRequest { seed: Some(8), blocks: Some(12), depth: Some(3) }).text, g.text);
        let a = Analysis::of_text(&g.text, &valid::Options::default());
        assert!(a.is_valid());
        assert_eq!(a.cfg().functions[0].blocks.len(), g.blocks);
        // A size past the limit is clamped, not a hang or a panic.
        let big = generate_cfg(GenerateRequest { seed: Some(1), blocks: Some(usize::MAX), depth: Some(usize::MAX) });
        assert!(big.blocks <= 2 * MAX_BLOCKS, "{}", big.blocks);
        assert!(generate_cfg(GenerateRequest { blocks: Some(0), ..Default::default() }).blocks >= 1);
        // The size asked is about the size made.
        let near = (1..=20)
            .filter(|&seed| (10..=40).contains(&generate_cfg(GenerateRequest { seed: Some(seed), blocks: Some(14), depth: Some(4) }).blocks))
            .count();
        assert!(near >= 16, "{near} of 20 near 14 blocks");
    }

    /// A generated CFG put in the session, fleshed in each mode: the
    /// interpreter writes exactly the expected output, and the path names
    /// the source function's blocks.
    #[test]
    fn flesh_the_session_s_function_in_each_mode() {
        let g = generate_cfg(GenerateRequest { seed: Some(3), blocks: Some(14), depth: Some(4) });
        let mut s = Session::default();
        let r = s.analyze_text(&g.text, "spv1.6").unwrap();
        let ids: Vec<u32> = r.functions[0].blocks.iter().map(|b| b.id).collect();
        for mode in [Mode::Basic, Mode::Phi, Mode::Multi] {
            let out = s.flesh(&FleshRequest { seed: Some(5), mode: Some(mode), ..Default::default() });
            let p = out.program.unwrap_or_else(|| panic!("{:?}", out.failure));
            assert_eq!((p.mode, p.function), (mode, r.functions[0].id));
            assert_eq!(run(&p), p.expected, "{mode:?}");
            let invocations = if mode == Mode::Multi { Options::default().invocations as usize } else { 1 };
            assert_eq!(p.paths.len(), invocations);
            for (i, path) in p.paths.iter().enumerate() {
                let labels: Vec<u32> = path.blocks.iter().map(|b| b.id).collect();
                let at = i * p.output_stride as usize;
                assert_eq!(&p.expected[at..at + labels.len()], labels.as_slice());
                assert!(labels.iter().all(|l| ids.contains(l)));
                let named = r.functions[0].blocks.iter().find(|b| b.id == labels[0]).unwrap();
                assert_eq!(path.blocks[0].name, format!("%{}", named.name));
            }
            assert_eq!(p.share.text, p.text);
            assert!(p.amber.contains("EXPECT"), "{}", p.amber);
        }
    }

    #[test]
    fn refusals_are_data() {
        let mut s = Session::default();
        let f = s.flesh(&FleshRequest::default()).failure.unwrap();
        assert!(matches!(f, FleshFailure::NoModule { .. }));
        // An invalid module: its diagnostics.
        let q = (0..).map(|seed| quiz_question(seed, 8)).find(|q| !q.valid).unwrap();
        let r = s.analyze_text(&q.text, "spv1.6").unwrap();
        match s.flesh(&FleshRequest::default()).failure.unwrap() {
            FleshFailure::Skeleton { error: SkeletonError::NotValid, diagnostics, .. } => {
                assert!(!diagnostics.is_empty());
                assert_eq!(diagnostics[0].diagnostic.code, r.diagnostics[0].diagnostic.code);
            }
            other => panic!("{other:?}"),
        }
        // No such function.
        let g = generate_cfg(GenerateRequest::default());
        s.analyze_text(&g.text, "spv1.6").unwrap();
        let f = s.flesh(&FleshRequest { function: Some(9999), ..Default::default() }).failure.unwrap();
        assert!(matches!(f, FleshFailure::Skeleton { error: SkeletonError::NoFunction, .. }), "{f:?}");
        // A loop with no way out: no path to a return, located at the entry.
        let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
                    OpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
                    %main = OpFunction %void None %fn\n%entry = OpLabel\nOpBranch %head\n\
                    %head = OpLabel\nOpLoopMerge %merge %head None\nOpBranch %head\n\
                    %merge = OpLabel\nOpReturn\nOpFunctionEnd\n";
        let r = s.analyze_text(text, "spv1.6").unwrap();
        assert!(r.valid, "{:?}", r.diagnostics);
        match s.flesh(&FleshRequest::default()).failure.unwrap() {
            FleshFailure::Flesh { error: FleshError::NoExit { entry }, block: Some(b), message } => {
                assert_eq!(b, NamedBlock { id: entry, name: "%entry".into() });
                assert!(message.contains("%entry"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        // As the page reads it: tagged data, not a message to parse.
        let json = serde_json::to_value(s.flesh(&FleshRequest::default())).unwrap();
        assert_eq!(json["failure"]["stage"], "flesh");
        assert_eq!(json["failure"]["error"]["error"], "noExit");
    }

    /// The key is the validator's: a question is valid exactly when the
    /// validator says so, and an invalid one names the block holding the
    /// instruction its first error points at.
    #[test]
    fn quiz_questions_carry_the_validator_s_key() {
        let (mut valid, mut invalid) = (0, 0);
        for seed in 0..40 {
            let q = quiz_question(seed, 8);
            assert_eq!(quiz_question(seed, 8), q);
            let a = Analysis::of_text(&q.text, &valid::Options::default());
            assert_eq!(q.valid, a.is_valid());
            assert!(q.dot.starts_with("digraph"), "{}", q.dot);
            if q.valid {
                valid += 1;
                assert!(q.fault.is_none() && q.diagnostic.is_none());
                continue;
            }
            invalid += 1;
            let d = q.diagnostic.as_ref().unwrap();
            assert_eq!(d.diagnostic.severity, spvlab_core::Severity::Error);
            if let Some(fault) = &q.fault {
                assert!(q.blocks.contains(fault));
                let range = a.cfg().functions[0].blocks.iter().find(|b| b.label == fault.id).unwrap();
                let map = a.source_map();
                let (from, to) = (map[range.start as usize].span.start, map[range.end as usize - 1].span.end);
                assert!(from <= d.diagnostic.span.start && d.diagnostic.span.start < to, "{d:?} not in {}", fault.name);
            }
        }
        assert!(valid > 5 && invalid > 5, "{valid} valid, {invalid} invalid");
    }
}
