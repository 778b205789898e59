//! SPIR-V grammar tables, generated from the SPIR-V headers' JSON grammars.
//!
//! The data lives in [`generated`] (written by `cargo run -p xtask -- grammar
//! ../shared/spirv-headers`); this file holds the types and the lookups.

mod generated;
mod uses;

pub use uses::{IdKind, id_fits, id_kind, id_need};
pub use generated::{
    class, ext_inst, op, EXT_INST_SETS, INSTRUCTIONS, INSTRUCTIONS_BY_NAME, MAGIC_NUMBER, OPERAND_KINDS,
    OperandKind, VERSION_MAJOR, VERSION_MINOR, VERSION_REVISION,
};

/// Named constants for the enumerants of every value and bit enum of the core
/// grammar, one module per operand kind in snake case (`storage_class::Function`,
/// `built_in::WorkgroupSize`, `memory_semantics::AcquireRelease`), aliases
/// included. Each constant is named as the grammar spells the enumerant, except
/// a name that starts with a digit, which gets the kind's name as a prefix
/// (`dim::Dim1D`, `cooperative_matrix_reduce::CooperativeMatrixReduce2x2`).
pub use generated::{
    access_qualifier, addressing_model, built_in, capability, component_type,
    cooperative_matrix_layout, cooperative_matrix_operands, cooperative_matrix_reduce,
    cooperative_matrix_use, cooperative_vector_matrix_layout, decoration, dim, execution_mode,
    execution_model, fp_denorm_mode, fp_encoding, fp_fast_math_mode, fp_operation_mode,
    fp_rounding_mode, fragment_shading_rate, function_control, function_parameter_attribute,
    gather_modes, group_operation, host_access_qualifier, image_channel_data_type,
    image_channel_order, image_format, image_operands, initialization_mode_qualifier,
    kernel_enqueue_flags, kernel_profiling_info, linkage_type, load_cache_control, loop_control,
    matrix_multiply_accumulate_operands, memory_access, memory_model, memory_semantics,
    named_maximum_number_of_registers, overflow_modes, packed_vector_format, quantization_modes,
    raw_access_chain_operands, ray_flags, ray_query_candidate_intersection_type,
    ray_query_committed_intersection_type, ray_query_intersection, sampler_addressing_mode,
    sampler_filter_mode, scope, selection_control, source_language, storage_class,
    store_cache_control, tensor_addressing_operands, tensor_clamp_mode, tensor_operands,
};

/// How many times an operand may appear.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantifier {
    /// Exactly once.
    One,
    /// `?`: zero or one time.
    Optional,
    /// `*`: zero or more times (always last).
    Variadic,
}

/// The category of an operand kind in the grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    Id,
    Literal,
    Composite,
    ValueEnum,
    BitEnum,
}

/// A SPIR-V version `(major, minor)`.
pub type Version = (u8, u8);

/// One operand slot of an instruction (or of an enumerant's parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandDesc {
    pub kind: OperandKind,
    pub quantifier: Quantifier,
    /// The grammar's name for the operand, with its quotes removed; may be empty.
    pub name: &'static str,
}

/// One core instruction.
#[derive(Clone, Copy, Debug)]
pub struct InstructionDesc {
    /// The canonical name, e.g. `OpFMod`.
    pub name: &'static str,
    pub opcode: u16,
    /// The grammar's instruction class, e.g. `Control-Flow`.
    pub class: &'static str,
    pub operands: &'static [OperandDesc],
    /// Capability values (see [`OperandKind::Capability`]); any one of them enables it.
    pub capabilities: &'static [u32],
    pub extensions: &'static [&'static str],
    /// First core version that has it; `None` when only reachable by extension.
    pub version: Option<Version>,
    pub last_version: Option<Version>,
    pub aliases: &'static [&'static str],
    pub provisional: bool,
}

impl InstructionDesc {
    /// Whether the instruction has a result type operand first.
    pub fn has_result_type(&self) -> bool {
        matches!(self.operands.first(), Some(o) if o.kind == OperandKind::IdResultType)
    }

    /// Whether the instruction defines a result id.
    pub fn has_result(&self) -> bool {
        self.operands.iter().take(2).any(|o| o.kind == OperandKind::IdResult)
    }
}

/// One enumerant of a value or bit enum operand kind.
#[derive(Clone, Copy, Debug)]
pub struct EnumerantDesc {
    pub name: &'static str,
    pub value: u32,
    pub parameters: &'static [OperandDesc],
    pub capabilities: &'static [u32],
    pub extensions: &'static [&'static str],
    pub version: Option<Version>,
    pub last_version: Option<Version>,
    pub aliases: &'static [&'static str],
    pub provisional: bool,
}

