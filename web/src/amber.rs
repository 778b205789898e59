//! Amber files in and out of the page, on core's
//! [`spvlab_core::amber::page`]:
//! * `amberLoad(source)` → [`AmberLoad`]: the shader's assembly, the target
//!   environment, the Run tab's inputs (entry, workgroups, buffers by key,
//!   spec constants), for a graphics script the draw settings (`draw`, in
//!   the shape of a `DrawRequest`), and the EXPECT lines; or a located error;
//! * `amberCheck(source, buffers, image?)` → [`AmberCheck`]: each EXPECT
//!   line checked against a run's buffers (`RunResult.buffers`) and a draw's
//!   image (`RunResult.image`);
//! * `session.amberExport(request)` → [`AmberExport`]: the last analysis's
//!   module run on the interpreter with `request`, as an Amber file whose
//!   EXPECT lines hold the run's buffers.

use crate::run::{self, Image, RunRequest};
use crate::{Session, from_js_or_default, to_js_json};
use serde::{Deserialize, Serialize};
use spvlab_core::amber::{self, AmberError};
use spvlab_core::analysis::Analysis;
use spvlab_core::interp::{self, Buffers};
use spvlab_core::plan::DrawShape;
use spvlab_core::raster::ColorAttachment;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

/// An error located in the Amber file (1-based).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AmberFailure {
    pub line: u32,
    pub column: u32,
    pub message: String,
    /// A script with a stage the page does not run (geometry,
    /// tessellation): recognised, not run.
    pub graphics: bool,
}

impl From<AmberError> for AmberFailure {
    fn from(e: AmberError) -> Self {
        AmberFailure { graphics: e.is_graphics(), line: e.line, column: e.col, message: e.message }
    }
}

#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AmberInput {
    /// `SET.BINDING` or `push`.
    pub key: String,
    /// The Amber buffer's name.
    pub buffer: String,
    /// In the interpreter's input language.
    pub spec: String,
}

#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AmberExpect {
    pub line: u32,
    pub text: String,
}

/// A loaded Amber file.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AmberScript {
    pub text: String,
    /// The shader was SPIRV-HEX (disassembled).
    pub disassembled: bool,
    /// The target environment's name (`spv1.0` when the file names none).
    pub target_env: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    pub workgroups: [u32; 3],
    /// Spec constant values by SpecId.
    pub spec: BTreeMap<String, String>,
    pub inputs: Vec<AmberInput>,
    pub expects: Vec<AmberExpect>,
    /// A graphics script's draw (absent: a compute dispatch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw: Option<AmberDraw>,
}

/// A graphics script's draw, in the shape of the Run tab's `DrawRequest`.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AmberDraw {
    pub width: u32,
    pub height: u32,
    pub shape: DrawShape,
    /// The colour attachment's format, by its Vulkan name.
    pub format: &'static str,
    /// The clear colour, RGBA from 0 to 1.
    pub clear: [f32; 4],
}

/// `amberLoad`'s answer: `script`, or `error`.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AmberLoad {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script: Option<AmberScript>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<AmberFailure>,
}

/// Read an Amber file for the Run tab.
pub fn load(src: &str) -> AmberLoad {
    match amber::page::load(src) {
        Ok(l) => AmberLoad {
            script: Some(AmberScript {
                text: l.text,
                disassembled: l.disassembled,
                target_env: l.env.unwrap_or(spvlab_core::TargetEnv::Spv1_0).name().into(),
                entry: l.entry,
                workgroups: l.workgroups,
                spec: l.spec.into_iter().map(|(id, v)| (id.to_string(), v)).collect(),
                inputs: l.inputs.into_iter().map(|i| AmberInput { key: i.key, buffer: i.buffer, spec: i.spec }).collect(),
                expects: l.expects.into_iter().map(|e| AmberExpect { line: e.line, text: e.text }).collect(),
                draw: l.draw.map(|d| AmberDraw { width: d.size.0, height: d.size.1, shape: d.shape, format: d.format.name(), clear: d.clear }),
            }),
            error: None,
        },
        Err(e) => AmberLoad { script: None, error: Some(e.into()) },
    }
}

