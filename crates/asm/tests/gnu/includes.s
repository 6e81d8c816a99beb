// Includes are found next to the including file.
.include "inc/defs.s"
addk3 v1, v2
.include "inc/defs_again.s"
