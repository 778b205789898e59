//! IR unit tests on hand-written modules (words; no assembler: same layer).
//! Expected values come from the SPIR-V spec's definitions (Offset, ArrayStride,
//! OpSpecConstantOp semantics), worked out by hand in the comments.

use super::*;
use crate::grammar::op;
use crate::module::Header;
use alloc::vec;

fn s(text: &str) -> Vec<u32> {
    let mut b = text.as_bytes().to_vec();
    b.push(0);
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn i(opcode: u16, ops: &[u32]) -> Instruction {
    Instruction {
        opcode,
        operands: crate::Operands::from_slice(ops),
    }
}

fn cat(parts: &[&[u32]]) -> Vec<u32> {
    parts.concat()
}

fn module(bound: u32, insts: Vec<Instruction>) -> Module {
    Module {
        header: Header {
            magic: 0x0723_0203,
            version: 0x0001_0300,
            generator: 0,
            bound,
            schema: 0,
        },
        instructions: insts,
    }
}

// Enumerants used below.
use crate::grammar::built_in::GlobalInvocationId as BUILTIN_GLOBAL_INVOCATION_ID;
use crate::grammar::capability::Shader as CAP_SHADER;
use crate::grammar::execution_mode::LocalSize as MODE_LOCAL_SIZE;
use crate::grammar::execution_model::GLCompute as MODEL_GLCOMPUTE;
use crate::grammar::storage_class::{Input as SC_INPUT, StorageBuffer as SC_STORAGE_BUFFER};

/// A compute shader with a storage buffer `{ uint a; vec4 b; mat2 m (col-major,
/// stride 16); uint c[4] (stride 4); uint rest[] (stride 4) }`.
fn compute() -> Module {
    let (uint, c4, arr, f32_, vec4, vec2, mat2, rta, st, ptr, var, void, fnty, main, lbl, lbl2) =
        (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
    let (spec, sum, gid, v3, pin, c1, ld) = (17, 18, 19, 20, 21, 22, 23);
    module(
        30,
        vec![
            i(op::OpCapability, &[CAP_SHADER]),
            i(op::OpMemoryModel, &[0, 1]),
            i(
                op::OpEntryPoint,
                &cat(&[&[MODEL_GLCOMPUTE, main], &s("main"), &[gid]]),
            ),
            i(op::OpExecutionMode, &[main, MODE_LOCAL_SIZE, 8, 4, 1]),
            i(op::OpName, &cat(&[&[st], &s("Buf")])),
            i(op::OpMemberName, &cat(&[&[st, 1], &s("b")])),
            i(op::OpName, &cat(&[&[var], &s("buf")])),
            i(op::OpDecorate, &[st, dec::BLOCK]),
            i(op::OpMemberDecorate, &[st, 0, dec::OFFSET, 0]),
            i(op::OpMemberDecorate, &[st, 1, dec::OFFSET, 16]),
            i(op::OpMemberDecorate, &[st, 2, dec::OFFSET, 32]),
            i(op::OpMemberDecorate, &[st, 2, dec::COL_MAJOR]),
            i(op::OpMemberDecorate, &[st, 2, dec::MATRIX_STRIDE, 16]),
            i(op::OpMemberDecorate, &[st, 3, dec::OFFSET, 64]),
            i(op::OpMemberDecorate, &[st, 4, dec::OFFSET, 80]),
            i(op::OpDecorate, &[arr, dec::ARRAY_STRIDE, 4]),
            i(op::OpDecorate, &[rta, dec::ARRAY_STRIDE, 4]),
            i(op::OpDecorate, &[var, dec::DESCRIPTOR_SET, 1]),
            i(op::OpDecorate, &[var, dec::BINDING, 3]),
            i(op::OpDecorate, &[spec, dec::SPEC_ID, 7]),
            i(
                op::OpDecorate,
                &[gid, dec::BUILTIN, BUILTIN_GLOBAL_INVOCATION_ID],
            ),
            i(op::OpTypeInt, &[uint, 32, 0]),
            i(op::OpConstant, &[uint, c4, 4]),
            i(op::OpConstant, &[uint, c1, 0xffff_ffff]),
            i(op::OpTypeArray, &[arr, uint, c4]),
            i(op::OpTypeFloat, &[f32_, 32]),
            i(op::OpTypeVector, &[vec4, f32_, 4]),
            i(op::OpTypeVector, &[vec2, f32_, 2]),
            i(op::OpTypeMatrix, &[mat2, vec2, 2]),
            i(op::OpTypeRuntimeArray, &[rta, uint]),
            i(op::OpTypeStruct, &[st, uint, vec4, mat2, arr, rta]),
            i(op::OpTypePointer, &[ptr, SC_STORAGE_BUFFER, st]),
            i(op::OpVariable, &[ptr, var, SC_STORAGE_BUFFER]),
            i(op::OpTypeVector, &[v3, uint, 3]),
            i(op::OpTypePointer, &[pin, SC_INPUT, v3]),
            i(op::OpVariable, &[pin, gid, SC_INPUT]),
            i(op::OpSpecConstant, &[uint, spec, 5]),
            // sum = spec + 0xffffffff = 4 (mod 2^32)
            i(
                op::OpSpecConstantOp,
                &[uint, sum, op::OpIAdd as u32, spec, c1],
            ),
            i(op::OpTypeVoid, &[void]),
            i(op::OpTypeFunction, &[fnty, void]),
            i(op::OpFunction, &[void, main, 0, fnty]),
            i(op::OpLabel, &[lbl]),
            i(op::OpLoad, &[v3, ld, gid]),
            i(op::OpBranch, &[lbl2]),
            i(op::OpLabel, &[lbl2]),
            i(op::OpReturn, &[]),
            i(op::OpFunctionEnd, &[]),
        ],
    )
}

#[test]
fn operands_definitions_and_names() {
    let m = compute();
    let ir = Ir::build(m);
    assert!(ir.problems.is_empty(), "{:?}", ir.problems);
    // OpTypeStruct %9 defined at instruction 30.
    assert_eq!(ir.def(9), Some(30));
    assert_eq!(ir.def_opcode(9), Some(op::OpTypeStruct));
    assert_eq!(ir.type_of(11), Some(10));
    assert_eq!(ir.name(9), Some("Buf"));
    assert_eq!(ir.member_name(9, 1), Some("b"));
    assert_eq!(ir.name(11), Some("buf"));
    assert_eq!(ir.member_name(9, 0), None);
    // Entry point operands: model (enumerant), function (id), name (string), interface (id).
    let ops: Vec<_> = ir.operands(2).map(|o| o.value()).collect();
    assert_eq!(
        ops,
        vec![
            Some(OperandValue::Enumerant(MODEL_GLCOMPUTE)),
            Some(OperandValue::Id(14)),
            Some(OperandValue::String(String::from("main"))),
            Some(OperandValue::Id(19)),
        ]
    );
    // OpConstant's literal is a 32-bit unsigned number.
    let lit = ir.operand(22, 2).unwrap_or_else(|| panic!("no literal"));
    assert_eq!(lit.number(), Some(4));
    assert_eq!(
        lit.num,
        NumType::Int {
            width: 32,
            signed: false
        }
    );
    assert_eq!(ir.result_id(22), Some(2));
    assert_eq!(ir.result_type(22), Some(1));
}

#[test]
fn types_layout_and_sizes() {
    let m = compute();
    let ir = Ir::build(m);
    let t = |id| ir.ty(id).unwrap_or_else(|| panic!("type {id}"));
    assert_eq!(
        t(1).ty,
        Type::Int {
            width: 32,
            signed: false
        }
    );
    assert_eq!(
        t(3).ty,
        Type::Array {
            element: 1,
            length: 2,
            len: Some(4)
        }
    );
    assert_eq!(t(3).array_stride, Some(4));
    assert_eq!(t(3).size, Some(16)); // 4 x stride 4
    assert_eq!(t(5).size, Some(16)); // vec4 of 4-byte floats
    assert_eq!(t(8).size, None); // runtime array
    let st = t(9);
    assert_eq!(st.block, Some(BlockKind::Block));
    assert_eq!(st.members().len(), 5);
    assert_eq!(st.members()[2].matrix_stride, Some(16));
    assert_eq!(st.members()[2].row_major, Some(false));
    assert_eq!(ir.member_size(9, 2), Some(32)); // 2 columns x stride 16
    // Ends in a runtime array: no size; fixed part 80, stride 4.
    assert_eq!(st.size, None);
    assert_eq!(ir.runtime_tail(9), Some((80, Some(4))));
    assert_eq!(
        t(10).ty,
        Type::Pointer {
            storage: SC_STORAGE_BUFFER,
            pointee: Some(9)
        }
    );
    assert_eq!(ir.ty(11), None);
}

/// The alignments and sizes of the rule sets (Vulkan 15.6.4 "Offset and
/// Stride Assignment", WGSL 13.4 "Memory Layout"), on the types of
/// [`compute`]: uint (1), uint[4] stride 4 (3), vec4 (5), vec2 (6), mat2 of
/// vec2 columns (7), the block struct (9).
#[test]
fn rule_sets_align_and_size() {
    use layout::{Explicit, MatrixLayout, Rules};
    let ir = Ir::build(compute());
    let col = MatrixLayout::default();
    let aligns = |rules| {
        let lay = Explicit::new(&ir, rules);
        [1, 3, 5, 6, 7, 9].map(|id| lay.align(id, col))
    };
    // std430: a scalar its size, vec2 twice, vec4 four times; a matrix as
    // its column; an array and a struct as their largest part.
    assert_eq!(aligns(Rules::Standard), [4, 4, 16, 8, 8, 16].map(Some));
    // std140: arrays, matrices and structs round up to 16.
    assert_eq!(aligns(Rules::Extended), [4, 16, 16, 8, 16, 16].map(Some));
    // Scalar layout: every type its scalars' 4.
    assert_eq!(aligns(Rules::Scalar), [Some(4); 6]);
    // WGSL uniform: arrays and structs round up to 16, a matrix does not
    // (mat2x2<f32> aligns to 8, as its column).
    assert_eq!(aligns(Rules::Wgsl { uniform: true }), [4, 16, 16, 8, 8, 16].map(Some));
    assert_eq!(aligns(Rules::Wgsl { uniform: false }), [4, 4, 16, 8, 8, 16].map(Some));
    // Vulkan sizes end at the last byte: 3 x stride 4 + 4 for uint[4]; 2
    // columns x MatrixStride 16 for the mat2 member; the struct ends where
    // its runtime array begins (80).
    let std430 = Explicit::new(&ir, Rules::Standard);
    assert_eq!(std430.size(3, col), Some(16));
    assert_eq!(std430.size(7, MatrixLayout { row_major: false, stride: 16 }), Some(32));
    // Row-major: (2 rows - 1) x stride 16 + 2 columns x 4.
    assert_eq!(std430.size(7, MatrixLayout { row_major: true, stride: 16 }), Some(24));
    assert_eq!(std430.size(9, col), Some(80));
    // WGSL: mat2x2<f32> is 2 columns of vec2<f32> at stride 8; a runtime
    // array counts one element.
    let wgsl = Explicit::new(&ir, Rules::Wgsl { uniform: false });
    assert_eq!(wgsl.layout(7), Some((8, 16)));
    assert_eq!(wgsl.stride(6), Some(8));
    assert_eq!(wgsl.layout(8), Some((4, 4)));
    assert_eq!(wgsl.aggregate_align(4), 4);
    assert_eq!(Explicit::new(&ir, Rules::Wgsl { uniform: true }).aggregate_align(4), 16);
}

#[test]
fn constants_and_spec_constants() {
    let m = compute();
    let ir = Ir::build(m);
    assert_eq!(ir.const_u64(2), Some(4));
    assert_eq!(ir.const_i64(22), Some(0xffff_ffff)); // unsigned type: no sign extension
    let spec = ir.constant(17).unwrap_or_else(|| panic!("spec"));
    assert!(spec.spec);
    assert_eq!(spec.value, ConstValue::Scalar(5));
    assert_eq!(ir.spec_id(17), Some(7));
    // 5 + 0xffffffff wraps to 4 in 32 bits.
    assert_eq!(ir.const_u64(18), Some(4));
}

#[test]
fn globals_entry_points_functions_blocks() {
    let m = compute();
    let ir = Ir::build(m);
    let g = ir.global(11).unwrap_or_else(|| panic!("global"));
    assert_eq!(
        (g.storage, g.set, g.binding, g.pointee),
        (SC_STORAGE_BUFFER, Some(1), Some(3), Some(9))
    );
    assert_eq!(ir.globals.len(), 2);
    let e = &ir.entry_points[0];
    assert_eq!(
        (e.model, e.function, e.name.as_str()),
        (MODEL_GLCOMPUTE, 14, "main")
    );
    assert_eq!(e.interface, vec![19]);
    assert_eq!(e.modes.len(), 1);
    assert_eq!(
        (e.modes[0].mode, &e.modes[0].operands[..]),
        (MODE_LOCAL_SIZE, &[8u32, 4, 1][..])
    );
    let f = ir.function(14).unwrap_or_else(|| panic!("function"));
    let blocks = ir.blocks_of(f);
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].label, 15);
    assert_eq!(
        ir.opcode(blocks[0].terminator.unwrap_or(0) as usize),
        op::OpBranch
    );
    assert_eq!(blocks[0].body().len(), 2); // OpLoad, OpBranch
    assert_eq!(
        ir.opcode(blocks[1].terminator.unwrap_or(0) as usize),
        op::OpReturn
    );
    assert_eq!(
        ir.function_at(blocks[1].start as usize).map(|f| f.id),
        Some(14)
    );
    assert_eq!(ir.function_at(3), None);
}