/// A run's buffer, as `RunResult.buffers` holds it.
#[derive(Deserialize, Debug, Clone)]
pub struct RunBytes {
    pub set: u32,
    pub binding: u32,
    pub bytes: Vec<u8>,
}

#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ExpectVerdict {
    pub line: u32,
    pub text: String,
    pub pass: bool,
    /// The values expected and got, for a failing line.
    pub failures: Vec<String>,
}

/// `amberCheck`'s answer.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AmberCheck {
    pub expects: Vec<ExpectVerdict>,
    /// The file, or its run, stopped: no verdict per line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<AmberFailure>,
}

/// Check the EXPECT lines of `src` against a run's buffers and, for a
/// draw, its colour attachment.
pub fn check(src: &str, buffers: &[RunBytes], image: Option<&ColorAttachment>) -> AmberCheck {
    let outputs: Buffers = buffers.iter().map(|b| ((b.set, b.binding), b.bytes.clone())).collect();
    match amber::page::check(src, &outputs, image) {
        Ok(c) => AmberCheck {
            expects: c
                .expects
                .into_iter()
                .map(|e| ExpectVerdict { line: e.line, text: e.text, pass: e.pass, failures: e.failures })
                .collect(),
            error: c.error.map(Into::into),
        },
        Err(e) => AmberCheck { expects: Vec::new(), error: Some(e.into()) },
    }
}

/// `session.amberExport`'s answer: the file, or why there is none.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AmberExport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<run::RunFailure>,
}

/// The analysed module run on the interpreter with `req`, as an Amber file.
pub fn export(a: &Analysis, req: &RunRequest) -> AmberExport {
    let fail = |e: run::RunFailure| AmberExport { text: None, error: Some(e) };
    let p = match run::prepare(a, req) {
        Ok(p) => p,
        Err(f) => return fail(f),
    };
    let Some(ir0) = a.ir() else {
        return fail(run::RunFailure::new("module", "there is no module"));
    };
    if p.draw.is_some() {
        return export_draw(a, &p);
    }
    let mut out = p.buffers.clone();
    if let Err(e) = interp::run(&p.ir, &p.options, &mut out) {
        return fail(run::RunFailure::new("interp", format!("the interpreter stopped, so there is nothing to write: {}", a.run_error_message(&e))));
    }
    // The plan has push constants' bytes only where the entry point has them.
    let push = p.options.push_constants.as_deref();
    let env = a.options().env;
    let text = amber::page::export_run(a, ir0, env, &p.entry, &p.spec, p.options.workgroups, &p.buffers, &out, push);
    AmberExport { text: Some(text), error: None }
}

/// `amberLoad(source)` → `AmberLoad`.
#[wasm_bindgen(js_name = amberLoad)]
pub fn js_amber_load(source: &str) -> Result<JsValue, JsValue> {
    to_js_json(&load(source))
}

/// `amberCheck(source, buffers, image?)` → `AmberCheck` (`buffers`: a run's
/// `RunResult.buffers`; `image`: a draw's `RunResult.image`, its `rgba` and
/// `data` as `Uint8Array`s).
#[wasm_bindgen(js_name = amberCheck)]
pub fn js_amber_check(source: &str, buffers: JsValue, image: JsValue) -> Result<JsValue, JsValue> {
    let list: Vec<RunBytes> = from_js_or_default(buffers).map_err(|e| JsValue::from_str(&e.to_string()))?;
    if image.is_undefined() || image.is_null() {
        return to_js_json(&check(source, &list, None));
    }
    let get = |k: &str| js_sys::Reflect::get(&image, &JsValue::from_str(k));
    let bytes = |v: JsValue| if v.is_instance_of::<js_sys::Uint8Array>() { js_sys::Uint8Array::new(&v).to_vec() } else { Vec::new() };
    let side = |v: JsValue| v.as_f64().filter(|n| n.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(n)).map(|n| n as u32);
    let (w, h) = (side(get("width")?), side(get("height")?));
    let format = get("format")?.as_string().unwrap_or_default();
    let (rgba, data) = (bytes(get("rgba")?), bytes(get("data")?));
    let a = w.zip(h).and_then(|(w, h)| Image::attachment(w, h, &format, &rgba, &data));
    let Some(a) = a else {
        let error = AmberFailure { line: 1, column: 1, message: format!("the run's image is not a {format} image the page draws"), graphics: false };
        return to_js_json(&AmberCheck { expects: Vec::new(), error: Some(error) });
    };
    to_js_json(&check(source, &list, Some(&a)))
}

