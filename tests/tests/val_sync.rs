//! The synchronization rules of the validator (scopes and memory semantics,
//! barriers, non-uniform group operations, `core/src/valid/scope.rs`,
//! `barrier.rs`, `group.rs`): for every rule a valid and an invalid module.
//!
//! As in val_inst.rs, each module is assembled with the source map and its
//! diagnostics located at their operands' tokens; where the reference
//! SPIRV-Tools are installed, each invalid module is checked to be rejected by
//! spirv-val and each valid one accepted, so that the verdicts come from the
//! oracle, not from our own output.

use spvlab_tests::{assert_invalid_module, assert_one_error, assert_valid_module};

/// A module: its capabilities beyond Shader, memory model, execution model
/// line(s) and the body of `%main`.
struct M<'a> {
    env: &'a str,
    caps: &'a str,
    model: &'a str,
    entry: &'a str,
}

const COMPUTE: M<'static> = M {
    env: "spv1.3",
    caps: "OpCapability GroupNonUniform
OpCapability GroupNonUniformVote
OpCapability GroupNonUniformBallot
OpCapability GroupNonUniformArithmetic
OpCapability GroupNonUniformClustered
OpCapability GroupNonUniformShuffle
OpCapability GroupNonUniformQuad",
    model: "Logical GLSL450",
    entry: "OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1",
};

const TYPES: &str = "%void = OpTypeVoid
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%v2uint = OpTypeVector %uint 2
%v4uint = OpTypeVector %uint 4
%fn = OpTypeFunction %void
%ptr_wg = OpTypePointer Workgroup %uint
%ptr_fn = OpTypePointer Function %uint
%ptr_priv = OpTypePointer Private %uint
%ptr_wg_float = OpTypePointer Workgroup %float
%true = OpConstantTrue %bool
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%int_1 = OpConstant %int 1
%float_1 = OpConstant %float 1
%ballot = OpConstantComposite %v4uint %uint_1 %uint_1 %uint_1 %uint_1
%cross_device = OpConstant %uint 0
%device = OpConstant %uint 1
%workgroup = OpConstant %uint 2
%subgroup = OpConstant %uint 3
%invocation = OpConstant %uint 4
%queue_family = OpConstant %uint 5
%spec_scope = OpSpecConstant %uint 2
%relaxed = OpConstant %uint 0
%acquire = OpConstant %uint 2
%acq_rel_wg = OpConstant %uint 264
%acq_rel_uniform = OpConstant %uint 72
%release_wg = OpConstant %uint 260
%acquire_wg = OpConstant %uint 258
%seq_cst = OpConstant %uint 16
%two_orders = OpConstant %uint 262
%make_available = OpConstant %uint 8452
%volatile = OpConstant %uint 33032
%spec_sem = OpSpecConstant %uint 264
%counter = OpVariable %ptr_wg Workgroup
%private = OpVariable %ptr_priv Private
%fcounter = OpVariable %ptr_wg_float Workgroup
";

impl<'a> M<'a> {
    fn text(&self, body: &str) -> String {
        let M { caps, model, entry, .. } = self;
        format!(
            "OpCapability Shader\n{caps}\nOpMemoryModel {model}\n{entry}\n{TYPES}\
             %main = OpFunction %void None %fn\n%entry = OpLabel\n%local = OpVariable %ptr_fn Function\n{body}\nOpReturn\nOpFunctionEnd\n"
        )
    }

    #[track_caller]
    fn valid(&self, name: &str, body: &str) {
        assert_valid_module(&format!("val_sync_{name}"), &self.text(body), self.env)
    }

    /// The codes of the errors of an invalid module (spirv-val rejects it too).
    #[track_caller]
    fn codes(&self, name: &str, body: &str) -> Vec<&'static str> {
        assert_invalid_module(&format!("val_sync_{name}"), &self.text(body), self.env).iter().map(|d| d.code).collect()
    }

    #[track_caller]
    fn one_error(&self, name: &str, body: &str, code: &str, line: &str, token: &str, says: &[&str]) {
        assert_one_error(&format!("val_sync_{name}"), &self.text(body), self.env, code, line, token, says)
    }

    fn with_env(&self, env: &'a str) -> M<'a> {
        M { env, caps: self.caps, model: self.model, entry: self.entry }
    }
}

// Scopes.

