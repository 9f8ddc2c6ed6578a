//! Reads of several components that one instruction can make: a block's texture operations
//! or input attachment reads alike in everything but the component (`K`). Each run is done
//! where its first read is, its components landing in consecutive registers, lowest first.

use std::collections::HashMap;

use crate::ir::Value;

/// One group: its key, its first read's result, and the (component, result) of each read.
type Group<K> = (K, Value, Vec<(u8, Value)>);

pub(super) struct ComponentRuns<K> {
    open: Vec<Group<K>>,
    closed: Vec<Group<K>>,
}

impl<K: PartialEq> ComponentRuns<K> {
    pub fn new() -> Self {
        ComponentRuns {
            open: Vec::new(),
            closed: Vec::new(),
        }
    }

    /// A read of `component` into `d`. A component read again keeps its first read.
    pub fn add(&mut self, key: K, component: u8, d: Value) {
        match self.open.iter_mut().find(|g| g.0 == key) {
            Some(g) => {
                if !g.2.iter().any(|&(c, _)| c == component) {
                    g.2.push((component, d));
                }
            }
            None => self.open.push((key, d, vec![(component, d)])),
        }
    }

    /// A write to memory: a later read may see what it wrote, so it starts a new run.
    pub fn close(&mut self) {
        self.closed.append(&mut self.open);
    }

    /// The runs of two or more components, by the first read's result.
    pub fn finish(self) -> HashMap<Value, Vec<(u8, Value)>> {
        let mut runs = HashMap::new();
        for (_, first, mut comps) in self.closed.into_iter().chain(self.open) {
            if comps.len() >= 2 {
                comps.sort_by_key(|&(c, _)| c);
                runs.insert(first, comps);
            }
        }
        runs
    }
}
