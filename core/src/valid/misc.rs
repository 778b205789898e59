//! Miscellaneous rules: OpUndef of void or of 8/16-bit types in shaders,
//! OpReadClockKHR, storage classes the Vulkan environment forbids.

use super::Context;
use super::ids::{cap, op, sc};
use super::rules::Rule;
use alloc::format;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "misc.undef-type",
        summary: "OpUndef cannot have void type, nor (in shaders) an 8- or 16-bit type without its capability.",
        explanation: "An undefined value needs a type with values: void has none. In shaders, \
                      8- and 16-bit integers and 16-bit floats declared only for storage \
                      (without the Int8, Int16 or Float16 capability) can only be loaded and \
                      stored, so OpUndef cannot create them.",
    },
    Rule {
        code: "misc.read-clock",
        summary: "OpReadClockKHR returns a 64-bit unsigned integer or two 32-bit ones, at Subgroup or Device scope.",
        explanation: "SPV_KHR_shader_clock: the result is a 64-bit unsigned integer or a vector \
                      of two 32-bit unsigned integers; the Scope is a valid scope, Subgroup or \
                      Device in Vulkan, and Subgroup, Workgroup or Device otherwise.",
    },
    Rule {
        code: "misc.vulkan-storage-class",
        summary: "Vulkan does not allow the CrossWorkgroup or Generic storage classes.",
        explanation: "VUID-StandaloneSpirv-None-04643: Vulkan shaders only use the storage \
                      classes listed by the Vulkan specification; CrossWorkgroup and Generic \
                      belong to OpenCL kernels.",
    },
    Rule {
        code: "misc.coop-matrix-local-size-id",
        summary: "A Workgroup-scope cooperative matrix type must come after the LocalSizeId constants.",
        explanation: "SPV_NV_cooperative_matrix2: a cooperative matrix type with Workgroup \
                      scope depends on the workgroup size, so the constants named by the \
                      LocalSizeId execution mode must be defined before the type is declared.",
    },
    Rule {
        code: "misc.interface-builtin-not-block",
        summary: "An interface struct with built-in members must be decorated Block.",
        explanation: "A struct type of an Input or Output entry point interface variable whose \
                      members are decorated BuiltIn (like gl_PerVertex) must itself be decorated \
                      Block; built-in members cannot be mixed with user locations in a plain \
                      struct.",
    },
];

/// Whether `ty` is or contains an 8/16-bit scalar whose capability is missing.
fn limited_use(
    cx: &Context<'_>,
    ty: u32,
    int8: bool,
    int16: bool,
    float16: bool,
    depth: u32,
) -> bool {
    if depth > 64 {
        return false;
    }
    let Some((opc, ops)) = cx.type_def(ty) else {
        return false;
    };
    match opc {
        op::TYPE_INT => match ops.first() {
            Some(8) => !int8,
            Some(16) => !int16,
            _ => false,
        },
        op::TYPE_FLOAT => ops.first() == Some(&16) && !float16,
        op::TYPE_VECTOR | op::TYPE_MATRIX | op::TYPE_ARRAY | op::TYPE_RUNTIME_ARRAY => ops
            .first()
            .is_some_and(|&e| limited_use(cx, e, int8, int16, float16, depth + 1)),
        op::TYPE_STRUCT => ops
            .iter()
            .any(|&m| limited_use(cx, m, int8, int16, float16, depth + 1)),
        _ => false,
    }
}

pub(super) fn check_misc(cx: &mut Context<'_>) {
    let shader = cx.declares_capability(cap::SHADER);
    let int8 = cx.declares_capability(cap::INT8);
    let int16 = cx.declares_capability(cap::INT16);
    let float16 = cx.declares_capability(cap::FLOAT16);
    let vulkan = cx.opts.env.is_vulkan();
    if shader {
        check_interface_blocks(cx);
    }
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        match inst.opcode {
            op::UNDEF => {
                let ty = inst.operands.first().copied().unwrap_or(0);
                if cx.type_def(ty).map(|t| t.0) == Some(op::TYPE_VOID) {
                    cx.error(
                        "misc.undef-type",
                        i,
                        alloc::string::String::from("OpUndef cannot have void type"),
                    );
                } else if shader && limited_use(cx, ty, int8, int16, float16, 0) {
                    let t = cx.name(ty);
                    cx.error(
                        "misc.undef-type",
                        i,
                        format!("OpUndef of {t}: 8- and 16-bit types without the Int8, Int16 or Float16 capability cannot be undefined values"),
                    );
                }
            }
            op::TYPE_POINTER if vulkan => {
                let class = inst.operands.get(1).copied().unwrap_or(0);
                if class == sc::CROSS_WORKGROUP || class == sc::GENERIC {
                    let name = if class == sc::GENERIC {
                        "Generic"
                    } else {
                        "CrossWorkgroup"
                    };
                    cx.error(
                        "misc.vulkan-storage-class",
                        i,
                        format!(
                            "the {name} storage class is not allowed in the Vulkan environment"
                        ),
                    );
                }
            }
            op::READ_CLOCK_KHR => check_read_clock(cx, i, vulkan),
            4456 => check_coop_matrix_scope(cx, i),
            _ => {}
        }
    }
}