#[test]
fn scopes_valid() {
    COMPUTE.valid(
        "scopes",
        "OpControlBarrier %workgroup %workgroup %acq_rel_wg
OpControlBarrier %subgroup %device %relaxed
OpMemoryBarrier %device %acq_rel_uniform
%e = OpGroupNonUniformElect %bool %subgroup
%w = OpGroupNonUniformElect %bool %workgroup",
    );
}

#[test]
fn scope_type() {
    COMPUTE.one_error(
        "scope_float",
        "OpControlBarrier %float_1 %workgroup %acq_rel_wg",
        "inst.scope.type",
        "OpControlBarrier",
        "%float_1",
        &["OpControlBarrier", "Execution scope %float_1", "32-bit float", "32-bit int scalar"],
    );
    COMPUTE.one_error(
        "memory_scope_bool",
        "OpMemoryBarrier %true %acq_rel_wg",
        "inst.scope.type",
        "OpMemoryBarrier",
        "%true",
        &["Memory scope %true", "bool"],
    );
}

#[test]
fn scope_not_constant() {
    COMPUTE.one_error(
        "group_spec_scope",
        "%e = OpGroupNonUniformElect %bool %spec_scope",
        "inst.scope.not-constant",
        "%e = OpGroupNonUniformElect",
        "%spec_scope",
        &["OpGroupNonUniformElect", "%spec_scope", "OpSpecConstant", "OpConstant"],
    );
    COMPUTE.one_error(
        "atomic_loaded_scope",
        "%s = OpLoad %uint %local\n%x = OpAtomicIAdd %uint %counter %s %relaxed %uint_1",
        "inst.scope.not-constant",
        "%x = OpAtomicIAdd",
        "%s",
        &["OpAtomicIAdd", "Memory scope %s", "OpLoad"],
    );
}

#[test]
fn scope_execution() {
    COMPUTE.one_error(
        "group_device",
        "%e = OpGroupNonUniformElect %bool %device",
        "inst.scope.execution",
        "%e = OpGroupNonUniformElect",
        "%device",
        &["Execution scope %device is Device", "Subgroup or Workgroup"],
    );
    let vk = COMPUTE.with_env("vulkan1.1");
    vk.valid("vk_barrier_workgroup", "OpControlBarrier %workgroup %workgroup %acq_rel_wg");
    vk.one_error(
        "vk_barrier_device",
        "OpControlBarrier %device %workgroup %acq_rel_wg",
        "inst.scope.execution",
        "OpControlBarrier",
        "%device",
        &["04636", "Workgroup and Subgroup"],
    );
    vk.one_error(
        "vk_group_workgroup",
        "%e = OpGroupNonUniformElect %bool %workgroup",
        "inst.scope.execution",
        "%e = OpGroupNonUniformElect",
        "%workgroup",
        &["04642", "Subgroup"],
    );
}

#[test]
fn scope_memory() {
    COMPUTE.one_error(
        "queue_family_without_vmm",
        "OpMemoryBarrier %queue_family %acq_rel_wg",
        "inst.scope.memory",
        "OpMemoryBarrier",
        "%queue_family",
        &["QueueFamily", "VulkanMemoryModel"],
    );
    let vk = COMPUTE.with_env("vulkan1.1");
    vk.valid("vk_memory_scopes", "OpMemoryBarrier %device %acq_rel_uniform\nOpMemoryBarrier %subgroup %acq_rel_wg");
    vk.one_error(
        "vk_cross_device",
        "OpMemoryBarrier %cross_device %acq_rel_wg",
        "inst.scope.memory",
        "OpMemoryBarrier",
        "%cross_device",
        &["04638", "CrossDevice"],
    );
}

const VERTEX: M<'static> = M {
    env: "vulkan1.1",
    caps: "",
    model: "Logical GLSL450",
    entry: "OpEntryPoint Vertex %main \"main\"",
};

#[test]
fn scope_execution_model() {
    VERTEX.valid("vertex_subgroup_barrier", "OpControlBarrier %subgroup %subgroup %acq_rel_uniform\nOpMemoryBarrier %device %acq_rel_uniform");
    VERTEX.one_error(
        "vertex_workgroup_memory",
        "OpMemoryBarrier %workgroup %acq_rel_uniform",
        "inst.scope.execution-model",
        "OpMemoryBarrier",
        "%workgroup",
        &["Vertex entry point", "07321"],
    );
    // Workgroup execution and memory scopes: three rules at two operands.
    let codes = VERTEX.codes("vertex_workgroup_barrier", "OpControlBarrier %workgroup %workgroup %acq_rel_wg");
    assert!(codes.iter().all(|c| *c == "inst.scope.execution-model") && codes.len() == 3, "{codes:?}");
}

