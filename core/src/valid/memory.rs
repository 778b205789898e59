//! The memory instructions: OpVariable, OpLoad, OpStore, OpCopyMemory, the
//! access chains and the pointer comparisons, as far as spirv-val checks their
//! types (SPIR-V 3.49.8 "Memory Instructions"; SPIRV-Tools validate_memory).
//!
//! Untyped pointers (SPV_KHR_untyped_pointers) are left to `ext::untyped`.

use super::Context;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::diag::Related;
use crate::grammar::{addressing_model, decoration, op, storage_class, OperandKind};
use crate::ir::Type;
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.memory.variable-type",
        summary: "OpVariable's Result Type must be a pointer type.",
        explanation: "SPIR-V 3.49.8 OpVariable: \"Result Type must be an OpTypePointer. Its Type \
                      operand is the type of object in memory.\" The variable's id is that \
                      pointer. Fix: declare `%ptr = OpTypePointer <StorageClass> %type` and use \
                      %ptr as the Result Type.",
    },
    Rule {
        code: "inst.memory.variable-storage-class",
        summary: "OpVariable's storage class must be the one of its pointer type.",
        explanation: "SPIR-V 3.49.8 OpVariable: \"Storage Class is the Storage Class of the memory \
                      holding the object. It must not be Generic. It must be the same as the \
                      Storage Class operand of the Result Type.\" Inside a function a variable's \
                      storage class is Function (SPIR-V 2.4), and PhysicalStorageBuffer memory is \
                      reached through pointers, never declared by OpVariable.",
    },
    Rule {
        code: "inst.memory.variable-initializer",
        summary: "A variable's initializer must be a constant or a module-scope variable of the pointee type.",
        explanation: "SPIR-V 3.49.8 OpVariable: \"Initializer is optional. If Initializer is \
                      present, it will be the initial value of the variable's memory content. \
                      Initializer must be an <id> from a constant instruction or a global \
                      (module scope) OpVariable instruction. Initializer must have the same type \
                      as the type pointed to by Result Type.\" Input variables cannot have one: \
                      their value comes from the previous stage.",
    },
    Rule {
        code: "inst.memory.variable-bool",
        summary: "A Boolean can be stored only in storage the shader alone sees (or in a built-in).",
        explanation: "SPIR-V 2.16.1: OpTypeBool has no defined size or bit pattern, so it may be \
                      stored with OpVariable only in non-externally visible storage classes: \
                      Workgroup, CrossWorkgroup, Private, Function, UniformConstant and the ray \
                      tracing payload classes; in Input or Output only as a BuiltIn. Fix: store \
                      an integer (0 or 1) and compare it.",
    },
    Rule {
        code: "inst.memory.array-length",
        summary: "OpArrayLength takes a pointer to a struct whose last member is a runtime array, and that member's index.",
        explanation: "SPIR-V 3.49.8 OpArrayLength: \"Length of a run-time array. Result Type must be an \
                      OpTypeInt with 32-bit Width and 0 Signedness. Structure must be a logical \
                      pointer to an OpTypeStruct whose last member is a run-time array. Array \
                      member is an unsigned 32-bit integer index of the last member of the \
                      structure that Structure points to.\" (spirv-val also accepts a 64-bit \
                      Result Type.)",
    },
    Rule {
        code: "inst.memory.not-a-pointer",
        summary: "A memory instruction's pointer operand must have a pointer type.",
        explanation: "OpLoad's Pointer, OpStore's Pointer, OpCopyMemory's Target and Source, the \
                      Base of an access chain and the operands of OpPtrEqual, OpPtrNotEqual and \
                      OpPtrDiff must be pointers (values whose type is an OpTypePointer), not the \
                      values they point to (SPIR-V 3.49.8).",
    },
    Rule {
        code: "inst.memory.load-type",
        summary: "OpLoad's Result Type must be the type its pointer points to.",
        explanation: "SPIR-V 3.49.8 OpLoad: \"Result Type is the type of the loaded object. It \
                      must be a type with fixed size; i.e., it must not be, nor include, any \
                      OpTypeRuntimeArray types. Pointer is the pointer to load through. Its type \
                      must be an OpTypePointer whose Type operand is the same as Result Type.\" \
                      The types must be the same <id>: two identical declarations are different \
                      types for this rule.",
    },
    Rule {
        code: "inst.memory.store-type",
        summary: "OpStore's Object must have the type its pointer points to.",
        explanation: "SPIR-V 3.49.8 OpStore: \"Pointer is the pointer to store through. Its type \
                      must be an OpTypePointer whose Type operand is the same as the type of \
                      Object.\" (spirv-val's --relax-struct-store lets two structures with the \
                      same layout differ.)",
    },
    Rule {
        code: "inst.memory.store-read-only",
        summary: "OpStore cannot write through a pointer into read-only storage.",
        explanation: "UniformConstant, Input and PushConstant memory is read-only to the shader \
                      (SPIR-V 2.18 \"Storage Class\"): it is written by the API or by the previous \
                      stage. An OpStore through a pointer in one of them is invalid.",
    },
    Rule {
        code: "inst.memory.store-uniform-block",
        summary: "In Vulkan, a Uniform Block is read-only: nothing may be stored into it.",
        explanation: "Vulkan VUID-StandaloneSpirv-Uniform-06925: \"Any variable in the Uniform \
                      Storage Class decorated as Block must not be stored to or modified.\" A \
                      uniform buffer is read-only to the shader; a buffer the shader writes is a \
                      StorageBuffer variable (or, before SPIR-V 1.3, a Uniform variable of a \
                      BufferBlock structure). Fix: declare the variable in the StorageBuffer \
                      storage class, or write a copy of the data in Function or Private memory. \
                      As spirv-val does, the check is made on OpStore; OpCopyMemory into such a \
                      variable and atomic writes break the rule too but are not reported.",
    },
    Rule {
        code: "inst.memory.void-pointee",
        summary: "Memory cannot be accessed through a pointer to void, nor store a void value.",
        explanation: "A value of type OpTypeVoid does not exist, so nothing can be loaded from, \
                      stored through or copied through a pointer to void, and a store's Object \
                      must have a non-void type (SPIR-V 2.2.2).",
    },
    Rule {
        code: "inst.memory.copy-type",
        summary: "OpCopyMemory's Target and Source must point to the same type.",
        explanation: "SPIR-V 3.49.8 OpCopyMemory: \"Copy from the memory pointed to by Source to \
                      the memory pointed to by Target. Both operands must be non-void pointers \
                      and having the same <id> Type operand in their OpTypePointer type \
                      declaration.\"",
    },
    Rule {
        code: "inst.memory.access-chain-result",
        summary: "An access chain's Result Type must be a pointer, in the Base's storage class, to the type the indexes reach.",
        explanation: "SPIR-V 3.49.8 OpAccessChain: \"Result Type must be an OpTypePointer. Its \
                      Type operand must be the type reached by walking the Base's type hierarchy \
                      down to the last provided index in Indexes, and its Storage Class operand \
                      must be the same as the Storage Class of Base.\"",
    },
    Rule {
        code: "inst.memory.access-chain-index",
        summary: "Access chain indexes must be integers that walk the Base's type; a structure index must be an in-range constant.",
        explanation: "SPIR-V 3.49.8 OpAccessChain: \"Each index in Indexes must have a scalar \
                      integer type and is treated as signed. ... When indexing into a structure, \
                      the index must be an OpConstant\" that selects an existing member; once a \
                      non-composite type is reached no index may remain. In Logical addressing a \
                      constant signed index must not be negative.",
    },
    Rule {
        code: "inst.memory.pointer-compare",
        summary: "OpPtrEqual, OpPtrNotEqual and OpPtrDiff compare two pointers of the same type.",
        explanation: "SPIR-V 3.49.8: \"Operand 1 and Operand 2 must have the same type\", a \
                      pointer type; OpPtrEqual and OpPtrNotEqual return a Boolean scalar, OpPtrDiff \
                      an integer scalar.",
    },
    Rule {
        code: "inst.memory.variable-pointer",
        summary: "In Logical addressing, a variable may hold only a variable pointer.",
        explanation: "SPIR-V 2.16.1 (Logical addressing) and the VariablePointers capabilities: \
                      pointers are abstract, and storing one in a variable makes it a variable \
                      pointer. A variable may hold a pointer to StorageBuffer memory only with \
                      the VariablePointersStorageBuffer capability, to Workgroup memory only \
                      with VariablePointers, to no other storage class (PhysicalStorageBuffer \
                      pointers excepted), and such a variable must itself be in the Function or \
                      Private storage class. spirv-val's --relax-logical-pointer lifts this rule.",
    },
    Rule {
        code: "inst.memory.logical-pointer-result",
        summary: "In Logical addressing, only some instructions may produce a pointer.",
        explanation: "SPIR-V 2.16.1 (Logical addressing): pointers are abstract; only \
                      OpVariable, OpAccessChain, OpInBoundsAccessChain, OpFunctionParameter, \
                      OpImageTexelPointer, OpCopyObject (and OpUndef) may produce one. With the \
                      VariablePointersStorageBuffer capability, OpSelect, OpPhi, OpFunctionCall, \
                      OpPtrAccessChain, OpLoad, OpConstantNull and OpFunction may also produce a \
                      StorageBuffer pointer, and with VariablePointers a Workgroup one. spirv-val's \
                      --relax-logical-pointer lifts this rule.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

/// The name of an opcode, for messages (kept out of line: the error paths only).
#[cold]
#[inline(never)]
pub(super) fn op_name(opcode: u16) -> &'static str {
    crate::grammar::instruction(opcode).map_or("?", |d| d.name)
}

