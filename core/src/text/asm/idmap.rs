//! Small open-addressing hash maps (FxHash-style) for the assembler: names to ids,
//! and ids to facts about them. No dependency beyond `alloc`.

use alloc::vec;
use alloc::vec::Vec;

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

#[inline]
fn hash_bytes(b: &[u8]) -> u64 {
    let mut h: u64 = 0;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(SEED);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(SEED);
    }
    let h = (h.rotate_left(5) ^ b.len() as u64).wrapping_mul(SEED);
    // Multiplication leaves the entropy in the high bits: fold it down.
    h ^ (h >> 32) ^ (h >> 47)
}

/// A map from borrowed names to values. Each slot keeps its key's hash, so a
/// probe compares bytes only when the hashes match.
pub struct NameMap<'a, V> {
    slots: Vec<Option<(u32, &'a str, V)>>,
    len: usize,
}

impl<'a, V: Copy> NameMap<'a, V> {
    pub fn new() -> Self {
        NameMap { slots: vec![None; 64], len: 0 }
    }

    /// The slot of `key` (holding it, or empty where it would go).
    fn find(&self, key: &str, h: u64) -> usize {
        let mask = self.slots.len() - 1;
        let tag = h as u32;
        let mut i = (h >> 32) as usize & mask;
        loop {
            match &self.slots[i] {
                Some((t, k, _)) if *t != tag || *k != key => i = (i + 1) & mask,
                _ => return i,
            }
        }
    }

    pub fn get(&self, key: &str) -> Option<V> {
        self.slots[self.find(key, hash_bytes(key.as_bytes()))].as_ref().map(|&(_, _, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        let i = self.find(key, hash_bytes(key.as_bytes()));
        self.slots[i].as_mut().map(|(_, _, v)| v)
    }

    pub fn insert(&mut self, key: &'a str, v: V) {
        // At most half full: short probe sequences.
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let h = hash_bytes(key.as_bytes());
        let i = self.find(key, h);
        if self.slots[i].is_none() {
            self.len += 1;
        }
        self.slots[i] = Some((h as u32, key, v));
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        let old = core::mem::replace(&mut self.slots, vec![None; n]);
        for (t, k, v) in old.into_iter().flatten() {
            let i = self.find(k, hash_bytes(k.as_bytes()));
            self.slots[i] = Some((t, k, v));
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'a str, V)> + '_ {
        self.slots.iter().flatten().map(|&(_, k, v)| (k, v))
    }
}

/// A map from ids to values: a dense vector for small ids, a hash table beyond.
pub struct IdTable<V> {
    dense: Vec<Option<V>>,
    sparse: Vec<Option<(u32, V)>>,
    sparse_len: usize,
}

const DENSE_LIMIT: u32 = 1 << 22;

impl<V: Copy> IdTable<V> {
    pub fn new() -> Self {
        IdTable { dense: Vec::new(), sparse: vec![None; 16], sparse_len: 0 }
    }

    fn sfind(&self, id: u32) -> usize {
        let mask = self.sparse.len() - 1;
        let mut i = (id as u64).wrapping_mul(SEED) as usize >> 7 & mask;
        loop {
            match &self.sparse[i] {
                Some((k, _)) if *k != id => i = (i + 1) & mask,
                _ => return i,
            }
        }
    }

    pub fn get(&self, id: u32) -> Option<V> {
        if id < DENSE_LIMIT {
            self.dense.get(id as usize).copied().flatten()
        } else {
            self.sparse[self.sfind(id)].map(|(_, v)| v)
        }
    }

    pub fn insert(&mut self, id: u32, v: V) {
        if id < DENSE_LIMIT {
            let i = id as usize;
            if i >= self.dense.len() {
                self.dense.resize((i + 1).max(self.dense.len() * 2), None);
            }
            self.dense[i] = Some(v);
        } else {
            if (self.sparse_len + 1) * 4 > self.sparse.len() * 3 {
                let n = self.sparse.len() * 2;
                let old = core::mem::replace(&mut self.sparse, vec![None; n]);
                for (k, v) in old.into_iter().flatten() {
                    let i = self.sfind(k);
                    self.sparse[i] = Some((k, v));
                }
            }
            let i = self.sfind(id);
            if self.sparse[i].is_none() {
                self.sparse_len += 1;
            }
            self.sparse[i] = Some((id, v));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_map_grows_and_finds() {
        let names: Vec<alloc::string::String> = (0..1000).map(|i| alloc::format!("n{i}")).collect();
        let mut m = NameMap::new();
        for (i, n) in names.iter().enumerate() {
            m.insert(n.as_str(), i as u32);
        }
        for (i, n) in names.iter().enumerate() {
            assert_eq!(m.get(n), Some(i as u32));
        }
        assert_eq!(m.get("zz"), None);
    }

    #[test]
    fn id_table_dense_and_sparse() {
        let mut t = IdTable::new();
        t.insert(3, 'a');
        t.insert(4_000_000_000, 'b');
        assert_eq!(t.get(3), Some('a'));
        assert_eq!(t.get(4_000_000_000), Some('b'));
        assert_eq!(t.get(5), None);
    }
}
