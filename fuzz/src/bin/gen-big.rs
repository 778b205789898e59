//! `gen-big [-o OUT] [--seed S] [--min-bytes N]`: write the big benchmark module
//! (default: 6 MB of text, seed 1) to OUT or stdout.

fn main() {
    let mut out: Option<String> = None;
    let mut seed = 1u64;
    let mut min = 6_000_000usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next();
        let bad = || -> ! {
            eprintln!("usage: gen-big [-o OUT] [--seed S] [--min-bytes N]");
            std::process::exit(2)
        };
        match (a.as_str(), v) {
            ("-o", Some(v)) => out = Some(v),
            ("--seed", Some(v)) => seed = v.parse().unwrap_or_else(|_| bad()),
            ("--min-bytes", Some(v)) => min = v.parse().unwrap_or_else(|_| bad()),
            _ => bad(),
        }
    }
    let text = spvlab_fuzz::r#gen::big_module(seed, min);
    match out {
        Some(p) => {
            if let Err(e) = std::fs::write(&p, &text) {
                eprintln!("gen-big: cannot write {p}: {e}");
                std::process::exit(1);
            }
            eprintln!(
                "gen-big: wrote {p} ({} bytes, {} lines)",
                text.len(),
                text.lines().count()
            );
        }
        None => print!("{text}"),
    }
}
