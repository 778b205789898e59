//! Project tasks. `cargo run -p xtask -- grammar <spirv-headers dir> [--check]`
//! regenerates `core/src/grammar/generated.rs` from the SPIR-V JSON grammars
//! (or, with `--check`, fails when the committed file is out of date).

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const OUT: &str = "core/src/grammar/generated.rs";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("grammar") => {
            let Some(dir) = args.get(1) else {
                eprintln!("usage: xtask grammar <spirv-headers dir> [--check]");
                return ExitCode::from(2);
            };
            let check = args.iter().any(|a| a == "--check");
            match grammar(Path::new(dir), check) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("xtask grammar: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => {
            eprintln!("usage: xtask grammar <spirv-headers dir> [--check]");
            ExitCode::from(2)
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn grammar(dir: &Path, check: bool) -> Result<(), String> {
    let text = generate(dir)?;
    let out = workspace_root().join(OUT);
    if check {
        let old = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        if old != text {
            return Err(format!(
                "{OUT} is out of date; run `cargo run -p xtask -- grammar {}`",
                dir.display()
            ));
        }
        println!("{OUT} is current");
    } else {
        std::fs::write(&out, text).map_err(|e| format!("{}: {e}", out.display()))?;
        println!("wrote {OUT}");
    }
    Ok(())
}

fn load(path: &Path) -> Result<Value, String> {
    let s = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&s).map_err(|e| format!("{}: {e}", path.display()))
}

/// The import name, variant prefix, match mode and constants module (under
/// `grammar::ext_inst`) of each extended set, by file stem.
fn ext_set_info(stem: &str) -> Option<(&'static str, &'static str, bool, &'static str)> {
    Some(match stem {
        "glsl.std.450" => ("GLSL.std.450", "Glsl", false, "glsl_std_450"),
        "opencl.std.100" => ("OpenCL.std", "OpenCl", false, "opencl_std"),
        "debuginfo" => ("DebugInfo", "DebugInfo", false, "debug_info"),
        "opencl.debuginfo.100" => ("OpenCL.DebugInfo.100", "OpenClDebugInfo100", false, "opencl_debug_info_100"),
        "nonsemantic.shader.debuginfo.100" => {
            ("NonSemantic.Shader.DebugInfo.100", "ShaderDebugInfo100", false, "shader_debug_info_100")
        }
        "nonsemantic.shader.debuginfo" => ("NonSemantic.Shader.DebugInfo", "ShaderDebugInfo", false, "shader_debug_info"),
        "nonsemantic.clspvreflection" => ("NonSemantic.ClspvReflection.", "Clspv", true, "clspv_reflection"),
        "nonsemantic.vkspreflection" => ("NonSemantic.VkspReflection.", "Vksp", true, "vksp_reflection"),
        "nonsemantic.debugprintf" => ("NonSemantic.DebugPrintf", "DebugPrintf", false, "debug_printf"),
        "nonsemantic.debugbreak" => ("NonSemantic.DebugBreak", "DebugBreak", false, "debug_break"),
        "nonsemantic.graph.debuginfo" => ("NonSemantic.Graph.DebugInfo", "GraphDebugInfo", false, "graph_debug_info"),
        "spv-amd-gcn-shader" => ("SPV_AMD_gcn_shader", "AmdGcn", false, "amd_gcn_shader"),
        "spv-amd-shader-ballot" => ("SPV_AMD_shader_ballot", "AmdBallot", false, "amd_shader_ballot"),
        "spv-amd-shader-explicit-vertex-parameter" => {
            ("SPV_AMD_shader_explicit_vertex_parameter", "AmdEvp", false, "amd_shader_explicit_vertex_parameter")
        }
        "spv-amd-shader-trinary-minmax" => ("SPV_AMD_shader_trinary_minmax", "AmdTrinary", false, "amd_shader_trinary_minmax"),
        "tosa.001000.1" => ("TOSA.001000.1", "Tosa", false, "tosa"),
        "arm.motion-engine.100" => ("Arm.MotionEngine.100", "ArmMotion", false, "arm_motion_engine"),
        "arm.experimental-ml-operations" => ("Arm.ExperimentalMLOperations", "ArmMl", false, "arm_experimental_ml_operations"),
        _ => return None,
    })
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

fn parse_value(v: &Value) -> Result<u32, String> {
    match v {
        Value::Number(n) => n.as_u64().map(|n| n as u32).ok_or_else(|| format!("bad value {v}")),
        Value::String(s) => {
            let s = s.trim();
            if let Some(h) = s.strip_prefix("0x") {
                u32::from_str_radix(h, 16).map_err(|e| format!("bad value {s}: {e}"))
            } else {
                s.parse().map_err(|e| format!("bad value {s}: {e}"))
            }
        }
        _ => Err(format!("bad value {v}")),
    }
}

fn version(v: &Value, key: &str) -> String {
    match v.get(key).and_then(Value::as_str) {
        Some(s) if s != "None" => {
            let mut it = s.split('.');
            let major: u8 = it.next().and_then(|x| x.parse().ok()).unwrap_or(1);
            let minor: u8 = it.next().and_then(|x| x.parse().ok()).unwrap_or(0);
            format!("Some(({major}, {minor}))")
        }
        // Core instructions without a version key exist since 1.0.
        None if key == "version" => "Some((1, 0))".into(),
        _ => "None".into(),
    }
}

struct Gen {
    /// Kind name in a given scope -> variant name.
    core_kinds: BTreeMap<String, String>,
    capabilities: BTreeMap<String, u32>,
}

impl Gen {
    fn variant(&self, kind: &str, local: &BTreeMap<String, String>) -> Result<String, String> {
        local
            .get(kind)
            .or_else(|| self.core_kinds.get(kind))
            .cloned()
            .ok_or_else(|| format!("unknown operand kind {kind}"))
    }

    fn operands(&self, ops: Option<&Value>, local: &BTreeMap<String, String>) -> Result<String, String> {
        let mut s = String::from("&[");
        for (i, o) in ops.and_then(Value::as_array).into_iter().flatten().enumerate() {
            let q = match str_of(o, "quantifier") {
                "?" => "Optional",
                "*" => "Variadic",
                _ => "One",
            };
            let name = str_of(o, "name").trim_matches('\'').replace('\n', " ");
            if i > 0 {
                s.push_str(", ");
            }
            write!(
                s,
                "OperandDesc {{ kind: OperandKind::{}, quantifier: Quantifier::{q}, name: {:?} }}",
                self.variant(str_of(o, "kind"), local)?,
                name
            )
            .unwrap();
        }
        s.push(']');
        Ok(s)
    }

    fn caps(&self, v: &Value) -> Result<String, String> {
        let mut vals = Vec::new();
        for c in strings(v, "capabilities") {
            vals.push(
                self.capabilities
                    .get(&c)
                    .copied()
                    .ok_or_else(|| format!("unknown capability {c}"))?
                    .to_string(),
            );
        }
        Ok(format!("&[{}]", vals.join(", ")))
    }
}

/// `StorageClass` -> `storage_class`, `FPFastMathMode` -> `fp_fast_math_mode`.
fn snake_case(name: &str) -> String {
    let c: Vec<char> = name.chars().collect();
    let mut s = String::new();
    for (i, &ch) in c.iter().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            let prev = c[i - 1];
            let next_lower = c.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase() || prev.is_ascii_digit() || (prev.is_ascii_uppercase() && next_lower) {
                s.push('_');
            }
        }
        s.push(ch.to_ascii_lowercase());
    }
    s
}

