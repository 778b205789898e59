//! Subgroup operations (WGSL's `subgroups` extension).

use crate::grammar::op;
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::types::{Kind, Num, cast};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;
use alloc::string::String;

impl ModuleWriter<'_> {
    /// A subgroup operation (WGSL's `subgroups` extension).
    pub(in crate::wgsl::write) fn subgroup(&mut self, f: &mut FunctionContext, i: usize, words: &[u32]) -> Result<String, Refusal> {
        let o = self.ir.opcode(i);
        let at = Some(i as u32);
        if self.ir.const_u64(words[2]) != Some(crate::grammar::scope::Subgroup as u64) {
            return Err(Refusal::new(RefusalCode::Instruction, "a group operation of a scope other than Subgroup", at));
        }
        self.subgroups = true;
        let r = self.num(words[0]);
        let arg = |k: usize| words.get(k).copied().unwrap_or(0);
        Ok(match o {
            op::OpGroupNonUniformElect => {
                let lane = match &self.lane {
                    Some(l) => l.clone(),
                    None => {
                        let l = self.globals_scope.fresh(Some("subgroup_lane"), "lane");
                        self.extra_decls.push((i as u32, format!("var<private> {l}: u32;\n")));
                        self.lane = Some(l.clone());
                        l
                    }
                };
                // The first active invocation is the one whose id is broadcast first.
                format!("({lane} == subgroupBroadcastFirst({lane}))")
            }
            op::OpGroupNonUniformAll => format!("subgroupAll({})", self.val(f, arg(3))?),
            op::OpGroupNonUniformAny => format!("subgroupAny({})", self.val(f, arg(3))?),
            op::OpGroupNonUniformAllEqual => {
                let n = self.num_of(arg(3)).ok_or_else(|| Refusal::unsupported(i, "OpGroupNonUniformAllEqual of a composite"))?;
                let mut x = self.val(f, arg(3))?;
                if n.kind == Kind::Bool {
                    x = format!("{}({x})", n.with(Kind::U32).text());
                }
                let eq = format!("{x} == subgroupBroadcastFirst({x})");
                if n.n == 1 { format!("subgroupAll({eq})") } else { format!("subgroupAll(all({eq}))") }
            }
            op::OpGroupNonUniformBroadcastFirst => {
                format!("subgroupBroadcastFirst({})", self.val(f, arg(3))?)
            }
            op::OpGroupNonUniformBroadcast | op::OpGroupNonUniformQuadBroadcast => {
                let name = if o == op::OpGroupNonUniformBroadcast { "subgroupBroadcast" } else { "quadBroadcast" };
                let Some(id) = self.ir.const_u64(arg(4)) else {
                    return Err(Refusal::unsupported(i, "a broadcast from a non-constant invocation"));
                };
                format!("{name}({}, {}u)", self.val(f, arg(3))?, id as u32)
            }
            op::OpGroupNonUniformBallot => format!("subgroupBallot({})", self.val(f, arg(3))?),
            op::OpGroupNonUniformShuffle
            | op::OpGroupNonUniformShuffleXor
            | op::OpGroupNonUniformShuffleUp
            | op::OpGroupNonUniformShuffleDown => {
                let name = match o {
                    op::OpGroupNonUniformShuffle => "subgroupShuffle",
                    op::OpGroupNonUniformShuffleXor => "subgroupShuffleXor",
                    op::OpGroupNonUniformShuffleUp => "subgroupShuffleUp",
                    _ => "subgroupShuffleDown",
                };
                let u = Num { kind: Kind::U32, n: 1 };
                format!("{name}({}, {})", self.val(f, arg(3))?, self.val_as(f, arg(4), u)?)
            }
            op::OpGroupNonUniformIAdd..=op::OpGroupNonUniformBitwiseXor => {
                let (base, sign) = match o {
                    op::OpGroupNonUniformIAdd | op::OpGroupNonUniformFAdd => ("Add", None),
                    op::OpGroupNonUniformIMul | op::OpGroupNonUniformFMul => ("Mul", None),
                    op::OpGroupNonUniformSMin => ("Min", Some(Kind::I32)),
                    op::OpGroupNonUniformUMin => ("Min", Some(Kind::U32)),
                    op::OpGroupNonUniformFMin => ("Min", None),
                    op::OpGroupNonUniformSMax => ("Max", Some(Kind::I32)),
                    op::OpGroupNonUniformUMax => ("Max", Some(Kind::U32)),
                    op::OpGroupNonUniformFMax => ("Max", None),
                    op::OpGroupNonUniformBitwiseAnd => ("And", None),
                    op::OpGroupNonUniformBitwiseOr => ("Or", None),
                    _ => ("Xor", None),
                };
                let name = match (arg(3), base) {
                    (crate::grammar::group_operation::Reduce, _) => format!("subgroup{base}"),
                    (crate::grammar::group_operation::InclusiveScan, "Add" | "Mul") => format!("subgroupInclusive{base}"),
                    (crate::grammar::group_operation::ExclusiveScan, "Add" | "Mul") => format!("subgroupExclusive{base}"),
                    _ => return Err(Refusal::unsupported(i, "this group operation (WGSL scans only add and multiply)")),
                };
                let n = r.ok_or_else(|| Refusal::unsupported(i, "a group operation on a composite"))?;
                let c = n.with(sign.unwrap_or(n.kind));
                cast(format!("{name}({})", self.val_as(f, arg(4), c)?), c, n)
            }
            _ => {
                let name = self.ir.desc(i).map_or("this group operation", |d| d.name);
                return Err(Refusal::unsupported(i, name));
            }
        })
    }
}
