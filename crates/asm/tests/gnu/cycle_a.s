.include "cycle_b.s"