#[test]
fn scope_of_read_clock() {
    let clock = M {
        caps: "OpCapability ShaderClockKHR\nOpExtension \"SPV_KHR_shader_clock\"",
        ..COMPUTE
    };
    clock.valid("read_clock", "%c = OpReadClockKHR %v2uint %device");
    clock.one_error(
        "read_clock_spec_scope",
        "%c = OpReadClockKHR %v2uint %spec_scope",
        "inst.scope.not-constant",
        "%c = OpReadClockKHR",
        "%spec_scope",
        &["OpReadClockKHR Scope %spec_scope", "OpSpecConstant"],
    );
}

#[test]
fn scope_of_memory_access() {
    VMM.valid("store_available_workgroup", "OpStore %counter %uint_1 MakePointerAvailable|NonPrivatePointer %workgroup");
    VMM.one_error(
        "store_available_device",
        "OpStore %counter %uint_1 MakePointerAvailable|NonPrivatePointer %device",
        "inst.scope.memory",
        "OpStore",
        "%device",
        &["Memory scope %device is Device", "VulkanMemoryModelDeviceScope"],
    );
}

// Memory semantics.

#[test]
fn semantics_valid() {
    COMPUTE.valid(
        "semantics",
        "OpMemoryBarrier %device %acq_rel_wg
%x = OpAtomicIAdd %uint %counter %device %relaxed %uint_1
%y = OpAtomicLoad %uint %counter %workgroup %acquire_wg
OpAtomicStore %counter %workgroup %release_wg %uint_1
%z = OpAtomicCompareExchange %uint %counter %device %acq_rel_wg %acquire_wg %uint_1 %uint_0",
    );
}

#[test]
fn semantics_type_and_constant() {
    // A signed int is a 32-bit int too.
    COMPUTE.valid("semantics_signed", "OpMemoryBarrier %device %int_1");
    COMPUTE.one_error(
        "semantics_float",
        "OpMemoryBarrier %device %float_1",
        "inst.semantics.type",
        "OpMemoryBarrier",
        "%float_1",
        &["Memory Semantics %float_1", "32-bit int scalar"],
    );
    COMPUTE.one_error(
        "semantics_spec",
        "OpMemoryBarrier %device %spec_sem",
        "inst.semantics.not-constant",
        "OpMemoryBarrier",
        "%spec_sem",
        &["OpSpecConstant", "OpConstant"],
    );
}

#[test]
fn semantics_capability() {
    COMPUTE.one_error(
        "make_available_without_vmm",
        "OpMemoryBarrier %device %make_available",
        "inst.semantics.capability",
        "OpMemoryBarrier",
        "%make_available",
        &["MakeAvailable", "VulkanMemoryModel"],
    );
}

#[test]
fn semantics_order() {
    COMPUTE.one_error(
        "two_orders",
        "OpMemoryBarrier %device %two_orders",
        "inst.semantics.order",
        "OpMemoryBarrier",
        "%two_orders",
        &["Acquire|Release|WorkgroupMemory", "at most one"],
    );
    COMPUTE.one_error(
        "load_release",
        "%y = OpAtomicLoad %uint %counter %workgroup %release_wg",
        "inst.semantics.order",
        "%y = OpAtomicLoad",
        "%release_wg",
        &["OpAtomicLoad", "Release"],
    );
    COMPUTE.one_error(
        "store_acquire",
        "OpAtomicStore %counter %workgroup %acquire_wg %uint_1",
        "inst.semantics.order",
        "OpAtomicStore",
        "%acquire_wg",
        &["OpAtomicStore", "Acquire"],
    );
    // SequentiallyConsistent is allowed outside Vulkan, not in it.
    COMPUTE.valid("seq_cst", "%x = OpAtomicIAdd %uint %counter %device %seq_cst %uint_1");
    COMPUTE.with_env("vulkan1.1").one_error(
        "vk_seq_cst",
        "%x = OpAtomicIAdd %uint %counter %device %seq_cst %uint_1",
        "inst.semantics.order",
        "%x = OpAtomicIAdd",
        "%seq_cst",
        &["10866", "SequentiallyConsistent"],
    );
    COMPUTE.with_env("vulkan1.1").one_error(
        "vk_invocation_acquire",
        "%x = OpAtomicIAdd %uint %counter %invocation %acq_rel_wg %uint_1",
        "inst.semantics.order",
        "%x = OpAtomicIAdd",
        "%acq_rel_wg",
        &["04641", "Invocation"],
    );
}