/// One operand kind, with its enumerants (empty unless it is an enum).
#[derive(Clone, Copy, Debug)]
pub struct OperandKindDesc {
    pub kind: OperandKind,
    pub name: &'static str,
    pub category: Category,
    /// Sorted by value, then in grammar order.
    pub enumerants: &'static [EnumerantDesc],
    /// For composite kinds (pairs): the kinds they are made of.
    pub bases: &'static [OperandKind],
}

/// One instruction of an extended instruction set.
#[derive(Clone, Copy, Debug)]
pub struct ExtInstDesc {
    pub name: &'static str,
    pub opcode: u32,
    pub operands: &'static [OperandDesc],
    pub capabilities: &'static [u32],
    pub extensions: &'static [&'static str],
}

/// An extended instruction set, as named in `OpExtInstImport`.
#[derive(Clone, Copy, Debug)]
pub struct ExtInstSetDesc {
    /// The import name, e.g. `GLSL.std.450`.
    pub name: &'static str,
    /// True for sets matched by prefix (`NonSemantic.ClspvReflection.` and any version).
    pub prefix_match: bool,
    /// Sorted by opcode.
    pub instructions: &'static [ExtInstDesc],
}

impl ExtInstSetDesc {
    pub fn by_opcode(&self, opcode: u32) -> Option<&'static ExtInstDesc> {
        let i = self.instructions.binary_search_by_key(&opcode, |d| d.opcode).ok()?;
        Some(&self.instructions[i])
    }

    pub fn by_name(&self, name: &str) -> Option<&'static ExtInstDesc> {
        self.instructions.iter().find(|d| d.name == name)
    }
}

/// The instruction with this opcode, if the grammar knows it. (Inline: it is
/// called per instruction by the reader and the validator's passes, in every
/// codegen unit.)
#[inline]
pub fn instruction(opcode: u16) -> Option<&'static InstructionDesc> {
    let i = INSTRUCTIONS.binary_search_by_key(&opcode, |d| d.opcode).ok()?;
    Some(&INSTRUCTIONS[i])
}

/// The instruction with this name or alias (`OpFMod`).
pub fn instruction_by_name(name: &str) -> Option<&'static InstructionDesc> {
    let i = INSTRUCTIONS_BY_NAME.binary_search_by_key(&name, |&(n, _)| n).ok()?;
    Some(&INSTRUCTIONS[INSTRUCTIONS_BY_NAME[i].1 as usize])
}

/// The table entry of an operand kind.
pub fn operand_kind(kind: OperandKind) -> &'static OperandKindDesc {
    &OPERAND_KINDS[kind as usize]
}

/// The operand kind with this grammar name (`StorageClass`).
pub fn operand_kind_by_name(name: &str) -> Option<&'static OperandKindDesc> {
    OPERAND_KINDS.iter().find(|k| k.name == name)
}

impl OperandKind {
    pub fn desc(self) -> &'static OperandKindDesc {
        operand_kind(self)
    }

    pub fn name(self) -> &'static str {
        self.desc().name
    }

    pub fn category(self) -> Category {
        self.desc().category
    }

    pub fn is_id(self) -> bool {
        self.category() == Category::Id
    }

    /// The first enumerant with exactly this value (the canonical name).
    pub fn enumerant(self, value: u32) -> Option<&'static EnumerantDesc> {
        let e = self.desc().enumerants;
        let i = e.partition_point(|d| d.value < value);
        e.get(i).filter(|d| d.value == value)
    }

    /// The enumerant with this name or alias.
    pub fn enumerant_by_name(self, name: &str) -> Option<&'static EnumerantDesc> {
        self.desc()
            .enumerants
            .iter()
            .find(|d| d.name == name || d.aliases.contains(&name))
    }
}

/// The extended instruction set imported under this name.
pub fn ext_inst_set(import_name: &str) -> Option<&'static ExtInstSetDesc> {
    EXT_INST_SETS.iter().find(|s| {
        if s.prefix_match {
            import_name.starts_with(s.name)
        } else {
            import_name == s.name
        }
    })
}

/// The words an editor completes: every opcode name, then every enumerant name
/// of the value and bit enums (sorted, without duplicates).
pub fn completion_words() -> alloc::vec::Vec<&'static str> {
    let mut enumerants: alloc::vec::Vec<&'static str> = OPERAND_KINDS
        .iter()
        .filter(|k| matches!(k.category, Category::ValueEnum | Category::BitEnum))
        .flat_map(|k| k.enumerants.iter().map(|e| e.name))
        .collect();
    enumerants.sort_unstable();
    enumerants.dedup();
    let mut words: alloc::vec::Vec<&'static str> = INSTRUCTIONS.iter().map(|d| d.name).collect();
    words.sort_unstable();
    words.extend(enumerants);
    words
}