/// A type described for messages: its name and what it is.
pub(super) fn describe(cx: &mut Context<'_>, ty: u32) -> String {
    let name = cx.name(ty);
    let Some(def) = cx.ir().ty(ty) else { return format!("{name} (not a type)") };
    let what = match &def.ty {
        Type::Void => String::from("void"),
        Type::Bool => String::from("bool"),
        Type::Int { width, signed } => format!("{}{width}-bit int", if *signed { "signed " } else { "unsigned " }),
        Type::Float { width, .. } => format!("{width}-bit float"),
        Type::Vector { component, count } => {
            let c = cx.name(*component);
            format!("vector of {count} {c}")
        }
        Type::Matrix { column, columns } => {
            let c = cx.name(*column);
            format!("matrix of {columns} {c}")
        }
        Type::Array { element, .. } => {
            let e = cx.name(*element);
            format!("array of {e}")
        }
        Type::RuntimeArray { element } => {
            let e = cx.name(*element);
            format!("runtime array of {e}")
        }
        Type::Struct { members } => format!("struct of {} members", members.len()),
        Type::Pointer { storage, pointee } => {
            let sc = OperandKind::StorageClass.enumerant(*storage).map_or("?", |e| e.name);
            match pointee {
                Some(p) => {
                    let p = cx.name(*p);
                    format!("{sc} pointer to {p}")
                }
                None => format!("untyped {sc} pointer"),
            }
        }
        Type::Function { .. } => String::from("function type"),
        Type::Image { .. } => String::from("image"),
        Type::Sampler => String::from("sampler"),
        Type::SampledImage { .. } => String::from("sampled image"),
        Type::Opaque { .. } | Type::Other { .. } => return name,
    };
    format!("{name} ({what})")
}

