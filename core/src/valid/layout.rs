//! Module layout (spec section 2.4, Logical Layout of a Module) and the
//! function / block structure: capabilities, extensions, imports, the memory
//! model, entry points, execution modes, debug instructions, annotations, then
//! types, constants and global variables, then function declarations and
//! definitions; inside a function, its parameters, then blocks that each begin
//! with OpLabel and end with a terminator, then OpFunctionEnd.

use crate::grammar::op;
use super::Context;
use super::ids::{ExtKind};
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::grammar;
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "layout.section-order",
        summary: "Module-level instructions must come in the order of the logical layout.",
        explanation: "Section 2.4 of the spec fixes the order of a module: OpCapability, \
                      OpExtension, OpExtInstImport, OpMemoryModel, OpEntryPoint, execution \
                      modes, debug instructions (strings and sources, then names, then \
                      OpModuleProcessed), annotations, then types, constants and global \
                      variables, then functions. An instruction of an earlier section cannot \
                      come after a later section has begun, and module-level instructions \
                      cannot appear inside functions.",
    },
    Rule {
        code: "layout.missing-memory-model",
        summary: "A module must have exactly one OpMemoryModel, after the imports.",
        explanation: "The memory model instruction is required (section 2.4) and comes right \
                      after the capabilities, extensions and extended instruction set imports.",
    },
    Rule {
        code: "layout.outside-block",
        summary: "Instructions of a function body must be inside a block.",
        explanation: "A function definition is a list of blocks; every instruction other than \
                      OpFunction, OpFunctionParameter, OpFunctionEnd, OpLine and OpNoLine \
                      must be inside a block: after an OpLabel and up to the block's \
                      terminator. Such instructions cannot appear outside a function either.",
    },
    Rule {
        code: "layout.function-without-label",
        summary: "A function body must begin with a label.",
        explanation: "After OpFunction and its OpFunctionParameters, a function definition \
                      starts its first block with OpLabel.",
    },
    Rule {
        code: "layout.missing-terminator",
        summary: "Every block must end with a terminator.",
        explanation: "A block is a label followed by instructions and ended by exactly one \
                      termination instruction (a branch, OpReturn, OpReturnValue, OpKill, \
                      OpUnreachable...). A new OpLabel or OpFunctionEnd cannot come while a \
                      block is still open.",
    },
    Rule {
        code: "layout.misplaced-function-instruction",
        summary: "OpFunction, OpFunctionParameter, OpFunctionEnd and OpLabel have fixed places.",
        explanation: "A function starts with OpFunction outside any other function, its \
                      OpFunctionParameters follow it immediately, OpFunctionEnd closes it, and \
                      OpLabel only appears inside a function.",
    },
    Rule {
        code: "layout.declaration-after-definition",
        summary: "Function declarations must come before function definitions.",
        explanation: "Section 2.4: all function declarations (functions without a body) come \
                      before all function definitions.",
    },
    Rule {
        code: "layout.missing-function-end",
        summary: "Every function must end with OpFunctionEnd.",
        explanation: "The module ends while a function is still open: its OpFunctionEnd is missing.",
    },
    Rule {
        code: "layout.ext-inst-placement",
        summary: "Extended instructions have placement rules by set.",
        explanation: "Non-semantic extended instructions may appear from the types section on, \
                      between functions, or inside a block, but not between OpFunction and the \
                      first block. Debug-info scopes, declarations and values belong in function \
                      bodies; other debug-info instructions between the types and the \
                      functions. Instructions of other sets are computations and belong in \
                      blocks.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Structure, check_layout)],
    instructions: Instructions::None,
};

/// The module-level sections, in order.
const CAPABILITIES: u8 = 0;
const EXTENSIONS: u8 = 1;
const IMPORTS: u8 = 2;
const MEMORY_MODEL: u8 = 3;
const SAMPLER_ADDRESSING: u8 = 4;
const ENTRY_POINTS: u8 = 5;
const EXECUTION_MODES: u8 = 6;
const DEBUG_STRINGS: u8 = 7;
const DEBUG_NAMES: u8 = 8;
const DEBUG_PROCESSED: u8 = 9;
const ANNOTATIONS: u8 = 10;
const TYPES: u8 = 11;
const FUNCTIONS: u8 = 12;

