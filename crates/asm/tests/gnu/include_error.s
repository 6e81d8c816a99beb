nop
.include "inc/broken.s"
.include "inc/missing.s"
