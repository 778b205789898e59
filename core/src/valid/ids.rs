//! Ids: every id an instruction uses is defined, before its use unless the
//! operand may be a forward reference (spec section 2.4 and 2.16.1; spirv-val's
//! `IdPass`), result types name types, and ids given where a value is expected
//! are not types. Also the small helpers the structure families share.

use crate::grammar::ext_inst::{debug_info, opencl_debug_info_100};
use crate::grammar::{addressing_model, op};
use super::Context;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::binary::parse::IdMap;
use crate::grammar::{self, OperandKind};
use crate::text::asm::suggest;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "ids.undefined",
        summary: "Every id used must be defined.",
        explanation: "An <id> operand must name the result of some instruction of the module. \
                      This id is never defined; it is reported once, at its first use \
                      (other uses are listed beside it).",
    },
    Rule {
        code: "ids.use-before-definition",
        summary: "An id must be defined before it is used, unless the operand allows a forward reference.",
        explanation: "SPIR-V requires that the definition of an <id> comes before its uses in \
                      the module (section 2.4 Logical Layout, 2.16.1 Universal Validation Rules), \
                      except for the operands that may refer forward: names, decorations, entry \
                      points and execution modes, branch and merge targets, OpPhi operands, the \
                      function called by OpFunctionCall, and pointers declared with \
                      OpTypeForwardPointer. An instruction also cannot use its own result.",
    },
    Rule {
        code: "ids.undefined-forward-reference",
        summary: "An id referenced forward must be defined somewhere.",
        explanation: "This operand may refer to an <id> defined later in the module (a name, a \
                      decoration, a branch target, an OpPhi operand...), but no instruction \
                      of the module defines it.",
    },
    Rule {
        code: "ids.type-forward-reference",
        summary: "A type may only refer forward to a pointer declared by OpTypeForwardPointer.",
        explanation: "Type declarations must come after the types they use; the only exception \
                      is a pointer type announced earlier with OpTypeForwardPointer (used to \
                      build recursive structures).",
    },
    Rule {
        code: "ids.not-a-type",
        summary: "A Result Type must be a type.",
        explanation: "The Result Type operand of an instruction must be the <id> of a type \
                      declaration (OpType...).",
    },
    Rule {
        code: "ids.operand-is-type",
        summary: "A value operand cannot be a type.",
        explanation: "Where an instruction expects a value (an object, a constant, a pointer), \
                      the <id> of a type declaration is not allowed; only type declarations, \
                      decorations, debug instructions and OpFunction take type <id>s.",
    },
    Rule {
        code: "ids.operand-needs-type",
        summary: "A value operand must have a type.",
        explanation: "Where an instruction expects a value, the <id> must be the result of an \
                      instruction that has a Result Type: a label, a string, an extended \
                      instruction set import or a decoration group is not a value.",
    },
    Rule {
        code: "ids.non-semantic-operand",
        summary: "A semantic instruction cannot use the result of a non-semantic instruction.",
        explanation: "Non-semantic extended instructions (NonSemantic.* sets) may be removed \
                      without changing the module's meaning, so no other instruction may \
                      depend on their results.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Binary, check_ids)],
    instructions: Instructions::None,
};

/// Whether the opcode declares a type with a result id (spirv-val's
/// `spvOpcodeGeneratesType`: every OpType* but OpTypeForwardPointer).
pub(super) fn generates_type(opcode: u16) -> bool {
    opcode != op::OpTypeForwardPointer
        && crate::grammar::instruction(opcode).is_some_and(|d| d.class == "Type-Declaration")
}

/// Whether the opcode is a decoration instruction.
pub(super) fn is_decoration(opcode: u16) -> bool {
    crate::grammar::instruction(opcode).is_some_and(|d| d.class == "Annotation")
}

/// Whether the opcode is a debug instruction (names, sources, strings, lines).
pub(super) fn is_debug(opcode: u16) -> bool {
    crate::grammar::instruction(opcode).is_some_and(|d| d.class == "Debug")
}

/// What [`check_ids`] asks of an opcode's grammar entry ([`generates_type`],
/// [`is_decoration`], [`is_debug`], whether it has a Result Type), for every
/// opcode in the grammar, worked out once per validation: it asks for every id
/// operand, and the grammar's lookup is a binary search.
struct Classes(Vec<u8>);