/// What a value operand is, for messages: `%x of type %T (...)`, or why it
/// has no type.
pub(super) fn describe_value(cx: &mut Context<'_>, id: u32) -> String {
    let n = cx.name(id);
    match cx.type_of(id) {
        Some(t) => {
            let t = describe(cx, t);
            format!("{n} of type {t}")
        }
        None if cx.ir().ty(id).is_some() => format!("{n}, a type, not a value"),
        None => format!("{n}, which is not a value"),
    }
}

/// The pointer type of value `id`: (storage class, pointee), if it is a typed pointer.
fn pointer_of(cx: &Context<'_>, id: u32) -> Option<(u32, Option<u32>)> {
    match cx.ir().ty(cx.type_of(id)?)?.ty {
        Type::Pointer { storage, pointee } => Some((storage, pointee)),
        _ => None,
    }
}

fn is_untyped_pointer_value(cx: &Context<'_>, id: u32) -> bool {
    matches!(pointer_of(cx, id), Some((_, None)))
}

fn sc_name(sc: u32) -> &'static str {
    OperandKind::StorageClass.enumerant(sc).map_or("?", |e| e.name)
}

pub(super) fn check(cx: &mut Context<'_>) {
    let insts = cx.insts();
    let addressing = insts
        .iter()
        .find(|x| x.opcode == op::OpMemoryModel)
        .and_then(|x| x.operands.first().copied())
        .unwrap_or(addressing_model::Logical);
    for (i, inst) in insts.iter().enumerate() {
        let w = inst.operands.as_slice();
        match inst.opcode {
            op::OpVariable => variable(cx, i, w, addressing),
            op::OpLoad => load(cx, i, w),
            op::OpStore => store(cx, i, w),
            op::OpCopyMemory | op::OpCopyMemorySized => copy_memory(cx, i, w),
            op::OpAccessChain | op::OpInBoundsAccessChain | op::OpPtrAccessChain | op::OpInBoundsPtrAccessChain => {
                access_chain(cx, i, w, addressing)
            }
            op::OpPtrEqual | op::OpPtrNotEqual | op::OpPtrDiff => ptr_compare(cx, i, w),
            op::OpArrayLength => array_length(cx, i, w),
            _ => {}
        }
    }
    if (addressing == addressing_model::Logical || addressing == addressing_model::PhysicalStorageBuffer64)
        && !cx.opts.relax_logical_pointer
    {
        logical_pointer_results(cx);
    }
}

/// spirv-val's ValidateLogicalPointerReturns: which instructions may produce
/// a logical pointer.
fn logical_pointer_results(cx: &mut Context<'_>) {
    let insts = cx.insts();
    // Declared with the ones they imply (VariablePointers implies
    // VariablePointersStorageBuffer), as spirv-val's HasCapability.
    let declared = cx.declared();
    let vp = declared.has_cap(crate::grammar::capability::VariablePointers);
    let vp_sb = declared.has_cap(crate::grammar::capability::VariablePointersStorageBuffer);
    for (i, inst) in insts.iter().enumerate() {
        // The parsed operands say whether word 1 is a result type (no grammar look-up).
        let Some(rt) = cx.ir().result_type(i) else { continue };
        let Some(t) = cx.ir().ty(rt) else { continue };
        let sc = match t.ty {
            Type::Pointer { storage, .. } => storage,
            _ => continue,
        };
        if sc == storage_class::PhysicalStorageBuffer {
            continue;
        }
        let ok = match inst.opcode {
            op::OpVariable
            | op::OpAccessChain
            | op::OpInBoundsAccessChain
            | op::OpFunctionParameter
            | op::OpImageTexelPointer
            | op::OpCopyObject
            | op::OpUndef
            | op::OpConstantFunctionPointerINTEL
            | op::OpUntypedAccessChainKHR
            | op::OpUntypedInBoundsAccessChainKHR
            | op::OpUntypedVariableKHR
            | op::OpRawAccessChainNV
            | op::OpAllocateNodePayloadsAMDX
            | op::OpBufferPointerEXT
            | op::OpUntypedImageTexelPointerEXT => continue,
            op::OpSelect
            | op::OpPhi
            | op::OpFunctionCall
            | op::OpPtrAccessChain
            | op::OpLoad
            | op::OpConstantNull
            | op::OpFunction
            | op::OpUntypedPtrAccessChainKHR => {
                (vp_sb && sc == storage_class::StorageBuffer) || (vp && sc == storage_class::Workgroup)
            }
            _ => false,
        };
        // The logical and conversion families already said what is wrong
        // with an OpSelect or OpBitcast here: one mistake, one diagnostic.
        if !ok && !cx.has_error_in(i) {
            let t = describe(cx, rt);
            let d = cx.error_at(
                "inst.memory.logical-pointer-result",
                i,
                0,
                format!(
                    "{} cannot produce the pointer {t} in Logical addressing (only StorageBuffer pointers with VariablePointersStorageBuffer, or Workgroup ones with VariablePointers)",
                    op_name(cx.insts()[i].opcode)
                ),
            );
            d.label = String::from("a logical pointer cannot be produced here");
        }
    }
}