fn section_name(s: u8) -> &'static str {
    match s {
        CAPABILITIES => "capabilities",
        EXTENSIONS => "extensions",
        IMPORTS => "extended instruction set imports",
        MEMORY_MODEL => "memory model",
        SAMPLER_ADDRESSING => "sampler addressing mode",
        ENTRY_POINTS => "entry points",
        EXECUTION_MODES => "execution modes",
        DEBUG_STRINGS => "debug strings and sources",
        DEBUG_NAMES => "debug names",
        DEBUG_PROCESSED => "OpModuleProcessed",
        ANNOTATIONS => "annotations",
        TYPES => "types, constants and global variables",
        _ => "functions",
    }
}

/// The module section an opcode belongs to; `None` for instructions that only
/// appear in functions. Instructions allowed both in the types section and in
/// functions (OpLine, OpNoLine, OpUndef, OpVariable, OpExtInst) give `TYPES`.
fn module_section(opcode: u16) -> Option<u8> {
    Some(match opcode {
        op::OpCapability | op::OpConditionalCapabilityINTEL => CAPABILITIES,
        op::OpExtension | op::OpConditionalExtensionINTEL => EXTENSIONS,
        op::OpExtInstImport => IMPORTS,
        op::OpMemoryModel => MEMORY_MODEL,
        op::OpSamplerImageAddressingModeNV => SAMPLER_ADDRESSING,
        op::OpEntryPoint | op::OpConditionalEntryPointINTEL => ENTRY_POINTS,
        op::OpExecutionMode | op::OpExecutionModeId => EXECUTION_MODES,
        op::OpString | op::OpSource | op::OpSourceExtension | op::OpSourceContinued => DEBUG_STRINGS,
        op::OpName | op::OpMemberName => DEBUG_NAMES,
        op::OpModuleProcessed => DEBUG_PROCESSED,
        op::OpLine | op::OpNoLine | op::OpUndef | op::OpVariable | op::OpUntypedVariableKHR => TYPES,
        op::OpExtInst | op::OpExtInstWithForwardRefsKHR => TYPES,
        _ => {
            let d = grammar::instruction(opcode)?;
            match d.class {
                "Annotation" => ANNOTATIONS,
                "Type-Declaration" | "Constant-Creation" => TYPES,
                _ => return None,
            }
        }
    })
}

/// Whether an opcode may appear both at module level (types section) and in blocks.
fn also_in_functions(opcode: u16) -> bool {
    matches!(
        opcode,
        op::OpLine
            | op::OpNoLine
            | op::OpUndef
            | op::OpVariable
            | op::OpUntypedVariableKHR
            | op::OpExtInst
            | op::OpExtInstWithForwardRefsKHR
    )
}

fn opname(opcode: u16) -> String {
    grammar::instruction(opcode).map_or_else(|| format!("Op{opcode}"), |d| String::from(d.name))
}

/// Whether a debug-info extended instruction is one of those that live in
/// function bodies (scopes, declarations, values, lines).
/// An instruction that belongs in a block: an error outside one.
fn body_instruction(cx: &mut Context<'_>, i: usize, opcode: u16, block: Option<usize>) {
    if block.is_none() {
        cx.error("layout.outside-block", i, format!("{} must appear in a block", opname(opcode)));
    }
}

/// The block beginning at instruction `b` has no terminator before
/// instruction `i` (`before` names it).
fn missing_terminator(cx: &mut Context<'_>, i: usize, b: usize, before: &str) {
    let label = cx.name(cx.insts()[b].operands.first().copied().unwrap_or(0));
    cx.error_related("layout.missing-terminator", i, format!("block {label} has no terminator before {before}"), [(b, format!("block {label} begins here"))]);
}

fn local_debug_info(kind: ExtKind, number: u32) -> bool {
    let set = match kind {
        ExtKind::OpenClDebugInfo => "OpenCL.DebugInfo.100",
        ExtKind::DebugInfo => "DebugInfo",
        ExtKind::ShaderDebugInfo => "NonSemantic.Shader.DebugInfo.100",
        _ => return false,
    };
    let Some(s) = grammar::ext_inst_set(set) else {
        return false;
    };
    let Some(e) = s.by_opcode(number) else {
        return false;
    };
    let mut names: &[&str] = &["DebugScope", "DebugNoScope", "DebugDeclare", "DebugValue"];
    if kind == ExtKind::ShaderDebugInfo {
        names = &[
            "DebugScope",
            "DebugNoScope",
            "DebugDeclare",
            "DebugValue",
            "DebugLine",
            "DebugNoLine",
            "DebugFunctionDefinition",
        ];
    }
    names.contains(&e.name)
}