const TYPE: u8 = 1;
const DECORATION: u8 = 2;
const DEBUG: u8 = 4;
const HAS_RESULT_TYPE: u8 = 8;

impl Classes {
    fn new() -> Classes {
        let n = grammar::INSTRUCTIONS.iter().map(|d| d.opcode as usize + 1).max().unwrap_or(0);
        let mut t = alloc::vec![0u8; n];
        for d in grammar::INSTRUCTIONS {
            let o = d.opcode;
            t[o as usize] = (u8::from(generates_type(o)) * TYPE)
                | (u8::from(is_decoration(o)) * DECORATION)
                | (u8::from(is_debug(o)) * DEBUG)
                | (u8::from(d.has_result_type()) * HAS_RESULT_TYPE);
        }
        Classes(t)
    }

    fn has(&self, opcode: u16, flag: u8) -> bool {
        self.0.get(opcode as usize).is_some_and(|&c| c & flag != 0)
    }
}

/// The kind of extended instruction set an `OpExtInst` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ExtKind {
    /// Not an extended instruction.
    None,
    /// `OpenCL.DebugInfo.100`.
    OpenClDebugInfo,
    /// `DebugInfo`.
    DebugInfo,
    /// `NonSemantic.Shader.DebugInfo.100`.
    ShaderDebugInfo,
    /// Another `NonSemantic.*` set.
    NonSemantic,
    /// Any other set (GLSL.std.450, OpenCL.std...).
    Semantic,
}

impl ExtKind {
    pub(super) fn is_debug_info(self) -> bool {
        matches!(
            self,
            ExtKind::OpenClDebugInfo | ExtKind::DebugInfo | ExtKind::ShaderDebugInfo
        )
    }

    pub(super) fn is_non_semantic(self) -> bool {
        matches!(self, ExtKind::ShaderDebugInfo | ExtKind::NonSemantic)
    }
}

impl<'m> Context<'m> {
    /// The kind of set instruction `i` uses if it is an `OpExtInst` (or the
    /// forward-reference variant).
    pub(super) fn ext_kind(&self, i: usize) -> ExtKind {
        let Some(inst) = self.insts().get(i) else {
            return ExtKind::None;
        };
        if inst.opcode != op::OpExtInst && inst.opcode != op::OpExtInstWithForwardRefsKHR {
            return ExtKind::None;
        }
        let Some(set) = inst.operands.get(2) else {
            return ExtKind::Semantic;
        };
        let Some(imp) = self
            .def_inst(*set)
            .filter(|d| d.opcode == op::OpExtInstImport)
        else {
            return ExtKind::Semantic;
        };
        // The set's name, compared byte by byte (this runs for every
        // OpExtInst: no string is built).
        let words = imp.operands.get(1..).unwrap_or(&[]);
        let name = || words.iter().flat_map(|w| w.to_le_bytes()).take_while(|&b| b != 0);
        let is = |s: &str| name().eq(s.bytes());
        if is("OpenCL.DebugInfo.100") {
            ExtKind::OpenClDebugInfo
        } else if is("DebugInfo") {
            ExtKind::DebugInfo
        } else if is("NonSemantic.Shader.DebugInfo.100") {
            ExtKind::ShaderDebugInfo
        } else if name().take(12).eq("NonSemantic.".bytes()) {
            ExtKind::NonSemantic
        } else {
            ExtKind::Semantic
        }
    }

    /// Whether the module declares the capability (directly).
    pub(super) fn declares_capability(&self, c: u32) -> bool {
        self.insts()
            .iter()
            .any(|i| i.opcode == op::OpCapability && i.operands.first() == Some(&c))
    }

    /// The addressing model of the module's OpMemoryModel (0, Logical, if absent).
    pub(super) fn addressing_model(&self) -> u32 {
        self.insts()
            .iter()
            .find(|i| i.opcode == op::OpMemoryModel)
            .and_then(|i| i.operands.first().copied())
            .unwrap_or(addressing_model::Logical)
    }

    /// The opcode of the type `ty` with its operand words (after the result id).
    pub(super) fn type_def(&self, ty: u32) -> Option<(u16, &'m [u32])> {
        let d = self.def_inst(ty)?;
        Some((d.opcode, d.operands.get(1..).unwrap_or(&[])))
    }

