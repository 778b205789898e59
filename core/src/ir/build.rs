//! Building the IR: one pass over the instructions, then the cross-references
//! (group decorations, constant values, type layouts, variable bindings).

use super::consts::is_constant;
use super::*;
use crate::binary::parse::{OperandParser, decode_string};
use crate::grammar::op;

fn is_terminator(opcode: u16) -> bool {
    matches!(
        opcode,
        op::OpBranch
            | op::OpBranchConditional
            | op::OpSwitch
            | op::OpReturn
            | op::OpReturnValue
            | op::OpKill
            | op::OpUnreachable
            | op::OpTerminateInvocation
            | op::OpIgnoreIntersectionKHR
            | op::OpTerminateRayKHR
            | op::OpEmitMeshTasksEXT
    )
}

pub(super) fn build(module: Module) -> Ir {
    let n = module.instructions.len();
    let bound = module.header.bound;
    // How many of each kind to expect: the vectors sized once, not grown.
    let (mut n_types, mut n_consts, mut n_decos, mut n_blocks, mut n_globals) = (0, 0, 0, 0, 0);
    // And the module's word count (`Module::word_count`), in the same pass.
    let mut words = 5usize;
    for inst in &module.instructions {
        words += inst.operands.len() + 1;
        match inst.opcode {
            op::OpTypeVoid..=op::OpTypeForwardPointer => n_types += 1,
            op::OpConstantTrue..=op::OpSpecConstantOp => n_consts += 1,
            op::OpDecorate | op::OpMemberDecorate | op::OpDecorateId | op::OpDecorateString
            | op::OpMemberDecorateString => n_decos += 1,
            op::OpLabel => n_blocks += 1,
            op::OpVariable => n_globals += 1,
            _ => {}
        }
    }
    let cap = bound.min(words as u32 + 1);
    let mut ir = Ir {
        // The module moves in after the first pass, which reads it.
        module: Module { header: module.header, instructions: Vec::new() },
        at: Vec::with_capacity(n + 1),
        ops: Vec::with_capacity(n * 3),
        ids: IdMap::new(cap),
        types: Vec::with_capacity(n_types),
        constants: Vec::with_capacity(n_consts),
        decorations: Vec::with_capacity(n_decos),
        names: Vec::new(),
        entry_points: Vec::new(),
        globals: Vec::with_capacity(n_globals),
        functions: Vec::new(),
        blocks: Vec::with_capacity(n_blocks),
        ext_imports: Vec::new(),
        problems: Vec::new(),
    };
    let mut parser = OperandParser::new(cap);
    let mut offset = 5usize;
    // Group decorations: (OpGroupDecorate / OpGroupMemberDecorate index).
    let mut group_uses: Vec<u32> = Vec::new();
    let mut modes: Vec<(u32, ExecutionMode)> = Vec::new();
    let mut func: Option<Function> = None;
    let mut block: Option<Block> = None;
    for (i, inst) in module.instructions.iter().enumerate() {
        let first_op = ir.ops.len();
        ir.at.push(InstAt {
            offset: offset as u32,
            first_op: first_op as u32,
        });
        let w = &inst.operands[..];
        // The operands go straight into `ir.ops` (taken back on an error).
        let ok = match parser.parse_append(inst.opcode, w, offset, &mut ir.ops) {
            Ok(result) => {
                if let Some(id) = result {
                    if id >= bound {
                        ir.problems.push(Problem::IdOutOfBound {
                            inst: i as u32,
                            id,
                            bound,
                        });
                    } else {
                        let slot = ir.ids.slot(id);
                        slot.def = i as u32 + 1;
                        if ir
                            .ops
                            .get(first_op)
                            .is_some_and(|o| o.kind == OperandKind::IdResultType)
                        {
                            slot.typed = true;
                            slot.value_type = w[0];
                        }
                    }
                }
                true
            }
            Err(e) => {
                ir.ops.truncate(first_op);
                ir.problems.push(Problem::Operands(e));
                false
            }
        };
        offset += w.len() + 1;
        if !ok {
            continue;
        }
        let i32_ = i as u32;
        let at = |k: usize| w.get(k).copied().unwrap_or(0);
        let opcode = inst.opcode;
        // Blocks: a label starts one; anything after a terminator ends it.
        if (opcode == op::OpLabel || opcode == op::OpFunctionEnd)
            && let Some(mut b) = block.take()
        {
            b.end = i32_;
            ir.blocks.push(b);
        }
        match opcode {
            op::OpName | op::OpMemberName => {
                let (member, s) = if opcode == op::OpName {
                    (None, 1)
                } else {
                    (Some(at(1)), 2)
                };
                let text = decode_string(w.get(s..).unwrap_or(&[]));
                ir.names.push(Name {
                    target: at(0),
                    member,
                    text,
                });
            }
            op::OpDecorate | op::OpDecorateId | op::OpDecorateString => {
                ir.decorations.push(Decoration {
                    target: at(0),
                    member: None,
                    decoration: at(1),
                    inst: i32_,
                    param_word: 2,
                });
            }
            op::OpMemberDecorate | op::OpMemberDecorateString => {
                ir.decorations.push(Decoration {
                    target: at(0),
                    member: Some(at(1)),
                    decoration: at(2),
                    inst: i32_,
                    param_word: 3,
                });
            }
            op::OpGroupDecorate | op::OpGroupMemberDecorate => group_uses.push(i32_),
            op::OpExtInstImport => ir
                .ext_imports
                .push((at(0), decode_string(&w[1.min(w.len())..]))),
            op::OpEntryPoint => {
                let name_end = ir
                    .ops
                    .get(first_op + 2)
                    .map_or(w.len(), |o| (o.start + o.len) as usize);
                ir.entry_points.push(EntryPoint {
                    inst: i32_,
                    model: at(0),
                    function: at(1),
                    name: decode_string(w.get(2..name_end).unwrap_or(&[])),
                    interface: w.get(name_end..).unwrap_or(&[]).to_vec(),
                    modes: Vec::new(),
                });
            }
            op::OpExecutionMode | op::OpExecutionModeId => modes.push((
                at(0),
                ExecutionMode {
                    inst: i32_,
                    mode: at(1),
                    operands: w.get(2..).unwrap_or(&[]).to_vec(),
                    ids: opcode == op::OpExecutionModeId,
                },
            )),
            op::OpVariable | op::OpUntypedVariableKHR if func.is_none() => {
                let storage = at(2);
                let (pointee, initializer) = if opcode == op::OpVariable {
                    (None, w.get(3).copied())
                } else {
                    (w.get(3).copied(), w.get(4).copied())
                };
                ir.globals.push(Variable {
                    id: at(1),
                    inst: i32_,
                    ty: at(0),
                    storage,
                    pointee,
                    initializer,
                    set: None,
                    binding: None,
                });
            }
            op::OpFunction => {
                if let Some(mut f) = func.take() {
                    f.end = i32_;
                    f.blocks.end = ir.blocks.len() as u32;
                    ir.functions.push(f);
                }
                func = Some(Function {
                    id: at(1),
                    result_type: at(0),
                    control: at(2),
                    fn_type: at(3),
                    inst: i32_,
                    end: n as u32,
                    params: Vec::new(),
                    blocks: (ir.blocks.len() as u32)..(ir.blocks.len() as u32),
                });
            }
            op::OpFunctionParameter => {
                if let Some(f) = func.as_mut() {
                    f.params.push(at(1));
                }
            }
            op::OpFunctionEnd => {
                if let Some(mut f) = func.take() {
                    f.end = i32_;
                    f.blocks.end = ir.blocks.len() as u32;
                    ir.functions.push(f);
                }
            }
            op::OpLabel => {
                block = Some(Block {
                    label: at(0),
                    start: i32_,
                    end: i32_ + 1,
                    terminator: None,
                });
            }
            _ => {}
        }
        if is_terminator(opcode)
            && let Some(mut b) = block.take()
        {
            b.end = i32_ + 1;
            b.terminator = Some(i32_);
            ir.blocks.push(b);
        }
        // Types and constants are declared outside functions (inside one, a
        // module is invalid and they are not recorded).
        if func.is_some() {
            continue;
        }
        if is_constant(opcode) {
            ir.constants.push(Constant {
                id: at(1),
                ty: at(0),
                inst: i32_,
                spec: matches!(
                    opcode,
                    op::OpSpecConstantTrue
                        | op::OpSpecConstantFalse
                        | op::OpSpecConstant
                        | op::OpSpecConstantComposite
                        | op::OpSpecConstantOp
                ),
                value: ConstValue::NotEvaluated,
            });
        } else if let Some(ty) = type_decl(opcode, w) {
            ir.types.push(TypeDef {
                id: at(0),
                inst: i32_,
                ty,
                array_stride: None,
                block: None,
                size: None,
            });
        }
    }
    ir.at.push(InstAt {
        offset: offset as u32,
        first_op: ir.ops.len() as u32,
    });
    if let Some(mut b) = block.take() {
        b.end = n as u32;
        ir.blocks.push(b);
    }
    if let Some(mut f) = func.take() {
        f.blocks.end = ir.blocks.len() as u32;
        ir.functions.push(f);
    }
    ir.module = module;
    ir.finish(group_uses, modes);
    ir
}