fn not_a_pointer(cx: &mut Context<'_>, i: usize, k: usize, what: &str, id: u32) {
    let v = describe_value(cx, id);
    let d = cx.error_at("inst.memory.not-a-pointer", i, k, format!("{what} must be a pointer, but it is {v}"));
    d.label = String::from("expected a pointer");
}

fn variable(cx: &mut Context<'_>, i: usize, w: &[u32], addressing: u32) {
    let [rt, _id, sc, rest @ ..] = w else { return };
    let Some(def) = cx.ir().ty(*rt) else { return };
    let (psc, pointee) = match def.ty {
        Type::Pointer { storage, pointee } => (storage, pointee),
        _ => {
            let t = describe(cx, *rt);
            let d = cx.error_at(
                "inst.memory.variable-type",
                i,
                0,
                format!("OpVariable's Result Type must be a pointer type, but it is {t}"),
            );
            d.label = String::from("expected an OpTypePointer");
            return;
        }
    };
    if psc != *sc {
        let t = cx.name(*rt);
        let d = cx.error_at(
            "inst.memory.variable-storage-class",
            i,
            2,
            format!(
                "OpVariable's storage class {} differs from the storage class {} of its Result Type {t}",
                sc_name(*sc),
                sc_name(psc)
            ),
        );
        d.label = format!("expected {}", sc_name(psc));
    }
    let in_function = cx.ir().function_at(i).is_some();
    let bad_class = match *sc {
        s if in_function && s != storage_class::Function => Some("inside a function a variable's storage class must be Function"),
        storage_class::Generic => Some("a variable cannot have the Generic storage class"),
        storage_class::PhysicalStorageBuffer => Some("PhysicalStorageBuffer cannot be used with OpVariable"),
        _ => None,
    };
    if let Some(msg) = bad_class {
        let d = cx.error_at("inst.memory.variable-storage-class", i, 2, format!("{msg}, not {}", sc_name(*sc)));
        d.label = String::from("storage class not allowed here");
    }
    if let Some(p) = pointee {
        bool_storage(cx, i, *sc, p, w[1]);
        if (addressing == addressing_model::Logical || addressing == addressing_model::PhysicalStorageBuffer64)
            && !cx.opts.relax_logical_pointer
        {
            variable_of_pointer(cx, i, *sc, p);
        }
    }
    let Some(&init) = rest.first() else { return };
    let init_op = cx.def_opcode(init);
    let is_const = init_op.is_some_and(is_constant_opcode);
    let is_global_var = init_op == Some(op::OpVariable)
        && cx.def_inst(init).and_then(|x| x.operands.get(2)).is_some_and(|&s| s != storage_class::Function);
    if !is_const && !is_global_var {
        let v = cx.name(init);
        let d = cx.error_at(
            "inst.memory.variable-initializer",
            i,
            3,
            format!("the initializer {v} of OpVariable is not a constant or a module-scope variable"),
        );
        d.label = String::from("expected a constant or a global variable");
        return;
    }
    if let Some(p) = pointee
        && cx.type_of(init) != Some(p) {
            let v = describe_value(cx, init);
            let p = describe(cx, p);
            let d = cx.error_at(
                "inst.memory.variable-initializer",
                i,
                3,
                format!("the initializer of OpVariable is {v}, but the variable holds {p}"),
            );
            d.label = String::from("initializer of the wrong type");
            return;
        }
    if *sc == storage_class::Input || *sc == storage_class::TaskPayloadWorkgroupEXT {
        let d = cx.error_at(
            "inst.memory.variable-initializer",
            i,
            3,
            format!("a variable in the {} storage class cannot have an initializer", sc_name(*sc)),
        );
        d.label = String::from("initializer not allowed here");
    }
}

