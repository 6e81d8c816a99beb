nop
bogus
