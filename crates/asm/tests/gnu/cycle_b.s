nop
.include "cycle_a.s"
