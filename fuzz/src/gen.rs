//! The big benchmark module: a deterministic, valid SPIR-V assembly text of any size.
//!
//! It exercises many instruction forms: types of every scalar width, vectors,
//! a matrix, arrays, structs, pointers; constants of every width (8/16/32/64-bit
//! integers, 16/32/64-bit floats in decimal and hex forms), composite, null and
//! spec constants; strings, names, decorations; functions with many blocks, loops
//! with `OpLoopMerge`, switches, if/else with `OpPhi`, `OpExtInst` from
//! GLSL.std.450, conversions between widths, vector and matrix arithmetic, access
//! chains, calls, `OpLine`/`OpNoLine`. The reference spirv-as and spirv-val
//! (at the default spv1.6) accept it.

use crate::rng::Rng;
use std::fmt::Write;

/// Emit an instruction aligned like spirv-dis: result ids right-aligned so the
/// opcodes start at column 16.
fn line(out: &mut String, result: Option<&str>, body: std::fmt::Arguments) {
    match result {
        Some(r) => {
            let _ = write!(out, "{:>12} = ", format!("%{r}"));
        }
        None => out.push_str("               "),
    }
    let _ = out.write_fmt(body);
    out.push('\n');
}

macro_rules! op {
    ($out:expr, $res:expr => $($arg:tt)*) => { line($out, Some(&*$res), format_args!($($arg)*)) };
    ($out:expr, $($arg:tt)*) => { line($out, None, format_args!($($arg)*)) };
}

const STRINGS: &[&str] = &[
    "big.comp",
    "a string with \\\"quotes\\\" and a \\\\ backslash",
    "unicode: \u{e9}t\u{e9}, \u{3bb}-calculus, \u{1F980}",
    "#version 450",
    "",
    "tabs\tand spaces   inside",
];

struct Sections {
    debug_strings: String,
    names: String,
    annotations: String,
    globals: String,
    functions: String,
}

/// Decimal float text that is exact in 16 bits: k/4 for small k.
fn half_value(rng: &mut Rng) -> String {
    let k = rng.below(400) as i32 - 200;
    format!("{}", k as f32 / 4.0)
}

fn float_value(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => format!("{}", (rng.below(2_000_000) as f32 - 1_000_000.0) / 1024.0),
        1 => format!("{:e}", (rng.below(1000) as f32 + 1.0) * 1e-7),
        2 => format!(
            "0x1.{:06x}p{:+}",
            (rng.next_u32() & 0x7F_FFFF) << 1,
            rng.below(60) as i32 - 30
        ),
        _ => format!("-{}.{}", rng.below(100), rng.below(1000)),
    }
}

fn double_value(rng: &mut Rng) -> String {
    match rng.below(3) {
        0 => format!("{:e}", (rng.below(1_000_000) as f64 + 0.5) * 1e280),
        1 => format!(
            "0x1.{:013x}p{:+}",
            rng.next_u64() & 0xF_FFFF_FFFF_FFFF,
            rng.below(2000) as i32 - 1000
        ),
        _ => format!("{}", (rng.next_u32() as f64) / 3.0),
    }
}