/// The constant for an enumerant: its grammar name, or, when that starts with a
/// digit (`Dim` `1D`), the kind's name and then it (`Dim1D`).
fn const_name(kind: &str, name: &str) -> String {
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{kind}{name}")
    } else {
        name.to_string()
    }
}

fn str_list(v: &[String]) -> String {
    let items: Vec<String> = v.iter().map(|s| format!("{s:?}")).collect();
    format!("&[{}]", items.join(", "))
}

fn generate(dir: &Path) -> Result<String, String> {
    let core = load(&dir.join("spirv.core.grammar.json"))?;
    let kinds = core["operand_kinds"].as_array().ok_or("no operand_kinds")?;

    let mut gr = Gen { core_kinds: BTreeMap::new(), capabilities: BTreeMap::new() };
    for k in kinds {
        let name = str_of(k, "kind");
        gr.core_kinds.insert(name.into(), name.into());
        if name == "Capability" {
            for e in k["enumerants"].as_array().into_iter().flatten() {
                let v = parse_value(&e["value"])?;
                gr.capabilities.insert(str_of(e, "enumerant").into(), v);
                for a in strings(e, "aliases") {
                    gr.capabilities.insert(a, v);
                }
            }
        }
    }

    // Extended instruction sets, in a stable (file name) order.
    let mut ext_files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.starts_with("extinst.") && n.ends_with(".grammar.json")
        })
        .collect();
    ext_files.sort();

    // (variant, grammar name, category, enumerants json, bases)
    let mut all_kinds: Vec<(String, String, String, Vec<Value>, Vec<String>)> = Vec::new();
    for k in kinds {
        let name = str_of(k, "kind").to_string();
        let bases = strings(k, "bases");
        let en = k.get("enumerants").and_then(Value::as_array).cloned().unwrap_or_default();
        all_kinds.push((name.clone(), name, str_of(k, "category").into(), en, bases));
    }
    let mut ext_sets = Vec::new();
    for f in &ext_files {
        let fname = f.file_name().unwrap().to_str().unwrap();
        let stem = fname.trim_start_matches("extinst.").trim_end_matches(".grammar.json");
        let Some((import, prefix, prefix_match, module)) = ext_set_info(stem) else {
            return Err(format!("no import name known for {fname}; add it to ext_set_info"));
        };
        let grammar = load(f)?;
        let mut local = BTreeMap::new();
        for k in grammar.get("operand_kinds").and_then(Value::as_array).into_iter().flatten() {
            let name = str_of(k, "kind").to_string();
            let variant = format!("{prefix}{name}");
            local.insert(name.clone(), variant.clone());
            let en = k.get("enumerants").and_then(Value::as_array).cloned().unwrap_or_default();
            all_kinds.push((variant, name, str_of(k, "category").into(), en, Vec::new()));
        }
        ext_sets.push((import, prefix_match, grammar, local, module));
    }

    let mut out = String::new();
    out.push_str(
        "// @generated by `cargo run -p xtask -- grammar <spirv-headers>`. Do not edit.\n\
         // Source: the SPIR-V headers' spirv.core.grammar.json and extinst.*.grammar.json.\n\
         #![allow(clippy::all)]\n\n\
         use super::*;\n\n",
    );
    writeln!(out, "pub const MAGIC_NUMBER: u32 = {};", parse_value(&core["magic_number"])?).unwrap();
    writeln!(out, "pub const VERSION_MAJOR: u8 = {};", core["major_version"]).unwrap();
    writeln!(out, "pub const VERSION_MINOR: u8 = {};", core["minor_version"]).unwrap();
    writeln!(out, "pub const VERSION_REVISION: u32 = {};\n", core["revision"]).unwrap();

    // The operand kind enum.
    out.push_str("/// Every operand kind of the core grammar and of the extended sets.\n");
    out.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]\n#[repr(u16)]\npub enum OperandKind {\n");
    for (v, ..) in &all_kinds {
        writeln!(out, "    {v},").unwrap();
    }
    out.push_str("}\n\n");

    // Operand kind table, indexed by the enum.
    out.push_str("pub static OPERAND_KINDS: &[OperandKindDesc] = &[\n");
    for (variant, name, cat, en, bases) in &all_kinds {
        // Local kinds of an extended set resolve within their own set.
        let local: BTreeMap<String, String> = ext_sets
            .iter()
            .find(|(_, _, _, l, _)| l.values().any(|v| v == variant))
            .map(|(_, _, _, l, _)| l.clone())
            .unwrap_or_default();
        let mut ens: Vec<(u32, usize, &Value)> = Vec::new();
        for (i, e) in en.iter().enumerate() {
            ens.push((parse_value(&e["value"])?, i, e));
        }
        ens.sort_by_key(|&(v, i, _)| (v, i));
        writeln!(out, "    OperandKindDesc {{ kind: OperandKind::{variant}, name: {name:?}, category: Category::{cat}, bases: &[{}], enumerants: &[",
            bases.iter().map(|b| format!("OperandKind::{b}")).collect::<Vec<_>>().join(", ")).unwrap();
        for (value, _, e) in ens {
            writeln!(
                out,
                "        EnumerantDesc {{ name: {:?}, value: {value:#x}, parameters: {}, capabilities: {}, extensions: {}, version: {}, last_version: {}, aliases: {}, provisional: {} }},",
                str_of(e, "enumerant"),
                gr.operands(e.get("parameters"), &local)?,
                gr.caps(e)?,
                str_list(&strings(e, "extensions")),
                version(e, "version"),
                version(e, "lastVersion"),
                str_list(&strings(e, "aliases")),
                e.get("provisional").and_then(Value::as_bool).unwrap_or(false),
            )
            .unwrap();
        }
        out.push_str("    ] },\n");
    }
    out.push_str("];\n\n");

    // Core instructions, sorted by opcode.
    let mut insts: Vec<&Value> = core["instructions"].as_array().ok_or("no instructions")?.iter().collect();
    insts.sort_by_key(|i| i["opcode"].as_u64());
    let empty = BTreeMap::new();
    out.push_str("/// Every core instruction, sorted by opcode.\npub static INSTRUCTIONS: &[InstructionDesc] = &[\n");
    let mut by_name: Vec<(String, usize)> = Vec::new();
    for (idx, i) in insts.iter().enumerate() {
        let name = str_of(i, "opname");
        by_name.push((name.into(), idx));
        for a in strings(i, "aliases") {
            by_name.push((a, idx));
        }
        writeln!(
            out,
            "    InstructionDesc {{ name: {name:?}, opcode: {}, class: {:?}, operands: {}, capabilities: {}, extensions: {}, version: {}, last_version: {}, aliases: {}, provisional: {} }},",
            i["opcode"],
            str_of(i, "class"),
            gr.operands(i.get("operands"), &empty)?,
            gr.caps(i)?,
            str_list(&strings(i, "extensions")),
            version(i, "version"),
            version(i, "lastVersion"),
            str_list(&strings(i, "aliases")),
            i.get("provisional").and_then(Value::as_bool).unwrap_or(false),
        )
        .unwrap();
    }
    out.push_str("];\n\n");
    by_name.sort();
    by_name.dedup_by(|a, b| a.0 == b.0);
    out.push_str("/// Instruction names and aliases, sorted, with their index in INSTRUCTIONS.\npub static INSTRUCTIONS_BY_NAME: &[(&str, u16)] = &[\n");
    for (n, i) in &by_name {
        writeln!(out, "    ({n:?}, {i}),").unwrap();
    }
    out.push_str("];\n\n");

    out.push_str("/// Every core opcode by its canonical name, for matching in code.\n#[allow(non_upper_case_globals)]\npub mod op {\n");
    for i in &insts {
        writeln!(out, "    pub const {}: u16 = {};", str_of(i, "opname"), i["opcode"]).unwrap();
    }
    out.push_str("}\n\n");

    write_classes(&mut out, &insts);

    // Named constants for the enumerants of every value and bit enum of the core grammar.
    for k in kinds {
        let cat = str_of(k, "category");
        if cat != "ValueEnum" && cat != "BitEnum" {
            continue;
        }
        let kind = str_of(k, "kind");
        let mut ens: Vec<(u32, usize, &Value)> = Vec::new();
        for (i, e) in k["enumerants"].as_array().into_iter().flatten().enumerate() {
            ens.push((parse_value(&e["value"])?, i, e));
        }
        ens.sort_by_key(|&(v, i, _)| (v, i));
        writeln!(
            out,
            "/// The {kind} enumerants by name (aliases included), for matching in code.\n\
             /// A name that starts with a digit gets the kind's name as a prefix (`Dim1D`).\n\
             #[allow(non_upper_case_globals)]\npub mod {} {{",
            snake_case(kind)
        )
        .unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for (value, _, e) in ens {
            let mut names = vec![str_of(e, "enumerant").to_string()];
            names.extend(strings(e, "aliases"));
            for n in names {
                let ident = const_name(kind, &n);
                if seen.insert(ident.clone()) {
                    if cat == "BitEnum" {
                        writeln!(out, "    pub const {ident}: u32 = {value:#x};").unwrap();
                    } else {
                        writeln!(out, "    pub const {ident}: u32 = {value};").unwrap();
                    }
                }
            }
        }
        out.push_str("}\n\n");
    }

    out.push_str("/// The extended instruction sets, by import name.\npub static EXT_INST_SETS: &[ExtInstSetDesc] = &[\n");
    for (import, prefix_match, grammar, local, _) in &ext_sets {
        let mut ins: Vec<&Value> = grammar["instructions"].as_array().into_iter().flatten().collect();
        ins.sort_by_key(|i| i["opcode"].as_u64());
        writeln!(out, "    ExtInstSetDesc {{ name: {import:?}, prefix_match: {prefix_match}, instructions: &[").unwrap();
        for i in ins {
            writeln!(
                out,
                "        ExtInstDesc {{ name: {:?}, opcode: {}, operands: {}, capabilities: {}, extensions: {} }},",
                str_of(i, "opname"),
                i["opcode"],
                gr.operands(i.get("operands"), local)?,
                gr.caps(i)?,
                str_list(&strings(i, "extensions")),
            )
            .unwrap();
        }
        out.push_str("    ] },\n");
    }
    out.push_str("];\n\n");

    out.push_str("/// The instructions of each extended set by name, one module per set, for matching in code.\npub mod ext_inst {\n");
    for (i, (import, _, grammar, _, module)) in ext_sets.iter().enumerate() {
        let mut ins: Vec<&Value> = grammar["instructions"].as_array().into_iter().flatten().collect();
        ins.sort_by_key(|i| i["opcode"].as_u64());
        if i > 0 {
            out.push('\n');
        }
        writeln!(out, "    /// `{import}`.\n    #[allow(non_upper_case_globals)]\n    pub mod {module} {{").unwrap();
        for i in ins {
            writeln!(out, "        pub const {}: u32 = {};", str_of(i, "opname"), i["opcode"]).unwrap();
        }
        out.push_str("    }\n");
    }
    out.push_str("}\n");
    Ok(out)
}

