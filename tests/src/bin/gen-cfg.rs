//! `gen-cfg`: write a big valid structured function (for the validator benchmarks).
//!
//! `gen-cfg [--blocks N] [--depth D] [--seed S] -o OUT.spvasm`: one function of at
//! least N blocks (default 100,000) of randomly nested selections, loops (with
//! continue constructs) and switches, up to D constructs deep (default 200), made
//! by the random structured CFG generator of the tests (tests/src/cfggen.rs).

use spvlab_tests::cfggen::{Config, Func, Rng};

fn main() {
    let mut blocks = 100_000usize;
    let mut depth = 200usize;
    let mut seed = 1u64;
    let mut out: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().unwrap_or_else(|| die(&format!("{name} needs a value")));
        match a.as_str() {
            "--blocks" => blocks = value("--blocks").parse().unwrap_or_else(|_| die("bad --blocks")),
            "--depth" => depth = value("--depth").parse().unwrap_or_else(|_| die("bad --depth")),
            "--seed" => seed = value("--seed").parse().unwrap_or_else(|_| die("bad --seed")),
            "-o" => out = Some(value("-o")),
            "-h" | "--help" => {
                println!("usage: gen-cfg [--blocks N] [--depth D] [--seed S] -o OUT.spvasm");
                return;
            }
            other => die(&format!("unknown argument `{other}`")),
        }
    }
    let Some(out) = out else { die("-o OUT.spvasm is required") };
    let mut rng = Rng::new(seed);
    let f = Func::generate(&mut rng, Config { blocks, max_depth: depth, dead_blocks: 3, fill: true });
    let text = f.module_text();
    std::fs::write(&out, &text).unwrap_or_else(|e| die(&format!("cannot write {out}: {e}")));
    let deepest = depth_of(&f);
    eprintln!("gen-cfg: {out}: {} blocks, {} bytes, nesting up to {deepest}", f.blocks.len(), text.len());
}

/// The deepest nesting of merge instructions along the layout (a rough measure:
/// a header opens a level that its merge block closes).
fn depth_of(f: &Func) -> usize {
    use spvlab_tests::cfggen::Merge;
    let mut open: Vec<u32> = Vec::new();
    let mut deepest = 0;
    for b in &f.blocks {
        while open.last() == Some(&b.label) {
            open.pop();
        }
        open.retain(|&m| m != b.label);
        if let Some(Merge::Selection(m) | Merge::Loop(m, _)) = &b.merge {
            open.push(*m);
            deepest = deepest.max(open.len());
        }
    }
    deepest
}

fn die(msg: &str) -> ! {
    eprintln!("gen-cfg: {msg}");
    std::process::exit(2)
}
