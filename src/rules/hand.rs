//! A Crazyhouse hand: how many pieces of each role a player holds in reserve.

use crate::core::Role;

/// Counts of pieces in hand, per role (only pawn to queen are ever non-zero).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Hand {
    counts: [u8; Role::COUNT],
}

impl Hand {
    /// How many pieces of `role` the hand holds.
    #[inline(always)]
    pub fn count(&self, role: Role) -> u8 {
        self.counts[role.index()]
    }

    /// Adds one piece of `role`.
    #[inline(always)]
    pub fn add(&mut self, role: Role) {
        self.counts[role.index()] = self.counts[role.index()].saturating_add(1);
    }

    /// Removes one piece of `role`; the hand must hold one.
    #[inline(always)]
    pub fn remove(&mut self, role: Role) {
        debug_assert!(self.counts[role.index()] > 0);
        self.counts[role.index()] -= 1;
    }

    /// True if the hand holds nothing.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.counts.iter().all(|&c| c == 0)
    }

    /// Total number of pieces held.
    pub fn total(&self) -> u32 {
        self.counts.iter().map(|&c| c as u32).sum()
    }

    /// The roles held (each once), in [`Role::HAND`] order.
    #[inline(always)]
    pub fn roles(&self) -> impl Iterator<Item = Role> + '_ {
        Role::HAND.into_iter().filter(|&r| self.count(r) > 0)
    }
}