    /// The storage class of a pointer type (typed or untyped).
    pub(super) fn pointer_storage_class(&self, ty: u32) -> Option<u32> {
        match self.type_def(ty)? {
            (op::OpTypePointer | op::OpTypeUntypedPointerKHR, ops) => ops.first().copied(),
            _ => None,
        }
    }
}

/// Instructions with an operand that names a type rather than a value
/// (spirv-val v2025.5's `InstructionCanHaveTypeOperand`, less what is checked
/// elsewhere): OpSizeOf, OpCooperativeMatrixLength*, OpUntypedArrayLengthKHR,
/// OpConstantSizeOfEXT and the instructions that make untyped pointers
/// (their Base Type). Not the other opcodes numbered among them
/// (OpSubgroupBallotKHR, OpSubgroupFirstInvocationKHR, OpUntypedPrefetchKHR).
fn takes_type_operand(opcode: u16) -> bool {
    // OpUntypedVariableLengthArrayINTEL's second operand is its Element Type
    // (SPV_INTEL_variable_length_array); spirv-val v2025.5 does not exempt it yet.
    matches!(
        opcode,
        op::OpSizeOf
            | op::OpUntypedVariableKHR
            | op::OpUntypedAccessChainKHR
            | op::OpUntypedInBoundsAccessChainKHR
            | op::OpUntypedPtrAccessChainKHR
            | op::OpUntypedInBoundsPtrAccessChainKHR
            | op::OpUntypedArrayLengthKHR
            | op::OpCooperativeMatrixLengthKHR
            | op::OpCooperativeMatrixLengthNV
            | op::OpConstantSizeOfEXT
            | op::OpUntypedVariableLengthArrayINTEL
    )
}

/// Whether operand `k` of an instruction may refer to an id defined later
/// (spirv-val's `spvOperandCanBeForwardDeclaredFunction`, operand indices
/// counting the result type and result id).
fn can_forward(opcode: u16, k: usize, ext: ExtKind, ext_number: u32) -> bool {
    if generates_type(opcode) {
        return true;
    }
    if ext.is_debug_info() && opcode == op::OpExtInst {
        return match ext {
            ExtKind::ShaderDebugInfo => false,
            ExtKind::OpenClDebugInfo => match ext_number {
                opencl_debug_info_100::DebugFunction => k == 13,
                opencl_debug_info_100::DebugTypeComposite => k >= 13,
                _ => false,
            },
            _ => match ext_number {
                debug_info::DebugFunction => k == 13,
                debug_info::DebugTypeComposite => k >= 12,
                _ => false,
            },
        };
    }
    match opcode {
        op::OpExecutionMode
        | op::OpExecutionModeId
        | op::OpEntryPoint
        | op::OpName
        | op::OpMemberName
        | op::OpSelectionMerge
        | op::OpDecorate
        | op::OpMemberDecorate
        | op::OpMemberDecorateIdEXT
        | op::OpDecorateId
        | op::OpDecorateString
        | op::OpMemberDecorateString
        | op::OpBranch
        | op::OpLoopMerge
        | op::OpConditionalEntryPointINTEL
        | op::OpConditionalCapabilityINTEL
        | op::OpConditionalExtensionINTEL
        | op::OpExtInstWithForwardRefsKHR => true,
        op::OpGroupDecorate | op::OpGroupMemberDecorate | op::OpBranchConditional | op::OpSwitch => {
            k != 0
        }
        op::OpFunctionCall => k == 2,
        op::OpPhi => k > 1,
        op::OpEnqueueKernel => k == 8,
        op::OpGetKernelNDrangeSubGroupCount | op::OpGetKernelNDrangeMaxSubGroupSize => {
            k == 3
        }
        op::OpGetKernelWorkGroupSize | op::OpGetKernelPreferredWorkGroupSizeMultiple => {
            k == 2
        }
        op::OpTypeForwardPointer => k == 0,
        op::OpTypeArray => k == 1,
        op::OpCooperativeMatrixPerElementOpEXT => k == 3,
        op::OpCooperativeMatrixReduceEXT => k == 4,
        op::OpCooperativeMatrixLoadTensorNV => k > 6,
        op::OpGraphEntryPointARM => k == 0,
        _ => false,
    }
}