#[test]
fn semantics_storage() {
    let vk = COMPUTE.with_env("vulkan1.1");
    vk.valid("vk_storage", "OpMemoryBarrier %workgroup %acq_rel_wg\n%x = OpAtomicIAdd %uint %counter %workgroup %relaxed %uint_1");
    vk.one_error(
        "vk_acquire_without_storage",
        "OpMemoryBarrier %device %acquire",
        "inst.semantics.storage",
        "OpMemoryBarrier",
        "%acquire",
        &["10870"],
    );
}

const VMM: M<'static> = M {
    env: "spv1.5",
    caps: "OpCapability VulkanMemoryModel",
    model: "Logical Vulkan",
    entry: "OpEntryPoint GLCompute %main \"main\" %counter\nOpExecutionMode %main LocalSize 1 1 1",
};

#[test]
fn semantics_volatile() {
    VMM.valid("volatile_atomic", "%x = OpAtomicIAdd %uint %counter %workgroup %volatile %uint_1");
    VMM.one_error(
        "volatile_barrier",
        "OpMemoryBarrier %workgroup %volatile",
        "inst.semantics.volatile",
        "OpMemoryBarrier",
        "%volatile",
        &["Volatile", "barrier"],
    );
}

#[test]
fn semantics_unequal() {
    COMPUTE.one_error(
        "unequal_release",
        "%z = OpAtomicCompareExchange %uint %counter %device %acq_rel_uniform %acq_rel_wg %uint_1 %uint_0",
        "inst.semantics.unequal",
        "%z = OpAtomicCompareExchange",
        "%acq_rel_wg",
        &["Unequal", "Release"],
    );
}

// The memory of atomics.

#[test]
fn atomics_storage_class() {
    COMPUTE.one_error(
        "atomic_function",
        "%x = OpAtomicIAdd %uint %local %device %relaxed %uint_1",
        "inst.atomics.storage-class",
        "%x = OpAtomicIAdd",
        "%local",
        &["Function memory", "Shader"],
    );
    COMPUTE.one_error(
        "atomic_private",
        "%x = OpAtomicIAdd %uint %private %device %relaxed %uint_1",
        "inst.atomics.storage-class",
        "%x = OpAtomicIAdd",
        "%private",
        &["Private memory", "universal"],
    );
}

#[test]
fn atomics_capability() {
    let float = |cap: &'static str| M {
        caps: if cap.ends_with("32AddEXT") {
            "OpCapability AtomicFloat32AddEXT\nOpExtension \"SPV_EXT_shader_atomic_float_add\""
        } else {
            "OpCapability AtomicFloat64AddEXT\nOpExtension \"SPV_EXT_shader_atomic_float_add\""
        },
        ..COMPUTE
    };
    let body = "%x = OpAtomicFAddEXT %float %fcounter %device %relaxed %float_1";
    float("AtomicFloat32AddEXT").valid("fadd32", body);
    float("AtomicFloat64AddEXT").one_error(
        "fadd32_without_cap",
        body,
        "inst.atomics.capability",
        "%x = OpAtomicFAddEXT",
        "%float",
        &["OpAtomicFAddEXT", "AtomicFloat32AddEXT"],
    );
}

// Barriers.

const OLD_FRAGMENT: M<'static> = M {
    env: "spv1.2",
    caps: "",
    model: "Logical GLSL450",
    entry: "OpEntryPoint Fragment %main \"main\"\nOpExecutionMode %main OriginUpperLeft",
};

#[test]
fn barrier_execution_model() {
    OLD_FRAGMENT.valid("old_fragment_memory_barrier", "OpMemoryBarrier %device %acq_rel_wg");
    OLD_FRAGMENT.one_error(
        "old_fragment_control_barrier",
        "OpControlBarrier %workgroup %workgroup %acq_rel_wg",
        "inst.barrier.execution-model",
        "OpControlBarrier",
        "%workgroup",
        &["Fragment", "SPIR-V 1.2"],
    );
    OLD_FRAGMENT.with_env("spv1.3").valid("fragment_control_barrier", "OpControlBarrier %workgroup %workgroup %acq_rel_wg");
}