#[test]
fn group_decorations_apply_to_their_targets() {
    let (grp, uint, st) = (1, 2, 3);
    let m = module(
        10,
        vec![
            i(op::OpDecorate, &[grp, dec::ARRAY_STRIDE, 8]),
            i(op::OpDecorationGroup, &[grp]),
            i(op::OpGroupDecorate, &[grp, 4]),
            i(op::OpGroupMemberDecorate, &[grp, st, 0]),
            i(op::OpTypeInt, &[uint, 32, 0]),
            i(op::OpTypeStruct, &[st, uint]),
            i(op::OpTypeRuntimeArray, &[4, uint]),
        ],
    );
    let ir = Ir::build(m);
    assert_eq!(ir.ty(4).and_then(|t| t.array_stride), Some(8));
    assert_eq!(
        ir.member_decoration(st, 0, dec::ARRAY_STRIDE)
            .and_then(|d| d.arg(&ir)),
        Some(8)
    );
}

#[test]
fn bad_modules_are_built_best_effort() {
    // Undefined types, a forward-referenced struct member, an out-of-bound
    // result id, an operand that does not parse, an array whose length is not
    // a constant, a spec constant op dividing by zero: no panic, no size.
    let m = module(
        8,
        vec![
            i(op::OpTypeInt, &[1, 32, 1]),
            i(op::OpTypeStruct, &[2, 1, 6]),
            i(op::OpTypeArray, &[3, 1, 1]),
            i(op::OpConstant, &[1, 4, 0]),
            i(op::OpSpecConstantOp, &[1, 5, op::OpSDiv as u32, 4, 4]),
            i(op::OpTypeRuntimeArray, &[6, 1]),
            i(op::OpTypeInt, &[9, 32, 0]),
            i(op::OpDecorate, &[]),
            i(op::OpLabel, &[7]),
            i(op::OpFunctionEnd, &[]),
        ],
    );
    let ir = Ir::build(m);
    assert_eq!(ir.ty(2).map(|t| t.size), Some(None));
    assert_eq!(
        ir.ty(3).map(|t| &t.ty),
        Some(&Type::Array {
            element: 1,
            length: 1,
            len: None
        })
    );
    assert_eq!(
        ir.constant(5).map(|c| &c.value),
        Some(&ConstValue::NotEvaluated)
    );
    assert!(matches!(
        ir.problems[0],
        Problem::IdOutOfBound {
            id: 9,
            bound: 8,
            ..
        }
    ));
    assert!(matches!(ir.problems[1], Problem::Operands(_)));
    assert_eq!(ir.problems.len(), 2);
    assert_eq!(ir.def(9), None);
    assert_eq!(ir.blocks.len(), 1);
    assert!(ir.functions.is_empty());
}

