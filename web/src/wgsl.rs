//! Our WGSL lowering for the page (the WGSL tab) and for the GPU run:
//! [`lower`] is the one call both make (`spvlab_gpu::wgsl_of` for
//! `session.runGpu` and the CLI's `wgpu` backend; [`view`] for
//! `session.wgsl()`).
//!
//! `session.wgsl()` lowers the session's last analysis (its IR and CFG, no
//! second read) the way `spvlab wgsl` does (every entry point, no
//! specialization) and answers a [`WgslView`]: the WGSL text with its
//! source map (per WGSL line, the index of the SPIR-V instruction it came
//! from: the page finds that instruction's text range in the report's
//! `sourceMap`), or the refusal with its reason code and its located
//! message.
//!
//! The lowering is in the build with the cargo feature `wgsl` (which `gpu`
//! turns on; the page is built with `gpu`); without it `session.wgsl()`
//! answers the failure `unavailable`.

use serde::Serialize;
use spvlab_core::analysis::Analysis;
#[cfg(feature = "wgsl")]
use spvlab_core::cfg::ModuleCfg;
use spvlab_core::ir::Ir;
use spvlab_core::wgsl::Refusal;
#[cfg(feature = "wgsl")]
use spvlab_core::wgsl::Wgsl;
use wasm_bindgen::prelude::*;

use crate::Session;

/// Lower `ir` to WGSL: every entry point, or only `entry`; `cfg` is its
/// control-flow analysis when the caller has one (else computed here).
#[cfg(feature = "wgsl")]
pub fn lower(ir: &Ir, cfg: Option<&ModuleCfg>, entry: Option<&str>) -> Result<Wgsl, Vec<Refusal>> {
    let opts = spvlab_core::wgsl::Options { entry: entry.filter(|e| !e.is_empty()).map(str::to_string) };
    match cfg {
        Some(g) => spvlab_core::wgsl::lower(ir, g, &opts),
        None => spvlab_core::wgsl::lower(ir, &spvlab_core::cfg::analyze_for_lowering(ir), &opts),
    }
}

/// What `session.wgsl()` answers.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct WgslView {
    /// The WGSL text came out (`text`, `lines`); else `failure` says why.
    pub ok: bool,
    pub text: String,
    /// Per WGSL line (0-based): the index of the SPIR-V instruction it came
    /// from (an index into the report's `sourceMap`), or null.
    pub lines: Vec<Option<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<WgslFailure>,
}

/// Why there is no WGSL.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct WgslFailure {
    /// `refused` (the lowering: `code` says why), `module` (no valid module
    /// to lower), `unavailable` (a build without the lowering).
    pub kind: &'static str,
    /// The refusal's reason code (`wgsl.int64`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// What was refused, naming the instruction by its line:col.
    pub message: String,
    /// Why WGSL has no equivalent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The refused instruction: its index (into the report's `sourceMap`)
    /// and where it starts in the text (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// How many more refusals the lowering gave.
    pub more: u32,
}

impl WgslView {
    fn failed(failure: WgslFailure) -> WgslView {
        WgslView { ok: false, text: String::new(), lines: Vec::new(), failure: Some(failure) }
    }
}

impl WgslFailure {
    fn new(kind: &'static str, message: impl Into<String>) -> WgslFailure {
        WgslFailure { kind, code: None, message: message.into(), why: None, instruction: None, line: None, column: None, more: 0 }
    }

    /// A refusal, located in the analysed text.
    pub fn refused(a: &Analysis, r: &Refusal, more: usize) -> WgslFailure {
        let at = r.instruction.and_then(|i| a.inst_line_col(i));
        let message = match at {
            Some((l, c)) => format!("cannot lower to WGSL: {} (line {l}:{c})", r.message),
            None => format!("cannot lower to WGSL: {}", r.message),
        };
        WgslFailure {
            kind: "refused",
            code: Some(r.code.to_string()),
            message,
            why: Some(r.why().to_string()).filter(|w| !w.is_empty()),
            instruction: r.instruction,
            line: at.map(|p| p.0),
            column: at.map(|p| p.1),
            more: more as u32,
        }
    }
}

/// `session.wgsl()`: the last analysis lowered, with its source map.
pub fn view(a: Option<&Analysis>) -> WgslView {
    let Some(a) = a else {
        return WgslView::failed(WgslFailure::new("module", "nothing analysed yet"));
    };
    let Some(ir) = a.ir().filter(|_| a.is_valid()) else {
        return WgslView::failed(WgslFailure::new("module", "there is no valid module to lower (see the problems)"));
    };
    lowered(a, ir)
}

#[wasm_bindgen]
impl Session {
    /// `session.wgsl()` → [`WgslView`] of the last analysis (never throws:
    /// a failure is the view's `failure`).
    #[wasm_bindgen(js_name = wgsl)]
    pub fn js_wgsl(&self) -> Result<JsValue, JsValue> {
        crate::to_js_json(&view(self.analysis.as_ref()))
    }
}