/// The type an instruction declares, if it declares one.
fn type_decl(opcode: u16, w: &[u32]) -> Option<Type> {
    let at = |k: usize| w.get(k).copied().unwrap_or(0);
    Some(match opcode {
        op::OpTypeVoid => Type::Void,
        op::OpTypeBool => Type::Bool,
        op::OpTypeInt => Type::Int {
            width: at(1),
            signed: at(2) != 0,
        },
        op::OpTypeFloat => Type::Float {
            width: at(1),
            encoding: w.get(2).copied(),
        },
        op::OpTypeVector => Type::Vector {
            component: at(1),
            count: at(2),
        },
        op::OpTypeMatrix => Type::Matrix {
            column: at(1),
            columns: at(2),
        },
        op::OpTypeArray => Type::Array {
            element: at(1),
            length: at(2),
            len: None,
        },
        op::OpTypeRuntimeArray => Type::RuntimeArray { element: at(1) },
        op::OpTypeStruct => Type::Struct {
            members: w
                .get(1..)
                .unwrap_or(&[])
                .iter()
                .map(|&ty| Member {
                    ty,
                    offset: None,
                    matrix_stride: None,
                    row_major: None,
                    builtin: None,
                })
                .collect(),
        },
        op::OpTypePointer => Type::Pointer {
            storage: at(1),
            pointee: Some(at(2)),
        },
        op::OpTypeUntypedPointerKHR => Type::Pointer {
            storage: at(1),
            pointee: None,
        },
        op::OpTypeFunction => Type::Function {
            ret: at(1),
            params: w.get(2..).unwrap_or(&[]).to_vec(),
        },
        op::OpTypeImage => Type::Image {
            sampled_type: at(1),
            dim: at(2),
            depth: at(3),
            arrayed: at(4),
            ms: at(5),
            sampled: at(6),
            format: at(7),
            access: w.get(8).copied(),
        },
        op::OpTypeSampler => Type::Sampler,
        op::OpTypeSampledImage => Type::SampledImage { image: at(1) },
        op::OpTypeOpaque => Type::Opaque {
            name: decode_string(w.get(1..).unwrap_or(&[])),
        },
        _ if crate::binary::parse::declares_type(opcode) => Type::Other { opcode },
        _ => return None,
    })
}

