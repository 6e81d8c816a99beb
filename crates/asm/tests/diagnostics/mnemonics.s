// Unknown mnemonics get an edit-distance suggestion when one is close.
ad v1, v2, v3
    ADDX v1, v2, v3
frobnicate v1
label: mov.k v3, 1.5
add v1, v2, v3   # fine; mnemonics are case-insensitive:
ADD.VI v1, v2, 3