/// spirv-val's variable-pointer restrictions: in Logical addressing a
/// variable may hold a pointer only to StorageBuffer (with
/// VariablePointersStorageBuffer) or Workgroup (with VariablePointers)
/// memory, and only in the Function or Private storage class.
fn variable_of_pointer(cx: &mut Context<'_>, i: usize, sc: u32, pointee: u32) {
    use crate::grammar::capability::{VariablePointers, VariablePointersStorageBuffer};
    let psc = match cx.ir().ty(pointee).map(|t| &t.ty) {
        Some(&Type::Pointer { storage, .. }) => storage,
        _ => return,
    };
    if psc == storage_class::PhysicalStorageBuffer {
        return;
    }
    let declared = cx.declared();
    let msg = if psc != storage_class::StorageBuffer && psc != storage_class::Workgroup {
        String::from("only pointers to StorageBuffer or Workgroup memory may be stored in a variable")
    } else if psc == storage_class::StorageBuffer && !declared.has_cap(VariablePointersStorageBuffer) {
        String::from("a StorageBuffer pointer in a variable needs the VariablePointersStorageBuffer capability")
    } else if psc == storage_class::Workgroup && !declared.has_cap(VariablePointers) {
        String::from("a Workgroup pointer in a variable needs the VariablePointers capability")
    } else if sc != storage_class::Function && sc != storage_class::Private {
        let d = cx.error_at(
            "inst.memory.variable-pointer",
            i,
            2,
            format!(
                "in Logical addressing a variable that holds a pointer must be in the Function or Private storage class, not {}",
                sc_name(sc)
            ),
        );
        d.label = String::from("expected Function or Private");
        return;
    } else {
        return;
    };
    let t = describe(cx, pointee);
    let d = cx.error_at(
        "inst.memory.variable-pointer",
        i,
        0,
        format!("in Logical addressing a variable cannot hold {t}: {msg}"),
    );
    d.label = String::from("a variable of this pointer type is not allowed here");
}

/// spirv-val's ContainsInvalidBool: a Boolean in externally visible storage.
fn bool_storage(cx: &mut Context<'_>, i: usize, sc: u32, pointee: u32, var: u32) {
    use crate::grammar::decoration::BuiltIn;
    let private = matches!(
        sc,
        storage_class::Workgroup
            | storage_class::CrossWorkgroup
            | storage_class::Private
            | storage_class::Function
            | storage_class::UniformConstant
            | storage_class::RayPayloadKHR
            | storage_class::IncomingRayPayloadKHR
            | storage_class::HitAttributeKHR
            | storage_class::CallableDataKHR
            | storage_class::IncomingCallableDataKHR
            | storage_class::TaskPayloadWorkgroupEXT
            | storage_class::HitObjectAttributeNV
            | storage_class::HitObjectAttributeEXT
            | storage_class::NodePayloadAMDX
    );
    if private {
        return;
    }
    let io = sc == storage_class::Input || sc == storage_class::Output;
    if io && cx.ir().decorations_of(var).iter().any(|d| d.decoration == BuiltIn) {
        return;
    }
    fn contains(cx: &Context<'_>, t: u32, skip_builtin: bool, depth: u32) -> bool {
        use crate::grammar::decoration::BuiltIn;
        if depth > 64 {
            return false;
        }
        if skip_builtin && cx.ir().decorations_of(t).iter().any(|d| d.decoration == BuiltIn) {
            return false;
        }
        match cx.ir().ty(t).map(|x| &x.ty) {
            Some(Type::Bool) => true,
            Some(Type::Vector { component: e, .. } | Type::Matrix { column: e, .. } | Type::Array { element: e, .. } | Type::RuntimeArray { element: e }) => {
                contains(cx, *e, skip_builtin, depth + 1)
            }
            Some(Type::Struct { members }) => members.iter().any(|m| contains(cx, m.ty, skip_builtin, depth + 1)),
            _ => false,
        }
    }
    if contains(cx, pointee, io, 0) {
        let (v, p) = (cx.name(var), describe(cx, pointee));
        let d = cx.error_at(
            "inst.memory.variable-bool",
            i,
            0,
            format!(
                "the variable {v} holds {p}, which contains a bool, in {} storage{}",
                sc_name(sc),
                if io { " without a BuiltIn decoration" } else { ", which is visible outside the shader" }
            ),
        );
        d.label = String::from("a bool in externally visible storage");
    }
}

/// Whether `opcode` makes a constant (spirv-val's spvOpcodeIsConstant).
pub(super) fn is_constant_opcode(opcode: u16) -> bool {
    matches!(
        opcode,
        op::OpConstantTrue
            | op::OpConstantFalse
            | op::OpConstant
            | op::OpConstantComposite
            | op::OpConstantSampler
            | op::OpConstantNull
            | op::OpSpecConstantTrue
            | op::OpSpecConstantFalse
            | op::OpSpecConstant
            | op::OpSpecConstantComposite
            | op::OpSpecConstantOp
            | op::OpConstantCompositeReplicateEXT
            | op::OpSpecConstantCompositeReplicateEXT
            | op::OpConstantFunctionPointerINTEL
            | op::OpConstantSizeOfEXT
            | op::OpConstantDataKHR
            | op::OpSpecConstantDataKHR
    )
}

fn load(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [rt, _id, ptr, ..] = w else { return };
    let Some((_, pointee)) = pointer_of(cx, *ptr) else {
        not_a_pointer(cx, i, 2, "OpLoad's Pointer", *ptr);
        return;
    };
    let Some(p) = pointee else { return };
    if p != *rt {
        let r = describe(cx, *rt);
        let pn = cx.name(*ptr);
        let pd = describe(cx, p);
        let d = cx.error_at(
            "inst.memory.load-type",
            i,
            0,
            format!("OpLoad's Result Type {r} does not match the type {pd} that {pn} points to"),
        );
        d.label = format!("expected {}", cx_name_plain(&pd));
    }
}

/// The `%name` part of a description.
fn cx_name_plain(desc: &str) -> &str {
    desc.split(' ').next().unwrap_or(desc)
}