/// The types of `grammar::class`, written as they are into the generated file
/// (the rules that [`op_class`] follows are documented on each variant).
const CLASS_TYPES: &str = r#"    /// The kind of numbers an instruction works on, read from its name: the
    /// letter after the family's prefix (`Op`, `OpAtomic`, `OpGroupNonUniform`,
    /// `OpBitField`), when a capital letter follows it: `I` integers of either
    /// signedness, `S` signed integers, `U` unsigned integers, `F` floats;
    /// `Logical` in the name means Booleans.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Num {
        /// `I`: integers, signedness not read (OpIAdd, OpIEqual, OpAtomicIAdd).
        Int,
        /// `S`: signed integers (OpSDiv, OpSLessThan, OpAtomicSMin).
        Signed,
        /// `U`: unsigned integers (OpUDiv, OpULessThan, OpAtomicUMax).
        Unsigned,
        /// `F`: floats (OpFAdd, OpFOrdEqual, OpAtomicFAddEXT).
        Float,
        /// Booleans (OpLogicalAnd).
        Bool,
    }

    impl Num {
        /// Whether this is one of the integer kinds.
        pub const fn is_int(self) -> bool {
            matches!(self, Num::Int | Num::Signed | Num::Unsigned)
        }
    }

    /// The relation a comparison tests, read from the end of its name.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Relation {
        /// `...Equal`.
        Equal,
        /// `...NotEqual`.
        NotEqual,
        /// `...LessThan`.
        Less,
        /// `...LessThanEqual`.
        LessEqual,
        /// `...GreaterThan`.
        Greater,
        /// `...GreaterThanEqual`.
        GreaterEqual,
    }

    impl Relation {
        /// Whether `a` stands in this relation to `b` (as Rust's operators
        /// compare: every relation but `NotEqual` is false when a float is NaN).
        #[inline(always)]
        pub fn holds<T: PartialOrd>(self, a: T, b: T) -> bool {
            match self {
                Relation::Equal => a == b,
                Relation::NotEqual => a != b,
                Relation::Less => a < b,
                Relation::LessEqual => a <= b,
                Relation::Greater => a > b,
                Relation::GreaterEqual => a >= b,
            }
        }
    }

    /// A float comparison's treatment of NaN, read from its name.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Order {
        /// `OpFOrd...`: false when an operand is NaN.
        Ordered,
        /// `OpFUnord...`: true when an operand is NaN.
        Unordered,
        /// Neither in the name (OpLessOrGreater, OpOrdered, OpUnordered), and
        /// the integer comparisons.
        Unnamed,
    }

    /// What an atomic instruction does (grammar class `Atomic`), read from the
    /// name after `OpAtomic`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Atomic {
        /// `Load`.
        Load,
        /// `Store` (no result).
        Store,
        /// `Exchange`.
        Exchange,
        /// `CompareExchange...` (OpAtomicCompareExchange, OpAtomicCompareExchangeWeak).
        CompareExchange,
        /// `Flag...` with a result (OpAtomicFlagTestAndSet).
        FlagTestAndSet,
        /// `Flag...` without a result (OpAtomicFlagClear).
        FlagClear,
        /// Any other name: a read-modify-write on the kind of number its type
        /// letter names, integers when it has none (OpAtomicAnd); `value`:
        /// whether a Value operand follows the Memory Semantics
        /// (OpAtomicIAdd, not OpAtomicIIncrement).
        Modify { num: Num, value: bool },
    }

    /// The finer class of an instruction, derived from the grammar by the rule
    /// written on each variant (its class, its name, its operand kinds; value
    /// operands are the `IdRef` operands after the result). Instructions no
    /// rule takes are [`OpClass::Other`].
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum OpClass {
        /// No finer class.
        Other,
        /// Class `Arithmetic`, a type letter, one or two value operands, a name
        /// not ending in `Carry`, `Borrow` or `Extended`: OpIAdd, OpSDiv, OpFMul,
        /// OpSNegate.
        Arith(Num),
        /// Class `Arithmetic`, a name ending in `Carry`, `Borrow` or `Extended`
        /// (a result struct of two members): OpIAddCarry, OpUMulExtended.
        ArithExtended(Num),
        /// Class `Arithmetic`, no type letter, two value operands and nothing
        /// else: the vector and matrix products (OpVectorTimesScalar,
        /// OpMatrixTimesMatrix, OpOuterProduct, OpDot).
        LinearAlgebra,
        /// Class `Bit`, a name starting with `OpShift`: `Left` shifts integers,
        /// `RightLogical` shifts in zeros (Unsigned), `RightArithmetic` copies
        /// the sign (Signed).
        Shift(Num),
        /// Class `Bit`, `OpBitwise` then `And`, `Or` or `Xor` with two value
        /// operands (`unary` false), or `OpNot` (`unary` true).
        Bitwise { unary: bool },
        /// Class `Bit`, a name starting with `OpBitField`; the type letter
        /// after it, `Int` for `Insert`.
        BitField(Num),
        /// Class `Bit`, `OpBitReverse` and `OpBitCount`: one value operand,
        /// integers of any signedness.
        BitScan,
        /// Class `Relational_and_Logical` with two value operands and a type
        /// letter: `I`, `S`, `U` then a relation (OpIEqual, OpSLessThan,
        /// OpUGreaterThanEqual), `F` then `Ord` or `Unord` then a relation
        /// (OpFOrdEqual, OpFUnordLessThan); with no type letter and not
        /// `OpLogical...`, a float comparison without a relation in its name
        /// (OpLessOrGreater, OpOrdered, OpUnordered).
        Compare { num: Num, order: Order, relation: Option<Relation> },
        /// Class `Relational_and_Logical`, one value operand, not `OpLogical`,
        /// `OpAny` or `OpAll`: a test of a float (OpIsNan, OpIsInf,
        /// OpIsFinite, OpIsNormal, OpSignBitSet).
        FloatTest,
        /// Class `Relational_and_Logical`, `OpAny` and `OpAll`: a Boolean
        /// vector reduced to a scalar.
        BoolReduce,
        /// Class `Relational_and_Logical`, a name starting with `OpLogical`:
        /// two Boolean operands (`unary` false) or one (OpLogicalNot).
        Logical { unary: bool },
        /// Class `Relational_and_Logical`, three value operands (OpSelect).
        Select,
        /// Class `Conversion`, `Op` then a type letter then `Convert`
        /// (OpUConvert, OpSConvert, OpFConvert: `from` = `to`), or
        /// `OpConvert` then a type letter, `To`, a type letter
        /// (OpConvertFToU, OpConvertSToF).
        Convert { from: Num, to: Num },
        /// Class `Conversion`, `OpBitcast`.
        Bitcast,
        /// Class `Atomic`.
        Atomic(Atomic),
        /// A name starting with `OpGroupNonUniform` with an `IdScope` operand:
        /// the non-uniform group operations that take an Execution scope.
        NonUniformGroup,
        /// Class `Constant-Creation`; `spec`: a name starting with `OpSpec`.
        Constant { spec: bool },
    }

    impl OpClass {
        /// Whether this is an atomic instruction (spirv-val's spvOpcodeIsAtomicOp).
        pub const fn is_atomic(self) -> bool {
            matches!(self, OpClass::Atomic(_))
        }
    }