#[test]
fn spec_constant_ops_fold_integers_and_booleans() {
    let (int, b, m3, c2, t) = (1, 2, 3, 4, 5);
    let ops: &[(u16, &[u32], ConstValue)] = &[
        (op::OpSDiv, &[m3, c2], ConstValue::Scalar(0xffff_ffff)), // -3 / 2 = -1 (truncates)
        (op::OpSMod, &[m3, c2], ConstValue::Scalar(1)),           // sign of the divisor
        (op::OpSRem, &[m3, c2], ConstValue::Scalar(0xffff_ffff)), // sign of the dividend
        (
            op::OpShiftRightArithmetic,
            &[m3, c2],
            ConstValue::Scalar(0xffff_ffff),
        ),
        (
            op::OpShiftRightLogical,
            &[m3, c2],
            ConstValue::Scalar(0x3fff_ffff),
        ),
        (op::OpSLessThan, &[m3, c2], ConstValue::Bool(true)),
        (op::OpULessThan, &[m3, c2], ConstValue::Bool(false)),
        (op::OpSelect, &[t, m3, c2], ConstValue::Scalar(0xffff_fffd)),
        (op::OpSNegate, &[m3], ConstValue::Scalar(3)),
        (op::OpLogicalNot, &[t], ConstValue::Bool(false)),
    ];
    let mut insts = vec![
        i(op::OpTypeInt, &[int, 32, 1]),
        i(op::OpTypeBool, &[b]),
        i(op::OpConstant, &[int, m3, (-3i32) as u32]),
        i(op::OpConstant, &[int, c2, 2]),
        i(op::OpConstantTrue, &[b, t]),
    ];
    for (k, (opc, args, want)) in ops.iter().enumerate() {
        let ty = if matches!(want, ConstValue::Bool(_)) {
            b
        } else {
            int
        };
        insts.push(i(
            op::OpSpecConstantOp,
            &cat(&[&[ty, 10 + k as u32, *opc as u32], args]),
        ));
    }
    let m = module(100, insts);
    let ir = Ir::build(m);
    assert!(ir.problems.is_empty(), "{:?}", ir.problems);
    for (k, (opc, _, want)) in ops.iter().enumerate() {
        let got = ir.constant(10 + k as u32).map(|c| c.value.clone());
        assert_eq!(got.as_ref(), Some(want), "opcode {opc}");
    }
    assert_eq!(ir.const_i64(10), Some(-1));
}