/// The name of a capability value, for messages.
pub fn capability_name(value: u32) -> Option<&'static str> {
    OperandKind::Capability.enumerant(value).map(|e| e.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcode_lookup_both_ways() {
        let d = instruction(5147).expect("OpConstantDataKHR");
        assert_eq!(d.name, "OpConstantDataKHR");
        assert_eq!(instruction_by_name("OpFMod").unwrap().opcode, 141);
        assert!(instruction(0xffff).is_none());
    }

    #[test]
    fn completion_words_cover_opcodes_and_enumerants() {
        let w = completion_words();
        for x in ["OpFMod", "OpLoopMerge", "OpConstantDataKHR", "DontUnroll", "StorageBuffer", "GLCompute"] {
            assert!(w.contains(&x), "{x}");
        }
        assert_eq!(w.iter().filter(|&&x| x == "None").count(), 1);
    }

    #[test]
    fn opcode_constants_match_the_table() {
        assert_eq!(op::OpSwitch, 251);
        assert_eq!(op::OpConstantDataKHR, 5147);
        assert_eq!(instruction(op::OpLoopMerge).unwrap().name, "OpLoopMerge");
    }

    #[test]
    fn enumerant_constants_match_the_table() {
        let cases: &[(OperandKind, &str, u32)] = &[
            (
                OperandKind::StorageClass,
                "Function",
                storage_class::Function,
            ),
            (
                OperandKind::StorageClass,
                "PhysicalStorageBuffer",
                storage_class::PhysicalStorageBuffer,
            ),
            (
                OperandKind::StorageClass,
                "PhysicalStorageBufferEXT",
                storage_class::PhysicalStorageBufferEXT,
            ),
            (OperandKind::Capability, "Shader", capability::Shader),
            (
                OperandKind::Capability,
                "UntypedPointersKHR",
                capability::UntypedPointersKHR,
            ),
            (OperandKind::Decoration, "Block", decoration::Block),
            (
                OperandKind::BuiltIn,
                "WorkgroupSize",
                built_in::WorkgroupSize,
            ),
            (
                OperandKind::ExecutionModel,
                "GLCompute",
                execution_model::GLCompute,
            ),
            (
                OperandKind::ExecutionMode,
                "LocalSize",
                execution_mode::LocalSize,
            ),
            (OperandKind::Dim, "1D", dim::Dim1D),
            (OperandKind::Dim, "SubpassData", dim::SubpassData),
            (
                OperandKind::MemorySemantics,
                "AcquireRelease",
                memory_semantics::AcquireRelease,
            ),
            (
                OperandKind::LoopControl,
                "DependencyLength",
                loop_control::DependencyLength,
            ),
            (OperandKind::Scope, "Workgroup", scope::Workgroup),
            (OperandKind::ImageFormat, "Rgba32f", image_format::Rgba32f),
            (
                OperandKind::CooperativeMatrixReduce,
                "2x2",
                cooperative_matrix_reduce::CooperativeMatrixReduce2x2,
            ),
        ];
        for &(kind, name, value) in cases {
            let e = kind
                .enumerant_by_name(name)
                .unwrap_or_else(|| panic!("{name}"));
            assert_eq!(e.value, value, "{}::{name}", kind.name());
        }
        // Values fixed by the spec, independently of the generator.
        assert_eq!(storage_class::Function, 7);
        assert_eq!(capability::Shader, 1);
        assert_eq!(dim::Dim2D, 1);
        assert_eq!(built_in::WorkgroupSize, 25);
    }

    #[test]
    fn ext_inst_constants_match_the_sets() {
        for (set, name, value) in [
            ("GLSL.std.450", "FMix", ext_inst::glsl_std_450::FMix),
            ("OpenCL.std", "fma", ext_inst::opencl_std::fma),
            ("OpenCL.DebugInfo.100", "DebugFunction", ext_inst::opencl_debug_info_100::DebugFunction),
            ("DebugInfo", "DebugTypeComposite", ext_inst::debug_info::DebugTypeComposite),
            ("NonSemantic.Shader.DebugInfo.100", "DebugLine", ext_inst::shader_debug_info_100::DebugLine),
        ] {
            let d = ext_inst_set(set).and_then(|s| s.by_name(name));
            assert_eq!(d.map(|d| d.opcode), Some(value), "{set} {name}");
        }
        assert_eq!(ext_inst::glsl_std_450::FMix, 46);
    }

    #[test]
    fn mission_extensions_are_present() {
        for (name, op) in [
            ("OpConstantDataKHR", 5147),
            ("OpSpecConstantDataKHR", 5148),
            ("OpTypeUntypedPointerKHR", 4417),
            ("OpUntypedVariableKHR", 4418),
            ("OpVariableLengthArrayINTEL", 5818),
            ("OpSaveMemoryINTEL", 5819),
            ("OpRestoreMemoryINTEL", 5820),
            ("OpLoopControlINTEL", 5887),
        ] {
            assert_eq!(instruction_by_name(name).map(|d| d.opcode), Some(op), "{name}");
        }
        assert!(instruction_by_name("OpUntypedVariableLengthArrayINTEL").is_some());
        assert!(OperandKind::Decoration.enumerant_by_name("UTFEncodedKHR").is_some());
        assert!(OperandKind::Capability.enumerant_by_name("UntypedPointersKHR").is_some());
    }

    #[test]
    fn enumerants_with_parameters() {
        let e = OperandKind::LoopControl.enumerant_by_name("DependencyLength").unwrap();
        assert_eq!(e.value, 8);
        assert_eq!(e.parameters.len(), 1);
        let lm = OperandKind::ExecutionMode.enumerant_by_name("LocalSize").unwrap();
        assert_eq!(lm.parameters.len(), 3);
    }

    #[test]
    fn ext_inst_sets_by_import_name() {
        let glsl = ext_inst_set("GLSL.std.450").unwrap();
        assert_eq!(glsl.by_name("FMix").unwrap().opcode, 46);
        assert!(ext_inst_set("OpenCL.std").is_some());
        assert!(ext_inst_set("NonSemantic.ClspvReflection.5").is_some());
        assert!(ext_inst_set("NoSuchSet").is_none());
    }

    #[test]
    fn classes_follow_the_grammar() {
        use class::{Atomic, Family, Num, OpClass, Order, Relation};
        // Each instruction's family is its grammar class; the finer classes
        // stay inside it.
        for d in INSTRUCTIONS {
            let f = class::family(d.opcode);
            let spelled: alloc::string::String = d.class.chars().filter(char::is_ascii_alphanumeric).collect();
            assert!(alloc::format!("{f:?}").eq_ignore_ascii_case(&spelled), "{}: {f:?} vs {}", d.name, d.class);
            let c = class::of(d.opcode);
            match c {
                OpClass::Atomic(_) => assert_eq!(f, Family::Atomic, "{}", d.name),
                OpClass::Compare { .. } | OpClass::FloatTest | OpClass::BoolReduce | OpClass::Logical { .. } | OpClass::Select => {
                    assert_eq!(f, Family::RelationalAndLogical, "{}", d.name)
                }
                OpClass::Constant { .. } => assert_eq!(f, Family::ConstantCreation, "{}", d.name),
                _ => {}
            }
            // Every relational, logical and atomic instruction has a finer class.
            if matches!(f, Family::RelationalAndLogical | Family::Atomic) {
                assert_ne!(c, OpClass::Other, "{}", d.name);
            }
        }
        assert_eq!(class::family(0xffff), Family::Unknown);
        assert_eq!(
            class::of(op::OpFUnordLessThanEqual),
            OpClass::Compare { num: Num::Float, order: Order::Unordered, relation: Some(Relation::LessEqual) }
        );
        assert_eq!(
            class::of(op::OpUGreaterThan),
            OpClass::Compare { num: Num::Unsigned, order: Order::Unnamed, relation: Some(Relation::Greater) }
        );
        assert_eq!(class::of(op::OpAtomicIIncrement), OpClass::Atomic(Atomic::Modify { num: Num::Int, value: false }));
        assert_eq!(class::of(op::OpAtomicFMaxEXT), OpClass::Atomic(Atomic::Modify { num: Num::Float, value: true }));
        assert_eq!(class::of(op::OpAtomicFlagClear), OpClass::Atomic(Atomic::FlagClear));
        assert_eq!(class::of(op::OpConvertUToF), OpClass::Convert { from: Num::Unsigned, to: Num::Float });
        assert_eq!(class::of(op::OpShiftRightArithmetic), OpClass::Shift(Num::Signed));
        assert_eq!(class::of(op::OpLogicalNot), OpClass::Logical { unary: true });
        assert_eq!(class::of(op::OpGroupNonUniformRotateKHR), OpClass::NonUniformGroup);
        assert_eq!(class::of(op::OpGroupNonUniformQuadAllKHR), OpClass::Other);
        assert_eq!(class::of(op::OpFmaKHR), OpClass::Other);
    }
}