"#;

/// The type letter of `rest` (a name after its family's prefix): `I`, `S`,
/// `U` or `F` followed by a capital letter (see `Num` in [`CLASS_TYPES`]).
fn type_letter(rest: &str) -> Option<(&'static str, &str)> {
    let mut c = rest.chars();
    let num = match c.next()? {
        'I' => "Num::Int",
        'S' => "Num::Signed",
        'U' => "Num::Unsigned",
        'F' => "Num::Float",
        _ => return None,
    };
    c.next().filter(char::is_ascii_uppercase)?;
    Some((num, &rest[1..]))
}

fn relation(rest: &str) -> Option<&'static str> {
    Some(match rest {
        "Equal" => "Relation::Equal",
        "NotEqual" => "Relation::NotEqual",
        "LessThan" => "Relation::Less",
        "LessThanEqual" => "Relation::LessEqual",
        "GreaterThan" => "Relation::Greater",
        "GreaterThanEqual" => "Relation::GreaterEqual",
        _ => return None,
    })
}

/// The finer class of instruction `i` of the core grammar, as the expression
/// to write, by the rules documented on `OpClass` in [`CLASS_TYPES`]; `None`
/// for `OpClass::Other`.
fn op_class(i: &Value) -> Option<String> {
    let name = str_of(i, "opname");
    let class = str_of(i, "class");
    let kinds: Vec<&str> = i
        .get("operands")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|o| str_of(o, "kind"))
        .collect();
    let has_result = kinds.contains(&"IdResult");
    let values = kinds.iter().filter(|&&k| k == "IdRef").count();
    let only_values = kinds.iter().all(|&k| matches!(k, "IdResultType" | "IdResult" | "IdRef"));
    let rest = name.strip_prefix("Op")?;
    if name.starts_with("OpGroupNonUniform") && kinds.contains(&"IdScope") {
        return Some("OpClass::NonUniformGroup".into());
    }
    match class {
        "Arithmetic" => {
            let extended = ["Carry", "Borrow", "Extended"].iter().any(|s| name.ends_with(s));
            match type_letter(rest) {
                Some((num, _)) if extended => Some(format!("OpClass::ArithExtended({num})")),
                Some((num, _)) if only_values && (1..=2).contains(&values) => Some(format!("OpClass::Arith({num})")),
                None if only_values && values == 2 => Some("OpClass::LinearAlgebra".into()),
                _ => None,
            }
        }
        "Bit" => {
            if let Some(dir) = rest.strip_prefix("Shift") {
                let num = match dir {
                    "LeftLogical" => "Num::Int",
                    "RightLogical" => "Num::Unsigned",
                    "RightArithmetic" => "Num::Signed",
                    _ => return None,
                };
                Some(format!("OpClass::Shift({num})"))
            } else if let Some(f) = rest.strip_prefix("Bitwise") {
                (matches!(f, "And" | "Or" | "Xor") && values == 2).then(|| "OpClass::Bitwise { unary: false }".into())
            } else if rest == "Not" {
                Some("OpClass::Bitwise { unary: true }".into())
            } else if let Some(f) = rest.strip_prefix("BitField") {
                let num = if f == "Insert" { "Num::Int" } else { type_letter(f)?.0 };
                Some(format!("OpClass::BitField({num})"))
            } else if rest.starts_with("Bit") && only_values && values == 1 {
                Some("OpClass::BitScan".into())
            } else {
                None
            }
        }
        "Relational_and_Logical" => {
            if !only_values {
                return None;
            }
            if rest.starts_with("Logical") {
                return Some(format!("OpClass::Logical {{ unary: {} }}", values == 1));
            }
            match (values, type_letter(rest)) {
                (3, None) => Some("OpClass::Select".into()),
                (2, Some(("Num::Float", after))) => {
                    let (order, rel) = if let Some(r) = after.strip_prefix("Ord") {
                        ("Order::Ordered", r)
                    } else {
                        ("Order::Unordered", after.strip_prefix("Unord")?)
                    };
                    Some(format!(
                        "OpClass::Compare {{ num: Num::Float, order: {order}, relation: Some({}) }}",
                        relation(rel)?
                    ))
                }
                (2, Some((num, after))) => Some(format!(
                    "OpClass::Compare {{ num: {num}, order: Order::Unnamed, relation: Some({}) }}",
                    relation(after)?
                )),
                (2, None) => Some("OpClass::Compare { num: Num::Float, order: Order::Unnamed, relation: None }".into()),
                (1, None) if matches!(rest, "Any" | "All") => Some("OpClass::BoolReduce".into()),
                (1, None) => Some("OpClass::FloatTest".into()),
                _ => None,
            }
        }
        "Conversion" => {
            if rest == "Bitcast" {
                return Some("OpClass::Bitcast".into());
            }
            if !only_values || values != 1 {
                return None;
            }
            if let Some(ft) = rest.strip_prefix("Convert") {
                let (from, t) = type_letter(ft)?;
                // The last letter ends the name, with no capital after it.
                let to = match t.strip_prefix("To")? {
                    "I" => "Num::Int",
                    "S" => "Num::Signed",
                    "U" => "Num::Unsigned",
                    "F" => "Num::Float",
                    _ => return None,
                };
                return Some(format!("OpClass::Convert {{ from: {from}, to: {to} }}"));
            }
            let (num, after) = type_letter(rest)?;
            (after == "Convert").then(|| format!("OpClass::Convert {{ from: {num}, to: {num} }}"))
        }
        "Atomic" => {
            let what = rest.strip_prefix("Atomic")?;
            let sems = kinds.iter().rposition(|&k| k == "IdMemorySemantics")?;
            let value = kinds[sems + 1..].contains(&"IdRef");
            let a = match what {
                "Load" => "Atomic::Load".into(),
                "Store" => "Atomic::Store".into(),
                "Exchange" => "Atomic::Exchange".into(),
                _ if what.starts_with("CompareExchange") => "Atomic::CompareExchange".into(),
                _ if what.starts_with("Flag") && has_result => "Atomic::FlagTestAndSet".into(),
                _ if what.starts_with("Flag") => "Atomic::FlagClear".into(),
                _ => {
                    let num = type_letter(what).map_or("Num::Int", |(n, _)| n);
                    format!("Atomic::Modify {{ num: {num}, value: {value} }}")
                }
            };
            Some(format!("OpClass::Atomic({a})"))
        }
        "Constant-Creation" => Some(format!("OpClass::Constant {{ spec: {} }}", rest.starts_with("Spec"))),
        _ => None,
    }
}

