//! The CSR instructions' rules (seed 001 §3.3): reads, and writes with their access rights.

use crate::exec::ops::{hi, lo};
use crate::state::csr::{self, num, CsrWrite};
use crate::state::trap::{CAUSE_ILLEGAL_CSR, CAUSE_ILLEGAL_MODE};
use crate::state::{Core, Warp};

impl Warp {
    /// Read a CSR as `csrr` does: `None` for an unknown number. `clock`/`time` count the
    /// instructions retired / committed before the reading instruction.
    pub fn csr_read(&self, number: u32, core: &Core) -> Option<u32> {
        Some(match number {
            num::EXEC => self.exec(),
            num::CLOCK => lo(self.retired),
            num::CLOCKH => hi(self.retired),
            num::TIME => lo(core.committed),
            num::TIMEH => hi(core.committed),
            n => self.csr.get(n)?,
        })
    }

    /// A CSR instruction's write, with the rules of seed 001 §3.3: unknown or read-only CSR
    /// -> cause 9 (even when `csrs`/`csrc` would not change the value), an illegal `mode`
    /// value -> cause 8 with `mode` unchanged; `fflags` keeps bits [4:0].
    pub fn csr_write(
        &mut self,
        number: u32,
        how: CsrWrite,
        value: u32,
        core: &Core,
    ) -> Result<(), (u32, u32)> {
        let writable = warpkit_isa::csr_by_number(number).is_some_and(|d| d.writable);
        let old = match self.csr_read(number, core) {
            Some(old) if writable => old,
            _ => return Err((CAUSE_ILLEGAL_CSR, number)),
        };
        let new = match how {
            CsrWrite::Write => value,
            CsrWrite::Set => old | value,
            CsrWrite::Clear => old & !value,
        };
        match number {
            num::EXEC => self.set_exec(new),
            num::MODE if !csr::mode::is_valid(new) => return Err((CAUSE_ILLEGAL_MODE, new)),
            n => {
                if !self.csr.set(n, new) {
                    return Err((CAUSE_ILLEGAL_CSR, number));
                }
            }
        }
        Ok(())
    }
}