fn store(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [ptr, obj, ..] = w else { return };
    let ptr_info = pointer_of(cx, *ptr);
    let obj_ty = cx.type_of(*obj);
    let Some((sc, pointee)) = ptr_info else {
        not_a_pointer(cx, i, 0, "OpStore's Pointer", *ptr);
        return;
    };
    if pointee.is_some_and(|p| matches!(cx.ir().ty(p).map(|t| &t.ty), Some(Type::Void))) {
        let pn = cx.name(*ptr);
        cx.error_at("inst.memory.void-pointee", i, 0, format!("OpStore's Pointer {pn} points to void"));
        return;
    }
    if matches!(sc, storage_class::UniformConstant | storage_class::Input | storage_class::PushConstant) {
        let pn = cx.name(*ptr);
        let d = cx.error_at(
            "inst.memory.store-read-only",
            i,
            0,
            format!("OpStore's Pointer {pn} points into {} storage, which is read-only", sc_name(sc)),
        );
        d.label = String::from("read-only storage");
    }
    uniform_block_write(cx, i, 0, *ptr);
    let Some(ot) = obj_ty else {
        let v = describe_value(cx, *obj);
        let d = cx.error_at("inst.memory.store-type", i, 1, format!("OpStore's Object must be a value, but it is {v}"));
        d.label = String::from("expected a value");
        return;
    };
    if matches!(cx.ir().ty(ot).map(|t| &t.ty), Some(Type::Void)) {
        let on = cx.name(*obj);
        cx.error_at("inst.memory.void-pointee", i, 1, format!("OpStore's Object {on} has type void"));
        return;
    }
    let Some(p) = pointee else { return };
    if p != ot {
        let both_structs = |cx: &Context<'_>| {
            matches!(cx.ir().ty(p).map(|t| &t.ty), Some(Type::Struct { .. }))
                && matches!(cx.ir().ty(ot).map(|t| &t.ty), Some(Type::Struct { .. }))
        };
        if cx.opts.relax_struct_store && both_structs(cx) {
            return;
        }
        let v = describe_value(cx, *obj);
        let pn = cx.name(*ptr);
        let pd = describe(cx, p);
        let d = cx.error_at(
            "inst.memory.store-type",
            i,
            1,
            format!("OpStore's Object is {v}, but {pn} points to {pd}"),
        );
        d.label = format!("expected a value of type {}", cx_name_plain(&pd));
    }
}

/// The Uniform variable whose type is a Block (or an array of Blocks) that
/// pointer `ptr` points into, in Vulkan: the variable reached through access
/// chains and OpCopyObject (spirv-val's TracePointer). Its instruction index,
/// its id and the Block's id.
fn uniform_block_of(cx: &Context<'_>, ptr: u32) -> Option<(usize, u32, u32)> {
    if !cx.opts.env.is_vulkan() || pointer_of(cx, ptr)?.0 != storage_class::Uniform {
        return None;
    }
    let ir = cx.ir();
    let insts = cx.insts();
    let mut id = ptr;
    // Each step goes to an earlier definition in a valid module; the bound
    // ends a cycle in one that is not.
    for _ in 0..insts.len() {
        let at = ir.def(id)?;
        let inst = &insts[at];
        match inst.opcode {
            op::OpAccessChain | op::OpInBoundsAccessChain | op::OpPtrAccessChain | op::OpInBoundsPtrAccessChain
            | op::OpCopyObject => id = *inst.operands.get(2)?,
            op::OpVariable => {
                let Type::Pointer { pointee: Some(p), .. } = ir.ty(*inst.operands.first()?)?.ty else { return None };
                let block = match ir.ty(p)?.ty {
                    Type::Array { element, .. } | Type::RuntimeArray { element } => element,
                    _ => p,
                };
                return ir.has_decoration(block, decoration::Block).then_some((at, id, block));
            }
            _ => return None,
        }
    }
    None
}

/// VUID-StandaloneSpirv-Uniform-06925: OpStore `i` writes through its
/// operand `k`, pointer `ptr`; an error if that points into a Uniform Block.
fn uniform_block_write(cx: &mut Context<'_>, i: usize, k: usize, ptr: u32) {
    let Some((var_at, var, block)) = uniform_block_of(cx, ptr) else { return };
    let what = "OpStore's Pointer";
    let pn = cx.name(ptr);
    let vn = cx.name(var);
    let bn = cx.name(block);
    let whose = if ptr == var { String::new() } else { format!(" points into {vn}, which") };
    let span = cx.span(var_at);
    let d = cx.error_at(
        "inst.memory.store-uniform-block",
        i,
        k,
        format!(
            "{what} {pn}{whose} is a Uniform variable of the Block {bn}: in Vulkan a Uniform Block is read-only \
             (VUID-StandaloneSpirv-Uniform-06925)"
        ),
    );
    d.label = String::from("a write into a Uniform Block");
    d.related.push(Related { span, label: format!("{vn} is declared in Uniform storage") });
    d.help = Some(String::from("a buffer the shader writes is a StorageBuffer variable"));
}