fn check_read_clock(cx: &mut Context<'_>, i: usize, vulkan: bool) {
    let inst = &cx.insts()[i];
    let ty = inst.operands.first().copied().unwrap_or(0);
    let scope = inst.operands.get(2).copied().unwrap_or(0);
    let uint_width = |t: u32| match cx.type_def(t) {
        Some((op::TYPE_INT, o)) if o.get(1) == Some(&0) => o.first().copied(),
        _ => None,
    };
    let ok_type = uint_width(ty) == Some(64)
        || matches!(cx.type_def(ty), Some((op::TYPE_VECTOR, o)) if o.get(1) == Some(&2) && o.first().and_then(|&e| uint_width(e)) == Some(32));
    if !ok_type {
        let t = cx.name(ty);
        cx.error(
            "misc.read-clock",
            i,
            format!("OpReadClockKHR returns {t}: it must be a 64-bit unsigned integer or a vector of two 32-bit unsigned integers"),
        );
        return;
    }
    let value = cx
        .def_inst(scope)
        .filter(|d| d.opcode == op::CONSTANT)
        .and_then(|d| d.operands.get(2).copied());
    let Some(v) = value else { return };
    // Scope values: CrossDevice 0, Device 1, Workgroup 2, Subgroup 3, Invocation 4, QueueFamily 5, ShaderCall 6.
    let msg = if v > 6 {
        Some(format!("{v} is not a valid scope"))
    } else if vulkan && v != 1 && v != 3 {
        Some(alloc::string::String::from(
            "in Vulkan the scope must be Subgroup or Device",
        ))
    } else if !vulkan && !(1..=3).contains(&v) {
        Some(alloc::string::String::from(
            "the scope must be Subgroup, Workgroup or Device",
        ))
    } else {
        None
    };
    if let Some(m) = msg {
        cx.error("misc.read-clock", i, format!("OpReadClockKHR: {m}"));
    }
}

/// OpTypeCooperativeMatrixKHR with Workgroup scope before the LocalSizeId constants.
fn check_coop_matrix_scope(cx: &mut Context<'_>, i: usize) {
    let inst = &cx.insts()[i];
    let scope = inst.operands.get(2).copied().unwrap_or(0);
    let value = cx
        .def_inst(scope)
        .filter(|d| d.opcode == op::CONSTANT)
        .and_then(|d| d.operands.get(2).copied());
    if value != Some(2) {
        return;
    }
    // OpExecutionModeId <entry> LocalSizeId (38) x y z.
    let late = cx
        .insts()
        .iter()
        .filter(|x| x.opcode == op::EXECUTION_MODE_ID && x.operands.get(1) == Some(&38))
        .flat_map(|x| x.operands.get(2..).unwrap_or(&[]).iter().copied())
        .find(|&c| cx.def(c).is_some_and(|d| d > i));
    if let Some(c) = late {
        let t = cx.name(inst.operands.first().copied().unwrap_or(0));
        let n = cx.name(c);
        let span = cx.def(c).map(|d| cx.span(d));
        let d = cx.error(
            "misc.coop-matrix-local-size-id",
            i,
            format!("the Workgroup-scope cooperative matrix type {t} is declared before the LocalSizeId constant {n}"),
        );
        if let Some(span) = span {
            d.related.push(crate::diag::Related {
                span,
                label: format!("{n} is defined here"),
            });
        }
    }
}

/// Entry point interface structs with BuiltIn members must be Blocks.
fn check_interface_blocks(cx: &mut Context<'_>) {
    let insts = cx.insts();
    // Struct ids with a BuiltIn member (11), and those decorated Block (2).
    let mut builtin_members = alloc::vec::Vec::new();
    let mut blocks = alloc::vec::Vec::new();
    for x in insts {
        match x.opcode {
            op::MEMBER_DECORATE if x.operands.get(2) == Some(&11) => {
                builtin_members.push(x.operands.first().copied().unwrap_or(0))
            }
            op::DECORATE if x.operands.get(1) == Some(&2) => {
                blocks.push(x.operands.first().copied().unwrap_or(0))
            }
            _ => {}
        }
    }
    if builtin_members.is_empty() {
        return;
    }
    let mut reported = alloc::vec::Vec::new();
    for (i, x) in insts.iter().enumerate() {
        if x.opcode != op::ENTRY_POINT {
            continue;
        }
        // Interface ids follow the name (a literal string) after operand 1.
        let rest = x.operands.get(2..).unwrap_or(&[]);
        let name_words = rest
            .iter()
            .position(|w| w.to_le_bytes()[3] == 0)
            .map_or(rest.len(), |p| p + 1);
        for &var in rest.get(name_words..).unwrap_or(&[]) {
            let Some(v) = cx.def_inst(var).filter(|v| v.opcode == op::VARIABLE) else {
                continue;
            };
            let class = v.operands.get(2).copied();
            if class != Some(1) && class != Some(3) {
                continue;
            }
            let Some((op::TYPE_POINTER, p)) = cx.type_def(v.operands.first().copied().unwrap_or(0))
            else {
                continue;
            };
            let mut ty = p.get(1).copied().unwrap_or(0);
            for _ in 0..4 {
                match cx.type_def(ty) {
                    Some((op::TYPE_ARRAY | op::TYPE_RUNTIME_ARRAY, e)) => {
                        ty = e.first().copied().unwrap_or(0)
                    }
                    _ => break,
                }
            }
            if cx.type_def(ty).map(|t| t.0) != Some(op::TYPE_STRUCT)
                || !builtin_members.contains(&ty)
                || blocks.contains(&ty)
                || reported.contains(&ty)
            {
                continue;
            }
            reported.push(ty);
            let (t, vn) = (cx.name(ty), cx.name(var));
            let span = cx.def(ty).map(|d| cx.span(d));
            let d = cx.error(
                "misc.interface-builtin-not-block",
                i,
                format!("the interface variable {vn} has the struct type {t}, which has BuiltIn members but is not decorated Block"),
            );
            d.help = Some(alloc::string::String::from(
                "add `OpDecorate` with `Block` to the struct",
            ));
            if let Some(span) = span {
                d.related.push(crate::diag::Related {
                    span,
                    label: format!("{t} is declared here"),
                });
            }
        }
    }
}
