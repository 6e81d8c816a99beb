addk3 v1, v2
.include "nested/nop.s"