fn copy_memory(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [target, source, ..] = w else { return };
    let t = pointer_of(cx, *target);
    let s = pointer_of(cx, *source);
    if t.is_none() {
        not_a_pointer(cx, i, 0, "OpCopyMemory's Target", *target);
    }
    if s.is_none() {
        not_a_pointer(cx, i, 1, "OpCopyMemory's Source", *source);
    }
    if cx.insts()[i].opcode != op::OpCopyMemory {
        return;
    }
    let (Some((_, Some(tp))), Some((_, Some(sp)))) = (t, s) else { return };
    for (k, p, id) in [(0, tp, *target), (1, sp, *source)] {
        if matches!(cx.ir().ty(p).map(|t| &t.ty), Some(Type::Void)) {
            let n = cx.name(id);
            cx.error_at("inst.memory.void-pointee", i, k, format!("OpCopyMemory's operand {n} points to void"));
            return;
        }
    }
    if tp != sp {
        let (tn, sn) = (cx.name(*target), cx.name(*source));
        let (td, sd) = (describe(cx, tp), describe(cx, sp));
        let d = cx.error_at(
            "inst.memory.copy-type",
            i,
            1,
            format!("OpCopyMemory's Target {tn} points to {td}, but its Source {sn} points to {sd}"),
        );
        d.label = format!("expected a pointer to {}", cx_name_plain(&td));
    }
}

fn access_chain(cx: &mut Context<'_>, i: usize, w: &[u32], addressing: u32) {
    let [rt, _id, base, rest @ ..] = w else { return };
    let opcode = cx.insts()[i].opcode;
    let opname = op_name(cx.insts()[i].opcode);
    let ptr_chain = matches!(opcode, op::OpPtrAccessChain | op::OpInBoundsPtrAccessChain);
    let (indexes, first_k) = if ptr_chain {
        (rest.get(1..).unwrap_or(&[]), 4)
    } else {
        (rest, 3)
    };
    let result = match cx.ir().ty(*rt).map(|t| &t.ty) {
        Some(&Type::Pointer { storage, pointee }) => Some((storage, pointee)),
        _ => None,
    };
    let Some((rsc, rpointee)) = result else {
        let t = describe(cx, *rt);
        let d = cx.error_at(
            "inst.memory.access-chain-result",
            i,
            0,
            format!("{opname}'s Result Type must be a pointer type, but it is {t}"),
        );
        d.label = String::from("expected an OpTypePointer");
        return;
    };
    let Some((bsc, bpointee)) = pointer_of(cx, *base) else {
        not_a_pointer(cx, i, 2, &format!("{opname}'s Base"), *base);
        return;
    };
    let (Some(rpointee), Some(bpointee)) = (rpointee, bpointee) else { return };
    if rsc != bsc {
        let (t, b) = (cx.name(*rt), cx.name(*base));
        let d = cx.error_at(
            "inst.memory.access-chain-result",
            i,
            0,
            format!(
                "{opname}'s Result Type {t} is a {} pointer, but its Base {b} is a {} pointer",
                sc_name(rsc),
                sc_name(bsc)
            ),
        );
        d.label = format!("expected a {} pointer", sc_name(bsc));
        return;
    }
    let check_negative = !cx.opts.relax_logical_pointer
        && (addressing == addressing_model::Logical || addressing == addressing_model::PhysicalStorageBuffer64)
        && rsc != storage_class::PhysicalStorageBuffer;
    let mut cur = bpointee;
    for (n, &idx) in indexes.iter().enumerate() {
        let k = first_k + n;
        let int_ty = cx.type_of(idx).and_then(|t| match cx.ir().ty(t)?.ty {
            Type::Int { signed, .. } => Some(signed),
            _ => None,
        });
        let Some(signed) = int_ty else {
            let v = describe_value(cx, idx);
            let d = cx.error_at(
                "inst.memory.access-chain-index",
                i,
                k,
                format!("{opname}'s indexes must be integer scalars, but this one is {v}"),
            );
            d.label = String::from("expected an integer");
            return;
        };
        let value = const_index(cx, idx);
        if check_negative && signed && value.is_some_and(|v| v < 0) {
            let v = cx.name(idx);
            let d = cx.error_at(
                "inst.memory.access-chain-index",
                i,
                k,
                format!("{opname}'s index {v} is negative ({}), which Logical addressing forbids", value.unwrap_or(0)),
            );
            d.label = String::from("negative index");
            return;
        }
        let Some(def) = cx.ir().ty(cur) else { return };
        cur = match &def.ty {
            Type::Vector { component, .. } => *component,
            Type::Matrix { column, .. } => *column,
            Type::Array { element, .. } | Type::RuntimeArray { element } => *element,
            Type::Struct { members } => {
                let count = members.len();
                let Some(v) = value else {
                    let v = cx.name(idx);
                    let s = cx.name(cur);
                    let d = cx.error_at(
                        "inst.memory.access-chain-index",
                        i,
                        k,
                        format!("{opname}'s index {v} into the structure {s} must be an OpConstant"),
                    );
                    d.label = String::from("expected a constant member index");
                    return;
                };
                if v < 0 || v as u64 >= count as u64 {
                    let s = cx.name(cur);
                    let d = cx.error_at(
                        "inst.memory.access-chain-index",
                        i,
                        k,
                        format!(
                            "{opname}'s index {v} is out of range: the structure {s} has {count} members, the largest valid index is {}",
                            count as i64 - 1
                        ),
                    );
                    d.label = String::from("no such member");
                    return;
                }
                members[v as usize].ty
            }
            Type::Other { opcode }
                if matches!(*opcode, op::OpTypeCooperativeMatrixNV | op::OpTypeCooperativeMatrixKHR | op::OpTypeNodePayloadArrayAMDX | op::OpTypeVectorIdEXT) =>
            {
                match cx.def_inst(cur).and_then(|x| x.operands.get(1)) {
                    Some(&e) => e,
                    None => return,
                }
            }
            _ => {
                let t = describe(cx, cur);
                let d = cx.error_at(
                    "inst.memory.access-chain-index",
                    i,
                    k,
                    format!("{opname} has reached {t}, which is not a composite, while indexes remain"),
                );
                d.label = String::from("one index too many");
                return;
            }
        };
    }
    if cur != rpointee {
        let t = cx.name(*rt);
        let (r, c) = (describe(cx, rpointee), describe(cx, cur));
        let d = cx.error_at(
            "inst.memory.access-chain-result",
            i,
            0,
            format!("{opname}'s Result Type {t} points to {r}, but the indexes reach {c}"),
        );
        d.label = format!("expected a pointer to {}", cx_name_plain(&c));
    }
}