/// The ids pass: definitions before uses, forward references resolved, result
/// types that are types, value operands that are values.
pub(super) fn check_ids(cx: &mut Context<'_>) {
    let insts = cx.insts();
    let bound = cx.id_bound();
    let mut forward_pointer: IdMap<bool> = IdMap::new(bound);
    // Ids already reported (one diagnostic per undefined id).
    let mut reported: IdMap<bool> = IdMap::new(bound);
    // Forward references: (id, instruction) in order of first reference.
    let mut forward: Vec<(u32, Use)> = Vec::new();
    // Suggestions scan every definition: only for the first few undefined ids.
    let mut suggestions = 0u32;
    let mut forward_seen: IdMap<bool> = IdMap::new(bound);
    let mut ops = Vec::new();
    // The ids of this instruction already reported as a type or an untyped
    // value: `OpIAdd %t %fn %fn` is one mistake, one diagnostic.
    let mut flagged: Vec<u32> = Vec::new();
    let classes = Classes::new();
    for i in 0..insts.len() {
        let inst = &insts[i];
        let opcode = inst.opcode;
        ops.clear();
        flagged.clear();
        ops.extend_from_slice(cx.operands(i));
        let ext = cx.ext_kind(i);
        let ext_number = if ext != ExtKind::None {
            inst.operands.get(3).copied().unwrap_or(0)
        } else {
            0
        };
        let non_semantic = ext.is_non_semantic();
        let mut exempt: Option<bool> = None;
        for (k, o) in ops.iter().enumerate() {
            let Some(&w) = inst.operands.get(o.start as usize) else {
                continue;
            };
            let def = cx.def(w);
            let before = def.is_some_and(|d| d < i);
            match o.kind {
                OperandKind::IdResultType => {
                    if before {
                        let d = def.unwrap_or(0);
                        if insts[d].opcode == op::OpTypeFunction {
                            cx.function_uses.push((i, k, w));
                        }
                        if !classes.has(insts[d].opcode, TYPE) {
                            let name = cx.name(w);
                            cx.error_related("ids.not-a-type", i, format!("the result type {name} is not a type"), [(d, format!("{name} is defined here"))]);
                        }
                    } else {
                        report_undefined(cx, (i, k, o.kind), w, def, &mut reported, &mut suggestions);
                    }
                }
                OperandKind::IdRef | OperandKind::IdMemorySemantics | OperandKind::IdScope => {
                    if before {
                        let d = def.unwrap_or(0);
                        let dop = insts[d].opcode;
                        if matches!(dop, op::OpFunction | op::OpTypeFunction) {
                            cx.function_uses.push((i, k, w));
                        }
                        // Worked out once per instruction, when an operand needs it.
                        let exempt = *exempt.get_or_insert_with(|| {
                            classes.has(opcode, TYPE)
                                || opcode == op::OpTypeForwardPointer
                                || classes.has(opcode, DEBUG)
                                || ext.is_debug_info()
                                || non_semantic
                                || classes.has(opcode, DECORATION)
                                || opcode == op::OpFunction
                                || opcode == op::OpCooperativeMatrixLengthNV
                                || takes_type_operand(opcode)
                                || (opcode == op::OpSpecConstantOp
                                    && inst.operands.get(2)
                                        == Some(&(op::OpCooperativeMatrixLengthNV as u32)))
                        });
                        if flagged.contains(&w) {
                            // Reported for an earlier operand of this instruction.
                        } else if classes.has(dop, TYPE) && !exempt {
                            flagged.push(w);
                            let name = cx.name(w);
                            cx.error_related("ids.operand-is-type", i, format!("operand {name} is a type, but a value is expected here"), [(d, format!("{name} is declared here"))]);
                        } else if !exempt
                            && !classes.has(dop, HAS_RESULT_TYPE)
                            && !crate::cfg::is_branch_opcode(opcode)
                            && !matches!(
                                opcode,
                                op::OpPhi
                                    | op::OpExtInst
                                    | op::OpExtInstImport
                                    | op::OpSelectionMerge
                                    | op::OpLoopMerge
                            )
                        {
                            flagged.push(w);
                            let name = cx.name(w);
                            cx.error_related("ids.operand-needs-type", i, format!("operand {name} has no type, but a value is expected here"), [(d, format!("{name} is defined here"))]);
                        } else if cx.ext_kind(d).is_non_semantic() && !non_semantic {
                            let name = cx.name(w);
                            let span = cx.span(d);
                            cx.error(
                                "ids.non-semantic-operand",
                                i,
                                format!(
                                    "operand {name} is the result of a non-semantic instruction"
                                ),
                            )
                            .relate(span, format!("{name} is defined here"));
                        }
                    } else if can_forward(opcode, k, ext, ext_number) {
                        if classes.has(opcode, TYPE) && !forward_pointer.get(w) {
                            if !reported.get(w) {
                                reported.set(w, true);
                                let name = cx.name(w);
                                let d = cx.error(
                                    "ids.type-forward-reference",
                                    i,
                                    format!("operand {name} is used by a type declaration before its definition"),
                                );
                                d.help = Some("declare the type first, or announce a pointer type with OpTypeForwardPointer".into());
                                if let Some(d) = def {
                                    let span = cx.span(d);
                                    if let Some(last) = cx.diags.last_mut() {
                                        last.relate(span, format!("{name} is defined here"));
                                    }
                                }
                            }
                        } else if def.is_none() && !forward_seen.get(w) {
                            forward_seen.set(w, true);
                            forward.push((w, (i, k, o.kind)));
                        }
                    } else {
                        report_undefined(cx, (i, k, o.kind), w, def, &mut reported, &mut suggestions);
                    }
                }
                _ => {}
            }
        }
        if opcode == op::OpTypeForwardPointer
            && let Some(&p) = inst.operands.first()
        {
            forward_pointer.set(p, true);
        }
    }
    for (w, at) in forward {
        if reported.get(w) {
            continue;
        }
        reported.set(w, true);
        let name = cx.name(w);
        let help = suggest(cx, w, at, &mut suggestions);
        cx.error(
            "ids.undefined-forward-reference",
            at.0,
            format!("{name} is referenced here but never defined"),
        )
        .help = help;
    }
}