#[wasm_bindgen]
impl Session {
    /// `session.amberExport(request?)` → `AmberExport`: the last analysis's
    /// module run on the interpreter, as an Amber file.
    #[wasm_bindgen(js_name = amberExport)]
    pub fn js_amber_export(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let r = match (from_js_or_default::<RunRequest>(request), self.analysis.as_ref()) {
            (Err(e), _) => AmberExport { text: None, error: Some(run::RunFailure::new("input", e.to_string())) },
            (_, None) => AmberExport { text: None, error: Some(run::RunFailure::new("module", "nothing analysed yet")) },
            (Ok(req), Some(a)) => export(a, &req),
        };
        to_js_json(&r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `out[i] = in[i] * 2` over 4 invocations.
    const SCRIPT: &str = "#!amber
SHADER compute s SPIRV-ASM
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %gid
OpExecutionMode %main LocalSize 4 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %arr ArrayStride 4
OpMemberDecorate %blk 0 Offset 0
OpDecorate %blk BufferBlock
OpDecorate %in DescriptorSet 0
OpDecorate %in Binding 0
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%c2 = OpConstant %u32 2
%c0 = OpConstant %u32 0
%c4 = OpConstant %u32 4
%arr = OpTypeArray %u32 %c4
%blk = OpTypeStruct %arr
%pblk = OpTypePointer Uniform %blk
%in = OpVariable %pblk Uniform
%out = OpVariable %pblk Uniform
%v3 = OpTypeVector %u32 3
%pv3 = OpTypePointer Input %v3
%gid = OpVariable %pv3 Input
%pin = OpTypePointer Input %u32
%pu = OpTypePointer Uniform %u32
%main = OpFunction %void None %fn
%l = OpLabel
%px = OpAccessChain %pin %gid %c0
%x = OpLoad %u32 %px
%pa = OpAccessChain %pu %in %c0 %x
%a = OpLoad %u32 %pa
%b = OpIMul %u32 %a %c2
%pb = OpAccessChain %pu %out %c0 %x
OpStore %pb %b
OpReturn
OpFunctionEnd
END
BUFFER a DATA_TYPE uint32 DATA 1 2 3 4 END
BUFFER b DATA_TYPE uint32 SIZE 4 FILL 0
PIPELINE compute p
  ATTACH s
  BIND BUFFER a AS storage DESCRIPTOR_SET 0 BINDING 0
  BIND BUFFER b AS storage DESCRIPTOR_SET 0 BINDING 1
END
RUN p 1 1 1
EXPECT b IDX 0 EQ 2 4 6 8
EXPECT b IDX 4 EQ 5
";

    #[test]
    fn load_check_export_round_trip() {
        let l = load(SCRIPT);
        let s = l.script.expect("loads");
        assert_eq!(s.target_env, "spv1.0");
        assert_eq!(s.workgroups, [1, 1, 1]);
        assert_eq!(s.inputs.len(), 2);
        assert_eq!(s.inputs[0].key, "0.0");
        assert_eq!(s.inputs[0].spec, "u32: 1 2 3 4");
        let lines: Vec<u32> = SCRIPT.lines().enumerate().filter(|(_, l)| l.starts_with("EXPECT")).map(|(i, _)| i as u32 + 1).collect();
        assert_eq!(s.expects.iter().map(|e| e.line).collect::<Vec<_>>(), lines);
        assert_eq!(s.expects[1].text, "EXPECT b IDX 4 EQ 5");
        // The page's run of the loaded inputs.
        let a = Analysis::of_text(&s.text, &spvlab_core::valid::Options { env: spvlab_core::TargetEnv::Spv1_0, ..Default::default() });
        let req = RunRequest {
            workgroups: Some(s.workgroups),
            buffers: s.inputs.iter().map(|i| (i.key.clone(), i.spec.clone())).collect(),
            ..RunRequest::default()
        };
        let r = run::run_interp(&a, &req);
        assert!(r.ok, "{r:?}");
        let bytes: Vec<RunBytes> = r.buffers.iter().map(|b| RunBytes { set: b.set, binding: b.binding, bytes: b.bytes.clone() }).collect();
        let c = check(SCRIPT, &bytes, None);
        assert_eq!(c.error, None);
        assert_eq!(c.expects.iter().map(|e| e.pass).collect::<Vec<_>>(), [true, false]);
        assert!(c.expects[1].failures[0].contains("expected 5, got 4"), "{:?}", c.expects[1]);
        // Export, then the exported file passes on core's runner and loads
        // back with the same inputs.
        let e = export(&a, &req);
        let text = e.text.expect("exports");
        let out = amber::run(&amber::parse(&text).expect("parses"), 1_000_000).expect("runs");
        assert!(out.passed() && out.checked > 0, "{out:?}\n{text}");
        let back = load(&text).script.expect("loads back");
        let key = |s: &AmberScript| s.inputs.iter().map(|i| (i.key.clone(), i.spec.clone())).collect::<Vec<_>>();
        assert_eq!(key(&back), key(&s));
    }

    /// The corpus files of tests/e2e/amber.test.mjs, on the page's path
    /// natively: load, run the loaded inputs on the interpreter as the page
    /// does, check: every EXPECT passes; export, and the export passes on
    /// core's runner.
    #[test]
    fn corpus_files_pass_on_the_page_path() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/amber");
        if !corpus.exists() {
            eprintln!("SKIPPED: no corpus at {}", corpus.display());
            return;
        }
        let test = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/e2e/amber.test.mjs")).unwrap();
        let files: Vec<&str> = test.lines().filter_map(|l| l.trim().strip_prefix('"')?.strip_suffix("\",")).filter(|f| f.ends_with(".amber")).collect();
        assert_eq!(files.len(), 10, "{files:?}");
        for f in files {
            let src = std::fs::read_to_string(corpus.join(f)).unwrap();
            let s = load(&src).script.unwrap_or_else(|| panic!("{f}: {:?}", load(&src).error));
            let env = spvlab_core::TargetEnv::parse(&s.target_env).unwrap();
            let a = Analysis::of_text(&s.text, &spvlab_core::valid::Options { env, ..Default::default() });
            assert!(a.is_valid(), "{f}: {:?}", a.diagnostics().first());
            let req = RunRequest {
                entry: s.entry.clone(),
                workgroups: Some(s.workgroups),
                buffers: s.inputs.iter().map(|i| (i.key.clone(), i.spec.clone())).collect(),
                spec: s.spec.clone(),
                ..RunRequest::default()
            };
            let r = run::run_interp(&a, &req);
            assert!(r.ok, "{f}: {:?}", r.error);
            let bytes: Vec<RunBytes> = r.buffers.iter().map(|b| RunBytes { set: b.set, binding: b.binding, bytes: b.bytes.clone() }).collect();
            let c = check(&src, &bytes, None);
            assert!(c.error.is_none() && !c.expects.is_empty() && c.expects.iter().all(|e| e.pass), "{f}: {c:?}");
            let text = export(&a, &req).text.unwrap_or_else(|| panic!("{f}: no export"));
            let out = amber::run(&amber::parse(&text).unwrap(), 1_000_000).unwrap();
            assert!(out.passed(), "{f}: {out:?}\n{text}");
        }
    }

    /// The graphics files of tests/e2e/amber.test.mjs, on the page's path
    /// natively: load, draw the loaded inputs on the interpreter as the page
    /// does, check with the image as JavaScript hands it back: every EXPECT
    /// passes; the refused file's error is at its second RUN.
    #[test]
    fn corpus_graphics_files_on_the_page_path() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let corpus = root.join("../../shared/corpus/amber");
        if !corpus.exists() {
            eprintln!("SKIPPED: no corpus at {}", corpus.display());
            return;
        }
        let test = std::fs::read_to_string(root.join("../tests/e2e/amber.test.mjs")).unwrap();
        let named = |key: &str| test.lines().find_map(|l| l.trim().strip_prefix(key)?.trim().strip_prefix('"')?.split('"').next()).unwrap_or_else(|| panic!("{key}"));
        let f = named("const GRAPHICS =");
        let src = std::fs::read_to_string(corpus.join(f)).unwrap();
        let s = load(&src).script.unwrap_or_else(|| panic!("{f}: {:?}", load(&src).error));
        let d = s.draw.as_ref().expect("a draw");
        let env = spvlab_core::TargetEnv::parse(&s.target_env).unwrap();
        let a = Analysis::of_text(&s.text, &spvlab_core::valid::Options { env, ..Default::default() });
        assert!(a.is_valid(), "{f}: {:?}", a.diagnostics().first());
        let req = RunRequest {
            entry: s.entry.clone(),
            buffers: s.inputs.iter().map(|i| (i.key.clone(), i.spec.clone())).collect(),
            draw: Some(run::DrawRequest { width: Some(d.width), height: Some(d.height), shape: Some(d.shape), format: Some(d.format.into()), clear: Some(d.clear) }),
            ..RunRequest::default()
        };
        let r = run::run_interp(&a, &req);
        assert!(r.ok, "{f}: {:?}", r.error);
        let img = r.image.as_ref().expect("an image");
        let att = Image::attachment(img.width, img.height, img.format, &img.rgba, &img.data).expect("reads back");
        let bytes: Vec<RunBytes> = r.buffers.iter().map(|b| RunBytes { set: b.set, binding: b.binding, bytes: b.bytes.clone() }).collect();
        let c = check(&src, &bytes, Some(&att));
        assert!(c.error.is_none() && !c.expects.is_empty() && c.expects.iter().all(|e| e.pass), "{f}: {c:?}");
        // The same image with one pixel black fails the file's EXPECT.
        let mut dark = att.clone();
        dark.write(3, 5, [0.0, 0.0, 0.0, 1.0]);
        let c = check(&src, &bytes, Some(&dark));
        assert!(c.expects.iter().any(|e| !e.pass && e.failures.iter().any(|m| m.contains("texel (3,5)"))), "{f}: {c:?}");
        // Export: the file's EXPECT lines include the corpus file's own
        // (GraphicsFuzz: one colour over the framebuffer), it passes on
        // core's runner and it loads back as the same draw.
        let text = export(&a, &req).text.unwrap_or_else(|| panic!("{f}: {:?}", export(&a, &req).error));
        let theirs = src.lines().find(|l| l.starts_with("EXPECT") && l.contains("EQ_RGBA")).expect("an EQ_RGBA line");
        let rgba: Vec<&str> = theirs.split_whitespace().skip_while(|w| *w != "EQ_RGBA").skip(1).take(4).collect();
        let want = format!("EXPECT framebuffer IDX 0 0 SIZE {} {} EQ_RGBA {}", d.width, d.height, rgba.join(" "));
        assert!(text.lines().any(|l| l == want), "{f}: no `{want}` in\n{text}");
        let out = amber::run(&amber::parse(&text).expect("parses"), 100_000_000).expect("runs");
        assert!(out.passed() && out.checked > 0, "{out:?}\n{text}");
        let back = load(&text).script.expect("loads back");
        assert_eq!(back.draw, s.draw, "{text}");
        let f = named("const REFUSED =");
        let src = std::fs::read_to_string(corpus.join(f)).unwrap();
        let e = load(&src).error.unwrap_or_else(|| panic!("{f} loads"));
        let second = src.lines().enumerate().filter(|(_, l)| l.starts_with("RUN ")).nth(1).map(|(i, _)| i as u32 + 1);
        assert_eq!((Some(e.line), e.graphics), (second, false), "{f}: {e:?}");
        assert!(e.message.contains("second RUN"), "{e:?}");
    }