/// The `Family` variant of a grammar class (`Relational_and_Logical` ->
/// `RelationalAndLogical`, `@exclude` -> `Exclude`).
fn family_variant(class: &str) -> String {
    class
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect()
}

/// `grammar::class`: the grammar's class of every core instruction
/// (`family`) and the finer classes derived from it (`of`).
fn write_classes(out: &mut String, insts: &[&Value]) {
    out.push_str(
        "/// Instruction classes: the grammar's `class` of every core instruction\n\
         /// ([`class::family`]) and the finer classes the interpreter, the validator and\n\
         /// the lowering share ([`class::of`]), derived from the grammar by the rules\n\
         /// written on [`class::OpClass`].\n\
         pub mod class {\n    use super::op;\n\n",
    );
    let mut families: Vec<(String, String)> = insts
        .iter()
        .map(|i| (family_variant(str_of(i, "class")), str_of(i, "class").to_string()))
        .collect();
    families.sort();
    families.dedup();
    out.push_str("    /// The grammar's instruction classes (its `class` field).\n");
    out.push_str("    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\n    pub enum Family {\n");
    for (v, c) in &families {
        writeln!(out, "        /// `{c}`.\n        {v},").unwrap();
    }
    out.push_str("        /// An opcode the grammar does not have.\n        Unknown,\n    }\n\n");
    out.push_str(CLASS_TYPES);
    out.push_str("\n    /// The grammar's class of `opcode`.\n    pub const fn family(opcode: u16) -> Family {\n        match opcode {\n");
    for i in insts {
        writeln!(out, "            op::{} => Family::{},", str_of(i, "opname"), family_variant(str_of(i, "class"))).unwrap();
    }
    out.push_str("            _ => Family::Unknown,\n        }\n    }\n\n");
    out.push_str("    /// The finer class of `opcode` ([`OpClass::Other`] when no rule takes it).\n    pub const fn of(opcode: u16) -> OpClass {\n        match opcode {\n");
    for i in insts {
        if let Some(c) = op_class(i) {
            writeln!(out, "            op::{} => {c},", str_of(i, "opname")).unwrap();
        }
    }
    out.push_str("            _ => OpClass::Other,\n        }\n    }\n}\n\n");
}