#[cfg(feature = "wgsl")]
fn lowered(a: &Analysis, ir: &Ir) -> WgslView {
    match lower(ir, Some(a.cfg()), None) {
        Ok(w) => WgslView { ok: true, text: w.text, lines: w.lines, failure: None },
        Err(rs) => match rs.first() {
            Some(r) => WgslView::failed(WgslFailure::refused(a, r, rs.len() - 1)),
            None => WgslView::failed(WgslFailure::new("refused", "cannot lower to WGSL (no reason given)")),
        },
    }
}

#[cfg(not(feature = "wgsl"))]
fn lowered(_: &Analysis, _: &Ir) -> WgslView {
    WgslView::failed(WgslFailure::new("unavailable", "this build of the engine has no WGSL lowering (the cargo feature `wgsl`)"))
}

#[cfg(all(test, feature = "wgsl"))]
mod tests {
    use super::*;
    use spvlab_core::valid::Options;

    fn analysis(text: &str) -> Analysis {
        Analysis::of_text(text, &Options { env: spvlab_core::TargetEnv::parse("vulkan1.3").unwrap(), ..Options::default() })
    }

    /// A loop summing a buffer, and the same with an Int64 type.
    const LOOP: &str = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\" %buf\nOpExecutionMode %main LocalSize 1 1 1\nOpDecorate %arr ArrayStride 4\nOpMemberDecorate %S 0 Offset 0\nOpDecorate %S Block\nOpDecorate %buf DescriptorSet 0\nOpDecorate %buf Binding 0\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%u32 = OpTypeInt 32 0\n%bool = OpTypeBool\n%c0 = OpConstant %u32 0\n%c1 = OpConstant %u32 1\n%c4 = OpConstant %u32 4\n%arr = OpTypeArray %u32 %c4\n%S = OpTypeStruct %arr\n%pS = OpTypePointer StorageBuffer %S\n%buf = OpVariable %pS StorageBuffer\n%pu = OpTypePointer StorageBuffer %u32\n%main = OpFunction %void None %fn\n%e = OpLabel\nOpBranch %h\n%h = OpLabel\n%i = OpPhi %u32 %c0 %e %n %c\n%lt = OpULessThan %bool %i %c4\nOpLoopMerge %m %c None\nOpBranchConditional %lt %b %m\n%b = OpLabel\n%p = OpAccessChain %pu %buf %c0 %i\nOpStore %p %i\nOpBranch %c\n%c = OpLabel\n%n = OpIAdd %u32 %i %c1\nOpBranch %h\n%m = OpLabel\nOpReturn\nOpFunctionEnd\n";

    #[test]
    fn the_view_maps_loop_lines_to_the_loop_merge() {
        let a = analysis(LOOP);
        assert!(a.is_valid(), "{:?}", a.diagnostics());
        let v = view(Some(&a));
        assert!(v.ok, "{v:?}");
        let wgsl: Vec<&str> = v.text.lines().collect();
        assert_eq!(wgsl.len(), v.lines.len());
        // The `loop {` line comes from the OpLoopMerge (text line 28).
        let k = wgsl.iter().position(|l| l.trim() == "loop {").expect("a loop");
        let i = v.lines[k].expect("mapped");
        assert_eq!(a.inst_line_col(i).map(|p| p.0), Some(28));
        // The store's line comes from the OpStore (text line 32).
        let store = v.lines.iter().filter_map(|m| *m).filter_map(|i| a.inst_line_col(i)).any(|(l, _)| l == 32);
        assert!(store, "{v:?}");
    }

    #[test]
    fn a_refusal_has_its_code_and_line() {
        let text = LOOP.replace("OpCapability Shader\n", "OpCapability Shader\nOpCapability Int64\n").replace("%bool = OpTypeBool\n", "%bool = OpTypeBool\n%u64 = OpTypeInt 64 0\n");
        let a = analysis(&text);
        assert!(a.is_valid(), "{:?}", a.diagnostics());
        let v = view(Some(&a));
        assert!(!v.ok);
        let f = v.failure.expect("refused");
        assert_eq!((f.kind, f.code.as_deref()), ("refused", Some("wgsl.int64")));
        // The capability is on line 2 (it is refused first).
        assert_eq!(f.line, Some(2), "{f:?}");
        assert!(f.message.contains("line 2:1"), "{}", f.message);
        assert!(f.why.is_some());
    }

    #[test]
    fn no_module_is_said_so() {
        assert_eq!(view(None).failure.map(|f| f.kind), Some("module"));
        let a = analysis("OpFoo\n");
        assert_eq!(view(Some(&a)).failure.map(|f| f.kind), Some("module"));
    }
}