    /// An image read back from the page: each format's bytes as the
    /// attachment holds them; a size or format the page does not draw is
    /// none.
    #[test]
    fn images_read_back_as_attachments() {
        use spvlab_core::raster::ColorFormat;
        for f in [ColorFormat::B8G8R8A8Unorm, ColorFormat::R8G8B8A8Unorm, ColorFormat::R32G32B32A32Sfloat, ColorFormat::R32Sfloat] {
            let mut a = ColorAttachment::new(f, 3, 2, [0.25, 0.5, 0.75, 1.0]).unwrap();
            a.write(2, 1, [1.0, 0.0, 0.2, 0.6]);
            let i = Image::of(&a);
            assert_eq!(Image::attachment(i.width, i.height, i.format, &i.rgba, &i.data), Some(a), "{f:?}");
        }
        let i = Image::of(&ColorAttachment::new(ColorFormat::B8G8R8A8Unorm, 3, 2, [0.0; 4]).unwrap());
        assert_eq!(Image::attachment(4, 2, i.format, &i.rgba, &i.data), None);
        assert_eq!(Image::attachment(3, 2, "R32_UINT", &i.rgba, &i.rgba), None);
        assert_eq!(Image::attachment(3, 2, "D32_SFLOAT", &i.rgba, &i.data), None);
    }

