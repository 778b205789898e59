//! Share links: the page's state in a URL fragment, `v1/` followed by the
//! base64url (no padding) of the DEFLATE-compressed JSON of a [`ShareState`].
//!
//! Decoding never panics and never allocates much more than the input on
//! hostile data: the decompressed size is capped at [`MAX_DECOMPRESSED`].

use crate::analysis::dot::Dominators;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

/// The largest decompressed JSON accepted (2 MiB).
pub const MAX_DECOMPRESSED: usize = 2 << 20;

/// The version prefix of the current format.
pub const PREFIX: &str = "v1/";

/// What a share link holds (`ShareState` of `www/src/api.ts`).
///
/// Links made before the CFG options were shared have no `cfg`; links made
/// while the page first had a Run tab may hold `"panel": "run"` and a `run`
/// object of another shape (`{"inputs": [...]}`): they still decode, without
/// the run part (an unknown field is skipped; a `run` with none of
/// [`RunView`]'s fields is none). Links made before the run inputs were
/// shared have no `run`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShareState {
    pub text: String,
    pub target_env: String,
    /// The function shown in the CFG panel (its result id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<u32>,
    /// The panel open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panel: Option<String>,
    /// The CFG panel's drawing options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cfg: Option<CfgView>,
    /// The Run tab's inputs and the chosen invocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunView>,
}

/// The Run tab's inputs in a link (`ShareRun` of `www/src/api.ts`, the
/// fields of the page's `RunRequest`); a missing field takes the tab's
/// default.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RunView {
    /// The entry point.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// Workgroups in x, y, z.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workgroups: Option<[u32; 3]>,
    /// Each buffer's input in the interpreter's input language, keyed
    /// `"SET.BINDING"` or `"push"`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub buffers: BTreeMap<String, String>,
    /// Spec constant values by SpecId.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub spec: BTreeMap<String, String>,
    /// The invocation picked (its global id; for a draw the pixel, `[x, y,
    /// 0]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invocation: Option<[u32; 3]>,
    /// How a Fragment entry point is drawn (links made before the Run tab
    /// drew have none: the defaults).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw: Option<DrawView>,
}

/// The Run tab's draw settings in a link (the `draw` of the page's
/// `RunRequest`); a missing field takes the default.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DrawView {
    /// The framebuffer's width and height.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// `{ "kind": "rect" }` or `{ "kind": "grid", "columns", "rows" }`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<crate::plan::DrawShape>,
    /// The colour attachment's format, by its Vulkan name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The clear colour, RGBA from 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clear: Option<[f32; 4]>,
}

impl RunView {
    /// Nothing set (an old link's `run` object reads so).
    pub fn is_empty(&self) -> bool {
        *self == RunView::default()
    }
}

/// The CFG panel's options in a link (`CfgView` of `www/src/api.ts`); a
/// missing field takes the panel's default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CfgView {
    /// Each block's instruction listing instead of its name.
    pub listing: bool,
    /// The constructs drawn as nested regions.
    pub constructs: bool,
    /// The dominator tree overlaid.
    pub dominators: Dominators,
    /// Blocks that are not structurally reachable left out.
    pub hide_unreachable: bool,
    /// The constructs holding the selected block highlighted.
    pub containing: bool,
}

impl Default for CfgView {
    fn default() -> Self {
        CfgView { listing: false, constructs: true, dominators: Dominators::None, hide_unreachable: false, containing: false }
    }
}

/// Why a fragment could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShareError {
    /// Not `v1/...` (the version found, if any).
    UnknownVersion(String),
    /// A character that is not base64url, or a bad length, at this offset.
    BadBase64 { offset: usize },
    /// The data does not inflate.
    BadCompressedData,
    /// The data inflates to more than [`MAX_DECOMPRESSED`] bytes.
    TooLarge,
    /// The inflated data is not the JSON of a share state.
    BadJson(String),
    /// The JSON has no `text`.
    MissingText,
}

impl ShareError {
    /// A stable code, e.g. `share.bad-base64`.
    pub fn code(&self) -> &'static str {
        match self {
            ShareError::UnknownVersion(_) => "share.unknown-version",
            ShareError::BadBase64 { .. } => "share.bad-base64",
            ShareError::BadCompressedData => "share.bad-compressed-data",
            ShareError::TooLarge => "share.too-large",
            ShareError::BadJson(_) => "share.bad-json",
            ShareError::MissingText => "share.missing-text",
        }
    }
}

