.macro addk dst, src, k=1
  add.vi \dst, \src, \k
.endm
.macro twice:req x
.endm
.macro again
  again
.endm
addk v1, v2, 300
addk v1, v2, 1, 2
addk k=bogus, dst=v1, src=v2
.rept 2
  unknown\@ v1
.endr
.rept later
.endr
.include "nowhere.s"
.include nowhere.s
.include "gnu_directives.s"
again
.endm
.rept 1
