.macro addk3 dst, src
  add.vi \dst, \src, 3
.endm
