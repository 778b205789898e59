//! The wasm-bindgen facade of spvlab for the page.