impl core::fmt::Display for ShareError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ShareError::UnknownVersion(v) if v.is_empty() => {
                write!(f, "the link has no version: it should start with `v1/`")
            }
            ShareError::UnknownVersion(v) => {
                write!(f, "the link's format `{v}` is unknown (this page reads `v1`)")
            }
            ShareError::BadBase64 { offset } => {
                write!(f, "the link is damaged: bad base64url data at character {offset}")
            }
            ShareError::BadCompressedData => write!(f, "the link is damaged: its data does not decompress"),
            ShareError::TooLarge => {
                write!(f, "the link's data is larger than {} MiB once decompressed", MAX_DECOMPRESSED >> 20)
            }
            ShareError::BadJson(e) => write!(f, "the link's data is not a valid state: {e}"),
            ShareError::MissingText => write!(f, "the link's state has no module text"),
        }
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding.
pub fn base64url_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let k = chunk.len() + 1;
        for i in 0..k {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

fn sextet(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'-' | b'+' => 62,
        b'_' | b'/' => 63,
        _ => return None,
    } as u32)
}

/// Decode base64url (standard `+/` accepted too; trailing `=` padding ignored).
pub fn base64url_decode(s: &str) -> Result<Vec<u8>, ShareError> {
    let s = s.trim_end_matches('=');
    let b = s.as_bytes();
    if b.len() % 4 == 1 {
        return Err(ShareError::BadBase64 { offset: b.len() });
    }
    let mut out = Vec::with_capacity(b.len() / 4 * 3 + 2);
    for (ci, chunk) in b.chunks(4).enumerate() {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let v = sextet(c).ok_or(ShareError::BadBase64 { offset: ci * 4 + i })?;
            n |= v << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    Ok(out)
}

/// The fragment (without `#`) for a state.
pub fn encode(state: &ShareState) -> String {
    let json = serde_json::to_vec(state).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    let mut out = String::from(PREFIX);
    out.push_str(&base64url_encode(&packed));
    out
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawState {
    text: Option<String>,
    #[serde(default)]
    target_env: String,
    #[serde(default)]
    function: Option<u32>,
    #[serde(default)]
    panel: Option<String>,
    #[serde(default)]
    cfg: Option<CfgView>,
    #[serde(default)]
    run: Option<RunView>,
}

/// Read a fragment (a leading `#` is allowed).
pub fn decode(fragment: &str) -> Result<ShareState, ShareError> {
    let f = fragment.trim().strip_prefix('#').unwrap_or(fragment.trim());
    let Some(data) = f.strip_prefix(PREFIX) else {
        let version: String = f.split('/').next().unwrap_or("").chars().take(16).collect();
        let version = if f.contains('/') { version } else { String::new() };
        return Err(ShareError::UnknownVersion(version));
    };
    let packed = base64url_decode(data)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_DECOMPRESSED).map_err(|e| {
        match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => ShareError::TooLarge,
            _ => ShareError::BadCompressedData,
        }
    })?;
    let raw: RawState = serde_json::from_slice(&json).map_err(|e| {
        use alloc::string::ToString;
        ShareError::BadJson(e.to_string())
    })?;
    let text = raw.text.ok_or(ShareError::MissingText)?;
    let run = raw.run.filter(|r| !r.is_empty());
    Ok(ShareState { text, target_env: raw.target_env, function: raw.function, panel: raw.panel, cfg: raw.cfg, run })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    fn state() -> ShareState {
        ShareState {
            text: "OpCapability Shader\n; ünïcödé \"quoted\" \\ <script>\n".into(),
            target_env: "vulkan1.3".into(),
            function: Some(4),
            panel: Some("cfg".into()),
            cfg: Some(CfgView {
                listing: true,
                constructs: false,
                dominators: Dominators::Structural,
                hide_unreachable: true,
                containing: true,
            }),
            run: Some(RunView {
                entry: Some("main".into()),
                workgroups: Some([4, 2, 1]),
                buffers: [("0.0".into(), "u32: 1 2 3".into()), ("push".into(), "f32: 0.5".into())].into_iter().collect(),
                spec: [("3".into(), "-2".into())].into_iter().collect(),
                invocation: Some([5, 1, 0]),
                draw: Some(DrawView {
                    width: Some(64),
                    height: Some(32),
                    shape: Some(crate::plan::DrawShape::Grid { columns: 3, rows: 2 }),
                    format: Some("R32G32B32A32_SFLOAT".into()),
                    clear: Some([0.0, 0.5, 1.0, 1.0]),
                }),
            }),
        }
    }

    #[test]
    fn round_trip() {
        let s = state();
        let f = encode(&s);
        assert!(f.starts_with("v1/"));
        assert!(f[3..].bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'), "{f}");
        assert_eq!(decode(&f).unwrap(), s);
        assert_eq!(decode(&format!("#{f}")).unwrap(), s);
        // The draw settings in the page's RunRequest shape.
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains(r#""draw":{"width":64,"height":32,"shape":{"kind":"grid","columns":3,"rows":2},"format":"R32G32B32A32_SFLOAT","clear":[0.0,0.5,1.0,1.0]}"#), "{json}");
        let bare = ShareState { text: String::new(), target_env: "spv1.0".into(), ..Default::default() };
        assert_eq!(decode(&encode(&bare)).unwrap(), bare);
    }

    /// A link made by the page before the CFG options were shared and while it
    /// had a Run tab (the encoder of that time, run on `text: "; old\n"`,
    /// `targetEnv: "spv1.3"`, `function: 7`, `panel: "run"` and a `run`
    /// object): it still opens, without the run part.
    #[test]
    fn old_links_stay_readable() {
        let old = "v1/FYpBCoAgFAWvEm8tQUUEtu4U1SLKIoiv6FcE8e7pZhYzk8AqMiTmRn_XRhDgwz6KFwrFOhO6dijy9nTyqwlyEjAHqa9U6-tfKRNeMp4d5NqJvh0FIvacfw";
        let s = decode(old).unwrap();
        assert_eq!(s.text, "; old\n");
        assert_eq!(s.target_env, "spv1.3");
        assert_eq!(s.function, Some(7));
        assert_eq!(s.panel.as_deref(), Some("run"));
        assert_eq!(s.cfg, None);
        // Encoding it again drops what the page no longer has.
        let again = serde_json::to_string(&s).unwrap();
        assert!(!again.contains("\"run\":"), "{again}");
    }

    /// A link of the format before the run inputs were shared: the JSON the
    /// page wrote then (`text: "; before run\n"`, `targetEnv: "vulkan1.1"`,
    /// `function: 4`, `panel: "cfg"`, the default CFG options), deflated by
    /// zlib (not by this encoder). It opens as it did, with no run inputs.
    #[test]
    fn links_from_before_run_inputs_stay_readable() {
        let old = "v1/TYyxCsMwDER_JWgOhUAnZ-4ndOuiOHJi6p6LLYdCyL9XmdrldLzT3U4qHyVHYzdJyEW60vAA9aRcFtEbNgu3lp6M4TIYDw1eYwa5a09vhiR78GGx6FS3U4pVI8wGTlUMZ1QtzWslZ9fInF8RrLkYIWSIldc4yx1F2K88JflvK0f8Bo_jCw";
        let s = decode(old).unwrap();
        assert_eq!(s.text, "; before run\n");
        assert_eq!(s.target_env, "vulkan1.1");
        assert_eq!(s.function, Some(4));
        assert_eq!(s.panel.as_deref(), Some("cfg"));
        assert_eq!(s.cfg, Some(CfgView::default()));
        assert_eq!(s.run, None);
    }

    /// Run inputs of the wrong shape are a clear error, not a panic; an
    /// unknown field inside them is skipped.
    #[test]
    fn run_view_checked() {
        let ok = decode(&pack(br#"{"text":"","targetEnv":"spv1.0","run":{"workgroups":[2,1,1],"future":1}}"#)).unwrap();
        assert_eq!(ok.run, Some(RunView { workgroups: Some([2, 1, 1]), ..RunView::default() }));
        for bad in [
            &br#"{"text":"","targetEnv":"spv1.0","run":{"workgroups":[2,1]}}"#[..],
            br#"{"text":"","targetEnv":"spv1.0","run":{"workgroups":[-1,1,1]}}"#,
            br#"{"text":"","targetEnv":"spv1.0","run":{"buffers":{"0.0":3}}}"#,
            br#"{"text":"","targetEnv":"spv1.0","run":{"invocation":"x"}}"#,
            br#"{"text":"","targetEnv":"spv1.0","run":[1]}"#,
        ] {
            let r = decode(&pack(bad));
            assert!(matches!(r, Err(ShareError::BadJson(_))), "{r:?}");
        }
        let r = decode(&pack(br#"{"text":"","targetEnv":"spv1.0","run":{"workgroups":[2,1]}}"#)).unwrap_err();
        assert!(format!("{r}").contains("not a valid state"), "{r}");
    }

    #[test]
    fn cfg_view_fields_default_one_by_one() {
        let s = decode(&pack(br#"{"text":"","targetEnv":"spv1.0","cfg":{}}"#)).unwrap();
        assert_eq!(s.cfg, Some(CfgView::default()));
        assert!(CfgView::default().constructs, "constructs are drawn by default");
        let s = decode(&pack(br#"{"text":"","targetEnv":"spv1.0","cfg":{"listing":true,"dominators":"regular"}}"#)).unwrap();
        assert_eq!(s.cfg, Some(CfgView { listing: true, dominators: Dominators::Regular, ..CfgView::default() }));
        let bad = decode(&pack(br#"{"text":"","targetEnv":"spv1.0","cfg":{"dominators":"sideways"}}"#));
        assert!(matches!(bad, Err(ShareError::BadJson(_))), "{bad:?}");
    }

    #[test]
    fn base64_round_trip() {
        for n in 0..40usize {
            let data: Vec<u8> = (0..n).map(|i| (i * 37 + n) as u8).collect();
            assert_eq!(base64url_decode(&base64url_encode(&data)).unwrap(), data);
        }
    }

    fn pack(json: &[u8]) -> String {
        format!("v1/{}", base64url_encode(&miniz_oxide::deflate::compress_to_vec(json, 6)))
    }

    #[test]
    fn typed_errors() {
        assert_eq!(decode("v2/abc"), Err(ShareError::UnknownVersion("v2".into())));
        assert_eq!(decode("hello"), Err(ShareError::UnknownVersion(String::new())));
        assert_eq!(decode("v1/ab*d"), Err(ShareError::BadBase64 { offset: 2 }));
        assert_eq!(decode("v1/a"), Err(ShareError::BadBase64 { offset: 1 }));
        assert_eq!(decode("v1/AAAA"), Err(ShareError::BadCompressedData));
        assert!(matches!(decode(&pack(b"{\"text\": 3}")), Err(ShareError::BadJson(_))));
        assert!(matches!(decode(&pack(b"not json")), Err(ShareError::BadJson(_))));
        assert_eq!(decode(&pack(b"{\"targetEnv\": \"spv1.0\"}")), Err(ShareError::MissingText));
        // A bomb: 3 MiB of spaces compresses to a few KiB.
        let mut big = alloc::vec![b' '; 3 << 20];
        big[0] = b'{';
        let f = pack(&big);
        assert!(f.len() < 20_000, "{}", f.len());
        assert_eq!(decode(&f), Err(ShareError::TooLarge));
        // Truncated link.
        let good = encode(&state());
        let cut = &good[..good.len() / 2];
        assert!(decode(cut).is_err());
        for e in [ShareError::TooLarge, ShareError::MissingText, ShareError::BadBase64 { offset: 3 }] {
            assert!(e.code().starts_with("share.") && !format!("{e}").is_empty());
        }
    }

    /// Deterministic pseudo-random mutations of valid links, and random strings:
    /// decoding returns (never panics), and a success holds text.
    #[test]
    fn hostile_input_never_panics() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let good = encode(&state());
        let alphabet: Vec<char> = "ABCxyz019-_=+/#%v1 \u{e9}\u{1F600}".chars().collect();
        let mut ok = 0;
        for round in 0..3000 {
            let mut chars: Vec<char> = good.chars().collect();
            let edits = 1 + (rnd() % 4) as usize;
            for _ in 0..edits {
                let len = chars.len().max(1);
                let at = (rnd() as usize) % len;
                match rnd() % 4 {
                    0 if !chars.is_empty() => {
                        chars.remove(at.min(chars.len() - 1));
                    }
                    1 => chars.insert(at.min(chars.len()), alphabet[(rnd() as usize) % alphabet.len()]),
                    2 if !chars.is_empty() => {
                        let i = at.min(chars.len() - 1);
                        chars[i] = alphabet[(rnd() as usize) % alphabet.len()];
                    }
                    _ => chars.truncate(at),
                }
            }
            let s: String = chars.into_iter().collect();
            if decode(&s).is_ok() {
                ok += 1;
            }
            // Random strings.
            let n = (rnd() % 64) as usize;
            let mut r = String::from(if round % 2 == 0 { "v1/" } else { "" });
            for _ in 0..n {
                r.push(alphabet[(rnd() as usize) % alphabet.len()]);
            }
            let _ = decode(&r);
        }
        assert!(ok < 3000);
    }
}
