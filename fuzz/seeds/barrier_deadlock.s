// Warp 0 waits at a barrier that warp 1, spinning until its step limit, never reaches:
// with a small --max-steps, a reported deadlock (a checkpoint seed that holds one).
    bnz     u29, .Lspin
    barrier
    endpgm
.Lspin:
    jmp     .Lspin
