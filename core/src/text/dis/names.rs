//! Friendly names, chosen as spirv-dis chooses them: OpName first (sanitised,
//! made unique with `_0`, `_1`... suffixes), then built-in variables, type
//! names (`uint`, `v4float`, `_ptr_Function_float`, `_arr_float_uint_4`,
//! `_struct_12`...), constants (`uint_0`, `float_n1`, `true`), and the id
//! number for everything else.

use super::num;
use crate::binary::parse::{FloatEnc, IdMap, NumType, string_bytes};
use crate::grammar::{self, OperandKind};
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

fn builtin_name(b: u32) -> Option<&'static str> {
    Some(match b {
        0 => "gl_Position",
        1 => "gl_PointSize",
        3 => "gl_ClipDistance",
        4 => "gl_CullDistance",
        5 => "gl_VertexID",
        6 => "gl_InstanceID",
        7 => "gl_PrimitiveID",
        8 => "gl_InvocationID",
        9 => "gl_Layer",
        10 => "gl_ViewportIndex",
        11 => "gl_TessLevelOuter",
        12 => "gl_TessLevelInner",
        13 => "gl_TessCoord",
        14 => "gl_PatchVertices",
        15 => "gl_FragCoord",
        16 => "gl_PointCoord",
        17 => "gl_FrontFacing",
        18 => "gl_SampleID",
        19 => "gl_SamplePosition",
        20 => "gl_SampleMask",
        22 => "gl_FragDepth",
        23 => "gl_HelperInvocation",
        24 => "gl_NumWorkGroups",
        25 => "gl_WorkGroupSize",
        26 => "gl_WorkGroupID",
        27 => "gl_LocalInvocationID",
        28 => "gl_GlobalInvocationID",
        29 => "gl_LocalInvocationIndex",
        30 => "WorkDim",
        31 => "GlobalSize",
        32 => "EnqueuedWorkgroupSize",
        33 => "GlobalOffset",
        34 => "GlobalLinearId",
        36 => "SubgroupSize",
        37 => "SubgroupMaxSize",
        38 => "NumSubgroups",
        39 => "NumEnqueuedSubgroups",
        40 => "SubgroupId",
        41 => "SubgroupLocalInvocationId",
        42 => "gl_VertexIndex",
        43 => "gl_InstanceIndex",
        4416 => "SubgroupEqMaskKHR",
        4417 => "SubgroupGeMaskKHR",
        4418 => "SubgroupGtMaskKHR",
        4419 => "SubgroupLeMaskKHR",
        4420 => "SubgroupLtMaskKHR",
        4425 => "gl_BaseInstance",
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
        let total: usize = m.instructions.iter().map(|i| i.word_count()).sum();
        let cap = m.header.bound.min(total as u32 + 1);
        let mut n = Names::new(cap);
        let mut types: IdMap<NumType> = IdMap::new(cap);
        for inst in &m.instructions {
            let w = &inst.operands[..];
            let word = |i: usize| w.get(i).copied().unwrap_or(0);
            match inst.opcode {
                5 => {
                    // OpName
                    if let [target, ref s @ ..] = *w {
                        n.save(target, &sanitize_bytes(&string_bytes(s)));
                    }
                    continue;
                }
                71 => {
                    // OpDecorate %x BuiltIn B
                    if let [target, 11, b, ..] = *w
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
                19 => "void".into(),
                20 => "bool".into(),
                21 => {
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
                22 => {
                    let width = word(1);
                    let enc = match w.get(2) {
                        Some(0) => FloatEnc::BFloat16,
                        Some(4214) => FloatEnc::Float8E4M3,
                        Some(4215) => FloatEnc::Float8E5M2,
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
                23 | 24 => {
                    let mut s = String::from(if inst.opcode == 23 { "v" } else { "mat" });
                    num::push_u64(&mut s, word(2) as u64);
                    s.push_str(&n.name_for(word(1)));
                    s
                }
                28 => {
                    let mut s = String::from("_arr_");
                    s.push_str(&n.name_for(word(1)));
                    s.push('_');
                    s.push_str(&n.name_for(word(2)));
                    s
                }
                29 => {
                    let mut s = String::from("_runtimearr_");
                    s.push_str(&n.name_for(word(1)));
                    s
                }
                5076 => {
                    // OpTypeNodePayloadArrayAMDX
                    let mut s = String::from("_payloadarr_");
                    s.push_str(&n.name_for(word(1)));
                    s
                }
                32 | 4417 => {
                    let mut s = String::from("_ptr_");
                    match OperandKind::StorageClass.enumerant(word(1)) {
                        Some(e) => s.push_str(e.name),
                        None => {
                            s.push_str("StorageClass");
                            num::push_u64(&mut s, word(1) as u64);
                        }
                    }
                    if inst.opcode == 32 {
                        s.push('_');
                        s.push_str(&n.name_for(word(2)));
                    }
                    s
                }
                38 => {
                    let mut s = String::from("Pipe");
                    match OperandKind::AccessQualifier.enumerant(word(1)) {
                        Some(e) => s.push_str(e.name),
                        None => {
                            s.push_str("AccessQualifier");
                            num::push_u64(&mut s, word(1) as u64);
                        }
                    }
                    s
                }
                34 => "Event".into(),
                35 => "DeviceEvent".into(),
                36 => "ReserveId".into(),
                37 => "Queue".into(),
                31 => {
                    let mut s = String::from("Opaque_");
                    s.push_str(&sanitize_bytes(&string_bytes(w.get(1..).unwrap_or(&[]))));
                    s
                }
                322 => "PipeStorage".into(),
                327 => "NamedBarrier".into(),
                30 => {
                    let mut s = String::from("_struct_");
                    num::push_u64(&mut s, id as u64);
                    s
                }
                41 => "true".into(),
                42 => "false".into(),
                43 => {
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