/// Generate a module of at least `min_bytes` bytes of text.
pub fn big_module(seed: u64, min_bytes: usize) -> String {
    let mut rng = Rng::new(seed);
    let mut s = Sections {
        debug_strings: String::new(),
        names: String::new(),
        annotations: String::new(),
        globals: String::new(),
        functions: String::new(),
    };
    fixed_globals(&mut s);
    // The functions, each calling the one before (no recursion), until the text is big enough.
    let mut n = 0usize;
    let mut total = 0usize;
    let mut prev: Option<String> = None;
    let mut calls = Vec::new();
    while total < min_bytes || n == 0 {
        let before = s.debug_strings.len()
            + s.names.len()
            + s.annotations.len()
            + s.globals.len()
            + s.functions.len();
        let name = format!("f{n}");
        function(&mut s, &mut rng, &name, prev.as_deref(), n);
        calls.push(name.clone());
        prev = if n % 8 == 7 { None } else { Some(name) };
        n += 1;
        let after = s.debug_strings.len()
            + s.names.len()
            + s.annotations.len()
            + s.globals.len()
            + s.functions.len();
        total += after - before;
    }
    main_function(&mut s, &calls);

    let mut out = String::with_capacity(total + 64 * 1024);
    let _ = writeln!(
        out,
        "; SPIR-V benchmark module made by spvlab gen-big (seed {seed}, {n} functions)"
    );
    for cap in ["Shader", "Float16", "Float64", "Int8", "Int16", "Int64"] {
        op!(&mut out, "OpCapability {cap}");
    }
    op!(
        &mut out,
        "OpExtension \"SPV_KHR_storage_buffer_storage_class\""
    );
    op!(&mut out, "glsl" => "OpExtInstImport \"GLSL.std.450\"");
    op!(&mut out, "OpMemoryModel Logical GLSL450");
    op!(&mut out, "OpEntryPoint GLCompute %main \"main\" %gid %buf");
    op!(&mut out, "OpExecutionMode %main LocalSize 64 1 1");
    out.push_str(&s.debug_strings);
    op!(
        &mut out,
        "OpSource GLSL 450 %str0 \"#version 450\\nvoid main() {{}}\""
    );
    op!(
        &mut out,
        "OpSourceExtension \"GL_EXT_shader_explicit_arithmetic_types\""
    );
    out.push_str(&s.names);
    op!(&mut out, "OpModuleProcessed \"spvlab gen-big\"");
    out.push_str(&s.annotations);
    out.push_str(&s.globals);
    out.push_str(&s.functions);
    out
}

