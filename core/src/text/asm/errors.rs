//! The stable codes of the assembler's diagnostics.
//!
//! Every error the assembler reports carries one of these codes; tests and the page
//! match on them, so they never change meaning.

/// The text is empty (spirv-as: "Missing assembly text").
pub const EMPTY_TEXT: &str = "asm.empty-text";
/// An instruction does not start with an opcode, `%id =` or `!<integer>`.
pub const EXPECTED_OPCODE: &str = "asm.expected-opcode";
/// `%id` at the start of an instruction is not followed by `=`.
pub const EXPECTED_EQUALS: &str = "asm.expected-equals";
/// No opcode has this name.
pub const UNKNOWN_OPCODE: &str = "asm.unknown-opcode";
/// The opcode produces a result but the instruction has no `%id =`.
pub const MISSING_RESULT_ID: &str = "asm.missing-result-id";
/// The opcode produces no result but the instruction has `%id =`.
pub const UNEXPECTED_RESULT_ID: &str = "asm.unexpected-result-id";
/// A required operand is missing (end of text or next instruction).
pub const MISSING_OPERAND: &str = "asm.missing-operand";
/// An id was expected but the word does not start with `%`.
pub const EXPECTED_ID: &str = "asm.expected-id";
/// `%` followed by something other than letters, digits and `_`.
pub const INVALID_ID: &str = "asm.invalid-id";
/// A numeric literal that does not parse or does not fit its type.
pub const BAD_LITERAL: &str = "asm.bad-literal";
/// A string operand that is not a well-formed quoted string.
pub const BAD_STRING: &str = "asm.bad-string";
/// A name that is not an enumerant of the operand's kind.
pub const UNKNOWN_ENUMERANT: &str = "asm.unknown-enumerant";
/// OpExtInstImport of a set the assembler does not know.
pub const UNKNOWN_EXT_INST_SET: &str = "asm.unknown-ext-inst-set";
/// OpExtInst's set operand is not the result of an OpExtInstImport.
pub const NOT_EXT_INST_SET: &str = "asm.not-ext-inst-set";
/// An extended instruction name that the set does not have.
pub const UNKNOWN_EXT_INST: &str = "asm.unknown-ext-inst";
/// OpSpecConstantOp with an opcode it does not allow.
pub const BAD_SPEC_CONSTANT_OP: &str = "asm.bad-spec-constant-op";
/// OpConstant/OpSpecConstant whose result type is not a known scalar number type.
pub const BAD_CONSTANT_TYPE: &str = "asm.bad-constant-type";
/// OpSwitch whose selector is not a known integer scalar value.
pub const BAD_SWITCH_SELECTOR: &str = "asm.bad-switch-selector";
/// Two type instructions with the same result id.
pub const DUPLICATE_TYPE: &str = "asm.duplicate-type";
/// OpTypeInt / OpTypeFloat with the wrong number of operands (through `!` words).
pub const BAD_TYPE_INSTRUCTION: &str = "asm.bad-type-instruction";
/// `!<integer>` whose integer is not a 32-bit unsigned number.
pub const BAD_IMMEDIATE: &str = "asm.bad-immediate";
/// After `!<integer>`, a word that is not a number, string or id (or a `=`).
pub const BAD_RAW_OPERAND: &str = "asm.bad-raw-operand";
/// More than 65535 words in one instruction.
pub const INSTRUCTION_TOO_LONG: &str = "asm.instruction-too-long";
/// A stray `,`, `(` or `)`.
pub const UNEXPECTED_PUNCT: &str = "asm.unexpected-punctuation";
/// A literal width the assembler cannot encode (e.g. a 128-bit integer).
pub const UNSUPPORTED_LITERAL: &str = "asm.unsupported-literal";
/// An id that is used but never defined (a warning: spirv-as accepts it).
pub const UNDEFINED_ID: &str = "asm.undefined-id";
