//! The asynchronous write-backs a generated program has in flight (seed 000 §2.6), so that
//! no instruction reads or writes a register before the `waitcnt` that retires its pending
//! write: the generator waits for exactly the operations it must, by counter and position.

use std::collections::VecDeque;
use warpkit_isa::COUNTERS;

/// A set of registers: bit r of `v` for `v<r>`, of `u` for `u<r>`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Regs {
    /// Vector registers.
    pub v: u128,
    /// Uniform registers.
    pub u: u64,
}

impl Regs {
    /// Whether the two sets share a register.
    pub fn meets(self, other: Regs) -> bool {
        self.v & other.v != 0 || self.u & other.u != 0
    }

    /// Both sets.
    pub fn union(self, other: Regs) -> Regs {
        Regs {
            v: self.v | other.v,
            u: self.u | other.u,
        }
    }

    /// No register.
    pub fn is_empty(self) -> bool {
        self.v == 0 && self.u == 0
    }
}

/// The operations in flight per counter, oldest first, each with the registers it will
/// write. Over-approximates the model's queue (which may already have retired an operation
/// at the in-flight limit), so waits computed from it are always sufficient.
#[derive(Debug, Clone, Default)]
pub struct Pending {
    queues: Vec<VecDeque<Regs>>,
}

impl Pending {
    /// Nothing in flight.
    pub fn new() -> Pending {
        Pending {
            queues: vec![VecDeque::new(); COUNTERS.len()],
        }
    }

    /// An operation on `counter` that writes `regs` when it retires.
    pub fn issue(&mut self, counter: usize, regs: Regs) {
        self.queues[counter].push_back(regs);
    }

    /// Whether anything is in flight.
    pub fn any(&self) -> bool {
        self.queues.iter().any(|q| !q.is_empty())
    }

    /// Whether an operation writing one of `regs` is in flight.
    pub fn touches(&self, regs: Regs) -> bool {
        self.queues.iter().flatten().any(|r| r.meets(regs))
    }

    /// The `waitcnt` thresholds that retire every operation writing one of `regs`:
    /// `(counter, threshold)` per counter that needs a wait. In-order counters wait for
    /// the newest such operation, leaving the later ones in flight; `sm` (out of order)
    /// drains.
    pub fn waits_for(&self, regs: Regs) -> Vec<(usize, u32)> {
        let mut out = Vec::new();
        for (c, q) in self.queues.iter().enumerate() {
            let Some(newest) = q.iter().rposition(|r| r.meets(regs)) else {
                continue;
            };
            let def = &COUNTERS[c];
            let threshold = if def.in_order {
                // At the in-flight limit the oldest operations retire on issue, so more
                // than `max_outstanding` later ones can never be waited for.
                ((q.len() - 1 - newest) as u32).min(u32::from(def.max_outstanding))
            } else {
                0
            };
            out.push((c, threshold));
        }
        out
    }

    /// `waitcnt counter=threshold` was executed.
    pub fn wait(&mut self, counter: usize, threshold: u32) {
        let q = &mut self.queues[counter];
        let keep = if COUNTERS[counter].in_order {
            threshold as usize
        } else {
            0
        };
        while q.len() > keep {
            q.pop_front();
        }
    }

    /// The counters with anything in flight.
    pub fn busy(&self) -> Vec<usize> {
        (0..self.queues.len())
            .filter(|&c| !self.queues[c].is_empty())
            .collect()
    }

    /// Everything retired (a full `waitcnt`, or `endpgm`).
    pub fn clear(&mut self) {
        for q in &mut self.queues {
            q.clear();
        }
    }
}

/// `waitcnt` text for the given thresholds (the other counters do not wait).
pub fn waitcnt_text(waits: &[(usize, u32)]) -> String {
    let fields: Vec<String> = waits
        .iter()
        .map(|&(c, t)| format!("{}={t}", COUNTERS[c].name))
        .collect();
    format!("waitcnt {}", fields.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpkit_isa::counter_by_name;

    fn v(r: u32) -> Regs {
        Regs { v: 1 << r, u: 0 }
    }

    #[test]
    fn waits_only_as_far_as_needed() {
        let (vm, _) = counter_by_name("vm").unwrap();
        let (sm, _) = counter_by_name("sm").unwrap();
        let mut p = Pending::new();
        p.issue(vm, v(1));
        p.issue(vm, v(2));
        p.issue(vm, v(3));
        assert_eq!(p.waits_for(v(2)), vec![(vm, 1)]);
        assert!(p.waits_for(v(9)).is_empty());
        p.wait(vm, 1);
        assert!(!p.touches(v(1)) && !p.touches(v(2)) && p.touches(v(3)));
        p.issue(sm, Regs { v: 0, u: 4 });
        p.issue(sm, Regs { v: 0, u: 8 });
        assert_eq!(p.waits_for(Regs { v: 0, u: 4 }), vec![(sm, 0)]);
        assert_eq!(waitcnt_text(&[(vm, 0), (sm, 0)]), "waitcnt vm=0, sm=0");
    }
}