fn fixed_globals(s: &mut Sections) {
    let d = &mut s.debug_strings;
    for (i, t) in STRINGS.iter().enumerate() {
        op!(d, format!("str{i}") => "OpString \"{t}\"");
    }
    let nm = &mut s.names;
    op!(nm, "OpName %main \"main\"");
    op!(nm, "OpName %gid \"gl_GlobalInvocationID\"");
    op!(nm, "OpName %Buf \"Buf\"");
    op!(nm, "OpMemberName %Buf 0 \"data\"");
    op!(nm, "OpName %S \"S\"");
    for (i, m) in ["x", "n", "v", "arr"].iter().enumerate() {
        op!(nm, "OpMemberName %S {i} \"{m}\"");
    }
    op!(nm, "OpName %buf \"buf\"");
    let a = &mut s.annotations;
    op!(a, "OpDecorate %gid BuiltIn GlobalInvocationId");
    op!(a, "OpDecorate %_rt_float ArrayStride 4");
    op!(a, "OpMemberDecorate %Buf 0 Offset 0");
    op!(a, "OpDecorate %Buf Block");
    op!(a, "OpDecorate %buf DescriptorSet 0");
    op!(a, "OpDecorate %buf Binding 1");
    op!(a, "OpDecorate %sc_n SpecId 7");
    op!(a, "OpDecorate %sc_t SpecId 8");
    let g = &mut s.globals;
    let t = |g: &mut String, n: &str, body: &str| line(g, Some(n), format_args!("{body}"));
    t(g, "void", "OpTypeVoid");
    t(g, "bool", "OpTypeBool");
    t(g, "i8", "OpTypeInt 8 1");
    t(g, "u8", "OpTypeInt 8 0");
    t(g, "i16", "OpTypeInt 16 1");
    t(g, "u16", "OpTypeInt 16 0");
    t(g, "int", "OpTypeInt 32 1");
    t(g, "uint", "OpTypeInt 32 0");
    t(g, "i64", "OpTypeInt 64 1");
    t(g, "u64", "OpTypeInt 64 0");
    t(g, "half", "OpTypeFloat 16");
    t(g, "float", "OpTypeFloat 32");
    t(g, "double", "OpTypeFloat 64");
    t(g, "v2float", "OpTypeVector %float 2");
    t(g, "v3uint", "OpTypeVector %uint 3");
    t(g, "v4float", "OpTypeVector %float 4");
    t(g, "v4bool", "OpTypeVector %bool 4");
    t(g, "v2double", "OpTypeVector %double 2");
    t(g, "mat4", "OpTypeMatrix %v4float 4");
    t(g, "uint_16", "OpConstant %uint 16");
    t(g, "arr16", "OpTypeArray %float %uint_16");
    t(g, "S", "OpTypeStruct %float %int %v4float %arr16");
    t(g, "_rt_float", "OpTypeRuntimeArray %float");
    t(g, "Buf", "OpTypeStruct %_rt_float");
    t(g, "p_sb_Buf", "OpTypePointer StorageBuffer %Buf");
    t(g, "p_sb_float", "OpTypePointer StorageBuffer %float");
    t(g, "p_in_v3uint", "OpTypePointer Input %v3uint");
    t(g, "p_fn_float", "OpTypePointer Function %float");
    t(g, "p_fn_int", "OpTypePointer Function %int");
    t(g, "p_fn_S", "OpTypePointer Function %S");
    t(g, "fn_void", "OpTypeFunction %void");
    t(g, "fn_f_fi", "OpTypeFunction %float %float %int");
    t(g, "true", "OpConstantTrue %bool");
    t(g, "false", "OpConstantFalse %bool");
    t(g, "int_0", "OpConstant %int 0");
    t(g, "int_1", "OpConstant %int 1");
    t(g, "int_2", "OpConstant %int 2");
    t(g, "int_3", "OpConstant %int 3");
    t(g, "int_min", "OpConstant %int -2147483648");
    t(g, "uint_0", "OpConstant %uint 0");
    t(g, "uint_3", "OpConstant %uint 3");
    t(g, "uint_max", "OpConstant %uint 4294967295");
    t(g, "i8_min", "OpConstant %i8 -128");
    t(g, "u8_max", "OpConstant %u8 255");
    t(g, "i16_min", "OpConstant %i16 -32768");
    t(g, "u16_max", "OpConstant %u16 0xffff");
    t(g, "i64_min", "OpConstant %i64 -9223372036854775808");
    t(g, "i64_3", "OpConstant %i64 3");
    t(g, "u64_max", "OpConstant %u64 18446744073709551615");
    t(g, "half_max", "OpConstant %half 65504");
    t(g, "half_hex", "OpConstant %half -0x1.8p-3");
    t(g, "float_0", "OpConstant %float 0");
    t(g, "float_1", "OpConstant %float 1");
    t(g, "float_n0", "OpConstant %float -0.0");
    t(g, "float_big", "OpConstant %float 3.40282347e+38");
    t(g, "float_tiny", "OpConstant %float 0x1p-149");
    t(g, "double_pi", "OpConstant %double 3.141592653589793");
    t(g, "double_min", "OpConstant %double 0x1p-1074");
    t(
        g,
        "v4_a",
        "OpConstantComposite %v4float %float_1 %float_0 %float_n0 %float_1",
    );
    t(
        g,
        "v4_b",
        "OpConstantComposite %v4float %float_0 %float_1 %float_1 %float_big",
    );
    t(
        g,
        "mat_c",
        "OpConstantComposite %mat4 %v4_a %v4_b %v4_a %v4_b",
    );
    t(
        g,
        "v2d",
        "OpConstantComposite %v2double %double_pi %double_min",
    );
    t(g, "null_S", "OpConstantNull %S");
    t(g, "null_v4", "OpConstantNull %v4float");
    t(g, "sc_n", "OpSpecConstant %int 8");
    t(g, "sc_t", "OpSpecConstantTrue %bool");
    t(g, "sc_op", "OpSpecConstantOp %int IAdd %sc_n %int_1");
    t(g, "undef_f", "OpUndef %float");
    t(g, "gid", "OpVariable %p_in_v3uint Input");
    t(g, "buf", "OpVariable %p_sb_Buf StorageBuffer");
}

