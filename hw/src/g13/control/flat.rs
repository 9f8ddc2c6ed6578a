//! Bytes at a GPU address: the memory the stream readers' tests read from.

use crate::{WordError, WordSource};

pub struct Flat {
    base: u64,
    bytes: Vec<u8>,
}

/// A read outside the bytes, or what the reader found wrong with them.
#[derive(Debug, PartialEq)]
pub enum FlatError {
    Outside(u64),
    Word(WordError),
}

impl From<WordError> for FlatError {
    fn from(e: WordError) -> FlatError {
        FlatError::Word(e)
    }
}

impl Flat {
    pub fn with(base: u64, bytes: &[u8]) -> Flat {
        Flat {
            base,
            bytes: bytes.to_vec(),
        }
    }
}

impl WordSource for Flat {
    type Error = FlatError;

    fn read_words(&self, va: u64, buf: &mut [u8]) -> Result<(), FlatError> {
        let start = va.checked_sub(self.base).ok_or(FlatError::Outside(va))? as usize;
        let src = start
            .checked_add(buf.len())
            .and_then(|end| self.bytes.get(start..end))
            .ok_or(FlatError::Outside(va))?;
        buf.copy_from_slice(src);
        Ok(())
    }
}