fn kernel(body: &str) -> String {
    format!(
        "OpCapability Kernel
OpCapability Addresses
OpCapability Linkage
OpCapability NamedBarrier
OpMemoryModel Physical32 OpenCL
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%nb = OpTypeNamedBarrier
%fn = OpTypeFunction %void
%uint_1 = OpConstant %uint 1
%float_1 = OpConstant %float 1
%workgroup = OpConstant %uint 2
%acq_rel_wg = OpConstant %uint 264
%f = OpFunction %void None %fn
%entry = OpLabel
{body}
OpReturn
OpFunctionEnd
"
    )
}

#[test]
fn barrier_named() {
    assert_valid_module(
        "val_sync_named_barrier",
        &kernel("%b = OpNamedBarrierInitialize %nb %uint_1\nOpMemoryNamedBarrier %b %workgroup %acq_rel_wg"),
        "spv1.1",
    );
    let code = "inst.barrier.named-barrier";
    let src = kernel("%b = OpNamedBarrierInitialize %uint %uint_1");
    assert_one_error("val_sync_named_barrier_result", &src, "spv1.1", code, "%b = OpNamed", "%uint", &["OpTypeNamedBarrier"]);
    let src = kernel("%b = OpNamedBarrierInitialize %nb %float_1");
    assert_one_error("val_sync_named_barrier_count", &src, "spv1.1", code, "%b = OpNamed", "%float_1", &["32-bit int"]);
    let src = kernel("OpMemoryNamedBarrier %uint_1 %workgroup %acq_rel_wg");
    assert_one_error("val_sync_memory_named_barrier", &src, "spv1.1", code, "OpMemoryNamedBarrier", "%uint_1", &["OpTypeNamedBarrier"]);
}

// Non-uniform group operations.

#[test]
fn group_valid() {
    COMPUTE.valid(
        "group",
        "%l = OpLoad %uint %local
%1 = OpGroupNonUniformAll %bool %subgroup %true
%2 = OpGroupNonUniformAllEqual %bool %subgroup %float_1
%3 = OpGroupNonUniformBroadcast %uint %subgroup %l %uint_1
%4 = OpGroupNonUniformShuffle %uint %subgroup %l %l
%5 = OpGroupNonUniformBroadcastFirst %float %subgroup %float_1
%6 = OpGroupNonUniformBallot %v4uint %subgroup %true
%7 = OpGroupNonUniformInverseBallot %bool %subgroup %ballot
%8 = OpGroupNonUniformBallotBitExtract %bool %subgroup %ballot %l
%9 = OpGroupNonUniformBallotBitCount %uint %subgroup Reduce %ballot
%10 = OpGroupNonUniformBallotFindLSB %uint %subgroup %ballot
%11 = OpGroupNonUniformIAdd %int %subgroup Reduce %int_1
%12 = OpGroupNonUniformFMax %float %subgroup InclusiveScan %float_1
%13 = OpGroupNonUniformUMin %uint %subgroup ClusteredReduce %l %uint_1
%14 = OpGroupNonUniformLogicalAnd %bool %subgroup Reduce %true
%15 = OpGroupNonUniformQuadSwap %uint %subgroup %l %uint_0",
    );
}

#[test]
fn group_result_type() {
    COMPUTE.one_error(
        "elect_uint",
        "%e = OpGroupNonUniformElect %uint %subgroup",
        "inst.group.result-type",
        "%e = OpGroupNonUniformElect",
        "%uint",
        &["OpGroupNonUniformElect", "bool scalar"],
    );
    COMPUTE.one_error(
        "umin_signed",
        "%e = OpGroupNonUniformUMin %int %subgroup Reduce %int_1",
        "inst.group.result-type",
        "%e = OpGroupNonUniformUMin",
        "%int",
        &["unsigned int scalar or vector"],
    );
    COMPUTE.one_error(
        "ballot_scalar",
        "%e = OpGroupNonUniformBallot %uint %subgroup %true",
        "inst.group.result-type",
        "%e = OpGroupNonUniformBallot",
        "%uint",
        &["vector of 4 unsigned ints"],
    );
}