    #[test]
    fn errors_are_located() {
        let bad = SCRIPT.replace("RUN p 1 1 1", "RUN q 1 1 1");
        let e = load(&bad).error.expect("an error");
        // At the RUN that names it.
        assert_eq!(Some(e.line), bad.lines().position(|l| l == "RUN q 1 1 1").map(|i| i as u32 + 1));
        assert!(e.message.contains("`q`"), "{e:?}");
        let e = load("#!amber\nBUFFER a DATA_TYPE uint32 DATA 1 x END\n").error.expect("an error");
        assert_eq!(e.line, 2);
        assert!(e.column > 1, "{e:?}");
        let glsl = "#!amber\nSHADER compute s GLSL\n#version 450\nvoid main() {}\nEND\nPIPELINE compute p\n ATTACH s\nEND\nRUN p 1 1 1\n";
        let e = load(glsl).error.expect("an error");
        assert!(e.message.contains("GLSL") && e.message.contains("compile"), "{e:?}");
        assert_eq!(e.line, 2);
        let gfx = "#!amber\nSHADER geometry g SPIRV-ASM\nEND\n";
        let e = load(gfx).error.expect("an error");
        assert!(e.graphics, "{e:?}");
        assert!(check("not amber", &[], None).error.is_some());
    }
}

/// A draw plan drawn on the interpreter, as an Amber file whose EXPECT
/// lines hold its image.
#[cfg(feature = "draw")]
fn export_draw(a: &Analysis, p: &spvlab_core::plan::Plan) -> AmberExport {
    let fail = |e: run::RunFailure| AmberExport { text: None, error: Some(e) };
    let drawn = match p.draw_interp(&p.options) {
        Some(Ok(d)) => d,
        Some(Err(e)) => return fail(run::RunFailure::new("interp", format!("the interpreter stopped, so there is nothing to write: {}", a.run_error_message(&e)))),
        None => return fail(run::RunFailure::new("module", "the entry point does not draw")),
    };
    match amber::page::export_draw_run(a, a.options().env, p, &drawn) {
        Ok(text) => AmberExport { text: Some(text), error: None },
        Err(e) => fail(run::RunFailure::new("unsupported", e)),
    }
}

/// Without the `draw` feature nothing is planned as a draw.
#[cfg(not(feature = "draw"))]
fn export_draw(_: &Analysis, _: &spvlab_core::plan::Plan) -> AmberExport {
    AmberExport { text: None, error: Some(run::RunFailure::new("module", "this engine does not draw")) }
}