impl Ir {
    fn finish(&mut self, group_uses: Vec<u32>, modes: Vec<(u32, ExecutionMode)>) {
        // Group decorations: copy the group's decorations to each target.
        if !group_uses.is_empty() {
            let mut extra = Vec::new();
            for &g in &group_uses {
                let w = self.words(g as usize);
                let Some((&group, rest)) = w.split_first() else {
                    continue;
                };
                let of_group: Vec<Decoration> = self
                    .decorations
                    .iter()
                    .filter(|d| d.target == group)
                    .copied()
                    .collect();
                if self.opcode(g as usize) == op::OpGroupDecorate {
                    for &t in rest {
                        extra.extend(of_group.iter().map(|d| Decoration { target: t, ..*d }));
                    }
                } else {
                    for pair in rest.chunks_exact(2) {
                        extra.extend(of_group.iter().map(|d| Decoration {
                            target: pair[0],
                            member: Some(pair[1]),
                            ..*d
                        }));
                    }
                }
            }
            self.decorations.extend(extra);
        }
        // Often already in order (ids numbered as they first appear).
        if !self.decorations.is_sorted_by_key(|d| d.target) {
            self.decorations.sort_by_key(|d| d.target);
        }
        if !self.names.is_sorted_by_key(|n| (n.target, n.member)) {
            self.names.sort_by_key(|n| (n.target, n.member));
        }
        for (f, m) in modes {
            // Several entry points may share a function: a copy for each but
            // the last, which takes the mode.
            let mut sharing = self
                .entry_points
                .iter_mut()
                .filter(|e| e.function == f)
                .peekable();
            while let Some(e) = sharing.next() {
                if sharing.peek().is_some() {
                    e.modes.push(m.clone());
                } else {
                    e.modes.push(m);
                    break;
                }
            }
        }
        // Index types and constants by id.
        for (k, t) in self.types.iter().enumerate() {
            self.ids.slot(t.id).ty = k as u32 + 1;
        }
        for (k, c) in self.constants.iter().enumerate() {
            self.ids.slot(c.id).constant = k as u32 + 1;
        }
        for k in 0..self.constants.len() {
            let v = self.eval_constant(k);
            self.constants[k].value = v;
        }
        self.resolve_layouts();
        for k in 0..self.globals.len() {
            let v = self.globals[k];
            let pointee = v.pointee.or_else(|| match self.ty(v.ty)?.ty {
                Type::Pointer { pointee, .. } => pointee,
                _ => None,
            });
            // The first DescriptorSet and the first Binding on the variable
            // (as `decoration_arg`), in one look-up.
            let (mut set, mut binding) = (None, None);
            for d in self.decorations_of(v.id) {
                match d.decoration {
                    _ if d.member.is_some() => {}
                    dec::DESCRIPTOR_SET if set.is_none() => set = Some(d.arg(self)),
                    dec::BINDING if binding.is_none() => binding = Some(d.arg(self)),
                    _ => {}
                }
            }
            let g = &mut self.globals[k];
            g.pointee = pointee;
            g.set = set.flatten();
            g.binding = binding.flatten();
        }
    }
}
