//! Reads of several components that one instruction can make: a block's texture operations
//! or input attachment reads alike in everything but the component (`K`). Each run is done
//! where its first read is, its components landing in consecutive registers, lowest first.

use std::collections::HashMap;

use hw::isa::{Reg, Size};

use super::{Sel, Val};
use crate::g13::{vreg, word};
use crate::ir::Value;
use crate::CompileError;

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

impl Sel<'_> {
    /// The destination of a run's one instruction: a register of a word per component,
    /// whose words the run's results now are, and the component mask.
    pub(super) fn run_destination(
        &mut self,
        run: &[(u8, Value)],
    ) -> Result<(Reg, u8), CompileError> {
        let id = self.new_words(run.len())?;
        let mut mask = 0;
        for (k, &(c, v)) in run.iter().enumerate() {
            self.set(v, Val::Reg(word(id, k)))?;
            mask |= 1 << c;
        }
        Ok((vreg(id, 0, Size::S32), mask))
    }
}
