//! A map whose entries live as long as the structured-control-flow construct that made
//! them: what instruction selection computed before an `if` or a loop dominates everything
//! inside and after it, what it computed inside an arm or a body dominates neither the other
//! arm nor what follows. Entering a construct takes a [`Mark`]; leaving it drops every entry
//! made since.

use std::collections::HashMap;
use std::hash::Hash;

pub(super) struct Scoped<K, V> {
    map: HashMap<K, V>,
    /// Every insertion with the value it replaced, so `release` can undo them in reverse.
    log: Vec<(K, Option<V>)>,
}

/// How far the log went when a construct was entered.
#[derive(Clone, Copy)]
pub(super) struct Mark(usize);

impl<K: Copy + Eq + Hash, V: Copy> Scoped<K, V> {
    pub(super) fn new() -> Self {
        Scoped {
            map: HashMap::new(),
            log: Vec::new(),
        }
    }

    pub(super) fn get(&self, k: &K) -> Option<V> {
        self.map.get(k).copied()
    }

    pub(super) fn insert(&mut self, k: K, v: V) {
        let old = self.map.insert(k, v);
        self.log.push((k, old));
    }

    pub(super) fn mark(&self) -> Mark {
        Mark(self.log.len())
    }

    /// Drops the entries made since `m`.
    pub(super) fn release(&mut self, m: Mark) {
        for (k, old) in self.log.drain(m.0..).rev() {
            match old {
                Some(v) => self.map.insert(k, v),
                None => self.map.remove(&k),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_made_inside_a_construct_end_with_it() {
        let mut s = Scoped::new();
        s.insert(1, 'a');
        let m = s.mark();
        s.insert(2, 'b');
        s.insert(1, 'c');
        assert_eq!(s.get(&2), Some('b'));
        s.release(m);
        assert_eq!(s.get(&2), None);
        assert_eq!(s.get(&1), Some('a'));
    }
}
