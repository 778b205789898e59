//! The graphics benchmark's native side (bench/graphics.sh): each Amber
//! script given (one that loads no file, as every GraphicsFuzz test) parsed
//! and run on the interpreter with the default options, on this thread,
//! timed; prints each time and the median, as bench/wasm/frames.mjs does
//! for the wasm build's `amber_run`.
//!
//!   amber-frames FILE...

use spvlab_core::amber;
use std::time::Instant;

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: amber-frames FILE...");
        std::process::exit(2);
    }
    let mut times = Vec::new();
    let mut passed = 0;
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            eprintln!("{f}: cannot read");
            std::process::exit(2);
        };
        let t = Instant::now();
        let ok = amber::parse(&text).and_then(|s| amber::run_with(&s, &amber::RunOptions::default())).is_ok_and(|o| o.passed());
        let ms = t.elapsed().as_secs_f64() * 1e3;
        passed += usize::from(ok);
        times.push(ms);
        println!("{ms:.2} {} {f}", if ok { "pass" } else { "fail" });
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let total: f64 = times.iter().sum();
    println!("native: {} tests, {passed} pass, median {median:.1} ms, total {total:.0} ms", files.len());
}
