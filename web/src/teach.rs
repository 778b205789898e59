//! The teaching view across the boundary: `session.teachJson(fn)`
//! gives the last analysis's [`TeachView`] of a function as JSON text (the
//! page's CFG panel: compare mode, the construct explorer). The logic is in
//! core (`spvlab_core::analysis::teach`).

use crate::Session;
use spvlab_core::analysis::teach::TeachView;
use wasm_bindgen::prelude::*;

impl Session {
    /// The teaching view of function `function` (none: the first with
    /// blocks) of the last analysis; none without one.
    pub fn teach(&self, function: Option<u32>) -> Option<TeachView> {
        self.analysis.as_ref().and_then(|a| a.teach(function))
    }
}

#[wasm_bindgen]
impl Session {
    /// `session.teachJson(functionId?)` → the `TeachView` as JSON text
    /// (`null` without an analysis or such a function).
    #[wasm_bindgen(js_name = teachJson)]
    pub fn js_teach_json(&self, function_id: Option<u32>) -> Result<String, JsValue> {
        serde_json::to_string(&self.teach(function_id)).map_err(|e| JsValue::from_str(&e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fig. 6 through the session: compare mode marks b4, b5 and b6 (the
    /// selection construct of b4 is empty under 1.6r1, {b4, b5, b6} under
    /// 1.6r2: Klimis et al. sections 3.4 and 4.3), each with the vacuous fact.
    #[test]
    fn fig6_compare_through_session() {
        let text = include_str!("../../www/src/gallery/examples/paper-fig6.spvasm");
        let mut s = Session::default();
        s.analyze_text(text, "spv1.6").unwrap();
        let t = s.teach(None).unwrap();
        let json = serde_json::to_value(&t).unwrap();
        let r = s.analyze_text(text, "spv1.6").unwrap();
        let name = |id: u64| r.functions[0].blocks.iter().find(|b| b.id as u64 == id).unwrap().name.clone();
        let mut marked: Vec<String> = json["differing"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["construct"] == "selection construct of %b4")
            .map(|n| name(n["block"].as_u64().unwrap()))
            .collect();
        marked.sort();
        assert_eq!(marked, ["b4", "b5", "b6"]);
        assert!(json["differing"][0]["note"].as_str().unwrap().contains("vacuously"));
    }

    /// (block name, note) pairs.
    type Notes = Vec<(String, String)>;

    /// The differing and masked notes of a gallery example.
    fn notes(file: &str) -> (Notes, Notes) {
        let mut s = Session::default();
        let r = s.analyze_text(file, "spv1.6").unwrap();
        let t = s.teach(None).unwrap();
        let name = |id: u32| r.functions[0].blocks.iter().find(|b| b.id == id).unwrap().name.clone();
        let f = |v: &[spvlab_core::analysis::teach::BlockNote]| v.iter().map(|n| (name(n.block), n.note.clone())).collect();
        (f(&t.differing), f(&t.masked))
    }

    /// Fig. 8 (sections 3.5 and 4.3): the continue construct of b3's loop is
    /// {b4} under both revisions, but b5 and b6 are out of it for different
    /// reasons: masked, with 1.6r1's vacuous post-dominance as the note.
    #[test]
    fn fig8_masked_through_session() {
        let (differing, masked) = notes(include_str!("../../www/src/gallery/examples/paper-fig8.spvasm"));
        for b in ["b5", "b6"] {
            let n = masked.iter().find(|(x, n)| x == b && n.contains("continue construct %b4 of loop %b3")).unwrap();
            assert!(n.1.contains(&format!("%b4 post-dominates %{b} under 1.6r1 vacuously")), "{}", n.1);
        }
        assert!(!differing.iter().any(|(_, n)| n.contains("continue construct %b4")), "{differing:?}");
        // Only b5 and b6 are marked masked (b6 also for the loop of b3, which
        // 1.6r1's merge clause alone keeps it out of).
        let mut blocks: Vec<&str> = masked.iter().map(|(b, _)| b.as_str()).collect();
        blocks.sort_unstable();
        blocks.dedup();
        assert_eq!(blocks, ["b5", "b6"], "{masked:#?}");
    }
}
