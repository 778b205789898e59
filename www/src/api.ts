// The contract between the page and the engine (web/ crate, compiled to wasm and
// called from a Web Worker). The Rust side (web/src/lib.rs, serde) produces exactly
// these shapes, camelCase; tests/e2e and www/src use only these types.
//
// Text positions: `from`/`to` are offsets in UTF-16 code units (what CodeMirror and
// JavaScript strings use), `line`/`column` are 1-based (column in UTF-16 units).

export type Severity = "error" | "warning" | "note";

export interface TextRange {
  from: number;
  to: number;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** A span of core: bytes of the text, or words of the binary (see `unit`). */
export interface Span {
  start: number;
  end: number;
}

export interface Related {
  span: Span;
  label: string;
}

/** Core's own diagnostic (spvlab_core::Diagnostic, serialised), with where it
 *  lies for the page (analysis::report::LocatedDiagnostic). */
export interface Diagnostic {
  /** Stable rule code, e.g. `cfg.merge-not-structurally-dominated`. */
  code: string;
  severity: Severity;
  message: string;
  /** Core's span: byte offsets in the text, or word offsets in the binary. */
  span: Span;
  unit: "TextBytes" | "BinaryWords";
  label: string;
  related: Related[];
  help?: string | null;
  /** Present for text input: the primary span, and each related span. */
  range?: TextRange;
  relatedRanges?: TextRange[];
  /** Present for binary input (word offset of the instruction). */
  wordOffset?: number;
  /** The rule's explanation (what the spec requires, and why). */
  explanation?: string;
  /** The rule's one-line summary. */
  summary?: string;
  /** rustc-style rendering, for copy-paste. */
  rendered: string;
  /** Graph marks: the function (result id) and the blocks (label ids) and
   *  edges (label id pairs) the problem concerns. */
  function?: number;
  blocks: number[];
  edges: [number, number][];
}

export type EdgeKind = "branch" | "merge" | "continue";
export type ConstructKind = "selection" | "loop" | "continue" | "switch" | "case";

export interface CfgBlock {
  /** Label result id. */
  id: number;
  /** Friendly name as spirv-dis prints it, without `%` (untrusted text!). */
  name: string;
  /** The block's text, from its OpLabel to its terminator (text input only). */
  range?: TextRange;
  /** The instructions of the block, disassembled, one per line. */
  listing: string[];
  entry: boolean;
  exit: boolean;
  reachable: boolean;
  structurallyReachable: boolean;
  /** "selection-header" | "loop-header" | "switch-header" | "merge" |
   *  "continue-target" | "back-edge-block" | "case-target" */
  roles: string[];
  /** Immediate dominators (label ids), absent for the root / unreachable. */
  idom?: number;
  structuralIdom?: number;
  /** Index into `constructs` of the innermost construct holding the block. */
  innermost?: number;
}

export interface CfgEdge {
  from: number;
  to: number;
  kind: EdgeKind;
  back: boolean;
}

export interface CfgConstruct {
  kind: ConstructKind;
  /** The header block (for a case construct: the case target). */
  header: number;
  blocks: number[];
  /** Index of the parent construct in `constructs`. */
  parent?: number;
}

export interface FunctionCfg {
  /** Function result id, and its friendly name (untrusted text). */
  id: number;
  name: string;
  blocks: CfgBlock[];
  edges: CfgEdge[];
  constructs: CfgConstruct[];
}

export interface IdInfo {
  id: number;
  /** Friendly name (untrusted text). */
  name: string;
  /** The defining instruction's text range and its disassembly. */
  def?: TextRange;
  defText: string;
  /** The disassembled type, e.g. `%_ptr_Function_float`, when the id has a type. */
  type?: string;
  /** Every use of the id in the text. */
  refs: TextRange[];
}

/** Input to `analyze`. */
export interface AnalyzeRequest {
  /** SPIR-V assembly text. */
  text: string;
  /** SPIRV-Tools spelling: spv1.0..spv1.6, vulkan1.0..vulkan1.4, opencl..., opengl... */
  targetEnv: string;
}

/** What the page shows after each edit: one call does it all. */
export interface AnalyzeReport {
  /** True when the text assembled. */
  assembled: boolean;
  /** True when it assembled and the validator found no error. */
  valid: boolean;
  /** The binary, little-endian words (empty when it did not assemble). */
  words: number[];
  /** Assembler diagnostics, or validator diagnostics when it assembled. */
  diagnostics: Diagnostic[];
  /** Canonical disassembly with friendly names (spirv-dis default form). */
  disassembly: string;
  /** For each instruction: its first word, word count and text range. */
  sourceMap: { wordOffset: number; wordCount: number; range: TextRange }[];
  functions: FunctionCfg[];
  ids: IdInfo[];
  /** Time spent in the engine, for the benchmark (ms, measured by the worker). */
  elapsedMs?: number;
}

/** Options of the CFG drawing (the DOT text comes from the engine). */
export interface DotOptions {
  /** Show each block's full instruction listing instead of its name. */
  listing: boolean;
  /** Draw construct regions (clusters). */
  constructs: boolean;
  /** Overlay dominator tree edges: none, regular or structural. */
  dominators: "none" | "regular" | "structural";
  /** Hide blocks that are not structurally reachable. */
  hideUnreachable: boolean;
  /** Highlight: selected block id, and the constructs containing it. */
  selected?: number;
}

/** The CFG panel's view options (and in a share link, `ShareState.cfg`). */
export interface CfgView {
  /** Each block's instruction listing instead of its name. */
  listing: boolean;
  /** The constructs drawn as nested regions. */
  constructs: boolean;
  /** The dominator tree overlaid. */
  dominators: "none" | "regular" | "structural";
  /** Blocks that are not structurally reachable left out. */
  hideUnreachable: boolean;
  /** The constructs holding the selected block highlighted. */
  containing: boolean;
}

/** The share state in the URL fragment (`#v1/...`, core/src/share.rs). */
export interface ShareState {
  text: string;
  targetEnv: string;
  /** Result id of the function shown in the CFG panel. */
  function?: number;
  /** Which panel is open: "problems" | "cfg" | "disassembly" | "binary".
   *  Older links may name "run" (the page had a Run tab): the page then opens
   *  its default panel. */
  panel?: string;
  /** The CFG panel's options (absent in older links: the defaults). */
  cfg?: CfgView;
  /** The Run tab's inputs and the chosen invocation (absent in older links). */
  run?: ShareRun;
}

/** The Run tab's inputs in a share link (core's share::RunView). */
export interface ShareRun {
  entry?: string;
  workgroups?: [number, number, number];
  /** By "SET.BINDING" or "push", in the interpreter's input language. */
  buffers?: Record<string, string>;
  /** Spec constant values by SpecId. */
  spec?: Record<string, string>;
  /** The invocation picked (its global id; for a draw the pixel [x, y, 0]). */
  invocation?: [number, number, number];
  /** How a Fragment entry point is drawn (core's share::DrawView). */
  draw?: DrawRequest;
}

/** An Amber file's error, located in the file (web/src/amber.rs). */
export interface AmberFailure {
  line: number;
  column: number;
  message: string;
  /** A script with a stage the page does not run (geometry,
   *  tessellation): recognised, not run. */
  graphics: boolean;
}

/** An Amber file as the Run tab holds it (`amberLoad`). */
export interface AmberScript {
  /** The shader as SPIR-V assembly. */
  text: string;
  /** The shader was SPIRV-HEX, disassembled. */
  disassembled: boolean;
  targetEnv: string;
  entry?: string;
  workgroups: [number, number, number];
  spec: Record<string, string>;
  inputs: { key: string; buffer: string; spec: string }[];
  expects: { line: number; text: string }[];
  /** A graphics script: its draw, as the Run tab's draw settings (the
   *  fragment shader is `text`, drawn with the passthrough vertex shader);
   *  absent for a compute dispatch. */
  draw?: Required<DrawRequest>;
}

/** The EXPECT lines checked against one backend's buffers and, for a draw,
 *  its image (`amberCheck`). */
export interface AmberCheck {
  expects: { line: number; text: string; pass: boolean; failures: string[] }[];
  error?: AmberFailure;
}

/** What `session.run` (the interpreter) and `session.runGpu` (WebGPU) are
 *  given (web/src/run.rs, `RunRequest`); every field is optional. */
export interface RunRequest {
  /** The entry point; absent: the first GLCompute one. */
  entry?: string;
  /** Workgroups in x, y, z (default [1, 1, 1]). */
  workgroups?: [number, number, number];
  /** Each buffer's input in the interpreter's input language (`seq:0,1,64`,
   *  `u32: 1 2 3`, `random:7,16`, `zeros:8`), keyed "SET.BINDING", or "push"
   *  for the push constants; a buffer not given is zeros. */
  buffers?: Record<string, string>;
  /** Spec constant values by SpecId (`{ "3": "64" }`). */
  spec?: Record<string, string>;
  /** The interpreter's step budget (default 1,000,000). */
  maxSteps?: number;
  /** runGpu: dispatch even when the interpreter runs out of steps. */
  force?: boolean;
  /** The interpreter's path trace (the CFG panel's path view): the global ids
   *  whose paths to record (with the edge counts), ... */
  paths?: [number, number, number][];
  /** ... and the branch edges taken over all invocations, counted. For a
   *  draw, `paths` name pixels: [x, y, 0]. */
  edges?: boolean;
  /** How a Fragment entry point is drawn (absent: 256x256, one rectangle,
   *  B8G8R8A8_UNORM cleared to 0); a compute entry point ignores it. */
  draw?: DrawRequest;
}

/** A draw's shape (core's plan::DrawShape): one rectangle over the
 *  framebuffer (Amber's DRAW_RECT) or a grid of cells (DRAW_GRID). */
export type DrawShape = { kind: "rect" } | { kind: "grid"; columns: number; rows: number };

/** The draw part of a RunRequest (web/src/run.rs, `DrawRequest`). */
export interface DrawRequest {
  width?: number;
  height?: number;
  shape?: DrawShape;
  /** "B8G8R8A8_UNORM" (default), "R8G8B8A8_UNORM", "R32G32B32A32_SFLOAT" or
   *  "R32_SFLOAT". */
  format?: string;
  /** The colour the attachment is cleared to before the draw: RGBA from 0
   *  to 1 (default [0, 0, 0, 0]). */
  clear?: [number, number, number, number];
}

/** A draw's colour attachment after the draw (web/src/run.rs, `Image`). */
export interface DrawImage {
  width: number;
  height: number;
  /** Its format's Vulkan name ("B8G8R8A8_UNORM"). */
  format: string;
  /** 8-bit RGBA rows, R first (a float format clamped to [0, 1]). */
  rgba: Uint8Array;
  /** A float format's texels as stored (little-endian f32s, 1 or 4 a
   *  texel); absent for UNORM formats, whose `rgba` are their values. */
  data?: Uint8Array;
}

/** What the interpreter's draw did (core's interp::DrawStats). */
export interface DrawCounts {
  vertices: number;
  fragments: number;
  helpers: number;
  steps: number;
}

/** The vertex or the fragment (pixel) of a draw an error is about. */
export type DrawSite = { stage: "vertex"; vertex: number; instance: number } | { stage: "fragment"; x: number; y: number; primitive: number };

/** A block in a trace: its function's result id and its label's id. */
export interface TraceBlock {
  function: number;
  label: number;
}

/** What the interpreter recorded (core's interp::TraceReport): each asked
 *  invocation's path, compressed (`blocks` in order, `count` times over), and
 *  every branch edge taken, with its count over all invocations. */
export interface TraceReport {
  paths: { invocation: [number, number, number]; segments: { blocks: TraceBlock[]; count: number }[] }[];
  edges: { function: number; from: number; to: number; count: number }[];
}

/** A buffer's contents read by its binding's type tree (core's typed output,
 *  `interp::values::Shown`): numbers, arrays for vectors and arrays, objects
 *  for structs (members by name, else by index); a float that is not finite
 *  is the string "NaN", "inf" or "-inf"; bits of other types are "0x..." and
 *  types without bytes "<...>". */
export type ShownValue = number | string | ShownValue[] | { [member: string]: ShownValue };

/** One scalar of a buffer, as the run plan lays it out (core's
 *  plan::Leaf): its path (`data[3]`, `m.x[1]`, `(value)` for a scalar
 *  binding; a struct member without a name by its index), where its bytes
 *  lie and what they are. */
export interface Leaf {
  path: string;
  /** The first byte, in the buffer's `bytes`. */
  offset: number;
  /** Bytes: 1, 2, 4 or 8. */
  size: number;
  kind: "int" | "uint" | "float";
}

/** One bound buffer after a run. */
export interface RunBuffer {
  set: number;
  binding: number;
  /** The binding's name as the text spells it (`%buf`). */
  name: string;
  /** "storage buffer" | "uniform buffer" */
  kind: string;
  /** The bytes after the run. */
  bytes: number[];
  value: ShownValue;
  /** Each scalar of `bytes`, in the order of `value`'s leaves. */
  leaves: Leaf[];
}

/** What is wrong with a run's inputs or module, as data (core's
 *  plan::PlanError). A slot is a RunRequest `buffers` key: "SET.BINDING"
 *  or "push". */
export type PlanError =
  | { error: "noModule" }
  | { error: "badSpec"; id: number; value: string; reason: string }
  | { error: "unreadable"; reason: string }
  | { error: "noSuchEntry"; name: string; available: string[]; kernels: boolean }
  | { error: "noEntry"; kernels: boolean }
  | { error: "unknownBuffer"; slot: string; entry: string; available: string[] }
  | { error: "unknownParameter"; slot: string; entry: string; parameters: [number, string][] }
  /** `column`: 1-based, in `input`. */
  | { error: "badInput"; slot: string; input: string; column: number; reason: string }
  | { error: "missingPointer"; index: number; name: string }
  /** A draw past a limit (`what`: "framebuffer width", "framebuffer height",
   *  "grid cells", ...), or below its least size. */
  | { error: "tooLarge"; what: string; value: number; limit: number }
  | { error: "badVertexModule"; reason: string };

/** Why a run gave no buffers. */
export interface RunFailure {
  kind:
    | "input" // the request (a buffer spec, an entry point): `plan` says what
    | "module" // nothing valid to run
    | "interp" // the interpreter stopped (out of bounds, a race, ...)
    | "stepBudget" // out of steps; on runGpu: not dispatched (unless `force`)
    | "refused" // our WGSL lowering refuses the module: see `code`
    | "noDevice" // no WebGPU (or no adapter)
    | "unsupported" // beyond the GPU runner (images, too many workgroups)
    | "validation" // WebGPU rejected the shader or pipeline
    | "deviceLost"
    | "timeout"
    | "panic";
  /** The refusal's reason code (`wgsl.int64`), for "refused". */
  code?: string;
  message: string;
  /** Where in the text (1-based), when the error names an instruction. */
  line?: number;
  column?: number;
  /** For "input" and "module": what the run plan found wrong, as data. */
  plan?: PlanError;
  /** For "interp" and "stepBudget": the interpreter's error, as data. */
  run?: RunErrorKind;
  /** A draw's error: the vertex or fragment it happened at. */
  site?: DrawSite;
}

/** The interpreter's error (core's interp::RunErrorKind, tagged by `kind`:
 *  "noTermination" with `steps` and `block`, "outOfBounds", "dataRace", ...). */
export type RunErrorKind = { kind: string } & Record<string, unknown>;

/** What `session.run(request)` answers, and `session.runGpu(request)`'s
 *  promise resolves to (it never rejects). */
export interface RunResult {
  /** "interp", or "wgpu" (WebGPU through our WGSL). */
  backend: string;
  ok: boolean;
  entryPoint: string;
  workgroups: [number, number, number];
  /** Empty when `ok` is false. */
  buffers: RunBuffer[];
  /** The interpreter's invocations and instructions executed. */
  invocations?: number;
  steps?: number;
  /** runGpu: the adapter, in words (absent when no GPU was asked). */
  adapter?: string;
  error?: RunFailure;
  /** What the request's `paths` / `edges` asked for (interpreter only; also
   *  after an error, up to it). */
  trace?: TraceReport;
  /** A draw's colour attachment (a Fragment entry point). */
  image?: DrawImage;
  /** The interpreter's counts of a draw (`invocations` is its fragments). */
  draw?: DrawCounts;
}

/** A node of a reflected type tree (core's reflect::TypeNode). */
export interface TypeNode {
  id: number;
  /** "void" | "bool" | "int" | "float" | "vector" | "matrix" | "array" |
   *  "runtimeArray" | "struct" | "pointer" | ... */
  kind: string;
  width?: number;
  signed?: boolean;
  count?: number;
  columns?: number;
  length?: number | null;
  name?: string;
  size?: number;
  arrayStride?: number;
  element?: TypeNode;
  members?: { name?: string; offset?: number; type: TypeNode }[];
}

/** One resource an entry point binds (core's reflect::Resource). */
export interface ReflectedResource {
  variable: number;
  name?: string;
  /** "storageBuffer" | "uniformBuffer" | "pushConstant" | "workgroup" | ... */
  kind: string;
  storageClass: string;
  set?: number;
  binding?: number;
  descriptorArray: boolean;
  /** The block's byte size (of its fixed part, when it ends in a runtime array). */
  size?: number;
  runtimeArray?: { fixedSize: number; stride?: number | null };
  type: TypeNode;
}

export interface ReflectedEntry {
  name: string;
  executionModel: string;
  function: number;
  workgroupSize?: { x?: number; y?: number; z?: number } | null;
  resources: ReflectedResource[];
}

/** `session.reflect()`: the last analysis's entry points. */
export interface Reflection {
  entryPoints: ReflectedEntry[];
  /** The spec constants a run can set (core's reflect/spec.rs). */
  specConstants?: ReflectedSpecConstant[];
}

/** A settable spec constant: its SpecId, name, type and default. */
export interface ReflectedSpecConstant {
  specId: number;
  id: number;
  name?: string;
  type: TypeNode;
  default?: string;
}

/** `generateCfg` (web/src/flesh.rs): a random structured CFG's request and
 *  module (valid by construction; the same seed, the same CFG). */
export interface GenerateRequest {
  seed?: number;
  blocks?: number;
  depth?: number;
}
export interface GeneratedCfg {
  text: string;
  /** How many blocks it has. */
  blocks: number;
  seed: number;
}

export type FleshMode = "basic" | "phi" | "multi";

/** `session.flesh`: which function of the last analysis (absent: the first
 *  with blocks), the path's seed, the mode, the random walk's bound. */
export interface FleshRequest {
  function?: number;
  seed?: number;
  mode?: FleshMode;
  maxLen?: number;
  invocations?: number;
}

/** A block of the source function: its label id and `%name`. */
export interface NamedBlock {
  id: number;
  name: string;
}

/** A fleshed program (core's flesh::Fleshed), ready for the Run calls. */
export interface FleshProgram {
  function: number;
  mode: FleshMode;
  text: string;
  targetEnv: string;
  workgroups: [number, number, number];
  /** The run's inputs by slot ("0.0": the directions). */
  buffers: Record<string, string>;
  /** The slot the path is written to ("0.1") and what it must hold after
   *  the run: `outputStride` words per invocation, labels then zeros. */
  output: string;
  expected: number[];
  outputStride: number;
  /** One per invocation: the source function's blocks in order. */
  paths: { blocks: NamedBlock[]; directions: number[] }[];
  /** Every block of the source function. */
  names: NamedBlock[];
  share: ShareState;
  amber: string;
}

/** Why a function was not fleshed: core's SkeletonError (`stage`
 *  "skeleton") or FleshError (`stage` "flesh") as data, tagged `error`. */
export type FleshFailure =
  | { stage: "noModule"; message: string }
  | {
      stage: "skeleton";
      error: { error: "notValid" | "noFunction" | "noTerminator"; block?: number };
      message: string;
      block?: NamedBlock;
      /** The validator's diagnostics ("notValid"). */
      diagnostics: Diagnostic[];
    }
  | { stage: "flesh"; error: { error: "noExit" | "noSuchBlock" | "empty"; entry?: number; target?: number }; message: string; block?: NamedBlock };

export interface FleshOutcome {
  program?: FleshProgram;
  failure?: FleshFailure;
}

/** `quizQuestion(seed, blocks)`: a generated CFG, about half of them one
 *  edit away from valid, with the validator's answer key. */
export interface QuizQuestion {
  seed: number;
  text: string;
  /** Its CFG, as the CFG panel draws it. */
  dot: string;
  blocks: NamedBlock[];
  valid: boolean;
  /** The block the first error points at (absent: valid, or no block). */
  fault?: NamedBlock;
  /** The first error, with its rule's summary and explanation. */
  diagnostic?: Diagnostic;
  mutation?: string;
}

/** The worker's messages. */
/** `session.wgsl()` (web/src/wgsl.rs): our WGSL of the last analysis with
 *  its source map, or why there is none. */
export interface WgslView {
  ok: boolean;
  text: string;
  /** Per WGSL line (0-based): the SPIR-V instruction it came from, as an
   *  index into the report's `sourceMap`, or null. */
  lines: (number | null)[];
  failure?: {
    /** `refused` (our lowering: `code`), `module` (nothing valid to lower),
     *  `unavailable` (an engine built without the lowering). */
    kind: "refused" | "module" | "unavailable";
    code?: string;
    message: string;
    /** Why WGSL has no equivalent. */
    why?: string;
    /** The refused instruction (`sourceMap` index) and where it starts (1-based). */
    instruction?: number;
    line?: number;
    column?: number;
    /** How many more refusals there are. */
    more: number;
  };
}

export type WorkerRequest =
  | { kind: "analyze"; id: number; request: AnalyzeRequest }
  /** The DOT of a function of the last analysis (the worker's session keeps it:
   *  a CFG toggle redraws without analysing again). */
  | { kind: "dot"; id: number; function: number; options: DotOptions }
  /** The teaching view of a function of the last analysis (www/src/teach). */
  | { kind: "teach"; id: number; function: number }
  | { kind: "disassembleBinary"; id: number; bytes: Uint8Array }
  | { kind: "encodeShare"; id: number; state: ShareState }
  | { kind: "decodeShare"; id: number; fragment: string }
  /** The Run panel: the last analysis's reflection, and its runs (on the
   *  interpreter, and on WebGPU; the worker's one session). */
  | { kind: "reflect"; id: number }
  /** `program: "flesh"`: run the last fleshed program instead (the Flesh
   *  panel; the worker keeps it in a session of its own). */
  | { kind: "run"; id: number; request: RunRequest; program?: "flesh" }
  | { kind: "runGpu"; id: number; request: RunRequest; program?: "flesh" }
  /** The Flesh panel (web/src/flesh.rs): a random CFG, a function of the
   *  last analysis fleshed (kept for `program: "flesh"` runs), a quiz
   *  question. */
  | { kind: "generateCfg"; id: number; request: GenerateRequest }
  | { kind: "flesh"; id: number; request: FleshRequest }
  | { kind: "quiz"; id: number; seed: number; blocks: number }
  /** A test hook: the next WebGPU dispatch loses its device (destroyed
   *  while the results are read back). */
  | { kind: "loseDevice"; id: number }
  /** The WGSL tab: the last analysis lowered to WGSL (web/src/wgsl.rs). */
  | { kind: "wgsl"; id: number }
  /** Amber files (web/src/amber.rs): read one for the Run tab, check its
   *  EXPECT lines against a run's buffers, write the last analysis's run. */
  | { kind: "amberLoad"; id: number; source: string }
  | { kind: "amberCheck"; id: number; source: string; buffers: RunBuffer[]; image?: DrawImage }
  | { kind: "amberExport"; id: number; request: RunRequest }
  /** Added by the page shell: what the engine offers (asked once, at start). */
  | { kind: "init"; id: number };

export type WorkerResponse =
  | { kind: "analyze"; id: number; report: AnalyzeReport }
  /** What the worker posts for an `analyze` request: the report as JSON text
   *  and the engine's time; the page's side (engine.ts) turns it into an
   *  `analyze` response. */
  | { kind: "analyzeJson"; id: number; json: string; elapsedMs: number }
  | { kind: "dot"; id: number; dot: string; elapsedMs: number }
  /** `TeachView` (www/src/teach/types.ts) as JSON text, "null" when none. */
  | { kind: "teach"; id: number; json: string }
  | { kind: "disassembleBinary"; id: number; text?: string; diagnostics: Diagnostic[] }
  | { kind: "encodeShare"; id: number; fragment: string }
  | { kind: "decodeShare"; id: number; state?: ShareState; error?: string }
  | { kind: "error"; id: number; message: string }
  | { kind: "reflect"; id: number; reflection: Reflection | null }
  /** A run's result and its time in the worker (ms, call to answer). */
  | { kind: "run"; id: number; result: RunResult; elapsedMs: number }
  | { kind: "runGpu"; id: number; result: RunResult; elapsedMs: number }
  | { kind: "loseDevice"; id: number }
  | { kind: "generateCfg"; id: number; generated: GeneratedCfg }
  | { kind: "flesh"; id: number; outcome: FleshOutcome }
  | { kind: "quiz"; id: number; question: QuizQuestion }
  | { kind: "wgsl"; id: number; view: WgslView; elapsedMs: number }
  | { kind: "amberLoad"; id: number; script?: AmberScript; error?: AmberFailure }
  | { kind: "amberCheck"; id: number; check: AmberCheck }
  | { kind: "amberExport"; id: number; text?: string; error?: RunFailure }
  | {
      kind: "init";
      id: number;
      version: string;
      /** Target environment names, as SPIRV-Tools spells them. */
      targetEnvs: string[];
      defaultTargetEnv: string;
      /** Completion words from the grammar (opcode and enumerant names), when the engine has them. */
      grammarWords?: string[];
    };