/// One segment of a loop body: arithmetic in every width, a switch and an if/else
/// joined by `OpPhi`. Returns the name of its result (a float).
fn segment(
    s: &mut Sections,
    rng: &mut Rng,
    p: &str,
    acc: &str,
    i: &str,
    var_s: &str,
    line_no: usize,
) -> String {
    // Module-level constants for this segment.
    let g = &mut s.globals;
    op!(g, format!("{p}kf") => "OpConstant %float {}", float_value(rng));
    op!(g, format!("{p}kd") => "OpConstant %double {}", double_value(rng));
    op!(g, format!("{p}kh") => "OpConstant %half {}", half_value(rng));
    op!(g, format!("{p}kl") => "OpConstant %i64 {}", rng.next_u64() as i64 >> rng.below(40));
    op!(g, format!("{p}ks") => "OpConstant %i16 {}", rng.next_u32() as i16);
    op!(g, format!("{p}kb") => "OpConstant %u8 {}", rng.next_u32() as u8);
    let a = &mut s.annotations;
    op!(a, "OpDecorate %{p}a NoContraction");
    op!(a, "OpDecorate %{p}b RelaxedPrecision");
    let nm = &mut s.names;
    op!(nm, "OpName %{p}out \"{p}out\"");

    let f = &mut s.functions;
    let n = |x: &str| format!("{p}{x}");
    op!(f, n("a") => "OpFMul %float %{acc} %{p}kf");
    op!(f, n("b") => "OpExtInst %float %glsl Sin %{p}a");
    op!(f, n("c") => "OpExtInst %float %glsl FClamp %{p}b %float_0 %float_1");
    op!(f, n("d") => "OpFConvert %double %{p}c");
    op!(f, n("e") => "OpExtInst %double %glsl FAbs %{p}d");
    op!(f, n("f") => "OpFMul %double %{p}e %{p}kd");
    op!(f, n("g") => "OpFConvert %half %{p}c");
    op!(f, n("h") => "OpFAdd %half %{p}g %{p}kh");
    op!(f, n("h2") => "OpFConvert %float %{p}h");
    op!(f, n("i") => "OpConvertFToS %int %{p}c");
    op!(f, n("j") => "OpSConvert %i64 %{i}");
    op!(f, n("k") => "OpIMul %i64 %{p}j %{p}kl");
    op!(f, n("l") => "OpShiftRightArithmetic %i64 %{p}k %i64_3");
    op!(f, n("m") => "OpSConvert %i16 %{p}l");
    op!(f, n("m2") => "OpBitwiseXor %i16 %{p}m %{p}ks");
    op!(f, n("m3") => "OpBitcast %u16 %{p}m2");
    op!(f, n("o") => "OpUConvert %u8 %{p}m3");
    op!(f, n("o2") => "OpIAdd %u8 %{p}o %{p}kb");
    op!(f, n("q") => "OpUConvert %uint %{p}o2");
    op!(f, n("r") => "OpBitwiseAnd %uint %{p}q %uint_3");
    op!(f, n("v") => "OpCompositeConstruct %v4float %{p}a %{p}b %{p}c %{p}h2");
    op!(f, n("w") => "OpVectorTimesScalar %v4float %{p}v %{p}a");
    op!(f, n("x") => "OpMatrixTimesVector %v4float %mat_c %{p}w");
    op!(f, n("y") => "OpDot %float %{p}x %{p}v");
    op!(f, n("z") => "OpVectorShuffle %v2float %{p}x %{p}w 0 5");
    op!(f, n("z2") => "OpCompositeExtract %float %{p}z 1");
    op!(f, n("vb") => "OpFOrdGreaterThan %v4bool %{p}x %{p}v");
    op!(f, n("any") => "OpAny %bool %{p}vb");
    op!(f, n("cmp") => "OpFOrdLessThan %bool %{p}y %{p}z2");
    op!(f, n("both") => "OpLogicalAnd %bool %{p}cmp %{p}any");
    op!(f, n("sel") => "OpSelect %float %{p}both %{p}y %{p}z2");
    op!(f, n("ins") => "OpCompositeInsert %v4float %{p}sel %{p}w 2");
    op!(f, n("bits") => "OpBitCount %uint %{p}q");
    op!(f, n("fd") => "OpFConvert %float %{p}f");
    let sel_ctl = ["None", "Flatten", "DontFlatten"][rng.below(3)];
    op!(f, "OpSelectionMerge %{p}swm {sel_ctl}");
    op!(f, "OpSwitch %{p}r %{p}def 0 %{p}c0 1 %{p}c1 2 %{p}c2");
    op!(f, n("c0") => "OpLabel");
    op!(f, n("c0v") => "OpFAdd %float %{p}sel %{p}fd");
    op!(f, "OpBranch %{p}swm");
    op!(f, n("c1") => "OpLabel");
    op!(f, n("c1v") => "OpExtInst %float %glsl Pow %{p}sel %{p}h2");
    op!(f, "OpBranch %{p}swm");
    op!(f, n("c2") => "OpLabel");
    op!(f, n("c2v") => "OpExtInst %float %glsl Fma %{p}sel %{p}a %{p}b");
    op!(f, "OpBranch %{p}swm");
    op!(f, n("def") => "OpLabel");
    op!(f, "OpBranch %{p}swm");
    op!(f, n("swm") => "OpLabel");
    op!(f, n("phi") => "OpPhi %float %{p}c0v %{p}c0 %{p}c1v %{p}c1 %{p}c2v %{p}c2 %{p}sel %{p}def");
    op!(f, "OpLine %str0 {line_no} {}", 1 + line_no % 80);
    op!(f, n("ifc") => "OpSLessThan %bool %{p}i %int_0");
    op!(f, "OpSelectionMerge %{p}ifm None");
    op!(f, "OpBranchConditional %{p}ifc %{p}then %{p}else");
    op!(f, n("then") => "OpLabel");
    op!(f, n("t") => "OpFNegate %float %{p}phi");
    op!(f, n("ac") => "OpAccessChain %p_fn_float %{var_s} %int_3 %{p}r");
    op!(f, "OpStore %{p}ac %{p}t");
    op!(f, "OpBranch %{p}ifm");
    op!(f, n("else") => "OpLabel");
    op!(f, n("sq") => "OpExtInst %float %glsl Sqrt %{p}phi");
    op!(f, n("el") => "OpVectorExtractDynamic %float %{p}ins %{p}r");
    op!(f, n("e2") => "OpFSub %float %{p}sq %{p}el");
    op!(f, "OpBranch %{p}ifm");
    op!(f, n("ifm") => "OpLabel");
    op!(f, n("out") => "OpPhi %float %{p}t %{p}then %{p}e2 %{p}else");
    op!(f, "OpNoLine");
    n("out")
}