#[test]
fn group_operand_type() {
    COMPUTE.one_error(
        "all_uint",
        "%e = OpGroupNonUniformAll %bool %subgroup %uint_1",
        "inst.group.operand-type",
        "%e = OpGroupNonUniformAll",
        "%uint_1",
        &["Predicate %uint_1", "bool scalar"],
    );
    COMPUTE.one_error(
        "broadcast_value",
        "%e = OpGroupNonUniformBroadcast %uint %subgroup %float_1 %uint_1",
        "inst.group.operand-type",
        "%e = OpGroupNonUniformBroadcast",
        "%float_1",
        &["%uint, the Result Type"],
    );
    COMPUTE.one_error(
        "shuffle_signed_id",
        "%e = OpGroupNonUniformShuffle %uint %subgroup %uint_1 %int_1",
        "inst.group.operand-type",
        "%e = OpGroupNonUniformShuffle",
        "%int_1",
        &["unsigned int scalar"],
    );
    COMPUTE.one_error(
        "find_lsb_scalar",
        "%e = OpGroupNonUniformBallotFindLSB %uint %subgroup %uint_1",
        "inst.group.operand-type",
        "%e = OpGroupNonUniformBallotFindLSB",
        "%uint_1",
        &["vector of 4 unsigned ints"],
    );
}

#[test]
fn group_constant() {
    COMPUTE.one_error(
        "broadcast_id_loaded",
        "%l = OpLoad %uint %local\n%e = OpGroupNonUniformBroadcast %uint %subgroup %uint_1 %l",
        "inst.group.constant",
        "%e = OpGroupNonUniformBroadcast",
        "%l",
        &["OpLoad", "constant", "1.5"],
    );
    COMPUTE.one_error(
        "cluster_size_loaded",
        "%l = OpLoad %uint %local\n%e = OpGroupNonUniformIAdd %uint %subgroup ClusteredReduce %uint_1 %l",
        "inst.group.constant",
        "%e = OpGroupNonUniformIAdd",
        "%l",
        &["ClusterSize %l", "constant"],
    );
}

#[test]
fn group_operation() {
    COMPUTE.one_error(
        "clustered_without_size",
        "%e = OpGroupNonUniformIAdd %uint %subgroup ClusteredReduce %uint_1",
        "inst.group.operation",
        "%e = OpGroupNonUniformIAdd",
        "ClusteredReduce",
        &["ClusterSize"],
    );
    let vk = COMPUTE.with_env("vulkan1.1");
    vk.valid("vk_bit_count_scan", "%e = OpGroupNonUniformBallotBitCount %uint %subgroup ExclusiveScan %ballot");
    vk.one_error(
        "vk_bit_count_clustered",
        "%e = OpGroupNonUniformBallotBitCount %uint %subgroup ClusteredReduce %ballot",
        "inst.group.operation",
        "%e = OpGroupNonUniformBallotBitCount",
        "ClusteredReduce",
        &["04685", "Reduce, InclusiveScan or ExclusiveScan"],
    );
}

/// Two entry points, a GLCompute one that calls `%helper` (which has a
/// Workgroup memory barrier) and a Vertex one that calls it when `vertex_calls`.
fn two_stages(vertex_calls: bool) -> String {
    let call = if vertex_calls { "%r = OpFunctionCall %void %helper\n" } else { "" };
    format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %comp \"comp\"
OpEntryPoint Vertex %vert \"vert\"
OpExecutionMode %comp LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%workgroup = OpConstant %uint 2
%acq_rel_wg = OpConstant %uint 264
%helper = OpFunction %void None %fn
%h = OpLabel
OpMemoryBarrier %workgroup %acq_rel_wg
OpReturn
OpFunctionEnd
%comp = OpFunction %void None %fn
%c = OpLabel
%q = OpFunctionCall %void %helper
OpReturn
OpFunctionEnd
%vert = OpFunction %void None %fn
%v = OpLabel
{call}OpReturn
OpFunctionEnd
"
    )
}

#[test]
fn scope_execution_model_through_calls() {
    assert_valid_module("val_sync_helper_compute_only", &two_stages(false), "vulkan1.1");
    assert_one_error(
        "val_sync_helper_called_from_vertex",
        &two_stages(true),
        "vulkan1.1",
        "inst.scope.execution-model",
        "OpMemoryBarrier",
        "%workgroup",
        &["Vertex entry point", "Workgroup memory scope"],
    );
}