fn array_length(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [rt, _id, structure, member] = w else { return };
    if !matches!(cx.ir().ty(*rt).map(|t| &t.ty), Some(Type::Int { width: 32 | 64, signed: false })) {
        let t = describe(cx, *rt);
        let d = cx.error_at("inst.memory.array-length", i, 0, format!("OpArrayLength's Result Type must be a 32- or 64-bit unsigned integer, but it is {t}"));
        d.label = String::from("expected an unsigned integer type");
        return;
    }
    let members = match pointer_of(cx, *structure) {
        Some((_, Some(p))) => match cx.ir().ty(p).map(|t| &t.ty) {
            Some(Type::Struct { members }) => Some(members),
            _ => None,
        },
        Some((_, None)) => return,
        None => None,
    };
    let Some(members) = members else {
        let v = describe_value(cx, *structure);
        let d = cx.error_at("inst.memory.array-length", i, 2, format!("OpArrayLength's Structure must be a pointer to a struct, but it is {v}"));
        d.label = String::from("expected a pointer to a struct");
        return;
    };
    let n = members.len();
    let last_is_rta = members.last().is_some_and(|m| matches!(cx.ir().ty(m.ty).map(|t| &t.ty), Some(Type::RuntimeArray { .. })));
    if !last_is_rta {
        let v = describe_value(cx, *structure);
        let d = cx.error_at("inst.memory.array-length", i, 2, format!("OpArrayLength's Structure is {v}, whose struct's last member is not a runtime array"));
        d.label = String::from("expected a struct ending in a runtime array");
    } else if *member as usize != n - 1 {
        let d = cx.error_at(
            "inst.memory.array-length",
            i,
            3,
            format!("OpArrayLength's Array member is {member}, but the runtime array is the last member, {}", n - 1),
        );
        d.label = format!("expected {}", n - 1);
    }
}

/// The value of an integer scalar index as spirv-val evaluates it: an
/// OpConstant (sign-extended from 32 bits for one word, 64 bits for two) or an
/// OpConstantNull; spec constants have no value here.
fn const_index(cx: &Context<'_>, id: u32) -> Option<i64> {
    let inst = cx.def_inst(id)?;
    match inst.opcode {
        op::OpConstantNull => Some(0),
        op::OpConstant => match inst.operands.get(2..)? {
            [lo] => Some(*lo as i32 as i64),
            [lo, hi] => Some((*lo as u64 | (*hi as u64) << 32) as i64),
            _ => None,
        },
        _ => None,
    }
}

fn ptr_compare(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [rt, _id, a, b] = w else { return };
    let opcode = cx.insts()[i].opcode;
    let opname = op_name(cx.insts()[i].opcode);
    let rt_ok = match cx.ir().ty(*rt).map(|t| &t.ty) {
        Some(Type::Int { .. }) => opcode == op::OpPtrDiff,
        Some(Type::Bool) => opcode != op::OpPtrDiff,
        _ => false,
    };
    if !rt_ok {
        let t = describe(cx, *rt);
        let want = if opcode == op::OpPtrDiff { "an integer scalar" } else { "OpTypeBool" };
        let d = cx.error_at("inst.memory.pointer-compare", i, 0, format!("{opname}'s Result Type must be {want}, but it is {t}"));
        d.label = format!("expected {want}");
    }
    let is_ptr = |cx: &Context<'_>, id: u32| {
        matches!(cx.type_of(id).and_then(|t| cx.ir().ty(t)).map(|t| &t.ty), Some(Type::Pointer { .. }))
    };
    let (pa, pb) = (is_ptr(cx, *a), is_ptr(cx, *b));
    if !pa {
        not_a_pointer(cx, i, 2, &format!("{opname}'s Operand 1"), *a);
    }
    if !pb {
        not_a_pointer(cx, i, 3, &format!("{opname}'s Operand 2"), *b);
    }
    if !pa || !pb || is_untyped_pointer_value(cx, *a) || is_untyped_pointer_value(cx, *b) {
        return;
    }
    if cx.type_of(*a) != cx.type_of(*b) {
        let (va, vb) = (describe_value(cx, *a), describe_value(cx, *b));
        let d = cx.error_at(
            "inst.memory.pointer-compare",
            i,
            3,
            format!("{opname}'s operands must have the same type: Operand 1 is {va}, Operand 2 is {vb}"),
        );
        d.label = String::from("expected the type of Operand 1");
    }
}