/// Where an id is used: the instruction, the operand's index (result type and
/// result included, as [`grammar::id_need`] counts) and its kind.
type Use = (usize, usize, OperandKind);

/// "Did you mean" for an undefined id `w` used at `at`: the closest name among
/// the ids whose definition fits the use (a label for a branch target, a type
/// for a result type...). Not for ids that go by a number.
fn suggest(cx: &mut Context<'_>, w: u32, at: Use, budget: &mut u32) -> Option<String> {
    let (i, k, kind) = at;
    if *budget >= 16 {
        return None;
    }
    *budget += 1;
    let name = cx.name(w);
    let bare = name.strip_prefix('%').unwrap_or(&name);
    if bare.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let insts = cx.insts();
    let opcode = insts.get(i)?.opcode;
    let mut names: Vec<String> = Vec::new();
    for inst in insts {
        if let Some(r) = inst.result_id()
            && grammar::id_fits(opcode, k, kind, inst.opcode)
        {
            let n = cx.name(r);
            names.push(String::from(n.strip_prefix('%').unwrap_or(&n)));
        }
    }
    suggest::best(bare, names.iter().map(String::as_str)).map(|s| format!("did you mean `%{s}`?"))
}

/// Report a use of `w` at instruction `i` that is not defined before it.
fn report_undefined(
    cx: &mut Context<'_>,
    at: Use,
    w: u32,
    def: Option<usize>,
    reported: &mut IdMap<bool>,
    suggestions: &mut u32,
) {
    if reported.get(w) {
        return;
    }
    reported.set(w, true);
    let i = at.0;
    let name = cx.name(w);
    match def {
        Some(d) if d == i => {
            cx.error(
                "ids.use-before-definition",
                i,
                format!("{name} is used by the instruction that defines it"),
            );
        }
        Some(d) => {
            cx.error_related("ids.use-before-definition", i, format!("{name} is used before its definition"), [(d, format!("{name} is defined later, here"))]);
        }
        None => {
            let help = suggest(cx, w, at, suggestions);
            cx.error("ids.undefined", i, format!("{name} is used but never defined")).help = help;
        }
    }
}