fn function(s: &mut Sections, rng: &mut Rng, name: &str, callee: Option<&str>, index: usize) {
    let nm = &mut s.names;
    op!(nm, "OpName %{name} \"{name}(f1;i1;)\"");
    op!(nm, "OpName %{name}_x \"x\"");
    op!(nm, "OpName %{name}_n \"n\"");
    op!(nm, "OpName %{name}_vs \"s\"");
    let f = &mut s.functions;
    let ctl = ["None", "Inline", "DontInline", "Pure", "Const"][index % 5];
    let fctl = if ctl == "Pure" || ctl == "Const" {
        "None"
    } else {
        ctl
    };
    op!(f, name => "OpFunction %float {fctl} %fn_f_fi");
    op!(f, format!("{name}_x") => "OpFunctionParameter %float");
    op!(f, format!("{name}_n") => "OpFunctionParameter %int");
    op!(f, format!("{name}_entry") => "OpLabel");
    op!(f, format!("{name}_vs") => "OpVariable %p_fn_S Function %null_S");
    op!(f, format!("{name}_vacc") => "OpVariable %p_fn_float Function");
    op!(f, format!("{name}_vi") => "OpVariable %p_fn_int Function");
    op!(f, "OpStore %{name}_vacc %{name}_x");
    op!(f, "OpStore %{name}_vi %int_0");
    op!(f, "OpBranch %{name}_hdr");
    op!(f, format!("{name}_hdr") => "OpLabel");
    let loop_ctl = ["None", "Unroll", "DontUnroll"][rng.below(3)];
    op!(f, "OpLoopMerge %{name}_lmerge %{name}_lcont {loop_ctl}");
    op!(f, "OpBranch %{name}_lcond");
    op!(f, format!("{name}_lcond") => "OpLabel");
    op!(f, format!("{name}_i") => "OpLoad %int %{name}_vi");
    op!(f, format!("{name}_lc") => "OpSLessThan %bool %{name}_i %{name}_n");
    op!(
        f,
        "OpBranchConditional %{name}_lc %{name}_body %{name}_lmerge"
    );
    op!(f, format!("{name}_body") => "OpLabel");
    op!(f, format!("{name}_acc0") => "OpLoad %float %{name}_vacc");
    let mut acc = format!("{name}_acc0");
    let i = format!("{name}_i");
    let vs = format!("{name}_vs");
    let segments = 6 + rng.below(5);
    for k in 0..segments {
        let p = format!("{name}s{k}");
        acc = segment(s, rng, &p, &acc, &i, &vs, index * 16 + k + 1);
    }
    let f = &mut s.functions;
    op!(f, "OpStore %{name}_vacc %{acc}");
    op!(f, "OpBranch %{name}_lcont");
    op!(f, format!("{name}_lcont") => "OpLabel");
    op!(f, format!("{name}_ic") => "OpLoad %int %{name}_vi");
    op!(f, format!("{name}_in") => "OpIAdd %int %{name}_ic %int_1");
    op!(f, "OpStore %{name}_vi %{name}_in");
    op!(f, "OpBranch %{name}_hdr");
    op!(f, format!("{name}_lmerge") => "OpLabel");
    op!(f, format!("{name}_r") => "OpLoad %float %{name}_vacc");
    let ret = match callee {
        Some(c) => {
            op!(f, format!("{name}_call") => "OpFunctionCall %float %{c} %{name}_r %sc_op");
            format!("{name}_call")
        }
        None => format!("{name}_r"),
    };
    op!(f, "OpReturnValue %{ret}");
    op!(f, "OpFunctionEnd");
}