/// The layout pass.
pub(super) fn check_layout(cx: &mut Context<'_>) {
    let insts = cx.insts();
    let mut section = CAPABILITIES;
    let mut memory_model_reported = false;
    let mut saw_memory_model = false;
    // Function state.
    let mut function: Option<usize> = None;
    let mut block: Option<usize> = None;
    let mut blocks = 0u32;
    let mut body_started = false; // a non-parameter instruction was seen in the function
    let mut saw_definition: Option<usize> = None;
    for i in 0..insts.len() {
        let opcode = insts[i].opcode;
        if opcode == op::OpMemoryModel {
            saw_memory_model = true;
        }
        let ext = cx.ext_kind(i);
        if section < FUNCTIONS {
            if opcode == op::OpFunction {
                section = FUNCTIONS;
            } else {
                match module_section(opcode) {
                    Some(s) => {
                        if ext != ExtKind::None {
                            check_ext_inst_module(cx, i, ext, section);
                        }
                        if s < section && !(s == TYPES && also_in_functions(opcode)) {
                            let d = cx.error(
                                "layout.section-order",
                                i,
                                format!(
                                    "{} belongs to the {} section, but the {} section has already begun",
                                    opname(opcode),
                                    section_name(s),
                                    section_name(section)
                                ),
                            );
                            d.label = String::from("out of order");
                        } else if s > section {
                            if section < MEMORY_MODEL && s > MEMORY_MODEL && !memory_model_reported
                            {
                                memory_model_reported = true;
                                cx.error(
                                    "layout.missing-memory-model",
                                    i,
                                    format!(
                                        "{} cannot appear before the memory model instruction",
                                        opname(opcode)
                                    ),
                                )
                                .help = Some(String::from(
                                    "add `OpMemoryModel` after the capabilities, extensions and imports",
                                ));
                            }
                            section = s;
                        }
                        continue;
                    }
                    None => {
                        // A function-only instruction at module level.
                        cx.error(
                            "layout.outside-block",
                            i,
                            format!("{} must appear in a block of a function", opname(opcode)),
                        );
                        continue;
                    }
                }
            }
        }
        // The functions section.
        match opcode {
            op::OpFunction => {
                if let Some(f) = function {
                    let span = cx.span(f);
                    let name = cx.name(insts[f].operands.get(1).copied().unwrap_or(0));
                    cx.error(
                        "layout.misplaced-function-instruction",
                        i,
                        format!("OpFunction inside the body of {name}: the previous function has no OpFunctionEnd"),
                    )
                    .relate(span, format!("{name} begins here"));
                }
                function = Some(i);
                block = None;
                blocks = 0;
                body_started = false;
            }
            op::OpFunctionParameter => {
                if function.is_none() {
                    cx.error(
                        "layout.misplaced-function-instruction",
                        i,
                        String::from("OpFunctionParameter outside a function"),
                    );
                } else if blocks > 0 || body_started {
                    let f = function.unwrap_or(0);
                    cx.error_related("layout.misplaced-function-instruction", i, String::from("function parameters must come immediately after OpFunction"), [(f, String::from("the function begins here"))]);
                }
            }
            op::OpFunctionEnd => {
                match function {
                    None => {
                        cx.error(
                            "layout.misplaced-function-instruction",
                            i,
                            String::from("OpFunctionEnd outside a function"),
                        );
                    }
                    Some(f) => {
                        if let Some(b) = block {
                            missing_terminator(cx, i, b, "OpFunctionEnd");
                        } else if blocks == 0 {
                            if let Some(def) = saw_definition {
                                let name = cx.name(insts[f].operands.get(1).copied().unwrap_or(0));
                                let span = cx.span(def);
                                let d = cx.error(
                                    "layout.declaration-after-definition",
                                    f,
                                    format!("the function declaration {name} comes after a function definition"),
                                );
                                d.relate(span, String::from("first function definition"));
                                d.help = Some(String::from(
                                    "move function declarations before all function definitions",
                                ));
                            }
                        } else if saw_definition.is_none() {
                            saw_definition = Some(f);
                        }
                    }
                }
                function = None;
                block = None;
                blocks = 0;
            }
            op::OpLabel => {
                if function.is_none() {
                    cx.error(
                        "layout.misplaced-function-instruction",
                        i,
                        String::from("OpLabel outside a function"),
                    );
                } else if let Some(b) = block {
                    missing_terminator(cx, i, b, "the next label");
                }
                block = Some(i);
                blocks += 1;
            }
            op::OpLine | op::OpNoLine => {}
            op::OpExtInst | op::OpExtInstWithForwardRefsKHR => {
                let number = insts[i].operands.get(3).copied().unwrap_or(0);
                if ext.is_debug_info() {
                    if local_debug_info(ext, number) {
                        if function.is_none() {
                            cx.error(
                                "layout.ext-inst-placement",
                                i,
                                String::from("debug scopes, declarations and values must appear in a function body"),
                            );
                        }
                    } else {
                        cx.error(
                            "layout.ext-inst-placement",
                            i,
                            String::from(
                                "this debug-info instruction must appear after the types and before the functions",
                            ),
                        );
                    }
                } else if ext.is_non_semantic() {
                    if function.is_some() && block.is_none() {
                        cx.error(
                            "layout.ext-inst-placement",
                            i,
                            String::from(
                                "a non-semantic OpExtInst inside a function must be in a block",
                            ),
                        );
                    }
                } else {
                    body_instruction(cx, i, opcode, block);
                }
                body_started |= function.is_some();
            }
            _ => {
                if module_section(opcode).is_some() && !also_in_functions(opcode) {
                    cx.error(
                        "layout.section-order",
                        i,
                        format!(
                            "{} belongs to the {} section, before the functions",
                            opname(opcode),
                            section_name(module_section(opcode).unwrap_or(TYPES))
                        ),
                    )
                    .label = String::from("out of order");
                } else if function.is_some() && blocks == 0 && block.is_none() {
                    let f = function.unwrap_or(0);
                    let name = cx.name(insts[f].operands.get(1).copied().unwrap_or(0));
                    cx.error(
                        "layout.function-without-label",
                        i,
                        format!("{} before the first OpLabel of {name}: a function body must begin with a label", opname(opcode)),
                    );
                } else {
                    body_instruction(cx, i, opcode, block);
                }
                body_started |= function.is_some();
                if crate::cfg::is_terminator_opcode(opcode) {
                    block = None;
                }
            }
        }
    }
    if let Some(f) = function {
        let name = cx.name(insts[f].operands.get(1).copied().unwrap_or(0));
        let last = insts.len().saturating_sub(1);
        cx.error_related("layout.missing-function-end", f, format!("function {name} has no OpFunctionEnd: the module ends inside it"), [(last, String::from("the module ends here"))]);
    }
    if !saw_memory_model && !memory_model_reported {
        cx.error(
            "layout.missing-memory-model",
            0,
            String::from("the module has no OpMemoryModel instruction"),
        );
    }
}

/// Placement of an extended instruction at module level.
fn check_ext_inst_module(cx: &mut Context<'_>, i: usize, ext: ExtKind, section: u8) {
    let number = cx.insts()[i].operands.get(3).copied().unwrap_or(0);
    if ext.is_debug_info() {
        if local_debug_info(ext, number) {
            cx.error(
                "layout.ext-inst-placement",
                i,
                String::from(
                    "debug scopes, declarations and values must appear in a function body",
                ),
            );
        } else if section < TYPES {
            cx.error(
                "layout.ext-inst-placement",
                i,
                String::from(
                    "debug-info instructions must appear after the types section has begun",
                ),
            );
        }
    } else if ext.is_non_semantic() {
        if section < TYPES {
            cx.error(
                "layout.ext-inst-placement",
                i,
                String::from("a non-semantic OpExtInst cannot appear before the types section"),
            );
        }
    } else {
        cx.error(
            "layout.outside-block",
            i,
            String::from("OpExtInst must appear in a block of a function"),
        );
    }
}
