//! Id tables and lock handling shared by the simulated kernel's objects.

use crate::{Errno, KmdResult};
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Take a lock even if a thread panicked while holding it: every critical section in the
/// simulator leaves its data consistent before anything that could panic, and an ioctl must
/// answer rather than propagate another thread's panic.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(crate) fn read<T>(l: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(PoisonError::into_inner)
}

pub(crate) fn write<T>(l: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(PoisonError::into_inner)
}

/// Insert under the lowest free id from 1 up, as the kernel's idr/xarray allocators do, so ids
/// are reused after destruction exactly as on real hardware.
pub(crate) fn insert_lowest<V>(map: &mut BTreeMap<u32, V>, value: V) -> KmdResult<u32> {
    let id = lowest_free(map)?;
    map.insert(id, value);
    Ok(id)
}

/// The id [`insert_lowest`] would use, for objects that must know their id when built.
pub(crate) fn lowest_free<V>(map: &BTreeMap<u32, V>) -> KmdResult<u32> {
    let mut want: u32 = 1;
    for &k in map.keys() {
        if k != want {
            break;
        }
        want = want.checked_add(1).ok_or(libc::ENOSPC as Errno)?;
    }
    Ok(want)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_free_id_is_reused() {
        let mut m = BTreeMap::new();
        assert_eq!(insert_lowest(&mut m, 'a'), Ok(1));
        assert_eq!(insert_lowest(&mut m, 'b'), Ok(2));
        assert_eq!(insert_lowest(&mut m, 'c'), Ok(3));
        m.remove(&2);
        assert_eq!(insert_lowest(&mut m, 'd'), Ok(2));
        assert_eq!(insert_lowest(&mut m, 'e'), Ok(4));
    }
}
