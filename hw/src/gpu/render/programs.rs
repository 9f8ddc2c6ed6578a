//! USC programs a render starts (vertex, fragment and tile programs), read once per render:
//! their USC words and decoded code, cached by the address of the words.

use crate::gpu::usc::{self, Program};
use crate::gpu::usc_words::{read_usc_words, UscState};
use crate::gpu::{Fault, GpuMemory};
use std::collections::HashMap;
use std::sync::Arc;

/// A program ready to launch.
#[derive(Debug)]
pub struct Loaded {
    pub words: UscState,
    pub program: Arc<Program>,
}

/// The programs one render has loaded.
pub struct Programs {
    exec_base: u64,
    cache: HashMap<u32, Arc<Loaded>>,
}

impl Programs {
    pub fn new(exec_base: u64) -> Programs {
        Programs {
            exec_base,
            cache: HashMap::new(),
        }
    }

    /// The program whose USC words are at USC address `usc` (offset from the exec base).
    pub fn load(&mut self, mem: &dyn GpuMemory, usc: u32) -> Result<Arc<Loaded>, Fault> {
        if let Some(p) = self.cache.get(&usc) {
            return Ok(p.clone());
        }
        let va = self.exec_base.wrapping_add(u64::from(usc));
        let words = read_usc_words(mem, va)?;
        let code = words.code.ok_or_else(|| Fault::BadControlWord {
            va,
            reason: "USC words name no shader".into(),
        })?;
        let program = usc::load_program(mem, self.exec_base.wrapping_add(u64::from(code)))?;
        let p = Arc::new(Loaded { words, program });
        self.cache.insert(usc, p.clone());
        Ok(p)
    }
}
