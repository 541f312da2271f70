//! The index a [`super::worlds::WorldBuilder`] looks children up in: world key -> (place in the
//! set, weight so far), by open addressing with linear probing.
//!
//! An expansion looks up every child it keeps in a table of up to `max_children` entries, far
//! larger than a core's cache, so each lookup waits for memory. Here a lookup reads one slot and
//! the few after it (one cache line, mostly), where a general-purpose map reads a control
//! group and then the slot (two); and the slot a key will land in can be fetched ahead
//! ([`KeyIndex::prefetch`]), so that the lookups of one parent's children wait together.

use crate::core::hash::GOLDEN_GAMMA;

/// One entry: a key, where its world is in the set, and its weight so far.
#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    weight: f64,
    /// The world's place in the set; [`VACANT`] for an empty slot.
    index: u32,
}

/// The `index` of an empty slot.
const VACANT: u32 = u32::MAX;
/// Most entries per 4 slots before the table doubles (a load of 3/4 keeps probes short).
const LOAD_PER_4: usize = 3;

/// World key -> (place in the set, weight).
#[derive(Default)]
pub(super) struct KeyIndex {
    slots: Vec<Slot>,
    len: usize,
}

impl KeyIndex {
    /// An index with room for `n` entries before it grows.
    pub(super) fn with_capacity(n: usize) -> KeyIndex {
        let mut index = KeyIndex::default();
        index.resize(slots_for(n));
        index
    }

    /// The place and weight of `key`, if held.
    pub(super) fn get(&self, key: u64) -> Option<(u32, f64)> {
        if self.slots.is_empty() {
            return None;
        }
        let slot = &self.slots[self.find(key)];
        (slot.index != VACANT).then_some((slot.index, slot.weight))
    }

    /// Adds `weight` to `key`'s entry if it is held and returns false; else stores `key` with
    /// place `index()` and weight `weight` and returns true.
    pub(super) fn add(&mut self, key: u64, weight: f64, index: impl FnOnce() -> u32) -> bool {
        if 4 * (self.len + 1) > LOAD_PER_4 * self.slots.len() {
            self.resize(slots_for(2 * self.len + 1));
        }
        let at = self.find(key);
        let slot = &mut self.slots[at];
        if slot.index != VACANT {
            slot.weight += weight;
            return false;
        }
        *slot = Slot { key, weight, index: index() };
        self.len += 1;
        true
    }

    /// Every entry's place and weight, in no particular order.
    pub(super) fn entries(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.slots.iter().filter(|s| s.index != VACANT).map(|s| (s.index, s.weight))
    }

    /// Asks the processor to start fetching the slot where `key` would be looked up (a hint:
    /// nothing is read and nothing can go wrong).
    pub(super) fn prefetch(&self, key: u64) {
        if !self.slots.is_empty() {
            prefetch(&self.slots[self.home(key)]);
        }
    }

    /// The slot `key` probing starts at (the table is not empty).
    fn home(&self, key: u64) -> usize {
        // Keys are Zobrist keys (uniform bits); the multiplication spreads any that are not.
        let bits = self.slots.len().trailing_zeros();
        (key.wrapping_mul(GOLDEN_GAMMA) >> (64 - bits)) as usize
    }

    /// The slot holding `key`, or the empty one where it would go (the table has one).
    fn find(&self, key: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut at = self.home(key);
        loop {
            let slot = &self.slots[at];
            if slot.index == VACANT || slot.key == key {
                return at;
            }
            at = (at + 1) & mask;
        }
    }

    /// Moves every entry into a table of `n` slots (a power of two, more than the entries).
    fn resize(&mut self, n: usize) {
        let old = std::mem::replace(&mut self.slots, vec![Slot { key: 0, weight: 0.0, index: VACANT }; n]);
        for slot in old.into_iter().filter(|s| s.index != VACANT) {
            let at = self.find(slot.key);
            self.slots[at] = slot;
        }
    }
}

/// Slots for `n` entries within the load limit: a power of two, at least 16.
fn slots_for(n: usize) -> usize {
    (4 * n).div_ceil(LOAD_PER_4).max(16).next_power_of_two()
}

/// Asks the processor to start fetching the cache lines of `value` (a hint: it reads nothing).
#[inline(always)]
pub(super) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        let start = value as *const T as *const i8;
        for offset in (0..std::mem::size_of::<T>()).step_by(64) {
            // SAFETY: a prefetch only hints the cache; it never faults, even on a bad address.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(start.wrapping_add(offset))
            };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::KeyIndex;
    use std::collections::HashMap;

    #[test]
    fn holds_what_a_map_holds_through_growth_and_colliding_keys() {
        // 2,100 distinct keys, each added about twice, in a table that starts at 16 slots: it
        // grows several times, and near its load limit keys share home slots and probe on.
        let keys: Vec<u64> = (0..5_000u64).map(|i| (i % 700) | ((i % 3) << 60)).collect();
        let mut index = KeyIndex::with_capacity(4);
        let mut map: HashMap<u64, (u32, f64)> = HashMap::new();
        for (n, &key) in keys.iter().enumerate() {
            let fresh = !map.contains_key(&key);
            let place = map.len() as u32;
            let entry = map.entry(key).or_insert((place, 0.0));
            entry.1 += n as f64;
            assert_eq!(index.add(key, n as f64, || place), fresh, "key {key:#x}");
        }
        assert_eq!(index.entries().count(), map.len());
        for (&key, &(place, weight)) in &map {
            assert_eq!(index.get(key), Some((place, weight)), "key {key:#x}");
        }
        assert_eq!(index.get(1 << 59), None);
        let mut entries: Vec<(u32, f64)> = index.entries().collect();
        entries.sort_by_key(|e| e.0);
        let mut expected: Vec<(u32, f64)> = map.values().copied().collect();
        expected.sort_by_key(|e| e.0);
        assert_eq!(entries, expected);
    }
}