fn main_function(s: &mut Sections, calls: &[String]) {
    let f = &mut s.functions;
    op!(f, "main" => "OpFunction %void None %fn_void");
    op!(f, "main_entry" => "OpLabel");
    op!(f, "gidv" => "OpLoad %v3uint %gid");
    op!(f, "gx" => "OpCompositeExtract %uint %gidv 0");
    op!(f, "gxi" => "OpBitcast %int %gx");
    op!(f, "x0" => "OpConvertSToF %float %gxi");
    let mut acc = "x0".to_string();
    for (k, c) in calls.iter().enumerate() {
        op!(f, format!("m{k}") => "OpFunctionCall %float %{c} %{acc} %gxi");
        op!(f, format!("ms{k}") => "OpFAdd %float %m{k} %{acc}");
        acc = format!("ms{k}");
    }
    op!(f, "dst" => "OpAccessChain %p_sb_float %buf %int_0 %gx");
    op!(f, "OpStore %dst %{acc}");
    op!(f, "OpReturn");
    op!(f, "OpFunctionEnd");
}

#[cfg(test)]
mod tests {
    #[test]
    fn deterministic_and_sized() {
        let a = super::big_module(5, 200_000);
        let b = super::big_module(5, 200_000);
        assert_eq!(a, b);
        assert!(a.len() >= 200_000);
        assert_ne!(a, super::big_module(6, 200_000));
        for form in [
            "OpLoopMerge",
            "OpSwitch",
            "OpExtInst %float %glsl",
            "OpString",
            "OpConstant %half",
            "OpConstant %i64",
            "OpPhi",
        ] {
            assert!(a.contains(form), "missing {form}");
        }
    }
}
