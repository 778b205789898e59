//! Friendly names, chosen as spirv-dis chooses them: OpName first (sanitised,
//! made unique with `_0`, `_1`... suffixes), then built-in variables, type
//! names (`uint`, `v4float`, `_ptr_Function_float`, `_arr_float_uint_4`,
//! `_struct_12`...), constants (`uint_0`, `float_n1`, `true`), and the id
//! number for everything else.

use super::num;
use crate::binary::parse::{FloatEnc, IdMap, NumType, string_bytes};
use crate::grammar::{self, OperandKind, built_in, decoration, fp_encoding, op};
use crate::module::Module;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Id to name, built once per module.
pub struct Names {
    /// `index + 1` into `pool`, 0 for none.
    slot: IdMap<u32>,
    pool: Vec<String>,
    /// Open-addressing hash set of pool indices + 1.
    table: Vec<u32>,
    /// For a base name that collided: the next suffix worth trying (every
    /// smaller one is taken, and names are never released).
    next_suffix: BTreeMap<String, u32>,
}

fn hash(s: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in s {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// Every byte not in `[A-Za-z0-9_]` becomes `_` (per byte, as spirv-dis does
/// on UTF-8 text); the empty name becomes `_`.
fn sanitize_bytes(s: &[u8]) -> String {
    if s.is_empty() {
        return String::from("_");
    }
    let mut r = String::with_capacity(s.len());
    for &b in s {
        r.push(if b.is_ascii_alphanumeric() || b == b'_' {
            b as char
        } else {
            '_'
        });
    }
    r
}

fn sanitize(s: &str) -> String {
    sanitize_bytes(s.as_bytes())
}

fn id_string(id: u32) -> String {
    let mut s = String::new();
    num::push_u64(&mut s, id as u64);
    s
}

fn builtin_name(value: u32) -> Option<&'static str> {
    Some(match value {
        built_in::Position => "gl_Position",
        built_in::PointSize => "gl_PointSize",
        built_in::ClipDistance => "gl_ClipDistance",
        built_in::CullDistance => "gl_CullDistance",
        built_in::VertexId => "gl_VertexID",
        built_in::InstanceId => "gl_InstanceID",
        built_in::PrimitiveId => "gl_PrimitiveID",
        built_in::InvocationId => "gl_InvocationID",
        built_in::Layer => "gl_Layer",
        built_in::ViewportIndex => "gl_ViewportIndex",
        built_in::TessLevelOuter => "gl_TessLevelOuter",
        built_in::TessLevelInner => "gl_TessLevelInner",
        built_in::TessCoord => "gl_TessCoord",
        built_in::PatchVertices => "gl_PatchVertices",
        built_in::FragCoord => "gl_FragCoord",
        built_in::PointCoord => "gl_PointCoord",
        built_in::FrontFacing => "gl_FrontFacing",
        built_in::SampleId => "gl_SampleID",
        built_in::SamplePosition => "gl_SamplePosition",
        built_in::SampleMask => "gl_SampleMask",
        built_in::FragDepth => "gl_FragDepth",
        built_in::HelperInvocation => "gl_HelperInvocation",
        built_in::NumWorkgroups => "gl_NumWorkGroups",
        built_in::WorkgroupSize => "gl_WorkGroupSize",
        built_in::WorkgroupId => "gl_WorkGroupID",
        built_in::LocalInvocationId => "gl_LocalInvocationID",
        built_in::GlobalInvocationId => "gl_GlobalInvocationID",
        built_in::LocalInvocationIndex => "gl_LocalInvocationIndex",
        built_in::WorkDim => "WorkDim",
        built_in::GlobalSize => "GlobalSize",
        built_in::EnqueuedWorkgroupSize => "EnqueuedWorkgroupSize",
        built_in::GlobalOffset => "GlobalOffset",
        built_in::GlobalLinearId => "GlobalLinearId",
        built_in::SubgroupSize => "SubgroupSize",
        built_in::SubgroupMaxSize => "SubgroupMaxSize",
        built_in::NumSubgroups => "NumSubgroups",
        built_in::NumEnqueuedSubgroups => "NumEnqueuedSubgroups",
        built_in::SubgroupId => "SubgroupId",
        built_in::SubgroupLocalInvocationId => "SubgroupLocalInvocationId",
        built_in::VertexIndex => "gl_VertexIndex",
        built_in::InstanceIndex => "gl_InstanceIndex",
        built_in::SubgroupEqMask => "SubgroupEqMaskKHR",
        built_in::SubgroupGeMask => "SubgroupGeMaskKHR",
        built_in::SubgroupGtMask => "SubgroupGtMaskKHR",
        built_in::SubgroupLeMask => "SubgroupLeMaskKHR",
        built_in::SubgroupLtMask => "SubgroupLtMaskKHR",
        built_in::BaseInstance => "gl_BaseInstance",
        _ => return None,
    })
}

impl Names {
    fn new(bound: u32) -> Names {
        Names {
            slot: IdMap::new(bound),
            pool: Vec::new(),
            table: vec![0; 64],
            next_suffix: BTreeMap::new(),
        }
    }

    /// The name of an id: its friendly name, or its number when it has none.
    pub fn get(&self, id: u32) -> Option<&str> {
        match self.slot.get(id) {
            0 => None,
            k => self.pool.get(k as usize - 1).map(String::as_str),
        }
    }

    fn name_for(&self, id: u32) -> String {
        match self.get(id) {
            Some(s) => String::from(s),
            None => id_string(id),
        }
    }

    fn find(&self, s: &str) -> Result<(), usize> {
        let mask = self.table.len() - 1;
        let mut i = hash(s.as_bytes()) as usize & mask;
        loop {
            match self.table[i] {
                0 => return Err(i),
                k => {
                    if self.pool[k as usize - 1] == s {
                        return Ok(());
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Insert a name if unused; true when inserted.
    fn insert(&mut self, s: String) -> Option<u32> {
        let Err(at) = self.find(&s) else { return None };
        self.pool.push(s);
        let k = self.pool.len() as u32;
        self.table[at] = k;
        if self.pool.len() * 2 > self.table.len() {
            self.grow();
        }
        Some(k)
    }

    fn grow(&mut self) {
        let n = self.table.len() * 2;
        let mut t = vec![0u32; n];
        for (i, s) in self.pool.iter().enumerate() {
            let mut j = hash(s.as_bytes()) as usize & (n - 1);
            while t[j] != 0 {
                j = (j + 1) & (n - 1);
            }
            t[j] = i as u32 + 1;
        }
        self.table = t;
    }

    fn save(&mut self, id: u32, suggested: &str) {
        if self.slot.get(id) != 0 {
            return;
        }
        let base = sanitize(suggested);
        let k = match self.insert(base.clone()) {
            Some(k) => k,
            None => {
                let mut index = self.next_suffix.get(&base).copied().unwrap_or(0);
                loop {
                    let mut cand = String::with_capacity(base.len() + 4);
                    cand.push_str(&base);
                    cand.push('_');
                    num::push_u64(&mut cand, index as u64);
                    index = index.saturating_add(1);
                    if let Some(k) = self.insert(cand) {
                        self.next_suffix.insert(base, index);
                        break k;
                    }
                }
            }
        };
        self.slot.set(id, k);
    }

    /// Compute the names of a whole module.
    pub fn build(m: &Module) -> Names {
        Names::build_with(m, core::iter::empty())
    }

    /// [`Names::build`], with the names of `given` (id, name without `%`)
    /// taking precedence over OpName and the generated ones, kept as they are
    /// (not sanitised). Used for assembled text: its ids go by the names the
    /// text gives them. A given name already taken (a repeated id or name) is
    /// left out, and the id keeps its friendly name.
    pub fn build_with<'s>(m: &Module, given: impl Iterator<Item = (u32, &'s str)>) -> Names {
        let total: usize = m.instructions.iter().map(|i| i.word_count()).sum();
        let cap = m.header.bound.min(total as u32 + 1);
        let mut n = Names::new(cap);
        for (id, name) in given {
            if n.slot.get(id) == 0
                && !name.is_empty()
                && let Some(k) = n.insert(String::from(name))
            {
                n.slot.set(id, k);
            }
        }
        let mut types: IdMap<NumType> = IdMap::new(cap);
        for inst in &m.instructions {
            let w = &inst.operands[..];
            let word = |i: usize| w.get(i).copied().unwrap_or(0);
            match inst.opcode {
                op::OpName => {
                    if let [target, ref s @ ..] = *w {
                        n.save(target, &sanitize_bytes(&string_bytes(s)));
                    }
                    continue;
                }
                op::OpDecorate => {
                    // OpDecorate %x BuiltIn B
                    if let [target, decoration::BuiltIn, b, ..] = *w
                        && let Some(name) = builtin_name(b)
                    {
                        n.save(target, name);
                    }
                    continue;
                }
                _ => {}
            }
            let Some(desc) = grammar::instruction(inst.opcode) else {
                continue;
            };
            let result = if desc.has_result_type() {
                w.get(1).copied()
            } else if desc.has_result() {
                w.first().copied()
            } else {
                None
            };
            let Some(id) = result else { continue };
            let name: String = match inst.opcode {
                op::OpTypeVoid => "void".into(),
                op::OpTypeBool => "bool".into(),
                op::OpTypeInt => {
                    let (width, signed) = (word(1), word(2) != 0);
                    if w.len() >= 3 {
                        types.set(id, NumType::Int { width, signed });
                    }
                    let (mut sign, root) = match width {
                        8 => ("", String::from("char")),
                        16 => ("", String::from("short")),
                        32 => ("", String::from("int")),
                        64 => ("", String::from("long")),
                        _ => ("i", id_string(width)),
                    };
                    if !signed {
                        sign = "u";
                    }
                    let mut s = String::from(sign);
                    s.push_str(&root);
                    s
                }
                op::OpTypeFloat => {
                    let width = word(1);
                    let enc = match w.get(2) {
                        Some(&fp_encoding::BFloat16KHR) => FloatEnc::BFloat16,
                        Some(&fp_encoding::Float8E4M3EXT) => FloatEnc::Float8E4M3,
                        Some(&fp_encoding::Float8E5M2EXT) => FloatEnc::Float8E5M2,
                        _ => FloatEnc::Ieee,
                    };
                    types.set(id, NumType::Float { width, enc });
                    match (enc, width) {
                        (FloatEnc::BFloat16, _) => "bfloat16".into(),
                        (FloatEnc::Float8E4M3, _) => "fp8e4m3".into(),
                        (FloatEnc::Float8E5M2, _) => "fp8e5m2".into(),
                        (_, 16) => "half".into(),
                        (_, 32) => "float".into(),
                        (_, 64) => "double".into(),
                        _ => {
                            let mut s = String::from("fp");
                            num::push_u64(&mut s, width as u64);
                            s
                        }
                    }
                }
                op::OpTypeVector | op::OpTypeMatrix => {
                    let mut s = String::from(if inst.opcode == op::OpTypeVector { "v" } else { "mat" });
                    num::push_u64(&mut s, word(2) as u64);
                    s.push_str(&n.name_for(word(1)));
                    s
                }
                op::OpTypeArray => {
                    let mut s = String::from("_arr_");
                    s.push_str(&n.name_for(word(1)));
                    s.push('_');
                    s.push_str(&n.name_for(word(2)));
                    s
                }
                op::OpTypeRuntimeArray => {
                    let mut s = String::from("_runtimearr_");
                    s.push_str(&n.name_for(word(1)));
                    s
                }
                op::OpTypeNodePayloadArrayAMDX => {
                    let mut s = String::from("_payloadarr_");
                    s.push_str(&n.name_for(word(1)));
                    s
                }
                op::OpTypePointer | op::OpTypeUntypedPointerKHR => {
                    let mut s = String::from("_ptr_");
                    push_enumerant(&mut s, OperandKind::StorageClass, word(1));
                    if inst.opcode == op::OpTypePointer {
                        s.push('_');
                        s.push_str(&n.name_for(word(2)));
                    }
                    s
                }
                op::OpTypePipe => {
                    let mut s = String::from("Pipe");
                    push_enumerant(&mut s, OperandKind::AccessQualifier, word(1));
                    s
                }
                op::OpTypeEvent => "Event".into(),
                op::OpTypeDeviceEvent => "DeviceEvent".into(),
                op::OpTypeReserveId => "ReserveId".into(),
                op::OpTypeQueue => "Queue".into(),
                op::OpTypeOpaque => {
                    let mut s = String::from("Opaque_");
                    s.push_str(&sanitize_bytes(&string_bytes(w.get(1..).unwrap_or(&[]))));
                    s
                }
                op::OpTypePipeStorage => "PipeStorage".into(),
                op::OpTypeNamedBarrier => "NamedBarrier".into(),
                op::OpTypeStruct => {
                    let mut s = String::from("_struct_");
                    num::push_u64(&mut s, id as u64);
                    s
                }
                op::OpConstantTrue => "true".into(),
                op::OpConstantFalse => "false".into(),
                op::OpConstant => {
                    let nt = types.get(word(0));
                    let lit = w.get(2..).unwrap_or(&[]);
                    let expect = (nt.width().div_ceil(32) as usize).max(1);
                    if nt == NumType::None || lit.len() != expect {
                        id_string(id)
                    } else {
                        let mut v = String::new();
                        num::push_number(&mut v, lit, nt);
                        let mut s = n.name_for(word(0));
                        s.push('_');
                        for c in v.chars() {
                            s.push(if c == '-' { 'n' } else { c });
                        }
                        s
                    }
                }
                _ => {
                    if n.slot.get(id) != 0 {
                        continue;
                    }
                    id_string(id)
                }
            };
            n.save(id, &name);
        }
        n
    }
}

/// The name of enumerant `value` of `kind`, or the kind's name and the number
/// when the grammar has no such enumerant.
fn push_enumerant(s: &mut String, kind: OperandKind, value: u32) {
    match kind.enumerant(value) {
        Some(e) => s.push_str(e.name),
        None => {
            s.push_str(kind.name());
            num::push_u64(s, value as u64);
        }
    }
}
