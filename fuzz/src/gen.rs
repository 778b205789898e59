pub fn big_module(_seed: u64, _min_bytes: usize) -> String { String::new() }
